"""The values behind each side's first decision (issue 30, part 5): one battle on its own
stream, played where the run's tables are (this process, or a worker: distributed.py)."""

from __future__ import annotations

#: a run's tally may carry the first decisions, played by a worker process
FIRST_DECISIONS = "first_decisions"
FIRST_STREAM = 10**9  # a chunk number no run reaches: the first-decisions battle's own dice


def first_decisions(plan, seed: int) -> list[dict]:
    """Each side's first real decision (more than one option) in one battle played on its
    own stream, with the value its policy gave every option: greedy's exact one-step values
    (se 0), best-response's rollout means ± se (VP margin for the deciding side)."""
    from mathhammer.fantasy.battle.phases import play
    from mathhammer.fantasy.battle.runner import kernel_of, new_battle
    from mathhammer.rng import chunk_state

    words = chunk_state(seed, FIRST_STREAM)
    if plan.engine == "kernel":
        return _kernel_first(plan, kernel_of(plan).first_decisions(words))
    state = new_battle(plan, words)
    state.first_values = {}
    play(plan, state)
    out = []
    for side in (0, 1):
        entry = state.first_values.get(side)
        if entry is not None:
            out.append({"side": "AB"[side], "policy": plan.policies[side].describe(), **entry})
    return out


def _kernel_first(plan, first) -> list[dict]:
    """The kernel's record (per side: recorded, kind, unit, n, values, se, option slots)."""
    from mathhammer.fantasy.battle.compile import KINDS

    labels = {}
    for (_side, kind, u, label), index in plan.vocabulary.items():
        labels.setdefault((u, kind), []).append((index, label))
    out = []
    for side in (0, 1):
        row = first[side]
        if row[0] == 0 or plan.policies[side].name == "scripted":
            continue
        kind, u, n = KINDS[int(row[1])], int(row[2]), int(row[3])  # the kernel's K_*
        block = [label for _i, label in sorted(labels[(u, kind)])]
        options = [{"option": block[int(row[36 + k])], "value": float(row[4 + k]),
                    "se": float(row[20 + k])} for k in range(n)]
        out.append({"side": "AB"[side], "policy": plan.policies[side].describe(), "kind": kind,
                    "unit": plan.units[u].label, "options": options})
    return out
