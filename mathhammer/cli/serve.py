"""``mathhammer serve``: the local web page and HTTP API (``pip install 'mathhammer[web]'``)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve_command(
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on. Anything but 127.0.0.1 / localhost lets other "
        "machines in.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port (0 picks a free one).")] = 8000,
    workers: Annotated[int, typer.Option("--workers", help="Queries computed at once.")] = 2,
    queue: Annotated[int, typer.Option("--queue", help="Queries waiting beyond those; more get "
                                       "503 Busy.")] = 32,
    max_trials: Annotated[int, typer.Option("--max-trials", help="Largest --n-trials a query "
                                            "may ask for.")] = 10_000_000,
    time_limit: Annotated[float, typer.Option("--time-limit", help="Seconds a query may "
                                              "compute before it is stopped.")] = 30.0,
    no_warm: Annotated[bool, typer.Option(
        "--no-warm", help="Skip loading every kernel at start-up (the first query of each "
        "pays instead).")] = False,
) -> None:
    """Serve the pages and the JSON API on this machine (Ctrl-C stops it)."""
    from mathhammer.errors import InputError

    for flag, value, low, high in (("--port", port, 0, 65535), ("--workers", workers, 1, 64),
                                   ("--queue", queue, 0, 10_000),
                                   ("--max-trials", max_trials, 1, 10**11)):
        if not low <= value <= high:
            raise InputError(flag, f"must be between {low} and {high:,}", value,
                             f"use e.g. {flag} {max(low, 1)}")
    if not 0.1 <= time_limit <= 3600:
        raise InputError("--time-limit", "must be between 0.1 and 3600 seconds", time_limit,
                         "use e.g. --time-limit 10")
    try:
        import uvicorn

        from mathhammer.web import Limits, create_app
    except ImportError as err:
        raise InputError("serve", f"needs the web extra ({err.name} is not installed)", None,
                         "pip install 'mathhammer[web]' (make demo installs it)") from None
    import os
    import tempfile

    if host not in LOOPBACK:
        print(f"warning: listening on {host}: other machines can reach this server and use "
              "its CPU; it has no login. Use --host 127.0.0.1 to keep it on this machine.",
              file=sys.stderr, flush=True)
    limits = Limits(workers=workers, queue=queue, max_trials=max_trials, time_limit=time_limit)
    app = create_app(limits, warm=not no_warm,
                     allowed_hosts=("127.0.0.1", "localhost", "::1", "[::1]")
                     if host in LOOPBACK else None)
    # relative names in a query resolve inside an empty private folder, never the caller's
    os.chdir(tempfile.mkdtemp(prefix="mathhammer-serve-"))
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=3, lifespan="on")
    server = _server_class(uvicorn)(config)
    if not no_warm:
        print("mathhammer serve: loading the kernels (the first start on a machine compiles "
              "them once: up to a minute)...", file=sys.stderr, flush=True)
    _announce(server, host)
    server.run()
    # queued queries were dropped and running Monte Carlo stopped at its next chunk (the
    # app's shutdown); the CLI's exit skips waiting for an exact query still computing
    print("mathhammer serve: stopped", file=sys.stderr, flush=True)


def _server_class(uvicorn):
    """uvicorn's server, but a Ctrl-C or SIGTERM is a clean stop (exit 0), not re-raised."""
    import signal

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True  # a second Ctrl-C: do not wait for open connections
            self.should_exit = True

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
