"""Find, load and validate TOML data files: profiles, rulesets, lists, scenarios (PR-1..3).

Profile ids are paths under a profiles root without the suffix, e.g.
``khador/juggernaut`` → ``profiles/warmachine/khador/juggernaut.toml``.
A game's profile model is registered with :func:`register_model`; validation
reports every error of a file at once, sorted by key path, each naming the file,
the key, the value and what is allowed.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mathhammer import game as games
from mathhammer.errors import OtherGameError, ProfileError, UnknownProfileError

#: game -> callable(data: dict, source: str) -> validated model (raises ProfileError)
_MODELS: dict[str, Callable[[dict, str], Any]] = {}
#: game -> the pydantic model class (for `mathhammer profiles schema`)
_CLASSES: dict[str, Any] = {}


def register_model(game: str, validate: Callable[[dict, str], Any], model: Any = None) -> None:
    """Register ``validate(data, source)`` for ``game``; ``model`` is its pydantic class
    (optional: found in the validator's module when not given)."""
    _MODELS[game] = validate
    if model is not None:
        _CLASSES[game] = model


def model_class(game: str) -> Any:
    """The pydantic profile class of ``game``: registered, or the class in the
    validator's module that has ``game`` and ``id`` fields."""
    if game not in _MODELS:
        _import_game(game)
    if game not in _CLASSES:
        import inspect
        import sys

        from pydantic import BaseModel

        module = sys.modules.get(getattr(_MODELS[game], "__module__", ""))
        members = inspect.getmembers(module, inspect.isclass) if module is not None else []
        for _, cls in members:
            if (issubclass(cls, BaseModel) and cls.__module__ == getattr(module, "__name__", "")
                    and {"game", "id"} <= set(cls.model_fields)):
                _CLASSES[game] = cls
                break
        else:
            raise ProfileError("game", "has no profile schema registered", game,
                               f"use one of {', '.join(_MODELS)}")
    return _CLASSES[game]


def natural_key(path: str) -> tuple:
    """Sort key for key paths: ``weapons.2`` before ``weapons.10``."""
    # isdecimal, not isdigit: "¹" is a digit that int() rejects (a fuzzed key crashed here)
    # and no int() of a 5,000-digit part (Python's conversion limit): such a part sorts as text
    return tuple((0, int(p), "") if p.isdecimal() and len(p) <= 18 else (1, 0, p)
                 for p in path.split("."))


def profiles_root() -> Path:
    """The bundled ``profiles/`` folder: the source checkout's, or the wheel's copy."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "profiles", here / "_profiles"):
        if candidate.is_dir():
            return candidate
    raise ProfileError("profiles", "the bundled profiles folder is missing", str(here),
                       "reinstall mathhammer")


#: dotted parts in one key or table header (tomllib's memory grows with the square of it:
#: a 60 kB key of 30,000 parts took 3.5 GB); no data file needs more than a few
MAX_KEY_PARTS = 32
#: entries in any one list of a data file (``[[attacks]]``, ``[[units]]``, ``sources``...);
#: run time grows with them, so each has a stated cap (docs/guide/files.md)
LIST_CAPS = {"attacks": 200, "activations": 200, "units": 200, "weapons": 50, "mounts": 10,
             "models": 500}
DEFAULT_LIST_CAP = 1000
#: keys in any one table (10^5 unknown keys once took seconds and printed megabytes)
TABLE_KEY_CAP = 1000
#: problems listed in one error report; the rest are counted
MAX_PROBLEMS = 20

_KEY_PART = r"""(?:[A-Za-z0-9_\-]+|"[^"\n]*"|'[^'\n]*')"""
_LONG_DOTTED_KEY = re.compile(  # a run of more than MAX_KEY_PARTS dotted parts, anywhere
    rf"""(?<![A-Za-z0-9_\-"'.]){_KEY_PART}(?:[ \t]*\.[ \t]*{_KEY_PART}){{{MAX_KEY_PARTS},}}""")


def beside(ref: str, base: Path) -> str:
    """What a scenario file names (a list, a deployment): the file beside it (in ``base``)
    when there is one this process may read (a web query: its uploads), else ``ref`` as
    given — a bundled name, or a path from the current folder."""
    from mathhammer import read_scope

    path = base / ref
    return str(path) if read_scope.allowed(path) and path.is_file() else ref


def file_beside(where: str, ref: str, base: Path) -> Path:
    """A file a scenario names (a deployment): :func:`beside`, and there must be a file there;
    none: one line naming the scenario's key and where it looked."""
    from mathhammer import read_scope

    path = Path(beside(ref, base))
    if read_scope.allowed(path) and path.is_file():
        return path
    raise ProfileError(where, "is no file beside the scenario file or in the current folder",
                       ref, "give the file's path relative to the scenario file")


def read_toml(path: Path | str, where: str | None = None) -> dict[str, Any]:
    """Read a TOML data file with bounds; any problem is one ProfileError line.

    The file goes through the one bounded reader (:func:`mathhammer.io.read_text`: a
    regular file, at most :data:`mathhammer.io.TOML_MAX_BYTES`, UTF-8); the text is
    checked for keys of more than :data:`MAX_KEY_PARTS` dotted parts before parsing; a
    syntax error names the file, line and column; every list is held to its cap.
    """
    from mathhammer import io

    path = Path(path)
    label = where or io.short_path(path)
    text = io.read_text(path, label, limit=io.TOML_MAX_BYTES, what="TOML file")
    return parse_toml(text, label)


def parse_toml(text: str, label: str) -> dict[str, Any]:
    """TOML text to data with the same bounds as :func:`read_toml` (uploads, imports)."""
    if text.count(".") >= MAX_KEY_PARTS and _LONG_DOTTED_KEY.search(text):
        raise ProfileError(label, f"has a dotted key of more than {MAX_KEY_PARTS} parts", None,
                           "use shorter keys (no data file needs more than a few parts)")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ProfileError(label, f"is not valid TOML: {err}", None,
                           "fix the syntax at that line (see toml.io)") from None
    except ValueError as err:  # an integer of more than 4,300 digits: Python's own limit
        raise ProfileError(label, "holds a number too long to read "
                           f"({str(err).split(':', 1)[0].lower()})", None,
                           "write the numbers the file needs (none has more than a few digits)"
                           ) from None
    except RecursionError:  # e.g. 5000 nested arrays: tomllib recurses per level
        raise ProfileError(label, "nests arrays or tables too deeply to read", None,
                           "flatten the file (no profile needs more than a few levels)") from None
    check_list_caps(data, label)
    return data


def check_list_caps(data: Any, label: str) -> None:
    """Every list in ``data`` within its cap (:data:`LIST_CAPS`, else DEFAULT_LIST_CAP) and
    every table within :data:`TABLE_KEY_CAP` keys."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:  # iterative: a deep file must not hit the recursion limit here
        node, key = stack.pop()
        if isinstance(node, dict):
            if len(node) > TABLE_KEY_CAP:
                raise ProfileError(f"{label}: {_shown_key(key)}", f"the table has "
                                   f"{len(node):,} keys, above its cap of {TABLE_KEY_CAP:,}",
                                   None, "remove the keys the file does not need")
            stack.extend((v, f"{key}.{k}" if key else str(k)) for k, v in node.items())
        elif isinstance(node, list):
            name = key.rsplit(".", 1)[-1]
            cap = LIST_CAPS.get(name, DEFAULT_LIST_CAP)
            if len(node) > cap:
                raise ProfileError(f"{label}: {_shown_key(key)}", f"the list has {len(node):,} "
                                   f"entries, above its cap of {cap:,}", None,
                                   f"keep {name or 'the list'} to {cap:,} entries or fewer "
                                   "(split the file into several runs)")
            stack.extend((v, f"{key}.{i}") for i, v in enumerate(node))


def _shown_key(key: str, limit: int = 80) -> str:
    key = " ".join(key.split()) or "(top level)"
    return key if len(key) <= limit else key[: limit - 3] + "..."


def bundled_ids(game: str) -> list[str]:
    root = profiles_root() / game
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.toml"))


def _is_file(path: Path) -> bool:
    """A path that exists and is not a folder (never raises): a FIFO or device counts, so
    the bounded reader refuses it by name instead of calling it "not found"."""
    from mathhammer.io import names_a_file

    return names_a_file(path)


def find_profile(game: str, ref: str) -> Path:
    """Resolve a profile id (``khador/juggernaut``) or a file path to a file.

    Raises:
        UnknownProfileError: naming the closest bundled ids.
    """
    if game not in games.names(lists=True):
        raise ProfileError("game", "is not a known game", game,
                           f"use one of {', '.join(games.names(lists=True))}")
    if not isinstance(ref, str) or not ref.strip() or "\0" in ref:
        raise UnknownProfileError(f"{game} profile", "needs a profile id or a file path", ref,
                                  "see `mathhammer profiles list`")
    as_path = Path(ref)
    if ref.endswith(".toml") or _is_file(as_path):
        if _is_file(as_path):
            return as_path
        raise UnknownProfileError(f"profile {ref!r}", "file not found", ref, "check the path")
    candidate = profiles_root() / game / f"{ref}.toml"
    if len(ref) <= 200 and _is_file(candidate):
        return candidate
    ids = bundled_ids(game)
    short = {i.split("/")[-1]: i for i in ids}
    if ref in short:  # "juggernaut" alone is unambiguous enough
        return profiles_root() / game / f"{short[ref]}.toml"
    close = difflib.get_close_matches(ref, ids, n=3, cutoff=0.4) or difflib.get_close_matches(
        ref.split("/")[-1], list(short), n=3, cutoff=0.4)
    close = [short.get(c, c) for c in close]
    hint = f"did you mean {', '.join(close)}?" if close else "see `mathhammer profiles list`"
    raise UnknownProfileError(f"{game} profile {ref!r}", "no such profile", None, hint)


def load_profile(game: str, ref: str) -> Any:
    """Load and validate a profile of ``game`` by id or path."""
    path, data = read_profile(game, ref)
    return validate_data(game, data, str(path))


def read_profile(game: str, ref: str) -> tuple[Path, dict[str, Any]]:
    """The file of profile ``ref`` of ``game`` (:func:`find_profile`) and its table.

    Raises:
        OtherGameError: the file's ``game`` key names another game.
    """
    path = find_profile(game, ref)
    data = read_toml(path)
    declared = data.get("game")
    if declared != game and declared in games.names(lists=True):
        raise OtherGameError(f"{path}: game", f"is a {declared} profile; this needs a {game} "
                             "one", None, f"give a {game} profile id or file")
    return path, data


def validate_data(game: str, data: dict, source: str) -> Any:
    if game not in _MODELS:
        _import_game(game)
    return _MODELS[game](data, source)


def _import_game(game: str) -> None:
    import importlib

    try:
        importlib.import_module(f"mathhammer.{game}.models")
    except ModuleNotFoundError:
        pass
    if game not in _MODELS:
        raise ProfileError("game", "is not a known game", game,
                           f"use one of {', '.join(games.names(lists=True))}")


def pydantic_errors(err, source: str) -> ProfileError:
    """All errors of a pydantic ``ValidationError`` as one ProfileError, sorted by key path.

    The line lists the first :data:`MAX_PROBLEMS` problems and counts the rest (10^5
    unknown keys once printed 24 MB); ``problems`` keeps the listed ones.
    """
    items = []
    errors = err.errors()
    for e in errors:
        key = _shown_key(".".join(str(p) for p in e["loc"]))
        value = e.get("input")
        shown = "" if isinstance(value, (dict, list)) else f" (got {_shown_value(value)})"
        items.append((key, f"{e['msg']}{shown}"))
    items.sort(key=lambda item: (natural_key(item[0]), item[1]))
    more = len(items) - MAX_PROBLEMS
    items = items[:MAX_PROBLEMS]
    what = "; ".join(f"{key}: {text}" for key, text in items)
    if more > 0:
        what += f"; and {more:,} more problem{'s' if more > 1 else ''}"
    error = ProfileError(source, what, None, _schema_fix({e["type"] for e in errors}))
    setattr(error, "problems", items)  # [(key path, message)] for `profiles validate`  # noqa: B010
    setattr(error, "more_problems", max(more, 0))  # noqa: B010
    return error


def _schema_fix(kinds: set[str]) -> str:
    """The fix of a file's schema errors: unknown keys, values out of range, or both."""
    if kinds <= {"extra_forbidden"}:
        return "see `mathhammer profiles schema` for allowed keys"
    if "extra_forbidden" in kinds:
        return ("give each value what its message asks and drop the unknown keys (`mathhammer "
                "profiles schema` lists every key)")
    return ("give each value what its message asks (`mathhammer profiles schema` gives every "
            "key's type and range)")


def _shown_value(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- doubts (PR-2)
def flagged_paths(profile: Any) -> set[str]:
    """Key paths with a doubt, names of list items turned into indices."""
    data = profile.model_dump(by_alias=True)
    paths = set()
    for path in getattr(profile, "low_confidence", {}) or {}:
        node, parts = data, []
        for part in path.split("."):
            if isinstance(node, list | tuple) and not part.isdecimal():
                index = next(
                    (
                        i
                        for i, x in enumerate(node)
                        if isinstance(x, dict) and x.get("name") == part
                    ),
                    None,
                )
                part = str(index) if index is not None else part
            parts.append(part)
            try:
                node = node[int(part)] if isinstance(node, list | tuple) else node[part]
            except (KeyError, IndexError, ValueError, TypeError):
                break
        paths.add(".".join(parts))
    return paths


def star(paths: set[str], path: str) -> str:
    """'*' when ``path`` or one of its parents has a doubt."""
    parts = path.split(".")
    return "*" if any(".".join(parts[:n]) in paths for n in range(1, len(parts) + 1)) else ""
