"""The plan search inside a battle (WM-B13, WM-P1): ``wm plan`` against the enemy warcaster.

When a side assassinates and the plan search applies (``plan = "exact"``, or ``"auto"`` on
the first turn of the game, the one state every battle of a run shares), the turn's attack
on the enemy warcaster is ``wm plan``'s: every focus split (each warjack 0–3, the warcaster
keeps the rest), activation order, melee or ranged mode and feat of the models that reach
it, each solved exactly on the warcaster's damage track (WM-F5 optimal), the best kept —
ties to the plan found first, in ``wm plan``'s order. The battle then plays that plan's
optimal decisions from the warcaster's current boxes (:func:`attacks.play` with ``dec``).

Which models take part: those that reach the warcaster this turn (melee after an advance
or a charge, a ranged weapon or spell after an advance, WM-B6) and are not held in melee by
another enemy (they would take free strikes). Plans are cached per state: on the first turn
the search runs once per run; with ``plan = "exact"`` later turns search again for every
new state, which is slow for four-model battlegroups (seconds each).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from mathhammer.errors import RulesError
from mathhammer.warmachine.activation import MAX_WARJACK_FOCUS
from mathhammer.warmachine.battle import orders
from mathhammer.warmachine.battle.attacks import FREEZE, KNOCK, compile_program, distance_bucket


@dataclass
class Member:
    model: int
    modes: tuple[str, ...]
    charge: str  # "may" | "must" | "no" (from the geometry, WM-B6)
    distance: float | None  # ranged: inches after the advance (bucketed)


@dataclass
class BestPlan:
    members: list[Member]
    order: tuple[int, ...]  # member positions in activation order
    focus: tuple[int, ...]  # per member
    modes: tuple[str, ...]
    feat: bool
    value: float
    n_plans: int
    program: object = None
    solution: object = None
    activations: list = None  # member position of each activation of the chain

    def words(self, battle) -> str:
        parts = []
        for m in self.order:
            mem = self.members[m]
            spec = battle.models[mem.model]
            tag = "feat, " if spec.is_caster and self.feat else ""
            parts.append(f"{spec.label} ({tag}{self.focus[m]}, {self.modes[m]})")
        return " → ".join(parts)


def applies(battle, state) -> bool:
    """WM-B13: the plan search decides an assassination on every turn (``exact``), only on
    the first turn of the game (``auto``: the state every battle shares), or never."""
    return battle.plan == "exact" or (battle.plan == "auto" and state.h == 0)


def members_in_reach(battle, state, side: int) -> list[Member]:
    enemy = battle.sides[1 - side].caster
    out = []
    for i in battle.alive(state, side):
        spec = battle.models[i]
        st = state.models[i]
        if st.down == 2 or orders.engaging(battle, state, i):
            continue
        modes, charge, distance = [], "no", None
        if spec.melee_reach:
            need = orders.edge(battle, state, i, enemy) - spec.melee_reach
            can_charge = (not orders.m_crippled(battle, state, i) and st.down == 0
                          and need <= spec.spd + orders.CHARGE_BONUS)
            boosted = can_charge and need > orders.PRE_BOOST_MOVE
            walk = need <= 1e-9 or (st.down == 0 and need <= spec.spd)
            if walk or boosted:
                modes.append("melee")
                charge = "may" if (walk and boosted) else "must" if boosted else "no"
        r = orders.ranged_option(battle, state, i, enemy,
                                 orders.casts(spec, state.models[battle.sides[side].caster].focus))
        if r is not None:
            modes.append("ranged")
            reach = max(spec.ranged_reach, spec.spell_reach if spec.is_caster else 0.0)
            distance = distance_bucket(min(orders.edge(battle, state, i, enemy), reach))
        if modes:
            out.append(Member(i, tuple(modes), charge, distance))
    return out


def _key(battle, state, side: int, members: list[Member]) -> tuple:
    enemy = battle.sides[1 - side].caster
    t = state.models[enemy]
    return (side, tuple((m.model, m.modes, m.charge, m.distance, battle.crippled(state, m.model),
                         state.models[m.model].boost) for m in members),
            t.bits, t.down, t.focus, tuple(t.mods), orders.in_melee(battle, state, enemy),
            state.feat_used[side], state.models[battle.sides[side].caster].focus)


def search(battle, state, side: int) -> BestPlan | None:
    """The best plan against the enemy warcaster (cached by state), or None when no model
    reaches it."""
    members = members_in_reach(battle, state, side)
    if not members:
        return None
    key = _key(battle, state, side, members)
    if key not in battle.plans:
        battle.plans[key] = _search(battle, state, side, members)
    return battle.plans[key]


def _search(battle, state, side: int, members: list[Member]) -> BestPlan:
    from mathhammer.warmachine.activation import build_graph
    from mathhammer.warmachine.effects import buffed, chain_flags, friendly_feat
    from mathhammer.warmachine.exact_policy import solve_full
    from mathhammer.warmachine.policy import OptionTables

    enemy = battle.sides[1 - side].caster
    caster = battle.sides[side].caster
    target = battle.target_now(state, enemy, orders.in_melee(battle, state, enemy))
    imm = battle.immunities[enemy]
    profs = [battle.models[m.model].prof for m in members]
    at = next((k for k, m in enumerate(members) if m.model == caster), None)
    use_feat = at is not None and not state.feat_used[side] and bool(battle.feats[side])
    flags_feat, bits_feat = chain_flags(profs, {at} if at is not None else set(), imm)
    flags_none, bits_none = chain_flags(profs, set(), imm)
    boost = friendly_feat(battle.models[caster].prof)
    budget = state.models[caster].focus
    specs: dict = {}

    def spec_of(k, focus, mode, feat_here, feat_on, buffed_now):
        key = (k, focus, mode, feat_here, feat_on, buffed_now)
        if key not in specs:
            from mathhammer.warmachine.duel import activation_from_profile

            mem = members[k]
            mspec = battle.models[mem.model]
            crippled = battle.crippled(state, mem.model)
            damaged = (mspec.grid.cripple_counts(",".join(sorted(crippled)))
                       if crippled and not mspec.grid.is_track else None)
            charge = mem.charge if mode == "melee" else "no"
            if charge == "may" and mspec.is_warjack and focus < 1:
                charge = "no"
            if charge == "must" and mspec.is_warjack and focus < 1:
                specs[key] = None  # it cannot reach without paying for the charge
                return None
            try:
                s = activation_from_profile(
                    mspec.ref, 0 if "C" in crippled else focus, charge, True,
                    ranged=mode == "ranged", target_base=target.base, damaged=damaged,
                    distance=mem.distance if mode == "ranged" else None,
                    feat=feat_here, immunities=imm,
                    flag_bits=bits_feat if feat_on else bits_none)
                s.check()
            except RulesError:  # e.g. ranged with no weapon and no spell it can pay for
                specs[key] = None
                return None
            if buffed_now and boost is not None:
                s = buffed(s, boost)
            specs[key] = s
        return specs[key]

    memo: dict = {}
    best = None
    n_plans = 0
    for focus, modes, feat, order in _candidates(battle, members, at, budget, use_feat):
        chain, done, ok = [], False, True
        for k in order:
            here = feat and k == at
            done = done or here
            s = spec_of(k, focus[k], modes[k], here, feat, done)
            if s is None:
                ok = False
                break
            chain.append(s)
        if not ok:
            continue
        n_plans += 1
        graph = build_graph(chain, flags_feat if feat else flags_none)
        opts = OptionTables.build(graph, target, memo)
        sol = solve_full(graph, target, "optimal", "destroy", opts=opts, cache=False)
        if best is None or sol.value > best.value + 1e-12:
            best = BestPlan(members, order, focus, modes, feat, sol.value, 0, None, sol,
                            [order[a] for a in range(len(order))])
    if best is None:
        return None
    best.n_plans = n_plans
    feat_status = FREEZE if any(e.stationary for e in battle.feats[side]) else KNOCK
    best.program = compile_program(best.solution.graph, target, _statuses(battle, members),
                                   "plan", immune_cold="Cold" in imm, opts=best.solution.opts,
                                   entry_status=feat_status)
    return best


def _statuses(battle, members) -> dict:
    out = {}
    for m in members:
        out.update(battle.statuses[m.model])
    return out


def _candidates(battle, members, at, budget: int, use_feat: bool):
    """wm plan's enumeration order (WM-P1): focus splits, then modes, then feat (no feat
    first), then activation orders; two copies of a warjack swapped are one plan."""
    jacks = [k for k, m in enumerate(members) if battle.models[m.model].is_warjack]
    splits = []
    for give in itertools.product(range(MAX_WARJACK_FOCUS + 1), repeat=len(jacks)):
        if sum(give) <= budget:
            focus = [0] * len(members)
            for k, f in zip(jacks, give):
                focus[k] = f
            if at is not None:
                focus[at] = budget - sum(give)
            splits.append(tuple(focus))
    feats = (False, True) if use_feat else (False,)
    seen: set = set()
    for focus in splits:
        for modes in itertools.product(*(m.modes for m in members)):
            for feat in feats:
                for order in itertools.permutations(range(len(members))):
                    key = (feat, tuple((battle.models[members[k].model].ref, focus[k], modes[k])
                                       for k in order))
                    if key not in seen:
                        seen.add(key)
                        yield focus, modes, feat, order


def decisions(best: BestPlan, n_f: int, n_fl: int):
    """The solved policy as :func:`attacks.play`'s ``dec`` (the kernel's state encoding: a
    track's state is the number of boxes marked)."""
    sol = best.solution
    row_of, dec = sol.row_of, sol.dec
    n_s = dec.shape[1]

    def choose(g, f, kd, eng, fl, bits):
        combo = (((g * n_f + f) * 2 + kd) * 2 + eng) * n_fl + fl
        r = int(row_of[combo]) if combo < len(row_of) - 1 else -1
        s = bin(bits).count("1")
        if r < 0 or s >= n_s:
            return 0 if best.program.kind[g] == 0 else -1  # a state the plan never saw
        return int(dec[r, s])

    return choose
