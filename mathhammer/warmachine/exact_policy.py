"""The focus policy solved exactly on the full state the rules see (WM-F5, issue 12).

A state is (activation node, focus left, target knocked down or stationary, target
engaged in melee, effect flags, the target's marked boxes). The marked boxes carry
everything the grid decides: boxes left, a crippled movement system (DEF 7), a crippled
shield arm (no +2 ARM) and where the next damage will land (WM-G2..G4). Backward
induction over every reachable state gives the optimum (or, with forced decisions, the
exact value of a fixed or greedy habit); a forward pass gives the exact distribution of
the final grid; a Monte Carlo plays the same decisions as a check.

The work and memory grow with (control states × grid states). When they do not fit
(:data:`MEMORY_LIMIT`, :data:`MAX_GRID_STATES`) :class:`ExactTooLarge` says so and the
caller falls back to decisions planned on the box-count model (a track of the boxes
left), named in the output.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from mathhammer.warmachine.activation import Graph
from mathhammer.warmachine.exact_grid import ExactTooLarge
from mathhammer.warmachine.grid import Grid
from mathhammer.warmachine.policy import (
    OptionTables, RuleTables, check_policy, objective_system, rule_tables,
)
from mathhammer.warmachine.sequence import Target

MAX_GRID_STATES = 400_000  # interned grid states (a Mk II grid has at most 7^6 fill vectors)
MEMORY_LIMIT = 320 * 2**20  # bytes of value, reach-probability and decision rows
MAX_COMBOS = 4_000_000  # control states (node × focus × 2 × 2 × flag sets)
MAX_SLOTS = 9  # p_hit_1..p_hit_8; the 9th row pools the rest
MAX_DECISION_LINES = 40  # decision states listed (most likely first)


def _ints(values) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values, dtype=np.int64))


@dataclass
class Compiled:
    """The graph and options as the kernel's flat arrays."""

    GR: tuple
    OP: tuple
    n_f: int
    n_fl: int
    n_combos: int
    start_combo: int
    max_out: int


def compile_graph(graph: Graph, target: Target) -> Compiled:
    from mathhammer import kernels

    kp = kernels.load("mathhammer.warmachine.kernels.policy")
    nodes = graph.nodes
    succ_start, succ_list = [], []
    for n in nodes:
        succ_start.append(len(succ_list))
        succ_list.extend(n.successors)
    charge = [n.activation if n.charge else -1 for n in nodes]
    # one 2-D array per table (row = field): the kernels index it without taking arrays
    # out of tuples in their loops; row 7 is unused (the successor list is its own array)
    G = _ints([[0 if n.kind == "attack" else 1 for n in nodes], [n.option for n in nodes],
               [n.cost for n in nodes], [n.next for n in nodes],
               [n.after_hit for n in nodes], succ_start,
               [len(n.successors) for n in nodes], [0] * len(nodes),
               [n.stop for n in nodes], [n.reset_focus for n in nodes],
               [int(n.entry_knockdown) for n in nodes], [n.entry_flags for n in nodes],
               charge])
    GR = (G, _ints(succ_list or [0]))
    opts = graph.options or [None]
    immune_cold = "Cold" in target.immunities

    def field(get, empty):
        return [get(o) if o is not None else empty for o in opts]

    OP = _ints([field(lambda o: int(o.knocks_down)
                      + 2 * int(o.crit_knocks_down and not immune_cold), 0),
                field(lambda o: o.engages, -1),
                field(lambda o: int(o.aoe > 0 and not o.spray), 0),
                field(lambda o: o.flags_on_hit, 0),
                field(lambda o: int(o.can_boost_hit), 0),
                field(lambda o: int(o.can_boost_damage and not o.no_damage), 0),
                field(lambda o: int(o.pre_boosted), 0),
                field(lambda o: int(o.crit_amputation), 0)])
    n_f = graph.max_focus + 1
    n_fl = 1 << len(graph.flags)
    n_combos = len(nodes) * n_f * 4 * n_fl
    if n_combos > MAX_COMBOS:
        raise ExactTooLarge("‹method›", f"the chain has {n_combos:,} control states (limit "
                            f"{MAX_COMBOS:,})", "exact", "use ‹method› mc")
    root = nodes[0]
    start = int(kp.combo_of(0, root.reset_focus, int(target.knocked_down or root.entry_knockdown),
                            int(target.engaged), root.entry_flags, n_f, n_fl))
    max_out = max((len(n.successors) for n in nodes), default=0) + 16
    return Compiled(GR, OP, n_f, n_fl, n_combos, start, max_out)


@dataclass
class GridTables:
    """Every grid state reachable from the start, with dense transitions and the facts the
    rules read from each (see :mod:`mathhammer.warmachine.kernels.policy`)."""

    bits_of: np.ndarray  # uint64[S]
    T: np.ndarray  # int32[S, D, 6] (a track: one column)
    TA: np.ndarray  # int32[S or 1, D, 6] (Critical Amputation)
    left_of: np.ndarray
    mcrip_of: np.ndarray
    scrip_of: np.ndarray
    term: np.ndarray
    start_s: int = 0

    @property
    def GRID(self) -> tuple:
        return (self.T, self.TA, self.left_of, self.mcrip_of, self.scrip_of, self.term)

    @property
    def n_states(self) -> int:
        return len(self.bits_of)


def masks_of(target: Target) -> tuple:
    """(column starts, amputation masks, system masks, scalars) of the target's grid."""
    grid = target.grid
    amp = np.asarray([grid.system_masks[x] for x in "LRH" if x in grid.system_masks] or [0],
                     dtype=np.uint64)
    systems = np.asarray(list(grid.system_masks.values()), dtype=np.uint64)
    scalars = np.asarray([grid.full, grid.width, grid.system_masks.get("M", 0),
                          target.shield_mask], dtype=np.uint64)
    return (np.asarray(grid.col_start, dtype=np.int64), amp, systems, scalars)


def grid_tables(target: Target, n_d: int, amputation: bool, objective: str = "destroy",
                memory_limit: int = MEMORY_LIMIT) -> GridTables:
    """Every grid state reachable from ``target``'s start by any damage (WM-G2..G4)."""
    from mathhammer import kernels

    kp = kernels.load("mathhammer.warmachine.kernels.policy")
    grid = target.grid
    if grid.is_track:
        capacity = grid.n_boxes + 1
    else:
        fills = math.prod(len(c) + 1 for c in grid.columns)
        capacity = fills * (4 if amputation else 1)
    capacity = min(capacity, MAX_GRID_STATES)
    need = capacity * 6 * n_d * 4 * (2 if amputation else 1)
    if need > memory_limit:
        raise ExactTooLarge("‹method›", f"the grid's transition tables need "
                            f"{need / 2**20:,.0f} MB", "exact", "use ‹method› mc")
    col_start, amp_masks, _, sc = masks_of(target)
    if grid.is_track:  # a track: the state is the number of boxes marked (WM-G6)
        n = grid.n_boxes + 1
        marked = np.arange(n)
        bits_of = ((np.uint64(1) << marked.astype(np.uint64)) - np.uint64(1)).astype(np.uint64)
        d = np.arange(n_d)
        # one column: on a track the column rolled does not matter (the kernels average
        # over the table's columns)
        T = np.ascontiguousarray(np.minimum(marked[:, None] + d[None, :], n - 1)[:, :, None],
                                 dtype=np.int32)
        TA = T  # a track has no systems for Critical Amputation to cripple
        start = bin(target.start_bits).count("1")
    elif not amputation or not any(x in grid.system_masks for x in "LRH"):
        # column-top runs only: every fill vector, indexed directly
        heights = np.asarray([len(c) for c in grid.columns], dtype=np.int64)
        strides = np.cumprod(np.concatenate([[1], heights[:-1] + 1])).astype(np.int64)
        n = int(np.prod(heights + 1))
        bits_of = np.zeros(n, dtype=np.uint64)
        T = np.zeros((n, n_d, 6), dtype=np.int32)
        kp.build_fill_grid(heights, strides, bits_of, T)
        TA = T if amputation else np.zeros((1, n_d, 6), dtype=np.int32)
        fills = [bin((target.start_bits >> (6 * c)) & 63).count("1") for c in range(6)]
        start = int(np.dot(fills, strides))
    else:
        table = 1 << max(4, (2 * capacity - 1).bit_length())
        shift = 64 - (table.bit_length() - 1)
        bits_of = np.zeros(capacity, dtype=np.uint64)
        T = np.zeros((capacity, n_d, 6), dtype=np.int32)
        TA = np.zeros((capacity, n_d, 6), dtype=np.int32)
        hkeys = np.zeros(table, dtype=np.uint64)
        hvals = np.zeros(table, dtype=np.int64)
        n_states = np.zeros(1, dtype=np.int64)
        start = int(kp.intern(np.uint64(target.start_bits), hkeys, hvals, bits_of, n_states,
                              np.int64(shift)))
        n = int(kp.build_grid(sc[0], np.int64(sc[1]), col_start, amp_masks, np.int64(1),
                              hkeys, hvals, np.int64(shift), bits_of, n_states, T, TA))
        if n < 0:
            raise ExactTooLarge("‹method›", f"the target's grid reaches more than "
                                f"{capacity:,} states", "exact", "use ‹method› mc")
        bits_of, T, TA = bits_of[:n], T[:n], TA[:n]
    left = np.zeros(n, dtype=np.int64)
    mcrip = np.zeros(n, dtype=np.int8)
    scrip = np.zeros(n, dtype=np.int8)
    term = np.zeros(n)
    start_left = grid.boxes_left(target.start_bits)
    system = objective_system(objective)
    code = 0 if objective == "destroy" else (2 if system else 1)
    goal = np.uint64(grid.system_masks.get(system, 0) if system else 0)
    kp.grid_facts(bits_of, sc[0], sc[2], sc[3], np.int64(code), goal, np.int64(start_left),
                  left, mcrip, scrip, term)
    return GridTables(bits_of, T, TA, left, mcrip, scrip, term, start)


@dataclass
class Solution:
    """A solved policy: values, decisions and what the forward pass needs."""

    graph: Graph
    target: Target
    opts: OptionTables
    comp: Compiled
    grid: GridTables
    order: np.ndarray
    row_of: np.ndarray
    V: np.ndarray
    dec: np.ndarray
    policy: str
    objective: str
    start_left: int
    forced: tuple
    reach: np.ndarray
    reached: int = 0  # (control, grid) states the programme evaluated

    @property
    def value(self) -> float:
        return float(self.V[self.row_of[self.comp.start_combo], self.grid.start_s])

    @property
    def n_states(self) -> int:
        """Reached (control, grid) states: the size of the programme."""
        return self.reached

    def _kernel_args(self):
        return (self.comp.GR, self.comp.OP, np.int64(self.comp.n_f), np.int64(self.comp.n_fl),
                self.grid.GRID, self.opts.p_hit, self.opts.p_crit, self.opts.pmf,
                self.opts.bpmf, self.opts.p_under)

    def distribution(self) -> dict:
        """Exact final grid states, reach probabilities, P(hit) per attack, focus, charges."""
        from mathhammer import kernels

        kp = kernels.load("mathhammer.warmachine.kernels.policy")
        n_s = self.grid.n_states
        final = np.zeros(n_s)
        reachp = np.zeros(self.V.shape)
        cur = np.zeros(self.V.shape)
        nxt = np.zeros(self.V.shape)
        cur[self.row_of[self.comp.start_combo], self.grid.start_s] = 1.0
        slots = np.zeros((MAX_SLOTS, 2))
        focus = np.zeros(1)
        charge = np.zeros(max(len(self.graph.labels), 1))
        kp.forward(self.order, *self._kernel_args(), self.row_of, self.reach, self.dec, cur, nxt,
                   reachp, final, slots, focus, charge)
        return {"final": final, "reachp": reachp, "slots": slots, "focus": float(focus[0]),
                "charge": charge}

    def alternatives(self, combo: int, s: int) -> list[tuple[str, float, bool]]:
        """(label, value, chosen) of every alternative at a decision state."""
        from mathhammer import kernels

        kp = kernels.load("mathhammer.warmachine.kernels.policy")
        GR, OP, n_f, n_fl, GRID, p_hit, p_crit, pmf, bpmf, p_under = self._kernel_args()
        g = int(kp.split_combo(np.int64(combo), n_f, n_fl)[0])
        node = self.graph.nodes[g]
        d = int(self.dec[self.row_of[combo], s])
        if node.kind == "choice":
            vals = np.zeros(max(len(node.successors), 1))
            stop = kp.choice_values(np.int64(combo), np.int64(s), GR, n_f, n_fl, self.row_of,
                                    self.V, vals)
            out = [(self.graph.nodes[t].label, float(v), d == j)
                   for j, (t, v) in enumerate(zip(node.successors, vals)) if v >= 0]
            return out + [("stop", float(stop), d == -1)]
        pair = np.zeros(2)
        kp.attack_values(np.int64(combo), np.int64(s), GR, OP, self.forced, n_f, n_fl, GRID,
                         p_hit, p_crit, pmf, bpmf, p_under, self.row_of, self.V, pair,
                         np.zeros(2, dtype=np.int64))
        return [(name, float(v), (d & 1) == b) for b, (name, v) in
                enumerate((("no boost", pair[0]), ("boost hit", pair[1]))) if v >= 0]

    def simulate(self, config, by_left: bool = False, box_n: int = 0):
        """Monte Carlo of these decisions on the target's full grid (engine run)."""
        return simulate_policy(self, self.target, config, by_left, box_n)


_CACHE: OrderedDict[bytes, Solution] = OrderedDict()
_CACHE_LOCK = threading.Lock()  # the web server answers from several threads
CACHE_SIZE = 3  # solved programmes kept for repeated queries (seeds, pages, sweeps)
CACHE_MAX_BYTES = 96 * 2**20  # larger solutions are not kept


def _cache_key(comp: Compiled, opts: OptionTables, target: Target, policy: str,
               objective: str, forced: tuple, memory_limit: int) -> bytes:
    digest = hashlib.sha1()
    for arr in (*comp.GR, *comp.OP, opts.p_hit, opts.p_crit, opts.pmf, opts.bpmf, opts.p_under,
                *forced[1:]):
        digest.update(np.ascontiguousarray(arr).tobytes())
        digest.update(str(arr.shape).encode())
    grid = target.grid
    digest.update(repr((comp.n_f, comp.n_fl, comp.start_combo, grid.columns, grid.n_boxes,
                        target.start_bits, target.shield_mask, policy, objective,
                        int(forced[0]), memory_limit)).encode())
    return digest.digest()


def solve_full(graph: Graph, target: Target, policy: str = "optimal",
               objective: str = "destroy", boost_hit: bool = False, boost_damage: bool = False,
               opts: OptionTables | None = None, memory_limit: int = MEMORY_LIMIT,
               cache: bool = True) -> Solution:
    """The exact programme on the full state. Raises :class:`ExactTooLarge` when it does
    not fit. The last few solutions are kept: the same question asked again (another
    seed, a page reloaded) does not solve it again."""
    check_policy(policy, objective)
    opts = opts or OptionTables.build(graph, target)
    comp = compile_graph(graph, target)
    if policy == "optimal":
        rt = RuleTables(np.zeros((1, 1, 2), np.int64), np.zeros((1, 1, 2, 2), np.int64),
                        np.zeros((1, 1, 2), np.int64))
        forced = (np.int64(0), rt.bh, rt.bd, rt.ch)
    else:
        rt = rule_tables(graph, opts, policy, boost_hit, boost_damage)
        forced = (np.int64(1), rt.bh, rt.bd, rt.ch)
    if not cache:  # a search solving thousands of programmes once each (wm plan)
        return _solve(graph, target, policy, objective, opts, comp, forced, memory_limit)
    key = _cache_key(comp, opts, target, policy, objective, forced, memory_limit)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
    if hit is not None:
        return Solution(graph, target, opts, comp, hit.grid, hit.order, hit.row_of, hit.V,
                        hit.dec, policy, objective, hit.start_left, forced, hit.reach,
                        hit.reached)
    sol = _solve(graph, target, policy, objective, opts, comp, forced, memory_limit)
    size = sol.V.nbytes * 4 + sol.grid.T.nbytes + sol.grid.TA.nbytes
    if size <= CACHE_MAX_BYTES:
        with _CACHE_LOCK:
            _CACHE[key] = sol
            while len(_CACHE) > CACHE_SIZE:
                _CACHE.popitem(last=False)
    return sol


def known_states(target: Target, amputation: bool) -> int | None:
    """The grid states :func:`grid_tables` will build, when known without building them:
    a track's boxes + 1, every fill vector of a grid without amputation; else None."""
    grid = target.grid
    if grid.is_track:
        return grid.n_boxes + 1
    if not amputation or not any(x in grid.system_masks for x in "LRH"):
        return math.prod(len(c) + 1 for c in grid.columns)
    return None


def _check_fits(rows: int, n_s: int, memory_limit: int) -> None:
    need = (rows + 1) * n_s * (8 * 4 + 2) + rows * ((n_s + 63) // 64) * 8
    if need > memory_limit:
        raise ExactTooLarge("‹method›", f"{rows:,} control × {n_s:,} grid states need "
                            f"{need / 2**20:,.0f} MB (limit {memory_limit / 2**20:,.0f} MB)",
                            "exact", "use ‹method› mc")


def _solve(graph: Graph, target: Target, policy: str, objective: str, opts: OptionTables,
           comp: Compiled, forced: tuple, memory_limit: int) -> Solution:
    from mathhammer import kernels

    kp = kernels.load("mathhammer.warmachine.kernels.policy")
    order, problem = kp.control_order(np.int64(comp.start_combo), comp.GR, comp.OP, forced,
                                      np.int64(comp.n_f), np.int64(comp.n_fl),
                                      np.int64(comp.n_combos), np.int64(comp.max_out))
    if problem:
        raise ExactTooLarge("‹method›", "the activation graph could not be ordered "
                            f"(code {problem})", "exact", "use ‹method› mc")
    amputation = any(o.crit_amputation for o in graph.options)
    rows = len(order)
    known = known_states(target, amputation)
    if known is not None:  # say it before building the grid's tables (a chain falling back)
        _check_fits(rows, known, memory_limit)
    grid = grid_tables(target, opts.pmf.shape[4], amputation, objective, memory_limit)
    n_s = grid.n_states
    _check_fits(rows, n_s, memory_limit)
    row_of = np.full(comp.n_combos + 1, -1, dtype=np.int64)
    row_of[order] = np.arange(rows)
    row_of[comp.n_combos] = rows  # the end: a row of final values
    reach = np.zeros((rows, (n_s + 63) // 64), dtype=np.uint64)
    kp.reach_states(order, np.int64(comp.start_combo), np.int64(grid.start_s), comp.GR, comp.OP,
                    forced, np.int64(comp.n_f), np.int64(comp.n_fl), grid.GRID, opts.p_hit,
                    opts.pmf, opts.bpmf, opts.p_under, row_of, reach)
    V = np.tile(grid.term, (rows + 1, 1))
    dec = np.zeros((rows, n_s), dtype=np.int16)
    kp.backward(order, comp.GR, comp.OP, forced, np.int64(comp.n_f), np.int64(comp.n_fl),
                grid.GRID, opts.p_hit, opts.p_crit, opts.pmf, opts.bpmf, opts.p_under, row_of,
                reach, V, dec)
    start_left = target.grid.boxes_left(target.start_bits)
    return Solution(graph, target, opts, comp, grid, order, row_of, V, dec, policy, objective,
                    start_left, forced, reach, int(np.unpackbits(reach.view(np.uint8)).sum()))


def decision_lines(sol: Solution, reachp: np.ndarray | None = None,
                   top: int = MAX_DECISION_LINES) -> list[str]:
    """The most likely decision states (reach probability under the policy), each with the
    value of every alternative and the choice (WM-F5)."""
    from mathhammer import kernels

    if reachp is None:
        reachp = sol.distribution()["reachp"]
    kp = kernels.load("mathhammer.warmachine.kernels.policy")
    flat = np.lexsort((np.arange(reachp.size), -reachp.ravel()))
    lines = []
    grid = sol.target.grid
    pct = sol.objective != "damage"  # a probability: destroy or cripple
    down = down_words_of(sol)
    for idx in flat[: top * 4]:
        r, s = np.unravel_index(idx, reachp.shape)
        p = reachp[r, s]
        if p <= 1e-12 or len(lines) >= top:
            break
        combo = int(sol.order[r])
        g, f, kd, eng, fl = (int(x) for x in kp.split_combo(np.int64(combo), np.int64(sol.comp.n_f),
                                                            np.int64(sol.comp.n_fl)))
        node = sol.graph.nodes[g]
        alts = sol.alternatives(combo, int(s))
        if len(alts) < 2:
            continue  # nothing to decide here
        bits = int(sol.grid.bits_of[s])
        left = grid.boxes_left(bits)
        where = [f"focus {f}", f"{left} box{'es' if left != 1 else ''} left"]
        per_column = grid.marked_per_column(bits)
        if not grid.is_track and any(per_column):  # two states with as many boxes left
            where.append("marked " + "/".join(map(str, per_column)) + " by column")
        crippled = [x for x in grid.systems if grid.crippled(bits, x)]
        if crippled:
            where.append("crippled " + "".join(crippled))
        where += [down[g]] * kd + ["engaged"] * eng
        shown = " · ".join(f"{label} {100 * v:.2f}%" if pct else f"{label} {v:.2f}"
                           for label, v, _ in alts)
        chosen = next((label for label, _, c in alts if c), "?")
        lines.append(f"{node.label} [{', '.join(where)}; reached {100 * p:.1f}%]: {shown} → {chosen}")
    return lines


def down_words_of(sol: Solution) -> list[str]:
    """Per node of the solved chain, what its "knocked down or stationary" state is: the
    labels say "stationary" after Icy Gaze, not "knocked down" (WM-A4, WM-E2)."""
    target = sol.target
    return sol.graph.down_words(target.down_word if target.knocked_down else "")


def decision_summary(sol: Solution, reachp: np.ndarray | None = None,
                     top: int = MAX_DECISION_LINES, by_reach: bool = False) -> list[str]:
    """Per (node, focus, knocked down, engaged): how often it is reached and what the policy
    chooses there, weighted by reach — the readable table of a chain (WM-F5), in activation
    order, or with ``by_reach`` the most often reached first (a plan's many activations)."""
    from mathhammer import kernels

    kp = kernels.load("mathhammer.warmachine.kernels.policy")
    if reachp is None:
        reachp = sol.distribution()["reachp"]
    alive = sol.grid.left_of > 0
    down = down_words_of(sol)
    rows = []
    for r, combo in enumerate(sol.order):
        g, f, kd, eng, fl = (int(x) for x in kp.split_combo(np.int64(combo),
                                                            np.int64(sol.comp.n_f),
                                                            np.int64(sol.comp.n_fl)))
        node = sol.graph.nodes[g]
        mass = reachp[r] * alive
        total = float(mass.sum())
        if total <= 1e-12:
            continue
        dec = sol.dec[r]
        shares: dict[str, float] = {}
        if node.kind == "choice":
            feasible = [t for t in node.successors if sol.graph.nodes[t].cost <= f]
            if not feasible:
                continue
            for k in np.unique(dec[mass > 0]):
                label = "stop" if k < 0 else sol.graph.nodes[node.successors[k]].label
                shares[label] = shares.get(label, 0.0) + float(mass[dec == k].sum())
        else:
            opt = sol.graph.options[node.option]
            if f - node.cost < 1 or not opt.can_boost_hit:
                continue
            boosted = float(mass[(dec & 1) == 1].sum())
            shares = {"boost hit": boosted, "no boost": total - boosted}
        shown = " · ".join(f"{label} {100 * v / total:.1f}%" for label, v in
                           sorted(shares.items(), key=lambda kv: -kv[1]) if v > 0)
        tags = [f"focus {f}"] + [down[g]] * kd + ["engaged"] * eng
        rows.append((node.activation, -total, f"{node.label} [{', '.join(tags)}] (reached "
                     f"{100 * total:.1f}%): {shown}"))
    rows.sort(key=lambda x: (x[1], x[0]) if by_reach else (x[0], x[1]))
    return [text for _, _, text in rows[:top]]


def box_model_target(target: Target) -> Target:
    """The box-count model of ``target``: a track of its boxes left, base DEF and ARM,
    shield up — the plan that ignores what the grid decides (the baseline)."""
    from dataclasses import replace

    left = target.grid.boxes_left(target.start_bits)
    armor = target.armor + (2 if target.shield_mask else 0)
    return replace(target, armor=armor, grid=Grid.track(left), start_bits=0, shield_mask=0)


def simulate_policy(sol: Solution, target: Target, config, by_left: bool = False,
                    box_n: int = 0, opts: OptionTables | None = None):
    """Monte Carlo of ``sol``'s decisions on ``target``'s full grid (WM-G2..G4): boxes are
    marked by the grid kernel's own ``mark_from``; with ``by_left`` the decisions are read by
    boxes left (a box-model plan on a track of ``box_n`` boxes; ``opts``: ``target``'s own
    option tables when the caller has them)."""
    from mathhammer import kernels
    from mathhammer.engine import simulate

    kp = kernels.load("mathhammer.warmachine.kernels.policy")
    grid = target.grid
    MASKS = masks_of(target)
    n_sys = len(MASKS[2])
    if by_left:  # this target's own option tables; the decisions come from the box model
        opts = opts if opts is not None else OptionTables.build(sol.graph, target)
        comp = sol.comp  # the box model keeps the target's immunities, knock-down, engagement
        empty = np.zeros((1, 1, 6), dtype=np.int32)
        GRID = (empty, empty) + sol.grid.GRID[2:]
        start_s = 0
    else:
        opts, comp, GRID, start_s = sol.opts, sol.comp, sol.grid.GRID, sol.grid.start_s
    n_acts = max(len(sol.graph.labels), 1)

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        out = {"hist": np.zeros(grid.n_boxes + 1, dtype=np.int64),
               "crippled": np.zeros(max(n_sys, 1), dtype=np.int64),
               "destroyed": np.zeros(1, dtype=np.int64),
               "focus": np.zeros(2, dtype=np.int64),
               "slots": np.zeros((MAX_SLOTS, 2), dtype=np.int64),
               "charge": np.zeros(n_acts, dtype=np.int64)}
        kp.simulate(np.int64(comp.start_combo), np.int64(start_s), np.uint64(target.start_bits),
                    comp.GR, comp.OP, np.int64(comp.n_f), np.int64(comp.n_fl), GRID, MASKS,
                    opts.p_hit, opts.p_crit, opts.pmf, opts.bpmf, opts.p_under, sol.order,
                    sol.row_of, sol.dec, np.int64(int(by_left)), np.int64(box_n), state, np.int64(n),
                    out["hist"], out["crippled"], out["destroyed"], out["focus"], out["slots"],
                    out["charge"])
        return out

    def probabilities(tally: dict[str, np.ndarray], n: int) -> np.ndarray:
        return np.concatenate([tally["destroyed"], tally["crippled"][:n_sys]]) / n

    return simulate(run_chunk, config, probabilities)
