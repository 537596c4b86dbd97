"""A unit fighting a war machine (FB-WM1): ``fb combat UNIT WAR_MACHINE``, exact and Monte Carlo.

The state between rounds is (the machine's wounds left, the unit's models left). Each
round (FB-C1..C5 as the war machine changes them):

* at most ``assault_party`` models of the unit fight (a monstrous model counts as 3, a
  monster as 5 in wfb8 and 6 in t9a1), no supporting ranks; they strike the crew's WS
  and Toughness, and the crew's saves count;
* the machine strikes back with one crewman's attacks per crewman left (wfb8: the crew
  left; t9a1: the whole crew while it stands), at the unit's WS, T and armour;
* strike order by Initiative, equal Initiatives simultaneously; models of the assault
  party slain before they strike do not strike, and no model steps up into the party
  before the next round (FB-C3);
* combat result: wounds caused, plus the unit's rank bonus (ranks of ``rank_width``
  models behind the first, counted as the main combat counts them, at most
  ``max_rank_bonus``) and standard; the machine has no ranks, flanks or standard; a
  musician wins a draw (FB-S3);
* the machine losing takes a break test on the crew's Ld less the difference: failed,
  it is destroyed; the unit losing tests its Ld — Steadfast (unmodified Ld) whenever it
  has one rank of ``rank_width`` models, since the machine has none — and flees; the
  machine never pursues. A draw fights on.

Every round's distributions are exact (:func:`mathhammer.fantasy.chain.core.chain_exact`); the
exact engine sums them over the state, the Monte Carlo engine draws each round from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError
from mathhammer.fantasy.chain.core import AttackSpec, chain_exact
from mathhammer.fantasy.models import UnitProfile
from mathhammer.fantasy.rules.ruleset import Ruleset
from mathhammer.results import Distribution, Estimate, Report

MAX_ROUNDS = 25
MONSTROUS = ("monstrous_infantry", "monstrous_cavalry", "monstrous_beast", "chariot")


@dataclass(frozen=True)
class Fight:
    unit: UnitProfile
    machine: UnitProfile
    rules: Ruleset
    models: int  # the unit's models at the start
    rank_width: int
    standard: bool
    musician: bool

    @property
    def crew(self) -> int:
        return self.machine.formation.models

    @property
    def machine_wounds(self) -> int:
        """Wounds the machine has: the crew (wfb8) or the machine's W (t9a1)."""
        if self.rules.war_machines.target_wounds == "machine":
            return self.machine.machine.w
        return self.crew

    def party(self, models_left: int) -> int:
        """Models of the unit that fight: the assault party, counted by size (FB-WM1)."""
        size = 1
        if self.unit.troop_type in MONSTROUS:
            size = 3
        elif self.unit.troop_type == "monster":
            size = 6 if self.rules.name == "t9a1" else 5
        return min(models_left, max(1, self.rules.war_machines.assault_party // size))

    def initiatives(self, charged: bool) -> tuple[int, int]:
        """(the unit's, the crew's) Initiative for the strike order (FB-C2): a charging unit
        goes first where the ruleset has ``chargers_strike_first``."""
        if charged and self.rules.chargers_strike_first:
            return 100, self.machine.stats.i
        return self.unit.stats.i, self.machine.stats.i

    def crew_striking(self, wounds_left: int) -> int:
        if self.rules.war_machines.target_wounds == "machine":
            return self.crew if wounds_left > 0 else 0
        return wounds_left

    def ranks(self, models_left: int) -> int:
        """FB-C4/C5: ranks of at least the ruleset's ``rank_width`` models, the first
        included — the main combat engine's own count (fantasy.kernels.combat.ranks)."""
        from mathhammer.fantasy.kernels.combat import ranks

        count = getattr(ranks, "py_func", ranks)  # the plain Python body: no compile for 3 lines
        return int(count(models_left, self.rank_width, self.rules.rank_width))

    def rank_bonus(self, models_left: int) -> int:
        """FB-C4: ranks behind the first, capped."""
        return min(max(self.ranks(models_left) - 1, 0), self.rules.max_rank_bonus)

    def steadfast(self, models_left: int) -> bool:
        """FB-WM1/FB-C5: the machine has no ranks, so one rank of the unit is more."""
        return self.rules.steadfast and self.ranks(models_left) > 0


def _spec_unit_on_crew(f: Fight) -> AttackSpec:
    u, m = f.unit, f.machine
    w = 1 if f.rules.war_machines.target_wounds == "crew" else f.machine_wounds
    return AttackSpec(strength=u.stats.s, toughness=m.stats.t, ws=u.stats.ws, target_ws=m.stats.ws,
                      save=m.saves.armour, ward=m.saves.ward, regeneration=m.saves.regeneration,
                      target_wounds=w, killing_blow_applies=False)


def _spec_crew_on_unit(f: Fight) -> AttackSpec:
    u, m = f.unit, f.machine
    return AttackSpec(strength=m.stats.s, toughness=u.stats.t, ws=m.stats.ws, target_ws=u.stats.ws,
                      save=u.saves.armour, ward=u.saves.ward, regeneration=u.saves.regeneration,
                      target_wounds=u.stats.w)


@lru_cache(maxsize=4096)
def _wounds(spec: AttackSpec, attacks: int, rules_name: str, cap: int) -> tuple[float, ...]:
    """P(k unsaved wounds), k = 0..cap (the rest counted at cap), of ``attacks`` attacks."""
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    if attacks <= 0:
        return (1.0,) + (0.0,) * cap
    pmf = chain_exact(spec, attacks, load_ruleset(rules_name)).wounds
    out = np.zeros(cap + 1)
    n = min(len(pmf), cap + 1)
    out[:n] = pmf[:n]
    out[cap] += pmf[cap + 1:].sum()
    return tuple(out)


def _break_pass(ld: int, lost_by: int, rules: Ruleset, steadfast: bool) -> float:
    from mathhammer.fantasy.characteristic_tests import break_test

    return float(break_test(ld, lost_by, rules, steadfast=steadfast and rules.steadfast))


def _unit_holds(f: Fight, lost_by: int, models_left: int) -> float:
    """FB-C5 for the unit: Unbreakable holds; Stubborn, or Steadfast against a machine
    without ranks, tests unmodified Ld."""
    if f.unit.has("Unbreakable"):
        return 1.0
    from mathhammer.fantasy.characteristic_tests import break_test

    return float(break_test(f.unit.stats.ld, lost_by, f.rules, steadfast=f.steadfast(models_left),
                            stubborn=f.unit.has("Stubborn")))


def _instability_losses(f: Fight, lost_by: int) -> dict[int, float] | None:
    """FB-C5 where the ruleset has ``unstable = "lose_wounds"``: the unit's wounds lost
    instead of a test (Unstable: the difference; Daemonic Instability: 2D6 + difference
    − Ld, if positive); None when the unit tests."""
    if f.rules.unstable != "lose_wounds" or f.unit.has("Unbreakable"):
        return None
    if f.unit.has("Unstable"):
        return {lost_by: 1.0}
    if f.unit.has("Daemonic Instability"):
        out: dict[int, float] = {}
        for a in range(1, 7):
            for b in range(1, 7):
                wounds = max(0, a + b + lost_by - f.unit.stats.ld)
                out[wounds] = out.get(wounds, 0.0) + 1 / 36
        return out
    return None


def round_outcomes(f: Fight, w_left: int, n_left: int, charged: bool):
    """[(p, wounds on the machine, unit models lost, outcome)] of one round from a state;
    outcome "machine", "unit" (broken), "" (both stand)."""
    rules = f.rules
    ui, ci = f.initiatives(charged)
    a_spec, c_spec = _spec_unit_on_crew(f), _spec_crew_on_unit(f)
    uw = f.unit.stats.w
    unit_wounds_cap = n_left * uw
    out = []

    def unit_strikes(n_models: int) -> tuple[float, ...]:
        return _wounds(a_spec, f.party(n_models) * f.unit.stats.a, rules.name, w_left)

    def crew_strikes(w_now: int) -> tuple[float, ...]:
        return _wounds(c_spec, f.crew_striking(w_now) * f.machine.stats.a, rules.name,
                       unit_wounds_cap)

    branches = []  # (p, dealt to machine, wounds on the unit)
    if ui > ci:
        for d, pd in enumerate(unit_strikes(n_left)):
            if pd == 0.0:
                continue
            for t, pt in enumerate(crew_strikes(w_left - d)):
                if pt:
                    branches.append((pd * pt, d, t))
    elif ci > ui:
        fighting = f.party(n_left)  # the models in contact when the round starts
        for t, pt in enumerate(crew_strikes(w_left)):
            if pt == 0.0:
                continue
            lost = min(n_left, t // uw)
            # FB-C3: the crew strikes the models in contact: each slain one strikes no more,
            # and nobody steps up into the party before the round ends
            strikes = _wounds(a_spec, max(0, fighting - lost) * f.unit.stats.a, rules.name, w_left)
            for d, pd in enumerate(strikes):
                if pd:
                    branches.append((pt * pd, d, t))
    else:
        for d, pd in enumerate(unit_strikes(n_left)):
            for t, pt in enumerate(crew_strikes(w_left)):
                if pd and pt:
                    branches.append((pd * pt, d, t))
    for p, d, t in branches:
        lost = min(n_left, t // uw)
        w_after, n_after = w_left - d, n_left - lost
        if w_after == 0:
            out.append((p, d, lost, "machine"))
            continue
        if n_after == 0:
            out.append((p, d, lost, "unit"))
            continue
        score_u = d + f.rank_bonus(n_after) + (rules.standard_bonus if f.standard else 0)
        score_m = t
        if score_u == score_m and f.musician and rules.combat.musician_breaks_ties:
            score_u += 1
        if score_u > score_m:
            hold = _break_pass(f.machine.stats.ld, score_u - score_m, rules, steadfast=False)
            out.append((p * (1 - hold), d, lost, "machine"))
            out.append((p * hold, d, lost, ""))
        elif score_m > score_u:
            losses = _instability_losses(f, score_m - score_u)
            if losses is not None:  # FB-C5: no test, wounds lost (whole models, as above)
                for wounds, q in losses.items():
                    gone = min(n_after, wounds // uw)
                    out.append((p * q, d, lost + gone, "unit" if gone == n_after else ""))
                continue
            hold = _unit_holds(f, score_m - score_u, n_after)
            out.append((p * (1 - hold), d, lost, "unit"))
            out.append((p * hold, d, lost, ""))
        else:
            out.append((p, d, lost, ""))
    return out


def _exact(f: Fight, rounds: int) -> dict:
    """P(machine destroyed / unit broken or destroyed / both standing) and the final state."""
    states = {(f.machine_wounds, f.models): 1.0}
    done = {"machine": 0.0, "unit": 0.0}
    final: dict[tuple[int, int], float] = {}
    for r in range(rounds):
        nxt: dict[tuple[int, int], float] = {}
        for (w, n), p in states.items():
            for q, d, lost, end in round_outcomes(f, w, n, charged=r == 0):
                key = (w - d, n - lost)
                if end:
                    done[end] += p * q
                    final[key] = final.get(key, 0.0) + p * q
                else:
                    nxt[key] = nxt.get(key, 0.0) + p * q
        states = nxt
    for key, p in states.items():
        final[key] = final.get(key, 0.0) + p
    return {"machine": done["machine"], "unit": done["unit"],
            "standing": sum(states.values()), "final": final}


def _monte_carlo(f: Fight, rounds: int, config: MonteCarloConfig) -> dict:
    """Each trial plays rounds drawn from the exact per-round outcome tables."""
    rng = np.random.default_rng(config.seed)
    n = config.n_trials
    if n > 10**7:
        raise InputError("‹n_trials›", "at most 10,000,000 for a fight with a war machine "
                         "(each round is drawn in Python)", n, "use ‹n_trials› 200000")
    w = np.full(n, f.machine_wounds)
    m = np.full(n, f.models)
    end = np.zeros(n, dtype=np.int8)  # 0 standing, 1 machine destroyed, 2 unit broken
    for r in range(rounds):
        live = np.nonzero(end == 0)[0]
        if not len(live):
            break
        keys = w[live] * 1000 + m[live]
        for key in np.unique(keys):
            idx = live[keys == key]
            table = round_outcomes(f, int(key // 1000), int(key % 1000), charged=r == 0)
            p = np.array([t[0] for t in table])
            pick = rng.choice(len(table), size=len(idx), p=p / p.sum())
            d = np.array([t[1] for t in table])[pick]
            lost = np.array([t[2] for t in table])[pick]
            code = np.array([{"": 0, "machine": 1, "unit": 2}[t[3]] for t in table])[pick]
            w[idx] -= d
            m[idx] -= lost
            end[idx] = code
    return {"machine": int((end == 1).sum()), "unit": int((end == 2).sum()),
            "standing": int((end == 0).sum()), "w": w, "m": m, "n": n}


def make_fight(unit: UnitProfile, machine: UnitProfile, rules: Ruleset, *,
               models: int | None = None, rank_width: int | None = None) -> Fight:
    """The fight ``fb combat UNIT WAR_MACHINE`` plays and explains (FB-WM1)."""
    if unit.machine is not None:
        raise InputError("A", "two war machines do not fight each other", unit.id,
                         "give a unit as A and the war machine as B")
    return Fight(unit, machine, rules, models or unit.formation.models,
                 rank_width or unit.formation.rank_width, unit.formation.standard,
                 unit.formation.musician)


def war_machine_fight(unit: UnitProfile, machine: UnitProfile, rules: Ruleset, *,
                      models: int | None = None, rank_width: int | None = None,
                      rounds: int | None = None, method: str = "auto",
                      config: MonteCarloConfig | None = None, check: bool = False) -> Report:
    """``fb combat UNIT WAR_MACHINE`` (FB-WM1): the unit charges the machine."""
    return play_fight(make_fight(unit, machine, rules, models=models, rank_width=rank_width),
                      rounds=rounds, method=method, config=config, check=check)


def _party_words(f: Fight) -> str:
    return (f"FB-WM1: {f.party(f.models)} of the {f.unit.name} fight (assault party of "
            f"{f.rules.war_machines.assault_party}), against the crew's WS{f.machine.stats.ws} "
            f"T{f.machine.stats.t}; the machine strikes with {f.machine.stats.a} attack(s) per "
            f"crewman; {f.machine_wounds} wounds to destroy it; a broken machine is destroyed, "
            f"it never pursues; {NOT_PLAYED}")


#: said wherever the fight is reported: what this small engine leaves out (FB-WM1 decision)
NOT_PLAYED = ("the party fights with the unit's stat line: kit, mounts, the champion's extra "
              "attack and attack rules (Hatred, Frenzy, Always Strikes First ...) are not played")


def play_fight(f: Fight, *, rounds: int | None = None, method: str = "auto",
               config: MonteCarloConfig | None = None, check: bool = False) -> Report:
    """The exact (or Monte Carlo) answer of a :class:`Fight`, round by round (FB-C7)."""
    from mathhammer.query import answer
    from mathhammer.words import method_words, pct

    unit, machine, rules = f.unit, f.machine, f.rules
    rounds = MAX_ROUNDS if rounds is None else rounds
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise InputError("‹rounds›", f"must be 1..{MAX_ROUNDS}", rounds, "use ‹rounds› 3")
    title = (f"{f.models} {unit.name} charge {machine.name} ({f.crew} crew, "
             f"{rules.name}), {rounds} round{'s' * (rounds > 1)} at most")
    info = {"ruleset": rules.name, "war machine": _party_words(f)}

    def exact() -> Report:
        out = _exact(f, rounds)
        left = np.zeros(f.models + 1)
        dealt = np.zeros(f.machine_wounds + 1)
        for (w, n), p in out["final"].items():
            left[n] += p
            dealt[f.machine_wounds - w] += p
        results = {"p_machine_destroyed": Estimate.exact(min(out["machine"], 1.0)),
                   "p_unit_broken": Estimate.exact(min(out["unit"], 1.0)),
                   "p_both_standing": Estimate.exact(min(out["standing"], 1.0))}
        dists = {"unit_models_left": Distribution.exact(left),
                 "wounds_on_machine": Distribution.exact(dealt)}
        return Report("fantasy.combat", "exact", results, dists, info=dict(info), title=title)

    def monte_carlo(cfg: MonteCarloConfig) -> Report:
        from dataclasses import replace

        if cfg.seed is None:  # the seed used is reported, so the run can be repeated
            cfg = replace(cfg, seed=int(np.random.SeedSequence().entropy % 2**63))
        out = _monte_carlo(f, rounds, cfg)
        n = out["n"]
        results = {"p_machine_destroyed": Estimate.proportion(out["machine"], n),
                   "p_unit_broken": Estimate.proportion(out["unit"], n),
                   "p_both_standing": Estimate.proportion(out["standing"], n)}
        dists = {"unit_models_left": Distribution.from_counts(
                     np.bincount(out["m"], minlength=f.models + 1)),
                 "wounds_on_machine": Distribution.from_counts(
                     np.bincount(f.machine_wounds - out["w"], minlength=f.machine_wounds + 1))}
        return Report("fantasy.combat", "mc", results, dists, n_trials=n, seed=cfg.seed,
                      info=dict(info), title=title)

    report = answer("fantasy.combat", method=method, exact=exact, monte_carlo=monte_carlo,
                    config=config, check=check)
    report.headline = (f"{unit.name} destroy the {machine.name}: "
                       f"{pct(report.results['p_machine_destroyed'])} ({method_words(report)}) · "
                       f"{unit.name} broken {pct(report.results['p_unit_broken'])}, both standing "
                       f"{pct(report.results['p_both_standing'])}")
    return report
