"""Bad inputs tried by hand, one per line, with the exact one-line message (issue 8).

Every command group is covered: roll, run, wm, fb, magic, profiles, compare,
sweep. Each message must name where (flag, argument or file and key), what is
wrong, the value given (when there is one) and the fix; the whole stderr is
compared, so a second line or a traceback fails. The CLI runs in-process from
the repository root (relative paths in messages are as typed).
"""

from __future__ import annotations

import pytest

from tests.test_reliability_harness import ROOT, assert_clean, chdir_scratch, run_inprocess

TRIALS = ["--n-trials", "1000", "-q"]
WM = ["wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "16", "-q"]
AOE = ["wm", "aoe", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "16", "-q"]
FB = ["fb", "attack", "--attacks", "5", "--ws", "4", "--target-ws", "4", "--strength", "4",
      "--toughness", "4", "-q"]
FIX_DICE = 'fix: write e.g. "2D6+3", "D3", "3D6kh2", "D6*4"'
DUEL = ["wm", "duel", "khador/juggernaut", "cygnar/charger", "-q"]
SWEEP = ["sweep", "khador/juggernaut", "cygnar/charger", "-q"]

CASES: list[tuple[list[str], str]] = [
    # ---- roll and the shared Monte Carlo / output flags
    (["roll", "2D6+"], "dice expression '2D6+', column 5: expected a number, a die like 'D6' or "
     f"'(', found 'end of text'; {FIX_DICE}"),
    (["roll", "☃"], f"dice expression '☃', column 1: expected a number, a die like 'D6' or '(', "
     f"found '☃'; {FIX_DICE}"),
    (["roll", "201D6"], f"dice expression '201D6', column 1: dice count must be 1..200; {FIX_DICE}"),
    (["roll", "D1001"], f"dice expression 'D1001', column 2: a die needs 2..1000 sides; {FIX_DICE}"),
    (["roll", "3D6kh5"], "dice expression '3D6kh5', column 6: keep must be 1..3 (the dice "
     f"rolled); {FIX_DICE}"),
    (["roll", "2D6", "--method", "mc", "--n-trials", "0"],
     "--n-trials: must be at least 1 (got 0); fix: use e.g. --n-trials 1000000"),
    (["roll", "2D6", "--method", "mc", "--n-trials", str(10**30)],
     f"--n-trials: is above the limit of 1e+11 trials (got {10**30}); fix: use fewer trials "
     "or --precision to stop at a target error"),
    (["roll", "2D6", "--method", "mc", "--n-trials", "100", "--seed", "-1"],
     "--seed: must be between 0 and 2**63-1 (got -1); fix: use e.g. --seed 1"),
    (["roll", "2D6", "--method", "mc", "--precision", "nan"],
     "--precision: must be a half-width strictly between 0 and 0.5 (got nan); fix: use e.g. "
     "--precision 0.001"),
    (["roll", "2D6", "--method", "mc", "--n-trials", "100", "--threads", "999"],
     "--threads: must be between 1 and 256 (got 999); fix: use e.g. --threads 2"),
    (["roll", "2D6", "--format", "xml"],
     "--format: must be table, json or csv (got xml); fix: use --format json"),
    (["roll", "2D6", "--method", "foo"],
     "--method: must be exact, mc or auto (got foo); fix: use --method mc"),
    (["roll", "2D6", "--plot", "out.gif"],
     "--plot: must name a .png, .svg or .pdf file (got out.gif); fix: use --plot chart.png"),
    (["roll", "2D6", "--bogus"],
     "mathhammer roll: No such option: --bogus; fix: see `mathhammer roll --help`"),
    (["roll", "2D6", "--n-trials", "abc"],
     "mathhammer roll: Invalid value for '--n-trials': Input should be a valid integer, unable "
     "to parse string as an integer (got abc); fix: see `mathhammer roll --help`"),
    (["roll", "2D6", "--n-trials", ""],
     "mathhammer roll: Invalid value for '--n-trials': Input should be a valid integer, unable "
     "to parse string as an integer (got ''); fix: see `mathhammer roll --help`"),
    (["roll", "2D6", "--precision", "x"],
     "mathhammer roll: Invalid value for '--precision': Input should be a valid number, unable "
     "to parse string as a number (got x); fix: see `mathhammer roll --help`"),
    (["roll", "2D6", "--output", "/proc/out.txt"],
     "--output: folder is not writable (got /proc); fix: pick a writable path"),
    # ---- run (scenario files)
    (["run", "tests/data/bad/syntax.toml"],
     "tests/data/bad/syntax.toml: is not valid TOML: Invalid initial character for a key part "
     "(at line 2, column 3); fix: fix the syntax at that line (see toml.io)"),
    (["run", "tests/data/bad/truncated.toml"],
     "tests/data/bad/truncated.toml: is not valid TOML: Unterminated string (at end of "
     "document); fix: fix the syntax at that line (see toml.io)"),
    (["run", "tests/data/bad/binary.toml"],
     "tests/data/bad/binary.toml: is not UTF-8 text: byte 0xff at offset 0 (line 1); "
     "fix: save the TOML file as UTF-8 text (it starts like UTF-16)"),
    (["run", "tests/data/bad/deep_nesting.toml"],
     "tests/data/bad/deep_nesting.toml: nests arrays or tables too deeply to read; fix: flatten "
     "the file (no profile needs more than a few levels)"),
    (["run", "nonexistent.toml"],
     "nonexistent.toml: file not found (got nonexistent.toml); fix: check the path"),
    (["run", "tests/data/bad/unicode_game.toml"],
     "tests/data/bad/unicode_game.toml: game: must name the engine (got ☃); fix: add game = "
     '"warmachine", "fantasy" or "magic"'),
    (["run", "tests/data/bad/game_list.toml"],
     "tests/data/bad/game_list.toml: game: must name the engine (got []); fix: add game = "
     '"warmachine", "fantasy" or "magic"'),
    # ---- wm
    ([*WM[:5], "0", *WM[6:]], "--defense: must be between 1 and 40 (got 0); fix: use e.g. --defense 13"),
    ([*WM, "--kind", "psychic"],
     "--kind: must be melee, ranged or magic (got psychic); fix: use --kind ranged"),
    ([*WM, "--kind", "ranged", "--charge"],
     "--charge: a charge attack is a melee attack (WM-D3) (got ranged); fix: use --kind melee"),
    ([*WM, "--attacks", "1000000000"],
     "--attacks: must be between 1 and 100 (got 1000000000); fix: use e.g. --attacks 3"),
    (["wm", "attack", "--stat", "☃", "--defense", "13", "--power", "12", "--armor", "16"],
     "mathhammer wm attack: Invalid value for '--stat': Input should be a valid integer, unable "
     "to parse string as an integer (got ☃); fix: see `mathhammer wm attack --help`"),
    ([*WM, "--arm-bonus", str(2**63)],
     f"--arm-bonus: must be between -20 and 20 (got {2**63}); fix: use e.g. --arm-bonus 3"),
    ([*WM, "--stealth-range", "-1"],
     "--stealth-range: must be between 0 and 1000 inches (got -1.0); fix: use e.g. --stealth-range 8"),
    ([*DUEL, "--camped-focus", str(2**63)],
     f"--camped-focus: must be between 0 and 15 (got {2**63}); fix: use e.g. "
     "--camped-focus 2"),
    ([*WM[:2], "--stat", str(2**63), *WM[4:]],
     f"--stat: must be between 0 and 30 (got {2**63}); fix: use e.g. --stat 6"),
    ([*AOE, "--range", "0"],
     "--range: must be a distance above 0 inches (got 0.0); fix: use e.g. --range 8"),
    ([*AOE, "--range", "8", "--aoe", "7"],
     "--aoe: AOE templates are 3, 4 or 5 inches (got 7.0); fix: use --aoe 3"),
    (["wm", "duel", "khador/jugernaut", "cygnar/charger", "-q"],
     "warmachine profile 'khador/jugernaut': no such profile; fix: did you mean "
     "khador/juggernaut, khador/sorscha, khador/destroyer?"),
    ([*DUEL, "--focus", "9"],
     "--focus: a warjack can be allocated at most 3 focus (WM-F1); Juggernaut is a warjack "
     "(got 9); fix: use --focus 3 or less"),
    ([*DUEL, "--policy", "psychic"],
     "--policy: must be fixed, greedy or optimal (got psychic); fix: use --policy optimal"),
    # ---- fb
    ([*FB[:3], "0", *FB[4:]], "--attacks: must be 1..1000 (got 0); fix: use e.g. --attacks 20"),
    ([*FB[:5], "11", *FB[6:]], "--ws: is not a possible characteristic in wfb8 (allowed 0..10) "
     "(got 11); fix: use a value from 0 to 10"),
    ([*FB, "--ruleset", "x" * 300], "--ruleset: unknown ruleset (got " + "x" * 77 + "...); "
     "fix: use one of basic, wfb8, t9a1 or the path of a ruleset .toml file"),
    ([*FB, "--ruleset", "wfb9"], "--ruleset: unknown ruleset (got wfb9); fix: use one of basic, "
     "wfb8, t9a1 or the path of a ruleset .toml file"),
    ([*FB, "--target-wounds", str(2**63)],
     f"--target-wounds: must be 1..100 (got {2**63}); fix: use e.g. 3"),
    (["fb", "shoot", "--shots", "5", "--bs", "4", "--strength", "4", "--toughness", "4",
      "--cover", "heavy2", "-q"], "--cover: must be soft or hard (got heavy2); fix: use --cover soft"),
    (["fb", "break-test", "--ld", "11", "--lost-by", "2", "-q"],
     "--ld: must be a whole number from 0 to 10 (got 11); fix: use the unit's Ld, e.g. --ld 8"),
    (["fb", "test", "--value", "7", "--ld", "4", "-q"],
     "--value / --ld / --magic-resistance: give exactly one of them; fix: e.g. --value 4 "
     "(D6 test), --ld 8 (2D6 test) or --dangerous-terrain 10"),
    (["fb", "combat", "wfb8/empire_halberdiers", "wfb8/orc_boyzz", "-q"],
     "fantasy profile 'wfb8/orc_boyzz': no such profile; fix: did you mean wfb8/orc_boyz, "
     "wfb8/orc_warboss, wfb8/orc_big_boss?"),
    (["fb", "combat", "wfb8/empire_halberdiers", "wfb8/orc_boyz", "--rounds", "0", "-q"],
     "--rounds: must be 1..100 (got 0); fix: use e.g. --rounds 3"),
    (["fb", "combat", "wfb8/empire_halberdiers", "wfb8/orc_boyz", "--bonus-a", str(2**63), "-q"],
     f"--bonus-a: must be -50..50 (got {2**63}); fix: use e.g. 1 for high ground"),
    (["fb", "artillery", "catapult", "wfb8/skeleton_warriors", "-q"],
     "WEAPON: unknown artillery piece (got catapult); fix: use one of stone-thrower, cannon, "
     "bolt-thrower, flame-cannon, multi-barrel, template"),
    # ---- magic
    (["magic", "flow", "--channelers", "-1", "-q"],
     "--channelers: must be 0 or more (got -1); fix: use e.g. --channelers 2"),
    # found by the long fuzz: wfb8's exact binomial over a million wizards never finished
    (["magic", "flow", "--channelers", "1000000", "--ruleset", "wfb8", "-q"],
     "--channelers: must be at most 30 (wizards / models with Channel on one side) "
     "(got 1000000); fix: use e.g. --channelers 2"),
    (["magic", "cast", "--dice", "1", "--cv", "9", "--modifier", str(2**63), "-q"],
     f"--modifier: a casting modifier must be between -100 and 100 (got {2**63}); fix: use "
     "e.g. --modifier 1"),
    (["magic", "flow", "--reactive-channelers", "31", "-q"],
     "--reactive-channelers: must be at most 30 (wizards / models with Channel on one side) "
     "(got 31); fix: use e.g. --reactive-channelers 2"),
    (["magic", "cast", "--dice", "9", "--cv", "9", "-q"],
     "--dice: a casting attempt uses 1 to 5 dice in this ruleset (MG-4) (got 9); fix: use "
     "1..5 dice"),
    (["magic", "cast", "--dice", "3", "--cv", str(2**63), "-q"],
     f"--cv: a casting value must be 2..1000 (got {2**63}); fix: use e.g. --cv 7"),
    (["magic", "dispel", "--dice", "0", "--against", "9", "-q"],
     "--dice: a dispel attempt uses 1 to 12 dice in this ruleset (MG-3, MG-6) (got 0); fix: "
     "use 1..12 dice"),
    (["magic", "phase", "tests/data/bad/empty.toml", "-q"],
     "tests/data/bad/empty.toml: spells: the spell list is empty or missing; fix: add "
     '[[spells]] entries: name = "...", cv = 7, wizard = "..."'),
    # ---- profiles
    (["profiles", "show", "khador/jugernaut"],
     "profile 'khador/jugernaut': no such profile; fix: did you mean khador/juggernaut, "
     "khador/sorscha, khador/destroyer?"),
    (["profiles", "show", "x" * 300],
     # a long "where" is cut (an error line stays short whatever the input)
     "profile '" + "x" * 271 + "... (310 chars): no such profile; fix: see "
     "`mathhammer profiles list`"),
    (["profiles", "list", "--game", "chess"],
     "--game: must be one of warmachine, fantasy (got chess); fix: use --game warmachine"),
    (["fb", "battle", "wfb8_empire", "wfb8_orcs", "--deployment",
      "tests/data/bad/deployment_nan.toml", "-q"],
     "tests/data/bad/deployment_nan.toml: a.0.x: Input should be a finite number (got nan); "
     "fix: give each value what its message asks (`mathhammer profiles schema` gives every "
     "key's type and range)"),
    # ---- compare and sweep
    (["compare", "profiles/lists/cygnar_battlebox.toml", "profiles/lists/wfb8_empire.toml", "-q"],
     "lists: Cygnar battle box is warmachine but Empire state troops is fantasy; fix: compare "
     "two lists of the same game"),
    (["sweep", "khador/juggernaut", "wfb8/orc_boyz", "--vary", "focus=0..2", "-q"],
     "target: is a fantasy profile but the attacker is warmachine (got wfb8/orc_boyz); fix: "
     "give a warmachine target profile"),
    ([*SWEEP, "--vary", "focus=0..3", "--workers", "-3"],
     "--workers: must be between 1 and 256 (got -3); fix: use e.g. --workers 2"),
    (["compare", "tests/data/bad/list_superscript_key.toml", "profiles/lists/wfb8_empire.toml",
      "-q"], "tests/data/bad/list_superscript_key.toml: ¹: Extra inputs are not permitted (got 0); "
     "fix: see `mathhammer profiles schema` for allowed keys"),
    ([*SWEEP, "--vary", "speed=1..3"],
     "--vary: 'speed' is not a warmachine stat this sweep can vary (got speed); fix: use one "
     "of def, arm, mat, rat, str, focus, attacks"),
    ([*SWEEP, "--vary", "focus=3..1"],
     "--vary: needs whole numbers LO..HI with LO <= HI, or a comma list (got 3..1); fix: use "
     "e.g. --vary def=10..18 or --vary attacker.mat=5,6,7"),
]


@pytest.mark.parametrize("argv, message", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_bad_input_message(argv, message):
    with chdir_scratch(ROOT):
        code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err)
    assert code == 2
    assert err == f"error: {message}\n"
    assert out == ""


def test_at_least_thirty_cases_over_every_group():
    groups = {argv[0] for argv, _ in CASES}
    assert len(CASES) >= 30
    assert {"roll", "run", "wm", "fb", "magic", "profiles", "compare", "sweep"} <= groups


VALIDATE_CASES = [
    (["tests/data/bad/empty.toml"],
     "invalid tests/data/bad/empty.toml: game: must name the game the file is for; fix: add "
     'game = "warmachine" or game = "fantasy"\n1 of 1 file(s) invalid\n'),
    (["/nonexistent"],
     "invalid /nonexistent: (file): file not found (got '/nonexistent'); fix: check the path\n"
     "1 of 1 file(s) invalid\n"),
]


@pytest.mark.parametrize("paths, expected", VALIDATE_CASES)
def test_profiles_validate_reports_each_bad_file(paths, expected):
    """`profiles validate` lists one line per error, then a count (PR-3)."""
    with chdir_scratch(ROOT):
        code, out, err = run_inprocess(["profiles", "validate", *paths])
    assert code == 2
    assert err == expected


@pytest.mark.parametrize("index", [0, 5, 14, 30])
def test_real_process_exit_code_and_message(index):
    """A few cases through a real process: exit status 2 and the same single line."""
    from tests.conftest import run_cli

    argv, message = CASES[index]
    proc = run_cli(*argv, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == f"error: {message}\n"
    assert proc.stdout == ""


BATTLE_SCENARIOS = {
    "fantasy": 'game = "fantasy"\nkind = "battle"\n\n[battle]\nlist_a = "wfb8_dwarfs"\n'
               'list_b = "wfb8_orcs"\nturns = 1\nn_trials = 10\n',
    "warmachine": 'game = "warmachine"\nkind = "battle"\nlist_a = "khador_battlebox"\n'
                  'list_b = "cygnar_battlebox"\nturns = 1\n',
}


@pytest.mark.parametrize("game", sorted(BATTLE_SCENARIOS))
@pytest.mark.parametrize("flags", [["--method", "exact"], ["--check"], ["--precision", "0.05"]],
                         ids=lambda f: f[0])
def test_a_battle_scenario_refuses_what_a_battle_cannot_do(tmp_path, game, flags):
    """``run`` on a battle file: no exact answer, nothing to check against, no precision —
    one line and exit 2 before any battle, as ``fb battle``/``wm battle`` refuse them (once
    the file's battles were played as if the flag were not there)."""
    path = tmp_path / "battle.toml"
    path.write_text(BATTLE_SCENARIOS[game])
    argv = ["run", str(path), "--seed", "1", *flags]
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {flags[0]}: a battle ") and err.count("\n") == 1, err


@pytest.mark.parametrize("battle, where, what", [
    ('deployment = "nosuch.toml"\n', "battle.deployment",
     "is no file beside the scenario"),
    ('[[battle.deployment.a]]\nunit = "Halberdiers"\nx = 100\n', "battle.deployment: a unit "
     "'Halberdiers'", "is off the 72\" x 48\" table"),
    ('list_b = "nosuch"\n', "battle.list_b: list 'nosuch'", "file not found"),
    ('list_b = "khador_battlebox"\n', "battle.list_b", "is a warmachine list"),
])
def test_a_battle_files_errors_name_the_file_and_its_key(tmp_path, battle, where, what):
    """An error in what a battle file names (its lists, its deployment, inline or a file of
    its own) says which file and key: it named only 'deployment' or the bare file name."""
    path = tmp_path / "battle.toml"
    lines = ['game = "fantasy"', 'kind = "battle"', "[battle]", 'list_a = "wfb8_empire"',
             'list_b = "wfb8_orcs"', "turns = 1", "n_trials = 10"]
    if battle.startswith("list_b"):
        lines.pop(4)
    text = "\n".join(lines) + "\n"
    text = (text + battle) if not battle.startswith("[[") else text + "\n" + battle
    path.write_text(text)
    argv = ["run", str(path), "--seed", "1"]
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {path}: {where}") and what in err, err


@pytest.mark.parametrize("extra, where, what", [
    ('deployment = "nosuch.toml"\n', "deployment", "is no file beside the scenario"),
    ('list_b = "nosuch"\n', "list_b: list 'nosuch'", "file not found"),
    ('list_b = "wfb8_orcs"\n', "list_b", "is a fantasy list"),
])
def test_a_warmachine_battle_files_errors_name_the_file_and_its_key(tmp_path, extra, where,
                                                                    what):
    text = BATTLE_SCENARIOS["warmachine"]
    if extra.startswith("list_b"):
        text = text.replace('list_b = "cygnar_battlebox"\n', "")
    path = tmp_path / "battle.toml"
    path.write_text(text + extra)
    argv = ["run", str(path), "--seed", "1"]
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {path}: {where}") and what in err, err


def test_a_battle_files_number_given_as_text_is_refused(tmp_path):
    """turns = "2" is text, not a number: one line, as any other wrong type (it was read as 2)."""
    path = tmp_path / "battle.toml"
    path.write_text('game = "fantasy"\nkind = "battle"\n[battle]\nlist_a = "wfb8_empire"\n'
                    'list_b = "wfb8_orcs"\nturns = "2"\n')
    argv = ["run", str(path), "--seed", "1"]
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err)
    assert code == 2 and err.startswith(f"error: {path}: battle: turns: ") and "'2'" in err, err


def test_a_warmachine_battle_files_broken_deployment_is_named_by_the_files_key(tmp_path):
    """A deployment file the battle file names, with an unknown model: the error names the
    battle file's key and the deployment file (it named a --deployment flag nobody typed)."""
    (tmp_path / "wd.toml").write_text('[a]\n"Nosuch" = [10, 10]\n')
    path = tmp_path / "battle.toml"
    path.write_text(BATTLE_SCENARIOS["warmachine"] + 'deployment = "wd.toml"\n')
    argv = ["run", str(path), "--seed", "1"]
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err)
    assert code == 2 and err.startswith(f"error: {path}: deployment wd.toml: a.Nosuch: "), err


def test_a_warmachine_sweep_refuses_a_fantasy_ruleset():
    """--ruleset chooses a Fantasy sweep's edition; a Warmachine sweep ignored it in silence."""
    argv = ["sweep", "khador/juggernaut", "cygnar/charger", "--vary", "focus=0..1",
            "--ruleset", "wfb8"]
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err)
    assert code == 2 and out == ""
    assert err.startswith("error: --ruleset: chooses a Fantasy sweep's edition") and \
        err.count("\n") == 1, err


@pytest.mark.parametrize("argv, game", [
    (["wm", "duel", "profiles/fantasy/wfb8/empire_halberdiers.toml", "cygnar/ironclad"],
     "fantasy"),
    (["fb", "combat", "profiles/warmachine/khador/juggernaut.toml", "wfb8/orc_boyz"],
     "warmachine"),
])
def test_a_profile_file_of_the_other_game_is_one_line(argv, game):
    """A profile file whose ``game`` is the other game's is named as such in one line (the
    command's own schema listed every key of it as wrong)."""
    argv = [argv[0], argv[1], str(ROOT / argv[2]), *argv[3:]]
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err)
    assert code == 2 and out == ""
    assert f"game: is a {game} profile; this needs a" in err and err.count("\n") == 1, err
