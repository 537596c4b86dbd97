"""The warjack damage grid and the damage track as data (WM-G1..G7).

A :class:`Grid` is built from six column strings (top to bottom; ``-`` is a blank
hull box, ``L R H A C M`` are systems) or from a box count (a warcaster's or
solo's track, WM-G6). Marked boxes are one integer: box ``r`` of column ``c``
(both from 0) is bit ``6c + r``, so the fill order of WM-G2 is bit order and the
kernels in :mod:`mathhammer.warmachine.kernels.grid` work on the same numbers.

This module also holds a plain cell-by-cell implementation of the marking rules
(:meth:`Grid.mark`), written from the rules text and independent of the bit
tricks: tests compare the two box by box.

>>> g = Grid.from_columns(["--L", "--LLM", "---MM", "---CC", "--RRC", "--R"])
>>> g.n_boxes, g.systems
(26, ('L', 'M', 'C', 'R'))
>>> bits = g.mark(0, column=6, damage=4)   # column 6 has 3 boxes: overflow wraps to column 1
>>> g.marked_per_column(bits)
[1, 0, 0, 0, 0, 3]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mathhammer.errors import InputError

N_COLUMNS = 6
ROWS = 6  # bits reserved per column; Mk II grids have at most six rows
GRID_LETTERS = "-LRHACM"
SYSTEM_ORDER = "LRHACM"
MAX_TRACK = 63  # bit 63 is the kernels' knocked-down flag
SYSTEM_NAMES = {"L": "left arm", "R": "right arm", "H": "head", "A": "arc node",
                "C": "cortex", "M": "movement"}


def system_letter(name: str, where: str = "‹cripple›") -> str:
    """A system named by its letter or its name's first word ("M", "movement") → "M"."""
    part = str(name).strip()
    names = {v.split()[0]: k for k, v in SYSTEM_NAMES.items()}  # "left" -> "L"
    letter = part.upper() if part.upper() in SYSTEM_NAMES else names.get(part.lower())
    if letter is None:
        raise InputError(where, "names a system by its letter: L, R, H, A, C or M", part,
                         "use e.g. ‹cripple› L,M (left arm and movement)")
    return letter


@dataclass(frozen=True)
class Grid:
    """A damage grid (six columns) or a damage track (``columns`` is empty).

    Attributes:
        columns: the six column strings, top to bottom ('' entries allowed), or ().
        n_boxes: number of boxes.
        full: bitmask of every existing box.
        col_start: first bit of each column (all 0 for a track).
        system_masks: letter -> bitmask of that system's boxes, in ``systems`` order.
    """

    columns: tuple[str, ...]
    n_boxes: int
    full: int
    col_start: tuple[int, ...]
    system_masks: dict[str, int]

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_columns(cls, columns: Sequence[str], where: str = "grid") -> Grid:
        """Validate six column strings (WM-G1); a bad grid is one InputError naming ``where``."""
        fix = 'six strings of -LRHACM, e.g. ["--L", "--LLM", "---MM", "---CC", "--RRC", "--R"]'
        if isinstance(columns, str) or not isinstance(columns, Sequence):
            raise InputError(where, "must be a list of six column strings", columns, fix)
        if len(columns) != N_COLUMNS:
            raise InputError(where, f"must have exactly six columns, not {len(columns)}",
                             list(columns), fix)
        full = 0
        masks: dict[str, int] = {}
        for c, col in enumerate(columns):
            if not isinstance(col, str):
                raise InputError(f"{where}[{c}]", "must be a string", col, fix)
            if len(col) > ROWS:
                raise InputError(f"{where}[{c}]", f"has more than {ROWS} boxes", col, fix)
            for r, letter in enumerate(col.upper()):
                if letter not in GRID_LETTERS:
                    raise InputError(f"{where}[{c}]", f"bad letter {letter!r} (allowed: -LRHACM)",
                                     col, fix)
                bit = 1 << (ROWS * c + r)
                full |= bit
                if letter != "-":
                    masks[letter] = masks.get(letter, 0) | bit
        if full == 0:
            raise InputError(where, "has no boxes at all", list(columns), fix)
        ordered = {s: masks[s] for s in sorted(masks, key=_first_bit_key(masks))}
        return cls(tuple(c.upper() for c in columns), bin(full).count("1"), full,
                   tuple(ROWS * c for c in range(N_COLUMNS)), ordered)

    @classmethod
    def track(cls, boxes: int, where: str = "boxes") -> Grid:
        """A damage track of ``boxes`` boxes (WM-G6): every column roll starts at box 1."""
        if isinstance(boxes, bool) or not isinstance(boxes, int) or not 1 <= boxes <= MAX_TRACK:
            raise InputError(where, f"must be a whole number from 1 to {MAX_TRACK}", boxes,
                             "use e.g. boxes = 17")
        return cls((), boxes, (1 << boxes) - 1, (0,) * N_COLUMNS, {})

    # ------------------------------------------------------------------ queries
    @property
    def is_track(self) -> bool:
        return not self.columns

    @property
    def width(self) -> int:
        """Bits in the kernels' marking cycle: six 6-bit columns, or a track's 63."""
        return MAX_TRACK if self.is_track else N_COLUMNS * ROWS

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(self.system_masks)

    def crippled(self, bits: int, system: str) -> bool:
        """WM-G3: every box of the system is marked (False if the grid has no such system)."""
        mask = self.system_masks.get(system, 0)
        return mask != 0 and bits & mask == mask

    def destroyed(self, bits: int) -> bool:
        return bits & self.full == self.full

    def boxes_left(self, bits: int) -> int:
        return bin(self.full & ~bits).count("1")

    def marked_per_column(self, bits: int) -> list[int]:
        if self.is_track:
            return [bin(bits & self.full).count("1")]
        return [bin((bits >> (ROWS * c)) & ((1 << ROWS) - 1) & (self.full >> (ROWS * c))).count("1")
                for c in range(N_COLUMNS)]

    # ------------------------------------------------------------------ reference marking
    def _cells(self, column: int) -> list[tuple[int, str]]:
        """(bit, letter) of the boxes of a column (1-based), top to bottom."""
        col = self.columns[column - 1]
        return [(1 << (ROWS * (column - 1) + r), letter) for r, letter in enumerate(col)]

    def mark(self, bits: int, column: int, damage: int) -> int:
        """WM-G2, cell by cell: the top-most unmarked box of ``column`` (1..6) downward,
        then the next column to the right, column 6 → column 1, until the damage is
        used up or every box is marked. A track marks its first unmarked boxes."""
        if self.is_track:
            for b in range(self.n_boxes):
                if damage <= 0:
                    break
                if not bits >> b & 1:
                    bits |= 1 << b
                    damage -= 1
            return bits
        col = column
        for _ in range(N_COLUMNS + 1):  # the starting column may be revisited after wrapping
            for bit, _letter in self._cells(col):
                if damage <= 0 or self.destroyed(bits):
                    return bits
                if not bits & bit:
                    bits |= bit
                    damage -= 1
            col = col % N_COLUMNS + 1
        return bits

    def mark_first_available(self, bits: int, system: str, count: int = 1) -> int:
        """WM-G5: each point marks the first available ``system`` box: the lowest-numbered
        column still holding an unmarked one, its top-most such box. Points left once the
        system is full are marked by WM-G2 from the column of the last system box marked
        (or the lowest-numbered column holding the system when none was free): the damage
        is not lost (decision, issue 17)."""
        last = None
        left = count
        while left > 0:
            for col in range(1, N_COLUMNS + 1):
                free = [bit for bit, letter in self._cells(col)
                        if letter == system and not bits & bit]
                if free:
                    bits |= free[0]
                    last = col
                    left -= 1
                    break
            else:
                break
        if left > 0 and system in self.system_masks:
            if last is None:
                last = next(col for col in range(1, N_COLUMNS + 1)
                            if any(letter == system for _, letter in self._cells(col)))
            bits = self.mark(bits, last, left)
        return bits

    # ------------------------------------------------------------------ starting damage
    def start_bits(self, damaged: int | Sequence[int] | None, where: str = "damaged") -> int:
        """WM-G7: marked boxes at the start.

        ``damaged`` is a box count for a track, or for a grid six counts of boxes
        already marked from the top of each column.
        """
        if damaged is None:
            return 0
        if self.is_track:
            if (isinstance(damaged, bool) or not isinstance(damaged, int)
                    or not 0 <= damaged <= self.n_boxes):
                raise InputError(where, f"must be 0..{self.n_boxes} marked boxes", damaged,
                                 "use e.g. damaged = 5")
            return (1 << damaged) - 1
        if (isinstance(damaged, (str, bytes)) or not isinstance(damaged, Sequence)
                or len(damaged) != N_COLUMNS):
            raise InputError(where, "must list six counts of marked boxes, one per column",
                             damaged, "use e.g. damaged = [0, 2, 0, 0, 1, 0]")
        bits = 0
        for c, count in enumerate(damaged):
            height = len(self.columns[c])
            if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= height:
                raise InputError(f"{where}[{c}]", f"column {c + 1} has {height} boxes", count,
                                 f"use a count from 0 to {height}")
            bits |= ((1 << count) - 1) << (ROWS * c)
        return bits

    def cripple_counts(self, systems: str, where: str = "‹cripple›") -> list[int]:
        """WM-G3/WM-G7: the fewest boxes marked from the top of each column that leave every
        box of the named systems marked ("L,M": left arm and movement), as ``start_bits``
        takes them; a system the grid lacks, or a track, is one line."""
        letters = [system_letter(part, where) for part in str(systems).split(",")]
        if self.is_track:
            raise InputError(where, "a damage track has no systems to cripple", systems,
                             "use ‹damaged› N for a warcaster or solo")
        counts = [0] * N_COLUMNS
        for letter in letters:
            found = False
            for c, col in enumerate(self.columns):
                rows = [r for r, box in enumerate(col) if box == letter]
                if rows:
                    found = True
                    counts[c] = max(counts[c], rows[-1] + 1)
            if not found:
                raise InputError(where, f"this grid has no {SYSTEM_NAMES[letter]} ({letter}) boxes",
                                 systems, "name a system the grid has")
        return counts

    def render(self, bits: int = 0) -> str:
        """Rows top to bottom; marked boxes shown as ``x``, missing boxes as a space."""
        if self.is_track:
            return "".join("x" if bits >> b & 1 else "o" for b in range(self.n_boxes))
        lines = []
        for r in range(ROWS):
            row = ""
            for c in range(N_COLUMNS):
                col = self.columns[c]
                row += " " if r >= len(col) else ("x" if bits >> (ROWS * c + r) & 1 else col[r])
            lines.append(row)
        return "\n".join(line for line in lines if line.strip())


def _first_bit_key(masks: dict[str, int]):
    # systems listed in the order their first box appears in fill order (L before M…)
    return lambda s: (masks[s] & -masks[s]).bit_length()
