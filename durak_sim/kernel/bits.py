"""popcount / count-trailing-zeros on int64 card masks, as LLVM intrinsics.

Under ``NUMBA_DISABLE_JIT=1`` the pure-Python twins run instead, so the same kernel code
executes (and is measured by coverage) without compilation.
"""
import os

import numba
from numba import types
from numba.extending import intrinsic

from .config import JIT

if os.environ.get("NUMBA_DISABLE_JIT", "0") == "1":  # pragma: no cover - exercised in a CI job

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
