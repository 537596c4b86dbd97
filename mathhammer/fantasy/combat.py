"""Close combat between two units (FB-C1..C7): exact first round, Monte Carlo rounds.

>>> report = combat("wfb8/empire_halberdiers", "wfb8/orc_boyz", rounds=1)  # doctest: +SKIP
>>> report.results["p_win"]                                                 # doctest: +SKIP

How a combat is resolved (rule ids from docs/rules.md; decisions marked):

* Attack groups (FB-C1): front-rank models in contact strike with A (+ weapon,
  Frenzy, Devastating Charge in a round they charged); the champion adds
  ``champion_extra_attacks``; supporting ranks (``ruleset.supporting_ranks`` + the
  weapon's extra ranks; infantry only, **decision**) strike once per model; a
  mount strikes with its own profile for each front model. Models in contact are
  capped by the enemy's frontage: ceil(enemy frontage / own base width)
  (**decision**: units are centred on each other).
* Strike order (FB-C2): by Initiative, equal simultaneous; Always Strikes First
  before everyone (all ASF together), strikes-last weapons / ASL after everyone
  (ASF and strikes-last cancel); ``basic`` chargers first in round one.
* Casualties (FB-C3): models slain before their step do not strike, front rank
  first; the champion is the last front-rank model to die (**decision**).
* One attack's outcome is the exact chain of :mod:`mathhammer.fantasy.chain`
  (re-rolls for Hatred in round one, the ``wfb8`` ASF re-roll, lances on the charge).
* Combat result (FB-C4) after the round: wounds caused + ranks behind the first
  with ``ruleset.rank_width`` models (after casualties, max ``max_rank_bonus``) +
  standard + battle standard + flank / rear + a stated bonus. Equal = draw.
* The loser (FB-C5): Unbreakable passes; where ``ruleset.unstable = "lose_wounds"``
  (t9a1) Unstable loses the difference in wounds and Daemonic Instability 2D6 +
  difference − Ld; otherwise a break test on
  Ld − difference (steadfast: more ranks than the enemy, or Stubborn → Ld),
  re-rolled with a battle standard in the unit. A broken unit flees and is
  destroyed when caught (FB-C6). Rounds repeat until a break, a destroyed unit or
  the round limit (FB-C7).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.errors import InputError
from mathhammer.fantasy.chain import AttackSpec, chain_distribution, single_attack_outcomes
from mathhammer.fantasy.models import UnitProfile, load_unit, with_formation
from mathhammer.fantasy.rulesets import Ruleset, load_ruleset
from mathhammer.query import answer
from mathhammer.results import Distribution, Estimate, Report

DEFAULT_ROUNDS = 25  # "until decided": a cap so that two unbreakable units stop
POSITIONS = ("front", "flank", "rear")
SUPPORTING_TYPES = ("infantry", "monstrous_infantry", "swarm")
KB_TYPES = ("infantry", "cavalry", "war_beast")  # FB-W2: wfb8 Killing Blow targets
MAX_LOST_BY = 64


@dataclass(frozen=True)
class Side:
    """One unit in a combat: a profile, its formation and its situation."""

    unit: UnitProfile
    charged: bool = False
    position: str = "front"  # where this side fights the enemy from (flank/rear bonus)
    bonus: int = 0  # any stated combat-result bonus
    reroll_break: bool | None = None  # None: a battle standard in the unit re-rolls (FB-T2)

    @property
    def models(self) -> int:
        return self.unit.formation.models


def make_side(ref: str | UnitProfile, *, where: str, models: int | None = None,
              rank_width: int | None = None, charged: bool = False, position: str = "front",
              bonus: int = 0, **command) -> Side:
    """A :class:`Side` from a profile id / file / object, with formation overrides."""
    unit = ref if isinstance(ref, UnitProfile) else load_unit(ref)
    if position not in POSITIONS:
        raise InputError(f"{where} position", "must be front, flank or rear", position,
                         "use --flank a or --rear a")
    if models is not None and not 1 <= models <= 200:
        raise InputError(f"{where} models", "must be 1..200", models, "use e.g. 20")
    if rank_width is not None and not 1 <= rank_width <= 40:
        raise InputError(f"{where} rank width", "must be 1..40", rank_width, "use e.g. 5")
    if not -50 <= bonus <= 50:  # a stated combat-result bonus (FB-C4); beyond ±50 is a typo
        flag = f"--bonus-{where[-1].lower()}" if where.startswith("UNIT_") else f"{where} bonus"
        raise InputError(flag, "must be -50..50", bonus, "use e.g. 1 for high ground")
    unit = with_formation(unit, models=models, rank_width=rank_width, **command)
    return Side(unit, charged, position, bonus)


# ---- compiling sides into groups ---------------------------------------------------------
@dataclass(frozen=True)
class Group:
    side: int
    kind: int  # kernels.combat KIND_*
    name: str
    attacks: tuple[int, int]  # per model, first round / later rounds
    key: tuple[int, int]  # strike-order key, first round / later rounds
    outcomes: tuple[np.ndarray, np.ndarray]  # per-attack pmf, index -1 = slain outright
    specs: tuple[AttackSpec, AttackSpec] | None = None  # the profiles behind ``outcomes``


@dataclass
class Compiled:
    sides: tuple[Side, Side]
    rules: Ruleset
    groups: list[Group]
    contact: tuple[int, int]
    support_ranks: tuple[int, int]
    notes: list[str] = field(default_factory=list)


def _defence(unit: UnitProfile) -> tuple[int, int]:
    """(WS an attacker compares with, I) of a model: a ridden monster uses its mount."""
    if unit.defence_t is not None and unit.mounts:
        return unit.mounts[0].ws, unit.mounts[0].i
    return unit.stats.ws, unit.stats.i


def _order_key(i: int, asf: bool, strikes_last: bool, charged_first: bool) -> int:
    if asf and strikes_last:  # FB-C2: the two cancel out, Initiative order
        asf = strikes_last = False
    key = 20 if asf else (0 if strikes_last else i)
    return key + (30 if charged_first else 0)


def _profile_outcomes(spec: AttackSpec, rules: Ruleset) -> np.ndarray:
    pmf, slain = single_attack_outcomes(spec, rules)
    return np.concatenate([pmf, [slain]])


def _attack_groups(s: int, sides: tuple[Side, Side], rules: Ruleset, notes: list[str]) -> list[Group]:
    me, enemy = sides[s], sides[1 - s]
    unit, foe = me.unit, enemy.unit
    foe_ws, foe_i = _defence(foe)
    foe_asf = foe.has("Always Strikes First") and not foe.weapon.strikes_last
    save = foe.saves.armour
    if save is not None and foe.weapon.melee_armour_bonus:
        save = max(1, save - foe.weapon.melee_armour_bonus)
    def profile(name, ws, strength, i, a, weapon, special, kind):
        kb = "Killing Blow" in special and rules.killing_blow is not None
        if "Killing Blow" in special and rules.killing_blow is None and kind != 1:
            notes.append(f"{name}: Killing Blow ignored, ruleset {rules.name} has none")
        asf = "Always Strikes First" in special
        last = weapon.strikes_last or "Always Strikes Last" in special
        out, keys, attacks, specs = [], [], [], []
        for first_round in (True, False):
            charging = first_round and me.charged
            s_total = min(strength + weapon.strength_bonus + (weapon.charge_strength_bonus if charging else 0),
                          rules.caps.max_characteristic)
            spec = AttackSpec(
                strength=s_total, toughness=foe.toughness, ws=ws, target_ws=foe_ws, save=save,
                ward=foe.saves.ward, regeneration=foe.saves.regeneration,
                armour_piercing=weapon.armour_piercing,
                poison="Poisoned Attacks" in special, killing_blow=kb,
                killing_blow_applies=foe.troop_type in KB_TYPES,
                multiple_wounds=weapon.multiple_wounds, target_wounds=foe.wounds,
                flaming="Flaming Attacks" in special, hatred=first_round and "Hatred" in special,
                always_strikes_first=asf and not last, initiative=i, target_initiative=foe_i,
                target_always_strikes_first=foe_asf)
            specs.append(spec)
            out.append(_profile_outcomes(spec, rules))
            keys.append(_order_key(i, asf, last, charging and rules.chargers_strike_first))
            bonus = weapon.extra_attacks + ("Frenzy" in special) + (
                charging and "Devastating Charge" in special)
            attacks.append(a + bonus if kind != 2 else 1)
        return Group(s, kind, name, (attacks[0], attacks[1]), (keys[0], keys[1]), (out[0], out[1]),
                     (specs[0], specs[1]))

    st = unit.stats
    groups = [profile(unit.name, st.ws, st.s, st.i, st.a, unit.weapon, unit.special_rules, 0)]
    if unit.formation.champion and unit.champion_extra_attacks:
        g = profile(f"{unit.name} champion", st.ws, st.s, st.i, unit.champion_extra_attacks,
                    unit.weapon, unit.special_rules, 1)
        groups.append(Group(g.side, g.kind, g.name, (unit.champion_extra_attacks,) * 2, g.key,
                            g.outcomes, g.specs))
    if unit.troop_type in SUPPORTING_TYPES:
        groups.append(profile(f"{unit.name} supporting", st.ws, st.s, st.i, 1, unit.weapon,
                              unit.special_rules, 2))
    for mount in unit.mounts:
        groups.append(profile(mount.name, mount.ws, mount.s, mount.i, mount.a, mount.weapon,
                              mount.special_rules, 3))
    return [g for g in groups if max(g.attacks) > 0]


def compile_combat(a: Side, b: Side, rules: Ruleset | str) -> Compiled:
    rules = load_ruleset(rules)
    sides = (a, b)
    notes: list[str] = []
    for side in sides:
        if side.unit.ruleset != rules.name:
            notes.append(f"{side.unit.id} is a {side.unit.ruleset} profile, used under {rules.name}")
        for rule in ("Unstable", "Daemonic Instability"):
            if side.unit.has(rule) and rules.unstable != "lose_wounds":
                notes.append(f"{side.unit.id}: {rule} not used, ruleset {rules.name} has "
                             f"unstable = \"{rules.unstable}\" (it takes break tests)")
    groups = _attack_groups(0, sides, rules, notes) + _attack_groups(1, sides, rules, notes)
    contact, support = [], []
    for s in (0, 1):
        me, foe = sides[s].unit, sides[1 - s].unit
        foe_front = min(foe.formation.rank_width, foe.formation.models) * foe.base_mm[0]
        contact.append(max(1, min(me.formation.rank_width, math.ceil(foe_front / me.base_mm[0]))))
        # FB-C1: basic fights with the front rank only, spears included
        fights_in_ranks = rules.supporting_ranks > 0 and me.troop_type in SUPPORTING_TYPES
        support.append(rules.supporting_ranks + me.weapon.extra_supporting_ranks
                       if fights_in_ranks else 0)
    return Compiled(sides, rules, groups, (contact[0], contact[1]), (support[0], support[1]), notes)


# ---- leadership, pursuit and instability tables (rules live in fantasy/tests.py) ---------
def _break_tables(c: Compiled) -> tuple[np.ndarray, np.ndarray]:
    """P(pass break test | side, steadfast, lost by) and P(caught | side flees)."""
    from mathhammer.fantasy import tests as fb_tests

    p_pass = np.zeros((2, 2, MAX_LOST_BY))
    p_caught = np.zeros(2)
    for s, side in enumerate(c.sides):
        unit, foe = side.unit, c.sides[1 - s].unit
        reroll = side.reroll_break if side.reroll_break is not None else unit.formation.battle_standard
        for steadfast in (0, 1):
            for lost_by in range(MAX_LOST_BY):
                p_pass[s, steadfast, lost_by] = float(fb_tests.break_test(
                    unit.stats.ld, lost_by, c.rules, steadfast=bool(steadfast) and c.rules.steadfast,
                    stubborn=unit.has("Stubborn"), reroll=bool(reroll)))
        p_caught[s] = float(fb_tests.pursuit(
            "3D6kh2" if unit.has("Swiftstride") else "2D6",
            "3D6kh2" if foe.has("Swiftstride") else "2D6"))
    return p_pass, p_caught


def _static_bonus(side: Side, rules: Ruleset) -> int:
    bonus = side.bonus
    if side.unit.formation.battle_standard:
        bonus += rules.battle_standard_bonus
    if side.position == "flank":
        bonus += rules.flank_bonus
    elif side.position == "rear":
        bonus += rules.rear_bonus
    return bonus


def side_ints(c: Compiled) -> np.ndarray:
    from mathhammer.kernels import combat as k

    rules = c.rules
    musician_rule = bool(getattr(rules, "musician_breaks_ties", False))
    out = np.zeros((2, k.NS), np.int64)
    for s, side in enumerate(c.sides):
        u = side.unit
        f = u.formation
        row = out[s]
        row[k.S_MODELS], row[k.S_W], row[k.S_WIDTH] = f.models, u.wounds, f.rank_width
        row[k.S_CONTACT], row[k.S_SUPPORT_RANKS] = c.contact[s], c.support_ranks[s]
        row[k.S_LD] = u.stats.ld
        row[k.S_STUBBORN] = u.has("Stubborn")
        row[k.S_UNBREAKABLE] = u.has("Unbreakable")
        # FB-C5: instability replaces the break test only where the ruleset has it
        instability = rules.unstable == "lose_wounds"
        row[k.S_UNSTABLE] = u.has("Unstable") and instability
        row[k.S_DAEMONIC] = u.has("Daemonic Instability") and instability
        row[k.S_STANDARD] = f.standard and rules.standard_bonus > 0
        row[k.S_STATIC_CR] = _static_bonus(side, rules) + (
            rules.standard_bonus - 1 if f.standard and rules.standard_bonus > 1 else 0)
        row[k.S_CHAMPION] = f.champion
        row[k.S_RANK_MIN], row[k.S_MAX_RANK_BONUS] = rules.rank_width, rules.max_rank_bonus
        row[k.S_STEADFAST_RULE] = rules.steadfast
        row[k.S_MUSICIAN] = f.musician and musician_rule
    return out


def kernel_arrays(c: Compiled) -> dict[str, np.ndarray]:
    """Flat arrays for :func:`mathhammer.kernels.combat.combat_trials`."""
    groups = c.groups
    n = len(groups)
    width = max(len(g.outcomes[r]) for g in groups for r in (0, 1)) if groups else 2
    cdf = np.zeros((2, max(n, 1), width))
    attacks = np.zeros((2, max(n, 1)), np.int64)
    keys = np.full((2, max(n, 1)), -1, np.int64)
    for j, g in enumerate(groups):
        for r in (0, 1):
            pmf = np.zeros(width)
            out = g.outcomes[r]
            pmf[: len(out) - 1] = out[:-1]
            pmf[-1] = out[-1]  # slain outright is always the last index
            cum = np.cumsum(pmf)
            top = int(np.nonzero(pmf > 0)[0][-1])
            cum[top:] = 1.0  # no float gap above the last possible outcome
            cdf[r, j] = cum
            attacks[r, j] = g.attacks[r]
            keys[r, j] = g.key[r]
    sum_cdf = _sum_tables(c, groups)
    step_keys = np.full((2, max(n, 1)), -1, np.int64)
    n_steps = np.zeros(2, np.int64)
    for r in (0, 1):
        distinct = sorted({g.key[r] for g in groups}, reverse=True)
        step_keys[r, : len(distinct)] = distinct
        n_steps[r] = len(distinct)
    return {
        "g_side": np.array([g.side for g in groups] or [0], np.int64),
        "g_kind": np.array([g.kind for g in groups] or [0], np.int64),
        "g_attacks": attacks, "g_key": keys, "g_cdf": cdf, "g_sum_cdf": sum_cdf,
        "step_keys": step_keys,
        "n_steps": n_steps, "s_int": side_ints(c),
    }


def _cumulative(pmf: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros(width)
    out[: len(pmf)] = pmf
    cum = np.cumsum(out)
    cum[int(np.nonzero(out > 0)[0][-1]):] = 1.0  # no float gap above the last outcome
    return cum


def _sum_tables(c: Compiled, groups: list[Group]) -> np.ndarray:
    """Exact P(n attacks of a group cause t wounds) for every n a group can make.

    Only when wounds add up (every group is free of slays against W > 1 models);
    otherwise an empty table and the kernel rolls attack by attack.
    """
    from mathhammer.fantasy.chain import chain_distribution

    if not groups or any(c.sides[1 - g.side].unit.wounds > 1 and g.outcomes[r][-1] > 0
                         for g in groups for r in (0, 1)):
        return np.zeros((2, max(len(groups), 1), 0, 1))
    n_max = 0
    for g in groups:
        side = c.sides[g.side].unit
        models = max(side.formation.rank_width, c.support_ranks[g.side] * side.formation.rank_width)
        n_max = max(n_max, models * max(g.attacks))
    tables = [[[chain_distribution(g.outcomes[r][:-1], float(g.outcomes[r][-1]), {n: 1.0},
                                   c.sides[1 - g.side].unit.wounds) for n in range(n_max + 1)]
               for g in groups] for r in (0, 1)]
    width = max(len(t) for per_r in tables for per_g in per_r for t in per_g)
    out = np.zeros((2, len(groups), n_max + 1, width))
    for r in (0, 1):
        for j in range(len(groups)):
            for n in range(n_max + 1):
                out[r, j, n] = _cumulative(tables[r][j][n], width)
    return out


def _instability_table() -> np.ndarray:
    from mathhammer.dice import parse_dice

    pmf = parse_dice("2D6").pmf()
    table = np.zeros(13)
    for v, p in pmf.items():
        table[v] = float(p)
    return table


# ---- the two engines ----------------------------------------------------------------------
RESULT_NAMES = ("p_win", "p_draw", "p_lose", "p_enemy_breaks", "p_enemy_destroyed", "p_caught",
                "p_own_break", "p_own_destroyed", "p_own_caught", "p_win_first_round",
                "p_draw_first_round", "p_lose_first_round")
_COUNTER_OF = {"p_win": 0, "p_draw": 1, "p_lose": 2, "p_enemy_breaks": 3, "p_enemy_destroyed": 4,
               "p_caught": 5, "p_own_break": 6, "p_own_destroyed": 7, "p_own_caught": 8,
               "p_win_first_round": 9, "p_draw_first_round": 10, "p_lose_first_round": 11}
HISTOGRAMS = ("wounds_dealt", "wounds_taken", "models_left_a", "models_left_b", "rounds")


def _hist_sizes(c: Compiled, rounds: int) -> dict[str, int]:
    a, b = c.sides[0].unit, c.sides[1].unit
    return {"wounds_dealt": b.formation.models * b.wounds + 1,
            "wounds_taken": a.formation.models * a.wounds + 1,
            "models_left_a": a.formation.models + 1, "models_left_b": b.formation.models + 1,
            "rounds": rounds + 1}


def _order_text(groups: list[Group]) -> str:
    """Strike steps of the first round, highest first; '=' joins simultaneous groups."""
    def label(key: int) -> str:
        extra = "charged, " if key >= 30 else ""
        key %= 30
        return extra + ("ASF" if key == 20 else "last" if key == 0 else f"I{key}")

    steps = sorted({g.key[0] for g in groups}, reverse=True)
    return " > ".join(" = ".join(g.name for g in groups if g.key[0] == k) + f" ({label(k)})"
                      for k in steps)


def _report(c: Compiled, method: str, counters, hists: dict, n_trials: int | None,
            seed: int | None, rounds: int, cr_mean: Estimate, title: str) -> Report:
    results: dict[str, Estimate] = {}
    for name in RESULT_NAMES:
        value = counters[_COUNTER_OF[name]]
        results[name] = (Estimate.exact(float(value)) if n_trials is None
                         else Estimate.proportion(int(value), n_trials))
    results["mean_combat_result"] = cr_mean
    dists = {}
    for name in HISTOGRAMS:
        h = hists[name]
        dists[name] = Distribution.exact(h) if n_trials is None else Distribution.from_counts(h)
    results["mean_wounds_dealt"] = dists["wounds_dealt"].mean_estimate()
    results["mean_wounds_taken"] = dists["wounds_taken"].mean_estimate()
    results["mean_models_left_a"] = dists["models_left_a"].mean_estimate()
    results["mean_models_left_b"] = dists["models_left_b"].mean_estimate()
    a, b = c.sides
    info = {
        "ruleset": c.rules.name, "rounds": rounds,
        "unit_a": f"{a.unit.id}: {a.models} models, {a.unit.formation.rank_width} wide"
                  f"{', charging' if a.charged else ''}{', ' + a.position if a.position != 'front' else ''}",
        "unit_b": f"{b.unit.id}: {b.models} models, {b.unit.formation.rank_width} wide"
                  f"{', charging' if b.charged else ''}{', ' + b.position if b.position != 'front' else ''}",
        "points_a": a.unit.unit_points(), "points_b": b.unit.unit_points(),
        "strike_order_round_1": _order_text(c.groups),
        "p_win": "A's opponent broke or was destroyed and A was not; mean_combat_result = "
                 "first-round combat score of A minus B",
    }
    if c.notes:
        info["notes"] = "; ".join(dict.fromkeys(c.notes))
    return Report("fb combat", method, results, dists, n_trials=n_trials, seed=seed, info=info,
                  title=title)


def combat_monte_carlo(c: Compiled, rounds: int, config: MonteCarloConfig, title: str) -> Report:
    from mathhammer import kernels

    k = kernels.load("combat")
    arrays = kernel_arrays(c)
    p_pass, p_caught = _break_tables(c)
    p_instab = _instability_table()
    sizes = _hist_sizes(c, rounds)

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        counters = np.zeros(k.N_COUNTERS, np.int64)
        hists = {name: np.zeros(size, np.int64) for name, size in sizes.items()}
        k.combat_trials(arrays["g_side"], arrays["g_kind"], arrays["g_attacks"], arrays["g_key"],
                        arrays["g_cdf"], arrays["g_sum_cdf"], arrays["step_keys"], arrays["n_steps"], arrays["s_int"],
                        p_pass, p_caught, p_instab, np.int64(rounds), state, np.int64(n),
                        counters, hists["wounds_dealt"], hists["wounds_taken"],
                        hists["models_left_a"], hists["models_left_b"], hists["rounds"])
        return {"counters": counters, **hists}

    def probabilities(tally: dict[str, np.ndarray], n: int) -> np.ndarray:
        return tally["counters"][: len(RESULT_NAMES)] / n

    run = simulate(run_chunk, config, probabilities)
    t = run.tally
    cr_mean = Estimate.mean(float(t["counters"][k.C_CR1_SUM]), float(t["counters"][k.C_CR1_SQ]),
                            run.n_trials)
    return _report(c, "mc", t["counters"], {h: t[h] for h in HISTOGRAMS}, run.n_trials, run.seed,
                   rounds, cr_mean, title)


def combat(
    unit_a: str | UnitProfile | Side,
    unit_b: str | UnitProfile | Side,
    *,
    rounds: int | None = None,
    charger: str | None = None,
    ruleset: str | Ruleset = "wfb8",
    method: str = "auto",
    config: MonteCarloConfig | None = None,
    check: bool = False,
) -> Report:
    """Fight ``unit_a`` against ``unit_b`` (profile ids, unit files, profiles or Sides).

    Args:
        rounds: stop after this many rounds; None = until a break or a destroyed unit
            (at most :data:`DEFAULT_ROUNDS`). ``rounds=1`` has an exact engine.
        charger: "a" or "b": that side charged (lances, Devastating Charge, ``basic``
            strike order); None = nobody charged.
        ruleset: basic, wfb8, t9a1 or a ruleset file.
    """
    rules = load_ruleset(ruleset)
    if rounds is not None and not 1 <= rounds <= 100:
        raise InputError("--rounds", "must be 1..100", rounds, "use e.g. --rounds 3")
    if charger not in (None, "a", "b"):
        raise InputError("--charger", "must be a or b", charger, "use --charger a")
    sides = []
    for label, ref in (("a", unit_a), ("b", unit_b)):
        side = ref if isinstance(ref, Side) else make_side(ref, where=f"unit {label.upper()}")
        if charger == label and not side.charged:
            side = Side(side.unit, True, side.position, side.bonus, side.reroll_break)
        sides.append(side)
    c = compile_combat(sides[0], sides[1], rules)
    n_rounds = rounds or DEFAULT_ROUNDS
    title = (f"{c.sides[0].unit.name} vs {c.sides[1].unit.name} "
             f"({rules.name}, {'until decided' if rounds is None else f'{n_rounds} round(s)'})")

    def exact() -> Report:
        from mathhammer.fantasy.combat_exact import combat_exact

        return combat_exact(c, n_rounds, title)

    from mathhammer.fantasy.combat_exact import exact_available

    reason = exact_available(c, n_rounds)
    if method == "exact" and reason is not None:
        raise InputError("--method", f"exact is not available for {reason}", "exact",
                         "use --method mc")
    # auto: exact for one round; longer fights only when asked (it is slower than MC)
    has_exact = reason is None and (n_rounds == 1 or method == "exact" or check)
    report = answer("fb combat", method=method, exact=exact if has_exact else None,
                    monte_carlo=lambda cfg: combat_monte_carlo(c, n_rounds, cfg, title),
                    config=config, check=check)
    from mathhammer.headline import fb_combat_headline

    report.headline = fb_combat_headline(report, c.sides[0].unit.name, c.sides[1].unit.name,
                                         rounds)
    return report
