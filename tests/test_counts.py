"""Negative and zero counts on every command and method: one line, exit 2 (issue 22 part 2)."""

from __future__ import annotations

import pytest

from tests.test_reliability_harness import (
    BASE_ARGS, assert_clean, commands, option_specs, run_inprocess,
)

#: options that count things: attacks, shots, models, trials, dice, rounds, workers...
COUNTS = ("--attacks", "--shots", "--models", "--models-a", "--models-b", "--target-models",
          "--n-trials", "--dice", "--rounds", "--target-wounds", "--boxes", "--threads",
          "--workers", "--width", "--width-a", "--width-b")
METHODS = (["--method", "exact"], ["--method", "mc", "--seed", "1"])


def _cases():
    cases = []
    for name, cmd in sorted(commands().items()):
        if name not in BASE_ARGS:
            continue
        opts = {s["name"] for s in option_specs(cmd)}
        for flag in COUNTS:
            if flag in opts:
                for value in ("-1", "0"):
                    cases.append(pytest.param(name, flag, value, id=f"{name} {flag}={value}"))
    return cases


@pytest.mark.parametrize("name, flag, value", _cases())
def test_negative_or_zero_count_is_one_line_exit_2(name, flag, value, tmp_path):
    opts = {s["name"] for s in option_specs(commands()[name])}
    for method in METHODS if "--method" in opts else ([],):
        trials = [] if flag == "--n-trials" or "--n-trials" not in opts else ["--n-trials", "2000"]
        argv = name.split() + BASE_ARGS[name] + method + trials + [f"{flag}={value}", "-q"]
        code, out, err = run_inprocess(argv)
        assert_clean(argv, code, out, err, name)
        assert code == 2, f"`mathhammer {' '.join(argv)}` exit {code}: {out[:300]}"
