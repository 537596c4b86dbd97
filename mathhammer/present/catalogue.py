"""The profile catalogue as text: which games have profiles, a profile's list row, its
card (``mathhammer profiles list|show`` and the web page's profile list).

Every game registered with profiles is listed; a game's own card comes from its adapter
(:meth:`mathhammer.game.Game.card`), any other profile is shown field by field, values
with a recorded doubt starred (PR-2).
"""

from __future__ import annotations

from typing import Any

from mathhammer import game as games
from mathhammer.errors import InputError, ProfileError
from mathhammer.profiles import flagged_paths, star
from mathhammer.words import text_table


def profile_games(game: str | None = None) -> tuple[str, ...]:
    """The games asked for; by default every game whose profile model is installed."""
    from mathhammer.profiles import model_class

    GAMES = games.names(lists=True)
    if game is None:
        available = []
        for name in GAMES:
            try:
                model_class(name)
            except ProfileError:
                continue  # that game's engine is not installed (yet): list the others
            available.append(name)
        return tuple(available)
    if game not in GAMES:
        raise InputError(
            "‹game›", f"must be one of {', '.join(GAMES)}", game, "use ‹game› warmachine"
        )
    return (game,)



def summary_row(game: str, profile: Any) -> dict:
    """The list row of any game's profile, read defensively (fields differ by game)."""
    kind = getattr(profile, "kind", None) or getattr(profile, "troop_type", "")
    size = getattr(profile, "size", None)
    points: Any = getattr(profile, "points", None)
    models = None
    if callable(getattr(profile, "unit_points", None)):  # a unit: its default unit's price (PR-4)
        points, models = profile.unit_points(), profile.formation.models
    row = {
        "game": game,
        "id": profile.id,
        "name": profile.name,
        "kind": f"{size} {kind}" if size else str(kind).replace("_", " "),
        "points": points,
        "confidence": getattr(profile, "confidence", ""),
        "low_confidence": len(getattr(profile, "low_confidence", {}) or {}),
    }
    if getattr(profile, "warjack_points", None) is not None:
        row["warjack_points"] = profile.warjack_points
    if models is not None:
        row["models"] = models
    return row


def points_text(row: dict) -> str:
    if row["points"] is None:
        return "-"
    if "warjack_points" in row:
        return f"WJ +{row['warjack_points']}"
    if row.get("models", 1) > 1:
        return f"{row['points']} ({row['models']} models)"
    per = games.get(row["game"]).points_per
    return f"{row['points']}/{per}" if per else str(row["points"])


def generic_card(game: str, profile: Any) -> list[str]:
    """Any other game's profile: its fields, flattened, one per line."""
    flagged = flagged_paths(profile)
    lines = [
        f"{profile.name}  ({profile.id})",
        f"{game} · confidence {getattr(profile, 'confidence', '')}",
        "",
    ]

    def walk(prefix: str, value: Any) -> None:
        scalar = lambda v: isinstance(v, int | float | str) or v is None  # noqa: E731
        if (
            isinstance(value, dict)
            and prefix
            and len(value) >= 4
            and all(map(scalar, value.values()))
            and max(map(len, value)) <= 5
        ):
            keys = [k for k, v in value.items() if v is not None]  # a stat line: one table row
            lines.append(f"  {prefix}")
            lines.extend(
                "  " + row
                for row in text_table(
                    tuple(k.upper() for k in keys),
                    [tuple(f"{value[k]}{star(flagged, f'{prefix}.{k}')}" for k in keys)],
                )
            )
        elif isinstance(value, dict):
            for key, inner in value.items():
                if key != "low_confidence":
                    walk(f"{prefix}.{key}" if prefix else key, inner)
        elif isinstance(value, list | tuple) and value and isinstance(value[0], dict):
            for i, inner in enumerate(value):
                walk(f"{prefix}.{i}", inner)
        elif value not in (None, "", (), []):
            shown = ", ".join(map(str, value)) if isinstance(value, list | tuple) else value
            lines.append(f"  {prefix}{star(flagged, prefix)} = {shown}")

    walk("", profile.model_dump(by_alias=True, exclude={"schema_version", "game", "id", "name"}))
    return lines


def doubt_lines(profile: Any) -> list[str]:
    notes = getattr(profile, "low_confidence", {}) or {}
    if not notes:
        return ["", "low confidence: none recorded"]
    lines = ["", "low confidence (PR-2; starred above):"]
    lines += [f"  * {path}: {note}" for path, note in notes.items()]
    return lines


def card_lines(game: str, profile: Any) -> list[str]:
    """``profiles show``'s text: the game's own card (or the fields), how its rules are
    played, and the recorded doubts (PR-2)."""
    rules = games.get(game)
    return (rules.card(profile) or generic_card(game, profile)) + rules.card_notes(profile) \
        + doubt_lines(profile)
