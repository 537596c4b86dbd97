"""How many Monte Carlo trials each kind of question runs when ``n_trials`` is not given.

The one place for these defaults: the engines use them and ``--help`` states them (this
module imports nothing, so the command line's help needs no numpy).
"""

from __future__ import annotations

#: a single query (a roll, an attack chain, a duel): se ≤ 0.05 percentage points
QUERY = 1_000_000
#: a close combat, a challenge, an artillery shot: ± 0.1 % on every probability
COMBAT = 200_000
CHALLENGE = 200_000
ARTILLERY = 200_000
#: whole game turns (each trial walks every phase)
TURN = 240_088  # every probability to ±0.2 percentage points (95%)
#: one cell of a ``compare`` matrix or ``sweep`` curve: se ≤ 0.16 percentage points
CELL = 100_000
#: one cell of a ``score``/``diff`` ledger, and the first (screening) fidelity of ``tune``
SCORE_CELL = 20_000
TUNE_SCREEN = 500
#: whole battles of two army lists (fb battle): ± 1.1 percentage points on P(win)
BATTLE = 2_000
