"""The README's examples run: the first acceptance lines of the Foundation issue."""

import json
from fractions import Fraction

from tests.conftest import run_cli


def test_roll_exact_json_matches_21_over_36():
    # a real `python -m mathhammer` process end to end (run_json runs in-process)
    proc = run_cli("roll", "2D6+3", "--at-least", "10", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["method"] == "exact"
    assert out["results"]["p_at_least"]["value"] == float(Fraction(21, 36))
    assert out["results"]["p_at_least"]["se"] == 0.0


def test_bad_dice_text_is_one_line_exit_2():
    proc = run_cli("roll", "2D")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "column 3" in proc.stderr
    assert "Traceback" not in proc.stderr
