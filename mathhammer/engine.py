"""Game-agnostic Monte Carlo driver: fixed chunking, threads, progress, adaptivity.

A query hands the engine a *chunk function* ``run_chunk(n_trials, state) ->
dict[str, np.ndarray]`` (it calls one serial ``nogil`` kernel and returns integer
counters / histograms). The engine

* splits ``n_trials`` into chunks whose count and sizes depend on ``n_trials``
  alone, chunk i seeded by :func:`mathhammer.rng.chunk_state`;
* runs chunks on worker threads that each take the next chunk and add its
  tally into one total (integer sums, so the result is bit-identical for any
  thread count); every chunk's state is computed up front in one vectorised
  pass, so a worker holds the GIL only for the few microseconds of calling its
  kernel and merging (the kernels release it: ``nogil=True``);
* in adaptive mode (``precision=ε``) keeps adding fixed-size chunks until every
  probability the query reports has a 95% Wilson half-width ≤ ε;
* never stores per-trial data: memory does not grow with ``n_trials``.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np

from mathhammer import trials
from mathhammer.errors import InputError, Interrupted, TrialLimitError
from mathhammer.results import Z95
from mathhammer.rng import chunk_state, chunk_states, resolve_seed

Tally = dict[str, np.ndarray]
ChunkFn = Callable[[int, np.ndarray], Tally]
ProgressFn = Callable[[int, int], None]  # (trials done, trials planned)

DEFAULT_TRIALS = trials.QUERY
MAX_TRIALS = 10**11  # ~minutes of the fastest kernel; beyond that a query is a mistake
MIN_CHUNK = 1 << 16
MAX_CHUNKS = 4096  # keeps chunks short so Ctrl-C answers quickly even for 10^9 trials
ADAPTIVE_CHUNK = 1 << 18
ADAPTIVE_MIN_BATCH = 4  # chunks per adaptive batch at least; never tied to the thread count


@dataclass(frozen=True)
class MonteCarloConfig:
    """How to run a Monte Carlo query.

    Attributes:
        n_trials: number of trials. Default 10^6. In adaptive mode, the first
            batch runs at least this many trials (rounded up to whole chunks).
        seed: user seed; None draws one (reported back in the result).
        threads: worker threads; None uses every core.
        precision: adaptive mode: stop when every reported probability's 95%
            half-width is ≤ this (0 < ε < 0.5).
        max_trials: cap on adaptive runs.
        progress: called after each chunk with (trials done, trials planned).
        n_trials_is_default: the caller did not choose ``n_trials``.
    """

    n_trials: int = DEFAULT_TRIALS
    seed: int | None = None
    threads: int | None = None
    precision: float | None = None
    max_trials: int = 10**10
    progress: ProgressFn | None = field(default=None, compare=False)
    #: n_trials was not asked for: a query with its own precision target may size the run
    #: from it instead (``fb turn``: :func:`trials_for_precision`)
    n_trials_is_default: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        validate_trials(self.n_trials, "‹n_trials›")
        if self.precision is not None and not 0.0 < self.precision < 0.5:
            raise InputError(
                "‹precision›", "must be a half-width strictly between 0 and 0.5",
                self.precision, "use e.g. ‹precision› 0.001",
            )
        validate_trials(self.max_trials, "max_trials")
        if self.precision is not None and self.precision < _narrowest_halfwidth(self.max_trials):
            # even a probability of exactly 0 or 1 cannot be pinned down this finely: say so
            # now rather than after the first batch
            raise TrialLimitError(
                "‹precision›", f"is finer than any 95% interval within {self.max_trials:.0e} "
                f"trials can be (at best {_narrowest_halfwidth(self.max_trials):.1e})",
                self.precision, "ask for a larger precision value, e.g. ‹precision› 0.001")
        if self.seed is not None:
            resolve_seed(self.seed)  # a bad seed fails before any kernel loads
        if self.threads is not None and not 1 <= self.threads <= 256:
            raise InputError("‹threads›", "must be between 1 and 256", self.threads,
                             "use e.g. ‹threads› 2")


CACHE_LINE = 64  # bytes


def padded_tallies(shapes: dict[str, int | tuple[int, ...]], dtype=np.int64) -> dict[str, np.ndarray]:
    """Zeroed tally arrays for one chunk, each on cache lines of its own inside one buffer
    padded at both ends: a kernel that counts into small arrays in its inner loop would
    otherwise share a cache line with the other thread's arrays (false sharing doubled the
    magic-phase kernel's CPU time on two threads, issue 17)."""
    item = np.dtype(dtype).itemsize
    line = CACHE_LINE // item
    sizes = {k: int(np.prod(v)) for k, v in shapes.items()}
    offsets, at = {}, line  # one empty line in front
    for k, n in sizes.items():
        offsets[k] = at
        at += -(-max(n, 1) // line) * line
    buf = np.zeros(at + 2 * line, dtype=dtype)  # and behind; the start is aligned below
    shift = (-buf.ctypes.data % CACHE_LINE) // item
    return {k: buf[shift + offsets[k]: shift + offsets[k] + sizes[k]].reshape(shapes[k])
            for k in shapes}


def _apart(states: np.ndarray) -> np.ndarray:
    """The chunk states one per cache line pair: two chunks running at once on two threads
    must not write their generator state into the same cache line (false sharing)."""
    rows, width = states.shape
    line = CACHE_LINE // states.itemsize
    stride = -(-width // line) * line + line
    buf = np.zeros(rows * stride + line, dtype=states.dtype)
    shift = (-buf.ctypes.data % CACHE_LINE) // states.itemsize
    out = buf[shift: shift + rows * stride].reshape(rows, stride)[:, :width]
    out[:] = states
    return out


def validate_trials(n_trials: int, where: str) -> None:
    if isinstance(n_trials, bool) or not isinstance(n_trials, (int, np.integer)):
        raise InputError(where, "must be a whole number", n_trials, "use e.g. ‹n_trials› 1000000")
    if n_trials <= 0:
        raise InputError(where, "must be at least 1", n_trials, "use e.g. ‹n_trials› 1000000")
    if n_trials > MAX_TRIALS:
        raise TrialLimitError(
            where, f"is above the limit of {MAX_TRIALS:.0e} trials", n_trials,
            "use fewer trials or ‹precision› to stop at a target error",
        )


def monte_carlo_only(subject: str, method: str | None, *, check: bool = False,
                     precision: float | None = None,
                     instead: str = "use ‹method› mc, or leave it out") -> None:
    """Refuse, in one line (exit 2), what a question with no exact answer cannot do — a whole
    battle, whose state is every unit's place and wounds: ‹method› exact (``instead``: the
    fix), ‹check› (exact against Monte Carlo) and ‹precision› (battles are counted, not run
    to a precision)."""
    if method == "exact":
        raise InputError("‹method›", f"{subject} is Monte Carlo only (its state is every "
                         "unit's place and wounds)", method, instead)
    if check:
        raise InputError("‹check›", f"{subject} has no exact answer to check the Monte Carlo "
                         "against", True, "leave ‹check› out")
    if precision is not None:
        raise InputError("‹precision›", f"{subject} plays a set number of battles, not to a "
                         "precision", precision, "use ‹n_trials› N instead")


def chunk_sizes(n_trials: int) -> list[int]:
    """Chunk sizes for a run; a function of ``n_trials`` only (reproducibility)."""
    n_chunks = max(1, min(MAX_CHUNKS, math.ceil(n_trials / MIN_CHUNK)))
    base, extra = divmod(n_trials, n_chunks)
    return [base + (1 if i < extra else 0) for i in range(n_chunks)]


@dataclass
class MonteCarloRun:
    """Summed tallies of a finished (or interrupted) run."""

    tally: Tally
    n_trials: int
    seed: int
    n_chunks: int
    interrupted: bool = False


def _add(total: Tally, part: Tally) -> None:
    """Add a chunk's tally into ``total`` in place (the first chunk of a key is copied)."""
    for key, arr in part.items():
        into = total.get(key)
        if into is None:
            total[key] = np.array(arr, copy=True)
        else:
            np.add(into, arr, out=into)


def _resolve_threads(threads: int | None) -> int:
    return threads or max(1, os.cpu_count() or 1)


#: set by a caller that runs queries on worker threads (compare and sweep cells): when the
#: event is set, a run started under it stops at its next chunk as if Ctrl-C reached it
#: (a signal only ever reaches the main thread)
STOP: ContextVar[threading.Event | None] = ContextVar("mathhammer_stop", default=None)


class _PartialInterrupt(Exception):
    def __init__(self, tally: Tally, n_done: int, n_chunks: int) -> None:
        super().__init__("interrupted")
        self.tally, self.n_done, self.n_chunks = tally, n_done, n_chunks


class _Shared:
    """What the workers of one ``_run_chunks`` call share: the next chunk, the sum, errors.

    Each worker takes the next chunk number itself and adds its tally into the one
    total under a lock, so the main thread holds the GIL only to report progress:
    while a worker is inside its (``nogil``) kernel, the other can prepare or merge.
    """

    def __init__(self, n_chunks: int, n_workers: int) -> None:
        self.next_chunk = itertools.count()  # next() is atomic under the GIL
        self.n_chunks = n_chunks
        self.lock = threading.Lock()
        self.total: Tally = {}
        self.n_done = 0
        self.n_finished = 0
        self.finished_sizes: list[int] = []  # progress not yet reported by the main thread
        self.error: BaseException | None = None
        self.stop = threading.Event()
        self.running = n_workers
        self.all_done = threading.Event()


def _worker(shared: _Shared, run_chunk: ChunkFn, sizes: list[int], states: np.ndarray) -> None:
    try:
        while not shared.stop.is_set():
            i = next(shared.next_chunk)
            if i >= shared.n_chunks:
                break
            part = run_chunk(sizes[i], states[i])
            with shared.lock:
                if shared.stop.is_set():  # the run ended (Ctrl-C, a failure) while this ran
                    break
                _add(shared.total, part)
                shared.n_done += sizes[i]
                shared.n_finished += 1
                shared.finished_sizes.append(sizes[i])
    except BaseException as err:  # KeyboardInterrupt from a chunk too: the main thread decides
        with shared.lock:
            if shared.error is None:
                shared.error = err
        shared.stop.set()
    finally:
        with shared.lock:
            shared.running -= 1
            if shared.running == 0:
                shared.all_done.set()


def _run_chunks(
    run_chunk: ChunkFn,
    sizes: list[int],
    seed: int,
    first_chunk: int,
    threads: int,
    on_chunk: Callable[[int], None],
) -> Tally:
    """Run chunks ``first_chunk..`` with sizes ``sizes`` and add their tallies.

    Integer tallies make the sum independent of which worker ran which chunk and
    in what order. On Ctrl-C the finished chunks are returned inside
    :class:`_PartialInterrupt`.
    """
    outer = STOP.get()  # set by a caller running this on a worker thread (cells)
    if len(sizes) == 1:  # one short chunk: run it here
        total: Tally = {}
        try:
            if outer is not None and outer.is_set():
                raise KeyboardInterrupt
            _add(total, run_chunk(sizes[0], chunk_state(seed, first_chunk)))
        except KeyboardInterrupt:
            raise _PartialInterrupt({}, 0, 0) from None
        try:
            on_chunk(sizes[0])
        except KeyboardInterrupt:
            raise _PartialInterrupt(total, sizes[0], 1) from None
        return total

    # Several chunks run on worker threads even with one thread: the main thread then
    # only waits, so Ctrl-C is seen at once instead of after the running (nogil) chunk.
    n_workers = min(threads, len(sizes))
    shared = _Shared(len(sizes), n_workers)
    states = _apart(chunk_states(seed, len(sizes), first_chunk))  # all at once: ~0.1 µs a chunk
    workers = [
        threading.Thread(target=_worker, args=(shared, run_chunk, sizes, states),
                         name=f"mathhammer-{k}", daemon=True)
        for k in range(n_workers)
    ]
    for w in workers:
        w.start()
    try:
        while True:
            # a timeout keeps the main thread responsive to Ctrl-C; progress is reported
            # here, in the caller's thread, once per finished chunk
            ended = shared.all_done.wait(0.1)
            if outer is not None and outer.is_set():
                raise KeyboardInterrupt  # the caller stopped the run: as a Ctrl-C here
            with shared.lock:
                report, shared.finished_sizes = shared.finished_sizes, []
            for size in report:
                on_chunk(size)
            if ended:
                break
    except KeyboardInterrupt:
        shared.stop.set()  # running chunks finish in the background and are dropped
        with shared.lock:
            raise _PartialInterrupt(shared.total, shared.n_done, shared.n_finished) from None
    except BaseException:
        shared.stop.set()
        raise
    if isinstance(shared.error, KeyboardInterrupt):
        raise _PartialInterrupt(shared.total, shared.n_done, shared.n_finished)
    if shared.error is not None:
        raise shared.error
    return shared.total


def simulate(
    run_chunk: ChunkFn,
    config: MonteCarloConfig,
    probabilities: Callable[[Tally, int], np.ndarray] | None = None,
) -> MonteCarloRun:
    """Run a Monte Carlo query.

    Args:
        run_chunk: ``(n_trials, state) -> tally``; must be safe to call from threads.
        config: trials, seed, threads, precision, progress.
        probabilities: for adaptive mode, maps (tally, n_trials) to every
            probability the query reports.

    Raises:
        Interrupted: on Ctrl-C, with ``partial`` set to the finished chunks' run.
    """
    seed = resolve_seed(config.seed)
    threads = _resolve_threads(config.threads)
    progress = config.progress
    done = 0

    if config.precision is None:
        sizes = chunk_sizes(config.n_trials)
        planned = config.n_trials

        def on_chunk(size: int) -> None:
            nonlocal done
            done += size
            if progress is not None:
                progress(done, planned)

        if progress is not None:
            progress(0, planned)  # the planned size first: a long run shows it at once
        try:
            tally = _run_chunks(run_chunk, sizes, seed, 0, threads, on_chunk)
        except _PartialInterrupt as stop:
            partial = MonteCarloRun(stop.tally, stop.n_done, seed, stop.n_chunks, True)
            raise Interrupted(partial if stop.n_done else None) from None
        return MonteCarloRun(tally, config.n_trials, seed, len(sizes))

    if probabilities is None:
        raise InputError("‹precision›", "is not available for this query", config.precision,
                         "use ‹n_trials› instead")
    # Adaptive: fixed-size chunks in growing batches; chunk i's stream never changes
    # and batch sizes depend on the tallies only (never on the thread count), so the
    # result depends on (seed, precision, n_trials) only.
    eps = config.precision
    tally: Tally = {}
    n_chunks = 0
    batch = max(ADAPTIVE_MIN_BATCH, math.ceil(config.n_trials / ADAPTIVE_CHUNK))
    planned = batch * ADAPTIVE_CHUNK

    def on_chunk_adaptive(size: int) -> None:
        nonlocal done
        done += size
        if progress is not None:
            progress(done, planned)

    if progress is not None:
        progress(0, planned)
    try:
        while True:
            part = _run_chunks(run_chunk, [ADAPTIVE_CHUNK] * batch, seed, n_chunks, threads,
                               on_chunk_adaptive)
            _add(tally, part)
            n_chunks += batch
            n = n_chunks * ADAPTIVE_CHUNK
            worst = float(np.max(wilson_halfwidth(probabilities(tally, n), n), initial=0.0))
            if worst <= eps:
                return MonteCarloRun(tally, n, seed, n_chunks)
            if n >= config.max_trials:
                raise TrialLimitError(
                    "‹precision›", f"not reached within {config.max_trials:.0e} trials "
                    f"(half-width {worst:.2g})", eps, "ask for a larger precision value",
                )
            # estimate the trials still needed from the worst half-width (∝ 1/√n)
            need = n * min(worst / eps, 1e100) ** 2  # --precision 1e-300 overflowed a float
            if need > 2 * config.max_trials:  # hopeless: say so now, not after 10^10 trials
                raise TrialLimitError(
                    "‹precision›", f"would need about {need:.1e} trials, above the limit of "
                    f"{config.max_trials:.0e} (half-width {worst:.2g} after {n:,})", eps,
                    "ask for a larger precision value",
                )
            grow = math.ceil(need / ADAPTIVE_CHUNK) - n_chunks
            batch = int(min(max(grow, ADAPTIVE_MIN_BATCH), n_chunks * 4))
            batch = min(batch, max(1, (config.max_trials - n) // ADAPTIVE_CHUNK))
            planned = n + batch * ADAPTIVE_CHUNK
    except _PartialInterrupt as stop:
        _add(tally, stop.tally)
        n = n_chunks * ADAPTIVE_CHUNK + stop.n_done
        partial = MonteCarloRun(tally, n, seed, n_chunks + stop.n_chunks, True)
        raise Interrupted(partial if n else None) from None


def trials_for_precision(eps: float) -> int:
    """The fewest trials whose 95% Wilson half-width is at most ``eps`` for every
    probability (the widest is at p = 1/2): a default run sized by a precision target."""
    def width(n: int) -> float:
        return float(wilson_halfwidth(np.array([0.5]), n)[0])

    # at p = 1/2 the Wilson half-width is z / (2 sqrt(n + z^2)); the loops fix the rounding
    n = max(1, math.ceil((Z95 / (2 * eps)) ** 2 - Z95 * Z95))
    while width(n) > eps:
        n += 1
    while n > 1 and width(n - 1) <= eps:
        n -= 1
    return n


def _narrowest_halfwidth(n: int) -> float:
    """The smallest 95% Wilson half-width ``n`` trials can give (at p = 0 or 1)."""
    return float(wilson_halfwidth(np.zeros(1), n)[0])


def wilson_halfwidth(p: np.ndarray, n: int) -> np.ndarray:
    """95% Wilson half-width of proportions ``p`` over ``n`` trials (vectorised)."""
    p = np.asarray(p, dtype=np.float64)
    z2n = Z95 * Z95 / n
    return Z95 / (1.0 + z2n) * np.sqrt(np.clip(p * (1 - p), 0, None) / n + z2n / (4.0 * n))
