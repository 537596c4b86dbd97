"""Warmachine Mk II: attack and damage chains, the warjack grid, focus, AOE, activations."""
