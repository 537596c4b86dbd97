"""Roll-offs (DICE-6) and scatter by any dice (DICE-4, DICE-7): exact and Monte Carlo.

>>> roll_off(bonus_a=1).results["p_a_wins"].value == 21 / 31
True
>>> round(scatter("2D6", ruleset="wfb8").results["p_hit"].value, 4)   # two HIT faces of six
0.3333

* :func:`roll_off` — both players roll a D6 (plus a bonus); the higher total wins and a
  tie is rolled again (seed 001 «Кубовка»). P(A wins) = P(A higher) / (1 − P(tie)); the
  number of rolls is geometric with success 1 − P(tie).
* :func:`scatter` — the scatter die (HIT on the ruleset's ``scatter_hit_faces`` of six
  faces: the object stays put) and, on an arrow, a move of the stated dice expression in
  inches in a uniform direction (seed 001 «смещение по кубику на 2Д6»). Reports P(HIT),
  the distance moved and, with ``within``, the chance the object ends at most that many
  inches from a point ``offset`` inches from where it was placed (0: the aim point
  itself; e.g. a 3" template aimed at a model still covers it when it ends within 1.5").
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from mathhammer.dice import DiceExpr, parse_dice
from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.errors import InputError
from mathhammer.query import answer
from mathhammer.results import Distribution, Estimate, Report

BONUS_LIMIT = 100  # a roll-off bonus beyond this is a typo: ±6 already decides it
ROLLS_SHOWN = 40  # rolls distribution: the last bin is "40 or more" (P ≤ (1/6)^39)
TABLE_LIMIT = 1 << 16  # distance dice sampled by one draw over their outcomes
MAX_INCHES = 1000.0


# ---- DICE-6: roll-offs --------------------------------------------------------------------
def roll_off_counts(bonus_a: int = 0, bonus_b: int = 0) -> tuple[int, int, int]:
    """(A higher, B higher, tie) among the 36 face pairs of one round (DICE-6)."""
    win = lose = tie = 0
    for a in range(1, 7):
        for b in range(1, 7):
            diff = (a + bonus_a) - (b + bonus_b)
            win += diff > 0
            lose += diff < 0
            tie += diff == 0
    return win, lose, tie


def _check_bonus(value: int, flag: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > BONUS_LIMIT:
        raise InputError(flag, f"must be a whole number from -{BONUS_LIMIT} to {BONUS_LIMIT}",
                         value, f"use e.g. {flag} 1")
    return value


def roll_off_fractions(bonus_a: int = 0, bonus_b: int = 0) -> tuple[Fraction, Fraction, Fraction]:
    """Exact (P(A wins), P(B wins), expected number of rolls) of a roll-off (DICE-6)."""
    win, lose, tie = roll_off_counts(bonus_a, bonus_b)
    decided = 36 - tie
    return Fraction(win, decided), Fraction(lose, decided), Fraction(36, decided)


def _rolls_pmf(tie: int) -> np.ndarray:
    """P(k rolls), k = 0..ROLLS_SHOWN (index 0 unused); the last bin is 'that many or more'.

    Rows whose chance is below 1e-15 are left out (their mass, at most 1e-14, is dropped),
    so an exact table ends where anything could still happen.
    """
    q = tie / 36.0
    out = np.zeros(ROLLS_SHOWN + 1)
    for k in range(1, ROLLS_SHOWN):
        out[k] = q ** (k - 1) * (1.0 - q)
    out[ROLLS_SHOWN] = q ** (ROLLS_SHOWN - 1)
    out[out < 1e-15] = 0.0
    return out


def _roll_off_headline(report: Report) -> str:
    from mathhammer.words import figure, method_words

    r = report.results
    return (f"A wins the roll-off: {figure(r['p_a_wins'], True)} ({method_words(report)}) · "
            f"B {figure(r['p_b_wins'], True)} · {figure(r['mean_rolls'], False)} rolls on average")


def roll_off(bonus_a: int = 0, bonus_b: int = 0, *, method: str = "auto",
             config: MonteCarloConfig | None = None, check: bool = False,
             explain: bool = False) -> Report:
    """P(A wins), P(B wins) and the number of rolls of a D6 roll-off with bonuses (DICE-6)."""
    _check_bonus(bonus_a, "‹bonus_a›")
    _check_bonus(bonus_b, "‹bonus_b›")
    p_a, p_b, mean = roll_off_fractions(bonus_a, bonus_b)
    win, lose, tie = roll_off_counts(bonus_a, bonus_b)
    title = f"roll-off, A {bonus_a:+d} vs B {bonus_b:+d}"
    info = {"rule": "DICE-6: both roll a D6, higher wins, a tie is rolled again",
            "p_a_wins_fraction": str(p_a), "p_b_wins_fraction": str(p_b),
            "mean_rolls_fraction": str(mean),
            "rolls": f"a roll-off of {ROLLS_SHOWN} rolls or more is counted as {ROLLS_SHOWN}"}

    def exact() -> Report:
        results = {"p_a_wins": Estimate.exact(float(p_a)), "p_b_wins": Estimate.exact(float(p_b)),
                   "mean_rolls": Estimate.exact(float(mean))}
        return Report("roll_off", "exact", results, {"rolls": Distribution.exact(_rolls_pmf(tie))},
                      info=dict(info), title=title)

    def monte_carlo(cfg: MonteCarloConfig) -> Report:
        from mathhammer import kernels

        k = kernels.load("mathhammer.kernels.dicegames")

        def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
            wins = np.zeros(2, np.int64)
            hist = np.zeros(ROLLS_SHOWN + 1, np.int64)
            k.roll_off_trials(np.int64(bonus_a), np.int64(bonus_b), state, np.int64(n), wins, hist)
            return {"wins": wins, "rolls": hist}

        run = simulate(run_chunk, cfg, lambda t, n: t["wins"] / n)
        t, n = run.tally, run.n_trials
        rolls = Distribution.from_counts(t["rolls"])
        results = {"p_a_wins": Estimate.proportion(int(t["wins"][0]), n),
                   "p_b_wins": Estimate.proportion(int(t["wins"][1]), n),
                   "mean_rolls": rolls.mean_estimate()}
        return Report("roll_off", "mc", results, {"rolls": rolls}, n_trials=n, seed=run.seed,
                      info=dict(info), title=title)

    report = answer("roll-off", method=method, exact=exact, monte_carlo=monte_carlo,
                    config=config, check=check)
    report.headline = _roll_off_headline(report)
    if explain:
        from mathhammer.explain import Step, attach

        bonus = "".join(f", {who} {b:+d}" for who, b in (("A", bonus_a), ("B", bonus_b)) if b)
        steps = [Step("one round", f"A's D6 vs B's D6{bonus}: of 36 face pairs A is higher in "
                      f"{win}, B in {lose}, a tie in {tie} (rolled again); P(tie)",
                      Fraction(tie, 36), ("DICE-6",)),
                 Step("A wins", f"P(A higher) / (1 − P(tie)) = {win}/36 ÷ {36 - tie}/36", p_a,
                      ("DICE-6",)),
                 Step("B wins", f"{lose}/36 ÷ {36 - tie}/36", p_b, ("DICE-6",)),
                 Step("rolls", f"each round ends it with chance {36 - tie}/36: expected rolls "
                      + (f"36/{36 - tie}" if str(mean) == f"36/{36 - tie}"
                         else f"36/{36 - tie} = {mean}")
                      + f" ({float(mean):.4f})", None, ("DICE-6",))]
        attach(report, steps)
    return report


# ---- DICE-7: scatter by any dice ----------------------------------------------------------
def _distance_expr(distance: str | DiceExpr) -> DiceExpr:
    expr = parse_dice(distance) if isinstance(distance, str) else distance
    if expr.min < 0:
        raise InputError("DISTANCE", "a scatter distance cannot be negative", str(expr),
                         'use dice text whose smallest total is 0 or more, e.g. "2D6"')
    if expr.max > MAX_INCHES:
        raise InputError("DISTANCE", f"a scatter of more than {MAX_INCHES:g} inches leaves any "
                         "table", str(expr), 'use e.g. "2D6" or "D6*2"')
    return expr


def _hit_faces(ruleset: str | None, hit_faces: int | None) -> tuple[int, str]:
    if hit_faces is not None:
        if isinstance(hit_faces, bool) or not isinstance(hit_faces, int) or not 0 <= hit_faces <= 6:
            raise InputError("‹hit_faces›", "must be 0..6 faces of the scatter die", hit_faces,
                             "use ‹hit_faces› 2 (two HITs, four arrows)")
        return hit_faces, f"‹hit_faces› {hit_faces}"
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    rules = load_ruleset(ruleset or "wfb8")
    return rules.scatter_hit_faces, rules.name


def _check_geometry(within: float | None, offset: float) -> None:
    for flag, value in (("‹from_inches›", within), ("‹target_offset›", offset)):
        if value is not None and not (math.isfinite(value) and 0.0 <= value <= MAX_INCHES):
            raise InputError(flag, f"must be a distance in inches from 0 to {MAX_INCHES:g}", value,
                             f"use e.g. {flag} 3")


def direction_share(moved: float, offset: float, within: float) -> float:
    """Share of the directions (uniform) that leave an object moved ``moved`` inches within
    ``within`` of a point ``offset`` inches from where it started (law of cosines)."""
    if moved == 0.0 or offset == 0.0:  # no direction matters: the end point is |moved - offset|
        return 1.0 if max(moved, offset) <= within + 1e-12 else 0.0
    x = (moved * moved + offset * offset - within * within) / (2.0 * moved * offset)
    if x <= -1.0:
        return 1.0
    if x >= 1.0:
        return 0.0
    return math.acos(x) / math.pi


def _scatter_exact(expr: DiceExpr, faces: int, within: float | None, offset: float
                   ) -> tuple[Fraction, dict[int, Fraction], float | None]:
    p_hit = Fraction(faces, 6)
    dist: dict[int, Fraction] = {0: p_hit} if p_hit else {}
    for k, p in expr.pmf().items():
        dist[k] = dist.get(k, Fraction(0)) + (1 - p_hit) * p
    p_within = None
    if within is not None:
        p_within = float(p_hit) * float(offset <= within)
        p_within += sum(float((1 - p_hit) * p) * direction_share(float(k), offset, within)
                        for k, p in expr.pmf().items())
    return p_hit, dist, p_within


def _scatter_headline(report: Report, expr: DiceExpr, source: str, within: float | None,
                      offset: float) -> str:
    from mathhammer.words import figure, method_words

    r = report.results
    text = (f"Scatter {expr} ({source}): HIT {figure(r['p_hit'], True)} ({method_words(report)})"
            f" · moves {figure(r['mean_distance'], False)} in on average")
    if within is not None:
        where = "of the aim point" if offset == 0 else f"of a point {offset:g} in from the aim"
        text += f" · ends within {within:g} in {where}: {figure(r['p_within'], True)}"
    return text


def scatter(distance: str | DiceExpr = "2D6", *, ruleset: str | None = None,
            hit_faces: int | None = None, within: float | None = None, offset: float = 0.0,
            method: str = "auto", config: MonteCarloConfig | None = None, check: bool = False,
            explain: bool = False) -> Report:
    """Scatter by ``distance`` dice with the ruleset's scatter die (DICE-4, DICE-7).

    Results ``p_hit`` (the scatter die shows HIT: no move), ``mean_distance``, and with
    ``within`` ``p_within`` (ends at most ``within`` inches from the point ``offset``
    inches from the aim point); distribution ``distance`` (inches moved, 0 on a HIT).
    """
    expr = _distance_expr(distance)
    faces, source = _hit_faces(ruleset, hit_faces)
    _check_geometry(within, offset)
    if offset and within is None:
        raise InputError("‹target_offset›", "needs ‹from_inches› (the distance to end within)",
                         offset, "add e.g. ‹from_inches› 1.5")
    p_hit, dist_pmf, p_within = _scatter_exact(expr, faces, within, offset)
    title = f"scatter {expr} ({source}: {faces} HIT face(s) of 6)"
    info = {"rule": "DICE-7: the scatter die, then the dice in inches on an arrow (DICE-4)",
            "p_hit_fraction": str(p_hit), "hit_faces": faces}
    if within is not None:
        info["within"] = (f"{within:g} in of the aim point" if offset == 0
                          else f"{within:g} in of a point {offset:g} in from the aim point")

    def results_of(dist: Distribution, p_hit_est: Estimate, within_est: Estimate | None) -> dict:
        out = {"p_hit": p_hit_est, "mean_distance": dist.mean_estimate()}
        if within_est is not None:
            out["p_within"] = within_est
        return out

    def exact() -> Report:
        dist = Distribution.from_mapping({k: float(p) for k, p in dist_pmf.items()})
        return Report("scatter", "exact", results_of(dist, Estimate.exact(float(p_hit)),
                      None if p_within is None else Estimate.exact(p_within)),
                      {"distance": dist}, info=dict(info), title=title)

    def monte_carlo(cfg: MonteCarloConfig) -> Report:
        from mathhammer import kernels

        if expr.outcome_count > TABLE_LIMIT:
            raise InputError("DISTANCE", f"has more than {TABLE_LIMIT} outcomes for the "
                             "scatter kernel", str(expr), "use ‹method› exact or fewer dice")
        table = expr.sampler().table
        k = kernels.load("mathhammer.kernels.dicegames")
        radius = -1.0 if within is None else float(within)

        def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
            counters = np.zeros(3, np.int64)
            hist = np.zeros(expr.max + 1, np.int64)
            k.scatter_trials(np.int64(faces), table, radius, float(offset), state, np.int64(n),
                             counters, hist)
            return {"counters": counters, "distance": hist}

        run = simulate(run_chunk, cfg, lambda t, n: t["counters"][:2] / n)
        t, n = run.tally, run.n_trials
        dist = Distribution.from_counts(t["distance"])
        within_est = None if within is None else Estimate.proportion(int(t["counters"][1]), n)
        return Report("scatter", "mc", results_of(dist, Estimate.proportion(
            int(t["counters"][0]), n), within_est), {"distance": dist}, n_trials=n,
            seed=run.seed, info=dict(info), title=title)

    report = answer("scatter", method=method, exact=exact, monte_carlo=monte_carlo, config=config,
                    check=check)
    report.headline = _scatter_headline(report, expr, source, within, offset)
    if explain:
        from mathhammer.explain import attach

        attach(report, explain_scatter(expr, faces, source, within, offset, p_within))
    return report


def explain_scatter(expr: DiceExpr, faces: int, source: str, within: float | None,
                    offset: float, p_within: float | None) -> list:
    from mathhammer.explain import Step

    p_hit = Fraction(faces, 6)
    steps = [Step("scatter die", f"{faces} HIT face(s) of 6 ({source}): the object stays where "
                  "it was placed; P(HIT)", p_hit, ("DICE-4", "DICE-7")),
             Step("distance", f"otherwise it moves {expr} inches (mean {expr.exact_mean}) in a "
                  "uniform direction", 1 - p_hit, ("DICE-7",))]
    mean = (1 - p_hit) * expr.exact_mean
    steps.append(Step("mean distance", f"(1 − P(HIT)) × {expr.exact_mean} = {mean} "
                      f"({float(mean):.4f}) inches", None, ("DICE-7",)))
    if within is not None:
        if offset == 0:
            inside = expr.probability_at_most(math.floor(within + 1e-12))
            steps.append(Step("ends within", f"HIT, or a move of at most {within:g} in: "
                              f"P(HIT) + (1 − P(HIT)) × P({expr} ≤ {within:g})",
                              p_hit + (1 - p_hit) * inside, ("DICE-7",)))
        else:
            steps.append(Step("ends within", f"of a point {offset:g} in from the aim: for a move "
                              f"of d in the share of directions with d² + {offset:g}² − 2·d·"
                              f"{offset:g}·cos θ ≤ {within:g}² is arccos(·)/π; summed over d: "
                              f"{p_within:.6f} (irrational, no fraction)", None, ("DICE-7",)))
    return steps
