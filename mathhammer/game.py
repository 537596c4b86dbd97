"""The Game interface: what a game package tells the shared code, and where games register.

Shared code (lists, ``compare``/``sweep`` cells, ``score``/``diff``/``tune``, imports,
the profile commands) never asks "which game is this?". It asks the game's adapter,
found here by name (a list's ``game = "..."``) or by profile (:func:`of_profile`).
Each game package has one module ``<game>/game.py`` holding a :class:`Game` subclass
and calling :func:`register` at import; :data:`BUILTIN` names those modules, as data,
so this module imports no game (games sit above the shared layer; docs/design.md).

A new game implements the methods without a default below (profiles, list entries,
the cell ``compare`` and ``score`` evaluate) and overrides the defaults it needs;
``tests/test_game_interface.py`` runs a toy game of a few dozen lines through
``compare``, ``score``, ``diff`` and ``tune`` unchanged.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any, ClassVar

#: the modules of the bundled games, imported on first use (each calls :func:`register`)
BUILTIN = ("mathhammer.warmachine.game", "mathhammer.fantasy.game", "mathhammer.magic.game")

_REGISTRY: dict[str, Game] = {}
_loaded = False


class Game:
    """One game behind the shared code. Subclasses set the class attributes and override
    what their game needs; the defaults are the plain reading (points are points)."""

    #: the ``game = "..."`` of list, meta and options files
    name: ClassVar[str] = ""
    #: rulesets a list of this game may name
    rulesets: ClassVar[tuple[str, ...]] = ()
    #: whether a query's ruleset may also be a ruleset file (house rules)
    ruleset_files: ClassVar[bool] = False
    #: list entry keys besides ``profile``, ``count`` and ``name``: key -> (type, pydantic Field)
    entry_fields: ClassVar[dict[str, tuple[Any, Any]]] = {}
    #: entry keys an options file may list values for (``tune`` tries each combination):
    #: key -> (list type, pydantic Field), in the order a variant names them
    variant_fields: ClassVar[dict[str, tuple[Any, Any]]] = {}
    #: whether army lists (and metas, options files) of this game exist
    lists: ClassVar[bool] = True
    #: what a profile's points are per (``"model"``), or "" when they price the profile
    points_per: ClassVar[str] = ""
    #: what ``p_kill`` of a cell means, in words (``sweep`` prints it)
    kill_words: ClassVar[str] = "P(kill)"

    # ------------------------------------------------------------------ profiles
    def load_profile(self, ref: str) -> Any:
        """A validated profile by bundled id or file path (UnknownProfileError on a miss)."""
        raise NotImplementedError

    def owns(self, profile: Any) -> bool:
        """True for a profile object of this game."""
        raise NotImplementedError

    def validate_scenario(self, data: dict, source: str) -> bool:
        """Validate ``data`` when it is one of this game's scenario files (raising on a
        problem) and say True; False when it is not one (``profiles validate``)."""
        return False

    def run_scenario(self, data: dict, source: str, *, method: str, config: Any, check: bool,
                     n_trials: int | None = None) -> Any:
        """``mathhammer run`` of one of this game's scenario files: its Report."""
        raise NotImplementedError

    # ------------------------------------------------------------------ lists
    def list_unit(self, key: str, entry: Any, profile: Any, ruleset: str, label: str) -> Any:
        """The :class:`mathhammer.lists.ListUnit` of a validated list entry (its options and
        the points of one copy); rule breaks are RulesError / ProfileError at ``key``."""
        raise NotImplementedError

    def list_points(self, units: list, where: str) -> int:
        """The list's total (list rules that span entries are checked here)."""
        return sum(u.points * u.count for u in units)

    def check_prices(self, profile: Any, source: str) -> None:
        """Refuse (one ProfileError naming the key) a profile with a part priced 0 that no
        rule makes free (PR-4); ``profiles validate`` asks this of every profile file."""

    def free_by_rule(self, unit: Any) -> str | None:
        """The rule that lets a list unit cost 0 points, or None when nothing does (PR-4:
        the list loader refuses a 0-point unit without one)."""
        return None

    def unit_value(self, unit: Any) -> int:
        """Points a unit is worth as a target (``score``)."""
        return unit.points

    def score_options(self, unit: Any) -> dict[str, Any]:
        """Options beyond the entry's that a unit's ``score`` cell plays as its turn (TU-C1),
        e.g. a Fantasy unit with a missile weapon shoots; part of the cell's key."""
        return {}

    def cell_key(self, unit: Any) -> str:
        """Text beyond the profile id and options that changes what a cell plays (its seed)."""
        return ""

    def variant_text(self, unit: Any) -> str:
        """How ``tune`` names a unit's size or options beside its name, e.g. ``" (20)"``."""
        return ""

    def battle_variant_text(self, unit: Any, policies: tuple[str, str]) -> str:
        """:meth:`variant_text` naming only what a battle under these generals plays (what
        :meth:`battle_key` reads): tune on battles never names a change no battle sees."""
        return self.variant_text(unit)

    # ------------------------------------------------------------------ cells
    def evaluate_cell(self, cell: Any, config: Any) -> Any:
        """Answer one ``compare``/``sweep``/``score`` cell: a
        :class:`mathhammer.analysis.cells.CellResult` (``p_kill``, ``mean_damage``)."""
        raise NotImplementedError

    def cell_runner(self, cell: Any) -> Any:
        """``config -> CellResult`` for one cell, run batch after batch by an adaptive cell: a
        game whose cells take long to set up builds them once here."""
        return lambda config: self.evaluate_cell(cell, config)

    def cell_words(self, policy: str, for_score: bool = False) -> str:
        """What one cell is, in words (the ``cell`` line of ``compare``, or of ``score``)."""
        return "one attack of the attacker against the target; p_kill = P(kill)"

    # ------------------------------------------------------------------ battles
    #: rounds a battle lasts when ``score``/``diff``/``tune`` play lists as battles
    battle_turns: ClassVar[int] = 5
    #: the generals' policies a battle may name, the default first
    battle_policies: ClassVar[tuple[str, ...]] = ("greedy",)

    def has_battles(self) -> bool:
        """Whether this build can play two lists of this game as whole battles (then
        ``score``/``diff``/``tune`` score on battles by default; TU-B1)."""
        return False

    def check_battle(self, army: Any, where: str) -> None:
        """Refuse (one MathhammerError line at ``where``) a list that cannot fight a battle."""

    def play_battles(self, army_a: Any, army_b: Any, *, seed: int, start: int, count: int,
                     policy_a: str = "greedy", policy_b: str = "greedy",
                     turns: int | None = None) -> tuple[Any, Any]:
        """Battles ``start .. start + count - 1`` of list A against list B (TU-B1): two numpy
        arrays, the result of each (1: A won, 0: a draw, -1: B won) and its victory-point
        margin (A's minus B's). Battle ``j`` draws every die from a stream of ``(seed, j)``
        alone: any split of the range plays the same battles, and two lists facing the same
        enemy with the same seed share their dice battle by battle (common random numbers)."""
        from mathhammer.errors import InputError

        raise InputError("‹model›", f"{self.name} battles are not available in this build",
                         "battle", "use ‹model› cells")

    def battle_tables_out(self) -> Any:
        """What this process built for battles that another process of the same run may take
        instead of building it (issue 32); None: nothing. Never changes an answer."""
        return None

    def battle_tables_in(self, tables: Any) -> None:
        """Take what :meth:`battle_tables_out` gave in another process."""

    def battle_key(self, army: Any, policies: tuple[str, str]) -> str:
        """What of a list a battle under these generals plays, in text: two lists with equal
        keys fight the same battles (``tune`` plays them once)."""
        return list_text(army)

    def battle_words(self) -> str:
        """What one battle of ``score --model battle`` is, in words."""
        return "one battle of the two lists"

    # ------------------------------------------------------------------ sweeps
    #: stats a sweep may vary, those that belong to the target, options ``--also`` may
    #: switch on, and the attacker options a sweep accepts
    sweep_stats: ClassVar[tuple[str, ...]] = ()
    sweep_target_stats: ClassVar[tuple[str, ...]] = ()
    sweep_also: ClassVar[tuple[str, ...]] = ()
    sweep_attacker_options: ClassVar[tuple[str, ...]] = ()

    def with_stats(self, profile: Any, options: dict[str, Any]) -> Any:
        """``profile`` with a cell's stat options applied (a sweep's varied stat)."""
        return profile

    def check_sweep_value(self, profile: Any, side: str, stat: str, value: int) -> None:
        """Refuse an impossible stat value before any cell runs (InputError / RulesError)."""

    def sweep_setup(self, attacker: Any, target: Any, attacker_ref: Any, target_ref: Any,
                    base_a: dict[str, Any], base_t: dict[str, Any], also: Iterable[str],
                    policy: str) -> str:
        """Fill the sweep's base cell options in place; returns the policy the cells play."""
        return policy

    def sweep_series_value(self, option: str) -> Any:
        """The value an ``--also`` series gives its option."""
        return True

    def sweep_info(self, policy: str) -> dict[str, str]:
        """Extra ``info`` lines of a sweep report."""
        return {}

    def default_ruleset(self, profile: Any) -> str:
        return self.rulesets[0] if self.rulesets else ""

    # ------------------------------------------------------------------ imports
    #: rulesets an export may be converted to (those with bundled profiles)
    import_rulesets: ClassVar[tuple[str, ...]] = ()
    #: whether an export's printed points are per copy (a Mk II line) or per entry
    import_points_per_copy: ClassVar[bool] = False
    #: comment lines at the top of an imported list file
    import_notes: ClassVar[tuple[str, ...]] = ()

    def reads_text(self, head: str) -> bool:
        """Whether a text export (its first 4,000 characters, lower case) is this game's."""
        return False

    def parse_text(self, text: str, label: str, ruleset: str | None) -> Any:
        """A text export as a :class:`mathhammer.imports.model.ParsedList`."""
        raise NotImplementedError

    def roster_ruleset(self, system: str, game: str | None, ruleset: str | None) -> str | None:
        """The ruleset a BattleScribe roster of game system ``system`` (lower case) converts
        to when it is this game's (``game``/``ruleset``: what the user said), else None."""
        return None

    def roster_entry(self, name: str, number: int, models: int | None, options: dict,
                     points: int, line: str, where: str) -> Any:
        """One roster selection as a :class:`mathhammer.imports.model.Entry`."""
        from mathhammer.imports.model import Entry

        return Entry(name, count=number, options=options, points=points, line=line, where=where)

    def import_ids(self, ruleset: str) -> list[str]:
        """The bundled profile ids an export of ``ruleset`` may name."""
        raise NotImplementedError

    def import_unit(self, entry: Any, profile: Any, fit: Any) -> dict[str, Any]:
        """List entry keys beyond ``profile`` and ``count`` for an export's entry
        (``fit(value, key, label, bounds=None, why=None)`` holds a number to the list
        file's range for ``key``, and to ``bounds`` when given)."""
        return {}

    def import_options(self, entry: Any, profile: Any
                       ) -> tuple[dict[str, Any], list[str], list[tuple[str, str]]]:
        """The export's options of ``entry`` (``entry.options``, names as printed) against
        its profile: (list entry keys they set, options kept — the profile accounts for
        them —, (option, why) for each one dropped). By default none is kept."""
        return {}, [], [(o, f"{profile.name}'s profile takes no options") for o in entry.options]

    # ------------------------------------------------------------------ presentation
    def headline_builders(self) -> dict[str, Any]:
        """Report name -> a function writing its headline from the report alone."""
        return {}

    def figure(self, report: Any) -> Any:
        """The ``--plot`` figure of one of this game's reports, or None for the default."""
        return None

    def card(self, profile: Any) -> list[str] | None:
        """``profiles show``: the profile as text lines, or None for the generic card."""
        return None

    def card_notes(self, profile: Any) -> list[str]:
        """Lines ``profiles show`` adds after the card (how its rules are played)."""
        return []


def list_text(army: Any) -> str:
    """A loaded list as text: two lists with equal texts are the same list (however their
    entries were written)."""
    return repr(sorted((u.profile_id, of_profile(u.profile).cell_key(u),
                        repr(sorted(u.options.items())), u.count) for u in army.units))


def register(game: Game) -> Game:
    """Make ``game`` known by its name (a game module calls this at import)."""
    if not game.name:
        raise ValueError("a game needs a name")
    _REGISTRY[game.name] = game
    return game


def unregister(name: str) -> None:
    """Forget a game (tests that register a toy game clean up with this)."""
    _REGISTRY.pop(name, None)


def _load_builtin() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in BUILTIN:
            importlib.import_module(module)


def names(lists: bool = False) -> tuple[str, ...]:
    """Every known game's name (``lists``: only games with army lists): the bundled games
    in :data:`BUILTIN` order (whatever imported them first), then the others in the order
    they registered."""
    _load_builtin()
    builtin = [name for module in BUILTIN for name, g in _REGISTRY.items()
               if type(g).__module__ == module]
    order = builtin + [name for name in _REGISTRY if name not in builtin]
    return tuple(name for name in order if _REGISTRY[name].lists or not lists)


def list_fields(attribute: str) -> dict[str, tuple]:
    """The union over the games with army lists of one field table (``entry_fields``,
    ``variant_fields``): a file model accepts every game's keys, the first game's
    declaration of a shared key wins (the wrong game's keys are refused by name later)."""
    fields: dict[str, tuple] = {}
    for name in names(lists=True):
        for key, spec in getattr(_REGISTRY[name], attribute).items():
            fields.setdefault(key, spec)
    return fields


def get(name: str, where: str = "game", lists: bool = False) -> Game:
    """The game called ``name`` (``lists``: one with army lists); an unknown name is one
    InputError line at ``where``."""
    _load_builtin()
    game = _REGISTRY.get(name) if isinstance(name, str) else None
    if game is None or (lists and not game.lists):
        from mathhammer.errors import InputError

        first = names(lists)[0]
        raise InputError(where, f"must be {' or '.join(names(lists))}", name,
                         f"use {where} {first}" if where.startswith("‹") else f'use {where} = "{first}"')
    return game


def of_profile(profile: Any) -> Game:
    """The game a profile object belongs to."""
    _load_builtin()
    for name in names():
        if _REGISTRY[name].owns(profile):
            return _REGISTRY[name]
    raise TypeError(f"no registered game owns {type(profile).__name__}")


def check_stat_by_model(game: str, profile: Any, path: str, stat: str, value: int) -> None:
    """Refuse a swept stat value the profile's own model would refuse (its pydantic bounds).

    ``path`` is where the stat lives, ``"stats.mat"``; the changed part is validated again.
    """
    part, attr = path.split(".")
    node = getattr(profile, part)
    data = node.model_dump(by_alias=True)
    data[{"str_": "str", "def_": "def"}.get(attr, attr)] = value
    try:
        type(node).model_validate(data)
    except Exception:
        from mathhammer.errors import InputError

        raise InputError("‹vary›", f"{stat} = {value} is outside what a {game} profile allows",
                         value, "narrow the range") from None
