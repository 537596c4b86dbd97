"""The fast exact Fantasy chain (issue 29 part 7) against the slow references it replaced.

The single attack is now counted in whole numbers and N attacks are built by repeated
squaring; before, the stages were pushed through in Fractions and the attacks convolved
one at a time. Both references stay here, written the slow way, and the fast engine must
agree with them on many random specs: the single attack to the last bit (the same
rational rounded once), N attacks to 1e-12.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from mathhammer.errors import MathhammerError
from mathhammer.fantasy.chain import core as chain
from mathhammer.fantasy.chain.core import AttackSpec, chain_exact, compile_spec, single_attack_outcomes
from mathhammer.fantasy.rules.ruleset import load_ruleset

RULESETS = ("wfb8", "t9a1", "basic")


def reference_single(spec: AttackSpec, rules) -> tuple[list[Fraction], Fraction]:
    """The former engine: the class distribution pushed through each stage in Fractions."""
    t = compile_spec(spec, rules)
    hit = chain._stage([Fraction(1)], t.hit_rr, t.hit_out, 3, 36 if t.hopeless else 6)
    wound = chain._stage(hit, t.wound_rr, t.wound_out, 4)
    armour = chain._stage(wound, t.armour_rr, t.armour_out, 4)
    final = chain._stage(armour, t.ward_rr, t.ward_out, 3)
    pmf = [final[0]] + [Fraction(0)] * (len(t.wounds_each) - 1)
    for k, pk in enumerate(t.wounds_each):
        pmf[k] += final[1] * pk
    return pmf, final[2]


def reference_chain(per_attack, p_slay, attacks_pmf, w, models):
    """The former N-attack loop: one convolution per attack, the cap applied at each."""
    cap = models * w if models is not None else None
    n_max = max(attacks_pmf)
    step = max(len(per_attack) - 1, w if p_slay else 0)  # most wounds one attack adds
    total = np.zeros(n_max * step + 1)
    dist = np.ones(1)
    for n in range(n_max + 1):
        total[: len(dist)] += attacks_pmf.get(n, 0.0) * dist
        if n == n_max:
            break
        nxt = np.concatenate([np.convolve(dist, per_attack), np.zeros(w)])
        for t, p in enumerate(dist):  # a slay adds the wounds the model has left (FB-V4)
            nxt[t + w - t % w] += p_slay * p
        nxt = nxt[: (n + 1) * step + 1]
        if cap is not None and len(nxt) > cap + 1:
            nxt[cap] += nxt[cap + 1:].sum()
            nxt = nxt[: cap + 1]
        dist = nxt
    if cap is not None and len(total) > cap + 1:
        total[cap] += total[cap + 1:].sum()
        total = total[: cap + 1]
    return total


def random_spec(rng: random.Random) -> AttackSpec:
    way = rng.choice(("melee", "bs", "hit_on", "auto"))
    kw: dict = {}
    if way == "melee":
        kw.update(ws=rng.randint(1, 10), target_ws=rng.randint(1, 10))
    elif way == "bs":
        kw.update(bs=rng.randint(1, 10), shooting_modifier=rng.randint(-3, 3))
    elif way == "hit_on":
        kw.update(hit_on=rng.randint(2, 6))
    else:
        kw.update(auto_hit=True)
    for name in ("reroll_hits", "reroll_wounds", "reroll_armour", "reroll_ward_save",
                 "reroll_regeneration"):
        if rng.random() < 0.25:
            kw[name] = rng.choice(("failed", "successes", "ones"))
    return AttackSpec(
        strength=rng.randint(1, 10), toughness=rng.randint(1, 10),
        save=rng.choice((None, 1, 2, 3, 4, 5, 6)), ward=rng.choice((None, None, 4, 5, 6)),
        regeneration=rng.choice((None, None, 4, 5)), armour_piercing=rng.choice((0, 0, 1, 2)),
        poison=rng.random() < 0.3, killing_blow=rng.random() < 0.3,
        multiple_wounds=rng.choice((None, None, "D3", "2", "D6")),
        target_wounds=rng.choice((1, 1, 2, 3, 5)), flaming=rng.random() < 0.2,
        hatred=way == "melee" and rng.random() < 0.2, **kw)


def random_cases(n: int, seed: int):
    rng = random.Random(seed)
    found = 0
    while found < n:
        spec, rules = random_spec(rng), load_ruleset(rng.choice(RULESETS))
        try:
            compile_spec(spec, rules)
        except MathhammerError:  # an impossible combination (e.g. Killing Blow in basic)
            continue
        found += 1
        yield rng, spec, rules


def test_single_attack_matches_the_fraction_engine_bit_for_bit():
    for _, spec, rules in random_cases(400, seed=29):
        pmf, slain = single_attack_outcomes(spec, rules)
        ref_pmf, ref_slain = reference_single(spec, rules)
        assert pmf.tolist() == [float(p) for p in ref_pmf], spec
        assert slain == float(ref_slain), spec
        assert chain.single_attack_fractions(spec, rules) == (ref_pmf, ref_slain)


def test_hit_probability_matches_the_fraction_engine():
    for _, spec, rules in random_cases(200, seed=7):
        t = compile_spec(spec, rules)
        miss = chain._stage([Fraction(1)], t.hit_rr, t.hit_out, 3, 36 if t.hopeless else 6)[0]
        assert chain.hit_probability(spec, rules) == 1 - miss


@pytest.mark.parametrize("seed", [1, 2])
def test_n_attacks_match_one_convolution_per_attack(seed):
    for rng, spec, rules in random_cases(60, seed=seed):
        attacks = rng.choice((1, 2, 7, 20, 33, "D6", "2D6"))
        models = rng.choice((None, None, 1, 4, 10))
        got = chain_exact(spec, attacks, rules, models)
        per_attack, p_slay = single_attack_outcomes(spec, rules)
        want = reference_chain(per_attack, p_slay, chain.attacks_pmf(attacks),
                               spec.target_wounds, models)
        n = max(len(got.wounds), len(want))
        assert np.abs(np.pad(got.wounds, (0, n - len(got.wounds)))
                      - np.pad(want, (0, n - len(want)))).max() <= 1e-12, (spec, attacks, models)
        assert np.all(got.wounds >= 0)
        assert abs(got.wounds.sum() - 1) <= 1e-12
