"""``mathhammer run`` with ``kind = "battle"``: a battle as a version-controlled file::

    game = "fantasy"
    kind = "battle"
    title = "Empire against the Orcs"     # optional

    [battle]
    list_a = "wfb8_empire"                # a bundled list name or a list file (relative
    list_b = "wfb8_orcs"                  # to this file)
    turns = 6
    policy_a = "greedy"                   # scripted | greedy | best-response
    policy_b = "best-response"
    first = "roll-off"                    # a | b | roll-off
    deployment = "lines.toml"             # optional: a deployment file, or an inline
    rollouts = 8                          # [battle.deployment] table (see deploy.py)
    iterations = 1
    n_trials = 2000                       # battles, unless --n-trials is given
    workers = 1                           # worker processes (same answer for any count)
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mathhammer.errors import ProfileError


class BattleEntry(BaseModel):
    # strict: turns = "2" in a file is text, refused as such (TOML writes numbers as numbers)
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    list_a: str = Field(min_length=1)
    list_b: str = Field(min_length=1)
    turns: int = Field(6, ge=1, le=12)
    policy_a: Literal["scripted", "greedy", "best-response"] = "greedy"
    policy_b: Literal["scripted", "greedy", "best-response"] = "greedy"
    first: Literal["a", "b", "roll-off"] = "roll-off"
    deployment: str | dict | None = None
    rollouts: int = Field(8, ge=1, le=256)
    iterations: int = Field(1, ge=1, le=3)
    n_trials: int = Field(2000, ge=1, le=10_000_000)
    workers: int = Field(1, ge=1, le=256)


def run_battle_scenario(table: dict | None, source: str, config, title: str = "",
                        n_trials: int | None = None):
    """Validate the ``[battle]`` table and play it (lists and deployment files are found
    beside the scenario file first)."""
    from mathhammer.fantasy.battle.report import battle
    from mathhammer.profiles import pydantic_errors

    if table is None:
        raise ProfileError(f"{source}: battle", "a battle scenario needs a [battle] table", None,
                           'add [battle] list_a = "wfb8_empire", list_b = "wfb8_orcs"')
    try:
        entry = BattleEntry.model_validate(table)
    except ValidationError as err:
        raise pydantic_errors(err, f"{source}: battle") from None
    base = Path(source).resolve().parent

    from mathhammer.errors import within
    from mathhammer.fantasy.battle.army import fantasy_list
    from mathhammer.lists import load_list
    from mathhammer.profiles import beside, file_beside, read_toml

    armies = [fantasy_list(within(f"{source}: battle.{key}", load_list, beside(ref, base)),
                           f"{source}: battle.{key}")
              for key, ref in (("list_a", entry.list_a), ("list_b", entry.list_b))]
    deployment, deployment_source = entry.deployment, f"{source}: battle.deployment"
    if isinstance(deployment, str):
        path = file_beside(f"{source}: battle.deployment", deployment, base)
        deployment = within(f"{source}: battle.deployment", read_toml, path)
        deployment_source = str(path)
    n_trials = entry.n_trials if n_trials is None else n_trials  # ‹n_trials› given wins
    report = battle(armies[0], armies[1], turns=entry.turns, deployment=deployment,
                    deployment_source=deployment_source, policy_a=entry.policy_a,
                    policy_b=entry.policy_b, first=entry.first, n_trials=n_trials,
                    seed=config.seed, workers=entry.workers, rollouts=entry.rollouts,
                    iterations=entry.iterations, progress=config.progress)
    if title:
        report.title = title
    return report
