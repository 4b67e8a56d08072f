"""popcount / count-trailing-zeros on int64 card masks, as LLVM intrinsics; nibble packing
(``squeeze_nibbles``, ``nth_nibble``) and the n-th card of a mask (``nth_bit``) by BMI2's
``pext`` / ``pdep`` where numba compiles for an x86 CPU that has them, else by loops (same
results).

Under ``NUMBA_DISABLE_JIT=1`` the pure-Python twins run instead, so the same kernel code
executes (and is measured by coverage) without compilation.
"""
import os
import platform

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

from .config import JIT

#: numba compiles nothing (``NUMBA_DISABLE_JIT=1``): the Python twins below run
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") == "1"

if NO_JIT:  # pragma: no cover - only under NUMBA_DISABLE_JIT=1

    def popcount(x):
        return bin(int(x) & 0xFFFFFFFFFFFFFFFF).count("1")

    def lowest(x):
        x = int(x) & 0xFFFFFFFFFFFFFFFF
        return (x & -x).bit_length() - 1 if x else 64

else:

    @intrinsic
    def _ctpop(typingctx, x):
        sig = types.int64(types.int64)

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return sig, codegen

    @intrinsic
    def _cttz(typingctx, x):
        sig = types.int64(types.int64)

        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], context.get_constant(types.boolean, False))

        return sig, codegen

    @numba.njit(**JIT)
    def popcount(x):
        """Number of cards in a mask."""
        return _ctpop(x)

    @numba.njit(**JIT)
    def lowest(x):
        """Lowest card of a mask (64 when empty)."""
        return _cttz(x)


def _bmi2() -> bool:
    """Whether numba compiles for a CPU with BMI2 (x86 ``pext`` / ``pdep``)."""
    if NO_JIT:
        return False
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    from numba.core import config

    if config.CPU_FEATURES:   # the user's explicit target features
        return "+bmi2" in config.CPU_FEATURES.split(",")
    if config.CPU_NAME and config.CPU_NAME != "host":
        return False
    import llvmlite.binding as ll

    try:
        return bool(ll.get_host_cpu_features().get("bmi2", False))
    except Exception:  # noqa: BLE001 - no feature list: take the portable loop
        return False


#: nibble packing by BMI2 instructions (else a loop)
BMI2 = _bmi2()


@numba.njit(**JIT)
def squeeze_nibbles_loop(x, m):
    """``squeeze_nibbles`` by a loop over the nine ranks (any CPU)."""
    r = x - x
    j = 0
    for k in range(9):
        if (m >> (4 * k)) & 15:
            r |= ((x >> (4 * k)) & 15) << (4 * j)
            j += 1
    return r


@numba.njit(**JIT)
def nth_bit_loop(mask, r):
    """``nth_bit`` by clearing the lowest card ``r`` times (any CPU)."""
    for _ in range(r):
        mask &= mask - 1
    return lowest(mask)


@numba.njit(**JIT)
def nth_nibble_loop(j, m):
    """``nth_nibble`` by a loop over the nine ranks (any CPU)."""
    i = j - j
    for k in range(9):
        if (m >> (4 * k)) & 15:
            if i == j:
                return 4 * k
            i += 1
    return 64


if BMI2:
    from llvmlite import ir
    from numba.core import cgutils

    def _bmi2_op(name):
        @intrinsic
        def op(typingctx, x, m):
            sig = types.int64(types.int64, types.int64)

            def codegen(context, builder, signature, args):
                fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
                fn = cgutils.get_or_insert_function(builder.module, fnty, name)
                return builder.call(fn, args)

            return sig, codegen

        return op

    _pext = _bmi2_op("llvm.x86.bmi.pext.64")
    _pdep = _bmi2_op("llvm.x86.bmi.pdep.64")

    @numba.njit(**JIT)
    def squeeze_nibbles(x, m):
        """The nibbles (ranks) of ``x`` where ``m`` is 15, packed from nibble 0 up, in order
        (``m``: whole nibbles)."""
        return _pext(x, m)

    @numba.njit(**JIT)
    def nth_bit(mask, r):
        """The ``r``-th card of ``mask`` in ascending order, from 0 (``mask`` holds more
        than ``r`` cards)."""
        return lowest(_pdep(np.int64(1) << r, mask))

    @numba.njit(**JIT)
    def nth_nibble(j, m):
        """The lowest bit of the j-th nibble (from 0) of ``m`` that is 15 (``m``: whole
        nibbles, more than ``j`` of them)."""
        return lowest(_pdep(1 << (4 * j), m))

else:
    nth_bit = nth_bit_loop
    squeeze_nibbles = squeeze_nibbles_loop
    nth_nibble = nth_nibble_loop
