"""A battle plan as the battle kernel's numbers (DESIGN rule 1), and the tables it asks for.

:class:`KernelBattle` turns a :class:`~mathhammer.fantasy.battle.plan.BattlePlan` into the
flat arrays of :mod:`mathhammer.fantasy.kernels.battle_state` and plays chunks of battles with
:func:`mathhammer.fantasy.kernels.battle_play.play_chunk`. The kernel looks every exact table up:
a compiled combat arrangement (:func:`mathhammer.fantasy.combat.fight.compile_fight`), a greedy
value (:func:`mathhammer.fantasy.battle.combat_values.exact_round_value`, the combat
engine's exact round), a shooting table (:func:`mathhammer.fantasy.battle.shooting.wound_cdf`, the
chain). When one is missing, the kernel's probe pass queues it and plays the battle on with
a placeholder (kernels.battle_state.missed), so one pass finds every table the step —
its rollouts included — asks for, and stops there (RESUME; without probing, greedy: the one
table that stopped it); this module builds them (or takes them from the process's store when
another plan built the same contents: :mod:`~mathhammer.fantasy.battle.shared_tables`), adds
them to the run's tables and the battle goes on from its state before that step (saved by the
kernel: every step before it found its tables, so from the start they would play the same),
uncounted until it needs no placeholder — so the answer never depends on what was already built.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from mathhammer.fantasy.battle import shared_tables
from mathhammer.fantasy.battle.scoring import draw_limit
from mathhammer.fantasy.battle.table import FACE_NAMES
from mathhammer.fantasy.kernels.battle_spells import MISS_EFFECTS, MISS_WIDTH

MAX_MISSES = 100_000  # tables since the fights were last forgotten; beyond: something is wrong
#: compiled fights kept between battles: past this many bytes of their arrays the fights are
#: forgotten before the next battle (rebuilt when asked again: the same tables, the same answer)
#: but the hot ones (HOT_FIGHT_SHARE). A process holds ~250 MB besides (numba's code, the plan),
#: and the allocator does not hand every freed array back. A fight keeps ~12 kB since its
#: wounds tables are the battle's shared blocks (KernelBattle._blocks_of; ~280 kB before): a
#: best-response worker's 500 battles held ~13 MB and never forgot (with 280 kB fights, 128 MB
#: had kept it at ~430 MB, forgetting every ~35 battles)
MAX_FIGHT_BYTES = 128 * 2**20
#: the share of MAX_FIGHT_BYTES the fights asked for again after a forgetting may fill when
#: the fights are next forgotten (kept instead of asked for, and probed for, once more)
HOT_FIGHT_SHARE = 0.7
#: forgettings a hot fight is kept through before it must be asked for again
HOT_FIGHT_SPELLS = 3
#: fights whose asks are counted (forget_fights); past this, those asked once are let go
MAX_ASKED = 50_000
#: a battle played again after its missing tables are built goes on from its last step before
#: the first miss (the same steps, the same stream: the same battle), and a probe pass stops
#: after that step; False: every pass from the battle's start to its end (as before 2026-12-04)
RESUME = True
#: a table built for units is entered for their like units too (the same contents: the same
#: table, so the same battles; fewer probe passes); a compiled fight for at most MOST_ALIKE swaps
ENTER_ALIKE = True
MOST_ALIKE = 24
#: a best response played again after its missing tables are built keeps the values of the
#: rollouts that found every table (the same state, stream and tables: the same value) and
#: plays only those that met a placeholder (kernels.battle_play.best_response); False: all
KEEP_CLEAN_ROLLOUTS = True
#: rows of a new greedy values' table (kernels.battle_tables.value_row; a power of two): ~12,000
#: codes after 250 battles of two 6-unit lists; the table doubles when half full
VALUE_ROWS = 4096
#: int64 items of a combat round's scratch (B.cr, kernels.battle_combat.round_scratch) a
#: Battle starts with; an entered fight that needs more grows it (KernelBattle._enter)
ROUND_SCRATCH = 2048


class _Entered(NamedTuple):
    """A compiled fight in the kernel's tables (KernelBattle.forget_fights)."""

    content: tuple  # what it depends on (KernelBattle._fight_content)
    entry: tuple  # (keyed arrays, orders, codes, keys, first, once): KernelBattle._enter's
    kept: int  # forgettings it was kept through (0: a battle asked for it)


class KernelBattle:
    """The kernel's arrays of one plan, and its tables (built as battles ask for them)."""

    def __init__(self, plan, probing: bool = True):
        from mathhammer import kernels

        kernels.load("mathhammer.fantasy.kernels.battle_play")
        from mathhammer.fantasy.kernels import battle_state as ks

        self.plan = plan
        self.ks = ks
        self.P = static_arrays(plan, ks)
        self.D = deployment_arrays(plan)
        self.T = empty_tables()
        self.S = ks.new_state(len(plan.units), plan.turns)
        self.W = scratch(plan, ks)
        from mathhammer.fantasy.battle.magic import kernel_tables
        from mathhammer.fantasy.kernels import battle_actions as ka

        kernel_tables(plan, self.T[ka.T_SHOT_LIST], self.T[ka.T_SHOT_DICT])  # FB-B12
        self.B = ks.make_battle(*self.P, *self.D, *self.T, *self.W)
        self.W[self.ks_w("W_PROBE")][ks.P_ON] = int(probing)
        self.misses = 0
        self.n_values = 0  # codes in the greedy values' table (_put_value)
        # a battle's state before its first missing table (kernels.battle_play.play_chunk):
        # played again once the tables are built, it goes on from there, not from its start
        self.ck = ks.new_state(len(plan.units), plan.turns)
        self.ck_decisions = np.zeros(len(plan.vocabulary), np.int64)
        # the battle index ck belongs to (-1: none); 1: go on from it (RESUME), 0: from the start
        self.ck_at = np.array([-1, 1], np.int64)
        self.shared: dict[tuple, np.ndarray] = {}  # the fights' arrays by contents (_shared)
        # issue 32: tables are looked up in the process's store by what they depend on
        self.sharing = shared_tables.enabled()
        self.signatures = tuple(shared_tables.unit_signature(u) for u in plan.units)
        self.rules_signature = shared_tables.rules_signature(plan.rules)
        # the units with each unit's contents (itself first): a table built for one pair is
        # the table of every pair of their like (the same content key), entered for all at once
        self.alike = tuple(tuple([u] + [v for v, sig in enumerate(self.signatures)
                                        if sig == mine and v != u and ENTER_ALIKE])
                           for u, mine in enumerate(self.signatures))
        sides = [unit.side for unit in plan.units]
        self.alike_in_side = tuple(tuple(v for v in like if sides[v] == sides[u])
                                   for u, like in enumerate(self.alike))  # a fight's swaps
        self.fight_bytes = 0  # held by the compiled fights' arrays (MAX_FIGHT_BYTES)
        # the wounds tables' blocks entered in T_BLOCKS: (shape, digest) -> index, and the
        # blocks (_blocks_of)
        self.blocks: dict[tuple, int] = {}
        self.block_list: list[np.ndarray] = []
        # the fights entered since the fights were last forgotten, and how many spells between
        # forgettings each content was asked for in (forget_fights keeps the hot)
        self.entered: list = []
        self.asked: dict = {}
        self.fights_entered = 0  # fights entered after a probe pass asked (benchmarks, tests)
        self.fights_kept = 0  # fights entered again at once by forget_fights
        self.forgotten = 0  # times the fights were forgotten between battles

    # ---- playing ------------------------------------------------------------------------------
    def run_chunk(self, n: int, words: np.ndarray) -> dict[str, np.ndarray]:
        from mathhammer.fantasy.battle.plan import empty_tally
        from mathhammer.fantasy.kernels.battle_play import play_chunk

        tally = empty_tally(self.plan)
        words = np.asarray(words, np.uint64)
        j, last, started = 0, set(), -1
        self.new_stream()
        while True:
            self.ck_at[1] = int(RESUME)
            j = play_chunk(self.B, self.S, words, j, n,
                           tally["outcome"], tally["margin2"], tally["margin_hist"],
                           tally["status"], tally["models_left"], tally["decisions"],
                           self.ck, self.ck_decisions, self.ck_at)
            if j >= n:
                return tally
            if j != started and self.fight_bytes > MAX_FIGHT_BYTES:
                # battles before j are counted; j replays from its start on its own stream
                self.forget_fights()
                started, last = j, set()
                continue
            started = j  # never forget within a battle's passes (it would ask again: thrash)
            last = self.build_missing(last)

    def one_battle(self, words: np.ndarray, index: int) -> tuple[float, int, int]:
        """Battle ``index`` of the stream ``words``: (VP margin A − B, A won, B won)."""
        from mathhammer.fantasy.battle.plan import empty_tally
        from mathhammer.fantasy.kernels.battle_play import play_chunk

        words = np.asarray(words, np.uint64)
        last = set()
        self.new_stream()
        while True:
            tally = empty_tally(self.plan)
            self.ck_at[1] = int(RESUME)
            done = play_chunk(self.B, self.S, words, index, index + 1, tally["outcome"],
                              tally["margin2"], tally["margin_hist"], tally["status"],
                              tally["models_left"], tally["decisions"], self.ck,
                              self.ck_decisions, self.ck_at)
            if done == index + 1:
                outcome = tally["outcome"]
                return tally["margin2"][0] / 2, int(outcome[0]), int(outcome[2])
            last = self.build_missing(last)

    def first_decisions(self, words: np.ndarray) -> np.ndarray:
        from mathhammer.fantasy.kernels.battle_play import first_decisions

        last = set()
        self.new_stream()
        while first_decisions(self.B, self.S, words) != 0:
            last = self.build_missing(last)
        return self.W[self.ks_w("W_FIRST")].copy()

    def new_stream(self) -> None:
        """Nothing saved from another stream's passes: no battle state, no rollouts kept
        (and KEEP_CLEAN_ROLLOUTS read again, as RESUME is at every pass)."""
        from mathhammer.fantasy.kernels.battle_play import BRK_ON, BRK_VALID

        self.ck_at[0] = -1
        key = self.W[self.ks_w("W_BR_KEY")]
        key[BRK_VALID], key[BRK_ON] = 0, int(KEEP_CLEAN_ROLLOUTS)

    def build_missing(self, last: set) -> set:
        """Build every table the last pass asked for (a probe pass queues all the battle's
        misses; without probing, the one that stopped it); returns them."""
        ks = self.ks
        probe = self.W[self.ks_w("W_PROBE")]
        if probe[ks.P_ON]:
            queue = self.W[self.ks_w("W_PROBE_Q")]
            misses = [tuple(int(x) for x in queue[k, :MISS_WIDTH])
                      for k in range(probe[ks.P_COUNT])]
            probe[ks.P_COUNT] = probe[ks.P_OVERFLOW] = 0
        else:
            misses = [tuple(int(x) for x in self.W[self.ks_w("W_MISS")][:MISS_WIDTH])]
        if not misses:
            raise RuntimeError("a battle played on placeholders but asked for no table")
        for miss in misses:
            if miss in last:
                raise RuntimeError(f"the battle kernel asked twice for the same table {miss}")
            self.fill(miss)
        return set(misses)

    def forget_fights(self) -> None:
        """Drop the compiled fights (memory stays bounded over a long run) but the ones the
        battles keep coming back to: a fight asked for since the last forgetting that had been
        asked for before it too (dropped, then asked again) is entered again at once, the most
        asked for first, and kept through HOT_FIGHT_SPELLS forgettings (a kept fight is never
        asked for, so nothing says it is still used: then it goes, and comes back if asked
        again), up to HOT_FIGHT_SHARE of MAX_FIGHT_BYTES. Greedy values, shooting tables and
        the wounds tables' blocks (T_BLOCKS: the kept fights index them) are small and kept.
        Only between battles: the probe pass of the next one queues every
        other fight it needs again."""
        from mathhammer.fantasy.kernels import battle_actions as ka

        for content in {e.content for e in self.entered if e.kept == 0}:
            self.asked[content] = self.asked.get(content, 0) + 1
        if len(self.asked) > MAX_ASKED:  # a long run's one-off fights go first
            self.asked = {c: n for c, n in self.asked.items() if n > 1}
        hot = sorted((e for e in self.entered
                      if (e.kept == 0 and self.asked.get(e.content, 0) > 1)
                      or 0 < e.kept < HOT_FIGHT_SPELLS),
                     key=lambda e: (e.kept, -self.asked.get(e.content, 0)))  # stable
        self.T = empty_tables()[:ka.T_VALUES] + self.T[ka.T_VALUES:]
        probe = self.W[self.ks_w("W_PROBE")]
        probe[self.ks.P_COUNT] = probe[self.ks.P_OVERFLOW] = 0  # the queue asked of old tables
        self.shared.clear()
        self.fight_bytes = 0
        self.entered = []
        for old in hot:
            if self.fight_bytes >= HOT_FIGHT_SHARE * MAX_FIGHT_BYTES:
                break
            keyed, *rest = old.entry
            entry = (tuple((hkey, self._shared(arr, hkey)) for hkey, arr in keyed), *rest)
            self.entered.append(_Entered(old.content, entry, old.kept + 1))
            self._enter(entry)
            self.fights_kept += 1
        self.B = self.ks.make_battle(*self.P, *self.D, *self.T, *self.W)
        self.forgotten += 1
        self.misses = 0  # the next battles ask for their fights again

    @staticmethod
    def ks_w(name: str) -> int:
        from mathhammer.fantasy.kernels import battle_actions

        return getattr(battle_actions, name)

    # ---- the tables the kernel asks for ------------------------------------------------------
    def fill(self, miss: tuple[int, ...]) -> None:
        from mathhammer.fantasy.kernels import battle_actions as ka
        from mathhammer.fantasy.kernels import battle_tables as kt

        ks = self.ks
        self.misses += 1
        if self.misses > MAX_MISSES:
            raise RuntimeError("the battle kernel asked for more tables than any run needs")
        kind = miss[0]
        if kind == ks.MISS_FIGHT:
            self._fight(miss)
        elif kind == ks.MISS_VALUE:
            from mathhammer.fantasy.battle.combat_values import exact_round_value
            from mathhammer.fantasy.kernels.battle_values import value_code

            _k, u, t, face, charged, mu, mt = miss[:7]
            code = int(value_code(u, t, face, charged, mu, mt))
            if kt.value_of(self.T[ka.T_VALUES], code)[1]:
                return  # asked twice in one probe pass
            # the size step asked for only (issue 32): a battle reads few of a pair's 25, each
            # an exact round (~10 ms); another step asked later is one more probe pass (~1 ms)
            content = ("value", self.rules_signature, self.signatures[u], self.signatures[t],
                       face, charged, mu, mt)
            value = self._kept(content, lambda: exact_round_value(self.plan, u, t, face,
                                                              bool(charged), mu, mt))
            for u2, t2 in self._pairs_alike(u, t):  # a pair of their like asks for this table
                self._put_value(int(value_code(u2, t2, face, charged, mu, mt)), value)
        elif kind == ks.MISS_CHALLENGE:  # FB-B20: one exact round with a challenge
            from mathhammer.fantasy.battle.challenge_values import exact_challenge_value
            from mathhammer.fantasy.kernels.battle_values import challenge_code

            code = int(challenge_code(*miss[1:11]))
            if not kt.value_of(self.T[ka.T_VALUES], code)[1]:
                content = ("challenge", self.rules_signature, self.signatures[miss[1]],
                           self.signatures[miss[2]], miss[3:11])
                value = self._kept(content, lambda: exact_challenge_value(
                    self.plan, *(int(x) for x in miss[1:4]), bool(miss[4]),
                    *(int(x) for x in miss[5:11])))
                for a2, t2 in self._pairs_alike(miss[1], miss[2]):
                    self._put_value(int(challenge_code(a2, t2, *miss[3:11])), value)
        elif kind == ks.MISS_SHOT:
            from mathhammer.fantasy.battle.shooting import wound_cdf
            from mathhammer.fantasy.kernels.battle_actions import shot_code

            _k, u, t, n, mod, left = miss[:6]
            code = int(shot_code(u, t, n, mod, left))
            if kt.has(self.T[ka.T_SHOT_DICT], code):
                return
            content = ("shot", self.rules_signature, self.signatures[u], self.signatures[t], n,
                       mod, left)

            def build():
                if n >= ka.MACHINE_SHOT:  # FB-WM2: a war machine's piece, the artillery engine
                    from mathhammer.fantasy.battle.shooting import machine_table

                    return np.ascontiguousarray(machine_table(
                        self.plan, u, t, n - ka.MACHINE_SHOT, mod, left), np.float64)
                return np.ascontiguousarray(wound_cdf(self.plan, u, t, n, mod, left), np.float64)

            cum = self._kept(content, build, lambda c: c.nbytes)
            index = kt.append(self.T[ka.T_SHOT_LIST], cum)
            for u2, t2 in self._pairs_alike(u, t):
                kt.put(self.T[ka.T_SHOT_DICT], int(shot_code(u2, t2, n, mod, left)), index)
        else:  # pragma: no cover - the kernel writes only these three
            raise RuntimeError(f"unknown miss {miss}")

    def _put_value(self, code: int, value: float) -> None:
        """A greedy value into the kernel's table (kernels.battle_tables.value_row), which is
        doubled before it is half full — and the Battle made again around the new array."""
        from mathhammer.fantasy.kernels import battle_actions as ka
        from mathhammer.fantasy.kernels import battle_tables as kt

        table = self.T[ka.T_VALUES]
        self.n_values += kt.put_value(table, code, value)
        if 2 * self.n_values >= table.shape[0]:
            self.T = (self.T[:ka.T_VALUES] + (kt.grown_values(table),)
                      + self.T[ka.T_VALUES + 1:])
            self.B = self.ks.make_battle(*self.P, *self.D, *self.T, *self.W)

    def _pairs_alike(self, u: int, t: int):
        """(u, t) first, then every other pair of units with their contents: the pairs whose
        table is this one (a list's like units — four Halberdiers — ask for each of them)."""
        for u2 in self.alike[u]:
            for t2 in self.alike[t]:
                if u2 != t2:
                    yield u2, t2

    def _fight(self, miss: tuple[int, ...]) -> None:
        from mathhammer.errors import MathhammerError, engine_fault
        from mathhammer.fantasy.combat.fight import compile_fight
        from mathhammer.fantasy.kernels import battle_actions as ka
        from mathhammer.fantasy.kernels import battle_tables as kt
        from mathhammer.fantasy.kernels import combat as k

        _kind, count, n_a = miss[:3]
        rows = [tuple(miss[3 + 4 * i: 7 + 4 * i]) for i in range(count)]
        order = [r[0] for r in rows]
        # FB-B30: each engine unit's augment or hex this turn (spell row, -1 none)
        spells = {u: miss[MISS_EFFECTS + i] - 1 for i, u in enumerate(order)}
        code, key = self._fight_codes(rows, n_a, spells)
        if kt.has(self.T[ka.T_FIGHTS], code) or (not any(r[3] for r in rows)
                                                 and kt.has(self.T[ka.T_ARRANGEMENTS], key)):
            return  # the kernel's lookup finds it now (built earlier in this probe's batch)
        groups = (order[:n_a], order[n_a:])
        content = self._fight_content(rows, groups, spells)

        def build():
            sides = []
            for mine, theirs in (groups, groups[::-1]):
                sides.append(tuple(self._side(rows[order.index(u)], theirs, spells[u])
                                   for u in mine))
            try:
                c, t = compile_fight(sides[0], sides[1], ruleset=self.plan.rules)
            except MathhammerError as err:  # the kernel built this arrangement: a bug
                raise engine_fault("the battle built a combat it cannot fight", err) from err
            b_unit = t.b_int[:, k.B_UNIT]
            first = np.array([int(np.argmax(b_unit == i)) for i in range(count)], np.int64)
            arrays = list(t.kernel_args())
            arrays[13] = np.zeros_like(t.p_caught)  # pursuit is the battle's own (fights.py)
            once = np.array([int(t.g_int[g, k.G_UNIT]) if t.g_int[g, k.G_ONCE] == 1 else -1
                             for g in range(t.g_int.shape[0])], np.int64)
            # the wounds tables as their distinct blocks (the battle keeps one of each)
            arrays = tuple((None, unique_blocks(arr)) if i == WOUNDS_TABLES
                           else _content_keyed(np.ascontiguousarray(arr, DTYPES[i]))
                           for i, arr in enumerate(arrays))
            return arrays, first, once

        arrays, first, once = self._kept(content, build, packed=True)
        arrays = (arrays[:WOUNDS_TABLES]
                  + (_content_keyed(self._blocks_of(*arrays[WOUNDS_TABLES][1])),)
                  + arrays[WOUNDS_TABLES + 1:])
        keyed = tuple((hkey, self._shared(arr, hkey)) for hkey, arr in arrays)
        orders, codes, keys = [], [], []
        for rows2, spells2 in self._fights_alike(rows, spells):  # this one first (not entered)
            code2, key2 = (code, key) if rows2 is rows else self._fight_codes(rows2, n_a, spells2)
            orders.append([r[0] for r in rows2])
            codes.append(code2)
            keys.append(key2)
        entry = (keyed, np.array(orders, np.int64), np.array(codes, np.int64),
                 np.array(keys, np.int64), first, once)
        self.entered.append(_Entered(content, entry, 0))
        self._enter(entry)
        self.fights_entered += 1

    def _blocks_of(self, blocks: np.ndarray, inverse: np.ndarray) -> np.ndarray:
        """A fight's wounds tables (its distinct (N, W) blocks and each (group, slot,
        variant)'s among them: :func:`unique_blocks`) as the index (G, TS, 6) of the blocks
        in the battle's list (T_BLOCKS), each block entered once: the fights of a battle share
        nearly all of them (a best-response run's fights held ~700 copies of each), so a fight
        keeps ~1/20 of the bytes and the fights are forgotten far less. Blocks are never
        forgotten (a plan has few: its pairs' attack profiles)."""
        from mathhammer.fantasy.kernels import battle_actions as ka
        from mathhammer.fantasy.kernels import battle_tables as kt

        slots = np.empty(len(blocks), np.int64)
        for k, block in enumerate(blocks):
            bits = block.view(np.uint64)  # equal bits: the same draws
            key = (block.shape, hashlib.blake2b(bits, digest_size=16).digest())
            at = self.blocks.get(key)
            if at is not None and not np.array_equal(self.block_list[at].view(np.uint64), bits):
                raise RuntimeError("two wounds tables with one digest")  # 2**-128: never
            if at is None:
                kept = block.copy()
                at = self.blocks[key] = kt.append(self.T[ka.T_BLOCKS], kept)
                self.block_list.append(kept)  # the same memory as the kernel's list item
            slots[k] = at
        return slots[inverse]

    def _enter(self, entry) -> None:
        """One compiled fight into the kernel's tables (kernels.battle_tables.add_fight)."""
        from mathhammer.fantasy.kernels import battle_actions as ka
        from mathhammer.fantasy.kernels import battle_tables as kt
        from mathhammer.fantasy.kernels.battle_combat import round_scratch

        keyed, orders, codes, keys, first, once = entry
        arrays = tuple(arr for _hkey, arr in keyed)
        kt.add_fight(*self.T[:ka.T_VALUES], arrays, orders, codes, keys, first, once)
        need = int(round_scratch(len(first), *arrays[0].shape, arrays[1].shape[0],
                                 arrays[2].shape[0]))
        scratch = self.W[ka.W_CR]
        if need > scratch.shape[0]:  # the kernel's rounds cut their arrays from it
            self.W = (*self.W[:ka.W_CR], np.zeros(max(need, 2 * scratch.shape[0]), np.int64),
                      *self.W[ka.W_CR + 1:])
            self.B = self.ks.make_battle(*self.P, *self.D, *self.T, *self.W)

    def _fight_codes(self, rows, n_a: int, spells: dict) -> tuple[int, int]:
        """The kernel's codes of a fight (battle_combat._lookup): with who charged, and the
        arrangement's without."""
        from mathhammer.fantasy.kernels.battle_combat import fight_code
        from mathhammer.fantasy.kernels.battle_spells import G_SPELL, effects_code

        ks = self.ks
        g = np.zeros(G_SPELL + len(self.plan.units) + 1, np.int64)
        for u, row in spells.items():
            g[G_SPELL + u] = row + 1
        st = np.zeros((len(self.plan.units), ks.NST), np.int64)
        st[:, ks.ST_CT] = -1
        for u, target, face, charged in rows:
            st[u, ks.ST_CT], st[u, ks.ST_CF] = target, face
            st[u, ks.ST_CHARGED] = st[u, ks.ST_FRESH] = charged
        arr = np.array([r[0] for r in rows], np.int64)
        return tuple(int(effects_code(fight_code(arr, len(rows), n_a, st, flag), arr, len(rows), g))
                     for flag in (True, False))

    def _fights_alike(self, rows, spells, most: int = MOST_ALIKE):
        """(rows, spells) first, then the same fight with its units swapped for like units of
        their side (the same content: _fight_content), up to ``most`` — four Halberdiers ask
        for each other's fights. Only when every unit touches a unit of the fight or none (a
        contact outside it is in the kernel's code but not in the content)."""
        yield rows, spells
        order = [r[0] for r in rows]
        if any(t >= 0 and t not in order for _u, t, _f, _c in rows):
            return
        made = 0
        for swap in itertools.product(*(self.alike_in_side[u] for u in order)):
            if len(set(swap)) < len(swap) or list(swap) == order:
                continue
            to = dict(zip(order, swap, strict=True))
            yield ([(to[u], to.get(t, t), f, c) for u, t, f, c in rows],
                   {to[u]: row for u, row in spells.items()})
            made += 1
            if made >= most:
                return

    def _kept(self, content: tuple, build, nbytes=lambda _value: 8, packed: bool = False):
        """The table for ``content`` from the process's store (issue 32), else ``build()`` —
        kept there for later plans unless sharing is off (MATHHAMMER_SHARED_TABLES=0).
        ``packed``: kept compressed (:func:`shared_tables.pack`; a compiled fight is ~300 kB of
        mostly padding and ~6 kB packed, so the store holds a long run's every fight and a
        forgotten one comes back in ~1 ms instead of being compiled again in ~20-40 ms)."""
        value = shared_tables.get(content) if self.sharing else None
        if value is not None:
            return shared_tables.unpack(value) if packed else value
        value = build()
        if self.sharing:
            if packed:
                blob = shared_tables.pack(value)
                shared_tables.put(content, blob, len(blob))
            else:
                value = shared_tables.put(content, value, nbytes(value))
        return value

    def _shared(self, arr: np.ndarray, key: tuple) -> np.ndarray:
        """One array for equal contents (``key``: :func:`_content_keyed`): arrangements of the
        same units (other faces, other chargers) mostly compile to the same tables, and the
        kernel only reads them (the wounds tables, once most of a run's memory, are shared
        block by block: :meth:`_blocks_of`)."""
        kept = self.shared.get(key)
        if kept is None:
            kept = self.shared[key] = arr
            self.fight_bytes += arr.nbytes
        return kept

    def _fight_content(self, rows, groups, spells=None) -> tuple:
        """What a compiled fight depends on (issue 32): the ruleset, and per engine unit in
        order its contents, whom of the other group it touches, on which face, and whether it
        charged (as :meth:`_side` reads them), and its augment or hex (FB-B30) — not the
        units' places in the lists."""
        from mathhammer.fantasy.battle.spell_effects import modifiers_key

        out = []
        for i, (u, target, face, charged) in enumerate(rows):  # rows are in engine order
            theirs = groups[1] if i < len(groups[0]) else groups[0]
            against = theirs.index(target) if target in theirs else None
            modifiers = modifiers_key(self.plan, spells[u]) if spells else ()
            out.append((self.signatures[u], against, face if against is not None else 0,
                        bool(charged)) + ((modifiers,) if modifiers else ()))
        return ("fight", self.rules_signature, len(groups[0]), tuple(out))

    def _side(self, row, theirs, spell: int = -1):
        u, target, face, charged = row
        against = theirs.index(target) if target in theirs else None
        position = FACE_NAMES[face] if against is not None else "front"
        side = self.plan.units[u].combat_side
        if spell >= 0:  # FB-B30: the unit under its augment or hex
            from mathhammer.fantasy.battle.spell_effects import effect_side

            side = effect_side(self.plan, u, spell)
        return replace(side, charged=bool(charged), position=position, against=against)


def unique_blocks(g_sum: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct (N, W) blocks of the wounds tables g_sum (G, TS, 6, N, W), the index
    (G, TS, 6) of each among them): blocks are alike when their bits are. Rows are grouped by a
    hash of their bits, and the grouping is checked bit by bit (two blocks alike in the hash
    only: grouped by their bits instead)."""
    lead, shape = g_sum.shape[:3], g_sum.shape[3:]
    bits = np.ascontiguousarray(g_sum, np.float64).view(np.uint64).reshape(
        int(np.prod(lead)), int(np.prod(shape)))
    weights = _hash_weights(bits.shape[1])
    _, first, inverse = np.unique((bits * weights).sum(axis=1), return_index=True,
                                  return_inverse=True)  # uint64: the products wrap
    inverse = inverse.reshape(-1)
    if not np.array_equal(bits, bits[first][inverse]):
        _, first, inverse = np.unique(bits, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    return bits[first].view(np.float64).reshape(len(first), *shape), inverse.reshape(lead)


@functools.lru_cache(maxsize=16)
def _hash_weights(n: int) -> np.ndarray:
    """n fixed odd 64-bit multipliers (unique_blocks' hash of a block's bits)."""
    weights = np.random.default_rng(0x5EED).integers(0, 2**63, n, np.uint64) * 2 + 1
    weights.flags.writeable = False
    return weights


def _content_keyed(arr: np.ndarray) -> tuple[tuple, np.ndarray]:
    """(a key of the array's contents, the array): equal keys, equal arrays
    (KernelBattle._shared)."""
    digest = hashlib.blake2b(np.ascontiguousarray(arr), digest_size=16).digest()  # no copy
    return (arr.dtype.str, arr.shape, digest), arr


#: dtypes of the combat kernel's 15 arrays (Tables.kernel_args order) in the kernel's tables
DTYPES = (np.int64, np.int64, np.int64, np.int64, np.int64, np.int64, np.int64, np.int64,
          np.float64, np.float64, np.int64, np.int64, np.float64, np.float64, np.float64)
NDIMS = (2, 2, 2, 2, 2, 3, 3, 2, 4, 3, 2, 1, 2, 2, 1)
#: the position of g_sum among them: the kernel's containers hold its blocks' index there
#: (KernelBattle._blocks_of), the compiled fight its float64 (G, TS, 6, N, W) tables
WOUNDS_TABLES = 6


def empty_tables() -> tuple:
    """The kernel's empty table containers (the order of kernels.battle_actions.T_*), made by a
    cached kernel: typed containers made or filled from Python compile their methods in every
    process (issue 32, kernels.battle_tables)."""
    from mathhammer import kernels

    if VALUE_ROWS < 2 or VALUE_ROWS & (VALUE_ROWS - 1):  # value_row masks with rows - 1
        raise ValueError(f"VALUE_ROWS must be a power of two, not {VALUE_ROWS}")
    return kernels.load("mathhammer.fantasy.kernels.battle_tables").empty_tables(VALUE_ROWS)


#: decision kinds in the kernel's order (K_*); body roles in its order (ROLE_*)
KINDS = ("charge", "reaction", "move", "shoot", "pursue", "challenge", "answer")
ROLES = ("rank and file", "champion", "character")


def static_arrays(plan, ks) -> tuple:
    """The tuple P of :mod:`mathhammer.fantasy.kernels.battle_state` (static arrays of the plan)."""
    units = plan.units
    n = len(units)
    from mathhammer.fantasy.kernels.battle_spells import MAX_UNITS

    if n > MAX_UNITS:  # the state keeps a spell slot for each unit (FB-B30)
        from mathhammer.errors import InputError

        raise InputError("the battle", f"has {n} units, the battle engine takes {MAX_UNITS}", n,
                         "play fewer units a side")
    rules, br = plan.rules, plan.rules.battle
    ui = np.zeros((n, ks.NUI), np.int64)
    uf = np.zeros((n, ks.NUF))
    bodies = np.zeros((n, ks.MAXB, 4), np.int64)
    for u, unit in enumerate(units):
        if len(unit.bodies) > ks.MAXB:
            from mathhammer.errors import InputError

            raise InputError(f"unit {unit.label}", f"has {len(unit.bodies)} wound pools, the "
                             f"battle engine takes {ks.MAXB}", len(unit.bodies),
                             "join fewer characters to it")
        p = unit.profile
        row = ui[u]
        row[ks.UI_SIDE], row[ks.UI_MODELS], row[ks.UI_WIDTH] = unit.side, unit.models, unit.width
        row[ks.UI_M], row[ks.UI_LD], row[ks.UI_LARGE] = unit.movement, unit.ld, int(unit.large)
        row[ks.UI_UNBREAKABLE] = int(p.has("Unbreakable"))
        row[ks.UI_POINTS], row[ks.UI_NB] = unit.points, len(unit.bodies)
        row[ks.UI_GENERAL], row[ks.UI_BSB] = int(unit.general), int(unit.battle_standard)
        row[ks.UI_STANDARD], row[ks.UI_NOCHARGE] = int(unit.standard), int(plan.no_charge[u])
        row[ks.UI_RANGED] = int(unit.ranged is not None)
        row[ks.UI_MOVE_OR_FIRE] = int(unit.ranged is not None and unit.ranged.move_or_fire)
        row[ks.UI_GENERAL_BODY] = plan.leader_body(u, "general")
        row[ks.UI_BSB_BODY] = plan.leader_body(u, "battle_standard")
        row[ks.UI_MACHINE] = machine_code(plan, unit)
        row[ks.UI_SIDE_INDEX] = plan.sides[unit.side].index(u)
        row[ks.UI_FRENZY] = int(p.has("Frenzy"))
        uf[u] = (unit.base[0], unit.base[1], unit.ranged.range if unit.ranged else
                 float(unit.war_machine.machine.range) if unit.fires else 0.0)
        for b, (_name, role, models, w) in enumerate(unit.bodies):
            bodies[u, b] = (models, w, int(role in ("rank and file", "champion")),
                            ROLES.index(role) if role in ROLES else ks.ROLE_MOUNT)
    width = max(len(plan.charge_table[u][0]) for u in range(n))
    ch_range, ch_move, ch_cum = (np.zeros((n, width)) for _ in range(3))
    ch_n = np.zeros(n, np.int64)
    for u in range(n):
        rolls, cum = plan.charge_table[u]
        ch_n[u] = len(rolls)
        for k, ((reach, move), c) in enumerate(zip(rolls, cum, strict=True)):
            ch_range[u, k], ch_move[u, k], ch_cum[u, k] = reach, move, c
    fwidth = max(len(plan.flee_pmf[u][0]) for u in range(n))
    fl_val = np.zeros((n, fwidth), np.int64)
    fl_cum = np.zeros((n, fwidth))
    fl_n = np.zeros(n, np.int64)
    for u in range(n):
        values, cum = plan.flee_pmf[u]
        fl_n[u] = len(values)
        fl_val[u, : len(values)] = values
        fl_cum[u, : len(cum)] = cum
    sides = np.full((2, n), -1, np.int64)
    nside = np.array([len(plan.sides[0]), len(plan.sides[1])], np.int64)
    for s in (0, 1):
        sides[s, : nside[s]] = plan.sides[s]
    ri = np.zeros(ks.NRI, np.int64)
    mods = rules.shooting_modifiers
    ri[ks.R_INSANE] = int(rules.insane_courage)
    ri[ks.R_RALLY_DOUBLE_ONE] = int(rules.combat.rally_below_quarter_needs_double_one)
    ri[ks.R_RESTRAIN_TEST] = int(rules.battle.restrain_test)  # FB-B7
    ri[ks.R_GENERAL_ON] = int(rules.combat.general_range)
    ri[ks.R_BSB_ON] = int(rules.combat.battle_standard_reroll)
    ri[ks.R_SAS_MOVEMENT] = int(rules.combat.stand_and_shoot_min_distance == "movement")
    ri[ks.R_SHOOT_RANKS], ri[ks.R_MARCH_MULT] = br.shooting_ranks, br.march_multiplier
    ri[ks.R_TURNS] = plan.turns
    ri[ks.R_FIRST] = {"a": 0, "b": 1, "roll-off": 2}[plan.first]
    ri[ks.R_POLICY_A], ri[ks.R_POLICY_B] = (_policy_code(p, ks) for p in plan.policies)
    ri[ks.R_ROLLOUTS] = rollouts_of(plan)
    from mathhammer.fantasy.battle.magic import MAGIC_KINDS

    kinds = KINDS + MAGIC_KINDS  # bit k: kind k (the magic kinds after the kernel's NKINDS)
    ri[ks.R_BR_KINDS] = sum(1 << kinds.index(k) for p in plan.policies
                            for k in getattr(p, "kinds", ()))
    ri[ks.R_HALF_FAILED] = int(rules.combat.failed_charge_moves != "highest_die")
    ri[ks.R_MOD_LONG], ri[ks.R_MOD_MOVING] = mods.long_range, mods.moving
    ri[ks.R_MOD_SAS], ri[ks.R_MOD_SOFT], ri[ks.R_MOD_HARD] = (mods.stand_and_shoot,
                                                             mods.soft_cover, mods.hard_cover)
    ri[ks.R_MOD_LARGE] = rules.large_target_modifier
    ri[ks.R_MAX_MARGIN] = plan.max_margin
    ri[ks.R_STANDARD_BONUS], ri[ks.R_GENERAL_BONUS] = br.standard_bonus, br.general_bonus
    ri[ks.R_BSB_BONUS] = br.battle_standard_bonus
    from mathhammer.fantasy.battle.values import BUCKETS

    ri[ks.R_BUCKETS], ri[ks.R_N_UNITS] = BUCKETS, n
    rf = np.zeros(ks.NRF)
    rf[ks.F_TABLE_W], rf[ks.F_TABLE_D] = br.table_width, br.table_depth
    rf[ks.F_MARCH_BLOCK], rf[ks.F_GENERAL_RANGE] = br.march_block, br.general_range
    rf[ks.F_BSB_RANGE], rf[ks.F_PANIC] = br.battle_standard_range, rules.combat.panic_fraction
    rf[ks.F_DESTROYED], rf[ks.F_FLEEING_END] = br.destroyed, br.fleeing_at_end
    rf[ks.F_BELOW_QUARTER] = br.below_quarter
    rf[ks.F_DRAW_LIMIT] = draw_limit(plan)
    rf[ks.F_FRIEND_PANIC] = rules.combat.friend_panic_range  # FB-B21
    terrain = np.zeros((len(plan.deployment.terrain), 6))
    for i, piece in enumerate(plan.deployment.terrain):
        terrain[i] = (piece.x, piece.y, piece.width, piece.depth, float(piece.blocks_sight),
                      {"none": 0, "soft": 1, "hard": 2}[piece.cover])
    orders = _orders(plan, ks)
    kinds = KINDS
    vocab = np.full((n, ks.NKINDS), np.iinfo(np.int64).max, np.int64)
    for (_side, kind, u, _label), index in plan.vocabulary.items():  # each block's first slot
        if kind not in kinds:
            continue  # FB-B12: the magic phase's decisions have their own lookup (magic.py)
        k = kinds.index(kind)
        vocab[u, k] = min(vocab[u, k], index)
    return (ui, uf, bodies, ch_range, ch_move, ch_cum, ch_n, fl_val, fl_cum, fl_n, sides, nside,
            ri, rf, terrain, orders, vocab)


def machine_code(plan, unit) -> int:
    """UI_MACHINE: 0 not a war machine, 1 one, 2 one whose piece rolls to hit (FB-WM2)."""
    from mathhammer.errors import InputError
    from mathhammer.fantasy.artillery.shot import uses_to_hit

    if unit.war_machine is None:
        return 0
    if unit.fires is not None:
        big = [u for u in plan.units if u.side != unit.side and u.bodies[0][2] > 255]
        if big:  # kernels.battle_actions.shot_code keeps the models left in 8 bits
            raise InputError(f"unit {big[0].label}", "has more than 255 rank and file; the "
                             "battle engine's war machine tables take 255", big[0].bodies[0][2],
                             "split it into two units")
        return 2 if uses_to_hit(unit.fires, plan.rules) else 1
    return 1


def _policy_code(policy, ks) -> int:
    return {"scripted": ks.SCRIPTED, "greedy": ks.GREEDY,
            "best-response": ks.BEST_RESPONSE}[policy.name]


def _orders(plan, ks) -> np.ndarray:
    labels = {(u.side, u.label): u.index for u in plan.units}
    out = np.zeros((len(plan.units), ks.NORDERS), np.int64)
    for u, unit in enumerate(plan.units):
        given = plan.deployment.orders[u]
        enemy = 1 - unit.side

        def target(key, default):
            value = given.get(key, default)
            if value in ("any", "nearest"):
                return ks.ANY
            if value == "none":
                return ks.NONE
            return labels[(enemy, value)]

        out[u, ks.O_CHARGE] = target("charge", "any")
        out[u, ks.O_REACTION] = ("hold", "flee", "stand-and-shoot").index(
            given.get("reaction", "hold"))
        out[u, ks.O_MOVE] = ("advance", "hold", "retreat").index(given.get("move", "advance"))
        out[u, ks.O_SHOOT] = target("shoot", "nearest")
        out[u, ks.O_PURSUE] = int(given.get("pursue", True))
        out[u, ks.O_CHALLENGE], out[u, ks.O_ANSWER] = _challenge_orders(plan, u, given, ks)
    return out


def _challenge_orders(plan, u: int, given: dict, ks) -> tuple[int, int]:
    """FB-B20: none / any / the slot (1 + k) of the named model among the able ones."""
    from mathhammer.fantasy.battle.challenges import able_bodies

    name = given.get("challenge", "none")
    if name in ("none", "any"):
        code = ks.NONE if name == "none" else ks.ANY
    else:
        names = [plan.units[u].bodies[b][0] for b in able_bodies(plan, u)]
        code = 1 + names.index(name)
    return code, int(given.get("answer", "accept") == "refuse")


def deployment_arrays(plan) -> tuple:
    """The battle's start: positions, the contacts of units placed touching, their first
    round (the Python state's own :func:`~mathhammer.fantasy.battle.state.start_contacts`)."""
    import random

    from mathhammer.fantasy.battle.state import BattleState

    start = BattleState(plan, random.Random(0), np.zeros(8, np.uint64))
    n = len(plan.units)
    pos0 = np.array(plan.deployment.positions, np.float64).reshape(n, 3)
    contact0 = np.full((n, 3), -1, np.int64)
    fresh0 = np.zeros(n, np.int64)
    for u, c in enumerate(start.contact):
        if c is not None:
            contact0[u] = c
        fresh0[u] = int(start.fresh[u])
    contact0[contact0[:, 0] < 0, 1:] = 0
    return pos0, contact0, fresh0


def rollouts_of(plan) -> int:
    """Rollouts per option of the plan's best-responding side (1: none)."""
    return max(getattr(p, "rollouts", 1) for p in plan.policies)


def scratch(plan, ks) -> tuple:
    from mathhammer.fantasy.kernels.battle_state import MAXOPT, new_state
    from mathhammer.fantasy.kernels.battle_values import ENEMY_ITEMS

    n = len(plan.units)
    rollouts = rollouts_of(plan)
    return (np.zeros((4, 2)), np.zeros((4, 2)), np.zeros(7), np.zeros(7), np.zeros(7),
            np.zeros((MAXOPT, 6), np.int64), np.zeros((MAXOPT, 2)), np.zeros(MAXOPT),
            np.full(64, -1, np.int64), np.zeros(len(plan.vocabulary), np.int64),
            np.zeros((MAXOPT, 6), np.int64), np.zeros((MAXOPT, 2)), new_state(n, plan.turns),
            np.zeros(4, np.int64), np.zeros((2, 52)),
            np.zeros(4, np.int64), np.full((ks.MAXQ, 64), -1, np.int64),
            np.zeros(16, np.uint64), np.full((MAXOPT, rollouts), np.nan),
            np.zeros(max(ROUND_SCRATCH, 64), np.int64),  # a combat's units fit before any fight
            np.zeros(n * ENEMY_ITEMS))


def isfinite(x: float) -> bool:
    return math.isfinite(x)
