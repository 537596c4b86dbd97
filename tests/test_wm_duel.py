"""`mathhammer wm duel`: the contract keys, the policy shown, bad input as one line."""

from __future__ import annotations

import math

import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.warmachine.duel import duel
from tests.conftest import run_cli, run_json


def test_acceptance_command_prints_destroyed_crippled_and_policy():
    proc = run_cli("wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--focus", "3",
                   "--charge", "--policy", "optimal", "--n-trials", "200000", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for key in ("p_destroyed", "p_crippled_L", "p_crippled_R", "p_crippled_M", "p_crippled_C",
                "mean_damage", "policy: optimal", "decisions:", "Juggernaut: opening [focus 3]"):
        assert key in out, key


def test_json_contract_keys():
    out = run_json("wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--policy", "greedy",
                   "--n-trials", "100000", "--seed", "2")
    assert {"p_destroyed", "p_crippled_L", "p_crippled_R", "p_crippled_M", "p_crippled_C",
            "mean_damage", "p_destroyed_box_model"} <= set(out["results"])
    assert "damage" in out["distributions"]
    assert out["info"]["policy"].startswith("greedy")


def test_focus_4_for_a_warjack_is_one_clear_error():
    proc = run_cli("wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--focus", "4")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "--focus" in proc.stderr and "WM-F1" in proc.stderr


def test_unknown_profile_suggests_a_close_id():
    proc = run_cli("wm", "duel", "khador/jugernaut", "cygnar/ironclad")
    assert proc.returncode == 2 and "khador/juggernaut" in proc.stderr


def test_chained_activations_and_starting_damage_raise_p_destroyed():
    """Same seed, N = 100 000: a second Juggernaut activation and pre-marked boxes must both
    raise P(destroyed) by far more than 5 SE (≈ 0.008)."""
    cfg = MonteCarloConfig(100_000, seed=4)
    one = duel("khador/juggernaut", "cygnar/ironclad", charge=True, config=cfg, method="mc")
    two = duel("khador/juggernaut", "cygnar/ironclad", charge=True, then=["khador/juggernaut:2"],
               config=cfg, method="mc")
    hurt = duel("khador/juggernaut", "cygnar/ironclad", charge=True,
                damaged=[2, 2, 2, 2, 2, 2], config=cfg, method="mc")
    base = one.results["p_destroyed"]
    margin = 5 * math.sqrt(2) * base.se
    assert two.results["p_destroyed"].value > base.value + margin
    assert hurt.results["p_destroyed"].value > base.value + margin


def test_warcaster_attacker_casts_spells():
    from mathhammer.warmachine.activation import ActivationSpec, Spell
    from mathhammer.warmachine.duel import duel_chain, target_from_profile

    # a caster out of melee: only spells (COST 2 and 3) spend its 6 focus (WM-F4)
    caster = ActivationSpec("caster", 6, (), 6, False, False, False,
                            (Spell("Arcane Bolt", 2, 11), Spell("Arcane Blast", 3, 13)), 6)
    r = duel_chain([caster], target_from_profile("cryx/deathripper"),
                   config=MonteCarloConfig(50_000, seed=8))
    assert any("buy [focus 6]" in line and "cast Arcane" in line for line in r.info["decisions"])
    assert any("buy [focus 6," in line and "cast Arcane Bolt" in line
               for line in r.info["decision states"])
    assert r.results["mean_focus_spent"].value > 3
    stryker = duel("cygnar/stryker", "cryx/deathripper", config=MonteCarloConfig(20_000, seed=8))
    assert stryker.results["mean_damage"].value > 0
    proc = run_cli("wm", "duel", "cygnar/stryker", "cryx/deathripper", "--focus", "9")
    assert proc.returncode == 2 and "FOCUS" in proc.stderr


def test_ranged_activation_respects_rof():
    """Charger's Dual Cannon has ROF 2 (WM-F2): with 3 focus it shoots exactly twice."""
    r = duel("cygnar/charger", "cryx/deathripper", ranged=True, method="exact")
    assert r.info["mean attacks made"] == 2.0
    assert "p_hit_2" in r.results and "p_hit_3" not in r.results
    assert any("Dual Cannon 1 left" in line for line in r.info["decisions"])
    proc = run_cli("wm", "duel", "cygnar/charger", "cryx/deathripper", "--ranged", "--charge")
    assert proc.returncode == 2 and "--charge" in proc.stderr


def test_ranged_exact_equals_monte_carlo():
    """N = 200 000; tolerance 5 SE from the exact p."""
    n = 200_000
    exact = duel("cygnar/charger", "cryx/deathripper", ranged=True, aim=True, method="exact")
    mc = duel("cygnar/charger", "cryx/deathripper", ranged=True, aim=True, method="mc",
              config=MonteCarloConfig(n, seed=6))
    for name in ("p_destroyed", "p_crippled_M", "p_crippled_H"):
        p = exact.results[name].value
        assert abs(mc.results[name].value - p) <= 5 * math.sqrt(max(p * (1 - p), 1e-12) / n), name


def test_shielded_profile_target_and_chain_weapon():
    from mathhammer.warmachine.duel import target_from_profile

    lancer = target_from_profile("cygnar/lancer")
    assert lancer.shield_mask != 0  # Shock Shield (WM-D2): +2 ARM until its arm is crippled
    assert target_from_profile("cygnar/ironclad").shield_mask == 0
    exact = duel("khador/juggernaut", "cygnar/lancer", charge=True, method="exact")
    mc = duel("khador/juggernaut", "cygnar/lancer", charge=True, method="mc",
              config=MonteCarloConfig(100_000, seed=13))
    p = exact.results["p_destroyed"].value
    assert abs(mc.results["p_destroyed"].value - p) <= 5 * math.sqrt(max(p * (1 - p), 1e-12) / 100_000)


def test_attacker_starting_damage_cripples_its_systems():
    """WM-G4 on the attacker (WM-G7 starting damage): crippled R → the Ice Axe rolls one
    die fewer and the policy opens with the fist; crippled C → no focus; crippled M →
    no charge."""
    from mathhammer.errors import RulesError
    from mathhammer.warmachine.duel import activation_from_profile

    spec = activation_from_profile("khador/juggernaut", damaged=[0, 0, 0, 0, 5, 5])
    axe = next(w for w in spec.weapons if w.name == "Ice Axe")
    assert axe.crippled and not next(w for w in spec.weapons if w.name == "Open Fist").crippled
    assert activation_from_profile("khador/juggernaut", damaged=[0, 0, 0, 6, 6, 0]).focus == 0
    with pytest.raises(RulesError, match="cortex"):
        activation_from_profile("khador/juggernaut", 2, damaged=[0, 0, 0, 6, 6, 0])
    with pytest.raises(RulesError, match="charge"):
        duel("khador/juggernaut", "cygnar/ironclad", charge=True, attacker_damaged=[0, 6, 6, 0, 0, 0],
             config=MonteCarloConfig(1000, seed=1))
    hurt = duel("khador/juggernaut", "cygnar/ironclad", attacker_damaged=[0, 0, 0, 0, 5, 5],
                method="exact")
    whole = duel("khador/juggernaut", "cygnar/ironclad", method="exact")
    assert hurt.results["p_destroyed"].value < whole.results["p_destroyed"].value / 5


def test_p_hit_of_the_first_attack_matches_the_rules():
    """Fixed policy without boosts: the first attack is the Ice Axe, MAT 6 vs DEF 12, so
    P(hit) = P(2d6 ≥ 6) = 26/36 (WM-A1). N = 100 000: 5 SE ≈ 0.007."""
    n = 100_000
    r = duel("khador/juggernaut", "cygnar/ironclad", policy="fixed", method="mc",
             config=MonteCarloConfig(n, seed=19))
    p = 26 / 36
    assert abs(r.results["p_hit_1"].value - p) <= 5 * math.sqrt(p * (1 - p) / n)
