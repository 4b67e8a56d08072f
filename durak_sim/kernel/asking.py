"""Asking a seat's strategy in the batch player (:mod:`durak_sim.kernel.batch`).

Two built-in strategies are compiled into the kernel (``kinds``): ``random`` and ``easy``.
``random`` reads nothing but its legal list and its stream, so where the legal actions are in
their mask form (``legal_set``: ``base + c`` for every card ``c`` of ``mask``, then ``tail``)
its choice is taken from that form (:func:`pick_random`): the same draw from the seat's
stream and the same index into the same ascending list as its ``decide`` takes, without the
list being written out; elsewhere from the list (:func:`random_of_list`). Both restate
``strategies/random.py`` (batch.INLINED_SOURCE guards its edits). ``easy`` is called directly (LLVM inlines it; a call through a
first-class function costs about 10 ns here, a third of a random-against-random decision)
and every other strategy through ``fns`` (:func:`ask`).
"""
import numba

from ..strategies.easy import decide as easy_decide
from .bits import nth_bit
from .engine import INLINE, observe
from .intrinsics import hold
from .rng import rng_below_at

KIND_CALL, KIND_RANDOM, KIND_EASY = 0, 1, 2


@numba.njit(**INLINE)
def strategy_of(f0, seat, players):
    """The index in ``fns`` of the strategy playing ``seat`` when seat 0 plays ``f0``."""
    return f0 + seat if f0 + seat < players else f0 + seat - players


@numba.njit(**INLINE)
def random_of_list(rngs, seat, legal):
    """``random``'s choice from the legal list ``legal`` (``strategies/random.py``'s
    ``decide``, on the seat's stream in place: a view ``rngs[seat]`` per decision costs two
    atomic reference counts)."""
    code = legal[1 + rng_below_at(rngs, seat, legal[0])]
    hold(rngs)
    hold(legal)
    return code


@numba.njit(**INLINE)
def pick_random(rngs, seat, mask, base, tail, n):
    """``random``'s choice among the ``n`` legal actions ``(mask, base, tail)`` of ``seat``
    (``strategies/random.py``: ``legal[1 + rng_below(rng, n)]``)."""
    r = rng_below_at(rngs, seat, n)
    code = tail
    if tail < 0 or r < n - 1:
        code = base + nth_bit(mask, r)
    hold(rngs)
    return code


@numba.njit(**INLINE)
def ask(st, seat, k, obs, legal, hist, fns, kinds, rngs, mems, decide0, decide1, rng0, rng1,
        mem0, mem1):
    """The action that strategy ``k`` (not ``random``) chooses for ``seat`` from the legal
    list in ``legal``, on ``seat``'s observation of ``st``; ``decide0`` and ``decide1`` are
    the strategies of seats 0 and 1 (``rng0`` ... their streams and workspaces as views made
    once: a view per decision costs two atomic reference counts)."""
    observe(st, seat, obs)
    if kinds[k] == KIND_EASY:
        code = easy_decide(obs, legal, hist, rngs[seat], mems[seat])
    elif seat == 0:
        code = decide0(obs, legal, hist, rng0, mem0)
    elif seat == 1:
        code = decide1(obs, legal, hist, rng1, mem1)
    else:
        code = fns[k](obs, legal, hist, rngs[seat], mems[seat])
    hold(st)
    hold(obs)
    hold(legal)
    hold(hist)
    hold(kinds)
    hold(rngs)
    hold(mems)
    hold(rng0)
    hold(rng1)
    hold(mem0)
    hold(mem1)
    return code
