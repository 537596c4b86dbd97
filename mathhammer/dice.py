"""Dice expressions (DICE-1/2) and the shared special dice (DICE-3..6).

``parse_dice("2D6+3")`` gives an immutable :class:`DiceExpr` with an exact
distribution (integer weights over the whole outcome space, so probabilities are
exact rationals), its mean and variance, and a kernel-ready form for Monte Carlo.

Grammar (case-insensitive, spaces allowed)::

    expr   := ['+'|'-'] term (('+'|'-') term)*
    term   := factor (('*'|'x') factor)*
    factor := INT | [INT] 'D' INT [('kh'|'kl') INT] | '(' expr ')'

``D3`` is a d6 mapped 1-2→1, 3-4→2, 5-6→3, i.e. uniform on 1..3 (DICE-1).
``3D6kh2`` rolls three d6 and keeps the two highest (Swiftstride).

>>> e = parse_dice("2D6+3")
>>> e.min, e.max, e.mean
(5, 15, 10.0)
>>> e.probability_at_least(10)
Fraction(7, 12)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np

from mathhammer.errors import DiceExpressionError

EXAMPLE = 'e.g. "2D6+3", "D3", "3D6kh2", "D6*4"'
MAX_DICE = 200  # per term; keeps exact enumeration and kernels bounded
MAX_SIDES = 1000
MAX_CONSTANT = 10**6
MAX_TEXT = 300  # characters; with MAX_DEPTH it keeps every tree walk far from
MAX_DEPTH = 32  # Python's recursion limit (a long text or deep nesting is a typo)
MAX_SUPPORT = 200_000  # outcomes between min and max
MAX_VALUE = 2**53  # |value| of every sub-expression: exact in float64, safe in int64
#: Python-level big-integer operations the exact engine may spend (measured ~150 ns
#: each: 60D100, 3.4e7 units, took 5.7 s; so at most ~1.5 s). Larger expressions
#: (e.g. 30D1000, 100D100) still parse and run by Monte Carlo; asking for their exact
#: distribution is a DiceExpressionError.
EXACT_BUDGET = 10_000_000


# ---------------------------------------------------------------------------------
# Exact integer weights: (offset, weights) with weights[i] = number of equally likely
# outcomes whose value is offset + i. Python ints in object arrays: never overflow.


def _as_weights(values: np.ndarray) -> tuple[int, np.ndarray]:
    lo = int(values.min())
    counts = np.bincount(values - lo)
    return lo, counts.astype(object)


def _convolve(a: tuple[int, np.ndarray], b: tuple[int, np.ndarray]) -> tuple[int, np.ndarray]:
    return a[0] + b[0], np.convolve(a[1], b[1])


@lru_cache(maxsize=1024)  # pure, and queries repeat the same dice terms
def _sum_of_dice(n: int, sides: int) -> tuple[int, np.ndarray]:
    one = (1, np.ones(sides, dtype=object))
    result: tuple[int, np.ndarray] = (0, np.ones(1, dtype=object))
    power = one
    while n:  # square-and-multiply keeps 200D6 fast
        if n & 1:
            result = _convolve(result, power)
        n >>= 1
        if n:
            power = _convolve(power, power)
    result[1].setflags(write=False)  # cached: shared by every caller
    return result


@lru_cache(maxsize=1024)
def _keep(n: int, sides: int, keep: int, highest: bool) -> tuple[int, np.ndarray]:
    """Weights of the sum of the ``keep`` highest (lowest) of ``n`` dice.

    Walks the faces from the kept end, choosing how many of the still-unassigned
    dice show each face (binomial counts); only the first ``keep`` of them count.
    """
    faces = range(sides, 0, -1) if highest else range(1, sides + 1)
    # state: (dice assigned, dice kept) -> {sum: ways}
    states: dict[tuple[int, int], dict[int, int]] = {(0, 0): {0: 1}}
    for face in faces:
        nxt: dict[tuple[int, int], dict[int, int]] = {}
        for (assigned, kept), sums in states.items():
            left = n - assigned
            for j in range(left + 1):
                ways = math.comb(left, j)
                take = min(j, keep - kept)
                key = (assigned + j, kept + take)
                bucket = nxt.setdefault(key, {})
                for s, w in sums.items():
                    t = s + take * face
                    bucket[t] = bucket.get(t, 0) + w * ways
        states = nxt
    final = states[(n, min(n, keep))]
    lo, hi = min(final), max(final)
    weights = np.zeros(hi - lo + 1, dtype=object)
    weights[:] = 0
    for s, w in final.items():
        weights[s - lo] = w
    weights.setflags(write=False)  # cached: shared by every caller
    return lo, weights


class cached_property:  # noqa: N801 - functools' version takes a lock per first access (3.11)
    """Compute once per instance, then read from the instance dict (no descriptor call)."""

    def __init__(self, func):
        self.func = func
        self.__doc__ = func.__doc__

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


# ---------------------------------------------------------------------------------
# Expression tree


@dataclass(frozen=True)
class DiceExpr:
    """Base of expression nodes; immutable and hashable."""

    text: str = field(default="", compare=False)

    # -- exact distribution --------------------------------------------------------
    def _weights(self) -> tuple[int, np.ndarray]:
        raise NotImplementedError

    def _bounds(self) -> tuple[int, int]:
        raise NotImplementedError

    def _children(self) -> tuple[DiceExpr, ...]:
        return ()

    def _own_cost(self) -> int:
        return 1

    @cached_property
    def bounds(self) -> tuple[int, int]:
        """(min, max) by interval arithmetic, without enumerating anything.

        Exact: both ends of every node are attained, and the extremes of a sum,
        difference or product of independent values lie at the corners.
        """
        return self._bounds()

    @cached_property
    def exact_cost(self) -> int:
        """Rough count of big-integer operations the exact distribution needs."""
        return self._own_cost() + sum(c.exact_cost for c in self._children())

    @property
    def exact_feasible(self) -> bool:
        """True when :attr:`weights` is cheap enough to compute (see EXACT_BUDGET)."""
        return self.exact_cost <= EXACT_BUDGET

    @cached_property
    def weights(self) -> tuple[int, np.ndarray]:
        """(offset, integer weights) over the whole outcome space; exact.

        Raises:
            DiceExpressionError: when the expression is too large to enumerate
                (:attr:`exact_feasible` is False); Monte Carlo still works.
        """
        if not self.exact_feasible:
            raise DiceExpressionError(
                f"dice expression {str(self)!r}", "is too large to enumerate exactly "
                f"(about {self.exact_cost:.1e} operations, limit {EXACT_BUDGET:.0e})",
                None, "use ‹method› mc, or fewer / smaller dice",
            )
        lo, w = self._weights()
        if w[0] != 0 and w[-1] != 0:  # the common case: nothing to trim
            return lo, w
        nz = np.nonzero(w != 0)[0]
        return lo + int(nz[0]), w[nz[0] : nz[-1] + 1]

    @cached_property
    def outcome_count(self) -> int:
        """Number of equally likely elementary outcomes (e.g. 36 for 2D6)."""
        return self._outcome_count()

    def _outcome_count(self) -> int:
        return math.prod(c.outcome_count for c in self._children())

    @property
    def min(self) -> int:
        return self.bounds[0]

    @property
    def max(self) -> int:
        return self.bounds[1]

    @property
    def span(self) -> int:
        """Number of integers between min and max inclusive."""
        return self.bounds[1] - self.bounds[0] + 1

    @cached_property
    def probs(self) -> np.ndarray:
        """P(=k) for k = min..max as float64 (read-only: cached and shared)."""
        lo, w = self.weights
        total = self.outcome_count
        if total < 2**53:  # every weight and the total are exact floats: one rounding
            out = np.asarray(w, dtype=np.float64) / float(total)
        else:
            out = np.array([int(x) / total for x in w], dtype=np.float64)  # correctly rounded
        out.setflags(write=False)
        return out

    def pmf(self) -> dict[int, Fraction]:
        """Exact pmf as Fractions."""
        lo, w = self.weights
        total = self.outcome_count
        return {lo + i: Fraction(int(x), total) for i, x in enumerate(w) if x}

    @cached_property
    def exact_mean(self) -> Fraction:
        """The mean as an exact fraction."""
        lo, w = self.weights
        values = np.arange(lo, lo + len(w)).astype(object)  # Python ints: exact, C loop
        return Fraction(int(np.dot(values, w)), self.outcome_count)

    @property
    def mean(self) -> float:
        return float(self.exact_mean)  # correctly rounded: 2D6 gives 7.0, not 6.999...

    @property
    def variance(self) -> float:
        lo, w = self.weights
        second = Fraction(sum((lo + i) ** 2 * int(x) for i, x in enumerate(w)), self.outcome_count)
        return float(second - self.exact_mean**2)  # exact integers, one rounding

    def probability_at_least(self, k: int) -> Fraction:
        lo, w = self.weights
        return Fraction(int(sum(w[max(0, k - lo) :])), self.outcome_count)

    def probability_at_most(self, k: int) -> Fraction:
        lo, w = self.weights
        upto = k - lo + 1
        return Fraction(int(sum(w[: max(0, upto)])), self.outcome_count)

    def distribution(self):
        """The exact :class:`mathhammer.results.Distribution`."""
        from mathhammer.results import Distribution

        # the probabilities are exact ratios already: no clipping or renormalising needed
        dist = Distribution(self.probs, self.min)
        dist.exact_mean = self.mean
        return dist

    # -- kernel-ready form ---------------------------------------------------------
    def sampler(self) -> DiceSampler:
        """Arrays a numba kernel samples from exactly (see :class:`DiceSampler`)."""
        return DiceSampler.build(self)

    def __str__(self) -> str:
        return self.text or self.describe()

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Constant(DiceExpr):
    value: int = 0

    def _weights(self) -> tuple[int, np.ndarray]:
        return self.value, np.ones(1, dtype=object)

    def _bounds(self) -> tuple[int, int]:
        return self.value, self.value

    def _outcome_count(self) -> int:
        return 1

    def describe(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Dice(DiceExpr):
    """``count`` dice with ``sides`` faces, optionally keeping the highest/lowest."""

    count: int = 1
    sides: int = 6
    keep: int | None = None
    keep_highest: bool = True

    def _weights(self) -> tuple[int, np.ndarray]:
        if self.keep is not None and self.keep < self.count:
            return _keep(self.count, self.sides, self.keep, self.keep_highest)
        return _sum_of_dice(self.count, self.sides)

    @property
    def _kept(self) -> int:
        return self.count if self.keep is None else min(self.keep, self.count)

    def _bounds(self) -> tuple[int, int]:
        return self._kept, self._kept * self.sides

    def _outcome_count(self) -> int:
        return self.sides**self.count

    def _own_cost(self) -> int:
        if self._kept < self.count:  # the keep DP: faces x states x choices x sums
            return self.sides * (self.count + 1) ** 2 * (self._kept * (self.sides - 1) + 1) // 2
        return self.span**2  # square-and-multiply: dominated by the last convolution

    def describe(self) -> str:
        text = f"{self.count}D{self.sides}"
        if self.keep is not None:
            text += ("kh" if self.keep_highest else "kl") + str(self.keep)
        return text


@dataclass(frozen=True)
class BinaryOp(DiceExpr):
    op: str = "+"
    left: DiceExpr = field(default_factory=Constant)
    right: DiceExpr = field(default_factory=Constant)

    def _weights(self) -> tuple[int, np.ndarray]:
        a, b = self.left.weights, self.right.weights
        if self.op in "+-" and len(b[1]) == 1 and b[1][0] == 1:  # ± a constant: a shift
            return a[0] + (b[0] if self.op == "+" else -b[0]), a[1]
        if self.op == "+" and len(a[1]) == 1 and a[1][0] == 1:
            return a[0] + b[0], b[1]
        if self.op == "+":
            return _convolve(a, b)
        if self.op == "-":
            neg = (-(b[0] + len(b[1]) - 1), b[1][::-1].copy())
            return _convolve(a, neg)
        # product of independent values: outer product over both supports
        va = np.arange(a[0], a[0] + len(a[1]), dtype=np.int64)
        vb = np.arange(b[0], b[0] + len(b[1]), dtype=np.int64)
        values = np.multiply.outer(va, vb).ravel()
        ways = np.multiply.outer(a[1], b[1]).ravel()
        lo = int(values.min())
        out = np.zeros(int(values.max()) - lo + 1, dtype=object)
        out[:] = 0
        for v, w in zip(values, ways, strict=True):
            out[v - lo] += w
        return lo, out

    def _children(self) -> tuple[DiceExpr, ...]:
        return (self.left, self.right)

    @cached_property
    def _shift(self) -> tuple[DiceExpr, int] | None:
        """(node, c) when this is ``node ± c`` or ``c + node``: the same pmf, moved by c."""
        if isinstance(self.right, Constant) and self.op in "+-":
            return self.left, self.right.value if self.op == "+" else -self.right.value
        if isinstance(self.left, Constant) and self.op == "+":
            return self.right, self.left.value
        return None

    # A shifted node reuses its child's cached arrays (the child may be shared, see parse_dice).
    def _shifted_probs(self) -> np.ndarray:
        shift = self._shift
        return DiceExpr.probs.func(self) if shift is None else shift[0].probs

    def _shifted_mean(self) -> Fraction:
        shift = self._shift
        return DiceExpr.exact_mean.func(self) if shift is None else shift[0].exact_mean + shift[1]

    probs = cached_property(_shifted_probs)
    exact_mean = cached_property(_shifted_mean)

    @property
    def mean(self) -> float:
        if self._shift is None or "exact_mean" in self.__dict__:
            return super().mean
        node, c = self._shift  # (n/d + c) = (n + c*d)/d, still in lowest terms: no Fraction sum
        m = node.exact_mean
        return (m.numerator + c * m.denominator) / m.denominator  # correctly rounded int division

    def _bounds(self) -> tuple[int, int]:
        (a0, a1), (b0, b1) = self.left.bounds, self.right.bounds
        if self.op == "+":
            return a0 + b0, a1 + b1
        if self.op == "-":
            return a0 - b1, a1 - b0
        corners = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
        return min(corners), max(corners)

    def _own_cost(self) -> int:
        return self.left.span * self.right.span

    def describe(self) -> str:
        return f"({self.left.describe()}{self.op}{self.right.describe()})"


@dataclass(frozen=True)
class Negate(DiceExpr):
    inner: DiceExpr = field(default_factory=Constant)

    def _weights(self) -> tuple[int, np.ndarray]:
        lo, w = self.inner.weights
        return -(lo + len(w) - 1), w[::-1].copy()

    def _children(self) -> tuple[DiceExpr, ...]:
        return (self.inner,)

    def _bounds(self) -> tuple[int, int]:
        lo, hi = self.inner.bounds
        return -hi, -lo

    def describe(self) -> str:
        return f"-{self.inner.describe()}"


# ---------------------------------------------------------------------------------
# Kernel-ready form

_TABLE_LIMIT = 1 << 16  # outcome spaces this small are sampled by direct lookup
_SEARCH_LIMIT = 1 << 32  # up to this, by one bounded draw and a binary search


@dataclass(frozen=True)
class DiceSampler:
    """Exact sampling data for :mod:`mathhammer.kernels.rolls`.

    ``kind`` is "table" (draw u in [0, M), value = table[u]), "search" (draw u in
    [0, M), value = offset + first index with cumulative > u) or "program" (a
    postfix program rolled die by die, for outcome spaces above 2^32).
    """

    kind: str
    offset: int
    outcome_count: int
    table: np.ndarray  # int64 values (table) or uint64 cumulative weights (search)
    program: np.ndarray  # int64 (n_ops, 5) rows: op, a, b, c, d (program kind)

    @classmethod
    def build(cls, expr: DiceExpr) -> DiceSampler:
        m = expr.outcome_count
        empty = np.zeros((0, 5), dtype=np.int64)
        if m > _SEARCH_LIMIT or not expr.exact_feasible:
            return cls("program", expr.min, m, np.zeros(0, np.int64), _compile_program(expr))
        lo, w = expr.weights
        if m <= _TABLE_LIMIT:
            table = np.repeat(np.arange(lo, lo + len(w), dtype=np.int64), np.asarray(w, np.int64))
            return cls("table", lo, m, table, empty)
        cum = np.cumsum(np.asarray(w, dtype=np.uint64)).astype(np.uint64)
        return cls("search", lo, m, cum, empty)


OP_CONST, OP_DICE, OP_ADD, OP_SUB, OP_MUL, OP_NEG = range(6)


def _compile_program(expr: DiceExpr) -> np.ndarray:
    rows: list[tuple[int, int, int, int, int]] = []

    def emit(node: DiceExpr) -> None:
        if isinstance(node, Constant):
            rows.append((OP_CONST, node.value, 0, 0, 0))
        elif isinstance(node, Dice):
            keep = node.keep if node.keep is not None else node.count
            rows.append((OP_DICE, node.count, node.sides, keep, 1 if node.keep_highest else 0))
        elif isinstance(node, Negate):
            emit(node.inner)
            rows.append((OP_NEG, 0, 0, 0, 0))
        elif isinstance(node, BinaryOp):
            emit(node.left)
            emit(node.right)
            rows.append(({"+": OP_ADD, "-": OP_SUB, "*": OP_MUL}[node.op], 0, 0, 0, 0))
        else:  # pragma: no cover - every node type is handled above
            raise TypeError(node)

    emit(expr)
    return np.array(rows, dtype=np.int64)


# ---------------------------------------------------------------------------------
# Parser


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0

    def fail(self, what: str, pos: int | None = None) -> DiceExpressionError:
        col = (self.pos if pos is None else pos) + 1
        return DiceExpressionError(
            f"dice expression {self.text!r}, column {col}", what, None, f"write {EXAMPLE}"
        )

    def peek(self) -> str:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def integer(self, what: str) -> int:
        self.peek()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in "0123456789":
            self.pos += 1
        if start == self.pos:
            found = self.text[self.pos] if self.pos < len(self.text) else "end of text"
            raise self.fail(f"expected {what}, found {found!r}", start)
        if self.pos - start > 30:  # int() refuses 4,300+ digits; no die needs 31
            raise self.fail(f"{what} has {self.pos - start:,} digits (at most 30)", start)
        return int(self.text[start : self.pos])

    def parse(self) -> DiceExpr:
        if not self.text.strip():
            raise DiceExpressionError("dice expression", "is empty", self.text, f"write {EXAMPLE}")
        node = self.expr()
        if self.peek():
            raise self.fail(f"unexpected character {self.peek()!r}")
        return node

    def expr(self) -> DiceExpr:
        sign = self.peek()
        if sign in "+-" and sign:
            self.pos += 1
            node = self.term()
            if sign == "-":
                node = Negate(inner=node)
        else:
            node = self.term()
        while self.peek() in ("+", "-") and self.peek():
            op = self.peek()
            self.pos += 1
            node = BinaryOp(op=op, left=node, right=self.term())
        return node

    def term(self) -> DiceExpr:
        node = self.factor()
        while self.peek() and self.peek() in "*xX×":
            self.pos += 1
            node = BinaryOp(op="*", left=node, right=self.factor())
        return node

    def factor(self) -> DiceExpr:
        ch = self.peek()
        if ch == "(":
            if self.depth >= MAX_DEPTH:
                raise self.fail(f"parentheses nest deeper than {MAX_DEPTH}")
            self.pos += 1
            self.depth += 1
            node = self.expr()
            self.depth -= 1
            if self.peek() != ")":
                raise self.fail("expected ')'")
            self.pos += 1
            return node
        start = self.pos
        count = None
        if ch.isdigit():
            count = self.integer("a number")
        if self.peek() in ("d", "D") and self.peek():
            self.pos += 1
            sides_pos = self.pos
            sides = self.integer("the number of sides after 'D'")
            if count is None:
                count = 1
            if not 1 <= count <= MAX_DICE:
                raise self.fail(f"dice count must be 1..{MAX_DICE}", start)
            if not 2 <= sides <= MAX_SIDES:
                raise self.fail(f"a die needs 2..{MAX_SIDES} sides", sides_pos)
            keep = None
            highest = True
            rest = self.text[self.pos : self.pos + 2].lower()
            if rest in ("kh", "kl"):
                self.pos += 2
                keep_pos = self.pos
                highest = rest == "kh"
                keep = self.integer(f"how many dice to keep after '{rest}'")
                if not 1 <= keep <= count:
                    raise self.fail(f"keep must be 1..{count} (the dice rolled)", keep_pos)
            return Dice(count=count, sides=sides, keep=keep, keep_highest=highest)
        if count is None:
            found = ch if ch else "end of text"
            raise self.fail(f"expected a number, a die like 'D6' or '(', found {found!r}")
        if count > MAX_CONSTANT:
            raise self.fail(f"constants must be at most {MAX_CONSTANT}", start)
        return Constant(value=count)


def parse_dice(text: str) -> DiceExpr:
    """Parse dice text into an immutable :class:`DiceExpr` (DICE-2).

    Raises:
        DiceExpressionError: naming the column and showing a valid example.
    """
    if not isinstance(text, str):
        raise DiceExpressionError("dice expression", "must be text", text, f"write {EXAMPLE}")
    if len(text) > MAX_TEXT:
        raise DiceExpressionError("dice expression", f"is longer than {MAX_TEXT} characters",
                                  text, "use fewer terms, e.g. 30D6 instead of D6+D6+...")
    node = _parse_simple(text)
    if node is None:
        node = _Parser(text).parse()
        _check_magnitudes(node, text)
        span = node.max - node.min + 1
        if span > MAX_SUPPORT:
            raise DiceExpressionError(
                f"dice expression {text!r}", f"spans {span} outcomes (limit {MAX_SUPPORT})",
                None, "use fewer or smaller dice",
            )
    return _with_text(node, text.strip())


_SIMPLE = re.compile(r"(\d*)[dD](\d+)(?:([kK][hHlL])(\d+))?(?:([+-])(\d+))?")



def checked_dice_text(text, low: int | None, high: int | None, problem: str) -> str:
    """A data file's dice text for a pydantic validator: it parses and its outcomes stay
    within ``low``..``high`` (None: no bound), else ValueError with the parser's words or
    ``problem``."""
    from mathhammer.errors import DiceExpressionError

    try:
        expr = parse_dice(str(text))
    except DiceExpressionError as err:
        raise ValueError(err.what) from None
    if (low is not None and expr.min < low) or (high is not None and expr.max > high):
        raise ValueError(problem)
    return str(text)

def _parse_simple(text: str) -> DiceExpr | None:
    """The common ``NdS[khK][±C]`` without the general parser; None for anything else.

    Out-of-range numbers also return None so the general parser reports them.
    """
    m = _SIMPLE.fullmatch(text)
    if m is None:
        return None
    count = int(m[1]) if m[1] else 1
    sides, keep = int(m[2]), int(m[4]) if m[3] else None
    if not (1 <= count <= MAX_DICE and 2 <= sides <= MAX_SIDES):
        return None
    if keep is not None and not 1 <= keep <= count:
        return None
    dice = _shared_dice(count, sides, keep, m[3] is None or m[3].lower() == "kh")
    if not m[5]:  # the root gets the user's text: a copy, carrying the cached arrays
        node = object.__new__(Dice)
        node.__dict__.update(dice.__dict__)
        return node
    value = int(m[6])
    if value > MAX_CONSTANT:
        return None
    return BinaryOp(op=m[5], left=dice, right=Constant(value=value))


# The simple form is within every parse_dice limit by construction, so it skips the checks.
assert MAX_DICE * MAX_SIDES + MAX_CONSTANT <= MAX_VALUE and MAX_DICE * MAX_SIDES <= MAX_SUPPORT


@lru_cache(maxsize=1024)
def _shared_dice(count: int, sides: int, keep: int | None, highest: bool) -> Dice:
    """One immutable node per dice term, so its exact arrays are computed once per process."""
    return Dice(count=count, sides=sides, keep=keep, keep_highest=highest)


def _check_magnitudes(node: DiceExpr, text: str) -> None:
    """Every sub-expression must stay within ±MAX_VALUE (no int64 overflow anywhere)."""
    for child in node._children():
        _check_magnitudes(child, text)
    lo, hi = node.bounds
    if max(abs(lo), abs(hi)) > MAX_VALUE:
        raise DiceExpressionError(
            f"dice expression {text!r}", f"reaches {hi if abs(hi) >= abs(lo) else lo}, "
            "beyond the limit of ±2**53", None, "use smaller constants or multipliers",
        )


def _with_text(node: DiceExpr, text: str) -> DiceExpr:
    object.__setattr__(node, "text", text)
    return node


# ---------------------------------------------------------------------------------
# Special dice (DICE-3..6)

ARTILLERY_FACES: tuple[int | None, ...] = (2, 4, 6, 8, 10, None)  # None = MISFIRE (DICE-3)


@dataclass(frozen=True)
class ArtilleryDie:
    """Artillery die: 2, 4, 6, 8, 10 or MISFIRE, each 1/6 (DICE-3)."""

    faces: tuple[int | None, ...] = ARTILLERY_FACES

    @property
    def p_misfire(self) -> Fraction:
        return Fraction(sum(f is None for f in self.faces), len(self.faces))

    def distance_pmf(self) -> dict[int, Fraction]:
        """P(distance = d) for the numbered faces (misfire excluded, not renormalised)."""
        out: dict[int, Fraction] = {}
        for f in self.faces:
            if f is not None:
                out[f] = out.get(f, Fraction(0)) + Fraction(1, len(self.faces))
        return out


@dataclass(frozen=True)
class ScatterDie:
    """Scatter die with ``hit_faces`` HIT faces of six; arrows point uniformly (DICE-4)."""

    hit_faces: int = 2

    def __post_init__(self) -> None:
        if not 0 <= self.hit_faces <= 6:
            raise DiceExpressionError("scatter die", "HIT faces must be 0..6", self.hit_faces,
                                      "use 1 (basic) or 2 (wfb8, t9a1)")

    @property
    def p_hit(self) -> Fraction:
        return Fraction(self.hit_faces, 6)


def reroll(face_probs: np.ndarray | list, reroll_mask: np.ndarray | list) -> np.ndarray:
    """Face probabilities after one re-roll of the faces in ``reroll_mask`` (DICE-5).

    The second result stands even if worse: p'(f) = p(f)·[f kept] + P(re-roll)·p(f).
    Works for Fractions (object arrays) and floats.
    """
    p = np.asarray(face_probs)
    mask = np.asarray(reroll_mask, dtype=bool)
    p_reroll = p[mask].sum()
    return np.where(mask, 0, p) + p_reroll * p


def p_success_with_reroll(p_success, mode: str | None):
    """P(success) of a test with a re-roll policy: None, "failed", "successes" (forced)."""
    if mode is None or mode == "none":
        return p_success
    if mode == "failed":
        return p_success + (1 - p_success) * p_success
    if mode in ("successes", "successful"):
        return p_success * p_success
    raise ValueError(f"unknown re-roll mode {mode!r}")


def roll_off(bonus_a: int = 0, bonus_b: int = 0) -> Fraction:
    """P(A wins a roll-off): both roll D6 (+ bonus), higher wins, ties re-rolled (DICE-6)."""
    win = tie = 0
    for a in range(1, 7):
        for b in range(1, 7):
            diff = (a + bonus_a) - (b + bonus_b)
            win += diff > 0
            tie += diff == 0
    if tie == 36:
        return Fraction(1, 2)
    return Fraction(win, 36 - tie)


# ---------------------------------------------------------------------------------
# Sums of many independent draws (the exact chains of both games)

#: results longer than this are taken by FFT: O(m log m) where direct squaring is
#: O(m²); below it the direct products keep every entry accurate relative to itself
FFT_OUTCOMES = 1024


def _capped_convolve(a: np.ndarray, b: np.ndarray, cap: int | None) -> np.ndarray:
    """pmf of min(A + B, cap): what lies past ``cap`` piles up there."""
    out = np.convolve(a, b)
    if cap is not None and len(out) > cap + 1:
        out[cap] += out[cap + 1:].sum()
        out = out[: cap + 1]
    return out


def pmf_power(pmf: np.ndarray, n: int, cap: int | None = None) -> np.ndarray:
    """P(T = t), t = 0.., for T the sum of ``n`` independent draws of ``pmf`` (an outcome's
    value is its index), or of min(T, cap) when ``cap`` is given.

    Cost grows about linearly in ``n``: leading impossible values are shifted out,
    short results come from squaring (O(log n) convolutions; capping commutes with
    adding: min(min(A, c) + B, c) = min(A + B, c) for B ≥ 0), results longer than
    :data:`FFT_OUTCOMES` from one FFT (accurate to ~1e-16 absolute, negatives of
    rounding set to 0).
    """
    pmf = np.asarray(pmf, dtype=np.float64)
    if n == 1 and (cap is None or len(pmf) <= cap + 1):
        return pmf.copy()
    if n == 0:
        return np.ones(1)
    if len(pmf) and pmf[0] > 0:  # the common case: no value is impossible from the start
        lo, body = 0, pmf
    else:
        nz = np.flatnonzero(pmf)
        if not len(nz):
            return np.zeros(1)
        lo = int(nz[0])
        body = pmf[lo: int(nz[-1]) + 1]
    shift = n * lo
    if cap is not None and cap <= shift:  # every draw already reaches the cap
        out = np.zeros(cap + 1)
        out[cap] = float(body.sum()) ** n
        return out
    rest_cap = None if cap is None else cap - shift
    m = n * (len(body) - 1) + 1
    if (m if rest_cap is None else min(m, rest_cap + 1)) > FFT_OUTCOMES:
        size = 1 << (m - 1).bit_length()
        rest = np.fft.irfft(np.fft.rfft(body, size) ** n, size)[:m]
        np.maximum(rest, 0.0, out=rest)
        if rest_cap is not None and m > rest_cap + 1:
            rest[rest_cap] += rest[rest_cap + 1:].sum()
            rest = rest[: rest_cap + 1]
    else:
        rest, base = None, body
        while n:
            if n & 1:
                rest = base if rest is None else _capped_convolve(rest, base, rest_cap)
            n >>= 1
            if n:
                base = _capped_convolve(base, base, rest_cap)
        if rest_cap is not None and len(rest) > rest_cap + 1:  # one draw past the cap
            rest = _capped_convolve(rest, np.ones(1), rest_cap)
    return np.concatenate((np.zeros(shift), rest)) if shift else rest
