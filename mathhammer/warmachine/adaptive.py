"""``wm plan`` decided as a player decides (WM-P1): the focus split up front, then who
activates next — melee or ranged, with or without the feat — chosen after seeing what the
last activation did.

The programme: between activations the state is (models not yet activated, the feat's
status, the target: its grid or track state, knocked down, engaged, effect flags). The
value of activating model m next is the expectation, over m's activation played with the
optimal policy (WM-F5), of the best continuation from the state it leaves. One backward
pass of the policy kernel does that: m's activation graph ends in a *sink* whose rows hold
the continuation's values (a :class:`Template`, compiled once, solved once per
continuation). The continuation of a set of models depends only on their focus, so every
focus split that gives them the same focus shares it: the search is a memoised dynamic
programme over (models left with their focus, feat) × target state, not an enumeration of
fixed orders. A fixed plan (order, modes and feat chosen before the dice) is one of the
programme's policies, so its optimum is a lower bound of the plan's value.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from mathhammer.results import Report
from mathhammer.warmachine.activation import (
    MAX_WARJACK_FOCUS, ActivationSpec, Graph, Node, add_activation, link_stops,
)
from mathhammer.warmachine.exact_grid import ExactTooLarge
from mathhammer.warmachine.exact_policy import (
    Compiled, GridTables, box_model_target, decision_summary, grid_tables,
)
from mathhammer.warmachine.policy import OptionTables
from mathhammer.warmachine.sequence import Target

EPS = 1e-12  # a later choice must be better by more than this (ties: the first found)
FEAT_UNUSED, FEAT_USED, FEAT_OPEN = 0, 1, 2  # the feat's status; OPEN: the caster is yet to act


@dataclass
class Template:
    """One activation followed by a sink, compiled for entry in any (knocked down,
    engaged, flags): ``entry[kd, eng, fl]`` and ``sink[kd, eng, fl]`` are its rows (-1:
    the sink is never reached with those)."""

    key: tuple
    spec: ActivationSpec
    graph: Graph
    opts: OptionTables
    comp: Compiled
    order: np.ndarray
    row_of: np.ndarray
    entry: np.ndarray
    sink: np.ndarray
    live_sinks: np.ndarray  # rows of the reachable sink combos
    sink_slots: np.ndarray  # their (kd, eng, fl) as flat indices
    entry_combo: np.ndarray  # int64[2, 2, n_fl]: the root's combo entered in (kd, eng, fl)
    exits: tuple = ()  # per entry slot (flat kd, eng, fl): the sink slots it can reach
    slots: frozenset | None = None  # the entry slots compiled (None: every one)


@dataclass
class Copy:
    """One choice at a decision state: activate member ``m`` in ``mode``, feat or not."""

    m: int
    mode: str
    feat: bool
    template: tuple
    next_key: tuple | None  # the decision state it leads to (None: the turn ends)


@dataclass
class Decision:
    """Who activates next from a set of models left: the value of every state, the copy
    chosen there."""

    key: tuple
    values: np.ndarray  # float[2, 2, n_fl, n_s]
    choice: np.ndarray  # int16[2, 2, n_fl, n_s]: index into ``copies``
    copies: list[Copy] = field(default_factory=list)


def combo(g: int, f: int, kd: int, eng: int, fl: int, n_f: int, n_fl: int) -> int:
    """The kernel's control-state number (:func:`kernels.policy.combo_of`)."""
    return (((g * n_f + f) * 2 + kd) * 2 + eng) * n_fl + fl


def with_sink(spec: ActivationSpec, flags) -> Graph:
    """``spec``'s activation graph whose end is a sink node (the last node): what follows
    is read from the sink's rows."""
    graph = Graph(flags=list(flags))
    root = add_activation(graph, spec, 0)
    sink = graph.add(Node("choice", "next activation", reset_focus=0, activation=1))
    link_stops(graph, [sink, -1])
    graph.roots = [root]
    return graph


class Programme:
    """The plan's dynamic programme against one target (see the module docstring).

    ``spec_of(m, focus, mode, feat_here, buffed)`` builds a member's activation (the
    feat's flags always among the chain's flags, so every template reads the same
    effect flags)."""

    def __init__(self, members, caster: int, spec_of, flags, target: Target,
                 objective: str, use_feat: bool, amputation: bool,
                 memory_limit: int, grid: GridTables | None = None) -> None:
        self.members, self.caster, self.spec_of = members, caster, spec_of
        self.flags, self.target, self.objective = list(flags), target, objective
        self.use_feat, self.amputation = use_feat, amputation
        self.n_fl = 1 << len(self.flags)
        self.memory_limit = memory_limit
        self.templates: dict[tuple, Template | None] = {}
        self.decisions: dict[tuple, Decision] = {}
        self.opts_memo: dict = {}
        self.solves = 0  # template solves (one backward pass each)
        self._grid = grid
        self.restricted_templates: dict = {}
        self.entries: dict[tuple, frozenset] = {}  # decision key -> entry slots reached
        self.firsts: dict = {}  # template -> first predecessor of each row

    @property
    def grid(self) -> GridTables:
        """The target's grid states; built on first use, wide enough for the damage of
        every template compiled so far (a track: every damage)."""
        if self._grid is None:
            grid = self.target.grid
            n_d = grid.n_boxes + 1 if grid.is_track else max(
                [t.opts.pmf.shape[4] for t in self.templates.values()] or [grid.n_boxes + 1])
            self._grid = grid_tables(self.target, n_d, self.amputation, self.objective,
                                     self.memory_limit)
        return self._grid

    @property
    def n_s(self) -> int:
        return self.grid.n_states

    @property
    def end_values(self) -> np.ndarray:
        return np.broadcast_to(self.grid.term, (2, 2, self.n_fl, self.n_s))

    # ------------------------------------------------------------------ templates
    def template(self, m: int, focus: int, mode: str, feat: bool, buffed: bool) -> Template:
        key = (self.members[m].ref, focus, mode, feat, buffed, m == self.caster)
        if key not in self.templates:
            self.templates[key] = self._compile(key, self.spec_of(m, focus, mode, feat, buffed))
        return self.templates[key]

    def _compile(self, key, spec: ActivationSpec) -> Template:
        from mathhammer.warmachine.exact_policy import compile_graph

        graph = with_sink(spec, self.flags)
        opts = OptionTables.build(graph, self.target, self.opts_memo)
        comp = compile_graph(graph, self.target)
        n_f, n_fl = comp.n_f, comp.n_fl
        root = graph.nodes[0]
        entry = np.zeros((2, 2, n_fl), dtype=np.int64)
        for kd, eng, fl in np.ndindex(2, 2, n_fl):
            entry[kd, eng, fl] = combo(0, root.reset_focus, kd | int(root.entry_knockdown), eng,
                                       fl | root.entry_flags, n_f, n_fl)
        tpl = self._ordered(key, spec, graph, opts, comp, entry, None)
        exits = []
        for slot in range(entry.size):  # where each entry can leave the activation
            one = self._ordered(key, spec, graph, opts, comp, entry, frozenset([slot]))
            exits.append(frozenset(int(x) for x in one.sink_slots))
        tpl.exits = tuple(exits)
        return tpl

    def _ordered(self, key, spec, graph, opts, comp, entry, slots) -> Template:
        """The template's control states in topological order from the entry ``slots``."""
        from mathhammer import kernels

        kp = kernels.load("mathhammer.warmachine.kernels.policy")
        n_f, n_fl = comp.n_f, comp.n_fl
        flat = entry.ravel()
        chosen = flat if slots is None else flat[sorted(slots)]
        order, problem = kp.control_order_from(np.unique(chosen), comp.GR, comp.OP, _OPTIMAL,
                                               np.int64(n_f), np.int64(n_fl),
                                               np.int64(comp.n_combos), np.int64(comp.max_out))
        if problem:
            raise ExactTooLarge("‹method›", "an activation graph could not be ordered "
                                f"(code {problem})", "exact", "use ‹method› mc")
        rows = len(order)
        row_of = np.full(comp.n_combos + 1, -1, dtype=np.int64)
        row_of[order] = np.arange(rows)
        row_of[comp.n_combos] = rows
        sink_g = len(graph.nodes) - 1
        sink = np.full((2, 2, n_fl), -1, dtype=np.int64)
        for kd, eng, fl in np.ndindex(2, 2, n_fl):
            sink[kd, eng, fl] = row_of[combo(sink_g, 0, kd, eng, fl, n_f, n_fl)]
        live = np.flatnonzero(sink.ravel() >= 0)
        rows_in = row_of[entry]
        if slots is not None:  # entries not compiled read the end row (never used)
            keep = np.zeros(entry.size, dtype=bool)
            keep[sorted(slots)] = True
            rows_in = np.where(keep.reshape(entry.shape), rows_in, rows)
        return Template(key, spec, graph, opts, comp, order, row_of, rows_in, sink,
                        sink.ravel()[live], live, entry, (), slots)

    def restricted(self, tpl: Template, slots: frozenset | None) -> Template:
        """``tpl`` compiled from the entry ``slots`` only (the knock-down, engagement and
        flags a decision state can be reached with): fewer control states to solve."""
        if slots is None or len(slots) == tpl.entry_combo.size:
            return tpl
        key = (tpl.key, slots)
        hit = self.restricted_templates.get(key)
        if hit is None:
            hit = self._ordered(tpl.key, tpl.spec, tpl.graph, tpl.opts, tpl.comp,
                                tpl.entry_combo, slots)
            hit.exits = tpl.exits
            self.restricted_templates[key] = hit
        return hit

    def solve(self, tpl: Template, cont: np.ndarray, keep: bool = False,
              reach: np.ndarray | None = None):
        """Values of entering ``tpl``'s activation in every (kd, eng, fl, grid state) when
        ``cont`` [kd, eng, fl, s] is the value of what follows it (``reach``: only the
        (row, state) pairs marked there, else all). With ``keep`` also the decisions of
        every row."""
        from mathhammer import kernels

        kp = kernels.load("mathhammer.warmachine.kernels.policy")
        rows, n_s = len(tpl.order), self.n_s
        if tpl.opts.pmf.shape[4] > self.grid.T.shape[1]:  # the tables were built narrower
            raise RuntimeError("a template's damage is wider than the grid tables")
        words = (n_s + 63) // 64
        c = tpl.comp
        if reach is not None:  # the grid pass: a row's values only while they are read
            vslot, n_v, reset = value_slots(self.first_predecessor(tpl), rows, tpl.live_sinks)
        else:
            vslot, n_v, reset = np.arange(rows + 1), rows + 1, np.zeros(0, dtype=np.int8)
        vrow_of = np.where(tpl.row_of >= 0, vslot[np.maximum(tpl.row_of, 0)], -1)
        V = np.empty((n_v, n_s))
        V[:] = self.grid.term
        if isinstance(cont, dict):  # the grid pass's values by entry slot (else final)
            V[vslot[tpl.live_sinks]] = [cont.get(int(k), self.grid.term) for k in tpl.sink_slots]
        else:
            V[vslot[tpl.live_sinks]] = cont.reshape(-1, n_s)[tpl.sink_slots]
        if reach is None:
            reach = np.full((rows, words), np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
            if n_s % 64:
                reach[:, -1] = np.uint64((1 << (n_s % 64)) - 1)
        else:
            reach = reach.copy()
        reach[tpl.live_sinks] = 0  # the sink keeps the continuation's values
        dec = np.zeros((rows, n_s), dtype=np.int16)
        kp.backward_slots(tpl.order, c.GR, c.OP, _OPTIMAL, np.int64(c.n_f), np.int64(c.n_fl),
                          self.grid.GRID, tpl.opts.p_hit, tpl.opts.p_crit, tpl.opts.pmf,
                          tpl.opts.bpmf, tpl.opts.p_under, tpl.row_of, vrow_of, reset, reach,
                          V, dec)
        self.solves += 1
        out = V[vslot[tpl.entry.ravel()]].reshape(2, 2, self.n_fl, n_s)
        return (out, dec) if keep else out

    def first_predecessor(self, tpl: Template) -> np.ndarray:
        """:func:`kernels.policy.first_predecessor` of ``tpl`` (memoised)."""
        from mathhammer import kernels

        key = (tpl.key, tpl.slots)
        hit = self.firsts.get(key)
        if hit is None:
            kp = kernels.load("mathhammer.warmachine.kernels.policy")
            c = tpl.comp
            hit = kp.first_predecessor(tpl.order, c.GR, c.OP, _OPTIMAL, np.int64(c.n_f),
                                       np.int64(c.n_fl), tpl.opts.p_hit, tpl.opts.p_under,
                                       tpl.row_of)
            self.firsts[key] = hit
        return hit

    # ------------------------------------------------------------------ decisions
    def key_of(self, left: tuple[int, ...], focus: tuple[int, ...], feat: int) -> tuple:
        """Decision states are the same for the same models left with the same focus (two
        copies of a warjack with equal focus are one)."""
        return (tuple(sorted((self.members[m].ref, focus[m], m == self.caster) for m in left)),
                feat)

    def copies_of(self, left: tuple[int, ...], focus: tuple[int, ...], feat: int):
        """Every way to activate one of ``left`` next, ties to the earlier: no feat before
        the feat, melee before ranged, the models in the order given (WM-P1)."""
        seen = set()
        out = []
        for use in (False, True):
            for k in range(2):
                for m in left:
                    mem = self.members[m]
                    if k >= len(mem.modes):
                        continue
                    mode = mem.modes[k]
                    is_caster = m == self.caster
                    if use and not (is_caster and feat == FEAT_OPEN):
                        continue
                    if not viable(mem, focus[m], mode):
                        continue
                    buffed = feat == FEAT_USED or use
                    nxt = FEAT_USED if use else (FEAT_UNUSED if is_caster and feat == FEAT_OPEN
                                                 else feat)
                    rest = tuple(x for x in left if x != m)
                    ident = (mem.ref, focus[m], mode, use, is_caster)
                    if ident in seen:  # the same model with the same focus: one choice
                        continue
                    seen.add(ident)
                    out.append((m, mode, use, buffed, rest, nxt))
        return out

    def decide(self, left: tuple[int, ...], focus: tuple[int, ...], feat: int) -> Decision:
        """The decision state of ``left`` (with ``focus``) and the feat's status, solved
        with everything after it (memoised)."""
        key = self.key_of(left, focus, feat)
        hit = self.decisions.get(key)
        if hit is not None:
            return hit
        best = None
        choice = None
        copies = []
        slots = self.entries.get(key)
        for m, mode, use, buffed, rest, nxt in self.copies_of(left, focus, feat):
            tpl = self.restricted(self.template(m, focus[m], mode, use, buffed), slots)
            if rest:
                after = self.decide(rest, focus, nxt)
                cont, next_key = after.values, after.key
            else:
                cont, next_key = self.end_values, None
            value = self.solve(tpl, cont)
            copies.append(Copy(m, mode, use, tpl.key, next_key))
            if best is None:
                best = value.copy()
                choice = np.zeros(best.shape, dtype=np.int16)
            else:
                better = value > best + EPS
                best[better] = value[better]
                choice[better] = len(copies) - 1
        if best is None:  # nobody left can attack (never: every member has a mode)
            best = np.array(self.end_values)
            choice = np.full(best.shape, -1, dtype=np.int16)
        dec = Decision(key, best, choice, copies)
        self.decisions[key] = dec
        return dec

    def prepare(self, focus_splits, feat: int) -> None:
        """Which (knock-down, engagement, flags) each decision state of these splits can be
        reached with, level by level from the start: :meth:`decide` then solves each
        activation from those entries only."""
        t = self.target
        everyone = tuple(range(len(self.members)))
        start = (int(t.knocked_down) * 2 + int(t.engaged)) * self.n_fl
        level: dict = {}
        for focus in focus_splits:
            key = self.key_of(everyone, focus, feat)
            level[key] = (everyone, focus, feat)
            self.entries[key] = frozenset([start])
        while level:
            below: dict = {}
            for key, (left, focus, status) in level.items():
                slots = self.entries[key]
                for m, mode, use, buffed, rest, nxt in self.copies_of(left, focus, status):
                    if not rest:
                        continue
                    tpl = self.template(m, focus[m], mode, use, buffed)
                    out = frozenset().union(*(tpl.exits[slot] for slot in slots))
                    child = self.key_of(rest, focus, nxt)
                    below.setdefault(child, (rest, focus, nxt))
                    self.entries[child] = self.entries.get(child, frozenset()) | out
            level = below

    def start_value(self, dec: Decision) -> float:
        t = self.target
        return float(dec.values[int(t.knocked_down), int(t.engaged), 0, self.grid.start_s])


# the kernel's "no forced decisions" argument (the optimal policy)
_OPTIMAL = (np.int64(0), np.zeros((1, 1, 2), np.int64), np.zeros((1, 1, 2, 2), np.int64),
            np.zeros((1, 1, 2), np.int64))


def viable(mem, focus: int, mode: str) -> bool:
    """A ranged activation needs a ranged weapon or a spell it can pay for (WM-F3, WM-F4)."""
    if mode == "melee":
        return True
    from mathhammer.warmachine.duel import _spell

    if any(w.kind == "ranged" and w.damage_power is not None for w in mem.prof.weapons):
        return True
    return any(s.cost <= focus and _spell(s, mem.prof) is not None for s in mem.prof.spells)


def splits(members, caster: int, budget: int) -> list[tuple[int, ...]]:
    """Every focus split (each warjack 0..3, the warcaster keeps the rest, WM-F1); two
    copies of a warjack swapped are one split."""
    jacks = [i for i in range(len(members)) if i != caster]
    out, seen = [], set()
    for give in itertools.product(range(MAX_WARJACK_FOCUS + 1), repeat=len(jacks)):
        if sum(give) > budget:
            continue
        focus = [0] * len(members)
        for j, f in zip(jacks, give):
            focus[j] = f
        focus[caster] = budget - sum(give)
        key = tuple(sorted((members[i].ref, focus[i]) for i in range(len(members))))
        if key in seen:
            continue
        seen.add(key)
        out.append(tuple(focus))
    return out


@dataclass
class PlanGraph:
    """The plan of one focus split as one decision graph: a choice node per decision state
    (who activates next), each choice the activation's own graph, ending in the next
    decision state. Solved by :func:`exact_policy.solve_full` like any chain."""

    graph: Graph
    decision_nodes: dict  # decision key -> node
    copy_of: dict  # activation index -> (decision key, copy index)
    member_of: list  # activation index -> member index (-1 for a decision node)
    choices: dict  # decision node -> [(activation index, member, mode, feat)] (successor order)
    left_of: dict  # decision node -> the members not yet activated
    focus: tuple  # the split


def plan_graph(prog: Programme, focus: tuple[int, ...], feat: int,
               used: dict | None = None) -> PlanGraph:
    """The decision graph of split ``focus`` (every copy, or with ``used`` = {decision key:
    copy indices} only those)."""
    graph = Graph(flags=list(prog.flags))
    nodes: dict = {}
    copy_of: dict = {}
    member_of: list = []
    stops: list = []
    choices: dict = {}
    lefts: dict = {}
    everyone = tuple(range(len(prog.members)))

    def build(left: tuple[int, ...], status: int) -> int:
        key = prog.key_of(left, focus, status)
        if key in nodes:
            return nodes[key]
        names = ", ".join(prog.members[m].name for m in left)
        node = graph.add(Node("choice", f"next to activate ({names} left)", reset_focus=0,
                              activation=len(stops)))
        graph.labels.append("next to activate")
        stops.append(-1)
        member_of.append(-1)
        nodes[key] = node
        choices[node] = []
        lefts[node] = left
        wanted = used.get(key) if used is not None else None
        for ci, (m, mode, use, buffed, rest, nxt) in enumerate(prog.copies_of(left, focus,
                                                                               status)):
            if wanted is not None and ci not in wanted:
                continue
            tpl = prog.template(m, focus[m], mode, use, buffed)
            a = len(stops)
            root = add_activation(graph, tpl.spec, a)
            graph.nodes[root].label = f"{_copy_words(prog, m, focus[m], mode, use)}: opening"
            copy_of[a] = (key, ci)
            member_of.append(m)
            stops.append(-1)
            graph.nodes[node].successors.append(root)
            choices[node].append((a, m, mode, use))
            if rest:
                stops[a] = build(rest, nxt)
        return node

    build(everyone, feat)
    link_stops(graph, stops)
    graph.roots = [0]
    return PlanGraph(graph, nodes, copy_of, member_of, choices, lefts, focus)


def _copy_words(prog: Programme, m: int, focus: int, mode: str, feat: bool) -> str:
    mem = prog.members[m]
    return (f"{mem.name} ({'feat, ' if feat else ''}{focus} focus"
            f"{', ranged' if mode == 'ranged' else ''})")


@dataclass
class Situation:
    """A decision state reached under the plan: who is left (``node``), the target's
    (knocked down, engaged, flags, grid state), its probability and the choice made."""

    node: int
    kd: int
    eng: int
    fl: int
    s: int
    mass: float
    pick: int  # successor position at ``node``


MAX_DECISIONS = 24  # within-activation decision lines in the plan's report
MIN_SHOWN = 0.005  # decision states rarer than this are counted, not described
MAX_SHOWN = 6  # decision states described per activation


def plan_lines(prog: Programme, pg: PlanGraph, focus: tuple[int, ...],
               situations: list[Situation], charges: dict, bits_of: np.ndarray,
               left_of: np.ndarray, feat_name: str = "") -> list[str]:
    """The plan as a player reads it: the focus split, the first activation, then for each
    later activation who goes next in which situation (the rule the programme found), with
    how often each is played. ``charges[a]``: P(activation a charges | it is played)."""
    members, n = prog.members, len(prog.members)
    split = ", ".join(f"{members[m].name} {'keeps ' if m == prog.caster else ''}{focus[m]}"
                      for m in range(n))
    lines = [f"focus: {split} (WM-F1)"]
    by_level: dict[int, dict[int, list[Situation]]] = {}
    for sit in situations:
        level = n - len(pg.left_of[sit.node])
        by_level.setdefault(level, {}).setdefault(sit.node, []).append(sit)
    for level in range(n):
        nodes = by_level.get(level, {})
        if not nodes:
            break
        ranked = sorted(nodes.items(), key=lambda kv: -sum(x.mass for x in kv[1]))
        shown = [kv for kv in ranked if sum(x.mass for x in kv[1]) >= MIN_SHOWN][:MAX_SHOWN]
        for i, (node, sits) in enumerate(shown):
            head = f"{level + 1}." if i == 0 else "  "
            if level == 0:
                lines.append(f"{head} {_pick_words(prog, pg, node, sits[0].pick, charges, feat_name)}")
                continue
            done = [members[m].name for m in range(n) if m not in pg.left_of[node]]
            mass = sum(x.mass for x in sits)
            lines.append(f"{head} after {_and(done)} ({100 * mass:.2f}% of games): "
                         + _rule(prog, pg, node, sits, charges, bits_of, left_of, feat_name))
        rest = ranked[len(shown):]
        if rest:
            mass = sum(x.mass for _, sits in rest for x in sits)
            lines.append(f"   … {len(rest)} rarer situation{'s' * (len(rest) > 1)} "
                         f"({100 * mass:.2f}% of games)")
    return lines


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _pick_words(prog, pg, node, pick, charges, feat_name) -> str:
    a, m, mode, use = pg.choices[node][pick]
    mem = prog.members[m]
    focus = pg.focus[m]
    words = mem.name
    if use:
        words += f" uses the feat{' ' + feat_name if feat_name else ''} (WM-E2)"
    words += f", {focus} focus"
    if mode == "ranged":
        words += ", shoots and casts from range"
    elif mem.prof.is_warjack and focus == 0:
        words += ", melee (no focus to charge)"
    else:
        share = charges.get(a)
        words += ", melee" + (f" (charges in {100 * share:.2f}%)" if share is not None else "")
    return words


def _features(prog, bits: int, kd: int, eng: int, fl: int) -> set[str]:
    grid = prog.target.grid
    out = set()
    if kd:
        out.add("knocked down")
    if eng:
        out.add("engaged")
    for i, e in enumerate(prog.flags):
        if fl >> i & 1:
            out.add(f"{e.name} on")
    from mathhammer.warmachine.grid import SYSTEM_NAMES

    for x in grid.systems:
        if grid.crippled(bits, x):
            out.add(f"{SYSTEM_NAMES[x]} crippled")
    return out


def _rule(prog, pg, node, sits, charges, bits_of, left_of, feat_name) -> str:
    """Who goes next at ``node``: one choice, or each with the situations it is played in
    (a crippled system, knocked down, an effect, the boxes left), the last "otherwise"."""
    picks: dict[int, list[Situation]] = {}
    for x in sits:
        picks.setdefault(x.pick, []).append(x)
    order = sorted(picks, key=lambda j: -sum(x.mass for x in picks[j]))
    if len(order) == 1:
        return _pick_words(prog, pg, node, order[0], charges, feat_name)
    feats = {id(x): _features(prog, int(bits_of[x.s]), x.kd, x.eng, x.fl) for x in sits}
    varying = set.union(*feats.values()) - set.intersection(*feats.values())
    parts = []
    for k, j in enumerate(order):
        mass = sum(x.mass for x in picks[j])
        words = _pick_words(prog, pg, node, j, charges, feat_name)
        if k == len(order) - 1:
            parts.append(f"otherwise {words} ({100 * mass:.2f}%)")
            break
        rest = [x for jj in order[k:] for x in picks[jj]]  # the situations still to tell apart
        cond = _situations_words(picks[j], rest, feats, varying, left_of)
        parts.append(f"{words} {cond} ({100 * mass:.2f}%)")
    return "; ".join(parts)


def _situations_words(mine, among, feats, varying, left_of) -> str:
    """The situations ``mine`` among ``among`` (a superset), in words: per combination of
    the features that vary, all of it or the runs of boxes left."""
    groups: dict[frozenset, tuple[set, set]] = {}
    for x in among:
        key = frozenset(feats[id(x)] & varying)
        groups.setdefault(key, (set(), set()))[0].add(int(left_of[x.s]))
    for x in mine:
        groups[frozenset(feats[id(x)] & varying)][1].add(int(left_of[x.s]))
    clauses = []
    for key in sorted(groups, key=lambda k: (len(k), sorted(k))):
        reached, chosen = groups[key]
        if not chosen:
            continue
        what = [f if f in key else f"not {f}" for f in sorted(varying)]
        if chosen != reached:
            what.append(_runs(sorted(reached), chosen))
        clauses.append(", ".join(what))
    if not clauses or "" in clauses:
        return "always"
    return "if " + " or ".join(clauses)


def _runs(reached: list[int], chosen: set[int]) -> str:
    """Boxes left in ``chosen`` as runs over the values ``reached``: "3–7 or 12 boxes left"."""
    runs, start, prev = [], None, None
    for v in reached:
        if v in chosen:
            start = v if start is None else start
            prev = v
        elif start is not None:
            runs.append((start, prev))
            start = None
    if start is not None:
        runs.append((start, prev))
    text = " or ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs)
    one = len(runs) == 1 and runs[0] == (1, 1)
    return f"{text} box{'' if one else 'es'} left"


def situations_of(sol, pg: PlanGraph, reachp: np.ndarray) -> list[Situation]:
    """The decision states a solved plan graph reaches (target not destroyed) and the
    choice made in each."""
    from mathhammer import kernels

    kp = kernels.load("mathhammer.warmachine.kernels.policy")
    out = []
    alive = sol.grid.left_of > 0
    for r, c in enumerate(sol.order):
        g, f, kd, eng, fl = (int(x) for x in kp.split_combo(np.int64(c), np.int64(sol.comp.n_f),
                                                            np.int64(sol.comp.n_fl)))
        if g not in pg.choices:
            continue
        for s in np.flatnonzero((reachp[r] > 0) & alive):
            pick = int(sol.dec[r, s])
            if pick >= 0:
                out.append(Situation(g, kd, eng, fl, int(s), float(reachp[r, s]), pick))
    return out


def charges_of(pg: PlanGraph, situations: list[Situation], charge: np.ndarray) -> dict:
    """P(an activation charges | it is played), for the activations that could charge."""
    entered: dict[int, float] = {}
    for x in situations:
        a = pg.choices[x.node][x.pick][0]
        entered[a] = entered.get(a, 0.0) + x.mass
    could = {node.activation for node in pg.graph.nodes if node.charge}
    return {a: min(1.0, float(charge[a]) / p) for a, p in entered.items() if a in could and p > 0}


MEMORY_LIMIT = 400 * 2**20
DENSE_REACH = 0.02  # bytes the plan's programme may hold at once (issue 29)


class Search:
    """Every focus split solved as the programme; the best one's plan, lines and report."""

    def __init__(self, members, caster: int, builder, target: Target, objective: str,
                 budget: int, use_feat: bool) -> None:
        self.members, self.caster, self.target = members, caster, target
        self.objective = objective
        self.status = FEAT_OPEN if use_feat else FEAT_UNUSED
        self.everyone = tuple(range(len(members)))
        self.flags = builder.flags
        self.splits = splits(members, caster, budget)
        amputation = any(w.has_rule("Critical Amputation") for mem in members
                         for w in mem.prof.weapons)

        def spec_of(m, focus, mode, feat, buffed):
            return builder.spec(m, focus, mode, feat, True, buffed)

        self.track = target.grid.is_track
        # on a grid, who goes next is decided on the box-count model (WM-P1)
        decided_on = target if self.track else box_model_target(target)
        self.prog = Programme(members, caster, spec_of, builder.flags, decided_on, objective,
                              use_feat, amputation, MEMORY_LIMIT)
        self.prog.prepare(self.splits, self.status)
        values = [self.prog.start_value(self.prog.decide(self.everyone, sp, self.status))
                  for sp in self.splits]
        order = sorted(range(len(self.splits)), key=lambda i: (-values[i], i))
        self.ranked = [(values[i], self.splits[i]) for i in order]
        self.best = self.ranked[0][1]
        if self.track:
            self._solve_best()
        else:
            self.grid_prog = Programme(members, caster, spec_of, builder.flags, target,
                                       objective, use_feat, amputation, MEMORY_LIMIT)
            self._solve_grid()

    def _solve_best(self) -> None:
        from mathhammer.warmachine.exact_policy import solve_full

        self.pg = plan_graph(self.prog, self.best, self.status)
        opts = OptionTables.build(self.pg.graph, self.target, self.prog.opts_memo)
        self.solution = solve_full(self.pg.graph, self.target, "optimal", self.objective,
                                   opts=opts, cache=False)
        if abs(self.solution.value - self.ranked[0][0]) > 1e-9:  # one programme, two ways
            raise RuntimeError(f"the plan graph's value {self.solution.value!r} is not the "
                               f"programme's {self.ranked[0][0]!r}")
        out = self.solution.distribution()
        self.situations = situations_of(self.solution, self.pg, out["reachp"])
        self.charges = charges_of(self.pg, self.situations, out["charge"])

    def _solve_grid(self) -> None:
        self.gpass = GridPass(self.grid_prog, self.prog, self.best, self.status)
        used: dict = {}
        for st in self.gpass.states.values():
            used[st.key] = set(st.uses)
        self.pg = plan_graph(self.grid_prog, self.best, self.status, used)
        position = {}  # (decision key, copy index) -> (node, successor position)
        for node, picks in self.pg.choices.items():
            for j, (a, *_rest) in enumerate(picks):
                position[self.pg.copy_of[a]] = (node, j)
        self.situations = []
        for key, kd, eng, fl, s_, mass, ci in self.gpass.situations:
            node, j = position[(key, ci)]
            self.situations.append(Situation(node, kd, eng, fl, s_, mass, j))
        self.charges = {}
        could = {node.activation for node in self.pg.graph.nodes if node.charge}
        for (key, ci), share in self.gpass.charges.items():
            node, j = position[(key, ci)]
            a = self.pg.choices[node][j][0]
            if a in could:
                self.charges[a] = min(1.0, share)

    @property
    def words(self) -> str:
        if not self.track:
            return (f"every focus split ({len(self.splits):,}) solved as one programme over who "
                    "activates next on the box-count model (boxes left at base DEF, exact "
                    f"there: {len(self.prog.decisions):,} decision states, "
                    f"{self.prog.solves:,} activation solves); the best split's plan played on "
                    "the full grid — who goes next as the box-count model decides, at the boxes "
                    "marked, knock-down, engagement and effects; every activation with the "
                    "optimal policy on the full grid given what follows (exact)")
        return (f"every focus split ({len(self.splits):,}) solved exactly as one programme over "
                "who activates next: the order, melee or ranged and the feat are decided after "
                f"seeing each activation ({len(self.prog.decisions):,} decision states, "
                f"{self.prog.solves:,} activation solves); a plan fixed before the dice is one of "
                "its policies, so none does better")

    def lines(self, feat_name: str = "") -> list[str]:
        grid = self.prog.grid if self.track else self.grid_prog.grid
        prog = self.prog if self.track else self.grid_prog
        return plan_lines(prog, self.pg, self.best, self.situations, self.charges,
                          grid.bits_of, grid.left_of, feat_name)

    def first(self, focus: tuple[int, ...]):
        """(member, mode, feat) activated first with split ``focus``."""
        dec = self.prog.decide(self.everyone, focus, self.status)
        t = self.target
        ci = int(dec.choice[int(t.knocked_down), int(t.engaged), 0, self.prog.grid.start_s])
        m, mode, use, *_ = self.prog.copies_of(self.everyone, focus, self.status)[ci]
        return m, mode, use

    def path(self) -> list[tuple[int, str, bool]] | None:
        """The best plan's activations in order when it plays them in the same order, modes
        and feat whatever the dice do; None when who goes next depends on them."""
        picks: dict[int, set] = {}
        for x in self.situations:
            level = len(self.members) - len(self.pg.left_of[x.node])
            a, m, mode, use = self.pg.choices[x.node][x.pick]
            picks.setdefault(level, set()).add((m, mode, use))
        if any(len(v) > 1 for v in picks.values()):
            return None
        return [next(iter(picks[k])) for k in sorted(picks)]

    def short(self, focus: tuple[int, ...]) -> str:
        """The plan in a line: ``A (feat, 0, melee) → B (3, melee)`` when its order is the
        same whatever the dice do, else the first activation and the others' focus."""
        def words(m, mode, use):
            return f"{self.members[m].name} ({'feat, ' if use else ''}{focus[m]}, {mode})"

        path = self.path() if focus == self.best else None
        if path is not None and len(path) == len(self.members):
            return " → ".join(words(*step) for step in path)
        m, mode, use = self.first(focus)
        text = words(m, mode, use) + " first"
        others = [k for k in self.everyone if k != m]
        if others:
            then = "then as the dice fall" if focus == self.best else "then"
            text += f", {then}: " + ", ".join(f"{self.members[k].name} {focus[k]}"
                                              for k in others)
        return text

    def report(self, *, method: str, config, check: bool, explain: bool, title: str,
               feat_name: str = "") -> Report:
        from mathhammer.warmachine.duel import duel_chain

        self.lines_text = self.lines(feat_name)
        if not self.track:
            return self._grid_report(method, config, check, title)

        specs = [self.prog.template(m, self.best[m], self.members[m].modes[0], False,
                                    False).spec for m in self.everyone]
        report = duel_chain(specs, self.target, objective=self.objective, method=method,
                            config=config, check=check, explain=explain, effects=self.flags,
                            solved=self.solution, title=title)
        # within each activation, the most often reached first (who goes next: the plan)
        report.info["decisions"] = [line for line in decision_summary(
            self.solution, None, top=10_000, by_reach=True)
            if not line.startswith("next to activate")][:MAX_DECISIONS]
        return report


    def _grid_report(self, method: str, config, check: bool, title: str) -> Report:
        """The plan on the full grid: its exact distribution (the grid pass), or a Monte Carlo
        of the same decisions (:meth:`simulation`)."""
        from mathhammer.query import answer
        from mathhammer.results import Distribution, Estimate
        from mathhammer.warmachine.duel import AUTO_EXACT, _mc_report, _report, chain_info

        target, gp, grid = self.target, self.gpass, self.grid_prog.grid
        self.opts = OptionTables.build(self.pg.graph, target, self.grid_prog.opts_memo)
        box_value = self.ranked[0][0]
        key = "p_destroyed_box_model" if self.objective == "destroy" else "mean_damage_box_model"
        extra = {key: Estimate.exact(min(box_value, 1.0) if self.objective == "destroy"
                                     else box_value)}
        pairs = sum(len(u.dec) for st in gp.states.values()
                    for u in st.uses.values())
        model = ("who activates next decided on the box-count model; every activation "
                 "optimal on the full state (grid, focus, activation node, knock-down, target "
                 f"engaged): exact programme over {pairs:,} states")
        info = chain_info(self.pg.graph, target, self.opts, "optimal", self.objective, model)

        def exact() -> Report:
            final = gp.final
            start_left = target.grid.boxes_left(target.start_bits)
            marked = np.maximum(start_left - grid.left_of, 0)
            pmf = np.bincount(marked, weights=final, minlength=target.grid.n_boxes + 1)
            crippled = []
            for x in target.grid.systems:
                mask = np.uint64(target.grid.system_masks[x])
                crippled.append(Estimate.exact_probability(
                    final[(grid.bits_of & mask) == mask].sum()))
            destroyed = Estimate.exact(min(float(final[grid.left_of == 0].sum()), 1.0))
            results = dict(extra)
            results["mean_focus_spent"] = Estimate.exact(gp.focus_spent)
            return _report("exact", target, Distribution.exact(pmf), destroyed, crippled,
                           results, info, title)

        def monte_carlo(cfg) -> Report:
            run = self.simulation().simulate(cfg)
            return _mc_report(run, target, self.pg.graph, extra, info, title)

        use = "exact" if method == "auto" else method
        report = answer("warmachine.duel", method=use, exact=exact, monte_carlo=monte_carlo,
                        config=config, check=check)
        report.info.pop("charge", None)
        if method == "auto":
            report.info["why exact"] = AUTO_EXACT
        return report

    def simulation(self):
        """The grid plan's decisions on its one decision graph (the copies it plays), for
        :func:`exact_policy.simulate_policy`: who goes next as the box-count model decides,
        each activation's decisions from the grid pass."""
        from mathhammer import kernels
        from mathhammer.warmachine.exact_policy import Solution, compile_graph

        kp = kernels.load("mathhammer.warmachine.kernels.policy")
        target, gp, pg = self.target, self.gpass, self.pg
        grid = self.grid_prog.grid
        comp = compile_graph(pg.graph, target)
        order, problem = kp.control_order(np.int64(comp.start_combo), comp.GR, comp.OP,
                                          _OPTIMAL, np.int64(comp.n_f), np.int64(comp.n_fl),
                                          np.int64(comp.n_combos), np.int64(comp.max_out))
        if problem:
            raise ExactTooLarge("‹method›", f"the plan's graph could not be ordered (code "
                                f"{problem})", "mc", "use ‹method› exact")
        rows, n_s = len(order), gp.n_s
        if rows * n_s * 2 > self.grid_prog.memory_limit:
            raise ExactTooLarge("‹method›", f"the plan's decisions need {rows * n_s * 2 / 2**20:,.0f}"
                                " MB", "mc", "use ‹method› exact")
        row_of = np.full(comp.n_combos + 1, -1, dtype=np.int64)
        row_of[order] = np.arange(rows)
        row_of[comp.n_combos] = rows
        dec = np.zeros((rows, n_s), dtype=np.int16)
        position = {pg.copy_of[a]: (node, j) for node, picks in pg.choices.items()
                    for j, (a, *_r) in enumerate(picks)}
        for st in gp.states.values():
            node = pg.decision_nodes[st.key]
            choice = gp._choice(st)
            where = np.zeros(choice.shape, dtype=np.int16)
            for ci in st.uses:
                where[choice == ci] = position[(st.key, ci)][1]
            for kd, eng, fl in np.ndindex(2, 2, self.grid_prog.n_fl):
                r = row_of[combo(node, 0, kd, eng, fl, comp.n_f, comp.n_fl)]
                if r >= 0:
                    dec[r] = where[kd, eng, fl]
            for ci, use in st.uses.items():
                root = pg.graph.nodes[node].successors[position[(st.key, ci)][1]]
                tpl = use.tpl
                local = np.zeros((len(tpl.order), n_s), dtype=np.int16)
                _scatter(local, use.reach, n_s, use.dec)
                sink = len(tpl.graph.nodes) - 1
                for r_local, c_local in enumerate(tpl.order):
                    g, f, kd, eng, fl = _split(int(c_local), tpl.comp.n_f, tpl.comp.n_fl)
                    if g == sink:
                        continue
                    r = row_of[combo(root + g, f, kd, eng, fl, comp.n_f, comp.n_fl)]
                    if r >= 0:
                        dec[r] = local[r_local]
        opts = self.opts if hasattr(self, "opts") else OptionTables.build(
            pg.graph, target, self.grid_prog.opts_memo)
        return Solution(pg.graph, target, opts, comp, grid, order, row_of, None, dec,
                        "optimal", self.objective, target.grid.boxes_left(target.start_bits),
                        _OPTIMAL, None)


def _split(c: int, n_f: int, n_fl: int) -> tuple[int, int, int, int, int]:
    """The inverse of :func:`combo`: (node, focus, knocked down, engaged, flags)."""
    fl = c % n_fl
    c //= n_fl
    eng = c % 2
    c //= 2
    kd = c % 2
    c //= 2
    return c // n_f, c % n_f, kd, eng, fl


def search(members, caster: int, builder, target: Target, objective: str, budget: int,
           use_feat: bool) -> Search:
    """The plan search of :func:`mathhammer.warmachine.plan.plan_turn`."""
    return Search(members, caster, builder, target, objective, budget, use_feat)


@dataclass
class _Use:
    """A copy played at a decision state on the grid: where (``entry``), what it reaches
    (its rows' reach), where it leads, its decisions at the reached pairs."""

    ci: int
    tpl: Template
    packed_entry: np.ndarray  # bool[2, 2, n_fl, n_s] as bits (np.packbits)
    reach: np.ndarray  # uint64[rows, words]
    child: tuple | None
    dec: np.ndarray | None = None  # int16 at the reached (row, state) pairs

    def entry(self, shape: tuple) -> np.ndarray:
        """Where the copy is played: bool[2, 2, n_fl, n_s]."""
        return np.unpackbits(self.packed_entry, count=int(np.prod(shape))).reshape(
            shape).astype(bool)


@dataclass
class _State:
    """A decision state of the grid pass: reached target states, values, probabilities."""

    key: tuple
    left: tuple[int, ...]
    status: int
    reached: np.ndarray  # bool[2, 2, n_fl, n_s]
    uses: dict = field(default_factory=dict)
    values: dict | None = None  # entry slot (kd, eng, fl flat) -> values over states
    mass: dict | None = None  # entry slot -> probabilities over states


class GridPass:
    """One focus split on the target's full grid (WM-P1, WM-G2..G4): who activates next
    (and melee or ranged, the feat) is the box-count model's choice, read at the boxes
    marked, knock-down, engagement and effects; every activation is played with the
    optimal policy on the full grid given what follows. Three level-by-level passes over
    the decision states the plan reaches: reach, values (exact), probabilities (exact)."""

    def __init__(self, grid_prog: Programme, box_prog: Programme, focus: tuple[int, ...],
                 status: int) -> None:
        self.gp, self.bp, self.focus = grid_prog, box_prog, focus
        members = grid_prog.members
        everyone = tuple(range(len(members)))
        self._compile_all(everyone, status, set())
        grid = grid_prog.grid
        target = grid_prog.target
        self.n_fl, self.n_s = grid_prog.n_fl, grid.n_states
        self.alive = grid.left_of > 0
        masks = [np.uint64(m) for m in target.grid.system_masks.values()]
        self.crippled = np.zeros(self.n_s, dtype=np.int64)  # crippled systems, one bit each
        for i, m in enumerate(masks):
            self.crippled |= ((grid.bits_of & m) == m).astype(np.int64) << i
        start_left = target.grid.boxes_left(target.start_bits)
        self.box_index = np.clip(start_left - grid.left_of, 0, None)  # boxes marked so far
        self.start = (int(target.knocked_down), int(target.engaged), 0, grid.start_s)
        first = self._state(everyone, status)
        first.reached[self.start] = True
        self.levels: list[list[_State]] = [[first]]
        self.states = {first.key: first}
        for level in range(len(members)):
            nxt: list[_State] = []
            for st in self.levels[level]:
                self._reach(st, nxt)
            if not nxt:
                break
            self.levels.append(nxt)
        for i in range(len(self.levels) - 1, -1, -1):
            for st in self.levels[i]:
                self._values(st)
            for st in (self.levels[i + 1] if i + 1 < len(self.levels) else []):
                st.values = None  # read by the level above only (issue 29: ≤ 400 MB)
        kd, eng, fl, s0 = self.start
        start_slot = (kd * 2 + eng) * self.n_fl + fl
        self.value = float(first.values.get(start_slot, grid.term)[s0])
        first.values = None
        self._forward(first)

    def _state(self, left, status) -> _State:
        key = self.gp.key_of(left, self.focus, status)
        shape = (2, 2, self.gp.n_fl, self.gp.grid.n_states)
        return _State(key, left, status, np.zeros(shape, dtype=bool))

    def _compile_all(self, left, status, seen) -> None:
        """Every activation the plan may play, compiled before the grid tables are sized."""
        key = self.gp.key_of(left, self.focus, status)
        if key in seen:
            return
        seen.add(key)
        for m, mode, use, buffed, rest, nxt in self.gp.copies_of(left, self.focus, status):
            self.gp.template(m, self.focus[m], mode, use, buffed)
            if rest:
                self._compile_all(rest, nxt, seen)

    def _choice(self, st: _State) -> np.ndarray:
        dec = self.bp.decide(st.left, self.focus, st.status)
        return dec.choice[..., self.box_index]

    def _reach(self, st: _State, out: list[_State]) -> None:
        from mathhammer import kernels

        kp = kernels.load("mathhammer.warmachine.kernels.policy")
        gp = self.gp
        grid = gp.grid
        choice = self._choice(st)
        copies = gp.copies_of(st.left, self.focus, st.status)
        live = st.reached & self.alive
        for ci in np.unique(choice[live]):
            m, mode, use, buffed, rest, nxt = copies[int(ci)]
            entry = live & (choice == ci)
            # compiled from the (knock-down, engagement, flags) it is entered with only
            slots = frozenset(int(x) for x in
                              np.flatnonzero(entry.reshape(-1, self.n_s).any(axis=1)))
            tpl = gp.restricted(gp.template(m, self.focus[m], mode, use, buffed), slots)
            rows, words = len(tpl.order), (self.n_s + 63) // 64
            reach = np.zeros((rows, words), dtype=np.uint64)
            packed = _pack(entry.reshape(-1, self.n_s), words)
            first = None
            for slot in np.flatnonzero(entry.reshape(-1, self.n_s).any(axis=1)):
                row = int(tpl.entry.ravel()[slot])
                reach[row] |= packed[slot]
                if first is None:
                    first = (row, int(np.flatnonzero(entry.reshape(-1, self.n_s)[slot])[0]))
            c = tpl.comp
            if entry.sum() < DENSE_REACH * self.alive.sum():
                kp.reach_states(tpl.order, np.int64(tpl.order[first[0]]), np.int64(first[1]),
                                c.GR, c.OP, _OPTIMAL, np.int64(c.n_f), np.int64(c.n_fl),
                                grid.GRID, tpl.opts.p_hit, tpl.opts.pmf, tpl.opts.bpmf,
                                tpl.opts.p_under, tpl.row_of, reach)
            else:  # entered from most states: every row reaches nearly all, mark them all
                reach[:] = _pack(self.alive[None, :], words)
            child = None
            if rest:
                key = gp.key_of(rest, self.focus, nxt)
                child_state = self.states.get(key)
                if child_state is None:
                    child_state = self._state(rest, nxt)
                    self.states[key] = child_state
                    out.append(child_state)
                flat = child_state.reached.reshape(-1, self.n_s)
                for row, slot in zip(tpl.live_sinks, tpl.sink_slots):
                    flat[slot] |= _unpack(reach[row], self.n_s)
                child = key
            st.uses[int(ci)] = _Use(int(ci), tpl, np.packbits(entry), reach, child)
        st.reached = None  # every parent has marked it (issue 29: ≤ 400 MB)

    def _values(self, st: _State) -> None:
        """The state's values at the entry slots it is reached with (elsewhere the final
        value: what the programme's dense arrays hold there)."""
        gp = self.gp
        term = gp.grid.term
        st.values = {}
        shape = (2, 2, self.n_fl, self.n_s)
        for use in st.uses.values():
            cont = self.states[use.child].values if use.child else {}
            entry, dec = gp.solve(use.tpl, cont, keep=True, reach=use.reach)
            where = use.entry(shape).reshape(-1, self.n_s)
            entry = entry.reshape(-1, self.n_s)
            for slot in np.flatnonzero(where.any(axis=1)):
                row = st.values.setdefault(int(slot), np.array(term, dtype=np.float64))
                row[where[slot]] = entry[slot][where[slot]]
            use.dec = _gather(dec, use.reach, self.n_s)  # at the reached pairs only

    def _situations(self, st: _State) -> None:
        """The decision states reached, merged when a reader cannot tell them apart (the same
        boxes left, crippled systems, knock-down, engagement, effects and choice)."""
        choice = self._choice(st)
        parts = [(slot, found) for slot in sorted(st.mass)  # as a dense array's nonzero()
                 for found in [np.flatnonzero((st.mass[slot] > 0) & self.alive)] if len(found)]
        if not parts:
            return
        slots = np.concatenate([np.full(len(found), slot) for slot, found in parts])
        s = np.concatenate([found for _, found in parts])
        mass = np.concatenate([st.mass[slot][found] for slot, found in parts])
        kd, eng, fl = slots // (2 * self.n_fl), (slots // self.n_fl) % 2, slots % self.n_fl
        pick = choice[kd, eng, fl, s]
        look = np.stack([kd, eng, fl, self.crippled[s], self.gp.grid.left_of[s], pick], axis=1)
        groups, first, inverse = np.unique(look, axis=0, return_index=True,
                                           return_inverse=True)
        total = np.bincount(inverse.ravel(), weights=mass)
        for g, i in enumerate(first):
            self.situations.append((st.key, int(kd[i]), int(eng[i]), int(fl[i]), int(s[i]),
                                    float(total[g]), int(pick[i])))

    def _forward(self, first: _State) -> None:
        shape = (2, 2, self.n_fl, self.n_s)
        kd, eng, fl, s0 = self.start
        first.mass = {(kd * 2 + eng) * self.n_fl + fl: np.zeros(self.n_s)}
        next(iter(first.mass.values()))[s0] = 1.0
        self.final = np.zeros(self.n_s)
        self.focus_spent = 0.0
        self.charges: dict[tuple, float] = {}
        self.situations: list[tuple] = []  # (state key, kd, eng, fl, s, mass, copy index)
        for level in self.levels:
            for st in level:
                if st.mass is None:
                    continue
                self._situations(st)
                for use in st.uses.values():
                    self._play(st, use, shape)
                st.mass = None  # its uses have carried it on (issue 29: ≤ 400 MB)

    def _play(self, st: _State, use: _Use, shape: tuple) -> None:
        """Carry ``st``'s probabilities through one copy's activation (its arrays are freed
        on return: one activation's rows at a time)."""
        from mathhammer import kernels

        kp = kernels.load("mathhammer.warmachine.kernels.policy")
        grid = self.gp.grid
        where = use.entry(shape).reshape(-1, self.n_s)
        seeds = {slot: np.where(where[slot], row, 0.0) for slot, row in st.mass.items()
                 if where[slot].any()}
        played = float(sum(x.sum() for x in seeds.values()))
        if played <= 0.0:
            return
        tpl, c = use.tpl, use.tpl.comp
        rows = len(tpl.order)
        mslot, n_m, zero_after = mass_slots(self.gp.first_predecessor(tpl), rows,
                                            tpl.live_sinks)
        mass = np.zeros((n_m, self.n_s))  # a row's mass only from its first write to its turn
        for slot, seed in seeds.items():
            mass[mslot[int(tpl.entry.ravel()[slot])]] += seed
        del seeds
        dec = np.zeros((rows, self.n_s), dtype=np.int16)
        _scatter(dec, use.reach, self.n_s, use.dec)
        dec[tpl.live_sinks] = -1  # the sink: the activation is over
        final = np.zeros(self.n_s)
        spent = np.zeros(1)
        charge = np.zeros(2)
        kp.forward_once(tpl.order, c.GR, c.OP, np.int64(c.n_f), np.int64(c.n_fl),
                        grid.GRID, tpl.opts.p_hit, tpl.opts.p_crit, tpl.opts.pmf,
                        tpl.opts.bpmf, tpl.opts.p_under, tpl.row_of, use.reach, dec,
                        mslot, zero_after, mass, final, spent, charge)
        del dec
        self.focus_spent += float(spent[0])
        self.charges[(st.key, use.ci)] = float(charge[0]) / played
        if use.child is None:
            self.final += final
            return
        child = self.states[use.child]
        if child.mass is None:
            child.mass = {}
        for row, slot in zip(tpl.live_sinks, tpl.sink_slots):
            out = child.mass.setdefault(int(slot), np.zeros(self.n_s))
            out += mass[mslot[row]]
            final -= mass[mslot[row]]  # it goes on: not an end state
        self.final += final


def value_slots(first: np.ndarray, rows: int, kept: np.ndarray):
    """Slots for the backward pass's rows (issue 29: ≤ 400 MB): the end and the ``kept``
    rows (the sinks, set before the pass) hold one each throughout; a row takes a slot at
    its turn (rows are solved last to first) and gives it back once its first predecessor
    — the last to read it — is solved. Returns (slot of each row, slots, reset: the row
    takes a used slot and must first reset it to the end's values)."""
    slot = np.full(rows + 1, -1, dtype=np.int64)
    reset = np.zeros(rows + 1, dtype=np.int8)
    n = 0
    for x in [rows, *(int(k) for k in kept)]:
        if slot[x] < 0:
            slot[x], n = n, n + 1
    free: list[int] = []
    released: dict[int, list[int]] = {}
    for i in range(rows - 1, -1, -1):
        free.extend(slot[x] for x in released.pop(i + 1, ()))
        if slot[i] >= 0:
            continue
        if free:
            slot[i], reset[i] = free.pop(), 1
        else:
            slot[i], n = n, n + 1
        if first[i] < rows:  # no predecessor: an entry, read after the pass
            released.setdefault(int(first[i]), []).append(i)
    return slot, n, reset


def mass_slots(first: np.ndarray, rows: int, kept: np.ndarray):
    """Slots for the forward pass's rows: a row takes one before its first predecessor
    writes to it (an entry: from the start) and gives it back after its turn, cleared
    (``zero_after``), unless ``kept`` (the sinks, read after the pass)."""
    slot = np.zeros(rows + 1, dtype=np.int64)  # the end's mass goes to ``final``, never here
    zero_after = np.zeros(rows + 1, dtype=np.int8)
    keep = {int(k) for k in kept}
    taken_at: dict[int, list[int]] = {}
    n = 0
    for x in range(rows):
        if first[x] >= rows:
            slot[x], n = n, n + 1
        else:
            taken_at.setdefault(int(first[x]), []).append(x)
    free: list[int] = []
    for i in range(rows):
        for x in taken_at.pop(i, ()):
            if free:
                slot[x] = free.pop()
            else:
                slot[x], n = n, n + 1
        if i not in keep:
            zero_after[i] = 1
            free.append(int(slot[i]))
    return slot, max(n, 1), zero_after


def _pack(bools: np.ndarray, words: int) -> np.ndarray:
    """Rows of booleans over states → the kernels' uint64 bit rows (bit s % 64 of word
    s // 64)."""
    padded = np.zeros(bools.shape[:-1] + (words * 64,), dtype=bool)
    padded[..., :bools.shape[-1]] = bools
    packed = np.packbits(padded, axis=-1, bitorder="little")  # byte k: states 8k..8k+7
    return np.ascontiguousarray(packed).view("<u8").astype(np.uint64)


def _unpack(row: np.ndarray, n: int) -> np.ndarray:
    return np.unpackbits(row.astype("<u8").view(np.uint8), bitorder="little")[:n].astype(bool)


REACH_ROWS = 16  # rows unpacked at a time (a dense [rows, states] mask is large)


def _gather(dense: np.ndarray, reach: np.ndarray, n: int) -> np.ndarray:
    """``dense[_reached(reach, n)]``, a few rows at a time."""
    return np.concatenate([dense[a:a + REACH_ROWS][_reached(reach[a:a + REACH_ROWS], n)]
                           for a in range(0, len(reach), REACH_ROWS)] or [dense[:0, 0]])


def _scatter(dense: np.ndarray, reach: np.ndarray, n: int, values: np.ndarray) -> None:
    """``dense[_reached(reach, n)] = values``, a few rows at a time."""
    k = 0
    for a in range(0, len(reach), REACH_ROWS):
        mask = _reached(reach[a:a + REACH_ROWS], n)
        m = int(mask.sum())
        dense[a:a + REACH_ROWS][mask] = values[k:k + m]
        k += m


def _reached(reach: np.ndarray, n: int) -> np.ndarray:
    """The (row, state) pairs marked in a reach bitset, as booleans [rows, n]."""
    return np.unpackbits(reach.astype("<u8").view(np.uint8), axis=1,
                         bitorder="little")[:, :n].astype(bool)
