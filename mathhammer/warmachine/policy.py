"""Focus policies (WM-F5): fixed, greedy and optimal, as decision tables over the graph.

The decision state is (node, focus at the node, boxes still to mark, knocked down).
Its value is computed by dynamic programming in the *box-count model*: the target
is its number of unmarked boxes and its base DEF (no column roll, no crippling).
Every policy is a table of decisions over that state:

* ``bh[g, f, n, kd]`` boost the attack roll of attack node g (1 focus);
* ``bd[g, f, n, kd]`` boost its damage roll if it hits (decided after the hit);
* ``ch[g, f, n, kd]`` successor picked at choice node g, -1 = stop.

``optimal`` maximises P(destroy) (or expected boxes marked, ``objective =
"damage"``) — exact in the box-count model. ``fixed`` and ``greedy`` are rules:

* **fixed**: charge when allowed; initial attacks with every melee weapon; boost
  every attack roll (``boost_hit``) and/or every damage roll (``boost_damage``)
  while focus lasts — keeping the focus for ``max_bought`` bought attacks when the
  activation sets it (``--buy N``); spend what is left on bought attacks with the
  weapon (or spell) of the highest expected damage per focus.
* **greedy** (rule of thumb): charge when allowed; initial attacks; each focus
  goes where it adds the most expected damage *now*: boost a roll only when the
  boost's expected gain beats the expected damage of one more bought attack
  (P(hit) × E[damage], per focus point); otherwise buy attacks. It never looks at
  the boxes left and never uses power attacks.

The tables then drive the Monte Carlo kernel on the full grid (WM-G4 effects:
crippled M makes DEF 7 although the box-count model did not plan for it), and
both numbers are reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mathhammer.errors import InputError
from mathhammer.warmachine.activation import AttackOption, Graph
from mathhammer.warmachine.sequence import (
    AttackStep, Target, crit_probability, damage_pmf, hit_probability,
)

POLICIES = ("fixed", "greedy", "optimal")
OBJECTIVES = ("destroy", "damage")
EPS = 1e-12  # spend focus only for a strict improvement


def option_step(opt: AttackOption) -> AttackStep:
    return AttackStep(opt.kind, opt.stat, opt.power, pre_boosted=opt.pre_boosted,
                      weapon_crippled=opt.crippled, knocks_down=opt.knocks_down,
                      auto_hit=opt.auto_hit, ignores_shield=opt.ignores_shield, label=opt.name)


@dataclass
class OptionTables:
    """Per option: P(hit)[bh, movement crippled, kd] and damage pmfs [shield crippled][bd]
    (WM-A*, WM-D*). The box-count DP uses the intact shield (index 0)."""

    p_hit: np.ndarray  # float64[O, 2, 2, 2]
    p_crit: np.ndarray  # float64[O, 2, 2, 2]: P(critical hit), WM-A5
    dmg: list[list[list[np.ndarray]]]  # [o][shield crippled][bd] pmf over damage dealt
    mean_dmg: np.ndarray  # float64[O, 2]: [o, bd] with the shield intact

    @classmethod
    def build(cls, graph: Graph, target: Target) -> OptionTables:
        n_opt = len(graph.options)
        p_hit = np.zeros((n_opt, 2, 2, 2))
        p_crit = np.zeros((n_opt, 2, 2, 2))
        dmg, mean = [], np.zeros((n_opt, 2))
        for o, opt in enumerate(graph.options):
            step = option_step(opt)
            for bh in (0, 1):
                for mcrip in (0, 1):
                    for kd in (0, 1):
                        p_hit[o, bh, mcrip, kd] = hit_probability(step, target, mcrip + 2 * kd,
                                                                  bool(bh))
                        p_crit[o, bh, mcrip, kd] = min(p_hit[o, bh, mcrip, kd], crit_probability(
                            step, target, mcrip + 2 * kd, bool(bh)))
            pmfs = [[damage_pmf(step, target, bool(bd), bool(sc)) for bd in (0, 1)]
                    for sc in (0, 1)]
            dmg.append(pmfs)
            mean[o] = [float(p @ np.arange(len(p))) for p in pmfs[0]]
        return cls(p_hit, p_crit, dmg, mean)


@dataclass
class PolicyTables:
    name: str
    objective: str
    bh: np.ndarray  # int64[G, F+1, N+1, 2]
    bd: np.ndarray  # int64[G, F+1, N+1, 2, 2 (critical hit)]
    ch: np.ndarray
    value: float  # exact value in the box-count model from the start state


class _Solver:
    """Evaluate (and, for ``optimal``, choose) decisions by memoised recursion over (node, f)."""

    def __init__(self, graph: Graph, target: Target, opts: OptionTables, objective: str,
                 rule=None) -> None:
        self.g, self.t, self.o, self.objective, self.rule = graph, target, opts, objective, rule
        self.n_max = target.grid.boxes_left(target.start_bits)
        shape = (len(graph.nodes), graph.max_focus + 1, self.n_max + 1, 2)
        self.bh = np.zeros(shape, dtype=np.int64)
        self.bd = np.zeros(shape + (2,), dtype=np.int64)  # last axis: the hit was critical
        self.ch = np.full(shape, -1, dtype=np.int64)
        n = np.arange(self.n_max + 1)
        self.end = np.stack([(n == 0).astype(float)] * 2, axis=1) if objective == "destroy" \
            else np.zeros((self.n_max + 1, 2))
        self.value = lru_cache(maxsize=None)(self._value)

    def _after_damage(self, pmf: np.ndarray, nxt: np.ndarray, kd: int) -> np.ndarray:
        """E over the damage roll of (reward + next value) per boxes-left n, kd after the hit."""
        n = np.arange(self.n_max + 1)[:, None]
        d = np.arange(len(pmf))[None, :]
        left = np.maximum(n - d, 0)
        total = nxt[left, kd]
        if self.objective == "damage":
            total = total + np.minimum(d, n)
        return total @ pmf

    def _goto(self, node: int, f: int) -> np.ndarray:
        if node == -1:
            return self.end
        target = self.g.nodes[node]
        if target.reset_focus >= 0:
            f = target.reset_focus
        return self.value(node, f)

    def _value(self, g: int, f: int) -> np.ndarray:
        node = self.g.nodes[g]
        done = np.zeros(2)  # value at n = 0: the target is destroyed, nothing more to gain
        done[:] = self.end[0]
        if node.kind == "choice":
            out = self._goto(node.stop, f).copy()
            self.ch[g, f] = -1
            for succ in node.successors:
                cost = self.g.nodes[succ].cost
                if cost > f:
                    continue
                cand = self.value(succ, f)
                if self.rule is None:
                    # ties go to attacking rather than stopping (more damage, same objective)
                    better = (cand > out + EPS) | ((cand >= out - EPS) & (self.ch[g, f] == -1))
                else:
                    better = self.rule.choose_mask(self, g, f, succ)
                out = np.where(better, cand, out)
                self.ch[g, f] = np.where(better, succ, self.ch[g, f])
            out[0] = done
            self.ch[g, f, 0] = -1
            return out
        opt = self.g.options[node.option]
        f1 = f - node.cost
        out = np.empty((self.n_max + 1, 2))
        for kd in (0, 1):
            kd_hit = kd | int(opt.knocks_down)
            best = None
            for bh in (0, 1):
                if bh and (f1 < 1 or not opt.can_boost_hit):
                    continue
                p = self.o.p_hit[node.option, bh, 0, kd]
                # a critical hit of a Critical Knockdown / Freeze weapon knocks down too
                pc = self.o.p_crit[node.option, bh, 0, kd] if opt.crit_knocks_down else 0.0
                miss = self._goto(node.next, f1 - bh)[:, kd]
                plain, plain_bd = self._hit_value(g, node, opt, f1 - bh, kd, kd_hit)
                total = (1 - p) * miss + (p - pc) * plain
                crit_bd = plain_bd
                if pc > 0:
                    crit, crit_bd = self._hit_value(g, node, opt, f1 - bh, kd, 1)
                    total = total + pc * crit
                if best is None:
                    best, best_bh = total, np.zeros(len(total), dtype=np.int64)
                    best_bd = [plain_bd, crit_bd]
                else:
                    take = (total > best + EPS) if self.rule is None else \
                        np.full(len(total), self.rule.boost_hit(self, g, f1, kd))
                    best = np.where(take, total, best)
                    best_bd = [np.where(take, plain_bd, best_bd[0]),
                               np.where(take, crit_bd, best_bd[1])]
                    best_bh = np.where(take, 1, best_bh)
            out[:, kd] = best
            self.bh[g, f, :, kd] = best_bh
            self.bd[g, f, :, kd, 0] = best_bd[0]
            self.bd[g, f, :, kd, 1] = best_bd[1]
        out[0] = done
        return out

    def _hit_value(self, g: int, node, opt: AttackOption, f: int, kd: int, kd_after: int):
        """Best (value, boost-damage decision) after a hit with ``f`` focus left."""
        hit_best, hit_bd = None, None
        for bd in (0, 1):
            if bd and (f < 1 or opt.pre_boosted or not opt.can_boost_damage):
                continue
            nxt = self._goto(node.after_hit, f - bd)
            val = self._after_damage(self.o.dmg[node.option][0][bd or int(opt.pre_boosted)],
                                     nxt, kd_after)
            if hit_best is None:
                hit_best, hit_bd = val, np.zeros(len(val), dtype=np.int64)
            else:
                take = (val > hit_best + EPS) if self.rule is None else \
                    np.full(len(val), self.rule.boost_damage(self, g, f, kd))
                hit_best = np.where(take, val, hit_best)
                hit_bd = np.where(take, 1, hit_bd)
        return hit_best, hit_bd


class _Rule:
    """Shared parts of the fixed and greedy rules."""

    def __init__(self, boost_hit: bool = False, boost_damage: bool = False) -> None:
        self.flag_hit, self.flag_damage = boost_hit, boost_damage

    def per_focus(self, s: _Solver, succ: int, kd: int) -> float:
        node = s.g.nodes[succ]
        if node.kind != "attack":
            return 0.0
        return s.o.p_hit[node.option, 0, 0, kd] * s.o.mean_dmg[node.option, 0] / max(node.cost, 1)

    def choose_mask(self, s: _Solver, g: int, f: int, succ: int) -> np.ndarray:
        node = s.g.nodes[g]
        succ_node = s.g.nodes[succ]
        if node.reset_focus >= 0:  # opening: charge if allowed, initial attacks, no power attacks
            labels = [s.g.nodes[x].label for x in node.successors]
            wanted = [x for x, lab in zip(node.successors, labels)
                      if lab.startswith("charge, ") and "Combo" not in lab
                      and s.g.nodes[x].cost <= f]
            if not wanted:
                wanted = [x for x, lab in zip(node.successors, labels)
                          if not lab.startswith(("charge", "head-butt", "slam", "Combo"))]
            return np.full((s.n_max + 1, 2), bool(wanted) and succ == wanted[0])
        # buy phase: the option with the best expected damage per focus, while focus lasts
        del succ_node
        out = np.zeros((s.n_max + 1, 2), dtype=bool)
        for kd in (0, 1):
            feasible = [x for x in node.successors if s.g.nodes[x].cost <= f]
            if feasible:
                best = max(feasible, key=lambda x: self.per_focus(s, x, kd))
                out[:, kd] = succ == best
        return out


class FixedRule(_Rule):
    """Boosts as listed while focus lasts, keeping the focus for the bought attacks
    still planned (``--buy N``: ``Node.reserve``)."""

    def boost_hit(self, s: _Solver, g: int, f: int, kd: int) -> bool:
        return self.flag_hit and f >= 1 + s.g.nodes[g].reserve

    def boost_damage(self, s: _Solver, g: int, f: int, kd: int) -> bool:
        return self.flag_damage and f >= 1 + s.g.nodes[g].reserve


class GreedyRule(_Rule):
    def _buy_value(self, s: _Solver, g: int, kd: int) -> float:
        buys = [x for node in s.g.nodes if node.kind == "choice" and node.reset_focus < 0
                and node.activation == s.g.nodes[g].activation for x in node.successors]
        return max((self.per_focus(s, x, kd) for x in buys), default=0.0)

    def boost_hit(self, s: _Solver, g: int, f: int, kd: int) -> bool:
        o = s.g.nodes[g].option
        mean = s.o.mean_dmg[o, int(s.g.options[o].pre_boosted)]
        gain = (s.o.p_hit[o, 1, 0, kd] - s.o.p_hit[o, 0, 0, kd]) * mean
        return f >= 1 and gain > self._buy_value(s, g, kd) + EPS

    def boost_damage(self, s: _Solver, g: int, f: int, kd: int) -> bool:
        o = s.g.nodes[g].option
        gain = s.o.mean_dmg[o, 1] - s.o.mean_dmg[o, 0]
        return f >= 1 and gain > self._buy_value(s, g, kd) + EPS


def solve(graph: Graph, target: Target, policy: str = "optimal", objective: str = "destroy",
          boost_hit: bool = False, boost_damage: bool = False,
          tables: OptionTables | None = None) -> PolicyTables:
    """Decision tables of ``policy`` and its exact value in the box-count model (WM-F5)."""
    if policy not in POLICIES:
        raise InputError("--policy", "must be fixed, greedy or optimal", policy,
                         "use --policy optimal")
    if objective not in OBJECTIVES:
        raise InputError("--objective", "must be destroy or damage", objective,
                         "use --objective destroy")
    rule = None if policy == "optimal" else (
        FixedRule(boost_hit, boost_damage) if policy == "fixed" else GreedyRule())
    solver = _Solver(graph, target, tables or OptionTables.build(graph, target), objective, rule)
    start = solver._goto(0, 0)[solver.n_max, int(target.knocked_down)]
    return PolicyTables(policy, objective, solver.bh, solver.bd, solver.ch, float(start))


def reachable(graph: Graph, tables: PolicyTables, kd0: int = 0) -> set[tuple[int, int, int]]:
    """(node, focus, knocked down) triples the policy can reach from the start."""
    def enter(node: int, f: int, kd: int):
        if node < 0:
            return None
        reset = graph.nodes[node].reset_focus
        return node, (reset if reset >= 0 else f), kd

    seen: set[tuple[int, int, int]] = set()
    todo = [enter(0, 0, kd0)]
    while todo:
        item = todo.pop()
        if item is None or item in seen:
            continue
        seen.add(item)
        g, f, kd = item
        node = graph.nodes[g]
        if node.kind == "choice":
            for c in set(tables.ch[g, f, 1:, kd].tolist()):
                todo.append(enter(c, f, kd) if c >= 0 else enter(node.stop, f, kd))
            continue
        opt = graph.options[node.option]
        knock = int(opt.knocks_down)
        for crit in ((0, 1) if opt.crit_knocks_down else (0,)):
            pairs = set(zip(tables.bh[g, f, 1:, kd].tolist(),
                            tables.bd[g, f, 1:, kd, crit].tolist()))
            for b, d in pairs:
                f1 = f - node.cost - b
                todo.append(enter(node.next, f1, kd))
                todo.append(enter(node.after_hit, f1 - d, kd | knock | crit))
    return seen


def describe(graph: Graph, tables: PolicyTables, n_max: int, kd: int = 0) -> list[str]:
    """The policy as short readable lines: for every (node, focus) the policy can reach,
    its decision by boxes left ("boxes 1-5: …; 6-30: …")."""
    lines = []
    for g, f, k in sorted(reachable(graph, tables, kd), key=lambda t: (t[0], -t[1], t[2])):
        node = graph.nodes[g]
        if node.kind == "choice":
            row = [graph.nodes[c].label if c >= 0 else "stop" for c in tables.ch[g, f, 1:, k]]
        else:
            row = [_boosts(int(h), int(d)) for h, d in zip(tables.bh[g, f, 1:, k],
                                                           tables.bd[g, f, 1:, k, 0])]
        tag = ", target knocked down" if k else ""
        lines.append(f"{node.label} [focus {f}{tag}]: " + _ranges(row))
    return lines


def _boosts(h: int, d: int) -> str:
    return {(0, 0): "no boost", (1, 0): "boost hit", (0, 1): "boost damage",
            (1, 1): "boost hit + damage"}[(h, d)]


def _ranges(row: list[str]) -> str:
    """'boxes left 1-5: X; 6-30: Y' from a decision per boxes-left 1..N."""
    parts, start = [], 0
    for i in range(1, len(row) + 1):
        if i == len(row) or row[i] != row[start]:
            lo, hi = start + 1, i
            parts.append(f"{lo}-{hi}: {row[start]}" if hi > lo else f"{lo}: {row[start]}")
            start = i
    return ("boxes left " + "; ".join(parts)) if len(parts) > 1 else (row[0] if row else "-")
