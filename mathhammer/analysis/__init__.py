"""Analysis: army-list matrices, breakpoint sweeps, on a local pool or a Dask cluster.

>>> from mathhammer.analysis import compare, sweep        # doctest: +SKIP
>>> c = compare("khador_battlebox", "cygnar_battlebox")  # doctest: +SKIP
>>> c.matrix("p_kill", "A→B")                             # doctest: +SKIP
"""

from __future__ import annotations

from mathhammer.analysis.cells import Cell, CellResult, cell_seed, evaluate
from mathhammer.analysis.compare import Comparison, compare
from mathhammer.analysis.pool import run_cells
from mathhammer.analysis.sweep import Sweep, find_breakpoints, parse_vary, sweep

__all__ = ["Cell", "CellResult", "Comparison", "cell_seed", "compare", "evaluate", "run_cells", "Sweep", "find_breakpoints", "parse_vary", "sweep"]
