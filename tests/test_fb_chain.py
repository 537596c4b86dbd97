"""The attack chain, exact engine: hand-derived rationals for every special rule.

Each expected value below is worked out by hand from docs/rules.md (FB-H1..FB-V4) with
Fractions; none is read back from the code.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F
from math import comb

import numpy as np
import pytest

from mathhammer.errors import InputError, RulesError
from mathhammer.fantasy.chain.core import (
    AttackSpec, chain_distribution, chain_exact, single_attack_fractions, single_attack_outcomes,
)

MELEE_44 = dict(ws=4, target_ws=4)  # 4+ to hit (FB-H1)


def p_unsaved(spec: AttackSpec, rules: str = "wfb8") -> F:
    pmf, slain = single_attack_fractions(spec, rules)
    return 1 - pmf[0] - slain


def test_plain_chain():
    """4+ hit, 4+ wound (S3 v T3), 5+ save: 1/2 · 1/2 · 2/3."""
    assert p_unsaved(AttackSpec(strength=3, toughness=3, save=5, **MELEE_44)) == F(1, 6)


@pytest.mark.parametrize(("mode", "expected"), [
    (None, F(1, 2)), ("failed", F(3, 4)), ("ones", F(1, 2) + F(1, 6) * F(1, 2)),
    ("successes", F(1, 4)),
])
def test_hit_rerolls(mode, expected):
    """DICE-5 on a 4+ to hit; S10 v T1 with no save makes every hit a wound except 1s."""
    spec = AttackSpec(strength=10, toughness=1, reroll_hits=mode, **MELEE_44)
    assert p_unsaved(spec) == expected * F(5, 6)


@pytest.mark.parametrize(("mode", "expected"), [
    ("failed", 1 - F(1, 2) ** 2), ("ones", F(1, 2) + F(1, 6) * F(1, 2)), ("successes", F(1, 4)),
])
def test_wound_rerolls(mode, expected):
    spec = AttackSpec(strength=3, toughness=3, auto_hit=True, reroll_wounds=mode)
    assert p_unsaved(spec) == expected


def test_armour_and_ward_rerolls():
    """Re-rolled failed 5+ armour fails (2/3)²; Divine-style forced re-roll of passed 4+ wards."""
    spec = AttackSpec(strength=3, toughness=3, auto_hit=True, save=5, reroll_armour="failed")
    assert p_unsaved(spec) == F(1, 2) * F(2, 3) ** 2
    spec = AttackSpec(strength=3, toughness=3, auto_hit=True, ward=4, reroll_ward_save="successes")
    assert p_unsaved(spec) == F(1, 2) * (1 - F(1, 4))


def test_hatred_and_always_strikes_first():
    """FB-H3: Hatred and the wfb8 ASF re-roll are re-rolls of failed hits (3/4 on a 4+)."""
    base = dict(strength=10, toughness=1, **MELEE_44)
    assert p_unsaved(AttackSpec(hatred=True, **base)) == F(3, 4) * F(5, 6)
    assert p_unsaved(AttackSpec(hatred=True, reroll_hits="ones", **base)) == F(3, 4) * F(5, 6)
    asf = AttackSpec(always_strikes_first=True, initiative=4, target_initiative=4, **base)
    assert p_unsaved(asf, "wfb8") == F(3, 4) * F(5, 6)
    assert p_unsaved(asf, "t9a1") == F(1, 2) * F(5, 6)  # no ASF re-roll in t9a1 (FB-H3)
    slower = AttackSpec(always_strikes_first=True, initiative=3, target_initiative=4, **base)
    assert p_unsaved(slower, "wfb8") == F(1, 2) * F(5, 6)
    both = AttackSpec(always_strikes_first=True, target_always_strikes_first=True, **base)
    assert p_unsaved(both, "wfb8") == F(1, 2) * F(5, 6)
    with pytest.raises(InputError, match="Hatred"):
        single_attack_fractions(AttackSpec(hatred=True, reroll_hits="successes", **base))


def test_poison():
    """FB-W2: 3+ to hit, S3 v T4 (5+): a 6 to hit wounds, 3-5 then 5+: 1/6 + 3/6 · 2/6."""
    spec = AttackSpec(ws=4, target_ws=3, strength=3, toughness=4, poison=True)
    assert p_unsaved(spec) == F(1, 6) + F(3, 6) * F(2, 6)
    # cannot-wound cell: only the poisoned sixes get through (S1 v T10)
    spec = AttackSpec(ws=4, target_ws=3, strength=1, toughness=10, poison=True)
    assert p_unsaved(spec) == F(1, 6)
    # 7+ needed to hit: poison does nothing (BS 1 with −1 → 7+: 1/12 to hit)
    spec = AttackSpec(bs=1, shooting_modifier=-1, strength=3, toughness=4, poison=True)
    assert p_unsaved(spec) == F(1, 12) * F(2, 6)


def test_hopeless_shots_and_reroll():
    """FB-H2: 8+ = a 6 then 5+ (1/18); a failed-roll re-roll repeats the whole procedure."""
    spec = AttackSpec(bs=1, shooting_modifier=-2, strength=10, toughness=1)
    assert p_unsaved(spec) == F(1, 18) * F(5, 6)
    spec = AttackSpec(bs=1, shooting_modifier=-2, strength=10, toughness=1, reroll_hits="failed")
    assert p_unsaved(spec) == (1 - F(17, 18) ** 2) * F(5, 6)
    spec = AttackSpec(bs=1, shooting_modifier=-4, strength=10, toughness=1)  # 10+: impossible
    assert p_unsaved(spec) == 0
    spec = AttackSpec(bs=6, shooting_modifier=-1, strength=10, toughness=1)  # 2+: natural 1 misses
    assert p_unsaved(spec) == F(5, 6) * F(5, 6)


def test_armour_modifiers_and_piercing():
    """FB-V1: 4+ save vs S5 (−2) with AP 1 → 7+: no save; 3+ vs S4 → 4+; 1+ vs S3 → 2+."""
    hit = dict(auto_hit=True, toughness=1)
    assert p_unsaved(AttackSpec(strength=5, save=4, armour_piercing=1, **hit)) == F(5, 6)
    assert p_unsaved(AttackSpec(strength=4, save=3, **hit)) == F(5, 6) * F(1, 2)
    assert p_unsaved(AttackSpec(strength=3, save=1, **hit)) == F(5, 6) * F(1, 6)


def test_ward_and_regeneration():
    """FB-V2: the better of ward and regeneration; flaming switches regeneration off."""
    hit = dict(auto_hit=True, strength=10, toughness=1)
    assert p_unsaved(AttackSpec(ward=5, regeneration=4, **hit)) == F(5, 6) * F(1, 2)
    assert p_unsaved(AttackSpec(ward=5, regeneration=4, flaming=True, **hit)) == F(5, 6) * F(2, 3)
    assert p_unsaved(AttackSpec(regeneration=4, flaming=True, **hit)) == F(5, 6)
    assert p_unsaved(AttackSpec(save=5, ward=6, strength=3, toughness=3, auto_hit=True)) == (
        F(1, 2) * F(2, 3) * F(5, 6))


def test_killing_blow_wfb8():
    """FB-W2 wfb8: a 6 to wound slays; no armour or regeneration; a ward stops it."""
    spec = AttackSpec(strength=3, toughness=3, save=4, killing_blow=True, **MELEE_44)
    pmf, slain = single_attack_fractions(spec, "wfb8")
    assert slain == F(1, 2) * F(1, 6)
    assert pmf == [1 - F(1, 12) - F(1, 12), F(1, 2) * F(2, 6) * F(1, 2)]
    spec = AttackSpec(strength=3, toughness=3, save=4, regeneration=4, ward=5, killing_blow=True,
                      **MELEE_44)
    pmf, slain = single_attack_fractions(spec, "wfb8")
    assert slain == F(1, 12) * F(2, 3)  # the 5+ ward, not the (better) regeneration
    not_allowed = AttackSpec(strength=3, toughness=3, save=4, killing_blow=True,
                             killing_blow_applies=False, **MELEE_44)
    assert single_attack_fractions(not_allowed, "wfb8")[1] == 0
    shooting = AttackSpec(bs=3, strength=3, toughness=3, save=4, killing_blow=True)
    assert single_attack_fractions(shooting, "wfb8")[1] == 0  # close combat only
    poisoned = AttackSpec(ws=4, target_ws=4, strength=3, toughness=3, killing_blow=True,
                          poison=True)
    # auto-wounds (poison sixes) never kill outright: 2/6 + ... only the wound roll of a 4/5 hit
    assert single_attack_fractions(poisoned, "wfb8")[1] == F(2, 6) * F(1, 6)


def test_lethal_strike_t9a1():
    """FB-W2 t9a1: a 6 to wound gets AP 6 and no regeneration. S4 v T3 3+, save 3 → 4+."""
    spec = AttackSpec(strength=4, toughness=3, save=3, killing_blow=True, auto_hit=True)
    pmf, slain = single_attack_fractions(spec, "t9a1")
    assert slain == 0
    assert pmf[1] == F(3, 6) * F(1, 2) + F(1, 6)
    spec = AttackSpec(strength=4, toughness=3, regeneration=4, killing_blow=True, auto_hit=True)
    assert p_unsaved(spec, "t9a1") == F(3, 6) * F(1, 2) + F(1, 6)
    with pytest.raises(RulesError, match="killing_blow"):
        single_attack_fractions(spec, "basic")


def test_multiple_wounds_capped():
    """FB-V3: D3 per unsaved wound capped at W 2: 1 w.p. 1/3, 2 w.p. 2/3."""
    spec = AttackSpec(strength=10, toughness=1, auto_hit=True, multiple_wounds="D3",
                      target_wounds=2)
    pmf, _ = single_attack_fractions(spec, "wfb8")
    assert pmf == [F(1, 6), F(5, 6) * F(1, 3), F(5, 6) * F(2, 3)]
    pmf_float, slain = single_attack_outcomes(spec, "wfb8")
    assert np.allclose(pmf_float, [1 / 6, 5 / 18, 10 / 18]) and slain == 0
    with pytest.raises(InputError, match="multiple_wounds"):
        single_attack_fractions(AttackSpec(strength=3, toughness=3, auto_hit=True,
                                           multiple_wounds="D3-1"))


def test_n_attacks_is_binomial():
    """20 attacks at p = 1/6 each: total wounds ~ Binomial(20, 1/6)."""
    spec = AttackSpec(strength=3, toughness=3, save=5, **MELEE_44)
    result = chain_exact(spec, 20, "wfb8")
    expected = [comb(20, k) * (1 / 6) ** k * (5 / 6) ** (20 - k) for k in range(21)]
    assert np.allclose(result.wounds, expected, atol=1e-15)
    assert result.mean_wounds == pytest.approx(20 / 6, abs=1e-12)


def _brute_force(per_attack, p_slay, n, W, models=None):
    """Enumerate every sequence of per-attack outcomes (FB-V4 order of removal)."""
    outcomes = [(k, p) for k, p in enumerate(per_attack) if p] + ([("slay", p_slay)] if p_slay else [])
    dist: dict[int, F] = {}
    for seq in itertools.product(outcomes, repeat=n):
        total, prob = 0, F(1)
        for k, p in seq:
            total += (W - total % W) if k == "slay" else k
            prob *= p
        if models is not None:
            total = min(total, models * W)
        dist[total] = dist.get(total, F(0)) + prob
    return dist


def test_chain_with_multiple_wounds_slay_and_models():
    """FB-V4 with W 3: 4 attacks, MW D3 and Killing Blow, against brute force."""
    spec = AttackSpec(strength=4, toughness=4, save=5, killing_blow=True, multiple_wounds="D3",
                      target_wounds=3, **MELEE_44)
    pmf, slay = single_attack_fractions(spec, "wfb8")
    for models in (None, 2):
        brute = _brute_force(pmf, slay, 4, 3, models)
        result = chain_exact(spec, 4, "wfb8", models=models)
        for t, p in brute.items():
            assert result.wounds[t] == pytest.approx(float(p), abs=1e-15)
        slain_expected: dict[int, float] = {}
        for t, p in brute.items():
            slain_expected[t // 3] = slain_expected.get(t // 3, 0.0) + float(p)
        for m, p in slain_expected.items():
            assert result.slain[m] == pytest.approx(p, abs=1e-15)


def test_random_number_of_attacks():
    """D3 attacks: a mixture of 1, 2 and 3 attacks with weight 1/3 each."""
    per = np.array([0.75, 0.25])
    mixed = chain_distribution(per, 0.0, {1: 1 / 3, 2: 1 / 3, 3: 1 / 3})
    expected = sum(np.pad([comb(n, k) * 0.25**k * 0.75 ** (n - k) for k in range(n + 1)],
                          (0, 3 - n)) for n in (1, 2, 3)) / 3
    assert np.allclose(mixed, expected)
    spec = AttackSpec(strength=10, toughness=1, auto_hit=True)
    assert chain_exact(spec, "D3", "wfb8").mean_wounds == pytest.approx(2 * 5 / 6)


def test_bad_specs():
    with pytest.raises(InputError, match="exactly one way"):
        single_attack_fractions(AttackSpec(strength=3, toughness=3))
    with pytest.raises(InputError, match="reroll_hits"):
        single_attack_fractions(AttackSpec(strength=3, toughness=3, auto_hit=True, reroll_hits="x"))
    with pytest.raises(InputError, match="toughness"):
        single_attack_fractions(AttackSpec(strength=3, toughness=11, auto_hit=True))
    with pytest.raises(InputError, match="ws_attacker"):  # FB-V0 allows 0, not below
        single_attack_fractions(AttackSpec(ws=-1, target_ws=3, strength=3, toughness=3))


def test_hit_probability():
    """One shot: BS 3 → 4+ (1/2), re-rolled misses 3/4; BS 1 at −1 → 7+ (1/12)."""
    from mathhammer.fantasy.chain.core import hit_probability

    assert hit_probability(AttackSpec(bs=3, strength=3, toughness=3)) == F(1, 2)
    assert hit_probability(AttackSpec(bs=3, strength=3, toughness=3, reroll_hits="failed")) == F(3, 4)
    assert hit_probability(AttackSpec(bs=1, shooting_modifier=-1, strength=3, toughness=3)) == F(1, 12)
