"""Where the Fantasy battle kernels' cold compile goes (the first `fb battle` on a machine,
and the first battle test of a fresh clone's `make test`).

    .venv/bin/python benchmarks/compile_anatomy.py            # prints its section of RESULTS.md
    .venv/bin/python benchmarks/compile_anatomy.py --write    # and writes it

Two fresh processes on one empty ``NUMBA_CACHE_DIR``: the first plays a two-battle greedy
`fb battle` cold (every kernel compiled), the second the same battles warm (every kernel
loaded from that cache) — the baseline. The cold process times numba's LLVM stages by
wrapping the code library's methods (measurement only: the compiled code is numba's own),
so the rest of the compile is numba's typing and lowering to LLVM IR.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.report import publish_section  # noqa: E402

START, END = "<!-- section: ", "<!-- end section -->"
LISTS = ("wfb8_empire_magic", "wfb8_orcs_magic")
#: numba's code-library stages, each timed in CPU seconds with its number of calls
STAGES = ("_optimize_functions", "_optimize_final_module", "_finalize_final_module")


def _child(timed: bool) -> dict:
    """Play the battles in this process; with ``timed``, CPU seconds in each LLVM stage."""
    import time

    spent = {name: [0, 0.0] for name in STAGES}
    if timed:
        from numba.core import codegen

        for name in STAGES:
            original = getattr(codegen.CPUCodeLibrary, name)

            def timed_stage(self, *args, _original=original, _name=name, **kwargs):
                began = time.process_time()
                try:
                    return _original(self, *args, **kwargs)
                finally:
                    spent[_name][0] += 1
                    spent[_name][1] += time.process_time() - began

            setattr(codegen.CPUCodeLibrary, name, timed_stage)
    began = time.process_time()
    from mathhammer.fantasy import battle

    report = battle(*LISTS, n_trials=2, seed=1)
    return {"cpu": time.process_time() - began, "stages": spent,
            "p_a_wins": report.results["p_a_wins"].value}


def _run(cache: str, timed: bool) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    out = subprocess.run([sys.executable, __file__, "--child", "timed" if timed else "plain"],
                         capture_output=True, text=True, env=env, cwd=REPO, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    if "--child" in sys.argv:
        print(json.dumps(_child(sys.argv[-1] == "timed")))
        return 0
    with tempfile.TemporaryDirectory(prefix="mathhammer-cold-") as cache:
        cold = _run(cache, timed=True)
        warm = _run(cache, timed=False)
    assert cold["p_a_wins"] == warm["p_a_wins"]  # the cached code plays the same battles
    llvm = sum(seconds for _, seconds in cold["stages"].values())
    calls = cold["stages"]["_finalize_final_module"][0]
    typing = cold["cpu"] - warm["cpu"] - llvm
    baseline = f"{warm['cpu']:.1f} CPU-s (the same battles, warm cache)"
    rows = [("`fb battle` 2 greedy battles, empty numba cache (CPU)", f"{cold['cpu']:.1f} CPU-s",
             baseline, "(record)", "")]
    for name, (n, seconds) in cold["stages"].items():
        rows.append((f"of which LLVM `{name.lstrip('_')}` ({n} calls)", f"{seconds:.1f} CPU-s",
                     "—", "(record)", ""))
    rows.append(("of which numba typing and lowering (cold − warm − LLVM)", f"{typing:.1f} CPU-s",
                 "—", "(record)", ""))
    heading = ("## Cold compile of the Fantasy battle kernels (`benchmarks/compile_anatomy.py`)\n\n"
               f"{calls} code libraries were finalized, each with machine code for the callees "
               "numba links into it: the cost of deep call graphs (`docs/design.md`, Kernels).")
    publish_section("compile-anatomy", heading, rows, START, END, "--write" in sys.argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
