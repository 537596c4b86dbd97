"""Dice expressions (DICE-1/2) against brute-force enumeration.

Every expression form — ``NDS``, ``D3``, ``D20``, constants, ``+``/``-``, ``*``,
``kh``/``kl`` and parentheses — is checked by enumerating every joint face
combination of every die in the expression with ``itertools.product`` and
evaluating the tree in plain Python with Fractions. Hypothesis draws random
small expressions from our own strategy (text + an independent evaluator), so the
parser, the convolution code and the keep-highest DP are all checked against an
implementation that shares no code with them.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathhammer.dice import Constant, Dice, DiceExpr, parse_dice

# ---------------------------------------------------------------------------------
# An independent model of an expression: a tree of tuples, its text, its dice.
#   ("const", v) | ("dice", count, sides, keep, highest) | ("op", sym, a, b) | ("neg", a)


def _leaves(node) -> list[tuple]:
    kind = node[0]
    if kind == "const":
        return []
    if kind == "dice":
        return [node]
    if kind == "neg":
        return _leaves(node[1])
    return _leaves(node[2]) + _leaves(node[3])


def _evaluate(node, faces_iter) -> int:
    """Evaluate the tree, taking each dice leaf's faces from ``faces_iter`` in order."""
    kind = node[0]
    if kind == "const":
        return node[1]
    if kind == "dice":
        _, count, sides, keep, highest = node
        faces = next(faces_iter)
        if sides == 3:  # DICE-1: a D3 is a d6 read 1-2→1, 3-4→2, 5-6→3
            faces = tuple((f + 1) // 2 for f in faces)
        if keep is None:
            return sum(faces)
        ordered = sorted(faces, reverse=highest)
        return sum(ordered[:keep])
    if kind == "neg":
        return -_evaluate(node[1], faces_iter)
    _, sym, a, b = node
    x = _evaluate(a, faces_iter)
    y = _evaluate(b, faces_iter)
    return x + y if sym == "+" else x - y if sym == "-" else x * y


def brute_force_pmf(node) -> dict[int, Fraction]:
    """Exact pmf by enumerating every joint face combination (itertools.product)."""
    leaves = _leaves(node)
    # D3 is rolled as a d6 and mapped, exactly as the rules say (DICE-1)
    per_leaf = [
        list(itertools.product(range(1, (6 if sides == 3 else sides) + 1), repeat=count))
        for _, count, sides, _, _ in leaves
    ]
    counts: Counter[int] = Counter()
    total = 0
    for combo in itertools.product(*per_leaf):
        counts[_evaluate(node, iter(combo))] += 1
        total += 1
    return {v: Fraction(c, total) for v, c in sorted(counts.items())}


def _space(node) -> int:
    return math.prod((6 if s == 3 else s) ** c for _, c, s, _, _ in _leaves(node))


SIDES = [2, 3, 4, 6, 8, 10, 12, 20]


@st.composite
def dice_leaf(draw):
    count = draw(st.integers(1, 3))
    sides = draw(st.sampled_from(SIDES))
    keep = draw(st.none() | st.integers(1, count))
    highest = draw(st.booleans())
    d = draw(st.sampled_from(["D", "d"]))
    lead = "" if count == 1 and draw(st.booleans()) else str(count)
    text = f"{lead}{d}{sides}"
    if keep is not None:
        text += ("kh" if highest else "kl") + str(keep)
    return ("dice", count, sides, keep, highest), text


@st.composite
def const_leaf(draw):
    v = draw(st.integers(0, 12))
    return ("const", v), str(v)


def _combine(children):
    @st.composite
    def node(draw):
        sym = draw(st.sampled_from(["+", "-", "*"]))
        (a, ta), (b, tb) = draw(children), draw(children)
        sp = draw(st.sampled_from(["", " "]))
        return ("op", sym, a, b), f"({ta}{sp}{sym}{sp}{tb})"

    @st.composite
    def neg(draw):
        a, ta = draw(children)
        return ("neg", a), f"(-{ta})"

    return node() | neg()


expressions = st.recursive(dice_leaf() | const_leaf(), _combine, max_leaves=4).filter(
    lambda nt: _space(nt[0]) <= 20_000
)


def _strip_outer(text: str) -> str:
    """Drop one pair of redundant outer parentheses (tests the unparenthesised form)."""
    if text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(text) - 1:
                return text
        return text[1:-1]
    return text


#: value spans up to this are checked at every integer k; wider ones (about 1 drawn
#: example in 1000, e.g. products of dice) at every outcome, its neighbours and the ends:
#: P(>=k) and P(<=k) only change at outcomes, and the library's per-k O(span) sum made
#: one 285,000-wide example cost 640 s (quadratic) at every integer
EVERY_K_SPAN = 4000


def _tail_points(expected) -> list[int]:
    lo, hi = min(expected), max(expected)
    if hi - lo + 1 <= EVERY_K_SPAN:
        return list(range(lo - 1, hi + 2))
    return sorted({k + d for k in expected for d in (-1, 0, 1)})


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.filter_too_much])
@given(expressions)
def test_random_expression_matches_brute_force(node_text):
    node, text = node_text
    expected = brute_force_pmf(node)
    # exact tail sums of the brute-force pmf, by running Fraction sums (the same exact
    # values as summing the pmf afresh for each k, without the quadratic cost)
    lo, hi = min(expected), max(expected)
    at_most, at_least = {}, {}
    running = Fraction(0)
    for k in range(lo - 1, hi + 2):
        running += expected.get(k, Fraction(0))
        at_most[k] = running
    running = Fraction(0)
    for k in range(hi + 1, lo - 2, -1):
        running += expected.get(k, Fraction(0))
        at_least[k] = running
    for variant in {text, _strip_outer(text)}:
        expr = parse_dice(variant)
        assert expr.pmf() == expected, variant
        assert expr.min == min(expected) and expr.max == max(expected)
        # a D3 counts as 3 equally likely outcomes (the d6 mapping is 2-to-1)
        assert expr.outcome_count == math.prod(s**c for _, c, s, _, _ in _leaves(node))
        mean = sum(k * p for k, p in expected.items())
        var = sum((k - mean) ** 2 * p for k, p in expected.items())
        assert expr.mean == pytest.approx(float(mean), rel=1e-12, abs=1e-12)
        assert expr.variance == pytest.approx(float(var), rel=1e-9, abs=1e-12)
        assert np.allclose(expr.probs, [float(expected.get(k, 0)) for k in
                                        range(expr.min, expr.max + 1)], rtol=1e-15, atol=0)
        for k in _tail_points(expected):
            assert expr.probability_at_least(k) == at_least[k]
            assert expr.probability_at_most(k) == at_most[k]


@pytest.mark.parametrize(
    "text, tree",
    [
        ("2D6", ("dice", 2, 6, None, True)),
        ("D3", ("dice", 1, 3, None, True)),
        ("D20", ("dice", 1, 20, None, True)),
        ("7", ("const", 7)),
        ("2D6+3", ("op", "+", ("dice", 2, 6, None, True), ("const", 3))),
        ("3D6-1", ("op", "-", ("dice", 3, 6, None, True), ("const", 1))),
        ("D6+D3", ("op", "+", ("dice", 1, 6, None, True), ("dice", 1, 3, None, True))),
        ("D6*4", ("op", "*", ("dice", 1, 6, None, True), ("const", 4))),
        ("D6x4", ("op", "*", ("dice", 1, 6, None, True), ("const", 4))),
        ("3D6kh2", ("dice", 3, 6, 2, True)),
        ("4D6kl3", ("dice", 4, 6, 3, False)),
        ("-D6+7", ("op", "+", ("neg", ("dice", 1, 6, None, True)), ("const", 7))),
        ("(D6+1)*(D3-1)", ("op", "*", ("op", "+", ("dice", 1, 6, None, True), ("const", 1)),
                           ("op", "-", ("dice", 1, 3, None, True), ("const", 1)))),
        ("2D6 - D6 + 1", ("op", "+", ("op", "-", ("dice", 2, 6, None, True),
                                       ("dice", 1, 6, None, True)), ("const", 1))),
        ("2+3*D6", ("op", "+", ("const", 2), ("op", "*", ("const", 3),
                                                ("dice", 1, 6, None, True)))),
    ],
)
def test_every_named_form_matches_brute_force(text, tree):
    """Each form of DICE-2 by name, including precedence (* before +) and spaces."""
    assert parse_dice(text).pmf() == brute_force_pmf(tree)


def test_2d6_plus_3_by_hand():
    e = parse_dice("2D6+3")
    assert (e.min, e.max, e.mean) == (5, 15, 10.0)
    assert e.probability_at_least(10) == Fraction(21, 36)
    assert e.variance == pytest.approx(35 / 6)


def test_d3_is_a_mapped_d6():
    """DICE-1: D3 = d6 with 1-2→1, 3-4→2, 5-6→3, so each value has probability 2/6."""
    mapped = Counter((f + 1) // 2 for f in range(1, 7))
    assert parse_dice("D3").pmf() == {v: Fraction(c, 6) for v, c in mapped.items()}
    assert mapped == {1: 2, 2: 2, 3: 2}


def test_keep_highest_by_hand():
    """3D6kh2 (Swiftstride): P(12) = P(at least two sixes) = (3*5 + 1)/216."""
    pmf = parse_dice("3D6kh2").pmf()
    assert pmf[12] == Fraction(16, 216)
    assert pmf[2] == Fraction(1, 216)
    # 4D6kl3 totals 3 when at least three dice show 1: C(4,3)*5 + 1 of 6^4
    assert parse_dice("4D6kl3").pmf()[3] == Fraction(4 * 5 + 1, 6**4)


def test_expressions_are_immutable_and_hashable():
    e = parse_dice("2D6+3")
    with pytest.raises(AttributeError):
        e.op = "-"  # type: ignore[misc]
    assert parse_dice("2D6+3") == parse_dice(" 2d6 + 3 ")
    assert hash(parse_dice("D6")) == hash(Dice(count=1, sides=6))
    assert isinstance(parse_dice("4"), Constant) and isinstance(e, DiceExpr)
    assert str(e) == "2D6+3"


@pytest.mark.parametrize("text", ["4D6kh2+7", "3d6kl2-1", "2D6", "D6+0", "5D6KH2+1000000",
                                  "200D1000", "D20-3"])
def test_simple_form_fast_path_equals_the_general_parser(text):
    """``NdS[khK][±C]`` skips the tree parser; wrapping it in parentheses takes the long way."""
    fast, general = parse_dice(text), parse_dice(f"({text})")
    assert fast == general and (fast.min, fast.max) == (general.min, general.max)
    assert fast.outcome_count == general.outcome_count
    if fast.exact_feasible:
        assert fast.pmf() == general.pmf()
        assert fast.exact_mean == general.exact_mean and fast.mean == float(general.exact_mean)
        assert np.array_equal(fast.probs, general.probs)
        dist = fast.distribution()
        assert (dist.offset, dist.mean) == (fast.min, fast.mean)
    assert str(fast) == text


def test_shared_dice_terms_keep_each_query_its_own_text():
    """Simple queries share one cached node per dice term; the user's text stays per query."""
    a, b, c = parse_dice("4d6kh2"), parse_dice("4D6KH2"), parse_dice("4D6kh2+3")
    assert (str(a), str(b), str(c)) == ("4d6kh2", "4D6KH2", "4D6kh2+3")
    d = parse_dice("4D6kh2-1")
    assert c.probs is d.probs and not c.probs.flags.writeable  # one cached array, read-only
    assert np.array_equal(a.probs, c.probs)
    assert c.min == a.min + 3 and c.exact_mean == a.exact_mean + 3


def test_distribution_leaves_the_callers_array_writable():
    from mathhammer.results import Distribution

    mine = np.array([0.25, 0.5, 0.25])
    Distribution(mine, 1)
    mine[0] = 0.3  # still the caller's to change
    assert Distribution.from_counts(np.array([1, 2, 1])).counts.dtype == np.int64


def test_distribution_is_exact_and_normalised():
    d = parse_dice("3D6").distribution()
    assert d.is_exact and d.min == 3 and d.max == 18
    assert d.probs.sum() == pytest.approx(1.0, abs=1e-15)
    assert d.p_at_least(11).value == pytest.approx(0.5)  # symmetric about 10.5


# ---------------------------------------------------------------------------------
# Kernel-ready forms: the sampling data reproduce the weights exactly.


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.filter_too_much])
@given(expressions)
def test_sampler_table_encodes_the_exact_weights(node_text):
    node, text = node_text
    expr = parse_dice(text)
    s = expr.sampler()
    lo, w = expr.weights
    if s.kind == "table":
        assert len(s.table) == expr.outcome_count
        values, counts = np.unique(s.table, return_counts=True)
        assert {int(v): int(c) for v, c in zip(values, counts)} == {
            lo + i: int(x) for i, x in enumerate(w) if x}
    else:
        assert s.kind == "search"
        assert int(s.table[-1]) == expr.outcome_count
        assert np.array_equal(np.diff(np.concatenate([[0], s.table.astype(object)])),
                              np.asarray(w, dtype=object))


@pytest.mark.parametrize("text, kind", [("2D6+3", "table"), ("9D6", "search"),
                                        ("13D6", "program"), ("3D6kh2*D20+12D6", "program")])
def test_sampler_kind_follows_outcome_space(text, kind):
    assert parse_dice(text).sampler().kind == kind
