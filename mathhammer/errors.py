"""Typed errors. Each carries where / what / got / fix and renders as one line.

The CLI prints ``error.one_line()`` to stderr and exits 2; no traceback is shown
for any subclass of :class:`MathhammerError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

#: a parameter named in a message, ``‹n_trials›``: the library shows the name, a front end
#: its own spelling of it (the command line's ``--n-trials``, :mod:`mathhammer.present.flags`)
PARAM = re.compile(r"‹([A-Za-z0-9_]+)›")


def spell_params(text: str, spell: Callable[[str], str] | None = None) -> str:
    """``text`` with every ``‹name›`` written by ``spell(name)`` (default: the bare name)."""
    if "‹" not in text:
        return text
    return PARAM.sub(lambda m: (spell or str)(m.group(1)), text)


class MathhammerError(Exception):
    """Bad input or an impossible request, explained in one line.

    Args:
        where: the flag, file and key path, or argument that is wrong
            (``--n-trials``, ``profiles/x.toml: weapons[0].pow``).
        what: what is wrong, in words.
        got: the value given (rendered with ``repr`` unless already a string).
        fix: how to fix it, ideally with a valid example.
    """

    def __init__(self, where: str, what: str, got: Any = None, fix: str = "") -> None:
        self.where = where
        self.what = what
        self.got = got
        self.fix = fix
        super().__init__(self.one_line())

    def one_line(self, spell: Callable[[str], str] | None = None) -> str:
        """The error in one line; parameters (``‹n_trials›``) as ``spell`` writes them: the
        library's own names by default, the command line passes its flags."""
        where, what, fix = (_cut(spell_params(str(self.where), spell), 300),
                            _cut(spell_params(str(self.what), spell), MAX_WHAT),
                            _cut(spell_params(str(self.fix), spell), 300))
        parts = [f"{where}: {what}"]
        if self.got is not None:
            got = self.got if isinstance(self.got, str) else repr(self.got)
            if len(got) > 80:
                got = got[:77] + "..."
            parts.append(f"(got {got})")
        text = " ".join(parts)
        if fix:
            text += f"; fix: {fix}"
        # one line, whatever the parts contained; no control character reaches a terminal
        return printable(" ".join(text.split()))


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: every control, format or unassigned
    character (ESC, NUL, DEL, C1 codes, bidi overrides, lone surrogates) shown as its
    escape (``\\x1b``, ``\\u202e``); printable text, spaces included, is unchanged."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == " " else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


#: the longest "what" an error line carries (a report of many problems is cut here, so
#: an error line stays a few kB whatever the input)
MAX_WHAT = 4000


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[: limit - 20]}... ({len(text):,} chars)"


def within(where: str, load: Callable, *args: Any):
    """``load(*args)``; an error it raises names ``where`` as well — a file a scenario names
    (its list, its deployment) keeps its own place in the message after the scenario's key."""
    try:
        return load(*args)
    except MathhammerError as err:
        raise type(err)(f"{where}: {err.where}", err.what, err.got, err.fix) from None


class InputError(MathhammerError):
    """A command-line flag or library argument has an impossible value."""


class DiceExpressionError(MathhammerError):
    """Dice text that does not parse (DICE-2); names the column."""


class ProfileError(MathhammerError):
    """A profile, list or scenario file is malformed or inconsistent (PR-3)."""


class UnknownProfileError(ProfileError):
    """A profile id that matches no bundled or user file; suggests close ids."""


class OtherGameError(ProfileError):
    """A profile file that says it is another game's (its ``game`` key): one line, not the
    other game's schema failing on every key."""


class InputFileError(ProfileError):
    """A file given as input cannot be read: not a regular file (FIFO, device, folder),
    over its size limit, not UTF-8, an archive that is too large or escapes (issue 18)."""


class RulesError(MathhammerError):
    """A request the rules do not allow (e.g. 4 focus on a warjack, WM-F1)."""


class OutputError(MathhammerError):
    """An output file (``--output``, ``--plot``) cannot be written."""


class TrialLimitError(InputError):
    """A Monte Carlo request beyond the bounded-run limits."""


class InternalError(RuntimeError):
    """A state the program built itself that it cannot go on from: a bug, not bad input
    (not a :class:`MathhammerError`, so it is never printed as a fault of the input)."""


def engine_fault(what: str, err: Exception) -> InternalError:
    """``err``, raised on something the engine built itself (not on the user's input), as the
    bug it is."""
    return InternalError(f"internal error: {what} ({err}); this is a bug in mathhammer, "
                         "please report it with the command that showed it")


class Interrupted(Exception):
    """Ctrl-C during a run. ``partial`` holds the report of finished chunks, if any."""

    def __init__(self, partial: Any = None) -> None:
        self.partial = partial
        super().__init__("interrupted")
