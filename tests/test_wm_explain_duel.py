"""Issue 28 item 7: ``wm duel --explain`` (and ``wm plan``) tell the engine's story.

The explanation reads the option tables at the target's starting situation — crippled
movement (DEF 7), knock-down or stationary (a feat's too), engaged in melee, buffs and a
feat's effects, a crippled shield — the indices the engine plays the first attack at
(WM-A4, WM-A6, WM-A7, WM-G4, WM-E2). Its fractions are compared with the results: the
first attack's P(hit) with ``p_hit_1`` (focus 0: no boost to mix in), and for a single
weapon also the mean damage with ``mean_damage``.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest

from mathhammer.warmachine.activation import ActivationSpec, Weapon
from mathhammer.warmachine.duel import duel, duel_chain, target_from_profile, with_crippled
from tests.conftest import run_cli

CASES = [  # (attacker, target, duel keywords)
    ("khador/juggernaut", "cygnar/ironclad", dict(cripple="M")),
    ("khador/juggernaut", "cygnar/ironclad", dict(knocked_down=True)),
    ("khador/juggernaut", "cryx/slayer", dict(cripple="L", damaged=[0, 0, 6, 4, 0, 2])),
    ("khador/sorscha", "cygnar/ironclad", dict(feat=True)),  # Icy Gaze: stationary
    ("cryx/deneghra", "khador/juggernaut", dict(feat=True)),  # The Withering: DEF/ARM −2
    ("khador/destroyer", "cygnar/ironclad", dict(ranged=True, target_in_melee=True)),
    ("khador/destroyer", "cygnar/stryker", dict(ranged=True, target_effects=["Blur"])),
    ("khador/juggernaut", "cygnar/stryker", dict(stationary=True, cripple=None)),
]


def _fractions(detail: str, what: str) -> list[Fraction]:
    """``P(hit) 13/18, boosted 103/108`` → [13/18, 103/108]."""
    m = re.search(rf"{re.escape(what)} (\S+), boosted ([0-9/]+)", detail)
    assert m, (what, detail)
    return [Fraction(x) for x in m.groups()]


def _opening_option(report) -> str:
    line = next(x for x in report.info["decision states"] if ": opening [" in x)
    return line.rsplit("→ ", 1)[1].removeprefix("charge, ")


@pytest.mark.parametrize("attacker, target, kw", CASES, ids=lambda c: str(c))
def test_explained_p_hit_of_the_first_attack_is_the_reported_one(attacker, target, kw):
    report = duel(attacker, target, focus=0, method="exact", explain=True, **kw)
    chosen = _opening_option(report)
    steps = [line for line in report.info["explain"] if line.startswith(f"{chosen}: ")]
    assert steps, (chosen, report.info["explain"])
    p_hit = _fractions(steps[0], "P(hit)")[0]
    assert float(p_hit) == pytest.approx(report.results["p_hit_1"].value, abs=1e-12)
    target_line = report.info["explain"][0]
    assert target_line.startswith("target: ")
    if kw.get("cripple") == "M":
        assert "DEF 7 vs melee" in target_line and "movement system crippled" in target_line
        assert report.info["target"].startswith("Ironclad: DEF 7")


def test_explained_mean_damage_is_the_engines_with_a_crippled_shield():
    """One weapon, focus 0: mean boxes marked = P(hit) × mean damage per hit as explained.
    The Lancer's shield arm (L) crippled: no +2 ARM (WM-D2, WM-G4), in words and numbers."""
    spec = ActivationSpec("jack", 0, (Weapon("Axe", "melee", 6, 17, 6),), 11, True,
                          power_attacks=False)
    for cripple, arm in ((None, 16 + 2), ("L", 16)):
        damaged = with_crippled("cygnar/lancer", None, cripple, "--cripple")
        target = target_from_profile("cygnar/lancer", damaged)
        assert target.armor == 16 and target.shield_mask
        report = duel_chain([spec], target, method="exact", explain=True)
        step = next(x for x in report.info["explain"] if x.startswith("Axe: "))
        p_hit = _fractions(step, "P(hit)")[0]
        mean = _fractions(step, "mean damage per hit")[0]
        assert float(p_hit * mean) == pytest.approx(report.results["mean_damage"].value,
                                                    abs=1e-12)
        assert f"vs ARM {arm}" in step
        assert ("shield system crippled" in report.info["explain"][0]) == (cripple == "L")


def test_cli_explain_and_json_say_the_def_the_engine_plays():
    proc = run_cli("wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--cripple", "M",
                   "--focus", "0", "--explain", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    lines = data["info"]["explain"]
    assert "DEF 7 vs melee" in lines[0]
    axe = next(x for x in lines if x.startswith("Ice Axe: "))
    assert "vs DEF 7" in axe and "P(hit) 35/36" in axe
    assert data["results"]["p_hit_1"]["value"] == pytest.approx(35 / 36, abs=1e-12)
