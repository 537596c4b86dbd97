"""The battle kernel's table containers, made and filled through cached kernels (issue 32).

numba compiles the methods of a typed ``List``/``Dict`` called from Python (``append``,
``d[k] = v``, ``k in d``, ``len``) afresh in every process — about 2.7 CPU-s, paid again by
every worker of a ``score``/``tune`` pool. Called through these few functions instead, the
same operations are machine code from the on-disk cache like every other kernel. The
containers are those of :func:`mathhammer.fantasy.battle.compile.empty_tables` (the order of
``battle_actions.T_*``); nothing here changes what the tables hold.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict, List

from mathhammer.fantasy.kernels.battle_geometry import BORROWING

_I1 = types.Array(types.int64, 1, "C")
_I2 = types.Array(types.int64, 2, "C")
_I3 = types.Array(types.int64, 3, "C")
_F1 = types.Array(types.float64, 1, "C")
_F2 = types.Array(types.float64, 2, "C")
_F3 = types.Array(types.float64, 3, "C")
_F4 = types.Array(types.float64, 4, "C")


# ---- the greedy values by code (B.values) --------------------------------------------------------
# An open-addressed table in one float64 array (rows, 2): a code, its value. Every code is an
# integer below 2**53 in size (battle_values.value_code, challenge_code), so a float64 holds it
# exactly; NaN marks an empty row. A typed dict took a reference count and a call into numba's
# dict for every look-up, and the look-ups sit in the greedy move's inner loop (threat).
_MIX = np.uint64(0x9E3779B97F4A7C15)  # code x 2**64/phi, its bits from the 32nd up: the row


@njit(**BORROWING)
def value_row(table, code):
    """The row holding ``code``, or the empty row where it would go."""
    mask = table.shape[0] - 1
    bits = np.uint64(np.int64(code))  # from int64, not from a float: a negative code wraps
    i = np.int64((bits * _MIX) >> np.uint64(32)) & mask
    while True:
        key = table[i, 0]
        if key != key or key == code:  # NaN: empty
            return i
        i = (i + 1) & mask


@njit(**BORROWING)
def value_of(table, code):
    """(the value of ``code``, True), or (0, False) when the table has none."""
    i = value_row(table, code)
    if table[i, 0] == code:
        return table[i, 1], True
    return 0.0, False


@njit(cache=True, nogil=True)
def put_value(table, code, value):
    """Set ``code``'s value; 1 when the code is new (the caller counts rows and grows the
    table, :func:`grown_values`, before it is half full), else 0."""
    i = value_row(table, code)
    new = 1 if table[i, 0] != table[i, 0] else 0
    table[i, 0], table[i, 1] = code, value
    return new


@njit(cache=True, nogil=True)
def grown_values(table):
    """The same codes and values in a table of twice the rows."""
    out = np.full((2 * table.shape[0], 2), np.nan)
    for i in range(table.shape[0]):
        if table[i, 0] == table[i, 0]:
            j = value_row(out, table[i, 0])
            out[j, 0], out[j, 1] = table[i, 0], table[i, 1]
    return out


@njit(cache=True)
def empty_tables(value_rows):
    """The 24 empty containers: the combat kernel's 15 arrays per fight (compile.DTYPES,
    compile.NDIMS; the wounds tables as an index into the blocks), each fight's unit order,
    first bodies and once-groups, the fights and arrangements by code, the greedy values
    (:func:`value_row`; ``value_rows`` a power of two), the shooting tables and their index,
    the wounds tables' (N, W) blocks."""
    return (List.empty_list(_I2), List.empty_list(_I2), List.empty_list(_I2),
            List.empty_list(_I2), List.empty_list(_I2), List.empty_list(_I3),
            List.empty_list(_I3), List.empty_list(_I2), List.empty_list(_F4),
            List.empty_list(_F3), List.empty_list(_I2), List.empty_list(_I1),
            List.empty_list(_F2), List.empty_list(_F2), List.empty_list(_F1),
            List.empty_list(_I1), List.empty_list(_I1), List.empty_list(_I1),
            Dict.empty(types.int64, types.int64), Dict.empty(types.int64, types.int64),
            np.full((value_rows, 2), np.nan), List.empty_list(_F1),
            Dict.empty(types.int64, types.int64), List.empty_list(_F2))


@njit(cache=True)
def has(table, code):
    return code in table


@njit(cache=True)
def put(table, code, value):
    table[code] = value


@njit(cache=True)
def append(tables, array):
    """Add ``array`` to a list of tables; its index there."""
    tables.append(array)
    return len(tables) - 1


@njit(cache=True)
def size(tables):
    return len(tables)


@njit(cache=True)
def add_fight(f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, order_list,
              first_list, once_list, fights, arrangements, arrays, orders, codes, keys, first,
              once):
    """Enter one compiled fight (its 15 kernel arrays, first bodies and once-groups) under
    each of its codes: row r of ``orders`` is the unit order of the fight entered under
    ``codes[r]`` (and arrangement ``keys[r]``, unless that one has a fight already). A code
    already entered is skipped. The containers are T[:T_VALUES] one by one (a tuple of them
    is typed afresh in Python at every call, ~1 ms): ``add_fight(*T[:T_VALUES], ...)``. One
    call for all the entries: from Python, each entry was ~22 container calls
    (compile._fight)."""
    for r in range(codes.shape[0]):
        if codes[r] in fights:
            continue
        index = len(order_list)
        f0.append(arrays[0])
        f1.append(arrays[1])
        f2.append(arrays[2])
        f3.append(arrays[3])
        f4.append(arrays[4])
        f5.append(arrays[5])
        f6.append(arrays[6])
        f7.append(arrays[7])
        f8.append(arrays[8])
        f9.append(arrays[9])
        f10.append(arrays[10])
        f11.append(arrays[11])
        f12.append(arrays[12])
        f13.append(arrays[13])
        f14.append(arrays[14])
        order_list.append(orders[r].copy())
        first_list.append(first.copy())
        once_list.append(once.copy())
        fights[codes[r]] = index
        if keys[r] not in arrangements:
            arrangements[keys[r]] = index
