"""What the writer and the reader say when the operating system says no, and the one
write loop that checks every count (a short write is an error, not a success)."""

from __future__ import annotations

import errno
import os

from mathhammer.errors import OutputError, printable


def short_path(path: object, limit: int = 76) -> str:
    """``path`` as text, the middle elided when long (a 300-character name stays readable
    and fits an error line's ``(got ...)``); control characters shown as escapes."""
    text = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    text = printable(text.replace("\n", "\\n").replace("\r", "\\r"))
    if len(text) <= limit:
        return text
    head = (limit - 3) // 3
    return f"{text[:head]}...{text[-(limit - 3 - head):]}"


_REASONS = {
    errno.ENOSPC: ("the disk is full", "free some space or write to another disk"),
    errno.EDQUOT: ("the disk quota is used up", "free some space or write to another disk"),
    errno.EFBIG: ("the file would pass the file-size limit (ulimit -f)",
                  "raise the limit (ulimit -f unlimited) or write a smaller output"),
    errno.EROFS: ("the file system is read-only", "write to a writable folder"),
    errno.EACCES: ("permission denied", "pick a path you may write, or fix its permissions"),
    errno.EPERM: ("operation not permitted", "pick a path you may write"),
    errno.ENAMETOOLONG: ("the file name is too long", "use a shorter name (255 bytes at most)"),
    errno.ELOOP: ("the path has a symlink loop", "fix or remove the symlinks"),
    errno.ENOTDIR: ("a part of the path is not a folder", "check the path"),
    errno.ENOENT: ("the folder does not exist", "create it or pick another path"),
    errno.EPIPE: ("the reader closed the pipe", "keep the reader open until the output ends"),
    errno.ENXIO: ("nothing is listening on it", "start the reader first"),
    errno.ECONNREFUSED: ("nothing is listening on it", "start the reader first"),
    errno.EIO: ("input/output error", "check the disk or device"),
    errno.EISDIR: ("names a folder, not a file", "give a file name"),
    errno.EBUSY: ("the file is busy", "close what holds it or pick another path"),
    errno.ETXTBSY: ("the file is busy", "close what holds it or pick another path"),
}


def _reason(err: OSError) -> tuple[str, str]:
    if err.errno in _REASONS:
        return _REASONS[err.errno]
    return (f"cannot write it ({err.strerror or err.__class__.__name__})", "pick a writable path")


def output_error(flag: str, path: object, err: OSError | None = None, *, what: str | None = None,
                 fix: str | None = None) -> OutputError:
    """One line for a failed output: the flag, the path (shortened), the reason, the fix."""
    reason, default_fix = (_reason(err) if err is not None
                           else ("cannot be written", "pick a writable path"))
    return OutputError(flag, what or reason, short_path(path), fix or default_fix)



def _write_all(fd: int, payload: bytes) -> None:
    """Write every byte; a short write is retried, so a limit hit mid-way raises its error."""
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.EIO, "the write made no progress")
        view = view[written:]
