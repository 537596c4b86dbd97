"""The Monte Carlo driver: chunking, seeding, thread invariance, adaptivity, Ctrl-C."""

from __future__ import annotations

import json
import math
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer.engine import (
    ADAPTIVE_CHUNK, MAX_CHUNKS, MIN_CHUNK, MonteCarloConfig, chunk_sizes, simulate,
    wilson_halfwidth,
)
from mathhammer.errors import InputError, Interrupted, TrialLimitError
from mathhammer.results import wilson_interval
from mathhammer.rng import chunk_state, chunk_states, resolve_seed
from mathhammer.roll import roll
from tests.conftest import run_cli


class Recorder:
    """A pure-Python chunk function: records (size, state) and tallies a hash of the
    state, so any change of chunk sizes or seeds changes the tally."""

    def __init__(self, fail_at: int | None = None, interrupt_at: int | None = None):
        self.calls: list[tuple[int, tuple[int, ...]]] = []
        self.lock = threading.Lock()
        self.fail_at, self.interrupt_at = fail_at, interrupt_at

    def __call__(self, n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        with self.lock:
            index = len(self.calls)
            self.calls.append((n, tuple(int(x) for x in state)))
        if index == self.fail_at:
            raise RuntimeError("kernel failure")
        if index == self.interrupt_at:
            raise KeyboardInterrupt
        return {"n": np.array([n], dtype=np.int64),
                "mix": np.array([int(state[0]) % 1_000_003, int(state[3]) % 999_983], np.int64)}


# ---------------------------------------------------------------------------------
# chunking and seeds


@given(st.integers(1, 10**11))
@settings(max_examples=300, deadline=None)
def test_chunk_sizes_are_a_function_of_n_trials_only(n):
    sizes = chunk_sizes(n)
    assert sum(sizes) == n
    assert len(sizes) == max(1, min(MAX_CHUNKS, math.ceil(n / MIN_CHUNK)))
    assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 1
    assert sizes == chunk_sizes(n)


def test_chunk_state_is_the_seedsequence_spawn_child():
    for seed in (0, 1, 2**40 + 3):
        children = np.random.SeedSequence(seed).spawn(5)
        for i, child in enumerate(children):
            st_ = chunk_state(seed, i)
            assert st_.dtype == np.uint64 and st_.shape == (8,)
            assert np.array_equal(st_[:4], child.generate_state(4, np.uint64))
            assert not st_[4:].any()  # empty digit buffer
    assert np.array_equal(chunk_states(3, 4, first=2), np.stack([chunk_state(3, i) for i in (2, 3, 4, 5)]))


def test_resolve_seed():
    assert resolve_seed(5) == 5
    drawn = resolve_seed(None)
    assert 0 <= drawn < 2**31
    for bad in (-1, 2**63):
        with pytest.raises(InputError):
            resolve_seed(bad)


@pytest.mark.parametrize("n_trials", [1, 65_537, 3_000_000])
def test_every_thread_count_runs_the_same_chunks(n_trials):
    runs = {}
    for threads in (1, 2, 3):
        rec = Recorder()
        run = simulate(rec, MonteCarloConfig(n_trials=n_trials, seed=77, threads=threads))
        runs[threads] = (run, sorted(rec.calls))
        expected = sorted(
            (size, tuple(int(x) for x in chunk_state(77, i)))
            for i, size in enumerate(chunk_sizes(n_trials))
        )
        assert sorted(rec.calls) == expected
        assert run.n_trials == n_trials and run.seed == 77
        assert int(run.tally["n"][0]) == n_trials
    for threads in (2, 3):
        assert np.array_equal(runs[threads][0].tally["mix"], runs[1][0].tally["mix"])


def test_progress_reports_every_chunk():
    seen: list[tuple[int, int]] = []
    simulate(Recorder(), MonteCarloConfig(n_trials=10 * MIN_CHUNK, seed=1, threads=2,
                                          progress=lambda d, p: seen.append((d, p))))
    # the planned size first (before any chunk runs), then once per chunk
    assert seen[0] == (0, 10 * MIN_CHUNK)
    assert len(seen) == 11 and seen[-1] == (10 * MIN_CHUNK, 10 * MIN_CHUNK)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


# ---------------------------------------------------------------------------------
# reproducibility through a real kernel


def _roll_json(threads: int, seed: int = 5, n: int = 500_000, **kw) -> str:
    report = roll("3D6kh2+D3", at_least=10, at_most=5, method="mc",
                  config=MonteCarloConfig(n_trials=n, seed=seed, threads=threads, **kw))
    return json.dumps(report.to_dict(), sort_keys=True)


def test_same_seed_same_json_any_thread_count():
    one = _roll_json(1)
    assert one == _roll_json(1)
    assert one == _roll_json(2)
    assert one == _roll_json(4)
    assert one != _roll_json(1, seed=6)


# ---------------------------------------------------------------------------------
# adaptive precision


@pytest.mark.parametrize("eps", [0.004, 0.0015])
def test_adaptive_precision_reaches_its_target(eps):
    report = roll("2D6", at_least=8, method="mc",
                  config=MonteCarloConfig(seed=12, threads=2, precision=eps, n_trials=1))
    n = report.n_trials
    assert n % ADAPTIVE_CHUNK == 0
    dist = report.distributions["roll"]
    half = wilson_halfwidth(np.append(dist.probs, report.results["p_at_least"].value), n)
    assert half.max() <= eps
    # and it did not run wildly more than needed: at p = 1/6 the need is z²p(1-p)/ε²
    need = 1.96**2 * (1 / 6) * (5 / 6) / eps**2
    assert n <= 5 * need + 4 * ADAPTIVE_CHUNK


def test_adaptive_runs_do_not_depend_on_threads():
    a = _roll_json(1, n=1, precision=0.003)
    assert a == _roll_json(2, n=1, precision=0.003) == _roll_json(3, n=1, precision=0.003)


def test_adaptive_stops_at_max_trials():
    with pytest.raises(TrialLimitError, match="not reached"):
        roll("2D6", method="mc", config=MonteCarloConfig(seed=1, precision=1e-5, n_trials=1,
                                                         max_trials=4 * ADAPTIVE_CHUNK))


def test_hopeless_precision_fails_fast():
    """1e-6 needs ~5e11 trials at p = 1/6: refused after the first batch."""
    import time

    start = time.monotonic()
    with pytest.raises(TrialLimitError, match="would need about"):
        roll("2D6", method="mc", config=MonteCarloConfig(seed=1, precision=1e-6, n_trials=1))
    assert time.monotonic() - start < 30


def test_impossible_precision_is_refused_before_any_trial():
    """No interval over max_trials can be narrower than its p = 0 half-width (~1.92 / n)."""
    from mathhammer.engine import wilson_halfwidth

    floor = float(wilson_halfwidth(np.zeros(1), 10**6)[0])
    with pytest.raises(TrialLimitError, match="finer than any 95% interval"):
        MonteCarloConfig(precision=floor * 0.99, max_trials=10**6)
    MonteCarloConfig(precision=floor * 1.01, max_trials=10**6)  # reachable at p near 0: allowed
    proc = run_cli("roll", "2D6", "--precision", "1e-12")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and proc.stdout == ""


def test_adaptive_needs_probabilities():
    with pytest.raises(InputError, match="precision"):
        simulate(Recorder(), MonteCarloConfig(precision=0.01))


def test_wilson_halfwidth_matches_interval():
    for p, n in [(0.0, 100), (0.3, 1000), (0.999, 10**6)]:
        lo, hi = wilson_interval(p, n)
        assert wilson_halfwidth(np.array([p]), n)[0] == pytest.approx((hi - lo) / 2, abs=1e-12) \
            or p == 0.0  # at p = 0 the interval is clipped at 0


# ---------------------------------------------------------------------------------
# bad configuration


@pytest.mark.parametrize("kwargs, flag", [
    ({"n_trials": 0}, "--n-trials"), ({"n_trials": -3}, "--n-trials"),
    ({"n_trials": 2.5}, "--n-trials"), ({"n_trials": True}, "--n-trials"),
    ({"n_trials": 10**12}, "--n-trials"),
    ({"precision": 0.0}, "--precision"), ({"precision": 0.5}, "--precision"),
    ({"precision": float("nan")}, "--precision"), ({"threads": 0}, "--threads"),
    ({"max_trials": 0}, "max_trials"),
])
def test_bad_config_is_an_input_error(kwargs, flag):
    from mathhammer.present.flags import with_flags

    with pytest.raises(InputError) as info:
        MonteCarloConfig(**kwargs)
    assert with_flags(info.value.where) == flag  # the library's ‹name›, the CLI's flag


# ---------------------------------------------------------------------------------
# Ctrl-C and failures


@pytest.mark.parametrize("threads", [1, 2])
def test_keyboard_interrupt_returns_finished_chunks(threads):
    rec = Recorder(interrupt_at=5)
    with pytest.raises(Interrupted) as info:
        simulate(rec, MonteCarloConfig(n_trials=40 * MIN_CHUNK, seed=3, threads=threads))
    partial = info.value.partial
    assert partial is not None and partial.interrupted
    assert partial.n_trials == int(partial.tally["n"][0])
    assert 0 < partial.n_trials < 40 * MIN_CHUNK
    assert len(rec.calls) < 40  # queued chunks were cancelled


def test_interrupt_before_any_chunk_has_no_partial():
    with pytest.raises(Interrupted) as info:
        simulate(Recorder(interrupt_at=0), MonteCarloConfig(n_trials=10, seed=3, threads=1))
    assert info.value.partial is None


@pytest.mark.parametrize("threads", [1, 2])
def test_a_failing_chunk_propagates_and_stops_the_run(threads):
    rec = Recorder(fail_at=2)
    with pytest.raises(RuntimeError, match="kernel failure"):
        simulate(rec, MonteCarloConfig(n_trials=200 * MIN_CHUNK, seed=3, threads=threads))
    assert len(rec.calls) < 200
