"""splitmix64 in numba, bit-identical to ``durak_sim.seeding`` (the contract's plain-Python
statement). uint64 lives only in here; callers hold the state in a ``uint64[1]`` array."""
import numba
import numpy as np

from .bits import NO_JIT
from .config import JIT
from .intrinsics import hold

if NO_JIT:  # pragma: no cover - only under NUMBA_DISABLE_JIT=1
    # numpy's uint64 scalars warn where compiled code wraps around, as splitmix64 means to
    import warnings

    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning, __name__)

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)


@numba.njit(**JIT)
def mix(z):
    z = (z ^ (z >> np.uint64(30))) * M1
    z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))


@numba.njit(**JIT)
def stream_start(seed, deal, k):
    """Initial state of stream k of (seed, deal); seed, deal, k are int64 >= 0."""
    a = mix(np.uint64(seed) + GOLDEN)
    b = mix(a + np.uint64(deal) + GOLDEN)
    return mix(b + np.uint64(k) + GOLDEN)


@numba.njit(**JIT)
def rng_next(rng):
    """Next 64-bit output of the stream held in ``rng[0]``."""
    s = rng[0] + GOLDEN
    rng[0] = s
    return mix(s)


@numba.njit(**JIT)
def _scale(z, n):
    """``0..n-1`` from a 64-bit output: ``(z >> 32) * n >> 32``."""
    return np.int64(((z >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@numba.njit(**JIT)
def rng_below(rng, n):
    """A draw in ``0..n-1`` (int64) from the stream in ``rng[0]``: ``(next >> 32) * n >> 32``."""
    return _scale(rng_next(rng), n)


@numba.njit(**dict(JIT, forceinline=True))
def rng_below_at(rngs, i, n):
    """``rng_below`` on the stream held in ``rngs[i, 0]`` (the batch player's seat streams):
    ``rng_next``'s step written on the row in place, since a view ``rngs[i]`` per draw costs
    two atomic reference counts in the kernel's loop."""
    s = rngs[i, 0] + GOLDEN
    rngs[i, 0] = s
    x = _scale(mix(s), n)
    hold(rngs)
    return x
