"""One battle's fixed parts and its activation programs (WM-B1, WM-B12).

:class:`Battle` holds what no turn changes — the models, the deployment, the number of
rounds, who goes first — and builds, once per run, the activation programs
(:mod:`mathhammer.warmachine.battle.attacks`) a turn asks for: one per (attacker, focus,
melee or ranged, charge, crippled systems, target, the target's ARM and DEF now,
distance). Every battle of a run (and every best-response rollout) reuses them.
"""

from __future__ import annotations

from mathhammer.errors import RulesError
from mathhammer.warmachine.battle.attacks import (
    FREEZE, KNOCK, Marker, compile_program, distance_bucket, free_strike_graph,
)
from mathhammer.warmachine.battle.state import BattleState, ModelState
from mathhammer.warmachine.sequence import Target

FIRSTS = ("a", "b", "roll-off")


def _statuses(prof) -> dict[str, tuple[int, int]]:
    """What each attack option's knock-down is (WM-B8): stationary for Critical Freeze and
    for spells whose effect is stationary (Freezing Grip), knocked down otherwise."""
    out: dict[str, tuple[int, int]] = {}
    for w in prof.weapons:
        crit = FREEZE if w.has_rule("Critical Freeze") else KNOCK
        out[w.name] = (KNOCK, crit)
    for e in prof.effects:
        if e.source == "spell" and e.on == "enemy":
            out[e.name] = (FREEZE if e.stationary else KNOCK, KNOCK)
    return out


class Battle:
    """The fixed parts of a battle and the cache of its activation programs."""

    def __init__(self, models, sides, positions, turns: int, first: str = "roll-off",
                 plan: str = "auto") -> None:
        self.models = models
        self.sides = sides
        self.positions = positions
        self.turns = turns
        self.first = first
        self.plan = plan
        self.markers = [Marker(m.grid, m.shield_mask) for m in models]
        self.statuses = [_statuses(m.prof) for m in models]
        self.immunities = [self._immunities(m.prof) for m in models]
        self.programs: dict = {}
        self.strikes: dict = {}
        self.plans: dict = {}  # the plan search's answers by state key (planner)
        self.members = [list(s.members) for s in sides]
        self.radius = [m.radius for m in models]
        # WM-B8: the feat effects each side's warcaster can use (none: no feat to decide)
        self.feats = [[e for e in models[s.caster].prof.effects if e.source == "feat"]
                      for s in sides]

    @staticmethod
    def _immunities(prof) -> tuple[str, ...]:
        from mathhammer.warmachine.duel import target_immunities

        return target_immunities(prof)

    # ------------------------------------------------------------------ state
    def new_state(self, first: int) -> BattleState:
        return BattleState([ModelState(x, y) for x, y in self.positions], first,
                           standing=[list(self.members[0]), list(self.members[1])])

    def alive(self, state: BattleState, side: int) -> list[int]:
        """The side's models still standing (a list kept by the state: do not change it)."""
        return state.standing[side]

    def crippled(self, state: BattleState, i: int) -> frozenset:
        spec = self.models[i]
        bits = state.models[i].bits
        return frozenset(x for x in spec.grid.systems if spec.grid.crippled(bits, x))

    def target_now(self, state: BattleState, j: int, engaged: bool = False) -> Target:
        """The model ``j`` as an attack sees it now: base DEF and ARM, a warcaster's kept
        focus (+1 ARM each, WM-D2), the feats and spells on it (WM-B8, WM-B9)."""
        spec = self.models[j]
        st = state.models[j]
        prof = spec.prof
        d, rd, arm = st.modifiers()
        camped = st.focus if spec.is_caster else 0
        return Target(prof.stats.defense, prof.stats.arm + camped + arm, spec.grid, st.bits,
                      st.down != 0, spec.label, spec.shield_mask, def_bonus=d,
                      ranged_def_bonus=rd,
                      stealth=any(r.split(":")[0].strip() == "Stealth" for r in prof.special_rules),
                      immunities=self.immunities[j], base=prof.base, engaged=engaged)

    # ------------------------------------------------------------------ programs
    def program(self, state: BattleState, i: int, j: int, focus: int, mode: str, charge: bool,
                aim: bool, distance: float | None):
        """The activation program of ``i`` against ``j`` as they stand (cached)."""
        crippled = self.crippled(state, i)
        if "C" in crippled:
            focus = 0  # WM-G4: a crippled cortex has no focus
        tgt = state.models[j]
        d, rd, arm = tgt.modifiers()
        on = frozenset(name for *_, name in tgt.mods)
        camped = tgt.focus if self.models[j].is_caster else 0
        dist = distance_bucket(distance) if (mode == "ranged" and distance is not None) else None
        boost = state.models[i].boost
        key = (i, focus, mode, charge, aim, crippled, boost, j, camped + arm, d, rd, on, dist)
        if key in self.programs:
            return self.programs[key]
        try:
            prog = self._build(state, i, j, focus, mode, charge, aim, dist, crippled, on)
        except RulesError:  # nothing to attack with this way (WM-F3): the model does not attack
            prog = None
        self.programs[key] = prog
        return prog

    def _build(self, state, i, j, focus, mode, charge, aim, dist, crippled, on):
        from mathhammer.warmachine.activation import build_graph
        from mathhammer.warmachine.duel import activation_from_profile
        from mathhammer.warmachine.effects import buffed, chain_flags

        att, tgt = self.models[i], self.models[j]
        imm = self.immunities[j]
        flags, bits = chain_flags([att.prof], set(), imm)
        keep = [k for k, f in enumerate(flags) if f.name not in on]  # an effect on it already
        flags = [flags[k] for k in keep]
        bits = {key: keep.index(b) for key, b in bits.items() if b in keep}
        damaged = None
        if crippled and not att.grid.is_track:
            damaged = att.grid.cripple_counts(",".join(sorted(crippled)))
        spec = activation_from_profile(
            att.ref, focus, "must" if charge else "no", True, ranged=mode == "ranged",
            aim=aim and mode == "ranged", target_base=tgt.prof.base, damaged=damaged,
            distance=dist, immunities=imm, flag_bits=bits)
        if any(state.models[i].boost):  # a friendly feat's attack modifiers (WM-E2)
            from types import SimpleNamespace

            spec = buffed(spec, SimpleNamespace(attack_mods=state.models[i].boost))
        graph = build_graph([spec], flags)
        target = self.target_now(state, j)
        return compile_program(graph, target, self.statuses[i], f"{att.label} → {tgt.label}",
                               immune_cold="Cold" in imm)

    def free_strike(self, state: BattleState, i: int, j: int):
        """The free-strike program of ``i`` at ``j`` (its best melee weapon, WM-B7)."""
        crippled = self.crippled(state, i)
        tgt = state.models[j]
        d, rd, arm = tgt.modifiers()
        camped = tgt.focus if self.models[j].is_caster else 0
        key = (i, crippled, j, camped + arm, d, rd)
        prog = self.strikes.get(key)
        if prog is None:
            from mathhammer.warmachine.activation import AttackOption
            from mathhammer.warmachine.duel import activation_from_profile

            att, tspec = self.models[i], self.models[j]
            damaged = None
            if crippled and not att.grid.is_track:
                damaged = att.grid.cripple_counts(",".join(sorted(crippled)))
            spec = activation_from_profile(att.ref, 0, "no", False, target_base=tspec.prof.base,
                                           damaged=damaged)
            melee = sorted([w for w in spec.weapons if w.kind == "melee"],
                           key=lambda w: (w.crippled, -w.power))
            w = melee[0]
            graph = free_strike_graph(AttackOption(
                w.name, "melee", w.stat, w.power, crippled=w.crippled,
                ignores_shield=w.chain_weapon, crit_knocks_down=w.crit_knockdown,
                crit_amputation=w.crit_amputation))
            prog = compile_program(graph, self.target_now(state, j), self.statuses[i],
                                   f"{att.label} free strike → {tspec.label}",
                                   immune_cold="Cold" in self.immunities[j])
            self.strikes[key] = prog
        return prog


def first_player(first: str, rng) -> int:
    """WM-B3: side A (0) or B (1) takes the first turn; a roll-off is a fair coin (a d6 each,
    ties rolled again)."""
    if first == "a":
        return 0
    if first == "b":
        return 1
    while True:
        a, b = int(rng.random() * 6), int(rng.random() * 6)
        if a != b:
            return 0 if a > b else 1


__all__ = ["Battle", "FIRSTS", "first_player"]
