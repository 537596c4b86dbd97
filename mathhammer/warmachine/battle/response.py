"""``best-response``: every option of a choice played out, the best kept (WM-B11).

At each choice of its turn (posture, feat, focus) a best-responding side copies the battle
as it stands, fixes the option, and plays the rest of the battle ``rollouts`` times — its
own later choices and the opponent's by their continuation policies (the opponent's own
policy, or ``greedy`` when the opponent best-responds too) — scoring a win 1, an undecided
battle ½, a loss 0. Every option is played with the same ``rollouts`` random streams
(common random numbers), so the comparison is paired and the noise of the dice largely
cancels. Ties go to the option the continuation policy would pick itself, so on equal
values the side plays as greedy would.

The streams come from a seed the runner draws for every battle whatever the policies (one
draw at the start), so a battle played best-response and the same battle played greedy
share their dice until a choice differs — the paired comparisons of the tests.

At its first turn the side records each option's rollout scores (in half points, integers,
so sums do not depend on the order chunks finish): the report shows each option's value ±
se over every rollout of the battles where the choice came up.

``iterations = 2`` makes the opponent in the rollouts a best response itself (to this side
playing greedy), ``3`` a best response to that: each iteration answers the one before, as
in Fantasy battles (FB-B10), each level multiplying the rollouts.
"""

from __future__ import annotations

import random

from mathhammer.warmachine.battle.policies import Greedy
from mathhammer.warmachine.battle.turn import KINDS, decide_turn, end_turn, execute_turn, play_turn


class BestResponse:
    name = "best-response"

    def __init__(self, battle, rollouts: int = 8, iterations: int = 1,
                 kinds: tuple[str, ...] = KINDS) -> None:
        self.battle = battle
        self.n_rollouts = rollouts
        self.iterations = iterations
        self.kinds = tuple(kinds)
        self.fallback = Greedy(battle)
        self.opponent = None  # set by the runner: the other side's policy
        self.decisions: dict = {}
        self._seeds = random.Random(0)
        self._turn: tuple = ()
        self._turn_seeds: list = []
        self._played: dict = {}

    def bind(self, policies: list, side: int) -> None:
        other = policies[1 - side]
        self.opponent = self.fallback if isinstance(other, BestResponse) else other
        if self.iterations > 1:  # the other side answers this side's greedy with a best response
            self.opponent = BestResponse(self.battle, self.n_rollouts, self.iterations - 1)
            answering = [None, None]
            answering[side] = self.fallback
            self.opponent.bind(answering, 1 - side)
        self.side = side

    def start_battle(self, seed: int) -> None:
        self._seeds = random.Random(seed)
        self.decisions = {}
        self._turn = ()
        if isinstance(self.opponent, BestResponse):  # the answer's streams follow this seed
            self.opponent.start_battle(self._seeds.getrandbits(64))

    def continuation(self, side: int) -> list:
        out = [self.fallback, self.fallback]
        out[1 - side] = self.opponent or self.fallback
        return out

    def choose(self, state, side: int, kind: str, options: list[str]) -> int:
        cont = self.continuation(side)
        preferred = cont[side].choose(state, side, kind, options)
        if kind not in self.kinds:
            return preferred
        if self._turn != (id(state.models), state.h):  # a new turn: new streams, new cache
            self._turn = (id(state.models), state.h)
            self._turn_seeds = [self._seeds.getrandbits(64) for _ in range(self.n_rollouts)]
            self._played = {}
        seeds = self._turn_seeds
        # options that leave the turn the same (the same posture, split, spending and feat:
        # "allocate" and "as listed" often are) are one option, and a decided turn already
        # played out for an earlier choice of this turn (with the same streams) is not
        # played again
        decided = []
        for k in range(len(options)):
            s = state.copy()
            s.choices[kind] = k
            decide_turn(self.battle, s, cont)
            decided.append((_signature(s), s))
        if len({key for key, _ in decided}) == 1 and state.h >= 2:
            return preferred  # nothing to choose between (and nothing to report)
        totals = []
        for key, s in decided:
            if key not in self._played:
                self._played[key] = self.rollouts(s, side, seeds, cont)
            totals.append(self._played[key])
        best = preferred
        for k, (total, _) in enumerate(totals):
            if total > totals[best][0]:
                best = k
        if state.h < 2:  # the side's first turn (moving first or second), for the report
            self.decisions[(state.h, kind)] = {options[k]: (t, sq, self.n_rollouts)
                                               for k, (t, sq) in enumerate(totals)}
        return best

    def rollouts(self, decided, side: int, seeds, cont) -> tuple[int, int]:
        """The score of a turn already decided over the rollouts, in half points (win 2,
        undecided 1), and the sum of the squared scores."""
        battle = self.battle
        total = sq = 0
        for seed in seeds:
            rng = random.Random(seed)
            s = decided.copy()
            execute_turn(battle, s, rng)
            end_turn(battle, s)
            while not s.over:
                play_turn(battle, s, cont, rng)
            score = 2 if s.winner == side else 1 if s.winner == 2 else 0
            total += score
            sq += score * score
        return total, sq


def _signature(state) -> tuple:
    """What a decided turn does: posture, focus given, what the warcaster keeps and whether it
    spends it, the feat, the plan searched (WM-B11, WM-B13)."""
    plan = state.plan
    caster_focus = tuple(m.focus for m in state.models)
    return (plan["posture"], tuple(sorted(plan["give"].items())), caster_focus, plan["spends"],
            plan["feat"], id(plan.get("exact")))
