"""Exact close combat (FB-C1..C7) for units small enough to enumerate.

A Markov chain over (wounds on A, wounds on B) between rounds; inside a round a
dynamic programme over the strike steps: at each step the attacking models follow
from the casualties so far (FB-C3) and each group's wounds are the exact N-attack
chain of :func:`mathhammer.fantasy.chain.chain_distribution`. After a round the
combat score, break test, instability and pursuit use the same jitted helpers and
the same probability tables as the Monte Carlo kernel, so the two engines differ
only in sampling.

Limits: a Killing Blow against W > 1 models makes the N-attack chain depend on the
wounds already on the unit, so such combats are Monte Carlo only; rounds after the
first need (A's wounds + 1) × (B's wounds + 1) ≤ :data:`MAX_STATES`.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

import numpy as np

from mathhammer.errors import InputError
from mathhammer.fantasy.chain import chain_distribution
from mathhammer.results import Estimate

MAX_STATES = 1200  # start states of a later round; beyond this Monte Carlo is faster


def exact_available(c, rounds: int = 1) -> str | None:
    """None when the exact engine applies, else the reason it does not."""
    for g in c.groups:
        w = c.sides[1 - g.side].unit.wounds
        if w > 1 and (g.outcomes[0][-1] > 0 or g.outcomes[1][-1] > 0):
            return "a Killing Blow against multi-wound models"
    if rounds > 1:
        sizes = [s.unit.formation.models * s.unit.wounds + 1 for s in c.sides]
        if sizes[0] * sizes[1] > MAX_STATES:
            return f"{rounds} rounds of units this large (exact: one round, or smaller units)"
    return None


def combat_exact(c, rounds: int, title: str):
    """The exact report of up to ``rounds`` rounds."""
    from mathhammer import kernels
    from mathhammer.fantasy.combat import (
        _break_tables, _hist_sizes, _instability_table, _report, side_ints,
    )

    reason = exact_available(c, rounds)
    if reason is not None:
        raise InputError("--method", f"exact is not available for {reason}", "exact",
                         "use --method mc")
    k = kernels.load("combat")
    si = side_ints(c)
    p_pass, p_caught = _break_tables(c)
    p_instab = _instability_table()
    caps = [int(si[s, k.S_MODELS] * si[s, k.S_W]) for s in (0, 1)]

    @lru_cache(maxsize=None)
    def group_wounds(j: int, r: int, n_attacks: int) -> np.ndarray:
        g = c.groups[j]
        out = g.outcomes[r]
        return chain_distribution(out[:-1], float(out[-1]), {n_attacks: 1.0},
                                  int(si[1 - g.side, k.S_W]))

    def alive(s: int, wounds: int) -> int:
        return int(k.alive(si[s, k.S_MODELS], si[s, k.S_W], wounds))

    def fight(start: tuple[int, int], r: int) -> dict[tuple[int, int], float]:
        """Distribution of (wounds on A, wounds on B) after one round's strikes."""
        alive0 = (alive(0, start[0]), alive(1, start[1]))
        states: dict[tuple[int, int], float] = {start: 1.0}
        for key in sorted({g.key[r] for g in c.groups}, reverse=True):
            nxt: dict[tuple[int, int], float] = defaultdict(float)
            for wounds, p in states.items():
                added = []
                for target in (0, 1):
                    dist = np.ones(1)
                    s = 1 - target
                    slain_now = alive0[s] - alive(s, wounds[s])
                    for j, g in enumerate(c.groups):
                        if g.key[r] != key or g.side != s:
                            continue
                        n = int(k.attackers(g.kind, alive0[s], slain_now, si[s, k.S_WIDTH],
                                            si[s, k.S_CONTACT], si[s, k.S_SUPPORT_RANKS],
                                            si[s, k.S_CHAMPION]))
                        if n:
                            dist = np.convolve(dist, group_wounds(j, r, n * g.attacks[r]))
                    room = caps[target] - wounds[target]
                    if len(dist) > room + 1:  # wounds beyond the unit are lost
                        dist = np.concatenate([dist[:room], [dist[room:].sum()]])
                    added.append(dist)
                for i, pa in enumerate(added[0]):
                    if pa:
                        for j2, pb in enumerate(added[1]):
                            if pb:
                                nxt[(wounds[0] + i, wounds[1] + j2)] += p * pa * pb
            states = nxt
        return states

    sizes = _hist_sizes(c, rounds)
    hists = {name: np.zeros(size) for name, size in sizes.items()}
    counters = np.zeros(k.N_COUNTERS)
    cr_sum = 0.0

    def settle(p: float, wa: int, wb: int, broke: int, p_caught_now: float, rnd: int) -> None:
        """Book one end state (probability p): outcome flags and histograms."""
        left = [alive(0, wa), alive(1, wb)]
        hists["rounds"][rnd] += p
        for caught, q in ((1, p * p_caught_now), (0, p * (1 - p_caught_now))):
            if q == 0.0:
                continue
            dead = [left[0] == 0 or (broke == 0 and caught), left[1] == 0 or (broke == 1 and caught)]
            out = [dead[0] or broke == 0, dead[1] or broke == 1]
            if broke == 1:
                counters[k.C_B_BROKE] += q
                counters[k.C_B_CAUGHT] += q * caught
            elif broke == 0:
                counters[k.C_A_BROKE] += q
                counters[k.C_A_CAUGHT] += q * caught
            counters[k.C_A_DESTROYED] += q * dead[0]
            counters[k.C_B_DESTROYED] += q * dead[1]
            slot = k.C_WIN if out[1] and not out[0] else k.C_LOSE if out[0] and not out[1] else k.C_DRAW
            counters[slot] += q
            hists["wounds_dealt"][wb] += q
            hists["wounds_taken"][wa] += q
            hists["models_left_a"][0 if dead[0] else left[0]] += q
            hists["models_left_b"][0 if dead[1] else left[1]] += q

    going: dict[tuple[int, int], float] = {(0, 0): 1.0}
    for rnd in range(1, rounds + 1):
        r = 0 if rnd == 1 else 1
        last = rnd == rounds
        after: dict[tuple[int, int], float] = defaultdict(float)
        carry = settle if last else (lambda p, wa, wb, *_: after.__setitem__((wa, wb), after[(wa, wb)] + p))
        for start, p_start in going.items():
            for (wa, wb), p_fight in fight(start, r).items():
                p = p_start * p_fight
                wounds = [wa, wb]
                left = [alive(0, wa), alive(1, wb)]
                score = [int(k.combat_score(wounds[1 - s] - start[1 - s], left[s], si[s, k.S_WIDTH],
                                            si[s, k.S_RANK_MIN], si[s, k.S_MAX_RANK_BONUS],
                                            si[s, k.S_STANDARD], si[s, k.S_STATIC_CR]))
                         for s in (0, 1)]
                raw = score[0] - score[1]
                diff = raw
                if diff == 0 and si[0, k.S_MUSICIAN] != si[1, k.S_MUSICIAN]:
                    diff = 1 if si[0, k.S_MUSICIAN] > si[1, k.S_MUSICIAN] else -1
                if rnd == 1:
                    cr_sum += p * raw
                    counters[k.C_R1_WIN if diff > 0 else k.C_R1_LOSE if diff < 0 else k.C_R1_DRAW] += p
                if left[0] == 0 or left[1] == 0:
                    settle(p, wa, wb, -1, 0.0, rnd)
                    continue
                if diff == 0:
                    carry(p, wa, wb, -1, 0.0, rnd)
                    continue
                loser = 1 if diff > 0 else 0
                winner = 1 - loser
                lost_by = abs(diff)
                if si[loser, k.S_UNBREAKABLE]:
                    carry(p, wa, wb, -1, 0.0, rnd)
                elif si[loser, k.S_UNSTABLE] or si[loser, k.S_DAEMONIC]:
                    losses = ({lost_by: 1.0} if si[loser, k.S_UNSTABLE] else
                              {v: float(q) for v, q in enumerate(p_instab) if q})
                    for v, q in losses.items():
                        loss = v if si[loser, k.S_UNSTABLE] else max(0, v + lost_by - int(si[loser, k.S_LD]))
                        w2 = list(wounds)
                        w2[loser] = min(w2[loser] + loss, caps[loser])
                        if alive(loser, w2[loser]) == 0:
                            settle(p * q, w2[0], w2[1], -1, 0.0, rnd)
                        else:
                            carry(p * q, w2[0], w2[1], -1, 0.0, rnd)
                else:
                    ranks_l = k.ranks(left[loser], si[loser, k.S_WIDTH], si[loser, k.S_RANK_MIN])
                    ranks_w = k.ranks(left[winner], si[winner, k.S_WIDTH], si[winner, k.S_RANK_MIN])
                    steadfast = int(si[loser, k.S_STEADFAST_RULE] == 1 and ranks_l > ranks_w)
                    pp = float(p_pass[loser, steadfast, min(lost_by, p_pass.shape[2] - 1)])
                    carry(p * pp, wa, wb, -1, 0.0, rnd)
                    settle(p * (1 - pp), wa, wb, loser, float(p_caught[loser]), rnd)
        going = after
    return _report(c, "exact", counters, hists, None, None, rounds, Estimate.exact(cr_sum), title)
