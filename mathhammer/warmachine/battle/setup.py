"""The two sides of a battle, read from Warmachine list files (WM-B1, WM-F1).

A side is one battlegroup: exactly one warcaster, the warjacks of its faction (copies
counted), and any solos (they fight, but take no focus). Everything the turn sequence reads
about a model that never changes during a battle is a :class:`ModelSpec`; what changes
(position, damage, focus, knock-down) is in :mod:`mathhammer.warmachine.battle.state`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mathhammer.errors import InputError, RulesError
from mathhammer.warmachine.grid import Grid

MM_PER_INCH = 25.4
BASE_RADIUS = {size: mm / MM_PER_INCH / 2 for size, mm in
               (("small", 30), ("medium", 40), ("large", 50))}  # WM-D7, inches
MAX_MODELS_A_SIDE = 8  # a battle box has four; beyond eight is a typo or a tournament list


def _reach(value) -> float:
    """A weapon's or spell's RNG in inches (a spray "SP8" reaches 8"; SELF/CTRL nothing)."""
    if isinstance(value, str):
        return float(value[2:]) if value.startswith("SP") else 0.0
    return float(value or 0.0)


@dataclass(frozen=True)
class ModelSpec:
    """What a model is for the whole battle: profile, grid or track, base, reaches."""

    index: int  # position in the battle's model list (side A first)
    side: int  # 0 = A, 1 = B
    label: str  # unique on its side: "Juggernaut", "Juggernaut 2"
    ref: str  # profile id or path (what activation_from_profile loads)
    prof: object
    grid: Grid
    radius: float
    shield_mask: int
    melee_reach: float  # the longest melee weapon RNG (0.5" or 2" Reach), 0 without one
    ranged_reach: float  # the longest ranged weapon RNG, 0 without one
    spell_reach: float  # the longest offensive spell that deals damage or knocks down
    points: int
    spell_cost: int = 0  # the cheapest such spell (a warcaster casts only with that focus)
    # read from the profile once (the turn loop asks them thousands of times a second)
    is_caster: bool = False
    is_warjack: bool = False
    spd: int = 0
    focus_stat: int = 0

    @property
    def name(self) -> str:
        return self.label

    @property
    def attack_reach(self) -> float:
        """The farthest this model attacks from where it stands (weapons and spells)."""
        return max(self.melee_reach, self.ranged_reach, self.spell_reach)


@dataclass(frozen=True)
class Side:
    name: str
    source: str
    caster: int  # model index of the warcaster
    members: tuple[int, ...]  # model indices, warcaster first
    list_script: dict = field(default_factory=dict)  # model index -> the list's focus/charge/mode


def _model_spec(index: int, side: int, label: str, ref: str, prof) -> ModelSpec:
    from mathhammer.warmachine.duel import shield_mask_of

    grid = (Grid.from_columns(prof.grid_columns, f"{ref}: grid") if prof.grid
            else Grid.track(int(prof.boxes), f"{ref}: boxes"))
    melee = [_reach(w.rng) for w in prof.weapons if w.kind == "melee" and w.damage_power is not None]
    ranged = [_reach(w.rng) for w in prof.weapons
              if w.kind == "ranged" and w.damage_power is not None]
    castable = [s for s in prof.spells if s.offensive and (
        s.pow is not None or any(e.name == s.name and e.on == "enemy" for e in prof.effects))]
    spells = [_reach(s.rng) for s in castable]
    return ModelSpec(index, side, label, ref, prof, grid, BASE_RADIUS[prof.base],
                     shield_mask_of(prof, grid), max(melee, default=0.0),
                     max(ranged, default=0.0), max(spells, default=0.0) if prof.kind == "warcaster"
                     else 0.0, int(prof.points), min((max(s.cost, 1) for s in castable), default=0),
                     prof.kind == "warcaster", prof.kind == "warjack", int(prof.stats.spd),
                     int(prof.stats.focus or 0))


def _load_side(ref, where: str):
    from mathhammer.lists import ArmyList, load_list

    army = ref if isinstance(ref, ArmyList) else load_list(ref)  # score/tune pass loaded lists
    return warmachine_list(army, where, ref)


def warmachine_list(army, where: str, ref):
    """``army``, refused in one line when it is a list of the other game."""
    from mathhammer.lists import of_game

    return of_game(army, "warmachine", where, str(ref), "a Warmachine battle needs a warmachine "
                   "list (warcaster + warjacks)", "give a Warmachine list, e.g. khador_battlebox")


def build_sides(list_a, list_b) -> tuple[list[ModelSpec], tuple[Side, Side]]:
    """Both sides' models (side A first) from two list files or bundled list names."""
    models: list[ModelSpec] = []
    sides = []
    for s, (ref, where) in enumerate(((list_a, "LIST_A"), (list_b, "LIST_B"))):
        army = _load_side(ref, where)
        casters = [u for u in army.units if u.kind == "warcaster"]
        n_casters = sum(u.count for u in casters)
        if n_casters != 1:
            raise RulesError(where, f"a battle side is one battlegroup: exactly one warcaster "
                             f"(the list has {n_casters})", str(ref),
                             "keep one warcaster in the list")
        caster = casters[0]
        faction = caster.profile.faction
        entries = [caster] + [u for u in army.units if u is not caster]
        start = len(models)
        script = {}
        for unit in entries:
            if unit.kind == "warjack" and unit.profile.faction != faction:
                raise RulesError(f"{where}: {unit.label}", f"a {unit.profile.faction} warjack "
                                 f"cannot join {caster.label}'s battlegroup ({faction})",
                                 unit.profile_id, "use warjacks of the warcaster's faction")
            for k in range(unit.count):
                label = unit.label if unit.count == 1 else f"{unit.label} {k + 1}"
                ref_id = unit.options.get("ref") or unit.profile_id
                spec = _model_spec(len(models), s, label, ref_id, unit.profile)
                if not (spec.melee_reach or spec.ranged_reach or spec.spell_reach):
                    raise RulesError(f"{where}: {unit.label}", "has no weapon or spell that deals "
                                     "damage: it cannot fight a battle", unit.profile_id,
                                     "leave it out of the list")
                script[spec.index] = dict(unit.options)
                models.append(spec)
        if len(models) - start > MAX_MODELS_A_SIDE:
            raise InputError(where, f"at most {MAX_MODELS_A_SIDE} models a side",
                             len(models) - start, "battle a smaller list")
        sides.append(Side(army.name, army.source, start, tuple(range(start, len(models))),
                          script))
    return models, (sides[0], sides[1])
