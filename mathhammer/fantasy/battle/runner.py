"""Monte Carlo over whole battles: one trial is one battle (the engine conventions).

Battles are split into chunks whose number and sizes depend on ``n_trials`` alone; chunk i
draws every die from ``SeedSequence(seed, spawn_key=(i,))`` (:func:`mathhammer.rng.chunk_state`:
the combat kernel's stream, and a Python stream seeded from the same words). Each chunk
returns integer tallies; their sum is the answer, so one worker, several worker processes
or a Dask cluster give bit-identical results for the same seed. Memory does not grow with
the number of battles.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from mathhammer.fantasy.battle.phases import play
from mathhammer.fantasy.battle.plan import empty_tally
from mathhammer.fantasy.battle.scoring import margin, winner
from mathhammer.fantasy.battle.state import BattleState

CHUNK = 25  # battles per chunk (a chunk is ~0.1-1 s of work)
MAX_CHUNKS = 4096
MAX_BATTLES = 10_000_000


@dataclass(frozen=True)
class Recipe:
    """Everything needed to rebuild a plan in another process (a Dask worker)."""

    army_a: Any
    army_b: Any
    deployment: dict | None
    deployment_source: str
    turns: int
    first: str
    policy_a: str
    policy_b: str
    rollouts: int
    iterations: int


def build_plan(recipe: Recipe):
    from mathhammer.fantasy.battle.army import battle_units, check_armies
    from mathhammer.fantasy.battle.deploy import load_deployment
    from mathhammer.fantasy.battle.plan import BattlePlan
    from mathhammer.fantasy.battle.policies import make_policy
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    check_armies(recipe.army_a, recipe.army_b)  # a Warmachine list has no ruleset here
    rules = load_ruleset(recipe.army_a.ruleset)
    units = battle_units(recipe.army_a, recipe.army_b, rules)
    deployment = load_deployment(recipe.deployment, units, rules, recipe.deployment_source)
    plan = BattlePlan(units, rules, deployment, recipe.turns, recipe.first,
                      (recipe.army_a.name, recipe.army_b.name),
                      (recipe.army_a.points_limit, recipe.army_b.points_limit))
    plan.policies = [make_policy(name, rollouts=recipe.rollouts, iterations=recipe.iterations,
                                 where=f"‹policy_{'ab'[s]}›").bind(plan, s)
                     for s, name in enumerate((recipe.policy_a, recipe.policy_b))]
    plan.vocabulary = vocabulary(plan)
    # the kernel plays one answer to answers (a best response's iterations > 1 is the
    # reference engine's); without a best response, iterations are read by no policy
    answers = recipe.iterations > 1 and any(p.name == "best-response" for p in plan.policies)
    plan.engine = "python" if answers else "kernel"

    plan.max_margin = int(math.ceil(max_vp(plan, 0) + max_vp(plan, 1)))
    return plan


def max_vp(plan, side: int) -> float:
    br = plan.rules.battle
    enemy = plan.sides[1 - side]
    return (br.destroyed * sum(plan.units[u].points for u in enemy) + br.general_bonus
            + br.battle_standard_bonus + br.standard_bonus * len(enemy))


def vocabulary(plan) -> dict[tuple, int]:
    """Every (side, kind, unit, option label) a battle may record, in a fixed order."""
    keys: list[tuple] = []
    for u, unit in enumerate(plan.units):
        enemies = [plan.units[t].label for t in plan.sides[1 - unit.side]]
        s = unit.side
        keys += [(s, "charge", u, "no charge")] + [(s, "charge", u, f"charge {e}") for e in enemies]
        keys += [(s, "reaction", u, x) for x in ("hold", "flee", "stand and shoot")]
        keys += [(s, "move", u, "hold")] + [(s, "move", u, f"advance on {e}") for e in enemies]
        keys += [(s, "move", u, "step back")]
        keys += [(s, "shoot", u, "hold fire")] + [(s, "shoot", u, f"shoot {e}") for e in enemies]
        keys += [(s, "pursue", u, "pursue"), (s, "pursue", u, "restrain")]
        keys += challenge_vocabulary(plan, u)
    from mathhammer.fantasy.battle.magic import vocabulary as magic_vocabulary

    keys += magic_vocabulary(plan)  # FB-B12: after the others (their indexes unchanged)
    return {k: i for i, k in enumerate(keys)}


def challenge_vocabulary(plan, u: int) -> list[tuple]:
    """FB-B20: a unit with characters or a champion issues and answers challenges (the
    option slots of the kernel: challenge 0 none, 1 + k the k-th able model; answer k the
    k-th able model, then refuse)."""
    from mathhammer.fantasy.battle.challenges import able_bodies

    able = [plan.units[u].bodies[b][0] for b in able_bodies(plan, u)]
    if not able:
        return []
    s = plan.units[u].side
    return ([(s, "challenge", u, "no challenge")]
            + [(s, "challenge", u, f"challenge with {name}") for name in able]
            + [(s, "answer", u, f"accept with {name}") for name in able]
            + [(s, "answer", u, "refuse")])


def chunk_sizes(n_trials: int) -> list[int]:
    """Sizes of the chunks of a run: a function of ``n_trials`` only."""
    n_chunks = max(1, min(MAX_CHUNKS, math.ceil(n_trials / CHUNK)))
    base, extra = divmod(n_trials, n_chunks)
    return [base + (1 if i < extra else 0) for i in range(n_chunks)]


def new_battle(plan, words: np.ndarray) -> BattleState:
    """A fresh battle on the stream ``words`` (uint64[8]): the kernel's state and a Python
    generator seeded from the same words."""
    seed = int.from_bytes(np.asarray(words[:4], np.uint64).tobytes(), "little")
    return BattleState(plan, random.Random(seed), words)


def run_chunk(plan, n: int, words: np.ndarray) -> dict[str, np.ndarray]:
    """``n`` battles on one chunk's stream: integer tallies (the battle kernel, or the Python
    reference engine of :mod:`.phases` when ``plan.engine == "python"``)."""
    if plan.engine == "kernel":
        return kernel_of(plan).run_chunk(n, words)
    return run_chunk_python(plan, n, words)


def kernel_of(plan):
    """The plan's battle kernel and its tables (built once per process)."""
    if plan.kernel is None:
        from mathhammer.fantasy.battle.compile import KernelBattle

        # issue 32: a probe pass plays on after a missing table with a placeholder, and then
        # asks for tables the real battle never reaches (a quarter of a greedy run's exact
        # values, ~15 ms each); replaying a greedy battle from its start is ~1 ms, so only
        # rollouts (best-response: a replay is costly) probe. Same answers either way.
        rollouts = any(p.name == "best-response" for p in plan.policies)
        plan.kernel = KernelBattle(plan, probing=rollouts)
    return plan.kernel


def run_chunk_python(plan, n: int, words: np.ndarray) -> dict[str, np.ndarray]:
    """The reference engine: every step in Python, the same rules (slow; tests compare)."""
    tally = empty_tally(plan)
    words = np.array(words, dtype=np.uint64)  # the kernel advances it in place
    state = None
    for _ in range(n):
        state = new_battle(plan, words) if state is None else _next_battle(plan, state)
        play(plan, state)
        record(plan, state, tally)
    return tally


def _next_battle(plan, previous: BattleState) -> BattleState:
    return BattleState(plan, previous.rng, previous.kstate)


def record(plan, state: BattleState, tally: dict[str, np.ndarray]) -> None:
    m = margin(plan, state)
    tally["outcome"][winner(plan, m)] += 1
    twice = int(round(2 * m))
    tally["margin2"][0] += twice
    tally["margin2"][1] += twice * twice
    tally["margin_hist"][int(math.floor(m + 0.5)) + plan.max_margin] += 1
    for turn, statuses in enumerate(state.history):
        for u, st in enumerate(statuses):
            tally["status"][turn, u, st] += 1
    for u in range(len(plan.units)):
        left = 0 if state.status[u] in (2, 3) else state.models[u]
        tally["models_left"][u, left] += 1
    vocab = plan.vocabulary
    for key in state.decisions or ():
        tally["decisions"][vocab[key]] += 1


def _add(total: dict, part: dict) -> None:
    for key, value in part.items():
        if key in total:
            total[key] += value
        else:
            total[key] = value.copy()
