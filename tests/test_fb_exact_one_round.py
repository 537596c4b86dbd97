"""The jitted exact round (kernels/combat_exact.py) against the Python exact engine, the
reference (combat/exact.py, ``fb combat --method exact``): every tally cell of one round from
the start, over many random fights — challenges accepted and refused, Frenzy, Unbreakable,
Unstable, Daemonic Instability, Stubborn, steadfast, pursuit, flank and rear, two units a side
(FB-C1..C7, FB-K1..K4, FB-M1..M4). The two sum the same terms in another order, so the cells
agree to float rounding (1e-12), not bit for bit."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mathhammer.errors import InputError
from mathhammer.fantasy.combat.compile import ChallengeSpec, Character, Side
from mathhammer.fantasy.combat.exact import combat_exact, exact_available, one_round_exact
from mathhammer.fantasy.combat.fight import compile_fight, make_side
from mathhammer.fantasy.kernels import combat as k
from mathhammer.fantasy.models import validate_unit

REAL = ["wfb8/empire_halberdiers", "wfb8/orc_boyz", "wfb8/knights_of_the_realm",
        "wfb8/skeleton_warriors", "wfb8/high_elf_swordmasters", "wfb8/chaos_warriors",
        "wfb8/dwarf_warriors", "wfb8/high_elf_spearmen", "wfb8/orc_giant"]
RULES = [[], ["Frenzy"], ["Unbreakable"], ["Unstable"], ["Daemonic Instability"], ["Stubborn"],
         ["Hatred"]]


def _profile(rng: random.Random, name: str, role: str = "unit", models: int = 1, width: int = 5):
    stats = {"m": 4, "ws": rng.randint(2, 6), "bs": 3, "s": rng.randint(2, 6),
             "t": rng.randint(2, 5), "w": rng.choice([1, 1, 1, 2, 3]) if role == "unit" else
             rng.randint(1, 3), "i": rng.randint(1, 6), "a": rng.randint(1, 3),
             "ld": rng.randint(5, 9)}
    return validate_unit({
        "id": f"test/{name.lower()}", "name": name, "ruleset": "wfb8", "army": "Test",
        "role": role, "base": "20mm", "stats": stats, "saves": {"armour": rng.choice([4, 5, 6])} if rng.random() < 0.6 else {},
        "special_rules": rng.choice(RULES),
        "formation": {"models": models, "rank_width": width,
                      "champion": role == "unit" and rng.random() < 0.5,
                      "standard": rng.random() < 0.5, "musician": rng.random() < 0.5},
        "points": {"per_model": 5}}, name)


def _side(rng: random.Random, label: str, position: str, charged: bool) -> Side:
    if rng.random() < 0.4:
        return make_side(rng.choice(REAL), where=label, models=rng.randint(1, 20),
                         rank_width=rng.randint(2, 6), charged=charged, position=position)
    models = rng.randint(1, 16)
    heroes = tuple(Character(_profile(rng, f"Hero{label}{i}", role="character", width=1),
                             general=rng.random() < 0.3, battle_standard=rng.random() < 0.3)
                   for i in range(rng.choice([0, 0, 1, 2])))
    return Side(_profile(rng, f"U{label}", models=models, width=rng.randint(2, 6)), charged,
                position, rng.randint(0, 2), None, heroes)


def _fights(n: int, seed: int = 20261204):
    rng = random.Random(seed)
    while n:
        charger = rng.choice(["a", "b", None])
        a = [_side(rng, "a", "front", charger == "a")]
        b = [_side(rng, "b", "front", charger == "b")]
        if rng.random() < 0.25:  # a second unit of A in B's flank or rear (FB-M1/M2)
            a.append(_side(rng, "c", rng.choice(["flank", "rear"]), charger == "a"))
        challenge = None
        singles = any(s.characters or s.unit.formation.champion for s in a) and \
            any(s.characters or s.unit.formation.champion for s in b)
        if singles and rng.random() < 0.6:
            challenge = ChallengeSpec(rng.choice("ab"), response=rng.choice(["accept", "refuse"]))
        try:
            c, tables = compile_fight(tuple(a), tuple(b), charger=charger, challenge=challenge)
        except InputError:  # a drawn fight the engine refuses (nobody to refuse with, ...)
            continue
        if exact_available(c, tables, 1) is not None:
            continue
        n -= 1
        yield c, tables


def test_the_jitted_round_matches_the_python_engine_cell_by_cell():
    seen = {"duel": 0, "refused": 0, "caught": 0, "fled": 0, "destroyed": 0, "two units": 0,
            "frenzy": 0, "unbreakable": 0, "unstable": 0, "daemonic": 0, "stubborn": 0}
    for c, tables in _fights(70):
        ref = combat_exact(c, tables, 1)
        got = one_round_exact(c, tables)
        assert set(got) == set(ref)
        for name in ref:
            want, have = np.asarray(ref[name], float), np.asarray(got[name], float)
            assert want.shape == have.shape, name
            scale = max(1.0, float(np.max(np.abs(want))))  # r1_sq is a sum of squared scores
            assert np.max(np.abs(want - have), initial=0.0) <= 1e-12 * scale, name
        uc, u = ref["unit_counts"], tables.u_int
        seen["duel"] += int(tables.chal[2] == 1)
        seen["refused"] += int(tables.chal[2] == 2)
        seen["caught"] += int(uc[:, k.UC_CAUGHT].max() > 0)
        seen["fled"] += int((uc[:, k.UC_BROKE] - uc[:, k.UC_CAUGHT]).max() > 1e-9)
        seen["destroyed"] += int(uc[:, k.UC_DESTROYED].max() > 0)
        seen["two units"] += int(u.shape[0] > 2)
        for rule, col in (("frenzy", k.U_FRENZY), ("unbreakable", k.U_UNBREAKABLE),
                          ("unstable", k.U_UNSTABLE), ("daemonic", k.U_DAEMONIC),
                          ("stubborn", k.U_STUBBORN)):
            seen[rule] += int(u[:, col].max() == 1)
    assert min(seen.values()) > 0, seen  # every case above was met at least once


@pytest.mark.parametrize("rules", ["wfb8", "t9a1"])
def test_the_jitted_round_matches_on_the_battle_lists_own_units(rules):
    """Real profiles of both rulesets, each charging the other: the same tallies."""
    pairs = [("wfb8/empire_halberdiers", "wfb8/orc_boyz"), ("wfb8/knights_of_the_realm",
             "wfb8/skeleton_warriors")] if rules == "wfb8" else \
        [("t9a1/wdg_warriors", "t9a1/vc_skeletons")]
    for a, b in pairs:
        for charger in ("a", "b"):
            c, tables = compile_fight(make_side(a, where="a", charged=charger == "a"),
                                      make_side(b, where="b", charged=charger == "b"),
                                      charger=charger, ruleset=rules)
            ref, got = combat_exact(c, tables, 1), one_round_exact(c, tables)
            for name in ref:
                scale = max(1.0, float(np.max(np.abs(ref[name]))))
                assert np.max(np.abs(np.asarray(ref[name]) - np.asarray(got[name])),
                              initial=0.0) <= 1e-12 * scale, name


def test_first_round_tables_give_the_same_round_bit_for_bit():
    """compile_fight(first_round_only=True) (the greedy values' tables) leaves out only what a
    later round reads: one round from the start is the same, bit for bit, in both engines."""
    for c, _tables in _fights(12, seed=7):
        sides = (tuple(c.units[u] for u in range(len(c.units)) if c.unit_sides[u] == 0),
                 tuple(c.units[u] for u in range(len(c.units)) if c.unit_sides[u] == 1))
        full = compile_fight(*sides, ruleset=c.rules)
        short = compile_fight(*sides, ruleset=c.rules, first_round_only=True)
        for engine in (lambda f: combat_exact(*f, 1), lambda f: one_round_exact(*f)):
            want, got = engine(full), engine(short)
            for name in want:
                assert np.array_equal(np.asarray(want[name]), np.asarray(got[name])), name
