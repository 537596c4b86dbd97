"""Answers with their errors: :class:`Estimate`, :class:`Distribution`, :class:`Report`.

Exact answers have se 0 and ci95 [v, v]. Monte Carlo probabilities carry
se = sqrt(p(1-p)/N) and a 95% Wilson interval; means carry sd/sqrt(N).
A :class:`Report` is what every query returns and what the CLI renders; its
``to_dict()`` is the JSON contract shared by every command.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mathhammer.errors import spell_params
from mathhammer.renames import RENAMED, RenamedKeys

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``p`` observed over ``n`` trials."""
    if n <= 0:
        return (0.0, 1.0)
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(max(p * (1.0 - p), 0.0) / n + z2n / (4.0 * n))
    # the interval always contains p: at p = 0 or 1 rounding must not leave a sliver
    return (min(max(0.0, centre - half), p), max(min(1.0, centre + half), p))


#: how far float noise may carry a probability past 0 or 1: an exact answer summed over
#: many states drifts by ~1e-13. A value further out is an engine bug, so it raises
#: (:class:`ImpossibleProbability`) rather than being clipped out of sight (issue 28 item 4).
PROBABILITY_NOISE = 1e-9


class ImpossibleProbability(ValueError):
    """A result named as a probability (``p_*``) lies outside [0, 1] by more than float
    noise: a bug in the engine that built it, never bad input."""


def is_probability_name(name: str) -> bool:
    """A result that is a probability: ``p_kill``, ``p_hit_1``, ``p_kill[a vs b]``."""
    return name.startswith("p_") or name.startswith("P(")


def _unit(x: float) -> float:
    return min(max(x, 0.0), 1.0) if not math.isnan(x) else x


def checked_probability(name: str, est: Any) -> Any:
    """``est`` with its value and 95% interval clipped to [0, 1] when ``name`` is a
    probability (float noise only: a value more than :data:`PROBABILITY_NOISE` outside
    raises). A normal-approximation interval (value ± 1.96 se) of a rare event may reach
    below 0 legitimately; an interval of a probability never does, so it is clipped."""
    if not isinstance(est, Estimate) or not name.startswith(("p_", "P(")):  # is_probability_name
        return est
    lo, hi = est.ci95
    if 0.0 <= lo and hi <= 1.0 and 0.0 <= est.value <= 1.0:  # the common case (NaN fails it)
        return est
    if math.isnan(est.value):
        return est
    if not -PROBABILITY_NOISE <= est.value <= 1.0 + PROBABILITY_NOISE:
        raise ImpossibleProbability(f"{name} = {est.value!r} lies outside [0, 1]: an engine bug")
    value, lo, hi = _unit(est.value), _unit(est.ci95[0]), _unit(est.ci95[1])
    if (value, lo, hi) == (est.value, *est.ci95):
        return est
    return Estimate(_clean(value), est.se, (lo, hi), est.n_trials)


def _clean(x: float) -> float:
    """Plain float, with -0.0 and float noise below zero clipped (never print -0)."""
    x = float(x)
    return 0.0 if abs(x) < 1e-15 else x


@dataclass(frozen=True)
class Estimate:
    """One number with its standard error and 95% interval.

    Attributes:
        value: the estimate (a probability or a mean).
        se: standard error; 0 for exact answers.
        ci95: 95% interval; Wilson for probabilities, value ± 1.96 se for means.
        n_trials: Monte Carlo sample size, None when exact.
        whole: a count (dice to roll, attacks needed, entries read): exact and a whole
            number, printed as one ("5", never "5.0000") in every view.
    """

    value: float
    se: float = 0.0
    ci95: tuple[float, float] = (math.nan, math.nan)
    n_trials: int | None = None
    whole: bool = False

    def __post_init__(self) -> None:
        if math.isnan(self.ci95[0]):
            object.__setattr__(self, "ci95", (self.value, self.value))

    @classmethod
    def exact(cls, value: float) -> Estimate:
        v = float(value)
        if abs(v) < 1e-15:  # _clean, inline: every report makes several
            v = 0.0
        # every exact answer makes several: the fields are filled directly, skipping the
        # frozen __init__'s per-field setattr and a __post_init__ with nothing to do here
        est = object.__new__(cls)
        object.__setattr__(est, "__dict__", {"value": v, "se": 0.0, "ci95": (v, v),
                                             "n_trials": None, "whole": False})
        return est

    @classmethod
    def count(cls, n: int) -> Estimate:
        """An exact whole number: ``2`` dice, ``7`` attacks needed (issue 28 item 15)."""
        if isinstance(n, float) and not n.is_integer():
            raise ValueError(f"a count is a whole number, got {n!r}")
        n = int(n)
        return cls(float(n), 0.0, (float(n), float(n)), None, whole=True)

    @classmethod
    def exact_probability(cls, value: float) -> Estimate:
        """An exact probability summed from many states: float drift past 0 or 1 clipped."""
        return cls.exact(min(max(float(value), 0.0), 1.0))

    @classmethod
    def proportion(cls, successes: int, n_trials: int) -> Estimate:
        """A Monte Carlo probability: ``successes`` out of ``n_trials``."""
        p = successes / n_trials
        se = math.sqrt(p * (1.0 - p) / n_trials)
        return cls(_clean(p), _clean(se), wilson_interval(p, n_trials), n_trials)

    @classmethod
    def mean(cls, total: float, total_sq: float, n_trials: int) -> Estimate:
        """A Monte Carlo mean from the running sum and sum of squares."""
        m = total / n_trials
        var = max(total_sq / n_trials - m * m, 0.0)
        se = math.sqrt(var / n_trials)
        return cls(_clean(m), _clean(se), (m - Z95 * se, m + Z95 * se), n_trials)

    @property
    def is_exact(self) -> bool:
        return self.n_trials is None

    def z_against(self, reference: float) -> float:
        """How many standard errors this estimate lies from ``reference``."""
        if self.se == 0.0:
            return 0.0 if self.value == reference else math.inf
        return (self.value - reference) / self.se

    def to_dict(self) -> dict[str, Any]:
        if self.whole:  # a count reads as the integer it is in JSON too
            return {"value": int(self.value), "se": 0.0, "ci95": [int(self.value)] * 2}
        return {"value": self.value, "se": self.se, "ci95": [self.ci95[0], self.ci95[1]]}

    def __format__(self, spec: str) -> str:
        return self.format(percent=spec == "%")

    def format(self, percent: bool = False) -> str:
        if self.whole:
            return str(int(self.value))
        scale, unit = (100.0, "%") if percent else (1.0, "")
        digits = 2 if percent else 4
        if not percent and not self.is_exact and self.se > 0 and math.isfinite(self.se):
            # "113 ± 43", not "113.0000 ± 42.8653"
            digits = se_digits(self.se, digits)
        text = f"{self.value * scale:.{digits}f}{unit}"
        if not self.is_exact:
            lo, hi = self.ci95
            text += (
                f" ± {self.se * scale:.{digits}f}{unit}"
                f" [{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"
            )
        return text

    def __str__(self) -> str:
        return self.format()



def plus_minus(value: float, se: float, signed: bool = False) -> str:
    """``value ± se`` with the decimals the se supports (:func:`se_digits`; none for a se of
    0), as the results table writes a Monte Carlo mean: "+212 ± 6", "0.40 ± 0.06"."""
    digits = se_digits(se) if se > 0 else 0
    return f"{value:{'+' if signed else ''}.{digits}f} ± {se:.{digits}f}"


def se_digits(se: float, most: int = 4) -> int:
    """Decimals for a figure with standard error ``se`` (> 0): as many as the se supports
    (:func:`se_place`), at most ``most``, never rounded to tens ("113 ± 43")."""
    return max(0, min(most, se_place(se)))


def se_place(se: float) -> int:
    """The decimal place a figure with standard error ``se`` (> 0) is rounded to: the se's
    first significant digit, its second when that is a 1 ("1.4" would say 0.5 to 1.5 as
    "1"); negative places round to tens, hundreds..."""
    place = -math.floor(math.log10(se))
    if math.floor(se * 10.0 ** place) < 2:
        place += 1
    return place

class Distribution:
    """A distribution over integers: exact, or a Monte Carlo histogram.

    Build with :meth:`exact` (probabilities) or :meth:`from_counts` (histogram of
    ``n_trials`` samples). Outcomes are consecutive integers from ``offset``.

    >>> d = Distribution.exact([0.25, 0.5, 0.25], offset=1)
    >>> d.mean, d.p_at_least(2).value
    (2.0, 0.75)
    """

    def __init__(
        self,
        probs: np.ndarray,
        offset: int = 0,
        n_trials: int | None = None,
        counts: np.ndarray | None = None,
    ) -> None:
        probs = np.asarray(probs, dtype=np.float64)
        size = len(probs)
        if size and probs.item(0) > 0 and probs.item(size - 1) > 0:  # trimmed (exact pmfs)
            lo, probs = 0, probs.view()  # a view: read-only below without touching the caller's
            if counts is not None:
                counts = np.asarray(counts, dtype=np.int64)
        elif not (nz := np.nonzero(probs > 0)[0]).size:
            probs, lo = np.zeros(1), 0
        else:
            lo, hi = int(nz[0]), int(nz[-1])
            probs = probs[lo : hi + 1]
            if counts is not None:
                counts = np.asarray(counts, dtype=np.int64)[lo : hi + 1]
        self.offset = int(offset) + lo
        self.probs = probs
        self.n_trials = n_trials
        self.counts = counts
        self.probs.setflags(write=False)
        #: set by producers that know the mean exactly (e.g. DiceExpr.distribution),
        #: so an exact 2D6 reports 7.0 rather than the float sum 6.999999999999999
        self.exact_mean: float | None = None
        #: the total probability when a constructor already summed it (:meth:`exact`)
        self._mass: float | None = None

    # ---- constructors -------------------------------------------------------------
    @classmethod
    def exact(cls, probs: np.ndarray | list[float], offset: int = 0) -> Distribution:
        p = np.maximum(np.asarray(probs, dtype=np.float64), 0.0)  # a new array, never negative
        total = float(np.add.reduce(p))  # p.sum() without its Python wrapper
        if total > 0:
            p /= total  # absorb float drift of long convolutions
        dist = cls(p, offset)
        dist._mass = 1.0 if total > 0 else 0.0
        return dist

    @classmethod
    def _exact_of_new(cls, probs: np.ndarray) -> Distribution:
        """:meth:`exact` of a pmf its engine has just built and hands over (a new float64
        array, no entry negative, offset 0): normalised in place, the same floats."""
        total = float(np.add.reduce(probs))
        if total > 0:
            probs /= total
        size = len(probs)
        if not (total > 0 and probs.item(0) > 0 and probs.item(size - 1) > 0):
            dist = cls(probs)  # zeros to trim at an end
        else:  # the constructor's trimmed case, on the array handed over (no view to take)
            dist = cls.__new__(cls)
            probs.setflags(write=False)
            dist.offset, dist.probs, dist.n_trials, dist.counts = 0, probs, None, None
            dist.exact_mean = None
        dist._mass = 1.0 if total > 0 else 0.0
        return dist

    @classmethod
    def from_counts(cls, counts: np.ndarray, offset: int = 0) -> Distribution:
        counts = np.asarray(counts, dtype=np.int64)
        n = int(counts.sum())
        if n <= 0:
            raise ValueError("a histogram needs at least one trial")
        return cls(counts / n, offset, n_trials=n, counts=counts)

    @classmethod
    def from_mapping(cls, pmf: Mapping[int, float]) -> Distribution:
        lo, hi = min(pmf), max(pmf)
        probs = np.zeros(hi - lo + 1)
        for k, p in pmf.items():
            probs[k - lo] += p
        return cls.exact(probs, lo)

    # ---- basic properties -------------------------------------------------------
    @property
    def is_exact(self) -> bool:
        return self.n_trials is None

    @property
    def outcomes(self) -> np.ndarray:
        return np.arange(self.offset, self.offset + len(self.probs), dtype=np.int64)

    @property
    def min(self) -> int:
        return self.offset

    @property
    def max(self) -> int:
        return self.offset + len(self.probs) - 1

    @property
    def pmf(self) -> dict[int, float]:
        return {int(k): float(p) for k, p in zip(self.outcomes, self.probs, strict=True)}

    @property
    def se(self) -> np.ndarray:
        """Per-outcome standard error of P(=k); zeros when exact."""
        if self.is_exact:
            return np.zeros_like(self.probs)
        return np.sqrt(self.probs * (1.0 - self.probs) / self.n_trials)

    @property
    def is_empty(self) -> bool:
        """No outcome has any probability: a conditional distribution whose condition
        never happens (casting totals when no cast can succeed). Reports drop it and
        say so (:meth:`Report.drop_empty`) rather than print a pmf summing to 0."""
        mass = self._mass if self._mass is not None else float(self.probs.sum())
        return not mass > 0.0

    @property
    def mean(self) -> float:
        if self.exact_mean is not None:
            return self.exact_mean
        # each product rounded once, as outcomes * probs would, and summed exactly
        return _clean(math.fsum(map(operator.mul, range(self.offset, self.offset + len(self.probs)),
                                    self.probs.tolist())))

    @property
    def variance(self) -> float:
        d = self.outcomes - self.mean
        return max(float(np.dot(d * d, self.probs)), 0.0)

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)

    @property
    def mean_se(self) -> float:
        return 0.0 if self.is_exact else self.sd / math.sqrt(self.n_trials)

    def mean_estimate(self) -> Estimate:
        if self.n_trials is None:  # is_exact
            return Estimate.exact(self.mean)
        m, se = self.mean, self.mean_se
        return Estimate(m, se, (m - Z95 * se, m + Z95 * se), self.n_trials)

    # ---- tail probabilities -------------------------------------------------------
    def _between(self, lo: int, hi: int) -> Estimate:
        """P(lo ≤ outcome < hi): one slice of consecutive outcomes (no mask to build)."""
        a = min(max(lo - self.offset, 0), len(self.probs))
        b = min(max(hi - self.offset, a), len(self.probs))
        if self.is_exact:
            return Estimate.exact(min(max(float(self.probs[a:b].sum()), 0.0), 1.0))
        assert self.counts is not None and self.n_trials is not None
        return Estimate.proportion(int(self.counts[a:b].sum()), self.n_trials)

    def p_eq(self, k: int) -> Estimate:
        return self._between(math.ceil(k), math.floor(k) + 1)

    def p_at_least(self, k: int) -> Estimate:
        """P(outcome ≥ k)."""
        return self._between(math.ceil(k), self.offset + len(self.probs))

    def p_at_most(self, k: int) -> Estimate:
        """P(outcome ≤ k)."""
        return self._between(self.offset, math.floor(k) + 1)

    def at_least_curve(self) -> np.ndarray:
        """P(≥ k) for every outcome k, in order."""
        return np.clip(np.cumsum(self.probs[::-1])[::-1], 0.0, 1.0)

    def at_most_curve(self) -> np.ndarray:
        return np.clip(np.cumsum(self.probs), 0.0, 1.0)

    def percentile(self, q: float) -> int:
        """Smallest outcome k with P(≤ k) ≥ q (q in [0, 1])."""
        idx = int(np.searchsorted(self.at_most_curve(), q - 1e-12, side="left"))
        return int(self.offset + min(idx, len(self.probs) - 1))

    # ---- comparison -------------------------------------------------------------
    def max_abs_z(self, exact: Distribution) -> float:
        """Largest |z| over outcomes of this Monte Carlo pmf against an exact one."""
        if self.n_trials is None:
            raise ValueError("max_abs_z compares a Monte Carlo distribution to an exact one")
        lo, hi = min(self.min, exact.min), max(self.max, exact.max)
        mine, ref = self.aligned(lo, hi), exact.aligned(lo, hi)
        se = np.sqrt(np.maximum(ref * (1.0 - ref), 1e-300) / self.n_trials)
        z = np.abs(mine - ref) / se
        z[(ref == 0) & (mine == 0)] = 0.0
        return float(z.max())

    def aligned(self, lo: int, hi: int) -> np.ndarray:
        """P(=k) for k = lo..hi (zeros outside the support)."""
        out = np.zeros(hi - lo + 1)
        a, b = max(lo, self.min), min(hi, self.max)
        if a <= b:
            out[a - lo : b - lo + 1] = self.probs[a - self.offset : b - self.offset + 1]
        return out

    # ---- output -----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        se = self.se
        return {
            "pmf": {str(int(k)): float(p) for k, p in zip(self.outcomes, self.probs, strict=True)},
            "se": {str(int(k)): float(s) for k, s in zip(self.outcomes, se, strict=True)},
            "mean": self.mean,
            "mean_se": self.mean_se,
        }

    def to_frame(self):  # -> pandas.DataFrame
        import pandas as pd

        return pd.DataFrame(
            {
                "outcome": self.outcomes,
                "p_eq": self.probs,
                "p_eq_se": self.se,
                "p_at_least": self.at_least_curve(),
                "p_at_most": self.at_most_curve(),
            }
        ).set_index("outcome")

    def _repr_html_(self) -> str:
        head = (
            f"<p><b>mean</b> {self.mean:.4f}"
            + ("" if self.is_exact else f" ± {self.mean_se:.4f}")
            + f", <b>sd</b> {self.sd:.4f}"
            + (", exact" if self.is_exact else f", n_trials {self.n_trials:,}")
            + "</p>"
        )
        return head + self.to_frame().to_html(float_format=lambda x: f"{x:.4f}")

    def plot(self, ax=None, title: str | None = None, label: str = "outcome"):
        """Bars of P(=k) with the "at least k" curve, percent axis. Returns the Axes."""
        from mathhammer.plots import plot_distribution

        return plot_distribution(self, ax=ax, title=title, xlabel=label)

    def __repr__(self) -> str:
        kind = "exact" if self.is_exact else f"n_trials={self.n_trials}"
        return f"Distribution({self.min}..{self.max}, mean={self.mean:.4f}, {kind})"


class Results(RenamedKeys):
    """A report's named estimates. The one place every printed probability passes: each
    ``p_*`` estimate is clipped to [0, 1] as it goes in (:func:`checked_probability`), so
    the table, the JSON, the web page and the library all read the same clipped value."""

    def __init__(self, data: Any = (), renamed: dict[str, str] | None = None) -> None:
        dict.__init__(self, data)  # as dict() takes it: a mapping or pairs (RenamedKeys'
        self.renamed = renamed or {}  # __init__, without its two calls: every report has one)
        for name, est in dict.items(self):  # every report builds one: no per-item __setitem__
            if name.startswith(("p_", "P(")):  # is_probability_name
                checked = checked_probability(name, est)
                if checked is not est:  # a value replaced, no key added: the loop goes on
                    dict.__setitem__(self, name, checked)

    def __setitem__(self, name: str, est: Any) -> None:
        super().__setitem__(name, checked_probability(name, est))

    def update(self, *args: Any, **kwargs: Any) -> None:
        for name, est in dict(*args, **kwargs).items():
            self[name] = est

    def setdefault(self, name: str, default: Any = None) -> Any:
        if name not in self:
            self[name] = default
        return self[name]

    def __ior__(self, other: Any) -> Results:
        self.update(other)
        return self


@dataclass
class Report:
    """The answer to one query: named results and distributions, with provenance.

    ``to_dict()`` is the JSON contract of every command::

        {"command", "method", "n_trials", "seed", "results": {NAME: {value, se, ci95}},
         "distributions": {NAME: {pmf, se, mean, mean_se}}}

    ``info`` holds readable extras (the policy used, notes); it is rendered in the
    table footer and, when present, under the JSON key ``"info"``.
    """

    command: str
    method: str
    results: dict[str, Estimate] = field(default_factory=dict)
    distributions: dict[str, Distribution] = field(default_factory=dict)
    n_trials: int | None = None
    seed: int | None = None
    info: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    #: one sentence answering the question asked; printed first in the table view
    #: (:func:`mathhammer.present.headline.headline` builds one when a builder left it empty)
    headline: str = ""

    def __post_init__(self) -> None:
        # ``results`` went through its setter (below) after ``command``, a field before it
        renamed = RENAMED.get(self.command)
        if renamed and type(self.distributions) is dict:
            # an old name is refused with a pointer to the new one, never aliased
            self.distributions = RenamedKeys(self.distributions, renamed)
        if self.distributions:  # drop_empty, without its list when nothing is empty
            for d in self.distributions.values():
                if isinstance(d, Distribution) and d.is_empty:
                    self.drop_empty()
                    break

    def drop_empty(self) -> Report:
        """Move distributions with no possible outcome out of ``distributions`` into
        ``info["empty_distributions"]`` ("name: why" lines): never a pmf that sums to 0."""
        empty = [name for name, d in self.distributions.items()
                 if isinstance(d, Distribution) and d.is_empty]
        if empty:
            notes = self.info.setdefault("empty_distributions", [])
            for name in empty:
                del self.distributions[name]
                notes.append(f"{name}: no outcome is possible (what it counts never happens)")
        return self

    def to_dict(self, spell=None) -> dict[str, Any]:
        """The JSON contract; parameters named in the notes (``‹focus›``) as ``spell`` writes
        them (the library's names by default; the command line passes its flags)."""
        self.drop_empty()
        out: dict[str, Any] = {
            "command": self.command,
            "method": self.method,
            "n_trials": self.n_trials,
            "seed": self.seed,
            "results": {k: v.to_dict() for k, v in self.results.items()},
            "distributions": {k: d.to_dict() for k, d in self.distributions.items()},
        }
        if self.info:
            out["info"] = _jsonable(self.info, spell)
        return out

    def to_frame(self):  # -> pandas.DataFrame of the results
        import pandas as pd

        rows = [
            {"name": k, "value": e.value, "se": e.se, "ci95_lo": e.ci95[0], "ci95_hi": e.ci95[1]}
            for k, e in self.results.items()
        ]
        return pd.DataFrame(rows, columns=["name", "value", "se", "ci95_lo", "ci95_hi"]).set_index(
            "name"
        )

    def __getitem__(self, name: str) -> Estimate | Distribution:
        if name in self.results:
            return self.results[name]
        return self.distributions[name]

    def _repr_html_(self) -> str:
        import html  # here: only a notebook shows HTML (start-up)

        parts = [f"<h4>{html.escape(self.title or self.command)}</h4>"]
        meta = "exact" if self.method == "exact" else f"Monte Carlo, n_trials {self.n_trials:,}, seed {self.seed}"
        parts.append(f"<p>{meta}</p>")
        if self.results:
            parts.append(self.to_frame().to_html(float_format=lambda x: f"{x:.5f}"))
        for name, dist in self.distributions.items():
            parts.append(f"<h5>{html.escape(name)}</h5>" + dist._repr_html_())
        return "\n".join(parts)


def _results(report: Report) -> Results:
    return report.__dict__["results"]


def _set_results(report: Report, value: Any) -> None:
    # however results arrive (the constructor, an assignment), every probability is checked
    # and the command's renames apply; a property, so no other attribute pays for the check
    report.__dict__["results"] = Results(value, RENAMED.get(report.__dict__.get("command"), {}))


Report.results = property(_results, _set_results)  # type: ignore[assignment]


@dataclass(frozen=True)
class Column:
    """One column of an :class:`InfoTable`: the row key it shows, its heading, and the key
    of that figure's standard error (then shown as ``value ± se`` rounded to the se)."""

    key: str
    heading: str
    se: str | None = None
    signed: bool = False  # a change: "+63" / "−12"
    scale: float = 1.0  # shown times this (100: a probability as a percentage)


class InfoTable(list):
    """Rows (dicts) of a report's ``info`` entry that the table view shows as an aligned
    table of the given columns, each figure rounded to its standard error; the JSON view
    keeps every row whole, at full precision (it is a plain list of dicts there)."""

    def __init__(self, rows: Any = (), columns: tuple[Column, ...] = ()) -> None:
        super().__init__(rows)
        self.columns = tuple(columns)


class InfoLines(list):
    """Entries of a report's ``info`` that the JSON view keeps whole (nested dicts, full
    precision) and the table view shows as the given lines, one per entry."""

    def __init__(self, entries: Any = (), lines: Any = ()) -> None:
        super().__init__(entries)
        self.lines = list(lines)


def _jsonable(value: Any, spell=None) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v, spell) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, spell) for v in value]
    if isinstance(value, str):
        return spell_params(value, spell)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        # JSON has no inf/nan (the CLI writes strict JSON): an undefined number is null
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Estimate):
        return value.to_dict()
    return value
