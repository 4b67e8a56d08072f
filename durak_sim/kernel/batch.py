"""The batch player: whole deals (and whole series of deals, R9) between compiled
strategies, serially per chunk and chunks in parallel, results in rows (``R_*`` columns of
:mod:`durak_sim.kernel.layout`).

Seat ``s`` of game ``g`` is played by ``fns[(s + rots[g]) % len(fns)]``; its random stream is
``(seed, deal, 1 + s)`` (a series deal: docs/rules.md E13) and its workspace ``mems[s]``
(stamped and reset per game, observation.py's contract). Results land in row ``g`` whatever
the chunking or the thread count, so the output is the same for any of them.

Two built-in strategies are compiled into the kernel (``kinds``, :data:`INLINED`; how they
are asked: :mod:`durak_sim.kernel.asking`); every other strategy is called through ``fns``.
The decisions are the same either way: the same choices from the same arguments.
"""
import numba
import numpy as np

from ..cards import N_CARDS
from ..observation import OBS_SIZE
from ..rules import FLAG_TEAMS
from .asking import (KIND_CALL, KIND_EASY, KIND_RANDOM, ask, pick_random,  # noqa: F401
                     random_of_list, strategy_of)
from .bits import lowest, popcount
from .config import JIT
from .engine import (INLINE, apply_action, deal_into, fill_general, fill_legal, in_legal_set,
                     in_list, legal_set)
from .intrinsics import fetch_add, hold, unowned
from .layout import (R_CAPPED, S_CAPPED, ERR_ILLEGAL, ERR_STOPPED, ERR_TOO_LONG, MAX_ACTIONS, R_BOUTS,
                     R_CARDS_LEFT, R_DEALER, R_DECISIONS, R_DURAK, R_DURAK_TEAM, R_ERROR,
                     R_ERROR_ACTION, R_ERROR_SEAT, R_FIRST, R_N_ACTIONS, R_N_OUT, R_OUT,
                     R_OUTCOME, R_PLACES, S_BOUTS, S_DEALER, S_DECK, S_DURAK,
                     S_DURAK_TEAM, S_FIRST, S_FLAGS, S_HANDS, S_N_OUT, S_NHIST, S_OUT, S_OVER,
                     S_PLACES, S_PLAYERS, S_SIZE, S_TO_MOVE)
from .rng import stream_start
from .throw_in import NOT_THROW_IN, play_throw_in

#: the strategies compiled into the kernel, by module
INLINED = {"durak_sim.strategies.random": KIND_RANDOM, "durak_sim.strategies.easy": KIND_EASY}
#: the source of those two files that this kernel was compiled with. numba's disk cache
#: keys a function on its own file only: without a change here, an edit of an inlined
#: strategy would never reach a kernel loaded from the cache (tests/test_strategies.py
#: checks that this stays true; update it with ``inlined_source()``, and keep
#: ``asking.pick_random`` and ``asking.random_of_list`` to what random.py's ``decide`` does)
INLINED_SOURCE = "abddef1bbc5a78d7"


def inlined_source() -> str:
    """The first 16 hex digits of the SHA-256 of the inlined strategies' source files."""
    import hashlib
    from pathlib import Path

    from .. import strategies

    h = hashlib.sha256()
    for name in ("random", "easy"):
        h.update((Path(strategies.__file__).parent / f"{name}.py").read_bytes())
    return h.hexdigest()[:16]

LEGAL_BUFFER = 256   # actions.LEGAL_SIZE


@numba.njit(**INLINE)
def _new_game(st, seed, deal_index, deck_stream, seat_base, seat_step, players, hand_target,
              flags, dealer, first_deal, rot, resets, rngs, mems):
    deal_index = np.int64(deal_index)
    deal_into(st, seed, deal_index, deck_stream, players, hand_target, flags, dealer,
              first_deal, rngs[0])
    k = rot % players
    for s in range(players):
        rngs[s, 0] = stream_start(seed, deal_index, seat_base + seat_step * s)
        mems[s, 0] += 1  # a new game stamp (observation.py contract)
        for i in range(1, resets[k]):
            mems[s, i] = 0
        k = k + 1 if k + 1 < players else 0
    hold(st)
    hold(resets)
    hold(rngs)
    hold(mems)


@numba.njit(**INLINE)
def _play(st, obs, legal, hist, fns, kinds, f0, players, rngs, mems, rng0, rng1, mem0, mem1):
    """Play the dealt game in ``st`` to its end: ``(decisions, error, seat, action)``. The
    throw-in game has a loop of its own (:mod:`durak_sim.kernel.throw_in`)."""
    decisions = 0
    err = 0
    err_seat = -1
    err_action = -1
    cap = hist.shape[0]
    decide0 = fns[f0]
    decide1 = fns[f0 + 1 if f0 + 1 < players else 0]
    if st[S_FLAGS] & NOT_THROW_IN == 0:
        return play_throw_in(st, obs, legal, hist, fns, kinds, f0, players, rngs, mems,
                             decide0, decide1, rng0, rng1, mem0, mem1)
    while st[S_OVER] == 0:
        mask, base, tail, general = legal_set(st)
        seat = st[S_TO_MOVE]
        if general:
            n = fill_general(st, legal)
            code = legal[1]
        else:
            n = popcount(mask) + (tail >= 0)
            code = base + lowest(mask) if mask != 0 else tail
        if n != 1:  # E1: a single legal action is played without asking
            k = strategy_of(f0, seat, players)
            if kinds[k] == KIND_RANDOM:
                code = random_of_list(rngs, seat, legal) if general else \
                    pick_random(rngs, seat, mask, base, tail, n)
            else:
                if not general:
                    fill_legal(legal, mask, base, tail)
                code = ask(st, seat, k, obs, legal, hist, fns, kinds, rngs, mems, decide0,
                           decide1, rng0, rng1, mem0, mem1)
            decisions += 1
            ok = in_list(code, legal) if general else in_legal_set(code, mask, base, tail)
            if not ok:
                err = ERR_ILLEGAL
                err_seat = seat
                err_action = code
                break
        if st[S_NHIST] >= cap:  # E12
            err = ERR_TOO_LONG
            err_seat = seat
            break
        apply_action(st, code, hist)
    hold(st)
    hold(obs)
    hold(legal)
    hold(hist)
    hold(rngs)
    hold(mems)
    return decisions, err, err_seat, err_action


@numba.njit(**INLINE)
def _result(st, decisions, err, err_seat, err_action, results, g):
    durak = st[S_DURAK]
    team = st[S_DURAK_TEAM]
    players = st[S_PLAYERS]
    results[g, R_OUTCOME] = 1 if durak < 0 and team < 0 else 0
    results[g, R_DURAK] = durak
    results[g, R_FIRST] = st[S_FIRST]
    results[g, R_BOUTS] = st[S_BOUTS]
    left = 0
    if durak >= 0:
        left = popcount(st[S_HANDS + durak])
    elif team >= 0:
        for s in range(players):
            if (s & 1) == team:
                left += popcount(st[S_HANDS + s])
    results[g, R_CARDS_LEFT] = left
    results[g, R_N_ACTIONS] = st[S_NHIST]
    results[g, R_DECISIONS] = decisions
    results[g, R_ERROR] = err
    results[g, R_ERROR_SEAT] = err_seat
    results[g, R_ERROR_ACTION] = err_action
    results[g, R_N_OUT] = st[S_N_OUT]
    for k in range(6):
        results[g, R_OUT + k] = st[S_OUT + k] if k < st[S_N_OUT] else -1
        results[g, R_PLACES + k] = st[S_PLACES + k] if k < players else 0
    results[g, R_DURAK_TEAM] = team
    results[g, R_DEALER] = st[S_DEALER]
    results[g, R_CAPPED] = st[S_CAPPED]
    hold(st)
    hold(results)


@numba.njit(**INLINE)
def _keep_record(st, hist, g, rec_actions, rec_decks):
    n = min(st[S_NHIST], rec_actions.shape[1])
    for k in range(n):
        rec_actions[g, k] = hist[k]
    for k in range(N_CARDS):
        rec_decks[g, k] = st[S_DECK + k]
    hold(st)
    hold(hist)
    hold(rec_actions)
    hold(rec_decks)


@numba.njit(**INLINE)
def _buffers(players, mem_size):
    """``(owners, lent)``: a thread's buffers for a batch's games (the state, observation,
    legal list, history, seat streams and workspaces), and the same arrays without an owner
    (``intrinsics.unowned``), which the helpers are given: their reference counts of them,
    per decision where a strategy is asked, are null tests instead of atomic operations.
    The caller keeps ``owners`` alive to its end (:func:`_hold_buffers`)."""
    owners = (np.zeros(S_SIZE, np.int64), np.zeros(OBS_SIZE, np.int64),
              np.zeros(LEGAL_BUFFER, np.int64), np.zeros(MAX_ACTIONS, np.int64),
              np.zeros((max(players, 2), 1), np.uint64),
              np.zeros((max(players, 2), mem_size), np.int64))
    lent = (unowned(owners[0]), unowned(owners[1]), unowned(owners[2]), unowned(owners[3]),
            unowned(owners[4]), unowned(owners[5]))
    return owners, lent


@numba.njit(**INLINE)
def _hold_buffers(owners):
    """Keep the buffers that :func:`_buffers` lent alive up to here."""
    hold(owners[0])
    hold(owners[1])
    hold(owners[2])
    hold(owners[3])
    hold(owners[4])
    hold(owners[5])


@numba.njit(**JIT)
def play_range(seed, deals, rots, fns, kinds, players, hand_target, flags, mem_size, resets, lo, hi,
               results, record, rec_actions, rec_decks, stop):
    """Play games ``lo..hi-1`` of a batch serially with buffers of its own; write game
    ``g``'s result into ``results[g]``. Once ``stop[0]`` is set (by another thread: Ctrl-C)
    no game begins: the first one not played says ``ERR_STOPPED`` in ``R_ERROR`` and the
    rest of the range is left as it was (chunks are claimed in order, so the caller keeps
    the games before the batch's first such row; marking every row would cost a page of a
    huge batch's results each). With
    ``record`` each game's history and deck are copied to ``rec_actions[g]``,
    ``rec_decks[g]``."""
    owners, (st, obs, legal, hist, rngs, mems) = _buffers(players, mem_size)
    kinds = unowned(kinds)
    # seats 0 and 1 get views made once (a view per decision costs two atomic refcounts)
    rng0 = rngs[0]
    rng1 = rngs[1]
    mem0 = mems[0]
    mem1 = mems[1]
    dealer = players - 1
    for g in range(lo, hi):
        if stop[0] != 0:
            results[g, R_ERROR] = ERR_STOPPED
            break
        rot = rots[g]
        _new_game(st, seed, deals[g], np.int64(0), np.int64(1), np.int64(1), players,
                  hand_target, flags, dealer, True, rot, resets, rngs, mems)
        d, e, es, ea = _play(st, obs, legal, hist, fns, kinds, rot % players, players, rngs, mems,
                             rng0, rng1, mem0, mem1)
        _result(st, d, e, es, ea, results, g)
        if record:
            _keep_record(st, hist, g, rec_actions, rec_decks)
    _hold_buffers(owners)


@numba.njit(**JIT)
def next_dealer(st, dealer):
    """The dealer of the next deal of a series (R9.1): the Durak; with teams the losing
    team's member seated first after ``dealer``; after a draw ``dealer`` again."""
    durak = st[S_DURAK]
    if durak >= 0:
        return durak
    team = st[S_DURAK_TEAM]
    if team >= 0 and st[S_FLAGS] & FLAG_TEAMS:
        players = st[S_PLAYERS]
        k = dealer
        for _ in range(players):
            k = k + 1 if k + 1 < players else 0
            if (k & 1) == team:
                return k
    return dealer


@numba.njit(**JIT)
def play_series_range(seed, series, rots, n_deals, fns, kinds, players, hand_target, flags, mem_size,
                      resets, lo, hi, results, record, rec_actions, rec_decks, stop):
    """Play series ``lo..hi-1`` (each ``n_deals`` deals at one table, R9): deal ``k`` of
    series ``series[j]`` lands in row ``j * n_deals + k`` (E13 streams, R9.1 dealers).
    Once ``stop[0]`` is set no further series begins: the first row of the first one not
    played says ``ERR_STOPPED`` (as in ``play_range``)."""
    owners, (st, obs, legal, hist, rngs, mems) = _buffers(players, mem_size)
    kinds = unowned(kinds)
    rng0 = rngs[0]
    rng1 = rngs[1]
    mem0 = mems[0]
    mem1 = mems[1]
    for j in range(lo, hi):
        if stop[0] != 0:
            results[j * n_deals, R_ERROR] = ERR_STOPPED
            break
        dealer = players - 1
        rot = rots[j]
        for k in range(n_deals):
            g = j * n_deals + k
            base = -8 * (k + 1)
            _new_game(st, seed, series[j], np.int64(base), np.int64(base - 1), np.int64(-1),
                      players, hand_target, flags, dealer, k == 0, rot, resets, rngs, mems)
            d, e, es, ea = _play(st, obs, legal, hist, fns, kinds, rot % players, players, rngs,
                                 mems, rng0, rng1, mem0, mem1)
            _result(st, d, e, es, ea, results, g)
            if record:
                _keep_record(st, hist, g, rec_actions, rec_decks)
            if e != 0:
                for k2 in range(k + 1, n_deals):
                    results[j * n_deals + k2, R_ERROR] = ERR_STOPPED
                break
            dealer = next_dealer(st, dealer)
    _hold_buffers(owners)


@numba.njit(parallel=True, **JIT)
def play_batch(seed, deals, rots, fns, kinds, players, hand_target, flags, mem_size, resets,
               n_chunks, results, record, rec_actions, rec_decks, stop):
    """Play every game of a batch, ``n_chunks`` chunks in parallel (``play_range``)."""
    n = deals.shape[0]
    # chunks are claimed dynamically: the first iteration a thread runs plays chunks until
    # none is left, so a thread slowed by other load does not hold up the batch (prange
    # splits its iterations between the threads up front); the iterations after it find
    # nothing left to do
    next_chunk = np.zeros(1, np.int64)
    for _ in numba.prange(n_chunks):
        c = fetch_add(next_chunk, np.int64(1))
        while c < n_chunks:
            lo = c * n // n_chunks
            hi = (c + 1) * n // n_chunks
            play_range(seed, deals, rots, fns, kinds, players, hand_target, flags, mem_size, resets,
                       lo, hi, results, record, rec_actions, rec_decks, stop)
            c = fetch_add(next_chunk, np.int64(1))


@numba.njit(parallel=True, **JIT)
def play_series_batch(seed, series, rots, n_deals, fns, kinds, players, hand_target, flags,
                      mem_size, resets, n_chunks, results, record, rec_actions, rec_decks,
                      stop):
    """Play every series of a batch, ``n_chunks`` chunks of series in parallel."""
    n = series.shape[0]
    next_chunk = np.zeros(1, np.int64)
    for _ in numba.prange(n_chunks):
        c = fetch_add(next_chunk, np.int64(1))
        while c < n_chunks:
            lo = c * n // n_chunks
            hi = (c + 1) * n // n_chunks
            play_series_range(seed, series, rots, n_deals, fns, kinds, players, hand_target, flags,
                              mem_size, resets, lo, hi, results, record, rec_actions,
                              rec_decks, stop)
            c = fetch_add(next_chunk, np.int64(1))
