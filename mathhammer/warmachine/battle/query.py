"""``mathhammer wm battle LIST_A LIST_B``: the library call behind the command and ``run``.

Checks every input first (one line each, exit 2: a list of another game, two warcasters
a side, a deployment off the table, turns 0, an unknown policy), then runs the battles
(:mod:`.runner`) and builds the answer (:mod:`.report`).
"""

from __future__ import annotations

from mathhammer.errors import InputError, TrialLimitError
from mathhammer.results import Report

MAX_TURNS = 20  # rounds; a Mk II game is decided in far fewer
MAX_ROLLOUTS = 256  # rollouts per option of a best-response choice
MAX_ITERATIONS = 3  # answers to answers: each level multiplies the rollouts
MAX_BATTLES = 10**7
DEFAULT_BATTLES = 2000
PLANS = ("auto", "exact", "greedy")


def _whole(value, where: str, low: int, high: int, example: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(where, f"must be a whole number from {low} to {high}", value,
                         f"use {where} {example}")
    return value


def check_inputs(turns, first, policy_a, policy_b, rollouts, plan, iterations=1) -> None:
    from mathhammer.warmachine.battle.game import FIRSTS
    from mathhammer.warmachine.battle.policies import POLICIES

    _whole(turns, "‹turns›", 1, MAX_TURNS, "5")
    if first not in FIRSTS:
        raise InputError("‹first›", "must be a, b or roll-off", first, "use ‹first› roll-off")
    for where, name in (("‹policy_a›", policy_a), ("‹policy_b›", policy_b)):
        if name not in POLICIES:
            raise InputError(where, "must be scripted, greedy or best-response", name,
                             f"use {where} greedy")
    _whole(rollouts, "‹rollouts›", 1, MAX_ROLLOUTS, "8")
    _whole(iterations, "‹iterations›", 1, MAX_ITERATIONS, "1")
    if plan not in PLANS:
        raise InputError("‹plan›", "must be auto, exact or greedy", plan, "use ‹plan› auto")


def wm_battle(list_a, list_b, *, turns: int = 5, deployment=None, policy_a: str = "greedy",
              policy_b: str = "greedy", first: str = "roll-off", rollouts: int = 8,
              iterations: int = 1, plan: str = "auto", n_trials: int = DEFAULT_BATTLES, seed: int | None = None,
              workers: int | None = None, scheduler=None, progress=None,
              deployment_source: str | None = None) -> Report:
    """Two Warmachine lists battle ``turns`` rounds, ``n_trials`` times (issue 31).
    ``deployment_source``: the scenario key that named the deployment file (its errors say
    that key), else errors name the ‹deployment› flag."""
    from mathhammer.engine import validate_trials
    from mathhammer.rng import resolve_seed
    from mathhammer.warmachine.battle.report import build_report
    from mathhammer.warmachine.battle.runner import BattleSpec, build, run

    check_inputs(turns, first, policy_a, policy_b, rollouts, plan, iterations)
    validate_trials(n_trials, "‹n_trials›")
    if n_trials > MAX_BATTLES:
        raise TrialLimitError("‹n_trials›", f"is above the limit of {MAX_BATTLES:,} battles",
                              n_trials, "use fewer battles, e.g. ‹n_trials› 10000")
    if workers is not None:
        _whole(workers, "‹workers›", 1, 256, "2")
    seed = resolve_seed(seed)
    spec = BattleSpec(str(list_a), str(list_b), turns, first,
                      str(deployment) if deployment is not None else None, policy_a, policy_b,
                      rollouts, plan, iterations=iterations, deployment_source=deployment_source)
    battle, _ = build(spec)  # every list and deployment problem is said here, before the run
    from mathhammer.lists import load_list

    names = (load_list(spec.list_a).name, load_list(spec.list_b).name)
    tally = run(spec, n_trials, seed, workers=workers, scheduler=scheduler, progress=progress)
    return build_report(battle, spec, tally, seed, names)


def run_battle_scenario(data: dict, source: str, *, method: str = "auto", config=None,
                        check: bool = False, n_trials: int | None = None) -> Report:
    """``mathhammer run`` with ``kind = "battle"`` in a Warmachine scenario file::

        game = "warmachine"
        kind = "battle"
        list_a = "khador_battlebox"      # a bundled list or a path (relative to the file)
        list_b = "cygnar_battlebox"
        turns = 5                        # optional: first, deployment, policy_a, policy_b,
                                         # rollouts, iterations, plan

    Battles are Monte Carlo only; ``n_trials`` None is the battle default (2,000), not the
    engine's million.
    """
    from pathlib import Path

    from mathhammer.engine import monte_carlo_only
    from mathhammer.errors import ProfileError

    allowed = {"game", "kind", "list_a", "list_b", "turns", "first", "deployment", "policy_a",
               "policy_b", "rollouts", "iterations", "plan", "title"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ProfileError(f"{source}: {unknown[0]}", "is not a battle scenario key", None,
                           "use " + ", ".join(sorted(allowed - {"game", "kind"})))
    base = Path(source).parent

    def text_of(key: str, required: bool = True) -> str | None:
        value = data.get(key)
        if value is None:
            if required:
                raise ProfileError(f"{source}: {key}", "is required", None,
                                   f'add {key} = "khador_battlebox"')
            return None
        if not isinstance(value, str) or not value:
            raise ProfileError(f"{source}: {key}", "must be a list name or a file path", value,
                               f'use {key} = "khador_battlebox"')
        return value

    kwargs = {}
    for key in ("turns", "rollouts", "iterations"):
        if key in data:
            kwargs[key] = data[key]
    for key in ("first", "policy_a", "policy_b", "plan"):
        if key in data:
            kwargs[key] = data[key]
    monte_carlo_only("a battle", method, check=check,
                     precision=None if config is None else config.precision)
    kw = {"n_trials": n_trials if n_trials is not None else DEFAULT_BATTLES}
    if config is not None:
        kw.update(seed=config.seed, workers=config.threads, progress=config.progress)
    from mathhammer.errors import within
    from mathhammer.lists import load_list
    from mathhammer.profiles import beside, file_beside
    from mathhammer.warmachine.battle.setup import warmachine_list

    lists = [beside(text_of(key), base) for key in ("list_a", "list_b")]
    for key, ref in zip(("list_a", "list_b"), lists, strict=True):
        # a list's error names the scenario's key, and quotes what the file says
        warmachine_list(within(f"{source}: {key}", load_list, ref), f"{source}: {key}",
                        text_of(key))
    deployment = text_of("deployment", False)
    if deployment is not None:
        deployment = str(file_beside(f"{source}: deployment", deployment, base))
    return wm_battle(*lists, deployment=deployment, deployment_source=f"{source}: deployment",
                     **kwargs, **kw)
