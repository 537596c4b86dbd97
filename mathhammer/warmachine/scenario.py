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

from dataclasses import replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, ProfileError
from mathhammer.profiles import pydantic_errors
from mathhammer.results import Report
from mathhammer.warmachine import rules
from mathhammer.warmachine.grid import Grid
from mathhammer.warmachine.limits import LIMITS
from mathhammer.warmachine.sequence import AttackStep, Target, run_sequence
from mathhammer.words import plural

Int = int


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)


MAX_STEPS = 200  # attacks in one [[attacks]] scenario (counts added up)


def _lim(name: str) -> dict:
    """pydantic bounds from the shared table (the CLI checks the same numbers)."""
    lo, hi, _ = LIMITS[name]
    return {"ge": lo, "le": hi}


class TargetSpec(_Strict):
    profile: str | None = Field(None, description='profile id, e.g. "cygnar/ironclad", or a path')
    def_: Int | None = Field(None, alias="def", **_lim("defense"))
    arm: Int | None = Field(None, **_lim("armor"))
    grid: list[str] | None = Field(None, description="six columns, top to bottom, -LRHACM")
    boxes: Int | None = Field(None, **_lim("boxes"), description="damage track (WM-G6)")
    damaged: Int | list[Int] | None = Field(None, description="starting damage (WM-G7)")
    knocked_down: bool = False
    stationary: bool = Field(False, description="as knocked down for attacks (WM-A4, WM-A7)")
    camped_focus: Int = Field(0, **_lim("camped_focus"),
                              description="Mk II warcaster: +1 ARM each (WM-D2)")
    arm_bonus: Int = Field(0, **_lim("arm_bonus"), description="spells and feats (WM-D2)")
    def_bonus: Int = Field(0, **_lim("def_bonus"), description="spells and effects (WM-A7)")
    cover: bool = False
    concealment: bool = False
    elevated: bool = False
    stealth: bool = Field(False, description="ranged/magic from more than 5\" miss (WM-A8)")
    target_in_melee: bool = Field(False, description="engaged by another model: −4 to ranged and "
                                  "magic attacks (WM-A6)")
    effects: list[str] = Field(default_factory=list, max_length=8,
                               description='friendly buffs from its faction: "Arcane Shield" (WM-E4)')
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
    """One ``[[attacks]]`` line: the keys ``wm attack`` has as flags mean the same here and
    are checked by the same code (:meth:`chain.AttackSetup.validate`)."""

    kind: Literal["melee", "ranged", "magic"]
    stat: Int = Field(**_lim("stat"), description="MAT / RAT / FOCUS")
    power: Int = Field(**_lim("power"), description="P+S for melee, POW otherwise")
    boost_hit: bool = False
    boost_damage: bool = False
    count: Int = Field(1, **_lim("attacks"))
    charge: bool = Field(False, description="charge attack: damage pre-boosted if it hits (WM-D3)")
    powerful_charge: bool = Field(False, description="+2 to the charge attack roll (WM-A6)")
    free_strike: bool = Field(False, description="+2 to hit, damage pre-boosted (WM-A6, WM-D3)")
    modifier: Int = Field(0, **_lim("modifier"), description="other WM-A6 attack modifiers")
    aim: bool = False
    back_strike: bool = False
    target_in_melee: bool = False
    slam_larger_base: bool = False
    extra_hit_dice: Int = Field(0, **_lim("extra_dice"))
    extra_damage_dice: Int = Field(0, **_lim("extra_dice"))
    weapon_master: bool = False
    distance: float | None = Field(None, description="inches to the target (WM-A8)")
    rng: float | None = Field(None, description="the weapon's RNG (WM-A8)")
    knocks_down: bool = Field(False, description="head-butt / slam: later melee hits automatically")
    first_available: Literal["", "L", "R", "H", "A", "C", "M"] = ""
    location: Literal["L", "R", "H", "-"] = "-"
    crippled: bool = Field(False, description="the weapon's system is crippled (WM-G4)")
    chain_weapon: bool = Field(False, description="ignores the target's shield bonus")
    label: str = ""


#: scenario key -> the AttackSetup field it shares with a ``wm attack`` flag (issue 17)
SHARED_ATTACK_KEYS = {
    "kind": "kind", "stat": "stat", "power": "power", "boost_hit": "boost_hit",
    "boost_damage": "boost_damage", "count": "attacks", "charge": "charge",
    "powerful_charge": "powerful_charge", "free_strike": "free_strike", "modifier": "modifier",
    "aim": "aim", "back_strike": "back_strike", "target_in_melee": "target_in_melee",
    "slam_larger_base": "slam_larger_base", "extra_hit_dice": "extra_hit_dice",
    "extra_damage_dice": "extra_damage_dice", "weapon_master": "weapon_master",
    "distance": "distance", "rng": "rng", "crippled": "crippled",
}
SHARED_TARGET_KEYS = {
    "def": "defense", "arm": "armor", "boxes": "boxes", "knocked_down": "knocked_down",
    "stationary": "stationary", "camped_focus": "camped_focus", "arm_bonus": "arm_bonus",
    "def_bonus": "def_bonus", "cover": "cover", "concealment": "concealment",
    "elevated": "elevated", "stealth": "stealth",
}


class ActivationEntry(_Strict):
    profile: str = Field(description='attacking profile id, e.g. "khador/juggernaut", or a path')
    focus: Int | None = Field(None, ge=0, le=12, description="default: 3 for a warjack, FOCUS")
    charge: bool | Literal["must", "may"] = Field(
        False, description='"must" (or true): it charges; "may": the policy decides; false: no')
    ranged: bool = False
    distance: float | None = Field(None, ge=0, le=1000,
                                   description="inches to the target, ranged activations (WM-A8)")
    upkeep: Int = Field(0, ge=0, le=10, description="a warcaster's upkept spells, 1 focus each")
    shake_knockdown: bool = Field(False, description="a warcaster pays 1 focus to shake it")
    aim: bool = False
    power_attacks: bool = True
    damaged: list[Int] | None = Field(None, description="the attacker's own starting damage")
    buy: Int | None = Field(None, ge=0, le=20, description="at most this many bought attacks")


class PlanEntry(_Strict):
    """``[plan]``: search the battlegroup's best plan against the target (WM-P1)."""

    attackers: list[str] = Field(default_factory=list, max_length=8,
                                 description="a warcaster and its warjacks (profile ids or paths)")
    list_file: str | None = Field(None, alias="list",
                                  description="or a Warmachine list file: its warcaster and warjacks")
    top: Int = Field(3, ge=1, le=20, description="runner-up plans listed")
    upkeep: Int = Field(0, ge=0, le=10, description="upkept spells, 1 focus each (WM-F1)")
    distance: float | None = Field(None, ge=0, le=1000, description="inches, ranged activations")


class WarmachineScenario(_Strict):
    schema_version: Literal[1] = 1
    game: Literal["warmachine"]
    name: str = ""
    title: str = ""
    target: TargetSpec
    attacker: AttackerSpec | None = None
    attacks: list[AttackSpec] = Field(default_factory=list, max_length=50)
    activations: list[ActivationEntry] = Field(default_factory=list, max_length=60)
    plan: PlanEntry | None = None
    policy: Literal["fixed", "greedy", "optimal"] = "optimal"
    objective: Literal["destroy", "damage"] = "destroy"
    boost_hit: bool = False
    boost_damage: bool = False

    @model_validator(mode="after")
    def _one_form(self) -> WarmachineScenario:
        forms = [bool(self.attacks), bool(self.activations), self.plan is not None]
        if sum(forms) != 1:
            raise ValueError("give one of [[attacks]] (fixed rolls), [[activations]] (profiles "
                             "with focus and a policy) or [plan] (search the best plan)")
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
    e_def = e_rdef = e_arm = 0
    if spec.effects:
        if spec.profile is None:
            raise InputError(f"{source}: target.effects", "needs a target profile: effects are "
                             "looked up in its faction (WM-E4)", spec.effects,
                             "add profile = or use arm_bonus / def_bonus")
        from mathhammer.warmachine.effects import target_buffs

        e_def, e_rdef, e_arm, chosen = target_buffs(spec.effects, prof, f"{source}: target.effects")
        name = (name or prof.name) + "".join(f" + {e.name}" for e in chosen)
    armor = rules.effective_armor(armor, camped_focus=spec.camped_focus,
                                  spell_bonus=spec.arm_bonus + e_arm)
    ranged = (4 if spec.cover else 2 if spec.concealment else 0) + (2 if spec.elevated else 0)
    ranged += e_rdef
    immunities, base = (), "medium"
    if spec.profile is not None:
        immunities = tuple(r.split(":", 1)[1].strip() for r in prof.special_rules
                           if r.lower().startswith("immunity:"))
        base = prof.base
    return Target(int(defense), int(armor), grid, start, spec.knocked_down or spec.stationary,
                  name or "target", shield_mask, def_bonus=spec.def_bonus + e_def,
                  ranged_def_bonus=ranged, stealth=spec.stealth, immunities=immunities,
                  base=base, engaged=spec.target_in_melee)


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


def _setup_of(a: AttackSpec, scenario: WarmachineScenario, target: Target):
    """The ``wm attack`` description of one line, for the shared validation (issue 17)."""
    from mathhammer.warmachine.attack_setup import AttackSetup

    t = scenario.target
    return AttackSetup(
        stat=a.stat, defense=t.def_ if t.def_ is not None else target.defense,
        power=a.power, armor=t.arm if t.arm is not None else target.armor, kind=a.kind,
        boost_hit=a.boost_hit, boost_damage=a.boost_damage, attacks=a.count, modifier=a.modifier,
        crippled=a.crippled, charge=a.charge, powerful_charge=a.powerful_charge,
        free_strike=a.free_strike, knocked_down=t.knocked_down, stationary=t.stationary,
        back_strike=a.back_strike, aim=a.aim, target_in_melee=a.target_in_melee,
        slam_larger_base=a.slam_larger_base, cover=t.cover, concealment=t.concealment,
        elevated=t.elevated, def_bonus=t.def_bonus, camped_focus=t.camped_focus,
        arm_bonus=t.arm_bonus, extra_hit_dice=a.extra_hit_dice,
        extra_damage_dice=a.extra_damage_dice, weapon_master=a.weapon_master,
        boxes=t.boxes, stealth=t.stealth, distance=a.distance, rng=a.rng)


def setup_names(source: str, i: int) -> dict[str, str]:
    """How a scenario spells each AttackSetup field, for error messages."""
    names = {field: f"{source}: attacks[{i}].{key}" for key, field in SHARED_ATTACK_KEYS.items()}
    names.update({field: f"{source}: target.{key}" for key, field in SHARED_TARGET_KEYS.items()})
    names["stealth"] = f"{source}: target.stealth"
    return names


def build_steps(scenario: WarmachineScenario, source: str, target: Target) -> list[AttackStep]:
    crippled = _attacker_crippled(scenario.attacker, source)
    total = sum(a.count for a in scenario.attacks)
    if total > MAX_STEPS:
        raise InputError(f"{source}: attacks", f"the lines add up to {total} attacks; at most "
                         f"{MAX_STEPS} in one scenario", total, "use fewer or smaller counts")
    steps = []
    for i, a in enumerate(scenario.attacks):
        where = f"{source}: attacks[{i}]"
        setup = _setup_of(a, scenario, target).validate(setup_names(source, i))
        if a.first_available and a.first_available not in target.grid.systems:
            raise InputError(f"{where}.first_available", "names a system the target's grid "
                             "does not have", a.first_available,
                             f"use one of {', '.join(target.grid.systems) or '(none: a track)'}")
        engaged = a.target_in_melee or (scenario.target.target_in_melee and a.kind != "melee")
        modifier = a.modifier + rules.attack_modifier(
            a.kind, aiming=a.aim, back_strike=a.back_strike, free_strike=a.free_strike,
            target_in_melee=engaged, slam_larger_base=a.slam_larger_base)
        weapon_crippled = a.crippled or a.location in crippled
        step = AttackStep(a.kind, a.stat, a.power, a.boost_hit, a.boost_damage,
                          a.charge or a.free_strike, modifier, weapon_crippled, a.knocks_down,
                          first_available=a.first_available,
                          ignores_shield=a.chain_weapon or a.back_strike,
                          label=a.label or f"attack {i + 1}", extra_hit_dice=a.extra_hit_dice,
                          extra_damage_dice=a.extra_damage_dice + int(a.weapon_master),
                          auto_miss=setup.auto_miss)
        if a.charge and a.powerful_charge:
            step = replace(step, modifier=step.modifier + 2)
        for _ in range(a.count):
            # a charge attack is only the first attack after the charge (WM-D3)
            steps.append(step)
            if a.charge:
                step = replace(step, pre_boosted=False,
                               modifier=step.modifier - 2 * int(a.powerful_charge),
                               boost_damage=a.boost_damage)
    return steps


def run_scenario(data: dict, source: str, *, method: str = "auto",
                 config: MonteCarloConfig | None = None, check: bool = False) -> Report:
    """Entry point of ``mathhammer run`` (see :mod:`mathhammer.cli.run`)."""
    scenario = load_scenario(data, source)
    target = build_target(scenario.target, source)
    if scenario.activations:
        return _run_activations(scenario, source, target, method, config, check)
    if scenario.plan is not None:
        return _run_plan(scenario, source, target, method, config, check)
    steps = build_steps(scenario, source, target)
    title = scenario.title or scenario.name or f"{plural(len(steps), 'attack')} against {target.name}"
    report = run_sequence(steps, target, method=method, config=config, check=check,
                          command="warmachine.scenario", title=title)
    report.info.setdefault("target", f"DEF {target.defense}, ARM {target.armor}, "
                           f"{plural(target.grid.n_boxes, 'box')}")
    return report


def _run_activations(scenario: WarmachineScenario, source: str, target: Target, method: str,
                     config: MonteCarloConfig | None, check: bool) -> Report:
    """The activation form: profiles with focus, resolved by a focus policy (WM-S1, WM-F5)."""
    from mathhammer.warmachine.duel import activation_from_profile, check_focus_budget, duel_chain

    base = None
    if scenario.target.profile is not None:
        from mathhammer.warmachine.models import load_warmachine

        base = load_warmachine(scenario.target.profile).base
    specs = [activation_from_profile(a.profile, a.focus, a.charge, a.power_attacks,
                                     f"{source}: activations[{i}].focus", a.ranged, a.aim, base,
                                     a.damaged, f"{source}: activations[{i}].damaged", a.buy,
                                     distance=a.distance, upkeep=a.upkeep,
                                     shake=a.shake_knockdown)
             for i, a in enumerate(scenario.activations)]
    check_focus_budget([a.profile for a in scenario.activations], specs,
                       [f"{source}: activations[{i}].focus"
                        for i in range(len(scenario.activations))],
                       max((a.upkeep for a in scenario.activations), default=0),
                       any(a.shake_knockdown for a in scenario.activations))
    title = scenario.title or scenario.name or (
        " then ".join(s.name for s in specs) + f" vs {target.name}, policy {scenario.policy}")
    report = duel_chain(specs, target, policy=scenario.policy, objective=scenario.objective,
                        boost_hit=scenario.boost_hit, boost_damage=scenario.boost_damage,
                        method=method, config=config, check=check, title=title)
    report.command = "warmachine.scenario"
    return report


def _run_plan(scenario: WarmachineScenario, source: str, target: Target, method: str,
              config: MonteCarloConfig | None, check: bool) -> Report:
    """The plan form: the best plan of a battlegroup against the target (WM-P1)."""
    from mathhammer.warmachine.plan import battlegroup_of_list, plan_turn

    entry = scenario.plan
    where = f"{source}: plan"
    if bool(entry.attackers) == (entry.list_file is not None):
        raise InputError(where, "give either attackers = [...] or list = \"...\"",
                         entry.attackers or entry.list_file, 'use attackers = ["khador/sorscha", '
                         '"khador/juggernaut"]')
    if scenario.policy != "optimal":
        raise InputError(f"{source}: policy", "a plan plays the optimal policy (WM-P1)",
                         scenario.policy, 'drop policy = or use "optimal"')
    refs = (battlegroup_of_list(entry.list_file, f"{where}.list") if entry.list_file is not None
            else entry.attackers)
    report = plan_turn(refs, target, objective=scenario.objective, top=entry.top,
                       upkeep=entry.upkeep, distance=entry.distance, method=method,
                       config=config, check=check, where=f"{where}.attackers",
                       title=scenario.title or scenario.name)
    report.command = "warmachine.scenario"
    return report
