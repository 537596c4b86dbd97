"""Every default a help text states is the default the command uses (issue 15 part 6).

Walks the Typer app: each command's ``--n-trials`` help names its default, and a run
without ``--n-trials`` is stopped at its first Monte Carlo batch to read the trials it
planned; every other option whose help says "(default X)" has X as its real default.
"""

from __future__ import annotations

import re

import pytest

import mathhammer.engine as engine
from mathhammer.cli import main
from mathhammer.cli._common import DEFAULT_TRIALS
from tests.test_reliability_harness import BASE_ARGS, commands

DEFAULT_CLAIM = re.compile(r"\(default:? ([0-9][0-9,_.]*)\)")


class Planned(BaseException):
    """Raised instead of running the first batch: carries the trials it would run."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.n = n


def _option(cmd, flag: str):
    return next((p for p in cmd.params if flag in getattr(p, "opts", ())), None)


def _claimed(text: str) -> int | None:
    m = DEFAULT_CLAIM.search(text or "")
    return None if m is None else int(float(m.group(1).replace(",", "").replace("_", "")))


def test_the_cli_constant_is_the_engines():
    assert DEFAULT_TRIALS == engine.DEFAULT_TRIALS


def _trial_commands() -> list[str]:
    return sorted(n for n, c in commands().items() if _option(c, "--n-trials") is not None)


#: commands whose first runs are a cheaper screening pass; their default is the final pass's
STAGED = {"tune": "screens at 500 trials per cell, races at 4x and 16x, scores the best lists "
                  "at --n-trials"}


#: --n-trials help of commands whose cells are adaptive unless it is given (issue 29 part 6)
ADAPTIVE = "(default: adaptive, see --precision)"


@pytest.mark.parametrize("name", _trial_commands())
def test_documented_trials_default_is_the_one_run(name, monkeypatch):
    cmd = commands()[name]
    adaptive = ADAPTIVE in _option(cmd, "--n-trials").help
    if adaptive:
        from mathhammer.analysis import cells

        # the --precision default stated is the cells' own, and a cell starts at FIRST_BATCH
        assert f"(default {cells.DEFAULT_PRECISION:g})" in _option(cmd, "--precision").help
        claim = cells.FIRST_BATCH
    else:
        claim = _claimed(_option(cmd, "--n-trials").help)
    assert claim is not None, f"{name} --n-trials help states no default"
    if name in STAGED:
        from mathhammer.tuning import score

        assert claim == score.DEFAULT_TRIALS and "screens at 500" in _option(cmd, "--n-trials").help
        return
    if name not in BASE_ARGS:
        pytest.skip(f"no base invocation for {name}")

    def plan(run_chunk, sizes, *args, **kwargs):
        raise Planned(sum(sizes))

    monkeypatch.setattr(engine, "_run_chunks", plan)
    argv = name.split() + BASE_ARGS[name] + ["--seed", "1", "--quiet", "--format", "json"]
    if _option(cmd, "--method") is not None:
        argv += ["--method", "mc"]
    with pytest.raises(Planned) as planned:
        main(argv)
    assert planned.value.n == claim, f"{name}: help says {claim:,}, runs {planned.value.n:,}"


def test_other_stated_defaults_are_the_real_ones():
    wrong = {}
    for name, cmd in commands().items():
        for param in cmd.params:
            claim = _claimed(getattr(param, "help", None))
            if claim is None or param.default is None or "--n-trials" in param.opts:
                continue
            if float(param.default) != claim:
                wrong[f"{name} {param.opts[0]}"] = (claim, param.default)
    assert not wrong, wrong
