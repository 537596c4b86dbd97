"""Warhammer Fantasy / The Ninth Age behind the Game interface (:mod:`mathhammer.game`).

What the shared code asks of this game: list entries (unit size, rank width, command
and whether the unit charges), the ruleset a unit belongs to, a unit's points (models
plus command, :meth:`UnitProfile.unit_points`), and the cell ``compare``/``sweep``/
``score`` evaluate: a close combat of the attacker unit against the target unit by
:func:`mathhammer.fantasy.combat.fight.combat` (the attacker charges when its ``charge``
option is set). ``p_kill`` is the combat's ``p_a_wins`` (the target broke or was
destroyed and the attacker stands), ``mean_damage`` the wounds dealt.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import Field

from mathhammer.errors import ProfileError, RulesError
from mathhammer.game import Game, check_stat_by_model, register

#: swept stat -> where it lives in the profile
STAT_FIELDS = {"ws": "stats.ws", "bs": "stats.bs", "s": "stats.s", "t": "stats.t",
               "w": "stats.w", "i": "stats.i", "a": "stats.a", "attacks": "stats.a",
               "ld": "stats.ld", "save": "saves.armour", "ward": "saves.ward",
               "models": "formation.models"}


class Fantasy(Game):
    name = "fantasy"
    rulesets = ("basic", "wfb8", "t9a1")
    ruleset_files = True
    entry_fields = {
        "charge": (bool, False),
        "models": (int | None, Field(None, ge=1, le=200)),
        "rank_width": (int | None, Field(None, ge=1, le=40)),
        "champion": (bool | None, None),
        "standard": (bool | None, None),
        "musician": (bool | None, None),
        "battle_standard": (bool | None, None),
        "joins": (str | None, Field(None, min_length=1, description="a character: the label of "
                                    "the unit it fights in (FB-K1)")),
        "general": (bool | None, Field(None, description="a character: the army's general (FB-K4)")),
        # equipment bought (issue 32 part 3): a kit id the profile's points.kit_options prices
        "buys": (str | None, Field(None, min_length=1, max_length=40, description="equipment "
                                   "bought from the profile's points.kit_options (FB-E1..E8)")),
    }
    variant_fields = {
        "models": (list[int], Field(default_factory=list, max_length=12)),
        "charge": (list[bool], Field(default_factory=list, max_length=2)),
        # command bought or not (issue 32 part 3): each priced by the profile (PR-4)
        "champion": (list[bool], Field(default_factory=list, max_length=2)),
        "standard": (list[bool], Field(default_factory=list, max_length=2)),
        "musician": (list[bool], Field(default_factory=list, max_length=2)),
        # a character moved between units: the labels of the units it may join (FB-K1)
        "joins": (list[str], Field(default_factory=list, max_length=12)),
        # equipment bought or not: kit ids of the profile's points.kit_options, "none" for none
        "buys": (list[str], Field(default_factory=list, max_length=9)),
    }
    kill_words = "P(target breaks or is destroyed)"
    sweep_stats = ("ws", "bs", "s", "t", "w", "i", "a", "attacks", "ld", "save", "ward", "models")
    sweep_target_stats = ("t", "save", "ward")
    sweep_also = ("charge",)
    sweep_attacker_options = ("charge",)

    # ------------------------------------------------------------------ profiles
    def load_profile(self, ref: str):
        from mathhammer.fantasy.models import load_unit

        return load_unit(ref)

    def owns(self, profile: Any) -> bool:
        from mathhammer.fantasy.models import UnitProfile

        return isinstance(profile, UnitProfile)

    def validate_scenario(self, data: dict, source: str) -> bool:
        """A Fantasy scenario is ``kind = "combat" | "artillery" | "turn" | "battle"``; a turn's
        ``[turn]`` table is checked too (FB-G5); ``kind = "deployment"``: a battle's
        deployment file (FB-B2)."""
        if data.get("kind") not in ("combat", "artillery", "turn", "battle", "deployment"):
            return False
        from pydantic import ValidationError

        from mathhammer.fantasy.scenario import Scenario
        from mathhammer.profiles import pydantic_errors

        if data.get("kind") == "deployment":
            from mathhammer.fantasy.battle.deploy import DeploymentFile

            try:
                DeploymentFile.model_validate(data)
            except ValidationError as err:
                raise pydantic_errors(err, source) from None
            return True

        try:
            Scenario.model_validate(data)
        except ValidationError as err:
            raise pydantic_errors(err, source) from None
        if data.get("kind") == "turn":
            from mathhammer.fantasy.combat.turn import TurnEntry

            try:
                TurnEntry.model_validate(data.get("turn") or {})
            except ValidationError as err:
                raise pydantic_errors(err, f"{source}: turn") from None
        return True

    def run_scenario(self, data, source, *, method, config, check, n_trials=None):
        from mathhammer.fantasy.scenario import run_scenario

        return run_scenario(data, source, method=method, config=config, check=check,
                            n_trials=n_trials)

    # ------------------------------------------------------------------ lists
    def list_unit(self, key: str, entry: Any, profile: Any, ruleset: str, label: str):
        """A unit of the list's ruleset (``basic`` takes any), in the entry's formation."""
        from mathhammer.fantasy.models import check_prices, with_formation
        from mathhammer.lists import ListUnit

        if profile.ruleset != ruleset and ruleset != "basic":
            raise ProfileError(f"{key}.profile", f"is a {profile.ruleset} unit in a {ruleset} list",
                               entry.profile, f"use a profiles/fantasy/{ruleset}/ unit")
        unit = with_formation(profile, models=entry.models, rank_width=entry.rank_width,
                              champion=entry.champion, standard=entry.standard,
                              musician=entry.musician, battle_standard=entry.battle_standard)
        size = unit.size_problem(unit.formation.models)
        if size:
            raise RulesError(f"{key}.models", size, unit.formation.models,
                             f"use models = {profile.points.min_models or 1}.."
                             f"{profile.points.max_models or 200}")
        try:  # PR-4: the entry's own command too, not only the profile's
            check_prices(unit, f"{entry.profile}", unit.formation)
        except ProfileError as err:
            raise ProfileError(f"{key}.profile", f"{err.where}: {err.what}", None, err.fix) from None
        unit = _with_bought_kit(unit, entry.buys, f"{key}.buys")
        roles = {"joins": entry.joins, "general": entry.general}
        for option, value in roles.items():
            if value is not None and unit.role != "character":
                raise ProfileError(f"{key}.{option}", f"{unit.name} is not a character "
                                   '(role = "character"): only a character takes it', value,
                                   f"remove {option}, or use a character profile")
        if entry.joins is not None and entry.count != 1:
            raise ProfileError(f"{key}.count", "a character that joins a unit is one model",
                               entry.count, "use count = 1 (one entry per character)")
        options = {"charge": entry.charge, **{k: v for k, v in roles.items() if v}}
        if entry.buys not in (None, "none"):
            options["buys"] = entry.buys  # what a cell or battle plays differs: in every key
        return ListUnit(label, unit, entry.count, unit.unit_points(), options)

    def list_points(self, units: list, where: str) -> int:
        """FB-K1/K4: ``joins`` names a unit (not a character) of the list, one general."""
        labels = {u.label: u for u in units}
        for i, u in enumerate(units):
            target = u.options.get("joins")
            if target is None:
                continue
            host = labels.get(target)
            if host is None:
                raise ProfileError(f"{where}: units.{i}.joins", "names no unit of the list", target,
                                   f"use one of {', '.join(x.label for x in units if x is not u)}")
            if host.profile.role == "character":
                raise ProfileError(f"{where}: units.{i}.joins", "a character joins a unit, not "
                                   "another character (FB-K1)", target,
                                   "join a unit of rank and file")
        marked = [u.label for u in units if u.options.get("general")]
        if len(marked) > 1:
            raise ProfileError(f"{where}: units", f"two characters are marked general "
                               f"({', '.join(marked)})", marked, "mark one general = true")
        return super().list_points(units, where)

    def check_prices(self, profile: Any, source: str) -> None:
        from mathhammer.fantasy.models import check_prices

        check_prices(profile, source)

    def free_by_rule(self, unit: Any) -> str | None:
        return unit.profile.points.free.get("per_model")

    def cell_key(self, unit: Any) -> str:
        return f"{unit.profile.formation}"

    def variant_text(self, unit: Any) -> str:
        """`` (20)``, or `` (20, champion, standard)`` with the command it has bought."""
        f = unit.profile.formation
        command = [c for c in ("champion", "standard", "musician") if getattr(f, c, False)]
        kit = [unit.options["buys"].replace("_", " ")] if unit.options.get("buys") else []
        return f" ({', '.join([str(f.models), *command, *kit])})"

    def default_ruleset(self, profile: Any) -> str:
        return getattr(profile, "ruleset", None) or "wfb8"

    # ------------------------------------------------------------------ battles
    battle_turns = 6  # fb battle's default game turns
    battle_policies = ("greedy", "scripted", "best-response")  # fb battle's policies

    def has_battles(self) -> bool:
        """True once the Fantasy battle engine (``fb battle``, issue 30) is in this build."""
        import importlib.util

        return importlib.util.find_spec("mathhammer.fantasy.battle") is not None

    def _battle_engine(self):
        if not self.has_battles():
            from mathhammer.errors import InputError

            raise InputError("‹model›", "Fantasy battles are not available in this build "
                             "(fb battle is not installed)", "battle", "use ‹model› cells")
        from mathhammer.fantasy.battle import runner

        return runner

    def check_battle(self, army: Any, where: str) -> None:
        """The battle engine's own checks of a list (characters, deployment)."""
        self._battle_plan(army, army, self.battle_turns, "greedy", "greedy")

    def _battle_plan(self, army_a, army_b, turns, policy_a, policy_b):
        """fb battle's plan of two loaded lists on the default deployment (fb battle's), with its
        battle kernel, built once per process."""
        from mathhammer.game import list_text

        key = (list_text(army_a), list_text(army_b), turns, policy_a, policy_b)
        plans = _thread_plans()
        kernel = plans.get(key)
        if kernel is None:
            runner = self._battle_engine()
            recipe = runner.Recipe(army_a, army_b, None, "default lines (fb battle's)", turns, "roll-off",
                                   policy_a, policy_b, 8, 1)
            kernel = runner.kernel_of(runner.build_plan(recipe))
            if len(plans) > 32:
                plans.pop(next(iter(plans)))
            plans[key] = kernel
        return kernel

    def play_battles(self, army_a, army_b, *, seed, start, count, policy_a="greedy",
                     policy_b="greedy", turns=None):
        """``fb battle``'s battles on the default deployment (FB-B1, FB-B2), the first player
        rolled off; battle ``j`` is battle ``j % CHUNK`` of chunk ``j // CHUNK`` of the
        stream of ``seed`` (as ``fb battle`` numbers them); the margin is fb battle's VP margin
        (FB-B9), the generals its policies (FB-B10); TU-B1."""
        import numpy as np

        if army_a is None:  # resolve_model asks for the one line when there are no battles
            self._battle_engine()
            return np.zeros(0, np.int8), np.zeros(0)
        from mathhammer.rng import chunk_state

        runner = self._battle_engine()
        kernel = self._battle_plan(army_a, army_b, turns or self.battle_turns, policy_a, policy_b)
        result = np.zeros(count, dtype=np.int8)
        margin = np.zeros(count, dtype=np.float64)
        for k in range(count):
            j = start + k
            vp, a_won, b_won = kernel.one_battle(chunk_state(seed, j // runner.CHUNK),
                                                 j % runner.CHUNK)
            result[k] = 1 if a_won else -1 if b_won else 0
            margin[k] = vp
        return result, margin

    def battle_tables_out(self):
        """fb battle's small exact tables (greedy values, volleys) built here since the last
        call, by content (fantasy/battle/shared_tables.py)."""
        if not self.has_battles():
            return None
        from mathhammer.fantasy.battle import shared_tables

        return shared_tables.carried_out() if shared_tables.enabled() else None

    def battle_tables_in(self, tables) -> None:
        if self.has_battles():
            from mathhammer.fantasy.battle import shared_tables

            shared_tables.carried_in(tables or {})

    def battle_words(self) -> str:
        return ("one fb battle on the default deployment (fb battle's), the first player rolled off, "
                "scored in victory points")

    # ------------------------------------------------------------------ cells
    def evaluate_cell(self, cell: Any, config: Any):
        return self.cell_runner(cell)(config)

    def score_options(self, unit: Any) -> dict[str, Any]:
        """TU-C1: a war machine with a piece (``[machine] fires``, FB-WM2) spends its turn
        firing it; a wizard (its ``[wizard]`` table, FB-B12) casting its first magic missile;
        a unit with a missile weapon (its ``[ranged]`` table) shooting."""
        machine = unit.profile.machine
        if machine is not None and getattr(machine, "fires", None):
            return {"fires": machine.fires}
        wizard = unit.profile.wizard
        if wizard is not None and any(sp.kind == "missile" for sp in wizard.spells):
            return {"casts": True}
        return {"shoots": True} if unit.profile.ranged is not None else {}

    def cell_runner(self, cell: Any):
        """The cell's close combat compiled once (its tables take longer than a small batch);
        a shooter's volley (``shoots``, TU-C1) by the shooting chain."""
        from mathhammer.analysis.cells import CellResult

        if cell.attacker_options.get("fires"):
            target = self.with_stats(cell.target, cell.target_options)
            return lambda config: machine_cell(cell, cell.attacker, target, config)
        if cell.attacker_options.get("casts"):
            caster = self.with_stats(cell.attacker, cell.attacker_options)
            target = self.with_stats(cell.target, cell.target_options)
            return lambda config: missile_cell(cell, caster, target, config)
        if cell.attacker_options.get("shoots"):
            shooter = self.with_stats(cell.attacker, cell.attacker_options)
            target = self.with_stats(cell.target, cell.target_options)
            return lambda config: volley_cell(cell, shooter, target, config)
        from mathhammer.fantasy.combat.fight import Side, combat_session

        if cell.attacker.machine is not None:  # FB-WM1: a machine does not charge
            return lambda config: idle_machine_cell(cell)
        attacker = self.with_stats(cell.attacker, cell.attacker_options)
        target = self.with_stats(cell.target, cell.target_options)
        a = Side(attacker, charged=bool(cell.attacker_options.get("charge")))
        b = Side(target)
        fight = combat_session(a, b, rounds=cell.rounds, ruleset=cell.ruleset)
        note = (f"{'charging, ' if a.charged else ''}"
                f"{'until decided' if cell.rounds is None else f'{cell.rounds} round(s)'}")

        def run(config: Any) -> CellResult:
            report = fight(method=cell.method, config=config)
            if "p_machine_destroyed" in report.results:  # FB-WM1: a charge at a war machine
                won = report.results["p_machine_destroyed"]
                return CellResult(cell.key, won, won, report.method, report.seed,
                                  report.n_trials, note + ", the machine destroyed (FB-WM1)")
            return CellResult(cell.key, report.results["p_a_wins"],
                              report.results["mean_wounds_dealt"], report.method, report.seed,
                              report.n_trials, note)

        return run

    def cell_words(self, policy: str, for_score: bool = False) -> str:
        if for_score:
            return ("a close combat of the unit against the target unit (P(target breaks or is "
                    "destroyed, attacker stands)); a unit with a missile weapon fires one volley at "
                    "it instead (its first two ranks, short range, standing, no cover; expected "
                    "models slain / the target's models x its points); a wizard casts its first "
                    "magic missile (P(cast) with the fewest dice reaching 75%, no dispel, x the "
                    "hits' expected models slain); a war machine with a piece fires one shot of "
                    "it by fb artillery (FB-WM2's [machine] fires; the same share), one without "
                    "a piece does nothing, and a charge at a machine counts it when it is "
                    "destroyed (FB-WM1), TU-C1")
        return ("a close combat of the attacker unit against the target unit; p_kill = "
                "P(target breaks or is destroyed, attacker stands)")

    # ------------------------------------------------------------------ sweeps
    def with_stats(self, profile: Any, options: dict[str, Any]):
        """A copy of ``profile`` with the stat options of :data:`STAT_FIELDS` applied."""
        changes: dict[str, dict[str, Any]] = {}
        for name, value in options.items():
            path = STAT_FIELDS.get(name)
            if path is not None:
                part, attr = path.split(".")
                changes.setdefault(part, {})[attr] = value
        if not changes:
            return profile
        return profile.model_copy(update={part: getattr(profile, part).model_copy(update=attrs)
                                          for part, attrs in changes.items()})

    def sweep_setup(self, attacker, target, attacker_ref, target_ref, base_a, base_t, also,
                    policy: str) -> str:
        if base_a.get("charge") == "may":
            from mathhammer.errors import InputError

            raise InputError("‹may_charge›", "is a Warmachine option (the focus policy decides)",
                             True, "use ‹charge›")
        return policy

    def check_sweep_value(self, profile: Any, side: str, stat: str, value: int) -> None:
        if stat == "save" and value == 7:
            return  # no save
        check_stat_by_model(self.name, profile, STAT_FIELDS.get(stat) or f"stats.{stat}", stat, value)


    # ------------------------------------------------------------------ imports
    import_rulesets = ("wfb8", "t9a1")

    def reads_text(self, head: str) -> bool:
        return True  # the Ninth Age builder's text: the reader of any other text export

    def parse_text(self, text: str, label: str, ruleset: str | None):
        from mathhammer.fantasy.list_text import parse

        return parse(text, label, ruleset or "t9a1")

    def roster_ruleset(self, system: str, game: str | None, ruleset: str | None) -> str | None:
        if ruleset in self.import_rulesets:
            return ruleset
        if "9th age" in system or "ninth age" in system or "t9a" in system:
            return "t9a1"
        if "fantasy" in system or "warhammer" in system or game == self.name:
            return "wfb8"
        return None

    def roster_entry(self, name, number, models, options, points, line, where):
        from mathhammer.imports.model import Entry

        return Entry(name, models=models, options=options, points=points, line=line, where=where)

    def import_ids(self, ruleset: str) -> list[str]:
        from mathhammer.profiles import bundled_ids

        return [i for i in bundled_ids(self.name) if i.startswith(ruleset + "/")]

    def import_unit(self, entry, profile, fit) -> dict[str, Any]:
        """The unit's size when not the profile's own, held to the sizes its army book
        sells (PR-4) and to the list file's range."""
        unit: dict[str, Any] = {}
        if entry.models is not None:
            low, high = profile.points.min_models, profile.points.max_models
            sold = (low or 1, high or 200)
            why = (f"{profile.name} come in units of {sold[0]}..{sold[1]} in the army book"
                   if low or high else None)
            models = fit(entry.models, "models", "models", bounds=sold, why=why)
            if models != profile.formation.models:
                unit["models"] = models
        return unit

    def import_options(self, entry, profile):
        """Each printed option against the profile: command (champion, standard bearer,
        musician, battle standard) the profile prices becomes the entry's, a character's
        General its ``general = true`` (FB-K4), kit its ``points.kit_options`` sells its
        ``buys`` (one item), kit in its
        equipment, weapon, upgrades or mounts is kept (the profile plays it), anything
        else is dropped with the reason. The export's command is the unit's: command it
        does not list is switched off where the profile fields it by default."""
        from mathhammer.fantasy.list_text import option_words

        keys: dict[str, Any] = {}
        kept: list[str] = []
        dropped: list[tuple[str, str]] = []
        command = _command_names(profile)
        kit = _kit_names(profile)
        for option in entry.options:
            words = option_words(option)
            part = command.get(words)
            if part is not None:
                if _priced(profile, part):
                    keys[part] = True
                    kept.append(option)
                else:
                    dropped.append((option, f"the profile prices no {part.replace('_', ' ')}"))
            elif words in GENERAL_NAMES:
                if profile.role == "character":  # FB-K4: the list's general, as fb battle plays it
                    keys["general"] = True
                    kept.append(option)
                else:
                    dropped.append((option, "only a character is the general (FB-K4)"))
            elif words in kit:
                kept.append(option)
            elif words in (sold := _kit_sold(profile)) and "buys" not in keys:
                keys["buys"] = sold[words]  # bought from the profile's points.kit_options
                kept.append(option)
            else:
                dropped.append((option, "not in the profile"))
        if profile.role == "unit":
            for part in ("champion", "standard", "musician"):
                if part not in keys and getattr(profile.formation, part):
                    keys[part] = False  # the export did not buy it
        return keys, kept, dropped

    # ------------------------------------------------------------------ presentation
    def card_notes(self, profile: Any) -> list[str]:
        """What each special rule does under the profile's bundled ruleset, read from that
        ruleset's file (FB-C5's ``unstable`` and the rest), so the card cannot contradict it."""
        from mathhammer.fantasy.models import MODELLED_RULES
        from mathhammer.fantasy.rules.ruleset import BUNDLED, load_ruleset

        if not profile.special_rules or profile.ruleset not in BUNDLED:
            return []
        rules = load_ruleset(profile.ruleset)
        lines = ["", f"special rules as played under {rules.name} (its ruleset file)"]
        for rule in profile.special_rules:
            if rule in ("Unstable", "Daemonic Instability"):
                lines.append(f"  {rules.instability_words(rule)}")
            else:
                lines.append(f"  {rule}: {MODELLED_RULES[rule]}")
        return lines

    def headline_builders(self):
        from mathhammer.fantasy.headlines import BUILDERS

        return BUILDERS

    def figure(self, report):
        from mathhammer.fantasy.figures import FIGURES

        builder = FIGURES.get(report.command)
        return None if builder is None else builder(report)


#: option names (as :func:`~mathhammer.fantasy.list_text.option_words` folds them) of the
#: command parts, and of the army general
COMMAND_NAMES = {"champion": ("champion", "boss", "first knight", "sergeant", "veteran"),
                 "standard": ("standard bearer", "standard", "banner bearer"),
                 "musician": ("musician", "drummer", "hornblower"),
                 "battle_standard": ("battle standard bearer", "battle standard", "bsb")}
GENERAL_NAMES = ("general", "army general", "the general")
#: equipment ids by the names builders print
KIT_NAMES = {"great_weapon": ("great weapon",), "halberd": ("halberd",), "spear": ("spear",),
             "shield": ("shield",), "lance": ("lance",), "flail": ("flail",),
             "additional_hand_weapon": ("additional hand weapon", "paired weapon", "hand weapons"),
             "choppa": ("choppa",)}


def _command_names(profile) -> dict[str, str]:
    from mathhammer.fantasy.list_text import option_words

    names = {option_words(n): part for part, names in COMMAND_NAMES.items() for n in names}
    if profile.champion is not None and profile.champion.name:
        names[option_words(profile.champion.name)] = "champion"
    return names


def _priced(profile, part: str) -> bool:
    """The profile prices (or frees by a rule) this command part (PR-4)."""
    return getattr(profile.points, part) > 0 or part in profile.points.free


def _kit_sold(profile) -> dict[str, str]:
    """Builders' names of the kit the profile sells (``points.kit_options``) -> its kit id."""
    from mathhammer.fantasy.list_text import option_words

    return {option_words(n): item for item in profile.points.kit_options
            for n in KIT_NAMES.get(item, (item.replace("_", " "),))}


def _kit_names(profile) -> set[str]:
    """What the profile's model carries, by the names builders print: its equipment, its
    weapon, the upgrades and mounts its points name, and a hand weapon (every model's)."""
    from mathhammer.fantasy.list_text import option_words

    names = {option_words("hand weapon")}
    for item in profile.equipment:
        names.update(option_words(n) for n in KIT_NAMES.get(item, (item.replace("_", " "),)))
    names.add(option_words(profile.weapon.name))
    names.update(option_words(n) for n in profile.points.upgrades)
    names.update(option_words(m.name) for m in profile.mounts)
    names.update(option_words(n) for n in profile.points.mounts)
    return names


def volley_cell(cell: Any, shooter: Any, target: Any, config: Any = None):
    """TU-C1: one volley of ``shooter``'s ``[ranged]`` weapon at ``target`` by the shooting
    chain (``fb shoot``'s, FB-H..FB-V4; exact or Monte Carlo as the cell asks) — the models of
    its first ``shooting_ranks`` ranks fire (FB-B6) at short range, standing still, the target
    in the open (FB-H2: no modifier but a large target's), the wounds capped at the target's
    models. ``p_kill`` = P(every model slain), ``mean_damage`` = expected models slain."""
    from mathhammer.analysis.cells import CellResult
    from mathhammer.dice import parse_dice
    from mathhammer.fantasy.chain.core import AttackSpec
    from mathhammer.fantasy.chain.query import chain_report
    from mathhammer.fantasy.combat.target import target_models, target_parts
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    rules = load_ruleset(cell.ruleset)
    weapon = shooter.ranged
    part = target_parts(target, rules)[0]
    models = target_models(target, rules)
    large = target.troop_type == "monster" or target.ridden_monster is not None  # FB-B6's large
    spec = AttackSpec(bs=shooter.stats.bs, shooting_modifier=rules.large_target_modifier * large,
                      strength=weapon.strength, toughness=part.t, save=part.armour,
                      ward=part.ward, regeneration=part.regeneration,
                      armour_piercing=weapon.armour_piercing, close_combat=False,
                      multiple_wounds=weapon.multiple_wounds, target_wounds=part.w)
    firing = min(shooter.formation.models, shooter.formation.rank_width * rules.battle.shooting_ranks)
    per_model = parse_dice(weapon.shots)
    shots = firing * per_model.min if per_model.min == per_model.max else f"{firing}{weapon.shots}"
    report = chain_report(spec, shots, rules, at_least=models * part.w, models=models,
                          method=cell.method, config=config, shooting=True)
    slain = report.results["mean_models_slain" if part.w > 1 else "mean_unsaved_wounds"]
    note = f"{firing} x {weapon.name} (S{weapon.strength}) at short range, standing, in the open"
    return CellResult(cell.key, report.results["p_at_least"], slain, report.method, report.seed,
                      report.n_trials, note, damage_share=1.0 / models)


def _with_bought_kit(unit: Any, item: str | None, where: str) -> Any:
    """``unit`` with ``item`` bought (issue 32 part 3): the kit id joins its equipment, which
    the engines read (FB-E1..E8), and its price per model joins its upgrades (PR-4); only
    what the profile's ``points.kit_options`` prices ("none": nothing bought)."""
    if item in (None, "none"):
        return unit
    offered = unit.points.kit_options
    if item not in offered:
        raise ProfileError(where, f"{unit.name} cannot buy it: its profile prices "
                           + (", ".join(offered) if offered else "no equipment to buy")
                           + " (points.kit_options)", item,
                           f"use buys = \"{next(iter(offered))}\"" if offered else "remove buys")
    points = unit.points.model_copy(update={"upgrades": {**unit.points.upgrades,
                                                         item: offered[item]}})
    update = {"equipment": (*unit.equipment, item), "points": points}
    if item == "shield":  # FB-E4: the shield's own +1 armour, which a profile's save counts
        armour = unit.saves.armour
        update["saves"] = unit.saves.model_copy(update={"armour": 6 if armour is None
                                                         else max(1, armour - 1)})
    return unit.model_copy(update=update)


def idle_machine_cell(cell: Any):
    """A war machine without a piece (no ``[machine] fires``) in a cell: it neither fires nor
    charges (FB-WM1), so it destroys nothing, exactly."""
    from mathhammer.analysis.cells import CellResult
    from mathhammer.results import Estimate

    return CellResult(cell.key, Estimate.exact(0.0), Estimate.exact(0.0), "exact", None, None,
                      "a war machine without a piece: it does not charge (FB-WM1)")


def machine_cell(cell: Any, machine: Any, target: Any, config: Any = None):
    """TU-C1: one shot of the war machine's piece (``[machine] fires``, FB-WM2) at ``target``
    by the artillery engine (``fb artillery``'s, FB-R*: its default aim and range, the crew's
    BS for a piece that rolls to hit), exact or Monte Carlo as the cell asks; a war machine
    target takes it on the machine's Toughness (FB-WM1). ``p_kill`` = P(every model slain),
    ``mean_damage`` = expected models slain (a ridden monster: unsaved wounds over its
    Wounds, the first wound pool as fb battle's shots, FB-B6)."""
    from mathhammer.analysis.cells import CellResult
    from mathhammer.fantasy.artillery.query import artillery
    from mathhammer.fantasy.artillery.shot import Shot
    from mathhammer.fantasy.combat.target import target_models
    from mathhammer.fantasy.rules.ruleset import load_ruleset
    from mathhammer.results import Z95, Estimate

    rules = load_ruleset(cell.ruleset)
    piece = cell.attacker_options["fires"]
    if target.machine is not None:  # FB-WM1: shooting wounds on the machine's T
        target = target.model_copy(update={"stats": target.stats.model_copy(
            update={"t": target.machine.t})})
    models = target_models(target, rules)
    report = artillery(piece, target, ruleset=rules, shot=Shot(piece, bs=machine.stats.bs),
                       method=cell.method, config=config)
    results = report.results
    if "mean_models_slain" in results:
        damage, share = results["mean_models_slain"], 1.0 / models
    else:  # a ridden monster: wounds on the rider (FB-B6's first wound pool)
        key = next(k for k in results if k.startswith("mean_") and "wound" in k)
        damage, share = results[key], 1.0 / max(1, target.stats.w)
    dist = report.distributions.get("models_slain")
    if dist is not None and dist.offset + len(dist.probs) > models:
        p_all = float(sum(p for k, p in enumerate(dist.probs) if dist.offset + k >= models))
    else:
        p_all = 0.0
    if report.method == "exact":
        p_kill = Estimate.exact(p_all)
    else:  # the binomial se of a share of the run's shots
        se = (p_all * (1 - p_all) / report.n_trials) ** 0.5
        p_kill = Estimate(p_all, se, (max(0.0, p_all - Z95 * se), min(1.0, p_all + Z95 * se)),
                          report.n_trials)
    note = f"{machine.machine.name}: one {piece} shot (fb artillery's default aim)"
    return CellResult(cell.key, p_kill, damage, report.method, report.seed, report.n_trials, note,
                      damage_share=share)


_PLANS = threading.local()  # fb battle's plans and kernels of list pairs, built once per thread


def _thread_plans() -> dict:
    """This thread's plans: a kernel keeps the tables its probe pass is building, so two
    threads (a Dask worker's) never share one (they raced: "played on placeholders")."""
    plans = getattr(_PLANS, "plans", None)
    if plans is None:
        plans = _PLANS.plans = {}
    return plans


def missile_cell(cell: Any, caster: Any, target: Any, config: Any = None):
    """TU-C1: a wizard's turn is its first magic missile (FB-B12) at ``target`` (a heal does
    not count on cells): cast with the
    fewest dice whose exact P(cast) reaches 75% (MG-9's target rule, the magic engine's
    ``cast_odds``), not dispelled, its hits through the wound chain (auto-hits, capped at the
    target's models). ``p_kill`` and ``mean_damage`` are P(cast) times the chain's."""
    from mathhammer.analysis.cells import CellResult
    from mathhammer.fantasy.chain.core import AttackSpec
    from mathhammer.fantasy.chain.query import chain_report
    from mathhammer.fantasy.combat.target import target_models, target_parts
    from mathhammer.fantasy.rules.ruleset import load_ruleset
    from mathhammer.magic.rolls import cast_odds

    rules = load_ruleset(cell.ruleset)
    wizard = caster.wizard
    spell = next(sp for sp in wizard.spells if sp.kind == "missile")
    magic = rules.magic
    dice = next((d for d in range(1, magic.max_casting_dice + 1)
                 if cast_odds(magic, d, wizard.level, spell.cv).p_cast >= 0.75),
                magic.max_casting_dice)
    p_cast = float(cast_odds(magic, dice, wizard.level, spell.cv).p_cast)
    part = target_parts(target, rules)[0]
    models = target_models(target, rules)
    spec = AttackSpec(strength=spell.strength, toughness=part.t, auto_hit=True,
                      close_combat=False, save=part.armour, ward=part.ward,
                      regeneration=part.regeneration, armour_piercing=spell.armour_piercing,
                      flaming=spell.flaming, target_wounds=part.w)
    report = chain_report(spec, spell.hits, rules, at_least=models * part.w, models=models,
                          method=cell.method, config=config, shooting=True)
    slain = report.results["mean_models_slain" if part.w > 1 else "mean_unsaved_wounds"]
    note = f"{spell.name} ({spell.hits} S{spell.strength} hits), {dice} dice, P(cast) {p_cast:.3f}"
    return CellResult(cell.key, _times(report.results["p_at_least"], p_cast),
                      _times(slain, p_cast), report.method, report.seed, report.n_trials, note,
                      damage_share=1.0 / models)


def _times(estimate: Any, p: float):
    """An estimate times an exact probability (its se and interval scale with it)."""
    from mathhammer.results import Estimate

    if estimate.se == 0.0 and estimate.n_trials is None:
        return Estimate.exact(estimate.value * p)
    return Estimate(estimate.value * p, estimate.se * p,
                    (estimate.ci95[0] * p, estimate.ci95[1] * p), estimate.n_trials)


GAME = register(Fantasy())
