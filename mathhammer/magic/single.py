"""Reports of single magic rolls: ``magic flow``, ``magic cast``, ``magic dispel``.

All exact (MG-1..MG-7, MG-10); see :mod:`mathhammer.magic.rolls` for the enumeration.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, RulesError
from mathhammer.magic.rolls import (
    against_dispel, cast_odds, check_cast_input, check_dispel_attempt, check_dispel_input,
    dispel_probability, flow_pools, marginals, miscast_rows,
)
from mathhammer.magic.rules import magic_rules
from mathhammer.query import answer
from mathhammer.results import Distribution, Estimate, Report
from mathhammer.words import plural


def _dist(pmf: dict[int, Fraction]) -> Distribution:
    return Distribution.from_mapping({k: float(v) for k, v in pmf.items()})


def flow(ruleset: str = "t9a1", channelers: int = 0, reactive_channelers: int = 0,
         extra_power: int = 0, extra_dispel: int = 0) -> Report:
    """Power and dispel dice after the flow roll, channel and caps (MG-1..MG-3)."""
    rules = magic_rules(ruleset)
    joint = flow_pools(rules, channelers, reactive_channelers, extra_power, extra_dispel)
    power, dispel = marginals(joint)
    p_more = sum((p for (a, d), p in joint.items() if a > d), Fraction(0))
    notes = _extra_dice_notes(rules, channelers, reactive_channelers, extra_power, extra_dispel)
    report = Report(
        "magic.flow", "exact",
        results={"mean_power_dice": Estimate.exact(float(sum(k * p for k, p in power.items()))),
                 "mean_dispel_dice": Estimate.exact(float(sum(k * p for k, p in dispel.items()))),
                 "p_more_power_than_dispel": Estimate.exact(float(p_more))},
        distributions={"power_dice": _dist(power), "dispel_dice": _dist(dispel)},
        info={"ruleset": ruleset, "channel": rules.channel,
              "caps": f"pool {rules.max_pool}, extra dice "
                      f"{'no limit' if rules.max_extra_dice is None else rules.max_extra_dice}"},
        title=f"magic flow ({ruleset}, channelers {channelers} vs {reactive_channelers})",
    )
    if notes:
        report.info["extra dice limit (MG-3)"] = notes
    return report


def _extra_dice_notes(rules, channelers, reactive_channelers, extra_power, extra_dispel) -> list[str]:
    """MG-3: say when a channel die can be lost to the limit on extra dice (never silently)."""
    from mathhammer.magic.rolls import channel_extra

    cap = rules.max_extra_dice
    notes = []
    if cap is None:
        return notes
    for side, n, extra in (("active", channelers, extra_power),
                           ("reactive", reactive_channelers, extra_dispel)):
        lost = sum((p for k, p in channel_extra(rules, n).items() if k + extra > cap), Fraction(0))
        if lost:
            notes.append(f"{side}: {extra} other dice + channel exceed the limit of {cap} "
                         f"with P = {lost}; the dice beyond it are lost")
    return notes


def cast(n_dice: int, level: int, cv: int, ruleset: str = "t9a1", modifier: int = 0,
         bound: bool = False, method: str = "exact", config: MonteCarloConfig | None = None,
         check: bool = False, dispel_dice: int | None = None, dispel_level: int = 0) -> Report:
    """One casting attempt (MG-4, MG-5, MG-7) and its miscast-table rows (MG-10).

    ``p_miscast`` assumes the spell is not dispelled (t9a1 miscasts only then).
    ``casting_total`` is the total of the casts without two natural 6s, given that
    such a cast happened; t9a1's ``overwhelming_total`` is the total with the D3 +
    dice bonus of the two-sixes casts. ``method="mc"`` rolls the dice in a kernel.

    With ``dispel_dice`` the cast meets one dispel attempt of that many dice by a
    dispeller of ``dispel_level`` (MG-6, and MG-5 on the dispel roll): ``p_goes_off``
    (cast and not dispelled), ``p_dispelled``, and ``p_miscast`` with the attempt.
    """
    rules = magic_rules(ruleset)
    check_cast_input(rules, n_dice, level, cv, modifier=modifier)
    check_dispel_attempt(rules, dispel_dice, dispel_level)
    if bound:  # MG-7: never silently drop what the user typed
        for flag, value in (("‹modifier›", modifier), ("‹level›", level)):
            if value:
                raise RulesError(flag, "a bound spell takes no wizard level or casting "
                                 "modifiers (MG-7)", value, f"drop {flag} or ‹bound›")
    title = (f"cast {plural(n_dice, 'die')}, {'bound spell' if bound else f'level {level}'}, "
             f"casting value {cv} ({ruleset})")
    dispel = None if dispel_dice is None else (dispel_dice, dispel_level)
    if dispel is not None:
        title += (f" against {dispel_dice} dispel {'die' if dispel_dice == 1 else 'dice'}"
                  + (f" at level {dispel_level}" if dispel_level else ""))
    return answer(
        "magic.cast", method=method, config=config, check=check,
        exact=lambda: _cast_exact(rules, n_dice, level, cv, modifier, bound, ruleset, title,
                                  dispel),
        monte_carlo=lambda cfg: _cast_mc(rules, n_dice, level, cv, modifier, bound, ruleset,
                                         title, cfg, dispel),
    )


def _cast_results(rules, p_cast, p_two6, p_miscast, p_fail, p_op, p_lost=None,
                  dispel=None) -> dict[str, Estimate]:
    results = {"p_cast": p_cast, "p_two_sixes": p_two6, "p_miscast": p_miscast,
               "p_fail": p_fail}
    if dispel is not None:  # (p_goes_off, p_dispelled) against the dispel attempt
        results = {"p_goes_off": dispel[0], "p_dispelled": dispel[1], **results}
    if rules.two_sixes == "overwhelming":
        results["p_overwhelming_cast"] = p_op
    if p_lost is not None:  # t9a1 bound spell, 4+ dice, two 6s: lost for the game (MG-7)
        results["p_bound_spell_lost"] = p_lost
    return results


def _bound_lost(rules, bound: bool, n_dice: int) -> bool:
    return bound and rules.two_sixes == "overwhelming" and n_dice >= 4


def _row_results(rules, p_miscast: Estimate) -> tuple[dict[str, Estimate], dict[str, str]]:
    out, labels = {}, {}
    for label, p_row in miscast_rows(rules):
        key = "p_miscast_row_" + label.split()[0].replace("-", "_")
        value = p_miscast.value * float(p_row)  # the row roll is independent of the cast
        out[key] = Estimate(value, p_miscast.se * float(p_row), (
            p_miscast.ci95[0] * float(p_row), p_miscast.ci95[1] * float(p_row)), p_miscast.n_trials)
        labels[key] = label
    return out, labels


_NOTE = ("casting_total: dispellable casts without an overwhelming bonus, given such a cast; "
         "p_miscast: if not dispelled")
_NOTE_DISPEL = ("casting_total: dispellable casts without an overwhelming bonus, given such a "
                "cast; p_goes_off: cast and not dispelled; p_miscast: with the dispel attempt")


def _dispel_info(info: dict, rules, dispel) -> dict:
    if dispel is not None:
        n, lvl = dispel
        info["note"] = _NOTE_DISPEL
        info["dispel attempt"] = (f"{n} dispel {'die' if n == 1 else 'dice'} + level {lvl} "
                                  "against the casting total, a tie dispels"
                                  + ("; irresistible force cannot be dispelled"
                                     if rules.two_sixes == "irresistible" else
                                     "; overwhelming power on the dispel roll too")
                                  + " (MG-5, MG-6)")
    return info


def _cast_exact(rules, n_dice, level, cv, modifier, bound, ruleset, title, dispel=None) -> Report:
    odds = cast_odds(rules, n_dice, level, cv, modifier, bound)
    ex = Estimate.exact
    met = None if dispel is None else against_dispel(rules, odds, *dispel)
    results = _cast_results(rules, ex(float(odds.p_cast)), ex(float(odds.p_irresistible)),
                            ex(float(odds.p_miscast_undispelled if met is None else met.p_miscast)),
                            ex(float(odds.p_fail)),
                            ex(0.0 if bound else float(sum(odds.overwhelming.values()))),
                            ex(float(odds.p_bound_lost)) if _bound_lost(rules, bound, n_dice)
                            else None,
                            None if met is None else (ex(float(met.p_goes_off)),
                                                      ex(float(met.p_dispelled))))
    rows, labels = _row_results(rules, results["p_miscast"])
    results.update(rows)
    # the contract key is always there; with no such cast it holds no outcome (P = 0 at cv)
    distributions = {"casting_total": _dist(odds.plain) if odds.plain
                     else Distribution(np.zeros(1), cv)}
    if odds.overwhelming:
        distributions["overwhelming_total"] = _dist(odds.overwhelming)
    info = {"ruleset": ruleset, "miscast rows (2D6, effects as data)": labels, "note": _NOTE}
    if met is not None:
        info["p_goes_off_fraction"] = str(met.p_goes_off)
    return Report("magic.cast", "exact", results, distributions,
                  info=_dispel_info(info, rules, dispel), title=title)


TOTALS = 256  # casting totals tallied: 36 + level 10 + modifier 100 + D3 + 6 dice fit


def _cast_mc(rules, n_dice, level, cv, modifier, bound, ruleset, title, config,
             dispel=None) -> Report:
    from mathhammer import kernels
    from mathhammer.engine import simulate

    km = kernels.load("mathhammer.magic.kernels")
    bonus = level + modifier
    twosix = 0 if rules.two_sixes == "irresistible" else 1

    def run_chunk(n: int, state):
        out = {"codes": np.zeros(4, np.int64), "plain": np.zeros(TOTALS, np.int64),
               "op": np.zeros(TOTALS, np.int64), "two6": np.zeros(1, np.int64),
               "dispelled": np.zeros(2, np.int64)}  # dispelled plain / overwhelming casts
        km.cast_trials(np.int64(n_dice), np.int64(bonus), np.int64(cv), np.int64(int(bound)),
                       np.int64(rules.natural_fail_at_most), np.int64(twosix), state, np.int64(n),
                       out["codes"], out["plain"], out["op"], out["two6"])
        if dispel is not None:  # each dispellable cast meets its own rolled dispel attempt
            for kind, hist in enumerate((out["plain"], out["op"])):
                for total in np.nonzero(hist)[0]:
                    hits = np.zeros(1, np.int64)
                    km.dispel_trials(np.int64(dispel[0]), np.int64(dispel[1]), np.int64(total),
                                     np.int64(rules.dispel_natural_fail_at_most),
                                     np.int64(int(rules.op_on_dispel)), state,
                                     np.int64(hist[total]), hits)
                    out["dispelled"][kind] += hits[0]
        return out

    def probabilities(tally, n):
        return np.concatenate([tally["codes"], tally["two6"], tally["dispelled"]]) / n

    run = simulate(run_chunk, config, probabilities)
    t, n = run.tally, run.n_trials
    codes = t["codes"]
    prop = Estimate.proportion
    miscast = 0 if bound else int(codes[2] + codes[3])
    met = None
    if dispel is not None:
        dispelled = int(t["dispelled"].sum())
        met = (prop(int(codes[1:].sum()) - dispelled, n), prop(dispelled, n))
        miscast -= 0 if bound else int(t["dispelled"][1])  # t9a1: no miscast once dispelled
    results = _cast_results(rules, prop(int(codes[1:].sum()), n), prop(int(t["two6"][0]), n),
                            prop(miscast, n), prop(int(codes[0]), n), prop(int(codes[3]), n),
                            prop(int(t["two6"][0]), n) if _bound_lost(rules, bound, n_dice)
                            else None, met)
    rows, labels = _row_results(rules, results["p_miscast"])
    results.update(rows)
    derived = {key: f"P(miscast) (simulated) × P({labels[key]}) = {float(p):.6g} (2D6, exact): "
               "its se and 95% interval are P(miscast)'s scaled by that exact factor"
               for (key, p) in zip(rows, (p for _, p in miscast_rows(rules)), strict=True)}
    distributions = {"casting_total": Distribution.from_counts(t["plain"]) if t["plain"].sum()
                     else Distribution(np.zeros(1), cv, n_trials=n, counts=np.zeros(1, np.int64))}
    if t["op"].sum():
        distributions["overwhelming_total"] = Distribution.from_counts(t["op"])
    info = {"ruleset": ruleset, "miscast rows (2D6, effects as data)": labels, "note": _NOTE,
            "derived results": derived}
    return Report("magic.cast", "mc", results, distributions, n_trials=n, seed=run.seed,
                  info=_dispel_info(info, rules, dispel), title=title)


def dispel(n_dice: int, level: int, against: int, ruleset: str = "t9a1", method: str = "exact",
           config: MonteCarloConfig | None = None, check: bool = False) -> Report:
    """One dispel attempt against a casting total (MG-6, MG-5 on dispel rolls)."""
    rules = magic_rules(ruleset)
    check_dispel_input(rules, n_dice, level)
    if not -1000 <= against <= 1000:  # 2**63 overflowed the kernel's int64 argument
        raise InputError("‹against›", "a casting total must be between -1000 and 1000", against,
                         "use e.g. ‹against› 9")
    title = f"dispel {plural(n_dice, 'die')}, level {level}, against {against} ({ruleset})"

    def exact() -> Report:
        p = dispel_probability(rules, n_dice, level, against)
        return Report("magic.dispel", "exact", {"p_dispel": Estimate.exact(float(p))},
                      info={"ruleset": ruleset}, title=title)

    def monte_carlo(cfg: MonteCarloConfig) -> Report:
        from mathhammer import kernels
        from mathhammer.engine import simulate

        km = kernels.load("mathhammer.magic.kernels")

        def run_chunk(n: int, state):
            hits = np.zeros(1, np.int64)
            km.dispel_trials(np.int64(n_dice), np.int64(level), np.int64(against),
                             np.int64(rules.dispel_natural_fail_at_most),
                             np.int64(int(rules.op_on_dispel)), state, np.int64(n), hits)
            return {"hits": hits}

        run = simulate(run_chunk, cfg, lambda tally, n: tally["hits"] / n)
        return Report("magic.dispel", "mc",
                      {"p_dispel": Estimate.proportion(int(run.tally["hits"][0]), run.n_trials)},
                      n_trials=run.n_trials, seed=run.seed, info={"ruleset": ruleset}, title=title)

    return answer("magic.dispel", method=method, exact=exact, monte_carlo=monte_carlo,
                  config=config, check=check)
