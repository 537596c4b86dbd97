"""A battle ready to play: both armies, the ruleset, the deployment, the policies and the
exact tables the phases sample (compiled once, shared by every battle of a run).

Tables are built on first use and kept: each combat arrangement's kernel arrays
(:mod:`mathhammer.fantasy.battle.fights`), each shooter–target–modifier wound table
(:mod:`mathhammer.fantasy.battle.phases`), the charge and flee dice. The plan never
changes during a battle; :class:`~mathhammer.fantasy.battle.state.BattleState` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mathhammer.dice import parse_dice
from mathhammer.errors import InputError

MAX_TURNS = 12


@dataclass
class BattlePlan:
    units: tuple  # BattleUnit, A's then B's
    rules: object  # Ruleset
    deployment: object  # Deployment
    turns: int
    first: str  # "a", "b" or "roll-off"
    names: tuple[str, str]
    points_limits: tuple[int, int]
    policies: list = field(default_factory=list)  # one per side
    fight_cache: dict = field(default_factory=dict)
    shot_cache: dict = field(default_factory=dict)
    value_cache: dict = field(default_factory=dict)
    not_played: tuple[str, ...] = ()
    engine: str = "kernel"  # or "python": the reference engine of phases.py
    kernel: object = None  # compile.KernelBattle, built on first use

    def __post_init__(self) -> None:
        if isinstance(self.turns, bool) or not isinstance(self.turns, int) \
                or not 1 <= self.turns <= MAX_TURNS:
            got = repr(self.turns) if isinstance(self.turns, str) else self.turns  # '2': text
            raise InputError("‹turns›", f"must be a whole number of game turns from 1 to "
                             f"{MAX_TURNS}", got, "use e.g. ‹turns› 6")
        if self.first not in ("a", "b", "roll-off"):
            raise InputError("‹first›", "must be a, b or roll-off", self.first,
                             "use ‹first› roll-off")
        self.sides = tuple(tuple(u.index for u in self.units if u.side == s) for s in (0, 1))
        self.charge_pmf = [_pmf(_charge_text(u, self.rules), u.movement
                                * self.rules.combat.charge_movement_multiplier)
                           for u in self.units]
        self.flee_pmf = [_pmf(u.flee_dice, 0) for u in self.units]
        self.charge_table = [_charge_table(u, self.rules) for u in self.units]
        self.no_charge = [u.war_machine is not None or u.movement <= 0 for u in self.units]
        self.count_bodies = [tuple(i for i, b in enumerate(u.bodies)
                                   if b[1] in ("rank and file", "champion")) for u in self.units]
        self.generals = [next((u.index for u in self.units if u.side == s and u.general), None)
                         for s in (0, 1)]
        self.bsbs = [next((u.index for u in self.units if u.side == s and u.battle_standard),
                          None) for s in (0, 1)]

    # ---- models --------------------------------------------------------------------------------
    def models_alive(self, u: int, wounds: list[int]) -> int:
        """Rank-and-file and champion models left (FB-V4): ranks, frontage, shots."""
        bodies = self.units[u].bodies
        total = 0
        for i in self.count_bodies[u]:
            _name, _role, models, w = bodies[i]
            total += max(0, models - wounds[i] // w)
        return total

    def unit_alive(self, u: int, wounds: list[int]) -> bool:
        return any(wounds[i] < models * w for i, (_n, _r, models, w) in enumerate(self.units[u].bodies))

    def body_alive(self, u: int, body: int, wounds: list[int]) -> bool:
        _n, _r, models, w = self.units[u].bodies[body]
        return wounds[body] < models * w

    def leader_body(self, u: int, flag: str) -> int:
        """The body of the general or battle standard bearer in unit u (0 for a lone one)."""
        unit = self.units[u]
        for ch in unit.combat_side.characters:
            if getattr(ch, flag):
                names = [b[0] for b in unit.bodies]
                return names.index(ch.profile.name)
        return 0

    def leader_alive(self, state, u: int | None, flag: str) -> bool:
        if u is None or state.status[u] not in (0,):  # HOLD only: a fleeing leader lends nothing
            return False
        return self.body_alive(u, self.leader_body(u, flag), state.wounds[u])

    # ---- FB-K4 / FB-B8: the general's Leadership and the battle standard outside a combat ------
    def with_leaders(self, state, ft) -> np.ndarray:
        from mathhammer.fantasy.kernels import combat as k

        u_int = ft.args[0]
        combat = self.rules.combat
        br = self.rules.battle
        changed = None
        for i, u in enumerate(ft.order):
            side = self.units[u].side
            g, s = self.generals[side], self.bsbs[side]
            if combat.general_range and g is not None and g not in ft.order \
                    and self.leader_alive(state, g, "general") \
                    and self._within(state, g, u, br.general_range):
                changed = u_int.copy() if changed is None else changed
                changed[i, k.U_GENERAL_LD] = self.units[g].ld
            if combat.battle_standard_reroll and s is not None and s not in ft.order \
                    and self.leader_alive(state, s, "battle_standard") \
                    and self._within(state, s, u, br.battle_standard_range):
                changed = u_int.copy() if changed is None else changed
                changed[i, k.U_REROLL] = 1
        return u_int if changed is None else changed

    def _within(self, state, a: int, b: int, reach: float) -> bool:
        from mathhammer.fantasy.battle.state import centre_distance

        return centre_distance(state, self, a, b) <= reach

    def test_ld(self, state, u: int) -> tuple[int, bool]:
        """(Leadership, re-roll) for a rally or panic test: the unit's best, or the general's
        within range (FB-K4, FB-B8); a battle standard within range re-rolls."""
        side = self.units[u].side
        ld = self.units[u].ld
        br = self.rules.battle
        g, s = self.generals[side], self.bsbs[side]
        if g is not None and g != u and self.rules.combat.general_range \
                and self.leader_alive(state, g, "general") and self._within(state, g, u,
                                                                             br.general_range):
            ld = max(ld, self.units[g].ld)
        reroll = bool(s is not None and self.rules.combat.battle_standard_reroll
                      and self.leader_alive(state, s, "battle_standard")
                      and (s == u or self._within(state, s, u, br.battle_standard_range)))
        return ld, reroll


def _charge_table(unit, rules) -> tuple[tuple[tuple[int, float], ...], tuple[float, ...]]:
    """FB-G1/G3: every (charge range, failed move) with its cumulative probability."""
    from mathhammer.fantasy.charge import charge_rolls

    joint: dict[tuple[int, float], float] = {}
    for p, reach, move in charge_rolls(unit.movement, rules, unit.profile.has("Swiftstride")):
        joint[(reach, move)] = joint.get((reach, move), 0.0) + p
    rolls = tuple(sorted(joint))
    cum, acc = [], 0.0
    for key in rolls:
        acc += joint[key]
        cum.append(acc)
    cum[-1] = 1.0
    return rolls, tuple(cum)


def _charge_text(unit, rules) -> str:
    from mathhammer.fantasy.charge import charge_dice

    return charge_dice(rules, unit.profile.has("Swiftstride"))


def _pmf(text: str, base: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """(values, cumulative probabilities) of ``base`` + dice text, for sampling."""
    if text.strip() == "0":
        return (base,), (1.0,)
    pmf = parse_dice(text).pmf()
    values = tuple(base + k for k in sorted(pmf))
    cum, acc = [], 0.0
    for k in sorted(pmf):
        acc += float(pmf[k])
        cum.append(acc)
    cum[-1] = 1.0
    return values, tuple(cum)


def draw(pmf, rng) -> int:
    values, cum = pmf
    r = rng.random()
    for v, c in zip(values, cum):
        if r < c:
            return v
    return values[-1]


def p_at_least(pmf, need: float) -> float:
    values, cum = pmf
    below = 0.0
    for v, c in zip(values, cum):
        if v >= need - 1e-9:
            return 1.0 - below
        below = c
    return 0.0


def distance_or_inf(value: float) -> float:
    return value if math.isfinite(value) else 1e9


def empty_tally(plan) -> dict[str, np.ndarray]:
    """The integer tallies of a chunk of battles (both engines fill the same)."""
    n_units = len(plan.units)
    most = max(u.models for u in plan.units)
    return {"outcome": np.zeros(3, np.int64),
            "margin2": np.zeros(2, np.int64),  # sum of 2 x margin and of its square
            "margin_hist": np.zeros(2 * plan.max_margin + 1, np.int64),
            "status": np.zeros((plan.turns, n_units, 4), np.int64),
            "models_left": np.zeros((n_units, most + 1), np.int64),
            "decisions": np.zeros(len(plan.vocabulary), np.int64)}
