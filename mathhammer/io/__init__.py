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

from mathhammer.io.read import (
    ARCHIVE_MAX_BYTES,
    ARCHIVE_MAX_MEMBERS,
    ARCHIVE_MAX_RATIO,
    ARCHIVE_MAX_UNPACKED,
    TOML_MAX_BYTES,
    decode_utf8,
    names_a_file,
    read_archive,
    read_bytes,
    read_text,
)
from mathhammer.io.stdout import GuardedStdout, guard_stdout, stdout_error, write_stdout
from mathhammer.io.write import (
    STDOUT,
    OutputTarget,
    all_or_nothing,
    check_outputs,
    output_error,
    resolve_output,
    short_path,
    write_atomically,
)

__all__ = [
    "ARCHIVE_MAX_BYTES", "ARCHIVE_MAX_MEMBERS", "ARCHIVE_MAX_RATIO", "ARCHIVE_MAX_UNPACKED",
    "STDOUT", "TOML_MAX_BYTES", "GuardedStdout", "OutputTarget", "all_or_nothing",
    "check_outputs", "decode_utf8", "guard_stdout", "names_a_file", "output_error",
    "read_archive", "read_bytes", "read_text", "resolve_output", "short_path", "stdout_error",
    "write_atomically", "write_stdout",
]
