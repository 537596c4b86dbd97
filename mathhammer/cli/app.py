"""The Typer application: command groups are registered here, implemented beside it.

Only Typer is imported at start-up; each command imports numpy, pandas or numba
inside its body so that ``mathhammer --help`` stays fast.
"""

from __future__ import annotations

from typing import Annotated

import typer

from mathhammer import __version__
from mathhammer.cli import demo, dicegames, fb, fb_artillery, fb_battle, fb_combat, magic, profiles, roll, rules, run, wm  # noqa: F401

app = typer.Typer(
    name="mathhammer",
    help="Exact and Monte Carlo odds for Warmachine Mk II and Warhammer Fantasy / The Ninth Age.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


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


app.command("roll")(roll.roll_command)
app.command("roll-off")(dicegames.roll_off_command)
app.command("scatter")(dicegames.scatter_command)
app.command("run")(run.run_command)
app.add_typer(wm.app, name="wm")
app.add_typer(fb.app, name="fb")
app.add_typer(magic.app, name="magic")
app.add_typer(profiles.app, name="profiles")
app.command("rules")(rules.rules_command)
app.command("demo")(demo.demo_command)
app.command("warmup")(demo.warmup_command)
from mathhammer.cli import serve as _serve  # noqa: E402
app.command("serve")(_serve.serve_command)
from mathhammer.cli import analysis as _analysis  # noqa: E402
app.command("compare")(_analysis.compare_command)
app.command("sweep")(_analysis.sweep_command)
from mathhammer.cli import tuning as _tuning  # noqa: E402
app.command("score")(_tuning.score_command)
app.command("diff")(_tuning.diff_command)
app.command("tune")(_tuning.tune_command)
from mathhammer.cli import imports as _imports  # noqa: E402
app.command("import")(_imports.import_command)
