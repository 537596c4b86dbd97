"""Whole Fantasy battles (FB-B1..FB-B10): two army lists over several game turns, every phase,
both generals deciding — ``mathhammer fb battle`` and ``mathhammer.fantasy.battle(...)``.

Modules: :mod:`.army` (lists → units), :mod:`.table` (geometry), :mod:`.deploy`
(deployment, terrain, orders), :mod:`.state` (one battle in play), :mod:`.phases` (the
turn sequence), :mod:`.fights` (close combat by the combat engine), :mod:`.shooting`,
:mod:`.values` and :mod:`.policies` (who decides), :mod:`.scoring` (victory points),
:mod:`.runner` / :mod:`.distributed` (Monte Carlo), :mod:`.report` (the answer).
Nothing heavy is imported here: :mod:`mathhammer.fantasy.rules.ruleset` reads :mod:`.rules`.

This package is also callable — ``mathhammer.fantasy.battle(list_a, list_b, ...)`` is
:func:`mathhammer.fantasy.battle.report.battle` — so the library function and the
package share the name the issue gives them.
"""

from __future__ import annotations

import sys
import types


def battle(list_a, list_b, **options):
    """Play two army lists against each other (see :func:`.report.battle`)."""
    from mathhammer.fantasy.battle.report import battle as run_battle

    return run_battle(list_a, list_b, **options)


class _CallableModule(types.ModuleType):
    def __call__(self, list_a, list_b, **options):
        return battle(list_a, list_b, **options)


sys.modules[__name__].__class__ = _CallableModule
