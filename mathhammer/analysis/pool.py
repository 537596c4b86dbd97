"""Run many cells: a local thread pool by default, or a Dask distributed cluster.

Every cell carries its own seed (:func:`mathhammer.analysis.cells.cell_seed`) and
runs its Monte Carlo on one thread, so the answer of a cell does not depend on
where or in which order it runs: the local pool and a Dask cluster give identical
numbers for the same seed. The kernels release the GIL, so threads use every core.

``scheduler`` may be ``None`` (local pool), ``"local"`` (the same), a Dask
scheduler address (``"tcp://10.0.0.5:8786"``) or a ``distributed.Client``.
Dask is an optional dependency: it is imported only when a scheduler is given.

The cells are checked before any runs: every trial count at least 1, every round
count at least 1, and the trials of the whole command (cells x trials) within
:data:`mathhammer.engine.MAX_TRIALS`, not only each cell's. Ctrl-C stops the command
at once: queued cells never start and running ones stop at their next chunk
(:data:`mathhammer.engine.STOP`) instead of the pool waiting for them to finish.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any

from mathhammer.analysis.cells import Cell, CellResult, evaluate
from mathhammer.errors import InputError, TrialLimitError

Progress = Callable[[int, int], None]  # (cells done, cells planned)


def run_cells(cells: Sequence[Cell], *, scheduler: Any = None, workers: int | None = None,
              progress: Progress | None = None) -> list[CellResult]:
    """Evaluate ``cells``; results come back in the order of ``cells``."""
    if workers is not None and not 1 <= workers <= 256:  # -3 was taken as "every core"
        raise InputError("‹workers›", "must be between 1 and 256", workers, "use e.g. ‹workers› 2")
    if not cells:
        return []
    check_cells(cells)
    if progress:
        progress(0, len(cells))  # the planned size, before the first cell
    if scheduler is None or scheduler == "local":
        return _local(list(cells), workers, progress)
    return _dask(list(cells), scheduler)


def check_cells(cells: Sequence[Cell]) -> None:
    """Bad counts and unbounded work are one line each, before any cell runs."""
    from mathhammer.engine import MAX_TRIALS, validate_trials

    for cell in cells:
        validate_trials(cell.n_trials, "‹n_trials›")
        if cell.rounds is not None and (isinstance(cell.rounds, bool) or cell.rounds < 1):
            raise InputError("‹rounds›", "must be at least 1", cell.rounds,
                             "use e.g. ‹rounds› 3, or leave it out (until decided)")
    simulated = [c for c in cells if c.method != "exact"]  # auto may fall back to Monte Carlo
    total = sum(c.n_trials for c in simulated)
    if total > MAX_TRIALS:
        per_cell = max(c.n_trials for c in simulated)
        raise TrialLimitError(
            "‹n_trials›", f"{len(simulated):,} cells x {per_cell:,} trials = {total:.2e} trials "
            f"in all, above the limit of {MAX_TRIALS:.0e} for one command", per_cell,
            f"use at most ‹n_trials› {max(1, MAX_TRIALS // len(simulated)):,}, or fewer cells")


def planned_trials(cells: Sequence[Cell]) -> int:
    """Monte Carlo trials the cells may run in all (exact cells count none)."""
    return sum(c.n_trials for c in cells if c.method != "exact")


def _local(cells: list[Cell], workers: int | None, progress: Progress | None) -> list[CellResult]:
    n_workers = max(1, min(workers or os.cpu_count() or 1, len(cells)))
    out: list[CellResult | None] = [None] * len(cells)
    if n_workers == 1 or len(cells) == 1:
        for i, cell in enumerate(cells):  # on this thread: Ctrl-C reaches the cell's engine
            out[i] = evaluate(cell)
            if progress:
                progress(i + 1, len(cells))
        return out  # type: ignore[return-value]
    out[0] = evaluate(cells[0])  # first cell alone: any first-run kernel compile happens once
    done = 1
    if progress:
        progress(done, len(cells))
    from mathhammer.engine import STOP

    stop = threading.Event()
    context = contextvars.copy_context()
    context.run(STOP.set, stop)  # the cells' engines see it; this thread's context does not

    def job(i: int) -> tuple[int, CellResult]:
        return i, context.copy().run(evaluate, cells[i])

    pool = ThreadPoolExecutor(max_workers=n_workers, thread_name_prefix="mathhammer-cell")
    finished = False
    try:
        pending = {pool.submit(job, i) for i in range(1, len(cells))}
        while pending:
            # a timeout keeps this thread answering Ctrl-C while the cells run
            ready, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in ready:
                i, result = fut.result()
                out[i] = result
                done += 1
                if progress:
                    progress(done, len(cells))
        finished = True
    finally:
        if not finished:  # Ctrl-C or a failing cell: stop the rest now, do not wait for it
            stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
    pool.shutdown(wait=True)
    return out  # type: ignore[return-value]


def dask_client(scheduler: Any) -> tuple[Any, bool]:
    """The Dask client for ``scheduler`` (an address or a ``distributed.Client``) and whether
    it is ours to close; a missing install, a bad address or an unreachable scheduler is one
    line at ‹scheduler›."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - depends on the install
        raise InputError("‹scheduler›", "needs dask.distributed, which is not installed", scheduler,
                         "pip install 'mathhammer[dask]' or drop ‹scheduler›") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str) or ":" not in scheduler:
        raise InputError("‹scheduler›", "must be a Dask scheduler address", scheduler,
                         "use e.g. ‹scheduler› tcp://127.0.0.1:8786")
    try:
        return Client(scheduler, timeout="10s", set_as_default=False), True
    except (OSError, TimeoutError) as err:
        raise InputError("‹scheduler›", f"cannot reach the Dask scheduler ({err})", scheduler,
                         "start one with `dask scheduler` or check the address") from None


def dask_map(fn: Any, *iterables: list, scheduler: Any) -> list:
    """``fn`` over ``iterables`` on the cluster, results in order; on Ctrl-C or a failure the
    cluster drops the queued work, and a client made here is closed."""
    client, own = dask_client(scheduler)
    futures = None
    try:
        futures = client.map(fn, *iterables, pure=False)
        result = client.gather(futures)
        futures = None
        return result
    finally:
        if futures is not None:
            try:
                client.cancel(futures)
            except Exception:  # noqa: BLE001 - best effort while stopping
                pass
        if own:
            client.close()


def _dask(cells: list[Cell], scheduler: Any) -> list[CellResult]:
    return dask_map(evaluate, cells, scheduler=scheduler)
