"""``mathhammer score LIST --meta META`` and ``mathhammer diff LIST_A LIST_B --meta META``.

Thin: parse, call :func:`mathhammer.tuning.score_list` / :func:`~mathhammer.tuning.diff_lists`,
render with the shared report view (the definition of the score: README, "List tuning").
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command
from mathhammer.cli.analysis import (
    Policy,
    Scheduler,
    Workers,
    _cell_progress,
)

# cells-only settings: refused in one line on battles, where --battles sizes the run
NTrialsCell = Annotated[Optional[int], typer.Option(
    "--n-trials", help="--model cells only: Monte Carlo trials per cell, fixed (default: "
                       "adaptive, see --precision). On battles: refused; use --battles.")]
PrecisionCell = Annotated[Optional[float], typer.Option(
    "--precision", help="--model cells only: each Monte Carlo cell runs until its P(kill)'s "
                        "95% half-width is at most this (default 0.0075). On battles: refused; "
                        "use --battles.")]
Rounds = Annotated[Optional[int], typer.Option(
    "--rounds", help="--model cells only: Fantasy combat rounds per cell (default: until "
                     "decided). On battles: refused; use --turns.")]

Model = Annotated[Optional[str], typer.Option(
    "--model", help="battle: play each meta list as whole battles (the default where the game "
                    "has battles); cells: per-turn attack cells.")]
Battles = Annotated[Optional[int], typer.Option(
    "--battles", help="--model battle: battles per list of the meta, i.e. per pairing (default 1000).")]
BattlePolicy = Annotated[Optional[str], typer.Option(
    "--battle-policy", help="Your general in battles: greedy (default), scripted or best-response.")]
MetaPolicy = Annotated[Optional[str], typer.Option(
    "--meta-policy", help="The meta lists' general in battles (default: as --battle-policy).")]
Turns = Annotated[Optional[int], typer.Option(
    "--turns", help="Rounds a battle lasts (default: the game's, Warmachine 5).")]

Meta = Annotated[str, typer.Option("--meta", help="Meta: the opposing lists and their weights "
                                                   "(a bundled name from profiles/metas/ or a meta "
                                                   "TOML file).")]


def _progress(opts: CommonOptions, meta: str, model: str | None, n_trials, precision):
    """The bar of score and diff: cells, or blocks of battles (``--model battle``)."""
    from mathhammer.tuning.battles import BLOCK, resolve_model
    from mathhammer.tuning.meta import load_meta

    if resolve_model(model, load_meta(meta).game) == "cells":
        return _cell_progress(opts, n_trials, precision)
    from mathhammer.cli._common import progress_bar
    from mathhammer.present.host import HOST

    if HOST.get() is not None or opts.quiet:
        return None
    return progress_bar(f"battles, {BLOCK} a block:", unit="blocks")


def _engine(opts: CommonOptions, n_trials, rounds, policy, scheduler, workers) -> dict:
    """The cell settings every tuning command passes on (and the first-compile notice)."""
    opts.config()  # installs the first-compile notice on stderr
    return dict(method=opts.method, n_trials=n_trials, seed=opts.seed, rounds=rounds, policy=policy,
                scheduler=scheduler, workers=workers)


def _battle(model, battles, battle_policy, meta_policy, turns) -> dict:
    """The battle settings (``--model battle``)."""
    return dict(model=model, n_battles=battles, battle_policy=battle_policy,
                meta_policy=meta_policy, turns=turns)


@query_command(only=("method", "seed", "format", "output", "quiet"), files=("army", "meta"))
def score_command(
    army: Annotated[str, typer.Argument(help="Army list TOML file, or a bundled list name.")],
    meta: Meta,
    rounds: Rounds = None,
    policy: Policy = "optimal",
    opts: CommonOptions = None,  # filled in by @query_command
    n_trials: NTrialsCell = None,
    precision: PrecisionCell = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
    model: Model = None,
    battles: Battles = None,
    battle_policy: BattlePolicy = None,
    meta_policy: MetaPolicy = None,
    turns: Turns = None,
    per_unit: Annotated[bool, typer.Option("--per-unit", help="--model battle: each entry's contribution (the list minus one copy of it, paired).")] = False,
) -> None:
    """A list against a meta: P(win), P(draw) and the VP margin on battles, or points destroyed and lost per turn on cells."""
    from mathhammer.tuning import score_list

    report = score_list(army, meta, **_engine(opts, n_trials, rounds, policy, scheduler, workers),
                        progress=_progress(opts, meta, model, n_trials, precision), precision=precision,
                        per_unit=per_unit, **_battle(model, battles, battle_policy, meta_policy, turns))
    emit(report, opts)


@query_command(only=("method", "seed", "format", "output", "quiet"),
               files=("list_a", "list_b", "meta"))
def diff_command(
    list_a: Annotated[str, typer.Argument(help="The list you have (A): a list TOML file or a bundled list name.")],
    list_b: Annotated[str, typer.Argument(help="The variant (B), a list TOML file or a bundled list name: the answer is B − A.")],
    meta: Meta,
    rounds: Rounds = None,
    policy: Policy = "optimal",
    opts: CommonOptions = None,  # filled in by @query_command
    n_trials: NTrialsCell = None,
    precision: PrecisionCell = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
    model: Model = None,
    battles: Battles = None,
    battle_policy: BattlePolicy = None,
    meta_policy: MetaPolicy = None,
    turns: Turns = None,
) -> None:
    """Two lists side by side against a meta: B − A with its paired standard error."""
    from mathhammer.tuning import diff_lists

    report = diff_lists(list_a, list_b, meta,
                        **_engine(opts, n_trials, rounds, policy, scheduler, workers),
                        progress=_progress(opts, meta, model, n_trials, precision), precision=precision,
                        **_battle(model, battles, battle_policy, meta_policy, turns))
    emit(report, opts)


@query_command(only=("method", "seed", "format", "output", "quiet"),
               files=("army", "options", "meta"))
def tune_command(
    army: Annotated[str, typer.Argument(help="Army list TOML file, or a bundled list name.")],
    options: Annotated[str, typer.Option("--options", help="What may change: an options file (profiles/options/ name or path).")],
    meta: Meta,
    points: Annotated[Optional[int], typer.Option("--points", help="Points cap (default: the list's own points limit).")] = None,
    budget_seconds: Annotated[float, typer.Option("--budget-seconds", help="Time for the search (the last scoring pass comes on top).")] = 30.0,
    max_lists: Annotated[Optional[int], typer.Option("--max-lists", help="Stop after this many candidate lists (a budget that gives the same answer on any machine).")] = None,
    top: Annotated[int, typer.Option("--top", help="How many lists to show.")] = 3,
    rounds: Rounds = None,
    policy: Policy = "optimal",
    opts: CommonOptions = None,  # filled in by @query_command
    n_trials: Annotated[Optional[int], typer.Option("--n-trials", help="--model cells only: Monte Carlo trials per cell when the best lists are scored against the input (default 20000); the search screens at 500 and races at 4x and 16x that. On battles: refused; use --battles.")] = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
    model: Model = None,
    battles: Annotated[Optional[int], typer.Option("--battles", help="--model battle: battles per meta list when the best lists are re-played against the input (default 1000); the search screens at 40 and races at 4x and 16x that.")] = None,
    battle_policy: BattlePolicy = None,
    meta_policy: MetaPolicy = None,
    turns: Turns = None,
) -> None:
    """The best lists an options file allows against a meta, as changes to LIST with their paired gain."""
    from mathhammer.tuning.tune import tune_list

    report = tune_list(army, options, meta, points=points, budget_seconds=budget_seconds,
                       max_lists=max_lists, top=top,
                       **_engine(opts, n_trials, rounds, policy, scheduler, workers),
                       **_battle(model, battles, battle_policy, meta_policy, turns))
    emit(report, opts)
