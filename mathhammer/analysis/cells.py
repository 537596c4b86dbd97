"""One matrix or sweep cell: one attacker against one target, answered by a game engine.

A :class:`Cell` carries everything a worker needs (profiles, options, seed, trials),
so it can be pickled to a thread, a process or a Dask worker; :func:`evaluate`
turns it into a :class:`CellResult` with ``p_kill`` and ``mean_damage``. No rule is
written here: the game's adapter answers the cell with its engines
(:meth:`mathhammer.game.Game.evaluate_cell`; what a cell plays in each game is
written in the adapter's module, e.g. :mod:`mathhammer.warmachine.game`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from mathhammer import game as games
from mathhammer.results import Estimate

CELL_SEED_KEY = 0x6A11  # spawn-key prefix: cell seeds never collide with chunk streams


@dataclass(frozen=True)
class Cell:
    """A unit of work. ``attacker`` / ``target`` are validated profile objects."""

    game: str
    attacker: Any
    target: Any
    attacker_options: dict[str, Any] = field(default_factory=dict)
    target_options: dict[str, Any] = field(default_factory=dict)
    ruleset: str = "wfb8"
    method: str = "auto"
    n_trials: int = 100_000
    seed: int = 0
    rounds: int | None = None
    policy: str = "optimal"
    key: tuple = ()


@dataclass(frozen=True)
class CellResult:
    key: tuple
    p_kill: Estimate
    mean_damage: Estimate
    method: str
    seed: int | None
    n_trials: int | None
    note: str = ""


POLICIES = ("optimal", "greedy", "fixed")


def check_policy(policy: str) -> None:
    if policy not in POLICIES:
        from mathhammer.errors import InputError

        raise InputError("‹policy›", "must be optimal, greedy or fixed", policy,
                         "use ‹policy› optimal")


def cell_seed(seed: int, index: int) -> int:
    """The seed of cell ``index`` of a run seeded ``seed``: a pure function of both, so
    any scheduler (threads, processes, a Dask cluster) gives the same answers."""
    state = np.random.SeedSequence(seed, spawn_key=(CELL_SEED_KEY, index)).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) | (int(state[1]) >> 1))


def evaluate(cell: Cell) -> CellResult:
    """Answer one cell with its game's engine (exact where it can, else Monte Carlo)."""
    from mathhammer.engine import MonteCarloConfig

    config = MonteCarloConfig(n_trials=cell.n_trials, seed=cell.seed, threads=1)
    return games.get(cell.game).evaluate_cell(cell, config)


def with_key(cell: Cell, **changes) -> Cell:
    return replace(cell, **changes)
