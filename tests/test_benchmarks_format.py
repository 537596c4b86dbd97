"""The benchmark script's pure helpers: JSON contract (issue 7 part 2), targets, Markdown.

Milliseconds: nothing here runs a benchmark.
"""

from __future__ import annotations

import json

import pytest

from benchmarks.report import Case, Results, Target, dumps_json, human, round_robin, to_markdown

MACHINE = {"cpu": "Test CPU", "cores": 2, "load_average": "0.10 0.20 0.30",
           "date": "2026-01-01 00:00 UTC", "commit": "abc1234", "python": "3.11.7"}


def _results() -> Results:
    r = Results()
    r.add(Case("chain", "trials/s", 300e6, "numpy", 100e6, Target(at_least=150e6, min_ratio=2)))
    r.add(Case("help", "s", 0.7, None, None, Target(at_most=0.5)))
    r.add(Case("rss", "MB", 120.0))
    r.skip("grid", "not available yet")
    return r


def test_json_has_exactly_the_contract_fields():
    data = json.loads(dumps_json(_results(), MACHINE))
    assert [c["name"] for c in data["cases"]] == ["chain", "help", "rss"]
    for case in data["cases"]:
        assert set(case) == {"name", "unit", "value", "baseline_name", "baseline_value"}
        assert case["unit"] in ("trials/s", "s", "MB")
        assert isinstance(case["value"], float)
    assert data["cases"][1]["baseline_name"] is None
    assert data["cases"][1]["baseline_value"] is None
    assert data["cases"][0]["baseline_value"] == 100e6
    assert data["skipped"] == [{"name": "grid", "reason": "not available yet"}]


def test_pass_and_miss_follow_the_targets():
    chain, help_, rss = _results().cases
    assert chain.ratio() == pytest.approx(3.0) and chain.passed() is True
    assert help_.passed() is False
    assert rss.passed() is None
    # a throughput above the floor but under the ratio is a miss
    assert Case("x", "trials/s", 160e6, "numpy", 100e6, Target(150e6, None, 2)).passed() is False
    # for times the ratio is baseline / value: 10 ms vs icepool 50 ms is 5x
    slow = Case("exact", "s", 0.010, "icepool", 0.050, Target(min_ratio=10))
    assert slow.ratio() == pytest.approx(5.0) and slow.passed() is False
    # a ratio target without a baseline cannot pass
    assert Case("y", "s", 0.01, None, None, Target(min_ratio=10)).passed() is False


def test_unknown_unit_is_rejected():
    with pytest.raises(ValueError):
        Case("x", "ns", 1.0)


def test_markdown_has_machine_line_table_and_status():
    text = to_markdown(_results(), MACHINE, "numpy 2.4")
    assert "Test CPU, 2 cores, load average 0.10 0.20 0.30" in text
    assert "`abc1234`" in text and "2026-01-01" in text
    assert "| chain | 300 M trials/s | numpy | 100 M trials/s | 3.00× | ≥ 150 M trials/s and ≥ 2× baseline | pass |" in text
    assert "| help | 0.7 s |" in text and "**MISS**" in text
    assert "- grid: not available yet" in text


def test_human_units():
    assert human(2.5e6, "trials/s") == "2.5 M trials/s"
    assert human(0.0042, "s") == "4.2 ms"
    assert human(1.25, "s") == "1.25 s"
    assert human(88.0, "MB") == "88 MB"


def test_round_robin_times_every_variant_in_turn():
    calls = []
    medians = round_robin({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
                          rounds=3, warmup=1)
    assert calls == ["a", "b"] + ["a", "b"] * 3
    assert set(medians) == {"a", "b"} and all(t >= 0 for t in medians.values())


def test_markdown_warns_when_the_machine_was_busy():
    quiet = to_markdown(_results(), MACHINE)
    busy = to_markdown(_results(), dict(MACHINE, load_average="5.10 4.00 3.00"))
    assert "machine was busy" not in quiet
    assert "machine was busy" in busy


def test_scaling_rows_target_only_runs_of_ten_million_trials():
    from benchmarks.report import SCALING_MIN_RATIO, Scaling

    small = Scaling("roll", 10**6, one_thread=0.010, two_threads=0.008, bare_ratio=1.9)
    big = Scaling("roll", 10**7, one_thread=0.100, two_threads=0.055, bare_ratio=1.9,
                  cpu_per_wall=1.95, rounds=9, blocked=0.02, waited=0.05)
    slow = Scaling("magic", 10**7, one_thread=1.0, two_threads=0.7, bare_ratio=1.9)
    busy = Scaling("grid", 10**7, one_thread=1.0, two_threads=0.9, bare_ratio=1.1)
    busy_but_fast = Scaling("fb", 10**7, one_thread=1.0, two_threads=0.6, bare_ratio=1.1)
    assert busy.passed() is None and busy.status() == "not judged: machine busy"
    assert busy_but_fast.passed() is True
    assert small.min_ratio is None and small.passed() is None
    assert big.min_ratio == SCALING_MIN_RATIO and big.passed() is True
    assert slow.passed() is False
    r = _results()
    r.scaling += [small, big, slow]
    data = json.loads(dumps_json(r, MACHINE))
    assert [row["pass"] for row in data["scaling"]] == [None, True, False]
    assert data["scaling"][1]["ratio"] == pytest.approx(100 / 55)
    text = to_markdown(r, MACHINE)
    assert "## Thread scaling" in text
    assert "| roll | 1e+07 | 0.1 s | 0.055 s | 1.82× | 1.90× | 1.95 | 2% / 5% | ≥ 1.6× | pass |" in text
    assert "| magic | 1e+07 | 1 s | 0.7 s | 1.43× | 1.90× | — | — | ≥ 1.6× | **MISS** |" in text


def test_every_results_section_is_closed():
    """Each side script's block ends before the next begins: rewriting one never eats another."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "benchmarks" / "RESULTS.md").read_text()
    depth = 0
    for line in text.splitlines():
        if line.startswith("<!-- section: "):
            assert depth == 0, line
            depth = 1
        elif line.startswith("<!-- end section -->"):
            assert depth == 1
            depth = 0
    assert depth == 0
