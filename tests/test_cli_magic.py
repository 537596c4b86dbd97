"""`mathhammer magic …` and `mathhammer run` with game = "magic": JSON keys, help, errors."""

from __future__ import annotations

from fractions import Fraction

import pytest

from mathhammer.magic.rolls import cast_odds, dispel_probability, flow_pools, marginals
from mathhammer.magic.rules import magic_rules
from tests.conftest import ROOT, cli_inprocess, run_json

EXAMPLE = str(ROOT / "profiles" / "scenarios" / "magic_t9a1_four_spells.toml")


def test_flow_json_keys_and_values():
    out = run_json("magic", "flow", "--ruleset", "t9a1", "--channelers", "2",
                   "--reactive-channelers", "1")
    power, dispel = marginals(flow_pools(magic_rules("t9a1"), 2, 1))
    got = out["distributions"]["power_dice"]["pmf"]
    assert {int(k): v for k, v in got.items()} == pytest.approx({k: float(v) for k, v in power.items()})
    got = out["distributions"]["dispel_dice"]["pmf"]
    assert {int(k): v for k, v in got.items()} == pytest.approx({k: float(v) for k, v in dispel.items()})


def test_cast_json_keys_and_values():
    out = run_json("magic", "cast", "--dice", "3", "--level", "2", "--cv", "9", "--ruleset", "wfb8")
    odds = cast_odds(magic_rules("wfb8"), 3, 2, 9)
    res = out["results"]
    assert res["p_cast"]["value"] == pytest.approx(float(odds.p_cast))
    assert res["p_two_sixes"]["value"] == pytest.approx(float(Fraction(16, 216)))  # 3·5/216 + 1/216
    assert res["p_miscast"]["value"] == pytest.approx(float(odds.p_irresistible_cast))
    pmf = out["distributions"]["casting_total"]["pmf"]
    assert min(int(k) for k in pmf) == 9


def test_dispel_json():
    out = run_json("magic", "dispel", "--dice", "3", "--level", "1", "--against", "12")
    assert out["results"]["p_dispel"]["value"] == pytest.approx(
        float(dispel_probability(magic_rules("t9a1"), 3, 1, 12)))


def test_phase_and_run_json_keys():
    out = run_json("magic", "phase", EXAMPLE, "--n-trials", "100000", "--seed", "3")
    res = out["results"]
    for i in range(1, 5):
        assert res[f"p_goes_off_{i}"]["se"] > 0
    assert "p_miscast" in res
    assert {"spells_through", "power_dice_left", "dispel_dice_left"} <= set(out["distributions"])
    again = run_json("run", EXAMPLE, "--n-trials", "100000", "--seed", "3")
    assert again["results"] == res


def test_help_documents_the_policies():
    text = cli_inprocess("magic", "phase", "--help").stdout
    for word in ("all_out", "threshold", "keep_dice", "fixed", "target", "optimal"):
        assert word in text


@pytest.mark.parametrize("args,match", [
    (["magic", "cast", "--dice", "6", "--level", "1", "--cv", "7"], "1 to 5 dice"),
    (["magic", "cast", "--dice", "7", "--level", "1", "--cv", "7", "--ruleset", "wfb8"], "1 to 6 dice"),
    (["magic", "cast", "--dice", "2", "--level", "1", "--cv", "1"], "must be 2..1000"),
    (["magic", "dispel", "--dice", "13", "--against", "7"], "dispel"),
    (["magic", "flow", "--ruleset", "nonsense"], "ruleset"),
])
def test_bad_input_one_line_error(args, match):
    proc = cli_inprocess(*args)
    assert proc.returncode == 2
    assert match in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("body,match", [
    ('game = "magic"\n', "spell list is empty"),
    ('game = "magic"\nspells = []\n', "spell list is empty"),
    ('game = "magic"\n[[spells]]\nname = "x"\n', "cv"),
    ('game = "magic"\n[[wizards]]\nname="w"\nlevel=1\n[[spells]]\nname="x"\nwizard="w"\ncv=1\n', "cv"),
])
def test_bad_scenario_one_line_error(tmp_path, body, match):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    # `run` and `magic phase` share run_scenario; the first case goes through both
    commands = [["magic", "phase", str(path)]] + ([["run", str(path)]] if "spells" not in body else [])
    for cmd in commands:
        proc = cli_inprocess(*cmd)
        assert proc.returncode == 2, proc.stderr
        assert match in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_optimise_json():
    out = run_json("magic", "optimise", EXAMPLE, "--power", "8", "--dispel", "4")
    res = out["results"]
    assert res["expected_weight_adaptive"]["value"] >= res["expected_weight_best_split"]["value"] - 1e-12
    assert sum(res[f"dice_{i}"]["value"] for i in range(1, 5)) <= 8
    proc = cli_inprocess("magic", "optimise", EXAMPLE)
    assert proc.returncode == 2 and "--power" in proc.stderr


@pytest.mark.parametrize("path", sorted((ROOT / "profiles" / "scenarios").glob("magic_*.toml")))
def test_bundled_magic_scenarios_run(path):
    out = run_json("run", str(path), "--n-trials", "20000", "--seed", "1")
    assert out["command"] == "magic.phase" and "p_goes_off_1" in out["results"]


# ---- issue 28 item 12: magic cast --dispel-dice N [--dispel-level L] ------------------------
def _brute_goes_off(ruleset: str, n: int, level: int, cv: int, k: int, dlevel: int,
                    bound: bool = False) -> tuple[Fraction, Fraction, Fraction]:
    """(P(goes off), P(dispelled), P(miscast)) by enumerating every cast die, every dispel
    die and every D3, straight from MG-4..MG-7 (no code of the package)."""
    import itertools

    wfb8 = ruleset == "wfb8"
    fail_at, dfail_at = (2, 2) if wfb8 else (0, 0)
    goes = dispelled = miscast = Fraction(0)
    for cast_faces in itertools.product(range(1, 7), repeat=n):
        p_cast_roll = Fraction(1, 6**n)
        natural, sixes = sum(cast_faces), cast_faces.count(6)
        if natural <= fail_at:
            continue
        if sixes >= 2 and wfb8:  # irresistible force: through, miscast unless bound
            goes += p_cast_roll
            miscast += 0 if bound else p_cast_roll
            continue
        casts = []  # (probability, total, miscasts if not dispelled)
        if sixes >= 2 and not bound:  # t9a1 overwhelming power: + D3 + dice used
            casts = [(Fraction(1, 3), natural + level + d3 + n, True) for d3 in (1, 2, 3)]
        else:
            casts = [(Fraction(1), natural + (0 if bound else level), False)]
        for q, total, mis in casts:
            if total < cv and not (bound and sixes >= 2):
                continue
            for dispel_faces in itertools.product(range(1, 7), repeat=k):
                pd = p_cast_roll * q / 6**k
                dnat = sum(dispel_faces)
                if dnat <= dfail_at:
                    beaten = [False]
                elif dispel_faces.count(6) >= 2 and not wfb8:
                    beaten = [dnat + dlevel + d3 + k >= total for d3 in (1, 2, 3)]
                else:
                    beaten = [dnat + dlevel >= total]
                share = Fraction(sum(beaten), len(beaten))
                dispelled += pd * share
                goes += pd * (1 - share)
                miscast += pd * (1 - share) if mis else 0
    return goes, dispelled, miscast


@pytest.mark.parametrize("ruleset, n, level, cv, k, dlevel, bound", [
    ("t9a1", 3, 2, 9, 2, 1, False), ("t9a1", 2, 1, 7, 3, 0, False), ("t9a1", 3, 0, 6, 2, 0, True),
    ("wfb8", 3, 2, 9, 2, 2, False), ("wfb8", 2, 1, 6, 3, 0, False), ("wfb8", 3, 0, 8, 2, 1, True),
])
def test_cast_against_a_dispel_attempt_by_brute_force(ruleset, n, level, cv, k, dlevel, bound):
    args = ["magic", "cast", "--dice", str(n), "--cv", str(cv), "--ruleset", ruleset,
            "--dispel-dice", str(k)] + (["--bound"] if bound else ["--level", str(level)])
    if dlevel:
        args += ["--dispel-level", str(dlevel)]
    res = run_json(*args)
    goes, dispelled, miscast = _brute_goes_off(ruleset, n, 0 if bound else level, cv, k, dlevel, bound)
    assert res["info"]["p_goes_off_fraction"] == str(goes)
    assert res["results"]["p_goes_off"]["value"] == pytest.approx(float(goes), abs=1e-12)
    assert res["results"]["p_dispelled"]["value"] == pytest.approx(float(dispelled), abs=1e-12)
    assert res["results"]["p_miscast"]["value"] == pytest.approx(float(miscast), abs=1e-12)
    headline = cli_inprocess(*args).stdout.splitlines()[0]
    assert f"the spell goes off: {100 * float(goes):.2f}%" in headline, headline


@pytest.mark.parametrize("ruleset", ["t9a1", "wfb8"])
def test_cast_against_a_dispel_attempt_is_the_magic_phase_with_one_spell(tmp_path, ruleset):
    """The same cast in a one-spell phase (fixed pools, all-out dispel that rolls every die):
    the phase engine's p_goes_off_1 is magic cast's p_goes_off."""
    path = tmp_path / "one.toml"
    path.write_text(f'''schema_version = 1
game = "magic"
ruleset = "{ruleset}"
[flow]
power_dice = 4
dispel_dice = 3
[caster]
dice_rule = "fixed"
[[wizards]]
name = "w"
level = 2
[[spells]]
name = "s"
wizard = "w"
cv = 10
dice = 4
[dispel]
policy = "all_out"
level = 1
confidence = 1.0
''')
    phase = run_json("magic", "phase", str(path), "--method", "exact")
    cast = run_json("magic", "cast", "--dice", "4", "--level", "2", "--cv", "10", "--ruleset",
                    ruleset, "--dispel-dice", "3", "--dispel-level", "1")
    assert cast["results"]["p_goes_off"]["value"] == pytest.approx(
        phase["results"]["p_goes_off_1"]["value"], abs=1e-12)
    assert cast["results"]["p_miscast"]["value"] == pytest.approx(
        phase["results"]["p_miscast"]["value"], abs=1e-12)


@pytest.mark.parametrize("ruleset", ["t9a1", "wfb8"])
def test_cast_against_a_dispel_attempt_monte_carlo_agrees(ruleset):
    out = run_json("magic", "cast", "--dice", "4", "--level", "1", "--cv", "10", "--ruleset",
                   ruleset, "--dispel-dice", "3", "--dispel-level", "1", "--check",
                   "--n-trials", "40000", "--seed", "3")
    rows = out["info"]["check"]
    assert {"p_goes_off", "p_dispelled", "p_miscast"} <= set(rows)
    assert all(row["z"] is None or abs(row["z"]) <= 5 for row in rows.values())
    for name, est in out["results"].items():
        assert 0 <= est["value"] <= 1 or not name.startswith("p_")


@pytest.mark.parametrize("args, match", [
    (["--dispel-level", "2"], "--dispel-dice"),
    (["--dispel-dice", "0"], "--dispel-dice"),
    (["--dispel-dice", "13"], "--dispel-dice"),
    (["--dispel-dice", "2", "--dispel-level", "11"], "--dispel-level"),
])
def test_bad_dispel_attempt_is_one_line(args, match):
    proc = cli_inprocess("magic", "cast", "--dice", "3", "--level", "1", "--cv", "8", *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert match in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


# ---- issue 28 item 18: magic phase from options, no file ------------------------------------
PHASE_OPTIONS = ["--spell", "Fireball:8", "--spell", "Hex: the long one:11",
                 "--spell", "Burning blade:4:bound", "--level", "2", "--dispel-level", "1",
                 "--ruleset", "wfb8", "--reactive-channelers", "1"]
PHASE_FILE = """game = "magic"
ruleset = "wfb8"
[flow]
reactive_channelers = 1
[[wizards]]
name = "wizard"
level = 2
[[spells]]
name = "Fireball"
wizard = "wizard"
cv = 8
[[spells]]
name = "Hex: the long one"
wizard = "wizard"
cv = 11
[[spells]]
name = "Burning blade"
bound = true
cv = 4
[dispel]
level = 1
"""


def test_phase_from_options_is_the_phase_of_the_same_file(tmp_path):
    path = tmp_path / "phase.toml"
    path.write_text(PHASE_FILE)
    for engine in (["--n-trials", "20000", "--seed", "5"], ["--method", "exact"]):
        by_options = run_json("magic", "phase", *PHASE_OPTIONS, *engine)
        by_file = run_json("magic", "phase", str(path), *engine)
        assert by_options["results"] == by_file["results"]
        assert by_options["distributions"] == by_file["distributions"]
    assert by_options["info"]["caster dice rule"] == "target"  # the file's default
    assert by_options["info"]["cast order (file numbers)"] == [
        "1. Fireball", "2. Hex: the long one", "3. Burning blade"]


FIXED_FILE = """game = "magic"
[flow]
power_dice = 6
dispel_dice = 3
[caster]
dice_rule = "fixed"
[[wizards]]
name = "wizard"
level = 1
[[spells]]
name = "Fireball"
wizard = "wizard"
cv = 8
dice = 3
[[spells]]
name = "Shield"
wizard = "wizard"
cv = 6
dice = 2
"""


def test_phase_options_with_dice_and_pools_is_the_fixed_rule_file(tmp_path):
    path = tmp_path / "fixed.toml"
    path.write_text(FIXED_FILE)
    options = ["--spell", "Fireball:8:3", "--spell", "Shield:6:2", "--level", "1",
               "--power-dice", "6", "--dispel-dice", "3", "--method", "exact"]
    by_options = run_json("magic", "phase", *options)
    by_file = run_json("magic", "phase", str(path), "--method", "exact")
    assert by_options["results"] == by_file["results"]
    assert by_options["info"]["caster dice rule"] == "fixed"
    assert by_options["info"]["dice per spell"] == {"1. Fireball": 3, "2. Shield": 2}


@pytest.mark.parametrize("args,where,match", [
    (["--spell", "Fireball:8"], "--level", "level is needed"),
    (["--spell", "Fireball", "--level", "2"], "--spell", "casting value"),
    (["--spell", "Fireball:1", "--level", "2"], "--spell", "CASTING_VALUE"),
    (["--spell", "Fireball:8:3", "--spell", "Hex:9", "--level", "2"], "--spell", "every spell"),
    (["--spell", "Fireball:8:3", "--level", "2", "--dice-rule", "optimal"], "--spell", "fixed"),
    (["--spell", "Fireball:8", "--level", "2", "--dice-rule", "fixed"], "--dice-rule", "DICE"),
    (["--spell", "Fireball:8", "--level", "11"], "--level", "10"),
    (["--spell", "Fireball:8", "--level", "2", "--power-dice", "5"], "--power-dice", "both"),
    (["--spell", "Fireball:8", "--level", "2", "--dice-rule", "best"], "--dice-rule", "optimal"),
    (["--spell", "Fireball:8", "--level", "2", "--ruleset", "basic"], "--ruleset", "no magic"),
    (["--level", "2"], "SCENARIO", "spells"),
    ([EXAMPLE, "--level", "2"], "--level", "without a file"),
])
def test_phase_options_bad_input_is_one_line(args, where, match):
    proc = cli_inprocess("magic", "phase", *args)
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and line.startswith(f"error: {where}: "), line
    assert match in line, line
