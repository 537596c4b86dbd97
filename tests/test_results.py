"""Estimate, Distribution and Report: errors by hand formula, tails, percentiles, output."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mathhammer.results import Z95, Distribution, Estimate, Report, wilson_interval


def hand_wilson(x: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson (1927) score interval, written from the textbook form in counts."""
    centre = (x + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(x * (n - x) / n + z * z / 4)
    return centre - half, centre + half


def test_z95_is_the_normal_quantile():
    from tests.stats import normal_ppf

    assert Z95 == pytest.approx(normal_ppf(0.975), abs=1e-12)


@pytest.mark.parametrize("x, n", [(0, 10), (1, 10), (5, 10), (10, 10), (583, 1000),
                                  (116_667, 200_000), (3, 10**9)])
def test_proportion_se_and_wilson_vs_hand_formula(x, n):
    est = Estimate.proportion(x, n)
    p = x / n
    assert est.value == pytest.approx(p, abs=1e-15)
    assert est.se == pytest.approx(math.sqrt(p * (1 - p) / n), abs=1e-15)
    lo, hi = hand_wilson(x, n)
    assert est.ci95[0] == pytest.approx(max(lo, 0.0), abs=1e-12)
    assert est.ci95[1] == pytest.approx(min(hi, 1.0), abs=1e-12)
    assert est.ci95[0] <= est.value <= est.ci95[1] and est.n_trials == n
    assert not est.is_exact


def test_wilson_interval_edge_cases():
    assert wilson_interval(0.5, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(0.0, 100)
    assert lo == 0.0 and 0.03 < hi < 0.04  # the "rule of three" ballpark


def test_mean_estimate_vs_numpy():
    rng = np.random.default_rng(0)
    x = rng.integers(1, 7, size=1000) + rng.integers(1, 7, size=1000)
    est = Estimate.mean(float(x.sum()), float((x * x).sum()), len(x))
    assert est.value == pytest.approx(x.mean())
    assert est.se == pytest.approx(x.std() / math.sqrt(len(x)))
    assert est.ci95 == pytest.approx((x.mean() - Z95 * est.se, x.mean() + Z95 * est.se))


def test_exact_estimate():
    est = Estimate.exact(21 / 36)
    assert est.se == 0.0 and est.ci95 == (21 / 36, 21 / 36) and est.is_exact
    assert est.to_dict() == {"value": 21 / 36, "se": 0.0, "ci95": [21 / 36, 21 / 36]}
    assert Estimate.exact(-1e-17).value == 0.0  # float noise never prints as -0
    assert est.z_against(21 / 36) == 0.0


def test_z_against():
    est = Estimate.proportion(550, 1000)
    assert est.z_against(0.5) == pytest.approx(0.05 / math.sqrt(0.55 * 0.45 / 1000))


def test_estimate_format():
    assert format(Estimate.exact(0.25), "%") == "25.00%"
    text = Estimate.proportion(250, 1000).format(percent=True)
    assert text.startswith("25.00% ± 1.37%") and "[" in text


# ---------------------------------------------------------------------------------
# Distribution

TWO_D6 = [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]


def test_exact_distribution_of_2d6():
    d = Distribution.exact(np.array(TWO_D6) / 36, offset=2)
    assert (d.min, d.max, d.is_exact) == (2, 12, True)
    assert d.mean == pytest.approx(7.0) and d.variance == pytest.approx(35 / 6)
    assert d.sd == pytest.approx(math.sqrt(35 / 6)) and d.mean_se == 0.0
    assert d.p_at_least(10).value == pytest.approx(6 / 36)
    assert d.p_at_most(4).value == pytest.approx(6 / 36)
    assert d.p_eq(7).value == pytest.approx(6 / 36)
    assert d.p_at_least(2).value == 1.0 and d.p_at_least(13).value == 0.0
    assert d.p_at_most(1).value == 0.0 and d.p_at_most(99).value == 1.0
    assert d.percentile(0.5) == 7 and d.percentile(0.0) == 2 and d.percentile(1.0) == 12
    assert d.percentile(1 / 36) == 2 and d.percentile(1 / 36 + 1e-9) == 3
    assert d.percentile(0.9) == 10  # P(≤9) = 30/36 < 0.9 ≤ P(≤10) = 33/36
    assert np.allclose(d.at_least_curve(), np.cumsum(TWO_D6[::-1])[::-1] / 36)
    assert np.allclose(d.at_most_curve(), np.cumsum(TWO_D6) / 36)
    assert d.pmf[7] == pytest.approx(1 / 6) and not d.se.any()


def test_distribution_trims_zero_tails_and_normalises():
    d = Distribution.exact([0, 0, 2, 2, 0], offset=-1)
    assert (d.min, d.max) == (1, 2) and np.allclose(d.probs, [0.5, 0.5])
    m = Distribution.from_mapping({3: 0.25, 1: 0.75})
    assert (m.min, m.max) == (1, 3) and m.pmf == {1: 0.75, 2: 0.0, 3: 0.25}


def test_monte_carlo_distribution_errors():
    counts = np.array([0, 10, 30, 60, 0])
    d = Distribution.from_counts(counts, offset=5)
    assert (d.min, d.max, d.n_trials) == (6, 8, 100)
    assert np.allclose(d.se, np.sqrt(np.array([0.1, 0.3, 0.6]) * [0.9, 0.7, 0.4] / 100))
    assert d.mean == pytest.approx(7.5)
    assert d.mean_se == pytest.approx(d.sd / 10)
    est = d.p_at_least(7)
    assert (est.value, est.n_trials) == (0.9, 100)
    assert est.se == pytest.approx(math.sqrt(0.09 / 100))
    me = d.mean_estimate()
    assert me.se == pytest.approx(d.mean_se) and not me.is_exact
    with pytest.raises(ValueError):
        Distribution.from_counts(np.zeros(3))


def test_max_abs_z():
    exact = Distribution.exact([0.5, 0.5], offset=0)
    mc = Distribution.from_counts(np.array([60, 40]), offset=0)
    assert mc.max_abs_z(exact) == pytest.approx(0.1 / math.sqrt(0.25 / 100))
    impossible = Distribution.from_counts(np.array([50, 49, 1]), offset=0)
    assert impossible.max_abs_z(exact) > 1e6  # an outcome the exact pmf forbids
    with pytest.raises(ValueError):
        exact.max_abs_z(exact)


def test_to_frame_and_html():
    d = Distribution.from_counts(np.array([1, 2, 3, 4]), offset=1)
    frame = d.to_frame()
    assert list(frame.columns) == ["p_eq", "p_eq_se", "p_at_least", "p_at_most"]
    assert list(frame.index) == [1, 2, 3, 4] and frame.index.name == "outcome"
    assert frame.loc[3, "p_at_least"] == pytest.approx(0.7)
    assert frame.loc[3, "p_at_most"] == pytest.approx(0.6)
    html = d._repr_html_()
    assert "<table" in html and "n_trials 10" in html and "±" in html
    assert "exact" in Distribution.exact([1.0], 4)._repr_html_()


def test_plot_writes_a_figure(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    d = Distribution.from_counts(np.array([5, 10, 20, 10, 5]), offset=2)
    ax = d.plot(title="test")
    assert ax.get_ylabel() == "probability"
    assert "test" in ax.get_title() and "Monte Carlo" in ax.get_title()
    assert len(ax.patches) == 5  # one bar per outcome
    out = tmp_path / "d.png"
    ax.figure.savefig(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------------
# Report: the JSON contract


def test_report_json_contract():
    d = Distribution.from_counts(np.array([1, 3]), offset=2)
    r = Report("roll", "mc", {"p": Estimate.proportion(3, 4)}, {"roll": d}, n_trials=4, seed=9,
               info={"policy": np.int64(3), "nested": {"x": np.float64(0.5)}})
    out = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert set(out) == {"command", "method", "n_trials", "seed", "results", "distributions",
                        "info"}
    assert out["results"]["p"]["value"] == 0.75 and len(out["results"]["p"]["ci95"]) == 2
    assert out["distributions"]["roll"]["pmf"] == {"2": 0.25, "3": 0.75}
    assert set(out["distributions"]["roll"]) == {"pmf", "se", "mean", "mean_se"}
    assert out["info"] == {"policy": 3, "nested": {"x": 0.5}}
    assert r["p"].value == 0.75 and r["roll"] is d
    assert "Monte Carlo" in r._repr_html_() and list(r.to_frame().columns) == [
        "value", "se", "ci95_lo", "ci95_hi"]
    exact = Report("roll", "exact", {"m": Estimate.exact(7.0)})
    assert "info" not in exact.to_dict() and "exact" in exact._repr_html_()
