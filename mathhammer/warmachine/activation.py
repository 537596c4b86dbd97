"""Activations as a small decision graph (WM-F1..F4, WM-S1).

One or more activations against one target become a graph of nodes:

* an **attack node** makes one attack with an :class:`AttackOption` (a weapon, a
  power attack, a spell); entering it costs ``cost`` focus (bought attack 1,
  charge 1 for a warjack, power attack 1, spell COST); before the roll the policy
  may boost to hit, after a hit it may boost damage; then it goes to ``next``;
* a **choice node** lets the policy pick a successor (an opener at the start of
  an activation, a bought attack or spell afterwards) or stop; stopping goes to
  ``stop`` (the next activation's root, or the end).

Roots reset the focus to the activation's allowance (a warjack ≤ 3, WM-F1; a
warcaster its FOCUS less upkeep and shaking). Damage, crippling, knock-down and the
target being engaged in melee carry over (WM-S1, WM-A6).

Openers of a warjack activation (WM-F3): one initial attack with each melee
weapon, in the order the policy picks (which weapon first, then which next), or one
power attack — head-butt (knocks down, WM-A4 makes later melee
attacks hit automatically; not against a larger base), Combo Strike (``*Attack``:
POW = STR + 2 × POW of the weapon, one attack) — and the charge versions (1 focus for
a warjack, WM-F2; the first attack's damage pre-boosted, WM-D3) and slam (1 focus,
knocks down, −2 against a larger base; the slammed model is moved d6" away, out of
melee, so this engine ends the activation after a slam — decision). ``charge``:
``"must"`` keeps only the charge openers, ``"may"`` offers both (and the slam) to the
policy, ``"no"`` neither. A crippled weapon system rolls one die fewer (WM-G4) and
makes no special attack with that weapon.

Target in melee (WM-A6, seed audit 2026-12): a melee attack engages the target for
the rest of the turn; a ranged or magic attack at an engaged target takes −4 (a spray
does not); a warcaster's spell in a melee activation is cast at the model it is
fighting, so it always takes −4.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from mathhammer.errors import RulesError

MAX_WARJACK_FOCUS = 3  # WM-F1
SAME = -3  # Node.next_hit: go to ``next`` after a hit too
#: the two ways a target loses its DEF and is hit automatically in melee (WM-A4, WM-A7)
KNOCKED_DOWN, STATIONARY = "knocked down", "stationary"


def down_text(words) -> str:
    """"knocked down", "stationary", or "knocked down or stationary" (either, or unknown)."""
    known = [w for w in (KNOCKED_DOWN, STATIONARY) if w in set(words)]
    return " or ".join(known) if len(known) == 1 else f"{KNOCKED_DOWN} or {STATIONARY}"
CHARGE_MODES = ("must", "may", "no")


def charge_mode(value) -> str:
    """``True`` → "must" (the CLI's ``--charge``), ``False`` → "no", or the mode itself."""
    if value is True:
        return "must"
    if value is False or value is None:
        return "no"
    if value not in CHARGE_MODES:
        raise RulesError("charge", 'must be "must", "may" or false', value, 'use charge = "may"')
    return value


@dataclass(frozen=True)
class AttackOption:
    """One way to make an attack, with its roll numbers and what it does to the state."""

    name: str
    kind: str  # melee | ranged | magic
    stat: int
    power: int
    pre_boosted: bool = False
    knocks_down: bool = False
    crippled: bool = False
    can_boost_hit: bool = True
    can_boost_damage: bool = True
    ignores_shield: bool = False  # Chain Weapon, back strike
    auto_hit: bool = False  # Sustained Attack after a hit with the weapon (WM-A4)
    crit_knocks_down: bool = False  # Critical Knockdown / Critical Freeze (stationary)
    down_word: str = KNOCKED_DOWN  # what a hit or critical that knocks down leaves: WM-A4
    crit_amputation: bool = False  # Critical Amputation: hit systems are crippled
    aoe: float = 0.0  # template diameter: a miss may still catch the target (WM-D4)
    spray: bool = False  # WM-D6: no target-in-melee penalty, ignores Stealth
    rng: float | None = None  # WM-A8: beyond it a ranged or magic attack misses
    distance: float | None = None  # how far the target is when the attack is made
    in_melee: str = "never"  # −4 "always" (caster fighting), "engaged", or "never"
    engages: int = -1  # after the attack the target is: 1 engaged, 0 moved away, -1 as it was
    flags_on_hit: int = 0  # effect flags a hit switches on (spells with effects, part 5)
    no_damage: bool = False  # a spell that only applies its effect (Earthquake)
    extra_hit_dice: int = 0
    extra_damage_dice: int = 0


@dataclass
class Node:
    kind: str  # "attack" | "choice"
    label: str
    option: int = -1
    cost: int = 0
    next: int = -1
    next_hit: int = SAME  # successor after a hit when it differs (Sustained Attack)
    successors: list[int] = field(default_factory=list)
    stop: int = -1
    reset_focus: int = -1
    activation: int = 0
    reserve: int = 0  # bought attacks still planned after this attack (``--buy N``)
    charge: bool = False  # the opener of a charge (reported as the policy's choice)
    entry_knockdown: bool = False  # a root: the activation starts by knocking down (feat)
    entry_down_word: str = KNOCKED_DOWN  # ... or by making the target stationary (Icy Gaze)
    entry_flags: int = 0  # a root: effect flags switched on when the activation starts
    initial: bool = False  # a choice of the next initial attack (WM-F3)

    @property
    def after_hit(self) -> int:
        return self.next if self.next_hit == SAME else self.next_hit


@dataclass(frozen=True)
class Effect:
    """A modifier an effect flag puts on the target while it is on (spells, feats)."""

    name: str
    defense: int = 0  # every attack
    ranged_defense: int = 0  # ranged and magic only
    armor: int = 0


@dataclass
class Graph:
    """Nodes and attack options of a chain of activations; ``root`` is node 0."""

    nodes: list[Node] = field(default_factory=list)
    options: list[AttackOption] = field(default_factory=list)
    max_focus: int = 0
    labels: list[str] = field(default_factory=list)
    flags: list[Effect] = field(default_factory=list)
    roots: list[int] = field(default_factory=list)

    def add_option(self, option: AttackOption) -> int:
        self.options.append(option)
        return len(self.options) - 1

    def add(self, node: Node) -> int:
        self.nodes.append(node)
        return len(self.nodes) - 1

    def down_words(self, start: str = "") -> list[str]:
        """Per node, what the one "knocked down or stationary" bit of the state (WM-A4, WM-A7)
        may mean there: the words of every cause that can have set it on a way to the node
        (the target's start, a feat as an activation starts, a hit or critical before), e.g.
        "stationary" after Icy Gaze alone, "knocked down or stationary" once a slam may have
        happened too. The engine plays both alike; the labels say which it can be."""
        words: list[set[str]] = [set() for _ in self.nodes]
        if start and words:
            words[0].add(start)
        for g, node in enumerate(self.nodes):
            if node.entry_knockdown:
                words[g].add(node.entry_down_word)
        changed = True
        while changed:  # forward along every edge until nothing new arrives (edges may loop)
            changed = False
            for node, here in zip(self.nodes, words, strict=True):
                out = set(here)
                if node.kind == "attack":
                    opt = self.options[node.option]
                    if opt.knocks_down or opt.crit_knocks_down:
                        out.add(opt.down_word)
                for t in (node.next, node.after_hit, node.stop, *node.successors):
                    if 0 <= t < len(words) and not out <= words[t]:
                        words[t] |= out
                        changed = True
        return [down_text(w) for w in words]

    def flag_mods(self, fl: int) -> tuple[int, int, int]:
        """(DEF, ranged DEF, ARM) modifiers of the flags set in ``fl``."""
        on = [e for i, e in enumerate(self.flags) if fl >> i & 1]
        return (sum(e.defense for e in on), sum(e.ranged_defense for e in on),
                sum(e.armor for e in on))


@dataclass(frozen=True)
class Weapon:
    name: str
    kind: str
    stat: int
    power: int  # P+S for melee, POW otherwise
    weapon_pow: int = 0
    combo_strike: bool = False
    crippled: bool = False
    rof: int = 1
    chain_weapon: bool = False  # ignores shield bonuses
    sustained: bool = False  # Sustained Attack: after a hit, later attacks with it hit
    crit_knockdown: bool = False  # a critical hit knocks down / freezes (WM-A4 afterwards)
    crit_amputation: bool = False  # Critical Amputation (part 8)
    down_word: str = KNOCKED_DOWN  # Critical Freeze: "stationary"
    aoe: float = 0.0
    rng: float | None = None
    spray: bool = False


@dataclass(frozen=True)
class Spell:
    name: str
    cost: int
    power: int
    aoe: float = 0.0
    rng: float | None = None
    spray: bool = False
    knocks_down: bool = False  # models hit are knocked down (Tempest, Scourge, Earthquake)
    no_damage: bool = False
    flags_on_hit: int = 0
    crit_knockdown: bool = False
    down_word: str = KNOCKED_DOWN  # Freezing Grip: "stationary"


@dataclass(frozen=True)
class ActivationSpec:
    """What one model may do in its activation (built from a profile by :mod:`duel`)."""

    name: str
    focus: int
    weapons: tuple[Weapon, ...]
    strength: int = 0
    is_warjack: bool = True
    charge: str | bool = "no"  # "must" | "may" | "no" (True = "must")
    power_attacks: bool = True
    spells: tuple[Spell, ...] = ()
    magic_stat: int = 0
    movement_crippled: bool = False
    ranged: bool = False  # shoot instead of fighting in melee (WM-F3: never both)
    aim: bool = False  # +2 to ranged attack rolls (WM-A6)
    target_larger_base: bool = False  # no head-butt; slam at -2 (WM-A6, WM-D7)
    max_bought: int | None = None  # at most this many bought attacks/casts (``--buy N``)
    distance: float | None = None  # inches to the target for ranged activations (WM-A8)
    entry_knockdown: bool = False  # the activation starts by knocking the target down (feat)
    entry_down_word: str = KNOCKED_DOWN  # Icy Gaze: "stationary"
    entry_flags: int = 0  # effect flags the activation starts with (feat)
    fixed_order: bool = False  # initial attacks in the listed weapon order, no choice (tests)

    def __post_init__(self) -> None:
        object.__setattr__(self, "charge", charge_mode(self.charge))

    def check(self, where: str = "‹focus›") -> None:
        if self.focus < 0:
            raise RulesError(where, "focus cannot be negative", self.focus, "use ‹focus› 0..3")
        if self.is_warjack and self.focus > MAX_WARJACK_FOCUS:
            raise RulesError(where, f"a warjack can be allocated at most {MAX_WARJACK_FOCUS} "
                             "focus (WM-F1)", self.focus, "use ‹focus› 3 or less")
        kind = "ranged" if self.ranged else "melee"
        if not any(w.kind == kind for w in self.weapons) and not self.spells:
            raise RulesError("‹ranged›" if self.ranged else where,
                             f"{self.name} has no {kind} weapon or damaging spell to attack with",
                             self.name, "pick another attacker" + ("" if self.ranged else
                                                                   " or add ‹ranged›"))
        if self.max_bought is not None and self.max_bought < 0:
            raise RulesError("‹buy›", "must be 0 or more", self.max_bought, "use ‹buy› 2")
        if self.max_bought is not None and self.max_bought > 12:
            raise RulesError("‹buy›", "must be at most 12 (one focus per bought attack)",
                             self.max_bought, "use ‹buy› 2")
        if self.aim and not self.ranged:
            raise RulesError("‹aim›", "aiming helps ranged attacks only (WM-A6)", True,
                             "add ‹ranged› or drop ‹aim›")
        if self.charge == "no":
            return
        flag = "‹charge›" if self.charge == "must" else "‹may_charge›"
        if self.ranged:
            raise RulesError(flag, "a charge ends in melee: no ranged attacks after it (WM-F3)",
                             True, f"drop {flag} or ‹ranged›")
        if self.movement_crippled:
            raise RulesError(flag, f"{self.name}'s movement system is crippled: it cannot charge "
                             "or slam (WM-G4)", True, f"drop {flag}")
        if self.charge == "must":
            if not any(w.kind == "melee" for w in self.weapons):
                raise RulesError(flag, f"{self.name} has no melee weapon to charge with", True,
                                 "drop ‹charge›")
            if self.is_warjack and self.focus < 1:
                raise RulesError(flag, f"a warjack spends 1 focus to charge (WM-F2); {self.name} "
                                 "has 0", self.focus, "give it focus or use ‹may_charge›")


def _option(w: Weapon, spec: ActivationSpec, pre: bool = False) -> AttackOption:
    bonus = 2 if (spec.aim and w.kind == "ranged") else 0
    return AttackOption(
        w.name, w.kind, w.stat + bonus, w.power, pre_boosted=pre, crippled=w.crippled,
        ignores_shield=w.chain_weapon, crit_knocks_down=w.crit_knockdown, down_word=w.down_word,
        crit_amputation=w.crit_amputation, aoe=w.aoe if not w.spray else 0.0, spray=w.spray,
        rng=w.rng, distance=spec.distance if spec.ranged else None,
        in_melee="engaged" if w.kind != "melee" else "never",
        engages=1 if w.kind == "melee" else -1)


def _spell_option(sp: Spell, spec: ActivationSpec) -> AttackOption:
    # a caster fighting in melee casts at the model it is fighting: always −4 (WM-A6)
    fighting = not spec.ranged and any(w.kind == "melee" for w in spec.weapons)
    return AttackOption(
        sp.name, "magic", spec.magic_stat, sp.power, aoe=0.0 if sp.spray else sp.aoe,
        spray=sp.spray, rng=sp.rng, distance=None if fighting else spec.distance,
        in_melee="always" if fighting else "engaged", knocks_down=sp.knocks_down,
        no_damage=sp.no_damage, flags_on_hit=sp.flags_on_hit,
        crit_knocks_down=sp.crit_knockdown, can_boost_damage=not sp.no_damage,
        down_word=sp.down_word)


def _initial_attacks(graph: Graph, spec: ActivationSpec, weapons: list[Weapon],
                     charges: list[bool], buy: int, buy_sustained: int, a: int) -> list[int]:
    """The initial attacks (WM-F3): one with each weapon, in the order the policy picks.

    The order is the player's choice (WM-F3), so it is part of the policy: the opening
    offers every weapon as the first attack (a charge attack too, WM-D3), and after each
    initial attack a choice node offers every weapon still to attack (or stop). The
    state is the multiset of weapons still to attack and whether a Sustained Attack
    weapon has hit (WM-A4); identical weapons are one kind. The fixed and greedy habits
    take the successors in their listed order: heaviest first, a Sustained Attack weapon
    last (``Node.initial``). ``spec.fixed_order`` plays the weapons in the order given
    (no choice: a yardstick the optimum is tested against). Returns the first attacks,
    one per (charge, weapon kind)."""
    habit = list(weapons) if spec.fixed_order else \
        weapons[:1] + sorted(weapons[1:], key=lambda w: w.sustained)
    kinds: list[tuple[tuple, Weapon]] = []
    counts: list[int] = []
    for w in habit:  # group identical weapons: their order does not matter
        key = (_option(w, spec), w.sustained)
        j = next((i for i, (k, _) in enumerate(kinds) if k == key), -1)
        if j < 0:
            kinds.append((key, w))
            counts.append(1)
        else:
            counts[j] += 1
    options: dict[tuple[int, bool], int] = {}
    attacks: dict[tuple, int] = {}
    phases: dict[tuple, int] = {}

    def option(j: int, pre: bool) -> int:
        if (j, pre) not in options:
            options[j, pre] = graph.add_option(_option(kinds[j][1], spec, pre))
        return options[j, pre]

    def offered(left: tuple[int, ...]) -> list[int]:
        js = [j for j, n in enumerate(left) if n > 0]
        return js[:1] if spec.fixed_order else js

    def attack(j: int, left: tuple[int, ...], sustained: bool, pre: bool) -> int:
        key = (j, left, sustained, pre)
        if key in attacks:
            return attacks[key]
        w = kinds[j][1]
        rest = left[:j] + (left[j] - 1,) + left[j + 1:]
        nxt = after(rest, sustained)
        hit = after(rest, True) if (w.sustained and buy_sustained >= 0) else SAME
        cost = 1 if (pre and spec.is_warjack) else 0
        node = graph.add(Node("attack", f"{'charge, ' if pre else ''}{w.name}", option(j, pre),
                              cost, next=nxt, next_hit=hit, activation=a,
                              reserve=spec.max_bought or 0, charge=pre))
        attacks[key] = node
        return node

    def after(left: tuple[int, ...], sustained: bool) -> int:
        """The node entered with the weapons ``left`` still to make their initial attack."""
        if not any(left):
            return buy_sustained if sustained else buy
        key = (left, sustained)
        if key in phases:
            return phases[key]
        js = offered(left)
        if len(js) == 1:
            node = attack(js[0], left, sustained, False)
        else:
            names = ", ".join(kinds[j][1].name for j in js)
            node = graph.add(Node("choice", f"{spec.name}: next initial attack ({names} left)",
                                  activation=a, initial=True))
            graph.nodes[node].successors = [attack(j, left, sustained, False) for j in js]
        phases[key] = node
        return node

    start = tuple(counts)
    return [attack(j, start, False, pre) for pre in charges for j in offered(start)]


def _buy_nodes(graph: Graph, spec: ActivationSpec, weapons: list[Weapon],
               a: int) -> tuple[int, int]:
    """Buy phase (WM-F2, WM-F4): bought attacks (1 focus) and spells (COST).

    Melee weapons buy without limit; a ranged weapon makes at most ROF attacks in
    all, so the buy node is unrolled over the shots each ranged weapon has left.
    After a hit with a Sustained Attack weapon its later attacks hit automatically
    (WM-A4): a second family of buy nodes. Returns (buy node after the initial
    attacks, its Sustained Attack twin or -1).
    """
    ranged = [w for w in weapons if w.kind == "ranged"]
    has_sustained = any(w.sustained and w.kind == "melee" for w in weapons)
    cap = spec.max_bought
    nodes: dict[tuple[tuple[int, ...], bool, int], int] = {}
    spell_opts = [graph.add_option(_spell_option(sp, spec)) for sp in spec.spells]

    def node_for(left: tuple[int, ...], sustained: bool, bought: int) -> int:
        key = (left, sustained, bought)
        if key in nodes:
            return nodes[key]
        shots = ", ".join(f"{w.name} {n} left" for w, n in zip(ranged, left))
        tag = f" ({shots})" if ranged else (" (sustained)" if sustained else "")
        if cap is not None:
            tag += f" [{bought}/{cap} bought]"
        g = graph.add(Node("choice", f"{spec.name}: buy{tag}", activation=a))
        nodes[key] = g
        if cap is not None and bought >= cap:
            return g
        more = bought + 1 if cap is not None else 0
        reserve = cap - bought - 1 if cap is not None else 0
        for w in weapons:
            if w.kind == "ranged":
                i = ranged.index(w)
                if left[i] == 0:
                    continue
                nxt = node_for(left[:i] + (left[i] - 1,) + left[i + 1:], sustained, more)
            else:
                nxt = node_for(left, sustained, more)
            auto = sustained and w.sustained
            opt = graph.add_option(replace(_option(w, spec), auto_hit=auto))
            node = graph.add(Node("attack", f"buy {w.name}" + (" (auto-hit)" if auto else ""),
                                  opt, 1, nxt, activation=a, reserve=reserve))
            if w.sustained and w.kind == "melee" and not sustained:
                graph.nodes[node].next_hit = node_for(left, True, more)
            graph.nodes[g].successors.append(node)
        for sp, opt in zip(spec.spells, spell_opts):
            graph.nodes[g].successors.append(graph.add(Node(
                "attack", f"cast {sp.name}", opt, max(sp.cost, 1), node_for(left, sustained, more),
                activation=a, reserve=reserve)))
        return g

    start = tuple(max(0, w.rof - 1) for w in ranged)
    buy = node_for(start, False, 0)
    return buy, (node_for(start, True, 0) if has_sustained else -1)


def build_graph(specs: list[ActivationSpec], effects: list[Effect] | None = None) -> Graph:
    """The decision graph of activations ``specs`` resolved in order (WM-S1)."""
    graph = Graph(flags=list(effects or []))
    roots = [add_activation(graph, spec, a) for a, spec in enumerate(specs)]
    # stop of each activation's choices: the next root, or the end
    link_stops(graph, [roots[a + 1] if a + 1 < len(roots) else -1 for a in range(len(roots))])
    graph.roots = roots
    return graph


def add_activation(graph: Graph, spec: ActivationSpec, a: int) -> int:
    """Add activation number ``a`` (its nodes' ``activation``) to ``graph``; its stops are
    left for :func:`link_stops`. Returns its root."""
    spec.check()
    root = graph.add(Node("choice", f"{spec.name}: opening", reset_focus=spec.focus,
                          activation=a, entry_knockdown=spec.entry_knockdown,
                          entry_down_word=spec.entry_down_word,
                          entry_flags=spec.entry_flags))
    kind = "ranged" if spec.ranged else "melee"
    melee = sorted([w for w in spec.weapons if w.kind == kind],
                   key=lambda w: (w.crippled, -w.power))
    buy, buy_sustained = _buy_nodes(graph, spec, melee, a)
    charges = {"must": [True], "may": [False, True], "no": [False]}[spec.charge]
    if melee:
        listed = [w for w in spec.weapons if w.kind == kind] if spec.fixed_order else melee
        graph.nodes[root].successors.extend(
            _initial_attacks(graph, spec, listed, charges, buy, buy_sustained, a))
    for charge in charges:
        for w in melee:
            if w.combo_strike and not w.crippled:
                opt = graph.add_option(AttackOption(
                    f"Combo Strike ({w.name})", "melee", w.stat,
                    spec.strength + 2 * w.weapon_pow, pre_boosted=charge, engages=1))
                cost = 1 if (charge and spec.is_warjack) else 0
                graph.nodes[root].successors.append(graph.add(Node(
                    "attack", f"{'charge, ' if charge else ''}Combo Strike", opt, cost, buy,
                    activation=a, reserve=spec.max_bought or 0, charge=charge)))
    if (spec.is_warjack and spec.power_attacks and melee and not spec.ranged
            and spec.charge != "must"):
        mat = melee[0].stat
        if not spec.target_larger_base:  # no head-butt against a larger base (P5)
            opt = graph.add_option(AttackOption("head-butt", "melee", mat, spec.strength,
                                                knocks_down=True, engages=1))
            graph.nodes[root].successors.append(graph.add(Node(
                "attack", "head-butt", opt, 1, buy, activation=a,
                reserve=spec.max_bought or 0)))
        if spec.charge == "may":
            # slam against a larger base: -2 to the attack roll (WM-A6); the target is
            # moved d6" away: no longer in melee (decision)
            opt = graph.add_option(AttackOption(
                "slam", "melee", mat - 2 * int(spec.target_larger_base), spec.strength,
                knocks_down=True, engages=0))
            graph.nodes[root].successors.append(graph.add(Node(
                "attack", "slam", opt, 1, -2, activation=a)))  # -2: patched to stop below
    if not graph.nodes[root].successors:  # a caster without melee weapons: straight to spells
        graph.nodes[root].successors.append(buy)
    graph.max_focus = max(graph.max_focus, spec.focus)
    graph.labels.append(spec.name)
    return root


def link_stops(graph: Graph, stop_of: list[int]) -> None:
    """Where each activation ends: ``stop_of[a]`` (a node, or -1 for the end) for every
    choice node's stop and the slam (which ends its activation) of activation ``a``."""
    for node in graph.nodes:
        if node.activation >= len(stop_of):
            continue
        nxt = stop_of[node.activation]
        if node.kind == "choice":
            node.stop = nxt
        if node.kind == "attack" and node.next == -2:
            node.next = nxt
