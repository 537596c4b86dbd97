"""Warmachine Mk II battles: two battlegroups turn after turn to the caster kill (issue 31).

Modules: :mod:`.setup` (sides from lists), :mod:`.table` (table, deployment, distances),
:mod:`.state` (what changes), :mod:`.game` (a battle's fixed parts and activation
programs), :mod:`.attacks` (activations played from the board state), :mod:`.orders` (who
attacks whom, how models move), :mod:`.turn` (the turn sequence), :mod:`.policies` and
:mod:`.response` (who decides), :mod:`.planner` (the plan search in a battle),
:mod:`.runner` (many battles), :mod:`.report` (the answer). Rules: WM-B1.. in docs/rules.md.
"""
