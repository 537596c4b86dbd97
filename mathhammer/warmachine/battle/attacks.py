"""Activations inside a battle: wm duel's activation graphs played from the board state (WM-B12).

An activation of one model against one enemy model is the decision graph of
:mod:`mathhammer.warmachine.activation` (WM-F3: initial attacks, bought attacks, spells,
charge) with the option tables of :class:`~mathhammer.warmachine.policy.OptionTables` (the
per-roll rules, WM-A*, WM-D*) built against the target's DEF and ARM *as they are now*
(camped focus, feats and spells on it). A :class:`Program` is that graph flattened into
Python lists with the decisions of a focus rule — the greedy rule of thumb of WM-F5
(:func:`~mathhammer.warmachine.policy.rule_tables`) — and :func:`play` runs it once from the
target's current marked boxes, knock-down and engagement, exactly as the policy kernel's
Monte Carlo does (:func:`mathhammer.warmachine.kernels.policy.simulate`): the same tables, the same
order of draws, damage marked by the WM-G2 cycle. Programs are built once per (attacker,
focus, mode, charge, crippled systems, target, ARM/DEF now, distance) and reused by every
battle of a run.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, replace

from mathhammer.warmachine.activation import AttackOption, Graph, Node
from mathhammer.warmachine.sequence import Target

CHOICE, ATTACK = 1, 0
FREEZE, KNOCK = 2, 1  # the state.STATIONARY / state.KNOCKED_DOWN codes


@dataclass
class Program:
    """A flattened activation graph with its focus rule (see the module docstring)."""

    kind: list
    option: list
    cost: list
    nxt: list
    after_hit: list
    succ: list
    stop: list
    reset: list  # a root's focus allowance (-1 elsewhere): a chain resets it per activation
    entry_status: list  # a root's feat knock-down: 0, KNOCK or FREEZE (WM-E2)
    entry_flags: list
    p_hit: list  # [o][bh][mcrip][kd][eng][fl]
    p_crit: list
    cdf: list  # [o][scrip][row][fl] -> cumulative damage probabilities
    bcdf: list
    p_under: list
    knock_hit: list
    knock_crit: list
    status_hit: list  # what a hit's knock-down is: KNOCK or FREEZE (stationary)
    status_crit: list
    engages: list
    flags_on_hit: list
    can_bh: list
    can_bd: list
    pre: list
    amp: list
    rule_bh: list  # [g][f][kd]
    rule_bd: list  # [g][f][kd][crit]
    rule_ch: list  # [g][f][kd]
    flags: list  # Effect of each flag bit (spells with DEF/ARM modifiers, WM-E3)
    charge_nodes: frozenset
    act: list  # the activation (of a chain) each node belongs to
    names: list  # each option's name (weapon, spell, power attack)
    label: str = ""


def _cum(row) -> list[float]:
    out, acc = [], 0.0
    for p in row:
        acc += float(p)
        out.append(acc)
    if out:
        out[-1] = 2.0  # the last outcome catches float rounding of the sum
    return out


def compile_program(graph: Graph, target: Target, statuses: dict[str, tuple[int, int]],
                    label: str = "", immune_cold: bool = False, opts=None,
                    entry_status: int = KNOCK) -> Program:
    """Flatten ``graph`` against ``target`` with the greedy focus rule (WM-F5);
    ``statuses`` maps an option's name to what its hit and its critical knock-down are
    (knocked down, or stationary for Critical Freeze and Freezing Grip)."""
    from mathhammer.warmachine.policy import OptionTables, rule_tables

    opts = opts if opts is not None else OptionTables.build(graph, target)
    rules = rule_tables(graph, opts, "greedy")
    nodes = graph.nodes
    o_all = graph.options
    n_o = len(o_all)
    cdf = [[[[_cum(opts.pmf[o, sc, b, fl]) for fl in range(opts.pmf.shape[3])]
             for b in (0, 1)] for sc in (0, 1)] for o in range(n_o)]
    bcdf = [[[[_cum(opts.bpmf[o, sc, b, fl]) for fl in range(opts.bpmf.shape[3])]
              for b in (0, 1)] for sc in (0, 1)] for o in range(n_o)]
    hit_status, crit_status = [], []
    for opt in o_all:
        hit, crit = statuses.get(opt.name, (KNOCK, KNOCK))
        hit_status.append(hit)
        crit_status.append(crit)
    return Program(
        kind=[CHOICE if n.kind == "choice" else ATTACK for n in nodes],
        option=[n.option for n in nodes], cost=[n.cost for n in nodes],
        nxt=[n.next for n in nodes], after_hit=[n.after_hit for n in nodes],
        succ=[list(n.successors) for n in nodes], stop=[n.stop for n in nodes],
        reset=[n.reset_focus for n in nodes],
        entry_status=[entry_status if n.entry_knockdown else 0 for n in nodes],
        entry_flags=[n.entry_flags for n in nodes],
        p_hit=opts.p_hit.tolist(), p_crit=opts.p_crit.tolist(), cdf=cdf, bcdf=bcdf,
        p_under=opts.p_under.tolist(),
        knock_hit=[int(o.knocks_down) for o in o_all],
        knock_crit=[int(o.crit_knocks_down and not immune_cold) for o in o_all],
        status_hit=hit_status, status_crit=crit_status,
        engages=[o.engages for o in o_all], flags_on_hit=[o.flags_on_hit for o in o_all],
        can_bh=[int(o.can_boost_hit) for o in o_all],
        can_bd=[int(o.can_boost_damage and not o.no_damage) for o in o_all],
        pre=[int(o.pre_boosted) for o in o_all], amp=[int(o.crit_amputation) for o in o_all],
        rule_bh=rules.bh.tolist(), rule_bd=rules.bd.tolist(), rule_ch=rules.ch.tolist(),
        flags=list(graph.flags), charge_nodes=frozenset(i for i, n in enumerate(nodes) if n.charge),
        act=[n.activation for n in nodes], names=[o.name for o in o_all], label=label)


class Marker:
    """WM-G2 marking on the marked-box integer of a grid or track, as the kernels mark it
    (``mark_from``): the first ``d`` unmarked boxes of the fill cycle from the rolled column."""

    def __init__(self, grid, shield_mask: int) -> None:
        self.full = grid.full
        self.m_mask = grid.system_masks.get("M", 0)
        self.shield_mask = shield_mask
        self.amp_masks = [grid.system_masks[x] for x in "LRH" if x in grid.system_masks]
        width = grid.width
        self.order = []
        for c in range(6):
            start = grid.col_start[c]
            cycle = [(start + k) % width for k in range(width)]
            self.order.append([1 << p for p in cycle if self.full >> p & 1])

    def mark(self, bits: int, column: int, damage: int) -> int:
        for bit in self.order[column]:
            if not bits & bit:
                bits |= bit
                damage -= 1
                if damage == 0:
                    break
        return bits


@dataclass
class Played:
    """What one activation did to its target."""

    bits: int
    down: int  # 0 up, KNOCK or FREEZE
    engaged: int
    flags: int
    spent: int
    charged: bool
    attacks: int
    hits: int


def play(prog: Program, marker: Marker, bits: int, down: int, engaged: int, rng,
         dec=None, per_activation: dict | None = None) -> Played:
    """One run of ``prog`` from the target's state (the policy kernel's trial, in Python).

    ``dec`` (optional) replaces the greedy rule by a solved policy: a callable
    ``dec(g, f, kd, eng, fl, bits) -> decision`` in the kernel's encoding (choice: the
    successor's position or -1; attack: bit 0 boost hit, bits 1..3 damage boosts).
    ``per_activation`` (optional) collects, per activation of a chain, the focus spent
    (``("spent", a)``) and whether it charged (``("charged", a)``)."""
    full, m_mask, s_mask = marker.full, marker.m_mask, marker.shield_mask
    g = 0
    f = prog.reset[0]
    status = down or prog.entry_status[0]
    kd = 1 if status else 0
    eng = engaged
    fl = prog.entry_flags[0]
    reset, entry_status, entry_flags = prog.reset, prog.entry_status, prog.entry_flags
    spent = attacks = hits = 0
    charged = False
    rand = rng.random
    while g >= 0 and (full & ~bits):
        if prog.kind[g] == CHOICE:
            succ = prog.succ[g]
            if dec is None:
                t = prog.rule_ch[g][f][kd]
                ok = t >= 0 and prog.cost[t] <= f and t in succ
            else:
                k = dec(g, f, kd, eng, fl, bits)
                t = succ[k] if 0 <= k < len(succ) else -1
                ok = t >= 0 and prog.cost[t] <= f
            if ok:
                if t in prog.charge_nodes:
                    charged = True
                    if per_activation is not None:
                        per_activation[("charged", prog.act[t])] = True
                g = t
            else:
                g = prog.stop[g]
            if g >= 0 and reset[g] >= 0:  # the next activation of a chain starts (WM-S1)
                f = reset[g]
                status = status or entry_status[g]
                kd = 1 if status else 0
                fl |= entry_flags[g]
            continue
        o = prog.option[g]
        cost = prog.cost[g]
        k = 0 if dec is None else dec(g, f, kd, eng, fl, bits)
        bh_ok = prog.can_bh[o] and f - cost >= 1
        if dec is None:
            bh = prog.rule_bh[g][f][kd] if bh_ok else 0
        else:
            bh = (k & 1) if bh_ok else 0
        f1 = f - cost - bh
        spent += cost + bh
        if per_activation is not None:
            key = ("spent", prog.act[g])
            per_activation[key] = per_activation.get(key, 0) + cost + bh
        can_bd = prog.can_bd[o] and not prog.pre[o] and f1 >= 1
        mcrip = 1 if (m_mask and bits & m_mask == m_mask) else 0
        scrip = 1 if (s_mask and bits & s_mask == s_mask) else 0
        attacks += 1
        u = rand()
        ph = prog.p_hit[o][bh][mcrip][kd][eng][fl]
        e = prog.engages[o]
        eng2 = eng if e < 0 else e
        if u < ph:
            hits += 1
            crit = 0
            if (prog.knock_crit[o] or prog.amp[o]) and u < prog.p_crit[o][bh][mcrip][kd][eng][fl]:
                crit = 1
            if can_bd:
                bd = prog.rule_bd[g][f][kd][crit] if dec is None else (k >> (1 + crit)) & 1
            else:
                bd = 0
            if prog.knock_hit[o]:
                status = status or prog.status_hit[o]
            if crit and prog.knock_crit[o]:
                status = prog.status_crit[o] if status != FREEZE else status
            kd = 1 if status else 0
            fl |= prog.flags_on_hit[o]
            table = prog.cdf
            nxt = prog.after_hit[g]
            amp = prog.amp[o] * crit
        else:
            pu = prog.p_under[o]
            if pu > 0.0 and rand() < pu:
                if can_bd:
                    bd = prog.rule_bd[g][f][kd][0] if dec is None else (k >> 3) & 1
                else:
                    bd = 0
                if prog.knock_hit[o]:
                    status = status or prog.status_hit[o]
                    kd = 1
                fl |= prog.flags_on_hit[o]
                table = prog.bcdf
                nxt = prog.nxt[g]
                amp = 0
            else:
                eng = eng2
                f = f1
                g = prog.nxt[g]
                if g >= 0 and reset[g] >= 0:
                    f = reset[g]
                    status = status or entry_status[g]
                    kd = 1 if status else 0
                    fl |= entry_flags[g]
                continue
        spent += bd
        if bd and per_activation is not None:
            key = ("spent", prog.act[g])
            per_activation[key] = per_activation.get(key, 0) + bd
        row = 1 if (bd or prog.pre[o]) else 0
        cum = table[o][scrip][row][fl]
        d = bisect_right(cum, rand())
        if d >= len(cum):
            d = len(cum) - 1
        if d > 0:
            col = int(rand() * 6.0)
            new = marker.mark(bits, col, d)
            if amp:
                fresh = new & ~bits
                for mask in marker.amp_masks:
                    if fresh & mask:
                        new |= mask
            bits = new
        eng = eng2
        f = f1 - bd
        g = nxt
        if g >= 0 and reset[g] >= 0:
            f = reset[g]
            status = status or entry_status[g]
            kd = 1 if status else 0
            fl |= entry_flags[g]
    return Played(bits, status, eng, fl, spent, charged, attacks, hits)


def free_strike_graph(option: AttackOption) -> Graph:
    """A free strike (WM-A6 +2, WM-D3 pre-boosted, WM-A9 no focus) as a one-attack graph."""
    opt = replace(option, stat=option.stat + 2, pre_boosted=True, can_boost_hit=False,
                  can_boost_damage=False, engages=-1, distance=None, in_melee="never")
    graph = Graph()
    graph.options.append(opt)
    graph.nodes.append(Node("choice", "free strike: opening", successors=[1], stop=-1,
                            reset_focus=0))
    graph.nodes.append(Node("attack", "free strike", option=0, cost=0, next=-1))
    graph.labels.append("free strike")
    graph.roots = [0]
    return graph


def distance_bucket(inches: float) -> float:
    """Ranged distances enter the option tables rounded up to the inch (WM-B12): what they
    decide is beyond RNG or not, Stealth, and the AOE deviation cap."""
    return float(max(1, math.ceil(inches - 1e-9)))
