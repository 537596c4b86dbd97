"""The turn sequence of a battle (WM-B3..WM-B10).

A player's turn: :func:`start_turn` (effects of a round ago end, the warcaster's focus is
replenished and the warjacks' is gone, WM-B4), :func:`decide_turn` (the side's policy
chooses its posture, its feat and its focus, WM-B11; the warcaster allocates, WM-F1),
:func:`execute_turn` (each model activates in the order of WM-B5: moves, takes free
strikes, attacks, WM-B6, WM-B7, WM-B12), :func:`end_turn` (the game ends on a caster kill
or after the last round on points, WM-B10). The three stages are separate so a
best-response rollout can start at a decision with the choices made so far.
"""

from __future__ import annotations

from mathhammer.warmachine.battle import orders
from mathhammer.warmachine.battle.activations import activate, play_plan
from mathhammer.warmachine.battle.state import STATIONARY, UP

FOCUS_CHOICES = ("allocate", "camp", "run hot", "as listed")
FEAT_CHOICES = ("keep", "use")
KINDS = ("posture", "feat", "focus")


# ---------------------------------------------------------------------------- stages
def start_turn(battle, state) -> None:
    """WM-B4: effects that end now end; the active warcaster gets FOCUS afresh, its warjacks
    lose what focus they had; the choices of the turn start empty."""
    h = state.h
    for st in state.models:
        if st.mods:
            st.mods = [m for m in st.mods if m[3] > h]
        if st.down == STATIONARY and st.down_until <= h:
            st.down = UP
        st.boost = (0, 0, 0, 0)
    side = state.active
    for m in battle.members[side]:
        st = state.models[m]
        spec = battle.models[m]
        st.focus = spec.focus_stat if (spec.is_caster and st.alive) else 0
    state.choices = {}
    state.options = {}
    state.plan = None


def options_for(battle, state, kind: str) -> list[str]:
    """The choices a side has at the start of its turn (WM-B11); worked out once a turn
    (nothing moves while a side decides)."""
    got = state.options.get(kind)
    if got is None:
        got = state.options[kind] = _options(battle, state, kind)
    return got


def _options(battle, state, kind: str) -> list[str]:
    side = state.active
    caster = battle.sides[side].caster
    enemy_caster = battle.sides[1 - side].caster
    alive = state.models[caster].alive
    if kind == "posture":
        out = ["advance"]
        if state.models[enemy_caster].alive and any(
                _reaches(battle, state, i, enemy_caster) for i in battle.alive(state, side)):
            out.append("assassinate")
        return out + ["hold"]
    if planned(battle, state) is not None:
        return ["as planned"]  # WM-B13: the plan search fixes the feat and the focus split
    if kind == "feat":
        if not alive or state.feat_used[side] or not battle.feats[side]:
            return ["keep"]
        if not _feat_lands(battle, state, side):
            return ["keep"]  # used now it would land on nobody: never the better choice
        return list(FEAT_CHOICES)
    jacks = eligible_jacks(battle, state, side)
    if not jacks or not alive:
        return ["camp"]
    out = ["allocate", "camp", "run hot"]
    if any(battle.sides[side].list_script.get(j, {}).get("focus") for j in jacks):
        out.append("as listed")
    return out


def planned(battle, state):
    """The plan search's best plan when this turn assassinates and the search applies
    (WM-B13), else None."""
    if state.choices.get("posture") is None:
        return None
    side = state.active
    if options_for(battle, state, "posture")[state.choices["posture"]] != "assassinate":
        return None
    from mathhammer.warmachine.battle import planner

    if not planner.applies(battle, state):
        return None
    return planner.search(battle, state, side)


def _feat_lands(battle, state, side: int) -> bool:
    """WM-B8: the feat would land on at least one model now (the warcaster using it activates
    first, from where it stands): an enemy inside the control area for an enemy effect, any
    friend (the warcaster included) for a friendly one."""
    caster = battle.sides[side].caster
    area = 2.0 * battle.models[caster].focus_stat
    for e in battle.feats[side]:
        if e.on == "friendly":
            return True
        for j in battle.alive(state, 1 - side):
            if orders.edge(battle, state, caster, j) <= area + 1e-9 and not (
                    e.unless_immune and e.unless_immune in battle.immunities[j]):
                return True
    return False


def _reaches(battle, state, i: int, j: int) -> bool:
    spec = battle.models[i]
    return (orders.melee_option(battle, state, i, j, 3) is not None
            or orders.ranged_option(battle, state, i, j,
                                    orders.casts(spec, spec.focus_stat)) is not None)


def decide_turn(battle, state, policies, record=None) -> None:
    """The side's policy makes the turn's choices not made yet (``state.choices``)."""
    side = state.active
    for kind in KINDS:
        if kind in state.choices:
            continue
        options = options_for(battle, state, kind)
        k = 0 if len(options) == 1 else policies[side].choose(state, side, kind, options)
        if not 0 <= k < len(options):
            raise ValueError(f"policy {policies[side].name} chose {k} of {len(options)}")
        state.choices[kind] = k
    if record is not None:  # the choices there were to make (two options or more)
        record["choices"] = [(kind, options_for(battle, state, kind)[state.choices[kind]])
                             for kind in KINDS if len(options_for(battle, state, kind)) > 1]
    state.plan = allocation(battle, state, side)
    if record is not None:
        record["plan"] = describe(battle, state, side)


def choice(battle, state, kind: str) -> str:
    return options_for(battle, state, kind)[state.choices[kind]] if state.choices.get(kind) \
        is not None else "keep"


def eligible_jacks(battle, state, side: int) -> list[int]:
    """Warjacks that can take focus (WM-F1, WM-G4): alive, inside the control area (2 × FOCUS
    from the warcaster's base), cortex working, not stationary."""
    caster = battle.sides[side].caster
    if not state.models[caster].alive:
        return []
    area = 2.0 * battle.models[caster].focus_stat
    out = []
    for j in battle.alive(state, side):
        spec = battle.models[j]
        if not spec.is_warjack or state.models[j].down == STATIONARY:
            continue
        if spec.grid.crippled(state.models[j].bits, "C"):
            continue
        if orders.edge(battle, state, caster, j) <= area + 1e-9:
            out.append(j)
    return out


def allocation(battle, state, side: int) -> dict:
    """WM-B4: the focus each warjack gets under the chosen focus option, and what the
    warcaster keeps; ``spends``: the warcaster spends its kept focus on its own attacks."""
    posture = options_for(battle, state, "posture")[state.choices["posture"]]
    how = options_for(battle, state, "focus")[state.choices["focus"]]
    caster = battle.sides[side].caster
    pool = state.models[caster].focus
    best = planned(battle, state)
    if best is not None:  # WM-B13: the plan's split; the warcaster keeps (and spends) the rest
        give = {}
        for k, mem in enumerate(best.members):
            if battle.models[mem.model].is_warjack and best.focus[k]:
                give[mem.model] = best.focus[k]
        for j, f in give.items():
            state.models[j].focus = f
        state.models[caster].focus = pool - sum(give.values())
        return {"posture": posture, "focus": "plan", "give": give, "spends": True,
                "feat": best.feat, "exact": best}
    jacks = eligible_jacks(battle, state, side)
    enemy_caster = battle.sides[1 - side].caster

    intents = {j: orders.intent(battle, state, j, posture, 3) for j in jacks}
    ranked = sorted(jacks, key=lambda j: (intents[j].target != enemy_caster, j))
    give = {}
    for j in ranked:
        if how == "allocate" and intents[j].mode != "none":
            want = 3
        elif how == "run hot":
            want = 3
        elif how == "as listed":
            want = min(3, int(battle.sides[side].list_script.get(j, {}).get("focus") or 0))
        else:
            want = 0
        want = min(want, pool)
        if want:
            give[j] = want
            pool -= want
    for j, f in give.items():
        state.models[j].focus = f
    state.models[caster].focus = pool
    cast = orders.intent(battle, state, caster, posture, pool)
    spends = how == "run hot" or (posture == "assassinate" and cast.target == enemy_caster)
    return {"posture": posture, "focus": how, "give": give, "spends": spends,
            "feat": choice(battle, state, "feat") == "use"}


def describe(battle, state, side: int) -> str:
    plan = state.plan
    caster = battle.sides[side].caster
    parts = [f"{plan['posture']}", f"focus {plan['focus']}"]
    given = ", ".join(f"{battle.models[j].label} {f}" for j, f in plan["give"].items())
    keeps = state.models[caster].focus
    parts.append((given + "; " if given else "") + f"{battle.models[caster].label} keeps {keeps}")
    if plan["feat"]:
        parts.append("feat")
    best = plan.get("exact")
    if best is not None:
        parts.append(f"plan search (WM-P1): {best.words(battle)}, P(kill) "
                     f"{100 * best.value:.2f}% exact over {best.n_plans:,} plans")
    return ", ".join(parts)


def activation_order(battle, state, side: int) -> list[int]:
    """WM-B5: a warcaster using its feat first; then warjacks and solos, nearest to an
    enemy first; then the warcaster."""
    caster = battle.sides[side].caster
    enemies = battle.alive(state, 1 - side)

    def nearest(i: int) -> float:
        return min((orders.edge(battle, state, i, j) for j in enemies), default=0.0)

    others = sorted((i for i in battle.alive(state, side) if i != caster),
                    key=lambda i: (nearest(i), i))
    if state.plan["feat"]:
        return [caster] + others
    return others + [caster]


def execute_turn(battle, state, rng) -> None:
    side = state.active
    done: set = set()
    if state.plan.get("exact") is not None:
        done = play_plan(battle, state, state.plan["exact"], rng)
    for i in activation_order(battle, state, side):
        if i in done:
            continue
        if state.over:
            return
        if state.models[i].alive:
            activate(battle, state, i, rng)


def end_turn(battle, state) -> None:
    """WM-B10: after the last round the side that destroyed more points wins; equal points
    (nothing destroyed included) leave the battle undecided."""
    for m in battle.members[state.active]:
        if not battle.models[m].is_caster:
            state.models[m].focus = 0
    state.h += 1
    if not state.over and state.h >= 2 * battle.turns:
        state.over = True
        a, b = state.points
        state.winner = 0 if a > b else 1 if b > a else 2


def play_turn(battle, state, policies, rng, record=None) -> None:
    start_turn(battle, state)
    decide_turn(battle, state, policies, record)
    execute_turn(battle, state, rng)
    end_turn(battle, state)
