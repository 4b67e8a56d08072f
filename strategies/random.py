"""``random``: uniform among the legal actions, from the seat's own stream."""
import numba

from durak_sim.kernel.config import JIT
from durak_sim.kernel.rng import rng_below
from durak_sim.registry import register_strategy


@numba.njit(**JIT)  # compiled for the kernel on first use (durak_sim.registry)
def decide(obs, legal, hist, rng, mem):
    return legal[1 + rng_below(rng, legal[0])]


register_strategy("random", decide, version=1,
                  description="uniform among the legal actions",
                  compile_seconds=1, plays="all")
