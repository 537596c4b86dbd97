"""Feats and spells as data (WM-E1..WM-E4): each bundled effect changes the answer the way
its text says, checked against the same question asked with the plain modifier, or the
option tables against the shared roll rules."""

from __future__ import annotations

import math

import pytest

from mathhammer.errors import ProfileError, RulesError, InputError
from mathhammer.warmachine import rules
from mathhammer.warmachine.duel import activation_from_profile, duel, target_from_profile
from mathhammer.warmachine.effects import buffed, chain_flags
from mathhammer.warmachine.models import load_warmachine, validate_warmachine

EXACT = dict(method="exact")


def p(report) -> float:
    return report.results["p_destroyed"].value


# ------------------------------------------------------------------ WM-E2: feats
def test_withering_is_minus_two_def_and_arm_from_the_start():
    # WM-E2: The Withering, used as Deneghra activates first: -2 DEF and -2 ARM on the target
    feat = duel("cryx/deneghra", "cygnar/stryker", feat=True, **EXACT)
    plain = duel("cryx/deneghra", "cygnar/stryker", def_bonus=-2, arm_bonus=-2, **EXACT)
    assert p(feat) == pytest.approx(p(plain), abs=1e-12)
    assert p(feat) > p(duel("cryx/deneghra", "cygnar/stryker", **EXACT)) + 0.05


def test_icy_gaze_is_stationary_unless_immune_to_cold():
    # WM-E2: Icy Gaze makes the target stationary (as knocked down for attack rolls)
    feat = duel("khador/sorscha", "cygnar/stryker", feat=True, **EXACT)
    plain = duel("khador/sorscha", "cygnar/stryker", stationary=True, **EXACT)
    assert p(feat) == pytest.approx(p(plain), abs=1e-12)
    # an enemy Sorscha has Immunity: Cold: the feat does nothing to her
    immune = duel("khador/sorscha", "khador/sorscha", feat=True, **EXACT)
    assert p(immune) == pytest.approx(p(duel("khador/sorscha", "khador/sorscha", **EXACT)),
                                      abs=1e-12)
    assert p(duel("khador/sorscha", "khador/juggernaut", feat=True, **EXACT)) > \
        p(duel("khador/sorscha", "khador/juggernaut", **EXACT))


def test_menoths_wrath_knocks_down():
    feat = duel("protectorate/kreoss", "cygnar/stryker", feat=True, **EXACT)
    plain = duel("protectorate/kreoss", "cygnar/stryker", knocked_down=True, **EXACT)
    assert p(feat) == pytest.approx(p(plain), abs=1e-12)


def test_a_feat_helps_only_the_activations_after_it():
    # the Juggernaut activates before Sorscha's feat: its part of the chain is unchanged
    before = duel("khador/juggernaut", "cygnar/stryker", then=["khador/sorscha:3"], feat=True,
                  objective="damage", **EXACT)
    alone = duel("khador/juggernaut", "cygnar/stryker", objective="damage", **EXACT)
    assert before.results["mean_damage"].value > alone.results["mean_damage"].value
    assert "uses the feat" in before.title


def test_feat_without_a_warcaster_is_one_line():
    with pytest.raises(RulesError, match="no warcaster"):
        duel("khador/juggernaut", "cygnar/stryker", feat=True)


# --------------------------------------------------------- WM-E4: buffs on the target
@pytest.mark.parametrize("effect, arm, d", [("Arcane Shield", 3, 0), ("Invincibility", 5, 0)])
def test_arm_buffs_on_the_target(effect, arm, d):
    buffed_ = duel("khador/juggernaut", "cygnar/stryker", target_effects=[effect], **EXACT)
    plain = duel("khador/juggernaut", "cygnar/stryker", arm_bonus=arm, **EXACT)
    assert p(buffed_) == pytest.approx(p(plain), abs=1e-12)


def test_defenders_ward_is_plus_two_def_and_arm():
    ward = duel("khador/juggernaut", "protectorate/kreoss", target_effects=["defender's ward"],
                **EXACT)
    plain = duel("khador/juggernaut", "protectorate/kreoss", def_bonus=2, arm_bonus=2, **EXACT)
    assert p(ward) == pytest.approx(p(plain), abs=1e-12)


def test_blur_is_ranged_and_magic_only():
    tgt = target_from_profile("cygnar/ironclad", effects=["Blur"])
    assert tgt.defense_against("melee", False, False) == 12
    assert tgt.defense_against("ranged", False, False) == 15
    assert tgt.defense_against("magic", False, False) == 15
    melee = duel("khador/juggernaut", "cygnar/ironclad", target_effects=["Blur"], **EXACT)
    assert p(melee) == pytest.approx(p(duel("khador/juggernaut", "cygnar/ironclad", **EXACT)))
    # a ranged Destroyer's first Bombard shot: 2d6 + RAT 4 against DEF 12 + 3 (WM-A1)
    shot = duel("khador/destroyer", "cygnar/ironclad", ranged=True, focus=0,
                target_effects=["Blur"], **EXACT)
    rat = load_warmachine("khador/destroyer").stats.rat
    assert shot.results["p_hit_1"].value == pytest.approx(rules.hit_probability(2, rat, 15))


def test_unknown_or_repeated_target_effect_is_one_line():
    with pytest.raises(InputError, match="Arcane Shield, Blur, Invincibility"):
        target_from_profile("cygnar/stryker", effects=["Icy Gaze"])
    with pytest.raises(InputError, match="twice"):
        target_from_profile("cygnar/stryker", effects=["Blur", "blur"])


# ------------------------------------------------------ WM-E3: spell effects on a hit
def _tables(caster: str, target: str, focus: int):
    from mathhammer.warmachine.activation import build_graph
    from mathhammer.warmachine.policy import OptionTables

    tgt = target_from_profile(target)
    prof = load_warmachine(caster)
    flags, bits = chain_flags([prof], set(), tgt.immunities)
    spec = activation_from_profile(caster, focus, "no", ranged=True, target_base=tgt.base,
                                   immunities=tgt.immunities, flag_bits=bits)
    graph = build_graph([spec], flags)
    return graph, OptionTables.build(graph, tgt), tgt


@pytest.mark.parametrize("spell, d_def, d_arm", [("Crippling Grasp", -2, -2), ("Parasite", 0, -3)])
def test_debuff_spells_switch_their_modifier_on_after_a_hit(spell, d_def, d_arm):
    graph, opts, tgt = _tables("cryx/deneghra", "cygnar/ironclad", 7)
    names = [f.name for f in graph.flags]
    assert spell in names
    bit = names.index(spell)
    casts = [o for o, opt in enumerate(graph.options) if opt.name == spell]
    assert casts and all(graph.options[o].flags_on_hit == 1 << bit for o in casts)
    # another option, attacking once the flag is on: DEF and ARM moved by the spell's amount
    o = next(o for o, opt in enumerate(graph.options) if opt.name == "Venom")
    focus = load_warmachine("cryx/deneghra").stats.focus
    on = 1 << bit
    assert opts.p_hit[o, 0, 0, 0, 0, on] == pytest.approx(
        rules.hit_probability(2, focus, tgt.defense + d_def))
    venom = graph.options[o]
    want = rules.damage_pmf(2, venom.power, tgt.armor + d_arm)
    got = opts.pmf[o, 0, 0, on]
    assert float(got @ range(len(got))) == pytest.approx(
        float(want[: len(got)] @ range(min(len(got), len(want))))
        + float(want[len(got):].sum()) * (len(got) - 1), abs=1e-12)


def test_freezing_grip_is_played_unless_the_target_is_immune_to_cold():
    graph, _, _ = _tables("khador/sorscha", "cygnar/ironclad", 6)
    grip = [o for o in graph.options if o.name == "Freezing Grip"]
    assert grip and all(o.knocks_down and o.no_damage for o in grip)
    graph, _, _ = _tables("khador/sorscha", "khador/sorscha", 6)
    assert not [o for o in graph.options if o.name == "Freezing Grip"]


@pytest.mark.parametrize("caster, spell", [("khador/sorscha", "Tempest"),
                                           ("cygnar/stryker", "Earthquake"),
                                           ("cryx/deneghra", "Scourge")])
def test_knock_down_spells_come_from_their_effect(caster, spell):
    graph, _, _ = _tables(caster, "cygnar/ironclad" if caster != "cygnar/stryker"
                          else "khador/destroyer", 6)
    assert any(o.knocks_down for o in graph.options if o.name == spell)


def test_debuff_spells_raise_the_kill_chance(tmp_path):
    # the same Deneghra without her [[effects]]: Parasite and Crippling Grasp do nothing, so
    # the chain's value drops; with them the policy may cast them (it never has to)
    from mathhammer.profiles import profiles_root

    text = (profiles_root() / "warmachine/cryx/deneghra.toml").read_text()
    bare = tmp_path / "deneghra_bare.toml"
    bare.write_text(text.split("# Effects the engine plays")[0])
    chain = dict(focus=3, ranged=True, then=["cryx/slayer:3:charge"], **EXACT)
    with_effects = duel("cryx/deneghra", "cygnar/ironclad", **chain)
    without = duel(str(bare), "cygnar/ironclad", **chain)
    assert p(with_effects) > p(without) + 0.01


# ------------------------------------------------------------------- WM-E1: schema
def _sorscha(**effect):
    data = load_warmachine("khador/sorscha").model_dump(by_alias=True, exclude_none=True)
    data["effects"] = [effect]
    return data


def test_schema_rejects_effects_that_do_not_fit_the_profile():
    with pytest.raises(ProfileError, match="must be one of the spells"):
        validate_warmachine(_sorscha(name="Nope", source="spell", on="enemy", rule="WM-E3",
                                     arm=-1), "x.toml")
    with pytest.raises(ProfileError, match="not offensive"):
        validate_warmachine(_sorscha(name="Wind Rush", source="spell", on="enemy",
                                     rule="WM-E3", arm=-1), "x.toml")
    with pytest.raises(ProfileError, match="does nothing"):
        validate_warmachine(_sorscha(name="Icy Gaze", source="feat", on="enemy",
                                     rule="WM-E2"), "x.toml")
    with pytest.raises(ProfileError, match="attack modifiers"):
        validate_warmachine(_sorscha(name="Icy Gaze", source="feat", on="enemy", rule="WM-E2",
                                     mat=2), "x.toml")
    with pytest.raises(ProfileError, match="feat's name"):
        validate_warmachine(_sorscha(name="Frost", source="feat", on="enemy", rule="WM-E2",
                                     stationary=True), "x.toml")


def test_a_custom_friendly_feat_buffs_the_attackers_after_it(tmp_path):
    from mathhammer.profiles import profiles_root
    from mathhammer.warmachine.plan import plan_turn

    data = _sorscha(name="Icy Gaze", source="feat", on="friendly", rule="WM-E2", str=2, mat=1)
    effect = validate_warmachine(data, "x.toml").effects[0]
    spec = activation_from_profile("khador/juggernaut", 3, "no", target_base="medium")
    up = buffed(spec, effect)
    for before, after in zip(spec.weapons, up.weapons):
        assert after.stat == before.stat + 1 and after.power == before.power + 2
    # a user's profile file declaring that feat: the planner plays it (and prefers it)
    text = (profiles_root() / "warmachine/khador/sorscha.toml").read_text()
    text = text.split("# Effects the engine plays")[0].replace('"khador/sorscha"',
                                                                '"khador/sorscha_buff"')
    text += ('\n[[effects]]\nname = "Icy Gaze"\nsource = "feat"\non = "friendly"\n'
             'rule = "WM-E2"\nstr = 2\nmat = 1\n')
    path = tmp_path / "sorscha_buff.toml"
    path.write_text(text)
    tgt = target_from_profile("cygnar/stryker", camped_focus=4)
    report = plan_turn([str(path), "khador/destroyer"], tgt, top=1)
    assert report.info["plan"][1].startswith("1. Kommander Sorscha uses the feat")
    bare = tmp_path / "sorscha_bare.toml"
    bare.write_text(text.split("\n[[effects]]")[0])
    plain = plan_turn([str(bare), "khador/destroyer"], tgt, top=1)
    assert p(report) > p(plain) + 0.01


def test_effect_flags_agree_between_exact_and_monte_carlo():
    # The Withering (entry flags) and Crippling Grasp / Parasite (flags on a hit) played by
    # the Monte Carlo kernel: within 5 se of the exact programme
    from mathhammer.engine import MonteCarloConfig

    n = 20_000
    exact = duel("cryx/deneghra", "cygnar/stryker", feat=True, ranged=True, **EXACT)
    mc = duel("cryx/deneghra", "cygnar/stryker", feat=True, ranged=True, method="mc",
              config=MonteCarloConfig(n, seed=9))
    for name in ("p_destroyed", "mean_focus_spent"):
        e, m = exact.results[name].value, mc.results[name]
        se = m.se if name != "p_destroyed" else math.sqrt(max(e * (1 - e), 1e-12) / n)
        assert abs(m.value - e) <= 5 * se + 1e-12, name


# ------------------------------------------------------------------ labels (issue 28 item 15)
def _opening(report) -> str:
    return next(line for line in report.info["decisions"] if ": opening [" in line)


def test_icy_gaze_decisions_say_stationary_not_knocked_down():
    """WM-E2: after Icy Gaze the target is stationary; nothing in the opening has knocked it
    down, so the decision table says so (the engine plays both alike, WM-A4)."""
    feat = duel("khador/sorscha", "cygnar/ironclad", feat=True, **EXACT)
    assert "[focus 6, stationary]" in _opening(feat), _opening(feat)
    assert feat.info["target"].endswith(", stationary"), feat.info["target"]
    first_attack = [line for line in feat.info["decisions"] if line.startswith("Frostfang [")]
    assert first_attack and all("stationary]" in line and "knocked" not in line
                                for line in first_attack), first_attack
    # Tempest knocks down: once it may have been cast, either can hold
    assert any("knocked down or stationary" in line for line in feat.info["decisions"])
    # states with as many boxes left differ in where they are marked: each line says which
    states = feat.info["decision states"]
    assert len(states) == len(set(states)) and any(" by column" in line for line in states)


def test_a_stationary_or_knocked_down_start_is_named_as_given():
    still = duel("khador/juggernaut", "cygnar/ironclad", stationary=True, focus=3,
                 power_attacks=False, **EXACT)
    down = duel("khador/juggernaut", "cygnar/ironclad", knocked_down=True, focus=3,
                power_attacks=False, **EXACT)
    assert "stationary" in _opening(still) and "knocked down" not in _opening(still)
    assert "knocked down" in _opening(down) and "stationary" not in _opening(down)
    assert p(still) == pytest.approx(p(down), abs=1e-12)  # WM-A4: played alike


def test_down_words_follow_what_can_have_happened_before_each_node():
    from mathhammer.warmachine.activation import KNOCKED_DOWN, STATIONARY, down_text

    assert down_text([STATIONARY]) == "stationary"
    assert down_text([KNOCKED_DOWN, STATIONARY]) == down_text([]) == "knocked down or stationary"
    from mathhammer.warmachine.activation import build_graph

    def after_power_attacks(graph, words):
        return {words[n.next] for n in graph.nodes if n.kind == "attack"
                and graph.options[n.option].name in ("head-butt", "slam") and n.next >= 0}

    # the Ironclad knocks down only (head-butt, slam, Critical Knockdown: WM-A4)
    ironclad = build_graph([activation_from_profile("cygnar/ironclad", 3, charge="may")])
    assert after_power_attacks(ironclad, ironclad.down_words()) == {"knocked down"}
    assert ironclad.down_words()[0] == down_text([])  # nothing has happened at the start
    words = ironclad.down_words(STATIONARY)  # a stationary target: then either can hold
    assert words[0] == "stationary" and after_power_attacks(ironclad, words) == {
        "knocked down or stationary"}
    # the Juggernaut's Critical Freeze leaves the target stationary: after a head-butt and
    # a later critical with the Ice Axe, either
    jug = build_graph([activation_from_profile("khador/juggernaut", 3, charge="may")])
    assert "knocked down or stationary" in after_power_attacks(jug, jug.down_words())
