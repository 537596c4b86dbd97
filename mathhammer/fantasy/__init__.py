"""Warhammer Fantasy family (rulesets basic, wfb8, t9a1): chains, combat, tests, artillery."""

from mathhammer import subpackage_getattr

__getattr__ = subpackage_getattr(__name__)  # mathhammer.fantasy.battle(...) with no import first
