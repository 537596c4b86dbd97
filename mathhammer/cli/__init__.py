"""The ``mathhammer`` command line: a thin Typer layer over the library.

``main()`` runs the Typer app without Click's standalone mode so that every kind
of bad input — a Click usage error or a :class:`MathhammerError` — becomes one
line on stderr and exit code 2, and Ctrl-C becomes exit code 130.
"""

from __future__ import annotations

import sys

from mathhammer.cli._interrupt import CTRL_C as _CTRL_C
from mathhammer.cli._interrupt import ctrl_c_seen  # noqa: F401 (public)


def main(argv: list[str] | None = None) -> None:
    # argv None: the real command line, where Ctrl-C ends the process with os._exit(130);
    # a KeyboardInterrupt once raised inside a library's exec() makes a normal exit
    # die by SIGINT (exit -2) even after it was handled. In-process callers pass argv.
    hard = argv is None
    if hard:  # no scan of every installed package for pydantic plugins (issue 29 part 1)
        import os

        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        import typer

        from mathhammer.cli.app import app
        from mathhammer.errors import Interrupted, MathhammerError
    except KeyboardInterrupt:  # Ctrl-C while the CLI is still loading: no traceback
        _exit_interrupted("stopped at your request", hard)

    if hard:  # the real standard output: a full disk or a closed descriptor is exit 2
        from mathhammer.io import guard_stdout

        guard_stdout()
        _watch_ctrl_c()
    try:
        code = app(args=argv, prog_name="mathhammer", standalone_mode=False)
        _flush_stdout()  # the answer is only delivered once it is flushed
    except BrokenPipeError:  # `mathhammer ... | head`: nothing more to say
        _silence_stdout()
        _leave(0, hard)
    except SystemExit as done:  # Typer turns a closed pipe into a bare exit 1: the same case
        if done.code == 1 and isinstance(done.__context__, BrokenPipeError):
            _silence_stdout()
            _leave(0, hard)
        if isinstance(done.code, int) or done.code is None:
            _leave(done.code or 0, hard)
        raise
    except MathhammerError as err:
        if _CTRL_C:
            _exit_interrupted("stopped at your request", hard)
        from mathhammer.present.flags import error_line

        print(f"error: {error_line(err)}", file=sys.stderr)
        _leave(2, hard)
    except (KeyboardInterrupt, typer.Abort):
        _exit_interrupted("stopped at your request", hard)
    except Interrupted as stop:
        _exit_interrupted(partial_note(stop.partial), hard)
    except Exception as err:
        if _CTRL_C:  # a Ctrl-C inside a library (numba loading a kernel) may surface as
            _exit_interrupted("stopped at your request", hard)  # any error: it is the stop
        # Click's usage errors (Typer may vendor Click, so match by shape, not class)
        if type(err).__name__ == "NoArgsIsHelpError" and getattr(err, "ctx", None) is not None:
            print(err.ctx.get_help())  # bare `mathhammer` or a bare group: the help
            _leave(0, hard)
        if hasattr(err, "format_message") and hasattr(err, "exit_code"):
            print(f"error: {usage_line(err)}", file=sys.stderr)
            _leave(2, hard)
        raise
    if code == 130:  # Typer turns a Ctrl-C outside the engine into a silent Exit(130)
        _exit_interrupted("stopped at your request", hard)
    _leave(code if isinstance(code, int) else 0, hard)


_LEAVING: list[bool] = []
#: after a Ctrl-C the process is gone within this many seconds, even if the interrupt
#: was swallowed (raised inside a C callback of llvmlite while a kernel loads, it is
#: printed as "Exception ignored" and the run went on to print its answer)
STOP_DEADLINE = 0.6


def _watch_ctrl_c() -> None:
    """Ctrl-C raises KeyboardInterrupt as usual, is remembered, and wakes a watchdog.

    Remembered: numba once met the interrupt while loading a compiled kernel and raised
    RuntimeError instead (a traceback, exit 1); any error after a Ctrl-C is the stop.
    The watchdog: the main thread may not see the interrupt for seconds (inside an
    LLVM compile step, or when a C callback swallows the KeyboardInterrupt), so the
    signal also writes a byte to a pipe at C level (``signal.set_wakeup_fd``); a thread
    blocked on that pipe wakes at once and ends the process with exit 130 if the normal
    path has not done so within :data:`STOP_DEADLINE` seconds.
    """
    import os
    import signal
    import threading

    def on_sigint(signum, frame):
        _CTRL_C.append(True)
        _quiet_interrupt_tracebacks()  # Typer replaced sys.excepthook after we started
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread: leave the handler alone
        return
    _quiet_interrupt_tracebacks()
    try:
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (OSError, ValueError):
        return

    def watchdog() -> None:
        while True:
            try:
                got = os.read(read_end, 64)
            except OSError:
                return
            if not got:
                return
            # only while our handler is the one in place: a command that takes Ctrl-C
            # over (`serve` stops gracefully under uvicorn's) keeps its own way out
            if signal.SIGINT in got and signal.getsignal(signal.SIGINT) is on_sigint:
                import time

                time.sleep(STOP_DEADLINE)
                _force_exit()

    threading.Thread(target=watchdog, name="mathhammer-ctrl-c", daemon=True).start()


def _quiet_interrupt_tracebacks() -> None:
    """A Ctrl-C that C code meets and prints (an import inside a C call, a ctypes
    callback) prints nothing: the run is stopping, and says so in one line."""
    if not getattr(sys.excepthook, "_mathhammer", False):
        previous_excepthook = sys.excepthook

        def excepthook(kind, value, tb) -> None:
            if not issubclass(kind, KeyboardInterrupt):
                previous_excepthook(kind, value, tb)

        excepthook._mathhammer = True
        sys.excepthook = excepthook
    if not getattr(sys.unraisablehook, "_mathhammer", False):
        previous_unraisable = sys.unraisablehook

        def unraisablehook(unraisable) -> None:
            if not isinstance(unraisable.exc_value, KeyboardInterrupt):
                previous_unraisable(unraisable)

        unraisablehook._mathhammer = True
        sys.unraisablehook = unraisablehook


def _force_exit() -> None:
    """The watchdog: the interrupt did not end the run in time; end it now."""
    import os

    if _LEAVING:
        return
    _LEAVING.append(True)
    try:
        sys.stderr.write("interrupted: stopped at your request\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - nothing left to tell
        pass
    os._exit(130)


def _flush_stdout() -> None:
    """Flush standard output now, so a write error is reported (exit 2), not lost at exit."""
    stream = sys.stdout
    if stream is not None:
        stream.flush()


def _leave(code: int, hard: bool) -> None:
    """Exit with ``code``; a real command line skips the interpreter's teardown.

    Tearing down numba's and llvmlite's objects took 0.2-0.4 s after every Monte
    Carlo query had already printed its answer. The atexit hooks still run (they stop
    the progress bar) and both streams are flushed first; worker threads are idle by
    now. In-process callers (``main(argv)``) get a normal ``SystemExit``.
    """
    import threading

    if code == 0 and _CTRL_C and not _LEAVING:  # the interrupt was swallowed on the way
        _exit_interrupted("stopped at your request", hard)
        return
    if code == 0:  # an answer counts only once it is flushed: a full disk is exit 2
        try:
            _flush_stdout()
        except BrokenPipeError:
            _silence_stdout()
        except Exception as err:  # OutputError from the guarded stdout
            from mathhammer.present.flags import flag

            one_line = getattr(err, "one_line", None)
            print(f"error: {one_line(flag) if one_line else err}", file=sys.stderr)
            code = 2
    if not hard or threading.current_thread() is not threading.main_thread():
        sys.exit(code)
    import atexit
    import os

    try:
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - a second Ctrl-C while leaving: leave anyway
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader left: nothing more to say (as above)
            _silence_stdout()
        except Exception:  # reported above (or nowhere left to report it)
            pass
    os._exit(code)


def _exit_interrupted(note: str, hard: bool = False) -> None:
    """One line on stderr, exit 130, now.

    Worker threads may still be inside a long kernel chunk (or a first-run
    compile) whose result is discarded anyway; a normal exit would join them, so
    when any are alive the process leaves with ``os._exit`` after running the
    atexit hooks (which stop the progress bar) and flushing.
    """
    import threading

    if _LEAVING:  # already on the way out (the watchdog, or a second Ctrl-C)
        import os

        os._exit(130) if hard else sys.exit(130)
    _LEAVING.append(True)
    print(f"interrupted: {note}", file=sys.stderr)
    _leave(130, hard or threading.active_count() > 1)


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so the exit flush stays quiet."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def usage_line(err) -> str:
    """Click's usage error as one line: where, what, and how to get help."""
    ctx = getattr(err, "ctx", None)
    command = ctx.command_path if ctx is not None else "mathhammer"
    message = " ".join(err.format_message().split())
    got = _bad_value(err)
    if got is not None and "(got " not in message:  # Typer's pydantic messages omit the value
        shown = got if got.strip() else repr(got)
        message += f" (got {shown[:77] + '...' if len(shown) > 80 else shown})"
    return f"{command}: {message}; fix: see `{command} --help`"


def _bad_value(err) -> str | None:
    """The text the user typed for a bad option value, from the pydantic cause if any."""
    cause = getattr(err, "__cause__", None)
    try:
        items = cause.errors() if cause is not None and hasattr(cause, "errors") else []
    except Exception:  # not a pydantic error after all
        return None
    value = items[0].get("input") if items else None
    return " ".join(str(value).split()) if isinstance(value, (str, int, float)) else None


def partial_note(partial) -> str:
    """One line for Ctrl-C: the partial estimate if any chunk had finished."""
    if partial is None or not getattr(partial, "n_trials", 0):
        return "stopped at your request before any chunk finished"
    return (f"stopped at your request after {partial.n_trials:,} trials (seed {partial.seed}); "
            "partial results are not printed, rerun with fewer --n-trials")
