"""Start-up at the floor (issue 29 part 1): lazy commands, light value parsing.

The root loads a command's module only when it runs; ``mathhammer --help`` lists the
table in ``cli/app.py``. These tests hold that table to the commands themselves, every
``--help`` to what an eagerly built app prints, the light parser to Typer's own
(pydantic) coercion, and an exact query to importing neither pydantic nor numba.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main

import mathhammer.cli as cli_package
from mathhammer.cli import app as app_module
from mathhammer.cli import main
from tests.conftest import ROOT


def _eager_app() -> typer.Typer:
    """The app as it was built before issue 29: every command registered at import."""
    eager = typer.Typer(**app_module.SETTINGS)
    eager.callback()(app_module._root)
    for entry in app_module.COMMANDS:
        target = entry.load()
        if entry.group:
            eager.add_typer(target, name=entry.name)
        else:
            eager.command(entry.name)(target)
    return eager


def _paths(command, path=()):
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from _paths(sub, (*path, name))


def _help(root, path: tuple[str, ...]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        # the same call main() makes (Typer builds the Click tree anew on every call)
        code = root.main(args=[*path, "--help"], prog_name="mathhammer", standalone_mode=False)
        raise SystemExit(code)
    return out.getvalue()


def _lazy_help(path: tuple[str, ...]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([*path, "--help"])
    return out.getvalue()


def test_every_help_is_the_eager_apps(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    eager = typer.main.get_command(_eager_app())
    paths = list(_paths(eager))
    assert len(paths) > 30
    for path in paths:
        assert _lazy_help(path) == _help(eager, path), " ".join(path)


@pytest.mark.parametrize("width", [40, 70, 120, 250])
def test_root_help_lists_the_commands_as_they_describe_themselves(monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    eager = typer.main.get_command(_eager_app())
    assert _lazy_help(()) == _help(eager, ())


def test_the_table_is_the_commands():
    root = typer.main.get_command(app_module.app)
    assert [e.name for e in app_module.COMMANDS] == list(root.commands)
    for entry in app_module.COMMANDS:
        command = root.commands[entry.name]  # loads it
        first = " ".join((command.help or "").split("\n\n")[0].split())
        assert entry.help == first, f"COMMANDS[{entry.name!r}].help: use {first!r}"
        assert not command.short_help and not command.hidden and not command.deprecated


def test_every_command_function_is_reachable():
    """A ``*_command`` function in a CLI module is on the command line (none forgotten
    by the table)."""
    for info in pkgutil.iter_modules(cli_package.__path__):
        importlib.import_module(f"mathhammer.cli.{info.name}")
    defined = {
        (obj.__module__, obj.__name__)
        for name, module in list(sys.modules.items())
        if name.startswith("mathhammer.cli.") and not name.rsplit(".", 1)[1].startswith("_")
        for obj in vars(module).values()
        if inspect.isfunction(obj) and obj.__name__.endswith("_command")
        and obj.__module__ == name
    }

    reachable = set()
    root = typer.main.get_command(app_module.app)
    for path in _paths(root):
        command = root
        for word in path:
            command = command.commands[word]
        callback = inspect.unwrap(getattr(command, "callback", None) or (lambda: None))
        reachable.add((callback.__module__, callback.__name__))
    missing = defined - reachable
    assert not missing, f"not on the command line: {sorted(missing)}"


# ------------------------------------------------------------------ light value parsing

_TEXTS = ["0", "7", "-3", "+4", "007", "1_000", " 5", "5 ", "1.5", "1.0", "-0.25", ".5", "5.",
          "1e3", "2E-2", "1e400", "inf", "nan", "-inf", "", "abc", "0x10", "१२", "12" * 10,
          "9" * 19, "3.14159", "1e-5", "+.5e+3", "some/file.toml", "-", "~/x"]


def _typer_way(param, value):
    from typer._coercion import build_runtime_param

    try:
        return "ok", build_runtime_param(param.type_descriptor).coerce(value, param=param, ctx=None)
    except Exception as err:  # noqa: BLE001 - the message is what is compared
        return "error", str(getattr(err, "message", err))


def _light_way(param, value):
    try:
        return "ok", param.get_runtime_param().coerce(value, param=param, ctx=None)
    except Exception as err:  # noqa: BLE001
        return "error", str(getattr(err, "message", err))


def test_light_parsing_gives_what_typer_gives():
    pytest.importorskip("typer._coercion")
    root = typer.main.get_command(app_module.app)
    seen = {}
    for path in _paths(root):
        command = root
        for word in path:
            command = command.commands[word]
        for param in getattr(command, "params", ()):
            descriptor = getattr(param, "type_descriptor", None)
            if descriptor is not None:
                seen.setdefault((repr(descriptor.annotation), param.multiple, param.nargs), param)
    kinds = {key[0] for key in seen}
    assert {"<class 'int'>", "<class 'float'>", "<class 'str'>", "<class 'pathlib.Path'>",
            "list[str]"} <= kinds
    for param in seen.values():
        assert type(param.get_runtime_param()).__name__ == "Light", param.name
        many = param.multiple or param.nargs == -1
        values = [tuple(_TEXTS[i:i + 3]) for i in range(0, len(_TEXTS), 3)] if many else _TEXTS
        defaults = [] if many else [0, 3, 2.5, True, None]
        for value in [*values, *defaults]:
            light, typer_way = _light_way(param, value), _typer_way(param, value)
            assert repr(light) == repr(typer_way), (param.name, value)  # nan: by repr
            if light[0] == "ok":
                assert type(light[1]) is type(typer_way[1]), (param.name, value)


# ------------------------------------------------------------------ what a query imports

_PROBE = """
import json, sys, io, contextlib
from mathhammer.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main(sys.argv[1:])
    except SystemExit as done:
        code = done.code
print(json.dumps({"code": code, "modules": sorted(sys.modules), "out": out.getvalue()}))
"""


def _imports(*argv: str) -> tuple[set[str], str]:
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["code"] in (0, None), got
    return set(got["modules"]), got["out"]


def test_an_exact_query_imports_no_pydantic_numba_or_other_commands():
    modules, out = _imports("wm", "attack", "--stat", "6", "--defense", "13", "--power", "12",
                            "--armor", "18", "--method", "exact", "--quiet", "--brief")
    assert "(exact)" in out
    heavy = {m.split(".")[0] for m in modules} & {"pydantic", "numba", "llvmlite", "pandas",
                                                   "matplotlib", "starlette", "scipy", "rich"}
    assert heavy == set()
    assert "importlib.metadata" not in modules
    others = {m for m in modules if m.startswith("mathhammer.cli.")} - {
        "mathhammer.cli._common", "mathhammer.cli._interrupt", "mathhammer.cli._lazy",
        "mathhammer.cli.app", "mathhammer.cli.wm", "mathhammer.cli.wm_battle"}
    assert others == set()


def test_help_loads_no_command_module():
    modules, out = _imports("--help")
    assert "Usage: mathhammer" in out
    loaded = {m for m in modules if m.startswith("mathhammer.cli.")}
    assert loaded <= {"mathhammer.cli._interrupt", "mathhammer.cli._lazy", "mathhammer.cli.app"}


def test_kernels_package_alone_leaves_numba_settings_alone(tmp_path):
    """Importing mathhammer.kernels (an exact query does) chooses no cache folder; numba's
    first import does, and sees it."""
    code = ("import os, sys, mathhammer.kernels as k\n"
            "before = os.environ.get('NUMBA_CACHE_DIR')\n"
            "import numba.core.config as c\n"
            "print(before, os.environ['NUMBA_CACHE_DIR'] == c.CACHE_DIR)")
    env = {k: v for k, v in __import__("os").environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["None", "True"]
    assert any(Path(tmp_path, "mathhammer").glob("numba-*"))
