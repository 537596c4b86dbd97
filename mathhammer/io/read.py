"""The one bounded reader for every file input, and the bounded archive reader.

See :mod:`mathhammer.io` for the rules; :func:`read_text` (TOML and other text),
:func:`read_bytes` and :func:`read_archive` are the entry points.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from mathhammer.errors import InputFileError
from mathhammer.io.messages import short_path

#: a TOML data file (profile, ruleset, list, scenario, models): the largest bundled one
#: is under 8 kB, so 1 MiB leaves room for any real file and parses in about a second
TOML_MAX_BYTES = 1024 * 1024
#: a zipped roster (``.rosz``) as read from disk, and what its members may unpack to
ARCHIVE_MAX_BYTES = 16 * 1024 * 1024
ARCHIVE_MAX_MEMBERS = 64
ARCHIVE_MAX_UNPACKED = 64 * 1024 * 1024
ARCHIVE_MAX_RATIO = 200  # XML rosters compress 10-30x; far more is a bomb
_ARCHIVE_MAX_DIRECTORY = 1024 * 1024  # central directory bytes, checked before zipfile parses it
_READ_BLOCK = 1 << 20


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
