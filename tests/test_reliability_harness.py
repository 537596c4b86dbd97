"""Shared harness of the reliability suites (issue 8) and its own sanity tests.

``run_inprocess(argv)`` calls :func:`mathhammer.cli.main` in this process and
returns ``(exit code, stdout, stderr)``; the Click tree that Typer builds from
the app is memoised (building it costs ~0.4 s a call on this machine, running a
small query costs less). A call that runs past ``timeout`` seconds is stopped
by a SIGALRM and reported as ``"slow"``: a fuzzed input that makes a command
work without bound is a finding, not a hang of the suite.

``assert_clean`` is the contract every command obeys (DESIGN rule 7): exit 0,
or exit 2 with exactly one stderr line ``error: <where>: <what> ...; fix: ...``;
never a traceback; no NaN printed; in JSON output every ``p_*`` lies in [0, 1].
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BAD = ROOT / "tests" / "data" / "bad"

# A valid invocation of every command (positionals and required options), small
# and fast; the fuzzers replace or add one or more options on top of it.
# Paths are absolute because the fuzzers run with a scratch folder as cwd.
P = ROOT / "profiles"
BASE_ARGS: dict[str, list[str]] = {
    "roll": ["2D6"],
    "roll-off": [],
    "scatter": ["2D6"],
    "run": [str(P / "scenarios/warmachine_two_jacks_vs_charger.toml")],
    # two warjacks a side: every compare path (exact policy cells, both ways) at a fraction
    # of the battle boxes' time; tune: the input list and one candidate
    "compare": [str(P / "lists/cygnar_two_ironclads.toml"),
                str(P / "lists/khador_two_juggernauts.toml")],
    "sweep": ["khador/juggernaut", "cygnar/charger", "--vary", "focus=0..3"],
    # cells: these walks count trials per cell (battles have their own tests, issue 32)
    "score": [str(P / "lists/wfb8_empire.toml"), "--meta", str(P / "metas/wfb8_infantry.toml"),
              "--model", "cells"],
    "diff": [str(P / "lists/wfb8_empire.toml"), str(P / "lists/wfb8_empire_gunline.toml"),
             "--meta", str(P / "metas/wfb8_infantry.toml"), "--model", "cells"],
    "import": [str(P / "imports/orcs_t9a.txt")],
    "tune": [str(P / "lists/wfb8_empire.toml"), "--options", str(P / "options/wfb8_empire.toml"),
             "--meta", str(P / "metas/wfb8_infantry.toml"), "--max-lists", "2", "--model", "cells"],
    "wm attack": ["--stat", "6", "--defense", "13", "--power", "12", "--armor", "16"],
    "wm aoe": ["--stat", "6", "--defense", "13", "--power", "12", "--armor", "16", "--range", "8"],
    "wm duel": ["khador/juggernaut", "cygnar/charger"],
    "wm plan": ["khador/sorscha", "khador/juggernaut", "--target", "cygnar/stryker"],
    "wm battle": [str(P / "lists/khador_battlebox.toml"), str(P / "lists/cygnar_battlebox.toml"),
                  "--turns", "1"],
    "fb attack": ["--attacks", "5", "--ws", "4", "--target-ws", "4", "--strength", "4",
                  "--toughness", "4"],
    "fb shoot": ["--shots", "5", "--bs", "4", "--strength", "4", "--toughness", "4"],
    "fb break-test": ["--ld", "8", "--lost-by", "2"],
    "fb pursuit": [],
    "fb charge": ["--distance", "9", "--movement", "4"],
    "fb turn": [str(P / "scenarios/fantasy_turns_knights_vs_orcs.toml")],
    "fb battle": [str(P / "lists/wfb8_dwarfs.toml"), str(P / "lists/wfb8_orcs.toml"), "--turns", "2",
                  "--policy-a", "scripted", "--policy-b", "scripted"],
    "fb test": ["--value", "7"],
    "fb combat": ["wfb8/empire_halberdiers", "wfb8/orc_boyz"],
    "fb challenge": ["stats:ws=6,s=4,t=4,w=3,i=6,a=4,save=3", "stats:ws=5,s=5,t=5,w=3,i=4,a=4"],
    "fb artillery": ["stone-thrower", "wfb8/skeleton_warriors"],
    "magic flow": [],
    "magic cast": ["--dice", "3", "--cv", "9"],
    "magic dispel": ["--dice", "3", "--against", "9"],
    "magic phase": [str(P / "scenarios/magic_wfb8_two_wizards.toml")],
    "magic optimise": [str(P / "scenarios/magic_wfb8_two_wizards.toml"), "--power", "6",
                       "--dispel", "4"],
    "profiles list": [],
    "profiles show": ["khador/juggernaut"],
    "profiles validate": [str(P / "warmachine/khador")],
    "profiles schema": [],
    "rules": ["WM-A3"],
}
# commands that do not take flags worth fuzzing (long demo runs)
SKIP_COMMANDS = {"demo", "warmup", "serve"}  # serve: a server, tested in test_web_*
# commands whose report legitimately has one stderr line per bad file
MULTI_LINE_ERRORS = {"profiles validate"}
SMALL_TRIALS = "2000"
# the default run replays the same examples (CI stays deterministic); the slow run and
# MATHHAMMER_FUZZ_RANDOM=1 draw new ones each time
DERANDOMIZE = os.environ.get("MATHHAMMER_FUZZ_RANDOM") != "1"


BATTLE_BUDGET = 600.0  # seconds: fb/wm battle's kernels compiled cold on a busy 2-core machine


class Slow(Exception):
    """Raised by the alarm inside a call that ran past its time budget."""


_COMMAND_CACHE: dict[int, object] = {}


def click_tree():
    """The Click command tree of the Typer app (memoised)."""
    import typer

    from mathhammer.cli.app import app

    key = id(app)
    if key not in _COMMAND_CACHE:
        build = _real_get_command or typer.main.get_command
        _COMMAND_CACHE[key] = build(app)
    return _COMMAND_CACHE[key]


def commands() -> dict[str, object]:
    """``{"wm attack": click command, ...}`` for every leaf command, discovered."""
    found: dict[str, object] = {}

    def walk(cmd, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, path + [name])
        elif path:
            found[" ".join(path)] = cmd

    walk(click_tree(), [])
    return found


def option_specs(cmd) -> list[dict]:
    """Every option of a command: names, Python annotation, flag / multiple."""
    specs = []
    for param in cmd.params:
        if param.param_type_name != "option" or param.name in ("help",):
            continue
        descriptor = getattr(param, "type_descriptor", None)
        specs.append({
            "name": param.opts[0],
            "annotation": getattr(descriptor, "annotation", str),
            "is_flag": bool(getattr(param, "is_flag", False)),
            "multiple": bool(param.multiple),
            "required": bool(param.required),
        })
    return specs


class _CompileClock:
    """Seconds numba spent compiling (``numba:compile`` events, nested ones counted once): a
    cold on-disk cache makes the first call of a kernel compile for a while, which is not
    the command being slow."""

    def __init__(self) -> None:
        from numba.core import event

        self.depth, self.started, self.total = 0, 0.0, 0.0
        clock = self

        class Listener(event.Listener):
            def on_start(self, _event):
                if clock.depth == 0:
                    clock.started = time.monotonic()
                clock.depth += 1

            def on_end(self, _event):
                clock.depth -= 1
                if clock.depth == 0:
                    clock.total += time.monotonic() - clock.started

        self.listener = Listener()
        event.register("numba:compile", self.listener)

    def seconds(self) -> float:
        running = time.monotonic() - self.started if self.depth else 0.0
        return self.total + running


_COMPILE_CLOCK: list[_CompileClock] = []


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """Raise Slow inside the block once it has run ``seconds`` outside numba's compiler; the
    alarm never interrupts a compile (an interrupted compile leaves numba's callbacks raising)."""
    if not _COMPILE_CLOCK:
        _COMPILE_CLOCK.append(_CompileClock())
    clock = _COMPILE_CLOCK[0]
    start, compiled_before = time.monotonic(), clock.seconds()

    def on_alarm(signum, frame):
        spent = time.monotonic() - start - (clock.seconds() - compiled_before)
        if clock.depth or spent < seconds:
            signal.setitimer(signal.ITIMER_REAL, max(seconds - spent, 1.0) if not clock.depth else 1.0)
            return
        raise Slow(f"over {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_real_get_command = None


def _patch_get_command() -> None:
    """Make Typer reuse the memoised Click tree (same object Typer would build)."""
    global _real_get_command
    import typer.main

    if _real_get_command is not None:
        return
    _real_get_command = typer.main.get_command

    def cached(typer_instance):
        from mathhammer.cli.app import app

        if typer_instance is app:
            return click_tree()
        return _real_get_command(typer_instance)

    typer.main.get_command = cached


def run_inprocess(argv: list[str], timeout: float = 30.0) -> tuple[object, str, str]:
    """``mathhammer ARGV`` in this process: (exit code | "slow", stdout, stderr)."""
    from mathhammer.cli import main

    if argv[1:2] == ["battle"]:  # a battle's first run compiles its kernels: minutes when cold
        timeout = max(timeout, BATTLE_BUDGET)

    _patch_get_command()
    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            with _alarm(timeout):
                main(list(argv))
        except SystemExit as stop:
            code = stop.code if stop.code is not None else 0
        except Slow:
            code = "slow"
        except BaseException:  # a traceback: record it for the assertion message
            import traceback

            traceback.print_exc(file=err)
            code = "traceback"
    return code, out.getvalue(), err.getvalue()


NAN = re.compile(r"(?<![\w.])-?nan(?![\w])", re.IGNORECASE)


def assert_clean(argv: list[str], code, out: str, err: str, command: str = "") -> None:
    """The contract of every invocation (DESIGN rule 7, issue 8 part 1)."""
    shown = " ".join(argv)
    assert code != "slow", f"unbounded work: `mathhammer {shown}` ran past its time budget"
    assert "Traceback" not in err and code != "traceback", f"`mathhammer {shown}`:\n{err}"
    assert code in (0, 2), f"`mathhammer {shown}` exit {code}; stderr: {err}"
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        if command in MULTI_LINE_ERRORS and not lines and "--format" in argv:
            import json  # `profiles validate --format json`: the errors are the JSON data

            assert any(not f["ok"] and f["errors"] for f in json.loads(out)["files"]), out
            return
        assert lines, f"`mathhammer {shown}` exit 2 with no message"
        if command in MULTI_LINE_ERRORS and lines[0].startswith("invalid "):
            assert all(line.startswith("invalid ") for line in lines[:-1]), err
            return
        lines = [line for line in lines if not line.startswith("compiling kernels")]
        assert len(lines) == 1, f"`mathhammer {shown}`: {len(lines)} stderr lines:\n{err}"
        line = lines[0]
        assert line.startswith("error: "), line
        assert ": " in line[len("error: "):], f"no where: {line}"
        assert "fix: " in line, f"no fix: {line}"
    else:
        assert not NAN.search(out), f"`mathhammer {shown}` printed NaN:\n{out}"
        assert_probabilities(shown, out)


def assert_probabilities(shown: str, out: str) -> None:
    """JSON on stdout (``--format json``): every ``p_*`` anywhere in it (results, info,
    matrices) and every pmf entry lies in [0, 1], with its 95% interval (issue 28 item 4)."""
    import json

    from tests.test_json_keys import bad_probability_keys
    from tests.test_reliability_bounded import check_report

    if not out.lstrip().startswith("{"):
        return  # a table, CSV, help text
    try:
        data = json.loads(out)
    except ValueError:
        return  # not one JSON document (a table that starts with a brace): nothing to check
    bad = bad_probability_keys(data)
    assert not bad, f"`mathhammer {shown}`: probabilities outside [0, 1]: {bad[:5]}"
    if isinstance(data, dict) and "results" in data:
        check_report(data)


def chdir_scratch(path: Path):
    """cwd = a scratch folder, so fuzzed relative paths never land in the repo."""
    return contextlib.chdir(path)


# --------------------------------------------------------------------------- sanity


def test_every_command_has_a_base_invocation_or_is_skipped():
    """New commands are still fuzzed without one (with no positionals), but say so."""
    missing = sorted(set(commands()) - set(BASE_ARGS) - SKIP_COMMANDS)
    if missing:
        pytest.skip(f"no base invocation for {missing}: fuzzed with flags only")


def test_base_invocations_run_clean(tmp_path):
    """Each base invocation (small N) exits 0: the fuzzers start from valid input."""
    found = commands()
    with chdir_scratch(tmp_path):
        for name, args in BASE_ARGS.items():
            if name not in found:
                continue  # the command has not landed yet
            argv = name.split() + args + _small(found[name])
            code, out, err = run_inprocess(argv)
            assert_clean(argv, code, out, err, name)
            assert code == 0, f"`mathhammer {' '.join(argv)}`: {err}"


def _small(cmd) -> list[str]:
    names = {spec["name"] for spec in option_specs(cmd)}
    extra = []
    if "--n-trials" in names:
        extra += ["--n-trials", SMALL_TRIALS]
    if "--quiet" in names:
        extra += ["--quiet"]
    return extra


small_args = _small


def test_harness_reports_a_traceback_as_a_failure(monkeypatch):
    """The harness must be able to fail: a command that raises is 'traceback'."""
    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")

    # the module itself: ``mathhammer.roll`` as an attribute may be the lazily exported function
    monkeypatch.setattr(importlib.import_module("mathhammer.roll"), "parse_dice", broken)
    code, out, err = run_inprocess(["roll", "2D6"])
    assert code == "traceback" and "ZeroDivisionError" in err



def test_harness_reports_a_slow_command_but_not_numbas_compile_time(monkeypatch):
    """The budget can fail: a command that sleeps past it is 'slow'; a fresh numba compile
    of the same length inside the budget is not counted (a cold cache is not slowness)."""
    import numba

    monkeypatch.setattr(importlib.import_module("mathhammer.roll"), "parse_dice",
                        lambda *a, **k: time.sleep(0.6))
    code, _, _ = run_inprocess(["roll", "2D6"], timeout=0.3)
    assert code == "slow"

    def compiles(*args, **kwargs):
        started = time.monotonic()
        while time.monotonic() - started < 0.6:  # fresh functions: each one a real compile
            numba.njit(lambda x: x + 1.5)(1.0)
        raise SystemExit(0)

    monkeypatch.setattr(importlib.import_module("mathhammer.roll"), "parse_dice", compiles)
    code, _, err = run_inprocess(["roll", "2D6"], timeout=0.3)
    assert code == 0, err

if os.environ.get("MATHHAMMER_FUZZ_DEBUG"):  # pragma: no cover - manual aid
    print(sorted(commands()), file=sys.stderr)


def test_monte_carlo_commands_keep_their_run_controls():
    """A command with --method (Monte Carlo possible) also has --n-trials, --seed, --quiet.

    Guards against a refactor silently dropping the run controls (it happened to
    `magic cast` / `magic dispel` once: a bounded, repeatable run needs them).
    """
    missing = {}
    for name, cmd in commands().items():
        opts = {spec["name"] for spec in option_specs(cmd)}
        if "--method" in opts:
            lacking = {"--n-trials", "--seed", "--quiet"} - opts
            if lacking:
                missing[name] = sorted(lacking)
    assert not missing, missing
