"""Shared test helpers: run the CLI in-process or as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, input: str | None = None, timeout: float = 300, env: dict | None = None):
    """Run ``mathhammer ARGS`` in a subprocess; returns CompletedProcess (text)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "mathhammer", *args], capture_output=True, text=True,
        input=input, timeout=timeout, env=full_env, cwd=ROOT,
    )


def run_json(*args: str) -> dict:
    proc = run_cli(*args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def cli():
    return run_cli
