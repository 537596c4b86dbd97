"""Run a web query through the CLI's own path, bounded: caps, a worker pool, deadlines.

A query becomes the argv the command line would get (:mod:`mathhammer.web.commands`)
and runs through the same Click parser, the same validated ``CommonOptions``, the
same library call and the same ``emit`` — which, with :data:`mathhammer.present.host.HOST`
set, hands the finished report here instead of printing it. So the numbers and the
error text are the CLI's by construction.

Bounds: a fixed pool of worker threads (the kernels release the GIL) behind a queue
of fixed depth (full: :class:`Busy`, a 503) and a bounded wait in it (``queue_wait``:
a query no worker took by then is dropped, 503); a trial cap checked before the run;
reads confined to the bundled data and this server's upload folder
(:mod:`mathhammer.read_scope`).

Stopping: every job runs under a :class:`Ticket` whose ``cancel`` event is set at the
run's deadline (``time_limit`` from its start, not from its arrival), when its client
leaves, or when the server stops. The Monte Carlo engine sees the event at its next
chunk (the progress hook and :data:`mathhammer.engine.STOP`, as for Ctrl-C). Exact
engines are Python loops with no such check, so a watchdog thread raises
:class:`_Stop` inside the worker thread (``PyThreadState_SetAsyncExc``) a moment later;
Python delivers it at the loop's next bytecode, and a numba kernel at its return. The
exception is only ever raised while the thread is inside the job (a lock guards the
hand-over), so the worker is free again within a fraction of a second.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import os
import re
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mathhammer.web.commands import (Command, Param, QueryRefused, click_root, find,
                                      printable)

#: the package's own data (bundled rulesets beside their code; a wheel's profiles)
PACKAGE = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Limits:
    """Per-server and per-request bounds (``mathhammer serve --help`` shows each)."""

    workers: int = max(1, min(4, os.cpu_count() or 1))  # queries computed at once
    queue: int = 32  # queries waiting beyond those; more get 503
    threads: int = 1  # Monte Carlo threads per query (same answer for any count)
    max_trials: int = 10_000_000  # --n-trials per query (per cell for compare/sweep)
    time_limit: float = 30.0  # seconds a query may compute (compare of two lists: a few)
    queue_wait: float = 10.0  # seconds a query may wait for a free worker; then 503
    max_plot_points: int = 1000  # outcomes (bars, cells) one chart may draw
    max_plot_bytes: int = 4 * 1024 * 1024  # bytes of one chart
    cache_outcomes: int = 200_000  # outcomes (distribution entries) the answer cache holds
    body_timeout: float = 10.0  # seconds a client may take to send a request's body
    header_timeout: float = 10.0  # seconds a connection may take to send a request's head
    max_connections: int = 500  # open connections; more: the oldest idle one is closed
    max_query: int = 8192  # characters of a query string
    max_body: int = 256 * 1024  # bytes of an uploaded TOML body (all files together)
    cache: int = 256  # finished reports kept for links, plots and repeats


@dataclass
class Outcome:
    """A finished query: the report, the command's own table text (or None), its plot."""

    report: Any
    table: str | None
    plot: Callable[[Path], None]
    seconds: float
    cached: bool = False
    #: what the routes made of it (its JSON text, its page view), made once on a worker
    made: dict = field(default_factory=dict)
    #: the command as typed (``wm duel``), the JSON's ``command`` as on the command line
    command: str | None = None


class QueryFailed(Exception):
    """The CLI's own one-line error for a query (it would exit 2 with this line)."""

    def __init__(self, line: str, status: int = 400) -> None:
        super().__init__(line)
        self.line, self.status = line, status


class Busy(Exception):
    """Every worker is busy and the queue is full: answer 503, try again shortly."""


class _Stop(BaseException):
    """The job's deadline passed, its client left or the server stops.

    A BaseException: raised into a worker thread by the watchdog, it must not be taken
    for a library error by an ``except Exception`` on its way out.
    """

    def __init__(self, why: str = "stopped") -> None:
        super().__init__(why)
        self.why = why


#: seconds between the cancel event and the first exception raised into the thread
#: (a Monte Carlo run stops by itself at its next chunk within that time)
GRACE = 0.15
#: seconds between two exceptions raised into a thread that is still inside its job
REPEAT = 0.5


class Ticket:
    """One job: its future, its cancel event, and why it was cancelled."""

    def __init__(self) -> None:
        self.cancel = threading.Event()
        self.why = ""
        self.submitted = time.monotonic()
        self.started: float | None = None  # set by the worker when the job begins
        self.future: Future | None = None
        self.thread_id: int | None = None
        self.deadline = float("inf")
        self.inside = False  # the worker is inside the job: an exception may be raised there
        self.lock = threading.Lock()  # guards inside against the watchdog
        self.cancelled_at: float | None = None
        self.last_shot = 0.0

    def stop(self, why: str) -> None:
        """Ask the job to stop (idempotent: the first reason is kept)."""
        if not self.cancel.is_set():
            self.why = why
            self.cancelled_at = time.monotonic()
            self.cancel.set()
        if self.future is not None:
            self.future.cancel()  # a job still in the queue never starts


class _Host:
    """What ``emit`` hands the report to and what the Monte Carlo engine reports to."""

    def __init__(self, ticket: Ticket) -> None:
        self.ticket = ticket
        self.result: tuple[Any, str | None, Callable, str | None] | None = None

    def receive(self, report, table, plot, command: str | None = None) -> None:
        self.result = (report, table, plot, command)

    def progress(self, done: int, planned: int) -> None:
        ticket = self.ticket
        if not ticket.cancel.is_set() and time.monotonic() > ticket.deadline:
            ticket.stop(f"stopped after {done:,} of {planned:,} trials")
        if ticket.cancel.is_set():
            raise _Stop(ticket.why)


#: code an exception must not land in: an import half done leaves a broken module for
#: every later query (numba once lost ``numba.core`` that way), a compile half done a broken
#: kernel, and lock-then-try code (logging, threading) a lock held for ever. A job in them
#: is left alone for now; the Monte Carlo engine's waits stop by themselves (engine.STOP)
_UNSAFE = ("<frozen importlib", os.sep + "importlib" + os.sep, os.sep + "numba" + os.sep,
           os.sep + "llvmlite" + os.sep, os.sep + "threading.py", os.sep + "concurrent" + os.sep,
           os.sep + "logging" + os.sep, os.sep + "queue.py")


def _safe_to_raise(thread_id: int) -> bool:
    """True when thread ``thread_id`` runs only the job's own Python code (see _UNSAFE)."""
    import sys

    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        name = frame.f_code.co_filename
        if name == __file__:
            return True  # reached the job's entry in this module: all inside it was checked
        if any(part in name for part in _UNSAFE):
            return False
        frame = frame.f_back
    return False


def _quiet_stops_in_finalizers() -> None:
    """A _Stop delivered while the garbage collector ran a finalizer (``__del__``) in the
    worker is dropped there by Python and printed as "Exception ignored": print nothing;
    the watchdog raises it again shortly."""
    import sys

    previous = sys.unraisablehook
    if getattr(previous, "_mathhammer_stop", False):
        return

    def hook(unraisable) -> None:
        if not isinstance(unraisable.exc_value, _Stop):
            previous(unraisable)

    hook._mathhammer_stop = True
    sys.unraisablehook = hook


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    """Raise ``exception`` in thread ``thread_id`` at its next bytecode (None: withdraw it)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exception) if exception else None)


def error_line(err: BaseException) -> str | None:
    """The one line the CLI prints (after ``error: ``) for ``err``, or None if it is a bug."""
    from mathhammer.cli import usage_line
    from mathhammer.errors import MathhammerError
    from mathhammer.present.flags import flag

    if isinstance(err, MathhammerError):
        return err.one_line(flag)  # the page shows the command line
    if hasattr(err, "format_message") and hasattr(err, "exit_code"):  # Click usage errors
        return usage_line(err)
    return None


class Runner:
    """The server's bounded executor of queries (one per app)."""

    def __init__(self, limits: Limits, upload_root: Path | None = None) -> None:
        from mathhammer.profiles import profiles_root

        self.limits = limits
        self.bundled = profiles_root().resolve()
        self._own_uploads = upload_root is None
        self.upload_root = Path(upload_root or tempfile.mkdtemp(prefix="mathhammer-web-"))
        self.upload_root.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.pool = ThreadPoolExecutor(max_workers=limits.workers, thread_name_prefix="mh-query")
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._in_flight = 0
        self._cache: OrderedDict[tuple, tuple[Outcome, int]] = OrderedDict()
        self._cached_outcomes = 0
        self.served = 0
        self.stopped_jobs = 0  # jobs ended by a deadline, a gone client or the stop
        self.dropped_jobs = 0  # jobs taken out of the queue before they started
        self.plot_lock = threading.Lock()  # matplotlib's font and text caches are shared
        self._running: set[Ticket] = set()
        self._wake = threading.Event()
        self._watchdog = threading.Thread(target=self._watch, name="mh-watchdog", daemon=True)
        self._watchdog.start()
        _quiet_stops_in_finalizers()

    # ------------------------------------------------------------------ admission
    @property
    def in_flight(self) -> int:
        return self._in_flight

    def start(self, job: Callable[[Ticket], Any], *, what: str = "query") -> Ticket:
        """Queue ``job(ticket)`` on a worker; raise :class:`Busy` if the queue is full."""
        ticket = Ticket()
        with self._lock:
            if self.stopping.is_set():
                raise Busy("the server is shutting down")
            if self._in_flight >= self.limits.workers + self.limits.queue:
                raise Busy(f"{self._in_flight} jobs running or waiting "
                           f"(limit {self.limits.workers} + {self.limits.queue} queued)")
            self._in_flight += 1
        context = contextvars.copy_context()  # each job sets HOST and read roots in its own

        def run() -> Any:
            waited = time.monotonic() - ticket.submitted
            if ticket.cancel.is_set():
                raise Busy(f"the {what} was dropped before it started ({ticket.why})")
            if waited > self.limits.queue_wait:
                raise Busy(f"no worker was free within {self.limits.queue_wait:g} s")
            try:
                with self._watched(ticket):
                    return job(ticket)
            except _Stop:  # raised outside the command's own handling (e.g. a plot's I/O)
                raise self._stopped(what, ticket) from None

        ticket.future = self.pool.submit(context.run, run)
        ticket.future.add_done_callback(self._done)
        return ticket

    def submit(self, fn: Callable[[], Any]) -> Future:
        """``fn()`` on a worker (no ticket needed): its future."""
        return self.start(lambda _ticket: fn()).future

    def _done(self, future: Future) -> None:
        with self._lock:
            self._in_flight -= 1
            self.served += 1
            if future.cancelled():
                self.dropped_jobs += 1

    # ------------------------------------------------------------------ stopping jobs
    @contextlib.contextmanager
    def _watched(self, ticket: Ticket):
        """Run the body as ``ticket``'s job: the watchdog may raise :class:`_Stop` inside it."""
        ticket.started = time.monotonic()
        ticket.deadline = ticket.started + self.limits.time_limit
        ticket.thread_id = threading.get_ident()
        with ticket.lock:
            ticket.inside = True
        with self._lock:
            self._running.add(ticket)
        self._wake.set()
        try:
            if self.stopping.is_set():
                ticket.stop("the server is shutting down")
            if ticket.cancel.is_set():
                raise _Stop(ticket.why)
            yield
        finally:
            self._leave(ticket)

    def _leave(self, ticket: Ticket) -> None:
        """Leave the job: no exception is raised into this thread after this returns."""
        for _ in range(100):  # a _Stop raised just before the lock was taken: go round again
            try:
                with ticket.lock:
                    ticket.inside = False
                _raise_in(ticket.thread_id, None)  # withdraw one raised but not yet delivered
                break
            except _Stop:
                continue
        with self._lock:
            self._running.discard(ticket)
            if ticket.cancel.is_set():
                self.stopped_jobs += 1

    def _watch(self) -> None:
        """The watchdog: deadlines, and the exception that ends a cancelled exact loop."""
        while True:
            with self._lock:
                running = list(self._running)
            if not running:
                self._wake.wait()
                self._wake.clear()
                continue
            now = time.monotonic()
            for ticket in running:
                if not ticket.cancel.is_set() and now > ticket.deadline:
                    ticket.stop(f"stopped after {now - (ticket.started or now):.1f} s")
                if ticket.cancel.is_set() and now - (ticket.cancelled_at or now) >= GRACE \
                        and now - ticket.last_shot >= REPEAT:
                    with ticket.lock:
                        if ticket.inside and _safe_to_raise(ticket.thread_id):
                            ticket.last_shot = now
                            _raise_in(ticket.thread_id, _Stop)
            self._wake.wait(0.05)
            self._wake.clear()

    def stop_all(self, why: str) -> None:
        """Cancel every queued and running job (the server is stopping)."""
        self.stopping.set()
        with self._lock:
            running = list(self._running)
        for ticket in running:
            ticket.stop(why)
        self._wake.set()

    # ------------------------------------------------------------------ caps
    def check_caps(self, command: Command, chosen: Mapping[str, list[str]]) -> None:
        """The per-request trial cap, in the CLI's one-line style, before any work."""
        values = chosen.get("n-trials")
        if not values:
            return
        try:
            n = int(values[-1])
        except ValueError:
            return  # not a number: the CLI's parser says so
        if n > self.limits.max_trials:
            precision = ("--precision with the time limit, or "
                         if command.param("precision") is not None else "")
            raise QueryRefused(
                f"--n-trials: is above this server's limit of {self.limits.max_trials:,} trials "
                f"per query (got {values[-1]}); fix: use fewer trials, or {precision}the "
                "command line for bigger runs", status=422)

    # ------------------------------------------------------------------ paths
    def bundled_path(self, param: Param, value: str, uploads: Mapping[str, Path]) -> str:
        """A path parameter's value: an upload, or a bundled file id under profiles/."""
        if param.key in uploads:
            return str(uploads[param.key])
        ident = value.strip().removesuffix(".toml").removeprefix("profiles/")
        named = (len(ident) <= 200 and re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_./-]*", ident)
                 and ".." not in ident)
        try:  # a name the file system refuses (too long, a bad byte) names no bundled file
            candidate = (self.bundled / f"{ident}.toml").resolve() if named else None
            found = (candidate is not None and candidate.is_relative_to(self.bundled)
                     and candidate.is_file())
        except (OSError, ValueError):
            found = False
        if not found:
            raise QueryRefused(
                f"{param.label}: names no bundled file (got {printable(value)[:80]}); fix: "
                "pick one of "
                "the bundled files (see /api/files) or upload the file")
        return str(candidate)

    def save_uploads(self, files: Mapping[str, tuple[str, bytes]]) -> tuple[Path, dict[str, Path]]:
        """Write uploaded TOML bodies to a fresh private folder; validate them as text first."""
        total = sum(len(body) for _, body in files.values())
        if total > self.limits.max_body:
            raise QueryRefused(f"upload: {total:,} bytes is above this server's limit of "
                               f"{self.limits.max_body:,} bytes; fix: send a smaller file",
                               status=413)
        folder = Path(tempfile.mkdtemp(prefix="q-", dir=self.upload_root))
        saved: dict[str, Path] = {}
        for key, (filename, body) in files.items():
            try:
                body.decode("utf-8")
            except UnicodeDecodeError:
                raise QueryRefused(f"{key}: the uploaded file is not UTF-8 text (got "
                                   f"{filename[:60]}); fix: upload a UTF-8 TOML file") from None
            stem = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(filename or key).stem)[:60] or key
            target = folder / key / f"{stem}.toml"
            target.parent.mkdir(mode=0o700)
            target.write_bytes(body)
            saved[key] = target
        return folder, saved

    # ------------------------------------------------------------------ running
    def cached(self, key: tuple) -> Outcome | None:
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
            return None if hit is None else hit[0]

    def remember(self, key: tuple, outcome: Outcome) -> None:
        """Keep ``outcome`` for repeats; the cache is bounded in entries and in outcomes."""
        weight = 1 + outcome_points(outcome)
        if weight > self.limits.cache_outcomes // 4:
            return  # one huge distribution would push out everything else
        with self._lock:
            if key in self._cache:
                self._cached_outcomes -= self._cache.pop(key)[1]
            self._cache[key] = (outcome, weight)
            self._cached_outcomes += weight
            while (len(self._cache) > self.limits.cache
                   or self._cached_outcomes > self.limits.cache_outcomes):
                self._cached_outcomes -= self._cache.popitem(last=False)[1][1]

    def run(self, argv: list[str], upload_folder: Path | None = None,
            ticket: Ticket | None = None) -> Outcome:
        """Run ``argv`` in this thread exactly as ``mathhammer`` would; raise QueryFailed.

        With ``ticket`` (a job started by :meth:`start`) the run stops when the ticket is
        cancelled; without one (warm-up) it runs under a ticket of its own.
        """
        if ticket is None:  # the warm-up: no deadline (a first compile may take a minute)
            ticket = Ticket()
            ticket.started = time.monotonic()
        from mathhammer import read_scope
        from mathhammer.present.host import HOST
        from mathhammer.engine import STOP

        host = _Host(ticket)
        token = HOST.set(host)  # reset below: a thread reused later must not keep it
        stop_token = STOP.set(ticket.cancel)  # the engine stops at its next chunk (cells too)
        roots = [self.bundled, PACKAGE] + ([upload_folder] if upload_folder is not None else [])
        name = " ".join(word for word in argv[:2] if not word.startswith("-")) or "query"
        try:
            with read_scope.only_under(*roots):
                click_root().main(args=argv, prog_name="mathhammer", standalone_mode=False)
        except _Stop:
            raise self._stopped(name, ticket) from None
        except Exception as err:  # noqa: BLE001 - every failure becomes an answer
            if ticket.cancel.is_set():  # the engine's own stop (Interrupted) or its fallout
                raise self._stopped(name, ticket) from None
            line = error_line(err)
            if line is None:
                if type(err).__name__ in ("Exit", "Abort") or isinstance(err, SystemExit):
                    raise QueryFailed(f"{name}: stopped without an answer") from None
                log_error(f"{name}: internal error", err)
                raise QueryFailed(f"{name}: internal error ({type(err).__name__}); the "
                                  "server log has the details", status=500) from None
            raise QueryFailed(self._shown(line, upload_folder)) from None
        finally:
            STOP.reset(stop_token)
            HOST.reset(token)
            if upload_folder is not None:
                import shutil

                shutil.rmtree(upload_folder, ignore_errors=True)
        if host.result is None:
            raise QueryFailed(f"{name}: gave no report", status=500)
        report, table, plot, command = host.result
        if upload_folder is not None:  # the answer names an upload by its own name too
            report.title = self._shown(report.title, upload_folder)
            report.info = {key: self._shown(value, upload_folder) if isinstance(value, str)
                           else value for key, value in report.info.items()}
            table = table if table is None else self._shown(table, upload_folder)
        return Outcome(report, table, plot, time.monotonic() - (ticket.started or 0.0),
                       command=command)

    def _stopped(self, name: str, ticket: Ticket) -> QueryFailed:
        if self.stopping.is_set():
            return QueryFailed(f"{name}: stopped, the server is shutting down", status=503)
        command = find(name.replace(" ", "/"))
        precision = ("a larger --precision, " if command is None
                     or command.param("precision") is not None else "")  # battles have none
        return QueryFailed(
            f"{name}: did not finish within this server's {self.limits.time_limit:g} s per "
            f"query ({ticket.why}); fix: a smaller query (fewer --n-trials, {precision}fewer "
            "rounds or units), or the command line for long runs", status=422)

    def _shown(self, line: str, upload_folder: Path | None) -> str:
        """Text as the user knows the files: uploads by their own names (never this server's
        folders), bundled files under profiles/."""
        if upload_folder is not None:
            line = re.sub(re.escape(str(upload_folder)) + r"/[^/\s]+/", "", line)
        return line.replace(str(self.bundled) + "/", "profiles/")

    def check_plot(self, outcome: Outcome) -> None:
        """Refuse a chart too big to draw here (matplotlib takes ~1.5 ms and ~500 bytes per
        bar; 200D1000 has 199,801 outcomes), before it takes a worker."""
        points = outcome_points(outcome)
        if points > self.limits.max_plot_points:
            raise QueryRefused(
                f"plot: {points:,} outcomes is above this server's limit of "
                f"{self.limits.max_plot_points:,} to draw in one chart; fix: the JSON answer "
                "has every outcome, or draw it with the command line's --plot", status=422)

    def plot_bytes(self, outcome: Outcome, suffix: str = ".svg",
                   ticket: Ticket | None = None) -> bytes:
        """The command's chart by the CLI's own plotting code, as SVG or PNG bytes."""
        self.check_plot(outcome)
        folder = Path(tempfile.mkdtemp(prefix="plot-", dir=self.upload_root))
        try:
            target = folder / f"plot{suffix}"
            with self.plot_lock:
                try:
                    outcome.plot(target)
                except _Stop:
                    why = ticket.why if ticket is not None else "stopped"
                    raise QueryFailed(f"plot: not drawn within this server's "
                                      f"{self.limits.time_limit:g} s ({why}); fix: draw it "
                                      "with the command line's --plot", status=422) from None
                finally:
                    _close_figures()  # one stopped half-way must not stay in pyplot's list
            size = target.stat().st_size
            if size > self.limits.max_plot_bytes:
                raise QueryRefused(f"plot: {size:,} bytes is above this server's limit of "
                                   f"{self.limits.max_plot_bytes:,}; fix: draw it with the "
                                   "command line's --plot", status=422)
            return target.read_bytes()
        finally:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        """Stop: queued jobs never start, running ones stop within a fraction of a second."""
        self.stop_all("the server is shutting down")
        self.pool.shutdown(wait=False, cancel_futures=True)
        if self._own_uploads:
            import shutil

            shutil.rmtree(self.upload_root, ignore_errors=True)


def outcome_points(outcome: Outcome) -> int:
    """Outcomes a report carries: distribution entries (a chart's bars), table cells."""
    points = 0
    for dist in (getattr(outcome.report, "distributions", None) or {}).values():
        points += len(getattr(dist, "probs", ()))
    table = outcome.table
    if table is not None:
        points += table.count("\n")
    return points


def _close_figures() -> None:
    import sys

    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


def log_error(what: str, err: BaseException) -> None:
    """A bug's traceback in the server log (through the rate-limited, escaped log)."""
    import logging

    logging.getLogger("mathhammer.web").error(what, exc_info=err)
