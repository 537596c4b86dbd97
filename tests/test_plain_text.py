"""Plain text everywhere (issue 28 item 15): no Python repr in any output, counts printed as
the whole numbers they are, a count and its noun agreeing ("1 model", "1 die"), and the
README showing every command (``fb challenge``, characters joined with ``+``).

The decision labels that say what the state is (stationary after Icy Gaze, not
"knocked down") are tested with the effects: ``tests/test_wm_effects.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mathhammer.results import Estimate, Report
from mathhammer.words import plain, plural
from tests.conftest import user_docs_text
from tests.test_reliability_harness import BASE_ARGS, commands, run_inprocess, small_args

ROOT = Path(__file__).resolve().parents[1]
P = ROOT / "profiles"
#: what a Python repr looks like on a screen: a dict or list literal, a bool, None, numpy
REPR = re.compile(r"\{'|\['|\('|\bTrue\b|\bFalse\b|\bNone\b|np\.float|array\(|<[\w.]+ object")


def _run(*argv: str) -> str:
    code, out, err = run_inprocess(list(argv))
    assert code == 0, err
    return out


# --------------------------------------------------------------------------- no repr
def test_plain_reads_every_kind_of_note():
    assert plain(True) == "yes" and plain(False) == "no" and plain(None) == "none"
    assert plain(3.0) == "3" and plain(0.25) == "0.25"
    assert plain({"1. Purple Sun": 5, "2. Fireball": 0}) == "1. Purple Sun: 5; 2. Fireball: 0"
    assert plain(["a", 2, None]) == "a, 2, none"


@pytest.mark.parametrize("name", ["magic optimise", "magic phase", "magic cast", "fb test",
                                  "fb artillery"])
def test_notes_print_no_python_repr(name):
    """The commands whose notes hold a mapping or a switch (they printed ``{'1. …': 5}``
    and ``reroll: False``): the table view reads as text, --explain too."""
    argv = name.split() + BASE_ARGS[name] + small_args(commands()[name])
    out = _run(*argv)
    assert not REPR.search(out), [line for line in out.splitlines() if REPR.search(line)]
    out = _run(*argv, "--explain")
    assert not REPR.search(out), [line for line in out.splitlines() if REPR.search(line)]


def test_a_mapping_note_is_one_line_a_key():
    out = _run("magic", "optimise", str(P / "scenarios/magic_wfb8_two_wizards.toml"),
               "--power", "6", "--dispel", "4")
    assert "best split (file order):\n  1. Purple Sun: " in out, out


def test_the_web_page_notes_are_plain_text():
    from mathhammer.magic.models import load_scenario
    from mathhammer.magic.optimise import optimise
    from mathhammer.profiles import read_toml
    from mathhammer.web.view import build

    path = P / "scenarios/magic_wfb8_two_wizards.toml"
    report = optimise(load_scenario(read_toml(path), str(path)), power=6, dispel=4)
    report.info["a switch"] = False
    view = build(report, None)
    shown = json.dumps([[key, value] for key, value in view.notes], ensure_ascii=False)
    assert not REPR.search(shown), shown
    assert ["a switch", "no"] in [[k, v] for k, v in view.notes]
    dice = {r.name: r.value for r in view.results if r.name.startswith("dice_")}
    assert dice and all(v.isdigit() for v in dice.values()), dice


# --------------------------------------------------------------------------- counts
def test_a_count_is_a_whole_number_in_every_view():
    report = Report("x", "exact", {"dice_1": Estimate.count(5), "mean": Estimate.exact(5.0)})
    assert report.results["dice_1"].format() == "5"
    assert report.to_dict()["results"]["dice_1"] == {"value": 5, "se": 0.0, "ci95": [5, 5]}
    assert report.results["mean"].format() == "5.0000"  # a mean keeps its decimals
    with pytest.raises(ValueError):
        Estimate.count(2.5)


def test_magic_optimise_prints_dice_as_integers():
    argv = ["magic", "optimise", str(P / "scenarios/magic_wfb8_two_wizards.toml"),
            "--power", "6", "--dispel", "4"]
    out = _run(*argv)
    rows = re.findall(r"^  dice_\d+ +(\S+)$", out, re.M)
    assert rows and all(r.isdigit() for r in rows), out
    data = json.loads(_run(*argv, "--format", "json"))
    assert all(isinstance(data["results"][f"dice_{i}"]["value"], int) for i in (1, 2, 3))


def test_attacks_needed_is_an_integer():
    out = _run("wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor",
               "16", "--boxes", "10", "--for-p", "0.5")
    assert re.search(r"^  attacks_needed +\d+$", out, re.M), out


def test_import_counts_are_integers():
    data = json.loads(_run("import", str(P / "imports/orcs_t9a.txt"), "--format", "json"))
    counts = {k: v["value"] for k, v in data["results"].items()}
    assert len(counts) == 7 and all(type(v) is int for v in counts.values()), counts


# --------------------------------------------------------------------------- plurals
@pytest.mark.parametrize("n, noun, text", [
    (1, "model", "1 model"), (2, "model", "2 models"), (1, "die", "1 die"),
    (3, "die", "3 dice"), (1, "box", "1 box"), (26, "box", "26 boxes"),
    (2, "entry", "2 entries"), ("1", "melee attack", "1 melee attack"),
    (1000, "trial", "1,000 trials"), (0, "rank", "0 ranks")])
def test_plural(n, noun, text):
    assert plural(n, noun) == text


@pytest.mark.parametrize("argv, wanted", [
    (["magic", "cast", "--dice", "1", "--cv", "5"], "cast 1 die,"),
    (["magic", "dispel", "--dice", "1", "--against", "5"], "dispel 1 die,"),
    (["magic", "optimise", str(P / "scenarios/magic_wfb8_two_wizards.toml"), "--power", "1",
      "--dispel", "1"], "1 power die vs 1 dispel die"),
    (["fb", "artillery", "stone-thrower", "wfb8/skeleton_warriors", "--models", "1",
      "--n-trials", "1000", "-q"], "(1 model, wfb8)"),
    (["wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "16",
      "--boxes", "1"], "destroys 1 box:"),
    (["roll", "D6", "--method", "mc", "--n-trials", "1", "--seed", "1"], "1 trial,"),
])
def test_one_reads_singular(argv, wanted):
    out = _run(*argv)
    assert wanted in out, out
    assert not re.search(r"(?<![\d.,])1 (models|dice|boxes|trials|rounds|attacks|spells)\b", out), out


# --------------------------------------------------------------------------- README
def test_the_readme_shows_every_command():
    """Each command is named in the README as ``mathhammer COMMAND`` (``fb challenge`` was
    missing); characters joining a unit with ``+`` have a runnable example."""
    text = user_docs_text()
    missing = [name for name in commands() if f"mathhammer {name}" not in text]
    assert not missing, missing
    assert re.search(r"^\$ mathhammer fb challenge ", text, re.M)
    assert re.search(r"^\$ mathhammer fb combat \S+\+\S+:general ", text, re.M)


def test_a_simulated_probability_with_zero_se_says_its_interval():
    """Four battles all won: the sample se is 0, which is no claim of certainty — the
    sentence carries the 95% interval (Wilson), as the results table does."""
    from mathhammer.results import Estimate
    from mathhammer.words import brief_pct, pct

    all_won = Estimate(1.0, 0.0, (0.51, 1.0), 4)
    assert brief_pct(all_won) == "100.0% ± 0.0 (95% 51.0–100.0)"
    assert pct(all_won) == "100.00% ± 0.00 (95% 51.00–100.00)"
    assert brief_pct(Estimate(0.5, 0.01, (0.48, 0.52), 2000)) == "50.0% ± 1.0"
    assert brief_pct(Estimate.exact(1.0)) == "100.0%"
