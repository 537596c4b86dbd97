"""Every probability the tool prints lies in [0, 1] (issue 28 item 4).

One place clips: :class:`mathhammer.results.Results`, the dict a report's results live in.
Each ``p_*`` estimate going in has its value and 95% interval clipped to [0, 1]; float
noise only (1e-9): a value further out is an engine bug and raises. The CLI table, the
JSON, the web page and the library all read that dict. The harness's ``assert_clean``
checks every ``p_*`` of every JSON output the fuzz suites produce; the property test
here draws valid random questions of the probability commands, exact and Monte Carlo.
"""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathhammer.results import (
    PROBABILITY_NOISE, Estimate, ImpossibleProbability, Report, Results,
)
from tests.test_json_keys import bad_probability_keys
from tests.test_reliability_harness import DERANDOMIZE, assert_clean, run_inprocess


# --------------------------------------------------------------------------- the one place
def test_float_noise_past_one_is_clipped_in_every_view():
    """The reported case: an exact sum over many grid states printed 1.000000000000012."""
    report = Report("wm duel", "exact", {"p_crippled_C": Estimate.exact(1.000000000000012),
                                         "mean_damage": Estimate.exact(1.000000000000012)})
    assert report.results["p_crippled_C"].value == 1.0
    assert report.results["p_crippled_C"].ci95 == (1.0, 1.0)
    assert report.results["mean_damage"].value == 1.000000000000012  # not a probability
    data = report.to_dict()
    assert data["results"]["p_crippled_C"] == {"value": 1.0, "se": 0.0, "ci95": [1.0, 1.0]}
    assert report.to_frame().loc["p_crippled_C", "value"] == 1.0


def test_a_result_added_after_the_report_is_built_is_clipped_too():
    report = Report("x", "exact")
    report.results["p_a"] = Estimate.exact(-3e-16)
    report.results.update({"p_b": Estimate.exact(1 + 1e-12)})
    report.results.setdefault("p_c", Estimate.exact(1 + 1e-12))
    report.results |= {"p_d": Estimate.exact(1 + 1e-12)}
    report.results = {"p_e": Estimate.exact(1 + 1e-12), **report.results}
    assert {k: e.value for k, e in report.results.items()} == {
        "p_e": 1.0, "p_a": 0.0, "p_b": 1.0, "p_c": 1.0, "p_d": 1.0}


def test_a_normal_interval_of_a_rare_event_is_clipped_at_zero():
    """value ± 1.96 se reaches below 0 for a rare event: an interval of a probability cannot."""
    est = Estimate(0.001, 0.002, (0.001 - 0.00392, 0.001 + 0.00392), 1000)
    clipped = Report("x", "mc", {"p_kill[a vs b]": est}).results["p_kill[a vs b]"]
    assert clipped.ci95 == (0.0, 0.001 + 0.00392)
    assert (clipped.value, clipped.se, clipped.n_trials) == (0.001, 0.002, 1000)


@pytest.mark.parametrize("value", [1 + 10 * PROBABILITY_NOISE, -10 * PROBABILITY_NOISE, 1.3, 2.0])
def test_more_than_float_noise_outside_is_a_bug_that_raises(value):
    with pytest.raises(ImpossibleProbability, match="p_kill"):
        Report("x", "exact", {"p_kill": Estimate.exact(value)})
    report = Report("x", "exact")
    with pytest.raises(ImpossibleProbability):
        report.results["p_kill"] = Estimate.exact(value)


def test_undefined_probabilities_stay_undefined():
    est = Estimate.exact(float("nan"))
    assert Report("x", "exact", {"p_x": est}).results["p_x"] is est


def test_results_survive_pickling_with_their_renames():
    from mathhammer.magic.single import cast

    report = pickle.loads(pickle.dumps(cast(3, 2, 9, "t9a1")))
    assert isinstance(report.results, Results)
    with pytest.raises(KeyError, match="renamed"):
        report.results["p_irresistible"]


def test_the_harness_rejects_a_probability_outside_the_unit_interval():
    """``assert_clean`` can fail: a JSON p_* of 1.000000000000012 is caught."""
    bad = json.dumps({"results": {"p_crippled_C": {"value": 1.000000000000012, "se": 0.0,
                                                   "ci95": [1.0, 1.0]}}, "distributions": {}})
    with pytest.raises(AssertionError, match="p_crippled_C"):
        assert_clean(["wm", "duel"], 0, bad, "", "wm duel")
    assert_clean(["wm", "duel"], 0, bad.replace("1.000000000000012", "1.0"), "", "wm duel")


# --------------------------------------------------------------------------- every command
stat = st.integers(0, 12)
target = st.integers(1, 25)
dice_text = st.sampled_from(["D6", "2D6", "D3", "3D6", "D6+1", "2D3", "1"])


@st.composite
def questions(draw) -> list[str]:
    """A valid question of one of the commands that answer probabilities."""
    kind = draw(st.sampled_from(["roll", "wm attack", "wm aoe", "fb attack", "fb shoot",
                                 "magic cast", "magic dispel"]))
    if kind == "roll":
        argv = ["roll", draw(dice_text), "--at-least", str(draw(st.integers(0, 20)))]
    elif kind in ("wm attack", "wm aoe"):
        argv = [*kind.split(), "--stat", str(draw(stat)), "--defense", str(draw(target)),
                "--power", str(draw(st.integers(0, 20))), "--armor", str(draw(target))]
        argv += ["--range", str(draw(st.integers(1, 10)))] if kind == "wm aoe" else \
            ["--boxes", str(draw(st.integers(1, 30))), "--attacks", str(draw(st.integers(1, 4)))]
    elif kind == "fb attack":
        argv = ["fb", "attack", "--attacks", str(draw(st.integers(1, 30))),
                "--ws", str(draw(st.integers(1, 10))), "--target-ws", str(draw(st.integers(1, 10))),
                "--strength", str(draw(st.integers(1, 10))),
                "--toughness", str(draw(st.integers(1, 10))),
                "--save", str(draw(st.integers(1, 7)))]
    elif kind == "fb shoot":
        argv = ["fb", "shoot", "--shots", str(draw(st.integers(1, 30))),
                "--bs", str(draw(st.integers(1, 10))), "--strength", str(draw(st.integers(1, 10))),
                "--toughness", str(draw(st.integers(1, 10)))]
    elif kind == "magic cast":
        argv = ["magic", "cast", "--dice", str(draw(st.integers(1, 6))),
                "--cv", str(draw(st.integers(2, 30)))]
    else:
        argv = ["magic", "dispel", "--dice", str(draw(st.integers(1, 6))),
                "--against", str(draw(st.integers(2, 30)))]
    method = draw(st.sampled_from([["--method", "exact"],
                                   ["--method", "mc", "--n-trials", "500", "--seed", "2", "-q"]]))
    return argv + method + ["--format", "json"]


@settings(max_examples=25, deadline=None, derandomize=DERANDOMIZE, database=None,
          suppress_health_check=list(HealthCheck))
@given(argv=questions())
def test_every_probability_printed_lies_in_the_unit_interval(argv):
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err, " ".join(argv[:2]))  # checks every p_* of the JSON
    if code == 0:
        assert not bad_probability_keys(json.loads(out))
