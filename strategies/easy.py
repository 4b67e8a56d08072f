"""``easy`` (RULES.md R10.2): attack, throw in and defend with the lowest card that will do;
non-trumps before trumps. Takes only when it cannot beat; stops only when it cannot throw in."""
import numba

from durak_sim.actions import DEFEND, TAKE
from durak_sim.cards import SUIT_MASKS
from durak_sim.kernel.bits import lowest
from durak_sim.kernel.config import JIT
from durak_sim.observation import O_TRUMP_SUIT
from durak_sim.registry import register_strategy

_SUIT_MASKS = SUIT_MASKS  # global tuple: a compile-time constant


@numba.njit(**JIT)
def lowest_preferring_plain(cards, trump_suit):
    """Lowest card of ``cards`` that is not a trump, else the lowest trump (-1 if empty)."""
    if cards == 0:
        return -1
    plain = cards & ~_SUIT_MASKS[trump_suit]
    return lowest(plain) if plain != 0 else lowest(cards)


@numba.njit(**JIT)  # compiled for the kernel on first use (durak_sim.registry)
def decide(obs, legal, hist, rng, mem):
    attacks = 0
    defences = 0
    for k in range(1, legal[0] + 1):
        a = legal[k]
        if a < DEFEND:
            attacks |= 1 << a
        elif a < TAKE:
            defences |= 1 << (a - DEFEND)
    trump = obs[O_TRUMP_SUIT]
    if defences != 0:
        return DEFEND + lowest_preferring_plain(defences, trump)
    if attacks != 0:
        return lowest_preferring_plain(attacks, trump)
    return legal[legal[0]]  # only take or stop is left (take < stop in code order)


register_strategy("easy", decide, version=1,
                  description="lowest card first, non-trumps before trumps (R10.2)",
                  compile_seconds=1)
