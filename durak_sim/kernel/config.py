"""jit options, in one place. Every kernel function is module-level and cached on disk."""
import os
import warnings

# numba's OpenMP threading layer (libgomp, which reads this when the first parallel call
# loads it) lets its idle workers spin after every parallel call: about 10 ms of CPU a call
# here, taken from whatever the process does next (a tournament stores one chunk while the
# kernel plays the next). Passive waiting costs instead about 0.3 ms of wake-up per call:
# nothing next to a tournament's or a match's calls (0.1-0.5 s each), 7% of an SPRT block
# of 1,000 random-vs-easy pairs (4.1 ms against 3.8 ms, medians of six). A user's own
# setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from numba.core.errors import NumbaExperimentalFeatureWarning  # noqa: E402

# strategies are passed to the kernel as first-class functions (compiled once, cached)
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

JIT = dict(cache=True, nogil=True)
JIT_PARALLEL = dict(JIT, parallel=True)

from numba import types  # noqa: E402

#: decide(obs, legal, hist, rng, mem) -> action; see durak_sim.observation
STRATEGY_SIGNATURE = types.int64(types.int64[::1], types.int64[::1], types.int64[::1],
                                 types.uint64[::1], types.int64[::1])
STRATEGY_TYPE = types.FunctionType(STRATEGY_SIGNATURE)
