"""Where a finished answer goes when no terminal is reading it.

An in-process host (``mathhammer serve``) sets :data:`HOST` to run a command through the
same parse → options → library path as the command line and take the finished report
instead of printed text: ``host.receive(report, table, plot)`` (``table`` is the
command's own table text or None for the standard one; ``plot(path)`` draws what
``--plot`` would) and ``host.progress(done, planned)`` in place of the progress bar. The
command line reads it in its one output path; the web sets it per request.
"""

from __future__ import annotations

from contextvars import ContextVar

HOST: ContextVar = ContextVar("mathhammer_host", default=None)
