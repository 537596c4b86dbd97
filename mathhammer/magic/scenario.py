"""``mathhammer run`` / ``mathhammer magic phase`` for ``game = "magic"`` scenario files.

``method = "auto"`` runs Monte Carlo (a phase is path dependent, and the answer
carries standard errors); ``exact`` propagates the phase state exactly
(:mod:`mathhammer.magic.exact`); ``check`` runs both.
"""

from __future__ import annotations

from mathhammer.engine import MonteCarloConfig
from mathhammer.magic.models import MagicScenario, load_scenario
from mathhammer.magic.rules import magic_rules
from mathhammer.query import answer
from mathhammer.results import Report


def run_phase(scenario: MagicScenario, *, method: str = "auto",
              config: MonteCarloConfig | None = None, check: bool = False) -> Report:
    """The whole phase of a validated scenario (MG-1..MG-10)."""
    from mathhammer.magic.compile import compile_phase
    from mathhammer.magic.exact import phase_exact
    from mathhammer.magic.phase import phase_monte_carlo

    rules = magic_rules(scenario.ruleset)
    compiled = compile_phase(scenario, rules)
    exact = lambda: phase_exact(scenario, rules, compiled, scenario.ruleset)  # noqa: E731
    from mathhammer.magic.headlines import magic_phase_headline

    report = answer(
        "magic.phase",
        method="mc" if method == "auto" else method,
        exact=exact,
        monte_carlo=lambda cfg: phase_monte_carlo(scenario, rules, compiled, cfg, scenario.ruleset),
        config=config,
        check=check,
    )
    report.headline = magic_phase_headline(report, [s.name for s in scenario.spells])
    return report


def run_scenario(data: dict, source: str, *, method: str = "auto",
                 config: MonteCarloConfig | None = None, check: bool = False) -> Report:
    """Entry point of ``mathhammer run`` (see :mod:`mathhammer.cli.run`)."""
    return run_phase(load_scenario(data, source), method=method, config=config, check=check)
