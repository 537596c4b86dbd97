"""Challenges in a battle's combats (FB-K3, FB-B20): who issues, who answers, and the duel.

Before each round of a combat in which no challenge goes on (nor a refusal holds), the side
whose turn it is may issue a challenge, then, if it did not, the other side (FB-B20). A
challenge is issued from the first unit of the side (in list order) in the combat with a
character or champion alive, by one of those models, at the enemy unit that unit fights
(its front's enemy, else the first enemy touching it); that unit answers: accept with one
of its characters or champion, or refuse (its first character, else its champion, steps
back — not when its rank and file are gone: a lone model cannot refuse). Each is one
decision through the policy interface (kinds ``challenge`` and ``answer``); the duel is
then the combat engine's own (``chal``/``duel`` of
:func:`mathhammer.fantasy.kernels.combat.fight_round`): an accepted challenge goes on
until one of the two falls; a refused one holds while the challenger lives.

The state keeps, per unit, ``duel[u] = (body, foe unit, foe body, mode)`` or None; mode 1
accepted, 2 refused (u's body steps back), 3 the challenger of a refused challenge.
Greedy's values (FB-B10): one exact round of the pair with the challenge (the combat
engine's exact round, as :func:`mathhammer.fantasy.battle.values.combat_value`), the
issuer's value of an option being the worst answer for it (the answering side takes its
best one step ahead).
"""

from __future__ import annotations

import math

import numpy as np

from mathhammer.fantasy.battle.actions import Option
from mathhammer.fantasy.battle.state import HOLD, BattleState

ACCEPTED, REFUSED, REFUSED_CHALLENGER = 1, 2, 3


def able_bodies(plan, u: int) -> list[int]:
    """The bodies of u that may issue or answer a challenge: characters first, then the
    champion (the combat engine's order, FB-K3)."""
    bodies = plan.units[u].bodies
    chars = [b for b, body in enumerate(bodies) if body[1] == "character"]
    champs = [b for b, body in enumerate(bodies) if body[1] == "champion"]
    return chars + champs


def living_able(plan, state: BattleState, u: int) -> list[int]:
    return [b for b in able_bodies(plan, u) if plan.body_alive(u, b, state.wounds[u])]


def _foe(plan, state: BattleState, u: int, members: list[int]) -> int | None:
    """The enemy unit u fights: its front's enemy, else the first enemy touching it."""
    c = state.contact[u]
    if c is not None and c[0] in members and state.status[c[0]] == HOLD:
        return c[0]
    enemies = [v for v in state.enemies_in_contact(u) if v in members]
    return enemies[0] if enemies else None


def tidy_duels(plan, state: BattleState, members: list[int]) -> bool:
    """Drop the challenges of this combat that are over; True when one still goes on."""
    running = False
    for u in members:
        d = state.duel[u]
        if d is None:
            continue
        body, v, vb, mode = d
        alive = state.status[u] == HOLD and v in members and state.status[v] == HOLD
        if mode == ACCEPTED:
            alive = alive and plan.body_alive(u, body, state.wounds[u]) \
                and plan.body_alive(v, vb, state.wounds[v])
        elif mode == REFUSED:  # holds while the challenger lives
            alive = alive and plan.body_alive(v, vb, state.wounds[v])
        else:
            alive = alive and plan.body_alive(u, body, state.wounds[u])
        if alive:
            running = True
        else:
            state.duel[u] = None
    return running


def issue_options(plan, state: BattleState, members: list[int], side: int) -> list[Option]:
    """FB-B20: no challenge, or a challenge by each living character/champion of the first
    unit of ``side`` in the combat that has one, at the unit it fights (which must have one
    to answer)."""
    for u in members:
        if plan.units[u].side != side:
            continue
        mine = living_able(plan, state, u)
        v = _foe(plan, state, u, members)
        if not mine or v is None or not living_able(plan, state, v):
            continue
        names = plan.units[u].bodies
        return [Option("challenge", u, "no challenge", v, None)] + [
            Option("challenge", u, f"challenge with {names[b][0]}", v, (b,)) for b in mine]
    return []


def answer_options(plan, state: BattleState, u: int, b: int, v: int) -> list[Option]:
    """v's answer to u's model b: accept with each of its living characters/champion, or
    refuse (the first of them steps back) when its rank and file still stand."""
    theirs = living_able(plan, state, v)
    names = plan.units[v].bodies
    out = [Option("answer", v, f"accept with {names[vb][0]}", u, (b, vb, ACCEPTED))
           for vb in theirs]
    if plan.body_alive(v, 0, state.wounds[v]) and names[0][1] == "rank and file":
        out.append(Option("answer", v, "refuse", u, (b, theirs[0], REFUSED)))
    return out


def set_duel(state: BattleState, u: int, b: int, v: int, vb: int, mode: int) -> None:
    if mode == ACCEPTED:
        state.duel[u] = (b, v, vb, ACCEPTED)
        state.duel[v] = (vb, u, b, ACCEPTED)
    else:
        state.duel[v] = (vb, u, b, REFUSED)
        state.duel[u] = (b, v, vb, REFUSED_CHALLENGER)


def before_round(plan, state: BattleState, side: int, members: list[int], forced) -> bool:
    """The challenge decisions before a round (one decision a step, FB-B20). True: a
    decision was taken and the step must come again (the round is not fought yet)."""
    from mathhammer.fantasy.battle.actions import decide

    stage = state.challenge_stage
    if stage is None:
        if tidy_duels(plan, state, members):
            return False
        options = issue_options(plan, state, members, side)
        if len(options) > 1:
            choice = decide(plan, state, side, options, forced)
            state.challenge_stage = ("other",) if choice.extra is None else \
                ("answer", choice.unit, choice.extra[0], choice.target)
            return True
        stage = ("other",)  # no decision was taken: the next one is this step's first
    # the stage changes only after the decision: a best response copies the state from
    # inside decide() and replays this step with each option forced
    if stage[0] == "other":
        options = issue_options(plan, state, members, 1 - side)
        choice = decide(plan, state, 1 - side, options, forced) if len(options) > 1 else None
        state.challenge_stage = None
        if choice is not None and choice.extra is not None:
            state.challenge_stage = ("answer", choice.unit, choice.extra[0], choice.target)
            return True
        return False
    _answer, u, b, v = stage
    options = answer_options(plan, state, u, b, v)
    choice = options[0] if len(options) == 1 else \
        decide(plan, state, plan.units[v].side, options, forced)
    state.challenge_stage = None
    set_duel(state, u, b, v, choice.extra[1], choice.extra[2])
    return False


def round_challenge(state: BattleState, ft, cap: int) -> tuple[np.ndarray, np.ndarray]:
    """The combat engine's ``chal`` and ``duel`` arrays for this round of the compiled
    arrangement ``ft`` (engine body = the unit's first body + its body index)."""
    chal = np.array([-1, -1, 0, cap], np.int64)
    duel = np.array([0, -1], np.int64)
    for i, u in enumerate(ft.order):
        d = state.duel[u]
        if d is None or d[3] == REFUSED or d[1] not in ft.order:
            continue
        body, v, vb, mode = d
        j = ft.order.index(v)
        chal[0], chal[1] = ft.first_body[i] + body, ft.first_body[j] + vb
        if mode == ACCEPTED:
            chal[2], duel[0] = 1, 1
        else:
            chal[2], duel[1] = 2, chal[1]
        break
    return chal, duel


def scripted_choice(plan, kind: str, options: list[Option]) -> int:
    """The deployment file's ``challenge`` (a character or champion name, "any" = the
    first, default "none") and ``answer`` ("accept" default — with the first able model —
    or "refuse")."""
    orders = plan.deployment.orders[options[0].unit]
    if kind == "challenge":
        order = orders.get("challenge", "none")
        if order == "none":
            return 0
        if order == "any":
            return 1
        return next((i for i, o in enumerate(options) if o.label == f"challenge with {order}"), 0)
    if orders.get("answer", "accept") == "refuse":
        return next((i for i, o in enumerate(options) if o.label == "refuse"), 0)
    return 0


# ---- panic from a friend broken or destroyed nearby (FB-G4, FB-B21) ---------------------------
def friends_near(plan, state: BattleState, members: list[int]) -> dict[int, list[int]]:
    """Before a round: per unit of the combat, its friends not in it, holding, within the
    ruleset's ``friend_panic_range`` (nearest edges)."""
    from mathhammer.fantasy.battle.table import distance

    reach = plan.rules.combat.friend_panic_range
    out: dict[int, list[int]] = {}
    if reach <= 0:
        return out
    for m in members:
        side = plan.units[m].side
        out[m] = [u for u in plan.sides[side] if u not in members and state.status[u] == HOLD
                  and distance(state.box(plan, m), state.box(plan, u)) <= reach]
    return out


def friend_panic(plan, state: BattleState, lost: list[int], near: dict[int, list[int]]) -> None:
    """FB-B21: each friend near a unit that broke or was destroyed this round tests
    Leadership (once a unit; not when in combat, fleeing or Unbreakable) and flees directly
    away from the nearest enemy on a failure."""
    from mathhammer.fantasy.battle.actions import flee_move, ld_test, nearest_enemy
    from mathhammer.fantasy.battle.plan import draw

    tested: set[int] = set()
    for b in lost:
        for u in near.get(b, []):
            if u in tested or state.status[u] != HOLD or state.engaged(u) \
                    or plan.units[u].profile.has("Unbreakable"):
                continue
            tested.add(u)
            if ld_test(plan, state, u):
                continue
            enemy = nearest_enemy(plan, state, u)
            source = state.box(plan, enemy).centre() if enemy is not None else (
                state.x[u] + math.cos(state.theta[u]), state.y[u] + math.sin(state.theta[u]))
            flee_move(plan, state, u, source, draw(plan.flee_pmf[u], state.rng))
