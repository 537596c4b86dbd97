"""``wm plan``: the best way for a battlegroup to kill one model this turn (WM-P1).

A plan is what the player decides, when the player decides it: the focus split in the
Control Phase (each warjack 0..3, the warcaster keeps the rest, WM-F1); then, after seeing
what each activation did, which model activates next, melee (the policy may charge, WM-D3)
or shooting and casting from range, and whether the warcaster uses its feat (WM-E2).
Everything decided during an activation — boosts, bought attacks, which spells to cast,
charge or not — is the optimal policy's (WM-F5), played on the target's state as the
earlier activations left it (WM-S1).

Search (:mod:`mathhammer.warmachine.adaptive`): against a damage track (a warcaster or a
solo) every focus split is solved exactly as one programme over (models left × the
target's state); a plan fixed before the dice — any chain ``wm duel --then`` can play — is
one of its policies, so the best plan is at least as good as any hand-written one. Against
a warjack's grid the programme runs on the box-count model and the best split's plan is
played on the full grid, each activation with the optimal policy there (exact).

The fixed plans (:func:`candidates`, :func:`fixed_value`) remain as the yardstick the tests
hold the programme to.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, RulesError
from mathhammer.results import Report
from mathhammer.warmachine.activation import MAX_WARJACK_FOCUS, ActivationSpec, build_graph
from mathhammer.warmachine.sequence import Target
from mathhammer.words import plural

MAX_MODELS = 4  # a warcaster and three warjacks: the programme stays seconds


@dataclass(frozen=True)
class Member:
    """One model of the attacking side and the ways it can attack."""

    ref: str
    prof: object
    modes: tuple[str, ...]  # "melee" (may charge) and/or "ranged"
    label: str = ""  # "Juggernaut 2" when the battlegroup has two

    @property
    def name(self) -> str:
        return self.label or self.prof.name

    @property
    def is_caster(self) -> bool:
        return self.prof.kind == "warcaster"


@dataclass(frozen=True)
class Plan:
    order: tuple[int, ...]  # member indices in activation order
    focus: tuple[int, ...]  # per member
    modes: tuple[str, ...]  # per member
    feat: bool

    def steps(self, members: list[Member], feat_name: str = "",
              charges: dict[str, str] | None = None) -> list[str]:
        """Readable steps; ``charges`` maps a model's name to "charges in 97.2% of games"."""
        out = []
        for i, m in enumerate(self.order):
            mem = members[m]
            focus = self.focus[m]
            if mem.is_caster:
                words = f"{mem.name} keeps {focus} focus"
                if self.feat:
                    words = f"{mem.name} uses the feat {feat_name} (WM-E2), keeps {focus} focus"
            else:
                words = f"{mem.name}, {focus} focus"
            if self.modes[m] == "ranged":
                words += ", shoots and casts from range"
            elif mem.prof.is_warjack and focus == 0:
                words += ", melee (no focus to charge)"
            else:
                said = (charges or {}).get(mem.prof.name)
                words += f", melee: {said}" if said else ", melee"
            out.append(f"{i + 1}. {words}")
        return out

    def short(self, members: list[Member]) -> str:
        parts = []
        for m in self.order:
            tag = "feat, " if members[m].is_caster and self.feat else ""
            parts.append(f"{members[m].name} ({tag}{self.focus[m]}, {self.modes[m]})")
        return " → ".join(parts)


def _modes(prof) -> tuple[str, ...]:
    kinds = {w.kind for w in prof.weapons if w.damage_power is not None}
    casts = any(s.offensive for s in prof.spells)
    modes = []
    if "melee" in kinds:
        modes.append("melee")
    if "ranged" in kinds or (casts and prof.kind == "warcaster"):
        modes.append("ranged")
    return tuple(modes)


def members_of(refs: list[str], where: str = "attackers") -> tuple[list[Member], int]:
    """The attacking models and the index of their warcaster (WM-F1: one battlegroup)."""
    from mathhammer.warmachine.models import load_warmachine

    if not refs:
        raise InputError(where, "needs a warcaster and its warjacks", "", "e.g. khador/sorscha "
                         "khador/juggernaut khador/destroyer")
    if len(refs) > MAX_MODELS:
        raise InputError(where, f"at most {MAX_MODELS} models (a warcaster and three warjacks): "
                         "the search grows with every order", len(refs), "plan fewer models")
    members = []
    for ref in refs:
        prof = load_warmachine(ref)
        modes = _modes(prof)
        if not modes:
            raise RulesError(where, f"{prof.name} has no weapon or spell that deals damage", ref,
                             "leave it out")
        members.append(Member(ref, prof, modes))
    names = [m.prof.name for m in members]
    for i, m in enumerate(members):
        if names.count(m.prof.name) > 1:
            members[i] = replace(m, label=f"{m.prof.name} {names[:i + 1].count(m.prof.name)}")
    casters = [i for i, m in enumerate(members) if m.is_caster]
    if len(casters) != 1:
        raise RulesError(where, "a plan is one battlegroup: exactly one warcaster and its "
                         f"warjacks (got {len(casters)} warcasters)", " ".join(refs),
                         "name one warcaster, e.g. khador/sorscha")
    caster = members[casters[0]]
    for m in members:
        if m.prof.kind == "solo":
            raise RulesError(where, f"{m.name} is a solo, not part of a battlegroup (WM-F1)",
                             m.ref, "plan the battlegroup; chain solos with wm duel ‹then›")
        if m.prof.is_warjack and m.prof.faction != caster.prof.faction:
            raise RulesError(where, f"{m.name} ({m.prof.faction}) cannot join "
                             f"{caster.name}'s battlegroup ({caster.prof.faction})", m.ref,
                             "use warjacks of the warcaster's faction")
    return members, casters[0]


def candidates(members: list[Member], caster: int, budget: int, use_feat: bool):
    """Every fixed plan: focus split, modes, feat, order (the warcaster keeps what it does not
    give)."""
    from mathhammer.warmachine.adaptive import viable

    jacks = [i for i in range(len(members)) if i != caster]
    splits = []
    for give in itertools.product(range(MAX_WARJACK_FOCUS + 1), repeat=len(jacks)):
        if sum(give) <= budget:
            focus = [0] * len(members)
            for j, f in zip(jacks, give):
                focus[j] = f
            focus[caster] = budget - sum(give)
            splits.append(tuple(focus))
    modes = list(itertools.product(*(m.modes for m in members)))
    feats = (False, True) if use_feat else (False,)
    seen: set = set()  # two copies of a warjack swapped are the same plan
    for focus in splits:
        for mode in modes:
            if not all(viable(members[i], focus[i], mode[i]) for i in range(len(members))):
                continue
            for feat in feats:
                for order in itertools.permutations(range(len(members))):
                    key = (feat, tuple((members[m].ref, focus[m], mode[m]) for m in order))
                    if key not in seen:
                        seen.add(key)
                        yield Plan(order, focus, mode, feat)


class _Builder:
    """Activation specs of plans, built once per (model, focus, mode, feat, buffed)."""

    def __init__(self, members, caster, target: Target, distance, upkeep):
        from mathhammer.warmachine.effects import chain_flags, friendly_feat

        self.members, self.caster, self.target = members, caster, target
        self.distance, self.upkeep = distance, upkeep
        profs = [m.prof for m in members]
        self.flags, self.bits = chain_flags(profs, {caster}, target.immunities)
        self.flags_nofeat, self.bits_nofeat = chain_flags(profs, set(), target.immunities)
        self.boost = friendly_feat(members[caster].prof)
        self._cache: dict = {}
        self.memo: dict = {}  # option-table rows per target (the screening and the full grid)

    def spec(self, m: int, focus: int, mode: str, feat: bool, feat_on: bool,
             buffed: bool) -> ActivationSpec:
        from mathhammer.warmachine.duel import activation_from_profile

        key = (m, focus, mode, feat, feat_on, buffed)
        if key not in self._cache:
            mem = self.members[m]
            bits = self.bits if feat_on else self.bits_nofeat
            spec = activation_from_profile(
                mem.ref, focus, "may" if mode == "melee" and focus_can_charge(mem, focus)
                else "no", True, ranged=mode == "ranged", target_base=self.target.base,
                distance=self.distance, upkeep=self.upkeep if mem.is_caster else 0,
                feat=feat, immunities=self.target.immunities, flag_bits=bits)
            if buffed and self.boost is not None:
                from mathhammer.warmachine.effects import buffed as with_buff

                spec = with_buff(spec, self.boost)
            self._cache[key] = spec
        return self._cache[key]

    def chain(self, plan: Plan) -> tuple[list[ActivationSpec], list]:
        specs, feat_done = [], False
        for m in plan.order:
            feat_here = plan.feat and m == self.caster
            feat_done = feat_done or feat_here
            specs.append(self.spec(m, plan.focus[m], plan.modes[m], feat_here, plan.feat,
                                   feat_done))
        return specs, (self.flags if plan.feat else self.flags_nofeat)


def focus_can_charge(mem: Member, focus: int) -> bool:
    """A warjack pays 1 focus to charge (WM-F2); a warcaster charges for free."""
    return not mem.prof.is_warjack or focus >= 1


def _solve(builder: _Builder, plan: Plan, target: Target, objective: str):
    from mathhammer.warmachine.exact_policy import solve_full
    from mathhammer.warmachine.policy import OptionTables

    specs, flags = builder.chain(plan)
    graph = build_graph(specs, flags)
    memo = builder.memo.setdefault(id(target), {})  # one target per memo: its rows
    opts = OptionTables.build(graph, target, memo)
    return solve_full(graph, target, "optimal", objective, opts=opts, cache=False)


def fixed_value(builder: _Builder, plan: Plan, target: Target, objective: str) -> float:
    """The exact value of a fixed plan (order, modes, feat chosen before the dice)."""
    return _solve(builder, plan, target, objective).value


def plan_turn(attackers: list[str], target: Target, *, objective: str = "destroy",
              top: int = 3, upkeep: int = 0, distance: float | None = None,
              method: str = "auto", config: MonteCarloConfig | None = None,
              check: bool = False, explain: bool = False, where: str = "attackers",
              title: str = "") -> Report:
    """The best plan of ``attackers`` against ``target`` (WM-P1): every focus split, each
    solved as a programme over who activates next (:mod:`mathhammer.warmachine.adaptive`)."""
    from mathhammer.warmachine import adaptive
    from mathhammer.warmachine.effects import has_feat_effect
    from mathhammer.warmachine.policy import check_policy

    check_policy("optimal", objective)
    if objective not in ("destroy", "damage"):  # the programme reads the box-count model
        raise InputError("‹objective›", "wm plan maximises destroy or damage", objective,
                         "use ‹objective› destroy, or wm duel ‹objective› cripple:X")
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= 20:
        raise InputError("‹top›", "must be a whole number from 1 to 20", top, "use ‹top› 3")
    members, caster = members_of(attackers, where)
    cprof = members[caster].prof
    budget = int(cprof.stats.focus or 0) - upkeep
    if budget < 0:
        raise RulesError("‹upkeep›", f"{cprof.name} has FOCUS {cprof.stats.focus}: it cannot "
                         f"upkeep {upkeep} spells (WM-F1)", upkeep, "upkeep fewer spells")
    use_feat = has_feat_effect(cprof)
    builder = _Builder(members, caster, target, distance, upkeep)
    search = adaptive.search(members, caster, builder, target, objective, budget, use_feat)
    feat_name = next((e.name for e in cprof.effects if e.source == "feat"), "")
    report = search.report(method=method, config=config, check=check, explain=explain,
                           title=title or f"wm plan: {', '.join(m.name for m in members)} "
                                          f"vs {target.name}", feat_name=feat_name)
    report.command = "warmachine.plan"
    # the plan reads by model: per-attack P(hit) of a several-model chain and the long
    # decision-state dump belong to wm duel, which replays any fixed chain step by step
    report.results = {k: v for k, v in report.results.items() if not k.startswith("p_hit_")}
    report.info.pop("decision states", None)
    report.info.pop("charge", None)
    unit = "pp" if objective == "destroy" else "boxes"
    scale = 100 if objective == "destroy" else 1
    alts = []
    for rank, (value, focus) in enumerate(search.ranked[1: top + 1], start=2):
        shown = f"{scale * value:.2f}" + ("%" if objective == "destroy" else " boxes")
        gap = scale * (value - search.ranked[0][0])
        delta = f"{0.0 if abs(gap) < 5e-3 else gap:+.2f} {unit}"  # a tie prints +0.00
        where = "" if search.track else " on the box-count model"
        alts.append(f"{rank}. {shown}{where} ({delta}): {search.short(focus)}")
    info = {"plan": search.lines_text, "alternatives": alts or ["(no other focus split)"],
            "search": search.words}  # no timing: the same question prints the same answer
    if upkeep:
        info["upkeep"] = f"{cprof.name} upkeeps {plural(upkeep, 'spell')}: {budget} focus to split (WM-F1)"
    info["assumes"] = ("every model reaches the target (charge range, control area and line of "
                       "sight for the feat)" + (f"; ranged activations shoot from {distance:g}\""
                                                if distance is not None else ""))
    report.info = {**info, **report.info}
    from mathhammer.warmachine.headlines import wm_plan_headline

    report.headline = wm_plan_headline(report, target.name, objective,
                                       search.short(search.ranked[0][1]), best=search.track)
    return report


def battlegroup_of_list(path, where: str = "‹list›") -> list[str]:
    """The warcaster of a Warmachine list and the warjacks of its faction (copies kept)."""
    from mathhammer.lists import load_list, of_game

    army = of_game(load_list(path), "warmachine", where, str(path),
                   "wm plan plans a Warmachine battlegroup",
                   "give a Warmachine list, e.g. profiles/lists/khador_battlebox.toml")
    casters = [u for u in army.units if u.kind == "warcaster"]
    if not casters:
        raise RulesError(where, "has no warcaster", str(path), "add a warcaster to the list")
    caster = casters[0]
    refs = [caster.options.get("ref") or caster.profile_id]
    for u in army.units:
        if u.kind == "warjack" and u.profile.faction == caster.profile.faction:
            refs += [u.options.get("ref") or u.profile_id] * u.count
    return refs


def plan(attackers: list[str], target: str, *, from_list=None, camped_focus: int = 0,
         damaged=None, cripple: str | None = None, arm_bonus: int = 0,
         def_bonus: int = 0, knocked_down: bool = False, stationary: bool = False,
         target_in_melee: bool = False, target_effects: list[str] | None = None,
         objective: str = "destroy", top: int = 3, upkeep: int = 0,
         distance: float | None = None, method: str = "auto",
         config: MonteCarloConfig | None = None, check: bool = False,
         explain: bool = False) -> Report:
    """The best plan for a battlegroup's turn against one target (``wm plan``, WM-P1): the
    battlegroup from profile ids or a list file (``from_list``), the target from a profile
    with its state (damage, crippled systems, camped focus, effects)."""
    from mathhammer.warmachine import limits
    from mathhammer.warmachine.duel import target_from_profile, with_crippled

    if not target:
        raise InputError("‹target›", "is required: the model to kill", "",
                         "add ‹target› cygnar/stryker")
    if from_list is not None and attackers:
        raise InputError("‹list›", "give the battlegroup either as ids or as ‹list›, not both",
                         str(from_list), "drop the ids or ‹list›")
    refs = battlegroup_of_list(from_list) if from_list is not None else list(attackers)
    limits.check_distance(distance, "‹distance›")
    limits.check("upkeep", upkeep, "‹upkeep›")
    damaged = with_crippled(target, damaged, cripple, "‹cripple›")
    tgt = target_from_profile(target, damaged, knocked_down, camped_focus, arm_bonus, def_bonus,
                              stationary, target_in_melee, effects=target_effects or [])
    where = "‹list›" if from_list is not None else "ATTACKERS"
    return plan_turn(refs, tgt, objective=objective, top=top, upkeep=upkeep, distance=distance,
                     method=method, config=config, check=check, explain=explain, where=where)
