"""``wm duel``: one or more activations against a target profile, with a focus policy.

Pipeline: profiles → :class:`ActivationSpec` per activation → decision graph
(:mod:`activation`) → the policy solved exactly on the full state (:mod:`exact_policy`:
grid, focus, node, knock-down, target engaged) → the exact distribution of the final
grid, or a Monte Carlo of the same decisions → :class:`Report`. When the full state does
not fit, decisions are planned on the box-count model (a track of the boxes left) and
played on the full grid by Monte Carlo; the output names that fallback.

Results: ``p_destroyed``, ``p_crippled_<X>`` per system on the target's grid,
``mean_damage`` (boxes marked), ``mean_focus_spent``, ``p_hit_<i>`` (the i-th attack,
given that it is made), ``p_destroyed_box_model`` (the same policy's value when the
target is counted in boxes only); distribution ``damage``. ``info["decisions"]`` lists
the most likely decision states with the value of every alternative.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, RulesError
from mathhammer.numbers import whole_text
from mathhammer.results import Distribution, Estimate, Report
from mathhammer.warmachine.activation import (
    KNOCKED_DOWN,
    MAX_WARJACK_FOCUS,
    STATIONARY,
    ActivationSpec,
    Spell,
    Weapon,
    build_graph,
    charge_mode,
    down_text,
)
from mathhammer.warmachine.effects import effect_down_words
from mathhammer.warmachine.exact_policy import decision_lines, decision_summary
from mathhammer.warmachine.grid import Grid
from mathhammer.warmachine.sequence import Target
from mathhammer.words import plural

BASE_MM = {"small": 30, "medium": 40, "large": 50}  # WM-D7
MELEE_DISTANCE = 0.5  # a model fighting in melee is within 1/2" of its target
MAX_ACTIVATIONS = 60  # a turn has far fewer models; beyond this is a typo or a script


def _rng_of(value) -> tuple[float | None, bool]:
    """(RNG in inches, spray) of a weapon's or spell's RNG field."""
    if isinstance(value, str):
        if value.startswith("SP"):
            return float(value[2:]), True
        return None, False  # SELF / CTRL
    return (float(value) if value is not None else None), False


def activation_from_profile(ref: str, focus: int | None = None, charge="no",
                            power_attacks: bool = True, where: str = "‹focus›",
                            ranged: bool = False, aim: bool = False,
                            target_base: str | None = None, damaged=None,
                            damaged_where: str = "‹attacker_damaged›",
                            max_bought: int | None = None, distance: float | None = None,
                            upkeep: int = 0, shake: bool = False,
                            feat: bool = False, immunities: tuple[str, ...] = (),
                            flag_bits: dict | None = None) -> ActivationSpec:
    """What the model ``ref`` (id or path) can do in one activation (WM-F1..F4);
    ``target_base`` (small/medium/large) bars head-butts and gives slams −2 when larger.

    ``damaged`` is the attacker's own starting damage (WM-G7): a crippled weapon
    system rolls one die fewer and makes no special attack with it, a crippled
    cortex leaves no focus, crippled movement forbids charge and slam (WM-G4).
    A warcaster's focus is its FOCUS less ``upkeep`` (1 per upkept spell) and 1 for
    shaking knock-down or stationary (``shake``), paid in the Control Phase (WM-F1).
    ``feat``: the warcaster uses its feat as its activation starts (WM-E2); ``flag_bits`` are
    the chain's effect flags (:func:`mathhammer.warmachine.effects.chain_flags`) and
    ``immunities`` the target's, which stop some effects (WM-E3).
    """
    from mathhammer.warmachine.models import load_warmachine

    prof = load_warmachine(ref)
    larger = target_base is not None and BASE_MM[target_base] > BASE_MM[prof.base]
    jack = prof.is_warjack
    crippled: set[str] = set()
    if damaged is not None:
        if not prof.grid:
            raise InputError(damaged_where, f"{prof.name} has a damage track, not a grid: its "
                             "starting damage does not cripple anything", damaged,
                             "drop it for a warcaster or solo")
        grid = Grid.from_columns(prof.grid_columns, f"{ref}: grid")
        bits = grid.start_bits(damaged, damaged_where)
        crippled = {s for s in grid.systems if grid.crippled(bits, s)}
    if jack and (upkeep or shake):
        raise RulesError("‹upkeep›" if upkeep else "‹shake_knockdown›", "upkeep and shaking "
                         "come out of a warcaster's own focus; a warjack spends focus only in "
                         "its activation", upkeep or True, "drop it for a warjack")
    if not isinstance(upkeep, int) or isinstance(upkeep, bool) or upkeep < 0:
        raise InputError("‹upkeep›", "must be a whole number ≥ 0", upkeep, "use ‹upkeep› 1")
    allowance = MAX_WARJACK_FOCUS if jack else int(prof.stats.focus or 0) - upkeep - int(shake)
    if allowance < 0:
        raise RulesError("‹upkeep›", f"{prof.name} has FOCUS {prof.stats.focus}: it cannot pay "
                         f"{upkeep} upkeep{' and shake' if shake else ''} (WM-F1)", upkeep,
                         "upkeep fewer spells")
    if "C" in crippled:
        if focus:
            raise RulesError(where, f"{prof.name}'s cortex is crippled: it cannot be allocated "
                             "or spend focus (WM-G4)", focus, "use ‹focus› 0")
        allowance = 0
    if focus is None:
        focus = allowance
    if isinstance(focus, bool) or not isinstance(focus, int) or focus < 0:
        raise InputError(where, "must be a whole number ≥ 0", focus, "use ‹focus› 3")
    if jack and focus > MAX_WARJACK_FOCUS:
        raise RulesError(where, f"a warjack can be allocated at most {MAX_WARJACK_FOCUS} focus "
                         f"(WM-F1); {prof.name} is a warjack", focus, "use ‹focus› 3 or less")
    if not jack and focus > allowance:
        paid = f" less {upkeep} upkeep" * bool(upkeep) + " less 1 to shake" * bool(shake)
        raise RulesError(where, f"{prof.name} has FOCUS {prof.stats.focus}{paid}", focus,
                         f"use ‹focus› {allowance} or less")
    if ranged and distance is None:
        dist = None
    else:
        dist = distance if ranged else MELEE_DISTANCE
    weapons = []
    for w in prof.weapons:
        if w.damage_power is None:
            continue
        rng, spray = _rng_of(w.rng)
        weapons.append(Weapon(
            w.name, w.kind, prof.stats.mat if w.kind == "melee" else prof.stats.rat,
            int(w.damage_power), int(w.pow or 0), w.has_rule("Combo Strike"), rof=w.rof,
            chain_weapon=w.has_rule("Chain Weapon"), sustained=w.has_rule("Sustained Attack"),
            crit_knockdown=w.has_rule("Critical Knockdown") or w.has_rule("Critical Freeze"),
            down_word=STATIONARY if w.has_rule("Critical Freeze") and not
            w.has_rule("Critical Knockdown") else KNOCKED_DOWN,
            crit_amputation=w.has_rule("Critical Amputation"),
            crippled=w.location in crippled, aoe=float(w.aoe), rng=rng, spray=spray))
    bits = flag_bits or {}
    spells = tuple(sp for sp in (_spell(s, prof, immunities, bits) for s in prof.spells
                                 if s.cost <= focus) if sp)
    knock, flags, knock_word = False, 0, KNOCKED_DOWN
    if feat:
        from mathhammer.warmachine.effects import entry_of, feat_effects, has_feat_effect

        if prof.kind != "warcaster" or not has_feat_effect(prof):
            raise RulesError("‹feat›", f"{prof.name} has no feat the engine plays (WM-E2)",
                             prof.name, "drop ‹feat› or give the profile a feat effect")
        knock, flags = entry_of(prof, bits, immunities)
        knock_word = down_text(effect_down_words(feat_effects(prof, immunities)))
    return ActivationSpec(prof.name, focus, tuple(weapons), prof.stats.strength, jack,
                          charge_mode(charge), power_attacks and jack, spells,
                          int(prof.stats.focus or 0), movement_crippled="M" in crippled,
                          ranged=ranged, aim=aim, target_larger_base=larger,
                          max_bought=max_bought, distance=dist, entry_knockdown=knock,
                          entry_down_word=knock_word, entry_flags=flags)


def _spell(s, prof, immunities=(), bits=None) -> Spell | None:
    """An offensive spell the engine plays: a damage roll, knock-down or stationary, or
    DEF/ARM modifiers on a hit (WM-F4, WM-E3); None when it does nothing to the target."""
    from mathhammer.warmachine.effects import spell_effect

    if not s.offensive:
        return None
    declared = any(e.source == "spell" and e.name == s.name for e in prof.effects)
    effect = spell_effect(prof, s.name, immunities)
    knocks = effect.knocks_down if effect else (not declared and "knocked down" in s.effect)
    key = (prof.id, s.name)
    flags = 1 << (bits or {})[key] if effect and key in (bits or {}) else 0
    if s.pow is None and not knocks and not flags:
        return None
    rng, spray = _rng_of(s.rng)
    aoe = float(s.aoe) if isinstance(s.aoe, int | float) else 0.0
    return Spell(s.name, s.cost, int(s.pow or 0), aoe=aoe, rng=rng, spray=spray,
                 knocks_down=knocks, no_damage=s.pow is None, flags_on_hit=flags,
                 down_word=down_text(effect_down_words([effect])) if effect else KNOCKED_DOWN)


def target_from_profile(ref: str, damaged=None, knocked_down: bool = False,
                        camped_focus: int = 0, arm_bonus: int = 0, def_bonus: int = 0,
                        stationary: bool = False, engaged: bool = False,
                        effects: list[str] | None = None) -> Target:
    """DEF, ARM (+ camped focus for a warcaster, WM-D2), grid or track, starting damage,
    and what the rules read off the profile: Stealth, immunities, base size; ``effects``
    name friendly buffs on it (Arcane Shield, Invincibility: WM-E4)."""
    from mathhammer.warmachine import limits, rules
    from mathhammer.warmachine.effects import target_buffs
    from mathhammer.warmachine.models import load_warmachine

    prof = load_warmachine(ref)
    grid = Grid.from_columns(prof.grid_columns, f"{ref}: grid") if prof.grid \
        else Grid.track(int(prof.boxes), f"{ref}: boxes")
    start = grid.start_bits(damaged, "‹damaged›")
    if grid.destroyed(start):
        raise InputError("‹damaged›", "marks every box: the target is already destroyed", damaged)
    for name, flag, value in (("camped_focus", "‹camped_focus›", camped_focus),
                              ("arm_bonus", "‹arm_bonus›", arm_bonus),
                              ("def_bonus", "‹def_bonus›", def_bonus)):
        limits.check(name, value, flag)
    if prof.stats.defense + def_bonus < 1:
        raise InputError("‹def_bonus›", f"{prof.name}'s DEF {prof.stats.defense} would fall "
                         "below 1 (WM-A7)", def_bonus, f"use ‹def_bonus› {1 - prof.stats.defense}"
                         " or more")
    e_def, e_rdef, e_arm, chosen = target_buffs(list(effects or []), prof)
    armor = rules.effective_armor(prof.stats.arm, camped_focus=camped_focus,
                                  spell_bonus=arm_bonus + e_arm)
    name = prof.name + "".join(f" + {e.name}" for e in chosen)
    return Target(prof.stats.defense, armor, grid, start, knocked_down or stationary, name,
                  shield_mask_of(prof, grid), def_bonus=def_bonus + e_def,
                  ranged_def_bonus=e_rdef,
                  stealth=any(r.split(":")[0].strip() == "Stealth" for r in prof.special_rules),
                  immunities=target_immunities(prof), base=prof.base, engaged=engaged,
                  down_word=down_text([KNOCKED_DOWN] * knocked_down + [STATIONARY] * stationary))


def target_immunities(prof) -> tuple[str, ...]:
    """``("Cold",)`` for a model with "Immunity: Cold" (stops Critical Freeze, Icy Gaze)."""
    return tuple(r.split(":", 1)[1].strip() for r in prof.special_rules
                 if r.lower().startswith("immunity:"))


def shield_mask_of(prof, grid: Grid) -> int:
    """Boxes of the system holding a Shield weapon (+2 ARM until crippled, WM-D2/WM-G4)."""
    mask = 0
    for w in prof.weapons:
        if w.has_rule("Shield") and w.location in grid.system_masks:
            mask |= grid.system_masks[w.location]
    return mask


def check_focus_budget(refs: list[str], specs: list[ActivationSpec], wheres: list[str],
                       upkeep: int = 0, shake: bool = False) -> None:
    """WM-F1, WM-F2: the focus a warcaster gives its warjacks plus what it keeps (less upkeep
    and shaking) must fit its FOCUS, each warjack ≤ 3; one line naming the activation."""
    from mathhammer.warmachine.models import load_warmachine

    profs = [load_warmachine(r) for r in refs]
    for caster, spec in zip(profs, specs):
        if caster.kind != "warcaster":
            continue
        total, parts = spec.focus + upkeep + int(shake), [f"{caster.name} {spec.focus}"]
        if upkeep:
            parts.append(f"upkeep {upkeep}")
        if shake:
            parts.append("shaking 1")
        last = None
        for i, (p, s) in enumerate(zip(profs, specs)):
            if p.is_warjack and p.faction == caster.faction:
                total += s.focus
                parts.append(f"{p.name} {s.focus}")
                last = i
        if total > int(caster.stats.focus or 0):
            where = wheres[last if last is not None else specs.index(spec)]
            raise RulesError(where, f"the battlegroup's focus does not fit {caster.name}'s FOCUS "
                             f"{caster.stats.focus}: {' + '.join(parts)} = {total} (WM-F1)",
                             total, "give the warjacks less focus or the warcaster less")


# ---------------------------------------------------------------------------- the duel
def _report(method: str, target: Target, dist: Distribution, destroyed: Estimate,
            crippled: list[Estimate], extra: dict[str, Estimate], info: dict,
            title: str, n_trials=None, seed=None) -> Report:
    results = {"p_destroyed": destroyed}
    for letter, est in zip(target.grid.systems, crippled):
        results[f"p_crippled_{letter}"] = est
    results["mean_damage"] = dist.mean_estimate()
    results.update(extra)
    return Report("warmachine.duel", method, results, {"damage": dist}, n_trials=n_trials, seed=seed,
                  info=dict(info), title=title)


def _exact_report(sol, target: Target, extra: dict, info: dict, title: str) -> Report:
    """Final-grid distribution of a solved policy → the duel's exact results."""
    out = sol.distribution()
    bits = sol.grid.bits_of
    grid = target.grid
    final = out["final"]
    # boxes marked by the chain; states below the start (never reached) carry no mass
    marked = np.maximum(grid.boxes_left(target.start_bits) - sol.grid.left_of, 0)
    pmf = np.bincount(marked, weights=final, minlength=grid.n_boxes + 1)
    crippled = []
    for x in grid.systems:
        mask = np.uint64(grid.system_masks[x])
        crippled.append(Estimate.exact_probability(final[(bits & mask) == mask].sum()))
    destroyed = min(float(final[sol.grid.left_of == 0].sum()), 1.0)
    results = dict(extra)
    results["mean_focus_spent"] = Estimate.exact(out["focus"])
    for i, (made, hits) in enumerate(out["slots"][:-1], start=1):
        if made > 1e-15:  # WM-S2: P(hit) of the i-th attack, given that it is made
            results[f"p_hit_{i}"] = Estimate.exact(min(1.0, hits / made))
    report = _report("exact", target, Distribution.exact(pmf), Estimate.exact(destroyed),
                     crippled, results, info, title)
    report.info["charge"] = _charge_words(sol.graph, out["charge"], 1.0, exact=True)
    report.info["mean attacks made"] = round(float(out["slots"][:, 0].sum()), 4)
    _decisions(report, sol, out["reachp"])
    return report


def _decisions(report: Report, sol, reachp) -> None:
    report.info["decisions"] = decision_summary(sol, reachp)
    report.info["decision states"] = decision_lines(sol, reachp)


def _mc_report(run, target: Target, graph, extra: dict, info: dict, title: str) -> Report:
    t, n = run.tally, run.n_trials
    results = {"mean_focus_spent": Estimate.mean(float(t["focus"][0]), float(t["focus"][1]), n),
               **extra}
    for i, (made, hits) in enumerate(t["slots"][:-1], start=1):
        if made > 0:
            results[f"p_hit_{i}"] = Estimate.proportion(int(hits), int(made))
    report = _report("mc", target, Distribution.from_counts(t["hist"]),
                     Estimate.proportion(int(t["destroyed"][0]), n),
                     [Estimate.proportion(int(c), n) for c in t["crippled"][: len(target.grid.systems)]],
                     results, info, title, n, run.seed)
    report.info["charge"] = _charge_words(graph, t["charge"], n, exact=False)
    report.info["mean attacks made"] = round(float(t["slots"][:, 0].sum()) / n, 4)
    return report


def _charge_words(graph, charge, n, exact: bool) -> str | None:
    """What the policy chose about charging, per activation that could charge."""
    words = []
    for a, label in enumerate(graph.labels):
        could = any(node.charge and node.activation == a for node in graph.nodes)
        if not could:
            continue
        p = float(charge[a]) / n
        se = "" if exact else f" ± {100 * (p * (1 - p) / n) ** 0.5:.2f}"
        words.append(f"{label} charges in {100 * p:.2f}%{se} of games")
    return "; ".join(words) or None


def duel_chain(specs: list[ActivationSpec], target: Target, *, policy: str = "optimal",
               objective: str = "destroy", boost_hit: bool = False, boost_damage: bool = False,
               method: str = "auto", config: MonteCarloConfig | None = None,
               check: bool = False, title: str = "", explain: bool = False,
               effects=None, solved=None) -> Report:
    """Activations ``specs`` in order against ``target`` under one focus policy (WM-S1, WM-F5).

    The policy is solved exactly on the full state; ``auto`` and ``exact`` report its exact
    distribution, ``mc`` simulates the same decisions, ``check`` runs both. When the full
    state does not fit, ``auto`` and ``mc`` play decisions planned on the box-count model
    by Monte Carlo (named in ``info["model"]``) and ``exact`` is an error.
    """
    from mathhammer.query import answer
    from mathhammer.warmachine.exact_grid import ExactTooLarge
    from mathhammer.warmachine.exact_policy import box_model_target, solve_full
    from mathhammer.warmachine.policy import OptionTables, check_policy

    from mathhammer.warmachine.policy import normal_objective, objective_system

    check_policy(policy, objective)
    objective = normal_objective(objective)
    system = objective_system(objective)
    if system and system not in target.grid.system_masks:
        from mathhammer.warmachine.grid import SYSTEM_NAMES

        raise InputError("‹objective›", f"{target.name} has no {SYSTEM_NAMES[system]} "
                         f"({system}) boxes to cripple", objective,
                         "name a system its grid has, e.g. cripple:M")
    if len(specs) > MAX_ACTIVATIONS:
        raise InputError("activations", f"at most {MAX_ACTIVATIONS} activations in one chain",
                         len(specs), "split the question into shorter chains")
    # ``solved``: the full-state solution of these specs already at hand (wm plan's finalists)
    graph = solved.graph if solved is not None else build_graph(specs, effects)
    opts = solved.opts if solved is not None else OptionTables.build(graph, target)
    box, extra = None, {}
    if not system:  # the box-count model has no systems to cripple
        box_target = box_model_target(target)
        box = solve_full(graph, box_target, policy, objective, boost_hit, boost_damage)
        key = "p_destroyed_box_model" if objective == "destroy" else "mean_damage_box_model"
        # a sum of products of probabilities can land a rounding step above 1
        extra = {key: Estimate.exact(min(box.value, 1.0) if objective == "destroy"
                                     else box.value)}
    n_left = target.grid.boxes_left(target.start_bits)
    try:
        sol = solved or solve_full(graph, target, policy, objective, boost_hit, boost_damage,
                                   opts)
        model = (f"{policy} decided on the full state (grid, focus, activation node, "
                 f"knock-down, target engaged): exact programme over {sol.n_states:,} states")
    except ExactTooLarge as err:
        if method == "exact" or check or box is None:  # no box-model plan for a cripple goal
            raise
        sol = None
        model = (f"fallback — the full state does not fit ({err.what}): decisions planned on "
                 "the box-count model (boxes left at base DEF) and played on the full grid by "
                 "Monte Carlo")
    info = chain_info(graph, target, opts, policy, objective, model)

    def exact() -> Report:
        return _exact_report(sol, target, extra, info, title)

    def monte_carlo(cfg: MonteCarloConfig) -> Report:
        run = sol.simulate(cfg) if sol is not None else _fallback_run(box, target, cfg, n_left,
                                                                      opts)
        return _mc_report(run, target, graph, extra, info, title)

    use = "exact" if (method == "auto" and sol is not None) else (
        "mc" if method == "auto" else method)
    report = answer("warmachine.duel", method=use, exact=exact, monte_carlo=monte_carlo, config=config,
                    check=check)
    if method == "auto" and report.method == "exact":
        report.info["why exact"] = AUTO_EXACT
    if report.info.get("charge") is None:
        report.info.pop("charge", None)
    if report.method == "mc" and sol is not None and "decisions" not in report.info:
        _decisions(report, sol, sol.distribution()["reachp"])
    if policy == "optimal" and sol is not None and solved is None:
        better = _forced_options_note(specs, target, sol.value, objective, effects)
        if better:
            report.info["policy's choice"] = better
    from mathhammer.warmachine.headlines import wm_duel_headline

    report.headline = wm_duel_headline(report, [s.name for s in specs], target.name, objective)
    if explain:
        from mathhammer.explain import attach
        from mathhammer.warmachine.explain import explain_duel

        attach(report, explain_duel(graph, target, opts, policy, report))
    return report


# options a query may force on the policy, how to leave the choice to it, and the words
_FORCED = (
    ("‹charge›", lambda s: s.charge == "must", lambda s: replace(s, charge="may"),
     "letting the policy decide whether to charge (‹may_charge›)"),
    ("‹no_power_attacks›", lambda s: s.is_warjack and not s.power_attacks and not s.ranged,
     lambda s: replace(s, power_attacks=True), "allowing power attacks"),
    ("‹buy›", lambda s: s.max_bought is not None, lambda s: replace(s, max_bought=None),
     "leaving the number of bought attacks to the policy"),
)


def _forced_options_note(specs: list[ActivationSpec], target: Target, value: float,
                         objective: str, effects) -> str | None:
    """One line per forced option (``--charge``, ``--no-power-attacks``, ``--buy``) that the
    optimal policy, left to choose, would beat: both values, exact (WM-F5). Only where the
    full state fits the exact programme; otherwise nothing is said."""
    from mathhammer.warmachine.exact_grid import ExactTooLarge
    from mathhammer.warmachine.exact_policy import solve_full

    lines = []
    for flag, forced, relax, words in _FORCED:
        if not any(forced(s) for s in specs):
            continue
        free = [relax(s) if forced(s) else s for s in specs]
        try:
            alt = solve_full(build_graph(free, effects), target, "optimal", objective)
        except ExactTooLarge:
            continue
        if alt.value <= value + 1e-9:
            continue

        def shown(v: float) -> str:
            return f"{100 * min(v, 1.0):.2f}%" if objective != "damage" else f"{v:.2f} boxes"
        if flag == "‹charge›":
            share = alt.distribution()["charge"]
            if float(share.sum()) < 1e-12:  # the policy never charges
                lines.append(f"walking in instead: {shown(alt.value)} against {shown(value)} "
                             "with ‹charge› (the policy's choice with ‹may_charge›)")
                continue
            lines.append(f"{words}: {shown(alt.value)} against {shown(value)} with ‹charge›; "
                         + _charge_words(alt.graph, share, 1.0, exact=True))
            continue
        lines.append(f"{words}: {shown(alt.value)} against {shown(value)} with {flag}")
    return " | ".join(lines) or None


def least_focus(chain_specs, allowance: int, name: str, target: Target, for_p: float, *,
                policy: str = "optimal",
                objective: str = "destroy", boost_hit: bool = False, boost_damage: bool = False,
                effects=None, method: str = "auto") -> Report:
    """``wm duel --for-p P``: the least focus given to the first attacker whose exact chance
    of the objective — P(destroyed), or P(X crippled) with ``cripple:X`` — reaches P under
    the policy, every level from 0 to its allowance (a warjack 3, a warcaster its FOCUS less
    upkeep and shaking, WM-F1) solved on the full state and listed. ``chain_specs(f)``
    builds the chain with the first activation (``name``) given ``f`` focus, up to
    ``allowance``; a level the rules refuse
    (a warjack's charge needs 1 focus, a battlegroup's focus that does not fit) is left out
    and said."""
    from mathhammer.errors import MathhammerError
    from mathhammer.inverse import check_target, least_level
    from mathhammer.warmachine.exact_policy import solve_full
    from mathhammer.warmachine.grid import SYSTEM_NAMES
    from mathhammer.warmachine.policy import check_policy, normal_objective, objective_system

    check_target(for_p)
    check_policy(policy, objective)
    objective = normal_objective(objective)
    if objective == "damage":
        raise InputError("‹objective›", "‹for_p› asks for a probability: destroy or cripple:X",
                         objective, "use ‹objective› destroy or ‹objective› cripple:M")
    if method == "mc":
        raise InputError("‹method›", "‹for_p› answers with the exact programme", method,
                         "drop ‹method› mc")
    system = objective_system(objective)
    if system and system not in target.grid.system_masks:
        raise InputError("‹objective›", f"{target.name} has no {SYSTEM_NAMES[system]} "
                         f"({system}) boxes to cripple", objective,
                         "name a system its grid has, e.g. cripple:M")
    levels, skipped, first_error = [], [], None
    for f in range(allowance + 1):
        try:
            graph = build_graph(chain_specs(f), effects)  # the rules' checks of each activation
        except MathhammerError as err:  # this level is not playable; others may be
            skipped.append((f, err.what))
            first_error = first_error or err
            continue
        sol = solve_full(graph, target, policy, objective, boost_hit, boost_damage)
        levels.append((f, min(sol.value, 1.0)))
    if not levels and first_error is not None:
        raise first_error
    outcome = (f"cripple {target.name}'s {SYSTEM_NAMES[system]} ({system})" if system
               else f"destroy {target.name}")
    groups: dict[str, tuple[list[int], str]] = {}  # one line per reason, numbers aside
    for f, what in skipped:
        groups.setdefault(re.sub(r"\d+", "#", what), ([], what))[0].append(f)
    notes = [f"{', '.join(map(str, fs))} focus left out: {what}" for fs, what in groups.values()]
    return least_level(levels, for_p, command="warmachine.duel", outcome=outcome, who=name,
                       title=f"wm duel: the least focus for {name} ({policy} policy) to "
                             f"{outcome}", notes=notes or None)


def chain_info(graph, target: Target, opts, policy: str, objective: str, model: str) -> dict:
    """The info lines of a chain's report: policy, model, the target as the engine plays it
    at the start (DEF, ARM, boxes, situation) and the attacks that miss automatically."""
    from mathhammer.warmachine.explain import start_down_word, start_numbers, start_situation

    # the DEF and ARM the engine plays at the start (crippled M, knock-down, buffs, feat)
    melee_def, ranged_def, armor, _ = start_numbers(graph, target)
    knocked = start_situation(graph, target)[2]
    plays = f"DEF {melee_def}" + (f" (vs ranged and magic {ranged_def})"
                                  if ranged_def != melee_def else "")
    n_left = target.grid.boxes_left(target.start_bits)
    info = {
        "policy": f"{policy} (objective: {objective})",
        "model": model,
        "target": f"{target.name}: {plays}, ARM {armor} as the chain starts (base DEF "
                  f"{target.defense}, ARM {target.armor}), "
                  f"{plural(target.grid.n_boxes, 'box')}, {n_left} left"
                  + (", engaged in melee" if target.engaged else "")
                  + (f", {start_down_word(graph, target)}" if knocked else "")
                  + (", movement crippled" if target.grid.crippled(target.start_bits, "M")
                     else ""),
    }
    notes = _range_notes(graph, opts)
    if notes:
        info["range"] = notes
    return info


# issue 29 part 4: Monte Carlo is never faster than exact where the policy is solved exactly
AUTO_EXACT = ("auto answers exactly: Monte Carlo would play the same exactly solved policy, "
              "so it costs the exact solve and the trials")


def _fallback_run(box, target: Target, cfg: MonteCarloConfig, n_left: int, opts=None):
    from mathhammer.warmachine.exact_policy import simulate_policy

    return simulate_policy(box, target, cfg, by_left=True, box_n=n_left, opts=opts)


def _range_notes(graph, opts) -> str | None:
    """Which attacks miss automatically (beyond RNG, or Stealth beyond 5", WM-A8)."""
    missed = sorted({o.name for o, miss in zip(graph.options, opts.auto_miss) if miss})
    return (f"{', '.join(missed)}: out of range or a Stealth target beyond 5\" — miss "
            "automatically (WM-A8)") if missed else None


def _parse_then(item: str, i: int):
    """``ID[:FOCUS][:charge|may-charge|no-charge|ranged]`` of ``--then``."""
    ref, *rest = item.split(":")
    focus, mode = None, None
    for part in rest:
        if part in ("charge", "may-charge", "no-charge", "ranged"):
            mode = part
        elif whole_text(part) is not None:  # a 5,000-digit focus is no focus: the line below
            focus = whole_text(part)
        else:
            raise InputError(f"‹then›[{i}]", "after the id come :FOCUS (a whole number) and "
                             "optionally :charge, :may-charge, :no-charge or :ranged", item,
                             "use e.g. ‹then› khador/juggernaut:2:charge")
    return ref, focus, mode


def with_crippled(ref: str, damaged, systems: str | None, flag: str):
    """Starting damage that cripples ``systems`` ("L,M"), on top of ``damaged`` (per column,
    the larger count): board state without the arithmetic (WM-G3, WM-G7)."""
    if systems is None:
        return damaged
    from mathhammer.warmachine.models import load_warmachine

    prof = load_warmachine(ref)
    if not prof.grid:
        raise InputError(flag, f"{prof.name} has a damage track, not a grid: nothing to cripple",
                         systems, "use ‹damaged› N for its track")
    counts = Grid.from_columns(prof.grid_columns, f"{ref}: grid").cripple_counts(systems, flag)
    if damaged is None:
        return counts
    if isinstance(damaged, int) or len(damaged) != len(counts):
        raise InputError(flag, "goes with a grid's six column counts in ‹damaged›", damaged,
                         'use ‹damaged› "0,2,0,0,1,0" or drop it')
    return [max(a, b) if isinstance(a, int) and not isinstance(a, bool) else a
            for a, b in zip(damaged, counts, strict=True)]


def duel(attacker: str, target: str, *, focus: int | None = None, charge: bool = False,
         may_charge: bool = False, policy: str = "optimal", objective: str = "destroy",
         boost_hit: bool = False, boost_damage: bool = False, power_attacks: bool = True,
         then: list[str] | None = None, damaged=None, knocked_down: bool = False,
         camped_focus: int = 0, ranged: bool = False, aim: bool = False,
         attacker_damaged=None, buy: int | None = None, target_in_melee: bool = False,
         distance: float | None = None, arm_bonus: int = 0, def_bonus: int = 0,
         stationary: bool = False, upkeep: int = 0, shake: bool = False,
         cripple: str | None = None, attacker_cripple: str | None = None,
         feat: bool = False, target_effects: list[str] | None = None,
         method: str = "auto", config: MonteCarloConfig | None = None, check: bool = False,
         explain: bool = False, for_p: float | None = None) -> Report:
    """``mathhammer wm duel ATTACKER TARGET``: P(destroyed), P(crippled X), damage (WM-S2).

    ``charge`` = the attacker charges (WM-D3, "must"); ``may_charge`` = the policy decides.
    ``then`` lists follow-up activations as ``"id[:focus][:charge|may-charge|no-charge|
    ranged]"`` (WM-S1); without a suffix they charge (or shoot) like the first.
    ``feat``: the chain's first warcaster uses its feat as it activates (WM-E2);
    ``target_effects`` names friendly buffs on the target (Arcane Shield, WM-E4).
    ``for_p``: instead, the least focus for the first attacker (``focus`` left out) whose
    exact chance of the objective (destroy, or ``cripple:X``) reaches it (:func:`least_focus`).
    """
    from mathhammer.warmachine import limits
    from mathhammer.warmachine.models import load_warmachine

    if charge and may_charge:
        raise InputError("‹charge›", "choose one: ‹charge› (the model charges) or ‹may_charge› "
                         "(the policy decides)", True, "drop one of them")
    mode = "must" if charge else ("may" if may_charge else "no")
    if len(then or []) >= MAX_ACTIVATIONS:
        raise InputError("‹then›", f"at most {MAX_ACTIVATIONS - 1} follow-up activations in one "
                         "chain (a turn has far fewer models)", len(then), "use fewer ‹then›")
    limits.check_distance(distance, "‹distance›")
    limits.check("upkeep", upkeep, "‹upkeep›")
    from mathhammer.warmachine.effects import chain_flags

    target_prof = load_warmachine(target)
    base = target_prof.base
    damaged = with_crippled(target, damaged, cripple, "‹cripple›")
    attacker_damaged = with_crippled(attacker, attacker_damaged, attacker_cripple, "‹attacker_cripple›")
    rows = [(attacker, focus, mode, ranged, "‹focus›")]
    for i, item in enumerate(then or []):
        ref, f_val, suffix = _parse_then(item, i)
        m = {"charge": "must", "may-charge": "may", "no-charge": "no", "ranged": "no"}.get(
            suffix, mode)
        rows.append((ref, f_val, m, ranged if suffix is None else suffix == "ranged",
                     f"‹then›[{i}]"))
    refs = [r[0] for r in rows]
    profs = [load_warmachine(r) for r in refs]
    feat_at = next((a for a, p in enumerate(profs) if p.kind == "warcaster"), None)
    if feat and feat_at is None:
        raise RulesError("‹feat›", "no warcaster in the chain uses a feat (WM-E2)", True,
                         "add a warcaster (‹then› cygnar/stryker) or drop ‹feat›")
    immunities = target_immunities(target_prof)
    flags, bits = chain_flags(profs, {feat_at} if feat else set(), immunities)
    def chain_specs(first_focus, budget: bool = True):
        specs = []
        for a, (ref, f_val, m, shoots, where) in enumerate(rows):
            specs.append(activation_from_profile(
                ref, first_focus if a == 0 else f_val, m, power_attacks, where, ranged=shoots,
                aim=aim and shoots, target_base=base,
                damaged=attacker_damaged if a == 0 else None,
                max_bought=buy if a == 0 else None, distance=distance,
                # upkeep and shaking are the chain's warcaster's (its profile is loaded above)
                upkeep=upkeep if profs[a].kind == "warcaster" else 0,
                shake=shake and profs[a].kind == "warcaster",
                feat=feat and a == feat_at, immunities=immunities, flag_bits=bits))
        if budget:
            check_focus_budget(refs, specs, [r[4] for r in rows], upkeep, shake)
        return specs

    tgt = target_from_profile(target, damaged, knocked_down, camped_focus, arm_bonus, def_bonus,
                              stationary, target_in_melee, effects=target_effects or [])
    if for_p is not None:
        if focus is not None:
            raise InputError("‹focus›", "is what ‹for_p› finds: leave it out", focus,
                             "drop ‹focus›")
        first = chain_specs(None, budget=False)[0]  # its focus: the allowance (WM-F1)
        return least_focus(chain_specs, first.focus, first.name, tgt, for_p, policy=policy,
                           objective=objective,
                           boost_hit=boost_hit, boost_damage=boost_damage, effects=flags,
                           method=method)
    specs = chain_specs(focus)
    names = " then ".join(f"{s.name} ({s.focus} focus"
                          + {"must": ", charges", "may": ", may charge", "no": ""}[s.charge]
                          + (", ranged" if s.ranged else "") + ")" for s in specs)
    if feat:
        names += f"; {profs[feat_at].name} uses the feat"
    return duel_chain(specs, tgt, policy=policy, objective=objective, boost_hit=boost_hit,
                      boost_damage=boost_damage, method=method, config=config, check=check,
                      title=f"{names} vs {tgt.name}, policy {policy}", explain=explain,
                      effects=flags)
