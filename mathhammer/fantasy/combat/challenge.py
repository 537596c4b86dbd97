"""``mathhammer fb challenge A B``: a stand-alone duel of two single models (FB-K3).

A and B are profile ids, TOML files or inline stats
(``stats:ws=6,s=4,t=4,w=3,i=6,a=4,save=3,ward=5``). The duel is the close-combat
engine's fight of two one-model units with no combat result: each round the models
strike in Initiative order (FB-C2), a model slain before its step does not strike
(FB-C3, simultaneous steps both strike), wounds carry over between rounds; the duel
ends when a model falls or after ``rounds`` rounds. Exact by default (a Markov chain
over the wounds on each model, round by round), Monte Carlo on request, ``--check``
both.

Results: ``p_a_wins`` (B fell, A stands), ``p_b_wins``, ``p_both_standing`` (after the
last round), ``p_both_fall`` (in the same Initiative step); distributions
``wounds_on_a``, ``wounds_on_b`` (and ``wounds_on_a_mount`` / ``wounds_on_b_mount``
for a ridden monster), ``rounds``.
"""

from __future__ import annotations

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, ProfileError
from mathhammer.fantasy.combat.compile import Side
from mathhammer.fantasy.models import UnitProfile, load_unit, validate_unit
from mathhammer.fantasy.rules.ruleset import Ruleset, load_ruleset
from mathhammer.numbers import shown, whole_text
from mathhammer.query import answer
from mathhammer.results import Distribution, Estimate, Report

DEFAULT_ROUNDS = 25  # "until one falls": a cap so that two models who cannot wound stop

#: inline stat keys -> (profile key path, kind); kind: int, save, flag, dice, text
INLINE_KEYS = {
    "ws": ("stats.ws", "int"), "s": ("stats.s", "int"), "t": ("stats.t", "int"), "w": ("stats.w", "int"),
    "i": ("stats.i", "int"), "a": ("stats.a", "int"), "ld": ("stats.ld", "int"), "m": ("stats.m", "int"),
    "bs": ("stats.bs", "int"), "save": ("saves.armour", "save"), "ward": ("saves.ward", "save"),
    "regeneration": ("saves.regeneration", "save"), "ap": ("weapon.armour_piercing", "int"),
    "mw": ("weapon.multiple_wounds", "dice"), "name": ("name", "text"),
    "troop": ("troop_type", "text"),
    "kb": ("Killing Blow", "flag"), "poison": ("Poisoned Attacks", "flag"), "hatred": ("Hatred", "flag"),
    "asf": ("Always Strikes First", "flag"), "asl": ("Always Strikes Last", "flag"),
    "flaming": ("Flaming Attacks", "flag"), "frenzy": ("Frenzy", "flag"),
    "great_weapon": ("great_weapon", "kit"), "halberd": ("halberd", "kit"), "lance": ("lance", "kit"),
    "flail": ("flail", "kit"), "shield": ("shield", "kit"), "additional_hand_weapon":
    ("additional_hand_weapon", "kit"), "spear": ("spear", "kit"), "choppa": ("choppa", "kit"),
}
REQUIRED = ("ws", "s", "t", "w", "i", "a")


def inline_profile(text: str, label: str, ruleset: str) -> UnitProfile:
    """``stats:ws=6,s=4,t=4,w=3,i=6,a=4,save=3,ward=5,kb`` as a one-model profile."""
    where = f"{label.upper()} ({shown(text, 80)})"
    body = text[len("stats:"):]
    data: dict = {"id": f"inline/{label}", "name": label.upper(), "ruleset": ruleset,
                  "role": "character", "stats": {"m": 4, "bs": 3, "ld": 8},
                  "formation": {"models": 1, "rank_width": 1}, "points": {"per_model": 0},
                  "special_rules": [], "equipment": [], "champion_extra_attacks": 0}
    seen = set()
    for part in filter(None, (p.strip() for p in body.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if key not in INLINE_KEYS:
            raise InputError(where, f"unknown stat {key!r}", part,
                             f"use {', '.join(INLINE_KEYS)}; e.g. stats:ws=6,s=4,t=4,w=3,i=6,a=4,save=3")
        if key in seen:
            raise InputError(where, f"{key} is given twice", part, "give each stat once")
        seen.add(key)
        path, kind = INLINE_KEYS[key]
        if kind in ("flag", "kit"):
            if eq and value.strip().lower() not in ("1", "true", "yes"):
                raise InputError(where, f"{key} is a switch (no value)", part, f"write just {key}")
            target = data["special_rules"] if kind == "flag" else data["equipment"]
            target.append(path)
            continue
        if not eq or not value.strip():
            raise InputError(where, f"{key} needs a value", part, f"e.g. {key}=4")
        value = value.strip()
        if kind in ("int", "save"):
            raw = value.rstrip("+") if kind == "save" else value
            parsed: object = whole_text(raw)  # None for words and for 5,000 digits alike
            if parsed is None:
                raise InputError(where, f"{key} must be a whole number", shown(value),
                                 f"e.g. {key}=4")
        else:
            parsed = value
        section, _, leaf = path.partition(".")
        if leaf:
            data.setdefault(section, {})[leaf] = parsed
        else:
            data[section] = parsed
    missing = [k for k in REQUIRED if k not in seen]
    if missing:
        raise InputError(where, f"missing {', '.join(missing)}", text,
                         "give at least ws, s, t, w, i and a, e.g. stats:ws=6,s=4,t=4,w=3,i=6,a=4")
    return validate_unit(data, where)


def load_model(ref: str, label: str, ruleset: str | None) -> UnitProfile:
    """A single model for a challenge: a profile id, a TOML file or ``stats:...``."""
    if ref.startswith("stats:"):
        return inline_profile(ref, label, ruleset or "wfb8")
    unit = load_unit(ref)
    if unit.formation.models != 1:
        unit = unit.model_copy(update={"formation": unit.formation.model_copy(
            update={"models": 1, "rank_width": 1, "champion": False, "standard": False,
                    "musician": False, "battle_standard": False})})
    return unit


def _duel_side(unit: UnitProfile, charged: bool, attack_mount: bool) -> Side:
    return Side(unit, charged=charged, position="front", attack_mount=attack_mount)


def challenge(model_a: str | UnitProfile, model_b: str | UnitProfile, *, rounds: int | None = None,
              charger: str | None = None, ruleset: str | Ruleset | None = None, method: str = "auto",
              config: MonteCarloConfig | None = None, check: bool = False,
              attack_mount: str | None = None) -> Report:
    """A duel between two single models until one falls (at most ``rounds`` rounds)."""
    from mathhammer.fantasy.combat.fight import compile_fight

    if rounds is not None and not 1 <= rounds <= 100:
        raise InputError("‹rounds›", "must be 1..100", rounds, "use e.g. ‹rounds› 3")
    if charger not in (None, "a", "b"):
        raise InputError("‹charger›", "must be a or b", charger, "use ‹charger› a")
    if attack_mount not in (None, "a", "b"):
        raise InputError("‹attack_mount›", "must be a or b", attack_mount, "use ‹attack_mount› a")
    name = ruleset.name if isinstance(ruleset, Ruleset) else ruleset
    a = model_a if isinstance(model_a, UnitProfile) else load_model(model_a, "a", name)
    b = model_b if isinstance(model_b, UnitProfile) else load_model(model_b, "b", name)
    if name is None:
        name = a.ruleset if a.ruleset == b.ruleset else "wfb8"
    rules = load_ruleset(ruleset if isinstance(ruleset, Ruleset) else name)
    for label, unit in (("A", a), ("B", b)):
        if unit.formation.models != 1:
            raise ProfileError(label, "a challenge is fought by single models", unit.formation.models,
                               "use a character, a champion's stats or stats:...")
    # a duel has no combat result: both "units" are unbreakable, nothing but wounds counts
    duellists = []
    for unit in (a, b):
        rules_set = tuple(r for r in unit.special_rules
                          if r not in ("Unstable", "Daemonic Instability", "Stubborn")) + ("Unbreakable",)
        duellists.append(unit.model_copy(update={"special_rules": tuple(dict.fromkeys(rules_set))}))
    sides = (_duel_side(duellists[0], charger == "a", attack_mount == "b"),
             _duel_side(duellists[1], charger == "b", attack_mount == "a"))
    c, tables = compile_fight(sides[0], sides[1], ruleset=rules)
    _no_resolution(tables)
    n_rounds = rounds or DEFAULT_ROUNDS
    title = (f"challenge: {a.name} vs {b.name} ({rules.name}, "
             f"{'until one falls' if rounds is None else f'{n_rounds} round(s)'})")

    from mathhammer.fantasy.combat.exact import combat_exact, exact_available

    def exact() -> Report:
        return _report(c, "exact", combat_exact(c, tables, n_rounds), None, None, n_rounds, title, a, b)

    def monte_carlo(cfg: MonteCarloConfig) -> Report:
        import numpy as np

        from mathhammer import kernels
        from mathhammer.engine import simulate
        from mathhammer.fantasy.combat.fight import _tally_shapes

        k = kernels.load("mathhammer.fantasy.kernels.combat")
        shapes = _tally_shapes(c, tables, n_rounds)
        args = tables.kernel_args()

        def run_chunk(n: int, state):
            t = {key: np.zeros(shape, np.int64) for key, shape in shapes.items()}
            k.combat_trials(*args, tables.charged, np.int64(n_rounds), state, np.int64(n), t["counters"],
                            t["unit_counts"], t["body_wounds"], t["wounds_dealt"], t["wounds_taken"],
                            t["models_left_a"], t["models_left_b"], t["rounds"])
            return t

        def probabilities(t, n):
            return t["counters"][:4] / n

        run = simulate(run_chunk, cfg, probabilities)
        return _report(c, "mc", run.tally, run.n_trials, run.seed, n_rounds, title, a, b)

    reason = exact_available(c, tables, n_rounds)
    if reason is not None and method == "exact":
        raise InputError("‹method›", f"exact is not available for {reason}", "exact", "use ‹method› mc")
    return answer("fantasy.challenge", method=method, exact=None if reason else exact,
                  monte_carlo=monte_carlo, config=config, check=check)


def _no_resolution(tables) -> None:
    """A duel stands apart from any combat: no ranks, standards, bonuses or musicians."""
    from mathhammer.fantasy.kernels import combat as k

    for col in (k.U_MAX_RANK, k.U_STANDARD, k.U_MUSICIAN, k.U_BONUS, k.U_BSB_CR, k.U_FLANK_BONUS,
                k.U_REAR_BONUS):
        tables.u_int[:, col] = 0


def _report(c, method: str, tally: dict, n: int | None, seed: int | None, rounds: int, title: str,
            a: UnitProfile, b: UnitProfile) -> Report:
    from mathhammer.fantasy.kernels import combat as k
    from mathhammer.words import figure, method_words

    cnt = tally["counters"]

    def est(value) -> Estimate:
        if n is None:
            return Estimate.exact(min(1.0, max(0.0, float(value))))
        return Estimate.proportion(int(value), n)

    results = {"p_a_wins": est(cnt[k.C_A_WINS]), "p_b_wins": est(cnt[k.C_B_WINS]),
               "p_both_standing": est(cnt[k.C_BOTH_STANDING]), "p_both_fall": est(cnt[k.C_BOTH_OUT])}
    dists = {}
    for b_index, body in enumerate(c.bodies):
        side = "a" if body.unit == 0 else "b"
        name = f"wounds_on_{side}" + ("_mount" if body.role == "mount" else "")
        h = tally["body_wounds"][b_index][: body.models * body.w + 1]
        dists[name] = Distribution.exact(h) if n is None else Distribution.from_counts(h)
    h = tally["rounds"]
    dists["rounds"] = Distribution.exact(h) if n is None else Distribution.from_counts(h)
    if any(body.role == "mount" for body in c.bodies):  # FB-P1: each part of a two-part model
        for b_index, body in enumerate(c.bodies):
            cap = body.models * body.w
            results[f"p_slain[{body.name}]"] = est(tally["body_wounds"][b_index, cap:].sum())
    for name in [d for d in dists if d.startswith("wounds_on")]:
        results[f"mean_{name}"] = dists[name].mean_estimate()
    info = {"ruleset": c.rules.name, "rounds": rounds, "a": f"{a.id}: {_line(a)}", "b": f"{b.id}: {_line(b)}",
            "strike_order_round_1": _order(c),
            "p_both_fall": "both fell in the same Initiative step (simultaneous blows)"}
    if c.notes:
        info["notes"] = "; ".join(dict.fromkeys(c.notes))
    report = Report("fantasy.challenge", method, results, dists, n_trials=n, seed=seed, info=info, title=title)
    words = method_words(report)
    report.headline = (f"{a.name} vs {b.name}: {a.name} wins {figure(results['p_a_wins'], True)} · "
                       f"{b.name} wins {figure(results['p_b_wins'], True)} · both standing "
                       f"{figure(results['p_both_standing'], True)}"
                       + (f" · both fall {figure(results['p_both_fall'], True)}"
                          if results["p_both_fall"].value > 0 else "") + f" ({words})")
    return report


def _line(u: UnitProfile) -> str:
    s = u.stats
    saves = [f"{v}+ {k}" for k, v in (("armour", u.saves.armour), ("ward", u.saves.ward),
                                       ("regeneration", u.saves.regeneration)) if v]
    text = f"WS{s.ws} S{s.s} T{s.t} W{s.w} I{s.i} A{s.a}"
    if saves:
        text += ", " + ", ".join(saves)
    extra = list(u.special_rules) + [e.replace("_", " ") for e in u.equipment]
    if extra:
        text += ", " + ", ".join(extra)
    return text


def _order(c) -> str:
    from mathhammer.fantasy.combat.fight import strike_order_text

    return strike_order_text(c)
