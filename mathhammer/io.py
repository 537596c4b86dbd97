"""File writing shared by the library and the CLI: the one writer.

Every file mathhammer writes (``--output``, ``--plot``, notebooks' figures) goes through
:func:`write_atomically`: a temporary file in the same folder, then a rename, so a
path never points at a half-written file and an existing file survives a failed write.
A new file gets the mode any program would give it (0666 less the umask, usually
0644); a replaced file keeps its mode.
"""

from __future__ import annotations

import os
from pathlib import Path

from mathhammer.errors import OutputError


def write_atomically(path: Path, data: bytes | str, flag: str = "--output") -> None:
    """Write via a temporary file in the same folder and rename: never half-written."""
    import tempfile

    path = path.expanduser()
    payload = data.encode() if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.resolve().parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
                os.fchmod(handle.fileno(), _mode_for(path))  # mkstemp makes it 0600
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as err:
        raise OutputError(flag, f"cannot write the file ({err.strerror})", str(path),
                          "pick a writable path") from None


def _mode_for(path: Path) -> int:
    """The existing file's permission bits, or 0666 less the process umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where Linux shows it."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)  # elsewhere: set and restore (a moment, at write time)
    os.umask(old)
    return old
