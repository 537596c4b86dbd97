"""Rulesets as data (FB-*, MG-*): the models of a ruleset file and the bundled files
``basic.toml``, ``wfb8.toml`` and ``t9a1.toml``."""
