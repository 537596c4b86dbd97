"""One matrix or sweep cell: one attacker against one target, answered by a game engine.

A :class:`Cell` carries everything a worker needs (profiles, options, seed, trials),
so it can be pickled to a thread, a process or a Dask worker; :func:`evaluate`
turns it into a :class:`CellResult` with ``p_kill`` and ``mean_damage``. No rule is
written here: the numbers come from the engines.

Warmachine (``game = "warmachine"``): the attacker makes one activation against a
fresh target, played by :func:`mathhammer.warmachine.duel.duel_chain` under a focus
policy (WM-F5: ``optimal`` by default, ``greedy`` or ``fixed``; the ``boost_hit`` /
``boost_damage`` options are the fixed policy boosting every roll) with the model's
focus: melee (``charge = "must"``: the attacker charges, as ``wm duel --charge``; ``True``
or ``"may"``: the policy decides whether to charge, as a list's ``charge = true``; and the
offensive spells the focus can pay for) or ranged (``mode = "ranged"``, WM-F3). The target is
the duel's (grid or track, shield boxes, base size for head-butts and slams) with any
swept DEF / ARM. ``attacks = N`` is instead a fixed sequence of N attacks with the
strongest weapon and no focus (:func:`mathhammer.warmachine.sequence.run_sequence`).
Both engines play the full grid (a crippled M lowers DEF mid-activation, WM-G4).
``p_kill`` is P(destroyed), ``mean_damage`` the expected boxes marked.

Fantasy (``game = "fantasy"``): a close combat of the attacker unit against the
target unit by :func:`mathhammer.fantasy.combat.combat` (attacker charges when its
``charge`` option is set). ``p_kill`` is the combat's ``p_a_wins`` (the target broke or
was destroyed and the attacker stands), ``mean_damage`` the wounds dealt.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

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

        raise InputError("--policy", "must be optimal, greedy or fixed", policy,
                         "use --policy optimal")


def cell_seed(seed: int, index: int) -> int:
    """The seed of cell ``index`` of a run seeded ``seed``: a pure function of both, so
    any scheduler (threads, processes, a Dask cluster) gives the same answers."""
    state = np.random.SeedSequence(seed, spawn_key=(CELL_SEED_KEY, index)).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) | (int(state[1]) >> 1))


def evaluate(cell: Cell) -> CellResult:
    """Answer one cell with its game's engine (exact where it can, else Monte Carlo)."""
    from mathhammer.engine import MonteCarloConfig

    config = MonteCarloConfig(n_trials=cell.n_trials, seed=cell.seed, threads=1)
    if cell.game == "warmachine":
        return _warmachine(cell, config)
    return _fantasy(cell, config)


# --------------------------------------------------------------------------- warmachine
def _strongest(weapons):
    return max(weapons, key=lambda w: (w.damage_power, w.rof))


def warmachine_steps(profile, options: dict[str, Any]) -> tuple[list, str]:
    """``attacks = N``: N attacks with the strongest weapon of the mode, no focus spent."""
    from mathhammer.errors import InputError
    from mathhammer.warmachine.sequence import AttackStep

    mode = options.get("mode") or "melee"
    weapons = [w for w in profile.weapons if w.kind == mode and w.damage_power is not None]
    if not weapons:
        raise InputError(f"{profile.id}", f"has no {mode} weapon with a damage roll", mode,
                         "use the other mode")
    stat = profile.stats.mat if mode == "melee" else profile.stats.rat
    best = _strongest(weapons)
    n = int(options["attacks"])
    step = AttackStep(kind=mode, stat=stat, power=best.damage_power,
                      boost_hit=bool(options.get("boost_hit")),
                      boost_damage=bool(options.get("boost_damage")), label=best.name)
    return [step] * n, f"{n} x {best.name}"


def warmachine_target(profile, options: dict[str, Any]):
    """The duel engine's target (grid or track, shield boxes) with swept DEF / ARM."""
    from dataclasses import replace as dc_replace

    from mathhammer.warmachine.duel import target_from_profile

    target = target_from_profile(options.get("ref") or profile.id)
    changes = {k: int(options[key]) for k, key in (("defense", "def"), ("armor", "arm"))
               if options.get(key) is not None}
    return dc_replace(target, **changes) if changes else target


def _warmachine(cell: Cell, config) -> CellResult:
    """An activation under a focus policy by the duel engine; ``attacks = N``: a fixed sequence."""
    opts = cell.attacker_options
    attacker = _with_stats(cell.attacker, opts)
    target = warmachine_target(cell.target, cell.target_options)
    if opts.get("attacks") is not None:
        from mathhammer.warmachine.sequence import run_sequence

        steps, text = warmachine_steps(attacker, opts)
        report = run_sequence(steps, target, method=cell.method, config=config)
        text = "fixed sequence: " + text
    else:
        report, text = _duel(cell, attacker, target, config)
    return CellResult(cell.key, report.results["p_destroyed"], report.results["mean_damage"],
                      report.method, report.seed, report.n_trials, text)


def _duel(cell: Cell, attacker, target, config):
    """One activation under a focus policy (WM-F5) by :mod:`mathhammer.warmachine.duel`."""
    from mathhammer.warmachine.duel import activation_from_profile, duel_chain

    opts = cell.attacker_options
    focus = int(opts.get("focus") or 0)
    ranged = opts.get("mode") == "ranged"
    # the duel loads by reference: the list's or sweep's own ref (a bundled id or a file path)
    charge = charge_option(opts.get("charge"), ranged)
    spec = activation_from_profile(opts.get("ref") or cell.attacker.id, focus, charge,
                                   ranged=ranged, target_base=cell.target.base)
    spec = _adjust_activation(spec, cell.attacker, attacker)
    boost_hit, boost_damage = bool(opts.get("boost_hit")), bool(opts.get("boost_damage"))
    policy = "fixed" if (boost_hit or boost_damage) else cell.policy
    report = duel_chain([spec], target, policy=policy, boost_hit=boost_hit,
                        boost_damage=boost_damage, method=cell.method, config=config)
    boosts = " + ".join(b for b, on in (("boost every attack roll", boost_hit),
                                       ("boost every damage roll", boost_damage)) if on)
    text = (f"{policy} focus policy, {focus} focus" + (", ranged" if ranged else "")
            + {"must": ", charges", "may": ", may charge", "no": ""}[charge]
            + (f", {boosts}" if boosts else ""))
    return report, text


def charge_option(value, ranged: bool) -> str:
    """A cell's ``charge`` option as the duel's mode: ``"must"`` charges (WM-D3); ``True``
    or ``"may"`` lets the policy decide (a ranged activation never charges); else no."""
    if value == "must":
        return "must"  # a ranged activation refuses it in one line (WM-F3)
    return "may" if value and not ranged else "no"


def _adjust_activation(spec, original, changed):
    """Carry swept MAT / RAT / STR of ``changed`` into the duel's activation of ``original``."""
    from dataclasses import replace as dc_replace

    d_mat = changed.stats.mat - original.stats.mat
    d_rat = changed.stats.rat - original.stats.rat
    d_str = changed.stats.str_ - original.stats.str_
    if not (d_mat or d_rat or d_str):
        return spec
    weapons = tuple(dc_replace(w, stat=w.stat + d_mat, power=w.power + d_str) if w.kind == "melee"
                    else dc_replace(w, stat=w.stat + d_rat) for w in spec.weapons)
    return dc_replace(spec, weapons=weapons, strength=spec.strength + d_str)


# --------------------------------------------------------------------------- fantasy
def _fantasy(cell: Cell, config) -> CellResult:
    from mathhammer.fantasy.combat import Side, combat

    attacker = _with_stats(cell.attacker, cell.attacker_options)
    target = _with_stats(cell.target, cell.target_options)
    a = Side(attacker, charged=bool(cell.attacker_options.get("charge")))
    b = Side(target)
    report = combat(a, b, rounds=cell.rounds, ruleset=cell.ruleset, method=cell.method,
                    config=config)
    return CellResult(cell.key, report.results["p_a_wins"], report.results["mean_wounds_dealt"],
                      report.method, report.seed, report.n_trials,
                      f"{'charging, ' if a.charged else ''}"
                      f"{'until decided' if cell.rounds is None else f'{cell.rounds} round(s)'}")


# --------------------------------------------------------------------------- stat overrides
#: option name -> (where in the profile, how to read it back); see :mod:`mathhammer.analysis.sweep`
STAT_FIELDS = {
    "warmachine": {"mat": "stats.mat", "rat": "stats.rat", "str": "stats.str_"},
    "fantasy": {"ws": "stats.ws", "bs": "stats.bs", "s": "stats.s", "t": "stats.t",
                "w": "stats.w", "i": "stats.i", "a": "stats.a", "attacks": "stats.a",
                "ld": "stats.ld", "save": "saves.armour", "ward": "saves.ward",
                "models": "formation.models"},
}


def _with_stats(profile, options: dict[str, Any]):
    """A copy of ``profile`` with the stat options of :data:`STAT_FIELDS` applied."""
    game = "warmachine" if hasattr(profile, "kind") else "fantasy"
    changes: dict[str, dict[str, Any]] = {}
    for name, value in options.items():
        path = STAT_FIELDS[game].get(name)
        if path is None or (game == "warmachine" and name == "attacks"):
            continue
        part, attr = path.split(".")
        changes.setdefault(part, {})[attr] = value
    if not changes:
        return profile
    update = {part: getattr(profile, part).model_copy(update=attrs) for part, attrs in changes.items()}
    if game == "warmachine" and "stats" in changes and "str_" in changes["stats"]:
        # P+S follows STR (PR-3); ranged POW does not
        delta = changes["stats"]["str_"] - profile.stats.str_
        update["weapons"] = tuple(
            w.model_copy(update={"pow_plus_str": w.pow_plus_str + delta}) if w.pow_plus_str is not None else w
            for w in profile.weapons)
    return profile.model_copy(update=update)


def with_key(cell: Cell, **changes) -> Cell:
    return replace(cell, **changes)
