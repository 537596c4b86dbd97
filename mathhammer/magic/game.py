"""The magic phase behind the Game interface (:mod:`mathhammer.game`), where it applies.

Magic has no profiles or army lists of its own (wizards come with the Fantasy units);
what the shared code asks of it is presentation: the headline sentences and answer
charts of its reports, and telling its scenario files apart (``game = "magic"``).
"""

from __future__ import annotations

from typing import Any

from mathhammer.game import Game, register


class Magic(Game):
    name = "magic"
    rulesets = ("t9a1", "wfb8")
    lists = False

    def owns(self, profile: Any) -> bool:
        return False

    def run_scenario(self, data, source, *, method, config, check, n_trials=None):
        from mathhammer.magic.scenario import run_scenario

        return run_scenario(data, source, method=method, config=config, check=check)

    def validate_scenario(self, data: dict, source: str) -> bool:
        from mathhammer.magic.models import load_scenario

        load_scenario(data, source)
        return True

    def headline_builders(self):
        from mathhammer.magic.headlines import BUILDERS

        return BUILDERS

    def figure(self, report):
        from mathhammer.magic.figures import FIGURES

        builder = FIGURES.get(report.command)
        return None if builder is None else builder(report)


GAME = register(Magic())
