"""Warmachine Mk II behind the Game interface (:mod:`mathhammer.game`).

What the shared code asks of this game: list entries (focus, mode, charge; WM-F1..F3),
Mk II pricing (warjack points pay for warjacks only), a warcaster's worth as a target
(its warjack points), and the cell ``compare``/``sweep``/``score`` evaluate: one
activation against a fresh target under a focus policy (WM-F5) by
:func:`mathhammer.warmachine.duel.duel_chain`, or ``attacks = N`` as a fixed sequence of
N attacks with the strongest weapon and no focus
(:func:`mathhammer.warmachine.sequence.run_sequence`). Both engines play the full grid
(a crippled M lowers DEF mid-activation, WM-G4); ``p_kill`` is P(destroyed) and
``mean_damage`` the expected boxes marked. A cell's ``charge`` option: ``"must"`` the
attacker charges (as ``wm duel --charge``); ``True`` or ``"may"`` the policy decides
whether to charge (as a list's ``charge = true``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from pydantic import Field

from mathhammer.errors import InputError, ProfileError, RulesError
from mathhammer.game import Game, check_stat_by_model, register
from mathhammer.warmachine.activation import MAX_WARJACK_FOCUS

#: swept stat -> where it lives in the profile
STAT_FIELDS = {"mat": "stats.mat", "rat": "stats.rat", "str": "stats.str_"}


class Warmachine(Game):
    name = "warmachine"
    rulesets = ("mk2",)
    entry_fields = {
        "focus": (int | None, Field(None, ge=0, le=12,
                                    description="focus the model spends (WM-F1, WM-F2)")),
        "mode": (Literal["melee", "ranged"] | None,
                 Field(None, description="WM-F3: melee or ranged weapons")),
        "charge": (bool, False),
    }
    variant_fields = {
        "focus": (list[int], Field(default_factory=list, max_length=13)),
        "charge": (list[bool], Field(default_factory=list, max_length=2)),
        "mode": (list[str], Field(default_factory=list, max_length=2)),
    }
    kill_words = "P(destroyed)"
    sweep_stats = ("def", "arm", "mat", "rat", "str", "focus", "attacks")
    sweep_target_stats = ("def", "arm")
    sweep_also = ("boost_hit", "boost_damage", "charge")
    sweep_attacker_options = ("focus", "mode", "charge", "attacks", "boost_hit", "boost_damage")

    # ------------------------------------------------------------------ profiles
    def load_profile(self, ref: str):
        from mathhammer.warmachine.models import load_warmachine

        return load_warmachine(ref)

    def owns(self, profile: Any) -> bool:
        from mathhammer.warmachine.models import WarmachineProfile

        return isinstance(profile, WarmachineProfile)

    def validate_scenario(self, data: dict, source: str) -> bool:
        """A Warmachine scenario has ``attacks``, ``activations`` or ``plan``."""
        if not ("attacks" in data or "activations" in data or "plan" in data):
            return False
        from mathhammer.warmachine.scenario import load_scenario

        load_scenario(data, source)
        return True

    def run_scenario(self, data, source, *, method, config, check, n_trials=None):
        """A scenario file: attacks, activations or a plan; ``kind = "battle"``: a battle."""
        if data.get("kind") == "battle":
            from mathhammer.warmachine.battle.query import run_battle_scenario

            return run_battle_scenario(data, source, method=method, config=config,
                                       check=check, n_trials=n_trials)
        from mathhammer.warmachine.scenario import run_scenario

        return run_scenario(data, source, method=method, config=config, check=check)

    # ------------------------------------------------------------------ lists
    def list_unit(self, key: str, entry: Any, profile: Any, ruleset: str, label: str):
        """Focus within WM-F1 (3 for a warjack, FOCUS for a warcaster, none for a solo), a
        charge paid with focus (WM-F2) and ending in melee (WM-F3)."""
        from mathhammer.lists import ListUnit

        focus = entry.focus or 0
        if profile.kind == "warjack" and focus > MAX_WARJACK_FOCUS:
            raise RulesError(f"{key}.focus", "a warjack is allocated at most 3 focus (WM-F1)", focus,
                             "use focus = 3 or less")
        if profile.kind == "warcaster" and focus > (profile.stats.focus or 0):
            raise RulesError(f"{key}.focus", f"more than {profile.name}'s FOCUS {profile.stats.focus}",
                             focus, f"use focus = {profile.stats.focus} or less")
        if profile.kind == "solo" and focus:
            raise RulesError(f"{key}.focus", "a solo has no focus (WM-F1)", focus, "remove focus")
        if entry.charge and profile.kind == "warjack" and focus < 1:
            raise RulesError(f"{key}.charge", "a warjack spends 1 focus to charge (WM-F2)", focus,
                             "give it focus = 1 or more")
        kinds = {w.kind for w in profile.weapons if w.damage_power is not None}
        mode = entry.mode or ("melee" if "melee" in kinds else "ranged")
        if mode not in kinds:
            raise ProfileError(f"{key}.mode", f"{profile.name} has no {mode} weapon with a damage roll",
                               mode, f"use mode = {sorted(kinds)[0]!r}" if kinds else "pick another unit")
        if entry.charge and mode != "melee":
            raise RulesError(f"{key}.charge", "a charge ends in melee: no ranged attacks after it (WM-F3)",
                             mode, 'use mode = "melee" or drop charge')
        return ListUnit(label, profile, entry.count, profile.points,
                        {"focus": focus, "mode": mode, "charge": entry.charge, "ref": entry.profile})

    def list_points(self, units: list, where: str) -> int:
        """Mk II pricing: warjack points pay for warjacks only; focus fits the casters' FOCUS."""
        jacks = sum(u.points * u.count for u in units if u.kind == "warjack")
        others = sum(u.points * u.count for u in units if u.kind != "warjack")
        casters = [u for u in units if u.kind == "warcaster"]
        if jacks and not casters:
            raise RulesError(f"{where}: units", "warjacks need a warcaster to control them (WM-F1)",
                             None, "add a warcaster entry")
        bonus = sum((u.profile.warjack_points or 0) * u.count for u in casters)
        focus_pool = sum((u.profile.stats.focus or 0) * u.count for u in casters)
        focus_used = sum(u.options["focus"] * u.count for u in units)
        if focus_used > focus_pool:
            raise RulesError(f"{where}: focus", f"{focus_used} focus spent or allocated, but the "
                             f"warcasters have FOCUS {focus_pool} (WM-F1)", focus_used,
                             "lower the focus = N of some entries")
        return others + max(0, jacks - bonus)

    def free_by_rule(self, unit: Any) -> str | None:
        if unit.profile.kind == "warcaster":
            return "a Mk II warcaster costs no points; it brings warjack points (PR-4)"
        return None

    def unit_value(self, unit: Any) -> int:
        """A warcaster costs nothing; as a target it is worth its warjack points (what its
        list would lose with it)."""
        if unit.profile.kind == "warcaster":
            return int(unit.profile.warjack_points or 0)
        return unit.points

    def variant_text(self, unit: Any) -> str:
        return f" (focus {unit.options.get('focus', 0)}{', charge' if unit.options.get('charge') else ''})"

    def battle_variant_text(self, unit: Any, policies: tuple[str, str]) -> str:
        """Battles never read a listed charge, and greedy generals choose focus themselves (WM-B11)."""
        listed = any(p != "greedy" for p in policies)
        return f" (focus {unit.options.get('focus', 0)})" if listed else ""

    # ------------------------------------------------------------------ cells
    def evaluate_cell(self, cell: Any, config: Any):
        """An activation under a focus policy by the duel engine; ``attacks = N``: a fixed
        sequence."""
        from mathhammer.analysis.cells import CellResult

        opts = cell.attacker_options
        attacker = self.with_stats(cell.attacker, opts)
        target = cell_target(cell.target, cell.target_options)
        if opts.get("attacks") is not None:
            from mathhammer.warmachine.sequence import run_sequence

            steps, text = fixed_steps(attacker, opts)
            report = run_sequence(steps, target, method=cell.method, config=config)
            text = "fixed sequence: " + text
        else:
            report, text = _duel(cell, attacker, target, config)
        # TU-C1: score counts the boxes marked as that share of the model (chip damage too)
        return CellResult(cell.key, report.results["p_destroyed"], report.results["mean_damage"],
                          report.method, report.seed, report.n_trials, text,
                          damage_share=1.0 / target.grid.n_boxes)

    def cell_words(self, policy: str, for_score: bool = False) -> str:
        if for_score:
            return ("one activation against a fresh target model (" + policy + " focus policy); "
                    "points destroyed = boxes marked / the model's boxes x its points (TU-C1)")
        return (f"one activation of the attacker against a fresh target model ({policy} focus "
                "policy in melee); p_kill = P(destroyed)")

    # ------------------------------------------------------------------ battles
    battle_turns = 5  # wm battle's default
    battle_policies = ("greedy", "scripted", "best-response")  # WM-B11

    def has_battles(self) -> bool:
        return True

    def check_battle(self, army: Any, where: str) -> None:
        """One battlegroup a side (WM-B1): refused here before any battle is played."""
        from mathhammer.warmachine.battle.setup import build_sides

        build_sides(army, army)

    def play_battles(self, army_a, army_b, *, seed, start, count, policy_a="greedy",
                     policy_b="greedy", turns=None):
        """``wm battle``'s battles (WM-B1..B13) on the default deployment, the first player
        rolled off; battle ``j`` plays on the stream SeedSequence(seed, spawn_key=(j,)). The
        margin is the points destroyed by A minus those destroyed by B (WM-B10: a caster kill
        decides the result and adds nothing; TU-B1)."""
        import numpy as np

        from mathhammer.warmachine.battle.runner import battle_of_lists, chunk_rng, play_battle

        key = (battle_key(army_a), battle_key(army_b))
        battle, policies = battle_of_lists(army_a, army_b, key, turns or self.battle_turns,
                                           policy_a, policy_b)
        result = np.zeros(count, dtype=np.int8)
        margin = np.zeros(count, dtype=np.float64)
        for k in range(count):
            state = play_battle(battle, policies, chunk_rng(seed, start + k))
            result[k] = (1, -1, 0)[state.winner]  # winner: 0 A, 1 B, 2 undecided
            margin[k] = state.points[0] - state.points[1]
        return result, margin

    def battle_key(self, army: Any, policies: tuple[str, str]) -> str:
        """The models, and their listed focus only where a general may play it "as listed"
        (scripted, best-response: WM-B11); a list's charge and mode a battle never reads."""
        listed = any(p != "greedy" for p in policies)
        copies: dict = {}
        for u in army.units:
            what = (u.profile_id, u.options.get("ref"), u.options.get("focus") if listed else None)
            copies[what] = copies.get(what, 0) + u.count
        return repr(sorted(copies.items(), key=repr))

    def battle_words(self) -> str:
        return ("one wm battle on the default deployment (WM-B1), the first player rolled off, "
                "won by a caster kill or by the points destroyed (WM-B10)")

    # ------------------------------------------------------------------ sweeps
    def with_stats(self, profile: Any, options: dict[str, Any]):
        """MAT / RAT / STR options applied; P+S follows STR (PR-3), ranged POW does not."""
        changes = {STAT_FIELDS[k].split(".")[1]: v for k, v in options.items() if k in STAT_FIELDS}
        if not changes:
            return profile
        update: dict[str, Any] = {"stats": profile.stats.model_copy(update=changes)}
        if "str_" in changes:
            delta = changes["str_"] - profile.stats.str_
            update["weapons"] = tuple(
                w.model_copy(update={"pow_plus_str": w.pow_plus_str + delta})
                if w.pow_plus_str is not None else w for w in profile.weapons)
        return profile.model_copy(update=update)

    def check_sweep_value(self, profile: Any, side: str, stat: str, value: int) -> None:
        if stat == "focus":
            if profile.kind == "warjack" and value > 3:
                raise RulesError("‹vary›", "a warjack is allocated at most 3 focus (WM-F1)", value,
                                 "use ‹vary› focus=0..3")
            if value < 0:
                raise InputError("‹vary›", "focus must be 0 or more", value, "use ‹vary› focus=0..3")
            return
        if stat == "attacks":
            if not 1 <= value <= 30:
                raise InputError("‹vary›", "attacks must be 1..30", value, "use ‹vary› attacks=1..6")
            return
        if stat in ("def", "arm") and side == "target":
            if not 1 <= value <= 30:
                raise InputError("‹vary›", f"{stat.upper()} must be 1..30", value,
                                 f"use e.g. ‹vary› {stat}=10..18")
            return
        check_stat_by_model(self.name, profile, STAT_FIELDS.get(stat) or f"stats.{stat}", stat, value)

    def sweep_setup(self, attacker, target, attacker_ref, target_ref, base_a, base_t, also,
                    policy: str) -> str:
        if isinstance(attacker_ref, str):
            base_a["ref"] = attacker_ref  # a user file path reaches the duel engine as given
        if isinstance(target_ref, str):
            base_t["ref"] = target_ref
        base_a.setdefault("mode", "melee" if any(w.kind == "melee" and w.damage_power is not None
                                                 for w in attacker.weapons) else "ranged")
        if base_a.get("charge") == "must" and base_a["mode"] == "ranged":
            raise RulesError("‹charge›", "a charge ends in melee: no ranged attacks after it "
                             "(WM-F3)", True, "drop ‹charge› or ‹mode› ranged")
        # like `wm duel`: a warjack gets its full allocation, a warcaster its FOCUS (WM-F1)
        base_a.setdefault("focus", 3 if attacker.is_warjack else (attacker.stats.focus or 0))
        if {"boost_hit", "boost_damage"} & set(also) and policy != "fixed":
            return "fixed"  # like for like: a boost series is the fixed policy with boosts on
        return policy

    def sweep_series_value(self, option: str):
        """A charge series charges (WM-D3), like ``--charge``; a boost series boosts."""
        return "must" if option == "charge" else True

    def sweep_info(self, policy: str) -> dict[str, str]:
        return {"policy": f"{policy} focus policy"}


    # ------------------------------------------------------------------ imports
    import_rulesets = ("mk2",)
    import_points_per_copy = True  # "2x Ironclad (7pts)": a Mk II line prices one model
    import_notes = ("# No focus is allocated: give each warjack focus = N (at most 3; WM-F1).",)

    def reads_text(self, head: str) -> bool:
        return any(w in head for w in ("warmachine", "wj:", "pc:", "warjack", "caster", "faction:"))

    def parse_text(self, text: str, label: str, ruleset: str | None):
        from mathhammer.warmachine.list_text import parse

        return parse(text, label)

    def import_ids(self, ruleset: str) -> list[str]:
        from mathhammer.profiles import bundled_ids

        return bundled_ids(self.name)

    def roster_ruleset(self, system: str, game: str | None, ruleset: str | None) -> str | None:
        if game == self.name or (game is None and ("warmachine" in system or "hordes" in system)):
            return "mk2"
        return None

    # ------------------------------------------------------------------ presentation
    def card(self, profile):
        from mathhammer.warmachine.card import card

        return card(profile)

    def headline_builders(self):
        from mathhammer.warmachine.headlines import BUILDERS

        return BUILDERS

    def figure(self, report):
        from mathhammer.warmachine.figures import FIGURES

        builder = FIGURES.get(report.command)
        return None if builder is None else builder(report)


# --------------------------------------------------------------------------- cell pieces
def battle_key(army) -> str:
    """What a side of a battle is, in text: two lists with equal texts fight alike."""
    return repr([(u.label, u.profile_id, u.options.get("ref"), u.count,
                  sorted((k, v) for k, v in u.options.items() if k != "ref")) for u in army.units])


def _strongest(weapons):
    return max(weapons, key=lambda w: (w.damage_power, w.rof))


def fixed_steps(profile, options: dict[str, Any]) -> tuple[list, str]:
    """``attacks = N``: N attacks with the strongest weapon of the mode, no focus spent."""
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


def cell_target(profile, options: dict[str, Any]):
    """The duel engine's target (grid or track, shield boxes) with swept DEF / ARM."""
    from mathhammer.warmachine.duel import target_from_profile

    target = target_from_profile(options.get("ref") or profile.id)
    changes = {k: int(options[key]) for k, key in (("defense", "def"), ("armor", "arm"))
               if options.get(key) is not None}
    return replace(target, **changes) if changes else target


def _duel(cell, attacker, target, config):
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
    d_mat = changed.stats.mat - original.stats.mat
    d_rat = changed.stats.rat - original.stats.rat
    d_str = changed.stats.str_ - original.stats.str_
    if not (d_mat or d_rat or d_str):
        return spec
    weapons = tuple(replace(w, stat=w.stat + d_mat, power=w.power + d_str) if w.kind == "melee"
                    else replace(w, stat=w.stat + d_rat) for w in spec.weapons)
    return replace(spec, weapons=weapons, strength=spec.strength + d_str)


GAME = register(Warmachine())
