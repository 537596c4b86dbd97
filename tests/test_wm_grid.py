"""Warjack damage grid: parsing, the marking rules cell by cell, kernel vs reference (WM-G1..G7)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mathhammer.errors import InputError
from mathhammer.warmachine.grid import Grid

IRONCLAD = ["---L", "--LLM", "----MM", "----CC", "--RRC", "---R"]
CHARGER = ["--L", "--LLM", "---MM", "---CC", "--RRC", "--R"]


def bit(column: int, row: int) -> int:
    """The bit of box ``row`` (1 = top) of ``column`` (1..6)."""
    return 1 << (6 * (column - 1) + row - 1)


def boxes(*cells: tuple[int, int]) -> int:
    out = 0
    for column, row in cells:
        out |= bit(column, row)
    return out


# ----------------------------------------------------------------------------- WM-G1 parsing
def test_parse_counts_boxes_and_systems():
    g = Grid.from_columns(CHARGER)
    assert g.n_boxes == 26
    assert g.systems == ("L", "M", "C", "R")
    assert g.system_masks["L"] == boxes((1, 3), (2, 3), (2, 4))
    assert g.system_masks["C"] == boxes((4, 4), (4, 5), (5, 5))


@pytest.mark.parametrize("columns, fragment", [
    (["--L", "--LLM", "---MM", "---CC", "--RRC"], "exactly six columns"),
    (["--L", "--LLM", "---MM", "---CX", "--RRC", "--R"], "bad letter 'X'"),
    (["--L", "--LLM", "---MM", "---CC", "--RRC", "--R-----"], "more than 6 boxes"),
    (["", "", "", "", "", ""], "no boxes"),
    ("--L--LLM", "list of six"),
])
def test_bad_grid_is_one_clear_error(columns, fragment):
    with pytest.raises(InputError) as err:
        Grid.from_columns(columns, where="scenario.toml: target.grid")
    text = err.value.one_line()
    assert fragment in text and text.startswith("scenario.toml: target.grid")


# ----------------------------------------------------------------------------- WM-G2 marking
def test_mark_top_down_in_the_rolled_column():
    g = Grid.from_columns(CHARGER)
    assert g.mark(0, 2, 3) == boxes((2, 1), (2, 2), (2, 3))


def test_mark_overflows_to_the_right_from_the_top():
    g = Grid.from_columns(CHARGER)
    # column 2 has 5 boxes: 7 damage fills it and the top two boxes of column 3
    assert g.mark(0, 2, 7) == boxes(*[(2, r) for r in range(1, 6)], (3, 1), (3, 2))


def test_mark_wraps_after_column_six():
    g = Grid.from_columns(CHARGER)
    assert g.mark(0, 6, 4) == boxes((6, 1), (6, 2), (6, 3), (1, 1))


def test_mark_continues_below_marked_boxes_and_skips_full_columns():
    g = Grid.from_columns(CHARGER)
    start = boxes((3, 1), (3, 2), (3, 3), (3, 4), (3, 5), (4, 1))  # column 3 full, 4 started
    assert g.mark(start, 3, 2) == start | boxes((4, 2), (4, 3))


def test_mark_from_top_most_unmarked_box_with_a_gap():
    g = Grid.from_columns(CHARGER)
    start = bit(2, 3)  # e.g. left by "first available L" (WM-G5)
    assert g.mark(start, 2, 3) == start | boxes((2, 1), (2, 2), (2, 4))


def test_mark_stops_when_every_box_is_marked():
    g = Grid.from_columns(CHARGER)
    one_left = g.full & ~bit(5, 2)
    out = g.mark(one_left, 1, 9)
    assert out == g.full and g.destroyed(out)


def test_track_marks_its_first_boxes_whatever_the_column():
    g = Grid.track(17)
    assert g.is_track and g.n_boxes == 17 and g.systems == ()
    assert g.mark(0b111, 5, 2) == 0b11111
    assert g.mark(0, 1, 40) == g.full


# ----------------------------------------------------------------------------- WM-G3, WM-G5, WM-G7
def test_crippled_and_destroyed():
    g = Grid.from_columns(CHARGER)
    m = g.system_masks["M"]
    assert not g.crippled(m & ~bit(3, 5), "M")
    assert g.crippled(m, "M") and not g.crippled(m, "L")
    assert not g.crippled(g.full, "H")  # a grid without H never reports it crippled
    assert not g.destroyed(g.full & ~bit(1, 1))


def test_first_available_box_is_lowest_column_then_top_most():
    g = Grid.from_columns(CHARGER)
    once = g.mark_first_available(0, "C")
    assert once == bit(4, 4)
    assert g.mark_first_available(0, "C", 3) == boxes((4, 4), (4, 5), (5, 5))
    # WM-G5 decision (issue 17): the 6 points beyond the 3 C boxes overflow by WM-G2 from
    # column 5 (the last C box): its four free boxes, then the top two of column 6
    assert g.mark_first_available(0, "C", 9) == (g.system_masks["C"] | boxes(
        (5, 1), (5, 2), (5, 3), (5, 4), (6, 1), (6, 2)))
    # a crippled cortex: every point overflows from column 4, the first holding C
    full_c = g.system_masks["C"]
    assert g.mark_first_available(full_c, "C", 2) == full_c | boxes((4, 1), (4, 2))
    # an already-marked first box moves the mark on
    assert g.mark_first_available(bit(4, 4), "C") == boxes((4, 4), (4, 5))


def test_start_damage_per_column_and_for_tracks():
    g = Grid.from_columns(CHARGER)
    assert g.start_bits([0, 2, 0, 0, 0, 3]) == boxes((2, 1), (2, 2), (6, 1), (6, 2), (6, 3))
    assert g.marked_per_column(g.start_bits([1, 0, 0, 0, 2, 0])) == [1, 0, 0, 0, 2, 0]
    with pytest.raises(InputError, match="column 1 has 3 boxes"):
        g.start_bits([4, 0, 0, 0, 0, 0], where="target.damaged")
    assert Grid.track(10).start_bits(3) == 0b111


# ----------------------------------------------------------------------------- kernel = reference
def _random_states(g: Grid, n: int, rng: random.Random) -> list[int]:
    cells = [b for b in range(64) if g.full >> b & 1]
    out = [0, g.full]
    for _ in range(n):
        density = rng.random()
        out.append(sum(1 << b for b in cells if rng.random() < density))
    return out


@pytest.mark.parametrize("columns", [CHARGER, IRONCLAD, ["-HH", "-HC", "--CC", "--AM", "-AM", "-MM"],
                                     ["------", "", "M", "", "------", "L"]])
def test_kernel_marking_equals_cell_by_cell_reference(columns):
    from mathhammer import kernels

    k = kernels.load("mathhammer.warmachine.kernels.grid")
    g = Grid.from_columns(columns)
    rng = random.Random(7)
    for start in _random_states(g, 60, rng):
        for column in range(1, 7):
            for dmg in range(0, g.n_boxes + 3):
                got = int(k.mark_from(np.uint64(start), np.uint64(g.full),
                                      np.int64(g.col_start[column - 1]), np.int64(dmg),
                                      np.int64(g.width)))
                assert got == g.mark(start, column, dmg), (start, column, dmg)


def test_kernel_marking_on_a_track():
    from mathhammer import kernels

    k = kernels.load("mathhammer.warmachine.kernels.grid")
    for n in (1, 17, 40, 63):
        g = Grid.track(n)
        for start in _random_states(g, 20, random.Random(n)):
            for dmg in range(0, n + 2):
                got = int(k.mark_from(np.uint64(start), np.uint64(g.full), np.int64(0),
                                      np.int64(dmg), np.int64(g.width)))
                assert got == g.mark(start, 1, dmg)


def test_kernel_first_available_equals_reference():
    from mathhammer import kernels

    k = kernels.load("mathhammer.warmachine.kernels.grid")
    g = Grid.from_columns(IRONCLAD)
    for start in _random_states(g, 50, random.Random(3)):
        for system in g.systems:
            for count in range(12):
                got = int(k.mark_first_available(np.uint64(start), np.uint64(g.system_masks[system]),
                                                 np.int64(count), np.uint64(g.full),
                                                 np.int64(g.width)))
                assert got == g.mark_first_available(start, system, count)


def test_select_bit_every_rank():
    from mathhammer import kernels

    k = kernels.load("mathhammer.warmachine.kernels.grid")
    rng = random.Random(11)
    for _ in range(300):
        x = rng.getrandbits(rng.choice([8, 36, 63]))
        positions = [b for b in range(64) if x >> b & 1]
        for rank, pos in enumerate(positions, start=1):
            assert k.select_bit(np.uint64(x), rank) == pos


def test_column_roll_from_low_bits_is_an_exact_d6():
    """Every low-11-bit pattern below 2046 maps to a column, 341 patterns each (exact);
    the two patterns above fall back to a fresh d6."""
    from mathhammer import kernels

    k = kernels.load("mathhammer.warmachine.kernels.grid")
    state = np.array([1, 2, 3, 4, 0, 0, 0, 0], dtype=np.uint64)
    counts = np.zeros(6, dtype=np.int64)
    high = np.uint64(0xABCDE) << np.uint64(11)  # the high bits do not matter
    for low in range(2046):
        counts[k.column_from_low_bits(high | np.uint64(low), state)] += 1
    assert counts.tolist() == [341] * 6
    for low in (2046, 2047):
        assert 0 <= k.column_from_low_bits(np.uint64(low), state) <= 5


def test_first_available_damage_is_not_lost_issue_17():
    """Issue 17: a POW 14 hit on a 26-box warjack with first_available = "C" marked at most
    3 boxes; now every point is marked (the surplus overflows by WM-G2), so the mean damage
    is P(hit) × E[max(0, 2d6 + 14 − 16)] by hand."""
    from fractions import Fraction

    from mathhammer.warmachine.scenario import run_scenario

    data = {"game": "warmachine", "target": {"def": 12, "arm": 16, "grid": CHARGER},
            "attacks": [{"kind": "ranged", "stat": 6, "power": 14, "first_available": "C"}]}
    out = run_scenario(data, "s.toml", method="exact")
    p_hit = Fraction(sum(1 for a in range(1, 7) for b in range(1, 7) if a + b + 6 >= 12), 36)
    mean = Fraction(sum(max(0, a + b - 2) for a in range(1, 7) for b in range(1, 7)), 36)
    assert out.results["mean_damage"].value == pytest.approx(float(p_hit * mean), abs=1e-12)
    assert out.results["p_crippled_C"].value == pytest.approx(
        float(p_hit * Fraction(sum(1 for a in range(1, 7) for b in range(1, 7)
                                   if a + b - 2 >= 3), 36)), abs=1e-12)
