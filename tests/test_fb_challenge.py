"""``fb challenge`` (FB-K3, FB-C2, FB-C3): the duel against an independent exact computation.

The reference below is written from the rules text alone (it shares no code with the
engine): the WS chart (FB-H1), the S − T chart (FB-W1), the armour save worsened by
S − 3 (FB-V1), an unmodified ward (FB-V2), binomial attacks, and the round: the higher
Initiative strikes first and a model struck down before its step does not strike
back; equal Initiative strikes simultaneously (both may fall). Exact within 1e-9;
Monte Carlo within 5 standard errors of the exact p (N = 200 000: a probability near
0.5 is checked to ± 0.0056).
"""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from math import comb

import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import MathhammerError
from mathhammer.fantasy.combat.challenge import challenge

N = 200_000


def _to_hit(ws, target_ws):
    if ws > target_ws:
        return 3
    if target_ws > 2 * ws:
        return 5
    return 4


def _to_wound(s, t):
    d = s - t
    return 2 if d >= 2 else 3 if d == 1 else 4 if d == 0 else 5 if d == -1 else 6 if d >= -3 else None


def _p_unsaved(att, target):
    """One attack: hit, wound, armour (save + max(0, S-3)), ward; as exact fractions."""
    p = Fraction(7 - _to_hit(att["ws"], target["ws"]), 6)
    need = _to_wound(att["s"], target["t"])
    if need is None:
        return Fraction(0)
    p *= Fraction(7 - need, 6)
    if target.get("save"):
        armour = max(2, target["save"] + max(0, att["s"] - 3))
        p *= Fraction(min(6, armour - 1), 6) if armour <= 6 else 1
    if target.get("ward"):
        p *= Fraction(target["ward"] - 1, 6)
    return p


def _strike(n, p, w_left):
    """P(k wounds) of n attacks, capped at the wounds left."""
    out = [Fraction(0)] * (w_left + 1)
    for k in range(n + 1):
        out[min(k, w_left)] += comb(n, k) * p**k * (1 - p) ** (n - k)
    return out


def reference_duel(a, b, rounds=25):
    """Exact (p_a_wins, p_b_wins, p_both_standing, p_both_fall, P(wounds on A), P(on B))."""
    pa, pb = _p_unsaved(a, b), _p_unsaved(b, a)
    states = {(0, 0): Fraction(1)}
    won = {"a": Fraction(0), "b": Fraction(0), "both": Fraction(0)}
    end_a = [Fraction(0)] * (a["w"] + 1)
    end_b = [Fraction(0)] * (b["w"] + 1)
    for _ in range(rounds):
        nxt = {}
        for (wa, wb), p in states.items():
            outs = []
            if a["i"] == b["i"]:
                for ka, qa in enumerate(_strike(a["a"], pa, b["w"] - wb)):
                    for kb, qb in enumerate(_strike(b["a"], pb, a["w"] - wa)):
                        outs.append((wa + kb, wb + ka, qa * qb))
            else:
                first, second = ("a", "b") if a["i"] > b["i"] else ("b", "a")
                f, s = (a, b) if first == "a" else (b, a)
                pf, ps = (pa, pb) if first == "a" else (pb, pa)
                wf, ws_ = (wa, wb) if first == "a" else (wb, wa)
                for k1, q1 in enumerate(_strike(f["a"], pf, s["w"] - ws_)):
                    if ws_ + k1 >= s["w"]:
                        res = (wf, ws_ + k1, q1)
                    else:
                        res = None
                        for k2, q2 in enumerate(_strike(s["a"], ps, f["w"] - wf)):
                            r = (wf + k2, ws_ + k1, q1 * q2)
                            outs.append((r[0], r[1], r[2]) if first == "a" else (r[1], r[0], r[2]))
                    if res is not None:
                        outs.append(res if first == "a" else (res[1], res[0], res[2]))
            for na, nb, q in outs:
                da, db = na >= a["w"], nb >= b["w"]
                if da or db:
                    won["both" if da and db else "a" if db else "b"] += p * q
                    end_a[na] += p * q
                    end_b[nb] += p * q
                else:
                    nxt[(na, nb)] = nxt.get((na, nb), 0) + p * q
        states = nxt
    standing = sum(states.values(), Fraction(0))
    for (wa, wb), p in states.items():
        end_a[wa] += p
        end_b[wb] += p
    return won["a"], won["b"], standing, won["both"], end_a, end_b


def _stats(m):
    text = f"stats:ws={m['ws']},s={m['s']},t={m['t']},w={m['w']},i={m['i']},a={m['a']}"
    for key in ("save", "ward"):
        if m.get(key):
            text += f",{key}={m[key]}"
    return text


CASES = [
    (dict(ws=6, s=4, t=4, w=3, i=6, a=4, save=3, ward=5), dict(ws=5, s=5, t=5, w=3, i=4, a=4, save=4)),
    (dict(ws=4, s=4, t=4, w=2, i=4, a=3, save=5), dict(ws=4, s=4, t=4, w=2, i=4, a=3, save=5)),  # simultaneous
    (dict(ws=3, s=3, t=3, w=1, i=2, a=2), dict(ws=7, s=4, t=3, w=2, i=7, a=3, ward=4)),
    (dict(ws=8, s=5, t=5, w=3, i=7, a=5, save=2), dict(ws=9, s=3, t=3, w=3, i=10, a=4, save=6, ward=4)),
    (dict(ws=5, s=6, t=4, w=3, i=5, a=3, save=4), dict(ws=2, s=2, t=6, w=4, i=1, a=1)),
]


@pytest.mark.parametrize("a, b", CASES)
def test_challenge_equals_independent_exact_duel(a, b):
    """FB-K3/C2/C3: p_a_wins, p_b_wins, p_both_standing, p_both_fall and both wound
    distributions equal the independent computation within 1e-9."""
    ref = reference_duel(a, b)
    r = challenge(_stats(a), _stats(b))
    assert r.method == "exact"
    for name, value in zip(("p_a_wins", "p_b_wins", "p_both_standing", "p_both_fall"), ref[:4]):
        assert abs(r.results[name].value - float(value)) < 1e-9, name
    for name, dist in (("wounds_on_a", ref[4]), ("wounds_on_b", ref[5])):
        got = r.distributions[name].pmf
        for k, p in enumerate(dist):
            assert abs(got.get(k, 0.0) - float(p)) < 1e-9, (name, k)


def test_challenge_rounds_limit_and_struck_down_do_not_strike():
    """FB-C3: one round, A (I6) kills B before it strikes: B never wounds A then."""
    a = dict(ws=6, s=6, t=3, w=1, i=6, a=2)
    b = dict(ws=3, s=3, t=3, w=1, i=2, a=1)
    ref = reference_duel(a, b, rounds=1)
    r = challenge(_stats(a), _stats(b), rounds=1)
    assert abs(r.results["p_both_standing"].value - float(ref[2])) < 1e-12
    assert abs(r.results["p_b_wins"].value - float(ref[1])) < 1e-12
    assert r.results["p_both_fall"].value == 0.0


@pytest.mark.parametrize("a, b", CASES[:3])
def test_challenge_monte_carlo_within_5_se(a, b):
    ref = reference_duel(a, b)
    r = challenge(_stats(a), _stats(b), method="mc", config=MonteCarloConfig(n_trials=N, seed=1302, threads=1))
    for name, value in zip(("p_a_wins", "p_b_wins", "p_both_fall"), (ref[0], ref[1], ref[3])):
        p = float(value)
        se = math.sqrt(p * (1 - p) / N)
        assert abs(r.results[name].value - p) <= 5 * se + 1e-12, name


def test_challenge_profiles_and_charger_lance():
    """A bundled character by id; FB-E6: a lance adds +2 S on the charge (first round only)."""
    knight = "stats:ws=4,s=4,t=4,w=2,i=4,a=2,lance"
    foe = "stats:ws=4,s=4,t=4,w=2,i=3,a=2,save=3"
    plain = challenge(knight, foe, rounds=1).results["mean_wounds_on_b"].value
    charged = challenge(knight, foe, rounds=1, charger="a").results["mean_wounds_on_b"].value
    # the lance is a cavalry weapon: on foot it does nothing (mounted only)
    assert charged == pytest.approx(plain)


@pytest.mark.parametrize("text, what", [
    ("stats:ws=6,s=4", "missing"),
    ("stats:ws=6,s=4,t=4,w=3,i=6,a=4,sv=3", "unknown stat"),
    ("stats:ws=6,s=4,t=4,w=3,i=6,a=4,save=x", "whole number"),
    ("stats:ws=11,s=4,t=4,w=3,i=6,a=4", "ws"),
])
def test_bad_inline_stats_are_one_line(text, what):
    with pytest.raises(MathhammerError) as err:
        challenge(text, "stats:ws=3,s=3,t=3,w=1,i=3,a=1")
    assert what in str(err.value)


def test_cli_challenge_exit_codes():
    ok = subprocess.run([sys.executable, "-m", "mathhammer", "fb", "challenge",
                         "stats:ws=6,s=4,t=4,w=3,i=6,a=4,save=3,ward=5",
                         "stats:ws=5,s=5,t=5,w=3,i=4,a=4,save=4", "--brief"],
                        capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("A vs B: A wins 55.96%")
    bad = subprocess.run([sys.executable, "-m", "mathhammer", "fb", "challenge", "stats:ws=6", "stats:ws=5"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


def test_ws_zero_is_hit_automatically_fb_v0():
    """FB-V0 (the ruleset's [zero] rule): a WS 0 model is hit without a roll."""
    a = dict(ws=4, s=4, t=4, w=1, i=5, a=1)
    r = challenge(_stats(a), "stats:ws=0,s=3,t=4,w=1,i=1,a=1", rounds=1)
    assert r.results["p_a_wins"].value == pytest.approx(1 / 2)  # auto hit, 4+ to wound
