"""Characters, champions, challenges, the general and battle standard, several units
(FB-K1..K4, FB-M1..M4): hand-derived cases, exact engine vs Monte Carlo, bad input.

Every case is built so the answer can be worked out on paper: units that cannot wound
each other (S1 against T10 is "cannot wound", FB-W1) except the models under test.
Monte Carlo tolerance: 5 standard errors of the exact p (N = 100 000: ± 0.0079 near 0.5).
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import MathhammerError
from mathhammer.fantasy.combat.fight import ChallengeSpec, Character, Side, combat, make_side
from mathhammer.fantasy.models import load_unit, validate_unit

N = 100_000


def profile(name="U", role="unit", models=1, width=5, base="20mm", army="Test", ruleset="wfb8",
            champion=False, **stats):
    s = {"m": 4, "ws": 3, "bs": 3, "s": 1, "t": 10, "w": 1, "i": 3, "a": 1, "ld": 7}
    saves = {k: stats.pop(k) for k in ("armour", "ward") if k in stats}
    extra = {k: stats.pop(k) for k in ("special_rules", "equipment", "troop_type", "mounts",
                                       "impact_hits", "stomp", "breath_weapon") if k in stats}
    s.update(stats)
    data = {"id": f"test/{name.lower().replace(' ', '_')}", "name": name, "ruleset": ruleset, "army": army,
            "role": role, "base": base, "stats": s, "saves": saves,
            "formation": {"models": models, "rank_width": width, "champion": champion},
            "points": {"per_model": 1}, **extra}
    return validate_unit(data, name)


def hero(name="Hero", **stats):
    return profile(name, role="character", width=1, **stats)


def binomial(n, p):
    return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


# ---- FB-K1: a character fights with its own profile, attacked only when targeted ------------
def test_character_fights_with_its_own_profile():
    """FB-K1: the only model able to wound is the character: WS10 S10 A3 against WS3 T5
    gives 3 x 2/3 x 5/6 = 5/3 wounds in one round."""
    a = Side(profile("Guards", models=5, s=1), characters=(Character(hero(ws=10, s=10, a=3, i=5)),))
    b = Side(profile("Foes", models=10, t=5))
    r = combat(a, b, rounds=1, method="exact").results
    assert r["mean_wounds_dealt"].value == pytest.approx(5 / 3, abs=1e-12)
    assert r["p_slain[Hero]"].value == 0


@pytest.mark.parametrize("base, attacks", [("20mm", 1), ("40mm", 2)])
def test_targeting_a_character_sends_the_models_in_contact(base, attacks):
    """FB-K1: untargeted, the enemy strikes the rank and file (here T10, never wounded);
    targeted by name, ceil(hero base / attacker base) front models strike the hero:
    each attack 4+ to hit, 4+ to wound = 1/4."""
    a = Side(profile("Guards", models=5), characters=(Character(hero(t=3, w=2, a=0, base=base)),))
    foe = dict(models=5, s=3, a=1)
    plain = combat(a, Side(profile("Foes", **foe)), rounds=1, method="exact").results
    assert plain["mean_wounds_taken"].value == 0
    aimed = combat(a, Side(profile("Foes", **foe), target="Hero"), rounds=1, method="exact").results
    assert aimed["mean_wounds_taken"].value == pytest.approx(attacks / 4, abs=1e-12)


# ---- FB-K3: challenges -----------------------------------------------------------------------
@pytest.mark.parametrize("ruleset, cap", [("wfb8", 5), ("t9a1", 3)])
def test_challenge_overkill_counts_up_to_the_cap(ruleset, cap):
    """FB-K3: a WS10 S10 A8 duellist against a W1 champion: N ~ Bin(8, 5/9) unsaved wounds;
    in the duel A scores min(N, 1 + cap); without the challenge the hits go to the rank and
    file (one W1 model: the score is min(N, 1))."""
    a = Side(profile("A", a=0, ruleset=ruleset),
             characters=(Character(hero("Duelist", ws=10, s=10, a=8, i=5, ruleset=ruleset)),))
    b = Side(profile("B", models=2, champion=True, t=3, i=1, ruleset=ruleset))
    dist = binomial(8, Fraction(5, 9))
    duel = combat(a, b, rounds=1, method="exact", ruleset=ruleset, challenge=ChallengeSpec("a"))
    expect = sum(p * min(k, 1 + cap) for k, p in enumerate(dist))
    assert duel.results["mean_round_1_score_a_minus_b"].value == pytest.approx(float(expect), abs=1e-12)
    plain = combat(a, b, rounds=1, method="exact", ruleset=ruleset)
    expect = sum(p * min(k, 1) for k, p in enumerate(dist))
    assert plain.results["mean_round_1_score_a_minus_b"].value == pytest.approx(float(expect), abs=1e-12)
    assert plain.results["p_slain[B champion]"].value == 0
    assert duel.results["p_slain[B champion]"].value == pytest.approx(float(1 - dist[0]), abs=1e-12)


def test_refused_challenge_takes_the_characters_leadership():
    """FB-K3/K4: B (3 rank and file at Ld 5 + a Ld 9 character, 4 wide: no ranks) loses
    by 3 (A's stated bonus). Accepting, it tests Ld 9 - 3 = 6 (15/36 pass); refusing, the
    character lends no Ld: 5 - 3 = 2 (only the double 1, 1/36)."""
    a = Side(profile("A", a=0), characters=(Character(hero("Issuer", a=0)),), bonus=3)
    b = Side(profile("B", models=3, width=4, a=0, ld=5), characters=(Character(hero("Coward", a=0, ld=9)),))
    acc = combat(a, b, rounds=1, method="exact", challenge=ChallengeSpec("a", response="accept"))
    ref = combat(a, b, rounds=1, method="exact", challenge=ChallengeSpec("a", response="refuse", other="Coward"))
    assert acc.results["p_enemy_breaks"].value == pytest.approx(21 / 36, abs=1e-12)
    assert ref.results["p_enemy_breaks"].value == pytest.approx(35 / 36, abs=1e-12)


def test_refusing_character_does_not_strike():
    """FB-K3: the refuser's blows are gone while the challenger lives."""
    a = Side(profile("A", models=5, s=1, t=3), characters=(Character(hero("Issuer", a=0)),))
    b = Side(profile("B", models=5, a=0), characters=(Character(hero("Brute", s=5, a=4, ws=5)),))
    fights = combat(a, b, rounds=1, method="exact").results["mean_wounds_taken"].value
    assert fights == pytest.approx(4 * Fraction(2, 3) * Fraction(5, 6), abs=1e-12)  # 3+ / 2+
    ref = combat(a, b, rounds=1, method="exact", challenge=ChallengeSpec("a", response="refuse"))
    assert ref.results["mean_wounds_taken"].value == 0


# ---- FB-K4: general and battle standard --------------------------------------------------------
def _block():
    return profile("Block", models=20, width=5)


def test_general_leadership_and_battle_standard_reroll():
    """FB-K4: B (one Ld 5 model) loses by 3 (ranks). Alone: Ld 2 (1/36); with a general
    outside the fight (Ld 9): Ld 6 (15/36); a battle standard in range re-rolls: p + (1-p)p."""
    b = profile("Target", ld=5)
    alone = combat(_block(), b, rounds=1, method="exact").results["p_enemy_breaks"].value
    assert alone == pytest.approx(35 / 36, abs=1e-12)
    gen = combat(_block(), b, rounds=1, method="exact", general_ld=(None, 9)).results
    assert gen["p_enemy_breaks"].value == pytest.approx(21 / 36, abs=1e-12)
    p = Fraction(1, 36)
    bsb = combat(_block(), b, rounds=1, method="exact", bsb=(False, True)).results
    assert bsb["p_enemy_breaks"].value == pytest.approx(float(1 - (p + (1 - p) * p)), abs=1e-12)


def test_general_in_another_unit_lends_leadership():
    """FB-K4: a general (Ld 9) in B2 lends his Ld to B1 (Ld 5) while he lives."""
    b1 = Side(profile("B1", ld=5))
    b2 = Side(profile("B2", ld=5), characters=(Character(hero("Boss", ld=9, a=0), general=True),),
              against=0, position="flank")
    # A's block faces B1; B2 sits in the block's flank, unable to hurt anyone
    r = combat(Side(_block()), [b1, b2], rounds=1, method="exact").results
    # B loses by 3 - 1 (B2's flank bonus): B1 and B2 test Ld 9 - 2 = 7 each (21/36)
    assert r["p_broke[B1]"].value == pytest.approx(15 / 36, abs=1e-12)


# ---- FB-M1..M4: several units --------------------------------------------------------------------
@pytest.mark.parametrize("ruleset, p_pass", [("wfb8", Fraction(21, 36)), ("t9a1", Fraction(10, 36))])
def test_flank_charge_two_against_one(ruleset, p_pass):
    """FB-M1/M2/M3: A1 (10 models, 2 ranks: +1) in front, A2 (2 ranks) in B's flank: +1.
    B (20 models, 4 ranks) is disrupted: no rank bonus. B loses by 2. wfb8 keeps it
    steadfast (4 ranks > 2): Ld 7; t9a1's disrupted units are not: Ld 7 - 2 = 5.
    FB-M4: both A units pursue: caught when the better of two 2D6 is at least B's 2D6."""
    a1 = Side(profile("A1", models=10, ruleset=ruleset))
    a2 = Side(profile("A2", models=10, ruleset=ruleset), position="flank", against=0)
    b = Side(profile("B", models=20, ruleset=ruleset))
    r = combat([a1, a2], b, rounds=1, method="exact", ruleset=ruleset).results
    assert r["mean_round_1_score_a_minus_b"].value == pytest.approx(2, abs=1e-12)
    assert r["p_broke[B]"].value == pytest.approx(float(1 - p_pass), abs=1e-12)
    two_d6 = {t: Fraction(6 - abs(t - 7), 36) for t in range(2, 13)}
    below = {f: sum((q for t, q in two_d6.items() if t < f), Fraction(0)) for f in range(2, 13)}
    p_caught = sum(q * (1 - below[f] ** 2) for f, q in two_d6.items())
    assert r["p_caught[B]"].value == pytest.approx(float((1 - p_pass) * p_caught), abs=1e-12)
    assert r["p_a_wins"].value == pytest.approx(float(1 - p_pass), abs=1e-12)


def test_several_units_monte_carlo_matches_exact():
    """A flank charge with real profiles, characters and champions, one round: every
    probability within 5 SE of the exact engine."""
    a1 = make_side("wfb8/empire_halberdiers", where="a1", models=15,
                   characters=[Character(load_unit("wfb8/empire_captain"))])
    a2 = make_side("wfb8/knights_of_the_realm", where="a2", models=5, position="flank", against=0)
    b = make_side("wfb8/orc_boyz", where="b", models=20, characters=[Character(load_unit("wfb8/orc_big_boss"))])
    ex = combat([a1, a2], b, rounds=1, method="exact", charger="a", ruleset="wfb8")
    run = combat([a1, a2], b, rounds=1, method="mc", charger="a", ruleset="wfb8",
                 config=MonteCarloConfig(n_trials=N, seed=1313, threads=1))
    for name, est in ex.results.items():
        if name.startswith("p_"):
            se = math.sqrt(est.value * (1 - est.value) / N)
            assert abs(run.results[name].value - est.value) <= 5 * se + 1e-12, name
    assert "p_destroyed[A2]" in ex.results


def test_challenge_combat_monte_carlo_matches_exact():
    a = make_side("wfb8/empire_halberdiers", where="a", models=5,
                  characters=[Character(load_unit("wfb8/empire_captain"))])
    b = make_side("wfb8/orc_boyz", where="b", models=5, characters=[Character(load_unit("wfb8/orc_big_boss"))])
    spec = ChallengeSpec("b", response="accept")
    ex = combat(a, b, rounds=2, method="exact", challenge=spec)
    run = combat(a, b, rounds=2, method="mc", challenge=spec, config=MonteCarloConfig(n_trials=N, seed=7, threads=1))
    for name, est in ex.results.items():
        if name.startswith("p_"):
            se = math.sqrt(est.value * (1 - est.value) / N)
            assert abs(run.results[name].value - est.value) <= 5 * se + 1e-12, name


# ---- bad input: one line ----------------------------------------------------------------------
@pytest.mark.parametrize("make, what", [
    (lambda: combat(Side(profile("A"), characters=(Character(hero(army="Elves")),)), profile("B")),
     "is from Elves"),
    (lambda: combat(Side(profile("A"), characters=(Character(hero(ruleset="t9a1")),)), profile("B")),
     "t9a1 profile joining a wfb8 unit"),
    (lambda: combat(Side(profile("A"), characters=(Character(hero("H1"), general=True),
                                                    Character(hero("H2"), general=True))), profile("B")),
     "two generals"),
    (lambda: combat(profile("A"), profile("B"), challenge=ChallengeSpec("a")), "no character or champion"),
    (lambda: combat(Side(profile("A"), characters=(Character(hero()),)), profile("B"),
                    challenge=ChallengeSpec("a")), "side B has no character or champion"),
    (lambda: combat(Side(profile("A"), characters=(Character(profile("Grunt")),)), profile("B")),
     "is not a character"),
    (lambda: combat(Side(profile("A"), attack_mount=True), profile("B")), "no ridden monster"),
    (lambda: combat(Side(profile("A"), characters=(Character(hero(), general=True),)), profile("B"),
                    general_ld=(9, None)), "already has its general"),
])
def test_bad_fights_are_one_clear_error(make, what):
    with pytest.raises(MathhammerError) as err:
        make()
    text = str(err.value)
    assert what in text and "\n" not in text


def test_cavalry_without_its_mount_is_an_error():
    with pytest.raises(MathhammerError, match="rider and its mount"):
        profile("Riders", troop_type="cavalry")


def test_cli_bad_character_and_challenge(capsys):
    from mathhammer.cli import main

    for args, what in ((["wfb8/empire_halberdiers+wfb8/orc_big_boss", "wfb8/orc_boyz"], "is from Orcs"),
                       (["wfb8/empire_halberdiers+t9a1/eos_marshal", "wfb8/orc_boyz"], "t9a1 profile"),
                       (["wfb8/empire_halberdiers+wfb8/empire_captain:general+wfb8/empire_general:general",
                         "wfb8/orc_boyz"], "two generals"),
                       (["wfb8/orc_giant", "wfb8/empire_halberdiers", "--challenge", "a"], "no character")):
        with pytest.raises(SystemExit) as stop:
            main(["fb", "combat", *args])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and what in err and len(err.strip().splitlines()) == 1, err


# ---- bundled characters ---------------------------------------------------------------------
#: stat lines as typed from BSData/whfb 8th and BSData/The-9th-Age 1.3 (fa9a0a06)
CHARACTERS = {
    "wfb8/empire_general": (4, 5, 5, 4, 4, 3, 5, 3, 9), "wfb8/empire_captain": (4, 5, 5, 4, 4, 2, 5, 3, 8),
    "wfb8/orc_warboss": (4, 6, 3, 5, 5, 3, 4, 4, 9), "wfb8/orc_big_boss": (4, 5, 3, 4, 5, 2, 3, 3, 8),
    "wfb8/dwarf_lord": (3, 7, 4, 4, 5, 3, 4, 4, 10), "wfb8/dwarf_thane": (3, 6, 4, 4, 5, 2, 3, 3, 10),
    "wfb8/high_elf_prince": (5, 7, 7, 4, 3, 3, 8, 4, 10), "wfb8/high_elf_noble": (5, 6, 6, 4, 3, 2, 7, 3, 9),
    "wfb8/chaos_lord": (4, 8, 3, 5, 5, 3, 7, 5, 9), "wfb8/chaos_exalted_hero": (4, 7, 3, 5, 4, 2, 6, 4, 8),
    "wfb8/vampire_lord": (6, 7, 5, 5, 5, 3, 7, 5, 10), "wfb8/vampire": (6, 6, 4, 5, 4, 2, 6, 4, 7),
    "wfb8/bretonnian_lord": (4, 6, 3, 4, 4, 3, 6, 4, 9), "wfb8/bretonnian_paladin": (4, 5, 3, 4, 4, 2, 5, 3, 8),
    "t9a1/eos_knight_commander": (4, 6, 3, 4, 4, 3, 6, 4, 9), "t9a1/eos_marshal": (4, 5, 5, 4, 4, 3, 5, 3, 9),
    "t9a1/og_orc_warlord": (4, 6, 3, 5, 5, 3, 4, 4, 9), "t9a1/og_orc_chief": (4, 5, 3, 4, 5, 3, 3, 3, 8),
    "t9a1/dh_king": (3, 7, 4, 4, 5, 3, 4, 4, 10), "t9a1/dh_thane": (3, 6, 4, 4, 5, 3, 3, 3, 9),
    "t9a1/hbe_prince": (5, 7, 7, 4, 3, 3, 8, 4, 10), "t9a1/hbe_commander": (5, 6, 6, 4, 3, 3, 7, 3, 9),
    "t9a1/wdg_lord_of_chaos": (4, 8, 3, 5, 5, 3, 7, 5, 9), "t9a1/wdg_harbinger": (4, 7, 3, 5, 4, 3, 6, 4, 8),
    "t9a1/vc_vampire_count": (6, 7, 5, 5, 5, 3, 7, 5, 9), "t9a1/vc_vampire_courtier": (6, 6, 4, 5, 4, 3, 6, 4, 8),
    "t9a1/koe_duke": (4, 6, 3, 4, 4, 3, 6, 4, 9), "t9a1/koe_paladin": (4, 5, 3, 4, 4, 2, 5, 3, 8),
}


def test_every_bundled_army_has_a_lord_and_a_hero():
    from mathhammer.profiles import bundled_ids

    for ref, line in CHARACTERS.items():
        u = load_unit(ref)
        s = u.stats
        assert (s.m, s.ws, s.bs, s.s, s.t, s.w, s.i, s.a, s.ld) == line, ref
        assert u.role == "character" and u.formation.models == 1 and u.low_confidence
    armies = {}
    for ref in bundled_ids("fantasy"):
        u = load_unit(ref)
        armies.setdefault((u.ruleset, u.army), set()).add(u.level if u.role == "character" else "unit")
    for key, kinds in armies.items():
        assert {"lord", "hero"} <= kinds, key
