"""Many battles: one trial is one battle, in fixed chunks with a seed per chunk.

The Monte Carlo conventions of :mod:`mathhammer.engine`: the chunks are a function of
``n_trials`` alone (:func:`chunk_sizes`), chunk ``i`` draws from the stream
``SeedSequence(seed, spawn_key=(i,))``, and a chunk's tally is integer counts, so the sum
is the same whatever ran where: one worker, several processes of the local pool, or a Dask
cluster (``scheduler``). A worker builds its :class:`~.game.Battle` once from the
:class:`BattleSpec` (plain, picklable inputs) and keeps it for the chunks it runs.
"""

from __future__ import annotations

import math
import os
import random
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from mathhammer.warmachine.battle.game import Battle, first_player
from mathhammer.warmachine.battle.turn import play_turn

CHUNK = 64  # battles per chunk (a few seconds of best-response at most)
MAX_CHUNKS = 4096


@dataclass(frozen=True)
class BattleSpec:
    """Everything a worker needs to rebuild a battle (all plain values: picklable)."""

    list_a: str
    list_b: str
    turns: int
    first: str = "roll-off"
    deployment: str | None = None
    policy_a: str = "greedy"
    policy_b: str = "greedy"
    rollouts: int = 8
    plan: str = "auto"
    options_a: tuple = ()
    options_b: tuple = ()
    iterations: int = 1  # best-response: 2 or 3 answers the other side's best response
    deployment_source: str | None = None  # the scenario key naming the deployment, for errors


@dataclass
class Tally:
    """Integer counts of a chunk of battles (sums of tallies are tallies)."""

    n: int = 0
    wins: np.ndarray = field(default_factory=lambda: np.zeros(3, dtype=np.int64))
    first: np.ndarray = field(default_factory=lambda: np.zeros(2, dtype=np.int64))
    first_wins: np.ndarray = field(default_factory=lambda: np.zeros(3, dtype=np.int64))
    caster_dead: np.ndarray | None = None  # [side, round]: dead by the end of the round
    destroyed: np.ndarray | None = None  # [model, round]
    crippled: np.ndarray | None = None  # [model, round]: alive with a crippled system
    kill_rounds: np.ndarray = field(default_factory=lambda: np.zeros(2, dtype=np.int64))
    rounds: np.ndarray = field(default_factory=lambda: np.zeros(2, dtype=np.int64))
    plans: list = field(default_factory=lambda: [Counter(), Counter()])
    choices: Counter = field(default_factory=Counter)  # (side, round, kind, option) -> count
    decisions: dict = field(default_factory=dict)  # first decision values (best response)
    cpu_seconds: float = 0.0  # CPU time the chunks took (benchmarks; not part of an answer)

    def __add__(self, other: Tally) -> Tally:
        out = Tally()
        out.add(self)
        out.add(other)
        return out

    def add(self, other: Tally) -> None:
        self.n += other.n
        self.cpu_seconds += other.cpu_seconds
        for name in ("wins", "first", "first_wins", "kill_rounds", "rounds"):
            getattr(self, name)[:] += getattr(other, name)
        for name in ("caster_dead", "destroyed", "crippled"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine is None:
                setattr(self, name, None if theirs is None else theirs.copy())
            elif theirs is not None:
                mine += theirs
        for s in (0, 1):
            self.plans[s].update(other.plans[s])
        self.choices.update(other.choices)
        for key, rows in other.decisions.items():
            mine = self.decisions.setdefault(key, {})
            for option, (total, sq, count) in rows.items():
                t0, s0, c0 = mine.get(option, (0, 0, 0))
                mine[option] = (t0 + total, s0 + sq, c0 + count)


def chunk_sizes(n_trials: int) -> list[int]:
    n_chunks = max(1, min(MAX_CHUNKS, math.ceil(n_trials / CHUNK)))
    base, extra = divmod(n_trials, n_chunks)
    return [base + (1 if i < extra else 0) for i in range(n_chunks)]


def chunk_rng(seed: int, chunk: int) -> random.Random:
    """The chunk's stream: SeedSequence(seed, spawn_key=(chunk,)), as the engine's chunks."""
    words = np.random.SeedSequence(seed, spawn_key=(chunk,)).generate_state(4, np.uint64)
    return random.Random(int.from_bytes(words.tobytes(), "little"))


_BUILT: dict = {}


def make_policy(name: str, battle, where: str, **options):
    """The policy ``name`` for one side (``--policy-a`` / ``--policy-b``, WM-B11)."""
    from mathhammer.errors import InputError
    from mathhammer.warmachine.battle.policies import Greedy, Scripted
    from mathhammer.warmachine.battle.response import BestResponse

    if name == "scripted":
        return Scripted(battle)
    if name == "greedy":
        return Greedy(battle)
    if name == "best-response":
        return BestResponse(battle, **options)
    raise InputError(where, "must be scripted, greedy or best-response", name,
                     f"use {where} greedy")


def build(spec: BattleSpec):
    """(battle, policies) of ``spec``: the battle (and its programs) built once per process
    and shared; the policies new at each call (a best-responding one keeps per-battle
    state, and two queries may run the same battle on two threads)."""
    battle = _BUILT.get(spec)
    if battle is None:
        from mathhammer.warmachine.battle.setup import build_sides
        from mathhammer.warmachine.battle.table import default_positions, load_deployment

        models, sides = build_sides(spec.list_a, spec.list_b)
        positions = (load_deployment(spec.deployment, models, sides, spec.deployment_source)
                     if spec.deployment else default_positions(models, sides))
        battle = Battle(models, sides, positions, spec.turns, spec.first, spec.plan)
        if len(_BUILT) > 8:
            _BUILT.clear()
        _BUILT[spec] = battle
    policies = [make_policy(spec.policy_a, battle, "‹policy_a›", rollouts=spec.rollouts,
                            iterations=spec.iterations, **dict(spec.options_a)),
                make_policy(spec.policy_b, battle, "‹policy_b›", rollouts=spec.rollouts,
                            iterations=spec.iterations, **dict(spec.options_b))]
    for side, policy in enumerate(policies):
        if hasattr(policy, "bind"):
            policy.bind(policies, side)
    return battle, policies


_OF_LISTS: dict = {}


def battle_of_lists(army_a, army_b, key: tuple, turns: int, policy_a: str, policy_b: str,
                    rollouts: int = 8):
    """(battle, policies) of two loaded lists on the default deployment (``score --model
    battle``); the battle is built once per process for ``key`` (what the lists are, in
    text) and the policies new at each call, as :func:`build`."""
    battle = _OF_LISTS.get((key, turns))
    if battle is None:
        from mathhammer.warmachine.battle.setup import build_sides
        from mathhammer.warmachine.battle.table import default_positions

        models, sides = build_sides(army_a, army_b)
        battle = Battle(models, sides, default_positions(models, sides), turns, "roll-off", "auto")
        if len(_OF_LISTS) > 64:  # a tune search meets hundreds of lists; keep the recent ones
            _OF_LISTS.pop(next(iter(_OF_LISTS)))
        _OF_LISTS[(key, turns)] = battle
    policies = [make_policy(policy_a, battle, "‹battle_policy›", rollouts=rollouts),
                make_policy(policy_b, battle, "‹meta_policy›", rollouts=rollouts)]
    for side, policy in enumerate(policies):
        if hasattr(policy, "bind"):
            policy.bind(policies, side)
    return battle, policies


def play_battle(battle: Battle, policies, rng, record: list | None = None,
                crippled: list | None = None):
    """One battle from the deployment to its end; ``record`` collects every turn's choices
    (and plan), ``crippled`` the models alive with a crippled system at the end of each
    round played."""
    state = battle.new_state(first_player(battle.first, rng))
    policy_seed = rng.getrandbits(64)  # drawn whatever the policies: the dice stay paired
    for p in policies:
        if hasattr(p, "start_battle"):
            p.start_battle(policy_seed)
    while not state.over:
        rec = {} if record is not None else None
        side, h = state.active, state.h
        play_turn(battle, state, policies, rng, rec)
        if rec is not None:
            record.append((side, h, rec))
        if crippled is not None and (state.h % 2 == 0 or state.over):
            crippled.append([i for i, st in enumerate(state.models) if st.alive and any(
                battle.models[i].grid.crippled(st.bits, x) for x in battle.models[i].grid.systems)])
    return state


def run_chunk(spec: BattleSpec, chunk: int, size: int, seed: int) -> Tally:
    """``size`` battles of chunk ``chunk`` (the unit a worker runs)."""
    return run_chunk_rng(spec, size, chunk_rng(seed, chunk))


def run_chunk_rng(spec: BattleSpec, size: int, rng) -> Tally:
    import time

    started = time.process_time()
    battle, policies = build(spec)
    rounds = battle.turns
    n_models = len(battle.models)
    tally = Tally(caster_dead=np.zeros((2, rounds), dtype=np.int64),
                  destroyed=np.zeros((n_models, rounds), dtype=np.int64),
                  crippled=np.zeros((n_models, rounds), dtype=np.int64))
    for _ in range(size):
        record: list = []
        crippled: list = []
        state = play_battle(battle, policies, rng, record, crippled)
        _count(battle, state, record, crippled, tally, policies)
    tally.cpu_seconds = time.process_time() - started
    return tally


def _count(battle: Battle, state, record, crippled, tally: Tally, policies) -> None:
    tally.n += 1
    tally.wins[state.winner] += 1
    tally.first[state.first] += 1
    if state.winner == 2:
        tally.first_wins[2] += 1
    else:
        tally.first_wins[0 if state.winner == state.first else 1] += 1
    rounds = battle.turns
    for i, st in enumerate(state.models):
        spec = battle.models[i]
        if not st.alive:
            r = st.destroyed_h // 2  # the round it fell in (0-based)
            tally.destroyed[i, r:] += 1
            if spec.is_caster:
                tally.caster_dead[spec.side, r:] += 1
    for r in range(rounds):  # after a caster kill the last round's state stands
        for i in crippled[min(r, len(crippled) - 1)] if crippled else ():
            tally.crippled[i, r] += 1
    if state.kill_h >= 0:
        r = state.kill_h // 2 + 1
        tally.kill_rounds += (r, r * r)
    played = (state.h + 1) // 2 if state.over else rounds
    tally.rounds += (played, played * played)
    for side, h, rec in record:
        for kind, option in rec.get("choices", []):
            tally.choices[(side, h // 2 + 1, kind, option)] += 1
        if h < 2 and "plan" in rec:
            tally.plans[side][rec["plan"]] += 1
    for side, p in enumerate(policies):
        for key, rows in getattr(p, "decisions", {}).items():
            mine = tally.decisions.setdefault((side, *key), {})
            for option, (total, sq, count) in rows.items():  # integers: any order agrees
                t0, s0, c0 = mine.get(option, (0, 0, 0))
                mine[option] = (t0 + total, s0 + sq, c0 + count)


def run(spec: BattleSpec, n_trials: int, seed: int, workers: int | None = None,
        scheduler=None, progress=None) -> Tally:
    """Every chunk of the run — on this process, local worker processes (``workers`` > 1)
    or a Dask cluster — summed; the sum does not depend on which. Local runs go through the
    engine's chunk runner (:func:`mathhammer.engine._run_chunks`: the chunk streams,
    progress and Ctrl-C of every Monte Carlo query); each of its worker threads hands its
    chunk to a worker process, since a battle is Python and holds the GIL."""
    from mathhammer import engine
    from mathhammer.errors import Interrupted

    sizes = chunk_sizes(n_trials)
    if scheduler is not None and scheduler != "local":
        total = Tally()
        for part in _dask([(spec, i, n, seed) for i, n in enumerate(sizes)], scheduler):
            total.add(_unwrap(part))
        return total
    build(spec)  # a bad list fails here, in one line, before any chunk runs
    n_workers = max(1, min(workers or os.cpu_count() or 1, len(sizes)))
    done = 0
    if progress is not None:
        progress(0, n_trials)

    def on_chunk(size: int) -> None:
        nonlocal done
        done += size
        if progress is not None:
            progress(done, n_trials)

    from contextlib import nullcontext

    from mathhammer.workers import pool_of

    with pool_of(n_workers) if n_workers > 1 else nullcontext() as pool:

        def chunk(n: int, state) -> dict:
            job = (spec, n, np.array(state[:4], dtype=np.uint64))
            part = pool.submit(_run_state_job, job).result() if pool else _run_state_job(job)
            return {"tally": np.array([_unwrap(part)], dtype=object)}

        try:
            tally = engine._run_chunks(chunk, sizes, seed, 0, n_workers, on_chunk)
        except engine._PartialInterrupt as stop:
            raise Interrupted(engine.MonteCarloRun(stop.tally, stop.n_done, seed, stop.n_chunks,
                                                   True) if stop.n_done else None) from None
    return tally["tally"][0]


def _state_rng(words) -> random.Random:
    """The chunk stream from the engine's chunk state (its first four words are
    SeedSequence(seed, spawn_key=(chunk,)).generate_state(4): :func:`chunk_rng`'s)."""
    return random.Random(int.from_bytes(np.asarray(words, dtype=np.uint64).tobytes(), "little"))


def _run_state_job(job):
    spec, n, words = job
    return _guarded(run_chunk_rng, spec, n, _state_rng(words))


def _run_job(job):
    return _guarded(run_chunk, *job)


def _guarded(fn, *args):
    """A chunk in a worker; a MathhammerError comes back as plain values (its class does
    not unpickle), raised again by :func:`_unwrap` in the caller."""
    from mathhammer.errors import MathhammerError

    try:
        return fn(*args)
    except MathhammerError as err:
        return ("error", type(err).__module__, type(err).__name__, err.where, err.what,
                err.got if isinstance(err.got, (str, int, float, type(None))) else repr(err.got),
                err.fix)


def _unwrap(part):
    if isinstance(part, tuple) and part and part[0] == "error":
        import importlib

        _, module, name, where, what, got, fix = part
        raise getattr(importlib.import_module(module), name)(where, what, got, fix)
    return part


def _dask(jobs, scheduler):
    from mathhammer.analysis.pool import dask_map

    return dask_map(_run_job, jobs, scheduler=scheduler)
