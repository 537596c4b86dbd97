"""``mathhammer import``: army lists from the exports of the builders players use.

Formats: Warmachine Mk II list text (:mod:`mathhammer.warmachine.list_text`), Ninth Age army
builder text (:mod:`mathhammer.fantasy.list_text`) and BattleScribe rosters, ``.ros`` XML or zipped ``.rosz``
(:mod:`.battlescribe`). Each parser turns a file into :class:`Entry` rows (a name, a count,
options, printed points); :mod:`.convert` maps the names onto bundled profiles and writes
the list file that :func:`mathhammer.lists.load_list` reads.
"""

from mathhammer.imports.convert import import_file
from mathhammer.imports.model import Entry, ParsedList

__all__ = ["Entry", "ParsedList", "import_file"]
