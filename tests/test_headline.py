"""The answer first (issue 15): every query command's table view starts with its headline.

Walks the Typer app, so a command added later is held to the same rule: its first
stdout line (table) is the headline sentence, ``--brief`` prints that line alone, and
the sentence is the command's own (not the generic fallback).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

import mathhammer.present.headline as headline_module
from mathhammer.cli import main
from mathhammer.present.render import MAX_LINES
from tests.conftest import user_docs_text
from tests.test_reliability_harness import BASE_ARGS, commands, option_specs, run_inprocess

ROOT = Path(__file__).resolve().parents[1]

#: commands that answer no odds question (they print files, cards, the rules or a tour)
NOT_QUERIES = {"demo", "warmup", "serve", "rules", "profiles list", "profiles show",
               "profiles validate",
               "profiles schema",
               "import"}  # import writes a list file (its first line is the headline, tested there)


def _options(name: str) -> set[str]:
    return {spec["name"] for spec in option_specs(commands()[name])}


def query_commands() -> list[str]:
    return sorted(set(commands()) - NOT_QUERIES)


def _small(name: str, argv: list[str]) -> list[str]:
    """Small, repeatable runs: 2,000 trials (200 whole battles, 100 a meta list when tuning
    on battles) and a fixed seed where the command takes them."""
    opts = _options(name)
    extra = []
    if "--battles" in opts and "cells" not in argv:  # score, diff, tune on battles
        if "--battles" not in argv:
            extra += ["--battles", "100"]
    elif "--n-trials" in opts and "--n-trials" not in argv and "--precision" not in argv:
        extra += ["--n-trials", "200" if name.endswith(" battle") else "2000"]
    if "--seed" in opts and "--seed" not in argv:
        extra += ["--seed", "1"]
    return extra + ["--quiet"]


def record_headlines(monkeypatch) -> list[tuple]:
    """Every headline the run makes, as (report, sentence), in order."""
    said = []
    real = headline_module.headline

    def recording(report):
        said.append((report, real(report)))
        return said[-1][1]

    monkeypatch.setattr(headline_module, "headline", recording)
    return said


def run(capsys, *argv):
    with pytest.raises(SystemExit) as done:
        main(list(argv))
    out = capsys.readouterr()
    return done.value.code, out.out, out.err


def test_every_query_command_takes_brief_and_full():
    missing = {name: sorted({"--brief", "--full"} - _options(name)) for name in query_commands()}
    assert not {k: v for k, v in missing.items() if v}, missing


@pytest.mark.parametrize("name", query_commands())
def test_first_line_is_the_commands_own_headline(name, monkeypatch):
    if name not in BASE_ARGS:
        pytest.skip(f"no base invocation for {name} in tests/test_reliability_harness.py")
    said = record_headlines(monkeypatch)
    argv = name.split() + BASE_ARGS[name]
    argv += _small(name, argv)
    code, out, err = run_inprocess(argv)
    assert code == 0, err
    code, brief, err = run_inprocess(argv + ["--brief"])
    assert code == 0, err
    assert brief.count("\n") == 1 and brief.strip(), brief
    assert out.splitlines()[0] == brief.rstrip("\n")
    sources = [headline_module.headline_source(report) for report, _ in said]
    assert sources and "fallback" not in sources, f"{name} has no headline of its own"


def test_fallback_names_the_first_probability_in_words():
    from mathhammer.results import Estimate, Report

    report = Report("x", "exact", {"mean": Estimate.exact(2.0), "p_goes_off": Estimate.exact(0.25)},
                    title="a query")
    assert headline_module.headline(report) == "a query: P(goes off) 25.00% (exact)"
    assert headline_module.headline_source(report) == "fallback"


def test_examples_read_as_a_player_asks(capsys):
    code, out, _ = run(capsys, "roll", "2D6+3", "--at-least", "10", "--brief")
    assert out == "2D6+3 rolls 10 or more: 58.33% (exact) · mean 10.00\n"
    code, out, _ = run(capsys, "wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--focus", "1",
                       "--method", "exact", "--brief")
    assert re.fullmatch(r"Juggernaut destroys Ironclad: \d+\.\d\d% \(exact\) · "
                        r"mean damage \d+\.\d boxes\n", out), out
    code, out, _ = run(capsys, "fb", "combat", "wfb8/knights_of_the_realm",
                       "wfb8/empire_halberdiers", "--charger", "a", "--rounds", "1", "--brief")
    assert out.startswith("Knights of the Realm against Halberdiers in one round: win ")
    assert ", both standing " in out and ", lose " in out


def test_brief_with_a_data_format_is_one_line_exit_2(capsys):
    code, out, err = run(capsys, "roll", "2D6", "--brief", "--format", "json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--brief" in err


# ---------------------------------------------------------------------------- README examples
def readme_examples() -> list[list[str]]:
    """Every `mathhammer …` line of the README's shell blocks that runs as written."""
    text = user_docs_text()
    found = []
    for lang, body in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        if lang not in ("", "sh", "console", "bash", "text"):
            continue
        for line in body.replace("\\\n", " ").splitlines():
            line = line.strip().removeprefix("$ ")
            if line.startswith("mathhammer "):
                found.append(shlex.split(line, comments=True)[1:])
    return found


def _runnable(argv: list[str]) -> list[str] | None:
    """The table-view form of a README line, or None when it names files you would write."""
    out, skip = [], False
    for i, token in enumerate(argv):
        if skip:
            skip = False
            continue
        if token in ("--format", "--plot", "--output", "-o"):
            skip = True
            continue
        if token.startswith("["):  # "[--steadfast]": optional flags in the prose
            continue
        if token.endswith(".toml") and not (ROOT / token).exists():
            return None  # your own file (my_unit.toml)
        out.append(token)
    return out


def _command_of(argv: list[str]) -> str:
    return " ".join(argv[:2]) if " ".join(argv[:2]) in commands() else argv[0]


QUERY_EXAMPLES = [a for a in readme_examples() if _command_of(a) in query_commands()]


def test_the_readme_has_an_example_of_most_query_commands():
    shown = {_command_of(a) for a in QUERY_EXAMPLES}
    assert len(shown) >= 15, sorted(set(query_commands()) - shown)


@pytest.mark.parametrize("argv", QUERY_EXAMPLES, ids=[" ".join(a)[:60] for a in QUERY_EXAMPLES])
def test_readme_example_table_fits_and_starts_with_the_headline(argv, monkeypatch):
    """Each README example runs, fits the screen and opens with its report's headline (the
    line --brief prints: test_first_line_is_the_commands_own_headline runs --brief itself,
    so the example is played once here and its headline recorded)."""
    name = _command_of(argv)
    runnable = _runnable(argv)
    if runnable is None:
        pytest.skip("the example reads a file of your own")
    runnable = [str(ROOT / t) if t.endswith(".toml") else t for t in runnable]
    if "--battles" in runnable and "cells" not in runnable:  # the shape, not the figures
        runnable[runnable.index("--battles") + 1] = "100"
    if "--n-trials" in runnable and name.endswith(" battle"):  # likewise: 200 whole battles,
        at = runnable.index("--n-trials") + 1  # 10 when a general plays rollouts
        cap = 10 if "best-response" in runnable else 200
        runnable[at] = str(min(int(runnable[at]), cap))
    runnable += _small(name, runnable)
    said = record_headlines(monkeypatch)
    code, out, err = run_inprocess(runnable, timeout=120)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) <= MAX_LINES, f"{len(lines)} lines:\n{out}"
    assert said and lines[0] == said[-1][1], (lines[:1], said[-1:])


# ---------------------------------------------------------------------------- renamed results
def all_renames() -> dict[str, dict[str, str]]:
    """Every rename the README must list (mathhammer.renames: the one table)."""
    from mathhammer.renames import RENAMED

    return {engine: {old: new.split(" (")[0] for old, new in names.items()}
            for engine, names in RENAMED.items()}


def test_the_readme_lists_every_renamed_result():
    text = user_docs_text()
    section = text[text.index("**Renamed results.**"):]
    section = section[: section.index("\n\n", section.index("| command |"))]
    missing = [f"{command}: {old} → {new}" for command, names in all_renames().items()
               for old, new in names.items() if f"`{old}` → `{new}`" not in section]
    assert not missing, missing


def test_an_old_result_name_is_refused_with_a_pointer():
    from mathhammer.magic.single import cast
    from mathhammer.roll import roll

    report = cast(3, 2, 9, "t9a1")
    assert report.results["p_two_sixes"].value > 0
    with pytest.raises(KeyError, match="'p_irresistible' was renamed: read 'p_two_sixes'"):
        report.results["p_irresistible"]
    with pytest.raises(KeyError, match="no_such"):
        report.results["no_such"]
    assert isinstance(roll("2D6").results, dict)  # a dict, whatever checks its entries


def test_fb_attack_reports_unsaved_wounds_by_their_name(capsys):
    import json

    code, out, _ = run(capsys, "fb", "attack", "--attacks", "4", "--ws", "4", "--target-ws", "4",
                       "--strength", "4", "--toughness", "4", "--target-wounds", "2",
                       "--format", "json")
    data = json.loads(out)
    assert {"mean_unsaved_wounds", "mean_models_slain"} <= set(data["results"])
    assert set(data["distributions"]) == {"unsaved_wounds", "models_slain"}


def test_readme_brief_examples_print_what_the_readme_shows():
    """Each `$ mathhammer … --brief` line of the README is followed by its real output."""
    text = user_docs_text()
    pairs = re.findall(r"^\$ mathhammer (.+ --brief)\n([^$`\n].*)$", text, re.M)
    assert pairs
    for command, shown in pairs:
        code, out, err = run_inprocess(shlex.split(command) + ["--quiet"], timeout=120)
        assert code == 0, err
        assert out.rstrip("\n") == shown, f"$ mathhammer {command}\n{out}"
