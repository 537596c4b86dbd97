"""One compiled version of a kernel per argument type (mathhammer.kernels._one_compile_per_type).

numba compiles a jitted function called from another with a constant argument once per
constant (``Literal[int](k)``): the Fantasy battle kernels had 21 copies of one helper and
a cold compile twice as long. Our kernels are compiled for the plain types; a kernel that
needs the constant itself (a heterogeneous tuple indexed by an argument) still compiles.
"""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"),
                                reason="about numba's compiled versions")


def _ours(fn):
    """``fn`` as if defined in a mathhammer kernel module (the patch only touches those)."""
    fn.__module__ = "mathhammer.kernels.probe_for_tests"
    return fn


def _callers():
    import mathhammer.kernels  # noqa: F401  (installs the patch)
    from numba import njit

    @njit
    @_ours
    def times(x, k):
        return x * k

    @njit
    @_ours
    def pick(t, i):
        return t[i]  # a heterogeneous tuple: only a constant i can be typed

    @njit
    @_ours
    def caller(x):
        return times(x, 2) + times(x, 3) + times(x, 4) + pick((1, 2.5), 1)

    return times, pick, caller


def test_a_helper_called_with_constants_compiles_once():
    times, pick, caller = _callers()
    assert caller(10) == 10 * 2 + 10 * 3 + 10 * 4 + 2.5
    assert len(times.signatures) == 1, times.signatures
    assert "Literal" not in str(times.signatures[0])
    # the tuple index needs its constant: numba's literal typing, as before
    assert len(pick.signatures) == 1 and "Literal" in str(pick.signatures[0])


def test_other_packages_keep_numbas_literal_versions():
    import mathhammer.kernels  # noqa: F401
    from numba import njit

    @njit
    def times(x, k):
        return x * k

    @njit
    def caller(x):
        return times(x, 2) + times(x, 3)

    assert caller(1) == 5
    assert len(times.signatures) == 2
