"""jit options, in one place. Every kernel function is module-level and cached on disk."""
import warnings

from numba.core.errors import NumbaExperimentalFeatureWarning

# strategies are passed to the kernel as first-class functions (compiled once, cached)
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

JIT = dict(cache=True, nogil=True)
JIT_PARALLEL = dict(JIT, parallel=True)

from numba import types  # noqa: E402

#: decide(obs, legal, hist, rng, mem) -> action; see durak_sim.observation
STRATEGY_SIGNATURE = types.int64(types.int64[::1], types.int64[::1], types.int64[::1],
                                 types.uint64[::1], types.int64[::1])
STRATEGY_TYPE = types.FunctionType(STRATEGY_SIGNATURE)
