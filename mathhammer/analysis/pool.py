"""Run many cells: a local thread pool by default, or a Dask distributed cluster.

Every cell carries its own seed (:func:`mathhammer.analysis.cells.cell_seed`) and
runs its Monte Carlo on one thread, so the answer of a cell does not depend on
where or in which order it runs: the local pool and a Dask cluster give identical
numbers for the same seed. The kernels release the GIL, so threads use every core.

``scheduler`` may be ``None`` (local pool), ``"local"`` (the same), a Dask
scheduler address (``"tcp://10.0.0.5:8786"``) or a ``distributed.Client``.
Dask is an optional dependency: it is imported only when a scheduler is given.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from mathhammer.analysis.cells import Cell, CellResult, evaluate
from mathhammer.errors import InputError


def run_cells(cells: Sequence[Cell], *, scheduler: Any = None, workers: int | None = None,
              progress: Callable[[int, int], None] | None = None) -> list[CellResult]:
    """Evaluate ``cells``; results come back in the order of ``cells``."""
    if workers is not None and not 1 <= workers <= 256:  # -3 was taken as "every core"
        raise InputError("--workers", "must be between 1 and 256", workers, "use e.g. --workers 2")
    if not cells:
        return []
    if scheduler is None or scheduler == "local":
        return _local(list(cells), workers, progress)
    return _dask(list(cells), scheduler)


def _local(cells: list[Cell], workers: int | None, progress) -> list[CellResult]:
    n_workers = max(1, min(workers or os.cpu_count() or 1, len(cells)))
    if n_workers == 1:
        out = []
        for i, cell in enumerate(cells):
            out.append(evaluate(cell))
            if progress:
                progress(i + 1, len(cells))
        return out
    out = [evaluate(cells[0])]  # first cell alone: any first-run kernel compile happens once
    with ThreadPoolExecutor(max_workers=n_workers, thread_name_prefix="mathhammer-cell") as pool:
        futures = [pool.submit(evaluate, cell) for cell in cells[1:]]
        for fut in futures:
            out.append(fut.result())
            if progress:
                progress(len(out), len(cells))
        return out


def _dask(cells: list[Cell], scheduler: Any) -> list[CellResult]:
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - depends on the install
        raise InputError("--scheduler", "needs dask.distributed, which is not installed", scheduler,
                         "pip install 'mathhammer[dask]' or drop --scheduler") from None
    own = not isinstance(scheduler, Client)
    if own:
        if not isinstance(scheduler, str) or "://" not in scheduler and ":" not in scheduler:
            raise InputError("--scheduler", "must be a Dask scheduler address", scheduler,
                             "use e.g. --scheduler tcp://127.0.0.1:8786")
        try:
            client = Client(scheduler, timeout="10s", set_as_default=False)
        except (OSError, TimeoutError) as err:
            raise InputError("--scheduler", f"cannot reach the Dask scheduler ({err})", scheduler,
                             "start one with `dask scheduler` or check the address") from None
    else:
        client = scheduler
    try:
        futures = client.map(evaluate, cells, pure=False)
        return client.gather(futures)
    finally:
        if own:
            client.close()
