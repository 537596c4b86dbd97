"""``mathhammer tune``: search the list changes an options file allows for a better score.

**What may change** (an options file, ``profiles/options/*.toml``)::

    game = "fantasy"
    ruleset = "wfb8"

    [[units]]
    profile = "wfb8/empire_halberdiers"
    max = 3                 # copies of this profile in the list (min: default 0)
    models = [15, 20, 25]   # unit sizes to try (Fantasy); Warmachine: focus = [..], charge = [..]

Entries of the input list whose profile the options do not name stay as they are. A
candidate list is checked by the list loader itself (points cap, warjack points, focus
budget …), so it breaks no rule a list file could not break.

**The search** (objective: ``net_points_per_turn`` of :mod:`.score`). A candidate's score
is arithmetic on cells (:class:`~.score.Ledger`), and cells are cached by what they play,
so screening a change costs only the cells no candidate needed before:

1. *screen* every single change of the current list (add, remove, or swap one unit for
   another size or option) at the screening fidelity (few trials per cell);
2. *race* the best quarter at four times the trials, then the best quarter of those at
   sixteen times, each paired against the current list at the same fidelity (common
   random numbers: same cells, same seeds), keeping only changes better by 2 paired se;
3. move to the best and repeat; when no change helps, *restart* from the best list with
   two random changes, while the time budget lasts.

The top K lists found are re-scored at the final fidelity against the input, paired. The
input list is always a candidate, so the best list never scores below it.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from mathhammer import game as games
from mathhammer import trials
from mathhammer.errors import InputError, MathhammerError, ProfileError
from mathhammer.lists import find_bundled, find_list, load_list
from mathhammer.profiles import pydantic_errors, read_toml
from mathhammer.results import Column, Estimate, InfoTable, Report
from mathhammer.tuning.meta import Meta, load_meta
from mathhammer.tuning.score import _check, _method, _run, build_table
from mathhammer.words import plural, rounded

SCREEN_TRIALS = trials.TUNE_SCREEN
#: the table view of ``info["ranked"]`` (JSON keeps every row's full figures and units)
RANKED_COLUMNS = (Column("rank", "#"), Column("changes", "changes against the input"),
                  Column("points", "points"),
                  Column("score", "net points/turn", se="se"),
                  Column("gain", "gain over the input", se="gain_se", signed=True))
#: the table of a search on battles (TU-B2): probabilities as percentages
BATTLE_COLUMNS = (Column("rank", "#"), Column("changes", "changes against the input"),
                  Column("points", "points"),
                  Column("p_win", "P(win) %", se="p_win_se", scale=100.0),
                  Column("vp_margin", "VP margin", se="vp_margin_se"),
                  Column("gain", "gain in result %", se="gain_se", signed=True, scale=100.0),
                  Column("gain_vp", "gain in VP margin", se="gain_vp_se", signed=True))
RACE_FACTOR = 4
MAX_VARIANTS = 200


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class OptionUnit(_Strict):
    """One ``[[units]]`` entry of an options file: the copies allowed; each game adds the
    entry keys it varies, each a list of values to try (:attr:`Game.variant_fields`)."""

    profile: str = Field(min_length=1)
    min: int = Field(0, ge=0, le=20)
    max: int = Field(1, ge=0, le=20)


_MODELS: dict[tuple[str, ...], type[BaseModel]] = {}


def options_model() -> type[BaseModel]:
    """The options file model over the registered games (every game's variant keys)."""
    names = games.names(lists=True)
    if names not in _MODELS:
        unit = create_model("OptionUnit", __base__=OptionUnit,
                            **games.list_fields("variant_fields"))
        _MODELS[names] = create_model(
            "OptionsFile", __base__=_Strict, name=(str, ""), game=(str, ...), ruleset=(str, ...),
            units=(list[unit], Field(min_length=1, max_length=30)))  # type: ignore[valid-type]
    return _MODELS[names]


Variant = tuple  # (profile, (("models", 20), ("charge", True), ...))


@dataclass
class Space:
    """The fixed entries, the variants per profile, and each profile's min/max copies."""

    base: dict[str, Any]                  # the input list's file, units excluded
    fixed: list[dict[str, Any]]
    variants: dict[str, list[Variant]]    # profile -> its variants
    bounds: dict[str, tuple[int, int]]
    #: per varied profile, the entry keys the options file does not vary that every input
    #: entry of it shares (a character's ``general``, a unit's ``charge``): every variant keeps them
    kept: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_list(self, state: dict[Variant, int], points: int) -> dict[str, Any]:
        units = [dict(u) for u in self.fixed]
        for (profile, opts), n in sorted(state.items(), key=lambda kv: repr(kv[0])):
            if n:
                units.append({"profile": profile, "count": n, **self.kept.get(profile, {}),
                              **dict(opts)})
        return {**self.base, "points": points, "units": units}

    def moves(self, state: dict[Variant, int]) -> list[tuple[str, dict[Variant, int]]]:
        out = []
        for profile, variants in self.variants.items():
            low, high = self.bounds[profile]
            total = sum(state.get(v, 0) for v in variants)
            for v in variants:
                if total < high:
                    out.append((f"+{_name(v)}", {**state, v: state.get(v, 0) + 1}))
                if state.get(v, 0) and total > low:
                    out.append((f"−{_name(v)}", {**state, v: state[v] - 1}))
                if state.get(v, 0):
                    for w in variants:
                        if w != v:
                            out.append((f"{_name(v)} → {_name(w)}",
                                        {**state, v: state[v] - 1, w: state.get(w, 0) + 1}))
        return out


def _name(v: Variant) -> str:
    profile, opts = v
    extra = ", ".join(k if val is True else f"no {k}" if val is False else f"{k} {val}"
                      for k, val in opts if k != "charge" or val)
    return profile.split("/")[-1] + (f" ({extra})" if extra else "")


def validate_options(data: dict, where: str) -> Any:
    """An options file's table, validated (``profiles validate`` and :func:`build_space`)."""
    try:
        spec = options_model().model_validate(data)
    except ValidationError as err:
        raise pydantic_errors(err, where) from None
    for i, u in enumerate(spec.units):
        if u.min > u.max:
            raise ProfileError(f"{where}: units.{i}.min", f"is above max {u.max}", u.min,
                               "use min <= max")
    return spec


def build_space(list_ref: str, options_ref: str, game: str, ruleset: str
                ) -> tuple[Space, dict[Variant, int]]:
    where = str(find_bundled(options_ref, "options", "options"))
    spec = validate_options(read_toml(where), where)
    if (spec.game, spec.ruleset) != (game, ruleset):
        raise ProfileError(f"{where}: game", f"is for {spec.game} {spec.ruleset}, the list is {game} "
                           f"{ruleset}", spec.ruleset, f"use {game} {ruleset} options")
    variant_keys = tuple(games.get(game).variant_fields)  # the game's own order: a variant's name
    raw = read_toml(find_list(list_ref))
    base = {k: v for k, v in raw.items() if k != "units"}
    named = {}
    for i, u in enumerate(spec.units):
        if u.profile in named:
            raise ProfileError(f"{where}: units.{i}.profile", "is named twice", u.profile,
                               "merge the two entries")
        named[u.profile] = (i, u)
    fixed, state = [], {}
    variants: dict[str, list[Variant]] = {}
    for profile, (i, u) in named.items():
        foreign = [k for k in type(u).model_fields if k not in variant_keys
                   and k not in OptionUnit.model_fields and getattr(u, k)]
        if foreign:
            raise ProfileError(f"{where}: units.{i}.{foreign[0]}", f"is not a {game} option",
                               getattr(u, foreign[0]),
                               f"remove it; {game} options vary {', '.join(variant_keys)}")
        keys = [(k, vals) for k in variant_keys if (vals := getattr(u, k))]
        entry_keys = games.get(game).entry_fields
        for k, _ in keys:
            if k not in entry_keys:  # a list of this build could not take the value
                raise ProfileError(f"{where}: units.{i}.{k}", f"{game} list entries of this "
                                   f"build have no {k}", getattr(u, k),
                                   f"remove it; list entries take {', '.join(entry_keys)}")
        combos = itertools.product(*[[(k, v) for v in vals] for k, vals in keys]) if keys else [()]
        variants[profile] = [(profile, tuple(c)) for c in combos]
    kept: dict[str, dict[str, Any]] = {}
    for entry in raw.get("units", []):
        profile = entry.get("profile")
        if profile not in named:
            fixed.append(entry)
            continue
        own = {k: v for k, v in entry.items()
               if k not in variant_keys and k not in ("profile", "count", "name")}
        kept[profile] = own if profile not in kept else \
            {k: v for k, v in kept[profile].items() if own.get(k, not v) == v}
        opts = tuple((k, entry[k]) for k in variant_keys if k in entry)
        v = (profile, opts)
        if v not in variants[profile]:
            variants[profile].append(v)  # the input's own choice is always allowed
        state[v] = state.get(v, 0) + int(entry.get("count", 1))
    if sum(len(v) for v in variants.values()) > MAX_VARIANTS:
        raise ProfileError(where, f"allows {sum(len(v) for v in variants.values())} unit variants, "
                           f"above the limit of {MAX_VARIANTS}", None, "list fewer sizes or options")
    bounds = {p: (u.min, u.max) for p, (_, u) in named.items()}
    return Space(base, fixed, variants, bounds, kept), state


def _state_key(state: dict) -> str:
    return repr(sorted(((k, v) for k, v in state.items() if v), key=repr))


def _list_key(army) -> str:
    """Two candidates that are the same list (however their entries were written)."""
    return repr(sorted((u.profile_id, games.of_profile(u.profile).cell_key(u),
                        repr(sorted(u.options.items())), u.count) for u in army.units))


def merge_equal_entries(data: dict[str, Any], army: Any) -> dict[str, Any] | None:
    """``data`` (a list file) with entries that load to the same unit merged into one, counts
    summed (the input's ``count = 2`` and a candidate's two entries of one, however their
    ``models`` were written), or None when no two entries are equal. A character's entries
    (``joins``, ``general``) and an entry another joins by a later label stay as they are.
    Merging changes no battle: fb battle plays an entry of count N as N units labelled as
    N entries of one would be (tests/test_tuning_battles.py)."""
    joined = {u.options.get("joins") for u in army.units}
    first: dict[str, int] = {}
    units = [dict(e) for e in data["units"]]
    keep = [True] * len(units)
    for i, u in enumerate(army.units):
        if u.options.get("joins") or u.options.get("general"):
            continue
        what = repr((u.profile_id, games.of_profile(u.profile).cell_key(u),
                     sorted(u.options.items(), key=repr)))
        if what not in first:
            first[what] = i
        elif u.label not in joined:
            j = first[what]
            units[j]["count"] = int(units[j].get("count", 1)) + int(units[i].get("count", 1))
            keep[i] = False
    if all(keep):
        return None
    return {**data, "units": [e for e, k in zip(units, keep, strict=True) if k]}


@dataclass
class Scored:
    changes: tuple[str, ...]
    state: dict
    army: Any
    table: Any
    list_dict: dict = None  # the list file it came from
    screened: float = -math.inf  # its last paired gain over the list it was a change of


def tune_list(army: str, options: str, meta: str | Meta, *, points: int | None = None,
              budget_seconds: float = 30.0, max_lists: int | None = None, top: int = 3,
              method: str = "auto",
              n_trials: int | None = None, seed: int | None = None, rounds: int | None = None,
              policy: str = "optimal", scheduler: Any = None, workers: int | None = None,
              progress: Any = None, model: str | None = None, n_battles: int | None = None,
              battle_policy: str | None = None, meta_policy: str | None = None,
              turns: int | None = None) -> Report:
    """The best lists the options allow, as changes against ``army`` (module doc); on
    battles (``model = "battle"``, the default where the game has them) the objective is
    the expected result, P(win) + ½ P(draw), paired battle by battle (TU-B2)."""
    from mathhammer.rng import resolve_seed
    from mathhammer.tuning.battles import resolve_model

    final_trials = _check(method, policy, n_trials)
    if not isinstance(top, int) or isinstance(top, bool) or not 1 <= top <= 20:
        raise InputError("‹top›", "must be a whole number from 1 to 20", top, "use e.g. ‹top› 3")
    if not isinstance(budget_seconds, (int, float)) or not 0 < budget_seconds <= 3600 \
            or math.isnan(budget_seconds):
        raise InputError("‹budget_seconds›", "must be more than 0 and at most 3600", budget_seconds,
                         "use e.g. ‹budget_seconds› 30")
    if max_lists is not None and (isinstance(max_lists, bool) or not isinstance(max_lists, int)
                                  or not 1 <= max_lists <= 10_000_000):
        raise InputError("‹max_lists›", "must be a whole number from 1 to 10,000,000", max_lists,
                         "use e.g. ‹max_lists› 1000")
    start = load_list(army)
    m = load_meta(meta)
    if (start.game, start.ruleset) != (m.game, m.ruleset):
        raise InputError("LIST", f"{start.name} is {start.game} {start.ruleset}, the meta {m.name} is "
                         f"{m.game} {m.ruleset}", army, f"use a {m.game} {m.ruleset} meta")
    cap = start.points_limit if points is None else points
    if isinstance(cap, bool) or not isinstance(cap, int) or not 1 <= cap <= 100_000:
        raise InputError("‹points›", "must be a whole number from 1 to 100,000", points,
                         "use e.g. ‹points› 2000")
    space, state0 = build_space(army, options, m.game, m.ruleset)
    on_battles = resolve_model(model, m.game) == "battle"
    if on_battles:
        from mathhammer.tuning.battles import battle_setup, refuse_cell_settings

        refuse_cell_settings(n_trials=n_trials, rounds=rounds, method=method)

        final_trials, book = battle_setup(start, m, n_battles=n_battles, seed=seed,
                                          policy=battle_policy, meta_policy=meta_policy,
                                          turns=turns, scheduler=scheduler, workers=workers)
        book.game.check_battle(start, "LIST")
        seed = book.seed
        with book.runner:
            return _tune(start, m, space, state0, cap, final_trials, seed, budget_seconds,
                         max_lists, top, army, book=book)
    seed = resolve_seed(seed)
    return _tune(start, m, space, state0, cap, final_trials, seed, budget_seconds, max_lists, top,
                 army, cells=dict(method=method, rounds=rounds, policy=policy,
                                  scheduler=scheduler, workers=workers))


SCREEN_BATTLES = 40  # battles per meta list at the screening fidelity (races: 4x, 16x)


def _tune(start, m, space: Space, state0: dict, cap: int, final_trials: int, seed: int,
          budget_seconds: float, max_lists: int | None, top: int, army: Any, *,
          book: Any = None, cells: dict | None = None) -> Report:
    """The search of :func:`tune_list` on cells (``cells``: their settings) or on battles
    (``book``: a :class:`~mathhammer.tuning.battles.Book`); fidelities are trials per cell
    or battles per meta list."""
    rng = random.Random(seed)
    deadline = time.monotonic() + budget_seconds
    cache: dict[tuple[str, int], Any] = {}  # (cell key, trials) -> CellResult
    screen = min(SCREEN_BATTLES if book is not None else SCREEN_TRIALS, final_trials)
    fidelities = [screen, min(screen * RACE_FACTOR, final_trials),
                  min(screen * RACE_FACTOR ** 2, final_trials)]
    same = _list_key if book is None else book.key  # on battles: one entry per battle played
    scored: set[str] = set()  # the distinct lists the search has scored (--max-lists counts them)

    def make(state: dict, changes: tuple[str, ...]) -> Scored | None:
        data = space.to_list(state, cap)
        try:
            source = f"candidate {'; '.join(changes) or 'input'}"
            lst = load_list(data, source=source)
            merged = merge_equal_entries(data, lst)  # one list, one way of writing it
            if merged is not None:
                data, lst = merged, load_list(merged, source=source)
            if book is not None:
                book.game.check_battle(lst, "candidate")
        except MathhammerError:
            return None  # breaks a list rule (points, focus, warjack points): not a candidate
        if book is not None:
            return Scored(changes, state, lst, None, data)
        table = build_table(lst, m, method=cells["method"], n_trials=screen, seed=seed,
                            rounds=cells["rounds"], policy=cells["policy"])
        return Scored(changes, state, lst, table, data)  # each fidelity only changes the trials

    def net(cands: list[Scored], trials: int) -> None:
        """Fill each candidate's table at this fidelity and compute the cells it lacks."""
        scored.update(same(c.army) for c in cands)
        if book is not None:
            book.fill([c.army for c in cands], trials)
            return
        todo = {}
        for c in cands:
            for k, cell in c.table.cells.items():
                if lookup(k, trials) is None:
                    todo[k] = replace(cell, n_trials=trials)
        if todo:
            for k, r in _run(todo, cells["scheduler"], cells["workers"], None).items():
                cache[(k, None if r.method == "exact" else trials)] = r  # exact: any fidelity

    def lookup(key: str, trials: int):
        return cache.get((key, None)) or cache.get((key, trials))

    def value(c: Scored, trials: int, against: Scored | None = None) -> Estimate:
        if book is not None:  # TU-B2: the expected result, paired battle by battle
            return book.figures(c.army, trials, None if against is None else against.army
                                )["expected_result"]
        results = {k: lookup(k, trials) for k in c.table.cells}
        if against is None:
            return c.table.net().estimate(results)
        results.update({k: lookup(k, trials) for k in against.table.cells})
        return c.table.net().estimate(results, minus=against.table.net())

    input_list = make(state0, ())
    if input_list is not None:
        input_list.screened = 0.0
    if input_list is None:
        raise InputError("LIST", f"breaks a list rule under the points cap {cap}", army,
                         "raise ‹points› or fix the list")
    best, seen, found = input_list, {_state_key(state0)}, [input_list]
    listed = {same(input_list.army)}  # a state that writes a list already listed is that list
    scored.add(same(input_list.army))  # the input is always scored (the final pass pairs on it)
    restarts = 0

    def out_of_budget() -> bool:  # the list count is the budget that gives the same answer anywhere
        return time.monotonic() > deadline or (max_lists is not None and len(scored) >= max_lists)

    while not out_of_budget():
        cands = []
        for label, st in space.moves(best.state):
            key = _state_key(st)
            if key in seen:
                continue
            seen.add(key)
            c = make(st, best.changes + (label,))
            if c is not None and same(c.army) not in listed:
                listed.add(same(c.army))
                cands.append(c)
        if max_lists is not None:  # screen no more new lists than --max-lists leaves
            room = max_lists - len(scored)
            cands = cands[:max(room, 0)]
        improved = None
        if cands:
            pool, reached = cands, fidelities[0]
            for i, trials in enumerate(fidelities):  # screen, then race the best quarter
                net([best, *pool], trials)
                reached = trials
                diffs = sorted(((value(c, trials, best), c) for c in pool), key=lambda x: -x[0].value)
                for d, c in diffs:
                    c.screened = d.value + (best.screened if math.isfinite(best.screened) else 0.0)
                keep = max(1, len(diffs) // 4) if i < len(fidelities) - 1 else len(diffs)
                pool = [c for d, c in diffs[:keep] if d.value > -2 * d.se or i == 0]
                if not pool or out_of_budget():
                    break
            if pool:
                d = value(pool[0], reached, best)
                if d.value > 2 * d.se and d.value > 0:
                    improved = pool[0]
            found.extend(cands)
        if improved is not None:
            best = improved
            continue
        if out_of_budget() or restarts >= 20:
            break
        restarts += 1  # a local optimum: restart from the best with two random changes
        st = best.state
        for _ in range(2):
            options = space.moves(st)
            if options:
                st = rng.choice(options)[1]
        c = make(st, best.changes + ("restart",))
        if c is not None:
            net([best, c], fidelities[-1])
            if value(c, fidelities[-1], best).value > 0:
                best = c
    # the top K at the final fidelity, paired against the input
    evaluated = len(scored)
    final, keys = [], {same(input_list.army)}
    for c in [best, *found]:  # one entry per list, however it was reached
        if same(c.army) not in keys:
            keys.add(same(c.army))
            final.append(c)
    final = sorted(final, key=lambda c: -c.screened)[:3 * top]  # the most promising, re-scored
    net([input_list, *final], final_trials)
    ranked = sorted([input_list, *final], key=lambda c: -value(c, final_trials, input_list).value)[:top]
    if book is not None:
        return _battle_report(start, m, input_list, ranked, final_trials, book, evaluated,
                              budget_seconds, cap)
    return _report(start, m, input_list, ranked, final_trials, seed, lookup, value, evaluated,
                   budget_seconds, cap)


def _diff_text(a: Any, b: Any, policies: tuple[str, str] | None = None) -> str:
    """"−5 Halberdiers, +Great Cannon": the entries of b against a, by label and count; on
    battles (``policies``: both generals) only what those battles play."""
    def variant(u):
        game = games.of_profile(u.profile)
        return game.variant_text(u) if policies is None else game.battle_variant_text(u, policies)

    def counts(lst):
        out = {}
        for u in lst.units:
            name = u.profile.name + variant(u)
            out[name] = out.get(name, 0) + u.count
        return out
    ca, cb = counts(a), counts(b)
    parts = []
    for name in sorted(set(ca) | set(cb)):
        d = cb.get(name, 0) - ca.get(name, 0)
        if d:
            parts.append(f"{'+' if d > 0 else '−'}{abs(d) if abs(d) > 1 else ''}{' x ' if abs(d) > 1 else ''}{name}")
    return ", ".join(parts) or "no change"


def space_units(c: Scored) -> list[dict[str, Any]]:
    """The candidate's ``[[units]]`` tables, ready for a list file."""
    return [dict(u) for u in c.list_dict["units"]]


def _report(start, m, input_list, ranked, trials, seed, lookup, value, evaluated, budget, cap) -> Report:
    figures: dict[str, Estimate] = {}
    base = value(input_list, trials)
    figures["net_points_per_turn[input]"] = base
    candidates = []
    for i, c in enumerate(ranked, 1):
        own, d = value(c, trials), value(c, trials, input_list)
        figures[f"net_points_per_turn[#{i}]"] = own
        figures[f"net_points_per_turn[#{i}-input]"] = d
        candidates.append({"rank": i, "changes": _diff_text(input_list.army, c.army),
                           "points": c.army.total_points, "score": own.value, "se": own.se,
                           "gain": d.value, "gain_se": d.se,
                           "list": c.army.summary(),
                           "units": space_units(c)})
    results = {k: lookup(k, trials) for c in [input_list, *ranked] for k in c.table.cells}
    ranked_table = InfoTable(candidates, RANKED_COLUMNS)  # the table view rounds to the se
    report = Report("tune", _method(results), figures, {}, title=f"tune: {start.name} against {m.name}",
                    info={"input": start.summary(), "points_cap": cap,
                          "ranked": ranked_table, "lists_evaluated": evaluated,
                          "budget_seconds": budget,
                          "search": "screen every single change, race the best quarter at 4x and "
                                    "16x the trials (paired), move, restart from the best; the "
                                    "top lists re-scored paired against the input (docs/guide/lists.md, tune)"})
    if report.method != "exact":
        report.n_trials, report.seed = trials, seed
    top = candidates[0]
    how = "exact" if report.method == "exact" else f"paired Monte Carlo, {trials:,} trials per cell"
    report.headline = (f"Best change for {start.name} against {m.name}: {top['changes']}: "
                       f"{rounded(top['gain'], top['gain_se'], signed=True)}"
                       f" points/turn ({how}; {plural(evaluated, 'list')} evaluated)")
    return report


def _battle_report(start, m, input_list, ranked, n, book, evaluated, budget, cap) -> Report:
    """The ranked lists of a search on battles, each paired against the input (TU-B2)."""
    figures: dict[str, Estimate] = {}
    base = book.figures(input_list.army, n)
    for name in ("p_win", "mean_vp_margin", "expected_result"):
        figures[f"{name}[input]"] = base[name]
    candidates = []
    for i, c in enumerate(ranked, 1):
        own = book.figures(c.army, n)
        d = book.figures(c.army, n, against=input_list.army)
        for name in ("p_win", "mean_vp_margin", "expected_result"):
            figures[f"{name}[#{i}]"] = own[name]
            figures[f"delta_{name}[#{i}-input]"] = d[name]
        candidates.append({"rank": i, "changes": _diff_text(input_list.army, c.army,
                                                             (book.policy, book.meta_policy)),
                           "points": c.army.total_points,
                           "p_win": own["p_win"].value, "p_win_se": own["p_win"].se,
                           "vp_margin": own["mean_vp_margin"].value,
                           "vp_margin_se": own["mean_vp_margin"].se,
                           "gain": d["expected_result"].value, "gain_se": d["expected_result"].se,
                           "gain_vp": d["mean_vp_margin"].value,
                           "gain_vp_se": d["mean_vp_margin"].se,
                           "list": c.army.summary(), "units": space_units(c)})
    report = Report("tune", "mc", figures, {}, n_trials=n, seed=book.seed,
                    title=f"tune on battles: {start.name} against {m.name}",
                    info={"input": start.summary(), "points_cap": cap,
                          "ranked": InfoTable(candidates, BATTLE_COLUMNS),
                          "lists_evaluated": evaluated, "battles_played": book.battles_played,
                          "budget_seconds": budget,
                          "objective": "the expected result P(win) + ½ P(draw) against the meta "
                                       "(TU-B2); gains are paired battle by battle against the "
                                       "input",
                          "battle": book.game.battle_words(),
                          "generals": f"yours {book.policy}, the meta's {book.meta_policy}",
                          "search": f"screen every single change at {SCREEN_BATTLES} battles per "
                                    "meta list, race the best quarter at 4x and 16x (paired), "
                                    "move, restart from the best; the top lists re-played at "
                                    f"{n:,} battles per meta list, paired against the input "
                                    "(README, tune)"})
    top = candidates[0]
    report.headline = (f"Best change for {start.name} against {m.name} on battles: "
                       f"{top['changes']}: expected result "
                       f"{rounded(100 * top['gain'], 100 * top['gain_se'], signed=True)} percentage "
                       f"points, P(win) {rounded(100 * top['p_win'], 100 * top['p_win_se'])}% "
                       f"(paired, {n:,} battles per meta list; {plural(evaluated, 'list')} "
                       "evaluated)")
    return report
