"""The exact sum of ``fb turn`` (FB-G5) over arrays of states.

The joint state is held as integer columns, one entry per state: the wounds on every body
(``W``, an id of the wounds tuple), the combat's own fields (``C``: statuses, Frenzy,
once-only attacks, the duel, engaged, the round), each unit's room to its table edge
(``RA``, ``RB``: ids of the inches), each unit's holding / fleeing / fled / destroyed
(``UA``, ``UB``), A has charged home (``H``) and a flight still to be made (``X``: a panic
test failed or a unit broke, its flight next), with the probability ``P`` beside them.

Each step of a player turn is split into sub-steps that read only a few columns (its
*key*): the rally reads the room of the fleeing unit, the shooting phase the wounds, the
charge the two rooms, a combat round the wounds and the combat fields. For every distinct
key a sub-step's outcomes — (probability, the columns it sets) — are worked out once in
Python from the very tables of :class:`~mathhammer.fantasy.combat.turn.Turns` (the
shooting chain, the charge roll, the flee rolls, the combat engine's exact round) and kept
for the later turns; applying the sub-step is then a sparse product done by numpy: each
state row repeated once per outcome of its key, the new columns set, equal states merged.
The Python work grows with the distinct keys, not with the states, which multiply.

Rooms that no longer matter are forgotten after every sub-step (:meth:`Sum.tidy`): the
room of a unit off the table or destroyed, of a holding unit whose enemy is, and, once A
has charged home and nobody is engaged, of a holding unit that no enemy shoots at. The
combat's round counts only as the first or a later one (who is fresh and who charged), so
the later rounds of a fight are one state (the state-by-state sum counts them apart).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np

from mathhammer.errors import InputError

HOLD, FLEE, GONE, DEAD = range(4)  # as combat_turn
COLUMNS = ("W", "C", "RA", "RB", "UA", "UB", "H", "X")
KEEP = -1  # an outcome leaves this column as it was

#: states the exact sum may hold after a sub-step, and rows a sub-step may make before
#: equal states are merged (memory: ~80 bytes a row)
MAX_STATES = 1_000_000
MAX_ROWS = 12_000_000


class Interned:
    """Values (wounds tuples, combat fields, inches) numbered in order of first sight."""

    def __init__(self) -> None:
        self.values: list = []
        self.ids: dict = {}

    def __call__(self, value) -> int:
        i = self.ids.get(value)
        if i is None:
            i = self.ids[value] = len(self.values)
            self.values.append(value)
        return i

    def __len__(self) -> int:
        return len(self.values)


class SubStep:
    """A sub-step: the rows it acts on, the columns it reads, its outcomes per key.

    ``outcomes(key)`` returns [(probability, {column: new id})]; columns not named keep
    their value. The outcomes of a key are kept (the same key comes back every turn)."""

    def __init__(self, name: str, key: tuple, outcomes: Callable,
                 active: Callable) -> None:
        self.name, self.key, self.outcomes, self.active = name, key, outcomes, active
        self.table: dict[tuple, tuple[int, int]] = {}  # key -> (first outcome, count)
        self.p: list[float] = []
        self.set: dict[str, list[int]] = {c: [] for c in COLUMNS}
        self._arrays: tuple | None = None

    def rows_of(self, key: tuple) -> tuple[int, int]:
        where = self.table.get(key)
        if where is None:
            out = self.outcomes(key)
            where = self.table[key] = (len(self.p), len(out))
            self.p += [q for q, _ in out]
            for c in COLUMNS:
                self.set[c] += [new.get(c, KEEP) for _, new in out]
            self._arrays = None
        return where

    def arrays(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        if self._arrays is None:
            self._arrays = (np.array(self.p, np.float64),
                            {c: np.array(v, np.int64) for c, v in self.set.items()})
        return self._arrays


class Sum:
    """The exact sum of a :class:`~mathhammer.fantasy.combat.turn.Turns` over arrays."""

    def __init__(self, tr) -> None:
        self.tr = tr
        self.wounds, self.combat, self.rooms, self.pending = (Interned(), Interned(),
                                                              Interned(), Interned())
        self.no_edge = self.rooms(float("inf"))
        self.pending(None)  # X = 0: no flight to make
        start = tr.start()
        self.P = np.ones(1)
        self.cols = {"W": [self.wounds(start.wounds)], "C": [self.combat_id(start)],
                     "RA": [self.rooms(start.room[0])], "RB": [self.rooms(start.room[1])],
                     "UA": [HOLD], "UB": [HOLD], "H": [0], "X": [0]}
        self.cols = {c: np.array(v, np.int64) for c, v in self.cols.items()}
        self._lookups: dict = {}

    # ---- ids ------------------------------------------------------------------------------
    def combat_id(self, s) -> int:
        return self.combat((s.cstatus, s.frenzied, s.once, s.duel, s.engaged, s.rnd))

    def lookup(self, name: str, values: Interned, fn: Callable) -> np.ndarray:
        """``fn`` of every interned value as an array (extended as values are added)."""
        have = self._lookups.get(name)
        if have is None or len(have) < len(values):
            start = 0 if have is None else len(have)
            more = np.array([fn(v) for v in values.values[start:]])
            have = more if have is None else np.concatenate([have, more.astype(have.dtype)])
            self._lookups[name] = have
        return have

    def engaged(self) -> np.ndarray:
        return self.lookup("engaged", self.combat, lambda c: bool(c[4]))[self.cols["C"]]

    def room_values(self) -> np.ndarray:
        return self.lookup("room", self.rooms, float)

    # ---- one sub-step -----------------------------------------------------------------------
    def apply(self, step: SubStep) -> None:
        cols, P = self.cols, self.P
        mask = step.active(self)
        idx = np.flatnonzero(mask)
        if idx.size == 0:
            return
        # a key is columns, or a column seen through a lookup (the wounds as "below a quarter")
        keys = [cols[c][idx] if isinstance(c, str) else c(self)[idx] for c in step.key]
        sizes = [self._size(c) if isinstance(c, str) else int(k.max(initial=0)) + 1
                 for c, k in zip(step.key, keys, strict=True)]
        distinct, inverse = group(keys, sizes)
        where = np.array([step.rows_of(key) for key in zip(*(d.tolist() for d in distinct))],
                         np.int64).reshape(-1, 2)
        out_p, out_set = step.arrays()
        count = where[inverse, 1]
        total = int(count.sum())
        if total + (P.size - idx.size) > MAX_ROWS:
            raise InputError("method", f"the exact sum would hold {total:,} rows in one step "
                             f"({step.name})", "exact", "use Monte Carlo, or fewer turns or models")
        rows = np.repeat(idx, count)
        ends = np.cumsum(count)
        # outcome of each new row: its key's first outcome plus its place among them
        offset = np.repeat(where[inverse, 0] - (ends - count), count) + np.arange(total)
        new_p = P[rows] * out_p[offset]
        keep = ~mask
        merged_cols = {}
        for c in COLUMNS:
            value = cols[c][rows]
            chosen = out_set[c][offset]
            changed = chosen != KEEP
            if changed.any():
                value = np.where(changed, chosen, value)
            merged_cols[c] = np.concatenate([cols[c][keep], value])
        self.cols = merged_cols
        self.P = np.concatenate([P[keep], new_p])
        self.tidy()
        self.merge()

    def _size(self, column: str) -> int:
        return {"W": len(self.wounds), "C": len(self.combat), "RA": len(self.rooms),
                "RB": len(self.rooms), "UA": 4, "UB": 4, "H": 2, "X": len(self.pending)}[column]

    def tidy(self) -> None:
        """Forget rooms that no longer matter (see the module docstring), so equal
        situations merge: the same forgetting as ``combat_turn._replace`` and ``settle``."""
        cols, tr = self.cols, self.tr
        ua, ub = cols["UA"], cols["UB"]
        out_a, out_b = ua >= GONE, ub >= GONE
        forget_a = out_a | (out_b & (ua == HOLD))
        forget_b = out_b | (out_a & (ub == HOLD))
        settled = (cols["H"] == 1) & ~self.engaged()
        if not tr.shot_at[0]:
            forget_a |= settled & (ua == HOLD)
        if not tr.shot_at[1]:
            forget_b |= settled & (ub == HOLD)
        cols["RA"] = np.where(forget_a, self.no_edge, cols["RA"])
        cols["RB"] = np.where(forget_b, self.no_edge, cols["RB"])

    def merge(self) -> None:
        """Equal states summed into one row."""
        distinct, inverse = group([self.cols[c] for c in COLUMNS],
                                  [self._size(c) for c in COLUMNS])
        self.P = np.bincount(inverse, weights=self.P, minlength=distinct[0].size)
        self.cols = dict(zip(COLUMNS, distinct, strict=True))
        if self.P.size > MAX_STATES:
            raise InputError("method", f"the exact sum passed {MAX_STATES:,} states",
                             "exact", "use Monte Carlo, or fewer turns or models")

    # ---- results ----------------------------------------------------------------------------
    def statuses(self) -> np.ndarray:
        """P(status) of each unit now (2 x 4)."""
        return np.stack([np.bincount(self.cols[c], weights=self.P, minlength=4)
                         for c in ("UA", "UB")])

    def models_left(self, side: int) -> np.ndarray:
        tr = self.tr
        models = self.lookup(f"models{side}", self.wounds, lambda w: tr.models_of(w, side))
        left = np.where(self.cols["UA" if side == 0 else "UB"] == DEAD, 0,
                        models[self.cols["W"]])
        return np.bincount(left, weights=self.P, minlength=tr.start_models[side] + 1)


def group(columns: list[np.ndarray], sizes: list[int]) -> tuple[list[np.ndarray], np.ndarray]:
    """The distinct rows of ``columns`` (ids below ``sizes``), as columns, and each row's
    place among them: the columns packed into one number and sorted once."""
    radix = 1
    for size in sizes:
        radix *= size
    if radix >= 2**62:  # too many ids to pack into one number: sort the rows themselves
        rows, inverse = np.unique(np.stack(columns), axis=1, return_inverse=True)
        return list(rows), inverse.reshape(-1)
    code = np.zeros(columns[0].size, np.int64)
    for column, size in zip(columns, sizes, strict=True):
        code = code * size + column
    distinct, inverse = np.unique(code, return_inverse=True)
    out = []
    for size in reversed(sizes):  # unpacked from the number itself: no first row needed
        out.append(distinct % size)
        distinct = distinct // size
    return out[::-1], inverse.reshape(-1)


# ---- the sub-steps of a player turn (FB-G5), each from the Turns tables ----------------------

def _unit(side: int) -> str:
    return "UA" if side == 0 else "UB"


def _room(side: int) -> str:
    return "RA" if side == 0 else "RB"


def build_steps(sm: Sum) -> dict:
    """Every sub-step, by name; each keeps its outcomes per key for all the turns."""
    tr = sm.tr
    steps: dict[str, SubStep] = {}

    def flight_outcomes(side: int, pmf: dict, room_id: int, p: float = 1.0) -> list:
        """A flight of ``pmf`` inches from the unit's room (FB-G4): off the table when it
        reaches the edge; the rolls that do are one outcome (``Turns.flights``)."""
        room = sm.rooms.values[room_id]
        key = (side, id(pmf), room)
        if key not in tr._flights:
            off = sum(q for f, q in pmf.items() if f >= room)
            tr._flights[key] = ([(off, None)] if off else []) + [
                (q, f) for f, q in pmf.items() if f < room]
        out = []
        for q, f in tr._flights[key]:
            left = 0.0 if f is None else room - f
            if left <= 0:
                out.append((p * q, {_unit(side): GONE, _room(side): sm.no_edge}))
            else:
                out.append((p * q, {_unit(side): FLEE, _room(side): sm.rooms(left)}))
        return out

    for side in (0, 1):
        # FB-G4: a fleeing unit rallies on Ld (below a quarter: a double 1), else flees on
        quarter_rule = tr.rules.combat.rally_below_quarter_needs_double_one

        def below_quarter(sm, side=side):
            left = sm.lookup(f"quarter{side}", sm.wounds, lambda w: int(
                tr.models_of(w, side) * 4 < tr.start_models[side]))
            return left[sm.cols["W"]]

        def rally(key, side=side):
            quarter, room_id = key
            p = 1 / 36 if quarter and quarter_rule else tr.p_ld[side]
            return [(p, {_unit(side): HOLD})] + flight_outcomes(side, tr.flee_pmf[side],
                                                                  room_id, 1 - p)

        steps[f"rally{side}"] = SubStep(
            f"rally {'AB'[side]}", (below_quarter, _room(side)), rally,
            lambda sm, side=side: sm.cols[_unit(side)] == FLEE)

    entry = tr.entry

    def may_charge(sm: Sum) -> np.ndarray:
        c = sm.cols
        return (c["H"] == 0) & (c["UA"] == HOLD) & (c["UB"] == HOLD) & ~sm.engaged()

    if entry.stand_and_shoot is not None:
        anywhere = tr.rules.combat.stand_and_shoot_min_distance == "none"
        movement = float(tr.units[1].movement)

        def stand_and_shoot_rows(sm: Sum) -> np.ndarray:
            """FB-G2 (``Turns.stand_and_shoot_allowed``): not at a charger within B's M."""
            if anywhere:
                return may_charge(sm)
            rooms = sm.room_values()
            distance = tr.length - rooms[sm.cols["RA"]] - rooms[sm.cols["RB"]]
            return may_charge(sm) & (distance > movement)

        def stand_and_shoot(key):
            (wid,) = key
            out = []
            for q, wounds in tr._wounded(sm.wounds.values[wid], entry.stand_and_shoot, 0, True):
                new = {"W": sm.wounds(wounds)}
                if tr.models_of(wounds, 0) == 0:
                    new["UA"] = DEAD
                out.append((q, new))
            return out

        steps["stand_and_shoot"] = SubStep("stand and shoot", ("W",), stand_and_shoot,
                                           stand_and_shoot_rows)

    def charge(key):
        ra_id, rb_id, cid = key
        room_a, room_b = sm.rooms.values[ra_id], sm.rooms.values[rb_id]
        distance = tr.length - room_a - room_b
        cstatus, frenzied, once, duel, _, _ = sm.combat.values[cid]
        out = []
        for p, what, f, moved in tr._charge_plan(distance, room_b):
            if what == "caught":
                out.append((p, {"UB": DEAD, "H": 1}))
            elif what == "contact":  # A moves into contact, where B stands (FB-G3)
                fight = ((tr.k.IN,) * len(cstatus), frenzied, once, duel, True, 0)
                out.append((p, {"RA": sm.rooms(room_a + distance), "H": 1,
                                "C": sm.combat(fight)}))
            else:
                new = {"RA": sm.rooms(room_a + moved)}
                if f:  # B fled the charge (FB-G2) and A moved on (FB-G3)
                    left = room_b - f
                    new.update({"UB": GONE, "RB": sm.no_edge} if left <= 0 else
                               {"UB": FLEE, "RB": sm.rooms(left)})
                out.append((p, new))
        return out

    steps["charge"] = SubStep("charge", ("RA", "RB", "C"), charge, may_charge)

    for side in (0, 1):
        target = 1 - side
        for n, entries in enumerate(tr.phases[side]):
            def shots(key, entries=entries, side=side, target=target):
                wid, holding = key
                out = []
                for q, wounds, dead, panics in tr._phase_plan(sm.wounds.values[wid], entries,
                                                              target, holding == HOLD):
                    new = {"W": sm.wounds(wounds)}
                    if dead:
                        new[_unit(target)] = DEAD
                    elif panics:
                        new["X"] = sm.pending(("panic", target))
                    out.append((q, new))
                return out

            def shooting(sm, side=side, target=target):
                c = sm.cols
                return ((c[_unit(side)] == HOLD) & (c[_unit(target)] < GONE) & ~sm.engaged())

            steps[f"phase{side}.{n}"] = SubStep(f"phase {'AB'[side]} {n + 1}",
                                                ("W", _unit(target)), shots, shooting)

    flights_of: dict[int, tuple] = {}

    def pending_flight(key):
        """FB-G4: a failed panic test, or a unit that broke and got away (FB-C6), flees."""
        xid, ra_id, rb_id = key
        what = sm.pending.values[xid]
        side = what[1]
        room_id = (ra_id, rb_id)[side]
        if what[0] == "panic":
            hold = tr.p_ld[side]
            return [(hold, {"X": 0})] + [
                (q, {**new, "X": 0}) for q, new in
                flight_outcomes(side, tr.flee_pmf[side], room_id, 1 - hold)]
        return [(q, {**new, "X": 0}) for q, new in
                flight_outcomes(side, flights_of[what[2]], room_id)]

    steps["flight"] = SubStep("flight", ("X", "RA", "RB"), pending_flight,
                              lambda sm: sm.cols["X"] != 0)

    k = tr.k
    ends: dict = {}  # statuses after a round -> (UA, UB, pending flight) or None: going on

    def end_of(st2) -> tuple | None:
        if st2 not in ends:
            if k.any_engagement(np.array(st2, np.int64), tr.t.e_pair):
                ends[st2] = None
            else:
                codes = (st2[0], st2[tr.first_b])
                units = tuple(DEAD if code in (k.DESTROYED, k.CAUGHT) else
                              FLEE if code == k.FLED else HOLD for code in codes)
                x = 0
                if FLEE in units:  # FB-C6: it got away, so its roll beat the pursuit
                    fled = units.index(FLEE)
                    pmf = tr._escape_pmf(fled, chased=codes[1 - fled] == k.PURSUED)
                    flights_of[id(pmf)] = pmf
                    x = sm.pending(("break", fled, id(pmf)))
                ends[st2] = (units[0], units[1], x)
        return ends[st2]

    def combat_round(key):
        """The combat engine's exact round (FB-C1..C7) from this fight's state; outcomes
        that differ only in the combat score are one here."""
        from mathhammer.fantasy.combat.exact import _round

        wid, cid = key
        cst, frenzied, once, duel, _, rnd = sm.combat.values[cid]
        state5 = (sm.wounds.values[wid], cst, frenzied, once, duel)
        merged: dict = {}
        for (w2, st2, fr2, once2, duel2, _diff, _raw), q in _round(tr.c, tr.t, state5,
                                                                  rnd).items():
            end = end_of(st2)
            if end is None:  # the fight goes on; a round is only first or later (fresh,
                # charged): later rounds are one, so the same fight merges whatever its round
                new = (sm.wounds(w2), sm.combat((st2, fr2, once2, duel2, True, 1)),
                       KEEP, KEEP, KEEP)
            else:  # over: the combat's fields reset (as _replace does), Frenzy kept
                new = (sm.wounds(w2), sm.combat(((0,) * len(st2), fr2, (0,) * len(once2), 0,
                                                 False, 0)), *end)
            merged[new] = merged.get(new, 0.0) + q
        return [(q, dict(zip(("W", "C", "UA", "UB", "X"), new, strict=True)))
                for new, q in merged.items()]

    steps["combat"] = SubStep("combat", ("W", "C"), combat_round, lambda sm: sm.engaged())
    return steps


def turn_order(tr, steps: dict, side: int) -> list[str]:
    """The sub-steps of one player turn (FB-G5): rally, A's charge, each phase with its
    panic flight, a round of combat and the flight of a unit that broke."""
    order = [f"rally{side}"]
    if side == 0:
        order += (["stand_and_shoot"] if "stand_and_shoot" in steps else []) + ["charge"]
    for n in range(len(tr.phases[side])):
        order += [f"phase{side}.{n}", "flight"]
    return order + ["combat", "flight"]


def exact_turns(tr) -> tuple[list[np.ndarray], Sum]:
    """Per game turn, P(status) of each unit (2 x 4), and the final sum."""
    sm = Sum(tr)
    steps = build_steps(sm)
    by_turn = []
    for turn in range(1, tr.entry.turns + 1):
        for side in (0, 1):
            for name in turn_order(tr, steps, side):
                if name in ("charge", "stand_and_shoot") and turn < tr.entry.charge_turn:
                    continue
                sm.apply(steps[name])
        by_turn.append(sm.statuses())
    return by_turn, sm


def panic_threshold(rules, at_start: int) -> int:
    """FB-G4: the fewest losses of a phase that make a unit of ``at_start`` models test."""
    fraction = Fraction(str(rules.combat.panic_fraction))
    if fraction <= 0:  # "0 = off"
        return 2**40
    need = fraction * at_start
    return max(1, -(-need.numerator // need.denominator))
