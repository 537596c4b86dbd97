"""Focus policies (WM-F5): the option tables every policy reads, and the fixed and greedy
rules as decision tables.

The optimal policy is solved exactly on the full state by :mod:`exact_policy` (the
kernel :mod:`mathhammer.warmachine.kernels.policy`); the rules here are the habits it is compared
with, written as decisions over (node, focus, knocked down) — they never look at the
grid:

* **fixed**: charge when allowed; initial attacks with every melee weapon, heaviest first
  (a Sustained Attack weapon last); boost every
  attack roll (``boost_hit``) and/or every damage roll (``boost_damage``) while focus
  lasts — keeping the focus for ``max_bought`` bought attacks when the activation sets
  it (``--buy N``); spend what is left on bought attacks with the weapon (or spell) of
  the highest expected damage per focus.
* **greedy** (rule of thumb): charge when allowed; initial attacks; each focus goes
  where it adds the most expected damage *now*: boost a roll only when the boost's
  expected gain beats the expected damage of one more bought attack (P(hit) ×
  E[damage], per focus point); otherwise buy attacks. It never looks at the boxes left
  and never makes power attacks.

Both are evaluated exactly by the same programme as the optimum (forced decisions), so
"optimal ≥ every habit" is a property of one engine, not of two.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mathhammer.errors import InputError
from mathhammer.warmachine import rules
from mathhammer.warmachine.activation import AttackOption, Graph
from mathhammer.warmachine.sequence import Target

POLICIES = ("fixed", "greedy", "optimal")
OBJECTIVES = ("destroy", "damage")  # and "cripple:X": maximise P(system X crippled)
EPS = 1e-12  # spend focus only for a strict improvement
MAX_FLAGS = 3  # effect flags a chain may switch on (2^3 table variants)


def check_policy(policy: str, objective: str) -> None:
    if policy not in POLICIES:
        raise InputError("‹policy›", "must be fixed, greedy or optimal", policy,
                         "use ‹policy› optimal")
    if objective not in OBJECTIVES and objective_system(objective) is None:
        raise InputError("‹objective›", "must be destroy, damage or cripple:X (a system letter "
                         "L R H A C M)", objective, "use ‹objective› destroy")


def objective_system(objective) -> str | None:
    """The system letter of a ``cripple:X`` objective (maximise P(X crippled), WM-G3), else
    None. ``cripple:movement`` and ``cripple:m`` read as ``cripple:M``."""
    from mathhammer.warmachine.grid import SYSTEM_NAMES

    if not isinstance(objective, str) or not objective.lower().startswith("cripple:"):
        return None
    part = objective.split(":", 1)[1].strip()
    if part.upper() in SYSTEM_NAMES:
        return part.upper()
    names = {v.split()[0]: k for k, v in SYSTEM_NAMES.items()}  # "movement" -> "M"
    return names.get(part.lower())


def normal_objective(objective: str) -> str:
    """``destroy``, ``damage`` or ``cripple:X`` with X a capital system letter."""
    system = objective_system(objective)
    return f"cripple:{system}" if system else objective


@dataclass
class OptionTables:
    """Exact per-option numbers of one graph against one target (WM-A*, WM-D*).

    Axes: ``p_hit`` / ``p_crit`` [option, boost hit, movement crippled, knocked down,
    engaged, flags]; ``pmf`` / ``bpmf`` [option, shield crippled, boosted, flags, damage]
    (damage capped at the target's boxes: more is the same); ``p_under[option]`` the
    chance a missed AOE still covers the target (WM-D4, WM-D5).
    """

    p_hit: np.ndarray
    p_crit: np.ndarray
    pmf: np.ndarray
    bpmf: np.ndarray
    p_under: np.ndarray
    mean_dmg: np.ndarray  # [option, boosted] with the shield up, no flags
    auto_miss: np.ndarray  # bool[option]: beyond RNG or Stealth (WM-A8)

    @classmethod
    def build(cls, graph: Graph, target: Target, memo: dict | None = None) -> OptionTables:
        """``memo``: rows already computed for this ``target`` (a search building many
        graphs from the same options, wm plan), keyed by option and flags."""
        n_opt = max(len(graph.options), 1)
        n_fl = 1 << len(graph.flags)
        cap = target.grid.n_boxes
        p_hit = np.zeros((n_opt, 2, 2, 2, 2, n_fl))
        p_crit = np.zeros_like(p_hit)
        per: list[list] = []
        width = 1
        p_under = np.zeros(n_opt)
        auto = np.zeros(n_opt, dtype=bool)
        for o, opt in enumerate(graph.options):
            key = (opt, tuple(graph.flags))
            if memo is not None and key in memo:
                hit_rows, crit_rows, rows_o, under, miss, w = memo[key]
                p_hit[o], p_crit[o], p_under[o], auto[o] = hit_rows, crit_rows, under, miss
                per.extend(rows_o)
                width = max(width, w)
                continue
            start = len(per)
            w_before, width = width, 1
            miss = option_auto_miss(opt, target)
            auto[o] = miss
            for fl in range(n_fl):
                d_def, d_rdef, d_arm = graph.flag_mods(fl)
                for bh, mc, kd, eng in np.ndindex(2, 2, 2, 2):
                    if miss:
                        continue
                    k, bonus, defense, auto_hit = _attack_roll(opt, target, bool(bh), bool(mc),
                                                               bool(kd), bool(eng), d_def, d_rdef)
                    _, hit, crit = rules.attack_outcome_probs(k, bonus, defense, auto_hit)
                    p_hit[o, bh, mc, kd, eng, fl] = hit + crit
                    p_crit[o, bh, mc, kd, eng, fl] = crit
                rows = []
                for sc in (0, 1):
                    armor = target.armor_against(opt.ignores_shield, bool(sc)) + d_arm
                    full = [_damage_pmf(opt, bool(b), armor, opt.power) for b in (0, 1)]
                    blast = [_damage_pmf(opt, bool(b), armor, math.ceil(opt.power / 2),
                                         blast=True) for b in (0, 1)]
                    rows.append((full, blast))
                    width = max(width, *(len(x) for x in full + blast))
                per.append(rows)
            if opt.aoe > 0 and not opt.spray:
                from mathhammer.warmachine.aoe_geometry import p_target_under_after_miss

                distance = opt.distance if opt.distance is not None else 12.0
                p_under[o] = p_target_under_after_miss(opt.aoe, target.base, distance, opt.rng)
            if memo is not None:
                memo[key] = (p_hit[o].copy(), p_crit[o].copy(), per[start:], p_under[o],
                             bool(auto[o]), width)
            width = max(width, w_before)
        width = min(width, cap + 1)
        pmf = np.zeros((n_opt, 2, 2, n_fl, width))
        bpmf = np.zeros_like(pmf)
        for o, opt in enumerate(graph.options):
            key = (opt, tuple(graph.flags), width)
            if memo is not None and key in memo:
                pmf[o], bpmf[o] = memo[key]
                continue
            for fl in range(n_fl):
                for sc in (0, 1):
                    full, blast = per[o * n_fl + fl][sc]
                    for b in (0, 1):
                        pmf[o, sc, b, fl] = _capped(full[b], width)
                        bpmf[o, sc, b, fl] = _capped(blast[b], width)
            if memo is not None:
                memo[key] = (pmf[o].copy(), bpmf[o].copy())
        mean = np.array([[float(pmf[o, 0, b, 0] @ np.arange(width)) for b in (0, 1)]
                         for o in range(n_opt)])
        return cls(p_hit, p_crit, pmf, bpmf, p_under, mean, auto)


def option_auto_miss(opt: AttackOption, target: Target) -> bool:
    """WM-A8: a ranged or magic attack beyond its RNG, or at a Stealth target from more
    than 5" (a spray ignores Stealth), misses automatically."""
    if opt.kind == "melee" or opt.distance is None:
        return False
    if opt.rng is not None and opt.distance > opt.rng:
        return True
    return target.stealth and not opt.spray and opt.distance > rules.STEALTH_RANGE


def _attack_roll(opt: AttackOption, target: Target, bh: bool, mcrip: bool, kd: bool, eng: bool,
                 d_def: int, d_rdef: int):
    """(dice, bonus, DEF, automatic hit) of ``opt`` in one situation (WM-A1..A7)."""
    defense = target.defense_against(opt.kind, mcrip, kd) + d_def
    defense += d_rdef if opt.kind != "melee" else 0
    penalty = opt.in_melee == "always" or (opt.in_melee == "engaged" and eng)
    bonus = opt.stat - (4 if penalty and opt.kind != "melee" and not opt.spray else 0)
    auto = opt.auto_hit or rules.is_automatic_hit(opt.kind, knocked_down=kd)
    return rules.dice_count(bh, opt.crippled, opt.extra_hit_dice), bonus, max(0, defense), auto


def _damage_pmf(opt: AttackOption, boosted: bool, armor: int, power: int,
                blast: bool = False) -> np.ndarray:
    if opt.no_damage:
        return np.ones(1)
    pre = opt.pre_boosted and not blast
    k = rules.damage_dice_count(boosted, pre, opt.crippled and not blast,
                                0 if blast else opt.extra_damage_dice)
    return rules.damage_pmf(k, power, armor)


def _capped(pmf: np.ndarray, width: int) -> np.ndarray:
    """pmf over damage 0..width-1, the last cell holding everything at or above it (more
    damage than the target has boxes marks the same boxes, WM-G2)."""
    out = np.zeros(width)
    n = min(len(pmf), width)
    out[:n] = pmf[:n]
    out[width - 1] += pmf[width:].sum()
    return out


# ---------------------------------------------------------------------------- the rules
@dataclass
class RuleTables:
    """Decisions of a fixed or greedy rule: ``bh[g, f, kd]``, ``bd[g, f, kd, crit]``
    (focus f when the node is entered) and ``ch[g, f, kd]`` (successor node, -1 stop)."""

    bh: np.ndarray
    bd: np.ndarray
    ch: np.ndarray


class _Rule:
    """Shared parts of the fixed and greedy rules."""

    def __init__(self, graph: Graph, opts: OptionTables, boost_hit: bool = False,
                 boost_damage: bool = False) -> None:
        self.g, self.o = graph, opts
        self.flag_hit, self.flag_damage = boost_hit, boost_damage

    def per_focus(self, succ: int, kd: int) -> float:
        node = self.g.nodes[succ]
        if node.kind != "attack":
            return 0.0
        o = node.option
        return self.o.p_hit[o, 0, 0, kd, 0, 0] * self.o.mean_dmg[o, 0] / max(node.cost, 1)

    def choose(self, g: int, f: int, kd: int) -> int:
        node = self.g.nodes[g]
        feasible = [x for x in node.successors if self.g.nodes[x].cost <= f]
        if node.reset_focus >= 0:  # opening: charge if allowed, initial attacks, no power attacks
            labels = {x: self.g.nodes[x].label for x in feasible}
            wanted = [x for x in feasible if labels[x].startswith("charge, ")
                      and "Combo" not in labels[x]]
            if not wanted:
                wanted = [x for x in feasible if not labels[x].startswith(
                    ("charge", "head-butt", "slam", "Combo"))]
            if not wanted:
                wanted = [x for x in feasible if self.g.nodes[x].kind == "choice"]
            return wanted[0] if wanted else -1
        if node.initial:  # the habit's order of initial attacks: as listed (heaviest first)
            return feasible[0] if feasible else -1
        # buy phase: the option with the best expected damage per focus, while focus lasts
        if not feasible:
            return -1
        return max(feasible, key=lambda x: self.per_focus(x, kd))


class FixedRule(_Rule):
    """Boosts as listed while focus lasts, keeping the focus for the bought attacks
    still planned (``--buy N``: ``Node.reserve``)."""

    def boost_hit(self, g: int, f: int, kd: int) -> bool:
        return self.flag_hit and f >= 1 + self.g.nodes[g].reserve

    def boost_damage(self, g: int, f: int, kd: int) -> bool:
        return self.flag_damage and f >= 1 + self.g.nodes[g].reserve


class GreedyRule(_Rule):
    def _buy_value(self, g: int, kd: int) -> float:
        act = self.g.nodes[g].activation
        buys = [x for node in self.g.nodes if node.kind == "choice" and node.reset_focus < 0
                and not node.initial and node.activation == act for x in node.successors]
        return max((self.per_focus(x, kd) for x in buys), default=0.0)

    def boost_hit(self, g: int, f: int, kd: int) -> bool:
        o = self.g.nodes[g].option
        mean = self.o.mean_dmg[o, int(self.g.options[o].pre_boosted)]
        gain = (self.o.p_hit[o, 1, 0, kd, 0, 0] - self.o.p_hit[o, 0, 0, kd, 0, 0]) * mean
        return f >= 1 and gain > self._buy_value(g, kd) + EPS

    def boost_damage(self, g: int, f: int, kd: int) -> bool:
        o = self.g.nodes[g].option
        gain = self.o.mean_dmg[o, 1] - self.o.mean_dmg[o, 0]
        return f >= 1 and gain > self._buy_value(g, kd) + EPS


def rule_tables(graph: Graph, opts: OptionTables, policy: str, boost_hit: bool = False,
                boost_damage: bool = False) -> RuleTables:
    """The decisions of ``fixed`` or ``greedy`` at every (node, focus, knocked down)."""
    rule = (FixedRule(graph, opts, boost_hit, boost_damage) if policy == "fixed"
            else GreedyRule(graph, opts))
    n_g, n_f = len(graph.nodes), graph.max_focus + 1
    bh = np.zeros((n_g, n_f, 2), dtype=np.int64)
    bd = np.zeros((n_g, n_f, 2, 2), dtype=np.int64)
    ch = np.full((n_g, n_f, 2), -1, dtype=np.int64)
    for g, node in enumerate(graph.nodes):
        for f in range(n_f):
            for kd in (0, 1):
                if node.kind == "choice":
                    ch[g, f, kd] = rule.choose(g, f, kd)
                    continue
                opt = graph.options[node.option]
                f1 = f - node.cost
                if f1 < 0:
                    continue
                h = int(f1 >= 1 and opt.can_boost_hit and rule.boost_hit(g, f1, kd))
                bh[g, f, kd] = h
                left = f1 - h
                d = int(left >= 1 and opt.can_boost_damage and not opt.pre_boosted
                        and rule.boost_damage(g, left, kd))
                bd[g, f, kd, :] = d
    return RuleTables(bh, bd, ch)
