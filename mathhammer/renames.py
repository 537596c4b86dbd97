"""Result and distribution names that changed, by command (issue 15: names say what they
measure). An old name is refused, never aliased: reading it from a report raises a
``KeyError`` that names its replacement, and the README lists every rename.

This module imports nothing of the package (``results`` uses it).
"""

from __future__ import annotations

#: command -> {old name: new name} for results and distributions
RENAMED: dict[str, dict[str, str]] = {
    # "wounds" read as wounds caused; they are the wounds left after every save
    "fantasy.attack": {"wounds": "unsaved_wounds", "mean_wounds": "mean_unsaved_wounds",
                  "slain": "models_slain", "mean_slain": "mean_models_slain"},
    "fantasy.shoot": {"wounds": "unsaved_wounds", "mean_wounds": "mean_unsaved_wounds",
                 "slain": "models_slain", "mean_slain": "mean_models_slain"},
    "fantasy.artillery": {"wounds": "unsaved_wounds", "mean_wounds": "mean_unsaved_wounds"},
    # two natural 6s are "irresistible force" in wfb8 only; in t9a1 they are overwhelming power
    "magic.cast": {"p_irresistible": "p_two_sixes"},
    # the whole fight, not its first round; a "draw" was two different endings
    "fantasy.combat": {
        "p_win": "p_a_wins (the whole fight: every B unit broke or was destroyed, A still fights)",
        "p_lose": "p_b_wins",
        "p_draw": "p_both_standing (both still fighting after the last round) or p_both_out",
        "p_win_first_round": "p_a_wins_round_1 (A's combat score higher after round 1)",
        "p_draw_first_round": "p_round_1_tied",
        "p_lose_first_round": "p_b_wins_round_1",
        "mean_combat_result": "mean_round_1_score_a_minus_b",
    },
}


class RenamedKeys(dict):
    """A report's results or distributions: an old name raises a KeyError naming the new one."""

    def __init__(self, data, renamed: dict[str, str]) -> None:
        super().__init__(data)
        self.renamed = renamed

    def __missing__(self, key):
        if key in self.renamed:
            raise KeyError(f"{key!r} was renamed: read {self.renamed[key]!r}")
        raise KeyError(key)
