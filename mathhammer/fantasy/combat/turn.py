"""Whole game turns (FB-G5): ``mathhammer run SCENARIO.toml`` with ``kind = "turn"`` (``fb turn``).

Unit A charges unit B across ``turns`` game turns; each game turn is A's player turn,
then B's:

* **A's turn**: a fleeing A tests to rally (FB-G4); A, holding and not yet engaged,
  declares its charge from ``distance`` inches (from ``charge_turn`` on): the charge roll
  (FB-G1) against B's reaction (FB-G2: hold, stand and shoot, flee); a failed charge
  moves the charger (FB-G3); then A's magic missiles (the magic phase) and A's shooting
  (the shooting phase) at B when the two are not in combat, each phase with one panic
  test when B lost ``panic_fraction`` of the models it had at the phase's start (FB-G4);
  then a round of combat when engaged (FB-C1..C7);
* **B's turn**: a fleeing B rallies; B's magic phase and shooting phase at A when not in
  combat (with A's panic tests); then a round of combat.

The state — every body's wounds, the combat statuses, each unit's distance to its own
table edge (the distance between the units is what the two leave of the line across the
table), each unit's holding / fleeing / off the table / destroyed — is carried exactly:
each step's outcome distribution comes from the shooting chain (:func:`chain.chain_exact`),
the magic engine (P(cast)), the charge and flee dice and the combat engine's exact round
(:func:`combat_exact._round`). The exact engine sums them over arrays of states
(:mod:`mathhammer.fantasy.combat.turn_arrays`; :func:`exact_by_states`, the state-by-state
sum it replaced, is kept as its reference). The Monte Carlo engine is a numba walk
(:mod:`mathhammer.fantasy.kernels.turn`): each trial rolls its own dice, the shooting from
the chain's tables and each round of combat by the combat kernel (``--check`` compares
the two).

Decisions (FB-G5, FB-G4): A declares its charge every turn until one reaches B (a failed
charge is declared again next turn; after a combat ends nobody charges again); a fleeing
target is not charged; every flight — the flee reaction, a failed panic test, a failed
break test, a failed rally — moves the unit away from the enemy towards its table edge,
``edge`` inches from where it started, and it leaves the table when a flight reaches the
edge (a rallied unit stays where it stopped; its moves towards the enemy take it further
from its edge); missiles are not dispelled (the caster's P(cast)).
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, ProfileError
from mathhammer.results import Distribution, Estimate, Report

STATUSES = ("holding", "fleeing", "fled", "destroyed")  # per unit, reported per turn
HOLD, FLEE, GONE, DEAD = range(4)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FireEntry(_Strict):
    """Shooting or a magic missile at the enemy unit (FB-H2, FB-W1..V4; MG-4)."""

    name: str = Field(min_length=1)
    side: str = Field(pattern="^[ab]$")
    shots: str = Field("10", description='shots or hits: "10", "D6", "2D6"')
    bs: int | None = Field(None, ge=0, le=10, description="shooting: BS; leave out for a missile")
    strength: int = Field(ge=1, le=10)
    armour_piercing: int = Field(0, ge=0, le=6)
    modifier: int = Field(0, ge=-6, le=6, description="to-hit modifier (long range -1, cover ...)")
    multiple_wounds: str | None = None
    cast_dice: int | None = Field(None, ge=1, le=6, description="missile: power dice used")
    casting_value: int | None = Field(None, ge=2, le=30, description="missile: casting value")
    level: int = Field(0, ge=0, le=4, description="missile: wizard level")


class TurnEntry(_Strict):
    """The ``[turn]`` table of a ``kind = "turn"`` scenario."""

    turns: int = Field(3, ge=1, le=8, description="game turns (each: A's turn, then B's)")
    distance: float = Field(ge=0, le=72, description="inches from A to B at the start")
    charge_turn: int = Field(1, ge=1, le=8, description="A's first turn that may charge")
    reaction: str = Field("hold", pattern="^(hold|flee|stand-and-shoot)$")
    stand_and_shoot: FireEntry | None = Field(None, description="B's shots at the charger")
    edge: float = Field(12.0, ge=0, le=72, description="inches from each unit to its own table "
                                                    "edge at the start (FB-G4)")
    fire: tuple[FireEntry, ...] = Field((), max_length=8, description="shooting and missiles")


class State(NamedTuple):
    wounds: tuple[int, ...]
    cstatus: tuple[int, ...]  # combat statuses (kernel codes) while engaged
    frenzied: tuple[int, ...]
    once: tuple[int, ...]
    duel: int
    engaged: bool
    rnd: int
    room: tuple[float, float]  # inches from A and from B to its own table edge (FB-G4)
    units: tuple[int, int]  # HOLD / FLEE / GONE / DEAD of A and B
    charged: bool  # A has charged home once


# a room that no longer matters (the unit is gone, or nothing can make it flee again)
NO_EDGE = float("inf")


class Turns:
    """The compiled scenario and its step tables."""

    def __init__(self, a_side, b_side, rules, entry: TurnEntry):
        from mathhammer.fantasy.combat.fight import compile_fight
        from mathhammer.fantasy.kernels import combat as k

        self.rules, self.entry = rules, entry
        # one line across the table: A's edge, A, B, B's edge; each unit starts ``edge``
        # inches from its own edge, so the distance A-B is this length less the two rooms
        self.length = 2 * entry.edge + entry.distance
        self.c, self.t = compile_fight((a_side,), (b_side,), charger="a", ruleset=rules)
        self.k = k
        u_int, b_int = self.t.u_int, self.t.b_int
        self.first_b = next(u for u in range(u_int.shape[0]) if u_int[u, k.U_SIDE] == 1)
        self.units = (a_side.unit, b_side.unit)
        self.rf = tuple(self._rf_body(u) for u in (0, self.first_b))
        self.shot = tuple(self._shot_bodies(side) for side in (0, 1))
        self._models: dict = {}
        self.start_models = tuple(self.models_of(tuple([0] * b_int.shape[0]), s) for s in (0, 1))
        self._fire: dict = {}
        self._escape: dict = {}
        self._after_fire: dict = {}
        self._plans: dict = {}
        self._flights: dict = {}
        self._charges: dict = {}
        self.flee_pmf = tuple(self._flee_table(side) for side in (0, 1))
        from mathhammer.fantasy.characteristic_tests import leadership_test

        # a plain Leadership test of each unit: rally (FB-G4) and panic (FB-G4)
        self.p_ld = tuple(float(leadership_test(u.stats.ld, rules)) for u in self.units)
        # once A has charged home, only the enemy's shooting and magic (a panic test) can make
        # a holding unit flee again: without them its flights no longer matter
        self.shot_at = tuple(any(f.side == "ab"[1 - side] for f in entry.fire) for side in (0, 1))
        # each side's magic phase (its missiles), then its shooting phase: built once, as the
        # phase plans are kept per entries tuple
        self.phases = tuple(
            tuple(phase for phase in (
                tuple(f for f in entry.fire if f.side == "ab"[side] and f.cast_dice is not None),
                tuple(f for f in entry.fire if f.side == "ab"[side] and f.cast_dice is None))
                if phase) for side in (0, 1))
        self._rounds: dict = {}
        self._over: dict = {}
        from mathhammer.fantasy.charge import charge_rolls

        # (probability, range, failed move) of A's charge roll (FB-G1, FB-G3), once; the
        # dice that give the same range and move are one outcome
        rolls: dict = defaultdict(float)
        for q, reach, move in charge_rolls(self.units[0].movement, rules,
                                           self.units[0].has("Swiftstride")):
            rolls[reach, move] += q
        self.charge_rolls = [(q, reach, move) for (reach, move), q in rolls.items()]

    # ---- bodies ----------------------------------------------------------------------------
    def _rf_body(self, u: int) -> int:
        k, b_int = self.k, self.t.b_int
        bodies = [b for b in range(b_int.shape[0]) if b_int[b, k.B_UNIT] == u]
        return max(bodies, key=lambda b: (b_int[b, k.B_RANKS], b_int[b, k.B_MODELS]))

    def models_of(self, wounds, side: int) -> int:
        key = (wounds, side)
        if key not in self._models:
            u = 0 if side == 0 else self.first_b
            self._models[key] = int(self.k.unit_models(self.t.b_int, u,
                                                       np.array(wounds, np.int64), 0))
        return self._models[key]

    def _shot_bodies(self, side: int) -> tuple[tuple[int, int, int], ...]:
        """(body, wounds it can take, W) of what shooting and magic kill in the unit: the
        rank and file, then its champion (characters are not hit: FB-G5)."""
        k, b_int, u = self.k, self.t.b_int, (0, self.first_b)[side]
        champions = [b for b, body in enumerate(self.c.bodies)
                     if body.role == "champion" and b_int[b, k.B_UNIT] == u]
        return tuple((b, int(b_int[b, k.B_MODELS] * b_int[b, k.B_W]), int(b_int[b, k.B_W]))
                     for b in (self.rf[side], *champions))

    def shootable(self, wounds: tuple, side: int) -> int:
        """The models shooting can still slay (see :meth:`_shot_bodies`)."""
        return sum(-(-(cap - wounds[b]) // w) for b, cap, w in self.shot[side])

    # ---- steps: each returns [(probability, next state)] -------------------------------------
    def start(self) -> State:
        u_int, n_b = self.t.u_int, self.t.b_int.shape[0]
        return State(tuple([0] * n_b), tuple([self.k.IN] * u_int.shape[0]),
                     tuple(int(x) for x in u_int[:, self.k.U_FRENZY]),
                     tuple([0] * len(self.c.groups)), 0, False, 0,
                     (float(self.entry.edge), float(self.entry.edge)), (HOLD, HOLD), False)

    def distance(self, s: State) -> float:
        """A to B: what the two rooms leave of the line (both units on the table)."""
        return self.length - s.room[0] - s.room[1]

    def rally(self, s: State, side: int) -> list:
        """FB-G4: a fleeing unit rallies on Ld (below a quarter: a double 1 only); one that
        fails flees again from where it stands."""
        if s.units[side] != FLEE:
            return [(1.0, s)]
        quarter = self.models_of(s.wounds, side) * 4 < self.start_models[side]
        p = (1 / 36 if quarter and self.rules.combat.rally_below_quarter_needs_double_one
             else self.p_ld[side])
        # rallied, the unit stands where its flights left it (FB-G4)
        out = [(p, self.settle(_with(s, side, HOLD)))]
        out += [((1 - p) * q, x) for q, x in self.flights(s, side, self.flee_pmf[side])]
        return out

    def flights(self, s: State, side: int, pmf: dict, **kw) -> list:
        """[(probability, state)] of a flight of ``pmf`` inches by ``side`` (see :meth:`flee`),
        the rolls that reach the edge summed into one outcome."""
        key = (side, id(pmf), s.room[side])
        if key not in self._flights:
            room = s.room[side]
            off = sum(q for f, q in pmf.items() if f >= room)
            self._flights[key] = ([(off, None)] if off else []) + [
                (q, f) for f, q in pmf.items() if f < room]
        return [(q, self.flee(s, side, s.room[side] if f is None else f, **kw))
                for q, f in self._flights[key]]

    def flee(self, s: State, side: int, inches: float, **kw) -> State:
        """FB-G4/G5: the unit flees ``inches`` from where it stands, straight away from the
        enemy towards its own table edge, and leaves the table when that reaches the edge."""
        room = s.room[side] - inches
        if room <= 0 or kw:
            units = _pair(s.units, side, GONE if room <= 0 else FLEE)
            return _replace(s, units=units, room=_pair(s.room, side, room), **kw)
        # still on the table: nothing else to tidy (the hot path of the exact sum)
        return tuple.__new__(State, (*s[:7], _pair(s.room, side, room),
                                     _pair(s.units, side, FLEE), s.charged))

    def advance(self, s: State, inches: float, **kw) -> State:
        """A moves ``inches`` towards B (a charge, FB-G3's failed move): further from its edge."""
        return _replace(s, room=(s.room[0] + inches, s.room[1]), **kw)

    def _flee_table(self, side: int) -> dict[int, float]:
        """FB-G2/C6: the unit's flee roll (Swiftstride's where it has it)."""
        from mathhammer.dice import parse_dice

        swift = self.units[side].has("Swiftstride")
        text = self.rules.combat.swiftstride_dice if swift else self.rules.combat.flee_dice
        return {k: float(p) for k, p in parse_dice(text).pmf().items()}

    def stand_and_shoot_allowed(self, distance: float) -> bool:
        """FB-G2: no stand and shoot at a charger starting within the charged unit's M."""
        return self.entry.reaction == "stand-and-shoot" and (
            self.rules.combat.stand_and_shoot_min_distance == "none"
            or distance > self.units[1].movement)

    def charge(self, s: State, turn: int) -> list:
        """A declares a charge (every turn until one reaches, FB-G5): B's reaction (FB-G2),
        the roll (FB-G1), a failed charge's move (FB-G3)."""
        e = self.entry
        if (s.charged or s.engaged or turn < e.charge_turn or s.units[0] != HOLD
                or s.units[1] != HOLD):
            return [(1.0, s)]
        distance = self.distance(s)
        first = [(1.0, s)]
        if self.stand_and_shoot_allowed(distance):
            # FB-G2: B's shots land before the charge; the charger takes no panic test for them
            first = self.hits(s, e.stand_and_shoot, stand_and_shoot=True)
        out = []
        for p0, s0 in first:
            if s0.units[0] != HOLD:
                out.append((p0, s0))
                continue
            for p, what, f, moved in self._charge_plan(distance, s0.room[1]):
                if what == "caught":
                    out.append((p0 * p, _replace(_with(s0, 1, DEAD), charged=True)))
                elif what == "contact":  # A moves into contact, where B stands
                    out.append((p0 * p, self.advance(s0, distance, engaged=True, rnd=0,
                                                     charged=True, cstatus=tuple(
                                                         [self.k.IN] * len(s0.cstatus)))))
                else:
                    nxt = self.flee(s0, 1, f) if f else s0
                    out.append((p0 * p, self.advance(nxt, moved)))
        return out

    def _charge_plan(self, distance: float, room_b: float) -> list:
        """[(probability, "caught" / "contact" / "short", B's flight, A's move)] of a charge
        from ``distance`` (kept per distance): the rolls that end the same way summed."""
        key = (distance, room_b)
        if key not in self._charges:
            flee = self.flee_pmf[1] if self.entry.reaction == "flee" else {0: 1.0}
            plan: dict = defaultdict(float)
            for q, reach, move in self.charge_rolls:
                for f, pf in flee.items():
                    need = distance + f
                    off = f >= room_b  # fled off the table: nothing left to catch (FB-G2)
                    if reach >= need and f and not off:
                        plan["caught", f, 0.0] += q * pf
                    elif reach >= need and not f:
                        plan["contact", 0, 0.0] += q * pf
                    else:
                        plan["short", f, min(need / 2 if move < 0 else move, need)] += q * pf
            self._charges[key] = [(p, *k) for k, p in plan.items()]
        return self._charges[key]

    def _fire_table(self, fire: FireEntry, target_side: int, models: int,
                    stand_and_shoot: bool) -> tuple[np.ndarray, float]:
        """(P(k unsaved wounds), P(cast)) of one fire entry at a target with ``models`` left."""
        key = (id(fire), target_side, models, stand_and_shoot)  # the entries live in self.entry
        if key not in self._fire:
            from mathhammer.fantasy.chain.core import AttackSpec, chain_exact
            from mathhammer.fantasy.chain.query import shooting_modifier
            from mathhammer.fantasy.combat.target import target_parts

            part = target_parts(self.units[target_side], self.rules)[0]
            # FB-H2: the stand-and-shoot modifier, as fb shoot --stand-and-shoot adds it
            modifier = shooting_modifier(self.rules, fire.modifier,
                                         stand_and_shoot=stand_and_shoot)
            hit = dict(bs=fire.bs, shooting_modifier=modifier) if fire.bs is not None \
                else dict(auto_hit=True)
            spec = AttackSpec(strength=fire.strength, toughness=part.t, save=part.armour,
                              ward=part.ward, regeneration=part.regeneration,
                              armour_piercing=fire.armour_piercing, close_combat=False,
                              multiple_wounds=fire.multiple_wounds, target_wounds=part.w, **hit)
            wounds = chain_exact(spec, fire.shots, self.rules, models=models).wounds
            p_cast = 1.0
            if fire.cast_dice is not None:
                from mathhammer.magic.single import cast

                p_cast = cast(fire.cast_dice, fire.level, fire.casting_value,
                              ruleset=self.rules.name).results["p_cast"].value
            self._fire[key] = (wounds, p_cast)
        return self._fire[key]

    def _wounded(self, wounds: tuple, fire: FireEntry, target: int,
                 stand_and_shoot: bool = False) -> list:
        """[(probability, wounds after)] of one fire entry at ``target`` (kept per wounds)."""
        key = (wounds, id(fire), target, stand_and_shoot)
        if key not in self._after_fire and self.shootable(wounds, target) == 0:
            self._after_fire[key] = [(1.0, wounds)]  # only characters left: nothing is hit
        if key not in self._after_fire:
            table, p_cast = self._fire_table(fire, target, self.shootable(wounds, target),
                                             stand_and_shoot)
            out = [(1.0 - p_cast, wounds)] if p_cast < 1.0 else []
            for w, q in enumerate(table):
                if q > 0.0:
                    new = list(wounds)
                    for b, cap, _ in self.shot[target]:  # the rank and file first
                        taken = min(w, cap - new[b])
                        new[b] += taken
                        w -= taken
                    out.append((p_cast * q, tuple(new)))
            self._after_fire[key] = out
        return self._after_fire[key]

    def hits(self, s: State, fire: FireEntry, stand_and_shoot: bool = False) -> list:
        """One fire entry's unsaved wounds on its target (no panic test: see :meth:`phase`)."""
        target = 1 if fire.side == "a" else 0
        out = []
        for q, wounds in self._wounded(s.wounds, fire, target, stand_and_shoot):
            dead = self.models_of(wounds, target) == 0
            out.append((q, _replace(s, wounds=wounds, units=_pair(s.units, target, DEAD))
                        if dead else _wounds(s, wounds)))
        return out

    def phase(self, s: State, entries: tuple[FireEntry, ...], side: int) -> list:
        """The magic or the shooting phase of ``side``: its ``entries`` one after another, then
        one panic test (FB-G4) when the target lost ``panic_fraction`` of the models it had
        at the start of the phase, over all the entries together."""
        target = 1 - side
        if s.engaged or s.units[side] != HOLD or s.units[target] in (GONE, DEAD):
            return [(1.0, s)]
        out = []
        for q, wounds, dead, panics in self._phase_plan(s.wounds, entries, target,
                                                        s.units[target] == HOLD):
            if dead:
                out.append((q, _replace(s, wounds=wounds, units=_pair(s.units, target, DEAD))))
            elif panics:
                hold = self.p_ld[target]
                out.append((q * hold, _wounds(s, wounds)))
                out += [(q * (1 - hold) * r, x) for r, x in
                        self.flights(_wounds(s, wounds), target, self.flee_pmf[target])]
            else:
                out.append((q, _wounds(s, wounds)))
        return out

    def _phase_plan(self, wounds: tuple, entries: tuple, target: int, holding: bool) -> list:
        """[(probability, wounds after, destroyed, takes a panic test)] of one phase (kept per
        wounds): the losses of all its entries against the models at its start (FB-G4)."""
        key = (wounds, id(entries), target, holding)
        if key not in self._plans:
            after = {wounds: 1.0}
            for fire in entries:
                nxt: dict = defaultdict(float)
                for w, p in after.items():
                    if self.models_of(w, target) == 0:  # destroyed: the rest shoot at nothing
                        nxt[w] += p
                        continue
                    for q, w2 in self._wounded(w, fire, target):
                        nxt[w2] += p * q
                after = nxt
            at_start = self.models_of(wounds, target)
            fraction = Fraction(str(self.rules.combat.panic_fraction))  # 0.3 x 10 is 3, not 3.0..04
            plan = []
            for w, p in after.items():
                left = self.models_of(w, target)
                lost = at_start - left
                panics = (holding and left > 0 and fraction > 0 and lost > 0
                          and lost >= fraction * at_start)
                plan.append((p, w, left == 0, panics))
            self._plans[key] = plan
        return self._plans[key]

    def _round_table(self, s: State) -> tuple[np.ndarray, list]:
        """The combat engine's exact round from this fight's state, kept for the same fight
        reached by other paths: P of each outcome, and each outcome as (wounds, statuses,
        frenzy, once-only, duel, the units after it or None while the fight goes on, the
        unit that broke and got away or None, its flee roll given it got away)."""
        from mathhammer.fantasy.combat.exact import _round

        state5 = (s.wounds, s.cstatus, s.frenzied, s.once, s.duel)
        key = (state5, s.rnd)
        if key not in self._rounds:
            k = self.k
            items = list(_round(self.c, self.t, state5, s.rnd).items())
            outcomes = []
            for (w2, st2, fr2, once2, duel2, _diff, _raw), _ in items:
                units = fled = pmf = None
                over = self._over.get(st2)
                if over is None:  # a few statuses come back in every round: asked once
                    over = self._over[st2] = not k.any_engagement(np.array(st2, np.int64),
                                                                  self.t.e_pair)
                if over:
                    codes = (st2[0], st2[self.first_b])
                    units = tuple(DEAD if code in (k.DESTROYED, k.CAUGHT) else
                                  FLEE if code == k.FLED else HOLD for code in codes)
                    if FLEE in units:  # FB-C6: it got away, so its roll beat the pursuit
                        fled = units.index(FLEE)
                        pmf = self._escape_pmf(fled, chased=codes[1 - fled] == k.PURSUED)
                outcomes.append((w2, st2, fr2, once2, duel2, units, fled, pmf))
            self._rounds[key] = (np.array([q for _, q in items]), outcomes)
        return self._rounds[key]

    def _after_round(self, s: State, outcome) -> list:
        """[(probability, state)] after one outcome of the round: a unit that broke and
        got away flees its roll (FB-C6), and that flight counts towards its edge (FB-G4)."""
        w2, st2, fr2, once2, duel2, units, fled, pmf = outcome
        if units is None:  # still engaged: only the fight's own fields change
            return [(1.0, tuple.__new__(State, (w2, st2, fr2, once2, duel2, True, s.rnd + 1,
                                                s.room, s.units, s.charged)))]
        nxt = self.settle(_replace(s, wounds=w2, cstatus=st2, frenzied=fr2, once=once2,
                                   duel=duel2, rnd=s.rnd + 1, engaged=False, units=units))
        return [(1.0, nxt)] if fled is None else self.flights(nxt, fled, pmf)

    def settle(self, s: State) -> State:
        """Forget the room of a holding unit that can no longer flee (A has charged home and
        the enemy has no shooting or magic at it), so equal situations merge."""
        if not s.charged or s.engaged:
            return s
        room = tuple(NO_EDGE if s.units[side] == HOLD and not self.shot_at[side]
                     else s.room[side] for side in (0, 1))
        return s if room == s.room else _replace(s, room=room)

    def _escape_pmf(self, side: int, chased: bool) -> dict[int, float]:
        """The flee roll of a unit that broke, given it was not caught: a roll ``f`` escapes
        a pursuit below ``f`` (FB-C6), so P(f | escaped) ∝ P(f)·P(pursuit < f)."""
        key = (side, chased)
        if key not in self._escape:
            flee = self.flee_pmf[side]
            if chased:
                pursue = self.flee_pmf[1 - side]
                flee = {f: q * sum(r for x, r in pursue.items() if x < f) for f, q in flee.items()}
            total = sum(flee.values())
            self._escape[key] = {f: q / total for f, q in flee.items() if q > 0.0}
        return self._escape[key]

    def combat_round(self, s: State) -> list:
        if not s.engaged:
            return [(1.0, s)]
        p, outcomes = self._round_table(s)
        out = []
        rnd, room, units, charged = s.rnd + 1, s.room, s.units, s.charged
        for q, o in zip(p.tolist(), outcomes):
            if o[5] is None:  # still engaged (the bulk): built here, as _after_round would
                out.append((q, tuple.__new__(State, (*o[:5], True, rnd, room, units, charged))))
            else:
                out += [(q * r, s2) for r, s2 in self._after_round(s, o)]
        return out

    def steps(self, side: int, turn: int) -> list:
        """The steps of one player turn, in order, each a function of the state: rally,
        charge (A), the magic phase, the shooting phase, a round of combat (FB-G5)."""
        steps = [lambda x: self.rally(x, side)]
        if side == 0:
            steps.append(lambda x: self.charge(x, turn))
        for entries in self.phases[side]:
            steps.append(lambda x, e=entries: self.phase(x, e, side))
        steps.append(self.combat_round)
        return steps


_FIELD = {name: i for i, name in enumerate(State._fields)}


def _replace(s: State, **kw) -> State:
    """A new state, with what no longer matters reset, so equal situations merge: the combat
    bookkeeping once nobody is engaged; the room of a unit off the table or destroyed, and
    of a holding unit whose enemy is (nothing can make it flee again). Built field by
    field: the exact sum makes millions of states."""
    f = list(s)
    for name, value in kw.items():
        f[_FIELD[name]] = value
    wounds, cstatus, frenzied, once, duel, engaged, rnd, room, units, charged = f
    if not engaged and (rnd or duel or any(once)):
        cstatus, once, duel, rnd = (0,) * len(cstatus), (0,) * len(once), 0, 0
    out_a, out_b = units[0] >= GONE, units[1] >= GONE  # GONE or DEAD
    if out_a or out_b:
        ra = NO_EDGE if out_a or units[0] == HOLD else room[0]
        rb = NO_EDGE if out_b or units[1] == HOLD else room[1]
        if (ra, rb) != room:
            room = (ra, rb)
    return tuple.__new__(State, (wounds, cstatus, frenzied, once, duel, engaged, rnd, room,
                                 units, charged))


def _wounds(s: State, wounds: tuple) -> State:
    """The state with new wounds and nothing else changed (nothing to tidy)."""
    return tuple.__new__(State, (wounds,) + tuple(s[1:]))


def _with(s: State, side: int, status: int) -> State:
    return _replace(s, units=_pair(s.units, side, status))


def _pair(pair, side, value):
    out = list(pair)
    out[side] = value
    return tuple(out)


MAX_EXACT_STATES = 100_000  # beyond this the exact sum takes about a minute; Monte Carlo is seconds


def exact_by_states(tr: Turns) -> tuple[list[np.ndarray], dict]:
    """Per game turn, P(status) of each unit (2 x 4), and the final states: the sum state
    by state in a dictionary, which the array engine replaced (it is ~10 times slower at
    three game turns); kept as the reference the array engine is tested against."""
    states = {tr.start(): 1.0}
    by_turn = []
    for turn in range(1, tr.entry.turns + 1):
        for side in (0, 1):
            for step in tr.steps(side, turn):
                nxt: dict = defaultdict(float)
                for s, p in states.items():
                    for q, s2 in step(s):
                        if q > 0.0:
                            nxt[s2] += p * q
                states = nxt
                if len(states) > MAX_EXACT_STATES:
                    raise InputError("‹method›", f"the exact sum passed {MAX_EXACT_STATES:,} "
                                     f"states in game turn {turn}", "exact",
                                     "use ‹method› mc (the default), or fewer turns or models")
        table = np.zeros((2, 4))
        for s, p in states.items():
            for side in (0, 1):
                table[side, s.units[side]] += p
        by_turn.append(table)
    return by_turn, states


def kernel_inputs(tr: Turns) -> tuple:
    """The arrays of :func:`mathhammer.fantasy.kernels.turn.turn_trials` (see its layouts),
    from the same tables the exact sum reads."""
    from mathhammer.fantasy.combat.turn_arrays import panic_threshold

    entry = tr.entry
    entries = list(entry.fire) + ([entry.stand_and_shoot] if entry.stand_and_shoot else [])
    target_of = [1 if f.side == "a" else 0 for f in entries]
    most = max(tr.shootable(tuple([0] * tr.t.b_int.shape[0]), side) for side in (0, 1))
    tables = {}
    for e, fire in enumerate(entries):
        sas = fire is entry.stand_and_shoot
        full = tr.shootable(tuple([0] * tr.t.b_int.shape[0]), target_of[e])
        for m in range(1, full + 1):
            tables[e, m] = tr._fire_table(fire, target_of[e], m, sas)
    width = max((len(w) for w, _ in tables.values()), default=1)
    fire_cdf = np.ones((max(len(entries), 1), most + 1, width))
    fire_cast = np.ones(max(len(entries), 1))
    for (e, m), (wounds, p_cast) in tables.items():
        cdf = np.cumsum(np.asarray(wounds, np.float64))
        fire_cdf[e, m, :cdf.size] = cdf / cdf[-1]
        fire_cast[e] = p_cast
    phase_of = np.full((2, 2, 8), -1, np.int64)
    for side in (0, 1):
        for n, phase in enumerate(tr.phases[side]):
            for i, fire in enumerate(phase):
                phase_of[side, n, i] = next(e for e, f in enumerate(entry.fire) if f is fire)
    shot = np.zeros((2, max(len(x) for x in tr.shot), 3), np.int64)
    for side in (0, 1):
        for i, row in enumerate(tr.shot[side]):
            shot[side, i] = row
    start = max(tr.start_models) + 1
    panic_need = np.array([[panic_threshold(tr.rules, m) for m in range(start)]] * 2, np.int64)

    def rolls(pmfs):
        width = max(len(p) for p in pmfs)
        val, cdf = np.zeros((len(pmfs), width)), np.ones((len(pmfs), width))
        for i, pmf in enumerate(pmfs):
            keys = sorted(pmf)
            val[i, :len(keys)] = keys
            val[i, len(keys):] = keys[-1]
            c = np.cumsum([pmf[f] for f in keys])
            cdf[i, :len(keys)] = c / c[-1]
        return val, cdf

    flee_val, flee_cdf = rolls(tr.flee_pmf)
    escapes = [tr._escape_pmf(side, chased) for side in (0, 1) for chased in (False, True)]
    escape_val, escape_cdf = rolls(escapes)
    escape_val, escape_cdf = escape_val.reshape(2, 2, -1), escape_cdf.reshape(2, 2, -1)
    q = np.array([q for q, _, _ in tr.charge_rolls])
    charge_cdf = np.cumsum(q) / q.sum()
    charge_reach = np.array([float(r) for _, r, _ in tr.charge_rolls])
    charge_move = np.array([float(m) for _, _, m in tr.charge_rolls])
    quarter_rule = tr.rules.combat.rally_below_quarter_needs_double_one
    real = np.array([tr.length, float(entry.edge), float(tr.units[1].movement), *tr.p_ld,
                     *(1 / 36 if quarter_rule else p for p in tr.p_ld), 0.0])
    sas_index = len(entries) - 1 if entry.stand_and_shoot is not None else -1
    any_distance = tr.rules.combat.stand_and_shoot_min_distance == "none"
    reaction = {"hold": 0, "flee": 1, "stand-and-shoot": 2}[entry.reaction]
    ints = np.array([entry.turns, entry.charge_turn, reaction, int(any_distance), tr.first_b,
                     sas_index, *tr.start_models], np.int64)
    return (*tr.t.kernel_args(), tr.t.charged, fire_cdf, np.array(target_of or [0], np.int64),
            fire_cast, phase_of, shot, np.array([len(x) for x in tr.shot], np.int64),
            panic_need, flee_val, flee_cdf, escape_val, escape_cdf, charge_reach, charge_move,
            charge_cdf, real, ints)


def _monte_carlo(tr: Turns, config: MonteCarloConfig):
    """The chunked engine (seeds, threads, --precision) over the numba walk: each chunk a
    kernel call that releases the GIL, so the threads share the cores."""
    from mathhammer import kernels
    from mathhammer.engine import simulate

    k = kernels.load("mathhammer.fantasy.kernels.turn")
    args = kernel_inputs(tr)
    turns = tr.entry.turns

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        tally = {"counts": np.zeros((turns, 2, 4), np.int64),
                 "left_a": np.zeros(tr.start_models[0] + 1, np.int64),
                 "left_b": np.zeros(tr.start_models[1] + 1, np.int64)}
        k.turn_trials(*args, state, np.int64(n), tally["counts"], tally["left_a"],
                      tally["left_b"])
        return tally

    def probabilities(tally, n):
        return tally["counts"].ravel() / n

    return simulate(run_chunk, config, probabilities)


def parse_fire(text: str, where: str, side: str | None = None) -> dict:
    """``SIDE:NAME:KEY=VALUE,...`` (``fb turn --fire``), or ``KEY=VALUE,...`` when ``side``
    is given (``--stand-and-shoot``: B's shots, FB-G2), as the ``[[turn.fire]]`` table
    that a scenario file holds: ``a:Crossbows:shots=10,bs=3,strength=4``."""
    text = text.strip()
    if side is None:
        parts = text.split(":", 2)
        if len(parts) != 3 or parts[0] not in ("a", "b") or not parts[1].strip():
            raise InputError(where, "is SIDE:NAME:KEY=VALUE,... (SIDE a or b)", text,
                             'e.g. "a:Crossbows:shots=10,bs=3,strength=4"')
        side, name, rest = parts[0], parts[1].strip(), parts[2]
    else:
        name, rest = "Stand and shoot", text
    entry: dict = {"name": name, "side": side}
    fields = FireEntry.model_fields
    for item in (x.strip() for x in rest.split(",")):
        key, eq, value = item.partition("=")
        key, value = key.strip().replace("-", "_"), value.strip()
        if not eq or key not in fields or key in ("name", "side") or not value:
            keys = ", ".join(k for k in fields if k not in ("name", "side"))
            raise InputError(where, f"each part is KEY=VALUE with KEY one of {keys}", item,
                             'e.g. "shots=10,bs=3,strength=3"')
        entry[key] = value if key in ("shots", "multiple_wounds") else _whole(value, where, key)
    return entry


def _whole(text: str, where: str, key: str) -> int:
    if not text.lstrip("-").isdigit() or len(text) > 6:
        raise InputError(where, f"{key} must be a whole number", text, f"e.g. {key}=3")
    return int(text)


def validated_turn(turn: dict, where, error=ProfileError) -> TurnEntry:
    """The ``[turn]`` table (or the same keys from ``fb turn`` options) checked: errors name
    ``where(key)`` (``file: turn.distance`` for a file, ``distance`` for options)."""
    try:
        entry = TurnEntry.model_validate(turn)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        if error is ProfileError:
            from mathhammer.profiles import pydantic_errors

            raise pydantic_errors(err, where(None)) from None
        got, name = first.get("input"), str(first["loc"][0])
        inner = ".".join(f"entry {p + 1}," if isinstance(p, int) else str(p)
                         for p in first["loc"][1:]).replace(",.", ", ")  # fire.0.strength
        what = first["msg"][:1].lower() + first["msg"][1:]
        hint = {"reaction": "use hold, flee or stand-and-shoot",
                "distance": "use e.g. 14 (inches, 0..72)", "turns": "use 1..8",
                "edge": "use e.g. 12 (inches, 0..72)", "charge_turn": "use 1..8"}
        raise error(where(name), f"{inner}: {what}" if inner else what,
                    None if isinstance(got, (dict, list)) else got,
                    hint.get(name, "see fb turn ‹help› for the keys and their ranges")) from None
    if entry.reaction == "stand-and-shoot" and entry.stand_and_shoot is None:
        raise error(where("stand_and_shoot"), "is needed with reaction stand-and-shoot (B's "
                    "shots at the charger)", None, "give B's shots, bs and strength, e.g. "
                    "shots=10, bs=3, strength=3")
    sas = entry.stand_and_shoot
    if sas is not None and entry.reaction != "stand-and-shoot":
        raise error(where("stand_and_shoot"), "is B's shots at the charger: it goes with "
                    "reaction stand-and-shoot", entry.reaction,
                    "set the reaction to stand-and-shoot or drop the stand and shoot shots")
    if sas is not None and (sas.side != "b" or sas.bs is None or sas.cast_dice is not None):
        raise error(where("stand_and_shoot"), "is shooting by the charged unit: side b with "
                    "bs, no cast_dice", sas.side, "use side b, bs 3 (FB-G2)")
    for i, f in enumerate(entry.fire):
        if (f.cast_dice is None) != (f.casting_value is None):
            raise error(where(f"fire[{i}]"), "a missile gives cast_dice and casting_value "
                        "together", None, "add both or neither")
        if f.bs is None and f.cast_dice is None:
            raise error(where(f"fire[{i}]"), "give bs (shooting) or cast_dice and "
                        "casting_value (a magic missile)", None, "add bs = 3")
    return entry


def run_turn_scenario(turn: dict, a, b, rules, source: str, *, title: str = "", method: str,
                      config: MonteCarloConfig, check: bool) -> Report:
    """``kind = "turn"``: side ``a`` charges side ``b``; ``turn`` (the ``[turn]`` table) says
    how (see the module docstring). The scenario loader builds the sides and the ruleset."""
    entry = validated_turn(turn, lambda key: f"{source}: turn" + (f".{key}" if key else ""))
    return play_turns(entry, a, b, rules, title=title, method=method, config=config,
                      check=check)


#: Monte Carlo trials when none are asked for: every probability to ±0.2 percentage points
#: (95% half-width), however close to 1/2 it is (:func:`engine.trials_for_precision`)
DEFAULT_PRECISION = 0.002
DEFAULT_TRIALS = 240_088


def play_turns(entry: TurnEntry, a, b, rules, *, title: str = "", method: str,
               config: MonteCarloConfig, check: bool) -> Report:
    """The report of ``entry``'s game turns, side ``a`` charging side ``b`` (FB-G5)."""
    from dataclasses import replace

    from mathhammer.fantasy.headlines import fb_turn_headline
    from mathhammer.query import answer

    # a precision target (asked, or the default when no trial count is) sets the trials:
    # enough for the widest interval, at p = 1/2, so every probability meets it; past the
    # engine's first adaptive batch (4 x 2^18 trials) the engine's adaptive run is cheaper
    from mathhammer.engine import ADAPTIVE_CHUNK, ADAPTIVE_MIN_BATCH, trials_for_precision

    asked = config.precision is not None
    target = config.precision if asked else (
        DEFAULT_PRECISION if config.n_trials_is_default else None)
    sized = target is not None and trials_for_precision(target) <= (
        ADAPTIVE_MIN_BATCH * ADAPTIVE_CHUNK)
    if sized:  # --n-trials with --precision: at least that many, as the engine does
        least = 1 if config.n_trials_is_default else config.n_trials
        config = replace(config, n_trials=max(trials_for_precision(target), least),
                         precision=None)

    tr = Turns(a, b, rules, entry)
    names = (a.unit.name, b.unit.name)
    if names[0] == names[1]:  # the same profile both sides: keep their results apart
        names = (f"{names[0]} (A)", f"{names[1]} (B)")
    span = f"{entry.turns} game turn{'s' if entry.turns > 1 else ''}"
    title = title or (f"{names[0]} charge {names[1]} from {entry.distance:g}\" "
                      f"({rules.name}, {span}, reaction {entry.reaction})")

    def results_of(tables, est) -> dict[str, Estimate]:
        out = {}
        for t, table in enumerate(tables, start=1):
            for side in (0, 1):
                for code, status in enumerate(STATUSES):
                    out[f"p_{status}[{names[side]}, turn {t}]"] = est(table[side, code])
        return out

    info = {"ruleset": rules.name,
            "sequence": "each game turn: A rallies, charges (FB-G1..G3), casts (magic phase), "
                        "shoots (shooting phase), fights; then B rallies, casts, shoots, fights "
                        "(FB-G5); one panic test a phase on that phase's losses (FB-G4)",
            "decisions": "A declares its charge each turn until one reaches (a failed charge is "
                         "declared again next turn; after a combat ends nobody charges again); "
                         "a fleeing target is not charged; every flight (flee reaction, panic, "
                         "break test, failed rally) counts: a unit leaves the table when its "
                         f"flights reach its edge, {entry.edge:g}\" from its start plus its "
                         "moves towards the enemy, a rallied unit staying where it stopped "
                         "(FB-G4); missiles are not dispelled"}

    def exact() -> Report:
        from mathhammer.fantasy.combat.turn_arrays import exact_turns

        tables, final = exact_turns(tr)
        dists = {f"models_left_{'ab'[side]}": Distribution.exact(final.models_left(side))
                 for side in (0, 1)}
        report = Report("fantasy.turn", "exact", results_of(tables, lambda v: Estimate.exact(
            float(min(max(v, 0.0), 1.0)))), dists, info=dict(info), title=title)
        report.info["states"] = int(final.P.size)
        return report

    def monte_carlo(cfg: MonteCarloConfig) -> Report:
        if cfg.n_trials > 10**7:
            raise InputError("‹n_trials›", "at most 10,000,000 for a turn scenario", cfg.n_trials,
                             "use ‹n_trials› 100000")
        run = _monte_carlo(tr, cfg)
        n, t = run.n_trials, run.tally
        dists = {"models_left_a": Distribution.from_counts(t["left_a"]),
                 "models_left_b": Distribution.from_counts(t["left_b"])}
        return Report("fantasy.turn", "mc", results_of(list(t["counts"]),
                                              lambda c: Estimate.proportion(int(c), n)),
                      dists, n_trials=n, seed=run.seed, info=dict(info), title=title)

    # auto: Monte Carlo (the exact state grows fast with turns), exact when asked or checked
    use = "mc" if method == "auto" and not check else method
    report = answer("fantasy.turn", method=use, exact=exact, monte_carlo=monte_carlo, config=config,
                    check=check)
    report.headline = fb_turn_headline(report, names, entry.turns)
    if sized and report.method != "exact":
        report.info["trials"] = (f"{config.n_trials:,}: every probability to "
                                 f"±{100 * target:g} percentage points (95%), "
                                 + ("as asked" if asked else "the default"))
    return report



def models_left_by_states(tr: Turns, final: dict) -> dict[str, Distribution]:
    """The models-left distributions of :func:`exact_by_states`'s final states."""
    dists = {}
    for side, name in ((0, "models_left_a"), (1, "models_left_b")):
        probs = np.zeros(tr.start_models[side] + 1)
        for s, p in final.items():
            probs[0 if s.units[side] == DEAD else tr.models_of(s.wounds, side)] += p
        dists[name] = Distribution.exact(probs)
    return dists
