"""Table geometry (FB-B1, FB-B4..FB-B7): rectangles, arcs, distances, sight, moves.

A unit is a rectangle given by the midpoint of its front edge ``(x, y)``, its facing
``theta`` (radians; forward is ``(cos θ, sin θ)``), its frontage and its depth; it
extends behind its front edge. Everything here is plain floats (no numpy): the battle
asks these questions thousands of times per battle.

* **Arcs (FB-B4).** Lines at 45° from a unit's corners split the table around it: a point
  is in its front arc when it lies ahead of the front edge and no further sideways than
  the half frontage plus its distance ahead; the rear arc is the same behind the rear
  edge; the rest are the left and right flank arcs.
* **Distances.** Between two rectangles: 0 when they touch, else the shortest distance
  between their edges.
* **Sight (FB-B6).** A segment is blocked by a rectangle it crosses.
"""

from __future__ import annotations

import math

FRONT, FLANK, REAR = 0, 1, 2
LEFT, RIGHT = 1, -1
FACE_NAMES = ("front", "flank", "rear")
#: FB-B2: units placed this close (inches) touch: a gap a hand-placed file leaves
TOUCHING = 0.05


class Box:
    """A rectangle on the table (see the module docstring)."""

    __slots__ = ("x", "y", "theta", "width", "depth", "dx", "dy", "lx", "ly")

    def __init__(self, x: float, y: float, theta: float, width: float, depth: float):
        self.x, self.y, self.theta, self.width, self.depth = x, y, theta, width, depth
        self.dx, self.dy = math.cos(theta), math.sin(theta)  # forward
        self.lx, self.ly = -self.dy, self.dx  # to the unit's left

    def local(self, px: float, py: float) -> tuple[float, float]:
        """(ahead of the front edge, to the left of the centre line) of a point."""
        rx, ry = px - self.x, py - self.y
        return rx * self.dx + ry * self.dy, rx * self.lx + ry * self.ly

    def point(self, ahead: float, left: float) -> tuple[float, float]:
        return (self.x + ahead * self.dx + left * self.lx, self.y + ahead * self.dy + left * self.ly)

    def corners(self) -> list[tuple[float, float]]:
        """Front left, front right, back right, back left."""
        h = self.width / 2
        return [self.point(0.0, h), self.point(0.0, -h), self.point(-self.depth, -h),
                self.point(-self.depth, h)]

    def centre(self) -> tuple[float, float]:
        return self.point(-self.depth / 2, 0.0)

    def edges(self) -> list[tuple[tuple[float, float], tuple[float, float]]]:
        c = self.corners()
        return [(c[i], c[(i + 1) % 4]) for i in range(4)]

    def contains(self, px: float, py: float, margin: float = 1e-9) -> bool:
        ahead, left = self.local(px, py)
        return -self.depth - margin <= ahead <= margin and abs(left) <= self.width / 2 + margin

    def arc(self, px: float, py: float) -> tuple[int, int]:
        """FB-B4: (FRONT / FLANK / REAR, LEFT or RIGHT side) of a point around this unit."""
        ahead, left = self.local(px, py)
        h = self.width / 2
        side = LEFT if left >= 0 else RIGHT
        if ahead >= 0 and abs(left) <= h + ahead:
            return FRONT, side
        behind = -(ahead + self.depth)
        if behind >= 0 and abs(left) <= h + behind:
            return REAR, side
        return FLANK, side

    def in_front_arc(self, px: float, py: float) -> bool:
        return self.arc(px, py)[0] == FRONT

    def face(self, face: int, side: int = LEFT) -> tuple[tuple[float, float], tuple[float, float],
                                                         tuple[float, float], float]:
        """(midpoint, outward normal, half the face's length, ...) of a face: the charger's
        front is placed on the midpoint, facing against the normal (FB-B4)."""
        h = self.width / 2
        if face == FRONT:
            return self.point(0.0, 0.0), (self.dx, self.dy), (self.lx, self.ly), h
        if face == REAR:
            return self.point(-self.depth, 0.0), (-self.dx, -self.dy), (self.lx, self.ly), h
        sgn = 1.0 if side == LEFT else -1.0
        return (self.point(-self.depth / 2, sgn * h), (sgn * self.lx, sgn * self.ly),
                (self.dx, self.dy), self.depth / 2)

    def face_segment(self, face: int, side: int = LEFT):
        (mx, my), _n, (ax, ay), half = self.face(face, side)
        return (mx - ax * half, my - ay * half), (mx + ax * half, my + ay * half)

    def front_segment(self):
        return self.face_segment(FRONT)


def _seg_point(p, a, b) -> float:
    ax, ay = a
    bx, by = b
    vx, vy = bx - ax, by - ay
    wx, wy = p[0] - ax, p[1] - ay
    vv = vx * vx + vy * vy
    t = 0.0 if vv == 0.0 else max(0.0, min(1.0, (wx * vx + wy * vy) / vv))
    dx, dy = wx - t * vx, wy - t * vy
    return math.sqrt(dx * dx + dy * dy)


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def segments_cross(a, b, c, d) -> bool:
    d1, d2 = _cross(c, d, a), _cross(c, d, b)
    d3, d4 = _cross(a, b, c), _cross(a, b, d)
    return ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0)) and d1 != 0 and d2 != 0 \
        and d3 != 0 and d4 != 0


def segment_distance(a, b, c, d) -> float:
    if segments_cross(a, b, c, d):
        return 0.0
    return min(_seg_point(a, c, d), _seg_point(b, c, d), _seg_point(c, a, b), _seg_point(d, a, b))


def point_distance(box: Box, px: float, py: float) -> float:
    """Distance from a point to the rectangle (0 inside)."""
    rx, ry = px - box.x, py - box.y
    ahead = rx * box.dx + ry * box.dy
    left = rx * box.lx + ry * box.ly
    da = ahead if ahead > 0.0 else (-box.depth - ahead if ahead < -box.depth else 0.0)
    h = box.width / 2
    dl = left - h if left > h else (-h - left if left < -h else 0.0)
    return math.sqrt(da * da + dl * dl)


def radius(box: Box) -> float:
    return 0.5 * math.sqrt(box.width * box.width + box.depth * box.depth)


def distance(p: Box, q: Box) -> float:
    """Shortest distance between two rectangles (0 when they touch or overlap): two convex
    shapes apart are nearest at a corner of one against the other."""
    if _intersect(p, q):
        return 0.0
    best = math.inf
    for x, y in p.corners():
        best = min(best, point_distance(q, x, y))
    for x, y in q.corners():
        best = min(best, point_distance(p, x, y))
    return best


def farther_than(p: Box, q: Box, reach: float) -> bool:
    """A quick check that the rectangles are more than ``reach`` apart (centres and radii)."""
    (ax, ay), (bx, by) = p.centre(), q.centre()
    return math.hypot(ax - bx, ay - by) - radius(p) - radius(q) > reach


def segment_box_distance(a, b, q: Box) -> float:
    if q.contains(*a) or q.contains(*b):
        return 0.0
    return min(segment_distance(a, b, c, d) for c, d in q.edges())


def overlaps(p: Box, q: Box, gap: float = 0.0) -> bool:
    """True when the rectangles come closer than ``gap`` (touching counts when gap > 0)."""
    return distance(p, q) < gap - 1e-9 if gap > 0 else _intersect(p, q)


def _intersect(p: Box, q: Box) -> bool:
    """Overlap with positive area (touching edges do not count)."""
    for box in (p, q):  # separating axis test on the two boxes' axes
        for ux, uy in ((box.dx, box.dy), (box.lx, box.ly)):
            pa = [c[0] * ux + c[1] * uy for c in p.corners()]
            qa = [c[0] * ux + c[1] * uy for c in q.corners()]
            if max(pa) <= min(qa) + 1e-6 or max(qa) <= min(pa) + 1e-6:
                return False
    return True


def crosses(a, b, q: Box) -> bool:
    """FB-B6: the segment a-b passes through the rectangle (sight is blocked)."""
    if q.contains(*a, margin=-1e-6) or q.contains(*b, margin=-1e-6):
        return True
    return any(segments_cross(a, b, c, d) for c, d in q.edges())


def on_table(box: Box, width: float, depth: float) -> bool:
    return all(0.0 - 1e-6 <= x <= width + 1e-6 and 0.0 - 1e-6 <= y <= depth + 1e-6
               for x, y in box.corners())


def angle_to(box: Box, px: float, py: float) -> float:
    """The facing that points the unit's front midpoint at a point."""
    return math.atan2(py - box.y, px - box.x)


def turn_cost(box: Box, new_theta: float) -> float:
    """FB-B5: a wheel costs the distance its outer front corner moves (angle × frontage)."""
    return abs(angle_diff(new_theta, box.theta)) * box.width


def angle_diff(a: float, b: float) -> float:
    d = (a - b + math.pi) % (2 * math.pi) - math.pi
    return d
