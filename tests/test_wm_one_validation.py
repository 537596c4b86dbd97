"""Issue 17 part 2: one validation, every entry point.

Every option ``wm attack`` shares with a Warmachine scenario's ``[[attacks]]`` line or
``[target]`` table is walked over its boundary values and the combinations the rules
forbid; the CLI and the scenario must give the same accept / reject answer. Errors name
what the user typed, never a derived figure.
"""

from __future__ import annotations

import pytest

from mathhammer.errors import MathhammerError
from mathhammer.present.flags import flag as cli_flag
from mathhammer.warmachine.limits import LIMITS
from mathhammer.warmachine.scenario import SHARED_ATTACK_KEYS, SHARED_TARGET_KEYS, run_scenario
from tests.conftest import cli_inprocess

BASE_CLI = {"stat": 6, "defense": 13, "power": 12, "armor": 16, "boxes": 17}
BASE_ATTACK = {"kind": "melee", "stat": 6, "power": 12}
BASE_TARGET = {"def": 13, "arm": 16, "boxes": 17}
LIMIT_OF = {"stat": "stat", "power": "power", "count": "attacks", "modifier": "modifier",
            "extra_hit_dice": "extra_dice", "extra_damage_dice": "extra_dice",
            "def": "defense", "arm": "armor", "boxes": "boxes", "camped_focus": "camped_focus",
            "arm_bonus": "arm_bonus", "def_bonus": "def_bonus"}


def _values(key: str) -> list:
    if key in LIMIT_OF:
        lo, hi, ex = LIMITS[LIMIT_OF[key]]
        return [lo - 1, lo, ex, hi, hi + 1]
    if key == "kind":
        return ["melee", "ranged", "magic", "psychic"]
    if key in ("distance", "rng"):
        return [-1.0, 0.0, 8.0, 1000.0, 1000.5]
    return [True, False]


def _cli(fields: dict) -> bool:
    argv = ["wm", "attack", "--format", "json", "-q"]
    for field, value in fields.items():
        flag = cli_flag(field)
        if isinstance(value, bool):
            argv += [flag] if value else []
        else:
            argv += [flag, str(value)]
    proc = cli_inprocess(*argv)
    assert proc.returncode in (0, 2), proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.returncode == 0


def _scenario(attack: dict, target: dict) -> bool:
    data = {"game": "warmachine", "target": target, "attacks": [attack]}
    try:
        run_scenario(data, "s.toml", method="exact")
    except MathhammerError:
        return False
    return True


def _both(attack_extra: dict, target_extra: dict) -> tuple[bool, bool]:
    attack = {**BASE_ATTACK, **attack_extra}
    target = {**BASE_TARGET, **target_extra}
    fields = dict(BASE_CLI)
    for key, value in attack.items():
        fields[SHARED_ATTACK_KEYS[key]] = value
    for key, value in target.items():
        fields[SHARED_TARGET_KEYS[key]] = value
    return _cli(fields), _scenario(attack, target)


CASES = ([("attack", key, v) for key in SHARED_ATTACK_KEYS for v in _values(key)]
         + [("target", key, v) for key in SHARED_TARGET_KEYS for v in _values(key)])


@pytest.mark.parametrize("where, key, value", CASES, ids=[f"{w}.{k}={v}" for w, k, v in CASES])
def test_every_shared_option_same_answer(where, key, value):
    # a ranged attack where the option only means something for ranged attacks
    extra = {"kind": "ranged"} if key in ("distance", "rng", "aim", "target_in_melee") else {}
    if where == "attack":
        cli, scen = _both({**extra, key: value}, {})
    else:
        cli, scen = _both(extra, {key: value})
    assert cli == scen, (where, key, value, cli, scen)


COMBINATIONS = [  # the rules' forbidden (and allowed) combinations, in scenario spelling
    ({"charge": True, "boost_damage": True, "count": 1}, {}, False),
    ({"charge": True, "boost_damage": True, "count": 3}, {}, True),
    ({"free_strike": True, "boost_hit": True}, {}, False),
    ({"free_strike": True, "boost_damage": True}, {}, False),
    ({"free_strike": True, "count": 2}, {}, False),
    ({"kind": "ranged", "charge": True}, {}, False),
    ({"powerful_charge": True}, {}, False),
    ({"extra_damage_dice": 3, "weapon_master": True}, {}, False),
    ({"extra_damage_dice": 2, "weapon_master": True}, {}, True),
    ({}, {"def_bonus": -13}, False),
    ({}, {"def_bonus": -12}, True),
    ({"kind": "ranged"}, {"stealth": True}, False),
    ({"kind": "ranged", "distance": 6.0}, {"stealth": True}, True),
    ({"kind": "melee", "distance": 6.0}, {}, False),
    ({"kind": "melee", "aim": True}, {}, False),
    ({"kind": "melee", "target_in_melee": True}, {}, False),
]


@pytest.mark.parametrize("attack, target, accepted", COMBINATIONS)
def test_rule_combinations_same_answer(attack, target, accepted):
    cli, scen = _both(attack, target)
    assert cli == scen == accepted


def test_errors_name_what_was_typed():
    proc = cli_inprocess("wm", "attack", "--stat", "6", "--defense", "13", "--power", "12",
                         "--armor", "16", "--extra-damage-die", "3", "--weapon-master")
    assert proc.returncode == 2
    assert "got 3" in proc.stderr and "got 4" not in proc.stderr
    assert "--extra-damage-die" in proc.stderr and "--weapon-master" in proc.stderr
    data = {"game": "warmachine", "target": BASE_TARGET,
            "attacks": [{**BASE_ATTACK, "charge": True, "boost_damage": True}]}
    with pytest.raises(MathhammerError, match=r"s\.toml: attacks\[0\]\.boost_damage"):
        run_scenario(data, "s.toml", method="exact")
    proc = cli_inprocess("wm", "attack", "--stat", "6", "--defense", "13", "--power", "12",
                         "--armor", "16", "--def-bonus", "-14")
    assert "--defense with --def-bonus" in proc.stderr and "got -14" in proc.stderr
