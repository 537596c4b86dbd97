"""``mathhammer demo``: the compile-ahead helper that splits a first run over two cores."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mathhammer.cli import demo
from tests.conftest import ROOT


def test_compile_ahead_only_when_the_cache_is_cold(monkeypatch):
    from mathhammer import kernels

    monkeypatch.setattr(kernels, "cache_is_warm", lambda module: True)
    assert demo._compile_ahead("demo") is None
    monkeypatch.setattr(kernels, "cache_is_warm", lambda module: module != "grid")
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert demo._compile_ahead("demo") is None  # one core: nothing to split
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    assert demo._compile_ahead("demo") is None  # nothing compiles
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "0")
    helper = demo._compile_ahead("demo")
    try:
        assert helper is not None and helper.args[-2:] == ["demo", "--ahead"]
    finally:
        helper.terminate()
        helper.wait(timeout=30)


@pytest.mark.slow
def test_cold_demo_prints_what_a_warm_one_does_and_leaves_no_helper(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, "-m", "mathhammer", "demo"], capture_output=True,
                           text=True, env=env, cwd=ROOT, timeout=600) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0]
    assert runs[0].stdout == runs[1].stdout
    assert "compiling kernels, first run only" in runs[0].stderr
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "demo --ahead" not in ps
