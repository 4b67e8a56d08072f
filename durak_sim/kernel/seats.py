"""Seats of the kernel's state (docs/rules.md R7, R8.4, E2, E3): who is next, who defends,
who may throw in and who is asked next. Helpers of the hot loop (``forceinline``), each
calling ``hold`` on its array arguments (see :mod:`durak_sim.kernel.engine`)."""
import numba
import numpy as np

from ..rules import FLAG_NEIGHBOURS, FLAG_PROSTOY, FLAG_TEAMS
from .config import JIT
from .intrinsics import hold
from .layout import *  # noqa: F401,F403 - the state layout is this module's vocabulary

#: seats of team 0 (0, 2, 4) and of team 1 (1, 3, 5) as seat masks (R8.4)
TEAM_SEATS = np.array([0b010101, 0b101010], np.int64)

#: helpers of the hot loop: LLVM inlines them into it
INLINE = dict(JIT, forceinline=True)

@numba.njit(**INLINE)
def _after(seat, players):
    seat += 1
    return 0 if seat == players else seat


@numba.njit(**INLINE)
def _next_of(st, start, team):
    """The first active seat after ``start`` (exclusive, clockwise) that is of ``team``
    (``team < 0``: any; ``team`` 2 or 3: any but team ``team - 2``); -1 if none."""
    players = st[S_PLAYERS]
    active = st[S_ACTIVE]
    k = start
    for _ in range(players):
        k = _after(k, players)
        if (active >> k) & 1 and (team < 0 or (team < 2 and (k & 1) == team)
                                  or (team >= 2 and (k & 1) != team - 2)):
            hold(st)
            return k
    hold(st)
    return -1


@numba.njit(**INLINE)
def _defender_of(st, att):
    """The defender of ``att``: the next active seat (with teams: opponent) (R7.1, R8.4)."""
    if st[S_FLAGS] & FLAG_TEAMS:
        return _next_of(st, att, 2 + (att & 1))
    return _next_of(st, att, -1)


@numba.njit(**INLINE)
def _eligible(st, att, dfd):
    """The seats that may throw in against ``dfd`` this bout (rules E3), as a seat mask."""
    flags = st[S_FLAGS]
    players = st[S_PLAYERS]
    if flags & FLAG_PROSTOY or players == 2:
        e = np.int64(1) << att
    elif flags & FLAG_NEIGHBOURS:
        e = np.int64(1) << att
        e |= np.int64(1) << _next_of(st, dfd, -1)
        k = dfd   # the nearest active seat on the other side
        for _ in range(players):
            k = players - 1 if k == 0 else k - 1
            if (st[S_ACTIVE] >> k) & 1:
                break
        e |= np.int64(1) << k
    else:
        e = st[S_ACTIVE]
    e &= ~(np.int64(1) << dfd)
    if flags & FLAG_TEAMS:
        e &= ~TEAM_SEATS[dfd & 1]
    hold(st)
    return e


@numba.njit(**INLINE)
def _next_asked(st, seat):
    """The eligible seat asked after ``seat`` in this round (E2), -1 when the round is done."""
    att = st[S_ATTACKER]
    players = st[S_PLAYERS]
    e = st[S_ELIGIBLE]
    k = _after(seat, players)
    while k != att:
        if (e >> k) & 1:
            hold(st)
            return k
        k = _after(k, players)
    hold(st)
    return -1


@numba.njit(**INLINE)
def _rank_cards(card):
    return np.int64(0xF) << (4 * (card >> 2))


