"""Fuzz every command's flags and positionals (issue 8 part 1).

The command tree is discovered from the Typer app, so a command that lands later
is fuzzed too (with no positionals if ``BASE_ARGS`` has no entry for it). Each
example starts from a valid small invocation and replaces 1-3 options or
positionals with random values of the right and wrong types: huge and negative
numbers, NaN, unicode, empty strings, paths to bad files. Every run must obey
``assert_clean``: exit 0, or exit 2 with one stderr line naming where and the
fix; never a traceback, never NaN printed, never unbounded work.

Default run: a handful of examples per command, the same ones each run (whole
file ~20-40 s warm); ``-m slow`` (150 per command, about 4,500 invocations) and
``MATHHAMMER_FUZZ_RANDOM=1`` draw new examples; ``MATHHAMMER_FUZZ_EXAMPLES=N`` sets the
default count. Half the invocations ask for ``--format json`` so the data is checked too:
it parses, every probability lies in [0, 1], every distribution sums to 1 (1e-9).
"""

from __future__ import annotations

import os
import stat
import typing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_reliability_harness import (
    BAD, BASE_ARGS, DERANDOMIZE, SKIP_COMMANDS, SMALL_TRIALS, assert_clean, chdir_scratch, commands,
    option_specs, run_inprocess,
)

COMMANDS = {name: cmd for name, cmd in commands().items() if name not in SKIP_COMMANDS}
MANY_CELLS = {"compare", "sweep", "score", "diff", "tune", "wm plan", "fb turn"}

JUNK = ["", " ", "abc", "☃", "Ꮚ١٢", "1e6", "0x10", "--", "-", "nan", "inf", "-inf",
        "12abc", "ünïcödé", "x" * 300, "1,000", "\t", "None", "true", "[]", "{}", "²",
        "9" * 5000, "-" + "9" * 5000, "1e400"]  # past Python's 4,300-digit int() limit, past float
HUGE_INTS = [10**6, 10**9, 2**31, 2**63, 2**64 + 1, 10**30, -1, -(10**9), -(2**63) - 1]
BAD_PATHS = ["", "does-not-exist.toml", ".", "/dev/null", "/dev/zero", "ünï/☃.toml", "x" * 300,
             "fifo.toml", "link-loop.toml", "ro"]  # fifo.toml, link-loop.toml, ro: in scratch

junk = st.sampled_from(JUNK)
small_int = st.integers(-5, 40)
text = st.text(max_size=16)


def _bad_files() -> list[str]:
    return [str(p) for p in sorted(BAD.glob("*"))] if BAD.is_dir() else []


def _unwrap(annotation):
    """Optional[int] -> int, list[Path] -> Path (multiple options)."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        inner = [a for a in args if a is not type(None)]
        return _unwrap(inner[0]) if inner else str
    if typing.get_origin(annotation) in (list, tuple) and args:
        return _unwrap(args[0])
    return annotation


def value_strategy(name: str, annotation) -> st.SearchStrategy[str]:
    """Random values for one option, right type or wrong, as command-line text."""
    kind = _unwrap(annotation)
    if name == "--n-trials":  # valid values stay small: the suite must stay fast
        return st.one_of(st.integers(-3, 3000).map(str),
                         st.sampled_from(["0", "-1", str(10**11 + 1), str(10**30)]), junk)
    if name == "--precision":  # valid half-widths stay coarse for the same reason
        return st.one_of(st.floats(0.05, 0.49).map(repr),
                         st.sampled_from(["0", "-0.1", "0.5", "1", "nan", "inf", "1e-300"]), junk)
    if name == "--threads":
        return st.one_of(st.integers(-2, 3).map(str), st.sampled_from(["0", "257", "99999"]), junk)
    if name in ("--output", "-o"):
        return st.sampled_from(["out.txt", "ünï.json", "missing/out.txt", ".", "ro/out.txt",
                                "/proc/out.txt", ""])
    if name == "--plot":
        return st.sampled_from(["plot.png", "plot.txt", "missing/p.png", ".", "ro/p.png",
                                "/proc/p.png", "p.svg", ""])
    if name == "--format":
        return st.one_of(st.sampled_from(["table", "json", "csv"]), junk)
    if name == "--method":
        return st.one_of(st.sampled_from(["auto", "exact", "mc"]), junk)
    if kind is bool:
        return st.sampled_from(["true", "false", "1", "maybe", ""])
    if kind is int:  # 41..1000: valid-looking but large (bounded work, or a clean refusal)
        return st.one_of(small_int.map(str), st.integers(41, 1000).map(str),
                         st.sampled_from(HUGE_INTS).map(str), junk)
    if kind is float:
        return st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr),
                         small_int.map(str), st.sampled_from(["1e308", "-1e308", "5e-324"]), junk)
    if isinstance(kind, type) and issubclass(kind, Path):
        return st.sampled_from(BAD_PATHS + _bad_files())
    return st.one_of(text, junk, st.sampled_from(["D6", "2D6+1", "none", "all", "wfb8", "t9a1",
                                                  "khador/juggernaut", "focus=0..3", "a", "b"]))


def argument_strategy(annotation) -> st.SearchStrategy[str]:
    kind = _unwrap(annotation)
    if isinstance(kind, type) and issubclass(kind, Path):
        return st.sampled_from(BAD_PATHS + _bad_files())
    return st.one_of(text, junk, st.sampled_from(
        ["khador/juggernaut", "wfb8/orc_boyz", "cygnar", "no/such", "../../etc/passwd",
         "2D6", "stone-thrower", "bolt-thrower", "D0", "(((", "200D1000"]))


def _split(tokens: list[str], flags: set[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Base argv -> positionals and {option: [tokens]} (flags keep no value)."""
    positionals, options, i = [], {}, 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith("--"):
            if tok in flags:
                options[tok] = [tok]
                i += 1
            else:
                options[tok] = [tok, tokens[i + 1]]
                i += 2
        else:
            positionals.append(tok)
            i += 1
    return positionals, options


def build_argv(name: str, cmd, draw) -> list[str]:
    specs = option_specs(cmd)
    flags = {s["name"] for s in specs if s["is_flag"]}
    positionals, options = _split(list(BASE_ARGS.get(name, [])), flags)
    arguments = [p for p in cmd.params if p.param_type_name == "argument"]
    # fuzz a positional now and then
    if arguments and draw(st.booleans()):
        i = draw(st.integers(0, len(arguments) - 1))
        annotation = getattr(getattr(arguments[i], "type_descriptor", None), "annotation", str)
        value = draw(argument_strategy(annotation))
        while len(positionals) <= i:
            positionals.append("x")
        positionals[i] = value
    chosen = draw(st.lists(st.sampled_from(specs), min_size=1, max_size=3,
                           unique_by=lambda s: s["name"])) if specs else []
    for spec in chosen:
        opt = spec["name"]
        if spec["is_flag"]:
            if opt in options and draw(st.booleans()):
                del options[opt]
            else:
                options[opt] = [opt]
            continue
        strategy = value_strategy(opt, spec["annotation"])
        values = draw(st.lists(strategy, min_size=1, max_size=2)) if spec["multiple"] else [draw(strategy)]
        options[opt] = [tok for v in values for tok in (opt, v)]
    names = {s["name"] for s in specs}
    if "--n-trials" in names and "--n-trials" not in options:
        options["--n-trials"] = ["--n-trials", SMALL_TRIALS]
    if "--quiet" in names and "--quiet" not in options:
        options["--quiet"] = ["--quiet"]
    # half the runs ask for JSON, so the data itself is checked (probabilities, sums)
    if "--format" in names and "--format" not in options and "--brief" not in options \
            and draw(st.booleans()):
        options["--format"] = ["--format", "json"]
    argv = name.split() + [tok for toks in options.values() for tok in toks]
    # "--" keeps a fuzzed positional that starts with "-" a positional
    return argv + (["--", *positionals] if positionals else [])


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz-cwd")
    ro = path / "ro"
    ro.mkdir()
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)  # read-only (root ignores it; /proc covers root)
    os.mkfifo(path / "fifo.toml")  # no writer: a read must refuse it, never wait
    (path / "link-loop.toml").symlink_to("link-loop.toml")
    yield path
    ro.chmod(stat.S_IRWXU)


def _fuzz(name: str, scratch: Path, data) -> None:
    argv = build_argv(name, COMMANDS[name], data.draw)
    # compare and sweep answer many cells (24 Warmachine duels for the battle boxes: ~6 s
    # of CPU, 15-30 s on a loaded machine); every other command gets the harness's 30 s
    with chdir_scratch(scratch):
        code, out, err = run_inprocess(argv, timeout=90 if name in MANY_CELLS else 30)
    check_invocation(argv, code, out, err, name)


def check_invocation(argv: list[str], code, out: str, err: str, name: str) -> None:
    """The fuzz properties (issue 22 part 5) on top of the harness contract: exit 0 or 2,
    no traceback, an exit 2 says so in at most 3 lines and under 10 kB, JSON output
    parses, every probability lies in [0, 1] and every distribution sums to 1."""
    import json

    from tests.test_reliability_bounded import check_report
    from tests.test_json_keys import bad_probability_keys

    assert_clean(argv, code, out, err, name)
    assert len(err.encode()) < 10_000, f"`mathhammer {' '.join(argv)}`: {len(err)} bytes on stderr"
    if code == 2 and name not in ("profiles validate",):
        assert len([line for line in err.splitlines() if line.strip()]) <= 3, err
    if code == 0 and "json" in argv and "--output" not in argv and "-o" not in argv:
        try:
            data = json.loads(out)
        except ValueError as bad:
            raise AssertionError(f"`mathhammer {' '.join(argv)}`: not JSON ({bad}):\n{out[:300]}")
        if isinstance(data, dict) and "results" in data:
            check_report(data)
            assert not bad_probability_keys(data), bad_probability_keys(data)


FAST = settings(max_examples=int(os.environ.get("MATHHAMMER_FUZZ_EXAMPLES", "6")), deadline=None,
                suppress_health_check=list(HealthCheck), derandomize=DERANDOMIZE, database=None)
SLOW = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck),
                database=None)


@pytest.mark.parametrize("name", sorted(COMMANDS))
@FAST
@given(data=st.data())
def test_fuzz_flags(name, scratch, data):
    _fuzz(name, scratch, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(COMMANDS))
@SLOW
@given(data=st.data())
def test_fuzz_flags_long(name, scratch, data):
    _fuzz(name, scratch, data)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None,
          derandomize=DERANDOMIZE)
@given(argv=st.lists(st.one_of(text, junk, st.sampled_from(
    ["roll", "wm", "fb", "magic", "profiles", "run", "attack", "--help", "-h", "--version",
     "--n-trials", "--seed", "2D6", "--format", "json"])), max_size=5))
def test_fuzz_random_argv(argv, tmp_path_factory):
    """Arbitrary token lists at the top level: help, usage errors or a small run."""
    scratch = tmp_path_factory.mktemp("argv")
    with chdir_scratch(scratch):
        code, out, err = run_inprocess(argv, timeout=60)
    # a top-level run of `roll X` uses the default 10^6 trials: allowed, but must be clean
    check_invocation(argv, code, out, err, " ".join(argv[:2]))


# --------------------------------------------------------------------------- huge numbers
# Issue 26: a number past Python's 4,300-digit int() limit, past the float range, or not
# finite, in any numeric option or argument, is one line and exit 2 naming the option.

#: options typed str whose text the command reads as a number (or dice text) itself
TEXT_NUMBERS = ("--attacks", "--shots", "--save", "--ward", "--regeneration")


def _number_targets() -> list[tuple[str, str]]:
    found = []
    for name, cmd in sorted(COMMANDS.items()):
        for spec in option_specs(cmd):
            kind = _unwrap(spec["annotation"])
            if not spec["is_flag"] and (kind in (int, float) or spec["name"] in TEXT_NUMBERS):
                found.append((name, spec["name"]))
    return found


NUMBER_TARGETS = _number_targets()
HUGE_DIGITS = st.integers(4301, 6000).map(lambda n: "7" * n)
HUGE_OR_NOT_FINITE = st.one_of(
    HUGE_DIGITS, HUGE_DIGITS.map(lambda d: "-" + d), HUGE_DIGITS.map(lambda d: d + ".5"),
    HUGE_DIGITS.map(lambda d: "1e" + d[:6]), st.sampled_from(
        ["inf", "-inf", "nan", "NaN", "Infinity", "1e400", "-1e400", "1e999999"]))


def _number_argv(command: str, option: str, value: str) -> list[str]:
    cmd = COMMANDS[command]
    specs = option_specs(cmd)
    positionals, options = _split(list(BASE_ARGS.get(command, [])),
                                  {s["name"] for s in specs if s["is_flag"]})
    if option == "--for-p":  # --for-p finds the attacks: the base count would be the error
        options.pop("--attacks", None)
        options.pop("--shots", None)
    options[option] = [option, value]
    if "--quiet" in {s["name"] for s in specs}:
        options["--quiet"] = ["--quiet"]
    argv = command.split() + [tok for toks in options.values() for tok in toks]
    return argv + (["--", *positionals] if positionals else [])


def _refused(argv: list[str], *names: str) -> None:
    """One line, exit 2, naming one of ``names`` (the first check that meets the value)."""
    code, out, err = run_inprocess(argv, timeout=30)
    assert_clean(argv, code, out, err, argv[0])
    shown = " ".join(argv)[:300]
    assert code == 2, f"`mathhammer {shown}` exit {code}: {out[:200]}"
    assert any(n in err for n in names), f"`mathhammer {shown}`: the line names none of {names}: {err}"


def test_the_walk_finds_the_numeric_options():
    found = set(NUMBER_TARGETS)
    for expected in [("fb attack", "--attacks"), ("fb attack", "--ws"), ("fb shoot", "--shots"),
                     ("fb attack", "--save"), ("fb test", "--ward"), ("wm aoe", "--range"),
                     ("roll", "--at-least"), ("tune", "--budget-seconds")]:
        assert expected in found, expected


NUMBERS = settings(max_examples=int(os.environ.get("MATHHAMMER_FUZZ_EXAMPLES", "30")),
                   deadline=None, suppress_health_check=list(HealthCheck),
                   derandomize=DERANDOMIZE, database=None)


@NUMBERS
@given(target=st.sampled_from(NUMBER_TARGETS), value=HUGE_OR_NOT_FINITE)
def test_fuzz_huge_and_non_finite_numbers(target, value, scratch):
    command, option = target
    with chdir_scratch(scratch):
        _refused(_number_argv(command, option, value), option)


@pytest.mark.slow
@pytest.mark.parametrize("command, option", NUMBER_TARGETS)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck),
          database=None)
@given(value=HUGE_OR_NOT_FINITE)
def test_fuzz_huge_numbers_in_every_numeric_option(command, option, value, scratch):
    with chdir_scratch(scratch):
        _refused(_number_argv(command, option, value), option)


@pytest.mark.parametrize("command, option", [t for t in NUMBER_TARGETS if t[1] in TEXT_NUMBERS])
@pytest.mark.parametrize("value", ["7" * 5000, "-" + "7" * 5000, "7" * 5000 + "+", "²", "١٢"])
def test_numbers_the_commands_read_from_text_refuse_huge_values(command, option, value, scratch):
    """The options parsed by mathhammer's own code, not the option parser: every one."""
    with chdir_scratch(scratch):
        _refused(_number_argv(command, option, value), option)


CHALLENGE_STATS = {"ws": "6", "s": "4", "t": "4", "w": "3", "i": "6", "a": "4", "save": "3",
                   "ld": "8", "ward": "5", "ap": "1"}


@pytest.mark.parametrize("key", sorted(CHALLENGE_STATS))
@pytest.mark.parametrize("value", ["7" * 5000, "-" + "7" * 5000, "²", "inf"])
def test_challenge_inline_stats_refuse_huge_values(key, value, scratch):
    stats = ",".join(f"{k}={value if k == key else v}" for k, v in CHALLENGE_STATS.items())
    argv = ["fb", "challenge", f"stats:{stats}", "wfb8/empire_captain", "-q"]
    with chdir_scratch(scratch):
        # a 5,000-digit value meets the shared check of every text parameter first
        _refused(argv, f"{key} must be a whole number", "MODEL_A: holds a number of")
