"""Find, load and validate TOML data files: profiles, rulesets, lists, scenarios (PR-1..3).

Profile ids are paths under a profiles root without the suffix, e.g.
``khador/juggernaut`` → ``profiles/warmachine/khador/juggernaut.toml``.
A game's profile model is registered with :func:`register_model`; validation
reports every error of a file at once, sorted by key path, each naming the file,
the key, the value and what is allowed.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mathhammer.errors import ProfileError, UnknownProfileError

GAMES = ("warmachine", "fantasy")

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
    return tuple((0, int(p), "") if p.isdecimal() else (1, 0, p) for p in path.split("."))


def profiles_root() -> Path:
    """The bundled ``profiles/`` folder: the source checkout's, or the wheel's copy."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "profiles", here / "_profiles"):
        if candidate.is_dir():
            return candidate
    raise ProfileError("profiles", "the bundled profiles folder is missing", str(here),
                       "reinstall mathhammer")


def read_toml(path: Path | str, where: str | None = None) -> dict[str, Any]:
    """Read a TOML file; a syntax error names the file, line and column."""
    from mathhammer import read_scope

    path = Path(path)
    label = where or str(path)
    read_scope.check(path, label)  # the web server reads bundled data and uploads only
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProfileError(label, "file not found", str(path), "check the path") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ProfileError(label, f"cannot be read ({err.__class__.__name__})", str(path),
                           "give a UTF-8 TOML file") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ProfileError(label, f"is not valid TOML: {err}", None,
                           "fix the syntax at that line (see toml.io)") from None
    except RecursionError:  # e.g. 5000 nested arrays: tomllib recurses per level
        raise ProfileError(label, "nests arrays or tables too deeply to read", None,
                           "flatten the file (no profile needs more than a few levels)") from None


def bundled_ids(game: str) -> list[str]:
    root = profiles_root() / game
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.toml"))


def _is_file(path: Path) -> bool:
    """``Path.is_file`` that says no (instead of raising) for a 300-character name."""
    try:
        return path.is_file()
    except OSError:
        return False


def find_profile(game: str, ref: str) -> Path:
    """Resolve a profile id (``khador/juggernaut``) or a file path to a file.

    Raises:
        UnknownProfileError: naming the closest bundled ids.
    """
    as_path = Path(ref)
    if ref.endswith(".toml") or _is_file(as_path):
        if _is_file(as_path):
            return as_path
        raise UnknownProfileError(f"profile {ref!r}", "file not found", ref, "check the path")
    candidate = profiles_root() / game / f"{ref}.toml"
    if _is_file(candidate):
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
    path = find_profile(game, ref)
    return validate_data(game, read_toml(path), str(path))


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
        raise ProfileError("game", "is not a known game", game, f"use one of {', '.join(GAMES)}")


def pydantic_errors(err, source: str) -> ProfileError:
    """All errors of a pydantic ``ValidationError`` as one ProfileError, sorted by key path."""
    items = []
    for e in err.errors():
        key = ".".join(str(p) for p in e["loc"]) or "(top level)"
        value = e.get("input")
        shown = "" if isinstance(value, dict) else f" (got {value!r})"
        items.append((key, f"{e['msg']}{shown}"))
    items.sort(key=lambda item: (natural_key(item[0]), item[1]))
    what = "; ".join(f"{key}: {text}" for key, text in items)
    error = ProfileError(source, what, None, "see `mathhammer profiles schema` for allowed keys")
    setattr(error, "problems", items)  # [(key path, message)] for `profiles validate`  # noqa: B010
    return error
