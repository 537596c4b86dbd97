"""``--explain`` for the magic commands (mathhammer.magic.explain, cli/magic.py).

The fractions an explanation shows are checked three ways: against the engine's exact
report (the float of the shown fraction is the report's value, bit for bit), against a
brute force over every face written here from docs/rules.md MG-4..MG-6 (so a wrong engine
and a matching wrong explanation cannot both pass), and for internal consistency (the
casting branches add up to P(cast), P(cast) + P(fail) = 1, the miscast rows to 1).
MG-1 (conditional decision) must appear only where a t9a1 flow is rolled.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import pytest

from mathhammer.present import render as _render
from mathhammer.explain import explanation
from mathhammer.magic.explain import (
    explain_cast, explain_dispel, explain_flow, flow_decisions,
)
from mathhammer.magic.rolls import cast_odds, dispel_probability, flow_pools, marginals
from mathhammer.magic.rules import magic_rules
from mathhammer.magic.single import cast, dispel, flow
from tests.conftest import ROOT, cli_inprocess, run_cli, run_json

T9A1_SCENARIO = str(ROOT / "profiles" / "scenarios" / "magic_t9a1_four_spells.toml")
WFB8_SCENARIO = str(ROOT / "profiles" / "scenarios" / "magic_wfb8_two_wizards.toml")
MG1 = "decision MG-1:"


def shown(lines: list[str], stage: str) -> Fraction:
    """The exact fraction printed on the line of ``stage`` (``→ 49/54 = 90.74%``)."""
    for line in lines:
        if line.startswith(stage + ":"):
            match = re.search(r"→ (\d+(?:/\d+)?) = ", line)
            assert match, line
            return Fraction(match.group(1))
    raise AssertionError(f"no {stage!r} line in {lines}")


def step(steps, stage):
    return next(s for s in steps if s.stage == stage)


# ---- brute force from docs/rules.md (independent of mathhammer.magic.rolls) -------------------------
def brute_cast(ruleset: str, n: int, level: int, cv: int, bound: bool = False) -> Fraction:
    """P(cast) over every face of n D6 (and the D3 of t9a1 overwhelming power); MG-4, 5, 7."""
    hits = Fraction(0)
    for faces in itertools.product(range(1, 7), repeat=n):
        natural, sixes = sum(faces), faces.count(6)
        p = Fraction(1, 6**n)
        if ruleset == "wfb8":
            if natural <= 2:
                continue
            hits += p if sixes >= 2 or natural + (0 if bound else level) >= cv else 0
        elif sixes >= 2 and not bound:
            hits += p * Fraction(sum(natural + level + d3 + n >= cv for d3 in (1, 2, 3)), 3)
        else:
            hits += p if natural + (0 if bound else level) >= cv else 0
    return hits


def brute_dispel(ruleset: str, n: int, level: int, against: int) -> Fraction:
    hits = Fraction(0)
    for faces in itertools.product(range(1, 7), repeat=n):
        natural, p = sum(faces), Fraction(1, 6**n)
        if ruleset == "wfb8":
            hits += p if natural > 2 and natural + level >= against else 0
        elif faces.count(6) >= 2:  # t9a1 overwhelming power on dispels (MG-5)
            hits += p * Fraction(sum(natural + level + d3 + n >= against for d3 in (1, 2, 3)), 3)
        else:
            hits += p if natural + level >= against else 0
    return hits


CASES = [("t9a1", 3, 2, 9, False), ("t9a1", 5, 1, 20, False), ("t9a1", 2, 0, 9, True),
         ("wfb8", 3, 2, 9, False), ("wfb8", 1, 0, 2, False), ("wfb8", 2, 0, 12, True)]


@pytest.mark.parametrize("ruleset,n,level,cv,bound", CASES)
def test_cast_steps_are_the_engine_and_brute_force(ruleset, n, level, cv, bound):
    """MG-4, MG-5, MG-7: P(cast) shown = cast_odds = brute force = the report's float."""
    rules = magic_rules(ruleset)
    steps = explain_cast(rules, n, level, cv, bound=bound)
    odds = cast_odds(rules, n, level, cv, 0, bound)
    p_cast = step(steps, "P(cast)").p
    assert p_cast == odds.p_cast == brute_cast(ruleset, n, level, cv, bound)
    assert step(steps, "P(fail)").p == 1 - p_cast
    branches = [s.p for s in steps if s.stage.startswith(("cast,", "cast with", "cast by"))]
    assert sum(branches) == p_cast  # plain + overwhelming / irresistible
    report = cast(n, level, cv, ruleset, bound=bound)
    assert float(p_cast) == report.results["p_cast"].value
    assert float(step(steps, "P(miscast)").p) == report.results["p_miscast"].value
    assert float(step(steps, "two or more natural 6s").p) == report.results["p_two_sixes"].value


def test_cast_example_of_the_brief():
    """t9a1, 3 dice, level 2, CV 9: need 7+ on 3D6; P(cast) = 49/54 (MG-4)."""
    lines = explanation("magic cast", explain_cast(magic_rules("t9a1"), 3, 2, 9))
    assert any("3D6 + level 2 ≥ CV 9 → need 7+ on 3D6" in line for line in lines)
    assert shown(lines, "P(cast)") == Fraction(49, 54)
    assert shown(lines, "two or more natural 6s") == Fraction(16, 216)  # 3·5 + 1 of 216
    assert not any(line.startswith(MG1) for line in lines)


@pytest.mark.parametrize("ruleset", ["t9a1", "wfb8"])
def test_miscast_rows_follow_the_2d6_table(ruleset):
    """MG-10: rows 2-4, 5-6, 7, 8-9, 10-12 of 2D6 → 6, 9, 6, 9, 6 of 36, cell by cell."""
    steps = explain_cast(magic_rules(ruleset), 3, 2, 9)
    rows = [s for s in steps if s.stage.startswith("miscast 2D6")]
    assert [s.p for s in rows] == [Fraction(k, 36) for k in (6, 9, 6, 9, 6)]
    p_miscast = step(steps, "P(miscast)").p
    for row in rows:  # "of all attempts" = P(miscast) · P(row)
        assert f"of all attempts {p_miscast * row.p}" in row.detail
    assert any(s.stage == "miscast dice" for s in steps) == (ruleset == "t9a1")


def test_bound_spell_never_miscasts_and_has_no_rows():
    for ruleset in ("t9a1", "wfb8"):
        steps = explain_cast(magic_rules(ruleset), 2, 0, 9, bound=True)
        assert step(steps, "P(miscast)").p == 0
        assert not any(s.stage.startswith("miscast 2D6") for s in steps)


@pytest.mark.parametrize("ruleset,n,level,against", [
    ("t9a1", 3, 1, 12), ("t9a1", 2, 0, 15), ("wfb8", 3, 1, 12), ("wfb8", 1, 0, 2),
    ("wfb8", 2, 0, 3)])
def test_dispel_steps_are_the_engine_and_brute_force(ruleset, n, level, against):
    """MG-6 (tie dispels; wfb8 natural 1-2 fails) and MG-5 overwhelming power on dispels."""
    rules = magic_rules(ruleset)
    steps = explain_dispel(rules, n, level, against)
    p = step(steps, "P(dispel)").p
    assert p == dispel_probability(rules, n, level, against)
    assert p == brute_dispel(ruleset, n, level, against)
    assert float(p) == dispel(n, level, against, ruleset).results["p_dispel"].value
    text = " ".join(s.line() for s in steps)
    assert "a tie dispels" in text
    assert ("cannot be dispelled at all" in text) == (ruleset == "wfb8")


def test_dispel_overwhelming_gain_is_shown():
    """t9a1, 2 dice vs 15: only 6+6 (+D3+2 = 15..17) dispels → 1/36, all of it from MG-5."""
    steps = explain_dispel(magic_rules("t9a1"), 2, 0, 15)
    assert step(steps, "P(dispel)").p == Fraction(1, 36)
    assert "it adds 1/36 to P(dispel)" in step(steps, "two or more natural 6s").detail


@pytest.mark.parametrize("ruleset", ["t9a1", "wfb8"])
def test_flow_means_are_the_report_means(ruleset):
    """MG-1..MG-3: the pmf means shown as fractions are the report's means."""
    rules = magic_rules(ruleset)
    lines = explanation("magic flow", explain_flow(rules, 2, 1), flow_decisions(ruleset))
    report = flow(ruleset, 2, 1)
    power, dispel_pmf = marginals(flow_pools(rules, 2, 1))
    for stage, key, pmf in (("power dice", "mean_power_dice", power),
                            ("dispel dice", "mean_dispel_dice", dispel_pmf)):
        line = next(x for x in lines if x.startswith(stage + ":"))
        mean = Fraction(re.search(r"mean (\d+(?:/\d+)?)", line).group(1))
        assert mean == sum(k * p for k, p in pmf.items())
        assert float(mean) == report.results[key].value
    flow_line = next(x for x in lines if x.startswith("flow roll:"))
    assert "mean 7" in flow_line and "mean 161/36" in flow_line  # 2D6 total; E[max] = 161/36
    assert (ruleset == "t9a1") == any(x.startswith(MG1) for x in lines)
    p_more = shown(lines, "more power than dispel dice")
    assert float(p_more) == report.results["p_more_power_than_dispel"].value


def test_channel_chance_per_ruleset():
    """MG-2: t9a1 D6 + 2 ≥ 7 → 5+ = 1/3; wfb8 two wizards, at least one 6 = 11/36."""
    assert step(explain_flow(magic_rules("t9a1"), 2, 0), "channel (active)").p == Fraction(1, 3)
    assert step(explain_flow(magic_rules("wfb8"), 2, 0), "channel (active)").p == Fraction(11, 36)


# ---- CLI ---------------------------------------------------------------------------------------
def test_cli_json_explain_matches_the_report():
    out = run_json("magic", "cast", "--dice", "3", "--level", "2", "--cv", "9", "--explain")
    lines = out["info"]["explain"]
    assert float(shown(lines, "P(cast)")) == out["results"]["p_cast"]["value"]
    assert float(shown(lines, "P(miscast)")) == out["results"]["p_miscast"]["value"]
    assert "rules followed: MG-4, MG-5, MG-7, MG-10 (docs/rules.md; `mathhammer rules ID`)" in lines


@pytest.mark.parametrize("args,has_mg1", [
    (("flow",), True), (("flow", "--ruleset", "wfb8"), False),
    (("cast", "--dice", "2", "--cv", "7"), False),
    (("dispel", "--dice", "2", "--against", "7"), False),
    (("optimise", WFB8_SCENARIO, "--power", "6", "--dispel", "3"), False),
])
def test_cli_mg1_only_where_it_applies(args, has_mg1):
    lines = run_json("magic", *args, "--explain")["info"]["explain"]
    assert any(x.startswith(MG1) for x in lines) == has_mg1
    assert len(lines) >= 2  # own steps, not only the generic "rules followed"


def test_cli_phase_mg1_with_a_rolled_t9a1_flow_only(tmp_path):
    out = run_json("magic", "phase", T9A1_SCENARIO, "--n-trials", "2000", "--seed", "1",
                   "--explain")
    assert any(x.startswith(MG1) for x in out["info"]["explain"])
    fixed = tmp_path / "fixed.toml"  # the same scenario with fixed pools: no flow roll
    text = open(T9A1_SCENARIO, encoding="utf-8").read()
    fixed.write_text(re.sub(r"\[flow\][^\n]*\n", "[flow]\npower_dice = 8\ndispel_dice = 5\n", text),
                     encoding="utf-8")
    out = run_json("magic", "phase", str(fixed), "--n-trials", "2000", "--seed", "1", "--explain")
    lines = out["info"]["explain"]
    assert lines[0].startswith("pools: fixed: 8 power, 5 dispel")
    assert not any(x.startswith(MG1) for x in lines)


def test_cli_table_has_an_explain_block_subprocess():
    proc = run_cli("magic", "dispel", "--dice", "3", "--level", "1", "--against", "12", "--explain")
    assert proc.returncode == 0, proc.stderr
    block = proc.stdout.split("explain:\n", 1)[1]
    assert "  P(dispel): against a dispellable casting total of 12 → 1/2 = 50.00% [MG-6]" in block


@pytest.mark.parametrize("args,report", [
    (("flow", "--channelers", "2"), lambda: flow("t9a1", 2)),
    (("cast", "--dice", "3", "--level", "2", "--cv", "9"), lambda: cast(3, 2, 9)),
    (("dispel", "--dice", "3", "--level", "1", "--against", "12"), lambda: dispel(3, 1, 12)),
])
def test_without_explain_output_is_unchanged(args, report):
    """No --explain: the table is the plain render of the library report, no info.explain."""
    proc = cli_inprocess("magic", *args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == _render.render(report(), "table")
    assert "explain:" not in proc.stdout
    assert "explain" not in run_json("magic", *args)["info"]
