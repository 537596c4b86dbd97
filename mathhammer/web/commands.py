"""The CLI's own command tree, read for the web: forms, argv, canonical links.

Nothing here is written per command. Every query command of the Typer app (those
marked as query commands: they take the shared query options) becomes a :class:`Command`
whose parameters keep the CLI's names, types, defaults and help. A web query (a
multi-dict of strings) is turned back into the argv the CLI would get, so the CLI's
own parser validates it and its error text is the answer to a bad value; the
canonical link and the "copy CLI command" line are written from the same parameters.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

#: shared options the server sets itself (output paths, the process's threads, help):
#: a query naming one gets a one-line refusal
SERVER_OWNED = frozenset({"format", "plot", "output", "quiet", "threads", "workers",
                          "scheduler", "help"})
#: shared options that change only the printed text: accepted, not shown on a form
TEXT_ONLY = frozenset({"brief", "full"})
#: the engine options every query command shares, shown together at the end of a form
ENGINE_OPTIONS = ("method", "n-trials", "seed", "precision", "check", "explain")
#: the fields a form shows before "more options": every required parameter, then the
#: command's first options in the order its --help lists them, up to this many fields
QUESTION_FIELDS = 4
TRUE_WORDS = frozenset({"1", "on", "true", "yes"})
FALSE_WORDS = frozenset({"0", "off", "false", "no"})
#: what a query's chosen values hold for a parameter given as an uploaded file
UPLOADED = "(uploaded)"


@dataclass(frozen=True)
class Param:
    """One CLI parameter as the web shows and sends it."""

    key: str  # the query-string key: an option's long flag without "--", an argument's name
    flag: str  # "--focus" or "" for a positional argument
    kind: str  # "int", "float", "str", "path" or "flag"
    required: bool
    default: Any
    multiple: bool
    help: str
    positional: bool
    reads_file: bool = False  # text the CLI also reads as a file (query_command(files=...))

    @property
    def takes_file(self) -> bool:
        """A file parameter, or text the command marks as also naming a file (a profile id or
        a unit file, a ruleset name or a ruleset file): the web takes an upload for it."""
        return self.kind == "path" or self.reads_file

    @property
    def label(self) -> str:
        return self.flag or self.key.upper()

    def default_text(self) -> str:
        if self.default is None or self.kind == "flag" or self.multiple:
            return ""
        return str(self.default)


@dataclass(frozen=True)
class Command:
    """A query command: its path in the tree, its help and its parameters."""

    path: tuple[str, ...]  # ("wm", "duel")
    summary: str
    help: str
    params: tuple[Param, ...]
    shared: frozenset[str] = field(default_factory=frozenset)  # the common options it has
    ask: frozenset[str] = field(default_factory=frozenset)  # options a question needs (query_command)

    @property
    def name(self) -> str:
        return " ".join(self.path)

    @property
    def slug(self) -> str:
        return "/".join(self.path)

    def param(self, key: str) -> Param | None:
        """The parameter named ``key`` (``_`` and ``-`` alike), server-owned ones included."""
        key = key.replace("_", "-")
        for p in self.params:
            if p.key.replace("_", "-") == key:
                return p
        return None

    def web_param(self, key: str) -> Param | None:
        """The parameter a web query may set under ``key``, or None.

        Strict: ``key`` is a parameter's name exactly (``boost-hit`` or ``boost_hit``), not a
        flag, not ``name=value``, nothing added; the options the server owns never match.
        """
        param = self.param(key) if _KEY.fullmatch(key) else None
        return None if param is None or param.key in SERVER_OWNED else param

    @property
    def web_params(self) -> tuple[Param, ...]:
        """The allow-list: every parameter a web query may set (CLI names, no server options)."""
        return tuple(p for p in self.params if p.key not in SERVER_OWNED)

    @property
    def own_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.key not in SERVER_OWNED
                     and p.key not in TEXT_ONLY and p.key not in ENGINE_OPTIONS)

    @property
    def question_params(self) -> tuple[Param, ...]:
        """The few fields a question needs (shown first; the rest fold under "more options").

        Read from the command tree, not listed per command: the arguments, the required
        options and those the command marks as needed although its parser cannot require
        them (``query_command(ask=...)``: ``fb attack --attacks`` unless ``--for-p``), then
        the leading options in the command line's own order (the order of ``--help``)
        until :data:`QUESTION_FIELDS` fields besides the marked ones.
        """
        own = _unique(self.own_params)
        marked = [p for p in own if p.key.replace("-", "_") in self.ask]
        needed = [p for p in own if (p.required or p.positional) and p not in marked]
        leading = [p for p in own if p not in needed][:max(0, QUESTION_FIELDS - len(needed))]
        leading = [p for p in leading if p not in marked]
        return tuple(p for p in own if p in needed or p in leading or p in marked)

    @property
    def more_params(self) -> tuple[Param, ...]:
        """The command's other own parameters (folded under "more options")."""
        question = self.question_params
        return tuple(p for p in _unique(self.own_params) if p not in question)

    @property
    def engine_params(self) -> tuple[Param, ...]:
        return tuple(p for key in ENGINE_OPTIONS if (p := self.param(key)) is not None)

    @property
    def has_mc(self) -> bool:
        return "seed" in self.shared

    @property
    def takes_files(self) -> bool:
        return any(p.takes_file for p in self.own_params)


def _unique(params: Iterable[Param]) -> list[Param]:
    """One field per query key: an option spelling an argument's name again (``fb artillery
    WEAPON TARGET`` and ``--target``) sets the same value on the web."""
    seen: set[str] = set()
    return [p for p in params if not (p.key in seen or seen.add(p.key))]


def _kind(param) -> str:
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if getattr(param, "is_flag", False):
        return "flag"
    if isinstance(annotation, type) and issubclass(annotation, Path):
        return "path"
    return {int: "int", float: "float"}.get(annotation, "str")


def _is_query(callback) -> tuple[bool, frozenset[str], frozenset[str], frozenset[str]]:
    """(is a query command, the shared options it takes, the options a question needs, the
    text parameters that read files), from @query_command's mark."""
    seen = set()
    while callback is not None and id(callback) not in seen:
        seen.add(id(callback))
        marked = getattr(callback, "query_options", None)
        if marked is not None:
            return (True, frozenset(name.replace("_", "-") for name in marked),
                    frozenset(getattr(callback, "query_ask", ())),
                    frozenset(getattr(callback, "query_files", ())))
        callback = getattr(callback, "__wrapped__", None)
    return False, frozenset(), frozenset(), frozenset()


def _params(command, files: frozenset[str] = frozenset()) -> tuple[Param, ...]:
    out = []
    for p in command.params:
        if getattr(p, "hidden", False) or not getattr(p, "expose_value", True):
            continue
        positional = not p.opts or not p.opts[0].startswith("-")
        longs = [o for o in p.opts if o.startswith("--")]
        flag = "" if positional else (longs[0] if longs else p.opts[0])
        out.append(Param(
            key=p.name if positional else flag.lstrip("-"), flag=flag, kind=_kind(p),
            required=bool(p.required), default=p.default,
            multiple=bool(p.multiple) or getattr(p, "nargs", 1) == -1,  # ATTACKERS... of wm plan
            help=" ".join((getattr(p, "help", None) or "").split()), positional=positional,
            reads_file=p.name in files))
    return tuple(out)


def walk(group, path: tuple[str, ...] = ()) -> Iterable[tuple[tuple[str, ...], Any]]:
    """(path, click command) of every leaf of a Click group, in the group's order."""
    for name, command in getattr(group, "commands", {}).items():
        if getattr(command, "hidden", False):
            continue
        if hasattr(command, "commands"):
            yield from walk(command, (*path, name))
        else:
            yield (*path, name), command


@cache
def click_root():
    """The Click command tree of ``mathhammer`` (built once; Typer builds it per call)."""
    import typer

    from mathhammer.cli.app import app

    return typer.main.get_command(app)


@cache
def query_commands() -> tuple[Command, ...]:
    commands = []
    for path, command in walk(click_root()):
        is_query, shared, ask, files = _is_query(command.callback)
        if not is_query:
            continue
        text = (command.help or "").strip()
        summary = text.split("\n\n")[0].replace("\n", " ").strip()
        commands.append(Command(path=path, summary=summary, help=text,
                                params=_params(command, files), shared=shared, ask=ask))
    return tuple(commands)


def find(slug: str) -> Command | None:
    for command in query_commands():
        if command.slug == slug.strip("/"):
            return command
    return None


# --------------------------------------------------------------------------- query → argv


class QueryRefused(Exception):
    """A web query the server will not run (not the CLI's call): one line, a 4xx status."""

    def __init__(self, line: str, status: int = 400) -> None:
        super().__init__(line)
        self.line, self.status = line, status


#: a query key: a parameter's name, lower case words joined by "-" or "_" (nothing else)
_KEY = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
#: the longest value one parameter takes on the web (a query is at most 8 kB anyway)
MAX_VALUE = 2000
#: the most values a repeated parameter (--then, --model, ATTACKERS...) takes on the web
MAX_VALUES = 64

_PATHLIKE = re.compile(r"(^[/~])|\\|\x00|(^|/)\.\.(/|$)|\.toml\s*$", re.IGNORECASE)


def _values(query: Mapping[str, Sequence[str]], key: str, param: Param) -> list[str]:
    """The non-empty values of ``key``; a multiple option's text area gives one per line."""
    out = []
    for value in query.get(key, ()):
        parts = value.splitlines() if param.multiple else [value]
        out.extend(part.strip() for part in parts if part.strip())
    return out


def normalise(command: Command, query: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """{key: values} of the parameters the query sets, in the command's order.

    Every key must name one of the command's web parameters exactly (the allow-list,
    :meth:`Command.web_param`); anything else — an unknown name, a server option such as
    ``output``, a key carrying ``=`` or ``--`` — is refused before any work. Empty fields
    and defaults are dropped (a form sends every field).
    """
    known: dict[str, list[str]] = {}
    for key in query:
        param = command.web_param(key)
        if param is None:
            raise _refuse_key(command, key)
        values = _values(query, key, param)
        for value in values:
            if len(value) > MAX_VALUE:
                raise QueryRefused(f"{param.label}: {len(value):,} characters is above this "
                                   f"server's limit of {MAX_VALUE:,} for one value (got "
                                   f"{_shown(value)}); fix: a shorter value, or upload a file")
        if param.kind == "flag":
            values = [v for v in values if v.lower() not in FALSE_WORDS]
            for value in values[-1:]:
                if value.lower() not in TRUE_WORDS:
                    raise QueryRefused(f"{param.label}: is a switch: 1 or 0 (got "
                                       f"{_shown(value)}); fix: {param.key}=1")
        elif not param.multiple and values and values[-1] == param.default_text():
            values = []
        if param.multiple and len(values) > MAX_VALUES:
            raise QueryRefused(f"{param.label}: {len(values):,} values is above this server's "
                               f"limit of {MAX_VALUES}; fix: fewer values, or the command line")
        if values:
            known.setdefault(param.key, []).extend(values)
    return {p.key: known[p.key] for p in command.params if p.key in known}


def _refuse_key(command: Command, key: str) -> QueryRefused:
    """The one line for a query key that is not one of the command's web parameters."""
    import difflib

    name = key.split("=", 1)[0].strip().lstrip("-").replace("_", "-").lower()
    if name in SERVER_OWNED:
        return QueryRefused(f"{_shown(key)}: is set by the web server, not by a query; fix: "
                            "drop it from the link")
    close = difflib.get_close_matches(name, [p.key for p in command.web_params], n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return QueryRefused(f"{_shown(key)}: is not a parameter of {command.name}; fix: {hint}"
                        f"the parameters are listed at /api/commands")


def _shown(text: str, limit: int = 60) -> str:
    """``text`` for an error line: control characters escaped, long text cut."""
    text = printable(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def printable(text: str) -> str:
    """``text`` with control and format characters written as escapes (\\x1b, \\u202e):
    a value shown back on a page or a terminal cannot move the cursor or recolour it."""
    import unicodedata

    return "".join(ch if ch == " " or unicodedata.category(ch)[0] not in "CZ"
                   else ch.encode("unicode_escape").decode("ascii") for ch in text)


def check_not_paths(command: Command, chosen: Mapping[str, list[str]],
                    uploads: Mapping[str, str]) -> None:
    """Refuse text that names a file on the server: the web reads bundled data or uploads."""
    for key, values in chosen.items():
        param = command.param(key)
        if key in uploads or param is None or param.kind == "path":
            continue  # uploads are the server's own files; path params map bundled ids
        for value in values:
            if param.kind == "str" and _PATHLIKE.search(value):
                raise QueryRefused(
                    f"{param.label}: the web server reads bundled data or uploaded files, "
                    f"not paths (got {value[:80]}); fix: use a bundled name (see /api/files) "
                    f"or upload the file as {key}")


def to_argv(command: Command, chosen: Mapping[str, list[str]], *,
            resolve_path=None, server: Sequence[str] = ()) -> list[str]:
    """The argv the CLI gets for ``chosen``: options first, then ``--`` and the arguments.

    ``resolve_path(param, value)`` maps a path parameter's bundled id (or upload) to a
    file; ``server`` is appended (the options the server sets itself).
    """
    options: list[str] = []
    arguments: list[str] = []
    for key, values in chosen.items():
        param = command.web_param(key)
        if param is None:  # normalise refuses these; never pass one on to the CLI
            raise QueryRefused(f"{_shown(key)}: is not a parameter of {command.name} on the web")
        if param.kind == "path" and resolve_path is not None:
            values = [resolve_path(param, v) for v in values]
        if param.positional:
            arguments.extend(values if param.multiple else values[-1:])
        elif param.kind == "flag":
            for v in values[-1:]:
                options.append(param.flag if v.lower() in TRUE_WORDS else f"{param.flag}={v}")
        else:
            picked = values if param.multiple else values[-1:]
            options.extend(f"{param.flag}={v}" for v in picked)
    return [*command.path, *options, *server, "--", *arguments]


def canonical_query(command: Command, chosen: Mapping[str, list[str]]) -> list[tuple[str, str]]:
    """The (key, value) pairs of a link that reproduces the query (flags as ``1``)."""
    pairs: list[tuple[str, str]] = []
    for key, values in chosen.items():
        param = command.param(key)
        if param is not None and param.kind == "flag":
            pairs.append((key, "1" if values[-1].lower() in TRUE_WORDS else values[-1]))
        elif param is not None and not param.multiple:
            pairs.append((key, values[-1]))
        else:
            pairs.extend((key, v) for v in values)
    return pairs


def cli_line(command: Command, chosen: Mapping[str, list[str]], path_text=None) -> str:
    """The equivalent ``mathhammer …`` command line, quoted for a POSIX shell.

    Built from the allow-listed parameters only: a server option never appears in it.
    """
    words = ["mathhammer", *command.path]
    arguments: list[str] = []
    for key, values in chosen.items():
        param = command.web_param(key)
        if param is None:
            continue
        if path_text is not None and param.takes_file:  # a text parameter's upload too
            values = [path_text(param, v) if param.kind == "path" or v == UPLOADED else v
                      for v in values]
        if param.positional:
            arguments.extend(values if param.multiple else values[-1:])
        elif param.kind == "flag":
            words.append(param.flag)
        else:
            for v in (values if param.multiple else values[-1:]):
                words.extend((param.flag, v))
    if any(a.startswith("-") for a in arguments):  # "-D6" is not an option: after "--"
        words.extend(["--", *arguments])
    else:
        words[1 + len(command.path):1 + len(command.path)] = arguments
    return " ".join(shell_quote(w) for w in words)


def shell_quote(word: str) -> str:
    """``word`` quoted for a POSIX shell; a control character (an escape sequence, a line
    break) is written as $'\\x1b' so that the pasted line is what the page shows."""
    if printable(word) == word:
        return shlex.quote(word)
    inner = "".join(ch.encode("unicode_escape").decode("ascii") if printable(ch) != ch
                    else "\\'" if ch == "'" else "\\\\" if ch == "\\" else ch for ch in word)
    return f"$'{inner}'"


def argv_to_query(command: Command, argv: Sequence[str], path_id=None) -> list[tuple[str, str]]:
    """A CLI argv (after the command path) as link pairs: used for the examples."""
    pairs: list[tuple[str, str]] = []
    positional = [p for p in command.params if p.positional]
    words = list(argv)
    while words:
        word = words.pop(0)
        if word.startswith("--"):
            name, _, inline = word[2:].partition("=")
            param = command.param(name)
            if param is not None and param.kind == "flag":
                pairs.append((param.key, "1"))
                continue
            value = inline or (words.pop(0) if words else "")
            if param is not None and param.key in SERVER_OWNED:
                continue
            if param is not None and param.kind == "path" and path_id is not None:
                value = path_id(value)
            pairs.append((param.key if param else name, value))
        elif positional:
            param = positional[0] if positional[0].multiple else positional.pop(0)
            pairs.append((param.key, path_id(word) if param.kind == "path" and path_id else word))
    return pairs
