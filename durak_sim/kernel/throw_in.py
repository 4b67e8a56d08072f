"""The batch player's loop for the throw-in game: the rulesets without transfers, leads of
several cards, prostoy or the swap (flags ``NOT_THROW_IN`` clear), at any table, teams too.

In those games every bout is the same few steps (docs/rules.md R3, E2): the main attacker
opens with one card; the defender beats the one unbeaten card or takes; the eligible seats are
asked in turn, the main attacker first, to throw in or stop; a card thrown in is answered
before the asking starts again (after a take the asking simply starts again). Here those
steps are the loop's own structure, so the kind of each action is known where it is chosen;
the general loop (batch.py) finds the phase in the state and the legal actions' form anew at
every action, and tells the chosen action's kind apart again. ``random`` is asked without a
legal list (``asking.pick_random``); any other strategy through ``_ask``, a call of its own:
with that call inside the per-action helper, numba's reference counting of the helper's
array arguments was no longer pruned and the loop ran at a third of its speed.

The state array is kept as ``engine.apply_action`` keeps it at every step (phase, seat to
move, table, hands, history ...), so a strategy observes what it would observe there, and
the bout's end is ``engine._end_bout`` as at any other table (refills, outs, the end of the
deal, the next bout). tests/test_throw_in.py checks at every table it plays that a strategy
reading its whole observation and the history plays the reference engine's games.
"""
import numba
import numpy as np

from ..actions import DEFEND, HIST_SEAT_SHIFT, HIST_TARGET_SHIFT, STOP, TAKE
from ..cards import N_CARDS
from ..observation import PHASE_ATTACK, PHASE_DEFEND, PHASE_OPEN
from ..rules import FLAG_LEAD_MULTIPLE, FLAG_PROSTOY, FLAG_SWAP, FLAG_TRANSFER
from .asking import KIND_RANDOM, ask, pick_random, strategy_of
from .bits import lowest, popcount
from .config import JIT
from .engine import _attack_card, _end_bout, _lay, _next_asked
from .intrinsics import hold
from .layout import (ERR_ILLEGAL, S_ATTACKER, S_DEFENDER, S_HANDS, S_LIMIT, S_N_UNBEATEN,
                     S_NHIST, S_OVER, S_PHASE, S_TABLE, S_TAKING, S_TDEF, S_TO_MOVE, S_TRANKS,
                     S_TRUMP_SUIT, S_UNBEATEN, S_UNBEATEN_MASK)
from .legal import BEATERS, fill_legal, in_legal_set
from .seats import INLINE

#: the ruleset flags this loop does not play (the general loop of batch.py does)
NOT_THROW_IN = FLAG_LEAD_MULTIPLE | FLAG_PROSTOY | FLAG_TRANSFER | FLAG_SWAP


#: ``_choose``'s answer when a strategy other than ``random`` is to be asked (``_ask``)
ASK = -2


@numba.njit(**INLINE)
def _choose(st, seat, phase, mask, base, tail, random_seats, rngs):
    """The action of ``seat`` in ``phase`` among ``(mask, base, tail)``, or ``ASK``:
    ``(code, asked)``. E1: a single legal action is played without asking. (No call in
    here: numba's reference counting of array arguments is pruned only around code without
    calls, and this runs at every action.)"""
    st[S_PHASE] = phase
    st[S_TO_MOVE] = seat
    n = popcount(mask) + (tail >= 0)
    code = base + lowest(mask) if mask != 0 else tail
    asked = n != 1
    if asked:
        code = pick_random(rngs, seat, mask, base, tail, n) if (random_seats >> seat) & 1 \
            else ASK
    hold(st)
    hold(rngs)
    return code, asked


@numba.njit(**JIT)
def _ask(st, seat, mask, base, tail, obs, legal, hist, fns, kinds, f0, players, rngs, mems,
         decide0, decide1, rng0, rng1, mem0, mem1):
    """``asking.ask`` with the legal list written out: a call of its own, out of the loop's
    way (strategies other than ``random`` cost far more than the call)."""
    fill_legal(legal, mask, base, tail)
    return ask(st, seat, strategy_of(f0, seat, players), obs, legal, hist, fns, kinds, rngs,
               mems, decide0, decide1, rng0, rng1, mem0, mem1)


@numba.njit(**INLINE)
def _record(st, hist, nh, code, seat, target):
    """Append ``code`` by ``seat`` (a defence: against ``target``) to the history, of ``nh``
    actions so far; return its length."""
    entry = code | seat << HIST_SEAT_SHIFT
    if target >= 0:
        entry |= (target + 1) << HIST_TARGET_SHIFT
    hist[nh] = entry
    st[S_NHIST] = nh + 1
    hold(st)
    hold(hist)
    return nh + 1


@numba.njit(**INLINE)
def _to_defend(st, card):
    """The defender is to answer ``card``, the one unbeaten card."""
    st[S_UNBEATEN] = card
    st[S_UNBEATEN_MASK] = np.int64(1) << card
    st[S_N_UNBEATEN] = 1
    hold(st)


@numba.njit(**INLINE)
def play_throw_in(st, obs, legal, hist, fns, kinds, f0, players, rngs, mems, decide0, decide1,
                  rng0, rng1, mem0, mem1):
    """Play the dealt game in ``st`` to its end: ``(decisions, error, seat, action)`` as the
    general loop returns them. A bout has fewer than 100 actions (layout.PLAY_CAP), so the
    history never fills."""
    decisions = 0
    trump = st[S_TRUMP_SUIT] * N_CARDS
    nh = st[S_NHIST]
    random_seats = 0   # the seats ``random`` plays, as a mask
    for s in range(players):
        if kinds[strategy_of(f0, s, players)] == KIND_RANDOM:
            random_seats |= 1 << s
    while st[S_OVER] == 0:   # a bout
        att = st[S_ATTACKER]
        dfd = st[S_DEFENDER]
        limit = st[S_LIMIT]
        # R3.1: the main attacker opens with any card
        mask = st[S_HANDS + att]
        code, asked = _choose(st, att, PHASE_OPEN, mask, 0, -1, random_seats, rngs)
        decisions += asked
        if code == ASK:
            code = _ask(st, att, mask, 0, -1, obs, legal, hist, fns, kinds, f0, players, rngs,
                        mems, decide0, decide1, rng0, rng1, mem0, mem1)
            if not in_legal_set(code, mask, 0, -1):
                return decisions, ERR_ILLEGAL, att, code
        nh = _record(st, hist, nh, code, att, -1)
        _attack_card(st, att, code)
        _to_defend(st, code)
        unbeaten = code
        taking = False
        n_att = 1
        while True:   # the defender answers the unbeaten card, then the attackers are asked
            if not taking:   # R3.2: beat it, or take
                mask = st[S_HANDS + dfd] & BEATERS[trump + unbeaten]
                code, asked = _choose(st, dfd, PHASE_DEFEND, mask, DEFEND, TAKE, random_seats,
                                      rngs)
                decisions += asked
                if code == ASK:
                    code = _ask(st, dfd, mask, DEFEND, TAKE, obs, legal, hist, fns, kinds, f0,
                                players, rngs, mems, decide0, decide1, rng0, rng1, mem0, mem1)
                    if not in_legal_set(code, mask, DEFEND, TAKE):
                        return decisions, ERR_ILLEGAL, dfd, code
                if code == TAKE:   # R3.5
                    nh = _record(st, hist, nh, code, dfd, -1)
                    st[S_TAKING] = 1
                    taking = True
                else:
                    card = code - DEFEND
                    nh = _record(st, hist, nh, code, dfd, unbeaten)
                    _lay(st, dfd, card)
                    st[S_TABLE + 2 * n_att - 1] = card
                    st[S_TDEF] |= np.int64(1) << card
                    st[S_UNBEATEN_MASK] = 0
                    st[S_N_UNBEATEN] = 0
                st[S_UNBEATEN] = -1
            seat = att   # E2: the attackers are asked in turn, the main attacker first
            thrown = False
            while seat >= 0:   # R3.3, R3.5: throw in or stop
                mask = 0
                if n_att < limit:
                    mask = st[S_HANDS + seat] & st[S_TRANKS]
                code, asked = _choose(st, seat, PHASE_ATTACK, mask, 0, STOP, random_seats, rngs)
                decisions += asked
                if code == ASK:
                    code = _ask(st, seat, mask, 0, STOP, obs, legal, hist, fns, kinds, f0,
                                players, rngs, mems, decide0, decide1, rng0, rng1, mem0, mem1)
                    if not in_legal_set(code, mask, 0, STOP):
                        return decisions, ERR_ILLEGAL, seat, code
                nh = _record(st, hist, nh, code, seat, -1)
                if code == STOP:
                    seat = _next_asked(st, seat)
                    continue
                _attack_card(st, seat, code)
                n_att += 1
                if not taking:   # answered before the asking goes on
                    _to_defend(st, code)
                    unbeaten = code
                    thrown = True
                    break
                seat = att   # after a take: a new round of asking
            if not thrown:
                break
        _end_bout(st)
    hold(st)
    hold(obs)
    hold(legal)
    hold(hist)
    hold(kinds)
    hold(rngs)
    hold(mems)
    return decisions, 0, -1, -1
