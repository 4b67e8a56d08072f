"""Four small LLVM-level helpers of the hot loop (and their plain twins under
``NUMBA_DISABLE_JIT=1``): ``hold`` (no code: keeps an array alive, so that numba's refcount
pruning removes its increment/decrement pair), ``copy_obs`` (the observation block as
vector moves), ``fetch_add`` (an atomic counter for the batch's chunk claiming) and
``unowned`` (an array without its owner, whose reference counts are no atomic operations)."""
import os

from ..observation import OBS_SIZE

if os.environ.get("NUMBA_DISABLE_JIT", "0") == "1":  # pragma: no cover - exercised in a CI job

    def hold(a):
        pass

    def copy_obs(dst, src):
        dst[:OBS_SIZE] = src[:OBS_SIZE]

    def fetch_add(counter, value):
        old = counter[0]
        counter[0] += value
        return old

    def unowned(a):
        return a

else:
    from llvmlite import ir
    from numba.core import types as nbtypes
    from numba.extending import intrinsic

    @intrinsic
    def hold(typingctx, a):
        """No code: keeps the array ``a`` alive up to here. A helper calls it on its array
        arguments at every exit, so that numba's reference counting of them (an incref on
        entry, a decref after the last use, atomic operations both) is one pair that its
        refcount pruning removes, and not a pair per call in the hot loop."""
        sig = nbtypes.void(a)

        def codegen(context, builder, signature, args):
            return context.get_dummy_value()

        return sig, codegen

    @intrinsic
    def copy_obs(typingctx, dst, src):
        """``dst[:OBS_SIZE] = src[:OBS_SIZE]`` as 4-word vector moves (the arrays may alias
        as far as LLVM knows, so a loop would copy word by word)."""
        sig = nbtypes.void(dst, src)

        def codegen(context, builder, signature, args):
            d = context.make_array(signature.args[0])(context, builder, args[0])
            s = context.make_array(signature.args[1])(context, builder, args[1])
            vp = ir.VectorType(ir.IntType(64), 4).as_pointer()
            for k in range(0, OBS_SIZE, 4):
                at = [ir.Constant(ir.IntType(64), k)]
                v = builder.load(builder.bitcast(builder.gep(s.data, at), vp), align=8)
                builder.store(v, builder.bitcast(builder.gep(d.data, at), vp), align=8)
            return context.get_dummy_value()

        return sig, codegen

    assert OBS_SIZE % 4 == 0

    @intrinsic
    def fetch_add(typingctx, counter, value):
        """Atomically add ``value`` to ``counter[0]``; return the value before."""
        sig = nbtypes.int64(counter, nbtypes.int64)

        def codegen(context, builder, signature, args):
            c = context.make_array(signature.args[0])(context, builder, args[0])
            return builder.atomic_rmw("add", c.data, args[1], "monotonic")

        return sig, codegen

    @intrinsic
    def unowned(typingctx, a):
        """The array ``a`` without its owner (meminfo and parent null): the same data, shape
        and strides, but every reference count taken of it (or of a view of it) is a null
        test instead of an atomic operation. The caller keeps ``a`` alive (``hold``) for as
        long as the result is used. The batch player passes its per-game buffers this way:
        numba increfs and decrefs a helper's array arguments unless its refcount pruning
        can pair them, and it cannot once a strategy is called in between (the call's error
        exit), which cost two atomic operations per array argument per decision."""
        if not isinstance(a, nbtypes.Array):
            return None
        sig = a(a)

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            ary.meminfo = ir.Constant(ary.meminfo.type, None)
            ary.parent = ir.Constant(ary.parent.type, None)
            return ary._getvalue()

        return sig, codegen
