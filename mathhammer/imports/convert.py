"""Names to bundled profiles, and the list file written from them.

A name matches a profile when it equals, after folding case and dropping everything but
letters and digits, the profile's name, the last part of its id, or one of its
``aliases`` (singular/plural ``s`` ignored). A near miss gets "did you mean"; an entry
that matches nothing is kept as a comment in the list file and named in the report.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

from mathhammer.errors import InputError, InputFileError
from mathhammer.imports.model import Entry, ParsedList
from mathhammer.lists import load_list
from mathhammer.results import Estimate, Report

MAX_ENTRIES = 200  # a list longer than this is not an army list
FILE_LIMIT = 1_048_576  # text exports and .ros XML: 1 MB (a real roster is a few tens of kB)
FANTASY_RULESETS = ("wfb8", "t9a1")


def fold(text: str) -> str:
    text = re.sub(r"[^a-z0-9]", "", text.lower())
    return text[:-1] if text.endswith("s") and len(text) > 3 else text


def _index(game: str, ruleset: str) -> tuple[dict[str, str], dict[str, object]]:
    """Folded name -> profile id over the bundled profiles of the game (and ruleset), and
    the profiles by id (read once: the unit sizes come from them too)."""
    from mathhammer.profiles import bundled_ids, load_profile

    prefix = "" if game == "warmachine" else ruleset + "/"
    index: dict[str, str] = {}
    profiles: dict[str, object] = {}
    for ident in bundled_ids(game):
        if not ident.startswith(prefix):
            continue
        profiles[ident] = profile = load_profile(game, ident)
        for name in (profile.name, ident.rsplit("/", 1)[-1], *profile.aliases):
            index.setdefault(fold(name), ident)
    return index, profiles


def match(name: str, index: dict[str, str]) -> tuple[str | None, list[str]]:
    """(profile id or None, close ids for "did you mean")."""
    key = fold(name)
    if key in index:
        return index[key], []
    near = difflib.get_close_matches(key, list(index), n=3, cutoff=0.75)
    return None, list(dict.fromkeys(index[k] for k in near))


def detect(data: bytes, path: str) -> str:
    """``battlescribe`` for zip/XML, ``wm`` or ``t9a`` for text (by its words)."""
    if data[:4] == b"PK\x03\x04" or path.lower().endswith((".rosz", ".ros")) or data.lstrip()[:1] == b"<":
        return "battlescribe"
    text = data[:4000].decode("utf-8", "replace").lower()
    if any(w in text for w in ("warmachine", "wj:", "pc:", "warjack", "caster", "faction:")):
        return "wm"
    return "t9a"


def import_file(path: str | Path, game: str | None = None, ruleset: str | None = None) -> tuple[Report, str]:
    """Parse an export, match its names; returns the report and the list file's text."""
    from mathhammer.imports import battlescribe, t9a_text, wm_text
    from mathhammer.io import decode_utf8, read_bytes

    label = str(path)
    if game not in (None, "warmachine", "fantasy"):
        raise InputError("--game", "must be warmachine or fantasy", game, "use --game fantasy")
    if ruleset is not None and ruleset not in ("mk2", *FANTASY_RULESETS):
        raise InputError("--ruleset", "must be mk2, wfb8 or t9a1", ruleset, "use --ruleset t9a1")
    kind_hint = str(path).lower()
    if kind_hint.endswith(".rosz"):
        parsed = battlescribe.parse_rosz(path, label, game, ruleset)
    else:
        data = read_bytes(path, label, limit=FILE_LIMIT, what="list export")
        kind = detect(data, kind_hint)
        if kind == "battlescribe":
            parsed = (battlescribe.parse_rosz(data, label, game, ruleset) if data[:4] == b"PK\x03\x04"
                      else battlescribe.parse_ros(data, label, game, ruleset))
        else:
            text = decode_utf8(data, label, "list export")
            if game == "warmachine" or (game is None and kind == "wm"):
                parsed = wm_text.parse(text, label)
            else:
                parsed = t9a_text.parse(text, label, ruleset or "t9a1")
    if ruleset is not None and parsed.game == "fantasy":
        parsed.ruleset = ruleset
    if not parsed.entries:
        raise InputFileError(label, f"has no list entries this reader understands ({parsed.source_format})",
                             None, "give the export as the builder printed it (README, import)")
    if len(parsed.entries) > MAX_ENTRIES:
        raise InputFileError(label, f"has {len(parsed.entries)} entries, above the limit of {MAX_ENTRIES}",
                             None, "give one army list")
    return convert(parsed, label)


def convert(parsed: ParsedList, label: str) -> tuple[Report, str]:
    index, profiles = _index(parsed.game, parsed.ruleset)
    units, unknown, lines, mapping = [], [], [], []
    for e in parsed.entries:
        ident, near = match(e.name, index)
        if ident is None:
            hint = f" — did you mean {', '.join(near)}?" if near else ""
            unknown.append(f"{e.name!r}{hint}")
            lines.append(_comment(f"UNKNOWN: {e.line.strip() or e.name}{hint}"))
            continue
        unit = {"profile": ident}
        if e.count > 1:
            unit["count"] = e.count
        if parsed.game == "fantasy":
            if e.models and e.models != profiles[ident].formation.models:
                unit["models"] = e.models
            for key in ("champion", "standard", "musician"):
                if key in e.options:
                    unit[key] = e.options[key]
        units.append((unit, e))
        mapping.append(f"{e.name} → {ident}" + (f" x {e.count}" if e.count > 1 else "")
                       + (f" ({e.models} models)" if e.models else ""))
    if not units:
        raise InputFileError(label, f"none of its {len(parsed.entries)} entries names a bundled "
                             f"{parsed.game} {parsed.ruleset} profile ({'; '.join(unknown[:3])})", None,
                             "check --game/--ruleset, or add aliases = [...] to the profiles")
    per_copy = parsed.game == "warmachine"  # "2x Ironclad (7pts)": a Mk II line prices one model
    total = sum((e.points or 0) * (e.count if per_copy else 1) for _, e in units)
    limit = parsed.points_limit or None
    data = {"name": parsed.name, "game": parsed.game, "ruleset": parsed.ruleset,
            "points": 100_000, "units": [unit for unit, _ in units]}
    points = load_list(data, source=f"{label} (imported)").total_points  # priced by the profiles
    data["points"] = max(limit or 0, points)  # the export's limit, or that price when higher
    text = _list_text(parsed, data, [e for _, e in units], lines, limit, total, label)
    n, k = len(parsed.entries), len(units)
    headline = (f"Converted {k} of {n} entries to the {parsed.game} {parsed.ruleset} list "
                f"{parsed.name!r} ({points} points by the bundled profiles)"
                + (f"; {n - k} unknown: {'; '.join(unknown)}" if unknown else ""))
    report = Report("import", "exact",
                    {"entries": Estimate.exact(n), "entries_converted": Estimate.exact(k),
                     "entries_unknown": Estimate.exact(n - k)},
                    info={"format": parsed.source_format, "game": parsed.game, "ruleset": parsed.ruleset,
                          "mapping": mapping, "unknown": unknown or ["none"],
                          "points_printed": total, "points_by_profiles": points, "list": text},
                    title=f"import: {label} ({parsed.source_format})", headline=headline)
    return report, text


def _toml_str(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's (a name from XML may hold a newline)."""
    return json.dumps(text, ensure_ascii=False)


def _comment(text: str) -> str:
    return "# " + " ".join(text.split())[:200]


def _list_text(parsed: ParsedList, data: dict, entries: list[Entry], unknown_lines, limit, total,
               label) -> str:
    out = [_comment(f"Imported by `mathhammer import` from {Path(label).name} ({parsed.source_format})."),
           f"# Points printed in the export: {total}" + (f" of {limit}" if limit else "") + "."]
    if parsed.game == "warmachine":
        out.append("# No focus is allocated: give each warjack focus = N (at most 3; WM-F1).")
    out += unknown_lines
    out += [f"{key} = {_toml_str(data[key])}" for key in ("name", "game", "ruleset")]
    out.append(f"points = {data['points']}")
    for unit, e in zip(data["units"], entries, strict=True):
        out.append("")
        out.append("[[units]]  " + _comment(e.line.strip()[:100]) if e.line.strip() else "[[units]]")
        for key, value in unit.items():
            out.append(f"{key} = {_toml_str(value) if isinstance(value, str) else str(value).lower()}")
    return "\n".join(out) + "\n"
