"""In-kernel random numbers (``mathhammer/kernels/dice.py``) and the roll samplers.

* xoshiro256** against published reference outputs and a pure-Python model;
* the d6 digit extraction against a pure-Python model of the documented method;
* chi-square uniformity of d6, of consecutive d6 pairs, of ``below`` and ``die``;
* ``below`` is unbiased where plain modulo or multiply-shift would not be;
* ``.py_func`` and jitted kernels agree on the same state;
* every sampler kind of ``roll`` (table / search / program) against the exact pmf.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from tests import stats

from mathhammer import kernels
from mathhammer.dice import parse_dice
from mathhammer.engine import MonteCarloConfig
from mathhammer.rng import chunk_state
from mathhammer.roll import roll

dice = kernels.load("mathhammer.kernels.dice")
rolls = kernels.load("mathhammer.kernels.rolls")

MASK64 = (1 << 64) - 1
P_MIN = 1e-6  # chi-square acceptance: a correct generator fails one test in a million


# ---------------------------------------------------------------------------------
# Pure-Python reference models (share no code with the kernels)


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64


class Xoshiro:
    """xoshiro256** (Blackman & Vigna 2018), straight from the paper's C code."""

    def __init__(self, words):
        self.s = [int(w) for w in words]

    def next(self) -> int:
        s = self.s
        result = (_rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result


def reference_d6(gen: Xoshiro, n: int) -> list[int]:
    """Base-6 digits of a Lemire-accepted draw in [0, 6^8) from each 32-bit half."""
    out: list[int] = []
    block, threshold = 6**8, (2**32 - 6**8) % 6**8
    while len(out) < n:
        word = gen.next()
        for half in (word >> 32, word & 0xFFFFFFFF):
            m = half * block
            if m & 0xFFFFFFFF >= threshold:
                value = m >> 32
                for _ in range(8):
                    out.append(value % 6 + 1)
                    value //= 6
                break  # the second half is only used when the first is rejected
    return out[:n]


def _state(words) -> np.ndarray:
    st = np.zeros(8, dtype=np.uint64)
    st[:4] = np.array(words, dtype=np.uint64)
    return st


# ---------------------------------------------------------------------------------
# Known answers


def test_xoshiro_reference_vector():
    """Outputs for state {1, 2, 3, 4} as published with the reference implementation
    (11520 = rotl(2*5, 7)*9 can be checked by hand)."""
    expected = [11520, 0, 1509978240, 1215971899390074240, 1216172134540287360,
                607988272756665600]
    out = np.zeros(len(expected), dtype=np.uint64)
    dice.fill_u64(_state([1, 2, 3, 4]), out)
    assert [int(x) for x in out] == expected
    gen = Xoshiro([1, 2, 3, 4])
    assert [gen.next() for _ in expected] == expected


@pytest.mark.parametrize("seed, chunk", [(0, 0), (1, 3), (2**63 - 1, 4095)])
def test_xoshiro_matches_python_model_on_engine_states(seed, chunk):
    st = chunk_state(seed, chunk)
    gen = Xoshiro(st[:4])
    out = np.zeros(2000, dtype=np.uint64)
    dice.fill_u64(st, out)
    assert [int(x) for x in out] == [gen.next() for _ in range(2000)]
    assert [int(x) for x in st[:4]] == gen.s  # the state advanced identically


def test_d6_matches_python_model_of_digit_extraction():
    st = chunk_state(7, 0)
    gen = Xoshiro(st[:4])
    out = np.zeros(5000, dtype=np.int64)
    dice.fill_d6(st, out)
    assert out.tolist() == reference_d6(gen, 5000)


# ---------------------------------------------------------------------------------
# Uniformity


def test_d6_chi_square_faces_and_pairs():
    """N = 6e6 dice. Faces: chi-square over 6 cells; a face off by 0.5% of 1/6
    (≈ 5 se) is detected. Pairs: 3e6 consecutive pairs over 36 cells catch
    dependence between digits of one block."""
    out = np.zeros(6_000_000, dtype=np.int64)
    dice.fill_d6(chunk_state(11, 0), out)
    faces = np.bincount(out, minlength=7)[1:]
    assert faces.sum() == len(out) and out.min() == 1 and out.max() == 6
    assert stats.chisquare(faces).pvalue > P_MIN
    pairs = np.bincount((out[0::2] - 1) * 6 + (out[1::2] - 1), minlength=36)
    assert stats.chisquare(pairs).pvalue > P_MIN
    # digit positions inside a block of 8 must be uniform too
    for pos in range(8):
        assert stats.chisquare(np.bincount(out[pos::8], minlength=7)[1:]).pvalue > P_MIN


@pytest.mark.parametrize("bound", [1, 2, 3, 5, 6, 7, 10, 1000])
def test_below_chi_square(bound):
    """N = 1e6 draws in [0, bound)."""
    out = np.zeros(1_000_000, dtype=np.int64)
    dice.fill_below(chunk_state(5, bound), np.int64(bound), out)
    assert out.min() >= 0 and out.max() < bound
    if bound == 1:
        assert not out.any()
        return
    assert stats.chisquare(np.bincount(out, minlength=bound)).pvalue > P_MIN


@pytest.mark.parametrize("bound", [3 * 2**30, 2**31 + 2**30 + 12345, 2**32])
def test_below_is_unbiased_for_large_bounds(bound):
    """Plain ``x % bound`` of a 32-bit x (or multiply-shift without rejection) puts
    about half of the mass below 2^30 for bound = 3·2^30; unbiased is 2^30/bound.
    N = 1e6: se ≈ 4.7e-4, so a bias of 2.4e-3 (5 se) is detected; modulo's is 0.17."""
    n = 1_000_000
    out = np.zeros(n, dtype=np.int64)
    dice.fill_below(chunk_state(9, 0), np.int64(bound), out)
    assert out.min() >= 0 and out.max() < bound
    p = 2**30 / bound
    se = np.sqrt(p * (1 - p) / n)
    assert abs(np.mean(out < 2**30) - p) < 5 * se
    # and the top of the range is reached as often as it should be
    q = 1 - (bound - 2**28) / bound
    assert abs(np.mean(out >= bound - 2**28) - q) < 5 * np.sqrt(q * (1 - q) / n)


@pytest.mark.parametrize("sides", [2, 3, 4, 6, 8, 10, 12, 20, 100])
def test_die_chi_square(sides):
    out = np.zeros(600_000, dtype=np.int64)
    dice.fill_die(chunk_state(3, sides), np.int64(sides), out)
    assert out.min() == 1 and out.max() == sides
    assert stats.chisquare(np.bincount(out, minlength=sides + 1)[1:]).pvalue > P_MIN


def test_d3_is_the_mapped_d6_of_the_same_stream():
    """DICE-1: d3 consumes one d6 and maps 1-2→1, 3-4→2, 5-6→3."""
    a, b = chunk_state(4, 0), chunk_state(4, 0)
    sixes = np.zeros(3000, dtype=np.int64)
    dice.fill_d6(b, sixes)
    threes = [dice.d3(a) for _ in range(3000)]
    assert threes == ((sixes + 1) // 2).tolist()


def test_sum_d6_equals_separate_dice():
    a, b = chunk_state(8, 0), chunk_state(8, 0)
    singles = np.zeros(30, dtype=np.int64)
    dice.fill_d6(b, singles)
    assert [dice.sum_d6(a, 3) for _ in range(10)] == singles.reshape(10, 3).sum(axis=1).tolist()


# ---------------------------------------------------------------------------------
# py_func vs jitted


def test_py_func_and_jitted_agree_on_the_same_state():
    a, b = chunk_state(21, 2), chunk_state(21, 2)
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore")
        for _ in range(50):
            assert dice.next_u64.py_func(a) == dice.next_u64(b)
        for _ in range(200):
            assert dice.d6.py_func(a) == dice.d6(b)
        for bound in (2, 7, 1000, 2**32):
            assert dice.below.py_func(a, bound) == dice.below(b, np.int64(bound))
        assert np.array_equal(a, b)
        program = parse_dice("3D6kh2*D3-2D20+D6").sampler().program
        stack, buf = np.zeros(len(program) + 1, np.int64), np.zeros(256, np.int64)
        stack2, buf2 = stack.copy(), buf.copy()
        for _ in range(50):
            assert rolls.eval_program.py_func(program, a, stack, buf) == \
                rolls.eval_program(program, b, stack2, buf2)
    assert np.array_equal(a, b)


# ---------------------------------------------------------------------------------
# roll samplers vs exact


def _chi_square_vs_exact(counts: np.ndarray, probs: np.ndarray) -> float:
    """Chi-square p-value with tail cells pooled until each expects ≥ 20."""
    n = counts.sum()
    exp = probs * n
    obs_cells, exp_cells = [], []
    acc_o = acc_e = 0.0
    for o, e in zip(counts, exp):
        acc_o += o
        acc_e += e
        if acc_e >= 20:
            obs_cells.append(acc_o)
            exp_cells.append(acc_e)
            acc_o = acc_e = 0.0
    obs_cells[-1] += acc_o
    exp_cells[-1] += acc_e
    return float(stats.chisquare(obs_cells, exp_cells).pvalue)


@pytest.mark.parametrize(
    "text, kind, at_least",
    [("2D6+3", "table", 10), ("D6*4-D3", "table", 12), ("9D6", "search", 35),
     ("4D6kl3+2D20", "search", 30), ("13D6", "program", 50),
     ("3D6kh2*D3+11D6", "program", 60), ("-(2D6kl1)+12D6", "program", 40)],
)
def test_roll_sampler_matches_exact(text, kind, at_least):
    """N = 400 000 trials per sampler. Whole pmf: chi-square p > 1e-6; P(≥k): within
    5 se computed from the exact p before the run (detects ~0.4 percentage points
    at p ≈ 0.5)."""
    expr = parse_dice(text)
    assert expr.sampler().kind == kind
    n = 400_000
    p = float(expr.probability_at_least(at_least))
    tolerance = 5 * np.sqrt(p * (1 - p) / n)
    report = roll(expr, at_least=at_least, method="mc",
                  config=MonteCarloConfig(n_trials=n, seed=2024, threads=1))
    dist = report.distributions["roll"]
    counts = dist.aligned(expr.min, expr.max) * n
    assert counts.sum() == pytest.approx(n)
    assert _chi_square_vs_exact(np.rint(counts), expr.probs) > P_MIN
    assert abs(report.results["p_at_least"].value - p) < tolerance


# ---------------------------------------------------------------------------------
# roll_table: several exact draws per random word


def reference_table_indices(gen: Xoshiro, m: int, n: int) -> list[int]:
    """Both 32-bit halves; an accepted half gives k base-m digits of its Lemire draw."""
    block = m
    while block * m <= 1 << 21:
        block *= m
    k = round(np.log(block) / np.log(m))
    threshold = (2**32 - block) % block
    out: list[int] = []
    while len(out) < n:
        word = gen.next()
        for half in (word >> 32, word & 0xFFFFFFFF):
            if (half * block) & 0xFFFFFFFF < threshold:
                continue
            value = (half * block) >> 32  # Lemire's draw in [0, m^k), digits high to low
            digits = [(value // m**j) % m for j in reversed(range(k))]
            out.extend(digits[: n - len(out)])
    return out


@pytest.mark.parametrize("m", [2, 3, 36, 216, 1296, 46656, 65536])
def test_roll_table_matches_its_python_model_and_is_uniform(m):
    """The kernel's histogram equals the reference model's (20 000 draws), and 1e6 draws
    pass chi-square over m cells (≥ 15 expected per cell); the model's consecutive pairs
    pass too for small m (digits of one accepted draw must be independent)."""
    table = np.arange(m, dtype=np.int64)
    st = chunk_state(21, m)
    model = reference_table_indices(Xoshiro(st[:4]), m, 20_000)
    hist = np.zeros(m, dtype=np.int64)
    rolls.roll_table(table, np.int64(0), st, np.int64(20_000), hist)
    assert hist.tolist() == np.bincount(model, minlength=m).tolist()
    hist = np.zeros(m, dtype=np.int64)
    rolls.roll_table(table, np.int64(0), chunk_state(22, m), np.int64(1_000_000), hist)
    assert hist.sum() == 1_000_000 and stats.chisquare(hist).pvalue > P_MIN
    if m <= 216:
        seq = np.array(reference_table_indices(Xoshiro(chunk_state(23, m)[:4]), m, 400_000))
        pairs = np.bincount(seq[0::2] * m + seq[1::2], minlength=m * m)
        assert stats.chisquare(pairs).pvalue > P_MIN
