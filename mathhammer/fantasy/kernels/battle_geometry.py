"""Table geometry for the battle kernel (FB-B1, FB-B4..FB-B6): plain floats in, floats out.

The same rules as :mod:`mathhammer.fantasy.battle.table` (its docstring states them), on
rectangles given as seven floats ``(x, y, theta, width, depth, cos θ, sin θ)``: the middle
of the front edge, the facing (forward is ``(cos θ, sin θ)``, kept with the angle so that
no question asks the sine again), the frontage and the depth behind the front edge.
Faces and arcs: 0 front, 1 flank, 2 rear; sides: 1 left, -1 right.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

FRONT, FLANK, REAR = 0, 1, 2
# helpers on plain arrays that allocate nothing skip reference counts (an atomic add per array)
BORROWING = dict(cache=True, nogil=True, error_model="numpy", _nrt=False)


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def local(p, px, py):
    """(ahead of the front edge, to the left of the centre line) of a point."""
    rx, ry = px - p[0], py - p[1]
    return rx * p[5] + ry * p[6], -rx * p[6] + ry * p[5]


@njit(**BORROWING)
def corners(p, out):
    """out (4, 2): front left, front right, back right, back left."""
    h = p[3] / 2
    dx, dy = p[5], p[6]
    lx, ly = -dy, dx
    x, y, depth = p[0], p[1], p[4]
    out[0, 0], out[0, 1] = x + h * lx, y + h * ly
    out[1, 0], out[1, 1] = x - h * lx, y - h * ly
    out[2, 0], out[2, 1] = x - h * lx - depth * dx, y - h * ly - depth * dy
    out[3, 0], out[3, 1] = x + h * lx - depth * dx, y + h * ly - depth * dy


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def centre(p):
    return p[0] - p[5] * p[4] / 2, p[1] - p[6] * p[4] / 2


@njit(**BORROWING)
def contains(p, px, py, margin):
    ahead, left = local(p, px, py)
    return -p[4] - margin <= ahead <= margin and abs(left) <= p[3] / 2 + margin


@njit(**BORROWING)
def arc(p, px, py):
    """FB-B4: (face 0/1/2, side 1 left / -1 right) of a point around the rectangle."""
    ahead, left = local(p, px, py)
    h = p[3] / 2
    side = 1 if left >= 0 else -1
    if ahead >= 0 and abs(left) <= h + ahead:
        return FRONT, side
    behind = -(ahead + p[4])
    if behind >= 0 and abs(left) <= h + behind:
        return REAR, side
    return FLANK, side


@njit(**BORROWING)
def face_segment(p, face, side):
    """The two ends (ax, ay, bx, by) of a face, and its middle and outward normal."""
    x, y, width, depth = p[0], p[1], p[3], p[4]
    h = width / 2
    dx, dy = p[5], p[6]
    lx, ly = -dy, dx
    if face == FRONT:
        mx, my, nx, ny, ux, uy, half = x, y, dx, dy, lx, ly, h
    elif face == REAR:
        mx, my, nx, ny, ux, uy, half = x - depth * dx, y - depth * dy, -dx, -dy, lx, ly, h
    else:
        sgn = 1.0 if side == 1 else -1.0
        mx = x - dx * depth / 2 + sgn * h * lx
        my = y - dy * depth / 2 + sgn * h * ly
        nx, ny, ux, uy, half = sgn * lx, sgn * ly, dx, dy, depth / 2
    return mx - ux * half, my - uy * half, mx + ux * half, my + uy * half, mx, my, nx, ny


# distances below are compared squared and rooted once: the root is monotone and correctly
# rounded, so the root of the least square is the least root, to the last bit
@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _seg_point2(px, py, ax, ay, bx, by):
    """The squared distance from a point to a segment."""
    vx, vy = bx - ax, by - ay
    wx, wy = px - ax, py - ay
    vv = vx * vx + vy * vy
    t = 0.0
    if vv > 0.0:
        t = (wx * vx + wy * vy) / vv
        t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
    ex, ey = wx - t * vx, wy - t * vy
    return ex * ex + ey * ey


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _cross(ox, oy, ax, ay, bx, by):
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@njit(**BORROWING)
def segments_cross(ax, ay, bx, by, cx, cy, dx, dy):
    d1 = _cross(cx, cy, dx, dy, ax, ay)
    d2 = _cross(cx, cy, dx, dy, bx, by)
    d3 = _cross(ax, ay, bx, by, cx, cy)
    d4 = _cross(ax, ay, bx, by, dx, dy)
    if d1 == 0.0 or d2 == 0.0 or d3 == 0.0 or d4 == 0.0:
        return False
    return ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0))


@njit(**BORROWING)
def segment_distance(ax, ay, bx, by, cx, cy, dx, dy):
    if segments_cross(ax, ay, bx, by, cx, cy, dx, dy):
        return 0.0
    return math.sqrt(min(_seg_point2(ax, ay, cx, cy, dx, dy), _seg_point2(bx, by, cx, cy, dx, dy),
                         _seg_point2(cx, cy, ax, ay, bx, by), _seg_point2(dx, dy, ax, ay, bx, by)))


@njit(**BORROWING)
def point_distance2(p, px, py):
    """The squared distance from a point to rectangle p (0 inside)."""
    ahead, left = local(p, px, py)
    depth = p[4]
    da = ahead if ahead > 0.0 else (-depth - ahead if ahead < -depth else 0.0)
    h = p[3] / 2
    dl = left - h if left > h else (-h - left if left < -h else 0.0)
    return da * da + dl * dl


@njit(**BORROWING)
def _separated(p, q, cp, cq):
    """Separating-axis test of two rectangles (corners cp, cq); touching counts as apart."""
    for box in range(2):
        c = p[5] if box == 0 else q[5]
        s = p[6] if box == 0 else q[6]
        for axis in range(2):
            if axis == 0:
                ux, uy = c, s
            else:
                ux, uy = -s, c
            pmin, pmax, qmin, qmax = 1e300, -1e300, 1e300, -1e300
            for i in range(4):
                a = cp[i, 0] * ux + cp[i, 1] * uy
                b = cq[i, 0] * ux + cq[i, 1] * uy
                pmin, pmax = min(pmin, a), max(pmax, a)
                qmin, qmax = min(qmin, b), max(qmax, b)
            if pmax <= qmin + 1e-6 or qmax <= pmin + 1e-6:
                return True
    return False


@njit(**BORROWING)
def box_distance(p, q, cp, cq):
    """Distance between rectangles p and q (arrays of 5 floats; scratch corners cp, cq)."""
    corners(p, cp)
    corners(q, cq)
    if not _separated(p, q, cp, cq):
        return 0.0
    best = 1e300
    for i in range(4):
        best = min(best, point_distance2(q, cp[i, 0], cp[i, 1]))
        best = min(best, point_distance2(p, cq[i, 0], cq[i, 1]))
    return math.sqrt(best)


@njit(**BORROWING)
def overlaps(p, q, cp, cq):
    corners(p, cp)
    corners(q, cq)
    return not _separated(p, q, cp, cq)


@njit(**BORROWING)
def radius(width, depth):
    return 0.5 * math.sqrt(width * width + depth * depth)


#: inches either side of an edge where a squared distance leaves the answer to the root:
#: beyond it the square decides exactly as the root would (rounding is ~1e-12 here)
EDGE = 1e-6


@njit(**BORROWING)
def farther_than(p, q, reach):
    ax, ay = centre(p)
    bx, by = centre(q)
    return apart(ax - bx, ay - by, radius(p[3], p[4]), radius(q[3], q[4]), reach)


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def apart(dx, dy, rp, rq, reach):
    """:func:`farther_than` on its parts, for a caller that has them: the offset of p's middle
    from q's, and their radii."""
    d2 = dx * dx + dy * dy
    edge = rp + rq + reach
    if d2 > (edge + EDGE) * (edge + EDGE) and edge + EDGE >= 0.0:  # most pairs: far apart
        return True
    if edge > EDGE and d2 < (edge - EDGE) * (edge - EDGE):
        return False
    return math.hypot(dx, dy) - rp - rq > reach


@njit(**BORROWING)
def gap_within(p, q, cp, cq, reach):
    """box_distance(p, q) when it is at most ``reach``, else -1. Each rectangle lies within
    half its diagonal of its middle, so circles that far apart answer most pairs without the
    corners."""
    if farther_than(p, q, reach + EDGE):
        return -1.0
    gap = box_distance(p, q, cp, cq)
    return gap if gap <= reach else -1.0


@njit(**BORROWING)
def within(p, q, cp, cq, reach):
    """box_distance(p, q) <= reach (:func:`gap_within`)."""
    return gap_within(p, q, cp, cq, reach) >= 0.0


@njit(**BORROWING)
def crosses(ax, ay, bx, by, q, cq):
    """FB-B6: the segment passes through rectangle q (sight blocked)."""
    mx, my = centre(q)  # a segment this far from the middle cannot touch q: most units
    far = radius(q[3], q[4]) + EDGE  # (squared: either side of it the exact test says no too)
    if _seg_point2(mx, my, ax, ay, bx, by) > far * far:
        return False
    if contains(q, ax, ay, -1e-6) or contains(q, bx, by, -1e-6):
        return True
    corners(q, cq)
    for i in range(4):
        j = (i + 1) % 4
        if segments_cross(ax, ay, bx, by, cq[i, 0], cq[i, 1], cq[j, 0], cq[j, 1]):
            return True
    return False


@njit(**BORROWING)
def on_table(p, width, depth, cp):
    corners(p, cp)
    for i in range(4):
        if cp[i, 0] < -1e-6 or cp[i, 0] > width + 1e-6 or cp[i, 1] < -1e-6 \
                or cp[i, 1] > depth + 1e-6:
            return False
    return True


@njit(**BORROWING)
def angle_diff(a, b):
    d = (a - b + math.pi) % (2 * math.pi) - math.pi
    return d


def scratch() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((4, 2)), np.zeros((4, 2))
