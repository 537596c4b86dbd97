"""``--explain``: how a query was worked out, stage by stage, with exact fractions.

Each engine has a builder returning a list of :class:`Step` (a stage, what the
rules made of the inputs, the exact chance of getting through it, the docs/rules.md
ids it used); :func:`attach` turns them into readable lines under
``report.info["explain"]``, followed by the rules the command follows and every
**decision** (docs/rules.md) among them. A command without its own builder still
explains which rules and decisions it follows (:func:`attach` with no steps).

>>> Step("to hit", "4+ on a D6", Fraction(1, 2), ("FB-H1",)).line()
'to hit: 4+ on a D6 → 1/2 = 50.00% [FB-H1]'
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

#: docs/rules.md decisions (and this project's own, where a ruleset file records one), by id
DECISIONS: dict[str, str] = {
    "WM-A4": "an automatic hit still rolls its attack dice, to decide criticals",
    "WM-D4": "each blast damage roll is boosted separately, 1 focus each "
             "(the rules text is unverified)",
    "FB-W1": "t9a1 wounds on the same S − T chart as wfb8 (its own chart is unverified)",
    "FB-C5": "wfb8 Undead Unstable / Daemonic Instability: the unit loses wounds as the "
             "combat result, without a test (ruleset file wfb8.toml)",
    "WM-G5": "several points of first-available damage mark one X box each; what is left "
             "once X is full overflows by WM-G2 from the last X box's column (not lost)",
    "WM-E2": "a feat is used as its warcaster's activation starts and reaches the target "
             "(control area and line of sight assumed)",
    "MG-1": "t9a1 magic flow is worked out like wfb8's (the 1.x flux table is unverified)",
}

#: decisions that hold only in some rulesets: listed only when a builder names them
_CONDITIONAL = {"FB-W1", "FB-C5", "MG-1"}

#: the docs/rules.md ids each command follows (``--explain`` lists them)
COMMAND_RULES: dict[str, tuple[str, ...]] = {
    "roll": ("DICE-1", "DICE-2"),
    "roll_off": ("DICE-6",),
    "scatter": ("DICE-2", "DICE-4", "DICE-7"),
    "warmachine.attack": ("WM-A1", "WM-A2", "WM-A3", "WM-A4", "WM-A5", "WM-A6", "WM-A7", "WM-A8",
                  "WM-D1", "WM-D2", "WM-D3"),
    "warmachine.aoe": ("WM-A1", "WM-A2", "WM-A3", "WM-A6", "WM-A7", "WM-D1", "WM-D4", "WM-D5",
               "WM-D6", "WM-D7"),
    "warmachine.duel": ("WM-A1", "WM-A2", "WM-A3", "WM-A4", "WM-A5", "WM-A6", "WM-A7", "WM-D1",
                "WM-D2", "WM-D3", "WM-G1", "WM-G2", "WM-G3", "WM-G4", "WM-G5", "WM-G6",
                "WM-G7", "WM-F1", "WM-F2", "WM-F3", "WM-F4", "WM-F5"),
    # a Warmachine scenario (fantasy and magic scenarios report their own command)
    "warmachine.scenario": ("WM-S1", "WM-S2", "WM-A1", "WM-A2", "WM-A3", "WM-A4", "WM-A5", "WM-A6", "WM-A7",
            "WM-D1", "WM-D2", "WM-D3", "WM-G1", "WM-G2", "WM-G3", "WM-G4", "WM-G5", "WM-G6",
            "WM-G7", "WM-F1", "WM-F2", "WM-F3", "WM-F4", "WM-F5"),
    "fantasy.attack": ("FB-H1", "FB-H3", "FB-W1", "FB-W2", "FB-V1", "FB-V2", "FB-V3", "FB-V4",
                  "DICE-5"),
    "fantasy.shoot": ("FB-H2", "FB-W1", "FB-W2", "FB-V1", "FB-V2", "FB-V3", "FB-V4", "DICE-5"),
    "fantasy.test": ("FB-T1", "FB-T2", "FB-T3", "FB-T4", "DICE-5"),
    "fantasy.break_test": ("FB-T2", "FB-C5", "DICE-5"),
    "fantasy.pursuit": ("FB-C6",),
    "fantasy.charge": ("FB-G1", "FB-G2", "FB-G3"),
    "fantasy.turn": ("FB-G1", "FB-G2", "FB-G3", "FB-G4", "FB-G5", "FB-H2", "FB-C1", "FB-C2",
                "FB-C3", "FB-C4", "FB-C5", "FB-C6"),
    "warmachine.plan": ("WM-P1", "WM-E1", "WM-E2", "WM-E3", "WM-E4", "WM-F1", "WM-F5", "WM-S1",
                "WM-A1", "WM-A4", "WM-A6", "WM-A7", "WM-D1", "WM-D2", "WM-D3", "WM-G1",
                "WM-G2", "WM-G3", "WM-G4", "WM-G6"),
    "fantasy.combat": ("FB-C1", "FB-C2", "FB-C3", "FB-C4", "FB-C5", "FB-C6", "FB-C7", "FB-H1",
                  "FB-W1", "FB-V1", "FB-V2", "FB-V4", "FB-K1", "FB-K2", "FB-K3", "FB-K4",
                  "FB-M1", "FB-M2", "FB-M3", "FB-M4", "FB-P1", "FB-E1", "FB-S1", "FB-S3"),
    "fantasy.challenge": ("FB-K3", "FB-C2", "FB-C3", "FB-C7", "FB-H1", "FB-W1", "FB-W2", "FB-V1",
                     "FB-V2", "FB-V3"),
    "fantasy.artillery": ("FB-R1", "FB-R2", "FB-R3", "FB-R4", "FB-R5", "FB-R6", "FB-R7", "DICE-3",
                     "DICE-4", "DICE-7"),
    "magic.flow": ("MG-1", "MG-2", "MG-3"),
    "magic.cast": ("MG-4", "MG-5", "MG-7", "MG-10"),
    "magic.dispel": ("MG-6",),
    "magic.phase": ("MG-1", "MG-2", "MG-3", "MG-4", "MG-5", "MG-6", "MG-7", "MG-8", "MG-9",
                    "MG-10"),
    "magic.optimise": ("MG-4", "MG-5", "MG-6", "MG-9"),
    # battles: the battle rules, and the engines' rules each phase plays (docs/rules.md)
    "fantasy.battle": ("FB-B1", "FB-B2", "FB-B3", "FB-B4", "FB-B5", "FB-B6", "FB-B7", "FB-B8",
                       "FB-B9", "FB-B10", "FB-B11", "FB-B12", "FB-B20", "FB-B21", "FB-B22",
                       "FB-B30", "FB-B31", "FB-WM2", "FB-G1", "FB-G3", "FB-G4", "FB-H2",
                       "FB-C1", "FB-C3", "FB-C4", "FB-C5", "FB-C6", "FB-K3", "FB-M1", "FB-M4",
                       "MG-1", "MG-3", "MG-4", "MG-5", "MG-6", "MG-7", "MG-10", "DICE-6"),
    "warmachine.battle": ("WM-B1", "WM-B2", "WM-B3", "WM-B4", "WM-B5", "WM-B6", "WM-B7",
                          "WM-B8", "WM-B9", "WM-B10", "WM-B11", "WM-B12", "WM-B13", "WM-A6",
                          "WM-A9", "WM-D2", "WM-D3", "WM-D7", "WM-E1", "WM-E2", "WM-E3",
                          "WM-F1", "WM-F2", "WM-F3", "WM-F5", "WM-G2", "WM-G4", "WM-S1",
                          "DICE-6"),
}


def fraction_text(p: Fraction) -> str:
    """``49/54 = 90.74%`` (``1`` and ``0`` stay whole)."""
    p = Fraction(p)
    if p.denominator == 1:
        return f"{p.numerator} = {100 * p.numerator:.2f}%"
    return f"{p.numerator}/{p.denominator} = {100 * float(p):.2f}%"


@dataclass(frozen=True)
class Step:
    """One stage of a query: what the rules made of the inputs, and the exact chance."""

    stage: str
    detail: str
    p: Fraction | None = None  # chance of getting through this stage (given the ones before)
    rules: tuple[str, ...] = ()

    def line(self) -> str:
        text = f"{self.stage}: {self.detail}"
        if self.p is not None:
            text += f" → {fraction_text(self.p)}"
        if self.rules:
            text += f" [{', '.join(self.rules)}]"
        return text


def explanation(command: str, steps: list[Step] | tuple[Step, ...] = (),
                decisions: tuple[str, ...] = ()) -> list[str]:
    """Readable lines: the steps, the rules the command follows, the decisions in play.

    A decision is listed when a step or the command cites its id; one that holds
    only in some rulesets (e.g. the t9a1 to-wound chart) only when the caller names
    it in ``decisions``.
    """
    lines = [step.line() for step in steps]
    followed = COMMAND_RULES.get(command, ())
    if followed:
        lines.append("rules followed: " + ", ".join(followed) + " (docs/rules.md; `mathhammer rules ID`)")
    cited = {r for step in steps for r in step.rules} | set(followed) | set(decisions)
    for rule in sorted(cited):
        if rule in DECISIONS and (rule in decisions or rule not in _CONDITIONAL):
            lines.append(f"decision {rule}: {DECISIONS[rule]}")
    return lines



def attach(report, steps: list[Step] | tuple[Step, ...] = (), decisions: tuple[str, ...] = ()):
    """Put :func:`explanation` under ``report.info["explain"]``; returns the report."""
    report.info["explain"] = explanation(report.command, steps, decisions)
    return report
