"""Write the analysis notebooks and execute them with the current code (outputs committed).

    .venv/bin/python notebooks/build_notebooks.py            # full trial counts
    MATHHAMMER_NOTEBOOK_TRIALS=2000 ... build_notebooks.py    # quick

Every number in a notebook is computed by the library when it runs; the prose only
says what to look for. The last code cell of each notebook calls ``answer(text)``
with the answer to its question, built from the numbers of the run; after executing,
this script copies that answer into the first cell under the question, so a reader
sees question and answer first. ``tests/test_notebooks.py`` re-executes the committed
notebooks with small trial counts and checks the first cell against the last.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = """\
import os

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from matplotlib.ticker import PercentFormatter

import mathhammer as mh  # the public API: every engine a notebook uses is mh.<name>

%matplotlib inline
# the tests set a small count; the committed outputs use the default
N_TRIALS = int(os.environ.get("MATHHAMMER_NOTEBOOK_TRIALS", "200000"))
SEED = 2026
config = mh.MonteCarloConfig(n_trials=N_TRIALS, seed=SEED, threads=1)
print(f"Monte Carlo: {N_TRIALS:,} trials per query, seed {SEED}")


ANSWER_MARK = "ANSWER: "


def answer(text: str) -> None:
    # the answer to the notebook's question; the build copies it into the first cell
    print(f"{ANSWER_MARK}{text}")


def headline_figures(figures: dict, percent: bool = True) -> None:
    # the numbers the answer rests on, each a library Estimate or (value, se; None if exact):
    # tests/test_notebooks.py re-runs the notebook and checks the saved ones against them
    print(f"{FIGURES_MARK} ({'probabilities' if percent else 'means'}; Monte Carlo value ± se):")
    for label, figure in figures.items():
        if hasattr(figure, "is_exact"):
            figure = (figure.value, None if figure.is_exact else figure.se)
        value, se = figure
        scale, unit, digits = (100, "%", 3) if percent else (1, "", 4)
        tail = " exact" if se is None else f" ± {scale * se:.{digits}f}"
        print(f"  {label}: {scale * value:.{digits + 1 if se is None else digits}f}{unit}{tail}")


FIGURES_MARK = "Headline figures"
"""


ANSWER_MARK = "ANSWER: "
ANSWER_HEAD = "**Answer**"
FIGURES_MARK = "Headline figures"


def notebook(cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in cells]
    return nb


FOCUS = [
    ("md", """\
# How should a warjack spend its focus? Optimal play against habits

A Mk II warjack gets up to three focus from its warcaster (WM-F1). Each point can
buy another attack, boost an attack roll or boost a damage roll, and a charge costs
one (WM-F2). Players fall into habits: *always buy attacks*, *always boost to hit*,
*always boost damage*, or a rule of thumb that spends each point where it adds the
most expected damage right now (`greedy`). The `optimal` policy (WM-F5) is solved
exactly by dynamic programming on the full state (damage grid, focus, knock-down) to
maximise P(destroy); the bars below are Monte Carlo runs of each policy.

**Question:** how much kill probability do the habits leave on the table?"""),
    ("code", SETUP),
    ("code", """\

PAIRS = [("khador/juggernaut", "cygnar/ironclad"), ("cygnar/ironclad", "khador/juggernaut"),
         ("protectorate/crusader", "cryx/slayer"), ("khador/juggernaut", "cygnar/stryker")]
HABITS = {
    "buy attacks": dict(policy="fixed"),
    "boost every attack roll": dict(policy="fixed", boost_hit=True),
    "boost every damage roll": dict(policy="fixed", boost_damage=True),
    "rule of thumb (greedy)": dict(policy="greedy"),
    "optimal": dict(policy="optimal"),
}
rows = []
for attacker, target in PAIRS:
    matchup = f"{mh.load_profile('warmachine', attacker).name} →\\n{mh.load_profile('warmachine', target).name}"
    for habit, kw in HABITS.items():
        r = mh.wm_duel(attacker, target, focus=3, charge=True, method="mc", config=config, **kw)
        rows.append({"matchup": matchup, "habit": habit,
                     "p_kill": r.results["p_destroyed"].value, "se": r.results["p_destroyed"].se,
                     "mean_damage": r.results["mean_damage"].value})
frame = pd.DataFrame(rows)
frame.pivot(index="matchup", columns="habit", values="p_kill").loc[:, list(HABITS)].style.format("{:.1%}")"""),
    ("md", """\
Each group of bars is one charge with 3 focus against a fresh target; the whiskers are
95% intervals of the Monte Carlo estimate."""),
    ("code", """\
fig, ax = plt.subplots(figsize=(10, 4.8), dpi=110)
matchups = list(dict.fromkeys(frame["matchup"]))
width = 0.16
for i, habit in enumerate(HABITS):
    sub = frame[frame["habit"] == habit].set_index("matchup").loc[matchups]
    x = np.arange(len(matchups)) + (i - 2) * width
    ax.bar(x, sub["p_kill"] * 100, width, yerr=1.96 * sub["se"] * 100, capsize=2, label=habit)
ax.set_xticks(np.arange(len(matchups)), matchups, fontsize=9)
ax.yaxis.set_major_formatter(PercentFormatter())
ax.set_ylabel("P(destroyed) in one activation")
ax.set_title("One charging warjack, 3 focus: P(kill) by focus habit")
ax.legend(frameon=False, ncol=3, loc="upper right")
ax.set_ylim(0, 105)
ax.grid(axis="y", alpha=0.3)
plt.show()"""),
    ("code", """\
for matchup in matchups:
    sub = frame[frame["matchup"] == matchup].set_index("habit")["p_kill"]
    habits = sub.drop("optimal")
    best = habits.idxmax()
    print(f"{matchup.replace(chr(10), ' ')}: optimal {sub['optimal']:.1%}; best habit '{best}' {habits.max():.1%} "
          f"(gap {100 * (sub['optimal'] - habits.max()):+.1f} pp); worst '{habits.idxmin()}' {habits.min():.1%}")"""),
    ("md", """\
## Does the answer change with the target's DEF?

The same charge (Juggernaut, 3 focus) against an Ironclad whose DEF is varied: the
policies are compared with the breakpoint sweep of `mathhammer.analysis`."""),
    ("code", """\

fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
for policy in ("fixed", "greedy", "optimal"):
    s = mh.sweep("khador/juggernaut", "cygnar/ironclad", "def=10..16",
              attacker_options={"focus": 3, "charge": True}, policy=policy, method="mc",
              n_trials=N_TRIALS, seed=SEED)
    line = s.series("plain")
    ax.errorbar(line.index, line["p_kill"] * 100, yerr=1.96 * line["p_kill_se"] * 100, marker="o",
                capsize=2, label={"fixed": "buy attacks", "greedy": "rule of thumb"}.get(policy, policy))
ax.yaxis.set_major_formatter(PercentFormatter())
ax.set_xlabel("Ironclad DEF")
ax.set_ylabel("P(destroyed)")
ax.set_title("Juggernaut charge with 3 focus against a varied DEF")
ax.legend(frameon=False)
ax.grid(alpha=0.3)
plt.show()"""),
    ("md", """\
## Must it charge? `--charge` against `--may-charge`

Every duel above *charges* (`charge=True`, the CLI's `--charge`: the model charges,
1 focus for a warjack, the first damage roll pre-boosted, WM-D3). With `--may-charge`
the optimal policy also weighs walking in, a head-butt and a slam, and says what it
chose; the gap between the two columns is what the charge decision is worth, apart
from how the focus is spent. Exact values (no Monte Carlo error)."""),
    ("code", """\
charge_rows = []
for attacker, target in PAIRS:
    row = {"matchup": f"{mh.load_profile('warmachine', attacker).name} → {mh.load_profile('warmachine', target).name}"}
    for label, kw in (("no charge", {}), ("must charge", {"charge": True}),
                      ("may charge", {"may_charge": True})):
        r = mh.wm_duel(attacker, target, focus=3, method="exact", **kw)
        row[label] = r.results["p_destroyed"].value
        if label == "may charge":
            row["policy's choice"] = r.info.get("charge", "—")
    charge_rows.append(row)
charges = pd.DataFrame(charge_rows).set_index("matchup")
charges.style.format({c: "{:.1%}" for c in ("no charge", "must charge", "may charge")})"""),
    ("md", """\
## The whole turn: `wm plan`

A turn is a battlegroup sharing one warcaster's focus. The planner tries every focus
split, activation order, melee or ranged activation and the feat, each activation
played with the optimal policy (WM-P1). Below: Sorscha's battle box against a Stryker
who camped 3 focus and has Arcane Shield up, beside the hand-written turn "both
warjacks get 3 and charge, Sorscha keeps nothing"."""),
    ("code", """\

plan = mh.wm_plan(["khador/sorscha", "khador/juggernaut", "khador/destroyer"], "cygnar/stryker",
                 camped_focus=3, target_effects=["Arcane Shield"], top=3)
hand = mh.wm_duel("khador/juggernaut", "cygnar/stryker", focus=3, charge=True, camped_focus=3,
            target_effects=["Arcane Shield"], then=["khador/destroyer:3:charge", "khador/sorscha:0"],
            method="exact")
print(plan.headline)
print("\\n".join(plan.info["plan"]))
print("runners-up:", *plan.info["alternatives"], sep="\\n  ")
print(f"hand-written turn (no feat): {hand.results['p_destroyed'].value:.2%}")"""),
    ("md", """\
**Reading it:** the printed gaps are the price of each habit for these match-ups.
Boosting every roll spends the focus that would otherwise buy attacks, so against a
high-ARM heavy with many boxes it falls far behind; against a high-DEF warcaster with
a short damage track the picture changes, because missing is the main risk there.
No single habit is best everywhere, which is what the optimal policy exploits."""),
    ("code", """\
gaps = {}
for matchup in matchups:
    sub = frame[frame["matchup"] == matchup].set_index("habit")
    habits = sub.drop("optimal")
    best_habit = habits["p_kill"].idxmax()
    gaps[matchup.replace(chr(10), " ")] = (sub.loc["optimal"], habits.loc[best_habit], best_habit)
widest = max(gaps, key=lambda m: gaps[m][0]["p_kill"] - gaps[m][1]["p_kill"])
o, h, habit = gaps[widest]
spread = [100 * (o_["p_kill"] - h_["p_kill"]) for o_, h_, _ in gaps.values()]
se = 100 * frame["se"].max()
answer(f"Habits leave up to {100 * (o['p_kill'] - h['p_kill']):.1f} percentage points of kill "
       f"chance on the table: {widest} is destroyed in {o['p_kill']:.1%} ± {100 * o['se']:.1f} of "
       f"charges with optimal focus spending against {h['p_kill']:.1%} ± {100 * h['se']:.1f} for the "
       f"best habit ('{habit}'). Over the {len(gaps)} match-ups the gap between optimal play and "
       f"the best habit runs from {min(spread):+.1f} to {max(spread):+.1f} pp (Monte Carlo, "
       f"{N_TRIALS:,} charges each; every P(kill) ± {se:.1f} pp or less). Letting the policy "
       f"choose whether to charge changes the exact P(kill) by at most "
       f"{100 * (charges['may charge'] - charges['must charge']).abs().max():.1f} pp on these "
       f"match-ups; the planned turn against a shielded Stryker kills in "
       f"{plan.results['p_destroyed'].value:.1%} against {hand.results['p_destroyed'].value:.1%} "
       f"for the hand-written one.")
headline_figures({f"{r.matchup.replace(chr(10), ' ')}, {r.habit}": (r.p_kill, r.se)
                  for r in frame.itertuples()})
headline_figures({f"{m}, {c}": (charges.loc[m, c], None) for m in charges.index
                  for c in ("no charge", "must charge", "may charge")}
                 | {"planned turn": plan.results["p_destroyed"],
                    "hand-written turn": hand.results["p_destroyed"]})"""),
]

CRIPPLE = [
    ("md", """\
# Crippling odds for each starter warjack

A Mk II warjack rarely dies to one charge, but losing its arm, cortex or movement
(WM-G4) decides the next turn. Damage goes into the column rolled on a d6 and flows
to the next column when one fills (WM-G2), so each chassis has its own weak spots.

**Question:** after one charge by a heavy warjack with 3 focus (optimal policy for
the kill), how likely is each system of each bundled warjack to be crippled?"""),
    ("code", SETUP),
    ("code", """\

jacks = [p for p in (mh.load_profile('warmachine', i) for i in mh.bundled_ids("warmachine")) if p.is_warjack]
ATTACKERS = {"Juggernaut charge": "khador/juggernaut", "Ironclad charge": "cygnar/ironclad"}
SYSTEMS = list("LRHACM")
tables, errors, kills, kills_se = {}, {}, {}, {}
for label, attacker in ATTACKERS.items():
    rows, ses, dead, dead_se = {}, {}, {}, {}
    for jack in jacks:
        r = mh.wm_duel(attacker, jack.id, focus=3, charge=True, method="mc", config=config)
        name = f"{jack.name} ({jack.faction})"
        rows[name] = {mh.SYSTEM_NAMES[s]: r.results[f"p_crippled_{s}"].value if f"p_crippled_{s}" in r.results else np.nan for s in SYSTEMS}
        ses[name] = {mh.SYSTEM_NAMES[s]: r.results[f"p_crippled_{s}"].se if f"p_crippled_{s}" in r.results else np.nan for s in SYSTEMS}
        dead[name] = r.results["p_destroyed"].value
        dead_se[name] = r.results["p_destroyed"].se
    tables[label] = pd.DataFrame(rows).T
    errors[label] = pd.DataFrame(ses).T
    kills[label] = pd.Series(dead)
    kills_se[label] = pd.Series(dead_se)
tables["Juggernaut charge"].style.format("{:.1%}", na_rep="—")"""),
    ("md", """\
Blank cells are systems the chassis does not have (most warjacks have no arc node).
Under Monte Carlo each cell carries its ± standard error."""),
    ("code", """\

fig, axes = plt.subplots(1, 2, figsize=(16, 0.45 * len(jacks) + 2.5), dpi=100)
for ax, (label, table) in zip(axes, tables.items()):
    mh.plot_table_heatmap(table, ax=ax, title=f"P(system crippled) after one {label} (3 focus)",
                       colour_label="P(crippled)", xlabel="system", ylabel="target warjack",
                       se=errors[label] if N_TRIALS < 10**7 else None)
plt.tight_layout()
plt.show()"""),
    ("code", """\
for label, table in tables.items():
    cortex = table["cortex"].dropna()
    moves = table["movement"].dropna()
    print(f"{label}: cortex most exposed on {cortex.idxmax()} ({cortex.max():.1%}), least on "
          f"{cortex.idxmin()} ({cortex.min():.1%}); movement most exposed on {moves.idxmax()} "
          f"({moves.max():.1%}); P(destroyed) ranges {kills[label].min():.1%}..{kills[label].max():.1%}")"""),
    ("md", """\
**Reading it:** compare rows, not single cells: the printed extremes above show how
much the chassis matters against the same charge. Warjacks that share a grid and ARM
share their odds exactly (the same numbers in two rows are a check, not a copy).
The policy here aims at the kill, not at a given system, so a player hunting a
cortex would do a little better than these numbers."""),
    ("code", """\
jug, jug_se = tables["Juggernaut charge"], errors["Juggernaut charge"]
cortex = jug["cortex"].dropna()
answer(f"After one charging Juggernaut with 3 focus, the cortex is crippled most often on "
       f"{cortex.idxmax()} ({cortex.max():.1%} ± {100 * jug_se.loc[cortex.idxmax(), 'cortex']:.1f}) "
       f"and least often on {cortex.idxmin()} ({cortex.min():.1%} ± "
       f"{100 * jug_se.loc[cortex.idxmin(), 'cortex']:.1f}); the warjack is destroyed outright in "
       f"{kills['Juggernaut charge'].min():.1%} to {kills['Juggernaut charge'].max():.1%} of charges "
       f"across the {len(jacks)} bundled warjacks (Monte Carlo, {N_TRIALS:,} charges each).")
headline_figures({f"cortex, Juggernaut charge, {name}": (jug.loc[name, "cortex"], jug_se.loc[name, "cortex"])
                  for name in cortex.index})
headline_figures({f"destroyed, {label}, {name}": (p, kills_se[label][name])
                  for label, dead in kills.items() for name, p in dead.items()})"""),
]

FANTASY = [
    ("md", """\
# Unit match-ups and break odds (Warhammer Fantasy 8th edition)

A close combat is decided by the combat result and the loser's break test (FB-C4,
FB-C5): a unit can win on wounds and still not break a steadfast or stubborn enemy.

**Question:** for six infantry blocks in their default formations, who wins a charge,
and how often does the enemy break in the first round?"""),
    ("code", SETUP),
    ("code", """\

UNITS = ["wfb8/empire_halberdiers", "wfb8/orc_boyz", "wfb8/skeleton_warriors",
         "wfb8/dwarf_warriors", "wfb8/high_elf_spearmen", "wfb8/chaos_warriors"]
names = {u: mh.load_profile('fantasy', u).name for u in UNITS}
first, first_se, decided, decided_se = {}, {}, {}, {}
breaks, wins = {}, {}  # the library's estimates, for the headline figures
for a in UNITS:
    first[names[a]], first_se[names[a]], decided[names[a]], decided_se[names[a]] = {}, {}, {}, {}
    for b in UNITS:
        if a == b:
            continue
        one = mh.fb_combat(a, b, rounds=1, charger="a", method="auto", config=config)
        full = mh.fb_combat(a, b, charger="a", method="mc", config=config)
        first[names[a]][names[b]] = one.results["p_enemy_breaks"].value
        first_se[names[a]][names[b]] = one.results["p_enemy_breaks"].se
        decided[names[a]][names[b]] = full.results["p_a_wins"].value
        decided_se[names[a]][names[b]] = full.results["p_a_wins"].se
        breaks[f"{names[a]} charging {names[b]}, breaks in round 1"] = one.results["p_enemy_breaks"]
        wins[f"{names[a]} charging {names[b]}, wins"] = full.results["p_a_wins"]
first, decided = pd.DataFrame(first).T, pd.DataFrame(decided).T
first_se, decided_se = pd.DataFrame(first_se).T, pd.DataFrame(decided_se).T
order = list(names.values())
first, decided = first.loc[order, order], decided.loc[order, order]
first_se, decided_se = first_se.loc[order, order], decided_se.loc[order, order]
decided.style.format("{:.1%}", na_rep="—")"""),
    ("code", """\

fig, axes = plt.subplots(1, 2, figsize=(15, 5.2), dpi=100)
mh.plot_table_heatmap(first, ax=axes[0], title="P(enemy breaks in round 1), row charges",
                   colour_label="P(break)", xlabel="charged unit", ylabel="charging unit", se=first_se)
mh.plot_table_heatmap(decided, ax=axes[1], title="P(charger wins the combat), until decided",
                   colour_label="P(win)", xlabel="charged unit", ylabel="charging unit", se=decided_se)
plt.tight_layout()
plt.show()"""),
    ("code", """\
points = {names[u]: mh.load_profile('fantasy', u).unit_points() for u in UNITS}
summary = pd.DataFrame({"points": pd.Series(points),
                        "mean P(win) as charger": decided.mean(axis=1),
                        "mean P(not beaten) when charged": 1 - decided.mean(axis=0)})
summary["P(win) per 100 points"] = summary["mean P(win) as charger"] * 100 / summary["points"]
print("'not beaten' = the charger did not win: the defender won, drew or held to the round cap.")
summary.sort_values("mean P(win) as charger", ascending=False).style.format(
    {"points": "{:.0f}", "mean P(win) as charger": "{:.1%}", "mean P(not beaten) when charged": "{:.1%}",
     "P(win) per 100 points": "{:.2f}"})"""),
    ("code", """\
best = decided.stack().idxmax()
worst = decided.stack().idxmin()
print(f"Most lopsided charge: {best[0]} into {best[1]} ({decided.loc[best]:.1%}); "
      f"least promising: {worst[0]} into {worst[1]} ({decided.loc[worst]:.1%}).")
print(f"First-round breaks are rarer than final wins: mean {np.nanmean(first.to_numpy()):.1%} "
      f"vs {np.nanmean(decided.to_numpy()):.1%}.")"""),
    ("md", """\
**Reading it:** the gap between the two heatmaps is the grind: ranks, steadfastness
and stubbornness keep units in combat after a lost first round, so the first-round
break odds understate what a charge finally achieves. The table ranks the blocks raw
and per 100 points; the two rankings need not agree."""),
    ("code", """\
ranking = decided.mean(axis=1).sort_values(ascending=False)


def pm(p, se):
    # "48.2% ± 0.1", with more digits where the error would round to 0
    d = 1
    while 0 < se and round(100 * se, d) == 0 and d < 3:
        d += 1
    return f"{100 * p:.{d}f}% ± {100 * se:.{d}f}"


answer(f"{best[0]} charging {best[1]} wins {pm(decided.loc[best], decided_se.loc[best])} "
       f"of combats, the most lopsided match-up; {worst[0]} charging {worst[1]} wins "
       f"{pm(decided.loc[worst], decided_se.loc[worst])}. The best charger "
       f"on average is {ranking.index[0]} ({ranking.iloc[0]:.1%} over the other five blocks). Enemies "
       f"break in the first round in {np.nanmean(first.to_numpy()):.1%} of charges on average, "
       f"against {np.nanmean(decided.to_numpy()):.1%} wins by the end (Monte Carlo, {N_TRIALS:,} "
       f"combats each; one-round breaks exact).")
headline_figures(wins)
headline_figures(breaks)"""),
]

MAGIC = [
    ("md", """\
# Magic phase dice budgeting (The 9th Age 1.x)

Power dice are few and dispel dice answer each spell (MG-1..MG-9). Spending more
dice raises the chance of casting but also of a miscast, and leaves fewer dice for
the next spell.

**Question:** how many dice should each spell get, and how much does planning the
dice spell by spell (the `optimal` dice rule) gain over fixed habits?"""),
    ("code", SETUP),
    ("md", "## One spell: P(cast) against the number of dice (exact)"),
    ("code", """\

max_dice = mh.magic_rules("t9a1").max_casting_dice  # MG-4
fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
cast_figures = {}
for cv in (5, 7, 9, 11):
    dice = range(1, max_dice + 1)
    p = [mh.magic_cast(n, level=4, cv=cv).results["p_cast"].value for n in dice]
    cast_figures |= {f"P(cast), casting value {cv}, {n} {'die' if n == 1 else 'dice'}": (v, None)
                     for n, v in zip(dice, p)}
    ax.plot(list(dice), np.array(p) * 100, marker="o", label=f"P(cast), casting value {cv}")
miscast = [mh.magic_cast(n, level=4, cv=7).results["p_miscast"].value for n in dice]
ax.plot(list(dice), np.array(miscast) * 100, linestyle=":", color="#555555", marker="x",
        label="P(miscast) (the same for every casting value)")
ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
ax.yaxis.set_major_formatter(PercentFormatter())
ax.set_xlabel("power dice used")
ax.set_ylabel("probability")
ax.set_title("Level 4 wizard, one spell: casting and miscast odds (exact)")
ax.legend(frameon=False)
ax.grid(alpha=0.3)
plt.show()"""),
    ("md", """\
## A whole phase: four spells, two wizards, a level 2 dispeller

The bundled scenario `profiles/scenarios/magic_t9a1_four_spells.toml`, played with
different dice rules for the caster: the file's fixed dice per spell, *fewest dice
reaching a target chance*, and `optimal` (dice chosen as each spell is cast, by
dynamic programming over the remaining pools)."""),
    ("code", """\

path = mh.profiles_root() / "scenarios" / "magic_t9a1_four_spells.toml"
scenario = mh.magic_scenario(mh.read_toml(path), str(path))
spell_names = [s.name for s in scenario.spells]
RULES = {"fixed (file dice)": dict(dice_rule="fixed"),
         "target 50%": dict(dice_rule="target", target=0.5),
         "target 75%": dict(dice_rule="target", target=0.75),
         "target 90%": dict(dice_rule="target", target=0.9),
         "optimal": dict(dice_rule="optimal")}
rows, goes_off, weights = [], {}, {}
for label, change in RULES.items():
    s = scenario.model_copy(update={"caster": scenario.caster.model_copy(update=change)})
    r = mh.magic_phase(s, method="mc", config=config)
    weights[f"expected weight, {label}"] = r.results["expected_weight"]
    goes_off |= {f"{name} goes off, {label}": r.results[f"p_goes_off_{i + 1}"]
                 for i, name in enumerate(spell_names)}
    row = {"dice rule": label, "expected weight": r.results["expected_weight"].value,
           "expected weight se": r.results["expected_weight"].se,
           "P(miscast)": r.results["p_miscast"].value}
    row.update({name: r.results[f"p_goes_off_{i + 1}"].value for i, name in enumerate(spell_names)})
    rows.append(row)
phase = pd.DataFrame(rows).set_index("dice rule")
phase.style.format("{:.3f}")"""),
    ("code", """\
fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5), dpi=110)
x = np.arange(len(spell_names))
width = 0.16
for i, label in enumerate(RULES):
    left.bar(x + (i - 2) * width, phase.loc[label, spell_names] * 100, width, label=label)
left.set_xticks(x, spell_names, rotation=15)
left.yaxis.set_major_formatter(PercentFormatter())
left.set_ylabel("P(spell goes off)")
left.set_title("Each spell, by the caster's dice rule")
left.legend(frameon=False, fontsize=8)
left.grid(axis="y", alpha=0.3)
right.barh(list(RULES), phase["expected weight"], xerr=1.96 * phase["expected weight se"], capsize=3,
           color="#4C72B0")
right.set_xlabel("expected weight of spells through (priority weights)")
right.set_title("Whole phase value (±95%)")
right.grid(axis="x", alpha=0.3)
plt.tight_layout()
plt.show()"""),
    ("md", "## Fixed pools: the best split against deciding as you go (exact)"),
    ("code", """\

pools = []
for power in range(5, 13):
    r = mh.magic_optimise(scenario, power=power, dispel=5)
    pools.append({"power dice": power, "best fixed split": r.results["expected_weight_best_split"].value,
                  "decide spell by spell": r.results["expected_weight_adaptive"].value})
pools = pd.DataFrame(pools).set_index("power dice")
ax = pools.plot(marker="o", figsize=(8, 4.2))
ax.set_ylabel("expected weight through")
ax.set_title("9th Age phase against 5 dispel dice: value of the power pool (exact)")
ax.grid(alpha=0.3)
plt.show()
gain = (pools["decide spell by spell"] - pools["best fixed split"])
print(f"Deciding dice spell by spell adds {gain.min():.3f}..{gain.max():.3f} expected weight "
      f"over the best fixed split (largest at {gain.idxmax()} power dice).")"""),
    ("md", """\
**Reading it:** the first chart shows each extra die buying less casting chance
while the miscast chance keeps growing; the phase chart shows what that means when
four spells share one pool and a dispeller answers them, and the last chart prices
the flexibility of choosing the dice as the phase unfolds (printed above)."""),
    ("code", """\
others = phase.drop("optimal")
runner_up = others["expected weight"].idxmax()
answer(f"Planning the dice spell by spell (the optimal rule) puts through an expected weight of "
       f"{phase.loc['optimal', 'expected weight']:.3f} ± {phase.loc['optimal', 'expected weight se']:.3f} "
       f"in the bundled four-spell phase, against {others.loc[runner_up, 'expected weight']:.3f} ± "
       f"{others.loc[runner_up, 'expected weight se']:.3f} for the "
       f"best fixed habit ('{runner_up}'); Fireball goes off {phase.loc['optimal', spell_names[0]]:.1%} "
       f"of the time. With fixed pools against 5 dispel dice, deciding as each spell is cast adds "
       f"{gain.min():.3f} to {gain.max():.3f} expected weight over the best fixed split (exact).")
headline_figures(cast_figures | goes_off)
headline_figures(weights | {f"{column}, {power} power dice": (pools.loc[power, column], None)
                            for power in pools.index for column in pools.columns}, percent=False)"""),
]

LISTS = [
    ("md", """\
# Comparing two army lists

`mathhammer.analysis.compare` pits every unit of one list against every unit of the
other and back. Each cell is one activation (Warmachine: optimal focus policy) or one
close combat (Fantasy), with P(kill), expected damage and both per 100 points.

**Question:** which units of the two Mk II battle boxes do the work, and which are
the best value for their points? And the same for two Fantasy lists."""),
    ("code", SETUP),
    ("code", """\

wm = mh.compare("khador_battlebox", "cygnar_battlebox", method="mc", n_trials=N_TRIALS, seed=SEED)
print(wm.list_a.summary())
print(wm.list_b.summary())
wm.matrix("p_kill", "A→B").style.format("{:.1%}")"""),
    ("code", """\
fig, axes = plt.subplots(2, 1, figsize=(10, 9), dpi=100)
for ax, direction in zip(axes, wm.directions):
    mh.plot_matrix(wm, "p_kill", direction, ax=ax)
plt.tight_layout()
plt.show()"""),
    ("md", """\
Mk II warcasters cost no points (they bring warjack points), so their per-100 cells
are empty. Per 100 points is "expected kills per 100 points of attacker", a way to
rank units of different cost."""),
    ("code", """\
value = (wm.frame.dropna(subset=["kills_per_100_points"])
         .groupby(["direction", "attacker"])[["p_kill", "kills_per_100_points", "mean_damage_per_100"]].mean()
         .sort_values("kills_per_100_points", ascending=False))
names = {"A→B": wm.list_a.name, "B→A": wm.list_b.name}
labels = [f"{attacker} ({names[direction]})" for direction, attacker in value.index]
ax = value["kills_per_100_points"].set_axis(labels).plot.barh(figsize=(8, 3.5), color="#DD8452")
ax.set_xlabel("mean expected kills per 100 points (over the enemy's units)")
ax.set_ylabel("")
ax.set_title("Points efficiency of each warjack (one activation)")
ax.invert_yaxis()
plt.show()
top = value.index[0]
print(f"Best value: {top[1]} ({top[0]}), {value.iloc[0]['kills_per_100_points']:.2f} kills per 100 points "
      f"on average; mean raw P(kill) {value.iloc[0]['p_kill']:.1%}.")"""),
    ("md", "## Fantasy: Empire state troops against orcs, skeletons and dwarfs"),
    ("code", """\
fb = mh.compare("wfb8_empire", "wfb8_greenskins_and_undead", method="mc", n_trials=N_TRIALS, seed=SEED)
fig, axes = plt.subplots(2, 1, figsize=(9, 8), dpi=100)
for ax, direction in zip(axes, fb.directions):
    mh.plot_matrix(fb, "p_kill", direction, ax=ax)
plt.tight_layout()
plt.show()
per_unit = fb.frame.groupby(["direction", "attacker"])[["p_kill", "kills_per_100_points"]].mean()
per_unit.style.format({"p_kill": "{:.1%}", "kills_per_100_points": "{:.3f}"})"""),
    ("md", """\
## Points against punch: the Pareto front

For each unit, its points against its mean P(kill) over the enemy's units. A unit is
on the **Pareto front** when no other unit of its list is at most as expensive and at
least as deadly (`Comparison.efficiency`). The two games price units on different
scales (a Mk II warjack costs 4–9 points, a Fantasy block 90–250), so each game gets
its own chart; compare units within a game, not across."""),
    ("code", """\
fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), dpi=110)
for ax, (comparison, game) in zip(axes, ((wm, "Warmachine Mk II"), (fb, "Warhammer Fantasy 8th"))):
    for direction, marker in zip(comparison.directions, ("o", "s")):
        eff = comparison.efficiency(direction)
        side = comparison.list_a.name if direction == "A→B" else comparison.list_b.name
        ax.scatter(eff["points"], eff["mean_p_kill"] * 100, s=60, marker=marker, label=side,
                   edgecolors=["black" if p else "none" for p in eff["pareto"]], linewidths=1.5)
        for i, (name, row) in enumerate(eff.iterrows()):
            ax.annotate(name + (" ★" if row["pareto"] else ""), (row["points"], row["mean_p_kill"] * 100),
                        xytext=(6, 5 if i % 2 == 0 else -12), textcoords="offset points", fontsize=8)
    ax.margins(x=0.25)
    ax.set_ylim(-12, 112)  # room for the labels of units at 0% and 100%
    ax.yaxis.set_major_formatter(PercentFormatter())
    ax.set_xlabel(f"cost of the unit in {game} points")
    ax.set_ylabel("mean P(kill) over the enemy's units")
    ax.set_title(f"{game}: points against punch")
    ax.legend(frameon=False, fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
fig.suptitle("★ and a black edge: on its list's Pareto front (no cheaper unit of the list is as deadly)",
             fontsize=9)
plt.tight_layout()
plt.show()"""),
    ("md", """\
**Reading it:** the matrices say which match-ups to seek and to avoid; the per-100
view says which purchases pay (printed above for the warjacks). Cells are single activations or single combats from a
fresh start — a list's real strength also depends on shooting, magic and manoeuvre,
which these matrices do not model."""),
    ("code", """\
fb_value = (fb.frame.dropna(subset=["kills_per_100_points"]).groupby("attacker")["kills_per_100_points"].mean()
            .sort_values(ascending=False))
answer(f"In the Mk II battle boxes {top[1]} does the work and is the best value: "
       f"{value.iloc[0]['kills_per_100_points']:.2f} expected kills per 100 points per activation "
       f"(mean P(kill) {value.iloc[0]['p_kill']:.1%} over the enemy's models). Among the Fantasy "
       f"lists the best value is {fb_value.index[0]} ({fb_value.iloc[0]:.3f} expected kills per 100 "
       f"points per combat). Monte Carlo, {N_TRIALS:,} trials per cell; every cell's P(kill) "
       f"± {100 * max(wm.frame['p_kill_se'].max(), fb.frame['p_kill_se'].max()):.1f} pp or less.")
for game, comparison in (("Mk II", wm), ("Fantasy", fb)):
    headline_figures({f"{game} {r.direction} {r.attacker} → {r.target}":
                      (r.p_kill, None if r.method == "exact" else r.p_kill_se)
                      for r in comparison.frame.itertuples()})"""),
]

BATTLES = [
    ("md", """\
# Fantasy battles: what a better general is worth

`mh.fb_battle` (`mathhammer fb battle`) plays two whole army lists over six game turns on
a 72" x 48" table: charges and reactions, moves, shooting and panic, every combat by the
combat engine, flight and pursuit, victory points as the ruleset scores them (FB-B1..B11).
Both generals decide through one policy interface: `greedy` takes the option the exact
engines value best one step ahead, `best-response` plays each option out to the end of the
battle on the same dice (common random numbers) and keeps greedy's choice unless an
alternative beats it by 2 paired standard errors (FB-B10).

**Question:** the bundled Empire and Orc lists (`wfb8_empire`, `wfb8_orcs`) meet with greedy
generals — who wins, and what changes when the Empire general best-responds instead?"""),
    ("code", SETUP),
    ("code", """\
# a battle walks every phase of six game turns: fewer trials than a single query
BATTLES = max(200, N_TRIALS // 100)
BR_BATTLES = max(12, N_TRIALS // 2000)  # best response: ~0.3 s a battle once its tables are built
lists = ("wfb8_empire", "wfb8_orcs")
greedy = mh.fb_battle(*lists, turns=6, n_trials=BATTLES, seed=SEED)
print(mh.headline(greedy))
print()
for line in greedy.info["decisions"].lines[:12]:  # the JSON keeps them as records
    print(line)"""),
    ("code", """\
margin = greedy.distributions["vp_margin"]
fig, axes = plt.subplots(1, 2, figsize=(13, 4.2), dpi=100)
r = greedy.results
ax = axes[0]
bars = [("Empire wins", r["p_a_wins"]), ("draw", r["p_draw"]), ("Orcs win", r["p_b_wins"])]
ax.bar([b for b, _ in bars], [100 * e.value for _, e in bars],
       yerr=[196 * e.se for _, e in bars], color=["#55A868", "#8C8C8C", "#C44E52"], capsize=4)
ax.yaxis.set_major_formatter(PercentFormatter())
ax.set_ylabel(f"share of {BATTLES:,} battles (95% interval)")
ax.set_title("greedy against greedy")
ax = axes[1]
ax.bar(margin.outcomes, 100 * margin.probs, width=max(1, (margin.max - margin.min) / 80), color="#4C72B0")
ax.axvline(0, color="black", linewidth=0.8)
ax.set_xlabel("victory points, Empire minus Orcs")
ax.set_ylabel("share of battles")
ax.yaxis.set_major_formatter(PercentFormatter())
ax.set_title(f"the margin: mean {r['mean_vp_margin'].value:+.0f} ± {r['mean_vp_margin'].se:.0f} VP")
plt.tight_layout()
plt.show()"""),
    ("md", """\
## The same battles with a best-responding Empire general

`mh.fb_battle_difference` plays both set-ups battle by battle on the same dice streams, so
the difference carries the (small) standard error of paired differences. Best response
rolls out 8 continuations per option at each charge, reaction, volley and pursuit —
hundreds of times greedy's work per battle, so fewer battles here."""),
    ("code", """\
diff = mh.fb_battle_difference(*lists, turns=6, n_trials=BR_BATTLES, seed=SEED,
                         policy_a=("best-response", "greedy"), rollouts=8)
for key, est in diff.items():
    print(f"best-response minus greedy, {key}: {est.value:+.3f} ± {est.se:.3f} (paired se)")
br = mh.fb_battle(*lists, turns=6, n_trials=4, seed=SEED, policy_a="best-response",  # its first decisions
                  rollouts=8)
first = next(f for f in br.info["first_decisions"] if f["side"] == "A")
print(f"\\nA's first decision ({first['kind']}, {first['unit']}), mean VP margin of each option:")
for option in first["options"]:
    print(f"  {option['option']}: {option['value']:+.0f} ± {option['se']:.0f}")"""),
    ("code", """\
fig, ax = plt.subplots(figsize=(7, 3.2), dpi=100)
names = [o["option"] for o in first["options"]]
ax.barh(names, [o["value"] for o in first["options"]], xerr=[1.96 * o["se"] for o in first["options"]],
        color="#4C72B0", capsize=3)
ax.axvline(0, color="black", linewidth=0.8)
ax.set_xlabel("mean VP margin for the Empire after this choice (rollouts, 95% interval)")
ax.set_title(f"best response weighs its first {first['kind']} ({first['unit']})")
plt.tight_layout()
plt.show()"""),
    ("md", """\
**Reading it:** the headline and the bars are the greedy battle; the paired difference
says what deciding by rollouts is worth on the same dice. Best response never takes an
option its rollouts do not clearly prefer, so its margin is not below greedy's beyond
noise; with a handful of battles the gain is measured loosely (its se is printed)."""),
    ("code", """\
gain = diff["mean_vp_margin"]
lead = "Empire" if r["p_a_wins"].value >= r["p_b_wins"].value else "Orcs"
answer(f"With greedy generals the {lead} win most often: Empire wins {100 * r['p_a_wins'].value:.1f}% "
       f"± {100 * r['p_a_wins'].se:.1f}, Orcs {100 * r['p_b_wins'].value:.1f}% ± {100 * r['p_b_wins'].se:.1f}, "
       f"mean margin {r['mean_vp_margin'].value:+.0f} ± {r['mean_vp_margin'].se:.0f} VP "
       f"({BATTLES:,} battles). A best-responding Empire general changes the mean margin by "
       f"{gain.value:+.0f} ± {gain.se:.0f} VP on the same dice ({BR_BATTLES:,} paired battles).")
headline_figures({"Empire wins (greedy)": r["p_a_wins"], "draw (greedy)": r["p_draw"],
                  "Orcs win (greedy)": r["p_b_wins"]})
headline_figures({"mean VP margin (greedy)": r["mean_vp_margin"],
                  "best response minus greedy, mean VP margin": (gain.value, gain.se)},
                 percent=False)"""),
]

TUNING = [
    ("md", """\
# Tuning a list on whole battles: what the search changed, and why

`mathhammer.tune` searches the changes an options file allows (here: how many Juggernauts
and Destroyers Sorscha takes; their focus and charge too, which greedy generals do not
read — WM-B11) and scores every candidate on **whole battles** against a meta: each list
of the meta is played as `wm battle`s, both generals greedy, and the objective is the
expected result P(win) + ½ P(draw) (TU-B2). Candidates face the same dice battle by
battle (common random numbers), so a change is judged by its paired difference.

**Why** a list wins is shown by each unit's *contribution*: the list minus one copy of
that unit, played on the same dice (`score(..., per_unit=True)`). Fantasy lists join
the end of this notebook: the Empire battle line tuned on `fb battle`s against the Orc
battle line (far fewer battles — a Fantasy battle takes about ten times a Warmachine one).

**Question:** what should the Khador battle box change against the Mk II battle boxes,
and which unit makes the difference?"""),
    ("code", SETUP),
    ("code", """\

# battles per meta list: the committed run uses 1,000; the tests (2,000 trials) 30
N_BATTLES = max(30, N_TRIALS // 200)
META = "mk2_battleboxes"
print(f"{N_BATTLES:,} battles per meta list")
start = mh.score("khador_battlebox", META, n_battles=N_BATTLES, seed=SEED, per_unit=True)
print(start.headline)"""),
    ("code", """\
tuned = mh.tune("khador_battlebox", "khador_battlebox", META, n_battles=N_BATTLES, seed=SEED,
                max_lists=40, top=2)
print(tuned.headline)
ranked = pd.DataFrame(list(tuned.info["ranked"]))[["rank", "changes", "points", "p_win", "p_win_se",
                                                   "vp_margin", "vp_margin_se", "gain", "gain_se"]]
ranked"""),
    ("md", """\
The search moves when a change beats the current list by 2 paired standard errors; the
table re-plays the best lists against the input at the full count. Now the *why*: each
unit's contribution to P(win) in the input list and in the best list found."""),
    ("code", """\
best_units = tuned.info["ranked"][0]["units"]
best_list = {"name": "tuned", "game": "warmachine", "ruleset": "mk2",
             "points": tuned.info["points_cap"], "units": best_units}
best = mh.score(mh.load_list(best_list), META, n_battles=N_BATTLES, seed=SEED, per_unit=True)
print(best.headline)


def contributions(report):
    rows = {}
    for key, e in report.results.items():
        if key.startswith("contribution_p_win["):
            rows[key[len("contribution_p_win["):-1]] = (e.value, e.se)
    return pd.DataFrame(rows, index=["contribution", "se"]).T


c_start, c_best = contributions(start), contributions(best)
fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), dpi=100, sharex=True)
for ax, (title, frame) in zip(axes, (("input: Khador battle box", c_start), ("best list found", c_best))):
    ax.barh(frame.index, 100 * frame["contribution"], xerr=100 * frame["se"], color="#4C72B0")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_title(title)
    ax.set_xlabel("P(win) with it minus without one copy (pp, ± 1 se)")
    ax.invert_yaxis()
plt.tight_layout()
plt.show()
print(c_start.round(3))
print(c_best.round(3))"""),
    ("md", """\
**Reading it:** a contribution is a paired difference on the same dice, so its se is
small next to the P(win) it explains. A warcaster has none: a Mk II battle side is one
battlegroup, and the list cannot fight without it (WM-B1)."""),
    ("md", """\
## Fantasy: the Empire battle line on `fb battle`s

The same search on Fantasy battles: `profiles/options/wfb8_empire_battle.toml` lets the
Empire battle line take three or four Halberdier blocks and none to two units of
Handgunners (10 or 15 models); the meta `wfb8_battle_lines` is the Orc battle line. Both
generals are greedy; each battle plays every phase `fb battle` plays (movement, shooting —
the Handgunners' handguns — charges, close combat, panic), scored in victory points. A
Fantasy battle takes about ten times a Warmachine one, so the counts here are small and the
se's wide: read a gain as resolved only when it is more than two se."""),
    ("code", """\
# Fantasy battles per meta list: 40 in the committed run, 10 in the tests
FB_BATTLES = max(10, N_TRIALS // 5000)
fb_start = mh.score("wfb8_empire_battle", "wfb8_battle_lines", n_battles=FB_BATTLES, seed=SEED)
print(fb_start.headline)
fb_tuned = mh.tune("wfb8_empire_battle", "wfb8_empire_battle", "wfb8_battle_lines",
                   n_battles=FB_BATTLES, seed=SEED, max_lists=4, top=2)
print(fb_tuned.headline)
pd.DataFrame(list(fb_tuned.info["ranked"]))[["rank", "changes", "points", "p_win", "p_win_se",
                                             "gain", "gain_se"]]"""),
    ("code", """\
top = tuned.info["ranked"][0]
strongest = c_start["contribution"].idxmax()
fb_top = fb_tuned.info["ranked"][0]
answer(f"On {N_BATTLES:,} greedy battles per meta list the Khador battle box wins "
       f"{100 * start.results['p_win'].value:.0f}% (± {100 * start.results['p_win'].se:.0f}); "
       f"the search's best change is {top['changes']} ({100 * top['gain']:+.0f} ± "
       f"{100 * top['gain_se']:.0f} pp of expected result, paired). In the input list the "
       f"{strongest} carries it: {100 * c_start.loc[strongest, 'contribution']:+.0f} ± "
       f"{100 * c_start.loc[strongest, 'se']:.0f} pp of P(win) against the list without it. "
       f"On {FB_BATTLES:,} fb battles the Empire battle line beats the Orc battle line "
       f"{100 * fb_start.results['p_win'].value:.0f}% (± {100 * fb_start.results['p_win'].se:.0f}); "
       f"its search's best list is {fb_top['changes']} ({100 * fb_top['gain']:+.0f} ± "
       f"{100 * fb_top['gain_se']:.0f} pp, paired).")
headline_figures({"P(win) of the Empire battle line (fb battle)": fb_start.results["p_win"]})
headline_figures({"P(win) of the Khador battle box": start.results["p_win"],
                  "VP margin of the Khador battle box": start.results["mean_vp_margin"],
                  **{f"contribution of {u} to P(win)": start.results[f"contribution_p_win[{u}]"]
                     for u in c_start.index}}, percent=False)"""),
]

NOTEBOOKS = {
    "01_warmachine_focus_policies.ipynb": FOCUS,
    "02_warmachine_crippling_odds.ipynb": CRIPPLE,
    "03_fantasy_matchups_and_break_odds.ipynb": FANTASY,
    "04_magic_dice_budgeting.ipynb": MAGIC,
    "05_comparing_two_army_lists.ipynb": LISTS,
    "06_tuning_a_list_on_battles.ipynb": TUNING,
    "07_fantasy_battles.ipynb": BATTLES,
}


def printed_answer(nb: nbformat.NotebookNode) -> str:
    """The text the notebook passed to ``answer()`` (its last such line)."""
    found = ""
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else ():
            for line in out.get("text", "").splitlines() if out.get("output_type") == "stream" else ():
                if line.startswith(ANSWER_MARK):
                    found = line[len(ANSWER_MARK):]
    return found


def with_answer_first(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Put the run's answer under the question in the first cell."""
    text = printed_answer(nb)
    if not text:
        raise SystemExit("the notebook printed no answer: its last cell must call answer(...)")
    first = nb.cells[0]
    question = first.source.split(f"\n\n{ANSWER_HEAD}")[0]
    first.source = (f"{question}\n\n{ANSWER_HEAD} (from the run saved below; the last cell "
                    f"computes it): {text}")
    return nb


def main(names: list[str]) -> None:
    from nbclient import NotebookClient

    for name, cells in NOTEBOOKS.items():
        if names and name not in names:
            continue
        nb = notebook(cells)
        NotebookClient(nb, timeout=3600, kernel_name="python3",
                       resources={"metadata": {"path": str(HERE)}}).execute()
        nbformat.write(with_answer_first(nb), HERE / name)
        print("wrote", name)


if __name__ == "__main__":
    main(sys.argv[1:])
