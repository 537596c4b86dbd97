"""A fixed sequence of attacks against one target's grid or track (WM-G*, WM-S1, WM-S2).

Each :class:`AttackStep` is turned into an outcome table per target situation
(movement crippled or not × knocked down or not) with the per-roll rules of
:mod:`mathhammer.warmachine.rules`; the kernels of :mod:`mathhammer.warmachine.kernels.grid`
then pick the table row from the grid state *at that moment*, so a crippled M
makes DEF 7 for the next attack (WM-G4, WM-A7) and a knock-down makes later melee
attacks hit automatically (WM-A4).

Outcome ``o`` of a table row: 0 = miss, ``1 + d`` = a hit dealing ``d`` damage
after ARM (WM-D1).

Reported: ``p_destroyed``, ``p_crippled_<X>`` for every system on the grid,
``mean_damage`` and the distribution ``damage`` (boxes marked by the sequence;
damage past the last box is lost, WM-G2), plus ``p_hit_<i>`` per attack.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.query import answer
from mathhammer.results import Distribution, Estimate, Report
from mathhammer.warmachine import rules
from mathhammer.warmachine.grid import Grid


@dataclass(frozen=True)
class Target:
    """The model being attacked: DEF, ARM, damage grid or track, starting state (WM-G7)."""

    defense: int
    armor: int
    grid: Grid
    start_bits: int = 0
    knocked_down: bool = False
    name: str = "target"
    shield_mask: int = 0  # boxes of the system holding a Shield: +2 ARM until crippled
    def_bonus: int = 0  # every attack: spells and feats (Defender's Ward +2, Withering -2)
    ranged_def_bonus: int = 0  # ranged and magic only: cover/concealment, elevation, Blur
    stealth: bool = False  # WM-A8: ranged and magic attacks from more than 5" miss
    immunities: tuple[str, ...] = ()  # e.g. ("Cold",): Critical Freeze does not affect it
    base: str = "medium"  # WM-D7: the deviation geometry of AOE attacks reads its radius
    engaged: bool = False  # WM-A6: already in melee with another model (−4 to ranged/magic)
    down_word: str = "knocked down"  # what ``knocked_down`` is: or "stationary" (WM-A4)

    def defense_against(self, kind: str, movement_crippled: bool, knocked_down: bool) -> int:
        """Effective DEF in a situation (WM-A7): DEF 7 when M is crippled, 5 vs ranged and
        magic when knocked down or stationary, then the bonuses of the situation."""
        bonus = self.def_bonus + (self.ranged_def_bonus if kind != "melee" else 0)
        return rules.effective_defense(self.defense, kind, movement_crippled=movement_crippled,
                                       knocked_down=knocked_down, spell_bonus=bonus)

    def armor_against(self, ignores_shield: bool, shield_crippled: bool) -> int:
        """ARM with the shield's +2 while its system stands (WM-D2, WM-G4); not vs Chain Weapon."""
        from mathhammer.warmachine import rules

        return rules.effective_armor(self.armor, shield=bool(self.shield_mask),
                                     shield_crippled=shield_crippled or ignores_shield)


@dataclass(frozen=True)
class AttackStep:
    """One attack roll and its damage roll, decisions fixed in advance.

    ``stat`` is MAT/RAT/FOCUS, ``power`` P+S (melee) or POW. ``pre_boosted`` is a
    charge attack or free strike (WM-D3); ``weapon_crippled`` drops a die from both
    rolls (WM-G4); ``knocks_down`` is a head-butt or slam (WM-A4 for later attacks).
    """

    kind: str
    stat: int
    power: int
    boost_hit: bool = False
    boost_damage: bool = False
    pre_boosted: bool = False
    modifier: int = 0
    weapon_crippled: bool = False
    knocks_down: bool = False
    auto_hit: bool = False
    first_available: str = ""
    ignores_shield: bool = False
    label: str = ""
    extra_hit_dice: int = 0
    extra_damage_dice: int = 0
    auto_miss: bool = False  # beyond RNG or a Stealth target from more than 5" (WM-A8)


N_VARIANTS = 8  # movement crippled × knocked down × shield system crippled


def variant_situation(variant: int) -> tuple[bool, bool, bool]:
    """(movement crippled, knocked down, shield crippled) of table variant 0..7."""
    return bool(variant & 1), bool(variant & 2), bool(variant & 4)


def _attack_roll(step: AttackStep, target: Target, variant: int, boost_hit: bool):
    """(dice, bonus, effective DEF, automatic hit) of ``step`` in a target situation (WM-A1..A7)."""
    mcrip, kd, _ = variant_situation(variant)
    defense = target.defense_against(step.kind, mcrip, kd)
    auto = step.auto_hit or rules.is_automatic_hit(step.kind, knocked_down=kd)
    k = rules.dice_count(boost_hit, step.weapon_crippled, step.extra_hit_dice)
    return k, step.stat + step.modifier, defense, auto


def hit_probability(step: AttackStep, target: Target, variant: int, boost_hit: bool) -> float:
    """P(hit) of ``step`` in a target situation (WM-A1..A7), from the shared rules."""
    if step.auto_miss:
        return 0.0
    return rules.hit_probability(*_attack_roll(step, target, variant, boost_hit))


def crit_probability(step: AttackStep, target: Target, variant: int, boost_hit: bool) -> float:
    """P(critical hit) of ``step`` in a target situation (WM-A5), from the shared rules."""
    if step.auto_miss:
        return 0.0
    return rules.p_critical(*_attack_roll(step, target, variant, boost_hit))


def damage_pmf(step: AttackStep, target: Target, boost_damage: bool,
               shield_crippled: bool = False) -> np.ndarray:
    """P(damage dealt = d) of one damage roll (WM-D1, WM-D3) against the current ARM."""
    k = rules.damage_dice_count(boost_damage, step.pre_boosted, step.weapon_crippled,
                                step.extra_damage_dice)
    armor = target.armor_against(step.ignores_shield, shield_crippled)
    return rules.damage_pmf(k, step.power, armor)


def outcome_tables(steps: list[AttackStep], target: Target) -> np.ndarray:
    """float64[steps, 8, W]: P(outcome) per step and situation variant."""
    rows = []
    for step in steps:
        dmg = [damage_pmf(step, target, step.boost_damage, sc) for sc in (False, True)]
        per_variant = []
        for v in range(N_VARIANTS):
            p = hit_probability(step, target, v, step.boost_hit)
            per_variant.append(np.concatenate([[1.0 - p], p * dmg[v >> 2]]))
        rows.append(per_variant)
    width = max(len(r) for per in rows for r in per) if rows else 1
    table = np.zeros((len(steps), N_VARIANTS, width))
    for s, per in enumerate(rows):
        for v, r in enumerate(per):
            table[s, v, : len(r)] = r
    return table


@dataclass
class SequenceArrays:
    """The flat numbers the kernels take (cast once, one numba specialisation)."""

    full: np.uint64
    width: np.int64
    start_bits: np.uint64
    col_start: np.ndarray
    m_mask: np.uint64
    shield_mask: np.uint64
    system_masks: np.ndarray
    pmf: np.ndarray
    knocks_down: np.ndarray
    fa_masks: np.ndarray
    kd0: np.int64
    systems: tuple[str, ...] = field(default=())

    @classmethod
    def build(cls, steps: list[AttackStep], target: Target) -> SequenceArrays:
        grid = target.grid
        return cls(
            np.uint64(grid.full), np.int64(grid.width), np.uint64(target.start_bits),
            np.asarray(grid.col_start, dtype=np.int64),
            np.uint64(grid.system_masks.get("M", 0)), np.uint64(target.shield_mask),
            np.asarray(list(grid.system_masks.values()), dtype=np.uint64),
            np.ascontiguousarray(outcome_tables(steps, target), dtype=np.float64),
            np.asarray([int(s.knocks_down) for s in steps], dtype=np.int64),
            np.asarray([grid.system_masks.get(s.first_available, 0) if s.first_available else 0
                        for s in steps], dtype=np.uint64),
            np.int64(int(target.knocked_down)), grid.systems,
        )


MAX_TABLE_DICE = 6  # 6^(k+1) column × damage indices must stay below 2^32 (Lemire on 32 bits)


def _as_counts(probs: np.ndarray) -> tuple[int, np.ndarray] | None:
    """(k, integer counts out of 6^k) for the smallest k ≤ MAX_TABLE_DICE that holds
    ``probs`` exactly (the rules give multiples of 6^-k for k dice), else None."""
    for k in range(MAX_TABLE_DICE + 1):
        scaled = np.asarray(probs, dtype=np.float64) * 6.0**k
        counts = np.rint(scaled)
        if np.all(np.abs(scaled - counts) < 1e-6):
            return k, counts.astype(np.int64)
    return None


@dataclass
class LookupTables:
    """Integer-draw tables of :func:`mathhammer.warmachine.kernels.grid.sequence_lut` (same
    distribution as the outcome tables: hit and damage rolls are independent)."""

    att_bound: np.ndarray  # uint64[steps] 6^k of the attack roll
    att_threshold: np.ndarray  # uint64[steps] 2^32 mod att_bound (Lemire)
    hit_count: np.ndarray  # uint64[steps, 8] attack indices below it hit
    dc_bound: np.ndarray  # uint64[steps] 6 × 6^k of the damage roll
    dc_threshold: np.ndarray
    dc_table: np.ndarray  # int16[steps, 2, max dc_bound]: damage | column start << 8

    @classmethod
    def build(cls, steps: list[AttackStep], target: Target) -> LookupTables | None:
        """None when a probability is not a multiple of 6^-k (then the CDF kernel runs)."""
        n = len(steps)
        att_bound = np.ones(n, dtype=np.uint64)
        hit_count = np.zeros((n, N_VARIANTS), dtype=np.uint64)
        dmg_counts = []
        memo: dict[AttackStep, tuple] = {}  # repeated attacks: the same tables
        for s, step in enumerate(steps):
            if step not in memo:
                hit = _as_counts(np.array([hit_probability(step, target, v, step.boost_hit)
                                           for v in range(N_VARIANTS)]))
                pmfs = [damage_pmf(step, target, step.boost_damage, sc) for sc in (False, True)]
                width = max(len(p) for p in pmfs)
                memo[step] = (hit, _as_counts(np.array([np.pad(p, (0, width - len(p)))
                                                        for p in pmfs])))
            hit, dmg = memo[step]
            if hit is None or dmg is None or np.any(hit[1][:4] != hit[1][4:]):
                return None  # the kernel reads hit counts of variants 0..3 only
            att_bound[s] = 6**hit[0]
            hit_count[s] = hit[1]
            dmg_counts.append(dmg)
        dc_bound = np.array([6 ** (k + 1) for k, _ in dmg_counts], dtype=np.uint64)
        dc_table = np.zeros((n, 2, int(dc_bound.max(initial=1))), dtype=np.int16)
        col_start = np.asarray(target.grid.col_start, dtype=np.int64)
        for s, (k, counts) in enumerate(dmg_counts):
            for sc in range(2):
                # damage roll index i (6^k of them) → damage d, by cumulative counts
                damage = np.minimum(np.repeat(np.arange(counts.shape[1]), counts[sc]), 63)
                if damage.shape[0] != 6**k:
                    return None  # a pmf that does not sum to one: leave it to the CDF kernel
                index = np.arange(6 ** (k + 1))
                dc_table[s, sc, : index.shape[0]] = (damage[index // 6]
                                                     | col_start[index % 6] << 8)
        two32 = np.uint64(1 << 32)
        return cls(att_bound, two32 % att_bound, hit_count, dc_bound, two32 % dc_bound,
                   dc_table)


def _results(target: Target, dist: Distribution, crippled: list[Estimate],
             destroyed: Estimate, hits: list[Estimate]) -> tuple[dict, dict]:
    results = {"p_destroyed": destroyed}
    for letter, est in zip(target.grid.systems, crippled):
        results[f"p_crippled_{letter}"] = est
    results["mean_damage"] = dist.mean_estimate()
    for i, est in enumerate(hits, start=1):
        results[f"p_hit_{i}"] = est
    return results, {"damage": dist}


def sequence_exact(steps: list[AttackStep], target: Target, title: str = "",
                   max_candidates: int | None = None) -> Report:
    """Exact answer by the sparse DP over grid states (:mod:`exact_grid`)."""
    from mathhammer.warmachine.exact_grid import state_distribution, summarise

    arrays = SequenceArrays.build(steps, target)
    keys, probs, p_hits = (state_distribution(arrays) if max_candidates is None
                           else state_distribution(arrays, max_candidates))
    dmg, crip, dest = summarise(arrays, target.grid.n_boxes, keys, probs)
    results, dists = _results(target, Distribution.exact(dmg),
                              [Estimate.exact_probability(c) for c in crip],
                              Estimate.exact_probability(dest),
                              [Estimate.exact_probability(p) for p in p_hits])
    return Report("warmachine.sequence", "exact", results, dists, title=title)


def sequence_monte_carlo(steps: list[AttackStep], target: Target, config: MonteCarloConfig,
                         title: str = "") -> Report:
    from mathhammer import kernels

    kernel = kernels.load("mathhammer.warmachine.kernels.grid")
    a = SequenceArrays.build(steps, target)
    lut = LookupTables.build(steps, target) if steps else None
    n_sys = len(a.systems)
    n_boxes = target.grid.n_boxes
    system_masks = a.system_masks if n_sys else np.zeros(0, dtype=np.uint64)
    if lut is None:
        cdf = np.ascontiguousarray(np.cumsum(a.pmf, axis=2))
        cdf[:, :, -1] = 2.0  # the last outcome catches float rounding of the cumulative sum
        guide = kernel.guide_tables(cdf)
    else:
        from mathhammer.kernels.bits import FAST_PDEP

        use_pdep = np.int64(FAST_PDEP)

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        hist = np.zeros(n_boxes + 1, dtype=np.int64)
        crippled = np.zeros(max(n_sys, 1), dtype=np.int64)
        destroyed = np.zeros(1, dtype=np.int64)
        hits = np.zeros(max(len(steps), 1), dtype=np.int64)
        if lut is None:
            kernel.sequence_mc(a.full, a.width, a.start_bits, a.col_start, a.m_mask,
                               a.shield_mask, system_masks, cdf, guide, a.knocks_down,
                               a.fa_masks, a.kd0, state, np.int64(n), hist, crippled,
                               destroyed, hits)
        else:
            kernel.sequence_lut(a.full, a.width, a.start_bits, a.m_mask, a.shield_mask,
                                system_masks, lut.att_bound, lut.att_threshold, lut.hit_count,
                                lut.dc_bound, lut.dc_threshold, lut.dc_table, a.knocks_down,
                                a.fa_masks, a.kd0, use_pdep, state, np.int64(n), hist,
                                crippled, destroyed, hits)
        return {"hist": hist, "crippled": crippled, "destroyed": destroyed, "hits": hits}

    def probabilities(tally: dict[str, np.ndarray], n: int) -> np.ndarray:
        return np.concatenate([tally["destroyed"], tally["crippled"][:n_sys]]) / n

    run = simulate(run_chunk, config, probabilities)
    t, n = run.tally, run.n_trials
    results, dists = _results(
        target, Distribution.from_counts(t["hist"]),
        [Estimate.proportion(int(c), n) for c in t["crippled"][:n_sys]],
        Estimate.proportion(int(t["destroyed"][0]), n),
        [Estimate.proportion(int(h), n) for h in t["hits"][: len(steps)]])
    return Report("warmachine.sequence", "mc", results, dists, n_trials=n, seed=run.seed, title=title)


def run_sequence(steps: list[AttackStep], target: Target, *, method: str = "auto",
                 config: MonteCarloConfig | None = None, check: bool = False,
                 command: str = "sequence", title: str = "") -> Report:
    """P(destroyed), P(crippled X), damage of a fixed attack sequence (WM-S1, WM-S2).

    ``auto`` answers exactly unless the exact programme is too large (many attacks
    on a big grid), then by Monte Carlo with a note in ``info``.
    """
    from mathhammer.warmachine.exact_grid import AUTO_CANDIDATES, ExactTooLarge

    if method == "auto" and not check:
        try:
            report = sequence_exact(steps, target, title, AUTO_CANDIDATES)
        except ExactTooLarge as err:
            report = sequence_monte_carlo(steps, target, config or MonteCarloConfig(), title)
            report.info["note"] = f"Monte Carlo: {err.what}"
        report.command = command
        return report
    report = answer(command, method=method,
                    exact=lambda: sequence_exact(steps, target, title),
                    monte_carlo=lambda cfg: sequence_monte_carlo(steps, target, cfg, title),
                    config=config, check=check)
    report.command = command
    return report
