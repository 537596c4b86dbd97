"""Options shared by every query command, and the one path from report to output.

Use the ``Annotated`` aliases in a command's signature, collect them with
:func:`common_options`, call one library function with ``opts.config()``, then
:func:`emit` the report. Nothing here knows any game rule.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer

from mathhammer import trials
from mathhammer.errors import InputError
from mathhammer.io import (  # noqa: F401 (the CLI's writer is the library's)
    STDOUT,
    all_or_nothing,
    check_outputs,
    resolve_output,
    short_path,
    write_atomically,
)
from mathhammer.present.host import HOST  # an in-process host takes the report (`serve`)

Method = Annotated[
    str,
    typer.Option("--method", help="exact, mc (Monte Carlo) or auto (exact when available)."),
]
#: the engine's default (mathhammer/trials.py: no numpy needed for `--help`)
DEFAULT_TRIALS = trials.QUERY


def n_trials_option(default: int) -> object:
    """``--n-trials`` whose help states the default the command really uses."""
    return Annotated[
        Optional[int], typer.Option("--n-trials", help=f"Monte Carlo trials (default {default:,}).")
    ]


NTrials = n_trials_option(DEFAULT_TRIALS)
Seed = Annotated[
    Optional[int], typer.Option("--seed", help="Seed for a repeatable run; drawn and shown if absent.")
]
Precision = Annotated[
    Optional[float],
    typer.Option(
        "--precision",
        help="Adaptive Monte Carlo: run until every reported probability's 95% half-width "
        "is at most this (e.g. 0.001).",
    ),
]
Threads = Annotated[
    Optional[int], typer.Option("--threads", help="Worker threads (default: every core); same answer for any count.")
]
Format = Annotated[str, typer.Option("--format", help="table, json or csv.")]
PlotPath = Annotated[
    Optional[Path], typer.Option("--plot", help="Also write a PNG chart of the distribution(s).")
]
OutputPath = Annotated[
    Optional[Path], typer.Option("--output", "-o", help="Write the output to this file (atomically; "
                                 "- for standard output).")
]
Check = Annotated[
    bool, typer.Option("--check", help="Run exact and Monte Carlo and print the z-scores of their difference.")
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or notes on stderr.")]
Brief = Annotated[
    bool, typer.Option("--brief", help="Print only the headline: one line with the answer.")
]
Full = Annotated[
    bool, typer.Option("--full", help="Table view: every outcome row and every listed line "
                       "(by default rare outcomes are folded into ≤ k / ≥ k rows).")
]
Explain = Annotated[
    bool, typer.Option("--explain", help="Show how the answer was worked out: each stage with its "
                       "exact fraction, the rule ids (docs/rules.md, `mathhammer rules ID`) and the decisions that apply.")
]

FORMATS = ("table", "json", "csv")



@dataclass
class CommonOptions:
    method: str = "auto"
    n_trials: int | None = None
    seed: int | None = None
    precision: float | None = None
    threads: int | None = None
    format: str = "table"
    plot: Path | None = None
    output: Path | None = None
    check: bool = False
    quiet: bool = False
    explain: bool = False
    brief: bool = False
    full: bool = False
    #: trials when --n-trials is not given (a command may set its own, see query_command)
    default_trials: int = DEFAULT_TRIALS
    #: the command as typed (``wm duel``): the JSON's ``command``; the library names its
    #: report after the engine (``warmachine.duel``)
    command: str | None = None

    def validate(self) -> CommonOptions:
        if self.precision is not None and self.method == "auto":
            self.method = "mc"  # asking for a precision only makes sense for Monte Carlo
        if self.brief and self.format != "table":
            raise InputError("--brief", "prints the headline line only, so it takes no --format",
                             self.format, "drop --format, or drop --brief for the full data")
        if self.format not in FORMATS:
            raise InputError("--format", "must be table, json or csv", self.format,
                             "use --format json")
        if self.method not in ("auto", "exact", "mc"):
            raise InputError("--method", "must be exact, mc or auto", self.method,
                             "use --method mc")
        if self.output is not None and str(self.output) == STDOUT:
            self.output = None  # `-o -`: standard output, as with no --output
        if self.plot is not None and self.plot.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise InputError("--plot", "must name a .png, .svg or .pdf file", short_path(self.plot),
                             "use --plot chart.png")
        # every output writable and no two the same file, before any work (issue 22)
        check_outputs([("--plot", self.plot), ("--output", self.output)])
        return self

    def config(self):
        """The Monte Carlo settings (progress bar on stderr unless quiet or not a TTY)."""
        from mathhammer.engine import MonteCarloConfig

        self._install_notices()
        host = HOST.get()
        return MonteCarloConfig(
            n_trials=self.n_trials if self.n_trials is not None else self.default_trials,
            n_trials_is_default=self.n_trials is None,
            seed=self.seed,
            threads=self.threads,
            precision=self.precision,
            progress=host.progress if host is not None else None if self.quiet else progress_bar(),
        )

    def _install_notices(self) -> None:
        import mathhammer.kernels as kernels

        kernels.compile_notice = None if self.quiet else (
            lambda msg: print(msg, file=sys.stderr, flush=True)
        )


#: (parameter name, annotation, default) of every shared query option, in --help order
COMMON_PARAMETERS: tuple[tuple[str, object, object], ...] = (
    ("method", Method, "auto"),
    ("n_trials", NTrials, None),
    ("seed", Seed, None),
    ("precision", Precision, None),
    ("threads", Threads, None),
    ("format", Format, "table"),
    ("plot", PlotPath, None),
    ("output", OutputPath, None),
    ("check", Check, False),
    ("quiet", Quiet, False),
    ("explain", Explain, False),
    ("brief", Brief, False),
    ("full", Full, False),
)

#: the wrapper's context parameter (not an option: Typer fills it with the Click context)
CONTEXT = "mathhammer_context"

#: options every query command takes, whatever its ``only`` says (the answer first)
ALWAYS = ("brief", "full")


def query_command(func=None, *, only: tuple[str, ...] | None = None, trials: int | None = None,
                  ask: tuple[str, ...] = (), files: tuple[str, ...] = ()):
    """Give a Typer command the shared query options without repeating them.

    The decorated function declares its own parameters plus ``opts:
    CommonOptions = None``; the wrapper adds ``--method … --quiet`` (or just the
    names in ``only``) to the signature Typer reads and passes the validated
    :class:`CommonOptions` in as ``opts``. ``trials`` is the command's own Monte Carlo
    default (``--help`` states it and ``opts.config()`` uses it). ``ask`` names options a
    question needs although the parser cannot require them (``--attacks`` unless
    ``--for-p``): a form asks them with the required ones (``mathhammer serve``). ``files``
    names the text parameters that also read a file (a profile id or a unit file, a ruleset
    name or a ruleset file): the web takes an upload for them as for a path parameter.
    """
    if func is None:
        return lambda f: query_command(f, only=only, trials=trials, ask=ask, files=files)
    import functools
    import inspect

    own = inspect.signature(func, eval_str=True)
    chosen = [c for c in COMMON_PARAMETERS if only is None or c[0] in only or c[0] in ALWAYS]
    names = [name for name, _, _ in chosen]
    keyword_only = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
        for p in own.parameters.values() if p.name != "opts"
    ]
    if trials is not None:
        chosen = [(n, n_trials_option(trials) if n == "n_trials" else a, d) for n, a, d in chosen]
    shared = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann)
        for name, ann, default in chosen
    ]

    # the command's own parameters (the shared ones have their own range checks and words)
    labels = {prm.name: _label(prm) for prm in keyword_only}
    # Typer hands the Click context to a parameter of this type: the command's own name
    context = inspect.Parameter(CONTEXT, inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context)

    @functools.wraps(func)
    def command(*args, **kwargs):
        ctx = kwargs.pop(CONTEXT, None)
        check_numbers({name: kwargs[name] for name in labels if name in kwargs}, labels)
        opts = common_options(**{name: kwargs.pop(name) for name in names},
                              default_trials=trials or DEFAULT_TRIALS)
        opts.command = " ".join(ctx.command_path.split()[1:]) if ctx is not None else None
        return func(*args, opts=opts, **kwargs)

    command.query_options = tuple(names)  # marks a query command (`mathhammer serve` lists these)
    command.query_ask = tuple(ask)
    command.query_files = tuple(files)
    command.__signature__ = own.replace(parameters=keyword_only + shared + [context])
    command.__annotations__ = {p.name: p.annotation for p in keyword_only + shared + [context]}
    del command.__wrapped__  # Typer must read the new signature, not the original
    return command


#: the most digits a number in a parameter may have: no count, stat, distance or seed
#: needs more, and Python refuses int() of more than 4,300 digits (a traceback, not a line)
MAX_DIGITS = 30


def check_numbers(values: dict, labels: dict[str, str]) -> None:
    """Every parameter of a query command bounded before use (issue 26): a float is finite,
    an int has at most :data:`MAX_DIGITS` digits, and so has every number written in a text
    parameter (counts like ``--attacks 10``, saves, ``--damaged 0,2``, ``stats:w=3``)."""
    import math
    import re

    for name, value in values.items():
        label = labels.get(name, name)
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, bool) or item is None:
                continue
            if isinstance(item, float) and not math.isfinite(item):
                raise InputError(label, "must be a finite number", str(item),
                                 f"use e.g. {label} 1")
            if isinstance(item, int) and abs(item) >= 10**MAX_DIGITS:
                raise InputError(label, f"has more than {MAX_DIGITS} digits", _digits(str(item)),
                                 "use a smaller number")
            if isinstance(item, str):
                longest = max((len(run) for run in re.findall(r"\d+", item)), default=0)
                if longest > MAX_DIGITS:
                    raise InputError(label, f"holds a number of {longest:,} digits (at most "
                                     f"{MAX_DIGITS})", _digits(item), "use a smaller number")


def _label(parameter) -> str:
    """``--attacks`` for an option, ``EXPRESSION`` for an argument (as Click names them)."""
    import typing

    for info in typing.get_args(parameter.annotation)[1:]:
        decls = [d for d in getattr(info, "param_decls", None) or () if d.startswith("--")]
        if decls:
            return decls[0]
        if type(info).__name__ == "ArgumentInfo":
            return parameter.name.upper()
    return f"--{parameter.name.replace('_', '-')}"


def _digits(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:30]}... ({len(text):,} characters)"


def common_options(**kwargs) -> CommonOptions:
    return CommonOptions(**{k: v for k, v in kwargs.items() if v is not None or k == "plot"}).validate()


def check_writable(path: Path, flag: str) -> None:
    """Fail before the work starts if ``path`` cannot be written (see :mod:`mathhammer.io`)."""
    resolve_output(path, flag)


def progress_bar(label: str = "simulating", unit: str = "trials"):
    """A rich progress callback on stderr, or None when stderr is not a terminal.

    The bar appears at the first call, which the engines make before any work with
    ``done = 0``: the planned size shows at once (``simulating 0/1,000,000``).
    """
    if not sys.stderr.isatty():
        return None
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    state: dict = {}

    def update(done: int, planned: int) -> None:
        if "bar" not in state:
            bar = Progress(
                TextColumn(label.replace("[", "\\[")), BarColumn(),
                TextColumn("{task.completed:,}/{task.total:,} " + unit),
                TimeRemainingColumn(), transient=True,
                console=__import__("rich.console", fromlist=["Console"]).Console(stderr=True),
            )
            bar.start()
            # Ctrl-C or an error leaves the bar running: stop it at exit so the
            # terminal gets its cursor back (stop() twice is harmless)
            import atexit

            atexit.register(bar.stop)
            state["bar"], state["task"] = bar, bar.add_task("work", total=planned)
        bar = state["bar"]
        bar.update(state["task"], completed=done, total=planned)
        if done >= planned:
            bar.stop()

    return update


def emit(report, opts: CommonOptions) -> None:
    """Render ``report`` as asked: stdout (or --output) and optional --plot."""
    from mathhammer.present import render as _render

    report.drop_empty()  # a distribution nothing can reach is named as empty, not printed
    if opts.explain and "explain" not in report.info:  # no stage builder: the rules followed
        from mathhammer.explain import attach

        attach(report)
    host = HOST.get()
    if host is not None:
        from mathhammer.present.answer_plots import save_report_plot

        host.receive(report, None, lambda path: save_report_plot(report, path), opts.command)
        return
    if opts.brief:
        from mathhammer.present.headline import headline

        text = headline(report) + "\n"
    else:
        text = _render.render(report, opts.format, full=opts.full, command=opts.command)
    if opts.explain and opts.format == "csv":  # CSV has no place for it: stderr, like notes
        print("explain:\n" + "\n".join(f"  {line}" for line in report.info["explain"]),
              file=sys.stderr)
    from mathhammer.present.answer_plots import save_report_plot

    deliver(text, opts, (lambda path: save_report_plot(report, path)) if opts.plot else None)
    footer_on_screen = opts.format == "table" and opts.output is None  # shows n_trials, seed
    if report.method == "mc" and not opts.quiet and not footer_on_screen:
        print(f"note: Monte Carlo, n_trials {report.n_trials:,}, seed {report.seed}", file=sys.stderr)


def deliver(text: str, opts: CommonOptions, plot=None) -> None:
    """Write a command's outputs, all or nothing: ``plot(path)`` to ``--plot`` if given,
    ``text`` to ``--output`` or standard output (checked: a full disk is exit 2)."""
    from mathhammer.cli._interrupt import ctrl_c_seen

    if ctrl_c_seen():  # a Ctrl-C swallowed on the way (inside a C callback): no answer now
        raise KeyboardInterrupt
    with all_or_nothing():
        if plot is not None and opts.plot is not None:
            plot(opts.plot)
        if opts.output is not None:
            write_atomically(opts.output, text)
        else:
            write_atomically(STDOUT, text, "standard output")
