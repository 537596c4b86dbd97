"""Fuzz the TOML files a user writes: profiles, rulesets, lists, scenarios (issue 8).

Each kind of file starts from a bundled example and is mutated: a key deleted, a
value replaced by one of the wrong type / huge / negative / NaN / unicode, an
unknown key added, the text truncated or garbled. The command that reads that
kind of file must exit 0 or exit 2 with one line (``profiles validate``: one
line per error, then a count), never a traceback.

``extra="forbid"`` everywhere (DESIGN rule 8): an unknown key in ANY table of
ANY kind of file is an error that names the key.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_reliability_harness import DERANDOMIZE, ROOT, assert_clean, run_inprocess

P = ROOT / "profiles"
RULESET = ROOT / "mathhammer/fantasy/rules/wfb8.toml"
FB_ATTACK = ["fb", "attack", "--attacks", "5", "--ws", "4", "--target-ws", "4", "--strength",
             "4", "--toughness", "4", "--method", "exact", "-q"]
SMALL = ["--n-trials", "500", "--seed", "1", "-q"]

# kind -> (example file, argv reading FILE); "{}" is replaced by the mutated file
KINDS: dict[str, tuple[Path, list[str]]] = {
    "warmachine profile": (P / "warmachine/khador/juggernaut.toml", ["profiles", "validate", "{}"]),
    "warmachine caster": (P / "warmachine/khador/sorscha.toml", ["profiles", "validate", "{}"]),
    "fantasy profile": (P / "fantasy/wfb8/orc_boyz.toml", ["profiles", "validate", "{}"]),
    "fantasy ruleset": (RULESET, [*FB_ATTACK, "--ruleset", "{}"]),
    "warmachine list": (P / "lists/cygnar_battlebox.toml",
                        ["compare", "{}", str(P / "lists/khador_two_juggernauts.toml"), *SMALL]),
    "fantasy list": (P / "lists/wfb8_empire.toml",
                     ["compare", "{}", str(P / "lists/wfb8_greenskins_and_undead.toml"), *SMALL]),
    "warmachine scenario": (P / "scenarios/warmachine_two_jacks_vs_charger.toml",
                            ["run", "{}", *SMALL]),
    "warmachine activation scenario": (P / "scenarios/warmachine_khador_double_charge.toml",
                                       ["run", "{}", *SMALL]),
    "fantasy combat scenario": (P / "scenarios/fantasy_halberdiers_vs_orcs.toml",
                                ["run", "{}", *SMALL]),
    "fantasy artillery scenario": (P / "scenarios/fantasy_stone_thrower.toml",
                                   ["run", "{}", *SMALL]),
    "magic scenario": (P / "scenarios/magic_t9a1_four_spells.toml", ["run", "{}", *SMALL]),
}
UNKNOWN = "zz_unknown_key"


# --------------------------------------------------------------------------- TOML writer


def _key(key: str) -> str:
    return json.dumps(str(key), ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _key(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(type(value))


def dumps(data: dict) -> str:
    """TOML text: one ``key = value`` line per top-level key, inline tables below."""
    return "".join(f"{_key(k)} = {_value(v)}\n" for k, v in data.items())


def test_writer_round_trips_every_example():
    for path, _ in KINDS.values():
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        assert tomllib.loads(dumps(data)) == data


# --------------------------------------------------------------------------- walking tables


def tables(data, path=()) -> list[tuple]:
    """Key paths of every table (dict) in the data, arrays of tables included."""
    found = []
    if isinstance(data, dict):
        found.append(path)
        for k, v in data.items():
            found += tables(v, path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found += tables(v, path + (i,))
    return found


def leaves(data, path=()) -> list[tuple]:
    found = []
    if isinstance(data, dict):
        for k, v in data.items():
            found += [path + (k,)] + leaves(v, path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found += [path + (i,)] + leaves(v, path + (i,))
    return found


def get(data, path):
    for part in path:
        data = data[part]
    return data


def _load(kind: str) -> dict:
    return tomllib.loads(KINDS[kind][0].read_text(encoding="utf-8"))


def _argv(kind: str, file: Path) -> list[str]:
    return [str(file) if tok == "{}" else tok for tok in KINDS[kind][1]]


def _run(kind: str, text: str | bytes, folder: Path):
    file = folder / "fuzzed.toml"
    if isinstance(text, bytes):
        file.write_bytes(text)
    else:
        file.write_text(text, encoding="utf-8")
    argv = _argv(kind, file)
    code, out, err = run_inprocess(argv, timeout=60)
    assert_clean(argv, code, out, err, " ".join(argv[:2]))
    assert len(err.encode()) < 10_000, f"{len(err)} bytes on stderr"
    return code, out, err


# --------------------------------------------------------------------------- extra="forbid"


def _unknown_key_cases():
    cases = []
    for kind in KINDS:
        for path in tables(_load(kind)):
            cases.append(pytest.param(kind, path, id=f"{kind}:{'.'.join(map(str, path)) or '(top)'}"))
    return cases


@pytest.mark.parametrize("kind, table", _unknown_key_cases())
def test_unknown_key_in_any_table_is_named(kind, table, tmp_path):
    data = _load(kind)
    get(data, table)[UNKNOWN] = 1
    code, out, err = _run(kind, dumps(data), tmp_path)
    assert code == 2, f"{kind}: unknown key in [{'.'.join(map(str, table))}] accepted"
    assert UNKNOWN in err, err


# --------------------------------------------------------------------------- random mutations

WRONG_VALUES = st.one_of(
    st.integers(-3, 30), st.sampled_from([10**6, 2**31, 2**63 - 1, 2**63, 10**30, -(10**9)]),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
    st.text(max_size=12), st.sampled_from(["", "☃", "x" * 300, "D6", "2D6+1", "none"]),
    st.lists(st.integers(-2, 9), max_size=3), st.just({}), st.just({"a": 1}),
)


@st.composite
def mutated(draw, kind: str) -> str | bytes:
    data = _load(kind)
    how = draw(st.sampled_from(["replace", "replace", "delete", "add", "truncate", "garble",
                                "bytes", "drop line", "duplicate line", "deep", "long list"]))
    text = KINDS[kind][0].read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    if how in ("truncate", "garble", "bytes"):
        cut = draw(st.integers(0, len(text)))
        if how == "truncate":
            return text[:cut]
        if how == "bytes":  # garbage bytes: invalid UTF-8, NULs, control characters
            raw = text.encode("utf-8")
            return raw[:cut] + draw(st.binary(min_size=1, max_size=16)) + raw[cut:]
        return text[:cut] + draw(st.text(min_size=1, max_size=8)) + text[cut:]
    if how in ("drop line", "duplicate line"):
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if how == "drop line":
            return "".join(lines[:i] + lines[i + 1:])
        return "".join(lines[:i + 1] + lines[i:])  # a duplicate key, or a repeated table
    if how == "deep":  # nesting or dotted keys past every bound
        depth = draw(st.sampled_from([33, 40, 100, 3000]))
        if draw(st.booleans()):
            return text + "\nzz = " + "[" * depth + "]" * depth + "\n"
        return text + "\n" + ".".join(["zz"] * depth) + " = 1\n"
    if how == "long list":  # an array of tables repeated past its cap
        blocks = [i for i, line in enumerate(lines) if line.startswith("[[")]
        if blocks:
            start = draw(st.sampled_from(blocks))
            end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("[")),
                       len(lines))
            return "".join(lines[:end] + lines[start:end] * draw(st.sampled_from([250, 1200]))
                           + lines[end:])
        return text + "zz = [" + ", ".join(["1"] * 1500) + "]\n"
    if how == "add":
        table = get(data, draw(st.sampled_from(tables(data))))
        table[draw(st.text(min_size=1, max_size=8))] = draw(WRONG_VALUES)
        return dumps(data)
    path = draw(st.sampled_from(leaves(data)))
    parent = get(data, path[:-1])
    if how == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(WRONG_VALUES)
    return dumps(data)


def _fuzz(kind, data, tmp_path_factory):
    text = data.draw(mutated(kind))
    _run(kind, text, tmp_path_factory.mktemp("toml"))


FAST = settings(max_examples=int(os.environ.get("MATHHAMMER_FUZZ_EXAMPLES", "8")), deadline=None,
                suppress_health_check=list(HealthCheck), database=None, derandomize=DERANDOMIZE)
SLOW = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck),
                database=None)


@pytest.mark.parametrize("kind", sorted(KINDS))
@FAST
@given(data=st.data())
def test_fuzz_file(kind, data, tmp_path_factory):
    _fuzz(kind, data, tmp_path_factory)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(KINDS))
@SLOW
@given(data=st.data())
def test_fuzz_file_long(kind, data, tmp_path_factory):
    _fuzz(kind, data, tmp_path_factory)


# --------------------------------------------------------------------------- dice text


DICE_TOKENS = st.sampled_from(list("0123456789DdkhlKH+-*/()x! ") + ["D6", "D3", "kh", "☃"])
DICE_TEXT = st.lists(DICE_TOKENS, max_size=10).map("".join)


@settings(max_examples=300, deadline=None, database=None, derandomize=DERANDOMIZE)
@given(text=st.one_of(DICE_TEXT, st.text(max_size=10)))
def test_fuzz_dice_expression_library(text):
    """parse_dice either gives a distribution summing to 1 or a DiceExpressionError."""
    from mathhammer.dice import parse_dice
    from mathhammer.errors import DiceExpressionError

    try:
        expr = parse_dice(text)
        probs = expr.probs  # too large to enumerate: a DiceExpressionError too
    except DiceExpressionError as err:
        assert "\n" not in err.one_line() and "fix: " in err.one_line()
        return
    assert abs(float(sum(probs)) - 1.0) < 1e-9
    assert all(p >= 0 for p in probs)


@settings(max_examples=12, deadline=None, database=None, derandomize=DERANDOMIZE)
@given(text=DICE_TEXT.filter(bool))
def test_fuzz_dice_expression_cli(text):
    argv = ["roll", text, "--method", "exact", "--format", "json"]
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err, "roll")
