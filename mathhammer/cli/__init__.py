"""The ``mathhammer`` command line: a thin Typer layer over the library.

``main()`` runs the Typer app without Click's standalone mode so that every kind
of bad input — a Click usage error or a :class:`MathhammerError` — becomes one
line on stderr and exit code 2, and Ctrl-C becomes exit code 130.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    # argv None: the real command line, where Ctrl-C ends the process with os._exit(130);
    # a KeyboardInterrupt once raised inside a library's exec() makes a normal exit
    # die by SIGINT (exit -2) even after it was handled. In-process callers pass argv.
    hard = argv is None
    try:
        import typer

        from mathhammer.cli.app import app
        from mathhammer.errors import Interrupted, MathhammerError
    except KeyboardInterrupt:  # Ctrl-C while the CLI is still loading: no traceback
        _exit_interrupted("stopped at your request", hard)

    if hard:  # the real standard output: a full disk or a closed descriptor is exit 2
        from mathhammer.io import guard_stdout

        guard_stdout()
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
        print(f"error: {err.one_line()}", file=sys.stderr)
        _leave(2, hard)
    except (KeyboardInterrupt, typer.Abort):
        _exit_interrupted("stopped at your request", hard)
    except Interrupted as stop:
        _exit_interrupted(partial_note(stop.partial), hard)
    except Exception as err:
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

    if code == 0:  # an answer counts only once it is flushed: a full disk is exit 2
        try:
            _flush_stdout()
        except BrokenPipeError:
            _silence_stdout()
        except Exception as err:  # OutputError from the guarded stdout
            one_line = getattr(err, "one_line", None)
            print(f"error: {one_line() if one_line else err}", file=sys.stderr)
            code = 2
    if not hard or threading.current_thread() is not threading.main_thread():
        sys.exit(code)
    import atexit
    import os

    atexit._run_exitfuncs()
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
