"""Start a real ``mathhammer serve`` on a free port chosen at run time (tests, benchmarks).

Port 0 lets the operating system pick a free port; the server prints the address it
got on stderr, which is read back here. Several helpers run tests on this machine at
once, so no port is ever fixed.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class Server:
    """A ``mathhammer serve`` child process; ``url`` is its address once it listens."""

    def __init__(self, *args: str, timeout: float = 120.0, env: dict | None = None,
                 descriptors: int | None = None) -> None:
        """``descriptors``: the child's limit on open descriptors (soft and hard), e.g. 1024."""
        env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))

        def limit() -> None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mathhammer", "serve", "--port", "0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=env, cwd=ROOT, preexec_fn=limit if descriptors else None)
        self.lines: list[str] = []
        self.url = ""
        found = threading.Event()

        def read() -> None:
            for line in self.proc.stderr:
                self.lines.append(line.rstrip("\n"))
                match = re.search(r"(http://[0-9.]+:\d+)/", line)
                if match and not found.is_set():
                    self.url = match.group(1)
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(timeout) or not self.url:
            self.stop()
            raise RuntimeError("mathhammer serve did not start:\n" + "\n".join(self.lines))

    def stop(self, sig: int = signal.SIGINT, timeout: float = 15.0) -> tuple[int, float]:
        """Send ``sig``; (exit code, seconds it took to exit)."""
        began = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode, time.monotonic() - began

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
