"""``mathhammer demo``: the compile-ahead helper that splits a first run over two cores."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import typer.main

from mathhammer.cli import demo
from mathhammer.cli.app import app
from tests.conftest import ROOT

ROOT_COMMAND = typer.main.get_command(app)


def test_compile_ahead_only_until_the_warm_up_ran(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "0")
    demo._mark_warmed()
    assert demo._compile_ahead("demo") is None  # this cache has seen the warm-up
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "another"))
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert demo._compile_ahead("demo") is None  # one core: nothing to split
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    assert demo._compile_ahead("demo") is None  # nothing compiles
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "0")
    helper = demo._compile_ahead("demo")
    try:
        assert helper is not None and helper.args[-2:] == ["demo", "--ahead"]
    finally:
        helper.terminate()
        helper.wait(timeout=30)


@pytest.mark.slow
def test_cold_demo_prints_what_a_warm_one_does_and_leaves_no_helper(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, "-m", "mathhammer", "demo"], capture_output=True,
                           text=True, env=env, cwd=ROOT, timeout=1800) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0]
    assert runs[0].stdout == runs[1].stdout
    assert "compiling kernels, first run only" in runs[0].stderr
    assert "other queries too" in runs[0].stderr and "other queries" not in runs[1].stderr
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "demo --ahead" not in ps
    # issue 29 part 2: after the first demo no query compiles (numba saves nothing new)
    for argv in AFTER_DEMO:
        proc = subprocess.run([sys.executable, "-m", "mathhammer", *argv, "--quiet"],
                              capture_output=True, text=True, cwd=ROOT, timeout=600,
                              env={**env, "NUMBA_DEBUG_CACHE": "1"})
        assert proc.returncode == 0, (argv, proc.stderr)
        assert "data saved" not in proc.stdout + proc.stderr, argv


#: Monte Carlo queries of every engine that neither the tour nor (before issue 29) the
#: warm-up ran in this form
AFTER_DEMO = [
    ["roll", "10D6", "--method", "mc", "--n-trials", "10000"],
    ["roll", "20D20", "--method", "mc", "--n-trials", "10000"],
    ["roll-off", "--method", "mc", "--n-trials", "10000"],
    ["scatter", "2D6", "--method", "mc", "--n-trials", "10000"],
    ["wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "18",
     "--boost-hit", "--boost-damage", "--method", "mc", "--n-trials", "10000"],
    ["wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14", "--power", "14", "--range",
     "8", "--method", "mc", "--n-trials", "10000"],
    ["wm", "duel", "khador/juggernaut", "cygnar/charger", "--method", "mc", "--n-trials", "2000"],
    ["fb", "attack", "--attacks", "20", "--ws", "4", "--target-ws", "4", "--strength", "4",
     "--toughness", "4", "--save", "5", "--method", "mc", "--n-trials", "10000"],
    ["fb", "combat", "wfb8/empire_halberdiers", "wfb8/orc_boyz", "--rounds", "1"],
    ["fb", "artillery", "cannon", "wfb8/skeleton_warriors", "--n-trials", "2000"],
    ["fb", "artillery", "flame-cannon", "wfb8/skeleton_warriors", "--n-trials", "2000"],
    ["magic", "cast", "--dice", "3", "--cv", "9", "--method", "mc", "--n-trials", "10000"],
]


def _tour(capsys, *flags):
    """The tour's output (stdout); the warm-up a first demo runs after it is left out here
    (it prints nothing there) and held by the slow cold-demo test."""
    from mathhammer.cli import main

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(demo, "_warmed", lambda: True)
        with pytest.raises(SystemExit) as done:
            main(["demo", *flags])
    assert done.value.code == 0
    return capsys.readouterr().out


def test_short_tour_prints_headline_answers_within_150_lines(capsys):
    """The default tour: each query step's answer is its headline (run on its own)."""
    out = _tour(capsys)
    lines = out.splitlines()
    assert len(lines) <= demo.SHORT_TOUR_LINES, len(lines)
    steps = out.split("\n\nMore: ")[0].split("\n=== ")[1:]
    assert len(steps) == len(demo.DEMO_STEPS)
    for (title, argv), step in zip(demo.DEMO_STEPS[1:], steps[1:]):
        if demo.is_query(argv, ROOT_COMMAND):
            body = step.splitlines()
            assert body[0] == title and body[1].endswith("--brief"), body[:2]
            assert len(body) == 3 and body[2].strip(), body  # one line: the answer


def test_full_tour_prints_every_table(capsys):
    full = _tour(capsys, "--full")
    assert len(full.splitlines()) > demo.SHORT_TOUR_LINES
    assert "--brief" not in full and "results" in full


def test_make_demo_installs_the_runtime_without_test_tools():
    """`make demo` on a fresh clone: no pytest, hypothesis or dask in the environment."""
    import re
    import tomllib

    makefile = (ROOT / "Makefile").read_text()
    demo_target = re.search(r"^demo: (.*)$", makefile, re.M).group(1).split()
    assert demo_target == ["$(RUNTIME)"]
    recipe = makefile.split("\n$(RUNTIME): ")[1].split("\n\n")[0]
    extras = set()
    for group in re.findall(r"-e '?\.(?:\[([^\]]*)\])?'?", recipe):
        extras |= {e for e in group.split(",") if e}
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    seen, todo, deps = set(), list(extras), []
    while todo:  # follow mathhammer[web]-style self references
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for dep in optional.get(extra, []):
            inner = re.fullmatch(r"mathhammer\[([^\]]+)\]", dep)
            todo.extend(inner.group(1).split(",") if inner else [])
            deps.append(dep)
    names = {re.split(r"[\[<>=!~ ]", d)[0].lower() for d in deps}
    assert not names & {"pytest", "pytest-xdist", "hypothesis", "dask", "playwright"}, names
