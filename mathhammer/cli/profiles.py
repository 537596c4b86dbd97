"""`mathhammer profiles list|show|validate|schema` (PR-1..3).

Works for every game registered with :func:`mathhammer.profiles.register_model`
(Warmachine and Fantasy). Warmachine profiles get a full card (stat line, weapons,
spells, the damage grid drawn as rows × six columns); other games get their fields
listed. Values named in a profile's ``[low_confidence]`` table are starred and their
doubts printed (PR-2).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from mathhammer import game as games
from mathhammer.errors import InputError, MathhammerError, ProfileError, printable
from mathhammer.present.catalogue import card_lines, points_text, profile_games, summary_row
from mathhammer.present.flags import error_line, with_flags

app = typer.Typer(
    no_args_is_help=True, help="Bundled and user profiles: list, show, validate, schema."
)

GameOption = Annotated[
    str | None, typer.Option("--game", help="warmachine or fantasy (default: every game).")
]
FormatOption = Annotated[str, typer.Option("--format", help="table or json.")]


def _check_format(fmt: str) -> None:
    if fmt not in ("table", "json"):
        raise InputError("--format", "must be table or json", fmt, "use --format json")


def _print_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False) + "\n")


# --------------------------------------------------------------------------- summaries


@app.command("list")
def list_command(game: GameOption = None, format: FormatOption = "table") -> None:
    """Every bundled profile: id, name, kind, points and confidence (PR-2)."""
    from mathhammer.profiles import bundled_ids, load_profile

    _check_format(format)
    rows = []
    for name in profile_games(game):
        for ident in bundled_ids(name):
            try:
                rows.append(summary_row(name, load_profile(name, ident)))
            except ProfileError as err:  # one broken file must not hide the others
                rows.append(
                    {
                        "game": name,
                        "id": ident,
                        "name": "",
                        "kind": "INVALID",
                        "points": None,
                        "confidence": "",
                        "low_confidence": 0,
                        "error": error_line(err),
                    }
                )
                print(f"warning: {error_line(err)}", file=sys.stderr)
    if format == "json":
        _print_json({"profiles": rows})
        return
    if not rows:
        print("no bundled profiles")
        return
    header = ("game", "id", "name", "kind", "points", "confidence")
    table = [
        (
            r["game"],
            r["id"],
            r["name"],
            r["kind"],
            points_text(r),
            r["confidence"] + (f" ({r['low_confidence']} low)" if r["low_confidence"] else ""),
        )
        for r in rows
    ]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *table, strict=True)]
    for line in (header, *table):
        row = "  ".join(str(x).ljust(w) for x, w in zip(line, widths, strict=True))
        print(printable(row.rstrip()))
    print("\n(n low) = values with a recorded doubt; see `mathhammer profiles show ID`")


# --------------------------------------------------------------------------- show


def _is_file(path: Path) -> bool:
    """Exists and is not a folder, never raising (the bounded reader judges the rest)."""
    from mathhammer.io import names_a_file

    return names_a_file(path)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _resolve(ref: str, game: str | None) -> tuple[str, Any]:
    """(game, validated profile) for an id or path; unknown ids suggest close ones."""
    import difflib

    from mathhammer.errors import UnknownProfileError
    from mathhammer.profiles import bundled_ids, find_profile, read_toml, validate_data

    as_path = Path(ref)
    if ref.endswith(".toml") or _is_file(as_path):
        if not _is_file(as_path):
            raise UnknownProfileError(f"profile {ref!r}", "file not found", None, "check the path")
        data = read_toml(as_path)
        return _game_of(data, ref), validate_data(_game_of(data, ref), data, ref)
    games = profile_games(game)
    for name in games:
        try:
            path = find_profile(name, ref)
        except UnknownProfileError:
            continue
        return name, validate_data(name, read_toml(path), str(path))
    ids = [i for name in games for i in bundled_ids(name)]
    short: dict[str, str] = {}
    for i in ids:
        short.setdefault(i.split("/")[-1], i)
    close = difflib.get_close_matches(ref, ids, n=3, cutoff=0.4)
    close += [
        short[c]
        for c in difflib.get_close_matches(ref.split("/")[-1], list(short), n=3, cutoff=0.4)
        if short[c] not in close
    ]
    hint = f"did you mean {', '.join(close[:3])}?" if close else "see `mathhammer profiles list`"
    raise UnknownProfileError(f"profile {ref!r}", "no such profile", None, hint)


def _game_of(data: dict, source: str) -> str:
    GAMES = games.names(lists=True)
    game = data.get("game")
    if game not in GAMES:
        raise ProfileError(
            f"{source}: game",
            "must name the game the file is for",
            game,
            f'add game = "{GAMES[0]}" or game = "{GAMES[1]}"',
        )
    return game


@app.command("show")
def show_command(
    profile_id: Annotated[
        str, typer.Argument(metavar="ID", help="Profile id (khador/juggernaut) or a TOML file.")
    ],
    game: GameOption = None,
    format: FormatOption = "table",
) -> None:
    """One profile in full: stat line, weapons, spells, damage grid and doubts (PR-2)."""
    _check_format(format)
    name, profile = _resolve(profile_id, game)
    if format == "json":
        _print_json(profile.model_dump(by_alias=True, mode="json"))
        return
    text = "\n".join(card_lines(name, profile))
    print("\n".join(printable(line) for line in text.split("\n")))  # names from user files


# --------------------------------------------------------------------------- validate


#: files one `profiles validate` reads (a folder of a million files is refused, not walked)
MAX_VALIDATE_FILES = 5000
#: problem lines `profiles validate` prints on stderr; the summary line counts the rest
MAX_SHOWN_PROBLEMS = 20


def _expand(paths: list[Path]) -> list[Path]:
    import itertools

    files: list[Path] = []
    for path in paths:
        found = itertools.islice(path.rglob("*.toml"), MAX_VALIDATE_FILES + 1) \
            if _is_dir(path) else iter([path])
        files += sorted(found)
        if len(files) > MAX_VALIDATE_FILES:
            raise InputError("PATH", f"holds more than {MAX_VALIDATE_FILES:,} .toml files",
                             str(path), "validate a smaller folder")
    return files


def _validate_list_or_scenario(data: dict, source: str) -> str | None:
    """Validate an army list or a scenario file; None when ``data`` is neither.

    Told apart by their keys: a list has ``units``; a scenario is ``game = "magic"``,
    a fantasy ``kind = "combat" | "artillery" | "turn"``, or a Warmachine file with
    ``attacks``/``activations``/``plan`` and no profile ``id``.
    """
    game, label = data.get("game"), data.get("name") or data.get("title") or ""
    if "id" in data:
        return None
    if "lists" in data:  # a meta: the opposing lists with weights
        from mathhammer.tuning.meta import load_meta

        return f"meta {load_meta(source, data).name!r}"
    if "units" in data and "points" not in data:  # a tune options file (a list has a points cap)
        from mathhammer.tuning.tune import validate_options

        return f"options {validate_options(data, source).name!r}"
    if "units" in data:
        from mathhammer.lists import load_list

        return f"list {load_list(data, source).name!r}"
    if game not in games.names() or not games.get(game).validate_scenario(data, source):
        return None
    return f"scenario {label!r}" if label else "scenario"


def validate_file(path: Path) -> dict:
    """``{"path", "ok", "game", "id", "errors": [{"key", "message"}]}`` for one file."""
    from mathhammer.profiles import read_toml, validate_data

    result: dict = {"path": str(path), "ok": False, "game": None, "id": None, "errors": []}
    try:
        data = read_toml(path)
        other = _validate_list_or_scenario(data, str(path))
        if other is not None:  # bundled lists and scenarios live under profiles/ too
            result.update(ok=True, game=data.get("game"), id=other)
            return result
        result["game"] = _game_of(data, str(path))
        profile = validate_data(result["game"], data, str(path))
        games.get(result["game"]).check_prices(profile, str(path))  # PR-4: every part priced
    except MathhammerError as err:
        problems = getattr(err, "problems", None)
        if problems:
            result["errors"] = [{"key": key, "message": text} for key, text in problems]
            more = getattr(err, "more_problems", 0)
            if more:
                result["errors"].append({"key": "(more)", "message": f"and {more:,} more "
                                         f"problem{'s' if more > 1 else ''} not listed"})
        else:
            key = with_flags(err.where[len(str(path)) :].lstrip(": ")) or "(file)"
            what = with_flags(err.what) + (f" (got {err.got!r})" if err.got is not None else "")
            result["errors"] = [
                {"key": key, "message": what + (f"; fix: {with_flags(err.fix)}" if err.fix else "")}
            ]
        return result
    result.update(ok=True, id=profile.id)
    return result


@app.command("validate")
def validate_command(
    paths: Annotated[
        list[Path],
        typer.Argument(metavar="PATH", help="TOML files (or folders of them) to check."),
    ],
    format: FormatOption = "table",
) -> None:
    """Check user profile files; the game comes from each file's `game` key (PR-3).

    Every error of a file is listed, sorted by key path; exit code 2 if any file is invalid.
    """
    _check_format(format)
    results = [validate_file(path) for path in _expand(paths)]
    if not results:
        raise InputError(
            "PATH",
            "no .toml files found",
            " ".join(map(str, paths)),
            "give profile files or folders holding them",
        )
    if format == "json":
        _print_json({"files": results})
    else:
        shown = total = 0
        for r in results:
            if r["ok"]:
                print(printable(f"ok {r['path']} ({r['game']} {r['id']})"))
            else:
                for e in r["errors"]:
                    total += 1
                    if shown >= MAX_SHOWN_PROBLEMS:  # stderr stays a few kB, whatever the input
                        continue
                    shown += 1
                    # one line each (a key "\r" stays on its line), 400 characters at most
                    line = " ".join(f"invalid {r['path']}: {e['key']}: {e['message']}".split())
                    line = printable(line if len(line) <= 400 else line[:380] + "... (cut)")
                    print(line, file=sys.stderr)
        bad = sum(not r["ok"] for r in results)
        if bad:
            hidden = f" (the first {shown} of {total} problems shown)" if total > shown else ""
            print(f"{bad} of {len(results)} file(s) invalid{hidden}", file=sys.stderr)
    if any(not r["ok"] for r in results):
        raise typer.Exit(2)


# --------------------------------------------------------------------------- schema


@app.command("schema")
def schema_command(game: GameOption = None) -> None:
    """The JSON schema of the profile model(s): every key, type and allowed range."""
    from mathhammer.profiles import model_class

    games = profile_games(game)
    schemas = {name: model_class(name).model_json_schema(by_alias=True) for name in games}
    _print_json(schemas[games[0]] if game else schemas)
