"""mathhammer: exact and Monte Carlo odds for tabletop wargames.

Warmachine Mk II and Warhammer Fantasy / The Ninth Age. Every Monte Carlo figure
carries its standard error; an exact engine answers wherever the state is small.

    >>> import mathhammer as mh
    >>> report = mh.roll("2D6+3", at_least=10)
    >>> round(report.results["p_at_least"].value, 6)
    0.583333
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "DiceExpr",
    "parse_dice",
    "Distribution",
    "Estimate",
    "Report",
    "MonteCarloConfig",
    "MathhammerError",
    "roll",
]


def __getattr__(name: str):  # lazy: keep `import mathhammer` (and the CLI's --help) light
    if name in {"DiceExpr", "parse_dice"}:
        from mathhammer import dice

        return getattr(dice, name)
    if name in {"Distribution", "Estimate", "Report"}:
        from mathhammer import results

        return getattr(results, name)
    if name == "MonteCarloConfig":
        from mathhammer.engine import MonteCarloConfig

        return MonteCarloConfig
    if name == "MathhammerError":
        from mathhammer.errors import MathhammerError

        return MathhammerError
    if name == "roll":
        from mathhammer.roll import roll

        return roll
    raise AttributeError(f"module 'mathhammer' has no attribute {name!r}")
