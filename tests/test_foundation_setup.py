"""Foundation set-up promises: two commands, CI, public API, doctests, the wheel."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_readme_opens_with_exactly_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first_block = re.search(r"```(?:sh|bash|console)?\n(.*?)```", text, re.S)
    assert first_block is not None and text.index("```") < text.index("\n## ")
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()
                if line.strip() and not line.strip().startswith("#")]
    assert commands == ["make demo", "make test"]


def test_ci_runs_the_readme_test_command_and_fails_on_failure():
    script = (ROOT / ".ci" / "run").read_text()
    assert "set -e" in script and re.search(r"^make test$", script, re.M)
    assert os.access(ROOT / ".ci" / "run", os.X_OK)
    makefile = (ROOT / "Makefile").read_text()
    test_recipe = makefile.split("\ntest:")[1].split("\n\n")[0]
    assert "pytest" in test_recipe and "|| true" not in test_recipe


def test_public_api_names_resolve_lazily():
    import mathhammer as mh

    for name in mh.__all__:
        assert getattr(mh, name) is not None
    with pytest.raises(AttributeError):
        mh.no_such_name  # noqa: B018
    report = mh.roll("2D6+3", at_least=10)
    assert report.results["p_at_least"].value == 21 / 36 and report.method == "exact"


@pytest.mark.parametrize("module", ["mathhammer", "mathhammer.dice", "mathhammer.results"])
def test_doctests(module):
    import importlib

    result = doctest.testmod(importlib.import_module(module), verbose=False)
    assert result.failed == 0 and result.attempted > 0


def test_demo_starts_with_the_roll_steps():
    from mathhammer.cli.demo import DEMO_STEPS, WARMUP_ARGV

    assert DEMO_STEPS[0][1] == ["roll", "2D6+3", "--at-least", "10"]
    assert DEMO_STEPS[1][1][:2] == ["roll", "2D6+3"] and "mc" in DEMO_STEPS[1][1]
    assert WARMUP_ARGV[0][:2] == ["roll", "2D6"]


@pytest.mark.slow
def test_wheel_ships_profiles_and_the_console_script(tmp_path):
    """Build the wheel (pip fetches the build backend), then run the unpacked wheel
    from a folder far from the checkout: the bundled profiles must be found."""
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q",
                           "-w", str(tmp_path / "dist")], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    wheel = next((tmp_path / "dist").glob("mathhammer-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        entry = next(n for n in names if n.endswith("entry_points.txt"))
        assert "mathhammer = mathhammer.cli:main" in zf.read(entry).decode()
        assert any(n.startswith("mathhammer/_profiles/") and n.endswith(".toml") for n in names)
        assert "mathhammer/_docs/rules.md" in names  # `mathhammer rules` reads it
        zf.extractall(tmp_path / "site")
    code = ("import mathhammer, mathhammer.profiles as p; "
            "print(mathhammer.__file__); print(p.profiles_root()); "
            "import mathhammer.rulesdoc as r; print(r.rules_path())")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path / "site")})
    assert run.returncode == 0, run.stderr
    module_file, root, rules = run.stdout.split()
    assert rules.startswith(str(tmp_path / "site"))
    assert module_file.startswith(str(tmp_path / "site"))
    assert Path(root).is_dir() and any(Path(root).rglob("*.toml"))
