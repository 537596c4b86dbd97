"""What changes during a battle: positions, damage, focus, knock-down, effects (WM-B*).

A :class:`BattleState` is everything a turn reads and writes; copying it is cheap (a few
models), which is what the best-response rollouts do at every decision. Damage is the
marked-box integer of :mod:`mathhammer.warmachine.grid` (a warjack's grid or a track), kept
from turn to turn, so crippled systems keep their effect (WM-G3, WM-G4).

Time is counted in player turns ``h = 0, 1, 2, …``: round ``h // 2 + 1``, the first player
acts on even ``h``. An effect "for one round" started in turn ``h`` ends when turn
``h + 2`` starts (the same player's next turn); "for the rest of the turn" ends at ``h + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

UP, KNOCKED_DOWN, STATIONARY = 0, 1, 2


class ModelState:
    """One model's changing state (see the module docstring for ``h``)."""

    __slots__ = ("x", "y", "bits", "alive", "focus", "down", "down_until", "mods", "boost",
                 "destroyed_h")

    def __init__(self, x: float, y: float) -> None:
        self.x, self.y = x, y
        self.bits = 0  # marked boxes (WM-G2)
        self.alive = True
        self.focus = 0  # allocated to a warjack, or a warcaster's own (kept = camped, WM-D2)
        self.down = UP  # knocked down or stationary (WM-A4, WM-A7)
        self.down_until = -1  # stationary: the turn it ends (knock-down ends by standing up)
        self.mods: list[tuple[int, int, int, int, str]] = []  # (DEF, ranged DEF, ARM, until, name)
        self.boost = (0, 0, 0, 0)  # friendly feat this turn: MAT, RAT, STR, POW (WM-E2)
        self.destroyed_h = -1

    def copy(self) -> ModelState:
        out = ModelState.__new__(ModelState)
        out.x, out.y, out.bits, out.alive, out.focus = self.x, self.y, self.bits, self.alive, self.focus
        out.down, out.down_until, out.mods = self.down, self.down_until, list(self.mods)
        out.boost, out.destroyed_h = self.boost, self.destroyed_h
        return out

    def modifiers(self) -> tuple[int, int, int]:
        """(DEF, ranged DEF, ARM) of the effects on the model now."""
        d = rd = arm = 0
        for md, mrd, marm, _, _ in self.mods:
            d += md
            rd += mrd
            arm += marm
        return d, rd, arm


@dataclass
class BattleState:
    """The whole battle between turns (and inside one, between activations)."""

    models: list[ModelState]
    first: int  # the side that takes the first turn of every round (0 = A)
    h: int = 0  # the player turn being played (module docstring)
    feat_used: list[bool] = field(default_factory=lambda: [False, False])
    over: bool = False
    winner: int = -1  # 0 A, 1 B, 2 undecided (equal points); -1 still playing
    kill_h: int = -1  # the turn a warcaster died (the caster kill, WM-B10)
    points: list[int] = field(default_factory=lambda: [0, 0])  # destroyed by each side
    choices: dict = field(default_factory=dict)  # this turn's choices so far: kind -> index
    plan: dict | None = None  # this turn's allocation and posture once chosen
    options: dict = field(default_factory=dict)  # this turn's options by kind (worked out once)
    standing: list = field(default_factory=list)  # per side: its models still alive

    def destroy(self, i: int, side: int) -> None:
        self.models[i].alive = False
        self.standing[side] = [m for m in self.standing[side] if m != i]

    @property
    def active(self) -> int:
        return self.first if self.h % 2 == 0 else 1 - self.first

    @property
    def round(self) -> int:
        return self.h // 2 + 1

    def copy(self) -> BattleState:
        return BattleState([m.copy() for m in self.models], self.first, self.h,
                           list(self.feat_used), self.over, self.winner, self.kill_h,
                           list(self.points), dict(self.choices),
                           None if self.plan is None else dict(self.plan), dict(self.options),
                           list(self.standing))
