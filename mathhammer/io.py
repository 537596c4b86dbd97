"""Files in and out: the one writer and the one bounded reader (issues 18 and 22).

**Writing.** Every output (``--output``, ``--plot``, anything a command writes) goes
through :func:`write_atomically`, which does what the path calls for:

* a new path or a regular file: a temporary file in the same folder, flushed and
  fsynced, renamed over the path, then the folder fsynced. A new file gets
  ``0666 & ~umask`` (usually 0644); a replaced file keeps its mode (and owner, as root);
* a symlink: resolved; its final target is replaced that way and the link stays;
* a FIFO, a character device or a Unix socket, and ``-`` (standard output): written
  straight through, no temporary file and no rename (a device node is never replaced);
* anything else (a folder, a block device) or any ``OSError`` (name too long, unknown
  ``~user``, symlink loop, read-only file system, full disk, quota, permission): one
  :class:`~mathhammer.errors.OutputError` naming the flag, the path (shortened if
  long), the reason and the fix.

Inside :func:`all_or_nothing` a command's outputs are staged (temporary files written
and synced) and only committed together at the end of the block: if one cannot be
written, none is left behind. :func:`check_outputs` refuses unwritable paths and two
outputs naming the same file before any work starts. :func:`write_stdout` writes
standard output under the same rule.

**Reading.** Every file input goes through :func:`read_bytes` / :func:`read_text`:
anything that is not a regular file (FIFO, device, socket, folder) is refused before it
is opened; the size is capped from ``stat`` and again while reading (a file that grows
or lies about its size stops at the cap); text must be UTF-8 (the error names the
byte offset). :func:`read_archive` unpacks a zip in memory with bounded members,
sizes and ratio, refusing member paths that escape.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from mathhammer.errors import InputFileError, OutputError

#: a TOML data file (profile, ruleset, list, scenario, models): the largest bundled one
#: is under 8 kB, so 1 MiB leaves room for any real file and parses in about a second
TOML_MAX_BYTES = 1024 * 1024
#: a zipped roster (``.rosz``) as read from disk, and what its members may unpack to
ARCHIVE_MAX_BYTES = 16 * 1024 * 1024
ARCHIVE_MAX_MEMBERS = 64
ARCHIVE_MAX_UNPACKED = 64 * 1024 * 1024
ARCHIVE_MAX_RATIO = 200  # XML rosters compress 10-30x; far more is a bomb
_ARCHIVE_MAX_DIRECTORY = 1024 * 1024  # central directory bytes, checked before zipfile parses it

STDOUT = "-"
_MAX_SYMLINK_HOPS = 40  # as the kernel's own limit
_READ_BLOCK = 1 << 20


# --------------------------------------------------------------------------- messages


def short_path(path: object, limit: int = 76) -> str:
    """``path`` as text, the middle elided when long (a 300-character name stays readable
    and fits an error line's ``(got ...)``)."""
    text = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    text = text.replace("\n", "\\n").replace("\r", "\\r")
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


# --------------------------------------------------------------------------- where a write goes


@dataclass(frozen=True)
class OutputTarget:
    """Where an output goes. ``kind``: ``stdout``, ``file`` (new or regular, replaced
    atomically), ``stream`` (FIFO or character device, written through) or ``socket``."""

    flag: str
    given: str
    path: Path | None
    kind: str
    exists: bool = False


def _expand(given: str, flag: str) -> str:
    if "\0" in given:
        raise OutputError(flag, "contains a NUL character", short_path(given), "give a plain path")
    if not given.startswith("~"):
        return given
    expanded = os.path.expanduser(given)  # leaves an unknown ~user (or no home) as it is
    if expanded.startswith("~"):
        user = given[1:].split("/", 1)[0]
        what = (f"names the home folder of {user!r}, who is not a user here" if user
                else "names the home folder, which is not known here (no HOME)")
        raise OutputError(flag, what, short_path(given), "write the folder out in full")
    return expanded


def resolve_output(path: Path | str, flag: str = "--output") -> OutputTarget:
    """Where ``path`` writes to, symlinks followed; a path that cannot be written is an
    :class:`OutputError` now, before any work."""
    given = os.fspath(path) if not isinstance(path, str) else path
    if given == STDOUT:
        return OutputTarget(flag, given, None, "stdout")
    if not given.strip():
        raise OutputError(flag, "is empty", repr(given), f"give a file name, or {STDOUT} for "
                          "standard output")
    current = os.path.abspath(_expand(given, flag))
    for _ in range(_MAX_SYMLINK_HOPS):
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return _new_file(flag, given, Path(current))
        except OSError as err:
            raise output_error(flag, given, err) from None
        if stat.S_ISLNK(st.st_mode):
            try:
                link = os.readlink(current)
            except OSError as err:
                raise output_error(flag, given, err) from None
            parent = os.path.realpath(os.path.dirname(current))
            current = os.path.normpath(os.path.join(parent, link))
            continue
        mode = st.st_mode
        if stat.S_ISREG(mode):
            _check_folder(flag, given, Path(current).parent)
            return OutputTarget(flag, given, Path(current), "file", exists=True)
        if stat.S_ISDIR(mode):
            raise OutputError(flag, "names a folder, not a file", short_path(given),
                              "give a file name inside it")
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
            if not os.access(current, os.W_OK):
                raise OutputError(flag, "permission denied", short_path(given),
                                  "pick a path you may write")
            return OutputTarget(flag, given, Path(current), "stream", exists=True)
        if stat.S_ISSOCK(mode):
            return OutputTarget(flag, given, Path(current), "socket", exists=True)
        if stat.S_ISBLK(mode):
            raise OutputError(flag, "is a block device (a disk); mathhammer never writes to one",
                              short_path(given), "give a file name")
        raise OutputError(flag, "is not a file mathhammer can write", short_path(given),
                          "give a file name")
    raise output_error(flag, given, OSError(errno.ELOOP, "symlink loop"))


def _new_file(flag: str, given: str, target: Path) -> OutputTarget:
    if len(os.fsencode(target.name)) > 255:
        raise output_error(flag, given, OSError(errno.ENAMETOOLONG, "name too long"))
    _check_folder(flag, given, target.parent)
    return OutputTarget(flag, given, target, "file", exists=False)


def _check_folder(flag: str, given: str, folder: Path) -> None:
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        raise OutputError(flag, "folder does not exist", short_path(folder),
                          "create it or pick another path") from None
    except OSError as err:
        raise output_error(flag, folder, err) from None
    if not stat.S_ISDIR(st.st_mode):
        raise OutputError(flag, "a part of the path is not a folder", short_path(folder),
                          "check the path")
    if not os.access(folder, os.W_OK) or not _can_create_in(folder):
        raise OutputError(flag, "folder is not writable", short_path(folder),
                          "pick a writable path")


def _can_create_in(folder: Path) -> bool:
    """Create and remove a probe file: os.access says yes to root even on /proc."""
    import tempfile

    try:
        fd, probe = tempfile.mkstemp(prefix=".mathhammer-probe-", dir=folder)
    except OSError:
        return False
    os.close(fd)
    try:
        os.unlink(probe)
    except OSError:
        pass
    return True


def _same_file(a: OutputTarget, b: OutputTarget) -> bool:
    if a.kind == "stdout" or b.kind == "stdout":
        return a.kind == b.kind
    if a.path == b.path:
        return True
    try:
        return os.path.samefile(a.path, b.path)  # hard links, bind mounts
    except OSError:
        return False


def check_outputs(outputs: list[tuple[str, Path | str | None]]) -> list[OutputTarget]:
    """Check every output of a command before any work: each writable, no two the same file.

    ``outputs`` is ``[(flag, path or None), ...]``; returns the targets of the given ones.
    """
    targets = [resolve_output(path, flag) for flag, path in outputs if path is not None]
    for i, a in enumerate(targets):
        for b in targets[:i]:
            if _same_file(a, b):
                raise OutputError(f"{b.flag} and {a.flag}", "name the same file",
                                  short_path(a.given), "give each output its own file name")
    return targets


# --------------------------------------------------------------------------- writing


@dataclass
class _Staged:
    target: OutputTarget
    payload: bytes | str
    temp: str | None = None  # a written, synced temporary file beside the target
    mode: int | None = None


@dataclass
class _Batch:
    staged: list[_Staged] = field(default_factory=list)


_BATCH: ContextVar[_Batch | None] = ContextVar("mathhammer_output_batch", default=None)


def write_atomically(path: Path | str, data: bytes | str, flag: str = "--output") -> None:
    """Write ``data`` to ``path`` as the module docstring says (never half-written).

    Inside :func:`all_or_nothing` the write is staged and happens when the block ends.

    Raises:
        OutputError: one line naming ``flag``, the path, the reason and the fix.
    """
    target = resolve_output(path, flag)
    if isinstance(data, str):  # standard output keeps text: it has its own encoding
        payload = data if target.kind == "stdout" else data.encode("utf-8")
    else:
        payload = bytes(data)
    batch = _BATCH.get()
    if batch is not None:
        for other in batch.staged:
            if _same_file(other.target, target):
                raise OutputError(f"{other.target.flag} and {flag}", "name the same file",
                                  short_path(target.given), "give each output its own file name")
        batch.staged.append(_stage(target, payload))
        return
    _commit([_stage(target, payload)])


@contextmanager
def all_or_nothing() -> Iterator[None]:
    """Stage every write inside the block; commit them together when it ends.

    If the block raises (a failed write, Ctrl-C), staged temporary files are removed
    and nothing is written. Streams (FIFOs, devices, standard output) are written
    before the renames, so a failed stream leaves no renamed file behind.
    """
    if _BATCH.get() is not None:  # nested: the outer block commits
        yield
        return
    batch = _Batch()
    token = _BATCH.set(batch)
    try:
        yield
    except BaseException:
        _BATCH.reset(token)
        _discard(batch.staged)
        raise
    _BATCH.reset(token)
    _commit(batch.staged)


def _stage(target: OutputTarget, payload: bytes | str) -> _Staged:
    staged = _Staged(target, payload)
    if target.kind != "file":
        return staged  # streams are written at commit time
    import tempfile

    assert target.path is not None
    folder, name = target.path.parent, target.path.name
    staged.mode = _existing_mode(target.path) if target.exists else 0o666 & ~_umask()
    try:
        fd, staged.temp = tempfile.mkstemp(prefix=f".{name[:40]}.", suffix=".tmp", dir=folder)
    except OSError as err:
        raise output_error(target.flag, target.given, err) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fchmod(handle.fileno(), staged.mode)  # mkstemp makes it 0600
            if target.exists and os.geteuid() == 0:
                _keep_owner(handle.fileno(), target.path)
            os.fsync(handle.fileno())
    except BaseException as err:
        _unlink(staged.temp)
        if isinstance(err, OSError):
            raise output_error(target.flag, target.given, err) from None
        raise
    return staged


def _commit(staged: list[_Staged]) -> None:
    try:
        for item in staged:
            if item.target.kind != "file":
                _write_stream(item.target, item.payload)
    except BaseException:
        _discard(staged)
        raise
    done: list[tuple[_Staged, str | None]] = []
    try:
        for item in staged:
            if item.target.kind != "file":
                continue
            backup = _backup(item) if len(staged) > 1 else None
            try:
                os.replace(item.temp, item.target.path)
            except OSError as err:
                _unlink(backup)
                raise output_error(item.target.flag, item.target.given, err) from None
            item.temp = None
            done.append((item, backup))
    except BaseException:
        _undo(done)
        _discard(staged)
        raise
    for _, backup in done:
        _unlink(backup)
    for folder in {str(item.target.path.parent) for item, _ in done}:
        _fsync_folder(folder)


def _backup(item: _Staged) -> str | None:
    """A hard link to the file about to be replaced, so a later failure can restore it."""
    if not item.target.exists:
        return None
    backup = f"{item.temp}.old"
    try:
        os.link(item.target.path, backup)
    except OSError:
        return None
    return backup


def _undo(done: list[tuple[_Staged, str | None]]) -> None:
    for item, backup in reversed(done):
        try:
            if backup is not None:
                os.replace(backup, item.target.path)
            elif not item.target.exists:
                os.unlink(item.target.path)
        except OSError:
            pass


def _discard(staged: list[_Staged]) -> None:
    for item in staged:
        _unlink(item.temp)
        item.temp = None


def _unlink(path: str | None) -> None:
    if path is None:
        return
    try:
        os.unlink(path)
    except OSError:
        pass


def _write_stream(target: OutputTarget, payload: bytes | str) -> None:
    """FIFO, character device, socket or standard output: written straight through."""
    if target.kind == "stdout":
        write_stdout(payload, flag=target.flag)
        return
    assert target.path is not None
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    try:
        if target.kind == "socket":
            import socket

            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(str(target.path))
                sock.sendall(payload)
            return
        fd = _open_stream(target)
        try:
            _write_all(fd, payload)
        finally:
            os.close(fd)
    except OSError as err:
        raise output_error(target.flag, target.given, err) from None


def _open_stream(target: OutputTarget) -> int:
    flags = os.O_WRONLY | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(target.path, flags | os.O_NONBLOCK)
    except OSError as err:
        if err.errno != errno.ENXIO or not stat.S_ISFIFO(os.stat(target.path).st_mode):
            raise
        # a FIFO nobody reads yet: wait for the reader, as the shell's `>` would (Ctrl-C stops)
        print(f"note: {target.flag}: waiting for a reader on the FIFO {short_path(target.given)}",
              file=sys.stderr, flush=True)
        return os.open(target.path, flags)
    os.set_blocking(fd, True)
    return fd


def _write_all(fd: int, payload: bytes) -> None:
    """Write every byte; a short write is retried, so a limit hit mid-way raises its error."""
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.EIO, "the write made no progress")
        view = view[written:]


def _existing_mode(path: Path) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _keep_owner(fd: int, path: Path) -> None:
    """As root, the replaced file keeps its owner (a user's file stays the user's)."""
    try:
        st = os.stat(path)
        os.fchown(fd, st.st_uid, st.st_gid)
    except OSError:
        pass


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable; file systems that cannot sync a folder are skipped."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    """The process umask, read without changing it where Linux shows it."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)  # elsewhere: set and restore (a moment, at write time)
    os.umask(old)
    return old


# --------------------------------------------------------------------------- standard output


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


# --------------------------------------------------------------------------- reading


_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _size(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


def names_a_file(path: Path | str) -> bool:
    """True if ``path`` names something that exists and is not a folder.

    Never raises (a 300-character name, a symlink loop or a NUL byte are "no"), never
    opens the path: a FIFO or a device is "yes", so the reader refuses it by name
    instead of a caller calling it "not found".
    """
    try:
        return not stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _read_error(label: str, err: OSError, path: object) -> InputFileError:
    if isinstance(err, FileNotFoundError):
        return InputFileError(label, "file not found", short_path(path), "check the path")
    what = {
        errno.EACCES: "cannot be read (permission denied)",
        errno.ENAMETOOLONG: "cannot be read (the file name is too long)",
        errno.ELOOP: "cannot be read (the path has a symlink loop)",
        errno.ENOTDIR: "cannot be read (a part of the path is not a folder)",
        errno.EISDIR: "is a folder, not a file",
    }.get(err.errno, f"cannot be read ({err.strerror or err.__class__.__name__})")
    return InputFileError(label, what, short_path(path), "give the path of a readable file")


def read_bytes(path: Path | str, label: str | None = None, *, limit: int = TOML_MAX_BYTES,
               what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    A FIFO, device, socket or folder is refused before it is opened; the size is
    checked from ``stat`` and again while reading. The read scope of an in-process
    host (:mod:`mathhammer.read_scope`) is honoured.

    Raises:
        InputFileError: one line naming ``label`` (default: the path) and the limit.
    """
    from mathhammer import read_scope

    label = label or short_path(path)
    try:
        read_scope.check(path, label)
    except ValueError:
        raise InputFileError(label, "is not a usable path (it contains a NUL byte)", None,
                             "give a plain path") from None
    try:
        st = os.stat(path)
    except ValueError:
        raise InputFileError(label, "is not a usable path (it contains a NUL byte)", None,
                             "give a plain path") from None
    except OSError as err:
        raise _read_error(label, err, path) from None
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(label, f"is {_kind(st.st_mode)}, not a regular file", None,
                             f"give the path of a {what}")
    if st.st_size > limit:
        raise InputFileError(label, f"is {st.st_size:,} bytes, above the limit of "
                             f"{_size(limit)} ({limit:,} bytes) for a {what}", None,
                             f"give a {what} of at most {_size(limit)}")
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        raise _read_error(label, err, path) from None
    try:
        st = os.fstat(fd)  # the path may have been swapped since the stat above
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(label, f"is {_kind(st.st_mode)}, not a regular file", None,
                                 f"give the path of a {what}")
        parts, total = [], 0
        while True:
            try:
                block = os.read(fd, min(_READ_BLOCK, limit + 1 - total))
            except BlockingIOError:
                raise InputFileError(label, "is not ready to be read (it behaves like a device)",
                                     None, f"give the path of a {what}") from None
            except OSError as err:
                raise _read_error(label, err, path) from None
            if not block:
                break
            parts.append(block)
            total += len(block)
            if total > limit:
                raise InputFileError(label, f"grew past the {_size(limit)} limit for a {what} "
                                     "while being read", None,
                                     f"give a {what} of at most {_size(limit)}")
    finally:
        os.close(fd)
    return b"".join(parts)


def decode_utf8(data: bytes, label: str, what: str = "file") -> str:
    """UTF-8 text (a leading byte-order mark dropped); otherwise one line with the offset."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        utf16 = data.startswith((b"\xff\xfe", b"\xfe\xff"))
        raise InputFileError(
            label, f"is not UTF-8 text: byte 0x{data[err.start]:02x} at offset {err.start} "
            f"(line {line})", None, f"save the {what} as UTF-8 text"
            + (" (it starts like UTF-16)" if utf16 else "")) from None


def read_text(path: Path | str, label: str | None = None, *, limit: int = TOML_MAX_BYTES,
              what: str = "file") -> str:
    """:func:`read_bytes` then :func:`decode_utf8`."""
    label = label or short_path(path)
    return decode_utf8(read_bytes(path, label, limit=limit, what=what), label, what)


# --------------------------------------------------------------------------- archives


def read_archive(source: Path | str | bytes, label: str | None = None, *,
                 max_bytes: int = ARCHIVE_MAX_BYTES, max_members: int = ARCHIVE_MAX_MEMBERS,
                 max_unpacked: int = ARCHIVE_MAX_UNPACKED, max_ratio: int = ARCHIVE_MAX_RATIO,
                 ) -> dict[str, bytes]:
    """The members of a zip archive (a path or its bytes), unpacked in memory only.

    Refused with one line each: more than ``max_members`` files, more than
    ``max_unpacked`` bytes in all, a member that unpacks to more than ``max_ratio``
    times its packed size (declared or actual), a member path that is absolute or
    climbs out (``..``), an encrypted member, a duplicate name, or not a zip at all.
    Folder entries are skipped.

    Raises:
        InputFileError
    """
    import zipfile

    if isinstance(source, (bytes, bytearray, memoryview)):
        data, label = bytes(source), label or "archive"
        if len(data) > max_bytes:
            raise InputFileError(label, f"is {_size(len(data))}, above the {_size(max_bytes)} "
                                 "limit for an archive", None, "give a smaller archive")
    else:
        label = label or short_path(source)
        data = read_bytes(source, label, limit=max_bytes, what="zip archive")
    not_zip = InputFileError(label, "is not a readable zip archive", None,
                             "give the archive as exported (e.g. a BattleScribe .rosz)")
    _check_directory(data, label, max_members, not_zip)
    try:
        archive = zipfile.ZipFile(__import__("io").BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError,
            NotImplementedError, KeyError, IndexError, UnicodeDecodeError):
        raise not_zip from None
    files = [info for info in infos if not info.is_dir()]
    if len(files) > max_members:
        raise InputFileError(label, f"holds {len(files)} files, above the limit of {max_members}",
                             None, "give an archive with fewer files")
    declared = sum(info.file_size for info in files)
    if declared > max_unpacked:
        raise InputFileError(label, f"unpacks to {_size(declared)}, above the "
                             f"{_size(max_unpacked)} limit", None, "give a smaller archive")
    seen: set[str] = set()
    for info in files:
        name = _member_name(info.filename, label)
        if name in seen:
            raise InputFileError(label, f"holds two files named {short_path(name, 60)!r}", None,
                                 "give an archive with distinct member names")
        seen.add(name)
        if info.flag_bits & 0x1:
            raise InputFileError(label, f"member {short_path(name, 60)!r} is encrypted", None,
                                 "give an archive without a password")
        if info.file_size > max_ratio * max(info.compress_size, 1):
            raise InputFileError(label, f"member {short_path(name, 60)!r} unpacks to "
                                 f"{info.file_size / max(info.compress_size, 1):.0f} times its "
                                 f"packed size (the limit is {max_ratio}): a zip bomb?", None,
                                 "give the archive as exported")
    out: dict[str, bytes] = {}
    total = 0
    for info in files:
        name = info.filename.replace("\\", "/")
        bound = min(info.file_size, max_unpacked - total, max_ratio * max(info.compress_size, 1))
        try:
            with archive.open(info) as handle:  # headers can lie: read at most the bound
                content = handle.read(bound + 1)
        except (zipfile.BadZipFile, ValueError, EOFError, OSError, NotImplementedError,
                RuntimeError, __import__("zlib").error):
            raise InputFileError(label, f"member {short_path(name, 60)!r} cannot be unpacked "
                                 "(damaged or an unsupported method)", None,
                                 "give the archive as exported") from None
        if len(content) > bound:
            raise InputFileError(label, f"member {short_path(name, 60)!r} unpacks past what its "
                                 "header says (a zip bomb?)", None, "give the archive as exported")
        total += len(content)
        out[name] = content
    return out


def _check_directory(data: bytes, label: str, max_members: int, not_zip: InputFileError) -> None:
    """Read the end record first: a central directory of a million entries is refused
    before :mod:`zipfile` builds an object for each."""
    import struct

    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 65557))
    if end < 0 or len(data) - end < 22:
        raise not_zip
    entries, size, offset = struct.unpack("<10xHII", data[end:end + 20])
    if 0xFFFF in (entries,) or 0xFFFFFFFF in (size, offset):  # zip64: its own end record
        locator = end - 20
        if locator < 0 or data[locator:locator + 4] != b"PK\x06\x07":
            raise not_zip
        (record,) = struct.unpack("<Q", data[locator + 8:locator + 16])
        if record > locator or data[record:record + 4] != b"PK\x06\x06":
            raise not_zip
        entries, size, offset = struct.unpack("<QQQ", data[record + 32:record + 56])
        end = record
    if offset + size > end:
        raise not_zip  # the directory it describes is not in the file
    if size > _ARCHIVE_MAX_DIRECTORY or entries > 4 * max_members:
        raise InputFileError(label, f"lists {entries} entries ({_size(size)} of directory), "
                             f"above the limit of {max_members} files", None,
                             "give an archive with fewer files")


def _member_name(raw: str, label: str) -> str:
    name = raw.replace("\\", "/")
    parts = name.split("/")
    if (not name or "\0" in name or name.startswith("/") or ".." in parts
            or (len(parts[0]) == 2 and parts[0][1] == ":")):
        raise InputFileError(label, f"member path {short_path(raw, 60)!r} escapes the archive",
                             None, "give an archive whose members stay inside it")
    return name


__all__ = [
    "ARCHIVE_MAX_BYTES", "ARCHIVE_MAX_MEMBERS", "ARCHIVE_MAX_RATIO", "ARCHIVE_MAX_UNPACKED",
    "STDOUT", "TOML_MAX_BYTES", "OutputTarget", "all_or_nothing", "check_outputs", "decode_utf8",
    "guard_stdout", "names_a_file", "read_archive", "read_bytes", "read_text", "resolve_output",
    "short_path", "write_atomically", "write_stdout",
]
