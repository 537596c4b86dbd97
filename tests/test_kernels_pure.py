"""Kernels know numbers, not models (docs/design.md, "Kernels"): every kernel module —
the shared ``kernels/`` and each game's own — imports only numpy, numba, llvmlite, the
standard library's pure modules and other kernel modules, and does no I/O."""

from __future__ import annotations

import ast

from mathhammer import kernels

ALLOWED = {"numpy", "numba", "llvmlite", "math", "os", "__future__", "hashlib", "sys",
           "tempfile", "pathlib", "importlib", "contextlib", "pickle", "warnings"}
#: the cache set-up of ``kernels/__init__.py`` reads the environment and the disk; kernels do not
CACHE_MODULE = "__init__.py"
IO_CALLS = {"open", "print", "input"}


def _imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _kernel(name: str) -> bool:
    return name.startswith("mathhammer.kernels") or (
        name.startswith("mathhammer.") and (".kernels" in name))


def test_kernel_modules_import_only_numbers():
    bad = {}
    for path in kernels.kernel_files():
        names = _imports(ast.parse(path.read_text(encoding="utf-8")))
        wrong = sorted(n for n in names if not _kernel(n) and n.split(".")[0] not in ALLOWED)
        if wrong:
            bad[str(path)] = wrong
    assert not bad, bad


def test_kernel_modules_do_no_io():
    bad = []
    for path in kernels.kernel_files():
        if path.name == CACHE_MODULE and path.parent.name == "kernels" and path.parent.parent.name == "mathhammer":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _imports(tree)
        if {"pathlib", "tempfile", "pickle"} & names:
            bad.append(f"{path}: imports file modules")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in IO_CALLS:
                bad.append(f"{path}:{node.lineno}: {node.func.id}()")
    assert not bad, bad


def test_every_game_keeps_its_kernels_beside_its_engines():
    found = {p.relative_to(p.parents[2]).as_posix() if p.parent.name == "kernels" and p.parent.parent.name != "mathhammer"
             else p.name for p in kernels.kernel_files()}
    assert {"warmachine/kernels/grid.py", "fantasy/kernels/combat.py"} <= found
    assert any(p.as_posix().endswith("magic/kernels.py") for p in kernels.kernel_files())
    assert "pydantic" not in ALLOWED
