"""The command line's memory of a Ctrl-C: set by the signal handler in
:mod:`mathhammer.cli`, read where an answer is about to be written (a Ctrl-C swallowed on
the way by C code must not be followed by an answer)."""

from __future__ import annotations

#: one entry once the user pressed Ctrl-C
CTRL_C: list[bool] = []


def ctrl_c_seen() -> bool:
    """True once the user pressed Ctrl-C (command line only)."""
    return bool(CTRL_C)
