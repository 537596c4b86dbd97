"""Bit instructions numba does not expose: PDEP (BMI2) and POPCNT, as LLVM intrinsics.

``pdep(src, mask)`` deposits the low bits of ``src`` into the set bits of ``mask``
(lowest first). It is one instruction on Intel since Haswell and on AMD since Zen 3,
microcoded and slow on Zen 1/2 (``znver1``/``znver2``) and absent elsewhere, so
:data:`FAST_PDEP` is decided once per process and kernels take a flag: callers pass
``use_pdep = FAST_PDEP`` and keep a portable path for the rest
(docs/sources.md, "Performance figures").

Where the host has no BMI2 the intrinsic is never emitted: :func:`pdep` then
compiles to a constant 0, which no caller reaches because :data:`FAST_PDEP` is
False (an LLVM intrinsic the target lacks would abort code generation). The
numba cache is keyed by host CPU and features, so a cached kernel never crosses
hosts.

Set ``MATHHAMMER_NO_PDEP=1`` to force the portable path (tests, comparisons).
"""

from __future__ import annotations

import os

import llvmlite.binding as _llb
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

_SLOW_PDEP_CPUS = {"znver1", "znver2"}  # PDEP/PEXT microcoded: ~18-290 cycles


def _host_has_bmi2() -> bool:
    try:
        return bool(_llb.get_host_cpu_features().get("bmi2", False))
    except Exception:  # not an x86 host, or llvmlite cannot tell: the portable path
        return False


HOST_BMI2 = _host_has_bmi2()
FAST_PDEP = (HOST_BMI2 and _llb.get_host_cpu_name() not in _SLOW_PDEP_CPUS
             and os.environ.get("MATHHAMMER_NO_PDEP", "") in ("", "0"))


@intrinsic
def pdep(typingctx, src, mask):
    """uint64 parallel bit deposit; only meaningful when :data:`HOST_BMI2`."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        if not HOST_BMI2:
            return ir.Constant(i64, 0)
        fnty = ir.FunctionType(i64, [i64, i64])
        fn = builder.module.declare_intrinsic("llvm.x86.bmi.pdep.64", fnty=fnty)
        return builder.call(fn, list(args))

    return sig, codegen


@intrinsic
def popcount64(typingctx, x):
    """Set bits of a uint64 as int64: ``llvm.ctpop`` (POPCNT, or LLVM's own fallback)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = builder.module.declare_intrinsic("llvm.ctpop", [i64])
        return builder.call(fn, [args[0]])

    return sig, codegen
