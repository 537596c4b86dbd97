"""``game = "fantasy"`` scenario files for ``mathhammer run``, and the option handling
shared with ``mathhammer fb combat`` / ``fb artillery``.

A combat scenario::

    game = "fantasy"
    kind = "combat"            # combat | artillery | turn (fantasy/combat/turn.py) | battle (battle/)
    ruleset = "wfb8"           # optional: default = the profiles' edition
    rounds = 3                 # optional: default until decided
    charger = "a"              # optional: every unit of that side charged
    general_ld_a = 9           # optional: a general outside the fight (FB-K4)
    bsb_b = true               # optional: a battle standard within range of B (FB-K4)

    [a]
    unit = "wfb8/empire_halberdiers"   # a profile id or a unit file (relative to this file)
    models = 30                        # optional formation overrides
    rank_width = 6
    position = "front"                 # front | flank | rear: the enemy's face it fights
    against = 1                        # which enemy unit (1-based; default the first)
    target = "Orc Big Boss"            # optional: its models in contact attack this model
    bonus = 0

    [[a.characters]]                   # FB-K1: characters with the unit
    unit = "wfb8/empire_captain"
    general = true
    battle_standard = false

    [b.profile]                        # or a whole unit profile inline (see profiles/fantasy)
    ...

    [challenge]                        # FB-K3: optional
    side = "a"                         # who issues it
    issuer = "Captain"                 # default: the side's first character, else champion
    response = "accept"                # accept | refuse
    other = "Orc Big Boss"             # who accepts (or refuses)

Several units a side (FB-M1): ``[[a]]`` tables instead of ``[a]``, each with its own
``position`` and ``against``.

An artillery scenario has ``kind = "artillery"``, a ``[target]`` table like ``[a]``
and an ``[artillery]`` table with the keys of ``mathhammer fb artillery`` (see docs/guide/fantasy.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, ProfileError
from mathhammer.fantasy.artillery.shot import ArtilleryEntry
from mathhammer.fantasy.rules.ruleset import default_ruleset
from mathhammer.results import Report


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CharacterEntry(_Frozen):
    """FB-K1/K4: a character joining the unit."""

    unit: str | None = Field(None, description="character profile id or file")
    profile: dict | None = Field(None, description="an inline character profile")
    general: bool = False
    battle_standard: bool = False


class UnitEntry(_Frozen):
    unit: str | None = Field(None, description="profile id or unit file")
    profile: dict | None = Field(None, description="an inline unit profile")
    models: int | None = Field(None, ge=1, le=200)
    rank_width: int | None = Field(None, ge=1, le=40)
    champion: bool | None = None
    standard: bool | None = None
    musician: bool | None = None
    battle_standard: bool | None = None
    position: Literal["front", "flank", "rear"] = "front"
    against: int | None = Field(None, ge=1, le=4, description="FB-M1: the enemy unit it fights, 1-based")
    target: str | None = Field(None, description="FB-K1: an enemy character or champion to attack")
    attack_mount: bool = Field(False, description="FB-P1: attacks on a ridden monster hit the monster")
    charged: bool | None = Field(None, description="this unit charged (default: the scenario's charger)")
    bonus: int = Field(0, ge=-10, le=20)
    characters: tuple[CharacterEntry, ...] = ()


class ChallengeEntry(_Frozen):
    """FB-K3: a challenge issued before the first round."""

    side: Literal["a", "b"]
    issuer: str | None = None
    response: Literal["accept", "refuse"] = "accept"
    other: str | None = None


class Scenario(_Frozen):
    game: Literal["fantasy"]
    kind: Literal["combat", "artillery", "turn", "battle"] = "combat"
    title: str = ""
    ruleset: str | None = None
    rounds: int | None = Field(None, ge=1, le=100)
    charger: Literal["a", "b"] | None = None
    a: UnitEntry | tuple[UnitEntry, ...] | None = None
    b: UnitEntry | tuple[UnitEntry, ...] | None = None
    challenge: ChallengeEntry | None = None
    general_ld_a: int | None = Field(None, ge=2, le=10, description="FB-K4: a general outside the fight")
    general_ld_b: int | None = Field(None, ge=2, le=10)
    bsb_a: bool = Field(False, description="FB-K4: a battle standard within range (re-rolls)")
    bsb_b: bool = False
    target: UnitEntry | None = None
    artillery: ArtilleryEntry | None = None
    turn: dict | None = Field(None, description="kind = \"turn\": see mathhammer.fantasy.combat.turn")
    battle: dict | None = Field(None, description="kind = \"battle\": see "
                                                  "mathhammer.fantasy.battle.scenario")


def _unit(entry: UnitEntry, where: str, base_dir: Path):
    from mathhammer.fantasy.models import load_unit, validate_unit

    if (entry.unit is None) == (entry.profile is None):
        raise ProfileError(where, "needs exactly one of unit (id or file) and profile (inline)",
                           None, 'add unit = "wfb8/empire_halberdiers"')
    if entry.profile is not None:
        return validate_unit(entry.profile, f"{where}.profile")
    ref = entry.unit
    from mathhammer.io import names_a_file

    local = base_dir / ref
    if ref.endswith(".toml") and names_a_file(local):  # never raises (a 300-char name)
        ref = str(local)
    return load_unit(ref)


def _side(entry: UnitEntry, where: str, base_dir: Path, charged: bool):
    from mathhammer.fantasy.combat.fight import Character, make_side

    unit = _unit(entry, where, base_dir)
    command = {k: getattr(entry, k) for k in ("champion", "standard", "musician", "battle_standard")}
    characters = []
    for i, ch in enumerate(entry.characters):
        profile = _unit(ch, f"{where}.characters[{i}]", base_dir)  # same unit / profile keys
        characters.append(Character(profile, ch.general, ch.battle_standard))
    return make_side(unit, where=where, models=entry.models, rank_width=entry.rank_width,
                     charged=charged if entry.charged is None else entry.charged,
                     position=entry.position, bonus=entry.bonus, characters=characters,
                     against=None if entry.against is None else entry.against - 1,
                     target=entry.target, attack_mount=entry.attack_mount, **command)


def _sides(entries, label: str, source: str, base_dir: Path, charged: bool) -> list:
    group = entries if isinstance(entries, tuple) else (entries,)
    return [_side(e, f"{source}: {label}" + (f"[{i}]" if len(group) > 1 else ""), base_dir, charged)
            for i, e in enumerate(group)]


def parse_unit_text(text: str, where: str):
    """``UNIT+CHARACTER[:general][:bsb]+...`` from the command line (FB-K1/K4): the unit
    and its characters. A name that is an existing file is never split."""
    from mathhammer.fantasy.combat.fight import Character
    from mathhammer.fantasy.models import load_unit

    if "+" not in text:
        return text, []
    try:
        if Path(text).is_file():
            return text, []
    except OSError:  # a name too long for a path: not a file (load_unit says what is wrong)
        pass
    unit, *rest = text.split("+")
    characters = []
    for part in rest:
        ref, *flags = part.split(":")
        bad = [f for f in flags if f not in ("general", "bsb")]
        if bad or not ref:
            raise InputError(where, "a joined character is PROFILE[:general][:bsb]", part,
                             f"e.g. {unit}+wfb8/empire_captain:general")
        characters.append(Character(load_unit(ref), "general" in flags, "bsb" in flags))
    return unit, characters


def combat_from_options(unit_a: str, unit_b: str, *, rounds, charger, ruleset, models, widths,
                        flank, rear, bonuses, method, config, check, **fight) -> Report:
    """``mathhammer fb combat``: flags → sides → :func:`mathhammer.fantasy.combat.fight.combat`."""
    from mathhammer.fantasy.combat.fight import combat

    sides, rules, extra = sides_from_options(unit_a, unit_b, charger=charger, ruleset=ruleset,
                                             models=models, widths=widths, flank=flank, rear=rear,
                                             bonuses=bonuses, **fight)
    return combat(sides[0], sides[1], rounds=rounds, ruleset=rules, method=method,
                  config=config, check=check, **extra)


def sides_from_options(unit_a: str, unit_b: str, *, charger=None, ruleset=None,
                       models=(None, None), widths=(None, None), flank=None, rear=None,
                       bonuses=(0, 0), champions=(None, None), targets=(None, None),
                       attack_mount=None, challenge=None, response="accept", other=None,
                       general_ld=(None, None), bsb=None) -> tuple[list, str, dict]:
    """The two combat sides the ``fb combat`` flags describe, the ruleset name, and the
    fight-level options (challenge, general, battle standard) for ``combat``."""
    from mathhammer.fantasy.combat.fight import ChallengeSpec, make_side

    for flag, value in (("‹flank›", flank), ("‹rear›", rear), ("‹charger›", charger),
                        ("‹attack_mount›", attack_mount), ("‹bsb›", bsb)):
        if value not in (None, "a", "b"):
            raise InputError(flag, "must be a or b", value, f"use {flag} a")
    if flank is not None and flank == rear:
        raise InputError("‹rear›", "a unit cannot fight in both the flank and the rear", rear,
                         "give one of ‹flank› / ‹rear›")
    sides = []
    for i, (label, ref) in enumerate((("a", unit_a), ("b", unit_b))):
        where = f"UNIT_{label.upper()}"
        unit_ref, characters = parse_unit_text(ref, where)
        position = "flank" if flank == label else "rear" if rear == label else "front"
        command = {} if champions[i] is None else {"champion": champions[i]}
        sides.append(make_side(unit_ref, where=where, models=models[i], rank_width=widths[i],
                               charged=charger == label, position=position, bonus=bonuses[i],
                               characters=characters, target=targets[i],
                               attack_mount=attack_mount == label, **command))
    spec = None
    if challenge is not None:
        side, _, issuer = challenge.partition(":")
        spec = ChallengeSpec(side, issuer or None, response, other)
    elif other is not None or response != "accept":
        raise InputError("‹acceptor›" if other is not None else "‹response›",
                         "answers a challenge, and none was issued", other or response,
                         "add ‹challenge› a (or b)")
    extra = {"challenge": spec, "general_ld": tuple(general_ld),
             "bsb": (bsb == "a", bsb == "b")}
    return sides, default_ruleset(ruleset, sides[0].unit, sides[1].unit), extra


def run_turns(data: dict, source: str, *, method: str, config: MonteCarloConfig,
              check: bool) -> Report:
    """Whole game turns (FB-G5) from a ``kind = "turn"`` scenario file only (``fb turn``)."""
    if data.get("game") != "fantasy" or data.get("kind") != "turn":
        raise ProfileError(f"{source}: kind", 'fb turn plays game = "fantasy", kind = "turn" '
                           "scenarios", data.get("kind"), 'add kind = "turn" (or use mathhammer run)')
    report = run_scenario(data, source, method=method, config=config, check=check)
    report.command = "fantasy.turn"
    return report


#: the parameters of :func:`turn_from_options`, as errors name them
TURN_PARAMETERS = ("unit_a", "unit_b", "distance", "reaction", "turns", "models_a", "models_b",
                   "width_a", "width_b", "edge", "charge_turn", "stand_and_shoot", "fire",
                   "ruleset")


def turn_from_options(unit_a: str, unit_b: str, *, distance: float, turns: int = 3,
                      reaction: str | None = None, models: tuple = (None, None),
                      widths: tuple = (None, None), edge: float = 12.0, charge_turn: int = 1,
                      stand_and_shoot: str | None = None, fire: tuple[str, ...] = (),
                      ruleset: str | None = None, method: str = "auto",
                      config: MonteCarloConfig | None = None, check: bool = False) -> Report:
    """Whole game turns (FB-G5) without a scenario file: ``unit_a`` charges ``unit_b`` from
    ``distance`` inches, ``turns`` game turns, B reacting with ``reaction`` (default: hold,
    or stand-and-shoot when ``stand_and_shoot`` is given).

    ``stand_and_shoot`` is B's shots at the charger as ``KEY=VALUE,...`` (``shots=10,bs=3,
    strength=3``), each ``fire`` entry ``SIDE:NAME:KEY=VALUE,...`` (the keys of a scenario's
    ``[[turn.fire]]``). Units take ``UNIT+CHARACTER[:general][:bsb]``. Errors name the
    parameter (``distance``, ``models_a`` ...)."""
    from mathhammer.fantasy.combat.fight import make_side
    from mathhammer.fantasy.combat.turn import parse_fire, play_turns, validated_turn
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    for name, value, low, high in (("models_a", models[0], 1, 200), ("models_b", models[1], 1, 200),
                                   ("width_a", widths[0], 1, 40), ("width_b", widths[1], 1, 40)):
        if value is not None and not low <= value <= high:
            raise InputError(name, f"must be {low}..{high}", value, f"use e.g. {min(high, 20)}")
    if reaction is None:
        reaction = "hold" if stand_and_shoot is None else "stand-and-shoot"
    turn: dict = {"distance": distance, "turns": turns, "reaction": reaction, "edge": edge,
                  "charge_turn": charge_turn,
                  "fire": [parse_fire(text, "fire") for text in fire]}
    if stand_and_shoot is not None:
        turn["stand_and_shoot"] = parse_fire(stand_and_shoot, "stand_and_shoot", side="b")
    # an error names the parameter: "fire" for fire[1], "distance" for distance
    entry = validated_turn(turn, lambda key: (key or "distance").split("[")[0], error=InputError)
    sides = []
    for label, ref, count, width in (("unit_a", unit_a, models[0], widths[0]),
                                     ("unit_b", unit_b, models[1], widths[1])):
        unit_ref, characters = parse_unit_text(ref, label)
        sides.append(make_side(unit_ref, where=label, models=count, rank_width=width,
                               charged=label == "unit_a", characters=characters))
    rules = load_ruleset(default_ruleset(ruleset, sides[0].unit, sides[1].unit))
    report = play_turns(entry, sides[0], sides[1], rules, method=method,
                        config=config or MonteCarloConfig(n_trials_is_default=True),
                        check=check)
    report.command = "fb turn"
    return report


def run_scenario(data: dict, source: str, *, method: str, config: MonteCarloConfig,
                 check: bool, n_trials: int | None = None) -> Report:
    """Run a ``game = "fantasy"`` scenario file (see the module docstring)."""
    from mathhammer.profiles import pydantic_errors

    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as err:
        raise pydantic_errors(err, source) from None
    base_dir = Path(source).resolve().parent
    if scenario.kind == "battle":  # two army lists, every phase (FB-B1..B10)
        from mathhammer.engine import monte_carlo_only
        from mathhammer.fantasy.battle.scenario import run_battle_scenario

        monte_carlo_only("a battle", method, check=check,
                         precision=None if config is None else config.precision)
        report = run_battle_scenario(scenario.battle, source, config, scenario.title, n_trials)
        report.info["scenario"] = source
        return report
    if scenario.kind == "turn":
        from mathhammer.fantasy.combat.turn import run_turn_scenario
        from mathhammer.fantasy.rules.ruleset import load_ruleset

        if scenario.a is None or scenario.b is None or scenario.turn is None:
            missing = "a" if scenario.a is None else "b" if scenario.b is None else "turn"
            raise ProfileError(f"{source}: {missing}", "a turn scenario needs [a], [b] and "
                               "[turn]", None, "add [turn] distance = 12")
        if isinstance(scenario.a, tuple) or isinstance(scenario.b, tuple):
            raise ProfileError(f"{source}: a", "a turn scenario plays one unit a side", None,
                               "give one [a] and one [b] table")
        a = _side(scenario.a, f"{source}: a", base_dir, True)
        b = _side(scenario.b, f"{source}: b", base_dir, False)
        rules = load_ruleset(default_ruleset(scenario.ruleset, a.unit, b.unit))
        report = run_turn_scenario(scenario.turn, a, b, rules, source, title=scenario.title,
                                   method=method, config=config, check=check)
    elif scenario.kind == "combat":
        if scenario.a is None or scenario.b is None:
            raise ProfileError(f"{source}: {'a' if scenario.a is None else 'b'}",
                               "a combat needs the tables [a] and [b]", None,
                               'add [a] unit = "wfb8/empire_halberdiers"')
        from mathhammer.fantasy.combat.fight import ChallengeSpec, combat

        a = _sides(scenario.a, "a", source, base_dir, scenario.charger == "a")
        b = _sides(scenario.b, "b", source, base_dir, scenario.charger == "b")
        rules = default_ruleset(scenario.ruleset, *[s.unit for s in a + b])
        ch = scenario.challenge
        spec = None if ch is None else ChallengeSpec(ch.side, ch.issuer, ch.response, ch.other)
        report = combat(a, b, rounds=scenario.rounds, ruleset=rules, method=method,
                        config=config, check=check, challenge=spec,
                        general_ld=(scenario.general_ld_a, scenario.general_ld_b),
                        bsb=(scenario.bsb_a, scenario.bsb_b))
    else:
        if scenario.target is None or scenario.artillery is None:
            raise ProfileError(f"{source}: {'target' if scenario.target is None else 'artillery'}",
                               "an artillery scenario needs [target] and [artillery]", None,
                               'add [artillery] weapon = "stone-thrower"')
        from mathhammer.fantasy.artillery.query import artillery_from_entry

        target = _side(scenario.target, f"{source}: target", base_dir, False)
        rules = default_ruleset(scenario.ruleset, target.unit)
        report = artillery_from_entry(scenario.artillery, target.unit, rules, method=method,
                                      config=config, check=check)
    if scenario.title:
        report.title = scenario.title
    report.info["scenario"] = source
    return report
