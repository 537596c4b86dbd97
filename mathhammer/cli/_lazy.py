"""Start-up at the floor (issue 29 part 1): commands load when they run, values parse light.

The root group knows each command by a :class:`Entry` (name, where it lives, its one-line
help) and imports a command's module only when that command runs, or when something asks
for the command itself (the web's form builder walks the whole tree and so loads it all).
``mathhammer --help`` lists the table's lines; ``tests/test_cli_startup.py`` holds the table
to the real commands, and every ``--help`` to what the eagerly built tree prints.

Typer (0.2x) coerces every option value through a pydantic ``TypeAdapter``: importing
pydantic and building the adapters cost more than the rest of an exact query. The plain
types our commands use (str, int, float, bool, Path, lists of them) are parsed here
instead, to the value pydantic gives; anything else, and every value this parser is not
sure of, goes to Typer's own coercion, so its results and its error messages stand.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup


@dataclass(frozen=True)
class Entry:
    """One command or group of a lazy group: ``target`` is ``module:attribute``.

    ``also`` names modules that add commands to the group when imported (``fb combat``
    lives in ``cli/fb_combat.py`` and registers itself on ``fb``'s app). ``help`` is the
    first paragraph of the command's help, as ``--help`` lists it.
    """

    name: str
    target: str
    help: str
    group: bool = False
    also: tuple[str, ...] = ()

    def load(self) -> Any:
        module_name, attribute = self.target.split(":")
        module = importlib.import_module(module_name)
        for extra in self.also:
            importlib.import_module(extra)
        return getattr(module, attribute)


class _Listed:
    """What ``--help`` needs of a command not loaded: its name and one line of help."""

    hidden = False
    deprecated = False

    def __init__(self, entry: Entry) -> None:
        self.name, self.help, self.short_help = entry.name, entry.help, None

    def get_short_help_str(self, limit: int = 45) -> str:
        from typer._click.utils import make_default_short_help

        return make_default_short_help(self.help, limit).strip()


class LazyCommands(MutableMapping):
    """The commands of a group by name, in order; a lazy one is built on first access."""

    def __init__(self, loaded: dict, entries: tuple[Entry, ...], build: Callable[[Entry], Any]):
        self._entries = {entry.name: entry for entry in entries}
        self._order = list(loaded) + [name for name in self._entries if name not in loaded]
        self._loaded = dict(loaded)
        self._build = build

    def is_loaded(self, name: str) -> bool:
        return name in self._loaded

    def listed(self, name: str) -> _Listed:
        return _Listed(self._entries[name])

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded:
            if name not in self._entries:
                raise KeyError(name)
            self._loaded[name] = self._build(self._entries[name])
        return self._loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self._loaded and name not in self._entries:
            self._order.append(name)
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._loaded and name not in self._entries:
            raise KeyError(name)
        self._loaded.pop(name, None)
        self._entries.pop(name, None)
        self._order.remove(name)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, name: object) -> bool:
        return name in self._loaded or name in self._entries


class LazyGroup(TyperGroup):
    """A Typer group whose commands in :attr:`entries` load on first use.

    ``settings`` are the keyword arguments of the ``typer.Typer`` this group belongs to:
    a lazy command is built by a Typer with the same settings, so it is the command an
    eager ``app.command(name)`` / ``app.add_typer(sub, name=name)`` would have made.
    """

    entries: tuple[Entry, ...] = ()
    settings: dict = {}

    def __init__(self, *, commands=None, **attrs: Any) -> None:
        super().__init__(commands=None, **attrs)
        self.commands = LazyCommands(dict(commands or {}), self.entries, self._build)
        self._listing = False
        install_light_parsing(self)

    def _build(self, entry: Entry) -> Any:
        import typer.main

        target = entry.load()
        holder = typer.Typer(**self.settings)
        if not entry.group:
            holder.command(entry.name)(target)
            command = typer.main.get_group(holder).commands[entry.name]
            install_light_parsing(command)
            return command
        lazy = _lazy_subgroup(holder, target, entry.name)
        if lazy is not None:
            return lazy
        holder.add_typer(target, name=entry.name)
        command = typer.main.get_group(holder).commands[entry.name]
        install_light_parsing(command)
        return command

    def list_commands(self, ctx) -> list[str]:
        return list(self.commands)  # the names only: listing loads nothing

    def get_command(self, ctx, cmd_name: str):
        if self._listing and cmd_name in self.commands and not self.commands.is_loaded(cmd_name):
            return self.commands.listed(cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx, formatter) -> None:
        self._listing = True  # the list needs each command's one line, not the command
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False


def _lazy_subgroup(holder, sub, name: str):
    """The group ``sub`` as ``holder.add_typer(sub, name=name)`` makes it, each of its
    commands built on first use (``wm attack`` builds no ``wm duel``); None when ``sub``
    has groups of its own, or this Typer keeps its commands some other way."""
    import copy

    import typer.main

    try:
        infos = list(sub.registered_commands)
        if sub.registered_groups:
            return None
        shell = copy.copy(sub)  # the group itself: its help, callback and settings
        shell.registered_commands, shell.registered_groups = [], []
        build = typer.main.get_command_from_info
        names = [info.name or typer.main.get_command_name(info.callback.__name__)
                 for info in infos]
    except (AttributeError, TypeError):
        return None
    holder.add_typer(shell, name=name)
    group = typer.main.get_group(holder).commands[name]
    by_name = dict(zip(names, infos))

    def make(entry: Entry):
        command = build(by_name[entry.name], pretty_exceptions_short=holder.pretty_exceptions_short,
                        rich_markup_mode=holder.rich_markup_mode)
        install_light_parsing(command)
        return command

    # no one-line helps to list here: ``mathhammer wm --help`` builds the group's commands
    entries = tuple(Entry(n, "", "") for n in names)
    group.commands = LazyCommands(dict(group.commands), entries, make)
    install_light_parsing(group)
    return group


# --------------------------------------------------------------------------- light parsing

#: the strings parsed here: plain decimal numbers (pydantic reads these as Python does;
#: signs with spaces, underscores, "inf", 4,300-digit numbers ... go to pydantic)
_INT = re.compile(r"[+-]?(?:0|[1-9][0-9]{0,17})")
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,2})?")


class _Unsure(Exception):
    """This value is left to Typer's own coercion (pydantic)."""


def _plain(kind: type, pattern: re.Pattern) -> Callable[[Any], Any]:
    """A reader of ``kind``: a value of it as it is, a string ``pattern`` reads in full."""
    def read(value: Any) -> Any:
        if type(value) is kind:
            return value
        if type(value) is str and pattern.fullmatch(value):
            return kind(value)
        raise _Unsure
    return read


_to_int = _plain(int, _INT)
_to_float = _plain(float, _FLOAT)


def _to_str(value: Any) -> str:
    if type(value) is str:
        return value
    raise _Unsure


def _to_bool(value: Any) -> bool:
    if type(value) is bool:
        return value
    raise _Unsure


_SCALARS: dict[type, Callable[[Any], Any]] = {int: _to_int, float: _to_float, str: _to_str,
                                               bool: _to_bool}


def _path_parser(parameter_info) -> Callable[..., Any] | None:
    """Typer's own path checks on a ``Path`` we made (no pydantic needed for that)."""
    try:
        from typer._param_types import coerce_cli_path
    except ImportError:
        return None
    if parameter_info.path_type is not None:
        return None

    def to_path(value: Any, param=None, ctx=None) -> Any:
        if type(value) is str and value and "\x00" not in value:
            value = Path(value)
        elif not isinstance(value, Path):
            raise _Unsure
        try:
            return coerce_cli_path(value, parameter_info, path_type=Path, param=param, ctx=ctx)
        except Exception:  # a failed check: Typer words it from the text typed
            raise _Unsure from None

    return to_path


def _parser_for(descriptor) -> Callable[..., Any] | None:
    """How to parse a parameter's values here, or None to leave it to Typer."""
    from typing import get_args, get_origin

    info = descriptor.parameter_info
    if info.parser is not None or descriptor.file_annotation is not None:
        return None
    if getattr(info, "min", None) is not None or getattr(info, "max", None) is not None:
        return None
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        each = _parser_for(type(descriptor)(annotation=item, parameter_info=info,
                                            file_annotation=None))
        if each is None:
            return None

        def to_list(value: Any, param=None, ctx=None) -> list:
            if not isinstance(value, (list, tuple)):
                raise _Unsure
            return [each(item, param, ctx) for item in value]

        return to_list
    if annotation is Path:
        return _path_parser(info)
    if annotation in _SCALARS and not getattr(info, "path_type", None) \
            and not getattr(info, "resolve_path", False) and not getattr(info, "allow_dash", False):
        scalar = _SCALARS[annotation]
        return lambda value, param=None, ctx=None: scalar(value)
    return None


_LIGHT: list = []


def _light_class():
    """Typer's runtime parameter, parsing plain values here and the rest Typer's way."""
    if not _LIGHT:
        from dataclasses import dataclass as frozen_dataclass

        from typer._coercion import RuntimeParam, build_runtime_param

        @frozen_dataclass(frozen=True)
        class Light(RuntimeParam):
            parse: Callable[..., Any] = None
            descriptor: Any = None

            def _coerce_value(self, value, param, ctx):
                try:
                    return self.parse(value, param, ctx)
                except _Unsure:  # Typer's own coercion: its result, or its error message
                    typer_way = build_runtime_param(self.descriptor)
                    return typer_way._coerce_value(value, param=param, ctx=ctx)

        _LIGHT.append(Light)
    return _LIGHT[0]


def _light_runtime_param(descriptor):
    try:
        light = _light_class()
    except ImportError:  # another Typer: it parses its own way
        return None
    parse = _parser_for(descriptor)
    if parse is None:
        return None
    return light(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation,
                 parse=parse, descriptor=descriptor)


def install_light_parsing(command) -> None:
    """Give every parameter of ``command`` (and of its subcommands) the light parser."""
    for param in getattr(command, "params", ()):
        _install(param)
    made = getattr(command, "get_help_option", None)
    if made is not None and not getattr(made, "_light", False):
        def get_help_option(ctx):  # Click makes --help on first use: parse it light too
            option = made(ctx)
            if option is not None:
                _install(option)
            return option

        get_help_option._light = True
        command.get_help_option = get_help_option
    subcommands = getattr(command, "commands", None)
    if subcommands is not None and not isinstance(subcommands, LazyCommands):
        for sub in subcommands.values():
            install_light_parsing(sub)


def _install(param) -> None:
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", False) is not None:
        return  # not a Typer parameter, or one already set up
    light = _light_runtime_param(descriptor)
    if light is not None:
        param._runtime_param = light


__all__ = ["Entry", "LazyGroup", "install_light_parsing", "typer"]
