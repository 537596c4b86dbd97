"""``fb battle`` with war machines (FB-B12): the piece fires in the shooting phase by the
artillery engine's exact answer, is shot at with its own Toughness, and its crew fight."""

from __future__ import annotations

import math

from mathhammer.fantasy.battle.report import battle
from tests.test_fb_battle import one_unit_list
from tests.test_fb_battle_phases import unbreakable_orcs

CANNON_LIST = "profiles/lists/wfb8_empire_cannon.toml"


def cannon_at_orcs(tmp_path, engine: str, n: int, seed: int):
    """A Great Cannon 20" in front of ten Unbreakable Orc Boyz (5 wide) who hold and never
    charge; one game turn, A first: only the cannon acts. The orcs' models left."""
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    a = one_unit_list(tmp_path, "cannon", "wfb8/empire_great_cannon")
    b = one_unit_list(tmp_path, "orcs", unbreakable_orcs(tmp_path), models=10, champion=False)
    deployment = {"a": [{"unit": "Great Cannon", "x": 36.0, "y": 4.0}],
                  "b": [{"unit": "Orc Boyz", "x": 36.0, "y": 24.0, "facing": 180,
                         "move": "hold", "charge": "none"}]}
    recipe = Recipe(load_list(a), load_list(b), deployment, "given", 1, "a", "scripted",
                    "scripted", 1, 1)
    plan = build_plan(recipe)
    plan.engine = engine
    tally = run(recipe, n, seed, plan=plan)[0]
    return plan, tally


def test_a_cannon_alone_is_the_artillery_engine(tmp_path):
    """FB-B12: one turn in which only a Great Cannon fires (at ten orcs 20" away, along the
    middle file, 4" short): the orcs slain follow fb artillery cannon's exact distribution —
    the mean and P(none slain) within 5 se (se from the exact answer), on both engines."""
    from mathhammer.fantasy.artillery.query import artillery

    n = 2000
    for engine, seed in (("kernel", 31), ("python", 32)):
        plan, tally = cannon_at_orcs(tmp_path, engine, n, seed)
        orc = next(u.index for u in plan.units if u.label == "Orc Boyz")
        exact = artillery("cannon", "wfb8/orc_boyz", models=10, rank_width=plan.units[orc].width,
                          ruleset="wfb8", method="exact").distributions["models_slain"]
        slain = {exact.offset + k: float(p) for k, p in enumerate(exact.probs)}
        mean = sum(k * p for k, p in slain.items())
        var = sum((k - mean) ** 2 * p for k, p in slain.items())
        p_none = slain.get(0, 0.0)
        observed = {m: int(c) for m, c in enumerate(tally["models_left"][orc]) if c}
        assert sum(observed.values()) == n
        got_mean = sum((10 - m) * c for m, c in observed.items()) / n
        got_none = observed.get(10, 0) / n
        assert abs(got_mean - mean) <= 5 * math.sqrt(var / n), (engine, got_mean, mean)
        se_none = math.sqrt(p_none * (1 - p_none) / n)
        assert abs(got_none - p_none) <= 5 * se_none, (engine, got_none, p_none)
    assert 0.05 < p_none < 0.95 and mean > 0.3  # the test can fail: the cannon matters
