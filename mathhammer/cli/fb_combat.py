"""`mathhammer fb combat` and `mathhammer fb artillery` (registered on the fb group)."""

from __future__ import annotations

from mathhammer.cli.fb import app  # noqa: F401  commands below register on this group
