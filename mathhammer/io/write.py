"""The one writer: every output of every command, right for every kind of path.

See :mod:`mathhammer.io` for the rules; :func:`write_atomically` is the entry point,
:func:`all_or_nothing` stages a command's outputs together and :func:`check_outputs`
refuses bad or clashing paths before any work.
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

from mathhammer.errors import OutputError
from mathhammer.io.messages import _write_all, output_error, short_path
from mathhammer.io.stdout import write_stdout

STDOUT = "-"
_MAX_SYMLINK_HOPS = 40  # as the kernel's own limit


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


def resolve_output(path: Path | str, flag: str = "‹output›") -> OutputTarget:
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


def write_atomically(path: Path | str, data: bytes | str, flag: str = "‹output›") -> None:
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


def write_scratch(path: str, data: bytes) -> bool:
    """Write ``data`` to ``path`` in a private folder of one run (a cache another process of
    the run reads, :mod:`mathhammer.fantasy.battle.shared_tables`): whole or not at all (a
    temporary file renamed), without fsync (the folder goes with the run) and never raising:
    False when it could not be written (the reader then builds its own)."""
    import tempfile

    temp = None
    try:
        fd, temp = tempfile.mkstemp(suffix=".part", dir=os.path.dirname(path))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
        return True
    except OSError:
        _unlink(temp)
        return False


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
