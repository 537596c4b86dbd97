"""Lists scored on whole battles: ``score``/``diff``/``tune`` with ``model = "battle"`` (TU-B1).

Each list of the meta is played as a battle against yours by the game's own battle engine
(the adapter's :meth:`~mathhammer.game.Game.play_battles`), both generals choosing by a
policy (greedy by default). A list's figures are weighted by the meta: P(win), P(draw),
P(loss) and the mean victory-point margin (yours minus the enemy's), each with its se
(√Σ w² · var / n over the meta's lists).

**Pairing.** Battle ``j`` against meta list ``L`` draws its dice from a stream of the run's
seed, what ``L`` is, and ``j`` alone, so two lists facing ``L`` with the same seed play
battle ``j`` on the same dice (common random numbers): ``diff`` and ``tune`` take the mean
of the battle-by-battle differences and its se. A list against itself differs by exactly
0 ± 0. Outcomes are cached by what the list is, so a longer run only plays the battles it
lacks, and any split of the battles over processes or a Dask cluster gives the same answer.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from mathhammer import game as games
from mathhammer.errors import InputError, MathhammerError
from mathhammer.results import Z95, Estimate, Report
from mathhammer.tuning.meta import list_and_meta

DEFAULT_BATTLES = 1000  # per list of the meta (score, diff)
MAX_BATTLES = 1_000_000
BLOCK = 50  # battles per job handed to a worker
SMALLEST = 10  # battles: a job is never cut finer (Runner: one pairing over both cores)
#: a call is cut into at least this many pieces per process (when helpers may play it): the
#: processes swap the tables they built after every piece, so less is built twice
PIECES = 4
MODELS = ("battle", "cells")


# ------------------------------------------------------------------ inputs
def resolve_model(model: str | None, game: str) -> str:
    """``model`` checked; None: battles where the game's adapter has them, else cells."""
    if model is None:
        return "battle" if games.get(game).has_battles() else "cells"
    if model not in MODELS:
        raise InputError("‹model›", "must be battle or cells", model, "use ‹model› battle")
    if model == "battle" and not games.get(game).has_battles():
        games.get(game).play_battles(None, None, seed=0, start=0, count=0)  # its one line
    return model


def refuse_cell_settings(*, n_trials: Any = None, precision: Any = None, rounds: Any = None,
                         method: str = "auto") -> None:
    """Settings only cells read (trials per cell, their precision, combat rounds, exact
    cells), refused on battles in one line rather than silently ignored: a battle run's
    size is ``‹battles›`` per meta list, its length ``‹turns›``."""
    for name, value, what, instead in (
            ("n_trials", n_trials, "trials per cell", "‹battles› N (battles per list of the meta, "
             "default 1,000)"),
            ("precision", precision, "the cells' precision", "‹battles› N (battles per list of "
             "the meta, default 1,000)"),
            ("rounds", rounds, "combat rounds per cell", "‹turns› N (rounds of the battle)")):
        if value is not None:
            raise InputError(f"‹{name}›", f"sets {what} of ‹model› cells and is not read by "
                             "battles", value, f"on battles use {instead}, or add ‹model› cells")
    from mathhammer.engine import monte_carlo_only

    monte_carlo_only("a battle", method, instead="drop ‹method›, or add ‹model› cells")


def check_battles(n: Any, where: str = "‹battles›", default: int = DEFAULT_BATTLES) -> int:
    if n is None:
        return default
    if isinstance(n, bool) or not isinstance(n, int) or not 10 <= n <= MAX_BATTLES:
        raise InputError(where, f"must be a whole number from 10 to {MAX_BATTLES:,}", n,
                         f"use e.g. {where} 1000")
    return n


def check_general(game: str, policy: str, where: str) -> str:
    allowed = games.get(game).battle_policies
    if policy not in allowed:
        raise InputError(where, f"must be {' or '.join(allowed)}", policy,
                         f"use {where} {allowed[0]}")
    return policy


def list_key(army) -> str:
    """Two lists that are the same list (however their entries were written)."""
    return games.list_text(army)


def pairing_seed(seed: int, enemy) -> int:
    """The stream of the battles against ``enemy``: the run's seed and what the enemy is."""
    import hashlib

    from mathhammer.analysis.cells import cell_seed

    key = "battle against " + list_key(enemy)  # as score's cells: sha256 of what is played
    return cell_seed(seed, int(hashlib.sha256(key.encode()).hexdigest()[:12], 16))


# ------------------------------------------------------------------ playing
def _play(job: tuple) -> Any:
    """One block of battles in whatever process runs it (picklable in and out)."""
    name, army, enemy, seed, start, count, policy_a, policy_b, turns = job
    try:
        return games.get(name).play_battles(army, enemy, seed=seed, start=start, count=count,
                                            policy_a=policy_a, policy_b=policy_b, turns=turns)
    except MathhammerError as err:  # its class may not unpickle: plain values, raised again
        return ("error", type(err).__module__, type(err).__name__, err.where, err.what,
                err.got if isinstance(err.got, (str, int, float, type(None))) else repr(err.got),
                err.fix)


def _play_carrying(job: tuple, tables: Any) -> tuple[Any, Any, int]:
    """:func:`_play` in a pool's worker: it first takes the tables the run built elsewhere that
    it may lack, and hands back those it built (the game's ``battle_tables_in``/``_out``) and
    which process it is (the run sends it only what it has not seen)."""
    game = games.get(job[0])
    game.battle_tables_in(tables)
    part = _play(job)
    return part, game.battle_tables_out(), os.getpid()


def _split(jobs: list[tuple], pieces: int) -> tuple[list[tuple], list[int]]:
    """Each job cut into ``pieces`` runs of its battles (at least :data:`SMALLEST` each), and
    the job each piece belongs to: battle j draws from its own stream, so any cut plays the
    same battles."""
    out, owner = [], []
    for k, job in enumerate(jobs):
        start, count = job[4], job[5]
        n = max(1, min(pieces, count // SMALLEST))
        edges = [start + count * i // n for i in range(n + 1)]
        for a, b in zip(edges, edges[1:]):
            out.append(job[:4] + (a, b - a) + job[6:])
            owner.append(k)
    return out, owner


def _unwrap(part: Any) -> Any:
    if isinstance(part, tuple) and len(part) == 7 and isinstance(part[0], str):
        import importlib

        _, module, name, where, what, got, fix = part
        raise getattr(importlib.import_module(module), name)(where, what, got, fix)
    return part


class Runner:
    """Runs blocks of battles: here, on local worker processes, or on a Dask cluster. One
    runner serves a whole search (its processes start once); close it when done.

    Locally with ``workers`` > 1 this process plays too, from the front of the jobs, and
    ``workers`` − 1 helper processes from the back (issue 32: the process that already holds
    the run's tables keeps working, one process fewer starts). Helpers start once the work
    left is worth their start-up: :attr:`pool_from` battles before anything was timed, then
    :attr:`pool_from_seconds` CPU-seconds at the cost per battle measured here. A call of
    few jobs is cut into runs of battles (:func:`_split`, :data:`PIECES`), so one pairing also
    uses every core and this process times its first piece before helpers start (they then
    begin with its tables). Tables travel both ways, each process sent only those it lacks."""

    def __init__(self, scheduler: Any = None, workers: int | None = None) -> None:
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                    or not 1 <= workers <= 256):
            raise InputError("‹workers›", "must be a whole number from 1 to 256", workers,
                             "use e.g. ‹workers› 2")
        self.scheduler = None if scheduler in (None, "local") else scheduler
        self.workers = workers or os.cpu_count() or 1
        self.pool_from = 400  # battles in one call before anything was timed (below: here)
        #: CPU-seconds of work left in a call (at the measured cost per battle) from which
        #: helpers are started: a helper's start-up (imports, kernels from the cache) ~1 s
        self.pool_from_seconds = 2.0
        self.split = True  # cut calls of few jobs into runs of battles (_split, PIECES)
        self._pool = None
        self._client = None
        self._cost = [0.0, 0]  # CPU-seconds and battles played here (this process)
        # every small table of the run, in arrival order (the store's own objects: no copies)
        self._log: list[tuple[Any, Any]] = []
        self._logged: set = set()
        self._seen: dict[int, int] = {}  # helper pid -> log entries it has (sent or its own)
        self._carrying = False

    def run(self, jobs: list[tuple], progress: Any = None) -> list:
        if not jobs:
            return []
        if self.scheduler is not None:
            return [_unwrap(p) for p in self._dask(jobs)]
        if self.workers == 1:
            out = []
            for j in jobs:
                out.append(_unwrap(_play(j)))
                if progress is not None:
                    progress(len(out), len(jobs))
            return out
        if (self.split and len(jobs) < PIECES * self.workers
                and (self._cost[1] == 0 or self._worth_helpers(jobs, 0))):
            pieces, owner = _split(jobs, -(-PIECES * self.workers // len(jobs)))
            parts = self._shared(pieces)
            merged: list = [[] for _ in jobs]
            for k, part in zip(owner, parts, strict=True):
                merged[k].append(part)
            if progress is not None:
                progress(len(jobs), len(jobs))
            return [(np.concatenate([p[0] for p in ps]), np.concatenate([p[1] for p in ps]))
                    for ps in merged]
        return self._shared(jobs, progress)

    def _worth_helpers(self, jobs: list[tuple], skip: int) -> bool:
        """Helpers running already, or the jobs after the first ``skip`` worth starting them."""
        if self._pool is not None:
            return True
        battles = sum(j[5] for j in jobs[skip:])
        if self._cost[1] == 0:
            return battles >= self.pool_from
        return battles * self._cost[0] / self._cost[1] >= self.pool_from_seconds

    def _shared(self, jobs: list[tuple], progress: Any = None) -> list:
        """The jobs played here from the front (by first battle: the processes start on
        different pairings) and by the helpers from the back, one each in flight and one
        queued. Answers do not depend on who played what (the game's contract)."""
        from collections import deque
        from concurrent.futures import FIRST_COMPLETED, wait

        game = games.get(jobs[0][0])
        if not self._carrying:  # from now on this process records what it builds
            game.battle_tables_in({})
            self._carrying = True
        queue = deque(sorted(range(len(jobs)), key=lambda k: (jobs[k][4], k)))
        out: list = [None] * len(jobs)
        pending: dict = {}
        done = 0

        def finish(k: int, part: Any) -> None:
            nonlocal done
            out[k] = _unwrap(part)
            done += 1
            if progress is not None:
                progress(done, len(jobs))

        def collect(futures) -> None:
            for f in futures:
                k, version = pending.pop(f)
                part, tables, pid = f.result()
                self._seen[pid] = max(self._seen.get(pid, 0), version)
                if tables:
                    game.battle_tables_in(tables)  # this process builds none of them again
                    self._keep(tables)
                finish(k, part)

        while done < len(jobs):
            helpers = self.workers - 1
            if queue and len(queue) > 1 and self._worth_helpers([jobs[k] for k in queue], 1):
                self._start()
                while len(queue) > 1 and len(pending) < 2 * helpers:  # one queued: no helper waits
                    k = queue.pop()
                    pending[self._pool.submit(_play_carrying, jobs[k], self._unseen())] = \
                        (k, len(self._log))
            collect([f for f in pending if f.done()])
            if queue:
                k = queue.popleft()
                c = time.process_time()
                part = _play(jobs[k])
                self._cost[0] += time.process_time() - c
                self._cost[1] += jobs[k][5]
                self._keep(game.battle_tables_out())
                finish(k, part)
            elif pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                collect(finished)
        return out

    def _keep(self, tables: Any) -> None:
        """Log the tables a process built (the ones not logged yet) for the helpers."""
        for key, table in (tables or {}).items():
            if key not in self._logged:
                self._logged.add(key)
                self._log.append((key, table))

    def _unseen(self) -> dict:
        """The logged tables some helper may lack: from the fewest any helper has seen (a
        helper not heard from yet: all of them); each takes only those it lacks."""
        alive = list(getattr(self._pool, "_processes", {}) or {})
        have = min((self._seen.get(pid, 0) for pid in alive), default=0)
        return dict(self._log[have:])

    def _start(self) -> None:
        if self._pool is None:
            from mathhammer.workers import worker_pool

            self._pool = worker_pool(self.workers - 1)

    def _dask(self, jobs):
        if self._client is None:  # one client for the whole run, closed by close()
            from mathhammer.analysis.pool import dask_client

            self._client, self._own = dask_client(self.scheduler)
        return self._client.gather(self._client.map(_play, jobs, pure=False))

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, kind, _error, _trace) -> None:
        self.close(finished=kind is None)  # after Ctrl-C or an error: the helpers stop now

    def close(self, finished: bool = True) -> None:
        """Stop the helpers (at once when the run did not finish: Ctrl-C or an error)."""
        if self._pool is not None:
            from mathhammer.workers import stop_pool

            stop_pool(self._pool, finished)
            self._pool = None
        if self._client is not None and getattr(self, "_own", False):
            self._client.close()
        self._client = None


@dataclass
class Book:
    """Every battle played so far: (list key, meta list index) -> results and margins of
    battles 0 .. n-1 (a longer run plays only the battles the book lacks)."""

    meta: Any
    seed: int
    policy: str = "greedy"
    meta_policy: str = "greedy"
    turns: int | None = None
    runner: Runner = field(default_factory=Runner)
    played: dict = field(default_factory=dict)
    battles_played: int = 0

    def __post_init__(self) -> None:
        self.game = games.get(self.meta.game)
        self.seeds = [pairing_seed(self.seed, enemy) for enemy in self.meta.lists]

    def key(self, army) -> str:
        return self.game.battle_key(army, (self.policy, self.meta_policy))

    def fill(self, armies: list, n: int, progress: Any = None) -> None:
        """Play what each list lacks of battles 0 .. n-1 against every meta list."""
        jobs, where = [], []
        planned = set()
        for army in armies:
            key = self.key(army)
            if key in planned:
                continue  # the same battles as a list already planned
            planned.add(key)
            for i, enemy in enumerate(self.meta.lists):
                have = len(self.played.get((key, i), ((), ()))[0])
                for start in range(have, n, BLOCK):
                    count = min(BLOCK, n - start)
                    jobs.append((self.game.name, _canonical(army), enemy, self.seeds[i], start, count,
                                 self.policy, self.meta_policy, self.turns))
                    where.append((key, i, start))
        parts = self.runner.run(jobs, progress)
        pieces: dict = {}
        for (key, i, start), part in zip(where, parts, strict=True):
            pieces.setdefault((key, i), []).append((start, part))
        for k, blocks in pieces.items():
            old = self.played.get(k, (np.zeros(0, np.int8), np.zeros(0)))
            blocks.sort(key=lambda b: b[0])
            self.played[k] = (np.concatenate([old[0], *(b[1][0] for b in blocks)]),
                              np.concatenate([old[1], *(b[1][1] for b in blocks)]))
        self.battles_played += sum(j[5] for j in jobs)

    def outcomes(self, army, i: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        result, margin = self.played[(self.key(army), i)]
        return result[:n], margin[:n]

    def figures(self, army, n: int, against: Any = None) -> dict[str, Estimate]:
        """The meta-weighted figures of ``army`` over battles 0 .. n-1; ``against``: the
        paired difference army − against, battle by battle."""
        out: dict[str, list] = {name: [] for name in FIGURES}
        for i, w in enumerate(self.meta.weights):
            x = _per_battle(*self.outcomes(army, i, n))
            if against is not None:
                y = _per_battle(*self.outcomes(against, i, n))
                x = {k: x[k] - y[k] for k in x}
            for name in FIGURES:
                out[name].append((w, x[name]))
        return {name: weighted(parts, probability=against is None and name != "mean_vp_margin")
                for name, parts in out.items()}

    def per_list(self, army, n: int) -> dict[str, dict[str, Estimate]]:
        """Figures against each meta list on its own."""
        rows = {}
        for i, enemy in enumerate(self.meta.lists):
            x = _per_battle(*self.outcomes(army, i, n))
            rows[enemy.name] = {k: weighted([(1.0, v)], probability=k != "mean_vp_margin")
                                for k, v in x.items()}
        return rows


def _canonical(army):
    """The list's entries in one order (by profile and options), so that a list plays the same
    battles however its file orders them (its battle key says it is the same list)."""
    units = sorted(army.units, key=lambda u: (u.profile_id, repr(sorted(u.options.items(), key=repr))))
    return replace(army, units=tuple(units))


FIGURES = ("p_win", "p_draw", "p_loss", "mean_vp_margin", "expected_result")


def _per_battle(result: np.ndarray, margin: np.ndarray) -> dict[str, np.ndarray]:
    win, draw = (result == 1).astype(float), (result == 0).astype(float)
    return {"p_win": win, "p_draw": draw, "p_loss": (result == -1).astype(float),
            "mean_vp_margin": margin.astype(float), "expected_result": win + 0.5 * draw}


def weighted(parts: list[tuple[float, np.ndarray]], probability: bool = False) -> Estimate:
    """Σ w · mean(x) with se √Σ w² · var(x) / n (each x: one value per battle)."""
    value = var = 0.0
    n = 0
    for w, x in parts:
        n = max(n, len(x))
        if len(x):
            value += w * float(x.mean())
            var += w * w * float(x.var()) / len(x)
    se = math.sqrt(var)
    value = 0.0 if value == 0 else value
    low, high = value - Z95 * se, value + Z95 * se
    if probability:
        value = min(max(value, 0.0), 1.0)
        low, high = max(low, 0.0), min(high, 1.0)
    return Estimate(value, se, (low, high), n)


# ------------------------------------------------------------------ score and diff
def _fmt(e: Estimate, percent: bool = False) -> str:
    from mathhammer.words import rounded

    scale = 100.0 if percent else 1.0
    return rounded(scale * e.value, scale * e.se, signed=False) + ("%" if percent else "")


def battle_setup(army, meta, *, n_battles, seed, policy, meta_policy, turns, scheduler, workers):
    """The checked inputs of a battle run and its :class:`Book`."""
    from mathhammer.rng import resolve_seed

    n = check_battles(n_battles)
    policy = check_general(meta.game, policy or games.get(meta.game).battle_policies[0],
                           "‹battle_policy›")
    meta_policy = check_general(meta.game, meta_policy or policy, "‹meta_policy›")
    if turns is not None and (isinstance(turns, bool) or not isinstance(turns, int)
                              or not 1 <= turns <= 20):
        raise InputError("‹turns›", "must be a whole number from 1 to 20", turns, "use ‹turns› 5")
    seed = resolve_seed(seed)
    return n, Book(meta, seed, policy, meta_policy, turns, Runner(scheduler, workers))


def _info(book: Book, army, n: int) -> dict[str, Any]:
    game = book.game
    return {
        "list": army.summary(),
        "meta": "; ".join(f"{lst.name} ({100 * w:.0f}%)"
                          for lst, w in zip(book.meta.lists, book.meta.weights, strict=True)),
        "score": "each list of the meta is played as battles against yours; P(win), P(draw), "
                 "P(loss) and the mean victory-point margin (yours minus the enemy's) weighted "
                 "by the meta, each with its se (TU-B1; README, List tuning)",
        "battle": game.battle_words(),
        "generals": f"yours {book.policy}, the meta's {book.meta_policy}",
        "turns": book.turns or game.battle_turns,
        "battles": f"{n:,} per list of the meta",
        "seeds": f"battle j against a meta list draws from run seed {book.seed}, what that list "
                 "is, and j: lists facing the same enemy share their dice battle by battle",
    }


def score_battles(army, meta, *, n_battles: int | None = None, seed: int | None = None,
                  policy: str | None = None, meta_policy: str | None = None,
                  turns: int | None = None, per_unit: bool = False, scheduler: Any = None,
                  workers: int | None = None, progress: Any = None) -> Report:
    """``score LIST --meta META --model battle`` (module doc); ``per_unit``: each entry's
    contribution, the list minus one copy of it played on the same dice (paired)."""
    a, m = list_and_meta(army, meta)
    n, book = battle_setup(a, m, n_battles=n_battles, seed=seed, policy=policy,
                           meta_policy=meta_policy, turns=turns, scheduler=scheduler,
                           workers=workers)
    with book.runner:  # its helper processes stopped at the end (at once after Ctrl-C)
        book.game.check_battle(a, "LIST")
        without = _without_each(a, book.game) if per_unit else {}
        book.fill([a, *(x for x in without.values() if not isinstance(x, str))], n, progress)
    figures = book.figures(a, n)
    results = dict(figures)
    for name, row in book.per_list(a, n).items():
        for k in ("p_win", "mean_vp_margin"):
            results[f"{k}[{name}]"] = row[k]
    info = _info(book, a, n)
    if per_unit:
        rows = []
        for label, other in without.items():
            if isinstance(other, str):
                rows.append(f"{label}: {other}")
                continue
            d = book.figures(a, n, against=other)
            results[f"contribution_p_win[{label}]"] = d["p_win"]
            results[f"contribution_vp_margin[{label}]"] = d["mean_vp_margin"]
            rows.append(f"{label}: P(win) {_fmt(d['p_win'], True)}, VP margin "
                        f"{_fmt(d['mean_vp_margin'])} (the list with it minus without one copy, "
                        "paired)")
        info["contributions"] = rows
    report = Report("tuning.battles", "mc", results, {}, n_trials=n, seed=book.seed, info=info,
                    title=f"score on battles: {a.name} against the meta {m.name} "
                          f"({a.game}, {a.ruleset})")
    f = figures
    report.headline = (f"{a.name} against the meta {m.name}: P(win) {_fmt(f['p_win'], True)}, "
                       f"P(draw) {_fmt(f['p_draw'], True)}, VP margin {_fmt(f['mean_vp_margin'])} "
                       f"({n:,} battles per meta list, {book.policy} generals)")
    return report


def _without_each(army, game) -> dict[str, Any]:
    """Each entry's label -> the list with one copy fewer (or why it cannot fight without it)."""
    out: dict[str, Any] = {}
    for k, u in enumerate(army.units):
        units = list(army.units)
        if u.count > 1:
            units[k] = replace(u, count=u.count - 1)
        else:
            del units[k]
        other = replace(army, units=tuple(units), total_points=army.total_points - u.points)
        try:
            if not units:
                raise InputError("LIST", "would be empty", u.label, "")
            game.check_battle(other, "LIST")
            out[u.label] = other
        except MathhammerError as err:
            out[u.label] = f"not scored: the list cannot fight without it ({err.what})"
    return out


def diff_battles(list_a, list_b, meta, *, n_battles: int | None = None, seed: int | None = None,
                 policy: str | None = None, meta_policy: str | None = None,
                 turns: int | None = None, scheduler: Any = None, workers: int | None = None,
                 progress: Any = None) -> Report:
    """``diff A B --meta META --model battle``: B − A per figure, paired battle by battle."""
    a, m = list_and_meta(list_a, meta)
    b, _ = list_and_meta(list_b, m)
    n, book = battle_setup(a, m, n_battles=n_battles, seed=seed, policy=policy,
                           meta_policy=meta_policy, turns=turns, scheduler=scheduler,
                           workers=workers)
    with book.runner:
        book.game.check_battle(a, "LIST_A")
        book.game.check_battle(b, "LIST_B")
        book.fill([a, b], n, progress)
    fa, fb, d = book.figures(a, n), book.figures(b, n), book.figures(b, n, against=a)
    results: dict[str, Estimate] = {}
    reductions = []
    for name in FIGURES:
        # a difference of probabilities is no probability: delta_p_win, never p_win (issue 28)
        results[f"{name}[A]"], results[f"{name}[B]"] = fa[name], fb[name]
        results[f"delta_{name}[B-A]"] = d[name]
        indep = math.hypot(fa[name].se, fb[name].se)
        if indep > 0:
            reductions.append(f"{name}: paired se {d[name].se:.4f} vs independent {indep:.4f}")
    info = {"list_a": a.summary(), "list_b": b.summary(), **{
        k: v for k, v in _info(book, a, n).items() if k not in ("list",)},
        "pairing": "common random numbers: battle j against a meta list is played on the same "
                   "dice for A and B; B − A is the mean of the battle-by-battle differences",
        "variance_reduction": reductions or ["the two lists are the same list: no difference"]}
    report = Report("tuning.battles.diff", "mc", results, {}, n_trials=n, seed=book.seed, info=info,
                    title=f"diff on battles: {b.name} − {a.name} against the meta {m.name}")
    e = d["p_win"]
    z = abs(e.value) / e.se if e.se > 0 else math.inf
    verdict = ("the same" if e.value == 0 and e.se == 0 else
               ("better" if e.value > 0 else "worse") if z >= 2 else
               "not resolvably different (|difference| < 2 se)")
    report.headline = (f"{b.name} vs {a.name} against {m.name}: P(win) "
                       f"{_signed_pct(e)}, VP margin {_signed(d['mean_vp_margin'])} "
                       f"(paired, {n:,} battles per meta list) — B is {verdict}")
    return report


def _signed(e: Estimate) -> str:
    from mathhammer.words import rounded

    return rounded(e.value, e.se, signed=True)


def _signed_pct(e: Estimate) -> str:
    from mathhammer.words import rounded

    return rounded(100 * e.value, 100 * e.se, signed=True) + " points"
