"""The answer of a battle: who wins, by how much, what happened to each unit, who decided what.

JSON contract (``fb battle --format json``, the shared report shape): ``results`` holds
``p_a_wins``, ``p_draw``, ``p_b_wins`` and ``mean_vp_margin`` (A − B, victory points),
``mean_vp_a`` / ``mean_vp_b``, and per unit and game turn ``p_destroyed[A:<label>, turn
<t>]``, ``p_fleeing[...]``, ``p_fled[...]``, ``p_holding[...]``; ``distributions`` holds
``vp_margin`` and ``models_left[A:<label>]``; ``info`` the policies, the deployment, the
decisions each side took (``decisions``: per unit and kind, each option's share and how
often it came up per battle), the values of the first decisions (``first_decisions``), the
rules followed and what is ``not_played`` yet.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mathhammer.errors import InputError
from mathhammer.fantasy.battle.scoring import draw_limit
from mathhammer.results import Column, Distribution, Estimate, InfoLines, InfoTable, Report
from mathhammer.trials import BATTLE as DEFAULT_TRIALS
from mathhammer.words import plural

STATUS_KEYS = ("holding", "fleeing", "fled", "destroyed")
NOT_PLAYED = (
    "in the magic phase (FB-B12, wizards' magic missiles, heals, and augments and hexes on "
    "WS, S, T, I, A in combat are played, FB-B30, remaining in play too, FB-B31): other "
    "spells (augments and hexes on shooting, movement, Leadership, saves or re-rolls), bound "
    "spells, the miscast table's effects other than wfb8's Detonation (a miscast ends the wizard's "
    "casting; t9a1 also loses the dice used)",
    "t9a1 misfire rows with unverified effects (only a lost shot) and FB-WM1's assault party "
    "(a war machine's crew fight as a unit, FB-WM2)",
    "a pursuit or overrun reaching a fleeing enemy or one already in a combat (it stops short, "
    "FB-B22), pursuers leaving the table (they stop at its edge), combat reforms other than "
    "FB-B8's",
    "panic other than 25% shooting losses and a friend broken or destroyed nearby (FB-B21)",
    "terrain other than sight and cover (no difficult or dangerous terrain)",
)


def battle(list_a, list_b, *, turns: int = 6, deployment: str | Path | dict | None = None,
           policy_a: str = "greedy", policy_b: str = "greedy", first: str = "roll-off",
           n_trials: int = DEFAULT_TRIALS, seed: int | None = None, workers: int = 1,
           scheduler=None, rollouts: int = 8, iterations: int = 1, progress=None,
           deployment_source: str | None = None) -> Report:
    """Play list A against list B ``n_trials`` times (Monte Carlo; one trial is one battle).

    Args:
        list_a, list_b: list files, bundled list names (``wfb8_empire``) or ArmyLists.
        turns: game turns (each: the first player's turn, then the other's).
        deployment: a deployment file (path or parsed dict), else the default lines (FB-B2).
        policy_a, policy_b: ``scripted``, ``greedy`` or ``best-response`` (FB-B10).
        first: ``a``, ``b`` or ``roll-off`` (each battle rolls off).
        workers: worker processes; the answer is the same for any count (and on Dask).
        scheduler: a Dask scheduler address or client.
        rollouts, iterations: best-response: rollouts per option, answers to answers.
        deployment_source: what an error in a parsed ``deployment`` names as its place.
    """
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe
    from mathhammer.lists import ArmyList, load_list

    for name, x in (("‹list_a›", list_a), ("‹list_b›", list_b)):
        if not isinstance(x, (ArmyList, str, Path, dict)):
            raise InputError(name, "must be a list name, a list file or an ArmyList",
                             type(x).__name__, "use e.g. 'wfb8_empire'")
    armies = [x if isinstance(x, ArmyList) else load_list(x) for x in (list_a, list_b)]
    data, source = _deployment_data(deployment)
    source = deployment_source or source
    recipe = Recipe(armies[0], armies[1], data, source, turns, first, policy_a, policy_b,
                    rollouts, iterations)
    tally, used_seed, plan = run(recipe, n_trials, seed, workers=workers, scheduler=scheduler,
                                 progress=progress)
    return build_report(plan, tally, n_trials, used_seed, recipe)


def _deployment_data(deployment) -> tuple[dict | None, str]:
    if deployment is None:
        return None, "default lines (FB-B2)"
    if isinstance(deployment, dict):
        return deployment, "deployment"
    from mathhammer.profiles import read_toml

    return read_toml(Path(deployment)), str(deployment)


def unit_key(plan, u: int) -> str:
    unit = plan.units[u]
    return f"{'AB'[unit.side]}:{unit.label}"


def build_report(plan, tally: dict, n: int, seed: int, recipe) -> Report:
    from mathhammer.fantasy.headlines import fb_battle_headline

    outcome = tally["outcome"]
    results: dict[str, Estimate] = {
        "p_a_wins": Estimate.proportion(int(outcome[0]), n),
        "p_draw": Estimate.proportion(int(outcome[1]), n),
        "p_b_wins": Estimate.proportion(int(outcome[2]), n),
    }
    twice, twice_sq = (float(x) for x in tally["margin2"])
    results["mean_vp_margin"] = Estimate.mean(twice / 2, twice_sq / 4, n)
    last = plan.turns - 1  # each unit's fate at the end; by game turn in info (fate by turn)
    for u in range(len(plan.units)):
        for code, name in enumerate(STATUS_KEYS):
            if name != "holding":  # 1 minus the other three
                results[f"p_{name}[{unit_key(plan, u)}]"] = Estimate.proportion(
                    int(tally["status"][last, u, code]), n)
    hist = tally["margin_hist"]
    nz = np.nonzero(hist)[0]
    distributions = {"vp_margin": Distribution.from_counts(hist[nz[0]: nz[-1] + 1],
                                                           offset=int(nz[0]) - plan.max_margin)}
    for u, unit in enumerate(plan.units):
        counts = tally["models_left"][u, : unit.models + 1]
        distributions[f"models_left[{unit_key(plan, u)}]"] = Distribution.from_counts(counts)
    names = plan.names
    title = (f"{names[0]} vs {names[1]} ({plan.rules.name}, "
             f"{plural(plan.turns, 'game turn')}, "
             f"{plan.policies[0].describe()} vs {plan.policies[1].describe()})")
    info = _info(plan, tally, n, recipe, seed)
    report = Report("fantasy.battle", "mc", results, distributions, n_trials=n, seed=seed,
                    info=info, title=title)
    report.headline = fb_battle_headline(report, names)
    # FB-B9: a margin within this many VP either way is a draw (the chart's draw bars; the
    # words are info's "victory points")
    report.draw_limit_vp = draw_limit(plan)
    return report


def _info(plan, tally: dict, n: int, recipe, seed: int) -> dict:
    br = plan.rules.battle
    first = {"a": "A first", "b": "B first", "roll-off": "first turn by a roll-off each battle "
             "(DICE-6)"}[plan.first]
    info: dict = {
        "set-up": f"A {recipe.army_a.total_points} pts, B {recipe.army_b.total_points} pts; "
                  f"{plan.rules.name}; {br.table_width:g}\" x {br.table_depth:g}\" table (FB-B1); "
                  f"{plan.deployment.source}; {first}; {plural(plan.turns, 'game turn')}, "
                  "each player turn rally, charges, moves, magic, shooting, combat (FB-B3)",
        "victory points": _vp_words(plan),
        "not_played": "; ".join(NOT_PLAYED) + " (FB-B11)",
    }
    info["fate by turn"] = fate_by_turn(plan, tally, n)
    info["decisions"] = decision_summary(plan, tally["decisions"], n)
    from mathhammer.fantasy.battle.first import FIRST_DECISIONS, first_decisions

    scripted = all(p.name == "scripted" for p in plan.policies)
    entries = tally.get(FIRST_DECISIONS)  # played by a worker process (distributed.py)
    info["first_decisions"] = first_decisions_lines(
        first_decisions(plan, seed) if entries is None else entries,
        "scripted orders are followed, not valued" if scripted
        else "no decision of more than one option came up in the first-decisions battle")
    return info


def first_decisions_lines(entries: list[dict], none: str) -> InfoLines:
    """The first decisions as the JSON keeps them (per side: policy, kind, unit, options with
    value and se) and, on screen, one line a side: every option, best first, its value
    rounded to its se; none at all: ``none``, why there are none."""
    from mathhammer.words import rounded

    lines = []
    for e in entries:
        ranked = sorted(e["options"], key=lambda o: -o["value"])
        values = ", ".join(f"{o['option']} {rounded(o['value'], o['se'], signed=True, exact_digits=1)}"
                           for o in ranked)
        lines.append(f"{e['side']}:{e['unit']}, {e['kind']} ({e['policy']}), VP: {values}")
    if not entries:
        lines.append(f"none: {none}")
    return InfoLines(entries, lines)


def _vp_words(plan) -> str:
    br = plan.rules.battle
    parts = [f"destroyed or fled {br.destroyed:g} x points"]
    if br.fleeing_at_end:
        parts.append(f"fleeing at the end {br.fleeing_at_end:g} x")
    if br.below_quarter:
        parts.append(f"below a quarter of its models {br.below_quarter:g} x")
    for key, words in (("general_bonus", "general"), ("battle_standard_bonus", "battle standard"),
                       ("standard_bonus", "each standard taken")):
        if getattr(br, key):
            parts.append(f"{words} +{getattr(br, key)}")
    limit = draw_limit(plan)
    parts.append(f"a draw within {limit:g} VP" if limit else "a draw on equal VP")
    return "; ".join(parts) + " (FB-B9)"


def fate_by_turn(plan, tally: dict, n: int) -> InfoTable:
    """Per unit, P(destroyed or fled off the table) by the end of each game turn, ± se."""
    gone = [STATUS_KEYS.index("destroyed"), STATUS_KEYS.index("fled")]
    rows, columns = [], [Column("unit", "destroyed or fled by the end of")]
    for turn in range(plan.turns):
        columns.append(Column(f"turn_{turn + 1}", f"turn {turn + 1}", se=f"turn_{turn + 1}_se"))
    for u in range(len(plan.units)):
        row: dict = {"unit": unit_key(plan, u)}
        for turn in range(plan.turns):
            est = Estimate.proportion(int(tally["status"][turn, u, gone].sum()), n)
            row[f"turn_{turn + 1}"], row[f"turn_{turn + 1}_se"] = est.value, est.se
        rows.append(row)
    return InfoTable(rows, tuple(columns))


def decision_summary(plan, counts: np.ndarray, n: int) -> InfoLines:
    """Per unit and kind of decision: how often it came up a battle and how often each option
    was taken. The JSON keeps a record each (side, unit, kind, ``by``, per_battle, options with
    count and share); the screen one line each, the options taken with their shares. The unit
    carries its own side's letter; a decision the other side takes about it (a dispel of the
    spell on it) says ``by`` that side."""
    groups: dict[tuple, list[tuple[str, int]]] = {}
    for (side, kind, u, label), i in plan.vocabulary.items():
        groups.setdefault((side, u, kind), []).append((label, int(counts[i])))
    entries, lines = [], []
    for (side, u, kind), options in sorted(groups.items()):
        total = sum(c for _l, c in options)
        if not total:
            continue
        own = plan.units[u].side  # a dispel or heal of a unit may be the other side's choice
        entries.append({"side": "AB"[own], "unit": plan.units[u].label, "kind": kind,
                        "by": "AB"[side], "per_battle": total / n,
                        "options": [{"option": label, "count": c, "share": c / total}
                                    for label, c in options]})
        shares = ", ".join(f"{label} {100 * c / total:.0f}%" for label, c in options if c)
        by = "" if own == side else f" by {'AB'[side]}"
        lines.append(f"{'AB'[own]}:{plan.units[u].label}: {kind}{by} ({total / n:.2f} a "
                     f"battle): {shares}")
    return InfoLines(entries, lines)


def check_options(turns, n_trials) -> None:
    if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
        raise InputError("‹turns›", "must be at least 1 game turn", turns, "use ‹turns› 6")
    if n_trials is not None and (isinstance(n_trials, bool) or not isinstance(n_trials, int)):
        raise InputError("‹n_trials›", "must be a whole number", n_trials, "use ‹n_trials› 2000")
