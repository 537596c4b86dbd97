"""Fuzz the library's public functions (issue 22 part 5).

The functions are found, not listed: every public function of a library module (not
``cli``, ``web``, ``kernels``) that answers a query (returns a ``Report``), plus the
loaders and parsers a script calls first (``parse_dice``, ``load_*``, ``read_toml``,
``MonteCarloConfig``). Arguments are drawn from each function's own annotations, with
valid and hostile values: negative, zero, huge, NaN and infinite numbers, junk text,
unicode, malformed dice, unknown ids. A function whose required arguments cannot be
drawn from their annotations is skipped by name (listed in the sanity test), so a new
query function is fuzzed without editing this file.

Property: the call returns (a ``Report`` whose probabilities lie in [0, 1] and whose
distributions sum to 1), or raises a :class:`~mathhammer.errors.MathhammerError`
subclass whose one line names where and the fix. A bare ``ValueError``, ``IndexError``,
``KeyError``, ``ZeroDivisionError``, ``OverflowError``, ``TypeError`` or ``RecursionError``
is a failure, and so is a call running past its time budget.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import os
import pkgutil
import types
import typing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mathhammer
from tests.test_reliability_bounded import check_report
from tests.test_reliability_harness import DERANDOMIZE, Slow, _alarm

SKIP_PACKAGES = ("mathhammer.cli", "mathhammer.web", "mathhammer.kernels",
                 "mathhammer.warmachine.kernels", "mathhammer.fantasy.kernels",
                 "mathhammer.magic.kernels")
ENTRY_NAMES = {"parse_dice", "read_toml", "parse_toml", "load_profile", "load_unit",
               "load_warmachine", "load_list", "load_ruleset", "find_profile", "find_list",
               "parse_vary"}
# helpers that take a finished report or internal state, not user input
INTERNAL = {"with_check", "check_entry", "check_lines",
            "ridden_artillery",  # takes the artillery engine's setup and its runner
            "build_report",  # a battle's tallies as a report (the runner's own state)
            "least_level"}  # --for-p's search over levels the engine computed

INTS = st.one_of(st.integers(-3, 30), st.sampled_from(
    [0, -1, 1000, 10**6, 2**31, 2**63, -(2**63) - 1, 10**30]))
FLOATS = st.one_of(st.floats(-5, 30), st.sampled_from(
    [0.0, -0.0, -1.0, 1e308, -1e308, 5e-324, math.nan, math.inf, -math.inf]))
TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", " ", "☃", "x" * 300, "D6", "2D6+1", "D0", "-1", "(((", "200D1000",
                     "3D6kh2", "wfb8", "t9a1", "basic", "khador/juggernaut",
                     "wfb8/orc_boyz", "no/such", "../../etc/passwd", "/dev/zero", "nan",
                     "1e308", "0", "none", "all", "def=10..18", "focus=0..3"]),
)


def _public_functions() -> dict[str, object]:
    found: dict[str, object] = {}
    for info in pkgutil.walk_packages(mathhammer.__path__, "mathhammer."):
        if info.name.startswith(SKIP_PACKAGES) or info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        try:
            module = importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - an optional extra (dask) not installed
            continue
        for name, fn in vars(module).items():
            if (name.startswith("_") or not inspect.isfunction(fn) or fn.__module__ != module.__name__
                    or name in INTERNAL):
                continue
            returns = str(inspect.signature(fn).return_annotation)
            if "Report" in returns or name in ENTRY_NAMES:
                found[f"{module.__name__}.{name}"] = fn
    from mathhammer.engine import MonteCarloConfig

    found["mathhammer.engine.MonteCarloConfig"] = MonteCarloConfig
    return found


FUNCTIONS = _public_functions()


def _small_config():
    from mathhammer.engine import MonteCarloConfig

    return st.builds(MonteCarloConfig, n_trials=st.sampled_from([1, 500, 2000]),
                     seed=st.integers(0, 5), threads=st.just(1))


def strategy_for(annotation, depth: int = 0):
    """Values for one parameter, from its annotation; None when it cannot be drawn."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        parts = [strategy_for(a, depth) for a in typing.get_args(annotation)]
        parts = [p for p in parts if p is not None]
        return st.one_of(*parts) if parts else None
    if origin is typing.Literal:
        return st.one_of(st.sampled_from(typing.get_args(annotation)), TEXT)
    if origin in (list, tuple):
        inner = strategy_for((typing.get_args(annotation) or (str,))[0], depth + 1)
        return None if inner is None else st.lists(inner, max_size=3)
    if annotation is type(None):
        return st.none()
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return INTS
    if annotation is float:
        return FLOATS
    if annotation is str:
        return TEXT
    if getattr(annotation, "__name__", "") == "MonteCarloConfig":
        return _small_config()
    if dataclasses.is_dataclass(annotation) and depth < 2 and not annotation.__subclasses__():
        # (a base class with subclasses, like DiceExpr, is abstract: built by its parser)
        return _builds(annotation, depth + 1)
    return None


def _builds(cls, depth: int):
    """A dataclass with every field drawn (defaults kept now and then)."""
    hints = typing.get_type_hints(cls)
    fields = {}
    for f in dataclasses.fields(cls):
        strategy = strategy_for(hints.get(f.name), depth)
        has_default = (f.default is not dataclasses.MISSING
                       or f.default_factory is not dataclasses.MISSING)
        if strategy is None:
            if not has_default:
                return None
            continue
        fields[f.name] = st.one_of(st.just(f.default), strategy) if (
            has_default and f.default is not dataclasses.MISSING) else strategy
    return st.fixed_dictionaries(fields).map(lambda kwargs: _construct(cls, kwargs))


class Refused:
    """A dataclass whose constructor refused its arguments (validation at construction)."""

    def __init__(self, error) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"Refused({self.error.one_line()!r})"


def _construct(cls, kwargs):
    from mathhammer.errors import MathhammerError

    try:
        return cls(**kwargs)
    except MathhammerError as err:  # a right refusal: one line, checked in _call
        return Refused(err)
    except FORBIDDEN as err:
        raise AssertionError(f"{cls.__name__}(**{kwargs!r}) raised a bare "
                             f"{type(err).__name__}: {err}") from err


def arguments_for(fn) -> st.SearchStrategy[dict] | None:
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve
        return None
    required, optional = {}, {}
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "self":
            continue
        strategy = strategy_for(hints.get(p.name, str))
        if p.name == "config":
            strategy = _small_config()
        if p.name in ("scheduler",):
            strategy = st.none()
        if p.name in ("n_trials", "max_trials"):
            strategy = st.one_of(st.sampled_from([0, -1, 500, 2000]))
        if strategy is None:
            if p.default is p.empty:
                return None
            continue
        (required if p.default is p.empty else optional)[p.name] = strategy
    return st.fixed_dictionaries(required, optional=optional)


FUZZED = {name: fn for name, fn in FUNCTIONS.items() if arguments_for(fn) is not None}
SKIPPED = sorted(set(FUNCTIONS) - set(FUZZED))


def test_the_walk_finds_the_query_functions():
    assert {"mathhammer.roll.roll", "mathhammer.dice.parse_dice",
            "mathhammer.fantasy.chain.query.chain_report",
            "mathhammer.magic.single.cast"} <= set(FUZZED) | set(FUNCTIONS), sorted(FUNCTIONS)
    assert len(FUZZED) >= 15, (sorted(FUZZED), SKIPPED)


FORBIDDEN = (ValueError, IndexError, KeyError, ZeroDivisionError, OverflowError, TypeError,
             RecursionError, AttributeError, AssertionError)


def _call(name: str, kwargs: dict) -> None:
    from mathhammer.errors import MathhammerError
    from mathhammer.results import Report

    fn = FUZZED[name]
    refused = [v for v in _leaves(kwargs) if isinstance(v, Refused)]
    if refused:  # an argument's own constructor refused it: that is the check working
        line = refused[0].error.one_line()
        assert "\n" not in line and ": " in line, line
        return
    try:
        with _alarm(60.0):  # a first-run kernel compile on a busy machine included
            result = fn(**kwargs)
    except MathhammerError as err:
        line = err.one_line()
        assert "\n" not in line and ": " in line, line
        return
    except Slow:
        pytest.fail(f"{name}({kwargs!r}) ran past 60 s")
    except FORBIDDEN as err:
        raise AssertionError(f"{name}(**{kwargs!r}) raised a bare "
                             f"{type(err).__name__}: {err}") from err
    if isinstance(result, Report):
        check_report(result.to_dict())


def _leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


FAST = settings(max_examples=int(os.environ.get("MATHHAMMER_FUZZ_EXAMPLES", "6")), deadline=None,
                suppress_health_check=list(HealthCheck), derandomize=DERANDOMIZE, database=None)
SLOW = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck),
                database=None)


@pytest.mark.parametrize("name", sorted(FUZZED))
@FAST
@given(data=st.data())
def test_fuzz_library_function(name, data):
    _call(name, data.draw(arguments_for(FUZZED[name])))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FUZZED))
@SLOW
@given(data=st.data())
def test_fuzz_library_function_long(name, data):
    _call(name, data.draw(arguments_for(FUZZED[name])))
