"""Magic phase (MG-1..MG-10): flow, channel, casting, dispelling, whole phases.

Library entry points (each returns a :class:`mathhammer.results.Report`):

* :func:`mathhammer.magic.single.flow`, :func:`~mathhammer.magic.single.cast`,
  :func:`~mathhammer.magic.single.dispel` — single rolls, exact (or Monte Carlo);
* :func:`mathhammer.magic.scenario.run_phase` — a whole phase from a
  :class:`mathhammer.magic.models.MagicScenario` (``load_scenario(data, source)``);
* :func:`mathhammer.magic.optimise.optimise` — the dice-budget optimiser.

Rules per ruleset: :func:`mathhammer.magic.rules.magic_rules`.
"""

from mathhammer import subpackage_getattr

__getattr__ = subpackage_getattr(__name__)  # its modules on first use, no import first
