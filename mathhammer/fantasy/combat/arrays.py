"""The kernel arrays of a compiled combat (:mod:`mathhammer.fantasy.kernels.combat` layouts).

Exact tables built here, read by both engines: the per-group, per-target outcome of n
attacking models (``g_sum``, by :func:`mathhammer.fantasy.chain.core.chain_distribution`),
the per-attack outcome (``g_percdf``), Leadership tests (``p_ld``, from
:mod:`mathhammer.fantasy.characteristic_tests`) and pursuit (``p_caught``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain

import numpy as np

from mathhammer.dice import parse_dice
from mathhammer.fantasy.chain.core import chain_distribution, single_attack_outcomes
from mathhammer.fantasy.combat.compile import (
    COUNT_FRONT_,
    COUNT_SIDE_,
    COUNT_SINGLE_,
    COUNT_SUPPORT_,
    CompiledCombat,
    _attacks_pmf,
    attack_spec,
    attack_spec_key,
)

MAX_LD = 20


@dataclass
class Tables:
    u_int: np.ndarray
    b_int: np.ndarray
    g_int: np.ndarray
    g_key: np.ndarray
    g_slot: np.ndarray
    g_pref: np.ndarray
    g_sum: np.ndarray
    g_fall: np.ndarray
    g_percdf: np.ndarray
    g_natt: np.ndarray
    e_pair: np.ndarray
    chal: np.ndarray
    p_ld: np.ndarray
    p_caught: np.ndarray
    p_instab: np.ndarray
    charged: np.ndarray
    # exact pmfs behind the cumulative tables (the exact engine reads these)
    sum_pmf: Mapping  # SumPmf
    per_attack: dict

    def kernel_args(self) -> tuple:
        return (self.u_int, self.b_int, self.g_int, self.g_key, self.g_slot, self.g_pref, self.g_sum,
                self.g_fall, self.g_percdf, self.g_natt, self.e_pair, self.chal, self.p_ld,
                self.p_caught, self.p_instab)


def _max_models(c: CompiledCombat, g) -> int:
    """Most models of a group that can strike at once (its n axis)."""
    if g.count == COUNT_SINGLE_:
        return 1
    side = c.units[g.unit]
    width = side.unit.formation.rank_width
    if g.count == COUNT_FRONT_:
        return min(width, g.n, side.unit.formation.models)
    if g.count == COUNT_SUPPORT_:
        return min(side.unit.formation.models, width * c.support[g.unit])
    return min(g.n, side.unit.formation.models)


def _convolutions(pmf: dict[int, float], top: int) -> list[tuple]:
    """The attack counts of n = 0..top models as sorted items, each convolved once more from
    the last (once per group, not per target and per n)."""
    total = {0: 1.0}
    out = [tuple(sorted(total.items()))]
    for _ in range(top):
        nxt: dict[int, float] = {}
        for a, pa in total.items():
            for b, pb in pmf.items():
                nxt[a + b] = nxt.get(a + b, 0.0) + pa * pb
        total = nxt
        out.append(tuple(sorted(total.items())))
    return out


@lru_cache(maxsize=256)
def _leadership_table(rules) -> np.ndarray:
    """p_ld of a ruleset (the same in every fight of it)."""
    from mathhammer.fantasy import characteristic_tests as fb_tests

    p_ld = np.zeros((2, 2 * MAX_LD + 1))
    for reroll in (0, 1):
        for v in range(-MAX_LD, MAX_LD + 1):
            p_ld[reroll, v + MAX_LD] = float(fb_tests.leadership_test(v, rules, bool(reroll)))
    return p_ld


@lru_cache(maxsize=4096)
def _p_caught(flee_dice: str, pursuit_dice: tuple[str, ...]) -> float:
    """P(a unit fleeing on ``flee_dice`` is caught by pursuers rolling ``pursuit_dice``)."""
    flee = parse_dice(flee_dice).pmf()
    pursue = [parse_dice(d).pmf() for d in pursuit_dice]
    p = 0.0
    for f, pf in flee.items():
        p_escape = 1.0
        for pmf in pursue:
            p_escape *= float(sum(q for x, q in pmf.items() if x < f))
        p += float(pf) * (1.0 - p_escape)
    return p


@lru_cache(maxsize=4096)
def _sum_block(hits: tuple, attack_items: tuple, top: int, w: int, models: int | None) -> tuple:
    """A group's outcome against one body, per variant vf and n = 0..top striking models:
    ``hits`` the per-attack (pmf, slay) of the three variants, ``attack_items`` the attacks of
    one model per vf (a fight's groups recur across a battle's arrangements: one lookup here
    instead of one per vf and n)."""
    out = []
    for vf, items in enumerate(attack_items):
        pmf, slay = hits[vf // 2]
        counts = _convolutions(dict(items), top)
        out.append(tuple(_sum_dist(pmf, slay, counts[n], w, models) for n in range(top + 1)))
    return tuple(out)


@lru_cache(maxsize=8192)
def _sum_dist(per_attack: tuple, slay: float, attacks: tuple, w: int, models: int) -> tuple:
    return tuple(chain_distribution(np.array(per_attack), slay, dict(attacks), w, models))


#: the one-attack outcomes of the attacker/target pairs met so far (a battle compiles
#: thousands of arrangements of the same few pairs); emptied when it reaches this many
MAX_OUTCOMES = 20_000
_OUTCOMES: dict = {}


class _PairOutcomes:
    """One attacker/target pair's one-attack outcomes, and what fights make of them."""

    __slots__ = ("outcomes", "hits", "percdf")

    def __init__(self, outcomes: tuple):
        self.outcomes = outcomes  # (pmf, slay) in each variant 0..2 (read-only pmfs)
        self.hits = tuple((tuple(pmf), float(slay)) for pmf, slay in outcomes)  # _sum_block's
        self.percdf: dict = {}  # width -> the three cumulative g_percdf rows (read-only)

    def percdf_rows(self, width: int) -> np.ndarray:
        """g_percdf's rows of the pair ``width`` wide: the rows :func:`_cumulative_rows`
        makes of the pmf padded to the width with the slay chance last."""
        out = self.percdf.get(width)
        if out is None:
            rows = {}
            for v, (pmf, slay) in enumerate(self.outcomes):
                row = rows[v,] = np.zeros(width)
                row[: len(pmf)] = pmf
                row[-1] = slay
            out = np.zeros((3, width))
            _cumulative_rows(out, rows)
            out.setflags(write=False)
            self.percdf[width] = out
        return out


def _attack_outcomes(att, body, rules, from_front: bool) -> _PairOutcomes:
    """The pair's one-attack outcomes in each variant (the same object, and arrays, for every
    fight that meets this pair)."""
    key = (attack_spec_key(att, body, from_front), rules)
    out = _OUTCOMES.get(key)
    if out is None:
        outcomes = []
        for v in range(3):
            spec = attack_spec(att, body, v, rules, body.asf, from_front)
            pmf, slay = (np.array([1.0]), 0.0) if spec is None else single_attack_outcomes(spec, rules)
            pmf.setflags(write=False)
            outcomes.append((pmf, slay))
        if len(_OUTCOMES) >= MAX_OUTCOMES:
            _OUTCOMES.clear()
        out = _OUTCOMES[key] = _PairOutcomes(tuple(outcomes))
    return out


@lru_cache(maxsize=2048)
def _block_width(hits: tuple, attack_items: tuple, top: int, w: int, models: int | None) -> int:
    """The longest distribution of a :func:`_sum_block` (the g_sum width it needs)."""
    return max(len(dist) for dists in _sum_block(hits, attack_items, top, w, models)
               for dist in dists)


#: bytes of cumulative blocks kept (:func:`_cumulative_block`)
MAX_BLOCK_BYTES = 24 * 2**20
_BLOCKS: OrderedDict = OrderedDict()
_BLOCK_BYTES = [0]
_BLOCKS_LOCK = threading.Lock()


def _cumulative_block(key: tuple, block: tuple, variants: int, width: int) -> np.ndarray:
    """g_sum's rows of one group against one body (``block``, :func:`_sum_block` of ``key``),
    variants 0..variants-1 by n = 0..top, ``width`` wide: the very rows :func:`_cumulative_rows`
    makes (a row's cumulative depends on that row alone), kept for the next fight of this pair."""
    full = (key, variants, width)
    with _BLOCKS_LOCK:  # fights are compiled in threads too (Dask, the web, analysis pools)
        out = _BLOCKS.get(full)
        if out is not None:
            _BLOCKS.move_to_end(full)
            return out
    out = np.zeros((variants, len(block[0]), width))
    _cumulative_rows(out, {(vf, n): dist for vf in range(variants)
                           for n, dist in enumerate(block[vf])})
    out.setflags(write=False)
    with _BLOCKS_LOCK:
        if full not in _BLOCKS:  # another thread made the same rows meanwhile: either serves
            _BLOCKS[full] = out
            _BLOCK_BYTES[0] += out.nbytes
        while _BLOCK_BYTES[0] > MAX_BLOCK_BYTES and len(_BLOCKS) > 1:
            _BLOCK_BYTES[0] -= _BLOCKS.popitem(last=False)[1].nbytes
    return out


def build_tables(c: CompiledCombat, first_round_only: bool = False) -> Tables:
    """The fight's tables; ``first_round_only``: for one exact round from the start only (greedy
    values): the later rounds' strike tables (vf 4, 5) and the Monte Carlo kernel's draws
    (g_natt, g_percdf) left empty — the exact engines never read them."""
    from mathhammer.fantasy.kernels import combat as k

    rules = c.rules
    units, bodies, groups = c.units, c.bodies, c.groups
    n_u, n_b, n_g = len(units), len(bodies), len(groups)
    u_int = np.zeros((n_u, k.NU), np.int64)
    side_index = [0, 0]
    for u, side in enumerate(units):
        unit = side.unit
        f = unit.formation
        s = c.unit_sides[u]
        against, face = c.faces[u]
        row = u_int[u]
        row[k.U_SIDE] = s
        row[k.U_WIDTH] = f.rank_width
        row[k.U_RANK_MIN] = rules.rank_width
        row[k.U_MAX_RANK] = rules.max_rank_bonus
        row[k.U_AGAINST] = -1 if against is None else against
        row[k.U_FACE] = face
        row[k.U_CONTACT] = c.contact[u]
        row[k.U_SUPPORT] = c.support[u]
        row[k.U_STUBBORN] = unit.has("Stubborn") or any(ch.profile.has("Stubborn") for ch in side.characters)
        row[k.U_UNBREAKABLE] = unit.has("Unbreakable")
        instability = rules.unstable == "lose_wounds"
        row[k.U_UNSTABLE] = unit.has("Unstable") and instability
        row[k.U_DAEMONIC] = unit.has("Daemonic Instability") and instability
        row[k.U_STANDARD] = f.standard and rules.standard_bonus > 0
        row[k.U_STANDARD_BONUS] = rules.standard_bonus
        row[k.U_MUSICIAN] = f.musician
        row[k.U_MUSICIAN_RULE] = rules.combat.musician_breaks_ties
        row[k.U_BONUS] = side.bonus
        row[k.U_FRENZY] = unit.has("Frenzy") or any(ch.profile.has("Frenzy") for ch in side.characters)
        reroll = side.reroll_break
        if reroll is None:
            reroll = (f.battle_standard or c.reroll[s]) and rules.combat.battle_standard_reroll
        row[k.U_REROLL] = bool(reroll)
        row[k.U_BSB_CR] = f.battle_standard
        row[k.U_BSB_BONUS] = rules.battle_standard_bonus
        row[k.U_STEADFAST_RULE] = rules.steadfast
        row[k.U_GENERAL_LD] = c.general_ld[s]
        row[k.U_DISRUPT_MIN] = rules.combat.disrupt_min_ranks
        row[k.U_DISRUPT_SF] = rules.combat.disrupted_loses_steadfast
        row[k.U_SIDE_INDEX] = side_index[s]
        side_index[s] += 1
        row[k.U_FLANK_BONUS] = rules.flank_bonus
        row[k.U_REAR_BONUS] = rules.rear_bonus
    b_int = np.zeros((n_b, k.NB), np.int64)
    for b, body in enumerate(bodies):
        row = b_int[b]
        row[k.B_UNIT], row[k.B_MODELS], row[k.B_W], row[k.B_LD] = body.unit, body.models, body.w, body.ld
        row[k.B_SINGLE], row[k.B_RANKS], row[k.B_SLOTS] = body.single, body.ranks, body.slots
        row[k.B_MODEL], row[k.B_BSB] = body.model, body.bsb
        row[k.B_GENERAL] = body.general and rules.combat.general_range
    ts = max([len(g.slots) for g in groups] or [1])
    g_int = np.zeros((max(n_g, 1), k.NG), np.int64)
    g_key = np.full((max(n_g, 1), 3), -1, np.int64)
    g_slot = np.full((max(n_g, 1), ts), -1, np.int64)
    g_pref = np.full((max(n_g, 1), 2, ts), -1, np.int64)
    n_axis = max([_max_models(c, g) for g in groups] or [1]) + 1
    w_axis = max(body.models * body.w for body in bodies) + 1
    per_attack: dict = {}
    pairs: dict = {}  # (group, slot) -> its _PairOutcomes
    natt: dict = {}
    k_axis = 2
    a_axis = 1
    for j, g in enumerate(groups):
        g_int[j, k.G_UNIT], g_int[j, k.G_BODY], g_int[j, k.G_COUNT] = g.unit, g.body, g.count
        g_int[j, k.G_ENEMY], g_int[j, k.G_LO], g_int[j, k.G_N] = g.enemy, g.lo, g.n
        g_int[j, k.G_ONCE], g_int[j, k.G_NSLOT], g_int[j, k.G_FACE] = g.once, len(g.slots), g.face
        g_int[j, k.G_FRENZY] = "Frenzy" in g.attacker.rules and g.attacker.auto is None
        g_key[j] = g.keys
        g_slot[j, : len(g.slots)] = g.slots
        for row in (0, 1):
            g_pref[j, row, : len(g.pref[row])] = g.pref[row]
        side = units[g.unit]
        support = g.count == COUNT_SUPPORT_
        for vf in range(6):
            v, fr = divmod(vf, 2)
            pmf = _attacks_pmf(g.attacker, v, bool(fr), side.charged, c.rules, support)
            natt[j, vf] = pmf
            a_axis = max(a_axis, max(pmf) + 1)
        enemy_side = units[g.enemy]
        from_front = c.faces[g.enemy][0] == g.unit or (g.count == COUNT_SIDE_)
        for slot, b in enumerate(g.slots):
            pair = pairs[j, slot] = _attack_outcomes(g.attacker, bodies[b], c.rules, from_front)
            for v, outcome in enumerate(pair.outcomes):
                per_attack[j, slot, v] = outcome
                k_axis = max(k_axis, len(outcome[0]) + 1)
        del enemy_side
    g_fall = np.zeros((max(n_g, 1), ts), np.int64)
    g_percdf = np.zeros((max(n_g, 1), ts, 3, k_axis))
    g_natt = np.zeros((max(n_g, 1), 6, a_axis))
    attack_items: dict = {}  # a group's attacks of one model per vf, in its dicts' order
    blocks: dict = {}  # (group, slot) -> its _sum_block key, variants and block (g_sum's rows)
    natt_rows = {}  # g_natt's rows before they are made cumulative
    for j, g in enumerate(groups):
        for vf in range(0 if first_round_only else 6):  # the Monte Carlo kernel's draw of attacks
            natt_rows[j, vf] = _dense(natt[j, vf])
        for slot, b in enumerate(g.slots):
            body = bodies[b]
            pair = pairs[j, slot]
            if not first_round_only:  # the Monte Carlo kernel's attack-by-attack draw
                g_percdf[j, slot] = pair.percdf_rows(k_axis)
            fall = any(pair.outcomes[v][1] > 0 for v in range(3)) and body.w > 1 and body.models > 1
            g_fall[j, slot] = fall
            if fall:
                continue
            # a single model's table is not capped at its wounds: the excess is a
            # challenge's overkill (FB-K3); the kernel caps what the model takes
            models = None if body.single else body.models
            top = min(_max_models(c, g), n_axis - 1)
            variants = 4 if first_round_only else 6
            if j not in attack_items:  # dict order kept: the same sums, the same floats
                attack_items[j] = tuple(tuple(natt[j, vf].items()) for vf in range(variants))
            key = (pair.hits, attack_items[j], top, body.w, models)
            w_axis = max(w_axis, _block_width(*key))
            blocks[j, slot] = key, variants, _sum_block(*key)
    g_sum = np.zeros((max(n_g, 1), ts, 6, n_axis, w_axis))
    for (j, slot), (key, variants, block) in blocks.items():
        g_sum[j, slot, :variants, :len(block[0])] = _cumulative_block(key, block, variants,
                                                                       w_axis)
    if not first_round_only:  # the Monte Carlo kernel's attack-by-attack draw (g_fall)
        _cumulative_rows(g_natt, natt_rows)
    e_pair = np.array(c.pairs or [(0, 0)], np.int64).reshape(-1, 2)
    chal = np.array(c.challenge, np.int64)
    p_ld = _leadership_table(rules).copy()
    p_caught = np.zeros((n_u, 16))
    flee = [_flee_dice(side, rules) for side in units]
    for u in range(n_u):
        p_caught[u] = _caught_row(flee[u], tuple((int(u_int[e, k.U_SIDE_INDEX]), flee[e])
                                                 for e in range(n_u)
                                                 if c.unit_sides[e] != c.unit_sides[u]))
    p_instab = _instability_table().copy()
    charged = np.array([side.charged for side in units], np.int64)
    return Tables(u_int, b_int, g_int, g_key, g_slot, g_pref, g_sum, g_fall, g_percdf, g_natt, e_pair, chal,
                  p_ld, p_caught, p_instab, charged, SumPmf(blocks), per_attack)


@lru_cache(maxsize=4096)
def _caught_row(flee: str, enemies: tuple) -> np.ndarray:
    """p_caught's row of a unit fleeing on ``flee`` from ``enemies`` ((side index, pursuit
    dice) each): by each mask of the enemies that pursue."""
    row = np.zeros(16)
    for mask in range(1, 16):
        chasers = tuple(dice for index, dice in enemies if mask >> index & 1)
        if chasers:
            row[mask] = _p_caught(flee, chasers)
    row.setflags(write=False)
    return row


@lru_cache(maxsize=1)
def _instability_table() -> np.ndarray:
    """p_instab: the 2D6 roll of an unstable unit's test."""
    out = np.zeros(13)
    for v, q in parse_dice("2D6").pmf().items():
        out[v] = float(q)
    out.setflags(write=False)
    return out


class SumPmf(Mapping):
    """Tables.sum_pmf: (group, slot, vf, n) -> the exact distribution of that many models'
    strikes (:func:`_sum_block`'s), looked up in the fight's blocks when the exact engine asks
    (a battle's fights never do: spelling every row out cost a tenth of a fight's tables)."""

    def __init__(self, blocks: dict):
        self._blocks = blocks  # (group, slot) -> (key, variants, block)

    def __getitem__(self, index):
        j, slot, vf, n = index
        _key, variants, block = self._blocks[j, slot]
        if not 0 <= vf < variants or not 0 <= n < len(block[vf]):
            raise KeyError(index)
        return block[vf][n]

    def __iter__(self):
        for (j, slot), (_key, variants, block) in self._blocks.items():
            for vf in range(variants):
                for n in range(len(block[vf])):
                    yield j, slot, vf, n

    def __len__(self) -> int:
        return sum(len(block[vf]) for _key, variants, block in self._blocks.values()
                   for vf in range(variants))


def _flee_dice(side, rules) -> str:
    """FB-C6/G2: flee and pursuit roll, Swiftstride's where the unit has it."""
    return rules.combat.swiftstride_dice if side.unit.has("Swiftstride") else rules.combat.flee_dice


def _pad(values, width: int) -> np.ndarray:
    out = np.zeros(width)
    vals = np.asarray(values, float)
    if len(vals) > width:  # wounds beyond the body: the cap takes them anyway
        out[:] = vals[:width]
        out[-1] += vals[width:].sum()
    else:
        out[: len(vals)] = vals
    return out


def _cumulative_rows(g_sum: np.ndarray, sum_pmf: dict) -> None:
    """g_sum[key] = the cumulative of dist (padded, _pad) for every key and dist of sum_pmf, all
    rows at once, 1.0 from a row's last possible outcome on (no float gap above it; a row with
    none is all 1.0)."""
    if not sum_pmf:
        return
    width = g_sum.shape[-1]
    index = tuple(np.array(key, np.intp) for key in zip(*sum_pmf, strict=True))
    dists = list(sum_pmf.values())
    lengths = np.fromiter((len(d) for d in dists), np.intp, count=len(dists))
    pmf = np.zeros((len(dists), width))
    fits = lengths <= width  # the rest are padded one by one (wounds beyond the body)
    rows = np.nonzero(fits)[0]
    if len(rows):  # every value in its place at once (copied, not summed: the same floats)
        flat = np.fromiter(chain.from_iterable(dists[r] for r in rows), np.float64,
                           count=int(lengths[rows].sum()))
        starts = np.repeat(np.cumsum(lengths[rows]) - lengths[rows], lengths[rows])
        pmf[np.repeat(rows, lengths[rows]), np.arange(len(flat)) - starts] = flat
    for row in np.nonzero(~fits)[0]:
        pmf[row] = _pad(dists[row], width)
    cum = np.cumsum(pmf, axis=1)
    possible = pmf > 0
    last = width - 1 - np.argmax(possible[:, ::-1], axis=1)  # last possible outcome of a row
    last[~possible.any(axis=1)] = 0  # nothing possible: the row is all 1.0
    cum[np.arange(width)[None, :] >= last[:, None]] = 1.0
    g_sum[index] = cum


def _dense(pmf: dict[int, float]) -> list[float]:
    """A pmf over 0..max as a list (the row _cumulative_rows pads and accumulates)."""
    out = [0.0] * (max(pmf) + 1)
    for k, p in pmf.items():
        out[k] += p
    return out
