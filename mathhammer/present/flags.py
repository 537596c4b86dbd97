"""The command line's spelling of the library's parameters: ``‹n_trials›`` → ``--n-trials``.

The library names a parameter in its messages as ``‹name›`` (:data:`mathhammer.errors.PARAM`)
and never builds a flag; the command line and the web page (which shows the command
line) spell it as the flag here, the one place that knows the flags. A name whose flag is
not ``--`` + the name with ``-`` for ``_`` is listed in :data:`FLAGS`.
"""

from __future__ import annotations

from mathhammer.errors import spell_params

#: library parameter -> its flag, where the flag is not the name with dashes
FLAGS = {
    "extra_hit_dice": "--extra-hit-die",
    "extra_damage_dice": "--extra-damage-die",
    "ws_attacker": "--ws",
    "ws_defender": "--target-ws",
    "armour_piercing": "--ap",
}


def flag(name: str) -> str:
    """``n_trials`` → ``--n-trials``."""
    return FLAGS.get(name) or "--" + name.replace("_", "-")


def with_flags(text: str) -> str:
    """``text`` with every ``‹name›`` written as its flag."""
    return spell_params(text, flag)


def error_line(err) -> str:
    """A :class:`~mathhammer.errors.MathhammerError` as the command line prints it."""
    return err.one_line(flag)
