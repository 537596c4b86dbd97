"""The state of one battle in play: positions, wounds, statuses, combats (FB-B1..FB-B8).

Flat per-unit lists (index = the unit's index in the plan), so a state copies in a few
microseconds (best-response rollouts copy it for every alternative) and a faster engine
can take the same numbers as arrays.

Unit statuses (reported per game turn): ``HOLD`` (on the table and not fleeing, in combat
or not), ``FLEE`` (fleeing), ``FLED`` (left the table), ``DEAD`` (destroyed).
A combat is the units whose fronts touch an enemy: ``contact[u] = (target, face, side)``
says unit u's front touches the ``face`` (FB-B4: FRONT / FLANK / REAR, and which flank)
of ``target``; units linked by contacts fight one combat (FB-M1).
"""

from __future__ import annotations

import math
import random

import numpy as np

from mathhammer.fantasy.battle.table import FRONT, TOUCHING, Box, distance

HOLD, FLEE, FLED, DEAD = 0, 1, 2, 3
STATUS_NAMES = ("holding", "fleeing", "fled", "destroyed")


class BattleState:
    """One battle's mutable state (see the module docstring)."""

    __slots__ = ("x", "y", "theta", "status", "wounds", "models", "contact", "fresh",
                 "charged", "moved", "marched", "frenzied", "breath_used", "standard_lost",
                 "reacted", "turn", "active", "rng", "kstate", "decisions", "first_values",
                 "hold_turn", "flee_from", "pc", "order", "pending", "phase_start_models",
                 "history", "done", "policies", "boxes", "silenced", "magic", "duel",
                 "challenge_stage", "pursuit_charge",
                 "spell_on")

    def __init__(self, plan, rng: random.Random, kstate: np.ndarray):
        n = len(plan.units)
        self.x = [p[0] for p in plan.deployment.positions]
        self.y = [p[1] for p in plan.deployment.positions]
        self.theta = [p[2] for p in plan.deployment.positions]
        self.status = [HOLD] * n
        self.wounds = [[0] * len(u.bodies) for u in plan.units]
        self.models = [u.models for u in plan.units]
        self.contact: list[tuple[int, int, int] | None] = [None] * n
        self.fresh = [False] * n  # joins its combat this turn: first-round effects
        self.charged = [False] * n  # charged this turn
        self.pursuit_charge = [False] * n  # FB-B22: reached an enemy in a pursuit or overrun
        self.moved = [False] * n
        self.marched = [False] * n
        self.frenzied = [u.profile.has("Frenzy") for u in plan.units]
        self.breath_used = [False] * n
        self.standard_lost = [False] * n
        self.reacted = [False] * n  # reacted to a charge this turn (FB-G2: once)
        self.hold_turn = [False] * n  # rallied this turn: no move, no shooting (FB-B3)
        self.flee_from = [(0.0, 0.0)] * n
        self.turn = 0
        self.active = 0
        self.rng = rng
        self.kstate = kstate
        self.decisions: list | None = []  # (side, key) of every decision taken
        self.first_values: dict | None = None
        self.pc = [1, 0, 0, 0]  # game turn, seat (0 first player), phase, index in the phase
        self.order = (0, 1)  # the side playing first, then the other (set by the roll-off)
        self.pending: list = []  # a declared charge awaiting its reaction; broken units to pursue
        self.phase_start_models = list(self.models)  # FB-G4: panic at 25% lost in a phase
        self.history: list[tuple[int, ...]] = []  # statuses at the end of each game turn
        self.done = False
        self.policies = None  # None: the plan's; a rollout plays its own pair
        self.boxes: list = [None] * n  # each unit's rectangle, rebuilt after it moves or shrinks
        self.silenced = [0] * n  # FB-WM2: the last game turn a misfire keeps a war machine quiet
        self.magic: list | None = None  # this magic phase's pools and flags (battle.magic)
        self.duel: list = [None] * n  # FB-B20: (body, foe unit, foe body, mode) of a challenge
        self.challenge_stage = None  # FB-B20: the challenge decisions of the combat in hand
        self.spell_on = [-1] * n  # FB-B30: the augment / hex (spell row) on each unit this turn
        start_contacts(plan, self)

    def copy(self, rng: random.Random | None = None, kstate: np.ndarray | None = None) -> BattleState:
        new = object.__new__(BattleState)
        for name in ("x", "y", "theta", "status", "models", "contact", "fresh", "charged", "moved",
                     "marched", "frenzied", "breath_used", "standard_lost", "reacted",
                     "hold_turn", "flee_from", "silenced", "pursuit_charge",
                     "spell_on"):
            setattr(new, name, list(getattr(self, name)))
        new.wounds = [list(w) for w in self.wounds]
        new.turn, new.active = self.turn, self.active
        new.pc, new.order, new.pending = list(self.pc), self.order, list(self.pending)
        new.phase_start_models = list(self.phase_start_models)
        new.history, new.done = list(self.history), self.done
        new.rng = rng if rng is not None else self.rng
        new.kstate = kstate if kstate is not None else self.kstate
        new.policies = self.policies
        new.boxes = list(self.boxes)
        new.magic = list(self.magic) if self.magic is not None else None
        new.duel, new.challenge_stage = list(self.duel), self.challenge_stage
        new.decisions = None  # a rollout's decisions are not counted
        new.first_values = None
        return new

    # ---- questions the phases ask -------------------------------------------------------------
    def box(self, plan, u: int) -> Box:
        box = self.boxes[u]
        if box is None:
            width, depth = plan.units[u].footprint(self.models[u])
            box = self.boxes[u] = Box(self.x[u], self.y[u], self.theta[u], width, depth)
        return box

    def place(self, u: int, x: float, y: float, theta: float) -> None:
        """Move unit u (the middle of its front edge, its facing)."""
        self.x[u], self.y[u], self.theta[u] = x, y, theta
        self.boxes[u] = None

    def set_models(self, u: int, models: int) -> None:
        if models != self.models[u]:
            self.models[u] = models
            self.boxes[u] = None

    def on_table(self, u: int) -> bool:
        return self.status[u] in (HOLD, FLEE)

    def engaged(self, u: int) -> bool:
        """In a combat: its front touches an enemy, or an enemy's front touches it."""
        if self.status[u] != HOLD:
            return False
        if self.contact[u] is not None:
            return True
        return any(c is not None and c[0] == u and self.status[v] == HOLD
                   for v, c in enumerate(self.contact))

    def enemies_in_contact(self, u: int) -> list[int]:
        out = []
        c = self.contact[u]
        if c is not None and self.status[c[0]] == HOLD:
            out.append(c[0])
        for v, cv in enumerate(self.contact):
            if cv is not None and cv[0] == u and self.status[v] == HOLD and v not in out:
                out.append(v)
        return out

    def set_wounds(self, plan, u: int, body: int, wounds: int) -> None:
        self.wounds[u][body] = wounds
        self.set_models(u, plan.models_alive(u, self.wounds[u]))


def start_contacts(plan, state: BattleState) -> None:
    """FB-B2: units placed touching start the battle in combat: a unit's front touches the
    enemy whose rectangle its front edge meets, on the face its centre lies in (FB-B4)."""
    units = plan.units
    boxes = [state.box(plan, u) for u in range(len(units))]
    for u, unit in enumerate(units):
        for v, other in enumerate(units):
            if other.side == unit.side or distance(boxes[u], boxes[v]) > TOUCHING:
                continue
            a, b = boxes[u].front_segment()
            mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            if _near(boxes[v], mid):
                face, side = boxes[v].arc(*boxes[u].centre())
                state.contact[u] = (v, face, side)
    # two fronts touching: each fights the other's front
    for u, c in enumerate(state.contact):
        if c is not None:
            v = c[0]
            cv = state.contact[v]
            if cv is not None and cv[0] == u:
                state.contact[u] = (v, FRONT, c[2])
                state.contact[v] = (u, FRONT, cv[2])
    for u, c in enumerate(state.contact):  # FB-B2: their first round, nobody charged
        if c is not None:
            state.fresh[u] = state.fresh[c[0]] = True


def _near(box: Box, point) -> bool:
    ahead, left = box.local(*point)
    return (-box.depth - TOUCHING <= ahead <= TOUCHING
            and abs(left) <= box.width / 2 + TOUCHING)


def centre(state: BattleState, plan, u: int) -> tuple[float, float]:
    return state.box(plan, u).centre()


def centre_distance(state: BattleState, plan, u: int, v: int) -> float:
    (ax, ay), (bx, by) = centre(state, plan, u), centre(state, plan, v)
    return math.hypot(ax - bx, ay - by)
