"""``profiles show`` for a Warmachine profile: the stat line, weapons, spells, the damage
grid drawn as rows × six columns, values with a recorded doubt starred (PR-2)."""

from __future__ import annotations

from typing import Any

from mathhammer.profiles import flagged_paths, star
from mathhammer.warmachine.models import draw_grid
from mathhammer.words import number_text, plural, text_table


def card(profile: Any) -> list[str]:
    """A Warmachine profile as text lines (stat line, weapons, spells, grid, doubts)."""
    flagged = flagged_paths(profile)
    kind = f"{profile.size} {profile.kind}" if profile.size else profile.kind
    cost = (
        f"WJ +{profile.warjack_points}"
        if profile.warjack_points is not None
        else f"{profile.points} points"
    )
    lines = [
        f"{profile.name}  ({profile.id})",
        f"warmachine · {profile.faction} · {kind} · {profile.base} base · {cost} · "
        f"confidence {profile.confidence}",
    ]
    if profile.sources:
        lines.append(f"sources: {', '.join(profile.sources)}")
    lines.append("")
    stats = profile.model_dump(by_alias=True)["stats"]
    keys = [
        k
        for k in ("spd", "str", "mat", "rat", "def", "arm", "cmd", "focus")
        if stats[k] is not None
    ]
    lines += text_table(
        tuple(k.upper() for k in keys),
        [tuple(f"{stats[k]}{star(flagged, f'stats.{k}')}" for k in keys)],
    )
    if profile.special_rules:
        lines += ["", "special rules"] + [f"  {rule}" for rule in profile.special_rules]
    if profile.feat:
        lines += ["", f"feat: {profile.feat}"]
    if profile.weapons:
        lines += ["", "weapons"]
        rows: list[tuple[str, ...]] = []
        for i, w in enumerate(profile.weapons):
            s = lambda field, i=i: star(flagged, f"weapons.{i}.{field}")  # noqa: E731
            rows.append(
                (
                    f"{w.name}{star(flagged, f'weapons.{i}.name')}",
                    w.kind,
                    number_text(w.rng) + s("rng"),
                    (number_text(w.rof) + s("rof")) if w.kind == "ranged" else "-",
                    (number_text(w.aoe) if w.aoe else "-") + s("aoe"),
                    number_text(w.pow) + s("pow"),
                    number_text(w.pow_plus_str) + s("pow_plus_str"),
                    w.location + s("location"),
                    w.confidence or "",
                )
            )
        lines += text_table(
            ("name", "kind", "RNG", "ROF", "AOE", "POW", "P+S", "loc", "confidence"), rows
        )
        for w in profile.weapons:
            lines += [f"    {w.name}: {rule}" for rule in w.rules]
    if profile.spells:
        lines += ["", "spells"]
        rows = []  # same type as the weapon rows
        for i, sp in enumerate(profile.spells):
            s = lambda field, i=i: star(flagged, f"spells.{i}.{field}")  # noqa: E731
            rows.append(
                (
                    sp.name + s("name"),
                    number_text(sp.cost) + s("cost"),
                    number_text(sp.rng) + s("rng"),
                    (number_text(sp.aoe) if sp.aoe else "-") + s("aoe"),
                    number_text(sp.pow) + s("pow"),
                    "yes" if sp.upkeep else "no",
                    "yes" if sp.offensive else "no",
                    (sp.effect or "") + s("effect"),
                )
            )
        lines += text_table(("name", "COST", "RNG", "AOE", "POW", "UP", "OFF", "effect"), rows)
    lines.append("")
    if profile.grid is not None:
        total = sum(len(c) for c in profile.grid)
        lines.append(
            f"damage grid{star(flagged, 'grid')}: {plural(total, 'box')}, columns 1-6 top to bottom "
            "(- hull; L/R arms, H head, A arc node, C cortex, M movement; WM-G1)"
        )
        lines.append("  (columns drawn top-aligned; damage fills each from its top box, WM-G2)")
        lines += [f"  {row}".rstrip() for row in draw_grid(profile.grid)]
        counts = {x: "".join(profile.grid).count(x) for x in "LRHACM"}
        lines.append("  systems: " + ", ".join(f"{x} {n}" for x, n in counts.items() if n))
    else:
        lines.append(f"damage boxes{star(flagged, 'boxes')}: {profile.boxes} (WM-G6)")
    return lines
