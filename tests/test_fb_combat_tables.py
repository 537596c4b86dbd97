"""The combat engine's tables built from what earlier fights kept (combat/arrays.py).

A battle compiles thousands of arrangements of the same few units, so ``build_tables`` keeps
each attacker/target pair's one-attack outcomes (keyed by ``compile.attack_spec_key``) and each
group's cumulative g_sum rows. These tests hold the kept tables to the ones made afresh:

* the key: change any field of an Attacker or a Body, and when ``attack_spec`` answers
  differently the key differs too (a field the key misses would hand one pair another's
  outcomes);
* the tables: the one-attack outcomes equal ``attack_spec`` + ``single_attack_outcomes`` now,
  and g_sum equals ``_cumulative_rows`` over the fight's own pmfs, bit for bit, for fights of
  every bundled profile in both rulesets, built once with empty caches and once with full ones.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest

from mathhammer.fantasy.chain.core import single_attack_outcomes
from mathhammer.fantasy.combat import arrays
from mathhammer.fantasy.combat.compile import attack_spec, attack_spec_key
from mathhammer.fantasy.combat.fight import compile_fight
from mathhammer.fantasy.rules.ruleset import load_ruleset

PROFILES = Path(__file__).resolve().parent.parent / "profiles" / "fantasy"
OPPONENT = {"wfb8": "wfb8/empire_halberdiers", "t9a1": "t9a1/eos_heavy_infantry"}
# rules attack_spec reads, beside those the bundled profiles have
RULES = ("Hatred", "Killing Blow", "Poisoned Attacks", "Flaming Attacks", "Always Strikes First")


def _fights(ruleset: str):
    """(compiled combat, tables) of every bundled profile of the ruleset against the same
    opponent, charging and charged, with the opponent in its front and in its flank."""
    ids = sorted(f"{ruleset}/{p.stem}" for p in (PROFILES / ruleset).glob("*.toml")
                 if "cannon" not in p.stem)  # a war machine fights on its own (FB-WM1)
    for unit in ids:
        for charger in ("a", "b"):
            yield compile_fight(unit, OPPONENT[ruleset], charger=charger, ruleset=ruleset)


@pytest.fixture(scope="module")
def parts():
    """Attackers and bodies of the bundled profiles (both rulesets), and the fights."""
    attackers, bodies, fights = [], [], []
    for ruleset in OPPONENT:
        for c, t in _fights(ruleset):
            fights.append((c, t))
            attackers += [g.attacker for g in c.groups]
            bodies += list(c.bodies)
    return attackers, bodies, fights


def _alternatives(objects, field: str, value):
    """Other values a field can take: those the bundled profiles give it, and for numbers
    one more and one less, for flags the other one, for optional values none."""
    seen = {repr(getattr(o, field)): getattr(o, field) for o in objects}
    out = [v for k, v in seen.items() if k != repr(value)]
    if isinstance(value, bool):
        out.append(not value)
    elif isinstance(value, int):
        out += [value + 1, max(value - 1, 0)]
    if value is not None:
        out.append(None)
    if field == "rules":
        out += [tuple(value) + (rule,) for rule in RULES if rule not in value]
    if field == "auto":
        out += ["impact", "stomp", "breath"]
    return out


def _specs(att, body, rules, from_front):
    out = []
    for v in range(3):
        try:
            out.append(attack_spec(att, body, v, rules, body.asf, from_front))
        except (TypeError, ValueError, AttributeError, KeyError) as err:  # a value no unit has
            out.append(type(err))
    return out


@pytest.mark.parametrize("which", ["attacker", "body"])
def test_a_field_that_changes_the_attack_changes_its_key(parts, which):
    attackers, bodies, _ = parts
    rng = random.Random(7)
    pairs = [(rng.choice(attackers), rng.choice(bodies)) for _ in range(40)]
    rulesets = [load_ruleset(name) for name in OPPONENT]
    checked = 0
    for att, body in pairs:
        subject = att if which == "attacker" else body
        pool = attackers if which == "attacker" else bodies
        for f in dataclasses.fields(subject):
            for other in _alternatives(pool, f.name, getattr(subject, f.name)):
                changed = dataclasses.replace(subject, **{f.name: other})
                att2, body2 = (changed, body) if which == "attacker" else (att, changed)
                for rules in rulesets:
                    for front in (True, False):
                        if _specs(att, body, rules, front) != _specs(att2, body2, rules, front):
                            checked += 1
                            assert attack_spec_key(att, body, front) \
                                != attack_spec_key(att2, body2, front), (f.name, other)
    assert checked > 100  # the alternatives do reach attack_spec


@pytest.mark.parametrize("caches", ["empty", "full"])
def test_kept_tables_are_the_tables_made_afresh(parts, caches):
    _, _, fights = parts
    if caches == "empty":
        arrays._OUTCOMES.clear()
        arrays._BLOCKS.clear()
        arrays._BLOCK_BYTES[0] = 0
    for c, _ in fights:
        for first_round_only in (False, True):
            t = arrays.build_tables(c, first_round_only)
            for (j, slot, v), (pmf, slay) in t.per_attack.items():
                g = c.groups[j]
                body = c.bodies[g.slots[slot]]
                from_front = c.faces[g.enemy][0] == g.unit or g.count == arrays.COUNT_SIDE_
                spec = attack_spec(g.attacker, body, v, c.rules, body.asf, from_front)
                want, want_slay = (np.array([1.0]), 0.0) if spec is None \
                    else single_attack_outcomes(spec, c.rules)
                assert np.array_equal(pmf, want) and slay == want_slay
            g_sum = np.zeros_like(t.g_sum)
            arrays._cumulative_rows(g_sum, t.sum_pmf)
            assert np.array_equal(g_sum, t.g_sum)


def test_the_block_cache_counts_its_bytes_under_threads(parts, monkeypatch):
    """Fights are compiled in threads too (Dask, the web): the cumulative rows' cache stays
    within its bound, and the bytes it counts are the bytes it holds."""
    from concurrent.futures import ThreadPoolExecutor

    _, _, fights = parts
    monkeypatch.setattr(arrays, "MAX_BLOCK_BYTES", 200_000)  # evicting all the time
    arrays._BLOCKS.clear()
    arrays._BLOCK_BYTES[0] = 0

    def build(c):
        return arrays.build_tables(c).g_sum

    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            list(pool.map(build, [c for c, _t in fights]))
    assert arrays._BLOCK_BYTES[0] == sum(a.nbytes for a in arrays._BLOCKS.values())
    assert arrays._BLOCK_BYTES[0] <= 200_000 or len(arrays._BLOCKS) == 1
