"""Battles on several cores or a Dask cluster, chunk by chunk (the same chunks, the same seeds).

The battle's steps are Python: threads would only take turns holding the interpreter, so
the local pool is worker *processes* (each keeps its own tables, and takes those another
built from the run's private folder), and a Dask cluster runs the very same chunk function on
its workers. Chunk i always draws from chunk i's stream
(:func:`mathhammer.rng.chunk_state`), and integer tallies add up in any order: the
answer is bit-identical to one worker's.
"""

from __future__ import annotations

import os
from typing import Any

from mathhammer.errors import InputError

_PLANS: dict = {}  # per process: the plan of the run (a worker builds it once)
#: a run's worker processes write the tables they build to a private folder and read the
#: others' from it (shared_tables.share_through); False: each builds its own (the same answer)
WORKERS_SHARE_TABLES = True


def run(recipe, n_trials: int, seed: int | None, *, workers: int = 1,
        scheduler: Any = None, progress=None, plan=None) -> tuple[dict, int, Any]:
    """Play ``n_trials`` battles; returns (summed tallies, the seed, the plan)."""
    from mathhammer.engine import validate_trials
    from mathhammer.fantasy.battle.runner import MAX_BATTLES, build_plan, chunk_sizes
    from mathhammer.rng import resolve_seed

    validate_trials(n_trials, "‹n_trials›")
    if n_trials > MAX_BATTLES:
        raise InputError("‹n_trials›", f"at most {MAX_BATTLES:,} battles in one run", n_trials,
                         "use ‹n_trials› 10000")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 256:
        raise InputError("‹workers›", "must be between 1 and 256", workers, "use ‹workers› 2")
    seed = resolve_seed(seed)
    plan = plan or build_plan(recipe)
    sizes = chunk_sizes(n_trials)
    if scheduler is not None and scheduler != "local":
        return run_dask(recipe, sizes, seed, scheduler), seed, plan
    if progress:
        progress(0, n_trials)
    if workers == 1 or len(sizes) == 1:
        return _in_process(plan, sizes, seed, progress, n_trials), seed, plan
    return run_processes(plan, sizes, seed, workers, progress, n_trials), seed, plan


def _in_process(plan, sizes: list[int], seed: int, progress, n_trials: int) -> dict:
    """The engine's own chunk runner (one worker thread; Ctrl-C keeps the finished chunks)."""
    from mathhammer import engine
    from mathhammer.errors import Interrupted
    from mathhammer.fantasy.battle.runner import run_chunk

    done = 0

    def on_chunk(size: int) -> None:
        nonlocal done
        done += size
        if progress:
            progress(done, n_trials)

    try:
        return engine._run_chunks(lambda n, words: run_chunk(plan, n, words), sizes, seed, 0, 1,
                                  on_chunk)
    except engine._PartialInterrupt as stop:
        partial = engine.MonteCarloRun(stop.tally, stop.n_done, seed, stop.n_chunks, True)
        raise Interrupted(partial if stop.n_done else None) from None


def _process_chunk(args) -> dict:
    from mathhammer.fantasy.battle.runner import run_chunk
    from mathhammer.rng import chunk_state

    key, seed, i, size = args
    return run_chunk(_PLANS[key], size, chunk_state(seed, i))


def run_processes(plan, sizes: list[int], seed: int, workers: int, progress, n_trials: int) -> dict:
    import tempfile
    from concurrent.futures import as_completed

    from mathhammer.fantasy.battle import shared_tables
    from mathhammer.fantasy.battle.runner import _add
    from mathhammer.workers import pool_of

    key = id(plan)
    _PLANS[key] = plan  # inherited by the forked workers (tables built so far included)
    total: dict = {}
    done = 0
    processes = min(workers, len(sizes), os.cpu_count() or 1)  # more would only queue
    # the workers' tables meet in a private folder: one builds, the others read (the same
    # tables, so the same answers; each had built its own)
    folder = None
    if WORKERS_SHARE_TABLES and shared_tables.enabled():
        try:
            folder = tempfile.TemporaryDirectory(prefix="mathhammer-tables-",
                                                 ignore_cleanup_errors=True)
        except OSError:  # no temporary folder to be had: each worker builds its own
            folder = None
    # set in each worker as it starts, never in this process (its other threads, a web
    # server's other queries, keep their own tables)
    share = {} if folder is None else {"initializer": shared_tables.share_through,
                                       "initargs": (folder.name,)}
    try:
        # after Ctrl-C the pool is stopped now, not after the running chunks
        with pool_of(processes, "fork", **share) as pool:
            futures = {pool.submit(_process_chunk, (key, seed, i, size)): size
                       for i, size in enumerate(sizes)}
            for fut in as_completed(futures):
                _add(total, fut.result())
                done += futures.pop(fut)  # its tally added: let it go (hundreds of chunks)
                if progress:
                    progress(done, n_trials)
            # the first decisions' battle (first.first_decisions) in a worker holding the
            # run's tables: this process has built none (~1 s of tables for one battle)
            first = pool.submit(_first_decisions_job, (key, seed)).result()
    finally:
        _PLANS.pop(key, None)
        if folder is not None:
            folder.cleanup()
    from mathhammer.fantasy.battle.first import FIRST_DECISIONS

    total[FIRST_DECISIONS] = first
    return total


def _first_decisions_job(args) -> list[dict]:
    from mathhammer.fantasy.battle.first import first_decisions

    key, seed = args
    return first_decisions(_PLANS[key], seed)


def _dask_chunk(recipe, seed: int, i: int, size: int) -> dict:
    from mathhammer.fantasy.battle.runner import build_plan, run_chunk
    from mathhammer.rng import chunk_state

    import threading

    # one plan per worker thread: a plan's kernel holds the battle in play (its scratch)
    key = ("dask", repr(recipe), threading.get_ident())
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = build_plan(recipe)
    return run_chunk(plan, size, chunk_state(seed, i))


def run_dask(recipe, sizes: list[int], seed: int, scheduler: Any) -> dict:
    """The chunks on a Dask cluster (``scheduler`` an address or a ``distributed.Client``)."""
    from mathhammer.analysis.pool import dask_map
    from mathhammer.fantasy.battle.runner import _add

    n = len(sizes)
    parts = dask_map(_dask_chunk, [recipe] * n, [seed] * n, list(range(n)), sizes,
                     scheduler=scheduler)
    total: dict = {}
    for part in parts:
        _add(total, part)
    return total
