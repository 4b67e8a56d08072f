"""The deal bootstrap's Poisson weights (durak_sim.place_counts): a weight per resample
and deal from the seed contract's generator, so that the weights depend on (seed, deal,
resample) only."""
import numba
import numpy as np

from .config import JIT
from .rng import GOLDEN, mix, stream_start


@numba.njit(**JIT)
def poisson_weights(seed, deals, stream, table, out):
    """``out[i, b]`` (float32, ``(deals, resamples)``): the weight of ``deals[i]`` in
    resample ``b``. The stream ``(seed, deal, stream)``'s successive 64-bit draws, each
    cut into four 16-bit uniforms, low bits first (draw ``j`` gives resamples ``4j`` ..
    ``4j + 3``); ``table[u]`` is the weight of the uniform ``u``."""
    n_boot = out.shape[1]
    for i in range(len(deals)):
        s = stream_start(seed, deals[i], stream)
        for j in range(n_boot // 4):
            s = s + GOLDEN
            z = mix(s)
            for q in range(4):
                u = np.int64((z >> np.uint64(16 * q)) & np.uint64(0xFFFF))
                out[i, 4 * j + q] = table[u]
