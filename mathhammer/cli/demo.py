"""``mathhammer demo`` (the README's first command) and ``mathhammer warmup``.

The demo runs one query of each engine on bundled defaults: the steps of
:data:`mathhammer.present.tour.DEMO_STEPS` (argv lists run through the real CLI). The short tour
(the default) prints each query's headline answer — the first step also its whole
table, so a reader sees what a table looks like — and stays within
:data:`SHORT_TOUR_LINES`; ``mathhammer demo --full`` prints every table.

The first demo on a machine (a numba cache without the warm-up's mark) also runs the
warm-up queries after the tour, so no later query — on the command line, in the web page
or a notebook, which share the cache — pays a compile (issue 29 part 2). ``mathhammer
warmup`` does the same without the tour. Both leave a mark in the cache folder, named by
the warm-up list: a new kernel source (a new folder) or a new query brings the work back.
"""

from __future__ import annotations

import sys

import typer

from mathhammer.present.tour import DEMO_STEPS, WARMUP_ARGV

#: the short tour (the default) stays within this many lines
SHORT_TOUR_LINES = 150


def demo_command(
    ctx: typer.Context,
    full: bool = typer.Option(False, "--full", help="The long tour: every step's whole table "
                              "(the default prints each step's headline answer)."),
    ahead: bool = typer.Option(False, "--ahead", hidden=True,
                               help="Internal: run the steps backwards, silently."),
) -> None:
    """Run a short tour of mathhammer on bundled defaults: one answer per engine."""
    import contextlib
    import io
    import shlex

    app = ctx.find_root().command  # the tour runs its sibling commands
    if ahead:  # the second process of _compile_ahead: only the numba cache matters
        for _, argv in reversed(DEMO_STEPS):
            with contextlib.redirect_stdout(io.StringIO()):
                app.main(args=argv, prog_name="mathhammer", standalone_mode=False)
        _run_warmup(app, backwards=False)  # the main process walks them from the end
        return
    warmed = _warmed()
    helper = None if warmed else _compile_ahead("demo")
    try:
        if not full:
            print("A short tour: each question, the command that asks it, and its answer "
                  "(`mathhammer demo --full` shows every table).", flush=True)
        for i, (title, argv) in enumerate(DEMO_STEPS):
            brief = not full and i > 0 and is_query(argv, app)
            shown = argv + (["--brief"] if brief else [])
            command = " ".join(shlex.quote(_shown_path(a)) for a in shown)
            print(f"\n=== {title}\n$ mathhammer {command}" + ("" if brief else "\n"), flush=True)
            app.main(args=shown, prog_name="mathhammer", standalone_mode=False)
            sys.stdout.flush()
        if not full:
            print("\nMore: `mathhammer demo --full` (every table), `mathhammer --help`, "
                  "`mathhammer rules WM-A3` (the rules as played), README.md.")
        if not warmed:
            sys.stdout.flush()
            print("compiling the kernels of the other queries too, so that later runs start "
                  "fast (first run only)...", file=sys.stderr, flush=True)
            _run_warmup(app, backwards=helper is not None)  # toward the helper, if any
            _mark_warmed()
    finally:
        _stop(helper)


def _warmed_mark():
    """The file in numba's cache folder that says the warm-up ran against it; None when
    nothing compiles (NUMBA_DISABLE_JIT) or no cache folder is set."""
    import hashlib
    import os
    from pathlib import Path

    from mathhammer import kernels

    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return None
    kernels.ensure_cache_dir()
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if not folder:
        return None
    key = hashlib.sha1(repr(WARMUP_ARGV).encode()).hexdigest()[:12]
    return Path(folder) / f"warmup-{key}.done"


def _warmed() -> bool:
    mark = _warmed_mark()
    return mark is None or mark.exists()


def _mark_warmed() -> None:
    mark = _warmed_mark()
    if mark is not None:
        try:
            mark.touch()
        except OSError:  # a read-only cache: the next demo warms up again, nothing worse
            pass


def _run_warmup(app, backwards: bool) -> None:
    """Every warm-up query, quietly (their answers are not the point)."""
    import contextlib
    import io

    for argv in reversed(WARMUP_ARGV) if backwards else WARMUP_ARGV:
        with contextlib.redirect_stdout(io.StringIO()):
            app.main(args=argv + ["--format", "json", "--quiet"], prog_name="mathhammer",
                     standalone_mode=False)


def _shown_path(arg: str) -> str:
    """A bundled file as the reader would type it: relative to the current folder."""
    import os

    if os.path.isabs(arg) and os.path.exists(arg):
        rel = os.path.relpath(arg)
        return arg if rel.startswith("..") else rel
    return arg


def is_query(argv: list[str], root) -> bool:
    """Whether ``argv`` names a query command (one that takes ``--brief``) under the Click
    command ``root``."""
    cmd = root
    for token in argv:
        sub = getattr(cmd, "commands", {}).get(token)
        if sub is None:
            break
        cmd = sub
    return any("--brief" in getattr(p, "opts", ()) for p in cmd.params)


def _stop(helper) -> None:
    if helper is not None and helper.poll() is None:
        helper.terminate()  # its work was only ever a head start
        helper.wait(timeout=10)


def _compile_ahead(command: str):
    """Before the first warm-up, a second process runs ``command``'s queries from the end.

    numba compiles one function at a time in a process, and the first run of the demo
    (or warmup) is mostly compiling; a second process walking the queries backwards
    fills the shared cache from the other side, so two cores split the work. numba writes cache files
    atomically, so the worst case is a kernel compiled by both. Returns the process,
    or None when the warm-up has run against this cache, JIT is off or there is one core.
    """
    import os
    import subprocess

    if (os.cpu_count() or 1) < 2 or os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return None
    if _warmed():
        return None
    return subprocess.Popen([sys.executable, "-m", "mathhammer", command, "--ahead"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def warmup_command(
    ctx: typer.Context,
    ahead: bool = typer.Option(False, "--ahead", hidden=True,
                               help="Internal: the queries backwards, silently."),
) -> None:
    """Compile every Monte Carlo kernel once (fills numba's cache; later runs start fast)."""
    app = ctx.find_root().command  # the tour runs its sibling commands
    helper = None if ahead else _compile_ahead("warmup")
    if not ahead:
        print("compiling every Monte Carlo kernel (once per machine)...", file=sys.stderr, flush=True)
    try:
        _run_warmup(app, backwards=ahead)
    finally:
        _stop(helper)
    if not ahead:
        _mark_warmed()
        print("kernels compiled and cached", file=sys.stderr)
