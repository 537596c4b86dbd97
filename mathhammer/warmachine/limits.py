"""One table of input bounds for every Warmachine entry point (issue 17: one validation).

``wm attack`` flags, ``wm aoe`` flags, ``wm duel`` flags and the keys of a Warmachine
scenario file all read their bounds from :data:`LIMITS`, so the same value is accepted
or refused whichever way it is typed. The bounds are wide enough for what-if questions
(no Mk II model has MAT above 9, DEF above 18 or P+S above 22) and small enough that
the exact tables stay small and no integer overflows.

>>> check("stat", 7, "--stat")
7
>>> check("stat", 99, "--stat")
Traceback (most recent call last):
...
mathhammer.errors.InputError: --stat: must be between 0 and 30 (got 99); fix: use e.g. --stat 6
"""

from __future__ import annotations

import math

from mathhammer.errors import InputError

#: name -> (lowest, highest, an example value for the fix text)
LIMITS: dict[str, tuple[int, int, int]] = {
    "stat": (0, 30, 6),  # MAT / RAT / FOCUS
    "defense": (1, 40, 13),
    "armor": (0, 50, 18),
    "power": (0, 60, 12),  # POW or P+S
    "attacks": (1, 100, 3),
    "modifier": (-20, 20, 2),
    "def_bonus": (-20, 20, 3),
    "arm_bonus": (-20, 20, 3),
    "camped_focus": (0, 15, 2),
    "boxes": (1, 63, 17),  # a damage track holds at most 63 boxes (WM-G6)
    "extra_dice": (0, 3, 1),
    "focus": (0, 15, 3),
    "upkeep": (0, 10, 1),
}
DISTANCE_MAX = 1000.0  # inches: a table is a few feet across; beyond this is a typo


def check(name: str, value, where: str, example: int | None = None):
    """``value`` if it is a whole number within ``LIMITS[name]``, else one InputError."""
    lo, hi, ex = LIMITS[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(where, "must be a whole number", value, f"use e.g. {where} {ex}")
    if not lo <= value <= hi:
        raise InputError(where, f"must be between {lo} and {hi}", value,
                         f"use e.g. {where} {ex if example is None else example}")
    return value


def check_distance(value, where: str) -> float | None:
    """A distance in inches: None, or a finite number from 0 to :data:`DISTANCE_MAX`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(where, "must be a distance in inches", value, f"use e.g. {where} 8")
    if not 0 <= value <= DISTANCE_MAX:
        raise InputError(where, f"must be between 0 and {DISTANCE_MAX:g} inches", value,
                         f"use e.g. {where} 8")
    return float(value)
