"""``fb battle``'s augments and hexes (FB-B30): a spell that changes a unit's characteristics for
the player turn, played by the kernel and the reference engine."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mathhammer.profiles import profiles_root

HEX = ('[[wizard.spells]]\nname = "Withering"\nkind = "hex"\ncv = 5\nrange = 24\n'
       'modifiers = { t = -1 }\n')
AUGMENT = ('[[wizard.spells]]\nname = "Iron Skin"\nkind = "augment"\ncv = 6\nrange = 24\n'
           'modifiers = { ws = 1, s = 1 }\n')


def _profile(tmp_path, base: str, name: str, spells: str = "", unbreakable: bool = False,
             attacks: int | None = None, ruleset: str = "wfb8") -> str:
    """A bundled wfb8 profile copied as a test profile: its spells replaced by ``spells``,
    Unbreakable, or its rank and file's attacks changed."""
    text = (profiles_root() / f"fantasy/wfb8/{base}.toml").read_text()
    if spells:
        head, _sep, tail = text.partition("[[wizard.spells]]")
        _old, _sep, rest = tail.partition("\n[formation]")
        text = head + spells + "\n[formation]" + rest
    if unbreakable:
        text = text.replace("special_rules = []", 'special_rules = ["Unbreakable"]')
    if attacks is not None:
        text = text.replace("\na = 1\n", f"\na = {attacks}\n")
    text = text.replace(f'id = "wfb8/{base}"', f'id = "test/{name}"')
    text = text.replace('ruleset = "wfb8"', f'ruleset = "{ruleset}"')
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return str(path)


def _list(tmp_path, name: str, units: list[tuple[str, dict]], ruleset: str = "wfb8"):
    from mathhammer.lists import load_list

    lines = [f'name = "{name}"', 'game = "fantasy"', f'ruleset = "{ruleset}"', "points = 4000"]
    for profile, options in units:
        lines += ["", "[[units]]", f'profile = "{profile}"']
        lines += [f"{k} = {str(v).lower() if isinstance(v, bool) else v}"
                  for k, v in options.items()]
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return load_list(str(path))


def _hexed_combat(tmp_path, remains: bool = False):
    """A Battle Wizard who knows one hex (T -1, cv 5, 24"; with ``remains``, it remains in
    play) 20" from twenty Unbreakable halberdiers (five wide) placed front to front with
    thirty Unbreakable Orc Boyz of no attacks (ten wide); nobody moves, the orcs never
    dispel."""
    from mathhammer.fantasy.battle.runner import Recipe

    spell = HEX + "remains_in_play = true\n" if remains else HEX
    wizard = _profile(tmp_path, "empire_battle_wizard", "hexer", spell)
    halberdiers = _profile(tmp_path, "empire_halberdiers", "steady_halberdiers", unbreakable=True)
    orcs = _profile(tmp_path, "orc_boyz", "idle_orcs", unbreakable=True, attacks=0)
    a = _list(tmp_path, "a", [(wizard, {}), (halberdiers, dict(champion=False, standard=False,
                                                               musician=False))])
    b = _list(tmp_path, "b", [(orcs, dict(models=30, rank_width=10, champion=False,
                                          standard=False, musician=False))])
    labels = [u.label for u in a.units], [u.label for u in b.units]
    deployment = {"a": [{"unit": labels[0][0], "x": 16.0, "y": 10.0, "move": "hold",
                         "charge": "none"},
                        {"unit": labels[0][1], "x": 36.0, "y": 24.0, "move": "hold"}],
                  "b": [{"unit": labels[1][0], "x": 36.0, "y": 24.0, "move": "hold",
                         "charge": "none", "dispel": "none"}]}
    return Recipe(a, b, deployment, "test", 1, "a", "scripted", "scripted", 1, 1)


def _round_wounds(plan, hexed: bool) -> np.ndarray:
    """P(k wounds on the orcs) in one round of the halberdiers against them, front to front,
    nobody charging — the combat engine's exact round (the orcs with T − 1 when hexed)."""
    from dataclasses import replace

    from mathhammer.fantasy.battle.spell_effects import modified_side
    from mathhammer.fantasy.combat.exact import combat_exact
    from mathhammer.fantasy.combat.fight import compile_fight

    halberdiers = next(u for u in plan.units if u.side == 0 and u.models > 1).combat_side
    orcs = plan.units[plan.sides[1][0]].combat_side
    if hexed:
        orcs = modified_side(orcs, {"t": -1})
    c, tables = compile_fight((replace(halberdiers, position="front"),),
                              (replace(orcs, position="front"),), ruleset=plan.rules)
    return np.asarray(combat_exact(c, tables, 1)["wounds_dealt"], float)


@pytest.mark.parametrize("remains", [False, True])
def test_a_hex_then_a_combat_is_the_combat_engines_round_with_the_hexed_profile(tmp_path,
                                                                              remains):
    """One game turn, A first: the wizard hexes the orcs (T4 → T3) with MG-9's target-rule
    dice (P(cast) exact from cast_odds; no dispel), then A's combat phase fights a round with
    the hexed orcs, and B's turn a plain round (the hex is over, FB-B30) — or, when the hex
    remains in play (FB-B31: its caster lives — a Detonation does one wound of his two — and
    nobody dispels), a hexed round again. The orcs strike no blow and nobody breaks, so the
    orcs' losses are the sum of the two rounds, independent given the cast: their mean and
    variance are exact from the combat engine's round and P(cast) — the kernel and the
    reference engine each within 5 se (N = 1000)."""
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import build_plan
    from mathhammer.magic.rolls import cast_odds
    from mathhammer.magic.rules import magic_rules

    recipe = _hexed_combat(tmp_path, remains)
    plan = build_plan(recipe)
    rules = magic_rules("wfb8")
    dice = next(d for d in range(1, 7) if cast_odds(rules, d, 2, 5).p_cast >= 0.75)
    p = float(cast_odds(rules, dice, 2, 5).p_cast)
    hexed, plain = _round_wounds(plan, True), _round_wounds(plan, False)
    k1, k2 = np.arange(len(hexed)), np.arange(len(plain))
    assert hexed @ k1 > plain @ k2 + 0.3  # the hex matters
    # E[X] and E[X²] of the two rounds' sum, given the cast (hexed second round: remains)
    eh, eh2, ep, ep2 = hexed @ k1, hexed @ k1**2, plain @ k2, plain @ k2**2
    cast = (2 * eh, 2 * eh2 + 2 * eh**2) if remains else (eh + ep, eh2 + ep2 + 2 * eh * ep)
    missed = (2 * ep, 2 * ep2 + 2 * ep**2)
    mean = p * cast[0] + (1 - p) * missed[0]
    var = p * cast[1] + (1 - p) * missed[1] - mean**2
    assert np.nonzero(hexed)[0].max() <= 15  # at most 15 orcs a round, never the 30
    n = 1000
    orcs = plan.sides[1][0]
    assert plan.units[0].bodies[0][3] == 2  # the wizard's two wounds (a Detonation: one)
    for engine, seed in (("kernel", 3), ("python", 4)):
        plan = build_plan(recipe)
        plan.engine = engine
        tally = run(recipe, n, seed, plan=plan)[0]
        left = tally["models_left"][orcs][:31]
        observed = float(left @ (30 - np.arange(31))) / n
        assert abs(observed - mean) <= 5 * math.sqrt(var / n), (engine, observed, mean)


def _spell_duel(tmp_path, ruleset: str = "wfb8"):
    """Wizards on both sides beside a combat: a Battle Wizard with a hex that remains in play
    (T -1) and an augment (WS +1, S +1), twenty halberdiers; an Orc Shaman with Gaze of Mork
    and a hex (WS -1, A -1), twenty Orc Boyz front to front with the halberdiers."""
    from mathhammer.fantasy.battle.runner import Recipe

    remains = HEX + "remains_in_play = true\n"
    curse = ('[[wizard.spells]]\nname = "Brain Bursta"\nkind = "hex"\ncv = 6\nrange = 24\n'
             'modifiers = { ws = -1, a = -1 }\n')
    gaze = ('[[wizard.spells]]\nname = "Gaze of Mork"\nkind = "missile"\ncv = 7\nrange = 24\n'
            'hits = "D6"\nstrength = 4\n')
    wizard = _profile(tmp_path, "empire_battle_wizard", "hexer", remains + AUGMENT, ruleset=ruleset)
    shaman = _profile(tmp_path, "orc_shaman", "curser", gaze + curse, ruleset=ruleset)
    units = {"wfb8": ("wfb8/empire_halberdiers", "wfb8/orc_boyz"),
             "t9a1": ("t9a1/eos_heavy_infantry", "t9a1/og_orcs")}[ruleset]
    a = _list(tmp_path, "a", [(wizard, {}), (units[0], {})], ruleset)
    b = _list(tmp_path, "b", [(shaman, {}), (units[1], {})], ruleset)
    labels = [u.label for u in a.units], [u.label for u in b.units]
    deployment = {"a": [{"unit": labels[0][0], "x": 20.0, "y": 12.0, "move": "hold",
                         "charge": "none"},
                        {"unit": labels[0][1], "x": 36.0, "y": 24.0, "move": "hold"}],
                  "b": [{"unit": labels[1][0], "x": 52.0, "y": 36.0, "facing": 180,
                         "move": "hold", "charge": "none"},
                        {"unit": labels[1][1], "x": 36.0, "y": 24.0, "move": "hold"}]}
    return Recipe(a, b, deployment, "test", 3, "a", "greedy", "greedy", 1, 1)


@pytest.mark.parametrize("ruleset, policy_a, n", [
    ("wfb8", "greedy", 300),
    pytest.param("t9a1", "best-response", 120, marks=pytest.mark.slow)])
def test_the_kernel_and_the_reference_engine_agree_on_augments_and_hexes(tmp_path, ruleset,
                                                                         policy_a, n):
    """Three game turns of the spell duel (greedy generals; slow: t9a1 with A a best response,
    4 rollouts): P(A wins), P(B wins), how often each augment and hex is cast and a spell
    dispelled, and each unit's P(destroyed) agree between the kernel and the reference engine
    (independent runs, 5 se). Greedy casts the hexes and the augment at the combat (their
    exact combat values) and B dispels the hex in play in A's later turns."""
    from dataclasses import replace

    from mathhammer.fantasy.battle.magic import magic_of
    from tests.test_fb_battle_magic import _engines_agree, win_stats

    recipe = replace(_spell_duel(tmp_path, ruleset), policy_a=policy_a, rollouts=4)

    def stats(plan):
        vocab = plan.vocabulary
        out = win_stats()
        for spell in ("Withering", "Iron Skin", "Brain Bursta"):
            idx = [i for (_s, kd, _u, label), i in vocab.items()
                   if kd == "cast" and label.startswith(f"{spell} at")]
            out[spell] = (lambda t, idx=idx: t["decisions"][idx].sum() / t["outcome"].sum(),
                          lambda t: 3.0)  # at most 3 a battle: var ≤ 3² / 4 < 3
        idx = [i for (_s, kd, _u, label), i in vocab.items()
               if kd == "dispel" and label.startswith("dispel with")]
        # a battle's dispels X lie in [0, cap]: each magic phase at most one a cast spell and
        # one a spell in play, so var X <= E[X^2] <= cap * E[X]
        cap = 2 * plan.turns * (len(magic_of(plan).rows) + len(plan.units))
        out["dispels"] = (lambda t: t["decisions"][idx].sum() / t["outcome"].sum(),
                          lambda t: cap * max(t["decisions"][idx].sum() / t["outcome"].sum(),
                                              1.0 / t["outcome"].sum()))
        for u, unit in enumerate(plan.units):
            out[unit.label] = (lambda t, u=u: t["status"][-1, u, 3] / t["outcome"].sum(),
                               lambda t, u=u: (p := t["status"][-1, u, 3]
                                               / t["outcome"].sum()) * (1 - p))
        return out

    means = _engines_agree(recipe, n, stats)
    for spell in ("Withering", "Iron Skin", "Brain Bursta"):
        assert min(means[spell]) > 0.2, means  # each is cast
    assert min(means["dispels"]) > 0.5, means


@pytest.mark.parametrize("spell, words", [
    ('[[wizard.spells]]\nname = "Blank"\nkind = "hex"\ncv = 5\nrange = 24\n', "modifiers"),
    ('[[wizard.spells]]\nname = "Blank"\nkind = "augment"\ncv = 5\nrange = 24\n'
     'modifiers = { ws = 0 }\n', "not 0"),
    ('[[wizard.spells]]\nname = "Blank"\nkind = "missile"\ncv = 5\nrange = 24\nhits = "D6"\n'
     'strength = 4\nremains_in_play = true\n', "remains_in_play"),
    ('[[wizard.spells]]\nname = "Blank"\nkind = "hex"\ncv = 5\nrange = 24\n'
     'modifiers = { ld = -1 }\n', "ld"),
])
def test_a_bad_augment_or_hex_is_one_line(tmp_path, spell, words):
    """FB-B30/B31: a hex without modifiers, a modifier of 0, a missile that remains in play,
    a characteristic the battle does not change: `profiles validate` names the spell (or
    the key), exit 2, no traceback."""
    from tests.conftest import cli_result

    path = _profile(tmp_path, "empire_battle_wizard", "bad_spell", spell)
    code, _out, err = cli_result("profiles", "validate", path)
    assert code == 2 and words in err and "Traceback" not in err, err
    assert "Blank" in err or "modifiers.ld" in err, err


@pytest.mark.parametrize("remains, slain, kept", [
    (False, False, False), (True, False, True), (True, "wounds", False), (True, "caught", False),
    (True, "fled", False), (True, "target gone", False)])
def test_a_spell_ends_with_the_turn_unless_it_remains_in_play_and_its_caster_lives(
        tmp_path, remains, slain, kept):
    """FB-B30/B31 at a new magic phase, in both engines: a hex that does not remain in play
    ends; one that remains in play stays while its caster lives and ends once he is slain —
    wounded to death, his unit caught (destroyed) or fled off the table — or once the unit
    under it is gone."""
    from mathhammer.fantasy.battle import spell_effects
    from mathhammer.fantasy.battle.compile import KernelBattle
    from mathhammer.fantasy.battle.runner import build_plan
    from mathhammer.fantasy.battle.state import DEAD, FLED, BattleState
    from mathhammer.fantasy.kernels import battle_magic as km
    from mathhammer.fantasy.kernels.battle_spells import G_SPELL

    plan = build_plan(_hexed_combat(tmp_path, remains))
    orcs, wizard = plan.sides[1][0], 0
    _name, _role, _models, wounds = plan.units[wizard].bodies[0]
    state = BattleState(plan, __import__("random").Random(1), np.zeros(8, np.uint64))
    state.spell_on[orcs] = 0  # the wizard's hex (spell row 0) on the orcs
    status = {"caught": DEAD, "fled": FLED}.get(slain)
    if slain == "wounds":
        state.set_wounds(plan, wizard, 0, wounds)
    elif status is not None:
        state.status[wizard] = status
    elif slain == "target gone":
        state.status[orcs] = DEAD
    spell_effects.new_phase(plan, state)
    assert (state.spell_on[orcs] == 0) == kept
    from mathhammer.fantasy.kernels import battle_state as ks

    n = len(plan.units)
    g, unit_wounds = np.zeros(ks.NG + ks.G_EXTRA, np.int64), np.zeros((n, ks.MAXB), np.int64)
    g[G_SPELL + orcs] = 1  # the kernel's: spell row + 1
    unit_wounds[wizard, 0] = wounds if slain == "wounds" else 0
    unit_status = np.zeros((n, ks.NST), np.int64)
    if status is not None:
        unit_status[wizard, ks.ST_STATUS] = status
    elif slain == "target gone":
        unit_status[orcs, ks.ST_STATUS] = ks.DEAD
    kernel_state = ks.make_state(np.zeros((n, 5)), unit_status, unit_wounds,
                                 g, np.zeros(1), np.zeros((n, n + 1), np.int64),
                                 np.zeros((n, 16), np.int64), np.zeros((1, n), np.int64),
                                 np.zeros(8, np.uint64))
    km._new_phase(KernelBattle(plan).B, kernel_state)
    assert (g[G_SPELL + orcs] == 1) == kept


@pytest.mark.parametrize("engine, n", [("kernel", 200), ("python", 40)])
def test_a_dispel_with_power_dice_is_named_apart_from_one_with_dispel_dice(tmp_path, engine, n):
    """FB-B31: in B's magic phases B may dispel A's hex in play with power dice, and at A's
    casts with dispel dice; both engines count the two under their own labels ("dispel with
    2 power dice", not FB-B12's "dispel with 2 dice")."""
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import build_plan

    recipe = _spell_duel(tmp_path)
    plan = build_plan(recipe)
    plan.engine = engine
    tally = run(recipe, n, 5, plan=plan)[0]
    taken = {label: int(tally["decisions"][i])
             for (side, kind, _u, label), i in plan.vocabulary.items()
             if side == 1 and kind == "dispel" and tally["decisions"][i]}
    power = {label for label in taken if "power" in label}
    assert power and all(label == "no dispel with power dice"
                         or label.endswith(("power die", "power dice")) for label in power)
    assert set(taken) - power, taken  # and dispels with dispel dice, at A's casts
