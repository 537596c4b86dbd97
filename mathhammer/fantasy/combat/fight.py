"""Close combat (FB-C1..C7): units, their characters and champions, challenges, several
units a side, ridden monsters; exact where the fight is small, Monte Carlo otherwise.

>>> report = combat("wfb8/empire_halberdiers", "wfb8/orc_boyz", rounds=1)  # doctest: +SKIP
>>> report.results["p_a_wins"]                                              # doctest: +SKIP

How a combat is fought (rule ids in docs/rules.md; decisions marked there):

* Attacks (FB-C1): front-rank models in contact strike with their Attacks plus kit
  (FB-E1..E8), Frenzy (FB-S1) and Devastating Charge; supporting ranks strike once per
  model (``ruleset.supporting_ranks`` + a spear's ranks, infantry only); a mount with its
  own profile; impact hits, stomps and breath weapons as automatic hits (FB-S5..S7).
* Champions and characters (FB-K1/K2) fight from the front rank with their own profiles
  and wounds; enemy attacks go to the rank and file unless the side targets one of them
  by name; a challenge (FB-K3) is a duel inside the combat, overkill counting.
* Strike order (FB-C2) by Initiative, Always Strikes First before, strikes-last weapons
  and stomps after; the ruleset's ``chargers_strike_first``. Slain models do not strike
  (FB-C3). Combat result (FB-C4) summed per side (FB-M1); every unit of the loser tests
  (FB-C5, general and battle standard FB-K4); broken units flee and are pursued by the
  winners no longer held (FB-C6, FB-M4); rounds repeat (FB-C7).

Result names (a contract): side level ``p_a_wins`` (every B unit broke or was destroyed
and some A unit is still in the fight), ``p_b_wins``, ``p_both_standing`` (both sides
still fighting after the last round), ``p_both_out``; the first round alone
``p_a_wins_round_1``, ``p_round_1_tied``, ``p_b_wins_round_1`` and
``mean_round_1_score_a_minus_b``; per unit (one unit a side) ``p_enemy_breaks``,
``p_enemy_destroyed``, ``p_caught``, ``p_own_break``, ``p_own_destroyed``,
``p_own_caught`` or (several units) ``p_broke[A1]``, ``p_destroyed[A1]``,
``p_caught[A1]``; per champion and character ``p_slain[NAME]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.errors import InputError
from mathhammer.fantasy.combat.compile import (
    POSITIONS,
    ChallengeSpec,
    Character,
    CompiledCombat,
    Side,
    compile_combat,
    key_text,
)
from mathhammer.fantasy.models import UnitProfile, load_unit, with_formation
from mathhammer.fantasy.rules.ruleset import Ruleset, load_ruleset
from mathhammer.query import answer
from mathhammer.renames import RENAMED as _RENAMED
from mathhammer.results import Distribution, Estimate, Report
from mathhammer.words import plural

__all__ = ["Side", "Character", "ChallengeSpec", "combat", "make_side", "compile_fight", "RENAMED"]

DEFAULT_ROUNDS = 25  # "until decided": a cap so that two unbreakable units stop

#: result names of earlier versions -> what to read instead (one table: mathhammer.renames)
RENAMED = _RENAMED["fantasy.combat"]


def make_side(ref: str | UnitProfile, *, where: str, models: int | None = None,
              rank_width: int | None = None, charged: bool = False, position: str = "front",
              bonus: int = 0, characters: Sequence[Character] = (), against: int | None = None,
              target: str | None = None, attack_mount: bool = False, **command) -> Side:
    """A :class:`Side` from a profile id / file / object, with formation overrides."""
    unit = ref if isinstance(ref, UnitProfile) else load_unit(ref)
    if position not in POSITIONS:
        raise InputError(f"{where} position", "must be front, flank or rear", position,
                         "use ‹flank› a or ‹rear› a")
    if models is not None and not 1 <= models <= 200:
        raise InputError(f"{where} models", "must be 1..200", models, "use e.g. 20")
    if rank_width is not None and not 1 <= rank_width <= 40:
        raise InputError(f"{where} rank width", "must be 1..40", rank_width, "use e.g. 5")
    if not -50 <= bonus <= 50:  # a stated combat-result bonus (FB-C4); beyond ±50 is a typo
        flag = f"‹bonus›-{where[-1].lower()}" if where.startswith("UNIT_") else f"{where} bonus"
        raise InputError(flag, "must be -50..50", bonus, "use e.g. 1 for high ground")
    unit = with_formation(unit, models=models, rank_width=rank_width, **command)
    return Side(unit, charged, position, bonus, None, tuple(characters), against, target, attack_mount)


def _as_sides(ref, label: str) -> tuple[Side, ...]:
    if isinstance(ref, Side):
        return (ref,)
    if isinstance(ref, (str, UnitProfile)):
        return (make_side(ref, where=f"unit {label.upper()}"),)
    sides = tuple(ref)
    if not sides or not all(isinstance(s, Side) for s in sides):
        raise InputError(f"unit {label.upper()}", "must be a profile, a Side or a list of Sides", ref,
                         "use make_side(...)")
    return sides


def compile_fight(unit_a, unit_b, *, charger: str | None = None, ruleset: str | Ruleset = "wfb8",
                  challenge: ChallengeSpec | None = None,
                  general_ld: tuple[int | None, int | None] = (None, None),
                  bsb: tuple[bool, bool] = (False, False),
                  first_round_only: bool = False) -> tuple[CompiledCombat, object]:
    """The compiled fight and its exact tables (what both engines read); ``first_round_only``:
    tables for one exact round from the start only, not for Monte Carlo (see
    :func:`arrays.build_tables`)."""
    from mathhammer.fantasy.combat.arrays import build_tables

    rules = load_ruleset(ruleset)
    if charger not in (None, "a", "b"):
        raise InputError("‹charger›", "must be a or b", charger, "use ‹charger› a")
    sides = []
    for label, ref in (("a", unit_a), ("b", unit_b)):
        group = _as_sides(ref, label)
        if charger == label:
            group = tuple(replace(s, charged=True) for s in group)
        sides.append(group)
    c = compile_combat(sides[0], sides[1], rules, challenge=challenge, general_ld=general_ld, bsb=bsb)
    return c, build_tables(c, first_round_only)


def combat(
    unit_a, unit_b, *, rounds: int | None = None, charger: str | None = None,
    ruleset: str | Ruleset = "wfb8", method: str = "auto", config: MonteCarloConfig | None = None,
    check: bool = False, challenge: ChallengeSpec | None = None,
    general_ld: tuple[int | None, int | None] = (None, None), bsb: tuple[bool, bool] = (False, False),
) -> Report:
    """Fight side A against side B: each a profile id, unit file, profile, Side or a list
    of up to 4 Sides (FB-M1).

    Args:
        rounds: stop after this many rounds; None = until decided (at most
            :data:`DEFAULT_ROUNDS`). ``rounds=1`` has an exact engine.
        charger: "a" or "b": every unit of that side charged (lances, impact hits, ...).
        challenge: FB-K3: who issues a challenge, and the answer.
        general_ld: FB-K4: the Leadership of a general outside the fight, per side.
        bsb: FB-K4: a battle standard within range of that side (re-rolls break tests).
    """
    fight = combat_session(unit_a, unit_b, rounds=rounds, charger=charger, ruleset=ruleset,
                           challenge=challenge, general_ld=general_ld, bsb=bsb)
    return fight(method=method, config=config, check=check)


def combat_session(
    unit_a, unit_b, *, rounds: int | None = None, charger: str | None = None,
    ruleset: str | Ruleset = "wfb8", challenge: ChallengeSpec | None = None,
    general_ld: tuple[int | None, int | None] = (None, None), bsb: tuple[bool, bool] = (False, False),
) -> Callable[..., Report]:
    """The fight of :func:`combat` compiled once: ``session(method=, config=, check=)`` gives
    its report, as often as asked (an adaptive cell runs batch after batch of one fight)."""
    if rounds is not None and not 1 <= rounds <= 100:
        raise InputError("‹rounds›", "must be 1..100", rounds, "use e.g. ‹rounds› 3")
    machine = war_machine_fight_of(unit_a, unit_b, ruleset=ruleset, charger=charger,
                                   challenge=challenge, general_ld=general_ld, bsb=bsb)
    if machine is not None:  # FB-WM1: one unit against a war machine has its own small engine
        from mathhammer.fantasy.combat.war_machine import play_fight

        def machine_session(method: str = "auto", config: MonteCarloConfig | None = None,
                            check: bool = False) -> Report:
            return play_fight(machine, rounds=rounds, method=method, config=config, check=check)

        return machine_session
    c, tables = compile_fight(unit_a, unit_b, charger=charger, ruleset=ruleset, challenge=challenge,
                              general_ld=general_ld, bsb=bsb)
    n_rounds = rounds or DEFAULT_ROUNDS
    title = (f"{_side_name(c, 0)} vs {_side_name(c, 1)} "
             f"({c.rules.name}, {'until decided' if rounds is None else f'{n_rounds} round(s)'})")

    from mathhammer.fantasy.combat.exact import combat_exact, exact_available

    reason = exact_available(c, tables, n_rounds)

    def exact() -> Report:
        return _report(c, "exact", combat_exact(c, tables, n_rounds), None, None, n_rounds, title)

    def session(method: str = "auto", config: MonteCarloConfig | None = None,
                check: bool = False) -> Report:
        if method == "exact" and reason is not None:
            raise InputError("‹method›", f"exact is not available for {reason}", "exact",
                             "use ‹method› mc")
        # auto: exact for one round; longer fights only when asked (MC is faster there)
        has_exact = reason is None and (n_rounds == 1 or method == "exact" or check)
        return answer("fantasy.combat", method=method, exact=exact if has_exact else None,
                      monte_carlo=lambda cfg: combat_monte_carlo(c, tables, n_rounds, cfg, title),
                      config=config, check=check)

    return session


def war_machine_fight_of(unit_a, unit_b, *, ruleset: str | Ruleset = "wfb8",
                         charger: str | None = None, challenge: ChallengeSpec | None = None,
                         general_ld: tuple[int | None, int | None] = (None, None),
                         bsb: tuple[bool, bool] = (False, False)):
    """FB-WM1: the :class:`~mathhammer.fantasy.combat.war_machine.Fight` of one unit against a
    war machine — what its engine and ``--explain`` both read — or None without a war
    machine. What that fight cannot play (company, a charging machine, flank, bonus ...) is
    refused in one line, never dropped."""
    a, b = _as_sides(unit_a, "a"), _as_sides(unit_b, "b")
    machines = [s for s in a + b if s.unit.machine is not None]
    if not machines:
        return None
    m = machines[0].unit
    fix = f"fight it as fb combat UNIT {m.id} (one unit, charging; FB-WM1)"
    if len(a) != 1 or len(b) != 1 or a[0].unit.machine is not None:
        raise InputError("side A" if a[0].unit.machine is not None else "sides",
                         f"{m.name} is a war machine: one unit (side A) charges it (side B)",
                         m.id, fix)
    if (challenge is not None or a[0].characters or b[0].characters or any(general_ld)
            or any(bsb) or charger == "b" or b[0].charged):
        raise InputError("‹challenge›" if challenge is not None else "side B",
                         f"{m.name} is a war machine: no characters, challenge, general or "
                         "battle standard, and it does not charge (FB-WM1)", m.id,
                         "drop those options (the unit charges the machine)")
    unit = a[0]
    for flag, given, what in (
            ("‹flank› / ‹rear›", unit.position != "front" or b[0].position != "front",
             "it has no flank or rear: the unit fights its front"),
            ("‹bonus_a› / ‹bonus_b›", unit.bonus or b[0].bonus, "its combat result is played as "
             "FB-WM1 says, without stated bonuses"),
            ("‹target_a› / ‹target_b›", unit.target or b[0].target, "it has no champion or "
             "character to single out"),
            ("‹attack_mount›", unit.attack_mount or b[0].attack_mount, "it has no ridden monster")):
        if given:
            raise InputError(flag, f"{m.name} is a war machine: {what} (FB-WM1)", m.id,
                             f"drop {flag}")
    from mathhammer.fantasy.combat.war_machine import make_fight

    return make_fight(unit.unit, m, load_ruleset(ruleset))


def _side_name(c: CompiledCombat, s: int) -> str:
    parts = []
    for side in c.sides[s]:
        name = side.unit.name
        if side.characters:
            name += " + " + " + ".join(ch.profile.name for ch in side.characters)
        parts.append(name)
    return " & ".join(parts)


def combat_monte_carlo(c: CompiledCombat, tables, rounds: int, config: MonteCarloConfig,
                       title: str) -> Report:
    from mathhammer import kernels

    k = kernels.load("mathhammer.fantasy.kernels.combat")
    shapes = _tally_shapes(c, tables, rounds)
    args = tables.kernel_args()

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        tally = {name: np.zeros(shape, np.int64) for name, shape in shapes.items()}
        k.combat_trials(*args, tables.charged, np.int64(rounds), state, np.int64(n), tally["counters"],
                        tally["unit_counts"], tally["body_wounds"], tally["wounds_dealt"],
                        tally["wounds_taken"], tally["models_left_a"], tally["models_left_b"],
                        tally["rounds"])
        return tally

    def probabilities(tally: dict[str, np.ndarray], n: int) -> np.ndarray:
        return np.concatenate([tally["counters"][:7], tally["unit_counts"].ravel()]) / n

    run = simulate(run_chunk, config, probabilities)
    return _report(c, "mc", run.tally, run.n_trials, run.seed, rounds, title)


def _tally_shapes(c: CompiledCombat, tables, rounds: int) -> dict[str, tuple]:
    from mathhammer.fantasy.combat.exact import _empty_tally

    empty = _empty_tally(c, tables, rounds)
    return {name: value.shape for name, value in empty.items() if isinstance(value, np.ndarray)}


def _estimate(value, n: int | None) -> Estimate:
    """A probability: exact (float sums clipped to [0, 1]) or a Monte Carlo proportion."""
    if n is None:
        return Estimate.exact(min(1.0, max(0.0, float(value))))
    return Estimate.proportion(int(value), n)


def _report(c: CompiledCombat, method: str, tally: dict, n: int | None, seed: int | None,
            rounds: int, title: str) -> Report:
    from mathhammer.fantasy.kernels import combat as k

    cnt = tally["counters"]
    results = {}
    for name, slot in (("p_a_wins", k.C_A_WINS), ("p_b_wins", k.C_B_WINS),
                       ("p_both_standing", k.C_BOTH_STANDING), ("p_both_out", k.C_BOTH_OUT),
                       ("p_a_wins_round_1", k.C_R1_A), ("p_round_1_tied", k.C_R1_TIE),
                       ("p_b_wins_round_1", k.C_R1_B)):
        results[name] = _estimate(cnt[slot], n)
    if n is None:
        results["mean_round_1_score_a_minus_b"] = Estimate.exact(float(tally["r1_sum"]))
    else:
        results["mean_round_1_score_a_minus_b"] = Estimate.mean(float(cnt[k.C_R1_SUM]),
                                                                float(cnt[k.C_R1_SQ]), n)
    uc = tally["unit_counts"]
    n_a = len(c.sides[0])
    if len(c.units) == 2:
        for name, u, col in (("p_enemy_breaks", 1, k.UC_BROKE), ("p_enemy_destroyed", 1, k.UC_DESTROYED),
                             ("p_caught", 1, k.UC_CAUGHT), ("p_own_break", 0, k.UC_BROKE),
                             ("p_own_destroyed", 0, k.UC_DESTROYED), ("p_own_caught", 0, k.UC_CAUGHT)):
            results[name] = _estimate(uc[u, col], n)
    else:
        for u, label in enumerate(c.labels):
            for name, col in (("p_broke", k.UC_BROKE), ("p_destroyed", k.UC_DESTROYED),
                              ("p_caught", k.UC_CAUGHT)):
                results[f"{name}[{label}]"] = _estimate(uc[u, col], n)
    bw = tally["body_wounds"]
    for b, body in enumerate(c.bodies):
        if body.role in ("champion", "character", "mount") or (body.role == "rank and file"
                                                                 and c.units[body.unit].unit.role == "character"):
            cap = body.models * body.w
            results[f"p_slain[{body.name}]"] = _estimate(bw[b, cap:].sum(), n)
    dists = {}
    for name in ("wounds_dealt", "wounds_taken", "models_left_a", "models_left_b", "rounds"):
        h = tally[name]
        dists[name] = Distribution.exact(h) if n is None else Distribution.from_counts(h)
    results["mean_wounds_dealt"] = dists["wounds_dealt"].mean_estimate()
    results["mean_wounds_taken"] = dists["wounds_taken"].mean_estimate()
    results["mean_models_left_a"] = dists["models_left_a"].mean_estimate()
    results["mean_models_left_b"] = dists["models_left_b"].mean_estimate()
    info = {"ruleset": c.rules.name, "rounds": rounds}
    for u, side in enumerate(c.units):
        f = side.unit.formation
        against, face = c.faces[u]
        text = f"{side.unit.id}: {plural(f.models, 'model')}, {f.rank_width} wide"
        if side.characters:
            text += ", with " + ", ".join(ch.profile.id + (" (general)" if ch.general else "")
                                          + (" (battle standard)" if ch.battle_standard else "")
                                          for ch in side.characters)
        if side.charged:
            text += ", charging"
        if against is not None and face:
            text += f", in the {POSITIONS[face]} of {c.labels[against]}"
        info[f"unit_{c.labels[u].lower()}"] = text
        info[f"points_{c.labels[u].lower()}"] = _points_text(side)
    info["strike_order_round_1"] = strike_order_text(c)
    if c.challenge[2]:
        issuer, other = c.bodies[c.challenge[0]].name, c.bodies[c.challenge[1]].name
        info["challenge"] = (f"{issuer} challenges {other}: accepted, a duel until one falls "
                             f"(overkill up to +{c.challenge[3]})" if c.challenge[2] == 1 else
                             f"{issuer} challenges; {other} refuses and does not fight while "
                             f"{issuer} lives")
    info["p_a_wins"] = ("the fight ends with every B unit broken or destroyed and an A unit still "
                        "in it; *_round_1 = the combat score after round 1 (musicians break ties)")
    if c.notes:
        info["notes"] = "; ".join(dict.fromkeys(c.notes))
    report = Report("fantasy.combat", method, results, dists, n_trials=n, seed=seed, info=info, title=title)
    from mathhammer.fantasy.headlines import fb_combat_headline

    report.headline = fb_combat_headline(report, _side_name(c, 0), _side_name(c, 1),
                                         None if rounds == DEFAULT_ROUNDS else rounds)
    return report


def strike_order_text(c: CompiledCombat, variant: int | None = None) -> str:
    """Strike steps of the first round, highest first; '=' joins simultaneous groups."""
    keys = {}
    for g in c.groups:
        charged = c.units[g.unit].charged
        v = variant if variant is not None else (0 if charged else 1)
        key = g.keys[v]
        if key >= 0:
            keys.setdefault(key, []).append(g.name)
    return " > ".join(" = ".join(dict.fromkeys(names)) + f" ({key_text(key)})"
                      for key, names in sorted(keys.items(), reverse=True))


def _points_text(side) -> int | str:
    """The side's price (PR-4), or why it has none: a unit size its army book does not sell
    has no price (a T9A unit's fixed part would make it wrong, even negative)."""
    parts = [side.unit] + [ch.profile for ch in side.characters]
    unsold = next((p.size_problem(p.formation.models) for p in parts
                   if p.size_problem(p.formation.models)), None)
    if unsold:
        return f"none: {unsold}"
    return sum(p.unit_points() for p in parts)
