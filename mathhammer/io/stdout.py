"""Standard output under the writer's rule: a failed or short write is exit 2, not 0.

Python's buffered stdout reports a short write (a file-size limit reached after 2 kB) as
success and drops the rest; the command line installs :class:`GuardedStdout` instead
(:func:`guard_stdout`), and :func:`write_stdout` writes a command's answer through it.
"""

from __future__ import annotations

import errno
import os
import sys

from mathhammer.errors import OutputError
from mathhammer.io.messages import _reason, _write_all


def write_stdout(data: bytes | str, flag: str = "standard output") -> None:
    """Write and flush standard output; a write error is one :class:`OutputError`.

    A reader that closed the pipe early (``| head``) raises ``BrokenPipeError``, which
    the CLI turns into a quiet exit 0.
    """
    stream = sys.stdout
    if stream is None:
        raise OutputError(flag, "standard output is closed", None,
                          "run with a standard output, or write to a file with -o FILE")
    try:
        if isinstance(data, bytes):
            buffer = getattr(stream, "buffer", None)
            if buffer is not None:
                stream.flush()
                buffer.write(data)
                buffer.flush()
                return
            data = data.decode("utf-8", errors="replace")
        stream.write(data)
        stream.flush()
    except BrokenPipeError:
        raise
    except OutputError:
        raise
    except OSError as err:
        raise stdout_error(err) from None
    except ValueError:  # "I/O operation on closed file"
        raise OutputError("standard output", "is closed", None,
                          "run with a standard output, or write to a file with -o FILE") from None


def stdout_error(err: OSError) -> OutputError:
    reason, fix = _reason(err)
    if err.errno in (errno.EBADF, errno.EINVAL):
        reason, fix = "is closed", "run with a standard output, or write to a file with -o FILE"
    return OutputError("standard output", reason, None, fix + " (or write to a file with -o FILE)"
                       if err.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG) else fix)


class GuardedStdout:
    """``sys.stdout`` for the command line, written with ``os.write`` and every count checked.

    Python's buffered stdout reports a short write (a file-size limit reached after 2 kB)
    as success and drops the rest; here any failed or short write (a full disk, a
    file-size limit, a closed descriptor) is one :class:`OutputError`, and a closed pipe
    stays a ``BrokenPipeError`` (the CLI's quiet exit). Text is kept in a 64 kB buffer,
    drained on flush (and at each line on a terminal).
    """

    _LIMIT = 1 << 16

    def __init__(self, stream, closed: bool = False) -> None:
        self._stream = stream
        self._closed = closed
        self._pending = bytearray()
        self.encoding = getattr(stream, "encoding", None) or "utf-8"
        self.errors = "backslashreplace"  # never a UnicodeEncodeError traceback
        try:
            self._fd = stream.fileno()
            self._tty = os.isatty(self._fd)
        except (OSError, ValueError, AttributeError):
            self._fd, self._tty = 1, False
        self.buffer = _GuardedBuffer(self)

    def write(self, text: str) -> int:
        self._add(text.encode(self.encoding, self.errors))
        if self._tty and "\n" in text:
            self.flush()
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def _add(self, data: bytes) -> None:
        if self._closed:
            raise _closed_stdout()
        self._pending += data
        if len(self._pending) >= self._LIMIT:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        if self._closed:
            self._pending.clear()
            raise _closed_stdout()
        data, self._pending = bytes(self._pending), bytearray()
        try:
            _write_all(self._fd, data)
        except BrokenPipeError:
            raise
        except BlockingIOError:  # a non-blocking descriptor: wait until it takes more
            self._pending[:0] = data
            import select

            select.select([], [self._fd], [], 1.0)
            self.flush()
        except OSError as err:
            raise stdout_error(err) from None

    def isatty(self) -> bool:
        return self._tty

    def fileno(self) -> int:
        return self._fd

    def writable(self) -> bool:
        return True

    def __getattr__(self, name):
        return getattr(self._stream, name)


class _GuardedBuffer:
    """``sys.stdout.buffer`` of :class:`GuardedStdout` (bytes, same checks)."""

    def __init__(self, owner: GuardedStdout) -> None:
        self._owner = owner

    def write(self, data) -> int:
        self._owner._add(bytes(data))
        return len(data)

    def flush(self) -> None:
        self._owner.flush()

    def fileno(self) -> int:
        return self._owner.fileno()

    def isatty(self) -> bool:
        return self._owner.isatty()

    def writable(self) -> bool:
        return True


def _closed_stdout() -> OutputError:
    return OutputError("standard output", "is closed", None,
                       "run with a standard output, or write to a file with -o FILE")


def guard_stdout() -> None:
    """Install :class:`GuardedStdout` (the command line calls this once at start).

    A process started with standard output closed (``>&-``) gets ``/dev/null`` on
    descriptor 1, so no file opened later takes that number and receives the output;
    writing output then is an error, not silence.
    """
    if isinstance(sys.stdout, GuardedStdout):
        return
    closed = False
    try:
        os.fstat(1)
    except OSError:
        closed = True
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            if fd != 1:
                os.dup2(fd, 1)
                os.close(fd)
        except OSError:
            pass
    stream = sys.stdout
    if stream is None:
        closed = True
        stream = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = GuardedStdout(stream, closed)
