"""One matrix or sweep cell: one attacker against one target, answered by a game engine.

A :class:`Cell` carries everything a worker needs (profiles, options, seed, trials),
so it can be pickled to a thread, a process or a Dask worker; :func:`evaluate`
turns it into a :class:`CellResult` with ``p_kill`` and ``mean_damage``. No rule is
written here: the game's adapter answers the cell with its engines
(:meth:`mathhammer.game.Game.evaluate_cell`; what a cell plays in each game is
written in the adapter's module, e.g. :mod:`mathhammer.warmachine.game`).

**Adaptive cells** (issue 29 part 6): a cell with a ``precision`` runs Monte Carlo in
batches until its P(kill) has a 95% (Wilson) half-width of at most ``precision``, and
at most ``n_trials`` trials. Batch 0 uses the cell's seed and batch k the seed
:func:`cell_seed` (cell seed, k); the batch sizes follow from the counts so far. So a
cell's answer is a pure function of the cell, whatever runs it and in whichever order
(the local pool and a Dask cluster agree, and a cell two lists share pairs exactly). A
cell the engine answers exactly runs once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from mathhammer import game as games
from mathhammer.results import Estimate

CELL_SEED_KEY = 0x6A11  # spawn-key prefix: cell seeds never collide with chunk streams
#: an adaptive cell's P(kill) 95% half-width when none is asked for: se at most 0.38 points
DEFAULT_PRECISION = 0.0075
#: an adaptive cell's first batch (and the granule of the later ones): 1,024 trials pin a
#: P(kill) of 0 or 1 to a 95% half-width of 0.37 points
FIRST_BATCH = 1024
#: trials an adaptive cell may run: the default precision needs at most ~38,000
MAX_CELL_TRIALS = 1_000_000


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
    #: adaptive: the 95% half-width of P(kill) to reach (``n_trials`` is then the most
    #: trials the cell may run); None runs exactly ``n_trials``
    precision: float | None = None


@dataclass(frozen=True)
class CellResult:
    key: tuple
    p_kill: Estimate
    mean_damage: Estimate
    method: str
    seed: int | None
    n_trials: int | None
    note: str = ""
    #: what one unit of ``mean_damage`` is of the target (1 / its boxes, 1 / its models):
    #: ``score`` then counts mean_damage x this x the target's points as destroyed (TU-C1);
    #: None: the whole target when killed, p_kill x its points
    damage_share: float | None = None


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


def check_precision(precision: float | None, n_trials: int | None) -> None:
    """A cell precision is a half-width in (0, 0.5), and the trial count is then not fixed."""
    from mathhammer.errors import InputError

    if precision is None:
        return
    if n_trials is not None:
        raise InputError("‹precision›", "and ‹n_trials› both set the trials of a cell", precision,
                         "choose one: ‹precision› (adaptive) or ‹n_trials› (fixed)")
    if isinstance(precision, bool) or not isinstance(precision, (int, float)) \
            or not 0.0 < precision < 0.5:
        raise InputError("‹precision›", "must be a half-width strictly between 0 and 0.5",
                         precision, "use e.g. ‹precision› 0.005")


def evaluate(cell: Cell) -> CellResult:
    """Answer one cell with its game's engine (exact where it can, else Monte Carlo)."""
    from mathhammer.engine import MonteCarloConfig

    game = games.get(cell.game)
    if cell.precision is None or cell.method == "exact":
        return game.evaluate_cell(cell, MonteCarloConfig(n_trials=cell.n_trials, seed=cell.seed,
                                                         threads=1))
    run = game.cell_runner(cell)  # set up once, run batch after batch
    result = run(MonteCarloConfig(n_trials=min(FIRST_BATCH, cell.n_trials), seed=cell.seed,
                                  threads=1))
    batch = 0
    while result.method == "mc" and result.n_trials < cell.n_trials:
        more = more_trials(result.p_kill.value, result.n_trials, cell.precision)
        if more == 0:
            break
        batch += 1
        extra = run(MonteCarloConfig(n_trials=min(more, cell.n_trials - result.n_trials),
                                     seed=cell_seed(cell.seed, batch), threads=1))
        result = pooled(result, extra)
    return result if batch == 0 else replace(result, seed=cell.seed)


def more_trials(p: float, n: int, precision: float) -> int:
    """Trials to add to ``n`` so that P(kill) ``p`` gets a 95% half-width of ``precision``
    (0 when it has one): the shortfall by the half-width's 1/√n, in whole
    :data:`FIRST_BATCH` granules, at most 16x what ran (a wild first estimate)."""
    import math

    from mathhammer.engine import wilson_halfwidth

    width = float(wilson_halfwidth(np.array([p]), n)[0])
    if width <= precision:
        return 0
    need = n * (width / precision) ** 2 - n
    granules = max(1, math.ceil(need / FIRST_BATCH))
    return int(min(granules * FIRST_BATCH, 16 * n))


def pooled(a: CellResult, b: CellResult) -> CellResult:
    """Two Monte Carlo runs of one cell as one: counts and sums of squares added."""
    n = a.n_trials + b.n_trials
    return replace(a, p_kill=_pool(a.p_kill, b.p_kill, a.n_trials, b.n_trials, n),
                   mean_damage=_pool(a.mean_damage, b.mean_damage, a.n_trials, b.n_trials, n),
                   n_trials=n)


def _pool(x: Estimate, y: Estimate, nx: int, ny: int, n: int) -> Estimate:
    if _is_count(x, nx) and _is_count(y, ny):  # a probability: successes out of trials
        return Estimate.proportion(round(x.value * nx) + round(y.value * ny), n)
    total = x.value * nx + y.value * ny
    # a mean: its se is √(var / n) with var = E[x²] − E[x]² (divisor n), so E[x²] comes back
    squares = sum((e.se ** 2 * k + e.value ** 2) * k for e, k in ((x, nx), (y, ny)))
    return Estimate.mean(total, squares, n)


def _is_count(e: Estimate, n: int) -> bool:
    """A proportion: value × n a whole number and se the binomial one."""
    import math

    k = e.value * n
    return 0.0 <= e.value <= 1.0 and abs(k - round(k)) < 1e-6 and math.isclose(
        e.se, math.sqrt(max(e.value * (1 - e.value), 0.0) / n), rel_tol=1e-9, abs_tol=1e-15)


def with_key(cell: Cell, **changes) -> Cell:
    return replace(cell, **changes)
