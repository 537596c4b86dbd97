"""The answer of ``wm battle``: who wins, how, and when (issue 31 part 5).

Results (JSON ``results``): ``p_a_wins``, ``p_draw`` (undecided), ``p_b_wins``;
``p_caster_kill`` and ``mean_kill_turn`` (given a kill); ``p_first_player_wins``;
``p_a_caster_dead`` / ``p_b_caster_dead`` and per model ``p_destroyed_<a|b>_<model>`` by the
end. Distribution ``kill_turn``: the round of the caster kill, given one. ``info["by turn"]``
gives, round by round, P(each warcaster dead), each model destroyed and crippled (alive with a
crippled system); then each side's first-turn plan, the choices made turn by turn, the
options a best-responding side weighed at its first turn with their values ± se, and what
the battle does not play.
"""

from __future__ import annotations

import re

import numpy as np

from mathhammer.results import Distribution, Estimate, Report
from mathhammer.words import plural, wins_apart

NOT_PLAYED = (
    "terrain, line of sight, facing, back strikes; bases do not block movement; warcasters "
    "do not run (WM-B1, WM-B6); upkeep, buff and movement spells (Arcane Shield, Blur, Fog of "
    "War …), shaking knock-down, healing (WM-B4, WM-B9)",
    "Disruption, continuous effects (Fire, Corrosion), arc nodes, Set Defense, Shadow Bind, "
    "slams moving the model hit (each profile's effects say what they leave out, WM-E1)",
)


def slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def _p(count: int, n: int) -> Estimate:
    return Estimate.proportion(int(count), int(n))


def _pct(est: Estimate) -> str:
    return f"{100 * est.value:.1f}% ± {100 * est.se:.1f}"


def build_report(battle, spec, tally, seed: int, names: tuple[str, str]) -> Report:
    n = tally.n
    turns = battle.turns
    results: dict[str, Estimate] = {
        "p_a_wins": _p(tally.wins[0], n), "p_draw": _p(tally.wins[2], n),
        "p_b_wins": _p(tally.wins[1], n)}
    kills = int(tally.caster_dead[0, -1] + tally.caster_dead[1, -1])
    results["p_caster_kill"] = _p(kills, n)
    if kills:
        results["mean_kill_turn"] = Estimate.mean(float(tally.kill_rounds[0]),
                                                  float(tally.kill_rounds[1]), kills)
    results["p_first_player_wins"] = _p(tally.first_wins[0], n)
    results["p_a_caster_dead"] = _p(tally.caster_dead[0, -1], n)
    results["p_b_caster_dead"] = _p(tally.caster_dead[1, -1], n)
    for i, m in enumerate(battle.models):
        if not m.is_caster:
            results[f"p_destroyed_{'ab'[m.side]}_{slug(m.label)}"] = _p(tally.destroyed[i, -1], n)
    per_round = np.diff(np.concatenate([[0], tally.caster_dead.sum(axis=0)])).astype(np.int64)
    dists = {}
    if kills:  # the round of the kill, given one
        dists["kill_turn"] = Distribution.from_counts(per_round, offset=1)
    else:
        info_note = "kill_turn: no caster kill in any battle"
    info = _info(battle, spec, tally, results, names)
    if not kills:
        info["empty_distributions"] = [info_note]
    report = Report("warmachine.battle", "mc", results, dists, n_trials=n, seed=seed, info=info,
                    title=f"wm battle: {names[0]} (A) vs {names[1]} (B), {plural(turns, 'round')}")
    report.headline = headline(report, names, turns)
    return report


def headline(report: Report, names: tuple[str, str], turns: int) -> str:
    r = report.results
    a, b, d = r["p_a_wins"], r["p_b_wins"], r["p_draw"]
    won = [f"{100 * x.value:.1f}% ± {100 * x.se:.1f}" for x in (a, b)]
    if a.value == b.value:
        lead, other = f"{names[0]} and {names[1]} are even: each wins {won[0]}", ""
    elif not wins_apart(a.value, b.value, report.n_trials):  # "beats" only past the noise
        lead = (f"{names[0]} and {names[1]} are level within the noise: {names[0]} wins "
                f"{won[0]}, {names[1]} {won[1]}")
        other = ""
    elif a.value > b.value:
        lead = f"{names[0]} beats {names[1]} {won[0]}"
        other = f"{names[1]} wins {100 * b.value:.1f}%, "
    else:
        lead = f"{names[1]} beats {names[0]} {won[1]}"
        other = f"{names[0]} wins {100 * a.value:.1f}%, "
    kill = r["p_caster_kill"]
    text = (f"{lead} — caster kill by turn {turns} in {100 * kill.value:.1f}%"
            f" ({other}undecided {100 * d.value:.1f}%)")
    n = report.n_trials
    return text + f" (Monte Carlo, {plural(n, 'battle')}, seed {report.seed})"


def _info(battle, spec, tally, results, names) -> dict:
    n = tally.n
    info: dict = {}
    sides = []
    for s, side in enumerate(battle.sides):
        who = ", ".join(battle.models[m].label for m in side.members)
        policy = (spec.policy_a, spec.policy_b)[s]
        if policy == "best-response":  # as fb battle says it
            policy += f" ({spec.rollouts} rollouts per option" + (
                f", {spec.iterations} iterations)" if spec.iterations > 1 else ")")
        sides.append(f"{'AB'[s]}: {names[s]} ({who}); policy {policy}")
    info["sides"] = sides
    first = {"a": "A always goes first", "b": "B always goes first"}.get(
        spec.first, f"rolled off: A first in {100 * tally.first[0] / n:.1f}% of battles")
    info["first player"] = (f"{first}; the first player wins "
                            f"{_pct(results['p_first_player_wins'])}")
    info["deployment"] = (f"file {spec.deployment}" if spec.deployment else
                          "default: warjack lines 20\" apart, warcasters 4\" behind (WM-B1)")
    lines = []
    for t in range(battle.turns):
        a = _p(tally.caster_dead[0, t], n)
        b = _p(tally.caster_dead[1, t], n)
        lost, hurt = [], []
        for i, m in enumerate(battle.models):
            if m.is_caster:
                continue
            tag = f"{'AB'[m.side]} {m.label}"
            lost.append(f"{tag} {100 * tally.destroyed[i, t] / n:.1f}%")
            if not m.grid.is_track:
                hurt.append(f"{tag} {100 * tally.crippled[i, t] / n:.1f}%")
        lines.append(f"turn {t + 1}: warcaster dead A {_pct(a)}, B {_pct(b)}; destroyed "
                     f"{', '.join(lost) or 'none'}; crippled {', '.join(hurt) or 'none'}")
    info["by turn"] = lines
    plans = []
    for s in (0, 1):
        total = sum(tally.plans[s].values())
        if total:
            text, count = tally.plans[s].most_common(1)[0]
            others = len(tally.plans[s]) - 1
            plans.append(f"{'AB'[s]} ({100 * count / total:.1f}% of battles"
                         + (f"; {others} other plan{'s' * (others > 1)}" if others else "")
                         + f"): {text}")
    info["first-turn plans"] = plans
    info["choices by turn (where there was a choice)"] = _choice_lines(battle, tally)
    if tally.decisions:
        info["decisions at the first turn"] = _decision_lines(tally, spec.rollouts)
        info["decision values"] = ("P(win) + half P(undecided) of each option when the rest of "
                                   "the battle — this turn's later choices included — is played "
                                   "by the continuation policies (greedy, or the opponent's own)")
    info["rules"] = ("WM-B1..WM-B13 (mathhammer rules WM-B): movement, charges, free strikes, "
                     "feats, the caster kill and the points end as stated there")
    info["not_played"] = list(NOT_PLAYED)
    return info


def _choice_lines(battle, tally) -> list[str]:
    """What each side chose, turn by turn: posture, feat and focus shares (WM-B11)."""
    lines = []
    for side in (0, 1):
        for kind in ("posture", "feat", "focus"):
            per_turn = []
            for t in range(1, battle.turns + 1):
                rows = {opt: c for (s, r, k, opt), c in tally.choices.items()
                        if s == side and r == t and k == kind}
                total = sum(rows.values())
                if not total:
                    continue
                shares = ", ".join(f"{opt} {100 * c / total:.0f}%" for opt, c in
                                   sorted(rows.items(), key=lambda kv: -kv[1]))
                per_turn.append(f"t{t} {shares}")
            if per_turn:
                lines.append(f"{'AB'[side]} {kind}: " + "; ".join(per_turn))
    return lines


def _decision_lines(tally, rollouts: int) -> list[str]:
    """Each option a best-responding side weighed at its first turn: its value (P(win) +
    half P(undecided)) ± se over every rollout of the battles where the choice came up
    (common random numbers: the options of one choice were played with the same dice)."""
    lines = []
    order = {"posture": 0, "feat": 1, "focus": 2}
    for key in sorted(tally.decisions, key=lambda k: (k[0], k[1], order.get(k[2], 3))):
        side, h, kind = key
        rows = tally.decisions[key]
        parts = []
        for option, (total, sq, count) in sorted(rows.items(),
                                                 key=lambda kv: -kv[1][0] / kv[1][2]):
            mean = total / count / 2.0  # half points
            var = max(sq / count / 4.0 - mean * mean, 0.0)
            se = (var / (count - 1)) ** 0.5 if count > 1 else float("nan")
            parts.append(f"{option} {100 * mean:.1f}% ± {100 * se:.1f}")
        battles = max(c for _, _, c in rows.values()) // max(rollouts, 1)
        many = f"{battles:,} battle{'s' * (battles != 1)} × {rollouts} rollouts"
        when = "moving first" if h == 0 else "moving second"
        lines.append(f"{'AB'[side]} {when}, {kind} ({many}): " + " · ".join(parts))
    return lines
