"""Adapters: how the benchmark calls each engine's kernels, exact engines and icepool.

Engines land while this script exists, so every adapter first checks that the
module and function it needs are there and raises :class:`NotAvailable` (a
"not available yet" line in the results) otherwise. Each adapter returns plain
callables ``fn(n_trials) -> tally`` so the runner can time them side by side.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from benchmarks import baselines as bl


class NotAvailable(Exception):
    """The engine this case needs has not landed (or its API is not the expected one)."""


def require(module: str, *names: str):
    """Import ``module`` and check it has ``names``; NotAvailable otherwise."""
    try:
        if importlib.util.find_spec(module) is None:
            raise NotAvailable(f"not available yet ({module} does not exist)")
    except ModuleNotFoundError as err:
        raise NotAvailable(f"not available yet ({err})") from None
    mod = importlib.import_module(module)
    missing = [n for n in names if not hasattr(mod, n)]
    if missing:
        raise NotAvailable(f"not available yet ({module} has no {', '.join(missing)})")
    return mod


def fresh_state(seed: int = 12345) -> np.ndarray:
    from mathhammer.rng import chunk_state

    return chunk_state(seed, 0)


@dataclass
class Pair:
    """A kernel and its numpy baseline on the same mechanic, each ``fn(n) -> tally``."""

    kernel: Callable[[int], object]
    baseline: Callable[[int], object] | None
    baseline_name: str | None


# ---------------------------------------------------------------- kernels vs numpy


def roll_2d6() -> Pair:
    """``kernels.rolls.roll_table`` on 2D6 (one bounded draw + table per trial)."""
    rolls = require("mathhammer.kernels.rolls", "roll_table")
    from mathhammer.dice import parse_dice

    expr = parse_dice("2D6")
    sampler = expr.sampler()
    if sampler.kind != "table":
        raise NotAvailable("2D6 no longer uses the table sampler")
    table = np.ascontiguousarray(sampler.table)
    state = fresh_state()

    def kernel(n: int):
        hist = np.zeros(11, dtype=np.int64)
        rolls.roll_table(table, np.int64(expr.min), state, np.int64(n), hist)
        return hist

    rng = np.random.default_rng(1)
    return Pair(kernel, lambda n: bl.roll_2d6_numpy(n, rng), "numpy int8 (2, 64k) batches")


#: performance.md §2: boosted attack 3d6 + MAT 6 vs DEF 13, damage 3d6 + POW 12 vs ARM 18
WM_SPEC = bl.AttackSpec()


def _wm_tables():
    chain = require("mathhammer.warmachine.chain", "AttackSpec")
    spec = chain.AttackSpec(hit_dice=WM_SPEC.attack_dice, bonus=WM_SPEC.stat,
                            defense=WM_SPEC.defense, damage_dice=WM_SPEC.damage_dice,
                            power=WM_SPEC.power, armor=WM_SPEC.armor)
    hit = np.ascontiguousarray(spec.hit_table(), dtype=np.int8)
    dmg = np.ascontiguousarray(spec.damage_table(), dtype=np.int64)
    return hit, dmg


def _lemire(bound: int) -> tuple[np.uint64, np.uint64]:
    return np.uint64(bound), np.uint64((2**32 - bound) % bound)


def wm_single_attack() -> Pair:
    """``warmachine.kernels.chain.single_attack`` (the specialised one-attack kernel)."""
    wm = require("mathhammer.warmachine.kernels.chain", "single_attack")
    hit, dmg = _wm_tables()
    hb, ht = _lemire(hit.size)
    db, dt = _lemire(dmg.size)
    state = fresh_state()

    def kernel(n: int):
        hist = np.zeros(int(dmg.max()) + 1, dtype=np.int64)
        wm.single_attack(hb, ht, hit, db, dt, dmg, state, np.int64(n), hist)
        return hist

    rng = np.random.default_rng(2)
    return Pair(kernel, lambda n: bl.wm_chain_numpy(n, WM_SPEC, rng),
                "numpy int8 (k, 64k) dice-major")


def wm_attack_chain() -> Pair:
    """``warmachine.kernels.chain.attack_chain`` with one attack (what ``wm attack`` runs)."""
    wm = require("mathhammer.warmachine.kernels.chain", "attack_chain")
    hit, dmg = _wm_tables()
    hb, ht = _lemire(hit.size)
    db, dt = _lemire(dmg.size)
    arrays = (np.array([hb], dtype=np.uint64), np.array([ht], dtype=np.uint64),
              np.zeros(1, dtype=np.int64), hit, np.array([db], dtype=np.uint64),
              np.array([dt], dtype=np.uint64), np.zeros(1, dtype=np.int64), dmg)
    state = fresh_state()

    def kernel(n: int):
        hist = np.zeros(int(dmg.max()) + 1, dtype=np.int64)
        hits = np.zeros(1, dtype=np.int64)
        crits = np.zeros(1, dtype=np.int64)
        wm.attack_chain(*arrays, state, np.int64(n), hist, hits, crits)
        return hist

    rng = np.random.default_rng(3)
    return Pair(kernel, lambda n: bl.wm_chain_numpy(n, WM_SPEC, rng),
                "numpy int8 (k, 64k) dice-major")


GRID_SPEC = bl.GridSpec()


def grid_query():
    """(steps, target) of the 3-attack grid benchmark in the engine's own types."""
    seq = require("mathhammer.warmachine.sequence", "AttackStep", "Target", "SequenceArrays")
    grid_mod = require("mathhammer.warmachine.grid", "Grid")
    a = GRID_SPEC.attack
    if (a.attack_dice, a.damage_dice) != (3, 3):
        raise ValueError("the grid benchmark is defined for boosted attacks")
    step = seq.AttackStep("melee", a.stat, a.power, boost_hit=True, boost_damage=True)
    target = seq.Target(a.defense, a.armor, grid_mod.Grid.from_columns(list(GRID_SPEC.columns)))
    return seq, [step] * GRID_SPEC.attacks, target


def capture_chunk(module, call: Callable[[], object]) -> Callable:
    """The ``run_chunk`` a library query hands to the engine, without running it.

    ``module.simulate`` is swapped for a stub (in this process only) while
    ``call()`` builds its query, so the benchmark times exactly the per-chunk code
    the library runs (kernel call and its buffers) whatever the kernel's
    signature is this week.
    """

    class _Captured(Exception):
        pass

    captured = {}

    def stub(run_chunk, config, probabilities=None):
        captured["run_chunk"] = run_chunk
        raise _Captured

    original = module.simulate
    module.simulate = stub
    try:
        call()
    except _Captured:
        pass
    finally:
        module.simulate = original
    if "run_chunk" not in captured:
        raise NotAvailable(f"{module.__name__} did not reach the engine")
    return captured["run_chunk"]


def grid_sequence() -> Pair:
    """``warmachine.kernels.grid.sequence_mc`` via the library's chunk: 3 boosted attacks, example grid."""
    require("mathhammer.warmachine.kernels.grid", "sequence_mc")
    from mathhammer.engine import MonteCarloConfig

    seq, steps, target = grid_query()
    chunk = capture_chunk(seq, lambda: seq.sequence_monte_carlo(
        steps, target, MonteCarloConfig(n_trials=1, seed=0, threads=1)))
    state = fresh_state()
    rng = np.random.default_rng(4)
    return Pair(lambda n: chunk(n, state), lambda n: bl.grid_sequence_numpy(n, GRID_SPEC, rng),
                "numpy column counters (6, 64k)")


#: performance.md §3: 20 attacks, hit 4+, wound 3+ (S4 vs T3), armour 5+ (4+ at S4 = 5+)
FANTASY_SPEC = bl.FantasySpec()


def fantasy_spec(attacks: int = 20):
    chain = require("mathhammer.fantasy.chain.core", "AttackSpec", "chain_exact")
    spec = chain.AttackSpec(strength=4, toughness=3, hit_on=FANTASY_SPEC.hit_on, save=4)
    exact = chain.chain_exact(spec, attacks, "wfb8")
    mean = float(np.dot(np.arange(len(exact.wounds)), exact.wounds))
    want = attacks * bl.fantasy_p_unsaved(FANTASY_SPEC)
    if abs(mean - want) > 1e-9:
        raise NotAvailable(f"fantasy spec does not give the benchmark chain: mean {mean} vs {want}")
    return chain, spec

def fantasy_chain() -> Pair:
    """``fantasy.kernels.chain.chain_kernel`` via the library's chunk: 20 attacks, every die rolled."""
    require("mathhammer.fantasy.kernels.chain", "chain_kernel")
    chain_mc = require("mathhammer.fantasy.chain.mc", "chain_monte_carlo")
    from mathhammer.engine import MonteCarloConfig

    _, spec = fantasy_spec()
    chunk = capture_chunk(chain_mc, lambda: chain_mc.chain_monte_carlo(
        spec, 20, "wfb8", MonteCarloConfig(n_trials=1, seed=0, threads=1)))
    state = fresh_state()
    rng = np.random.default_rng(5)
    return Pair(lambda n: chunk(n, state), lambda n: bl.fantasy_chain_numpy(n, FANTASY_SPEC, rng),
                "numpy int8 (60, 32k), branch-free")


MAGIC_SCENARIO = "profiles/scenarios/magic_t9a1_four_spells.toml"


def _magic_scenario():
    from pathlib import Path

    require("mathhammer.magic.kernels", "phase_kernel")
    phase = require("mathhammer.magic.phase", "phase_monte_carlo")
    scenario_mod = require("mathhammer.magic.scenario", "run_phase")
    models = require("mathhammer.magic.models", "load_scenario")
    from mathhammer.profiles import read_toml

    path = Path(__file__).resolve().parent.parent / MAGIC_SCENARIO
    if not path.exists():
        raise NotAvailable(f"not available yet ({MAGIC_SCENARIO} does not exist)")
    return phase, scenario_mod, models.load_scenario(read_toml(path), str(path))


def magic_phase() -> Pair:
    """``magic.kernels.phase_kernel`` via the library's chunk: the bundled four-spell phase."""
    from mathhammer.engine import MonteCarloConfig

    phase, scenario_mod, scenario = _magic_scenario()
    chunk = capture_chunk(phase, lambda: scenario_mod.run_phase(
        scenario, method="mc", config=MonteCarloConfig(n_trials=1, seed=0, threads=1)))
    state = fresh_state()
    return Pair(lambda n: chunk(n, state), None, None)


def _floor(words_per_trial: float) -> Callable[[int], object]:
    """The random-number floor of a kernel drawing ``words_per_trial`` words a trial."""
    floor = require("benchmarks.floor", "draw_words")
    state = fresh_state(777)
    return lambda n: floor.draw_words(state, np.int64(round(n * words_per_trial)))


FLOOR_NAME = "bare xoshiro loop, the same words"


def wm_single_attack_floor() -> Pair:
    """``single_attack`` beside a bare xoshiro loop drawing its one word per trial."""
    return Pair(wm_single_attack().kernel, _floor(1), f"{FLOOR_NAME} (1 per trial)")


def wm_fused_floor() -> Pair:
    """``single_attack_fused`` (the library's one-attack kernel up to 7 dice) beside the floor
    of its half word per trial."""
    wm = require("mathhammer.warmachine.kernels.chain", "single_attack_fused")
    chain = require("mathhammer.warmachine.chain", "AttackSpec")
    spec = chain.AttackSpec(hit_dice=WM_SPEC.attack_dice, bonus=WM_SPEC.stat,
                            defense=WM_SPEC.defense, damage_dice=WM_SPEC.damage_dice,
                            power=WM_SPEC.power, armor=WM_SPEC.armor)
    fused = spec.fused_table()
    bound, threshold = _lemire(fused.size)
    width = int(spec.damage_table().max()) + 1
    state = fresh_state()

    def kernel(n: int):
        hist = np.zeros(width, dtype=np.int64)
        wm.single_attack_fused(bound, threshold, fused, state, np.int64(n), hist)
        return hist

    return Pair(kernel, _floor(0.5), f"{FLOOR_NAME} (1 per 2 trials)")


def fantasy_chain_floor() -> Pair:
    """The 20-attack chain kernel (two attacks per word) beside the floor of 10 words a trial."""
    return Pair(fantasy_chain().kernel, _floor(10), f"{FLOOR_NAME} (10 per trial)")


KERNEL_CASES = {
    # name: (adapter, trials per call, quick trials per call)
    "dice roll 2D6 (kernel, 1 thread)": (roll_2d6, 1 << 24, 1 << 22),
    "Warmachine boosted chain 3d6/3d6 (kernel single_attack, 1 thread)":
        (wm_single_attack, 1 << 24, 1 << 22),
    "Warmachine boosted chain 3d6/3d6 (kernel attack_chain, 1 thread)":
        (wm_attack_chain, 1 << 24, 1 << 22),
    "warjack grid, 3-attack sequence (kernel, 1 thread)": (grid_sequence, 1 << 21, 1 << 20),
    "fantasy 20-attack staged chain (kernel, 1 thread)": (fantasy_chain, 1 << 21, 1 << 20),
    "magic phase, four spells (kernel, 1 thread)": (magic_phase, 1 << 20, 1 << 18),
    # issue 29 part 8: each kernel beside the random words it draws
    "Warmachine single attack (kernel single_attack) vs the random-number floor":
        (wm_single_attack_floor, 1 << 24, 1 << 22),
    "Warmachine single attack (kernel single_attack_fused, the library's) vs the floor":
        (wm_fused_floor, 1 << 24, 1 << 22),
    "fantasy 20-attack staged chain (kernel) vs the random-number floor":
        (fantasy_chain_floor, 1 << 21, 1 << 20),
}


# ---------------------------------------------------------------- library queries (engine)


def engine_roll_2d6() -> Callable[[int, int], object]:
    """``mathhammer.roll.roll("2D6", method="mc")`` through the chunked engine."""
    from mathhammer.engine import MonteCarloConfig
    from mathhammer.roll import roll

    def query(n: int, threads: int):
        return roll("2D6", method="mc",
                    config=MonteCarloConfig(n_trials=n, seed=1, threads=threads))

    return query


def engine_wm_chain() -> Callable[[int, int], object]:
    """``mathhammer.warmachine.chain.attack`` (the ``wm attack`` library call), boosted."""
    chain = require("mathhammer.warmachine.chain", "attack")
    from mathhammer.engine import MonteCarloConfig

    s = WM_SPEC

    def query(n: int, threads: int):
        return chain.attack(s.stat, s.defense, s.power, s.armor, kind="ranged",
                            boost_hit=True, boost_damage=True, method="mc",
                            config=MonteCarloConfig(n_trials=n, seed=1, threads=threads))

    return query


def engine_grid_sequence() -> Callable[[int, int], object]:
    """``mathhammer.warmachine.sequence.run_sequence``, Monte Carlo."""
    from mathhammer.engine import MonteCarloConfig

    seq, steps, target = grid_query()
    require("mathhammer.warmachine.kernels.grid", "sequence_mc")

    def query(n: int, threads: int):
        return seq.run_sequence(steps, target, method="mc",
                                config=MonteCarloConfig(n_trials=n, seed=1, threads=threads))

    return query


def engine_fantasy_chain() -> Callable[[int, int], object]:
    """``fantasy.chain_mc.chain_monte_carlo`` (20 attacks) through the engine."""
    require("mathhammer.fantasy.kernels.chain", "chain_kernel")
    chain_mc = require("mathhammer.fantasy.chain.mc", "chain_monte_carlo")
    from mathhammer.engine import MonteCarloConfig

    _, spec = fantasy_spec()

    def query(n: int, threads: int):
        return chain_mc.chain_monte_carlo(spec, 20, "wfb8",
                                          MonteCarloConfig(n_trials=n, seed=1, threads=threads))

    return query


def engine_magic_phase() -> Callable[[int, int], object]:
    """``magic.scenario.run_phase`` (Monte Carlo) on the bundled four-spell scenario."""
    from mathhammer.engine import MonteCarloConfig

    _, scenario_mod, scenario = _magic_scenario()

    def query(n: int, threads: int):
        return scenario_mod.run_phase(scenario, method="mc", config=MonteCarloConfig(
            n_trials=n, seed=1, threads=threads))

    return query


ENGINE_CASES = {
    # name: (adapter, share of the run's engine trials: slow kernels get fewer)
    "dice roll 2D6": (engine_roll_2d6, 1.0),
    "Warmachine boosted chain 3d6/3d6": (engine_wm_chain, 1.0),
    "warjack grid, 3-attack sequence": (engine_grid_sequence, 0.1),
    "fantasy 20-attack staged chain": (engine_fantasy_chain, 0.05),
    "magic phase, four spells": (engine_magic_phase, 0.05),
}


# ---------------------------------------------------------------- exact vs icepool


def icepool_module():
    try:
        return importlib.import_module("icepool")
    except ImportError:
        raise NotAvailable("icepool is not installed (pip install -e '.[bench]')") from None


def exact_dice_keep_highest() -> tuple[Callable[[int], object], Callable[[int], object]]:
    """Keep-highest ``kD6kh2+c``: ``parse_dice(...).distribution()`` vs icepool.

    Call ``i`` asks k = 3 + i % 3 and c = i, so no two calls are the same query;
    both engines see the same sequence (icepool may still reuse its own cached
    ``highest(k, 2)``: that is part of what it offers a user).
    """
    from mathhammer.dice import parse_dice

    icepool = icepool_module()

    def ours(i: int):
        return parse_dice(f"{3 + i % 3}D6kh2+{i}").distribution().probs

    def theirs(i: int):
        return (icepool.d6.highest(3 + i % 3, 2) + i).probabilities()

    return ours, theirs


def _icepool_wm(icepool, defense: int, attacks: int):
    """Total damage of ``attacks`` boosted attacks written directly in icepool (WM-A1..A3, D1)."""
    d6 = icepool.d6
    s = WM_SPEC

    def hits(a, b, c):
        return max(a, b, c) > 1 and (a + b + c + s.stat >= defense or min(a, b, c) == 6)

    hit = icepool.map(hits, d6, d6, d6)
    dmg = (3 @ d6 + (s.power - s.armor)).map(lambda x: max(0, x))
    single = hit.if_else(dmg, 0)
    return attacks @ single if attacks > 1 else single


def _exact_wm(attacks: int):
    chain = require("mathhammer.warmachine.chain", "attack")
    icepool = icepool_module()
    s = WM_SPEC

    def ours(i: int):
        return chain.attack(s.stat, 11 + i % 5, s.power, s.armor, kind="ranged", boost_hit=True,
                            boost_damage=True, attacks=attacks, method="exact")

    def theirs(i: int):
        return _icepool_wm(icepool, 11 + i % 5, attacks).probabilities()

    # the two must answer the same question before their speeds are compared
    mine = ours(0).results["mean_damage"].value
    other = float(_icepool_wm(icepool, 11, attacks).mean())
    if abs(mine - other) > 1e-9:
        raise NotAvailable(f"engines disagree: mean damage {mine} vs icepool {other}")
    return ours, theirs


def exact_wm_single() -> tuple[Callable[[int], object], Callable[[int], object]]:
    """``chain.attack(..., method="exact")`` vs icepool; DEF varies 11..15 per call."""
    return _exact_wm(1)


def exact_wm_three() -> tuple[Callable[[int], object], Callable[[int], object]]:
    """Total damage of 3 boosted attacks, exact, vs icepool ``3 @ single``."""
    return _exact_wm(3)


def _icepool_fantasy(icepool, attacks: int):
    """Staged chain in icepool: hits, then wounds among hits, then failed saves."""
    d6 = icepool.d6
    f = FANTASY_SPEC
    hits = attacks @ (d6 >= f.hit_on)
    wounds = hits @ (d6 >= f.wound_on)
    return wounds @ (d6 < f.save_on)


def exact_fantasy_20() -> tuple[Callable[[int], object], Callable[[int], object]]:
    """``fantasy.chain.chain_exact`` vs icepool staged; attacks vary 18..22 per call."""
    icepool = icepool_module()
    chain, spec = fantasy_spec()

    def ours(i: int):
        return chain.chain_exact(spec, 18 + i % 5, "wfb8").wounds

    def theirs(i: int):
        return _icepool_fantasy(icepool, 18 + i % 5).probabilities()

    other = float(_icepool_fantasy(icepool, 20).mean())
    mine = float(np.dot(np.arange(len(ours(2))), ours(2)))
    if abs(mine - other) > 1e-9:
        raise NotAvailable(f"engines disagree: mean wounds {mine} vs icepool {other}")
    return ours, theirs


#: caches that hold whole-process tables, not answers for one stat line: kept warm when a
#: "new specification" is timed (icepool keeps its own tables of the dice too)
PROCESS_TABLES = {"roll_tables", "_faces", "_outcome_counts", "_sum_probs", "_load_path",
                  "_bundled_path", "_sum_of_dice", "_keep", "_shared_dice"}
SPEC_MODULES = ("mathhammer.fantasy.chain.core", "mathhammer.fantasy.rules.ruleset",
                "mathhammer.warmachine.rules", "mathhammer.warmachine.attack_setup",
                "mathhammer.warmachine.chain", "mathhammer.dice")


def spec_caches() -> list:
    """Every functools cache of the exact chains' modules except :data:`PROCESS_TABLES`:
    what remembers a stat line (a cache added later is cleared too, by default)."""
    found = []
    for name in SPEC_MODULES:
        for value in vars(importlib.import_module(name)).values():
            if hasattr(value, "cache_clear") and hasattr(value, "cache_info") \
                    and value.__name__ not in PROCESS_TABLES and value not in found:
                found.append(value)
    return found


def new_spec(pair: tuple[Callable[[int], object], Callable[[int], object]]):
    """``(ours, theirs)`` with every call of ours the first for its stat line (issue 29 part
    7): the per-specification caches are emptied before it."""
    ours, theirs = pair
    caches = spec_caches()

    def first_call(i: int):
        for cache in caches:
            cache.cache_clear()
        return ours(i)

    return first_call, theirs


def exact_wm_growth(damage_dice: int, power: int, armor: int, few: int = 30, many: int = 100):
    """The exact WM chain at ``many`` and ``few`` boosted attacks, new specifications; each
    function returns its answer and the benchmark divides the times by the attack counts."""
    chain = require("mathhammer.warmachine.chain", "attack")
    s = WM_SPEC
    extra = damage_dice - 3

    def at(n: int):
        def query(i: int):
            return chain.attack(s.stat, 11 + i % 5, power, armor, kind="ranged", boost_hit=True,
                                boost_damage=True, extra_damage_dice=extra, attacks=n,
                                method="exact")
        return query

    ours, theirs = new_spec((at(many), at(few)))
    return ours, theirs, many, few


def exact_grid_sequence() -> tuple[Callable[[int], object], Callable[[int], object]]:
    """Exact grid DP of the library vs the plain-Python dictionary DP; P+S varies 17..19."""
    from dataclasses import replace

    seq, steps, target = grid_query()
    require("mathhammer.warmachine.exact_grid")

    def ours(i: int):
        varied = [replace(step, power=17 + i % 3) for step in steps]
        return seq.run_sequence(varied, target, method="exact")

    def theirs(i: int):
        attack = replace(GRID_SPEC.attack, power=17 + i % 3)
        return bl.grid_sequence_exact_python(replace(GRID_SPEC, attack=attack))

    mine = ours(1).results["p_destroyed"].value
    other = theirs(1)["destroyed"]
    if abs(mine - other) > 1e-9:
        raise NotAvailable(f"engines disagree: P(destroyed) {mine} vs Python DP {other}")
    return ours, theirs


EXACT_CASES = {
    # name: (adapter, baseline name)
    "exact dice kD6kh2+c, k = 3..5": (exact_dice_keep_highest, "icepool"),
    "exact Warmachine boosted attack 3d6/3d6": (exact_wm_single, "icepool"),
    "exact Warmachine 3 boosted attacks, total damage": (exact_wm_three, "icepool"),
    "exact fantasy 20 attacks staged": (exact_fantasy_20, "icepool"),
    "exact warjack grid DP, 3 boosted attacks": (exact_grid_sequence, "plain-Python dict DP"),
    # issue 29 part 7: every call the first for its stat line (no per-specification cache)
    "exact fantasy 20 attacks staged, new specification":
        (lambda: new_spec(exact_fantasy_20()), "icepool"),
    "exact Warmachine boosted attack 3d6/3d6, new specification":
        (lambda: new_spec(exact_wm_single()), "icepool"),
    "exact Warmachine 3 boosted attacks, new specification":
        (lambda: new_spec(exact_wm_three()), "icepool"),
    "exact Warmachine chain 3d6/3d6, time per attack at 100 attacks (new specification)":
        (lambda: exact_wm_growth(3, WM_SPEC.power, WM_SPEC.armor), "same at 30 attacks"),
    "exact Warmachine chain 3d6/6d6+50 vs ARM 10, time per attack at 100 attacks (new "
    "specification)": (lambda: exact_wm_growth(6, 50, 10), "same at 30 attacks"),
}
