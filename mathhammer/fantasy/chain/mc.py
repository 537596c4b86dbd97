"""Monte Carlo of the attack chain: the die-by-die kernel behind :mod:`mathhammer.engine`.

:func:`kernel_arguments` turns a spec into the flat arrays of
:func:`mathhammer.fantasy.kernels.chain.chain_kernel` plus the one-load outcome table of
``chain_kernel_counting`` (also used by the benchmark script); :func:`chain_monte_carlo`
runs the fastest kernel that applies and returns the wounds histogram.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.errors import InputError
from mathhammer.fantasy.chain.core import AttackSpec, compile_spec
from mathhammer.fantasy.rules.ruleset import Ruleset, load_ruleset

TABLE_LIMIT = 1 << 16
OUTCOME_CACHE_SIZE = 8  # outcome tables kept per process (1.9 MB each)
_outcome_cache: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}


def _outcome_tables(t, fantasy) -> tuple[np.ndarray, np.ndarray]:
    """(outcome, unsaved_bits) of compiled tables ``t``, built once per distinct rule table.

    Building costs a few ms (1.7 MB), as much as ~10^5 trials, and a combat or a
    benchmark asks the same attack again and again. The key is every rule table's
    bytes and shape, so two specs share an entry only when they resolve alike.
    """
    arrays = [np.ascontiguousarray(a) for a in (t.hit_rr, t.hit_out, t.wound_rr, t.wound_out,
                                                  t.armour_rr, t.armour_out, t.ward_rr,
                                                  t.ward_out)]
    key = b"".join(repr((a.dtype.str, a.shape)).encode() + a.tobytes() for a in arrays)
    found = _outcome_cache.get(key)
    if found is None:
        outcome = fantasy.build_outcome_table(*arrays, fantasy.digit_table())
        found = (outcome, fantasy.pack_unsaved_bits(outcome))
        while len(_outcome_cache) >= OUTCOME_CACHE_SIZE:
            _outcome_cache.pop(next(iter(_outcome_cache)))
        _outcome_cache[key] = found
    return found


def _table(pmf: dict[int, Fraction], where: str) -> np.ndarray:
    """Equally likely entries whose frequencies are exactly ``pmf`` (for one bounded draw)."""
    pmf = {k: p for k, p in pmf.items() if p}
    denominator = math.lcm(*(p.denominator for p in pmf.values()))
    if denominator > TABLE_LIMIT:
        raise InputError(where, "has too many outcomes for the Monte Carlo kernel", None,
                         "use the exact method")
    values = [k for k, p in sorted(pmf.items()) for _ in range(int(p * denominator))]
    return np.array(values, dtype=np.int64)


def _attacks_fractions(attacks: int | str) -> dict[int, Fraction]:
    from mathhammer.fantasy.chain.core import attack_counts

    return attack_counts(attacks)  # validated: the kernel never sees a negative size


@dataclass(frozen=True)
class KernelArguments:
    """Positional arguments of ``chain_kernel`` before (state, n_trials, hist).

    ``outcome``: the uint8 6^8 table of :func:`~mathhammer.fantasy.kernels.chain.build_outcome_table`
    (every face combination of one attack's 8 dice → final class) and ``unsaved_bits``
    its class-1 bitset, read by the faster ``chain_kernel_counting`` when no slay is
    possible, every unsaved wound does the same damage and the shot is not hopeless
    (its two extra dice would make the table 36 times larger): ``counting``. Both are
    None otherwise, and the attack runs ``chain_kernel``.
    """

    args: tuple
    hist_size: int
    outcome: np.ndarray | None = None
    unsaved_bits: np.ndarray | None = None  # pack_unsaved_bits(outcome)
    counting: bool = False

    def run(self, state: np.ndarray, n: int, hist: np.ndarray) -> None:
        """One chunk of ``n`` trials into ``hist`` with the fastest kernel that applies."""
        from mathhammer import kernels

        fantasy = kernels.load("mathhammer.fantasy.kernels.chain")  # already imported by kernel_arguments: no scan
        if self.counting:
            attacks, _, _, _, wounds, _, _, cap = self.args
            fantasy.chain_kernel_counting(self.unsaved_bits, attacks, np.int64(wounds[0]), cap,
                                          state, np.int64(n), hist)
        else:
            fantasy.chain_kernel(*self.args, state, np.int64(n), hist)


def kernel_arguments(spec: AttackSpec, attacks: int | str, rules: Ruleset | str = "wfb8",
                     models: int | None = None) -> KernelArguments:
    """Flat, typed kernel inputs for ``attacks`` attacks of ``spec``."""
    from mathhammer import kernels

    fantasy = kernels.load("mathhammer.fantasy.kernels.chain")
    rules = load_ruleset(rules)
    t = compile_spec(spec, rules)
    c = np.ascontiguousarray
    low, high = fantasy.build_block_tables(
        np.int64(t.hopeless), c(t.hit_rr), c(t.hit_out), c(t.wound_rr), c(t.wound_out),
        c(t.armour_rr), c(t.armour_out), c(t.ward_rr), c(t.ward_out), fantasy.digit_table())
    attacks_table = _table(_attacks_fractions(attacks), "attacks")
    wounds_table = _table(dict(enumerate(t.wounds_each)), "multiple_wounds")
    W = spec.target_wounds
    slay = bool(t.ward_out.max() == 2)
    step = max(int(wounds_table.max()), W if slay else 0)
    most = int(attacks_table.max()) * step
    cap = most if models is None else min(most, models * W)
    args = (
        c(attacks_table), low, high, np.int64(36 if t.hopeless else 1), c(wounds_table),
        np.int64(W), np.int64(slay), np.int64(cap),
    )
    counting = not t.hopeless and not slay and len(wounds_table) == 1
    outcome = bits = None
    if counting:  # the only kernel that reads them
        outcome, bits = _outcome_tables(t, fantasy)
    return KernelArguments(args, cap + 1, outcome, bits, counting)


def chain_monte_carlo(spec: AttackSpec, attacks: int | str, rules: Ruleset | str,
                      config: MonteCarloConfig, models: int | None = None,
                      at_least: int | None = None):
    """Run the kernel; returns the :class:`mathhammer.engine.MonteCarloRun` (tally "hist")."""
    prepared = kernel_arguments(spec, attacks, rules, models)

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        hist = np.zeros(prepared.hist_size, dtype=np.int64)
        prepared.run(state, n, hist)
        return {"hist": hist}

    def probabilities(tally: dict[str, np.ndarray], n: int) -> np.ndarray:
        counts = tally["hist"]
        probs = [counts / n]
        if at_least is not None:
            probs.append([counts[max(0, at_least):].sum() / n])
        return np.concatenate([np.ravel(p) for p in probs])

    return simulate(run_chunk, config, probabilities)
