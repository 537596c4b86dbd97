"""Kernels run with numba's bounds checking on (issue 22 part 2).

A negative attack count once reached the Fantasy chain kernel unchecked and wrote past
its histogram (``corrupted size vs. prev_size``, exit 134). The validation layer now
refuses it before any engine; this file makes sure the next such slip fails a test
instead of corrupting memory: a kernel-focused subset of the suite is run again in a
subprocess with ``NUMBA_BOUNDSCHECK=1`` (its machine code cached in its own folder, see
``mathhammer.kernels``), where an out-of-range index raises ``IndexError``.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.test_reliability_harness import ROOT

CHECKED = os.environ.get("NUMBA_BOUNDSCHECK", "0") not in ("", "0")
#: the kernel-focused tests run again under bounds checking (dice streams, the Fantasy
#: chain, the Warmachine chain and damage grid: the kernels with index arithmetic)
SUBSET = ["tests/test_kernels_dice.py", "tests/test_fb_chain_mc.py", "tests/test_wm_chain_mc.py",
          "tests/test_wm_grid.py", "tests/test_boundscheck.py"]


def _checked_env() -> dict[str, str]:
    """The environment of the checked run: NUMBA_CACHE_DIR dropped, since this process
    may have set it to the unchecked cache (numba's cache key leaves the flag out, so
    unchecked machine code would be loaded and an overrun would corrupt memory again)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    return {**env, "NUMBA_BOUNDSCHECK": "1", "PYTEST_ADDOPTS": "", "PYTHONPATH": str(ROOT)}


@pytest.mark.skipif(CHECKED, reason="this is the outer run")
def test_kernel_subset_passes_with_bounds_checking():
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
         "-x", *SUBSET], cwd=ROOT, capture_output=True, text=True, timeout=900,
        env=_checked_env())
    tail = proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    assert " passed" in proc.stdout and "failed" not in proc.stdout, tail


#: the Fantasy battle kernels (issue 30): scripted against the reference engine, greedy, and a
#: best response through probe passes and forgotten fights. Slow: the checked machine code of
#: the battle kernels compiles for many minutes cold (in its own cache folder)
BATTLE_SUBSET = [
    "tests/test_boundscheck.py::test_bounds_checking_is_on_in_the_kernels",
    "tests/test_fb_battle_policies.py::test_the_kernel_and_the_reference_engine_agree",
    "tests/test_fb_battle_policies.py::test_greedy_reports_its_first_decisions",
    "tests/test_fb_battle_policies.py::test_the_answer_does_not_depend_on_the_tables_already_built",
    "tests/test_fb_battle_policies.py::test_forgetting_the_fights_between_battles_keeps_the_answer",
    "tests/test_fb_battle_policies.py::"
    "test_a_battle_played_again_goes_on_from_its_last_step_before_the_miss",
    # the phases added since: magic (FB-B12), war machines (FB-WM2), challenges (FB-B20),
    # panic from a friend (FB-B21), each on the kernel
    "tests/test_fb_battle_magic.py::test_a_magic_only_battle_is_the_magic_engine_times_the_chain",
    "tests/test_fb_battle_war_machines.py::test_a_cannon_alone_is_the_artillery_engine",
    "tests/test_fb_battle_challenges.py::test_an_accepted_challenge_fights_as_fb_combat",
    "tests/test_fb_battle_panic.py::test_a_friend_breaking_nearby_makes_a_unit_panic",
    # overrun and a pursuit reaching a new enemy (FB-B22)
    "tests/test_fb_battle_overrun.py::test_an_overrun_into_a_unit_in_line_is_a_new_combat[kernel-2000]",
    "tests/test_fb_battle_overrun.py::test_a_pursuit_into_a_unit_in_line_is_a_new_combat[kernel-2000]",
    # augments, hexes and spells in play (FB-B30, FB-B31): fight codes, miss rows, dispels
    "tests/test_fb_battle_spells.py::"
    "test_a_hex_then_a_combat_is_the_combat_engines_round_with_the_hexed_profile[True]",
    "tests/test_fb_battle_spells.py::"
    "test_the_kernel_and_the_reference_engine_agree_on_augments_and_hexes[wfb8-greedy-300]",
]


@pytest.mark.slow
@pytest.mark.skipif(CHECKED, reason="this is the outer run")
def test_fantasy_battle_kernels_pass_with_bounds_checking():
    _passes_checked(BATTLE_SUBSET, len(BATTLE_SUBSET))


def _passes_checked(subset: list[str], tests: int) -> None:
    """The subset run in a bounds-checked subprocess: every one of its ``tests`` passes."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *subset],
        cwd=ROOT, capture_output=True, text=True, timeout=3600, env=_checked_env())
    tail = proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    assert f"{tests} passed" in proc.stdout and "failed" not in proc.stdout, tail


#: the jitted exact round of the greedy values (kernels/combat_exact.py) against the Python engine
EXACT_ROUND_SUBSET = [
    "tests/test_boundscheck.py::test_bounds_checking_is_on_in_the_kernels",
    "tests/test_fb_exact_one_round.py",
]


@pytest.mark.slow
@pytest.mark.skipif(CHECKED, reason="this is the outer run")
def test_exact_round_kernel_passes_with_bounds_checking():
    _passes_checked(EXACT_ROUND_SUBSET, 5)  # the check that bounds are on + the file's 4


@pytest.mark.skipif(not CHECKED, reason="runs inside the bounds-checked subprocess only")
def test_bounds_checking_is_on_in_the_kernels():
    """An out-of-range write in a kernel is an IndexError here, not silent corruption."""
    from numba import njit

    import mathhammer.kernels  # noqa: F401 (cache folder chosen for checked code)

    @njit
    def poke(a, i):
        a[i] = 1

    with pytest.raises(IndexError):
        poke(np.zeros(3, np.int64), 3)
    assert os.environ["NUMBA_CACHE_DIR"].endswith("-boundscheck")  # its own cache folder


@pytest.mark.skipif(not CHECKED, reason="runs inside the bounds-checked subprocess only")
def test_an_unchecked_negative_attack_count_fails_loudly(monkeypatch):
    """Skip the validation on purpose: the chain kernel then raises instead of writing
    past its array (the memory corruption of `fb attack --attacks=-1 --method mc`)."""
    from fractions import Fraction

    from mathhammer.engine import MonteCarloConfig
    from mathhammer.fantasy.chain import mc as chain_mc
    from mathhammer.fantasy.chain.core import AttackSpec

    monkeypatch.setattr(chain_mc, "_attacks_fractions", lambda attacks: {-1: Fraction(1)})
    spec = AttackSpec(ws=4, target_ws=3, strength=4, toughness=4)
    with pytest.raises((IndexError, ValueError)):
        chain_mc.chain_monte_carlo(spec, -1, "wfb8", MonteCarloConfig(n_trials=20_000, seed=2,
                                                                        threads=1))
