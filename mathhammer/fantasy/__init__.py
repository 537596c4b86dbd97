"""Warhammer Fantasy family (rulesets basic, wfb8, t9a1): chains, combat, tests, artillery."""
