"""Names to bundled profiles, and the list file written from them.

A name matches a profile when it equals, after folding case and dropping everything but
letters and digits, the profile's name, the last part of its id, or one of its
``aliases`` (singular/plural ``s`` ignored). A near miss gets "did you mean"; an entry
that matches nothing is kept as a comment in the list file and named in the report.
Each option printed for an entry is mapped by the game onto its profile (command, kit,
upgrades, mounts: :meth:`mathhammer.game.Game.import_options`) or dropped with the
reason; the coverage line of every import counts the entries and options kept and names
each one dropped and why ("kept 2 of 3 entries and 4 of 6 options; dropped: Spear (Orcs)
— not in the profile, ...").

Every number written is held to the list file's own ranges (:mod:`mathhammer.lists`:
count 1..50, models 1..200, points 1..100,000): a value outside is set to the nearest
allowed one and the change, with both values, goes into the headline (the coverage
line), the JSON report's ``changed`` and a comment on the unit. Names are written as
TOML strings with every control character escaped, comments with them shown as escapes,
and the finished text is read back through :func:`mathhammer.lists.load_list` before it
is returned: what is written always loads.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from mathhammer import game as games
from mathhammer.errors import InputError, InputFileError, MathhammerError, RulesError, printable
from mathhammer.imports.model import MAX_ENTRIES, Entry, ParsedList, display
from mathhammer.lists import file_models, load_list
from mathhammer.results import Estimate, Report

FILE_LIMIT = 1_048_576  # text exports and .ros XML: 1 MB (a real roster is a few tens of kB)
NAME_LIMIT = 200  # characters of the list's name kept (a longer one is cut, and said so)
CHANGES_SHOWN = 10  # changes named in the headline; the rest are in the report and the file


def _bounds(model, name: str) -> tuple[int, int]:
    """(ge, le) of a field of the list file's schema: the importer's ranges are the loader's."""
    meta = model.model_fields[name].metadata
    return (next(m.ge for m in meta if hasattr(m, "ge")), next(m.le for m in meta if hasattr(m, "le")))


def entry_range(key: str) -> tuple[int, int]:
    """(low, high) of a list entry's number ``key`` (``count``, ``models``) in the list file."""
    return _bounds(file_models()[0], key)


def points_range() -> tuple[int, int]:
    return _bounds(file_models()[1], "points")


def _fit(value: int, bounds: tuple[int, int], what: str, changes: list[str],
         why: str | None = None) -> int:
    """``value`` moved into ``bounds`` (inclusive); a move is recorded in ``changes``."""
    low, high = bounds
    fitted = min(max(value, low), high)
    if fitted != value:
        changes.append(f"{what} {value} → {fitted} ({why or f'a list file allows {low}..{high:,}'})")
    return fitted


def fold(text: str) -> str:
    text = re.sub(r"[^a-z0-9]", "", text.lower())
    return text[:-1] if text.endswith("s") and len(text) > 3 else text


def _index(game: str, ruleset: str) -> tuple[dict[str, str], dict[str, object]]:
    """Folded name -> profile id over the bundled profiles of the game (and ruleset), and
    the profiles by id (read once: the unit sizes come from them too)."""
    from mathhammer.profiles import load_profile

    index: dict[str, str] = {}
    profiles: dict[str, object] = {}
    for ident in games.get(game).import_ids(ruleset):
        profiles[ident] = profile = load_profile(game, ident)
        for name in (profile.name, ident.rsplit("/", 1)[-1], *profile.aliases):
            index.setdefault(fold(name), ident)
    return index, profiles


def match(name: str, index: dict[str, str]) -> tuple[str | None, list[str]]:
    """(profile id or None, close ids for "did you mean")."""
    key = fold(name)
    if key in index:
        return index[key], []
    if len(key) > 2 * max(map(len, index), default=0):  # no ratio of 0.75 is possible:
        return None, []  # skip the matcher's work on a megabyte of name
    near = difflib.get_close_matches(key, list(index), n=3, cutoff=0.75)
    return None, list(dict.fromkeys(index[k] for k in near))


def detect(data: bytes, path: str) -> str:
    """``battlescribe`` for zip/XML (UTF-16 and UTF-32 too), ``newrecruit`` for JSON, else
    the game whose text export it reads as (:meth:`mathhammer.game.Game.reads_text`)."""
    if data[:4] == b"PK\x03\x04" or path.lower().endswith((".rosz", ".ros")) or data.lstrip()[:1] == b"<":
        return "battlescribe"
    if path.lower().endswith(".json") or data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{":
        return "newrecruit"
    for wide in ("utf-16", "utf-32"):  # a wide XML file: "<" after its BOM or with zero bytes
        for codec in (wide, f"{wide}-le", f"{wide}-be"):
            head = data[:64].decode(codec, "ignore").lstrip("\ufeff \t\r\n")
            if head.startswith("<"):
                return "battlescribe"
    head = data[:4000].decode("utf-8", "replace").lower()
    readers = [name for name in games.names(lists=True) if games.get(name).reads_text(head)]
    return readers[0] if readers else games.names(lists=True)[-1]


def import_file(path: str | Path, game: str | None = None, ruleset: str | None = None) -> tuple[Report, str]:
    """Parse an export, match its names; returns the report and the list file's text."""
    from mathhammer.imports import battlescribe, newrecruit
    from mathhammer.io import decode_utf8, read_bytes

    label = str(path)
    if game is not None:
        games.get(game, "‹game›", lists=True)
    rulesets = [r for name in games.names(lists=True) for r in games.get(name).import_rulesets]
    if ruleset is not None and ruleset not in rulesets:
        raise InputError("‹ruleset›", f"must be {', '.join(rulesets[:-1])} or {rulesets[-1]}",
                         ruleset, f"use ‹ruleset› {rulesets[-1]}")
    kind_hint = str(path).lower()
    if kind_hint.endswith(".rosz"):
        parsed = battlescribe.parse_rosz(path, label, game, ruleset)
    else:
        limit = newrecruit.JSON_LIMIT if kind_hint.endswith(".json") else FILE_LIMIT
        data = read_bytes(path, label, limit=limit, what="list export")
        kind = detect(data, kind_hint)
        if kind == "battlescribe":
            parsed = (battlescribe.parse_rosz(data, label, game, ruleset) if data[:4] == b"PK\x03\x04"
                      else battlescribe.parse_ros(data, label, game, ruleset))
        elif kind == "newrecruit":
            parsed = newrecruit.parse_json(decode_utf8(data, label, "roster export"), label, game,
                                           ruleset)
        else:
            text = decode_utf8(data, label, "list export")
            parsed = games.get(game or kind).parse_text(text, label, ruleset)
    if ruleset is not None and ruleset in games.get(parsed.game).import_rulesets:
        parsed.ruleset = ruleset
    if not parsed.entries:
        raise InputFileError(label, f"has no list entries this reader understands ({parsed.source_format})",
                             None, "give the export as the builder printed it (docs/guide/lists.md, import)")
    if len(parsed.entries) > MAX_ENTRIES:
        raise InputFileError(label, f"has {len(parsed.entries)} entries, above the limit of {MAX_ENTRIES}",
                             None, "give one army list")
    return convert(parsed, label)


def convert(parsed: ParsedList, label: str) -> tuple[Report, str]:
    game = games.get(parsed.game)
    index, profiles = _index(parsed.game, parsed.ruleset)
    units, unknown, lines, mapping = [], [], [], []
    dropped: list[str] = []  # every entry and option left out, each with why (the coverage line)
    options_total = options_kept = 0
    for e in parsed.entries:
        ident, near = match(e.name, index)
        shown = display(e.name)
        options_total += len(e.options)
        if ident is None:
            hint = f" — did you mean {', '.join(near)}?" if near else ""
            unknown.append(f"'{shown}'{hint}")
            lines.append(_comment(f"UNKNOWN: {e.line.strip() or e.name}{hint}"))
            carried = f" and its {_plural(len(e.options), 'option')}" if e.options else ""
            dropped.append(f"{shown}{carried} — no bundled {parsed.game} {parsed.ruleset} profile"
                           + (f" (did you mean {', '.join(near)}?)" if near else ""))
            continue
        unit = {"profile": ident}
        what = f"{shown} ({e.where})" if e.where else shown
        changed: list[str] = []  # each number moved into the list file's range
        fitted: dict[str, int] = {}

        def fit(value: int, key: str, label: str, bounds: tuple[int, int] | None = None,
                why: str | None = None, what=what, changed=changed, fitted=fitted) -> int:
            low, high = entry_range(key)
            if bounds is not None:  # the profile's own range, inside the list file's
                low, high = max(low, bounds[0]), min(high, bounds[1])
            fitted[key] = _fit(value, (low, high), f"{what}: {label}", changed, why)
            return fitted[key]

        count = fit(e.count, "count", "count")
        if count > 1:
            unit["count"] = count
        unit.update(game.import_unit(e, profiles[ident], fit))
        keys, kept, left = game.import_options(e, profiles[ident])
        unit.update(keys)
        options_kept += len(kept)
        gone = [f"{display(option)} ({shown}) — {why}" for option, why in left]
        dropped += gone
        models = fitted.get("models")
        units.append((unit, e, changed, [f"{display(o)} — {why}" for o, why in left]))
        mapping.append(f"{shown} → {ident}" + (f" x {count}" if count > 1 else "")
                       + (f" ({_plural(models, 'model')})" if models else "")
                       + (f"; options kept: {', '.join(map(display, kept))}" if kept else ""))
    if not units:
        raise InputFileError(label, f"none of its {len(parsed.entries)} entries names a bundled "
                             f"{parsed.game} {parsed.ruleset} profile ({'; '.join(unknown[:3])})", None,
                             "check ‹game›/‹ruleset›, or add aliases = [...] to the profiles")
    per_copy = game.import_points_per_copy
    total = sum((e.points or 0) * (e.count if per_copy else 1) for _, e, _, _ in units)
    changes: list[str] = []  # the list's own; the units' are added after pricing
    name = parsed.name
    if len(name) > NAME_LIMIT:
        changes.append(f"the list's name cut to {NAME_LIMIT} characters (from {len(name):,})")
        name = name[:NAME_LIMIT]
    points_bounds = points_range()
    limit = _fit(parsed.points_limit, points_bounds, "points limit", changes) if parsed.points_limit else None
    data = {"name": name, "game": parsed.game, "ruleset": parsed.ruleset,
            "points": points_bounds[1], "units": [unit for unit, _, _, _ in units]}
    try:
        points = load_list(data, source=f"{label} (imported)").total_points  # priced by the profiles
    except RulesError as err:
        if not str(err.where).endswith(": points"):
            raise
        raise InputFileError(label, f"converts to a list of {err.got:,} points by the bundled "
                             f"profiles, above the {points_bounds[1]:,} a list file holds", None,
                             "import one army list (fewer or smaller units)") from None
    # the export's limit, or that price when higher (a list of warcasters alone costs 0)
    data["points"] = max(limit or 0, points, points_bounds[0])
    if limit and points > limit:
        changes.append(f"points limit {limit} → {points} (the list's price by the bundled "
                       "profiles)")
    text = _list_text(parsed, data, units, lines, total, label, changes)
    changes += [change for _, _, changed, _ in units for change in changed]
    _check_loads(text, label)
    n, k = len(parsed.entries), len(units)
    coverage = (f"kept {k} of {_plural(n, 'entry')} and {options_kept} of "
                f"{_plural(options_total, 'option')}"
                + (f"; dropped: {_dropped_note(dropped)}" if dropped else "; nothing dropped"))
    headline = (f"Converted the export to the {parsed.game} {parsed.ruleset} list "
                f"'{display(name)}' ({points} points by the bundled profiles): {coverage}"
                + _changes_note(changes))
    report = Report("import", "exact",
                    {"entries": Estimate.count(n), "entries_converted": Estimate.count(k),
                     "entries_unknown": Estimate.count(n - k),
                     "options": Estimate.count(options_total),
                     "options_kept": Estimate.count(options_kept),
                     "options_dropped": Estimate.count(options_total - options_kept),
                     "numbers_changed": Estimate.count(len(changes))},
                    info={"format": parsed.source_format, "game": parsed.game, "ruleset": parsed.ruleset,
                          "coverage": coverage.split("; dropped:")[0],
                          "mapping": mapping, "unknown": unknown or ["none"],
                          "dropped": dropped or ["none"],
                          "changed": changes or ["none"],
                          "points_printed": total, "points_by_profiles": points, "list": text},
                    title=f"import: {display(label, 200)} ({parsed.source_format})", headline=headline)
    return report, text


def _plural(n: int, noun: str) -> str:
    return f"{n:,} " + (noun if n == 1 else noun[:-1] + "ies" if noun.endswith("y") else noun + "s")


def _dropped_note(dropped: list[str]) -> str:
    """The coverage line's part on what was left out: each with why (the first ten)."""
    named = "; ".join(dropped[:CHANGES_SHOWN])
    more = (f"; and {len(dropped) - CHANGES_SHOWN} more (see the comments in the list file)"
            if len(dropped) > CHANGES_SHOWN else "")
    return named + more


def _changes_note(changes: list[str]) -> str:
    """The coverage line's part on changed numbers: each with its old and new value."""
    if not changes:
        return ""
    named = "; ".join(changes[:CHANGES_SHOWN])
    more = (f"; and {len(changes) - CHANGES_SHOWN} more (see the comments in the list file)"
            if len(changes) > CHANGES_SHOWN else "")
    return f"; {len(changes)} changed to fit the list file: {named}{more}"


def _check_loads(text: str, label: str) -> None:
    """The list file as written must load; if it ever did not, say so instead of writing it."""
    import tomllib

    try:
        load_list(tomllib.loads(text), source=f"{label} (imported)")
    except (tomllib.TOMLDecodeError, MathhammerError) as err:
        reason = err.one_line() if isinstance(err, MathhammerError) else str(err)
        raise InputFileError(label, f"converts to a list file that does not load back ({reason})",
                             None, "report this with the export attached (a bug in the importer)"
                             ) from None


def _toml_str(text: str) -> str:
    """A TOML basic string: quotes and backslashes escaped, and every character a terminal
    or a TOML reader would choke on (controls, DEL, C1, bidi overrides) as ``\\uXXXX``."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            code = ord(ch)
            code = 0xFFFD if 0xD800 <= code <= 0xDFFF else code  # a lone surrogate has no escape
            out.append(f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def _comment(text: str) -> str:
    """A TOML comment: one line, control characters shown as escapes (TOML allows none)."""
    return "# " + printable(" ".join(text.split())[:200])


def _list_text(parsed: ParsedList, data: dict, units: list[tuple[dict, Entry, list[str], list[str]]],
               unknown_lines, total, label, list_changes: list[str]) -> str:
    out = [_comment(f"Imported by `mathhammer import` from {Path(label).name} ({parsed.source_format})."),
           f"# Points printed in the export: {total}"
           + (f" of {parsed.points_limit}" if parsed.points_limit else "") + "."]
    out += games.get(parsed.game).import_notes
    out += [_comment(f"Changed to fit the list file: {change}") for change in list_changes]
    out += unknown_lines
    out += [f"{key} = {_toml_str(data[key])}" for key in ("name", "game", "ruleset")]
    out.append(f"points = {data['points']}")
    for unit, e, changed, left in units:
        out.append("")
        out.append("[[units]]  " + _comment(e.line.strip()[:100]) if e.line.strip() else "[[units]]")
        out += [_comment(f"changed: {change}") for change in changed]
        out += [_comment(f"dropped: {option}") for option in left]
        for key, value in unit.items():
            out.append(f"{key} = {_toml_str(value) if isinstance(value, str) else str(value).lower()}")
    return "\n".join(out) + "\n"
