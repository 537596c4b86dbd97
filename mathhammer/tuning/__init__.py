"""List tuning: a list's score against a meta (:mod:`.score`) and paired variant comparison.

The score of a list is built from the same cells as ``compare`` (one activation or one
combat of an attacker against a target, :mod:`mathhammer.analysis.cells`); this package
only weighs them: by the meta's list weights, the targets' points and the units' counts.
"""

from mathhammer.tuning.meta import Meta, load_meta
from mathhammer.tuning.score import ScoreTable, diff_lists, score_list

__all__ = ["Meta", "load_meta", "ScoreTable", "score_list", "diff_lists"]
