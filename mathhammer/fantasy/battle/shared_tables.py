"""Exact battle tables shared by every plan of a process, keyed by what determines them (issue 32).

A table the battle kernel asks for (:meth:`~mathhammer.fantasy.battle.compile.KernelBattle.fill`)
depends on the ruleset and on the units it is about — a fight's on the units in it, who
touches which face of whom and who charged; a greedy value's on the two units; a volley's on
the shooter and the target — never on where those units stand in a list. Keyed by the units'
contents (:func:`unit_signature`), a table built for one plan serves every later plan of the
process: the candidates of ``tune`` that differ by one unit, the meta pairings of ``score``
that share units, the identical units of one list. A shared table is the very table the plan
would build (the builders are deterministic functions of these contents), so every answer is
bit-identical to a run that builds its own.

Bounded: past :data:`MAX_SHARED_BYTES` the least recently used tables are forgotten (a plan
keeps the arrays it already took; a forgotten table is built again when next asked for).
Compiled fights are kept packed (:func:`pack`, ~50x smaller), so a long best-response run's
every fight fits and a plan that forgot its fights (compile.MAX_FIGHT_BYTES) unpacks them.
Threads (a Dask worker's) share the store under a lock; what they read is never written.
The worker processes of one run (``fb battle --workers``) share a folder besides
(:func:`share_through`): a table one of them builds is written there by its contents' digest,
and the others read it instead of building it again.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import threading
import zlib
from collections import OrderedDict
from dataclasses import replace

from mathhammer.io.write import write_scratch

#: bytes kept for later plans and for a plan that forgot its fights: compiled fights packed
#: (~6 kB each), the small tables as they are. The kernels' own arrays are bounded apart
#: (compile.MAX_FIGHT_BYTES, 128 MB): the two together keep a process under 500 MB
MAX_SHARED_BYTES = 64 * 2**20

_LOCK = threading.Lock()
_TABLES: OrderedDict = OrderedDict()  # key -> (value, bytes)
_STATE = {"bytes": 0, "hits": 0, "built": 0, "read": 0}
#: the folder the worker processes of one run share (None: none), and the bytes this process
#: wrote there; past MAX_SHARED_BYTES it writes no more (a /tmp in memory stays bounded)
_FOLDER: list = [None]
_WRITTEN = [0]
#: the small tables (values, shots) built here since :func:`carried_out` last took them: what
#: another process of the run needs not build again (a compiled fight's arrays stay here)
CARRIED = ("value", "challenge", "shot")
_NEW: list = []
_CARRY = [False]  # recording _NEW: only in a process whose tables are carried (a pool's worker)


class _Contents(pickle.Pickler):
    """A pickle of what an object holds, the same in every process: no memo (a plain pickle
    writes an object met twice once, so the bytes follow which equal objects happen to be one
    object — a list unpickled in a pool worker differs from the parent's), sets in a fixed order
    (str hashes are salted per interpreter)."""

    def persistent_id(self, obj):  # called for every object (reducer_override skips sets)
        if type(obj) in (set, frozenset):
            return (type(obj).__name__, tuple(sorted(contents(x) for x in obj)))
        return None


def contents(obj) -> bytes:
    """:class:`_Contents`'s bytes of ``obj`` (equal contents, equal bytes, in any process)."""
    out = io.BytesIO()
    pickler = _Contents(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # no memo (a recursive object raises: it then shares nothing)
    pickler.dump(obj)
    return out.getvalue()


def _digest(obj) -> bytes:
    try:
        text = contents(obj)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return os.urandom(16)  # then it shares nothing
    return hashlib.blake2b(text, digest_size=16).digest()


def unit_signature(unit) -> bytes:
    """What a unit's tables depend on: everything it is except its place (index, side, label);
    the same in every process of a run (a pool's workers take each other's tables by it)."""
    return _digest(replace(unit, index=0, side=0, label=""))


def rules_signature(rules) -> bytes:
    return _digest(rules)


def get(key: tuple):
    """The table kept for ``key`` (or written to the run's folder by another process), or None."""
    with _LOCK:
        entry = _TABLES.get(key)
        if entry is not None:
            _TABLES.move_to_end(key)
            _STATE["hits"] += 1
            return entry[0]
    entry = _read(key)
    if entry is None:
        return None
    with _LOCK:
        kept = _TABLES.get(key)
        if kept is not None:  # another thread kept it meanwhile: the same contents
            return kept[0]
        _keep(key, *entry)
        _STATE["read"] += 1
        return entry[0]


def put(key: tuple, value, nbytes: int):
    """Keep ``value`` for ``key`` (the one already kept wins: the same contents) and return it;
    written to the run's folder too, for its other processes."""
    with _LOCK:
        entry = _TABLES.get(key)
        if entry is not None:
            return entry[0]
        _keep(key, value, nbytes)
        _STATE["built"] += 1
        if _CARRY[0] and key[0] in CARRIED:
            _NEW.append(key)
    _write(key, value, nbytes)
    return value


def _keep(key: tuple, value, nbytes: int) -> None:
    _TABLES[key] = (value, nbytes)
    _STATE["bytes"] += nbytes
    _trim()


def share_through(folder: str | None) -> None:
    """From now on this process also writes its tables to ``folder``, a private folder of one
    run, and reads the others' from it (None: no more). Called in each worker of the run."""
    _FOLDER[0] = folder
    _WRITTEN[0] = 0


def _path(key: tuple) -> str | None:
    folder = _FOLDER[0]
    if folder is None:
        return None
    try:
        name = hashlib.blake2b(contents(key), digest_size=20).hexdigest()
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return None  # a key without stable bytes is not shared
    return os.path.join(folder, name)


def _read(key: tuple):
    """(value, bytes) another process of the run wrote for ``key``, or None."""
    path = _path(key)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            stored_key, value, nbytes = pickle.load(f)
    except (OSError, EOFError, pickle.UnpicklingError):
        return None
    return (value, nbytes) if stored_key == key else None  # a digest collision shares nothing


def _write(key: tuple, value, nbytes: int) -> None:
    """Write the table for the run's other processes (whole or not at all: a reader never sees
    half a file); a full disk only means they build it themselves."""
    if _WRITTEN[0] > MAX_SHARED_BYTES:
        return
    path = _path(key)
    if path is None or os.path.exists(path):
        return
    try:
        data = pickle.dumps((key, value, nbytes), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return  # a table that does not pickle is not shared
    if write_scratch(path, data):
        _WRITTEN[0] += len(data)


def _trim() -> None:
    while _STATE["bytes"] > MAX_SHARED_BYTES and len(_TABLES) > 1:
        _old, (_v, n) = _TABLES.popitem(last=False)
        _STATE["bytes"] -= n


def carried_out() -> dict:
    """The small tables built in this process since the last call (key -> table), for the
    other processes of a run (:func:`carried_in`)."""
    with _LOCK:
        out = {k: _TABLES[k][0] for k in _NEW if k in _TABLES}
        _NEW.clear()
        return out


def carried_in(tables: dict) -> None:
    """Keep the tables another process built (the same contents give the same tables); from
    now on this process records what it builds for :func:`carried_out`."""
    with _LOCK:
        _CARRY[0] = True
        for key, value in tables.items():
            if key[0] in CARRIED and key not in _TABLES:
                nbytes = getattr(value, "nbytes", 8)
                _TABLES[key] = (value, nbytes)
                _STATE["bytes"] += nbytes
        _trim()


def pack(value) -> bytes:
    """``value`` compressed for the store (lossless: :func:`unpack` gives equal arrays, so the
    answers are bit-identical). Compiled fights compress ~50x (zero padding, cumulative rows
    of 1.0), which lets the store keep all of them instead of compiling them again."""
    return zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), 1)


def unpack(blob: bytes):
    """The value :func:`pack` compressed (fresh arrays: the store's blob is never shared)."""
    return pickle.loads(zlib.decompress(blob))


def stats() -> dict[str, int]:
    """Tables kept, their bytes, lookups answered, tables built and tables read from the run's
    folder (for benchmarks)."""
    with _LOCK:
        return {"tables": len(_TABLES), **_STATE}


def clear() -> None:
    with _LOCK:
        _TABLES.clear()
        _NEW.clear()
        _CARRY[0] = False
        _STATE.update(bytes=0, hits=0, built=0, read=0)


def enabled() -> bool:
    """False when ``MATHHAMMER_SHARED_TABLES=0``: every plan builds its own tables (the
    benchmark's baseline; the answers are the same)."""
    return os.environ.get("MATHHAMMER_SHARED_TABLES", "1") != "0"
