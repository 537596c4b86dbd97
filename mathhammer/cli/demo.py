"""``mathhammer demo`` (the README's first command) and ``mathhammer warmup``.

The demo runs one query of each engine on bundled defaults. Each engine adds its
own step to :data:`DEMO_STEPS` (argv lists run through the real CLI). The short tour
(the default) prints each query's headline answer — the first step also its whole
table, so a reader sees what a table looks like — and stays within
:data:`SHORT_TOUR_LINES`; ``mathhammer demo --full`` prints every table.
"""

from __future__ import annotations

import sys

import typer

DEMO_STEPS: list[tuple[str, list[str]]] = [
    ("Dice: 2D6+3, chance of 10 or more (exact)", ["roll", "2D6+3", "--at-least", "10"]),
    ("Dice: the same by Monte Carlo, with standard errors",
     ["roll", "2D6+3", "--at-least", "10", "--method", "mc", "--n-trials", "200000", "--seed", "1"]),
    ("Profiles: the Khador Juggernaut's card, with its damage grid and recorded doubts",
     ["profiles", "show", "khador/juggernaut"]),
    ("Warmachine: three charging Juggernaut axe attacks (MAT 7, P+S 19) vs DEF 12 ARM 18, 15 boxes",
     ["wm", "attack", "--stat", "7", "--defense", "12", "--power", "19", "--armor", "18",
      "--attacks", "3", "--charge", "--boxes", "15"]),
    ("Warmachine: a 3\" AOE at a target 8\" away, with a neighbour 1.5\" behind it (exact)",
     ["wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14", "--power", "14", "--range", "8",
      "--model", "grunt1,1.5,0,small,arm=13,boxes=1"]),
]

#: kernel modules the demo's steps use (an empty cache for any of them means compiling)
DEMO_KERNELS = ("mathhammer.kernels.rolls", "mathhammer.magic.kernels",
                "mathhammer.fantasy.kernels.combat", "mathhammer.fantasy.kernels.artillery",
                "mathhammer.warmachine.kernels.grid", "mathhammer.fantasy.kernels.chain")


#: the short tour (the default) stays within this many lines
SHORT_TOUR_LINES = 150


def demo_command(
    full: bool = typer.Option(False, "--full", help="The long tour: every step's whole table "
                              "(the default prints each step's headline answer)."),
    ahead: bool = typer.Option(False, "--ahead", hidden=True,
                               help="Internal: run the steps backwards, silently."),
) -> None:
    """Run a short tour of mathhammer on bundled defaults: one answer per engine."""
    import contextlib
    import io
    import shlex

    from mathhammer.cli.app import app

    if ahead:  # the second process of _compile_ahead: only the numba cache matters
        for _, argv in reversed(DEMO_STEPS):
            with contextlib.redirect_stdout(io.StringIO()):
                app(args=argv, prog_name="mathhammer", standalone_mode=False)
        return
    helper = _compile_ahead("demo")
    try:
        if not full:
            print("A short tour: each question, the command that asks it, and its answer "
                  "(`mathhammer demo --full` shows every table).", flush=True)
        for i, (title, argv) in enumerate(DEMO_STEPS):
            brief = not full and i > 0 and is_query(argv)
            shown = argv + (["--brief"] if brief else [])
            command = " ".join(shlex.quote(_shown_path(a)) for a in shown)
            print(f"\n=== {title}\n$ mathhammer {command}" + ("" if brief else "\n"), flush=True)
            app(args=shown, prog_name="mathhammer", standalone_mode=False)
            sys.stdout.flush()
        if not full:
            print("\nMore: `mathhammer demo --full` (every table), `mathhammer --help`, "
                  "`mathhammer rules WM-A3` (the rules as played), README.md.")
    finally:
        _stop(helper)


def _shown_path(arg: str) -> str:
    """A bundled file as the reader would type it: relative to the current folder."""
    import os

    if os.path.isabs(arg) and os.path.exists(arg):
        rel = os.path.relpath(arg)
        return arg if rel.startswith("..") else rel
    return arg


def is_query(argv: list[str]) -> bool:
    """Whether ``argv`` names a query command (one that takes ``--brief``)."""
    import typer.main

    from mathhammer.cli.app import app

    cmd = typer.main.get_command(app)
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
    """On an empty numba cache, a second process runs ``command``'s queries from the end.

    numba compiles one function at a time in a process, and the first run of the demo
    (or warmup) is mostly compiling; a second process walking the queries backwards
    fills the shared cache from the other side, so two cores split the work. numba writes cache files
    atomically, so the worst case is a kernel compiled by both. Returns the process,
    or None when the cache is warm, JIT is off or there is one core.
    """
    import os
    import subprocess

    from mathhammer import kernels

    if (os.cpu_count() or 1) < 2 or os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return None
    if all(kernels.cache_is_warm(module) for module in DEMO_KERNELS):
        return None
    return subprocess.Popen([sys.executable, "-m", "mathhammer", command, "--ahead"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def warmup_command(
    ahead: bool = typer.Option(False, "--ahead", hidden=True,
                               help="Internal: the queries backwards, silently."),
) -> None:
    """Compile every Monte Carlo kernel once (fills numba's cache; later runs start fast)."""
    import contextlib
    import io

    from mathhammer.cli.app import app

    helper = None if ahead else _compile_ahead("warmup")
    if not ahead:
        print("compiling every Monte Carlo kernel (once per machine)...", file=sys.stderr, flush=True)
    try:
        for argv in reversed(WARMUP_ARGV) if ahead else WARMUP_ARGV:
            with contextlib.redirect_stdout(io.StringIO()):
                app(args=argv + ["--format", "json", "--quiet"], prog_name="mathhammer",
                    standalone_mode=False)
    finally:
        _stop(helper)
    if not ahead:
        print("kernels compiled and cached", file=sys.stderr)


#: one small Monte Carlo query per kernel family; engines append theirs
WARMUP_ARGV: list[list[str]] = [["roll", "2D6", "--method", "mc", "--n-trials", "1000", "--seed", "0"]]
WARMUP_ARGV.append(["wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "18",
                    "--method", "mc", "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "18",
                    "--attacks", "2", "--method", "mc", "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14", "--power", "14",
                    "--range", "8", "--method", "mc", "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14", "--power", "14",
                    "--range", "6", "--spray", "8", "--method", "mc", "--n-trials", "1000", "--seed", "0"])


def _magic_example() -> str:
    """Path of the bundled magic scenario (source checkout or wheel)."""
    from mathhammer.profiles import profiles_root

    return str(profiles_root() / "scenarios" / "magic_t9a1_four_spells.toml")


DEMO_STEPS.append(("Magic (T9A): cast 3 dice at level 2 against casting value 9 (exact)",
                   ["magic", "cast", "--dice", "3", "--level", "2", "--cv", "9"]))
DEMO_STEPS.append(("Magic: a whole phase, four spells, optimal dice vs a threshold dispeller",
                   ["magic", "phase", _magic_example(), "--n-trials", "200000", "--seed", "1"]))
WARMUP_ARGV.append(["magic", "phase", _magic_example(), "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["magic", "phase", "--spell", "Fireball:8", "--spell", "Hex:11", "--level", "2",
                    "--dispel-level", "1", "--n-trials", "1000", "--seed", "0"])  # no file
DEMO_STEPS.append(("Fantasy: 20 Halberdiers against 20 Orc Boyz, up to 3 rounds of close combat",
                   ["fb", "combat", "wfb8/empire_halberdiers", "wfb8/orc_boyz", "--rounds", "3",
                    "--seed", "1"]))
DEMO_STEPS.append(("Fantasy: a stone thrower at 40 skeletons ten wide (template geometry)",
                   ["fb", "artillery", "stone-thrower", "wfb8/skeleton_warriors", "--models", "40",
                    "--width", "10", "--seed", "1"]))
WARMUP_ARGV.append(["fb", "combat", "wfb8/empire_halberdiers", "wfb8/orc_boyz", "--rounds", "2",
                    "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["fb", "artillery", "stone-thrower", "wfb8/orc_boyz", "--n-trials", "1000",
                    "--seed", "0"])


def _wm_scenario_example() -> str:
    """Path of the bundled Warmachine raw-attack scenario."""
    from mathhammer.profiles import profiles_root

    return str(profiles_root() / "scenarios" / "warmachine_two_jacks_vs_charger.toml")


DEMO_STEPS.append(("Warmachine: Juggernaut charges an Ironclad, optimal focus, full damage grid",
                   ["wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--focus", "3", "--charge",
                    "--policy", "optimal", "--seed", "1"]))
DEMO_STEPS.append(("Warmachine: a scenario file, four attacks on a grid (exact grid DP)",
                   ["run", _wm_scenario_example()]))
WARMUP_ARGV.append(["wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--charge",
                    "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["run", _wm_scenario_example(), "--method", "mc", "--n-trials", "1000",
                    "--seed", "0"])
WARMUP_ARGV.append(["run", _wm_scenario_example()])
WARMUP_ARGV.append(["wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--focus", "1",
                    "--method", "exact"])

DEMO_STEPS.append(("Warmachine: the best turn for Sorscha's battle box against a shielded Stryker (wm plan)",
                   ["wm", "plan", "khador/sorscha", "khador/juggernaut", "khador/destroyer",
                    "--target", "cygnar/stryker", "--camped-focus", "3", "--target-effect",
                    "Arcane Shield"]))


def _turn_scenario_example() -> str:
    """The bundled whole-turn scenario (fb turn)."""
    from mathhammer.profiles import profiles_root

    return str(profiles_root() / "scenarios" / "fantasy_turns_knights_vs_orcs.toml")


# fantasy attack chain and tests (fb attack / shoot / break-test)
DEMO_STEPS.append(("Fantasy: 20 attacks, Killing Blow and a 6+ ward, exact vs Monte Carlo (--check)",
                   ["fb", "attack", "--attacks", "20", "--ws", "5", "--target-ws", "4", "--strength",
                    "4", "--toughness", "4", "--save", "4", "--ward", "6", "--killing-blow",
                    "--at-least", "5", "--check", "--n-trials", "200000", "--seed", "1"]))
DEMO_STEPS.append(("Fantasy: a break test, Ld 8 lost by 3, steadfast or not (wfb8)",
                   ["fb", "break-test", "--ld", "8", "--lost-by", "3"]))
DEMO_STEPS.append(("Fantasy: Knights charge Orc Boyz from 14\", three game turns (fb turn)",
                   ["fb", "turn", _turn_scenario_example(), "--n-trials", "20000", "--seed", "1"]))
WARMUP_ARGV.append(["fb", "attack", "--attacks", "5", "--ws", "4", "--target-ws", "4", "--strength",
                    "3", "--toughness", "3", "--method", "mc", "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["magic", "cast", "--dice", "2", "--cv", "7", "--method", "mc", "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["magic", "dispel", "--dice", "2", "--against", "7", "--method", "mc", "--n-trials", "1000",
                    "--seed", "0"])

# analysis: army-list matrices and breakpoint sweeps (issue 6)
DEMO_STEPS.append(("Analysis: two Mk II battle boxes, every attacker x target cell, per 100 points",
                   ["compare", "khador_battlebox", "cygnar_battlebox", "--one-way",
                    "--n-trials", "20000", "--seed", "1"]))
DEMO_STEPS.append(("Analysis: where does a charging Juggernaut stop killing an Ironclad? DEF 10..18",
                   ["sweep", "khador/juggernaut", "cygnar/ironclad", "--vary", "def=10..18",
                    "--focus", "3", "--charge", "--n-trials", "20000", "--seed", "1"]))
