"""Kit and special rules as ruleset data (FB-E1..E8, FB-S1, S3, S5..S7) and ridden
monsters (FB-P1): each changes a hand-computable case the way its text says.

Most cases are one-round duels (``fb challenge``, inline stats) against a W10 target
that cannot strike back (S1 against T10 cannot wound, FB-W1), so the mean wounds dealt
is attacks x P(hit) x P(wound) x P(no save), worked out below each test.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from mathhammer.fantasy.combat.fight import Side, combat, compile_fight
from mathhammer.fantasy.combat.challenge import challenge
from mathhammer.fantasy.models import load_unit, validate_unit

TARGET = "stats:ws=3,s=1,t=3,w=10,i=1,a=1"  # WS3 T3 W10, no save, cannot hurt a T10 attacker


def dealt(attacker: str, rounds=1, target=TARGET, **kw) -> float:
    return challenge(attacker, target, rounds=rounds, **kw).results["mean_wounds_on_b"].value


def attacker(extra="", a=1, s=3):
    return f"stats:ws=3,s={s},t=10,w=3,i=3,a={a}" + (f",{extra}" if extra else "")


HIT = F(1, 2)  # WS3 against WS3: 4+


def test_fb_e1_great_weapon_plus_two_strength_and_strikes_last():
    """FB-E1: S3+2 = S5 v T3 wounds on 2+ (5/6); and it strikes after an I1 enemy."""
    assert dealt(attacker("great_weapon")) == pytest.approx(float(HIT * F(5, 6)))
    # both die to one blow (W1, S10): the great weapon's I10 model strikes last and dies first
    fast = "stats:ws=3,s=10,t=3,w=1,i=10,a=1,great_weapon"
    slow = "stats:ws=3,s=10,t=3,w=1,i=1,a=1"
    r = challenge(fast, slow, rounds=1).results
    p = float(HIT * F(5, 6))  # S10 v T3: 2+
    assert r["p_b_wins"].value == pytest.approx(p)
    assert r["p_a_wins"].value == pytest.approx((1 - p) * p)


def test_fb_e2_halberd_plus_one_strength():
    """FB-E2: S4 v T3: 3+ (2/3)."""
    assert dealt(attacker("halberd")) == pytest.approx(float(HIT * F(2, 3)))


def test_fb_e5_additional_hand_weapon_plus_one_attack():
    """FB-E5: two attacks at S3 v T3 (4+)."""
    assert dealt(attacker("additional_hand_weapon")) == pytest.approx(float(2 * HIT * F(1, 2)))


def test_fb_e7_flail_first_round_only():
    """FB-E7: S5 in round 1 (5/6 to wound), S3 in round 2 (1/2)."""
    one = dealt(attacker("flail"))
    two = dealt(attacker("flail"), rounds=2)
    assert one == pytest.approx(float(HIT * F(5, 6)))
    assert two - one == pytest.approx(float(HIT * F(1, 2)))


def test_fb_e8_choppa_first_round_and_not_in_t9a1():
    """FB-E8: +1 S in round 1 (S4: 3+) in wfb8; t9a1 has no choppa: S3 (4+) and a note."""
    assert dealt(attacker("choppa")) == pytest.approx(float(HIT * F(2, 3)))
    r = challenge(attacker("choppa"), TARGET, rounds=1, ruleset="t9a1")
    assert r.results["mean_wounds_on_b"].value == pytest.approx(float(HIT * F(1, 2)))
    assert "choppa has no effect in t9a1" in r.info["notes"]


def test_fb_e6_lance_mounted_on_the_charge_only():
    """FB-E6: the Bretonnian Lord on Warhorse (S4, lance): S6 on the charge (v T3: 2+),
    S4 otherwise (3+); WS6 v WS3 3+; 4 attacks; the horse adds 1 attack at S3 (WS3: 4+)."""
    lord = "wfb8/bretonnian_lord_warhorse"
    horse = HIT * F(1, 2)
    charged = dealt(lord, charger="a")
    plain = dealt(lord)
    assert charged == pytest.approx(float(4 * F(2, 3) * F(5, 6) + horse))
    assert plain == pytest.approx(float(4 * F(2, 3) * F(2, 3) + horse))
    # on foot the lance does nothing (FB-E6: mounted only)
    assert dealt(attacker("lance"), charger="a") == pytest.approx(float(HIT * F(1, 2)))


def test_fb_e4_shield_plus_one_armour_in_wfb8_and_parry_in_t9a1():
    """FB-E4: a 5+ save with a shield is 4+ in close combat in wfb8 (unsaved 1/2 instead of
    2/3); in t9a1 the shield is Parry: a WS5 attacker hits on 4+ instead of 3+; with a
    great weapon the shield does nothing."""
    shielded = "stats:ws=3,s=1,t=3,w=10,i=1,a=1,save=5,shield"
    plain = "stats:ws=3,s=1,t=3,w=10,i=1,a=1,save=5"
    assert dealt(attacker(), target=shielded) == pytest.approx(float(HIT * F(1, 2) * F(1, 2)))
    assert dealt(attacker(), target=plain) == pytest.approx(float(HIT * F(1, 2) * F(2, 3)))
    both = "stats:ws=3,s=1,t=3,w=10,i=1,a=1,save=5,shield,great_weapon"
    assert dealt(attacker(), target=both) == pytest.approx(float(HIT * F(1, 2) * F(2, 3)))
    elite = "stats:ws=5,s=3,t=10,w=3,i=3,a=1"
    t9a1 = dict(ruleset="t9a1")
    assert dealt(elite, target=shielded, **t9a1) == pytest.approx(float(F(1, 2) * F(1, 2) * F(2, 3)))
    assert dealt(elite, target=plain, **t9a1) == pytest.approx(float(F(2, 3) * F(1, 2) * F(2, 3)))


def test_fb_e3_spear_fights_in_one_more_rank():
    """FB-E3: wfb8 infantry: 1 supporting rank + 1 for the spear; the 5x4 block of spears
    strikes with 5 front + 10 supporting models."""
    spear = validate_unit({"id": "t/spears", "name": "Spears", "ruleset": "wfb8", "equipment": ["spear"],
                           "stats": {"m": 4, "ws": 3, "bs": 3, "s": 3, "t": 3, "w": 1, "i": 3, "a": 1, "ld": 7},
                           "formation": {"models": 20, "rank_width": 5}, "points": {"per_model": 1}}, "t")
    c, _ = compile_fight(spear, "wfb8/empire_halberdiers")
    assert c.support[0] == 2
    c, _ = compile_fight(spear.model_copy(update={"equipment": ()}), "wfb8/empire_halberdiers")
    assert c.support[0] == 1


def test_fb_s1_frenzy_extra_attack_lost_after_a_lost_round():
    """FB-S1: +1 A while frenzied; a unit that loses a round loses it. An unbreakable
    frenzied model (A1) fights two rounds against a W10 target: winning both rounds it
    strikes 2 + 2 times; losing the first (the target's +10 bonus) 2 + 1 times."""
    def model(name, **kw):
        stats = {"m": 4, "ws": 3, "bs": 3, "s": 3, "t": 10, "w": 3, "i": 3, "a": 1, "ld": 7}
        stats.update(kw.pop("stats", {}))
        return validate_unit({"id": f"t/{name.lower()}", "name": name, "ruleset": "wfb8", "stats": stats,
                              "formation": {"models": 1, "rank_width": 1}, "points": {"per_model": 1},
                              **kw}, name)
    frenzied = model("Berserker", special_rules=["Frenzy", "Unbreakable"])
    target = model("Target", stats={"s": 1, "t": 3, "w": 10}, special_rules=["Unbreakable"])
    p = HIT * F(1, 2)
    win = combat(Side(frenzied, bonus=10), target, rounds=2, method="exact").results
    assert win["mean_wounds_dealt"].value == pytest.approx(float(4 * p))
    lose = combat(frenzied, Side(target, bonus=10), rounds=2, method="exact").results
    assert lose["mean_wounds_dealt"].value == pytest.approx(float(3 * p))


def test_fb_s3_musician_breaks_a_tie_where_the_ruleset_says():
    """FB-S3: nobody can wound, equal scores: wfb8 gives the round to the musician's side;
    basic (no musician rule) leaves it tied."""
    def unit(musician):
        return validate_unit({"id": "t/u", "name": "U", "ruleset": "wfb8",
                              "stats": {"m": 4, "ws": 3, "bs": 3, "s": 1, "t": 10, "w": 1, "i": 3, "a": 1, "ld": 7},
                              "formation": {"models": 4, "rank_width": 4, "musician": musician},
                              "points": {"per_model": 1}}, "u")
    r = combat(unit(True), unit(False), rounds=1, method="exact").results
    assert r["p_a_wins_round_1"].value == 1 and r["mean_round_1_score_a_minus_b"].value == 0
    assert combat(unit(True), unit(False), rounds=1, method="exact", ruleset="basic").results[
        "p_round_1_tied"].value == 1


def _monster(**kw):
    stats = {"m": 6, "ws": 3, "bs": 0, "s": 5, "t": 10, "w": 6, "i": 1, "a": 0, "ld": 7}
    return validate_unit({"id": "t/m", "name": "Beast", "ruleset": "wfb8", "troop_type": "monster",
                          "base": "50mm", "stats": stats, "formation": {"models": 1, "rank_width": 1},
                          "points": {"per_model": 1}, **kw}, "m")


def _infantry(troop="infantry"):
    data = {"id": "t/i", "name": "Foot", "ruleset": "wfb8", "troop_type": troop,
            "stats": {"m": 4, "ws": 3, "bs": 3, "s": 1, "t": 3, "w": 1, "i": 3, "a": 1, "ld": 7},
            "formation": {"models": 20, "rank_width": 5}, "points": {"per_model": 1},
            "special_rules": ["Unbreakable"]}
    if troop == "cavalry":
        data["mounts"] = [{"name": "Horse", "ws": 3, "s": 1, "i": 3, "a": 0}]
    return validate_unit(data, "i")


def test_fb_s5_impact_hits_on_the_charge_only():
    """FB-S5: D6 impact hits at S5 (v T3: 2+) when charging: 7/2 x 5/6; none otherwise;
    they strike before everything."""
    beast = _monster(impact_hits="D6")
    r = combat(beast, _infantry(), rounds=1, charger="a", method="exact")
    assert r.results["mean_wounds_dealt"].value == pytest.approx(3.5 * 5 / 6)
    assert r.info["strike_order_round_1"] == "Beast impact hits (impact) > Foot = Foot supporting (I3)"
    assert combat(beast, _infantry(), rounds=1, method="exact").results["mean_wounds_dealt"].value == 0


def test_fb_s6_stomp_hits_infantry_not_cavalry():
    """FB-S6: a thunderstomp of D6 S5 hits: 7/2 x 5/6 on infantry every round; nothing on cavalry."""
    beast = _monster(stomp="D6")
    assert combat(beast, _infantry(), rounds=1, method="exact").results["mean_wounds_dealt"].value == \
        pytest.approx(3.5 * 5 / 6)
    assert combat(beast, _infantry("cavalry"), rounds=1, method="exact").results["mean_wounds_dealt"].value == 0


def test_fb_s7_breath_weapon_once_per_game():
    """FB-S7: 2D6 S4 hits (v T3: 3+) in the first round, then never again."""
    beast = _monster(breath_weapon={"strength": 4})
    one = combat(beast, _infantry(), rounds=1, method="exact").results["mean_wounds_dealt"].value
    two = combat(beast, _infantry(), rounds=2, method="exact").results["mean_wounds_dealt"].value
    assert one == pytest.approx(7 * 2 / 3) and two == pytest.approx(one)


def test_fb_p1_ridden_monster_two_parts_and_the_save_bonus():
    """FB-P1: the Prince on Star Dragon is two bodies: the Prince (T3 W3, armour 4+ with the
    dragon's +1 = 3+) and the dragon (T7 W7, 3+); attacks go to the Prince unless the side
    attacks mounts; the dragon strikes with its own profile."""
    c, tables = compile_fight("wfb8/empire_halberdiers", "wfb8/high_elf_prince_star_dragon")
    prince, dragon = [b for b in c.bodies if b.unit == 1]
    assert (prince.t, prince.w, prince.armour) == (3, 3, 3)
    assert (dragon.t, dragon.w, dragon.armour, dragon.role) == (7, 7, 3, "mount")
    assert any(g.attacker.name == "Star Dragon" and g.attacker.s == 7 for g in c.groups)
    g = next(g for g in c.groups if g.unit == 0 and g.attacker.auto is None)
    assert c.bodies[g.slots[g.pref[0][0]]].name == "Prince on Star Dragon"
    c2, _ = compile_fight(Side(load_unit("wfb8/empire_halberdiers"), attack_mount=True),
                          "wfb8/high_elf_prince_star_dragon")
    g = next(g for g in c2.groups if g.unit == 0 and g.attacker.auto is None)
    assert c2.bodies[g.slots[g.pref[0][0]]].name == "Star Dragon"
    # halberdiers (S4 v T3: 3+; WS3 v WS7: 5+) against the Prince's 3+ (S4: -1 -> 4+)
    p = F(1, 3) * F(2, 3) * F(1, 2)
    assert tables.per_attack[0, 0, 1][0][1] == pytest.approx(float(p))
