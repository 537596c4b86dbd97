"""One model's activation in a battle (WM-B5..WM-B9, WM-B12, WM-B13).

Stand up, the feat, the move (advance, charge, support, step back) with the free strikes it
provokes, the attack — an activation program played from the target's state — and what the
result writes on the board: damage, knock-down or stationary, spell effects, destruction and
the caster kill. A plan found by the plan search is played here too, as one chain.
"""

from __future__ import annotations

from mathhammer.warmachine.battle import orders
from mathhammer.warmachine.battle.attacks import FREEZE, KNOCK, play
from mathhammer.warmachine.battle.state import KNOCKED_DOWN, STATIONARY, UP
from mathhammer.warmachine.battle.table import approach, gap, retreat


def play_plan(battle, state, best, rng) -> set:
    """WM-B13: the plan's activations against the enemy warcaster, one chain played with the
    plan's optimal decisions; then each member moves to where its attack was made."""
    from mathhammer.warmachine.battle.planner import decisions

    side = state.active
    caster = battle.sides[side].caster
    enemy = battle.sides[1 - side].caster
    if best.feat and not state.feat_used[side]:
        use_feat(battle, state, caster, skip=enemy)  # the chain plays the feat on its target
    graph = best.solution.graph
    dec = decisions(best, graph.max_focus + 1, 1 << len(graph.flags))
    tgt = state.models[enemy]
    engaged = 1 if orders.in_melee(battle, state, enemy) else 0
    per: dict = {}
    out = play(best.program, battle.markers[enemy], tgt.bits, tgt.down, engaged, rng, dec, per)
    members = [best.members[k] for k in best.order]
    for a, mem in enumerate(members):
        i = mem.model
        spec = battle.models[i]
        st = state.models[i]
        if spec.is_caster:
            st.focus -= min(per.get(("spent", a), 0), st.focus)
        mode = best.modes[best.order[a]]
        reach = spec.melee_reach if mode == "melee" else max(
            spec.ranged_reach, spec.spell_reach if spec.is_caster else 0.0)
        limit = spec.spd + (orders.CHARGE_BONUS if per.get(("charged", a)) else 0.0)
        if st.down == KNOCKED_DOWN:
            st.down, limit = UP, 0.0
        x, y, _ = approach(st.x, st.y, spec.radius, tgt.x, tgt.y, battle.models[enemy].radius,
                           limit, reach)
        st.x, st.y = x, y
    _apply(battle, state, caster if any(m.model == caster for m in members) else members[0].model,
           enemy, best.program, out)
    return {m.model for m in members}


def activate(battle, state, i: int, rng) -> None:
    """One model's activation: stand up, feat, move, free strikes, attack (WM-B5..B8)."""
    st = state.models[i]
    spec = battle.models[i]
    if st.down == STATIONARY:
        return  # WM-B8: a stationary model neither moves nor attacks
    plan = state.plan
    posture = plan["posture"]
    if spec.is_caster and plan["feat"] and not state.feat_used[spec.side]:
        use_feat(battle, state, i)
    focus = st.focus if (not spec.is_caster or plan["spends"]) else 0
    want = orders.intent(battle, state, i, posture, focus)
    if st.down == KNOCKED_DOWN:
        st.down = UP  # stands up, forfeiting its movement (WM-B6)
    if want.move == "retreat":
        _retreat(battle, state, i, rng)
        if not st.alive:
            return
        want = _from_where_it_stands(battle, state, i, posture, focus, allow_melee=False)
    elif want.move == "support":
        x, y = orders.support_spot(battle, state, i, careful=posture == "hold")
        _move_to(battle, state, i, x, y, rng)
        if not st.alive:
            return
        want = _from_where_it_stands(battle, state, i, posture, focus, allow_melee=True)
    elif want.move in ("advance", "charge", "run") and want.target >= 0:
        t = state.models[want.target]
        tr = battle.models[want.target].radius
        if want.move == "run":  # WM-B6: 2 × SPD for 1 focus; a running model does not attack
            st.focus -= 1
            x, y, _ = approach(st.x, st.y, spec.radius, t.x, t.y, tr, 2.0 * spec.spd,
                               orders.RUN_SHORT)
        elif want.mode == "none":
            x, y, _ = approach(st.x, st.y, spec.radius, t.x, t.y, tr, float(spec.spd), 0.0)
        else:
            reach = spec.melee_reach if want.mode == "melee" else max(
                spec.ranged_reach, spec.spell_reach if spec.is_caster else 0.0)
            limit = spec.spd + (orders.CHARGE_BONUS if want.move == "charge" else 0.0)
            x, y, _ = approach(st.x, st.y, spec.radius, t.x, t.y, tr, limit, reach)
        _move_to(battle, state, i, x, y, rng)
        if not st.alive:
            return
    if want.mode in ("melee", "ranged") and state.models[want.target].alive and not state.over:
        attack(battle, state, i, want, focus, rng)


def _from_where_it_stands(battle, state, i: int, posture: str, focus: int,
                          allow_melee: bool) -> orders.Intent:
    """After a supporting or backing-off move: what it can attack without moving again."""
    spec = battle.models[i]
    enemies = battle.alive(state, 1 - spec.side)
    caster_first = posture == "assassinate" or allow_melee
    for j in sorted(enemies, key=lambda j: orders.priority(battle, state, j, caster_first)):
        if allow_melee and spec.melee_reach and \
                orders.edge(battle, state, i, j) <= spec.melee_reach + 1e-9:
            return orders.Intent(i, j, "melee")
        r = orders.ranged_option(battle, state, i, j, orders.casts(spec, focus))
        if r is not None and r[0] == "stay":
            return orders.Intent(i, j, "ranged")
    return orders.Intent(i)


def _retreat(battle, state, i: int, rng) -> None:
    """Step back from the nearest enemy threat, as far as SPD allows (WM-B11)."""
    spec = battle.models[i]
    st = state.models[i]
    if st.down != UP:
        return
    enemies = battle.alive(state, 1 - spec.side)
    if not enemies:
        return
    j = min(enemies, key=lambda j: orders.edge(battle, state, i, j) - orders.threat(battle, state, j))
    o = state.models[j]
    x, y, _ = retreat(st.x, st.y, spec.radius, o.x, o.y, float(spec.spd), spec.side)
    _move_to(battle, state, i, x, y, rng)


def _move_to(battle, state, i: int, x: float, y: float, rng) -> None:
    """Move ``i`` to (x, y); every enemy whose melee range it leaves gets a free strike
    first (WM-B7); a model destroyed by one does not move."""
    st = state.models[i]
    if (x, y) == (st.x, st.y):
        return
    spec = battle.models[i]
    for j in orders.engaging(battle, state, i):
        o = state.models[j]
        after = gap(x, y, spec.radius, o.x, o.y, battle.models[j].radius)
        if after > orders.melee_reach(battle, state, j) + 1e-9:
            free_strike(battle, state, j, i, rng)
            if not st.alive or state.over:
                return
    st.x, st.y = x, y


def free_strike(battle, state, j: int, i: int, rng) -> None:
    """WM-B7: ``j`` strikes ``i`` as it leaves: +2 to hit, damage boosted, no focus."""
    prog = battle.free_strike(state, j, i)
    tgt = state.models[i]
    out = play(prog, battle.markers[i], tgt.bits, tgt.down, 1, rng)
    _apply(battle, state, j, i, prog, out)


def attack(battle, state, i: int, want: orders.Intent, focus: int, rng) -> None:
    """Play the activation program of ``i`` against its target and write the result."""
    j = want.target
    st = state.models[i]
    distance = orders.edge(battle, state, i, j) if want.mode == "ranged" else None
    # a free strike on the way in may have crippled its movement or cortex (WM-G4): then the
    # attack is not a charge attack
    if battle.models[i].grid.crippled(st.bits, "C"):
        focus = 0
    charge = (want.move == "charge" and not orders.m_crippled(battle, state, i)
              and (focus >= 1 or not battle.models[i].is_warjack))
    aim = want.mode == "ranged" and want.move == "stay"
    prog = battle.program(state, i, j, focus, want.mode, charge, aim, distance)
    if prog is None:
        return  # nothing to attack with from here (a crippled weapon set, no focus to cast)
    tgt = state.models[j]
    engaged = 1 if orders.in_melee(battle, state, j) else 0
    out = play(prog, battle.markers[j], tgt.bits, tgt.down, engaged, rng)
    st.focus -= min(out.spent, st.focus)
    _apply(battle, state, i, j, prog, out)


def _apply(battle, state, i: int, j: int, prog, out) -> None:
    """Write an activation's result on its target: damage, knock-down or stationary,
    spell effects for the rest of the turn (WM-B8, WM-B9), destruction (WM-B10)."""
    tgt = state.models[j]
    tgt.bits = out.bits
    if out.down == FREEZE and tgt.down != STATIONARY:
        tgt.down = STATIONARY
        tgt.down_until = state.h + 2  # one round: the applying side's next turn
    elif out.down == KNOCK and tgt.down == UP:
        tgt.down = KNOCKED_DOWN
    if out.flags:
        have = {m[4] for m in tgt.mods}
        feats = {e.name for e in battle.feats[battle.models[i].side]}
        for b, eff in enumerate(prog.flags):
            if out.flags >> b & 1 and eff.name not in have:
                # a feat's modifiers last one round, a spell's the rest of the turn (WM-B9)
                until = state.h + (2 if eff.name in feats else 1)
                tgt.mods.append((eff.defense, eff.ranged_defense, eff.armor, until, eff.name))
    spec = battle.models[j]
    if spec.grid.destroyed(tgt.bits):
        state.destroy(j, spec.side)
        tgt.destroyed_h = state.h
        side = battle.models[i].side
        state.points[side] += spec.points
        if spec.is_caster:
            state.over = True
            state.winner = side
            state.kill_h = state.h


def use_feat(battle, state, caster: int, skip: int = -1) -> None:
    """WM-B8: the feat's effects land as the warcaster's activation starts, on every model
    of the side it names inside the control area (without the immunity that stops it)."""
    spec = battle.models[caster]
    side = spec.side
    state.feat_used[side] = True
    area = 2.0 * spec.focus_stat
    h = state.h
    for e in battle.feats[side]:
        pool = battle.alive(state, 1 - side if e.on == "enemy" else side)
        for j in pool:
            if j == skip:
                continue
            if orders.edge(battle, state, caster, j) > area + 1e-9 and j != caster:
                continue
            if e.unless_immune and e.unless_immune in battle.immunities[j]:
                continue
            st = state.models[j]
            if e.stationary:
                st.down, st.down_until = STATIONARY, h + 2
            elif e.knock_down and st.down == UP:
                st.down = KNOCKED_DOWN
            if any(e.target_mods):
                d, rd, arm = e.target_mods
                st.mods.append((d, rd, arm, h + 2, e.name))  # one round (WM-B8)
            if any(e.attack_mods):
                st.boost = tuple(a + b for a, b in zip(st.boost, e.attack_mods))
