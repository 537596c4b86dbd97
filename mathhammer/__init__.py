"""mathhammer: exact and Monte Carlo odds for tabletop wargames.

Warmachine Mk II and Warhammer Fantasy / The Ninth Age. Every Monte Carlo figure
carries its standard error; an exact engine answers wherever the state is small.

    >>> import mathhammer as mh
    >>> report = mh.roll("2D6+3", at_least=10)
    >>> round(report.results["p_at_least"].value, 6)
    0.583333

The names below are the library's public API (what the notebooks use); each is loaded
on first use, so ``import mathhammer`` stays light. A query returns a
:class:`Report`: ``results`` (each an :class:`Estimate` with its se and 95% interval),
``distributions`` and ``info``; :func:`headline` says it in one sentence.
"""

from __future__ import annotations

__version__ = "0.1.0"

#: public name -> (module, attribute)
_API: dict[str, tuple[str, str]] = {
    # answers and their errors
    "Report": ("mathhammer.results", "Report"),
    "Estimate": ("mathhammer.results", "Estimate"),
    "Distribution": ("mathhammer.results", "Distribution"),
    "MonteCarloConfig": ("mathhammer.engine", "MonteCarloConfig"),
    "MathhammerError": ("mathhammer.errors", "MathhammerError"),
    "headline": ("mathhammer.present.headline", "headline"),
    # dice
    "DiceExpr": ("mathhammer.dice", "DiceExpr"),
    "parse_dice": ("mathhammer.dice", "parse_dice"),
    "roll": ("mathhammer.roll", "roll"),
    "roll_off": ("mathhammer.dicegames", "roll_off"),
    "scatter": ("mathhammer.dicegames", "scatter"),
    # profiles and lists
    "load_profile": ("mathhammer.profiles", "load_profile"),
    "profiles_root": ("mathhammer.profiles", "profiles_root"),
    "read_toml": ("mathhammer.profiles", "read_toml"),
    "bundled_ids": ("mathhammer.profiles", "bundled_ids"),
    "load_list": ("mathhammer.lists", "load_list"),
    "import_list": ("mathhammer.imports.convert", "import_file"),
    # Warmachine Mk II
    "wm_attack": ("mathhammer.warmachine.chain", "attack"),
    "wm_duel": ("mathhammer.warmachine.duel", "duel"),
    "wm_plan": ("mathhammer.warmachine.plan", "plan"),
    "wm_aoe": ("mathhammer.warmachine.aoe", "aoe"),
    "wm_battle": ("mathhammer.warmachine.battle.query", "wm_battle"),
    "SYSTEM_NAMES": ("mathhammer.warmachine.grid", "SYSTEM_NAMES"),
    # Warhammer Fantasy / The Ninth Age
    "fb_attack": ("mathhammer.fantasy.chain.query", "chain_report"),
    "fb_shoot": ("mathhammer.fantasy.chain.query", "shoot_report"),
    "fb_combat": ("mathhammer.fantasy.combat.fight", "combat"),
    "fb_challenge": ("mathhammer.fantasy.combat.challenge", "challenge"),
    "fb_charge": ("mathhammer.fantasy.charge", "charge_report"),
    "fb_turn": ("mathhammer.fantasy.scenario", "run_turns"),
    "fb_artillery": ("mathhammer.fantasy.artillery.query", "artillery"),
    "fb_test": ("mathhammer.fantasy.characteristic_tests", "fantasy_test_report"),
    "fb_break_test": ("mathhammer.fantasy.characteristic_tests", "break_test_report"),
    "fb_pursuit": ("mathhammer.fantasy.characteristic_tests", "pursuit_report"),
    "fb_battle": ("mathhammer.fantasy.battle.report", "battle"),
    "fb_battle_difference": ("mathhammer.fantasy.battle.compare", "battle_difference"),
    "AttackSpec": ("mathhammer.fantasy.chain.core", "AttackSpec"),
    # the magic phase
    "magic_flow": ("mathhammer.magic.single", "flow"),
    "magic_cast": ("mathhammer.magic.single", "cast"),
    "magic_dispel": ("mathhammer.magic.single", "dispel"),
    "magic_phase": ("mathhammer.magic.scenario", "run_phase"),
    "magic_scenario": ("mathhammer.magic.models", "load_scenario"),
    "magic_rules": ("mathhammer.magic.rules", "magic_rules"),
    "magic_optimise": ("mathhammer.magic.optimise", "optimise"),
    # army lists: matrices, sweeps, scores and tuning
    "compare": ("mathhammer.analysis.compare", "compare"),
    "sweep": ("mathhammer.analysis.sweep", "sweep"),
    "score": ("mathhammer.tuning.score", "score_list"),
    "diff": ("mathhammer.tuning.score", "diff_lists"),
    "tune": ("mathhammer.tuning.tune", "tune_list"),
    # charts
    "plot_matrix": ("mathhammer.plots", "plot_matrix"),
    "plot_table_heatmap": ("mathhammer.plots", "plot_table_heatmap"),
}

__all__ = ["__version__", *_API]


def __getattr__(name: str):  # lazy: keep `import mathhammer` (and the CLI's --help) light
    import importlib

    if name not in _API:  # a subpackage or module on first use: mathhammer.fantasy.battle(...)
        return _subpackage(name)

    module, attribute = _API[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # once loaded, a plain attribute
    return value


def subpackage_getattr(package: str):
    """A package's ``__getattr__`` that imports its subpackages and modules on first use
    (``mathhammer.fantasy.battle(...)`` after ``import mathhammer``); nothing before."""

    def getattr_(name: str):
        import importlib
        import importlib.util

        if name.startswith("_") or importlib.util.find_spec(f"{package}.{name}") is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return importlib.import_module(f"{package}.{name}")

    return getattr_


_subpackage = subpackage_getattr(__name__)


def __dir__() -> list[str]:
    return sorted(__all__)
