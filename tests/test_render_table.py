"""The table view (issue 15): results before distributions, rare outcomes folded, --full."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mathhammer.cli import main
from mathhammer.present.render import FOLD_BELOW, fold_rows, render_table
from mathhammer.results import Distribution, Estimate, Report


def run(capsys, *argv):
    with pytest.raises(SystemExit) as done:
        main(list(argv))
    out = capsys.readouterr()
    return done.value.code, out.out


def test_rare_tails_fold_into_at_most_and_at_least_rows():
    probs = [0.0001, 0.0002, 0.3, 0.0, 0.0, 0.0001, 0.4, 0.2996, 0.0, 0.0003]
    dist = Distribution.exact(probs, offset=10)
    rows = fold_rows(dist)
    assert [r[0] for r in rows] == ["≤ 11", "12", "13–15", "16", "17", "≥ 18"]
    total = sum(float(dist.probs[a : b + 1].sum()) for _, a, b in rows)
    assert total == pytest.approx(1.0)  # every outcome is in exactly one row


def test_a_lone_rare_outcome_inside_stays_a_row():
    dist = Distribution.exact([0.5, 0.0001, 0.4999], offset=0)
    assert [r[0] for r in fold_rows(dist)] == ["0", "1", "2"]


def test_very_wide_distributions_merge_into_ranges():
    dist = Distribution.exact(np.ones(1000), offset=1)  # every outcome 0.1%
    rows = fold_rows(dist, max_rows=40)
    assert len(rows) <= 40 and rows[0][0] == "1–25" and rows[-1][0] == "976–1000"


def test_table_keeps_p_at_least_and_folds_below_the_threshold(capsys):
    code, out = run(capsys, "wm", "attack", "--stat", "7", "--defense", "12", "--power", "18",
                    "--armor", "18", "--attacks", "3", "--charge", "--boxes", "15")
    assert code == 0
    rows = [line.split() for line in out.splitlines() if line.startswith("    ") and "%" in line]
    labels = [r[0] if r[0] not in ("≤", "≥") else r[0] + r[1] for r in rows]
    assert labels[-1].startswith("≥") and "42" not in labels  # the far tail is one row
    at_least_38 = next(r for r in rows if r[:2] == ["≥", "38"])
    assert at_least_38[3] == at_least_38[2]  # the folded row: P(=) of the fold = P(≥ 38)
    code, full = run(capsys, "wm", "attack", "--stat", "7", "--defense", "12", "--power", "18",
                     "--armor", "18", "--attacks", "3", "--charge", "--boxes", "15", "--full")
    assert "       42 " in full and len(full.splitlines()) > len(out.splitlines())


def test_results_come_before_the_distributions():
    dist = Distribution.exact([0.5, 0.5])
    report = Report("x", "exact", {"p_a": Estimate.exact(0.5)}, {"d": dist}, title="t",
                    headline="the answer")
    lines = render_table(report).splitlines()
    assert lines[0] == "the answer"
    assert lines.index("results") < lines.index("d")


def test_a_distribution_that_does_not_fit_is_summarised_in_one_line():
    dists = {f"d{i}": Distribution.exact(np.full(30, 1 / 30)) for i in range(4)}
    report = Report("x", "exact", {}, dists, title="t", headline="h")
    short = render_table(report).splitlines()
    assert len(short) <= 60
    assert any(line.startswith("d3: mean 14.50, median 14, 90% from 1 to 28") for line in short)
    assert len(render_table(report, full=True).splitlines()) > 4 * 30


def test_a_monte_carlo_mean_shows_only_the_digits_its_se_supports():
    rng = np.random.default_rng(5)
    counts = np.bincount(rng.integers(0, 30, 400), minlength=30)  # se of the mean ~0.4
    dist = Distribution.from_counts(counts, offset=0)
    assert 0.2 < dist.mean_se < 0.9  # so the se reads 0.3..0.9 and the mean has one decimal
    wide = {f"d{i}": dist for i in range(4)}
    report = Report("x", "mc", {}, wide, title="t", headline="h", n_trials=400, seed=5)
    text = render_table(report)
    assert f"d3: mean {dist.mean:.1f} ± {dist.mean_se:.1f}, median" in text, text
    constant = Distribution.from_counts(np.array([0, 0, 400]), offset=0)  # every sample 2
    footer = render_table(Report("x", "mc", {}, {"c": constant}, title="t", headline="h",
                                 n_trials=400, seed=5)).splitlines()[-1]
    assert footer.startswith("c: mean 2 ± 0, sd 0 |"), footer


def test_json_and_csv_keep_every_outcome(capsys):
    argv = ["wm", "attack", "--stat", "7", "--defense", "12", "--power", "18", "--armor", "18",
            "--attacks", "3", "--charge", "--boxes", "15"]
    code, out = run(capsys, *argv, "--format", "json")
    pmf = json.loads(out)["distributions"]["damage"]["pmf"]
    assert len(pmf) == 43 and min(pmf.values()) < FOLD_BELOW
    code, out = run(capsys, *argv, "--format", "csv")
    assert sum(1 for line in out.splitlines() if line.startswith("pmf,damage,")) == 43


def test_long_lists_in_the_notes_show_the_first_items_then_a_count():
    report = Report("x", "exact", {"p": Estimate.exact(0.5)}, title="t", headline="h",
                    info={"decisions": [f"step {i}" for i in range(30)]})
    text = render_table(report)
    assert "  step 7" in text and "  step 8" not in text and "… 22 more (--full" in text
    assert "  step 29" in render_table(report, full=True)


# ---------------------------------------------------------------------------- terminal safety
# Issue 26 item 6: a name from a user's file with terminal sequences (ESC, a bidi override,
# DEL) is shown as escapes in the table, the headline and `profiles show`, never raw.


EVIL = "Orc\x1b[31mRED\x1b]0;title\x07\u202e\x7f Boyz"


def test_names_from_user_files_reach_the_terminal_escaped(tmp_path):
    from tests.test_reliability_harness import ROOT, run_inprocess

    text = (ROOT / "profiles/fantasy/wfb8/orc_boyz.toml").read_text(encoding="utf-8")
    lines = [f"name = {json.dumps(EVIL)}" if line.startswith("name = ") and i < 10 else line
             for i, line in enumerate(text.splitlines())]
    profile = tmp_path / "evil.toml"
    profile.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for argv in (["fb", "combat", str(profile), "wfb8/empire_halberdiers", "-q", "--method",
                  "exact", "--rounds", "1"],
                 ["fb", "combat", str(profile), "wfb8/empire_halberdiers", "-q", "--method",
                  "exact", "--rounds", "1", "--brief"],
                 ["profiles", "show", str(profile)]):
        code, out, err = run_inprocess(argv)
        assert code == 0, err
        assert "Orc\\x1b[31mRED\\x1b]0;title\\x07\\u202e\\x7f Boyz" in out, out[:300]
        assert not any(ch in out + err for ch in "\x1b\x07\u202e\x7f")


def test_full_lists_every_outcome_seen_and_folds_the_runs_never_seen():
    """‹full› on a Monte Carlo distribution: each value a trial gave is its own row, each run
    of values none gave is one 0.00% row (a battle's VP margin printed 1,300 rows of 0.00%
    for 200 battles); an exact distribution keeps every value (a 0 there is a fact)."""
    counts = np.zeros(301, np.int64)
    counts[[0, 7, 8, 150, 300]] = [3, 1, 2, 5, 1]
    mc = Distribution.from_counts(counts, offset=-100)
    exact = Distribution.exact(counts / counts.sum(), -100)
    for dist, expected in ((mc, ["-100", "-99–-94", "-93", "-92", "-91–49", "50", "51–199",
                                 "200"]),
                           (exact, [str(v) for v in range(-100, 201)])):
        report = Report("roll", "mc" if dist is mc else "exact", {}, {"margin": dist},
                        n_trials=12 if dist is mc else None, seed=1 if dist is mc else None)
        lines = render_table(report, full=True).splitlines()
        start = lines.index("margin") + 2
        end = next(i for i in range(start, len(lines) + 1)
                   if i == len(lines) or not lines[i].startswith("  "))
        assert [line.split()[0] for line in lines[start:end]] == expected


def test_a_distributions_mean_reads_as_the_results_table_writes_it():
    """The one-line summary and the footer write a Monte Carlo mean as the results table
    does (a battle printed its margin as '-6 ± 21' there and '-10 ± 20' here)."""
    from mathhammer.present.render import _mean_text

    counts = np.zeros(601, np.int64)
    counts[[0, 250, 300, 320, 600]] = [4, 2, 3, 2, 4]
    dist = Distribution.from_counts(counts, offset=-300)
    est = Estimate.mean(float((dist.outcomes * counts).sum()),
                        float((dist.outcomes.astype(float) ** 2 * counts).sum()), int(counts.sum()))
    assert dist.mean_se > 20  # the case: an se the words would round to tens
    assert _mean_text(dist, 2) == " ".join(est.format().split()[:3])
