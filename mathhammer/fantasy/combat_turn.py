"""Whole game turns (FB-G5): ``mathhammer run SCENARIO.toml`` with ``kind = "turn"`` (``fb turn``).

Unit A charges unit B across ``turns`` game turns; each game turn is A's player turn,
then B's:

* **A's turn**: a fleeing A tests to rally (FB-G4); A, holding and not yet engaged,
  declares its charge from ``distance`` inches (from ``charge_turn`` on): the charge roll
  (FB-G1) against B's reaction (FB-G2: hold, stand and shoot, flee); a failed charge
  moves the charger (FB-G3); then A's magic missiles and shooting at B when the two are
  not in combat (a panic test when B loses ``panic_fraction`` of its models in the
  phase, FB-G4); then a round of combat when engaged (FB-C1..C7);
* **B's turn**: a fleeing B rallies; B's missiles and shooting at A when not in combat
  (with A's panic test); then a round of combat.

The state — every body's wounds, the combat statuses, the distance, each unit's
holding / fleeing / off the table / destroyed — is carried exactly: each step's outcome
distribution comes from the shooting chain (:func:`chain.chain_exact`), the magic
engine (P(cast)), the charge dice and the combat engine's exact round
(:func:`combat_exact._round`), and the exact engine sums them. The Monte Carlo engine
draws every trial's steps from the same tables (``--check`` compares the two).

Decisions: one charge (after a combat ends nobody charges again); a fleeing target is
not charged; a unit leaves the table when the flights of its failed rallies (and of a
flee reaction) reach ``edge`` inches; missiles are not dispelled (the caster's P(cast)).
"""

from __future__ import annotations

from collections import defaultdict
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
    edge: float = Field(12.0, ge=0, le=72, description="inches a fleeing unit has to the table edge")
    fire: tuple[FireEntry, ...] = Field((), max_length=8, description="shooting and missiles")


class State(NamedTuple):
    wounds: tuple[int, ...]
    cstatus: tuple[int, ...]  # combat statuses (kernel codes) while engaged
    frenzied: tuple[int, ...]
    once: tuple[int, ...]
    duel: int
    engaged: bool
    rnd: int
    distance: float
    units: tuple[int, int]  # HOLD / FLEE / GONE / DEAD of A and B
    flight: tuple[float, float]
    charged: bool  # A has charged home once


class Turns:
    """The compiled scenario and its step tables."""

    def __init__(self, a_side, b_side, rules, entry: TurnEntry):
        from mathhammer.fantasy.combat import compile_fight
        from mathhammer.fantasy.kernels import combat as k

        self.rules, self.entry = rules, entry
        self.c, self.t = compile_fight((a_side,), (b_side,), charger="a", ruleset=rules)
        self.k = k
        u_int, b_int = self.t.u_int, self.t.b_int
        self.first_b = next(u for u in range(u_int.shape[0]) if u_int[u, k.U_SIDE] == 1)
        self.units = (a_side.unit, b_side.unit)
        self.rf = tuple(self._rf_body(u) for u in (0, self.first_b))
        self.start_models = tuple(self.models_of(tuple([0] * b_int.shape[0]), s) for s in (0, 1))
        self._fire: dict = {}
        self._rounds: dict = {}
        from mathhammer.fantasy.charge import charge_rolls

        # (probability, range, failed move) of A's charge roll (FB-G1, FB-G3), once
        self.charge_rolls = charge_rolls(self.units[0].movement, rules,
                                         self.units[0].has("Swiftstride"))

    # ---- bodies ----------------------------------------------------------------------------
    def _rf_body(self, u: int) -> int:
        k, b_int = self.k, self.t.b_int
        bodies = [b for b in range(b_int.shape[0]) if b_int[b, k.B_UNIT] == u]
        return max(bodies, key=lambda b: (b_int[b, k.B_RANKS], b_int[b, k.B_MODELS]))

    def models_of(self, wounds, side: int) -> int:
        u = 0 if side == 0 else self.first_b
        return int(self.k.unit_models(self.t.b_int, u, np.array(wounds, np.int64), 0))

    def cap(self, side: int) -> int:
        b = self.rf[side]
        return int(self.t.b_int[b, self.k.B_MODELS] * self.t.b_int[b, self.k.B_W])

    # ---- steps: each returns [(probability, next state)] -------------------------------------
    def start(self) -> State:
        u_int, n_b = self.t.u_int, self.t.b_int.shape[0]
        return State(tuple([0] * n_b), tuple([self.k.IN] * u_int.shape[0]),
                     tuple(int(x) for x in u_int[:, self.k.U_FRENZY]),
                     tuple([0] * len(self.c.groups)), 0, False, 0, float(self.entry.distance),
                     (HOLD, HOLD), (0.0, 0.0), False)

    def rally(self, s: State, side: int) -> list:
        """FB-G4: a fleeing unit rallies on Ld (below a quarter: a double 1 only)."""
        from mathhammer.fantasy.tests import leadership_test

        if s.units[side] != FLEE:
            return [(1.0, s)]
        ld = self.units[side].stats.ld
        quarter = self.models_of(s.wounds, side) * 4 < self.start_models[side]
        p = (1 / 36 if quarter and self.rules.combat.rally_below_quarter_needs_double_one
             else float(leadership_test(ld, self.rules)))
        out = [(p, _with(s, side, HOLD))]
        for f, q in self._flee_pmf(side).items():
            flight = s.flight[side] + f
            gone = flight >= self.entry.edge
            nxt = _with(s, side, GONE if gone else FLEE)
            nxt = _replace(nxt, flight=_pair(s.flight, side, flight))
            out.append(((1 - p) * q, nxt))
        return out

    def _flee_pmf(self, side: int) -> dict[int, float]:
        from mathhammer.dice import parse_dice

        swift = self.units[side].has("Swiftstride")
        text = self.rules.combat.swiftstride_dice if swift else self.rules.combat.flee_dice
        return {k: float(p) for k, p in parse_dice(text).pmf().items()}

    def charge(self, s: State, turn: int) -> list:
        e = self.entry
        if (s.charged or s.engaged or turn < e.charge_turn or s.units[0] != HOLD
                or s.units[1] != HOLD):
            return [(1.0, s)]
        first = [(1.0, s)]
        if e.reaction == "stand-and-shoot" and e.stand_and_shoot is not None \
                and s.distance > self.units[1].movement:
            first = self.fire(s, e.stand_and_shoot, panic=False, stand_and_shoot=True)
        out = []
        for p0, s0 in first:
            if s0.units[0] != HOLD:
                out.append((p0, s0))
                continue
            flee = self._flee_pmf(1) if e.reaction == "flee" else {0: 1.0}
            for q, rng, move in self.charge_rolls:
                for f, pf in flee.items():
                    p = p0 * q * pf
                    need = s0.distance + f
                    if rng >= need and e.reaction == "flee":
                        out.append((p, _replace(_with(s0, 1, DEAD), charged=True)))
                    elif rng >= need:
                        out.append((p, _replace(s0, engaged=True, rnd=0, charged=True,
                                                cstatus=tuple([self.k.IN] * len(s0.cstatus)))))
                    else:
                        moved = need / 2 if move < 0 else move
                        nxt = _replace(s0, distance=max(need - moved, 0.0))
                        if e.reaction == "flee":
                            flight = s0.flight[1] + f
                            nxt = _replace(_with(nxt, 1, GONE if flight >= e.edge else FLEE),
                                           flight=_pair(s0.flight, 1, flight))
                        out.append((p, nxt))
        return out

    def _fire_table(self, fire: FireEntry, target_side: int, models: int,
                    stand_and_shoot: bool) -> tuple[np.ndarray, float]:
        """(P(k unsaved wounds), P(cast)) of one fire entry at a target with ``models`` left."""
        key = (fire, target_side, models, stand_and_shoot)
        if key not in self._fire:
            from mathhammer.fantasy.chain import AttackSpec, chain_exact
            from mathhammer.fantasy.combat_target import target_parts

            part = target_parts(self.units[target_side], self.rules)[0]
            modifier = fire.modifier + (self.rules.stand_and_shoot if stand_and_shoot else 0)
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

    def fire(self, s: State, fire: FireEntry, panic: bool = True,
             stand_and_shoot: bool = False) -> list:
        target = 1 if fire.side == "a" else 0
        shooter = 1 - target
        if (s.engaged and not stand_and_shoot) or s.units[target] in (GONE, DEAD) \
                or s.units[shooter] in (GONE, DEAD) or s.units[shooter] == FLEE and not stand_and_shoot:
            return [(1.0, s)]
        models = self.models_of(s.wounds, target)
        wounds, p_cast = self._fire_table(fire, target, models, stand_and_shoot)
        out = [(1.0 - p_cast, s)] if p_cast < 1.0 else []
        b = self.rf[target]
        for w, q in enumerate(wounds):
            if q == 0.0:
                continue
            new = list(s.wounds)
            new[b] = min(new[b] + w, self.cap(target))
            nxt = _replace(s, wounds=tuple(new))
            left = self.models_of(nxt.wounds, target)
            if left == 0:
                out.append((p_cast * q, _with(nxt, target, DEAD)))
                continue
            lost = models - left
            if panic and s.units[target] == HOLD and lost and \
                    lost >= self.rules.combat.panic_fraction * models:
                from mathhammer.fantasy.tests import leadership_test

                hold = float(leadership_test(self.units[target].stats.ld, self.rules))
                out.append((p_cast * q * hold, nxt))
                out.append((p_cast * q * (1 - hold), _with(nxt, target, FLEE)))
            else:
                out.append((p_cast * q, nxt))
        return out

    def _round_table(self, s: State) -> tuple[np.ndarray, list]:
        """The combat engine's exact round from this fight's state: (P, outcomes), kept for
        the same fight reached by other paths."""
        from mathhammer.fantasy.combat_exact import _round

        state5 = (s.wounds, s.cstatus, s.frenzied, s.once, s.duel)
        key = (state5, s.rnd)
        if key not in self._rounds:
            items = list(_round(self.c, self.t, state5, s.rnd).items())
            self._rounds[key] = (np.array([q for _, q in items]), [o for o, _ in items])
        return self._rounds[key]

    def _after_round(self, s: State, outcome) -> State:
        k = self.k
        w2, st2, fr2, once2, duel2, _diff, _raw = outcome
        nxt = _replace(s, wounds=w2, cstatus=st2, frenzied=fr2, once=once2, duel=duel2,
                       rnd=s.rnd + 1)
        if not k.any_engagement(np.array(st2, np.int64), self.t.e_pair):
            units = []
            for u in (0, self.first_b):
                code = st2[u]
                units.append(DEAD if code in (k.DESTROYED, k.CAUGHT) else
                             FLEE if code == k.FLED else HOLD)
            nxt = _replace(nxt, engaged=False, units=tuple(units), flight=(0.0, 0.0))
        return nxt

    def combat_round(self, s: State) -> list:
        if not s.engaged:
            return [(1.0, s)]
        p, outcomes = self._round_table(s)
        return [(float(q), self._after_round(s, o)) for q, o in zip(p, outcomes)]

    def combat_round_drawn(self, s: State, count: int, rng) -> list:
        """Monte Carlo: ``count`` trials through one round; only drawn outcomes are built."""
        if not s.engaged:
            return [(count, s)]
        p, outcomes = self._round_table(s)
        draws = rng.multinomial(count, p / p.sum())
        return [(int(c), self._after_round(s, outcomes[i])) for i, c in enumerate(draws) if c]

    def steps(self, side: int, turn: int) -> list:
        """The steps of one player turn, in order, each a function of the state."""
        steps = [lambda x: self.rally(x, side)]
        if side == 0:
            steps.append(lambda x: self.charge(x, turn))
        for fire in self.entry.fire:
            if fire.side == "ab"[side]:
                steps.append(lambda x, f=fire: self.fire(x, f))
        steps.append(self.combat_round)
        return steps


def _replace(s: State, **kw) -> State:
    """A new state, with what no longer matters reset, so equal situations merge: the combat
    bookkeeping once nobody is engaged, the distance once the charge is spent, a flight
    once the unit stopped fleeing."""
    s = s._replace(**kw)
    if not s.engaged and (s.rnd or s.duel or any(s.once)):
        s = s._replace(cstatus=(0,) * len(s.cstatus), once=(0,) * len(s.once), duel=0, rnd=0)
    if s.charged and not s.engaged and s.distance:
        s = s._replace(distance=0.0)
    if (s.flight[0] and s.units[0] != FLEE) or (s.flight[1] and s.units[1] != FLEE):
        s = s._replace(flight=tuple(f if u == FLEE else 0.0 for f, u in zip(s.flight, s.units)))
    return s


def _with(s: State, side: int, status: int) -> State:
    units = list(s.units)
    units[side] = status
    return _replace(s, units=tuple(units))


def _pair(pair, side, value):
    out = list(pair)
    out[side] = value
    return tuple(out)


MAX_EXACT_STATES = 20_000  # beyond this the exact sum is minutes; Monte Carlo is seconds


def _exact(tr: Turns) -> tuple[list[np.ndarray], dict]:
    """Per game turn, P(status) of each unit (2 x 4), and the final states."""
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
                    raise InputError("--method", f"the exact sum passed {MAX_EXACT_STATES:,} "
                                     f"states in game turn {turn}", "exact",
                                     "use --method mc (the default), or fewer turns or models")
        table = np.zeros((2, 4))
        for s, p in states.items():
            for side in (0, 1):
                table[side, s.units[side]] += p
        by_turn.append(table)
    return by_turn, states


def _walk(tr: Turns, n: int, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` trials through every step, each outcome drawn from its exact table; returns
    status counts per turn [turn, side, status] and the models-left counts of A and B."""
    groups = {tr.start(): n}
    counts = np.zeros((tr.entry.turns, 2, 4), dtype=np.int64)
    for turn in range(1, tr.entry.turns + 1):
        for side in (0, 1):
            for step in tr.steps(side, turn):
                nxt: dict = defaultdict(int)
                for s, count in groups.items():
                    if step == tr.combat_round:  # hundreds of outcomes: build the drawn ones
                        for c, s2 in tr.combat_round_drawn(s, count, rng):
                            nxt[s2] += c
                        continue
                    table = step(s)
                    p = np.array([q for q, _ in table])
                    draws = rng.multinomial(count, p / p.sum())
                    for (_, s2), c in zip(table, draws):
                        if c:
                            nxt[s2] += int(c)
                groups = nxt
        for s, c in groups.items():
            for side in (0, 1):
                counts[turn - 1, side, s.units[side]] += c
    left = [np.zeros(tr.start_models[side] + 1, dtype=np.int64) for side in (0, 1)]
    for s, c in groups.items():
        for side in (0, 1):
            left[side][0 if s.units[side] == DEAD else tr.models_of(s.wounds, side)] += c
    return counts, left[0], left[1]


def _monte_carlo(tr: Turns, config: MonteCarloConfig):
    """The chunked engine (seeds, threads, --precision) over :func:`_walk`."""
    from mathhammer.engine import simulate

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        counts, left_a, left_b = _walk(tr, n, np.random.default_rng(state))
        return {"counts": counts, "left_a": left_a, "left_b": left_b}

    def probabilities(tally, n):
        return tally["counts"].ravel() / n

    return simulate(run_chunk, config, probabilities)


def run_turn_scenario(turn: dict, a, b, rules, source: str, *, title: str = "", method: str,
                      config: MonteCarloConfig, check: bool) -> Report:
    """``kind = "turn"``: side ``a`` charges side ``b``; ``turn`` (the ``[turn]`` table) says
    how (see the module docstring). The scenario loader builds the sides and the ruleset."""
    from mathhammer.profiles import pydantic_errors
    from mathhammer.query import answer
    from mathhammer.words import method_words, pct

    try:
        entry = TurnEntry.model_validate(turn)
    except ValidationError as err:
        raise pydantic_errors(err, f"{source}: turn") from None
    if entry.reaction == "stand-and-shoot" and entry.stand_and_shoot is None:
        raise ProfileError(f"{source}: turn.stand_and_shoot", "is needed with reaction = "
                           "\"stand-and-shoot\" (B's shots at the charger)", None,
                           "add [turn.stand_and_shoot] name, side = \"b\", shots, bs, strength")
    for i, f in enumerate(entry.fire):
        if (f.cast_dice is None) != (f.casting_value is None):
            raise ProfileError(f"{source}: turn.fire[{i}]", "a missile gives cast_dice and "
                               "casting_value together", None, "add both or neither")
        if f.bs is None and f.cast_dice is None:
            raise ProfileError(f"{source}: turn.fire[{i}]", "give bs (shooting) or cast_dice and "
                               "casting_value (a magic missile)", None, "add bs = 3")
    tr = Turns(a, b, rules, entry)
    names = (a.unit.name, b.unit.name)
    title = title or (f"{names[0]} charge {names[1]} from {entry.distance:g}\" "
                               f"({rules.name}, {entry.turns} game turns, reaction {entry.reaction})")

    def results_of(tables, est) -> dict[str, Estimate]:
        out = {}
        for t, table in enumerate(tables, start=1):
            for side in (0, 1):
                for code, status in enumerate(STATUSES):
                    out[f"p_{status}[{names[side]}, turn {t}]"] = est(table[side, code])
        return out

    info = {"ruleset": rules.name,
            "sequence": "each game turn: A rallies, charges (FB-G1..G3), shoots and casts, "
                        "fights; then B rallies, shoots and casts, fights (FB-G5)",
            "decisions": "one charge; a fleeing target is not charged; a unit leaves the "
                         f"table when its flights reach {entry.edge:g}\"; missiles are not "
                         "dispelled"}

    def exact() -> Report:
        tables, final = _exact(tr)
        report = Report("run", "exact", results_of(tables, lambda v: Estimate.exact(
            float(min(max(v, 0.0), 1.0)))), _models_left(tr, final), info=dict(info),
            title=title)
        report.info["states"] = len(final)
        return report

    def monte_carlo(cfg: MonteCarloConfig) -> Report:
        if cfg.n_trials > 10**7:
            raise InputError("--n-trials", "at most 10,000,000 for a turn scenario", cfg.n_trials,
                             "use --n-trials 100000")
        from dataclasses import replace

        # the walk is Python: a second thread only fights for the GIL (same bits either way)
        run = _monte_carlo(tr, replace(cfg, threads=1))
        n, t = run.n_trials, run.tally
        dists = {"models_left_a": Distribution.from_counts(t["left_a"]),
                 "models_left_b": Distribution.from_counts(t["left_b"])}
        return Report("run", "mc", results_of(list(t["counts"]),
                                              lambda c: Estimate.proportion(int(c), n)),
                      dists, n_trials=n, seed=run.seed, info=dict(info), title=title)

    # auto: Monte Carlo (the exact state grows fast with turns), exact when asked or checked
    use = "mc" if method == "auto" and not check else method
    report = answer("run", method=use, exact=exact, monte_carlo=monte_carlo, config=config,
                    check=check)
    last = entry.turns
    r = report.results

    def line(side: int) -> str:
        return ", ".join(f"{status} {pct(r[f'p_{status}[{names[side]}, turn {last}]'])}"
                         for status in STATUSES)

    report.headline = (f"After {last} game turns, {names[1]}: {line(1)} ({method_words(report)}) · "
                       f"{names[0]}: {line(0)}")
    return report


def _models_left(tr: Turns, final: dict) -> dict[str, Distribution]:
    dists = {}
    for side, name in ((0, "models_left_a"), (1, "models_left_b")):
        probs = np.zeros(tr.start_models[side] + 1)
        for s, p in final.items():
            probs[0 if s.units[side] == DEAD else tr.models_of(s.wounds, side)] += p
        dists[name] = Distribution.exact(probs)
    return dists
