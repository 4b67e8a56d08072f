"""``easy`` (docs/rules.md R10.2): attack, throw in and defend with the lowest card that will
do; non-trumps before trumps. Takes only when it cannot beat; stops only when it cannot throw
in. At every table: it leads one card (ending a lead as soon as it may), beats several unbeaten
cards lowest card first, never transfers, and swaps the trump six (R8.5) for the higher trump."""
import numba

from durak_sim.actions import DEFEND, DEFEND_AT, DONE, STOP, SWAP, TAKE
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
    targeted = 0     # cards that beat one of several unbeaten cards (E5)
    done = False
    fallback = legal[1]
    for k in range(1, legal[0] + 1):
        a = legal[k]
        if a < DEFEND:
            attacks |= 1 << a
        elif a < TAKE:
            defences |= 1 << (a - DEFEND)
        elif a == TAKE or a == STOP:
            fallback = a
        elif a == DONE:
            done = True
        elif a == SWAP:
            return SWAP
        elif a >= DEFEND_AT:
            targeted |= 1 << ((a - DEFEND_AT) % 36)
    trump = obs[O_TRUMP_SUIT]
    if defences != 0:
        return DEFEND + lowest_preferring_plain(defences, trump)
    if targeted != 0:   # the lowest card, against the lowest target it beats
        card = lowest_preferring_plain(targeted, trump)
        for k in range(1, legal[0] + 1):
            a = legal[k]
            if a >= DEFEND_AT and (a - DEFEND_AT) % 36 == card:
                return a
    if done:
        return DONE
    if attacks != 0:
        return lowest_preferring_plain(attacks, trump)
    return fallback  # take (or stop) is left


register_strategy("easy", decide, version=1,
                  description="lowest card first, non-trumps before trumps (R10.2)",
                  compile_seconds=1, plays="all")
