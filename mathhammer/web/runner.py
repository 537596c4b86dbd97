"""Run a web query through the CLI's own path, bounded: caps, a worker pool, deadlines.

A query becomes the argv the command line would get (:mod:`mathhammer.web.commands`)
and runs through the same Click parser, the same validated ``CommonOptions``, the
same library call and the same ``emit`` — which, with :data:`mathhammer.cli._common.HOST`
set, hands the finished report here instead of printing it. So the numbers and the
error text are the CLI's by construction.

Bounds: a fixed pool of worker threads (the kernels release the GIL) behind a queue
of fixed depth (full: :class:`Busy`, a 503); a trial cap checked before the run; a
deadline the Monte Carlo engine sees after every chunk (through the progress hook)
and the request sees as a timeout; reads confined to the bundled data and this
server's upload folder (:mod:`mathhammer.read_scope`).
"""

from __future__ import annotations

import contextvars
import os
import re
import tempfile
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathhammer.web.commands import Command, Param, QueryRefused, click_root

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


class QueryFailed(Exception):
    """The CLI's own one-line error for a query (it would exit 2 with this line)."""

    def __init__(self, line: str, status: int = 400) -> None:
        super().__init__(line)
        self.line, self.status = line, status


class Busy(Exception):
    """Every worker is busy and the queue is full: answer 503, try again shortly."""


class _Stop(Exception):
    """Raised from the engine's progress hook: the deadline passed or the server stops."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class _Host:
    """What ``emit`` hands the report to and what the Monte Carlo engine reports to."""

    def __init__(self, deadline: float, stopping: threading.Event) -> None:
        self.deadline, self.stopping = deadline, stopping
        self.result: tuple[Any, str | None, Callable] | None = None

    def receive(self, report, table, plot) -> None:
        self.result = (report, table, plot)

    def progress(self, done: int, planned: int) -> None:
        if self.stopping.is_set():
            raise _Stop("the server is shutting down")
        if time.monotonic() > self.deadline:
            raise _Stop(f"stopped after {done:,} of {planned:,} trials")


def error_line(err: BaseException) -> str | None:
    """The one line the CLI prints (after ``error: ``) for ``err``, or None if it is a bug."""
    from mathhammer.cli import usage_line
    from mathhammer.errors import MathhammerError

    if isinstance(err, MathhammerError):
        return err.one_line()
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
        self._cache: OrderedDict[tuple, Outcome] = OrderedDict()
        self.served = 0
        self.plot_lock = threading.Lock()  # matplotlib's font and text caches are shared

    # ------------------------------------------------------------------ admission
    @property
    def in_flight(self) -> int:
        return self._in_flight

    def submit(self, fn: Callable[[], Outcome]) -> Future:
        with self._lock:
            if self.stopping.is_set():
                raise Busy("the server is shutting down")
            if self._in_flight >= self.limits.workers + self.limits.queue:
                raise Busy(f"{self._in_flight} queries running or waiting "
                           f"(limit {self.limits.workers} + {self.limits.queue} queued)")
            self._in_flight += 1
        context = contextvars.copy_context()  # each query sets HOST and read roots in its own
        future = self.pool.submit(context.run, fn)
        future.add_done_callback(self._done)
        return future

    def _done(self, _future: Future) -> None:
        with self._lock:
            self._in_flight -= 1
            self.served += 1

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
            raise QueryRefused(
                f"--n-trials: is above this server's limit of {self.limits.max_trials:,} trials "
                f"per query (got {values[-1]}); fix: use fewer trials, or --precision with "
                "the time limit, or the command line for bigger runs", status=422)

    # ------------------------------------------------------------------ paths
    def bundled_path(self, param: Param, value: str, uploads: Mapping[str, Path]) -> str:
        """A path parameter's value: an upload, or a bundled file id under profiles/."""
        if param.key in uploads:
            return str(uploads[param.key])
        ident = value.strip().removesuffix(".toml").removeprefix("profiles/")
        candidate = (self.bundled / f"{ident}.toml").resolve()
        if (not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_./-]*", ident) or ".." in ident
                or not candidate.is_relative_to(self.bundled) or not candidate.is_file()):
            raise QueryRefused(
                f"{param.label}: names no bundled file (got {value[:80]}); fix: pick one of "
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
            return hit

    def remember(self, key: tuple, outcome: Outcome) -> None:
        with self._lock:
            self._cache[key] = outcome
            self._cache.move_to_end(key)
            while len(self._cache) > self.limits.cache:
                self._cache.popitem(last=False)

    def run(self, argv: list[str], upload_folder: Path | None = None) -> Outcome:
        """Run ``argv`` in this thread exactly as ``mathhammer`` would; raise QueryFailed."""
        from mathhammer import read_scope
        from mathhammer.cli._common import HOST

        started = time.monotonic()
        host = _Host(started + self.limits.time_limit, self.stopping)
        token = HOST.set(host)  # reset below: a thread reused later must not keep it
        roots = [self.bundled, PACKAGE] + ([upload_folder] if upload_folder is not None else [])
        try:
            with read_scope.only_under(*roots):
                click_root().main(args=argv, prog_name="mathhammer", standalone_mode=False)
        except _Stop as stop:
            raise QueryFailed(
                f"{' '.join(argv[:2])}: did not finish within this server's "
                f"{self.limits.time_limit:g} s per query ({stop.why}); fix: use fewer "
                "--n-trials or a larger --precision, or the command line for long runs",
                status=503 if self.stopping.is_set() else 422) from None
        except Exception as err:  # noqa: BLE001 - every failure becomes an answer
            line = error_line(err)
            if line is None:
                if type(err).__name__ in ("Exit", "Abort") or isinstance(err, SystemExit):
                    raise QueryFailed(f"{' '.join(argv[:2])}: stopped without an answer") from None
                traceback.print_exc()
                raise QueryFailed(f"{' '.join(argv[:2])}: internal error "
                                  f"({type(err).__name__}); the server log has the details",
                                  status=500) from None
            raise QueryFailed(self._shown(line, upload_folder)) from None
        finally:
            HOST.reset(token)
            if upload_folder is not None:
                import shutil

                shutil.rmtree(upload_folder, ignore_errors=True)
        if host.result is None:
            raise QueryFailed(f"{' '.join(argv[:2])}: gave no report", status=500)
        report, table, plot = host.result
        return Outcome(report, table, plot, time.monotonic() - started)

    def _shown(self, line: str, upload_folder: Path | None) -> str:
        """Error text as the user knows the files: uploads by their own names."""
        if upload_folder is not None:
            line = re.sub(re.escape(str(upload_folder)) + r"/[^/\s]+/", "", line)
        return line.replace(str(self.bundled) + "/", "profiles/")

    def plot_bytes(self, outcome: Outcome, suffix: str = ".svg") -> bytes:
        """The command's chart by the CLI's own plotting code, as SVG or PNG bytes."""
        folder = Path(tempfile.mkdtemp(prefix="plot-", dir=self.upload_root))
        try:
            target = folder / f"plot{suffix}"
            with self.plot_lock:
                outcome.plot(target)
            return target.read_bytes()
        finally:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        """Stop: queued queries never start, running Monte Carlo stops at its next chunk."""
        self.stopping.set()
        self.pool.shutdown(wait=False, cancel_futures=True)
        if self._own_uploads:
            import shutil

            shutil.rmtree(self.upload_root, ignore_errors=True)
