"""The shared numba pieces (dice, bit tricks, random state) and the compile cache.

Kernels are numbers in, counts out: no pydantic, no I/O, no strings. Each game keeps
its own beside its engines (``warmachine/kernels/``, ``fantasy/kernels/``,
``magic/kernels.py``); this package holds what they share, and :func:`load` imports
any of them. Before numba first loads (or at once, when it already has), this package
points numba's on-disk cache at a directory keyed by every kernel source
(:data:`KERNEL_SOURCES`), so an edited helper in another file can never reuse stale
machine code (numba only checks the file that holds the jitted function), and falls back
to a temporary directory when the cache location is not writable. Importing the package
alone costs next to nothing: an exact query imports it and never touches numba.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]
#: where kernel sources live, relative to the package: this folder and each game's own
KERNEL_SOURCES = ("kernels/*.py", "*/kernels/*.py", "*/kernels.py")


def kernel_files() -> list[Path]:
    """Every kernel source file, in a fixed order."""
    return sorted({p for pattern in KERNEL_SOURCES for p in _PACKAGE.glob(pattern)})


def _source_key() -> str:
    import hashlib

    digest = hashlib.sha1()
    for path in kernel_files():
        st = path.stat()
        digest.update(f"{path.relative_to(_PACKAGE).as_posix()}:{st.st_size}:{st.st_mtime_ns}".encode())
    return digest.hexdigest()[:12]


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        return True
    except OSError:
        return False


def _choose_cache_dir() -> None:
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mathhammer"
    # numba's cache key leaves out the bounds-checking flag: bounds-checked machine code
    # (NUMBA_BOUNDSCHECK=1, as the test suite uses) gets its own folder, never mixed up
    checked = os.environ.get("NUMBA_BOUNDSCHECK", "0") not in ("", "0")
    target = base / f"numba-{_source_key()}{'-boundscheck' if checked else ''}"
    if not _writable(target):
        import tempfile

        fallback = Path(tempfile.mkdtemp(prefix="mathhammer-numba-"))
        print(f"note: numba cache {base} is not writable; using {fallback}", file=sys.stderr)
        target = fallback
    os.environ["NUMBA_CACHE_DIR"] = str(target)
    if "numba" in sys.modules:  # numba read its config already: make it see the new dir
        from numba.core import config

        config.reload_config()


_CACHE_DIR_CHOSEN: list[bool] = []


def ensure_cache_dir() -> None:
    """Choose numba's cache directory, once per process (see the module's help)."""
    if not _CACHE_DIR_CHOSEN:
        _CACHE_DIR_CHOSEN.append(True)
        _choose_cache_dir()


class _OnNumbaImport:
    """Choose the cache directory just before numba loads and reads its settings."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "numba":
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            ensure_cache_dir()
        return None


if "numba" in sys.modules:
    ensure_cache_dir()
elif not any(isinstance(f, _OnNumbaImport) for f in sys.meta_path):
    sys.meta_path.insert(0, _OnNumbaImport())


def _guard_cache_io(caching) -> None:
    """A failing cache never kills a query: numba raises when saving a compiled kernel
    fails midway (disk full, quota, file-size limit) or an index left half-written by a
    power cut will not unpickle. Then the kernel runs uncached, and stderr says so once."""
    import contextlib
    import pickle

    told: list[bool] = []

    @contextlib.contextmanager
    def guard(self):
        try:
            yield
        except (OSError, EOFError, pickle.UnpicklingError) as err:
            self.disable()  # no retry for this kernel in this process
            if not told:
                told.append(True)
                reason = getattr(err, "strerror", None) or err.__class__.__name__
                print(f"note: the compiled-kernel cache cannot be used ({reason}); "
                      "running without it", file=sys.stderr, flush=True)

    caching.Cache._guard_against_spurious_io_errors = guard


class _OnCachingImport:
    """Patch numba's cache when numba loads it (importing numba here would add ~0.4 s to
    every exact query, which needs no kernel)."""

    name = "numba.core.caching"
    patch = staticmethod(_guard_cache_io)

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                self.patch(module)

            spec.loader.exec_module = exec_module
        return spec


if _OnCachingImport.name in sys.modules:
    _guard_cache_io(sys.modules[_OnCachingImport.name])
elif not any(getattr(f, "name", None) == _OnCachingImport.name for f in sys.meta_path):
    sys.meta_path.insert(0, _OnCachingImport())


def _one_compile_per_type(dispatcher_module) -> None:
    """One compiled version of a kernel per argument *type*, not per constant value.

    A jitted function called from another with a constant argument (``decide(B, S, f,
    O_CHARGE, ...)``) is typed by numba as ``Literal[int](2)`` and compiled again for each
    constant: the battle kernels had 21 versions of ``decide`` and two thirds of their
    cached machine code were such copies, minutes of a cold compile. Our kernels are first
    compiled for the plain types; a kernel that cannot be typed without the constant (a
    tuple index, say) falls back to numba's own way. The machine code computes the same
    numbers (no fast-math: constant folding keeps IEEE results). Other packages' numba
    functions are left alone."""
    from numba.core import errors, types

    base = dispatcher_module._DispatcherBase
    literal_call_template = base.get_call_template

    def get_call_template(self, args, kws):
        module = getattr(self.py_func, "__module__", None) or ""
        if self._can_compile and module.startswith("mathhammer."):
            plain = tuple(types.unliteral(a) for a in args)
            plain_kws = {k: types.unliteral(v) for k, v in kws.items()}
            if plain != tuple(args) or plain_kws != kws:
                try:
                    return literal_call_template(self, plain, plain_kws)
                except errors.NumbaError:
                    pass  # needs the constant itself: numba's literal typing below
        return literal_call_template(self, args, kws)

    base.get_call_template = get_call_template


class _OnDispatcherImport(_OnCachingImport):
    """Patch numba's dispatcher when numba loads it (see :func:`_one_compile_per_type`)."""

    name = "numba.core.dispatcher"
    patch = staticmethod(_one_compile_per_type)


if _OnDispatcherImport.name in sys.modules:
    _one_compile_per_type(sys.modules[_OnDispatcherImport.name])
elif not any(getattr(f, "name", None) == _OnDispatcherImport.name for f in sys.meta_path):
    sys.meta_path.insert(0, _OnDispatcherImport())

if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
    # pure-Python kernels: xoshiro's uint64 products wrap on purpose (as in the jitted
    # code); numpy would print an overflow RuntimeWarning for each one
    import warnings

    warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning,
                            module=r"mathhammer\.(kernels|\w+\.kernels)")


def _source_of(module: str) -> Path:
    """``mathhammer.fantasy.kernels.combat`` -> its file (no import)."""
    return _PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py")


def cache_is_warm(module: str) -> bool:
    """True when numba's cache already holds compiled code of the kernel module ``module``
    (a dotted name); the folder is numba's own for that file (its parent folder's name and
    the hash of its path)."""
    import hashlib

    ensure_cache_dir()
    cache_dir = os.environ.get("NUMBA_CACHE_DIR")
    if not cache_dir or not Path(cache_dir).is_dir():
        return False
    source = _source_of(module)
    folder = source.parent
    sub = f"{folder.name}_{hashlib.sha1(str(folder).encode()).hexdigest()}"
    return any((Path(cache_dir) / sub).glob(f"{source.stem}.*.nbi"))


#: called with a message when a kernel module will compile; the CLI sets it to a
#: stderr printer (silenced by --quiet); library users get a stderr note by default.
compile_notice = lambda message: print(message, file=sys.stderr)  # noqa: E731


def load(module: str):
    """Import the kernel module ``module`` (``"mathhammer.fantasy.kernels.combat"``),
    announcing a first-run compile.

    Only the first load in a process looks at the cache directory; later calls (e.g.
    once per chunk) return the imported module at once.
    """
    import importlib

    loaded = sys.modules.get(module)
    # another thread may still be running the module's body: import_module waits for it
    if loaded is not None and not getattr(loaded.__spec__, "_initializing", False):
        return loaded
    if compile_notice is not None and not cache_is_warm(module):
        short = module.removeprefix("mathhammer.").replace("kernels.", "").replace(".kernels", "")
        compile_notice(f"compiling kernels, first run only ({short})")
    return importlib.import_module(module)
