"""Who decides (WM-B11): every choice of a battle goes through ``choose``.

The interface is the Fantasy battles' one — ``choose(state, side, kind, options) -> index``
— so "who decides" never changes the engine (DESIGN rule 9). The kinds a Warmachine turn
asks, in this order, with their options (:func:`mathhammer.warmachine.battle.turn.options_for`):

* ``posture``: ``advance`` (fight the enemy warjacks), ``assassinate`` (every model that
  can reach the enemy warcaster attacks it; offered only when one can), ``hold`` (keep out
  of the enemy's reach);
* ``feat``: ``keep`` or ``use`` (once per game, WM-B8);
* ``focus``: ``allocate`` (3 to each warjack that attacks, the warcaster camps the rest),
  ``camp`` (the warcaster keeps it all: +1 ARM each, WM-D2), ``run hot`` (3 to every
  warjack in the control area, the warcaster spends the rest), ``as listed`` (the list
  file's ``focus`` numbers).

Policies: ``scripted`` (the list's script: always advance, focus as listed, feat the first
turn an enemy is in the control area), ``greedy`` (a stated rule of thumb, below) and
``best-response`` (:mod:`mathhammer.warmachine.battle.response`: rollouts of every option).
"""

from __future__ import annotations

from typing import Protocol

from mathhammer.warmachine import rules
from mathhammer.warmachine.battle import orders

POLICIES = ("scripted", "greedy", "best-response")


class Policy(Protocol):
    name: str

    def choose(self, state, side: int, kind: str, options: list[str]) -> int: ...


def _pick(options: list[str], *wanted: str) -> int:
    for w in wanted:
        if w in options:
            return options.index(w)
    return 0


class Scripted:
    """The list file's script: advance, focus as listed, feat as soon as it touches an enemy."""

    name = "scripted"

    def __init__(self, battle) -> None:
        self.battle = battle

    def choose(self, state, side: int, kind: str, options: list[str]) -> int:
        if kind == "posture":
            return _pick(options, "advance")
        if kind == "focus":
            return _pick(options, "as listed", "allocate")
        return _pick(options, "use" if feat_touches(self.battle, state, side) >= 1 else "keep")


class Greedy:
    """Rule of thumb (WM-B11): assassinate when the plan search (where it applies, WM-B13)
    kills the enemy warcaster more often than not, or — without it — when the models that
    reach the warcaster could, on average, deal the boxes it has left; on the side's last
    turn whenever a kill is possible; otherwise advance.
    Focus: allocate, or run hot when assassinating. Feat: when it lands on two or more
    models (an enemy feat on enemies in the control area; a defensive one on friends inside
    enemy threat ranges) or on the enemy warcaster."""

    name = "greedy"

    def __init__(self, battle, camp: bool = True) -> None:
        self.battle = battle
        self.camp = camp

    def choose(self, state, side: int, kind: str, options: list[str]) -> int:
        battle = self.battle
        if kind == "posture":
            if "assassinate" in options and self.assassinate(state, side):
                return options.index("assassinate")
            return _pick(options, "advance")
        if kind == "focus":
            posture = state.choices.get("posture")
            assassinating = posture is not None and _chosen(battle, state, "posture") == "assassinate"
            return _pick(options, "run hot" if assassinating else "allocate")
        return _pick(options, "use" if feat_touches(battle, state, side) >= 2 else "keep")

    def assassinate(self, state, side: int) -> bool:
        from mathhammer.warmachine.battle import planner

        last = state.h >= 2 * self.battle.turns - 2  # the side's last turn: nothing to keep
        if planner.applies(self.battle, state):
            best = planner.search(self.battle, state, side)
            if best is not None:
                return best.value > 0.0 if last else best.value >= 0.5
        return last or kill_potential(self.battle, state, side) >= 1.0


def _chosen(battle, state, kind: str) -> str:
    from mathhammer.warmachine.battle.turn import options_for

    return options_for(battle, state, kind)[state.choices[kind]]


def feat_touches(battle, state, side: int) -> int:
    """How many models the feat would affect if used now (WM-B8): enemies in the control
    area for an enemy feat (2 for the enemy warcaster), friends inside an enemy threat range
    for a friendly one."""
    caster = battle.sides[side].caster
    if not state.models[caster].alive or not battle.feats[side]:
        return 0
    area = 2.0 * battle.models[caster].focus_stat
    enemy_caster = battle.sides[1 - side].caster
    count = 0
    if any(e.on == "enemy" for e in battle.feats[side]):
        for j in battle.alive(state, 1 - side):
            if orders.edge(battle, state, caster, j) <= area:
                count += 2 if j == enemy_caster else 1
    if any(e.on == "friendly" for e in battle.feats[side]):
        threats = [(j, orders.threat(battle, state, j)) for j in battle.alive(state, 1 - side)]
        for i in battle.alive(state, side):
            if i != caster and orders.edge(battle, state, caster, i) > area:
                continue
            if any(orders.edge(battle, state, i, j) <= t for j, t in threats):
                count += 2 if i == caster else 1
    return count


def kill_potential(battle, state, side: int) -> float:
    """Expected damage the models that reach the enemy warcaster this turn could deal, over
    the boxes it has left: each reaching model's best weapon, one attack per focus it could
    get (a warjack 3 + its weapons, the warcaster its FOCUS), at base DEF and ARM plus camped
    focus. A rough screen for the greedy rule, not a plan (the plan search is WM-P1)."""
    enemy = battle.sides[1 - side].caster
    if not state.models[enemy].alive:
        return 0.0
    tspec = battle.models[enemy]
    tstate = state.models[enemy]
    d_mod, rd_mod, arm_mod = tstate.modifiers()
    defense = tspec.prof.stats.defense + d_mod
    armor = tspec.prof.stats.arm + tstate.focus + arm_mod
    total = 0.0
    pool = battle.models[battle.sides[side].caster].focus_stat
    for i in battle.alive(state, side):
        spec = battle.models[i]
        melee = orders.melee_option(battle, state, i, enemy, 3)
        ranged = orders.ranged_option(battle, state, i, enemy, orders.casts(spec, spec.focus_stat))
        if melee is None and ranged is None:
            continue
        kind = "melee" if melee is not None else "ranged"
        weapons = [w for w in spec.prof.weapons if w.kind == kind and w.damage_power is not None]
        if not weapons:
            continue
        best = max(weapons, key=lambda w: w.damage_power)
        stat = spec.prof.stats.mat if kind == "melee" else spec.prof.stats.rat
        p_hit = rules.hit_probability(2, stat, defense if kind == "melee" else defense + rd_mod)
        mean = float(rules.damage_pmf(2, int(best.damage_power), armor) @
                     range(len(rules.damage_pmf(2, int(best.damage_power), armor))))
        focus = 3 if spec.is_warjack else (pool if spec.is_caster else 0)
        total += p_hit * mean * (len(weapons) + focus)
    left = tspec.grid.boxes_left(tstate.bits)
    return total / max(left, 1)
