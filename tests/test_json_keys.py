"""Every key says what it holds (issue 22 part 4), over every command's JSON.

A key starting ``p_`` holds a probability in [0, 1]: a number, an estimate whose
``value`` and ``ci95`` lie in [0, 1], a ``--check`` entry whose ``exact`` and
``monte_carlo`` do, or a list (a matrix) of such numbers. Text under a ``p_`` key is
a note about that result (``info`` describes results by their names); if the text is
a number (``"5/12"``, ``"9.98"``) it must lie in [0, 1] too. The walk covers the whole
document (results, distributions, info, matrices) of every command the Typer app has,
with and without ``--check``; a command that lands later is walked too.
"""

from __future__ import annotations

import json
import math

import pytest

from tests.test_reliability_harness import (
    BASE_ARGS, SKIP_COMMANDS, chdir_scratch, commands, option_specs, run_inprocess,
)

PROBABILITY_FIELDS = ("value", "exact", "monte_carlo")


def bad_probability_keys(node, path: str = "") -> list[str]:
    """Paths of ``p_*`` keys whose contents are not probabilities."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{path}.{key}" if path else str(key)
            if str(key).startswith("p_") and not _holds_probability(value):
                found.append(f"{here} = {json.dumps(value)[:120]}")
            found += bad_probability_keys(value, here)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += bad_probability_keys(value, f"{path}[{i}]")
    return found


def _is_p(x) -> bool:
    return x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)
                         and math.isfinite(x) and 0.0 <= x <= 1.0)


def _holds_probability(value) -> bool:
    if isinstance(value, dict):
        fields = [value[k] for k in PROBABILITY_FIELDS if k in value]
        ci = value.get("ci95") or []
        return bool(fields) and all(_is_p(x) for x in fields + list(ci))
    if isinstance(value, list):
        return all(_holds_probability(v) for v in value)
    if isinstance(value, str):
        number = _number(value)
        return number is None or _is_p(number)
    return _is_p(value)


def _number(text: str) -> float | None:
    from fractions import Fraction

    try:
        return float(Fraction(text.strip().rstrip("%"))) / (100 if text.strip().endswith("%")
                                                             else 1)
    except (ValueError, ZeroDivisionError):
        return None


def test_the_rule_itself_can_fail():
    assert bad_probability_keys({"info": {"check": {"p_cast": 1.295}}})
    assert bad_probability_keys({"results": {"p_kill_per_100": {"value": 9.98}}})
    assert bad_probability_keys({"matrix": {"p_kill": [[0.5, 1.5]]}})
    assert bad_probability_keys({"info": {"p_kill_per_100": "9.98"}})
    assert not bad_probability_keys({"info": {"p_hit": "exact for one shot", "p_x": "5/12"}})
    assert not bad_probability_keys({"info": {"check": {"p_cast": {
        "exact": 0.5, "monte_carlo": 0.51, "se": 0.01, "z": 1.0}}},
        "kills_per_100_points": 9.98, "p_kill": [[0.5, None]]})


def _json_argv(name: str, cmd, check: bool) -> list[str] | None:
    opts = {s["name"] for s in option_specs(cmd)}
    if "--format" not in opts:
        return None
    argv = name.split() + BASE_ARGS.get(name, []) + ["--format", "json"]
    if "--n-trials" in opts:
        argv += ["--n-trials", "2000"]
    if "--seed" in opts:
        argv += ["--seed", "1"]
    if "--quiet" in opts:
        argv += ["--quiet"]
    if check:
        if "--check" not in opts:
            return None
        argv += ["--check"]
    return argv


def _cases():
    cases = []
    for name, cmd in sorted(commands().items()):
        if name in SKIP_COMMANDS:
            continue
        for check in (False, True):
            argv = _json_argv(name, cmd, check)
            if argv is None:
                continue
            cases.append(pytest.param(argv, id=f"{name}{' --check' if check else ''}"))
    return cases


@pytest.mark.parametrize("argv", _cases())
def test_every_p_key_of_every_command_is_a_probability(argv, tmp_path):
    with chdir_scratch(tmp_path):
        code, out, err = run_inprocess(argv, timeout=120)
    if code == 2 and "--check" in argv:
        assert "--check" in err, err  # a command whose query has one engine says so
        return
    assert code == 0, err
    bad = bad_probability_keys(json.loads(out))
    assert not bad, "\n".join(bad)
