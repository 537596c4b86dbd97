"""`--cripple` / `--attacker-cripple` (issue 12 part 6): board state without arithmetic.
The counts are checked box by box on the bundled Ironclad grid, and a duel asked with
`--cripple` is the same duel as with the equivalent `--damaged` column counts (WM-G3, WM-G7)."""

from __future__ import annotations

import pytest

from mathhammer.errors import InputError
from mathhammer.warmachine.duel import duel
from mathhammer.warmachine.grid import Grid
from mathhammer.warmachine.models import load_warmachine
from tests.conftest import run_cli

IRONCLAD = Grid.from_columns(load_warmachine("cygnar/ironclad").grid_columns)


@pytest.mark.parametrize("systems, counts", [
    ("L", [4, 4, 0, 0, 0, 0]),        # ---L and --LL(M): the lowest L box of each column
    ("M", [0, 5, 6, 0, 0, 0]),
    ("L,M", [4, 5, 6, 0, 0, 0]),
    ("cortex", [0, 0, 0, 6, 5, 0]),
    ("right, head", None),            # the Ironclad grid has no head: an error
])
def test_cripple_counts_box_by_box(systems, counts):
    if counts is None:
        with pytest.raises(InputError):
            IRONCLAD.cripple_counts(systems)
        return
    assert IRONCLAD.cripple_counts(systems) == counts
    bits = IRONCLAD.start_bits(counts)
    for letter in (s.strip()[0].upper() for s in systems.split(",")):
        assert IRONCLAD.crippled(bits, letter)


def test_a_crippled_duel_is_the_duel_with_those_marks():
    kw = dict(focus=3, charge=True, method="exact")
    by_name = duel("khador/juggernaut", "cygnar/ironclad", cripple="L,M", **kw)
    by_count = duel("khador/juggernaut", "cygnar/ironclad", damaged=[4, 5, 6, 0, 0, 0], **kw)
    assert by_name.results["p_destroyed"].value == by_count.results["p_destroyed"].value
    fresh = duel("khador/juggernaut", "cygnar/ironclad", **kw)
    assert by_name.results["p_destroyed"].value > fresh.results["p_destroyed"].value


def test_an_attacker_with_a_crippled_weapon_arm_does_worse():
    kw = dict(focus=3, charge=True, method="exact")
    armed = duel("khador/juggernaut", "cygnar/ironclad", **kw).results["p_destroyed"].value
    crippled = duel("khador/juggernaut", "cygnar/ironclad", attacker_cripple="R", **kw)
    assert crippled.results["p_destroyed"].value < armed


def test_cripple_on_a_track_or_an_unknown_letter_is_one_line():
    with pytest.raises(InputError, match="damage track"):
        duel("khador/juggernaut", "cygnar/stryker", cripple="L")
    with pytest.raises(InputError, match="letter"):
        duel("khador/juggernaut", "cygnar/ironclad", cripple="Q")


def test_cripple_marks_the_boxes_above_and_help_and_rules_say_so():
    """Issue 28 item 8: a Slayer with --cripple M keeps 17 of its 28 boxes (the M boxes and
    every box above them in their columns are marked, WM-G7); --help and docs/rules.md say so."""
    from pathlib import Path

    from mathhammer.warmachine.duel import target_from_profile, with_crippled

    target = target_from_profile("cryx/slayer", with_crippled("cryx/slayer", None, "M",
                                                              "--cripple"))
    assert target.grid.n_boxes == 28 and target.grid.boxes_left(target.start_bits) == 17
    for command in ("duel", "plan"):
        text = " ".join(run_cli("wm", command, "--help").stdout.split())
        assert "every box above" in text, command
    rules = (Path(__file__).parents[1] / "docs" / "rules.md").read_text()
    assert "keeps 17 of its 28 boxes" in rules


@pytest.mark.parametrize("argv", [
    ["wm", "duel", "khador/juggernaut", "cryx/slayer", "--cripple", "L,M"],
    ["wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--damaged", "4,5,6,6,5,0",
     "--objective", "cripple:C"],
])
def test_json_probabilities_stay_in_0_1_when_a_system_starts_crippled(argv):
    """Issue 28: P(crippled) summed over many final states drifted to 1.0000000000000426."""
    import json

    proc = run_cli(*argv, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    for name, est in json.loads(proc.stdout)["results"].items():
        if name.startswith("p_"):
            assert 0.0 <= est["value"] <= 1.0, (name, est["value"])
