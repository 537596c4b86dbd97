"""Attack and damage chains: n attacks against one target, exact and by Monte Carlo.

A chain is a list of :class:`AttackSpec` (already resolved numbers: dice, bonus,
DEF, POW, ARM). Attacks are independent, so the exact total-damage pmf is the
convolution of the per-attack pmfs (WM-A1..A5, WM-D1). :func:`build_chain` turns a
player's description (stat, flags such as ``charge`` or ``back_strike``) into specs
through the rules of :mod:`mathhammer.warmachine.rules`; :func:`attack` is the
library function behind ``mathhammer wm attack``.

>>> spec = AttackSpec(hit_dice=2, bonus=6, defense=13, damage_dice=2, power=12, armor=18)
>>> round(spec.p_hit, 5), round(float(spec.pmf() @ range(7)), 5)
(0.58333, 0.90741)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mathhammer.dice import pmf_power
from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.errors import InputError
from mathhammer.query import answer
from mathhammer.results import Z95, Distribution, Estimate, Report
from mathhammer.warmachine.attack_setup import (  # noqa: F401 (re-exported: the chain's inputs)
    CLI_NAMES,
    FUSED_MAX_DICE,
    MAX_STAT,
    AttackSetup,
    AttackSpec,
    build_chain,
    use,
)
from mathhammer.warmachine.headlines import wm_attack_headline


def distinct_attacks(specs: list[AttackSpec]) -> dict[AttackSpec, int]:
    """Each different attack of a chain and how many times it comes, in order (a chain is
    mostly one spec repeated: runs are counted by identity, equal specs merged once)."""
    counts: dict[AttackSpec, int] = {}
    spec, run = None, 0
    for each in specs:
        if each is spec:
            run += 1
            continue
        if run:
            counts[spec] = counts.get(spec, 0) + run
        spec, run = each, 1
    if run:
        counts[spec] = counts.get(spec, 0) + run
    return counts


def chain_pmf(specs: list[AttackSpec] | dict[AttackSpec, int]) -> np.ndarray:
    """Exact pmf of the total damage of independent attacks: each different attack's pmf
    to the power of its count (:func:`mathhammer.dice.pmf_power`: about linear in the
    number of attacks), then convolved together. Takes the list or its
    :func:`distinct_attacks`."""
    total = None
    counts = specs if isinstance(specs, dict) else distinct_attacks(specs)
    for spec, n in counts.items():
        part = spec.pmf() if n == 1 else pmf_power(spec.pmf(), n)  # pmf() is a new array
        total = part if total is None else np.convolve(total, part)
    return np.ones(1) if total is None else total


# --------------------------------------------------------------------------- engines
def _summary(p_hit: Estimate, p_crit: Estimate, mean_hits: Estimate, dist: Distribution,
             boxes: int | None) -> dict[str, Estimate]:
    results = {"p_hit": p_hit, "p_critical": p_crit, "mean_hits": mean_hits,
               "mean_damage": dist.mean_estimate()}
    if boxes is not None:
        results["p_destroyed"] = dist.p_at_least(boxes)
    return results


def chain_exact(specs: list[AttackSpec], boxes: int | None = None, command: str = "warmachine.attack",
                title: str = "") -> Report:
    """Exact report: p_hit (first attack), p_critical, mean_hits, mean_damage, p_destroyed."""
    _require_attacks(specs)
    counts = distinct_attacks(specs)
    dist = Distribution.exact(chain_pmf(counts))
    first_miss, _, first_crit = specs[0].outcome_probs()
    mean_hits = sum(n * spec.p_hit for spec, n in counts.items())
    results = _summary(Estimate.exact(1.0 - first_miss), Estimate.exact(first_crit),
                       Estimate.exact(mean_hits), dist, boxes)
    return Report(command, "exact", results, {"damage": dist}, title=title)


@dataclass(frozen=True)
class KernelTables:
    """Flat arrays for :func:`mathhammer.warmachine.kernels.chain.attack_chain`."""

    hit_bound: np.ndarray
    hit_threshold: np.ndarray
    hit_offset: np.ndarray
    hit_table: np.ndarray
    dmg_bound: np.ndarray
    dmg_threshold: np.ndarray
    dmg_offset: np.ndarray
    dmg_table: np.ndarray
    max_total: int

    def args(self) -> tuple:
        return (self.hit_bound, self.hit_threshold, self.hit_offset, self.hit_table,
                self.dmg_bound, self.dmg_threshold, self.dmg_offset, self.dmg_table)


def _concat(tables: list[np.ndarray], dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    bounds = np.array([len(t) for t in tables], dtype=np.uint64)
    thresholds = np.array([(2**32 - len(t)) % len(t) for t in tables], dtype=np.uint64)
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in tables])[:-1]]).astype(np.int64)
    flat = np.ascontiguousarray(np.concatenate(tables).astype(dtype))
    return bounds, thresholds, offsets, flat


def kernel_tables(specs: list[AttackSpec]) -> KernelTables:
    """Lookup tables of a chain, laid out for the Monte Carlo kernel."""
    hb, ht, ho, htab = _concat([s.hit_table() for s in specs], np.int8)
    dmg = [s.damage_table() for s in specs]
    db, dt, do, dtab = _concat(dmg, np.int64)
    return KernelTables(hb, ht, ho, htab, db, dt, do, dtab, int(sum(int(t.max()) for t in dmg)))


def chain_monte_carlo(specs: list[AttackSpec], config: MonteCarloConfig, boxes: int | None = None,
                      command: str = "warmachine.attack", title: str = "") -> Report:
    """Monte Carlo report with the same names as :func:`chain_exact`, every figure with its se."""
    from mathhammer import kernels

    _require_attacks(specs)
    wm = kernels.load("mathhammer.warmachine.kernels.chain")
    tables = kernel_tables(specs)
    n_attacks = len(specs)
    fused = specs[0].fused_table() if n_attacks == 1 else None
    if fused is not None:
        fused_bound = np.uint64(len(fused))
        fused_threshold = np.uint64((2**32 - len(fused)) % len(fused))

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        hist = np.zeros(tables.max_total + 1, dtype=np.int64)
        hits = np.zeros(n_attacks, dtype=np.int64)
        crits = np.zeros(n_attacks, dtype=np.int64)
        if fused is not None:  # one joint index per attack, two trials per random word
            h, c = wm.single_attack_fused(fused_bound, fused_threshold, fused, state, np.int64(n),
                                          hist)
            hits[0], crits[0] = h, c
        elif n_attacks == 1:  # the specialised kernel: scalars in registers, ~2x faster
            h, c = wm.single_attack(tables.hit_bound[0], tables.hit_threshold[0], tables.hit_table,
                                    tables.dmg_bound[0], tables.dmg_threshold[0], tables.dmg_table,
                                    state, np.int64(n), hist)
            hits[0], crits[0] = h, c
        else:
            wm.attack_chain(*tables.args(), state, np.int64(n), hist, hits, crits)
        return {"hist": hist, "hits": hits, "crits": crits}

    def probabilities(tally: dict[str, np.ndarray], n: int) -> np.ndarray:
        extra = [tally["hits"][0] / n, tally["crits"][0] / n]
        if boxes is not None:
            extra.append(tally["hist"][boxes:].sum() / n)
        return np.asarray(extra)

    run = simulate(run_chunk, config, probabilities)
    n = run.n_trials
    dist = Distribution.from_counts(run.tally["hist"])
    # hits per trial = sum of per-attack Bernoullis; attacks are independent, so the
    # variance of the sum is the sum of the per-attack variances (exact, not estimated jointly)
    p_each = run.tally["hits"] / n
    value = float(p_each.sum())
    se = float(np.sqrt((p_each * (1 - p_each)).sum() / n))
    mean_hits = Estimate(value, se, (value - Z95 * se, value + Z95 * se), n)
    results = _summary(Estimate.proportion(int(run.tally["hits"][0]), n),
                       Estimate.proportion(int(run.tally["crits"][0]), n), mean_hits, dist, boxes)
    return Report(command, "mc", results, {"damage": dist}, n_trials=n, seed=run.seed, title=title)


def _require_attacks(specs: list[AttackSpec]) -> None:
    if not specs:
        raise InputError("attacks", "a chain needs at least one attack", 0, "give one attack or more")


def run_chain(specs: list[AttackSpec], *, boxes: int | None = None, method: str = "auto",
              config: MonteCarloConfig | None = None, check: bool = False,
              command: str = "warmachine.attack", title: str = "") -> Report:
    """Answer a chain with the engine ``method`` asks for (auto = exact)."""
    if not specs:
        raise InputError("attacks", "a chain needs at least one attack", 0)
    return answer(command, method=method,
                  exact=lambda: chain_exact(specs, boxes, command, title),
                  monte_carlo=lambda cfg: chain_monte_carlo(specs, cfg, boxes, command, title),
                  config=config, check=check)


def attack(stat: int, defense: int, power: int, armor: int, *, method: str = "auto",
           config: MonteCarloConfig | None = None, check: bool = False, explain: bool = False,
           **flags) -> Report:
    """P(hit), damage distribution and P(destroyed) of n attacks (``mathhammer wm attack``).

    Args:
        stat: MAT, RAT or FOCUS. defense, armor: the target's base DEF / ARM.
        power: POW (ranged, magic) or P+S (melee).
        **flags: any field of :class:`AttackSetup` (kind, boost_hit, boost_damage,
            attacks, modifier, crippled, charge, knocked_down, boxes, ...).
        explain: attach each roll's exact working under ``report.info["explain"]``.

    >>> r = attack(6, 13, 12, 18, kind="ranged", boost_hit=True, boost_damage=True)
    >>> round(r.results["p_hit"].value, 5), round(r.results["mean_damage"].value, 5)
    (0.90741, 4.14635)
    """
    setup = AttackSetup(stat=stat, defense=defense, power=power, armor=armor, **flags)
    specs = build_chain(setup)
    first, last = specs[0], specs[-1]
    title = (f"wm attack: {setup.attacks} x {setup.kind} {last.hit_dice}d6+{last.bonus} vs DEF "
             f"{last.defense}, damage {last.damage_dice}d6+{last.power} vs ARM {last.armor}"
             + (" (charge: first damage roll pre-boosted)" if setup.charge else ""))
    report = run_chain(specs, boxes=setup.boxes, method=method, config=config, check=check,
                       title=title)
    report.headline = wm_attack_headline(report, setup.attacks, setup.kind, first.defense,
                                         first.armor, setup.boxes)
    dice = [f"{s.hit_dice}d6 to hit / {s.damage_dice}d6 damage" for s in (first, last)]
    if dice[0] == dice[1]:  # specs differ from the first only (a charge)
        report.info["dice"] = f"{dice[0]} per attack"
    else:  # a charge: the first attack differs from the rest
        report.info["dice"] = f"first attack {dice[0]}; others {dice[-1]}"
    report.info["effective_def"] = first.defense
    report.info["effective_arm"] = first.armor
    if first.auto_hit:
        report.info["note"] = "automatic hit (WM-A4): dice rolled for criticals only"
    if first.auto_miss:
        why = (f"the target is {setup.distance:g}\" away, beyond RNG {setup.rng:g}\""
               if setup.rng is not None and setup.distance > setup.rng
               else f"a Stealth target {setup.distance:g}\" away (more than 5\")")
        report.info["note"] = f"automatic miss: {why} (WM-A8)"
    if explain:
        from mathhammer.explain import attach
        from mathhammer.warmachine.explain import explain_attack

        attach(report, explain_attack(setup))
    return report


# --------------------------------------------------------------------------- crippling (--for-p)
def cripple_chance(setup: AttackSetup, grid, system: str, shield_mask: int = 0):
    """``n → P(system crippled after n attacks of setup)`` on ``grid`` (``wm attack --for-p
    --cripple``), exact: the grid programme of :mod:`exact_grid` stepped once per attack,
    each damage roll marked from a d6 column (WM-G2); a crippled movement system makes the
    later attacks roll against DEF 7 and a crippled shield system (``shield_mask``, with
    ``setup.shield``) drops the +2 ARM (WM-G4, WM-A7, WM-D2). The target starts unmarked.
    """
    from mathhammer import kernels
    from mathhammer.warmachine.exact_grid import MAX_CANDIDATES, ExactTooLarge
    from mathhammer.warmachine.sequence import N_VARIANTS, variant_situation

    kernel = kernels.load("mathhammer.warmachine.kernels.grid")
    rows: list[list[np.ndarray]] = [[], []]  # [first attack, later attacks][variant]
    for v in range(N_VARIANTS):
        mcrip, _, scrip = variant_situation(v)  # knock-down never changes in a wm attack chain
        s = replace(setup, attacks=2, movement_crippled=setup.movement_crippled or mcrip,
                    shield=setup.shield and not (scrip and shield_mask))
        for i, spec in enumerate(build_chain(s)):
            rows[i].append(np.concatenate([[1.0 - spec.p_hit], spec.p_hit * spec.damage_pmf()]))
    width = max(len(r) for per in rows for r in per)
    pmf = np.zeros((2, N_VARIANTS, width))
    for i, per in enumerate(rows):
        for v, r in enumerate(per):
            pmf[i, v, : len(r)] = r
    full = np.uint64(grid.full)
    args = (full, np.int64(grid.width), np.asarray(grid.col_start, dtype=np.int64),
            np.uint64(grid.system_masks.get("M", 0)), np.uint64(shield_mask if setup.shield else 0),
            np.ascontiguousarray(pmf), np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.uint64))
    goal = np.uint64(grid.system_masks[system])
    kd = setup.knocked_down or setup.stationary
    state = {"keys": np.array([1 << 63 if kd else 0], dtype=np.uint64),
             "probs": np.ones(1), "made": 0}
    seen = {0: 0.0}
    p_hits = np.zeros(2)

    def chance(n: int) -> float:
        while state["made"] < n:
            keys, probs = state["keys"], state["probs"]
            need = keys.shape[0] * (2 + 6 * width)
            if need > MAX_CANDIDATES:
                raise ExactTooLarge("‹for_p›", f"the exact grid programme would expand {need:,} "
                                    f"states at attack {state['made'] + 1}", "exact",
                                    "ask for a lower probability")
            step = min(state["made"], 1)
            keys, probs = kernel.sequence_exact(keys, probs, args[0], args[1], args[2], args[3],
                                                args[4], args[5], args[6], args[7],
                                                np.int64(step), p_hits)
            state["keys"], state["probs"] = keys, probs
            state["made"] += 1
            seen[state["made"]] = min(float(probs[(keys & goal) == goal].sum()), 1.0)
        return seen[n]

    return chance


def attacks_to_cripple(stat: int, defense: int, power: int, armor: int, *, system: str,
                       grid: str, for_p: float, **flags) -> Report:
    """The fewest identical attacks whose P(``system`` crippled) on ``grid`` reaches
    ``for_p`` (``wm attack --for-p P --cripple X --grid ID``), with the curve around it.

    ``grid`` is a profile id or path (its grid; with ``shield=True`` its Shield system is
    lost once crippled) or six column strings joined by commas; ``flags`` as
    :func:`attack` (``boxes`` is refused: the goal is crippling, not destroying).

    >>> r = attacks_to_cripple(6, 12, 19, 18, system="M", grid="cygnar/ironclad", for_p=0.5)
    >>> int(r.results["attacks_needed"].value), round(r.results["p_at_needed"].value, 5)
    (4, 0.51697)
    """
    from mathhammer.inverse import fewest_attacks
    from mathhammer.warmachine import limits
    from mathhammer.warmachine.grid import SYSTEM_NAMES

    if flags.get("boxes") is not None:
        raise InputError("‹boxes›", "with ‹cripple›, ‹for_p› asks for P(crippled), not "
                         "P(destroyed)", flags["boxes"], "drop ‹boxes›")
    flags.pop("boxes", None)
    if flags.get("attacks", 1) != 1:
        raise InputError("‹attacks›", "is what ‹for_p› finds: leave it out", flags["attacks"],
                         "drop ‹attacks›")
    name, target_grid, shield_mask = grid_of(grid)
    letter = _grid_system(target_grid, system, name)
    setup = AttackSetup(stat=stat, defense=defense, power=power, armor=armor, **flags)
    return fewest_attacks(
        cripple_chance(setup, target_grid, letter, shield_mask if setup.shield else 0), for_p,
        limits.LIMITS["attacks"][1], command="warmachine.attack",
        outcome=f"cripple {name}'s {SYSTEM_NAMES[letter]} ({letter})")


def grid_of(text: str):
    """(name, Grid, shield system mask) of ``--grid``: six columns, or a profile's grid."""
    from mathhammer.warmachine.grid import Grid

    if "," in str(text):
        return "the target", Grid.from_columns([c.strip() for c in text.split(",")], "‹grid›"), 0
    from mathhammer.warmachine.duel import shield_mask_of
    from mathhammer.warmachine.models import load_warmachine

    prof = load_warmachine(text)
    if not prof.grid:
        raise InputError("‹grid›", f"{prof.name} has a damage track, not a grid: no system to "
                         "cripple", text, "name a warjack, e.g. ‹grid› cygnar/ironclad")
    grid = Grid.from_columns(prof.grid_columns, f"{text}: grid")
    return prof.name, grid, shield_mask_of(prof, grid)


def _grid_system(grid, name: str, who: str) -> str:
    from mathhammer.warmachine.grid import SYSTEM_NAMES, system_letter

    letter = system_letter(name, "‹cripple›")
    if letter not in grid.system_masks:
        raise InputError("‹cripple›", f"{who}'s grid has no {SYSTEM_NAMES[letter]} ({letter}) "
                         "boxes", name, "name a system the grid has")
    return letter
