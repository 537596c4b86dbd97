"""The library speaks its own names (issue 27 part 2): no engine builds a command-line flag.

Messages name a parameter as ``‹name›``; the library shows ``name``, the command line
``--name`` (one table: :mod:`mathhammer.present.flags`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from mathhammer.errors import InputError
from mathhammer.present.flags import error_line, flag, with_flags

PACKAGE = Path(__file__).resolve().parents[1] / "mathhammer"
FLAG = re.compile(r"(?<![\w\-‹])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
#: a whole shell command quoted in a message is the command line's own words
SHELL_COMMAND = re.compile(r"`mathhammer [^`]*`")
#: the front ends, and the tour (command lines the demo runs)
FRONT_ENDS = ("cli/", "web/", "present/tour.py", "present/flags.py")


def _flag_strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant):
            docs.add(id(node.body[0].value))
    return [f"{path.name}:{n.lineno}: {n.value[:60]!r}" for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
            and FLAG.search(SHELL_COMMAND.sub("", n.value))]


def test_no_library_module_builds_a_flag_string():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if not rel.startswith(FRONT_ENDS):
            found += _flag_strings(path)
    assert not found, found


def test_the_finder_finds_flag_strings(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('"""--doc is fine"""\nx = "use --n-trials 5"\ny = "‹n_trials›"\n'
                     'z = "see `mathhammer profiles schema --game wm`"\n')
    assert len(_flag_strings(probe)) == 1


def test_a_library_error_names_the_parameter_and_the_cli_its_flag():
    err = InputError("‹n_trials›", "must be at least 1", -5, "use e.g. ‹n_trials› 1000")
    assert str(err) == "n_trials: must be at least 1 (got -5); fix: use e.g. n_trials 1000"
    assert error_line(err) == "--n-trials: must be at least 1 (got -5); fix: use e.g. --n-trials 1000"


@pytest.mark.parametrize("name, spelled", [("n_trials", "--n-trials"), ("ws", "--ws"),
                                           ("extra_hit_dice", "--extra-hit-die")])
def test_one_table_spells_the_flags(name, spelled):
    assert flag(name) == spelled and with_flags(f"a ‹{name}› b") == f"a {spelled} b"


def test_the_library_and_the_cli_give_the_same_error_in_their_own_words(capsys):
    from mathhammer.analysis.compare import compare
    from mathhammer.cli import main

    with pytest.raises(InputError) as library:
        compare("khador_battlebox", "cygnar_battlebox", method="x")
    assert str(library.value).startswith("method: must be exact, mc or auto")
    with pytest.raises(SystemExit):
        main(["compare", "khador_battlebox", "cygnar_battlebox", "--method", "x"])
    assert "--method: must be exact, mc or auto" in capsys.readouterr().err


def test_the_public_api_loads_every_name_it_lists():
    """``mathhammer.__all__`` is what a notebook uses; every name resolves (issue 27 part 2)."""
    import mathhammer as mh

    for name in mh.__all__:
        assert getattr(mh, name) is not None, name
    assert mh.wm_plan.__name__ == "plan" and mh.fb_combat.__module__ == "mathhammer.fantasy.combat.fight"


def test_the_notebooks_use_only_the_public_api():
    builder = (PACKAGE.parent / "notebooks" / "build_notebooks.py").read_text(encoding="utf-8")
    private = sorted(set(re.findall(r"from (mathhammer\.[\w.]+) import", builder)))
    assert not private, private


def test_the_library_plays_the_rules_the_cli_did_against_a_war_machine():
    """Poison does not wound a war machine (FB-WM1) and its p_destroyed is reported, from
    the library as from the command line (the rules moved out of the CLI, issue 27)."""
    import json

    from mathhammer.cli import main
    from mathhammer.fantasy.chain.core import AttackSpec
    from mathhammer.fantasy.chain.query import chain_report, profile_target

    unit, (t, save, ward, regen, w, models) = profile_target("wfb8/empire_great_cannon", "wfb8",
                                                             close_combat=True)
    spec = AttackSpec(ws=4, target_ws=unit.stats.ws, strength=4, toughness=t, poison=True,
                      save=None if save is None else int(save), target_wounds=w,
                      close_combat=True)
    library = chain_report(spec, 10, "wfb8", models=models, method="exact", target_unit=unit)
    import io
    from contextlib import redirect_stdout

    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        main(["fb", "attack", "--ws", "4", "--strength", "4", "--attacks", "10", "--poison",
              "--target", "wfb8/empire_great_cannon", "--format", "json"])
    cli = json.loads(out.getvalue())
    assert "p_destroyed" in library.results
    for name, est in library.results.items():
        assert cli["results"][name]["value"] == pytest.approx(est.value, abs=1e-12), name
