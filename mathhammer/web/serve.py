"""``mathhammer serve``: the local web page and HTTP API (``pip install 'mathhammer[web]'``).

The server's own bounds live here (the app's per-query bounds are in
:class:`mathhammer.web.Limits`): a request head must arrive within a few seconds of
its first byte (uvicorn has no such timeout of its own), open connections are capped
below the descriptor limit by closing the longest-idle one, and the log is escaped and
rate-limited so that a flood of bad requests cannot fill the disk.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Annotated

import typer

LOOPBACK = ("127.0.0.1", "localhost", "::1")

#: connections accepted in one go: asyncio accepts up to the listen backlog in one
#: callback, before any of them can be closed, so the cap can be overshot by this much
BACKLOG = 128
#: descriptors kept free for everything but connections: one accept batch beyond the cap,
#: as many closing, and the listening socket, kernels' cache files, uploads, plots, pipes
SPARE_DESCRIPTORS = 2 * BACKLOG + 128

SERVE_HELP = """Serve the pages and the JSON API on this machine (Ctrl-C stops it).

Limits: --workers queries compute at once and --queue more wait, each at most
--queue-wait seconds for a worker (then 503 with Retry-After); a query or chart is
stopped --time-limit seconds after it starts, or as soon as its client disconnects,
and its worker is free again within a fraction of a second (422). Charts go through
the same queue and draw at most 1,000 outcomes (4 MB). A request's head must arrive
within --request-timeout seconds of the connection (or of its first byte on a kept-alive
one), and its body as well; at most
--max-connections
are open at once (a new one closes the longest-idle); queries are at most 8 kB,
uploads 256 kB. Only the parameters listed at /api/commands are taken from a query;
the server's own options (--output, --plot, --threads, --scheduler, --format) never are.

Origin policy: no CORS headers; a browser request that says it comes from another
site (an Origin that is not this server, or Sec-Fetch-Site cross-site/same-site) is
refused with 403, except a plain link followed to a page. Scripts and curl send no
Origin and are served."""


def serve_command(
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on. Anything but 127.0.0.1 / localhost lets other "
        "machines in.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port (0 picks a free one).")] = 8000,
    workers: Annotated[int, typer.Option("--workers", help="Queries computed at once.")] = 2,
    queue: Annotated[int, typer.Option("--queue", help="Queries waiting beyond those; more get "
                                       "503 Busy.")] = 32,
    queue_wait: Annotated[float, typer.Option(
        "--queue-wait", help="Seconds a query may wait for a free worker before it is "
        "dropped (503).")] = 10.0,
    max_trials: Annotated[int, typer.Option("--max-trials", help="Largest --n-trials a query "
                                            "may ask for.")] = 10_000_000,
    time_limit: Annotated[float, typer.Option("--time-limit", help="Seconds a query may "
                                              "compute before it is stopped.")] = 30.0,
    request_timeout: Annotated[float, typer.Option(
        "--request-timeout", help="Seconds a client may take to send a request's head, and "
        "again its body; a slower connection is closed (a slow body gets 408).")] = 10.0,
    max_connections: Annotated[int, typer.Option(
        "--max-connections", help="Open connections at most (capped below the descriptor "
        "limit); a new one closes the longest-idle.")] = 500,
    no_warm: Annotated[bool, typer.Option(
        "--no-warm", help="Skip loading every kernel at start-up (the first query of each "
        "pays instead).")] = False,
) -> None:
    from mathhammer.errors import InputError

    for flag, value, low, high in (("--port", port, 0, 65535), ("--workers", workers, 1, 64),
                                   ("--queue", queue, 0, 10_000),
                                   ("--max-connections", max_connections, 8, 100_000),
                                   ("--max-trials", max_trials, 1, 10**11)):
        if not low <= value <= high:
            raise InputError(flag, f"must be between {low} and {high:,}", value,
                             f"use e.g. {flag} {max(low, 1)}")
    if not 0.1 <= time_limit <= 3600:  # a NaN fails this test too
        raise InputError("--time-limit", "must be between 0.1 and 3600 seconds", time_limit,
                         "use e.g. --time-limit 10")
    for flag, seconds in (("--queue-wait", queue_wait), ("--request-timeout", request_timeout)):
        if not 0.1 <= seconds <= 3600:
            raise InputError(flag, "must be between 0.1 and 3600 seconds", seconds,
                             f"use e.g. {flag} 10")
    try:
        import uvicorn

        from mathhammer.web import Limits, create_app
    except ImportError as err:
        raise InputError("serve", f"needs the web extra ({err.name} is not installed)", None,
                         "pip install 'mathhammer[web]' (make demo installs it)") from None
    import os
    import shutil
    import tempfile

    if host not in LOOPBACK:
        print(f"warning: listening on {host}: other machines can reach this server and use "
              "its CPU; it has no login. Use --host 127.0.0.1 to keep it on this machine.",
              file=sys.stderr, flush=True)
    connections = min(max_connections, max(8, _raise_descriptor_limit() - SPARE_DESCRIPTORS))
    limits = Limits(workers=workers, queue=queue, max_trials=max_trials, time_limit=time_limit,
                    queue_wait=queue_wait, max_connections=connections,
                    header_timeout=request_timeout, body_timeout=request_timeout)
    app = create_app(limits, warm=not no_warm,
                     allowed_hosts=("127.0.0.1", "localhost", "::1", "[::1]")
                     if host in LOOPBACK else None)
    # relative names in a query resolve inside an empty private folder, never the caller's;
    # removed again at the stop
    home, private = os.getcwd(), tempfile.mkdtemp(prefix="mathhammer-serve-")
    os.chdir(private)
    config = uvicorn.Config(app, host=host, port=port, log_config=LOG_CONFIG,
                            log_level="warning", access_log=False, timeout_graceful_shutdown=3,
                            lifespan="on", http=guarded_protocol(limits),
                            timeout_keep_alive=5, h11_max_incomplete_event_size=16 * 1024,
                            backlog=BACKLOG)
    server = _server_class(uvicorn, app.state.runner)(config)
    if not no_warm:
        print("mathhammer serve: loading the kernels (the first start on a machine compiles "
              "them once: up to a minute)...", file=sys.stderr, flush=True)
    _announce(server, host)
    try:
        server.run()
    finally:
        os.chdir(home)
        shutil.rmtree(private, ignore_errors=True)
    # queued queries were dropped and running ones stopped (the stop signal and the app's
    # shutdown); the CLI's exit skips waiting for a job stuck in native code
    print("mathhammer serve: stopped", file=sys.stderr, flush=True)


serve_command.__doc__ = SERVE_HELP


def _raise_descriptor_limit() -> int:
    """Lift the soft limit on open descriptors to the hard one; the soft limit in force."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    want = min(want, 65536)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else 65536


def guarded_protocol(limits):
    """uvicorn's h11 protocol with a request-head timeout and a cap on open connections.

    uvicorn times out idle keep-alive connections only: a client that opens a
    connection and sends a header a byte at a time (or nothing) held it for ever, and a
    thousand of them used up the descriptors. Here a request head must be complete
    within ``limits.header_timeout`` seconds of the connection opening (or of the first
    byte of the next request on a kept-alive one); and when ``limits.max_connections``
    are open, a new connection closes the one that has waited longest for a request
    head (a connection whose request is being answered is never closed).
    """
    import asyncio

    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedProtocol(H11Protocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._head_timer = None
            self._waiting_since = time.monotonic()
            self._arm_head_timer()
            if len(self.connections) > limits.max_connections:
                _shed(self)

        def _waiting_for_head(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm_head_timer(self) -> None:
            if self._head_timer is None:
                self._head_timer = asyncio.get_running_loop().call_later(
                    limits.header_timeout, self._head_timeout)

        def _disarm_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self._waiting_for_head() and not self.transport.is_closing():
                self.transport.close()  # nothing to answer: the head never came

        def data_received(self, data: bytes) -> None:
            if self._waiting_for_head():
                self._arm_head_timer()  # the next request's first byte starts its clock
            super().data_received(data)
            if not self._waiting_for_head():
                self._disarm_head_timer()

        def on_response_complete(self) -> None:
            self._waiting_since = time.monotonic()
            super().on_response_complete()

        def connection_lost(self, exc) -> None:
            self._disarm_head_timer()
            super().connection_lost(exc)

    def _shed(newcomer) -> None:
        """Close the connection waiting longest for a request head (the newcomer if none)."""
        idle = [c for c in newcomer.connections
                if c is not newcomer and getattr(c, "_waiting_for_head", lambda: False)()
                and not c.transport.is_closing()]
        victim = min(idle, key=lambda c: c._waiting_since) if idle else newcomer
        _LIMIT.note("connections", f"more than {limits.max_connections} open connections: "
                    "closing the longest-idle ones")
        victim.transport.close()

    return GuardedProtocol


class _RateLimit(logging.Filter):
    """At most a few log lines of one kind per window, then one line saying how many were
    left out; control characters in messages written as escapes (a request's text may
    carry terminal escape sequences)."""

    window = 10.0
    per_window = 5

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self.seen: dict[str, list] = {}  # kind -> [window start, count]

    def filter(self, record: logging.LogRecord) -> bool:
        from mathhammer.web.commands import printable

        kind = f"{record.name}:{record.msg if isinstance(record.msg, str) else ''}"[:200]
        now = time.monotonic()
        start, count = self.seen.get(kind, (now, 0))
        if now - start > self.window:
            if count > self.per_window:
                sys.stderr.write(f"(left out {count - self.per_window} more log lines like: "
                                 f"{printable(kind)[:120]})\n")
            start, count = now, 0
        count += 1
        self.seen[kind] = [start, count]
        if len(self.seen) > 1000:
            self.seen.clear()
        if count > self.per_window:
            return False
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot format: say so, plainly
            message = str(record.msg)
        record.msg, record.args = "\n".join(printable(line) for line in message.split("\n")), None
        return True

    def note(self, kind: str, message: str) -> None:
        """Log ``message`` through the same limit (for the server's own notices)."""
        logging.getLogger("mathhammer.web").warning(message)


_LIMIT = _RateLimit()


def rate_limit_filter() -> _RateLimit:
    return _LIMIT


LOG_CONFIG = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"limit": {"()": "mathhammer.web.serve.rate_limit_filter"}},
    "formatters": {"plain": {"format": "%(levelname)s: %(message)s"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr",
                            "formatter": "plain", "filters": ["limit"]}},
    "loggers": {
        "uvicorn": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
        "uvicorn.error": {"level": "WARNING"},
        "uvicorn.access": {"handlers": [], "level": "CRITICAL", "propagate": False},
        "asyncio": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
        "mathhammer.web": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
    },
}


def _server_class(uvicorn, runner):
    """uvicorn's server, but a Ctrl-C or SIGTERM is a clean stop (exit 0), not re-raised,
    and every running query is told to stop at once (not after the graceful wait)."""
    import signal

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True  # a second Ctrl-C: do not wait for open connections
            self.should_exit = True
            runner.stop_all("the server is shutting down")

    return Server


def _announce(server, host: str) -> None:
    """Print the address once the socket is bound (port 0 asks the OS for a free one)."""
    original = server.startup

    async def startup(sockets=None):
        await original(sockets=sockets)
        if server.started:
            for s in server.servers:
                for sock in s.sockets:
                    address = sock.getsockname()
                    shown = f"[{address[0]}]" if ":" in address[0] else address[0]
                    print(f"mathhammer serve: http://{shown}:{address[1]}/  (Ctrl-C to stop)",
                          file=sys.stderr, flush=True)
                    return

    server.startup = startup
