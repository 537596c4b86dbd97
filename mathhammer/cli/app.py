"""The Typer application: the root command and the table of every command beside it.

Only Typer is imported at start-up. A command's module is imported when that command
runs (or when something asks for the command itself: the web's forms walk the whole
tree); ``mathhammer --help`` lists the one-line helps of :data:`COMMANDS`, which
``tests/test_cli_startup.py`` holds equal to the commands' own (issue 29 part 1).
"""

from __future__ import annotations

from typing import Annotated

import typer

from mathhammer import __version__
from mathhammer.cli._lazy import Entry, LazyGroup

#: the root's Typer settings; a lazily built command is built under the same ones
SETTINGS = dict(
    name="mathhammer",
    help="Exact and Monte Carlo odds for Warmachine Mk II and Warhammer Fantasy / The Ninth Age.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: commands a front end above the CLI adds to the command line, by module name: data, so
#: the CLI imports nothing above it (docs/design.md, "Layers"); the web's ``serve``
EXTENSIONS = (("serve", "mathhammer.web.serve", "serve_command"),)

_SERVE_HELP = "Serve the pages and the JSON API on this machine (Ctrl-C stops it)."

#: every command of ``mathhammer``, in ``--help`` order: name, ``module:function`` (or the
#: group's Typer app), and the first paragraph of its help
COMMANDS: tuple[Entry, ...] = (
    Entry("roll", "mathhammer.cli.roll:roll_command",
          "Distribution of a dice expression: P(=k), P(≥k), P(≤k), mean and sd (DICE-2)."),
    Entry("roll-off", "mathhammer.cli.dicegames:roll_off_command",
          "A roll-off: both roll a D6 (+ bonus), higher wins, ties roll again (DICE-6)."),
    Entry("scatter", "mathhammer.cli.dicegames:scatter_command",
          "Scatter by any dice (DICE-7): P(HIT), the distance moved, P(ending within R inches)."),
    Entry("run", "mathhammer.cli.run:run_command",
          'Run a scenario file (game = "warmachine" | "fantasy" | "magic").'),
    Entry("rules", "mathhammer.cli.rules:rules_command",
          "Print the rules as mathhammer plays them: the rule, its source, the project's "
          "decision."),
    Entry("demo", "mathhammer.cli.demo:demo_command",
          "Run a short tour of mathhammer on bundled defaults: one answer per engine."),
    Entry("warmup", "mathhammer.cli.demo:warmup_command",
          "Compile every Monte Carlo kernel once (fills numba's cache; later runs start fast)."),
    *(Entry(name, f"{module}:{function}", _SERVE_HELP) for name, module, function in EXTENSIONS),
    Entry("compare", "mathhammer.cli.analysis:compare_command",
          "Every attacker x target cell of two army lists: P(kill), expected damage, per 100 "
          "points."),
    Entry("sweep", "mathhammer.cli.analysis:sweep_command",
          "Vary one stat of the attacker or the target and show where P(kill) jumps "
          "(breakpoints)."),
    Entry("score", "mathhammer.cli.tuning:score_command",
          "A list against a meta: P(win), P(draw) and the VP margin on battles, or points "
          "destroyed and lost per turn on cells."),
    Entry("diff", "mathhammer.cli.tuning:diff_command",
          "Two lists side by side against a meta: B − A with its paired standard error."),
    Entry("tune", "mathhammer.cli.tuning:tune_command",
          "The best lists an options file allows against a meta, as changes to LIST with their "
          "paired gain."),
    Entry("import", "mathhammer.cli.imports:import_command",
          "Convert a list builder's export into a mathhammer list file (names matched to "
          "bundled profiles)."),
    Entry("wm", "mathhammer.cli.wm:app",
          "Warmachine Mk II: attacks, duels with the warjack grid and focus policies, AOE.",
          group=True),
    Entry("fb", "mathhammer.cli.fb:app",
          "Warhammer Fantasy / Ninth Age: attack chains, shooting, combats, tests, artillery.",
          group=True,
          also=("mathhammer.cli.fb_artillery", "mathhammer.cli.fb_battle", "mathhammer.cli.fb_combat")),
    Entry("magic", "mathhammer.cli.magic:app",
          "Magic phase: flow, casting, dispelling, whole phases.", group=True),
    Entry("profiles", "mathhammer.cli.profiles:app",
          "Bundled and user profiles: list, show, validate, schema.", group=True),
)


class MathhammerGroup(LazyGroup):
    entries = COMMANDS
    settings = SETTINGS


app = typer.Typer(cls=MathhammerGroup, **SETTINGS)


def _version(value: bool) -> None:
    if value:
        print(f"mathhammer {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Exact and Monte Carlo odds for Warmachine Mk II and Warhammer Fantasy / The Ninth Age."""
