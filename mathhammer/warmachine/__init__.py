"""Warmachine Mk II: attack and damage chains, the warjack grid, focus, AOE, activations."""

from mathhammer import subpackage_getattr

__getattr__ = subpackage_getattr(__name__)  # its modules on first use, no import first
