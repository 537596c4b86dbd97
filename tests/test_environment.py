"""The tool in awkward environments (issue 8 part 5), with real processes.

* numba's cache folder not writable: the kernels fall back to a temporary cache
  with one note on stderr, and the answer is the usual one.
* ``NUMBA_DISABLE_JIT=1`` (pure Python kernels, slow): the same seed gives the
  same JSON as the jitted run, for ``roll`` and one kernel of each engine
  (Warmachine attack chain, fantasy attack chain, magic cast). N is small
  (3000 trials) because the Python kernels run ~1000x slower.
* the same seed gives identical output on repeated runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.test_reliability_harness import ROOT, run_inprocess

N = ["--method", "mc", "--n-trials", "3000", "--seed", "11", "--format", "json", "--quiet"]
QUERIES = {
    "roll": ["roll", "3D6"],
    "wm attack": ["wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor",
                  "16", "--attacks", "2"],
    "fb attack": ["fb", "attack", "--attacks", "5", "--ws", "4", "--target-ws", "4",
                  "--strength", "4", "--toughness", "4"],
    "magic cast": ["magic", "cast", "--dice", "3", "--cv", "9"],
    # the combat kernel's fight_round and its choice of wounds tables (a fight's own or a
    # battle's shared blocks), in pure Python too
    "fb combat": ["fb", "combat", "wfb8/empire_halberdiers", "wfb8/orc_boyz", "--rounds", "2"],
}


def _run(argv: list[str], env: dict | None = None, timeout: float = 300):
    full = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "mathhammer", *argv], cwd=ROOT, env=full,
                          capture_output=True, text=True, timeout=timeout)


def _load_report(text: str) -> dict:
    data = json.loads(text)
    data.pop("info", None)  # timings and engine notes may differ; the numbers may not
    return data


def _report(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    return _load_report(proc.stdout)


_PURE_PYTHON_RUNNER = """
import contextlib, io, json, sys
from mathhammer.cli import main
outputs = []
for argv in json.loads(sys.argv[1]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main(argv)
        except SystemExit as stop:
            assert stop.code in (0, None), stop.code
    outputs.append(out.getvalue())
print(json.dumps(outputs))
"""


def test_disable_jit_gives_the_same_answer():
    """One NUMBA_DISABLE_JIT=1 process runs every query; this (jitted) process the same."""
    names = sorted(QUERIES)
    argvs = [QUERIES[name] + N for name in names]
    proc = subprocess.run(
        [sys.executable, "-c", _PURE_PYTHON_RUNNER, json.dumps(argvs)], cwd=ROOT,
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, capture_output=True, text=True,
        timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "RuntimeWarning" not in proc.stderr, proc.stderr  # wrapping uint64 is intended
    python_outputs = json.loads(proc.stdout)
    for name, argv, python_out in zip(names, argvs, python_outputs):
        code, jitted_out, err = run_inprocess(argv)
        assert code == 0, err
        jitted, python = _load_report(jitted_out), _load_report(python_out)
        assert python == jitted, name


@pytest.mark.parametrize("env_var, folder", [
    ("XDG_CACHE_HOME", "/proc/mathhammer-cache"),
    pytest.param("HOME", "/proc", marks=pytest.mark.slow),  # same path as XDG, recompiles
])
def test_unwritable_numba_cache_falls_back_with_a_note(env_var, folder, tmp_path):
    """/proc refuses new folders even to root; the note names the fallback."""
    env = {env_var: folder}
    env.pop("NUMBA_CACHE_DIR", None)
    base = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    if env_var == "HOME":
        base.pop("XDG_CACHE_HOME", None)
    proc = subprocess.run(
        [sys.executable, "-m", "mathhammer", *QUERIES["roll"], *N[:-1]], cwd=ROOT,
        env={**base, **env}, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "numba cache" in line]
    assert len(notes) == 1 and notes[0].startswith("note: numba cache ") \
        and "is not writable; using " in notes[0], proc.stderr
    assert "Traceback" not in proc.stderr
    code, expected, err = run_inprocess(QUERIES["roll"] + N)
    assert code == 0, err
    assert _report(proc) == _load_report(expected)


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_same_seed_same_output(name):
    """In-process (fast): three runs with one seed, 1 and 2 threads, print the same."""
    argv = QUERIES[name] + N
    first = run_inprocess(argv)
    assert first[0] == 0, first[2]
    assert run_inprocess(argv) == first
    assert run_inprocess(argv + ["--threads", "1"]) == first
    assert run_inprocess(argv + ["--threads", "2"]) == first


_FIRST_IMPORT = r"""
import os, sys
from importlib import import_module
failed = []
for name in sys.argv[1:]:
    if os.fork() == 0:  # a child that has imported nothing of ours, nor numba
        module = import_module(name)
        chosen = os.environ.get("NUMBA_CACHE_DIR", "")
        for value in vars(module).values():
            cache = getattr(value, "_cache", None)
            path = getattr(cache, "_cache_path", None)
            if path is not None and (not chosen or not path.startswith(chosen)):
                print(f"{name}.{value.__name__}: {path}", flush=True)
                os._exit(1)
        os._exit(0)
    _pid, status = os.wait()
    if status:
        failed.append(name)
print("FAILED", *failed)
"""


def test_every_kernel_imported_first_caches_in_the_chosen_folder(tmp_path):
    """Whichever kernel module a process imports first, its compiled code goes to the folder
    keyed by every kernel source (mathhammer.kernels): a module whose functions were decorated
    before that folder was chosen cached beside its source, where an index written for another
    version of a neighbour file broke the next compile."""
    from mathhammer.kernels import _PACKAGE, kernel_files

    names = [".".join(("mathhammer",) + p.relative_to(_PACKAGE).with_suffix("").parts)
             .removesuffix(".__init__") for p in kernel_files()]
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)  # its own folder: nothing is compiled here
    proc = subprocess.run([sys.executable, "-c", _FIRST_IMPORT, *names], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "FAILED", proc.stdout
