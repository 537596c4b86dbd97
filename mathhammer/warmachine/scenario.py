"""``mathhammer run`` for ``game = "warmachine"``: the raw-attack scenario form.

::

    game = "warmachine"
    [target]
    def = 12
    arm = 18
    grid = ["--L", "--LLM", "---MM", "---CC", "--RRC", "--R"]  # or boxes = 17
                             # or profile = "cygnar/ironclad"
    [[attacks]]              # resolved in order against the target's current state
    kind = "melee"           # melee | ranged | magic
    stat = 7                 # MAT / RAT / FOCUS
    power = 18               # P+S for melee, POW otherwise
    boost_hit = false
    boost_damage = true
    count = 2                # repeat this line (default 1)

Or, instead of ``[[attacks]]``, ``[[activations]]`` with ``profile``, ``focus``,
``charge``, ``ranged``, ``aim`` resolved under the top-level ``policy`` /
``objective`` (as ``wm duel``).

Optional keys: ``target.damaged`` (starting damage, WM-G7), ``target.knocked_down``,
``target.camped_focus`` / ``target.arm_bonus`` / ``target.shield`` (WM-D2); per attack ``charge``
(pre-boosted damage, WM-D3), ``modifier`` (WM-A6 sum), ``knocks_down`` (head-butt,
slam), ``first_available`` (WM-G5), ``location`` + ``crippled`` or an
``[attacker]`` grid with starting damage (a crippled weapon system rolls one die
fewer, WM-G4). Every table rejects unknown keys.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, ProfileError
from mathhammer.profiles import pydantic_errors
from mathhammer.results import Report
from mathhammer.warmachine import rules
from mathhammer.warmachine.grid import Grid
from mathhammer.warmachine.sequence import AttackStep, Target, run_sequence

Int = int


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)


class TargetSpec(_Strict):
    profile: str | None = Field(None, description='profile id, e.g. "cygnar/ironclad", or a path')
    def_: Int | None = Field(None, alias="def", ge=1, le=30)
    arm: Int | None = Field(None, ge=0, le=40)
    grid: list[str] | None = Field(None, description="six columns, top to bottom, -LRHACM")
    boxes: Int | None = Field(None, ge=1, le=63, description="damage track (WM-G6)")
    damaged: Int | list[Int] | None = Field(None, description="starting damage (WM-G7)")
    knocked_down: bool = False
    camped_focus: Int = Field(0, ge=0, le=10, description="Mk II warcaster: +1 ARM each (WM-D2)")
    arm_bonus: Int = Field(0, ge=-10, le=10, description="spells and feats (WM-D2)")
    shield: Literal["", "L", "R", "H"] = Field(
        "", description="system holding a Shield: +2 ARM until it is crippled (WM-D2, WM-G4)")
    name: str = ""

    @model_validator(mode="after")
    def _one_damage_model(self) -> TargetSpec:
        given = [k for k in ("profile", "grid", "boxes") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of profile, grid or boxes"
                             + (f" (got {', '.join(given)})" if given else ""))
        if self.profile is None and (self.def_ is None or self.arm is None):
            raise ValueError("def and arm are required without a profile")
        return self


class AttackerSpec(_Strict):
    profile: str | None = None
    grid: list[str] | None = None
    damaged: list[Int] | None = Field(None, description="starting damage per column (WM-G7)")


class AttackSpec(_Strict):
    kind: Literal["melee", "ranged", "magic"]
    stat: Int = Field(ge=0, le=20, description="MAT / RAT / FOCUS")
    power: Int = Field(ge=0, le=40, description="P+S for melee, POW otherwise")
    boost_hit: bool = False
    boost_damage: bool = False
    count: Int = Field(1, ge=1, le=30)
    charge: bool = Field(False, description="charge attack: damage pre-boosted if it hits (WM-D3)")
    modifier: Int = Field(0, ge=-10, le=10, description="sum of WM-A6 attack modifiers")
    knocks_down: bool = Field(False, description="head-butt / slam: later melee hits automatically")
    first_available: Literal["", "L", "R", "H", "A", "C", "M"] = ""
    location: Literal["L", "R", "H", "-"] = "-"
    crippled: bool = Field(False, description="the weapon's system is crippled (WM-G4)")
    chain_weapon: bool = Field(False, description="ignores the target's shield bonus")
    label: str = ""


class ActivationEntry(_Strict):
    profile: str = Field(description='attacking profile id, e.g. "khador/juggernaut", or a path')
    focus: Int | None = Field(None, ge=0, le=12, description="default: 3 for a warjack, FOCUS")
    charge: bool = False
    ranged: bool = False
    aim: bool = False
    power_attacks: bool = True
    damaged: list[Int] | None = Field(None, description="the attacker's own starting damage")
    buy: Int | None = Field(None, ge=0, le=20, description="at most this many bought attacks")


class WarmachineScenario(_Strict):
    schema_version: Literal[1] = 1
    game: Literal["warmachine"]
    name: str = ""
    title: str = ""
    target: TargetSpec
    attacker: AttackerSpec | None = None
    attacks: list[AttackSpec] = Field(default_factory=list)
    activations: list[ActivationEntry] = Field(default_factory=list)
    policy: Literal["fixed", "greedy", "optimal"] = "optimal"
    objective: Literal["destroy", "damage"] = "destroy"
    boost_hit: bool = False
    boost_damage: bool = False

    @model_validator(mode="after")
    def _one_form(self) -> WarmachineScenario:
        if bool(self.attacks) == bool(self.activations):
            raise ValueError("give either [[attacks]] (fixed rolls) or [[activations]] "
                             "(profiles with focus and a policy), not both or neither")
        return self


def load_scenario(data: dict, source: str) -> WarmachineScenario:
    try:
        return WarmachineScenario.model_validate(data)
    except ValidationError as err:
        raise pydantic_errors(err, source) from None


def build_target(spec: TargetSpec, source: str) -> Target:
    """Target from a scenario table (profile, grid or track; WM-G7 starting damage)."""
    name = spec.name
    shield_mask = 0
    if spec.profile is not None:
        from mathhammer.warmachine.models import load_warmachine

        prof = load_warmachine(spec.profile)
        grid = (Grid.from_columns(prof.grid_columns, f"{spec.profile}: grid") if prof.grid
                else Grid.track(int(prof.boxes), f"{spec.profile}: boxes"))
        defense = spec.def_ if spec.def_ is not None else prof.stats.defense
        armor = spec.arm if spec.arm is not None else prof.stats.arm
        name = name or prof.name
        if not spec.shield:
            from mathhammer.warmachine.duel import shield_mask_of

            shield_mask = shield_mask_of(prof, grid)
    elif spec.grid is not None:
        grid = Grid.from_columns(spec.grid, f"{source}: target.grid")
        defense, armor = spec.def_, spec.arm
    else:
        grid = Grid.track(spec.boxes, f"{source}: target.boxes")
        defense, armor = spec.def_, spec.arm
    start = grid.start_bits(spec.damaged, f"{source}: target.damaged")
    if grid.destroyed(start):
        raise InputError(f"{source}: target.damaged", "marks every box: the target is already "
                         "destroyed", spec.damaged, "leave at least one box unmarked")
    if spec.shield:
        if spec.shield not in grid.system_masks:
            raise InputError(f"{source}: target.shield", "names a system the target's grid does "
                             "not have", spec.shield,
                             f"use one of {', '.join(grid.systems) or '(none: a track)'}")
        shield_mask = grid.system_masks[spec.shield]
    armor = rules.effective_armor(armor, camped_focus=spec.camped_focus, spell_bonus=spec.arm_bonus)
    return Target(int(defense), int(armor), grid, start, spec.knocked_down, name or "target",
                  shield_mask)


def _attacker_crippled(spec: AttackerSpec | None, source: str) -> set[str]:
    """Systems of the attacker crippled by its starting damage (WM-G4)."""
    if spec is None:
        return set()
    if (spec.profile is None) == (spec.grid is None):
        raise ProfileError(f"{source}: attacker", "give exactly one of profile or grid", None,
                           'use grid = [...] or profile = "khador/juggernaut"')
    if spec.profile is not None:
        from mathhammer.warmachine.models import load_warmachine

        columns = load_warmachine(spec.profile).grid_columns
        if not columns:
            raise ProfileError(f"{source}: attacker.profile", "has no damage grid", spec.profile)
    else:
        columns = spec.grid
    grid = Grid.from_columns(columns, f"{source}: attacker.grid")
    bits = grid.start_bits(spec.damaged, f"{source}: attacker.damaged")
    return {s for s in grid.systems if grid.crippled(bits, s)}


def build_steps(scenario: WarmachineScenario, source: str, target: Target) -> list[AttackStep]:
    crippled = _attacker_crippled(scenario.attacker, source)
    steps = []
    for i, a in enumerate(scenario.attacks):
        where = f"{source}: attacks[{i}]"
        if a.charge and a.kind != "melee":
            raise InputError(f"{where}.charge", "only melee attacks are charge attacks (WM-D3)",
                             a.kind, "drop charge or use kind = \"melee\"")
        if a.charge and a.boost_damage:
            raise InputError(f"{where}.boost_damage", "a charge attack's damage is already "
                             "boosted and cannot be boosted again (WM-D3)", True,
                             "drop boost_damage")
        if a.first_available and a.first_available not in target.grid.systems:
            raise InputError(f"{where}.first_available", "names a system the target's grid "
                             "does not have", a.first_available,
                             f"use one of {', '.join(target.grid.systems) or '(none: a track)'}")
        weapon_crippled = a.crippled or a.location in crippled
        step = AttackStep(a.kind, a.stat, a.power, a.boost_hit, a.boost_damage, a.charge,
                          a.modifier, weapon_crippled, a.knocks_down,
                          first_available=a.first_available, ignores_shield=a.chain_weapon,
                          label=a.label or f"attack {i + 1}")
        for _ in range(a.count):
            # a charge attack is only the first attack after the charge (WM-D3)
            steps.append(step)
            step = AttackStep(**{**step.__dict__, "pre_boosted": False}) if a.charge else step
    return steps


def run_scenario(data: dict, source: str, *, method: str = "auto",
                 config: MonteCarloConfig | None = None, check: bool = False) -> Report:
    """Entry point of ``mathhammer run`` (see :mod:`mathhammer.cli.run`)."""
    scenario = load_scenario(data, source)
    target = build_target(scenario.target, source)
    if scenario.activations:
        return _run_activations(scenario, source, target, method, config, check)
    steps = build_steps(scenario, source, target)
    title = scenario.title or scenario.name or f"{len(steps)} attacks against {target.name}"
    report = run_sequence(steps, target, method=method, config=config, check=check,
                          command="run", title=title)
    report.info.setdefault("target", f"DEF {target.defense}, ARM {target.armor}, "
                           f"{target.grid.n_boxes} boxes")
    return report


def _run_activations(scenario: WarmachineScenario, source: str, target: Target, method: str,
                     config: MonteCarloConfig | None, check: bool) -> Report:
    """The activation form: profiles with focus, resolved by a focus policy (WM-S1, WM-F5)."""
    from mathhammer.warmachine.duel import activation_from_profile, duel_chain

    base = None
    if scenario.target.profile is not None:
        from mathhammer.warmachine.models import load_warmachine

        base = load_warmachine(scenario.target.profile).base
    specs = [activation_from_profile(a.profile, a.focus, a.charge, a.power_attacks,
                                     f"{source}: activations[{i}].focus", a.ranged, a.aim, base,
                                     a.damaged, f"{source}: activations[{i}].damaged", a.buy)
             for i, a in enumerate(scenario.activations)]
    title = scenario.title or scenario.name or (
        " then ".join(s.name for s in specs) + f" vs {target.name}, policy {scenario.policy}")
    report = duel_chain(specs, target, policy=scenario.policy, objective=scenario.objective,
                        boost_hit=scenario.boost_hit, boost_damage=scenario.boost_damage,
                        method=method, config=config, check=check, title=title)
    report.command = "run"
    return report
