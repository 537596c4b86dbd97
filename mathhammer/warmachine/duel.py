"""``wm duel``: one or more activations against a target profile, with a focus policy.

Pipeline: profiles → :class:`ActivationSpec` per activation → decision graph
(:mod:`activation`) → policy tables and their exact value in the box-count model
(:mod:`policy`) → Monte Carlo of the same tables on the full grid, where crippled
movement makes DEF 7 mid-activation (WM-G4) → :class:`Report`.

Results: ``p_destroyed``, ``p_crippled_<X>`` per system on the target's grid,
``mean_damage`` (boxes marked), ``mean_focus_spent``, ``p_destroyed_box_model``
(the policy's exact value when the target is counted in boxes only); distribution
``damage``. ``info["policy"]`` is the decision table.
"""

from __future__ import annotations

import numpy as np

from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.errors import InputError, RulesError
from mathhammer.results import Distribution, Estimate, Report
from mathhammer.warmachine.activation import (
    MAX_WARJACK_FOCUS, SAME, ActivationSpec, Graph, Spell, Weapon, build_graph,
)
from mathhammer.warmachine.grid import Grid
from mathhammer.warmachine.policy import OptionTables, PolicyTables, describe, solve
from mathhammer.warmachine.sequence import Target


BASE_MM = {"small": 30, "medium": 40, "large": 50}  # WM-D7
MAX_HIT_SLOTS = 9  # p_hit_1..p_hit_8 per attack of a trial; the 9th row pools the rest


def activation_from_profile(ref: str, focus: int | None = None, charge: bool = False,
                            power_attacks: bool = True, where: str = "--focus",
                            ranged: bool = False, aim: bool = False,
                            target_base: str | None = None, damaged=None,
                            damaged_where: str = "--attacker-damaged",
                            max_bought: int | None = None) -> ActivationSpec:
    """What the model ``ref`` (id or path) can do in one activation (WM-F1..F4);
    ``target_base`` (small/medium/large) bars head-butts and gives slams −2 when larger.

    ``damaged`` is the attacker's own starting damage (WM-G7): a crippled weapon
    system rolls one die fewer and makes no special attack with it, a crippled
    cortex leaves no focus, crippled movement forbids charge and slam (WM-G4).
    """
    from mathhammer.warmachine.models import load_warmachine

    prof = load_warmachine(ref)
    larger = target_base is not None and BASE_MM[target_base] > BASE_MM[prof.base]
    jack = prof.is_warjack
    crippled: set[str] = set()
    if damaged is not None:
        if not prof.grid:
            raise InputError(damaged_where, f"{prof.name} has a damage track, not a grid: its "
                             "starting damage does not cripple anything", damaged,
                             "drop it for a warcaster or solo")
        grid = Grid.from_columns(prof.grid_columns, f"{ref}: grid")
        bits = grid.start_bits(damaged, damaged_where)
        crippled = {s for s in grid.systems if grid.crippled(bits, s)}
    allowance = MAX_WARJACK_FOCUS if jack else int(prof.stats.focus or 0)
    if "C" in crippled:
        if focus:
            raise RulesError(where, f"{prof.name}'s cortex is crippled: it cannot be allocated "
                             "or spend focus (WM-G4)", focus, "use --focus 0")
        allowance = 0
    if focus is None:
        focus = allowance
    if isinstance(focus, bool) or not isinstance(focus, int) or focus < 0:
        raise InputError(where, "must be a whole number ≥ 0", focus, "use --focus 3")
    if jack and focus > MAX_WARJACK_FOCUS:
        raise RulesError(where, f"a warjack can be allocated at most {MAX_WARJACK_FOCUS} focus "
                         f"(WM-F1); {prof.name} is a warjack", focus, "use --focus 3 or less")
    if not jack and focus > allowance:
        raise RulesError(where, f"{prof.name} has FOCUS {allowance}", focus,
                         f"use --focus {allowance} or less")
    weapons = tuple(
        Weapon(w.name, w.kind, prof.stats.mat if w.kind == "melee" else prof.stats.rat,
               int(w.damage_power or 0), int(w.pow or 0), w.has_rule("Combo Strike"), rof=w.rof,
               chain_weapon=w.has_rule("Chain Weapon"),
               sustained=w.has_rule("Sustained Attack"),
               crit_knockdown=w.has_rule("Critical Knockdown") or w.has_rule("Critical Freeze"),
               crippled=w.location in crippled)
        for w in prof.weapons if w.damage_power is not None)
    spells = tuple(Spell(s.name, s.cost, int(s.pow)) for s in prof.spells
                   if s.offensive and s.pow is not None and s.cost <= focus)
    return ActivationSpec(prof.name, focus, weapons, prof.stats.strength, jack, charge,
                          power_attacks and jack, spells, int(prof.stats.focus or 0),
                          movement_crippled="M" in crippled, ranged=ranged, aim=aim,
                          target_larger_base=larger, max_bought=max_bought)


def target_from_profile(ref: str, damaged=None, knocked_down: bool = False,
                        camped_focus: int = 0) -> Target:
    """DEF, ARM (+ camped focus for a warcaster, WM-D2), grid or track, starting damage."""
    from mathhammer.warmachine import rules
    from mathhammer.warmachine.models import load_warmachine

    prof = load_warmachine(ref)
    grid = Grid.from_columns(prof.grid_columns, f"{ref}: grid") if prof.grid \
        else Grid.track(int(prof.boxes), f"{ref}: boxes")
    start = grid.start_bits(damaged, "--damaged")
    if grid.destroyed(start):
        raise InputError("--damaged", "marks every box: the target is already destroyed", damaged)
    armor = rules.effective_armor(prof.stats.arm, camped_focus=camped_focus)
    return Target(prof.stats.defense, armor, grid, start, knocked_down, prof.name,
                  shield_mask_of(prof, grid))


def shield_mask_of(prof, grid: Grid) -> int:
    """Boxes of the system holding a Shield weapon (+2 ARM until crippled, WM-D2/WM-G4)."""
    mask = 0
    for w in prof.weapons:
        if w.has_rule("Shield") and w.location in grid.system_masks:
            mask |= grid.system_masks[w.location]
    return mask


def _graph_arrays(graph: Graph) -> dict[str, np.ndarray]:
    nodes = graph.nodes
    as_int = lambda xs: np.asarray(xs, dtype=np.int64)  # noqa: E731
    return {
        "node_kind": as_int([0 if n.kind == "attack" else 1 for n in nodes]),
        "node_option": as_int([n.option for n in nodes]),
        "node_cost": as_int([n.cost for n in nodes]),
        "node_next": as_int([n.next for n in nodes]),
        "node_next_hit": as_int([n.next if n.next_hit == SAME else n.next_hit for n in nodes]),
        "node_stop": as_int([n.stop for n in nodes]),
        "node_reset": as_int([n.reset_focus for n in nodes]),
    }


def policy_monte_carlo(graph: Graph, target: Target, opts: OptionTables, tables: PolicyTables,
                       config: MonteCarloConfig):
    """Run the policy tables on the full grid; returns the engine's MonteCarloRun."""
    from mathhammer import kernels

    kernel = kernels.load("grid")
    grid = target.grid
    width = max(len(p) for per in opts.dmg for pair in per for p in pair)
    cdf = np.zeros((len(graph.options), 2, 2, width))
    for o, per in enumerate(opts.dmg):
        for sc, pair in enumerate(per):
            for b, pmf in enumerate(pair):
                cdf[o, sc, b, : len(pmf)] = np.cumsum(pmf)
                cdf[o, sc, b, len(pmf) - 1:] = 2.0  # the last outcome catches float rounding
    guide = kernel.guide_tables(cdf)
    g = _graph_arrays(graph)
    masks = np.asarray(list(grid.system_masks.values()), dtype=np.uint64)
    pre = np.asarray([int(o.pre_boosted) for o in graph.options], dtype=np.int64)
    knock = np.asarray([int(o.knocks_down) + 2 * int(o.crit_knocks_down)
                        for o in graph.options], dtype=np.int64)
    p_hit = np.ascontiguousarray(opts.p_hit)
    p_crit = np.ascontiguousarray(opts.p_crit)
    n_sys = len(masks)

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        out = {"hist": np.zeros(grid.n_boxes + 1, dtype=np.int64),
               "crippled": np.zeros(max(n_sys, 1), dtype=np.int64),
               "destroyed": np.zeros(1, dtype=np.int64),
               "focus": np.zeros(2, dtype=np.int64), "attacks": np.zeros(2, dtype=np.int64),
               "slots": np.zeros((MAX_HIT_SLOTS, 2), dtype=np.int64)}
        kernel.policy_mc(np.uint64(grid.full), np.int64(grid.width), np.uint64(target.start_bits),
                         np.asarray(grid.col_start, dtype=np.int64),
                         np.uint64(grid.system_masks.get("M", 0)), np.uint64(target.shield_mask),
                         masks, np.int64(int(target.knocked_down)), g["node_kind"],
                         g["node_option"], g["node_cost"], g["node_next"], g["node_next_hit"],
                         g["node_stop"],
                         g["node_reset"],
                         tables.bh, tables.bd, tables.ch, p_hit, p_crit, cdf, guide, pre, knock,
                         state,
                         np.int64(n), out["hist"], out["crippled"], out["destroyed"],
                         out["focus"], out["attacks"], out["slots"])
        return out

    def probabilities(tally: dict[str, np.ndarray], n: int) -> np.ndarray:
        return np.concatenate([tally["destroyed"], tally["crippled"][:n_sys]]) / n

    return simulate(run_chunk, config, probabilities)


def policy_exact(graph: Graph, target: Target, opts: OptionTables, tables: PolicyTables):
    """Exact distribution of final grid states under the policy tables, on the full grid.

    The same sparse programme as :mod:`exact_grid`, with (focus, node, knocked down)
    packed into the state. Returns (uint64 states, probabilities).
    """
    from mathhammer import kernels
    from mathhammer.warmachine.exact_grid import MAX_CANDIDATES, ExactTooLarge

    kernel = kernels.load("grid")
    grid = target.grid
    if grid.n_boxes > 36 or graph.max_focus > 15 or len(graph.nodes) > 4000:
        raise ExactTooLarge("--method", "the exact duel engine handles up to 36 boxes and "
                            "15 focus", "exact", "use --method mc")
    width = max(len(p) for per in opts.dmg for pair in per for p in pair)
    pmf = np.zeros((len(graph.options), 2, 2, width))
    for o, per in enumerate(opts.dmg):
        for sc, pair in enumerate(per):
            for b, q in enumerate(pair):
                pmf[o, sc, b, : len(q)] = q
    g = _graph_arrays(graph)
    pre = np.asarray([int(o.pre_boosted) for o in graph.options], dtype=np.int64)
    knock = np.asarray([int(o.knocks_down) + 2 * int(o.crit_knocks_down)
                        for o in graph.options], dtype=np.int64)
    keys = np.array([int(kernel.pack_policy_state(np.uint64(target.start_bits), 0, 1,
                                                  int(target.knocked_down)))], dtype=np.uint64)
    probs = np.ones(1)
    for _ in range(10_000):
        keys, probs, active = kernel.policy_exact_round(
            keys, probs, np.uint64(grid.full), np.int64(grid.width),
            np.asarray(grid.col_start, dtype=np.int64), np.uint64(grid.system_masks.get("M", 0)),
            np.uint64(target.shield_mask), g["node_kind"], g["node_option"], g["node_cost"],
            g["node_next"], g["node_next_hit"], g["node_stop"], g["node_reset"], tables.bh,
            tables.bd, tables.ch, np.ascontiguousarray(opts.p_hit),
            np.ascontiguousarray(opts.p_crit), pmf, pre, knock, np.int64(MAX_CANDIDATES))
        if active < 0:
            raise ExactTooLarge("--method", f"the exact duel programme needs more than "
                                f"{MAX_CANDIDATES:,} states in one round", "exact",
                                "use --method mc")
        if active <= 0.0:
            return keys, probs
    raise ExactTooLarge("--method", "the exact duel programme did not finish", "exact",
                        "use --method mc")


def _duel_report(method: str, target: Target, dist: Distribution, destroyed: Estimate,
                 crippled: list[Estimate], extra: dict[str, Estimate], info: dict,
                 title: str, n_trials=None, seed=None) -> Report:
    results = {"p_destroyed": destroyed}
    for letter, est in zip(target.grid.systems, crippled):
        results[f"p_crippled_{letter}"] = est
    results["mean_damage"] = dist.mean_estimate()
    results.update(extra)
    return Report("wm duel", method, results, {"damage": dist}, n_trials=n_trials, seed=seed,
                  info=dict(info), title=title)


def duel_chain(specs: list[ActivationSpec], target: Target, *, policy: str = "optimal",
               objective: str = "destroy", boost_hit: bool = False, boost_damage: bool = False,
               method: str = "auto", config: MonteCarloConfig | None = None,
               check: bool = False, title: str = "", explain: bool = False) -> Report:
    """Activations ``specs`` in order against ``target`` under one focus policy (WM-S1, WM-F5).

    ``auto`` and ``mc`` simulate the policy on the full grid; ``exact`` runs the exact
    programme over (grid, focus, node, knocked down); ``check`` runs both.
    """
    from mathhammer.query import answer

    graph = build_graph(specs)
    opts = OptionTables.build(graph, target)
    tables = solve(graph, target, policy, objective, boost_hit, boost_damage, opts)
    key = "p_destroyed_box_model" if objective == "destroy" else "mean_damage_box_model"
    box_model = {key: Estimate.exact(tables.value)}
    n_max = target.grid.boxes_left(target.start_bits)
    info = {
        "policy": f"{policy} (objective: {objective})",
        "decisions": describe(graph, tables, n_max, int(target.knocked_down)),
        "model": "decisions planned on boxes left at base DEF (exact value: *_box_model); "
                 "played on the full grid, where crippled M makes DEF 7 (WM-G4)",
        "target": f"{target.name}: DEF {target.defense}, ARM {target.armor}, "
                  f"{target.grid.n_boxes} boxes, {n_max} left",
    }

    def exact() -> Report:
        from mathhammer import kernels

        keys, probs = policy_exact(graph, target, opts, tables)
        grid = target.grid
        masks = np.asarray(list(grid.system_masks.values()), dtype=np.uint64)
        dmg, crip, dest = kernels.load("grid").summarise_states(
            keys, probs, np.uint64(grid.full), np.uint64(target.start_bits), masks,
            np.int64(grid.n_boxes))
        return _duel_report("exact", target, Distribution.exact(dmg), Estimate.exact(float(dest)),
                            [Estimate.exact(float(c)) for c in crip], box_model, info, title)

    def monte_carlo(cfg: MonteCarloConfig) -> Report:
        run = policy_monte_carlo(graph, target, opts, tables, cfg)
        t, n = run.tally, run.n_trials
        extra = {"mean_focus_spent": Estimate.mean(float(t["focus"][0]), float(t["focus"][1]), n),
                 **box_model}
        report = _duel_report("mc", target, Distribution.from_counts(t["hist"]),
                              Estimate.proportion(int(t["destroyed"][0]), n),
                              [Estimate.proportion(int(c), n) for c in t["crippled"]],
                              extra, info, title, n, run.seed)
        report.info["attacks made per trial"] = round(float(t["attacks"][0]) / n, 4)
        for i, (made, hits) in enumerate(t["slots"][: MAX_HIT_SLOTS - 1], start=1):
            if made > 0:  # WM-S2: P(hit) of the i-th attack, given that it is made
                report.results[f"p_hit_{i}"] = Estimate.proportion(int(hits), int(made))
        return report

    report = answer("wm duel", method="mc" if method == "auto" else method, exact=exact,
                    monte_carlo=monte_carlo, config=config, check=check)
    from mathhammer.headline import wm_duel_headline

    report.headline = wm_duel_headline(report, [s.name for s in specs], target.name, objective)
    if explain:
        from mathhammer.explain import attach
        from mathhammer.warmachine.explain import explain_duel

        attach(report, explain_duel(graph, target, opts, policy))
    return report


def duel(attacker: str, target: str, *, focus: int | None = None, charge: bool = False,
         policy: str = "optimal", objective: str = "destroy", boost_hit: bool = False,
         boost_damage: bool = False, power_attacks: bool = True,
         then: list[str] | None = None, damaged=None, knocked_down: bool = False,
         camped_focus: int = 0, ranged: bool = False, aim: bool = False,
         attacker_damaged=None, buy: int | None = None, method: str = "auto",
         config: MonteCarloConfig | None = None, check: bool = False,
         explain: bool = False) -> Report:
    """``mathhammer wm duel ATTACKER TARGET``: P(destroyed), P(crippled X), damage (WM-S2).

    ``then`` lists follow-up activations as ``"id"`` or ``"id:focus"`` (WM-S1);
    they charge (or shoot, ``ranged``) like the first.
    """
    from mathhammer.warmachine.models import load_warmachine

    base = load_warmachine(target).base
    specs = [activation_from_profile(attacker, focus, charge, power_attacks, ranged=ranged,
                                     aim=aim, target_base=base, damaged=attacker_damaged,
                                     max_bought=buy)]
    for i, item in enumerate(then or []):
        ref, _, f = item.partition(":")
        try:
            f_val = int(f) if f else None
        except ValueError:
            raise InputError(f"--then[{i}]", "focus after ':' must be a whole number", item,
                             "use e.g. --then khador/juggernaut:2") from None
        specs.append(activation_from_profile(ref, f_val, charge, power_attacks, f"--then[{i}]",
                                             ranged=ranged, aim=aim, target_base=base))
    tgt = target_from_profile(target, damaged, knocked_down, camped_focus)
    names = " then ".join(f"{s.name} ({s.focus} focus{', charge' if s.charge else ''})"
                          for s in specs)
    return duel_chain(specs, tgt, policy=policy, objective=objective, boost_hit=boost_hit,
                      boost_damage=boost_damage, method=method, config=config, check=check,
                      title=f"{names} vs {tgt.name}, policy {policy}", explain=explain)
