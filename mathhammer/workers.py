"""Worker processes for long runs: one way to start them and one way to stop them.

Ctrl-C in a terminal reaches the whole process group, workers included. A worker that
took it as a KeyboardInterrupt printed a traceback header ("Process ForkServerProcess-2:")
over the one-line stop, or sent the interrupt back as its chunk's result into a pipe the
stopped parent no longer read — a forked sibling held the pipe's other end, so the worker
waited there for ever (two orphans of ~280 MB each after `fb battle --workers 2`). Here the
workers never take Ctrl-C: the parent alone stops the run and ends them (:func:`stop_pool`).
A worker (and the forkserver it is forked from) starts with SIGINT blocked, so a Ctrl-C in
the first milliseconds of its life, before it could set anything, reaches it neither; the
parent blocks the signal only while it starts a process, and takes a Ctrl-C that came then
as soon as it unblocks (:func:`_sigint_held`).
"""

from __future__ import annotations

import multiprocessing.context as _mp_context
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager


def worker_pool(workers: int, method: str = "forkserver", initializer=None,
                initargs: tuple = ()) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started by ``method`` ("fork": they inherit this
    process's memory; "forkserver", or "spawn" where there is none: a clean interpreter)."""
    import multiprocessing as mp

    if method == "forkserver" and method not in mp.get_all_start_methods():
        method = "spawn"
    return ProcessPoolExecutor(workers, mp_context=_quiet_context(method),
                               initializer=_start_worker, initargs=(initializer, initargs))


def _quiet_context(method: str):
    """The multiprocessing context of ``method`` whose processes start with SIGINT blocked
    (the module docstring): a child inherits the signal mask of the thread that forks it,
    and a forkserver started then passes it on to every worker it forks."""
    import multiprocessing as mp

    base = mp.get_context(method)
    return type(f"Quiet{type(base).__name__}", (type(base),),
                {"Process": _QUIET_PROCESS[method]})()


class _Quiet:
    """A process started with SIGINT held (a mixin before a multiprocessing Process class)."""

    def start(self) -> None:
        with _sigint_held():
            super().start()


# one class per start method, named at module level: forkserver and spawn pickle the process
_QUIET_PROCESS = {}
for _method, _name in (("fork", "ForkProcess"), ("forkserver", "ForkServerProcess"),
                       ("spawn", "SpawnProcess")):
    if hasattr(_mp_context, _name):  # Windows has spawn only
        _QUIET_PROCESS[_method] = globals()[f"Quiet{_name}"] = type(
            f"Quiet{_name}", (_Quiet, getattr(_mp_context, _name)), {"__module__": __name__})


@contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT blocked in this thread for the block (pending, not lost: delivered at its end)."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # no signal masks (Windows): nothing to hold
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextmanager
def pool_of(workers: int, method: str = "forkserver", initializer=None,
            initargs: tuple = ()) -> Iterator[ProcessPoolExecutor]:
    """:func:`worker_pool` for a ``with`` block, stopped at its end by :func:`stop_pool` — at
    once when the block ends by an exception (Ctrl-C, an error)."""
    pool = worker_pool(workers, method, initializer, initargs)
    finished = False
    try:
        yield pool
        finished = True
    finally:
        stop_pool(pool, finished)


def _start_worker(initializer, initargs: tuple) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the run (module docstring)
    _leave_with_parent()
    if initializer is not None:
        initializer(*initargs)


def _leave_with_parent() -> None:
    """End this worker when the process that started it is gone: a parent that had to leave
    at once (the command line's Ctrl-C watchdog exits without stopping its pool) would
    otherwise leave workers computing or waiting for ever, holding the terminal's pipes.
    multiprocessing gives each child a sentinel, the read end of a pipe only its parent
    writes to: it reads as closed once the parent is gone (a forkserver's worker cannot watch
    its own parent process, the server, which lives as long as its workers)."""
    import multiprocessing
    import os
    import threading
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="mathhammer-parent-watch", daemon=True).start()


def stop_pool(pool: ProcessPoolExecutor, finished: bool) -> None:
    """Shut the workers down: after a finished run, when they are idle; after Ctrl-C or an
    error, now (queued chunks cancelled, running ones ended — a worker left computing or
    waiting for work would hold up the interpreter's exit, which joins its children)."""
    if finished:
        pool.shutdown(wait=True)
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    for proc in processes:
        proc.join(timeout=2)
