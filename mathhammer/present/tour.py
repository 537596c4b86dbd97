"""The tour: the questions ``mathhammer demo`` asks, and the small queries that compile
every kernel (``mathhammer warmup``, and the server's warm-up at start).

Each step is a title and the argv the command line would get, run through the real CLI
(the demo) or the web's runner (the server warm-up). The paths of bundled example files
are resolved where the package is installed.
"""

from __future__ import annotations

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

#: one small Monte Carlo query per kernel family; engines append theirs
WARMUP_ARGV: list[list[str]] = [["roll", "2D6", "--method", "mc", "--n-trials", "1000", "--seed", "0"]]
# the other two samplers of a dice expression (DICE-2): a binary search and a program
WARMUP_ARGV.append(["roll", "10D6", "--method", "mc", "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["roll", "20D20", "--method", "mc", "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["roll-off", "--method", "mc", "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["scatter", "2D6", "--method", "mc", "--n-trials", "1000", "--seed", "0"])
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
WARMUP_ARGV.append(["fb", "artillery", "cannon", "wfb8/orc_boyz", "--n-trials", "1000", "--seed", "0"])
WARMUP_ARGV.append(["fb", "artillery", "flame-cannon", "wfb8/orc_boyz", "--n-trials", "1000",
                    "--seed", "0"])
WARMUP_ARGV.append(["fb", "combat", "wfb8/empire_halberdiers", "wfb8/orc_boyz", "--rounds", "1"])


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
WARMUP_ARGV.append(["wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--focus", "1",
                    "--method", "mc", "--n-trials", "1000", "--seed", "0"])  # the optimal policy played

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
# the whole-turn kernel compiled ahead, and fb turn's page lists a question without a file
WARMUP_ARGV.append(["fb", "turn", "--unit-a", "wfb8/knights_of_the_realm", "--unit-b",
                    "wfb8/orc_boyz", "--distance", "12", "--reaction", "flee", "--turns", "2",
                    "--n-trials", "1000", "--seed", "0"])
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
