"""Two battle set-ups on the same dice: the paired difference and its standard error.

Battle j of chunk i draws every die from the same stream whatever the lists or generals
(:func:`mathhammer.fantasy.kernels.battle_state.seed_stream` of the chunk's words and j), so two
set-ups played battle by battle on the same streams share their luck as far as their
battles go alike (common random numbers). The difference of each pair is tallied, and
its mean carries the standard error of the paired differences — far smaller than two
independent runs' when the set-ups are close ("is best-response better than greedy?",
"does this extra unit help?").

>>> diff = battle_difference("wfb8_empire", "wfb8_orcs", policy_a=("best-response", "greedy"),
...                          n_trials=200, seed=1)                              # doctest: +SKIP
>>> diff["mean_vp_margin"]                                                      # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np

from mathhammer.results import Estimate


def battle_difference(list_a, list_b, *, list_a_y=None, list_b_y=None, policy_a=("greedy",),
                      policy_b=("greedy",), turns: int = 6, deployment=None,
                      first: str = "roll-off", n_trials: int = 500, seed: int | None = None,
                      rollouts: int = 8) -> dict[str, Estimate]:
    """Set-up X minus set-up Y, paired battle by battle (see the module docstring).

    X plays ``list_a`` against ``list_b`` with the first policy of ``policy_a`` /
    ``policy_b``; Y the same with ``list_a_y`` / ``list_b_y`` (when given) and the last
    policy of each tuple. Results: ``mean_vp_margin`` (A − B, X minus Y), ``p_a_wins`` and
    ``p_b_wins`` (X minus Y), each with its paired se.
    """
    from mathhammer.fantasy.battle.report import _deployment_data
    from mathhammer.fantasy.battle.runner import Recipe, build_plan, chunk_sizes, kernel_of
    from mathhammer.lists import ArmyList, load_list
    from mathhammer.rng import chunk_state, resolve_seed

    def army(x):
        return x if isinstance(x, ArmyList) else load_list(x)

    data, source = _deployment_data(deployment)
    plans = []
    for lists, policies in (((list_a, list_b), (policy_a[0], policy_b[0])),
                            ((list_a_y or list_a, list_b_y or list_b),
                             (policy_a[-1], policy_b[-1]))):
        recipe = Recipe(army(lists[0]), army(lists[1]), data, source, turns, first,
                        policies[0], policies[1], rollouts, 1)
        plans.append(kernel_of(build_plan(recipe)))
    seed = resolve_seed(seed)
    sums = np.zeros((3, 2))  # margin, A wins, B wins: sum and sum of squares of differences
    for i, size in enumerate(chunk_sizes(n_trials)):
        words = chunk_state(seed, i)
        for j in range(size):
            x, y = (kb.one_battle(words, j) for kb in plans)
            d = np.array(x) - np.array(y)
            sums[:, 0] += d
            sums[:, 1] += d * d
    n = n_trials
    return {name: Estimate.mean(float(sums[k, 0]), float(sums[k, 1]), n)
            for k, name in enumerate(("mean_vp_margin", "p_a_wins", "p_b_wins"))}
