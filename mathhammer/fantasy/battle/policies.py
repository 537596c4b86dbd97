"""Who decides (FB-B10): one interface, three generals.

Every decision of a battle — charge or not and whom, the reaction to a charge, where to
move, whom to shoot, pursue or restrain — goes through ``policy.choose(state, side, kind,
options) -> index``: the policy sees the whole state and the legal options (each an
:class:`~mathhammer.fantasy.battle.phases.Option` with its unit, label and target) and
returns one. The engine never asks who decides.

* ``scripted``: the orders of the deployment file (``charge``, ``reaction``, ``move``,
  ``shoot``, ``pursue`` per unit); a unit without an order charges the first enemy it may,
  holds when charged, advances on the nearest enemy, shoots the nearest and pursues.
* ``greedy``: each option's value one step ahead by the exact engines
  (:mod:`mathhammer.fantasy.battle.values`); the best, ties to the first listed.
* ``best-response``: each option of a charge, reaction, shooting, pursuit or magic (FB-B12:
  cast, dice, dispel; at most 16 options) decision played
  out ``rollouts`` times to the end of the battle from the state at the decision, the same
  dice for every option (common random numbers: rollout k of every option starts from the
  same seeds), this side's later decisions by ``greedy`` and the other side's by its own
  policy; greedy's choice stands unless another option's mean VP margin is better by more
  than ``BR_Z`` standard errors of the paired difference (so noise never makes it worse
  than greedy). Moves stay greedy (the most numerous choices).
  ``iterations = 2`` makes the other side in the rollouts a best response itself (to
  greedy): each iteration answers the previous one.
"""

from __future__ import annotations

import math
import random

import numpy as np

from mathhammer.errors import InputError

POLICIES = ("scripted", "greedy", "best-response")
MAGIC_KINDS = ("cast", "cast dice", "dispel")  # FB-B12 (battle.magic.MAGIC_KINDS)
MAX_ITERATIONS = 3
MAX_ROLLOUTS = 256


class Policy:
    name = "policy"

    def bind(self, plan, side: int) -> Policy:
        self.plan, self.side = plan, side
        return self

    def choose(self, state, side: int, kind: str, options: list) -> int:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> str:
        return self.name


class Scripted(Policy):
    name = "scripted"

    def choose(self, state, side, kind, options) -> int:
        plan = self.plan
        if kind in MAGIC_KINDS:  # FB-B12: the magic phase's own orders
            from mathhammer.fantasy.battle.magic import scripted_choice

            return scripted_choice(plan, state, kind, options)
        orders = plan.deployment.orders[options[0].unit]
        labels = [o.label for o in options]
        if kind == "charge":
            order = orders.get("charge", "any")
            if order == "none":
                return 0
            if order == "any":
                return 1 if len(options) > 1 else 0
            return next((i for i, o in enumerate(options) if o.target is not None
                         and plan.units[o.target].label == order), 0)
        if kind == "reaction":
            wanted = orders.get("reaction", "hold").replace("-", " ")
            return labels.index(wanted) if wanted in labels else 0
        if kind == "move":
            order = orders.get("move", "advance")
            if order == "advance":
                return 1 if len(options) > 2 else 0
            return labels.index("step back") if order == "retreat" else 0
        if kind == "shoot":
            order = orders.get("shoot", "nearest")
            if order == "none" or len(options) == 1:
                return 0
            if order in ("nearest", "any"):
                return min(range(1, len(options)), key=lambda i: options[i].extra[0])
            return next((i for i, o in enumerate(options) if o.target is not None
                         and plan.units[o.target].label == order), 0)
        if kind == "pursue":
            return 0 if orders.get("pursue", True) else 1
        if kind in ("challenge", "answer"):  # FB-B20
            from mathhammer.fantasy.battle.challenges import scripted_choice

            return scripted_choice(plan, kind, options)
        return 0


class Greedy(Policy):
    name = "greedy"

    def values(self, state, side, kind, options) -> list[float]:
        from mathhammer.fantasy.battle import values as v

        plan = self.plan
        if kind in MAGIC_KINDS:  # FB-B12: the magic engine's exact tables one step ahead
            from mathhammer.fantasy.battle.magic import option_values

            return option_values(plan, state, kind, options)
        if kind == "charge":
            return [0.0] + [v.charge_value(plan, state, o) for o in options[1:]]
        if kind == "reaction":
            face, _fside, gap = options[0].extra
            return [v.reaction_value(plan, state, o, gap, face) for o in options]
        if kind == "move":
            return [v.move_value(plan, state, o, i) for i, o in enumerate(options)]
        if kind == "shoot":
            return [0.0] + [v.volley_value(plan, state, o.unit, o.target, *o.extra)
                            for o in options[1:]]
        if kind in ("challenge", "answer"):  # FB-B20: one exact round with the challenge
            from mathhammer.fantasy.battle.challenge_values import greedy_values

            return greedy_values(plan, state, kind, options)
        return [v.pursue_value(plan, state, o) for o in options]

    def choose(self, state, side, kind, options) -> int:
        values = self.values(state, side, kind, options)
        best = max(range(len(values)), key=lambda i: (values[i] > values[0] + 1e-9, values[i]))
        if state.first_values is not None and side not in state.first_values \
                and kind not in MAGIC_KINDS:  # FB-B12: as the kernel, the first other decision
            state.first_values[side] = _first(self.plan, kind, options,
                                              [(x, 0.0) for x in values])
        return best if values[best] > values[0] + 1e-9 else 0


#: the decisions a best response plays out (moves stay greedy: they are the most numerous
#: and the one-step threat values them well; FB-B10)
BR_KINDS = ("charge", "reaction", "shoot", "pursue", "challenge", "answer") + MAGIC_KINDS
#: FB-B12: a magic decision with more options than this is greedy's (the kernel's MAXOPT)
BR_MAX_MAGIC_OPTIONS = 16
BR_Z = 2.0  # an alternative replaces greedy's choice when better by 2 paired se


class BestResponse(Policy):
    name = "best-response"

    def __init__(self, rollouts: int = 8, iterations: int = 1, opponent: Policy | None = None,
                 kinds: tuple[str, ...] = BR_KINDS):
        self.rollouts, self.iterations = rollouts, iterations
        self.opponent = opponent
        self.kinds = kinds

    def bind(self, plan, side: int) -> Policy:
        super().bind(plan, side)
        self.base = Greedy().bind(plan, side)
        other = self.opponent or Greedy()
        if self.iterations > 1:  # the other side answers greedy with its own best response
            other = BestResponse(self.rollouts, self.iterations - 1)
        self.other = other.bind(plan, 1 - side)
        return self

    def describe(self) -> str:
        text = f"best-response ({self.rollouts} rollouts per option"
        return text + (f", {self.iterations} iterations)" if self.iterations > 1 else ")")

    def choose(self, state, side, kind, options) -> int:
        from mathhammer.fantasy.battle.phases import play, step
        from mathhammer.fantasy.battle.scoring import margin

        plan = self.plan
        # greedy's steps inside a best response are not its first decision (FB-B10)
        record, state.first_values = state.first_values, None
        base = self.base.choose(state, side, kind, options)
        state.first_values = record
        if kind not in self.kinds or (kind in MAGIC_KINDS
                                      and len(options) > BR_MAX_MAGIC_OPTIONS):
            return base
        seeds = [state.rng.getrandbits(63) for _ in range(self.rollouts)]
        pair = [None, None]
        pair[side], pair[1 - side] = self.base, self.other
        values = []
        for j in range(len(options)):
            row = []
            for seed in seeds:  # common random numbers: rollout k of every option alike
                trial = state.copy(random.Random(seed), _kernel_state(seed))
                trial.policies = pair
                step(plan, trial, forced=j)
                play(plan, trial)
                row.append(margin(plan, trial) * (1 if side == 0 else -1))
            values.append(row)
        best, best_gain = base, 0.0
        for j, row in enumerate(values):  # greedy's choice unless one is clearly better
            gain, se = _mean_se([a - b for a, b in zip(row, values[base], strict=True)])
            if j != base and gain > BR_Z * se and gain > best_gain:
                best, best_gain = j, gain
        if state.first_values is not None and side not in state.first_values \
                and kind not in MAGIC_KINDS:  # FB-B12: magic decisions are not listed
            state.first_values[side] = _first(plan, kind, options,
                                              [_mean_se(row) for row in values])
        return best


def _mean_se(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    var = max(sum(x * x for x in xs) / n - mean * mean, 0.0)
    return mean, (math.sqrt(var / (n - 1)) if n > 1 else 0.0)


def _kernel_state(seed: int) -> np.ndarray:
    from mathhammer.rng import chunk_state

    return chunk_state(seed, 0)


def _first(plan, kind, options, values) -> dict:
    unit = plan.units[options[0].unit].label
    return {"kind": kind, "unit": unit,
            "options": [{"option": o.label, "value": float(v), "se": float(se)}
                        for o, (v, se) in zip(options, values)]}


def make_policy(name: str, *, rollouts: int = 8, iterations: int = 1, where: str = "‹policy_a›") -> Policy:
    if name not in POLICIES:
        raise InputError(where, f"must be one of {', '.join(POLICIES)}", name,
                         f"use {where} greedy")
    if isinstance(rollouts, bool) or not isinstance(rollouts, int) or not 1 <= rollouts <= MAX_ROLLOUTS:
        raise InputError("‹rollouts›", f"must be 1..{MAX_ROLLOUTS}", rollouts, "use ‹rollouts› 8")
    if isinstance(iterations, bool) or not isinstance(iterations, int) \
            or not 1 <= iterations <= MAX_ITERATIONS:
        raise InputError("‹iterations›", f"must be 1..{MAX_ITERATIONS}", iterations,
                         "use ‹iterations› 1")
    if name == "scripted":
        return Scripted()
    if name == "greedy":
        return Greedy()
    return BestResponse(rollouts, iterations)
