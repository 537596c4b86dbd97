"""Issue 28 item 9: a forced option that hides a better choice is named, with both values.

``wm duel --charge`` makes the attacker charge; when the optimal policy, left to choose
(``--may-charge``), does better, the answer says so in one line (``info["policy's choice"]``)
with both exact values. The same for ``--buy`` and ``--no-power-attacks``. ``sweep
--charge`` charges, as its help says (``--may-charge`` lets the policy decide).
"""

from __future__ import annotations

import json

import pytest

from mathhammer.warmachine.duel import duel
from tests.conftest import cli_inprocess
from mathhammer.present.flags import with_flags

KEY = "policy's choice"


def test_charge_that_loses_is_named_with_both_values():
    forced = duel("khador/juggernaut", "cygnar/ironclad", focus=3, charge=True, method="exact")
    free = duel("khador/juggernaut", "cygnar/ironclad", focus=3, may_charge=True, method="exact")
    p_forced = forced.results["p_destroyed"].value
    p_free = free.results["p_destroyed"].value
    assert p_forced == pytest.approx(0.3307, abs=5e-5) and p_free == pytest.approx(0.4871, abs=5e-5)
    line = forced.info[KEY]
    assert line.startswith("walking in instead: ")
    assert f"{100 * p_free:.2f}%" in line and f"{100 * p_forced:.2f}%" in line
    assert KEY not in free.info  # nothing forced, nothing to say


def test_no_line_when_the_forced_option_is_the_policys_choice():
    """A warcaster charges for free: charging is what the policy picks anyway."""
    report = duel("khador/sorscha", "cygnar/lancer", focus=1, charge=True, method="exact")
    assert report.info["charge"].endswith("charges in 100.00% of games")
    assert KEY not in report.info


def test_buy_cap_that_loses_is_named():
    capped = duel("khador/juggernaut", "cygnar/ironclad", focus=3, buy=1,
                  damaged=[4, 4, 4, 0, 0, 0], method="exact")
    free = duel("khador/juggernaut", "cygnar/ironclad", focus=3, damaged=[4, 4, 4, 0, 0, 0],
                method="exact")
    line = capped.info[KEY]
    assert "with --buy" in with_flags(line)  # the library names ‹buy›, the CLI its flag
    assert f"{100 * free.results['p_destroyed'].value:.2f}%" in line


def test_cli_table_and_json_carry_the_line():
    args = ["wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--focus", "3", "--charge"]
    table = cli_inprocess(*args)
    assert table.returncode == 0, table.stderr
    lines = [x for x in table.stdout.splitlines() if x.startswith(f"{KEY}: ")]
    assert len(lines) == 1 and "48.71%" in lines[0] and "33.07%" in lines[0]
    data = json.loads(cli_inprocess(*args, "--format", "json").stdout)
    assert "48.71%" in data["info"][KEY]
    for name, est in data["results"].items():
        if name.startswith("p_"):
            assert 0.0 <= est["value"] <= 1.0, name


def test_sweep_charge_charges_and_may_charge_lets_the_policy_decide():
    base = ["sweep", "khador/juggernaut", "cygnar/ironclad", "--vary", "def=12,13", "--focus", "3",
            "--method", "exact", "--format", "json"]
    forced = json.loads(cli_inprocess(*base, "--charge").stdout)
    free = json.loads(cli_inprocess(*base, "--may-charge").stdout)
    assert "charges" in forced["info"]["how"] and "may charge" not in forced["info"]["how"]
    assert "may charge" in free["info"]["how"]
    assert forced["results"]["p_kill[def=12]"]["value"] == pytest.approx(0.3307, abs=5e-5)
    assert free["results"]["p_kill[def=12]"]["value"] == pytest.approx(0.4871, abs=5e-5)
    both = cli_inprocess(*base, "--charge", "--may-charge")
    assert both.returncode == 2 and len(both.stderr.strip().splitlines()) == 1
