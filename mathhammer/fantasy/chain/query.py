"""Queries behind ``fb attack`` and ``fb shoot``: the chain as a :class:`Report`, exact or MC.

Result names (a contract): distribution ``unsaved_wounds`` (after every save and Multiple
Wounds, a Killing Blow counting as the wounds the model had left), distribution
``models_slain`` (whole models, FB-V4) when the target has W > 1, results
``mean_unsaved_wounds``, ``mean_models_slain``, ``p_at_least`` (with ``at_least``),
``p_hit`` (shooting: one shot, exact). Earlier names: :mod:`mathhammer.renames`.
"""

from __future__ import annotations

from dataclasses import replace

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError
from mathhammer.fantasy.chain.core import AttackSpec, chain_exact, compile_spec, hit_probability
from mathhammer.fantasy.rules.ruleset import Ruleset, load_ruleset
from mathhammer.query import answer
from mathhammer.results import Distribution, Estimate, Report

COVER = {"soft": "soft_cover", "hard": "hard_cover"}


def shooting_modifier(rules: Ruleset | str, modifier: int = 0, long_range: bool = False,
                      moving: bool = False, cover: str | None = None, multiple_shots: bool = False,
                      stand_and_shoot: bool = False, large_target: bool = False) -> int:
    """FB-H2: the sum of the ruleset's shooting modifiers that apply, plus ``modifier``."""
    rules = load_ruleset(rules)
    table = rules.shooting_modifiers
    total = modifier
    total += table.long_range * long_range + table.moving * moving
    total += table.multiple_shots * multiple_shots + table.stand_and_shoot * stand_and_shoot
    if cover is not None:
        if cover not in COVER:
            raise InputError("‹cover›", "must be soft or hard", cover, "use ‹cover› soft")
        total += getattr(table, COVER[cover])
    if large_target:
        total += rules.large_target_modifier
    return total


def _summary(wounds: Distribution, slain: Distribution | None, at_least: int | None,
             p_hit: float | None) -> tuple[dict[str, Estimate], dict[str, Distribution]]:
    results = {"mean_unsaved_wounds": wounds.mean_estimate()}
    if at_least is not None:
        results["p_at_least"] = wounds.p_at_least(at_least)
    if p_hit is not None:
        results["p_hit"] = Estimate.exact(p_hit)
    dists = {"unsaved_wounds": wounds}
    if slain is not None:
        results["mean_models_slain"] = slain.mean_estimate()
        dists["models_slain"] = slain
    return results, dists


def _slain_counts(counts, target_wounds: int):
    import numpy as np

    out = np.zeros(len(counts) // target_wounds + 1, dtype=np.int64)
    np.add.at(out, np.arange(len(counts)) // target_wounds, counts)
    return out


def chain_report(spec: AttackSpec, attacks: int | str, rules: Ruleset | str = "wfb8", *,
                 at_least: int | None = None, models: int | None = None, method: str = "auto",
                 config: MonteCarloConfig | None = None, check: bool = False,
                 command: str = "fantasy.attack", shooting: bool = False,
                 target_name: str | None = None, target_unit=None) -> Report:
    """The distribution of unsaved wounds of ``attacks`` attacks of ``spec`` (FB-H..FB-V4).

    ``target_unit``: the profile the target's stats came from (:func:`profile_target`);
    its rules then apply (:func:`against_unit`) and the report names it, with
    ``p_destroyed`` for a war machine (:func:`with_unit_target`).
    """
    rules = load_ruleset(rules)
    if target_unit is not None:
        target_unit = _unit(target_unit)
        spec, target_name = against_unit(spec, target_unit), target_unit.name
    from mathhammer.fantasy.chain.core import attack_counts

    attack_counts(attacks, "‹shots›" if shooting else "‹attacks›")  # before any engine
    if at_least is not None and at_least < 0:
        raise InputError("‹at_least›", "cannot be negative", at_least, "use e.g. ‹at_least› 3")
    if models is not None and models < 1:
        raise InputError("‹target_models›", "must be at least 1", models, "use e.g. 10")
    compile_spec(spec, rules)  # validate before any engine starts
    W = spec.target_wounds
    p_hit = float(hit_probability(spec, rules)) if shooting else None
    info = {"ruleset": rules.name, "attacks": str(attacks)}
    if spec.killing_blow:
        info["killing_blow"] = rules.killing_blow
        if rules.killing_blow == "slay" and not spec.is_melee:
            info["note"] = "Killing Blow works in close combat only (FB-W2): no effect here"
    if spec.always_strikes_first and not rules.always_strikes_first_reroll:
        info["always_strikes_first"] = f"no re-roll in {rules.name} (FB-H3): strike order only"
    if shooting:
        info["to_hit_modifier"] = spec.shooting_modifier
        info["p_hit"] = "exact for one shot, also under Monte Carlo"
    against = f"{target_name} (T{spec.toughness})" if target_name else f"T{spec.toughness}"
    title = f"{'shoot' if shooting else 'attack'}: {attacks} x S{spec.strength} vs {against} ({rules.name})"

    def exact() -> Report:
        result = chain_exact(spec, attacks, rules, models)
        wounds = Distribution.exact(result.wounds)
        slain = Distribution.exact(result.slain) if W > 1 else None
        results, dists = _summary(wounds, slain, at_least, p_hit)
        return Report(command, "exact", results, dists, info=dict(info), title=title)

    def monte_carlo(cfg: MonteCarloConfig) -> Report:
        from mathhammer.fantasy.chain.mc import chain_monte_carlo

        run = chain_monte_carlo(spec, attacks, rules, cfg, models, at_least)
        counts = run.tally["hist"]
        wounds = Distribution.from_counts(counts)
        slain = Distribution.from_counts(_slain_counts(counts, W)) if W > 1 else None
        results, dists = _summary(wounds, slain, at_least, p_hit)
        return Report(command, "mc", results, dists, n_trials=run.n_trials, seed=run.seed,
                      info=dict(info), title=title)

    from mathhammer.fantasy.headlines import fb_chain_headline

    report = answer(command, method=method, exact=exact, monte_carlo=monte_carlo, config=config,
                    check=check)
    report.headline = fb_chain_headline(report, attacks, shooting, at_least)
    if target_unit is not None:
        with_unit_target(report, target_unit, rules, close_combat=not shooting)
    return report


def chain_for_p(spec: AttackSpec, rules: Ruleset | str, target: float, *, at_least: int = 1,
                models: int | None = None, max_attacks: int = 1000, command: str = "fantasy.attack",
                unit: str = "attacks") -> Report:
    """``--for-p``: the fewest attacks (shots) whose P(at least ``at_least`` unsaved wounds)
    reaches ``target``, on ``models`` models of ``spec.target_wounds`` wounds (FB-V4 caps the
    wounds there). A K the target cannot take is refused in one line, never answered."""
    from mathhammer.inverse import check_target, fewest_attacks

    rules = load_ruleset(rules)
    target = check_target(target)
    if models is not None and (isinstance(models, bool) or models < 1):
        raise InputError("‹target_models›", "must be at least 1", models, "use e.g. 10")
    if models is not None and at_least > models * spec.target_wounds:
        total = models * spec.target_wounds
        raise InputError("‹at_least›", f"{at_least} unsaved wounds can never happen: the target "
                         f"is {models} model{'s' * (models > 1)} of W{spec.target_wounds} "
                         f"({total} wound{'s' * (total > 1)} in all), whatever the attacks",
                         at_least, f"ask ‹at_least› {total}{' or less' * (total > 1)}, or more "
                         "‹target_models›")
    return fewest_attacks(
        lambda n: chain_report(spec, n, rules, at_least=at_least, models=models,
                               method="exact").results["p_at_least"].value,
        target, max_attacks, command=command, unit=unit,
        outcome=f"deal at least {at_least} unsaved wound{'s' if at_least > 1 else ''}")


def shoot_report(spec: AttackSpec, shots: int | str, rules: Ruleset | str = "wfb8",
                 **kwargs) -> Report:
    """``fb shoot``: the chain for shots (``spec.bs`` set), plus ``p_hit`` of one shot."""
    if spec.bs is None:
        raise InputError("‹bs›", "shooting needs the shooter's BS", None, "use e.g. ‹bs› 3")
    spec = replace(spec, close_combat=False)
    return chain_report(spec, shots, rules, command="fantasy.shoot", shooting=True, **kwargs)


# --------------------------------------------------------------------------- a unit as the target
def profile_target(ref, rules: Ruleset | str, close_combat: bool = False, **given):
    """A target unit's (T, armour, ward, regeneration, W, models) from its profile, for
    ``fb attack/shoot --target``: the unit and those numbers as the raw options would give
    them. ``given``: raw target stats passed as well, which the profile replaces (an error)."""
    from mathhammer.fantasy.combat.target import target_models, target_parts
    from mathhammer.fantasy.models import load_unit

    rules = load_ruleset(rules)
    named = [name for name, value in given.items() if value is not None]
    if named:
        raise InputError(f"‹{named[0]}›", "takes the target's stats from its profile already "
                         "(‹target›)", given[named[0]],
                         f"drop ‹{named[0]}›, or drop ‹target› for raw stats")
    unit = load_unit(ref) if isinstance(ref, str) else ref
    if unit.ruleset != rules.name and rules.name in ("basic", "wfb8", "t9a1"):
        raise InputError("‹target›", f"is a {unit.ruleset} profile, but the ruleset is {rules.name}",
                         unit.id, f"add ‹ruleset› {unit.ruleset}")
    part = target_parts(unit, rules, close_combat)[0]
    text = lambda v: None if v is None else str(v)  # noqa: E731 - the options' own form
    return unit, (part.t, text(part.armour), text(part.ward), text(part.regeneration), part.w,
                  target_models(unit, rules))


def against_unit(spec: AttackSpec, unit) -> AttackSpec:
    """The attack as played against ``unit``: poison does not wound a war machine
    (FB-WM1); wfb8 Killing Blow slays only infantry, cavalry and war beasts (FB-W2)."""
    from mathhammer.fantasy.models import KILLING_BLOW_TROOPS

    unit = _unit(unit)
    return replace(spec, poison=spec.poison and unit.machine is None,
                   killing_blow_applies=spec.killing_blow_applies
                   and unit.troop_type in KILLING_BLOW_TROOPS)


def with_unit_target(report: Report, unit, rules: Ruleset | str, close_combat: bool) -> Report:
    """The report of a chain against ``unit``: its name, and for a war machine (FB-WM1)
    which Toughness and Wounds applied and ``p_destroyed``."""
    from mathhammer.fantasy.combat.target import target_models, target_parts, war_machine_words
    from mathhammer.words import pct

    rules, unit = load_ruleset(rules), _unit(unit)
    report.info["target"] = f"{unit.id}: {unit.name}"
    if unit.machine is None:
        return report
    report.info["war machine"] = war_machine_words(unit, rules, close_combat)
    total = target_parts(unit, rules, close_combat)[0].w * target_models(unit, rules)
    destroyed = report.distributions["unsaved_wounds"].p_at_least(total)
    report.results = {"p_destroyed": destroyed, **report.results}
    report.headline += f" · {unit.name} destroyed {pct(destroyed)}"
    return report


def _unit(ref):
    """A unit profile from itself, a profile id or a file path (UnknownProfileError else)."""
    from mathhammer.fantasy.models import UnitProfile, load_unit

    return ref if isinstance(ref, UnitProfile) else load_unit(ref)


def check_characteristics(rules: Ruleset | str, **values: int | None) -> None:
    """Each characteristic given is possible in the ruleset; WS and BS may be 0 (FB-V0:
    the ruleset says what a 0 does)."""
    rules = load_ruleset(rules)
    for name, value in values.items():
        if value is not None:
            rules.check_characteristic(value, f"‹{name}›", low=0 if name in ZERO_ALLOWED else 1)


#: FB-V0: a WS or BS of 0 plays the ruleset's rule
ZERO_ALLOWED = ("ws", "target_ws", "bs")
