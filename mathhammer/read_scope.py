"""Which files a query may read: any (the command line) or only named folders (the web).

Every data file is read through :func:`mathhammer.profiles.read_toml`, which asks
:func:`check` first. A host that must not read arbitrary paths for its callers
(``mathhammer serve``) runs each query inside :func:`only_under` with the bundled data
folder and its own upload folder; a path anywhere else (after resolving symlinks) is
refused with one line, before the file is opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from mathhammer.errors import ProfileError

_ROOTS: ContextVar[tuple[Path, ...] | None] = ContextVar("mathhammer_read_roots", default=None)


@contextmanager
def only_under(*roots: Path | str) -> Iterator[None]:
    """Within this block (this thread / task only), read files under ``roots`` only."""
    token = _ROOTS.set(tuple(Path(root).resolve() for root in roots))
    try:
        yield
    finally:
        _ROOTS.reset(token)


def allowed(path: Path | str) -> bool:
    """Whether :func:`check` lets ``path`` be read (so a host's callers cannot even learn
    whether a file outside the allowed folders exists)."""
    try:
        check(path, "path")
    except ProfileError:
        return False
    return True


def check(path: Path | str, label: str) -> None:
    """Raise ProfileError when a read of ``path`` is outside the allowed folders."""
    roots = _ROOTS.get()
    if roots is None:
        return
    try:
        real = Path(path).resolve()
    except (OSError, RuntimeError):  # a symlink loop or an unreadable parent
        real = None
    if real is None or not any(real.is_relative_to(root) for root in roots):
        raise ProfileError(label, "is not a file this server may read", None,
                           "use a bundled id (see /api/profiles) or upload the file")
