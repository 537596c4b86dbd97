"""The greedy values' table of the battle kernel (kernels.battle_tables.value_row): an
open-addressed float64 array that doubles at half full, read by the kernel without numba's
dict. It must answer as a dict would, and a table that grew must play the same battles."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer.fantasy.kernels import battle_tables as kt

# every code the kernel writes is an integer below 2**53 in size (value_code, challenge_code)
CODES = st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(CODES, st.floats(allow_nan=False, allow_infinity=False)),
                max_size=80),
       st.lists(CODES, max_size=20))
def test_the_value_table_answers_as_a_dict(items, others):
    table = np.full((4, 2), np.nan)
    rows = 0
    expected: dict[int, float] = {}
    for code, value in items:
        rows += kt.put_value(table, code, value)
        expected[code] = value
        if 2 * rows >= table.shape[0]:  # as KernelBattle._put_value grows it
            table = kt.grown_values(table)
    assert rows == len(expected) == int((table[:, 0] == table[:, 0]).sum())
    for code, value in expected.items():
        assert kt.value_of(table, code) == (value, True)
    for code in others:
        if code not in expected:
            assert kt.value_of(table, code) == (0.0, False)


def test_a_table_that_grew_plays_the_same_battles(monkeypatch):
    """A run whose values' table starts at 8 rows (it doubles again and again, and the Battle is
    made again around each new array) plays battles bit-identical to one that never grows."""
    from mathhammer.fantasy.battle import compile as fb_compile
    from mathhammer.fantasy.battle import shared_tables
    from mathhammer.fantasy.battle.report import battle

    def json_of(rows):
        monkeypatch.setattr(fb_compile, "VALUE_ROWS", rows)
        shared_tables.clear()
        report = battle("wfb8_empire_battle", "wfb8_orcs_battle", turns=3, n_trials=30, seed=5,
                        workers=1)
        out = report.to_dict()
        out.get("info", {}).pop("elapsed", None)
        return out

    small, large = json_of(8), json_of(1 << 16)
    assert small == large
