"""Numbers written as text: command-line values, inline stats and list-builder exports.

One reading for all of them. A whole number is ASCII digits with an optional sign, at
most :data:`MAX_DIGITS` of them; a decimal may add a fraction and an exponent and must be
finite. Anything else — a word (``inf``, ``nan``), other digits (``²``, ``١٢``), a
5,000-digit value — is "not a number" here, so the caller says so in one line instead of
Python's int-conversion limit (4,300 digits) escaping as a traceback. The length is
checked before any pattern runs, so a long value costs no more than reading it.
"""

from __future__ import annotations

import math
import re

from mathhammer.errors import InputError

#: no count, stat or points value has more digits (and every such value is exact in a float)
MAX_DIGITS = 15
_MAX_DECIMAL_CHARS = 40
_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")


def whole_text(text: str) -> int | None:
    """The whole number ``text`` spells (spaces around allowed), or None."""
    text = text.strip()
    if len(text.lstrip("+-")) > MAX_DIGITS or not _WHOLE.fullmatch(text):
        return None
    return int(text)


def decimal_text(text: str) -> float | None:
    """The finite number ``text`` spells in decimal notation (``175``, ``-1.0``, ``2e3``),
    or None (``inf``, ``nan``, ``1e400``, words, over 40 characters)."""
    text = text.strip()
    if len(text) > _MAX_DECIMAL_CHARS or not _DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def read_whole(text: str, where: str, low: int, high: int, fix: str) -> int:
    """``text`` as a whole number from ``low`` to ``high``, or one :class:`InputError` line
    naming ``where`` and the value as given (shortened when long)."""
    value = whole_text(text)
    if value is None or not low <= value <= high:
        raise InputError(where, f"must be a whole number from {low} to {high}", shown(text), fix)
    return value


def shown(text: str, limit: int = 40) -> str:
    """A value as typed, for an error line: a long one keeps its head and says its length."""
    text = text.strip()
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"
