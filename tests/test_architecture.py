"""Arrows point down (DESIGN): the library never imports the CLI, the games never import
each other, and library modules form no import circles (function-level imports count)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mathhammer"

#: circles still open, each in a module another stream is rewriting right now; remove an
#: entry when its owner lands the split (the test then holds the line)
KNOWN_CIRCLES: set[frozenset[str]] = set()


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def import_graph() -> dict[str, set[str]]:
    """Module → the mathhammer modules it imports anywhere in its body."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parent + ([node.module] if node.module else []))
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    out.add(full if full in modules else base)
        graph[name] = {m for m in out if m in modules and m != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(frozenset(group))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def _library(name: str) -> bool:
    return not (name.startswith("mathhammer.cli") or name.startswith("mathhammer.web")
                or name == "mathhammer.__main__")


def test_no_library_module_imports_the_cli():
    graph = import_graph()
    bad = {m: sorted(d for d in deps if d.startswith("mathhammer.cli"))
           for m, deps in graph.items() if _library(m)}
    assert not {m: d for m, d in bad.items() if d}


def test_library_modules_form_no_import_circles():
    graph = import_graph()
    library = {m: {d for d in deps if _library(d)} for m, deps in graph.items() if _library(m)}
    found = set(circles(library))
    assert found <= KNOWN_CIRCLES, [sorted(c) for c in found - KNOWN_CIRCLES]


def test_no_two_files_import_each_other_anywhere():
    """Issue 27: the CLI, the web and the library together form no import circle."""
    assert not circles(import_graph()), [sorted(c) for c in circles(import_graph())]


def test_the_web_imports_no_private_cli_module():
    graph = import_graph()
    bad = {m: sorted(d for d in deps if d.startswith("mathhammer.cli")
                     and any(part.startswith("_") for part in d.split(".")[2:]))
           for m, deps in graph.items() if m.startswith("mathhammer.web")}
    assert not {m: d for m, d in bad.items() if d}


def test_the_circles_of_issue_15_are_broken():
    found = set(circles(import_graph()))
    for pair in ({"mathhammer.fantasy.rules.ruleset", "mathhammer.magic.rules"},
                 {"mathhammer.fantasy.combat.fight", "mathhammer.fantasy.combat.exact"},
                 {"mathhammer.warmachine.aoe", "mathhammer.warmachine.explain"},
                 {"mathhammer.warmachine.chain", "mathhammer.warmachine.explain"},
                 {"mathhammer.plots", "mathhammer.results"}):
        assert not any(pair <= c for c in found), pair


def test_games_do_not_import_each_other():
    graph = import_graph()
    games = {"warmachine": ("mathhammer.fantasy", "mathhammer.magic"),
             "fantasy": ("mathhammer.warmachine",), "magic": ("mathhammer.warmachine",)}
    bad = {}
    for m, deps in graph.items():
        game = m.split(".")[1] if m.count(".") >= 1 else ""
        if game in games:
            wrong = sorted(d for d in deps if d.startswith(games[game]))
            if wrong:
                bad[m] = wrong
    assert not bad, bad


def test_the_circle_finder_finds_circles():
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [frozenset({"a", "b"})]
