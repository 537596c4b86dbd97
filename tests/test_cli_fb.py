"""`mathhammer fb attack | shoot | break-test | pursuit | test`: names, JSON keys and errors.

Expected numbers are hand-derived (comments give the arithmetic); the library tests
carry the exhaustive checks.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_json

ATTACK = ["fb", "attack", "--attacks", "20", "--ws", "4", "--target-ws", "3", "--strength", "4",
          "--toughness", "4"]


def test_attack_json_contract():
    """20 attacks, 3+ to hit, 4+ to wound, 5+ save vs S4 (6+): p = 2/3 · 1/2 · 5/6 = 5/18."""
    out = run_json(*ATTACK, "--save", "5", "--at-least", "5")
    assert out["command"] == "fb attack" and out["method"] == "exact"
    assert out["results"]["mean_unsaved_wounds"]["value"] == pytest.approx(20 * 5 / 18)
    assert set(out["results"]) == {"mean_unsaved_wounds", "p_at_least"}
    pmf = {int(k): v for k, v in out["distributions"]["unsaved_wounds"]["pmf"].items()}
    assert sum(v for k, v in pmf.items() if k >= 5) == pytest.approx(
        out["results"]["p_at_least"]["value"])
    assert out["info"]["ruleset"] == "wfb8"


def test_attack_save_plus_suffix_and_special_rules():
    out = run_json(*ATTACK, "--save", "5+", "--ward", "6", "--killing-blow", "--poison",
                   "--multiple-wounds", "D3", "--target-wounds", "3", "--reroll-hits", "ones",
                   "--ruleset", "wfb8")
    assert "models_slain" in out["distributions"] and "mean_models_slain" in out["results"]
    assert out["info"]["killing_blow"] == "slay"


def test_attack_monte_carlo_with_check():
    out = run_json(*ATTACK, "--save", "4", "--reroll-wounds", "failed", "--method", "mc",
                   "--n-trials", "200000", "--seed", "5", "--check", "--quiet")
    assert out["method"] == "mc" and out["n_trials"] == 200_000 and out["seed"] == 5
    assert out["results"]["mean_unsaved_wounds"]["se"] > 0
    assert all(abs(c["z"]) < 5 for c in out["info"]["check"].values())


def test_shoot_contract():
    """BS 3, long range and soft cover: 7 − 3 + 2 = 6+ → p_hit 1/6."""
    out = run_json("fb", "shoot", "--shots", "10", "--bs", "3", "--strength", "4",
                   "--toughness", "3", "--long-range", "--cover", "soft", "--at-least", "1")
    assert out["results"]["p_hit"]["value"] == pytest.approx(1 / 6)
    # S4 v T3 wounds on 3+ (2/3), no save: 10 · 1/6 · 2/3
    assert out["results"]["mean_unsaved_wounds"]["value"] == pytest.approx(10 / 9)
    assert {"mean_unsaved_wounds", "p_at_least", "p_hit"} <= set(out["results"])
    # basic: BS 2, −2 and large target +1: needed 7 − 2 − (−2 + 1) = 6 → 1/6; without it 7+ (1/12)
    common = ["fb", "shoot", "--shots", "4", "--bs", "2", "--strength", "3", "--toughness", "3",
              "--modifier", "-2", "--ruleset", "basic"]
    assert run_json(*common, "--large-target")["results"]["p_hit"]["value"] == pytest.approx(1 / 6)
    assert run_json(*common)["results"]["p_hit"]["value"] == pytest.approx(1 / 12)


def test_break_test_pursuit_and_test():
    assert run_json("fb", "break-test", "--ld", "8", "--lost-by", "3")["results"]["p_pass"][
        "value"] == pytest.approx(10 / 36)
    assert run_json("fb", "break-test", "--ld", "8", "--lost-by", "3", "--steadfast")["results"][
        "p_pass"]["value"] == pytest.approx(26 / 36)
    assert run_json("fb", "pursuit", "--flee", "2D6", "--pursue", "2D6")["results"]["p_caught"][
        "value"] == pytest.approx(721 / 1296)
    assert run_json("fb", "test", "--value", "4")["results"]["p_pass"]["value"] == pytest.approx(4 / 6)
    assert run_json("fb", "test", "--ld", "7", "--ruleset", "basic")["results"]["p_pass"][
        "value"] == pytest.approx(21 / 36)
    assert run_json("fb", "test", "--magic-resistance", "3", "--ruleset", "basic")["results"][
        "p_pass"]["value"] == pytest.approx(0.75)


@pytest.mark.parametrize(("args", "flag"), [
    (["--ws", "-1"], "--ws"),  # FB-V0: --ws 0 plays the ruleset's rule
    (["--toughness", "11"], "--toughness"),
    (["--reroll-ward", "failed"], "--reroll-ward"),  # renamed: one line with a pointer
    (["--save", "7"], "--save"),
    (["--save", "0"], "--save"),
    (["--ruleset", "wfb9"], "--ruleset"),
    (["--reroll-hits", "sixes"], "--reroll-hits"),
    (["--multiple-wounds", "D3x"], "--multiple-wounds"),
    (["--killing-blow", "--ruleset", "basic"], "--killing-blow"),
    (["--frenzy"], "--frenzy"),
])
def test_attack_bad_input_names_the_flag(args, flag, capsys):
    """In-process (fast): exit 2 and one line on stderr naming the flag."""
    base = {"--ws": "4", "--target-ws": "3", "--strength": "4", "--toughness": "4"}
    merged = dict(base)
    extra = []
    i = 0
    while i < len(args):
        if args[i] in base:
            merged[args[i]] = args[i + 1]
            i += 2
        else:
            extra.append(args[i])
            i += 1
    argv = ["fb", "attack", "--attacks", "10"] + [x for kv in merged.items() for x in kv] + extra
    code, err = _in_process(argv, capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and "Traceback" not in err


def _in_process(argv, capsys):
    from mathhammer.cli import main

    with pytest.raises(SystemExit) as stop:
        main(list(argv))
    return stop.value.code, capsys.readouterr().err


def test_save_seven_suggests_omitting(capsys):
    code, err = _in_process([*ATTACK, "--save", "7"], capsys)
    assert code == 2 and "omit --save" in err


@pytest.mark.parametrize(("argv", "flag"), [
    (["fb", "break-test", "--ld", "8", "--lost-by", "2", "--steadfast", "--ruleset", "basic"],
     "--steadfast"),
    (["fb", "pursuit", "--pursue", "3D6kh"], "--pursue"),
    (["fb", "test", "--value", "4", "--ld", "7"], "--value"),
    (["fb", "test", "--magic-resistance", "5", "--ruleset", "basic"], "--magic-resistance"),
    (["fb", "shoot", "--shots", "5", "--bs", "11", "--strength", "3", "--toughness", "3"], "--bs"),
    (["fb", "shoot", "--shots", "x", "--bs", "3", "--strength", "3", "--toughness", "3"],
     "--shots"),
])
def test_other_commands_bad_input(argv, flag, capsys):
    code, err = _in_process(argv, capsys)
    assert code == 2 and flag in err and len(err.strip().splitlines()) == 1


def test_house_rules_file_on_the_command_line(tmp_path):
    from mathhammer.fantasy.rules.ruleset import RULESETS_DIR

    text = (RULESETS_DIR / "basic.toml").read_text().replace("insane_courage = false",
                                                             "insane_courage = true")
    path = tmp_path / "house.toml"
    path.write_text(text.replace('name = "basic"', 'name = "house"'))
    out = run_json("fb", "test", "--ld", "1", "--ruleset", str(path))
    assert out["results"]["p_pass"]["value"] == pytest.approx(1 / 36)
    assert json.dumps(out)


def test_save_one_plus_is_allowed(capsys):
    """--save 1 vs S4: 1 + 1 = 2+, fails only on a 1; auto 3+ hit, 2+ wound (S4 v T2)."""
    from mathhammer.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["fb", "attack", "--attacks", "6", "--ws", "4", "--target-ws", "3", "--strength", "4",
              "--toughness", "2", "--save", "1", "--format", "json"])
    assert stop.value.code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["results"]["mean_unsaved_wounds"]["value"] == pytest.approx(6 * 2 / 3 * 5 / 6 * 1 / 6)
