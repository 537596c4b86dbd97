"""Every notebook executes top to bottom with the current code and small trial counts,
and opens with its question and the answer of the committed run.

The notebooks read MATHHAMMER_NOTEBOOK_TRIALS; the committed outputs use the default
count, the tests 2,000 trials per query so each notebook runs in seconds.
"""

from __future__ import annotations

import os
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
