"""Feats and spells as data (WM-E1..WM-E4): a profile's ``[[effects]]`` turned into what
the decision graph plays.

* an enemy feat (WM-E2) starts the warcaster's activation: knock-down / stationary and
  DEF/ARM modifiers on the attacked model for the rest of the chain;
* an enemy spell effect (WM-E3) switches on when its magic attack hits;
* a friendly effect (WM-E4) is on the attacked model from the start when the player says
  it is buffed (``--target-effect``), or — its attack modifiers — on the attackers that
  activate after a friendly feat.

DEF/ARM modifiers that switch on during a chain are effect *flags* of the graph
(:class:`~mathhammer.warmachine.activation.Effect`); the exact programme carries them in
its state, so at most :data:`~mathhammer.warmachine.policy.MAX_FLAGS` per chain.
"""

from __future__ import annotations

from dataclasses import replace

from mathhammer.errors import InputError, RulesError
from mathhammer.warmachine.activation import KNOCKED_DOWN, STATIONARY, ActivationSpec, Effect


def _immune(effect, immunities) -> bool:
    return bool(effect.unless_immune) and effect.unless_immune in immunities


def feat_effects(prof, immunities=()) -> list:
    """The enemy effects of ``prof``'s feat that reach a target with ``immunities``."""
    return [e for e in prof.effects if e.source == "feat" and e.on == "enemy"
            and not _immune(e, immunities)]


def spell_effect(prof, spell_name: str, immunities=()):
    """The enemy effect of a spell's hit, or None (none declared, or the target is immune)."""
    for e in prof.effects:
        if e.source == "spell" and e.on == "enemy" and e.name == spell_name:
            return None if _immune(e, immunities) else e
    return None


def has_feat_effect(prof) -> bool:
    return any(e.source == "feat" for e in prof.effects)


def chain_flags(profs: list, feat_users: set[int], immunities=()) -> tuple[list[Effect], dict]:
    """Effect flags of a chain: every enemy DEF/ARM modifier a used feat or a castable
    spell can switch on. Returns (the graph's flags, ``{(profile id, name): bit}``)."""
    from mathhammer.warmachine.policy import MAX_FLAGS

    flags: list[Effect] = []
    bit: dict[tuple[str, str], int] = {}
    for a, prof in enumerate(profs):
        for e in prof.effects:
            if e.on != "enemy" or not any(e.target_mods) or _immune(e, immunities):
                continue
            if e.source == "feat" and a not in feat_users:
                continue
            key = (prof.id, e.name)
            if key in bit:
                continue
            bit[key] = len(flags)
            d, rd, arm = e.target_mods
            flags.append(Effect(e.name, d, rd, arm))
    if len(flags) > MAX_FLAGS:
        raise RulesError("effects", f"the chain can switch on {len(flags)} DEF/ARM effects "
                         f"({', '.join(f.name for f in flags)}); the exact programme carries "
                         f"at most {MAX_FLAGS}", len(flags), "leave out a warcaster or its feat")
    return flags, bit


def entry_of(prof, bit: dict, immunities=()) -> tuple[bool, int]:
    """(knocks down, flags) a warcaster's feat puts on the target when it is used (WM-E2)."""
    knock, flags = False, 0
    for e in feat_effects(prof, immunities):
        knock |= e.knocks_down
        if (prof.id, e.name) in bit:
            flags |= 1 << bit[(prof.id, e.name)]
    return knock, flags


def effect_down_words(effects) -> list[str]:
    """What effects that knock down leave the target: "knocked down" or "stationary" (Icy
    Gaze, Freezing Grip), for the labels of the decision table (WM-A4, WM-E2)."""
    return [KNOCKED_DOWN if e.knock_down else STATIONARY for e in effects if e.knocks_down]


def friendly_feat(prof):
    """A friendly feat with attack modifiers (MAT/RAT/STR/POW), or None (WM-E2)."""
    for e in prof.effects:
        if e.source == "feat" and e.on == "friendly" and any(e.attack_mods):
            return e
    return None


def buffed(spec: ActivationSpec, effect) -> ActivationSpec:
    """``spec`` with a friendly effect's attack modifiers on its weapons (WM-E2)."""
    mat, rat, strength, power = effect.attack_mods
    weapons = tuple(replace(w, stat=w.stat + (mat if w.kind == "melee" else rat),
                            power=w.power + power + (strength if w.kind == "melee" else 0))
                    for w in spec.weapons)
    return replace(spec, weapons=weapons, strength=spec.strength + strength)


def target_buffs(names: list[str], target_prof, where: str = "‹target_effect›"
                 ) -> tuple[int, int, int, list]:
    """(DEF, ranged DEF, ARM, effects) of friendly effects on the attacked model (WM-E4),
    looked up in the bundled profiles of its faction (and its own)."""
    from mathhammer.profiles import bundled_ids
    from mathhammer.warmachine.models import load_warmachine

    if not names:
        return 0, 0, 0, []
    pool = {}
    for ref in [target_prof.id, *bundled_ids("warmachine")]:
        try:
            prof = target_prof if ref == target_prof.id else load_warmachine(ref)
        except Exception:  # noqa: BLE001 — a user file shadowing an id: skip, not our target
            continue
        if prof.faction != target_prof.faction:
            continue
        for e in prof.effects:
            if e.on == "friendly":
                pool.setdefault(e.name.lower(), e)
    chosen, seen = [], set()
    for name in names:
        e = pool.get(name.strip().lower())
        if e is None:
            have = ", ".join(sorted(x.name for x in pool.values())) or "none in its faction"
            raise InputError(where, f"is not a friendly effect of {target_prof.faction} "
                             "(WM-E4)", name, f"use one of: {have}")
        if e.name in seen:
            raise InputError(where, "names the same effect twice (a buff does not stack with "
                             "itself)", name, "give it once")
        seen.add(e.name)
        chosen.append(e)
    d = sum(e.defense for e in chosen)
    rd = sum(e.ranged_defense for e in chosen)
    arm = sum(e.armor for e in chosen)
    return d, rd, arm, chosen
