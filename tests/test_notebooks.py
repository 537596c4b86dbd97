"""Every notebook executes top to bottom with the current code and small trial counts,
and opens with its question and the answer of the committed run.

The notebooks read MATHHAMMER_NOTEBOOK_TRIALS; the committed outputs use the default
count, the tests 2,000 trials per query so each notebook runs in seconds.

The saved outputs are the current code's (issue 28 item 10): each notebook prints its
headline figures (``headline_figures`` in its setup cell), and the re-run here must agree
with the saved ones: an exact figure to every printed digit, a Monte Carlo one within 5
standard errors of the difference (the saved se and the re-run's se at its trial count).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
SMALL_TRIALS = "2000"


def test_at_least_five_notebooks_one_question_each():
    assert len(NOTEBOOKS) >= 5
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        first = nb.cells[0]
        assert first.cell_type == "markdown" and first.source.startswith("# ")
        assert "**Question:**" in first.source, path.name
        assert first.source.index("**Question:**") < first.source.index("**Answer**"), path.name
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        assert "MATHHAMMER_NOTEBOOK_TRIALS" in code, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, monkeypatch):
    monkeypatch.setenv("MATHHAMMER_NOTEBOOK_TRIALS", SMALL_TRIALS)
    nb = nbformat.read(path, as_version=4)
    saved = headline_figures(nb)
    assert saved, f"{path.name} prints no headline figures"
    # "immediate": the kernel is killed once the last cell ran instead of a polite
    # shutdown request it answers ~1 s later (nothing runs after the last cell)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     shutdown_kernel="immediate",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert images, f"{path.name} draws no chart"
    printed = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert f"{int(SMALL_TRIALS):,} trials per query" in printed  # the variable reached the kernel
    answers = [line for line in printed.splitlines() if line.startswith("ANSWER: ")]
    assert len(answers) == 1 and any(ch.isdigit() for ch in answers[0]), answers
    stale = stale_figures(saved, headline_figures(nb), int(SMALL_TRIALS))
    assert not stale, (f"{path.name}: saved outputs are not the current code's (rebuild with "
                       f"notebooks/build_notebooks.py {path.name}):\n" + "\n".join(stale[:10]))


@dataclass(frozen=True)
class Figure:
    text: str  # as printed, for exact figures: equal to every digit
    value: float
    se: float | None  # None: exact
    probability: bool


FIGURE = re.compile(r"^  (?P<label>.+): (?P<value>-?\d+\.\d+)(?P<pct>%?)"
                    r"(?: ± (?P<se>\d+\.\d+)| exact)$")


def printed_lines(nb) -> list[str]:
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.get("outputs", []) if o.get("output_type") == "stream").splitlines()


def headline_figures(nb) -> dict[str, Figure]:
    """The figures a notebook printed under its "Headline figures" lines."""
    found: dict[str, Figure] = {}
    inside = False
    for line in printed_lines(nb):
        if line.startswith("Headline figures"):
            inside = True
            continue
        match = FIGURE.match(line) if inside else None
        if not match:
            inside = False
            continue
        scale = 100.0 if match["pct"] else 1.0
        se = None if match["se"] is None else float(match["se"]) / scale
        found[match["label"]] = Figure(match["value"] + match["pct"], float(match["value"]) / scale,
                                       se, bool(match["pct"]))
    return found


def stale_figures(saved: dict[str, Figure], fresh: dict[str, Figure], n_fresh: int) -> list[str]:
    """Saved figures the re-run (``n_fresh`` trials per query) contradicts, in words."""
    problems = [f"{label}: saved, not printed by the code" for label in saved.keys() - fresh.keys()]
    problems += [f"{label}: printed by the code, not saved" for label in fresh.keys() - saved.keys()]
    for label in saved.keys() & fresh.keys():
        old, new = saved[label], fresh[label]
        if old.se is None and new.se is None:
            if old.text != new.text:
                problems.append(f"{label}: saved {old.text}, the code gives {new.text} (exact)")
            continue
        variance = old.se ** 2 if old.se is not None else 0.0
        if new.se is not None and new.probability:
            # the re-run's se from the saved p (its own p may be 0 when the event is rare);
            # a run of n trials resolves no probability finer than 1/n
            p = min(max(old.value, 1.0 / n_fresh), 1.0 - 1.0 / n_fresh)
            variance += p * (1.0 - p) / n_fresh
        elif new.se is not None:
            variance += new.se ** 2
        if abs(old.value - new.value) > 5.0 * math.sqrt(variance):
            problems.append(f"{label}: saved {old.text}, the code gives {new.text} "
                            f"(more than 5 se apart, se {math.sqrt(variance):.2g})")
    return sorted(problems)


def test_a_stale_saved_figure_is_caught():
    """The issue's case: notebook 05 saved Ironclad → Sorscha 69.3%, the code gave 61.7%."""
    saved = {"Ironclad → Sorscha": Figure("69.300%", 0.693, 0.00103, True),
             "exact": Figure("50.0000%", 0.5, None, True)}
    same = {"Ironclad → Sorscha": Figure("68.100%", 0.681, 0.0104, True),
            "exact": Figure("50.0000%", 0.5, None, True)}
    assert not stale_figures(saved, same, 2000)  # 1.2 pp apart at 2,000 trials: noise
    moved = dict(same, **{"Ironclad → Sorscha": Figure("61.700%", 0.617, 0.0109, True)})
    assert stale_figures(saved, moved, 2000)
    assert stale_figures(saved, dict(same, exact=Figure("50.0001%", 0.500001, None, True)), 2000)
    assert stale_figures(saved, {"exact": same["exact"]}, 2000)
    # an event the saved run never saw, seen once in 2,000 re-run trials: not a contradiction
    rare = {"rare": Figure("0.000%", 0.0, 0.0, True)}
    assert not stale_figures(rare, {"rare": Figure("0.050%", 0.0005, 0.0005, True)}, 2000)


def test_first_cell_answer_is_the_committed_runs():
    """The answer under the question is the one the saved run computed (last cell)."""
    import sys

    sys.path.insert(0, str(NOTEBOOKS[0].parent))
    try:
        from build_notebooks import ANSWER_HEAD, printed_answer
    finally:
        sys.path.pop(0)
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        text = printed_answer(nb)
        assert text and nb.cells[0].source.endswith(text), path.name
        assert ANSWER_HEAD in nb.cells[0].source


def test_committed_notebooks_carry_outputs():
    """Committed with outputs from the code (not blank): every code cell that draws has them."""
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        drawn = [c for c in nb.cells if c.cell_type == "code" and "plt.show()" in c.source]
        assert drawn and all(any("image/png" in o.get("data", {}) for o in c.get("outputs", []))
                             for c in drawn), path.name


def test_saved_notebooks_are_the_build_scripts():
    """Every saved cell is the one ``build_notebooks.py`` writes (the first one plus the
    run's answer): a fix made in a saved notebook alone is lost at the next rebuild."""
    import sys

    sys.path.insert(0, str(NOTEBOOKS[0].parent))
    try:
        from build_notebooks import NOTEBOOKS as BUILT, notebook
    finally:
        sys.path.pop(0)
    assert sorted(BUILT) == [p.name for p in NOTEBOOKS]
    for path in NOTEBOOKS:
        saved, built = nbformat.read(path, as_version=4).cells, notebook(BUILT[path.name]).cells
        assert [c.cell_type for c in saved] == [c.cell_type for c in built], path.name
        assert saved[0].source.startswith(built[0].source), path.name
        for i, (mine, theirs) in enumerate(zip(saved[1:], built[1:], strict=True), start=1):
            assert mine.source == theirs.source, f"{path.name} cell {i} differs from the build script"
