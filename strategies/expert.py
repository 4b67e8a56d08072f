"""``expert``: determinized rollouts tested against hard's choice, then hard's exact endgame.

Every table (``plays="all"``). The two-player default game is described here and played by
``decide_classic`` (the kernel's decide there); every other table by the same search on the
kernel's own state and engine (``durak_sim.strategies._expert_tables``: every seat's hidden
cards dealt again, every seat played out by hard's policy, the seat's place as the result),
wherever hard plays normal's move, and hard's exact endgame where hard searches.

While the stock holds the face-up trump and at least one hidden card (``O_STOCK >= 2``)
expert searches every decision it is asked:

1. **The base action**: ``hard``'s choice (``normal``'s heuristic with hard's
   take-instead-of-trumping rule), with hard's whole workspace kept inside expert's.
2. **Determinizations** (``durak_sim.strategies._sampling.sample_deal``, drawn from the seat's own
   stream): the cards it has not seen (the opponent's hidden cards and the stock but its
   face-up last card) dealt again at random: the opponent keeps its known cards (``O_KNOWN``:
   picked up, the face-up trump drawn) and gets a random set of the right size, the rest is
   the stock in a random order, the face-up trump last. What the seat has seen is never
   dealt: its hand, the discard pile, the table, the opponent's known cards, the face-up
   trump while it lies in the stock.
3. **Rollouts**: on each determinization every legal action is played and then the whole
   deal, both seats by the rollout policy, to its end: +1 the opponent is the Durak, -1 this
   seat, 0 a draw. The policy is hard's before the endgame (normal plus the take rule) for
   both seats, or for the opponent easy's lowest card first once the card memory has
   recognised a lowest-card player (below). ``fast_rollout`` plays it on a handful of scalar
   masks (three times faster than the kernel's state and engine, ``rollout``, with which
   tests/test_expert.py checks it agrees position by position).
4. **The decision**, a sequential test on paired differences: every action is rolled out on
   the same determinizations, so what counts is each action's gain over the base action,
   sample by sample. Samples come in steps of ``STEP``; after each step an action whose mean
   gain is ``Z_DROP`` standard errors or more below zero is dropped (it stops costing
   rollouts), and the search stops when none is left or after ``SAMPLES`` determinizations.
   Expert plays the action of the best mean gain among those ``Z_PLAY`` standard errors or
   more above zero, else the base action.

With at most the face-up trump in the stock the opponent's hand is known exactly and expert
is hard: the exact solver (``solve_root``) with hard's node cap and transposition table.

**The opponent model** (``sampling.opponent_is_easy``): the card memory replays the
opponent's known cards and checks its actions. An opponent that has made a move normal and
hard never make (a trump thrown in early, a high card thrown in to a taker early, a plain
card trumped early on a small table) and none that a lowest-card player never makes (by
its known cards) is modelled as easy: the rollouts play it by easy's rule and the
determinizations obey what its takes and defences showed it lacks (exact for such a
player). Against normal and hard the model never switches (tests/test_expert.py), so the
search is the same as without it.

Why this design (benchmarks/RESULTS.md has every number): the rollouts choosing the best
mean (plain determinized Monte Carlo, "PIMC") lose to hard, 39% at 64 determinizations a
decision, 24% at 24: a deal's outcome turns mostly on the cards still to come, the
difference two actions make is small against that noise, and an argmax of noise plays worse
than a tuned heuristic. With the test each deviation from the heuristic has to be earned,
and more determinizations find more of them (against hard on 1,000 deal pairs: 128 a
decision 61.6%, 256 63.9%, 512 64.2%). Exact solving of each determinization (the solver
takes a stock in a fixed order) costs a few milliseconds per sample already with two cards
in the stock and is capped beyond four; a cheat that knew the real deal and solved it from
four cards in the stock scored about 60% against hard: the endgame alone cannot give
enough. The lack facts normal reads hurt against hard (62% instead of 64%): normal and hard
take and beat on purpose, and a third of those bounds are false in their games. The
opponent model is worth two points against easy (90.1% instead of 88.0%, 1,000 pairs) and
nothing against hard.

Budgets: ``SAMPLES``, the most determinizations a decision, is the knob: ``expert-fast``
(``FAST_SAMPLES``) and ``expert-deep`` (``DEEP_SAMPLES``) are the same search at other
budgets. They are registered by ``register_budget_variants()`` (``benchmarks/bench_expert.py
budgets`` calls it; set ``DURAK_SIM_EXPERT_BUDGETS=1`` to have them whenever expert is
imported, e.g. ``DURAK_SIM_EXPERT_BUDGETS=1 durak-sim match expert-fast hard``), not by
default: every registered strategy is played against every other by the test suite.

Advice (``durak-sim play --hint``, ``durak-sim solve``): ``decide`` is a plain strategy
function and may be called on any observation, at any table, with a fresh workspace
(``mem = np.zeros(MEMORY, np.int64); mem[0] = 1``): the card memory reads the whole public
history again. ``expert_advice(obs, legal, hist, rng)`` does that and also returns the
search's statistics per action (mean gain over the base action, its standard error, still in
the running).

``mem``: ``mem[0]`` the engine's game stamp; then (zeroed each game) a flag, the card memory
(``sampling.K_SIZE`` words), counters (decisions searched, rollouts), the last search's
statistics; then scratch (a determinization's stock and results, the rollout's words) and
hard's whole workspace (its game stamp copied from ``mem[0]``, its reset words zeroed at the
first decision of each game), then the other tables' search scratch (``_expert_tables``).
"""
import os

import numba
import numpy as np

from durak_sim.actions import DEFEND, STOP, TAKE
from durak_sim.kernel.bits import lowest, popcount
from durak_sim.kernel.config import JIT
from durak_sim.kernel.engine import apply_action, fill_general, fill_legal, legal_set, observe
from durak_sim.kernel.layout import S_DURAK, S_OVER, S_TO_MOVE
from durak_sim.strategies._expert_tables import (G_HID, G_SIZE, G_STOCK, TABLES_VERSION,
                                                 build_table_state, choose, gain_stats,
                                                 rollout_policy, step_drop, table_search)
from durak_sim.strategies._sampling import (K_SIZE, SAMPLING_VERSION, beaters, opponent_is_easy,
                                            sample_deal, track)
from durak_sim.observation import (O_ATTACKER, O_BOUT_LIMIT, O_DISCARD, O_HAND, O_KNOWN,
                                   O_N_ATTACKS, O_PHASE, O_PLAYERS, O_RULES, O_SEAT,
                                   O_STOCK, O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING,
                                   O_TRUMP_CARD, O_TRUMP_SUIT, O_UNBEATEN, PHASE_DEFEND,
                                   PHASE_SWAP)
from durak_sim.registry import register_strategy
from durak_sim.rules import FLAG_PROSTOY
from durak_sim.strategies.easy import decide as easy_decide
from durak_sim.strategies.hard import HARD_VERSION, trumps_taken
from durak_sim.strategies.hard import MEMORY as HARD_MEMORY
from durak_sim.strategies.hard import RESET as HARD_RESET
from durak_sim.strategies.hard import _other_seat
from durak_sim.strategies.hard import decide as hard_decide
from durak_sim.strategies.normal import M_POS as NORMAL_POS
from durak_sim.strategies.normal import M_SIZE as NORMAL_MEMORY
from durak_sim.strategies.normal import NORMAL_VERSION
from durak_sim.strategies.normal import (_FULL, _NIB, DRAWN_MAX, LATE_STOCK, TRUMP_EARLY,
                                         TRUMP_LATE, _defend, _open, _rank_fill, _throw_in)

#: bump when expert's play changes
EXPERT_VERSION = 2
#: the versions of the modules whose code expert's compiled ``decide`` links. numba's cache
#: keys a function on its own file's text, so a change there reaches expert's cached code
#: only through a change here (hard.py does the same for the solver)
SAMPLING_LINKED = 1
TABLES_LINKED = 1
HARD_LINKED = 8
NORMAL_LINKED = 3
if SAMPLING_VERSION != SAMPLING_LINKED:  # pragma: no cover - a development-time guard
    raise ImportError(f"strategies/expert.py links sampling version {SAMPLING_LINKED}, the "
                      f"module is version {SAMPLING_VERSION}: update SAMPLING_LINKED")
if TABLES_VERSION != TABLES_LINKED:  # pragma: no cover - a development-time guard
    raise ImportError(f"strategies/expert.py links _expert_tables version {TABLES_LINKED}, "
                      f"the module is version {TABLES_VERSION}: update TABLES_LINKED")
if HARD_VERSION != HARD_LINKED:  # pragma: no cover - a development-time guard
    raise ImportError(f"strategies/expert.py links hard version {HARD_LINKED}, hard is "
                      f"version {HARD_VERSION}: update HARD_LINKED")
if NORMAL_VERSION != NORMAL_LINKED:  # pragma: no cover - a development-time guard
    raise ImportError(f"strategies/expert.py links normal version {NORMAL_LINKED}, normal is "
                      f"version {NORMAL_VERSION}: update NORMAL_LINKED")

#: the most determinizations of one decision (the budget)
SAMPLES = 256
#: ... of expert-fast and expert-deep
FAST_SAMPLES = 64
DEEP_SAMPLES = 1024
#: determinizations per step of the sequential test
STEP = 16
#: an action replaces the base when its mean gain is this many standard errors above 0 ...
Z_PLAY = 3.0
#: ... and is dropped after a step when its mean gain is this many below 0
Z_DROP = 1.0
#: search while the stock holds at least this many cards (below: the exact endgame)
SEARCH_MIN_STOCK = 2
#: a rollout longer than this many actions counts as a draw (a deal has about 100)
MAX_ROLLOUT = 1000
HAND_TARGET = 6

# ---- mem layout ----
E_INIT = 1                   # 1 once hard's workspace was reset this game
E_K = 2                      # the card memory (durak_sim.strategies._sampling)
E_SEARCHED = E_K + K_SIZE    # decisions searched this game
E_ROLLOUTS = E_SEARCHED + 1  # rollouts this game
E_DONE = E_ROLLOUTS + 1      # the last search: determinizations used
E_BASE = E_DONE + 1          # ... its base action
E_MODEL = E_BASE + 1         # ... 1 when the opponent model was easy
E_SUM = E_MODEL + 1          # ... 256 words: per legal action, the sum of the gains
E_SQ = E_SUM + 256           # ... 256 words: the sum of their squares
E_ALIVE = E_SQ + 256         # ... 256 words: 1 when not dropped
E_PLAYED = E_ALIVE + 256     # ... 256 words: a dropped one's determinizations at its drop
RESET = E_PLAYED + 256
E_STOCK = RESET              # 40 words: a determinization's stock
E_RES = E_STOCK + 40         # 256 words: its rollout results
E_W = E_RES + 256            # 16 words: the compact rollout's words (W_SIZE)
E_HARD = E_W + 16            # hard's workspace
E_G = E_HARD + HARD_MEMORY   # the other tables' search scratch (_expert_tables.G_SIZE)
MEMORY = E_G + G_SIZE
#: the history buffer of the kernel-state rollout (``rollout``, for tests)
ROLLOUT_HIST = MAX_ROLLOUT + 64


@numba.njit(**JIT)
def _hard(obs, legal, hist, rng, mem):
    """hard's decision, with hard's workspace inside expert's."""
    if mem[E_INIT] == 0:
        mem[E_INIT] = 1
        for i in range(1, HARD_RESET):
            mem[E_HARD + i] = 0
    mem[E_HARD] = mem[0]
    return hard_decide(obs, legal, hist, rng, mem[E_HARD:E_HARD + HARD_MEMORY])


@numba.njit(**JIT)
def build_state(obs, opp_hidden, stock_cards, st):
    """The kernel state (``durak_sim.kernel.layout``) of a determinization of ``obs``: the
    opponent holds its known cards and ``opp_hidden``, the stock is ``stock_cards`` in draw
    order (``_expert_tables.build_table_state``, for tests). Its history restarts at 1 (a
    rollout's entry 0 is the last real one)."""
    g = np.zeros(G_STOCK + 40, np.int64)
    g[G_HID + 1 - obs[O_SEAT]] = opp_hidden
    for k in range(obs[O_STOCK]):
        g[G_STOCK + k] = stock_cards[k]
    build_table_state(obs, g, st)


@numba.njit(**JIT)
def rollout(st, hist2, obs2, legal2, nmem, rng, me, opp_easy):
    """The reference rollout, on the kernel's state and engine with the strategies' own
    ``decide`` (tests/test_expert.py checks ``fast_rollout`` against it; the search does not
    use it): play ``st`` out, both seats by ``rollout_policy`` (with ``opp_easy``, the
    opponent by easy's ``decide``); +1 when ``me``'s opponent is the Durak, -1 when ``me``
    is, 0 a draw (or a rollout of ``MAX_ROLLOUT`` actions)."""
    for i in range(2 * NORMAL_MEMORY):
        nmem[i] = 0
    nmem[NORMAL_POS] = 1  # hist2[0] is the last entry before the search: read from 1
    nmem[NORMAL_MEMORY + NORMAL_POS] = 1
    steps = 0
    while st[S_OVER] == 0:
        if steps >= MAX_ROLLOUT:
            return 0
        mask, base, tail, general = legal_set(st)
        seat = st[S_TO_MOVE]
        if general:
            n = fill_general(st, legal2)
        else:
            n = fill_legal(legal2, mask, base, tail)
        code = legal2[1]
        if n > 1:
            observe(st, seat, obs2)
            if opp_easy != 0 and seat != me:
                code = easy_decide(obs2, legal2, hist2, rng, nmem)
            else:
                code = rollout_policy(obs2, legal2, hist2, rng,
                                      nmem[seat * NORMAL_MEMORY:(seat + 1) * NORMAL_MEMORY])
        apply_action(st, code, hist2)
        steps += 1
    d = st[S_DURAK]
    if d < 0:
        return 0
    return 1 if d != me else -1


# ---- the compact rollout: the same game and the same policy on scalars ----
PH_OPEN = 0      # the observation's PHASE_OPEN, PHASE_ATTACK, PHASE_DEFEND
PH_ATTACK = 1
PH_DEFEND = 2
W_H = 0          # w[W_H + s]: seat s's hand
W_K = 2          # its known cards (O_KNOWN)
W_LACK = 4       # normal's lack mask of seat s (what the other seems not to hold) ...
W_LSTK = 6       # ... the stock when it was started ...
W_PEND = 8       # ... and what seat s has still to read from the history
W_SIZE = 10


@numba.njit(**JIT)
def _fact(t, b, ts):
    """What normal reads from a defence with ``b`` against ``t`` (``b < 0``: a take)."""
    if b < 0:
        return beaters(t, ts)
    if b & 3 == t & 3:  # beaten in suit: nothing of the suit in between
        return (np.int64(_NIB) << (t & 3)) & ((np.int64(1) << b) - 1) \
            & ~((np.int64(2) << t) - 1)
    return (np.int64(_NIB) << (t & 3)) & ~((np.int64(2) << t) - 1)  # trumped


@numba.njit(**JIT)
def fast_rollout(w, discard, tatt, tdef, u, n_att, limit, taking, att, phase, stock, top,
                 n_stock, ts, tc, me, first, opp_easy):
    """``rollout`` without the kernel's arrays: the position after ``first`` (played by the
    seat to move in ``phase``) is played out by normal, with hard's take rule, for both seats
    (with ``opp_easy``: the seat that is not ``me`` by easy's lowest card first); the hands,
    known cards and normal's lack words are in ``w`` (``W_*``), the stock is
    ``stock[top:top + n_stock]``. The same game (R1-R6; E1: a single legal action is played
    without asking) and the same decisions as ``rollout`` on the kernel's state, about three
    times faster (tests/test_expert.py checks that they end every position alike)."""
    d = 1 - att
    steps = 0
    code = first
    while True:
        table = tatt | tdef
        if steps > 0:
            if steps >= MAX_ROLLOUT:
                return 0
            if phase == PH_DEFEND:
                mover = d
                lm = w[W_H + d] & beaters(u, ts)
                nl = popcount(lm) + 1
            elif phase == PH_OPEN:
                mover = att
                lm = w[W_H + att]
                nl = popcount(lm)
            else:
                mover = att
                lm = np.int64(0)
                if n_att < limit:
                    lm = w[W_H + att] & _rank_fill(table)
                nl = popcount(lm) + 1
            if nl == 1:  # E1: forced
                if lm == 0:
                    code = np.int64(TAKE) if phase == PH_DEFEND else np.int64(STOP)
                else:
                    code = lowest(lm) + (DEFEND if phase == PH_DEFEND else 0)
            elif opp_easy != 0 and mover != me:  # the opponent model: easy (R10.2)
                if lm == 0:
                    code = np.int64(TAKE) if phase == PH_DEFEND else np.int64(STOP)
                else:
                    plain = lm & ~(np.int64(_NIB) << ts)
                    code = lowest(plain) if plain != 0 else lowest(lm)
                    if phase == PH_DEFEND:
                        code += DEFEND
            else:  # normal's two-player decision (strategies/normal.py), hard's take rule
                if n_stock == 0:
                    w[W_PEND + mover] = 0
                elif w[W_PEND + mover] != 0:
                    if w[W_LACK + mover] == 0 or w[W_LSTK + mover] - n_stock > DRAWN_MAX:
                        w[W_LACK + mover] = 0
                        w[W_LSTK + mover] = n_stock
                    w[W_LACK + mover] |= w[W_PEND + mover]
                    w[W_PEND + mover] = 0
                opp = 1 - mover
                hand = w[W_H + mover]
                known = w[W_K + opp]
                opp_n = popcount(w[W_H + opp])
                unseen = np.int64(_FULL) & ~hand & ~discard & ~table & ~known
                if n_stock > 0:
                    unseen &= ~(np.int64(1) << tc)
                hidden = opp_n - popcount(known)
                exact = n_stock == 0 or hidden <= 0
                if n_stock == 0:
                    opp_cards = known | unseen
                elif hidden <= 0:
                    opp_cards = known
                elif w[W_LSTK + mover] - n_stock <= DRAWN_MAX:
                    opp_cards = known | (unseen & ~w[W_LACK + mover])
                else:
                    opp_cards = known | unseen
                late = n_stock <= LATE_STOCK
                tpen = TRUMP_LATE if late else TRUMP_EARLY
                if phase == PH_DEFEND:
                    code = _defend(lm, hand, table, opp_cards, u, n_att, limit, n_stock, ts,
                                   tpen)
                    code = trumps_taken(code, n_stock, ts, tatt, tdef)
                elif phase == PH_OPEN:
                    code = _open(lm, opp_cards, opp_n, exact, ts, tpen)
                else:
                    code = _throw_in(lm, opp_cards, taking != 0, late, ts, tpen)
        steps += 1
        # play it
        if phase == PH_DEFEND:
            if code == TAKE:
                w[W_PEND + att] |= _fact(u, np.int64(-1), ts)
                taking = 1
            else:
                b = code - DEFEND
                bit = np.int64(1) << b
                w[W_H + d] &= ~bit
                w[W_K + d] &= ~bit
                tdef |= bit
                w[W_PEND + att] |= _fact(u, b, ts)
            u = -1
            phase = PH_ATTACK
        elif code != STOP:  # an opening or a throw-in
            bit = np.int64(1) << code
            w[W_H + att] &= ~bit
            w[W_K + att] &= ~bit
            tatt |= bit
            n_att += 1
            if taking == 0:
                u = code
                phase = PH_DEFEND
            else:
                phase = PH_ATTACK
        else:  # the bout ends (R3.6, R3.7), the hands are filled (R4), outs (R5)
            table = tatt | tdef
            if taking != 0:
                w[W_H + d] |= table
                w[W_K + d] |= table
                nxt = att
            else:
                discard |= table
                nxt = d
            for x in (att, d):
                while n_stock > 0 and popcount(w[W_H + x]) < HAND_TARGET:
                    c = stock[top]
                    top += 1
                    n_stock -= 1
                    w[W_H + x] |= np.int64(1) << c
                    if n_stock == 0:
                        w[W_K + x] |= np.int64(1) << c
            if n_stock == 0:
                e0 = w[W_H] == 0
                e1 = w[W_H + 1] == 0
                if e0 or e1:
                    if e0 and e1:
                        return 0
                    loser = 1 if e0 else 0
                    return 1 if loser != me else -1
            att = nxt
            d = 1 - att
            tatt = np.int64(0)
            tdef = np.int64(0)
            n_att = 0
            taking = 0
            u = -1
            phase = PH_OPEN
            limit = min(6, popcount(w[W_H + d]))


def _gain(mem, a, done):
    """(mean, standard error) of action ``a``'s gain over the base after ``done`` samples."""
    return gain_stats(mem[E_SUM:E_SUM + 256], mem[E_SQ:E_SQ + 256], a, done)


@numba.njit(**JIT)
def search_decide(obs, legal, hist, rng, mem, samples, step, z_play, z_drop, facts,
                  opp_easy):
    """The search (module docstring) with its parameters given: at most ``samples``
    determinizations in steps of ``step``; ``z_play``, ``z_drop`` in standard errors;
    ``facts`` (0 or 1): the determinizations obey the opponent's apparent lacks
    (``sampling.sample_deal``); ``opp_easy`` (0 or 1): the rollouts play the opponent by
    easy's rule. The card memory must be up to date (``sampling.track``)."""
    me = obs[O_SEAT]
    opp = 1 - me
    n = legal[0]
    base = _hard(obs, legal, hist, rng, mem)
    km = mem[E_K:E_K + K_SIZE]
    stock_cards = mem[E_STOCK:E_STOCK + 40]
    res = mem[E_RES:E_RES + 256]
    w = mem[E_W:E_W + W_SIZE]
    sums = mem[E_SUM:E_SUM + 256]
    sqs = mem[E_SQ:E_SQ + 256]
    alive = mem[E_ALIVE:E_ALIVE + 256]
    played = mem[E_PLAYED:E_PLAYED + 256]
    ts = obs[O_TRUMP_SUIT]
    tc = obs[O_TRUMP_CARD]
    u = obs[O_UNBEATEN] if obs[O_PHASE] == PHASE_DEFEND else -1
    bi = 0
    for a in range(n):
        if legal[1 + a] == base:
            bi = a
        mem[E_SUM + a] = 0
        mem[E_SQ + a] = 0
        mem[E_ALIVE + a] = 1
    mem[E_BASE] = base
    mem[E_MODEL] = opp_easy
    mem[E_DONE] = 0
    n_alive = n - 1
    done = 0
    while done < samples and n_alive > 0:
        for _ in range(step):
            h = sample_deal(obs, km, rng, stock_cards, facts)
            if h < 0:  # cannot happen in a consistent game: play the base action
                return base
            for a in range(n):
                if mem[E_ALIVE + a] == 0 and a != bi:
                    continue
                for j in range(W_SIZE):
                    w[j] = 0
                w[W_H + me] = obs[O_HAND]
                w[W_H + opp] = obs[O_KNOWN + opp] | h
                w[W_K + me] = obs[O_KNOWN + me]
                w[W_K + opp] = obs[O_KNOWN + opp]
                res[a] = fast_rollout(w, obs[O_DISCARD], obs[O_TABLE_ATTACKS],
                                      obs[O_TABLE_DEFENCES], u, obs[O_N_ATTACKS],
                                      obs[O_BOUT_LIMIT], obs[O_TAKING], obs[O_ATTACKER],
                                      obs[O_PHASE], stock_cards, 0, obs[O_STOCK], ts, tc, me,
                                      legal[1 + a], opp_easy)
                mem[E_ROLLOUTS] += 1
            for a in range(n):
                if mem[E_ALIVE + a] != 0:
                    d = res[a] - res[bi]
                    mem[E_SUM + a] += d
                    mem[E_SQ + a] += d * d
        done += step
        mem[E_DONE] = done
        n_alive -= step_drop(sums, sqs, alive, played, n, bi, done, z_drop)
    mem[E_SEARCHED] += 1
    return choose(sums, sqs, alive, legal, n, bi, done, z_play, base)


@numba.njit(**JIT)
def _tables(obs, legal, hist, rng, mem, samples):
    """Every table but the two-player default game: hard's exact endgame where hard searches
    (two seats left, at most the face-up trump in the stock, not prostoy) and at the swap,
    else the search of ``_expert_tables`` from hard's choice."""
    base = _hard(obs, legal, hist, rng, mem)
    if obs[O_PHASE] == PHASE_SWAP or (obs[O_STOCK] <= 1 and (obs[O_RULES] & FLAG_PROSTOY) == 0
                                      and _other_seat(obs) >= 0):
        return base
    act, done, rollouts = table_search(
        obs, legal, rng, base, mem[E_SUM:E_SUM + 256], mem[E_SQ:E_SQ + 256],
        mem[E_ALIVE:E_ALIVE + 256], mem[E_PLAYED:E_PLAYED + 256], mem[E_RES:E_RES + 256],
        mem[E_G:E_G + G_SIZE], samples, np.int64(STEP), Z_PLAY, Z_DROP)
    mem[E_SEARCHED] += 1
    mem[E_ROLLOUTS] += rollouts
    mem[E_DONE] = done
    mem[E_BASE] = base
    mem[E_MODEL] = 0
    return act


@numba.njit(**JIT)
def _classic(obs, legal, hist, rng, mem, samples):
    """The two-player default game (module docstring)."""
    km = mem[E_K:E_K + K_SIZE]
    track(obs, hist, km)
    if obs[O_STOCK] < SEARCH_MIN_STOCK:
        return _hard(obs, legal, hist, rng, mem)  # the exact endgame
    easy = np.int64(1) if opponent_is_easy(km) else np.int64(0)
    return search_decide(obs, legal, hist, rng, mem, samples, np.int64(STEP), Z_PLAY, Z_DROP,
                         easy, easy)


@numba.njit(**JIT)
def decide_budget(obs, legal, hist, rng, mem, samples):
    """expert's decision with a budget of ``samples`` determinizations."""
    if obs[O_RULES] != 0 or obs[O_PLAYERS] != 2:
        return _tables(obs, legal, hist, rng, mem, samples)
    return _classic(obs, legal, hist, rng, mem, samples)


@numba.njit(**JIT)  # compiled for the kernel on first use (durak_sim.registry)
def decide(obs, legal, hist, rng, mem):
    return decide_budget(obs, legal, hist, rng, mem, np.int64(SAMPLES))


@numba.njit(**JIT)  # compiled for the kernel on first use (durak_sim.registry)
def decide_classic(obs, legal, hist, rng, mem):
    """The two-player default game: ``decide`` there, without the other tables' search."""
    return _classic(obs, legal, hist, rng, mem, np.int64(SAMPLES))


@numba.njit(**JIT)
def decide_fast(obs, legal, hist, rng, mem):
    return decide_budget(obs, legal, hist, rng, mem, np.int64(FAST_SAMPLES))


@numba.njit(**JIT)
def decide_deep(obs, legal, hist, rng, mem):
    return decide_budget(obs, legal, hist, rng, mem, np.int64(DEEP_SAMPLES))


def expert_advice(obs, legal, hist, rng, mem=None):
    """expert's choice at a position of any table, with the search's statistics:
    ``(action, rows)``, a row per legal action ``(code, mean gain over the base action,
    standard error, still in the running, determinizations it was played on)``, the mean and
    error over those (a dropped move's stop at its drop; the base action's row is 0, 0)
    (empty when it did not search: the exact endgame). ``mem`` defaults to a fresh workspace
    (the card memory reads the whole history). The default game is ``decide_classic``'s,
    as the kernel plays it (and as ``prepare`` compiles it for a hint)."""
    if mem is None:
        mem = np.zeros(MEMORY, np.int64)
        mem[0] = 1
    before = int(mem[E_SEARCHED])
    classic = int(obs[O_RULES]) == 0 and int(obs[O_PLAYERS]) == 2   # (decide_budget's test)
    act = int((decide_classic if classic else decide)(obs, legal, hist, rng, mem))
    rows = []
    done = int(mem[E_DONE])
    if int(mem[E_SEARCHED]) > before and done > 0:
        for a in range(int(legal[0])):
            alive = bool(mem[E_ALIVE + a])
            played = done if alive else int(mem[E_PLAYED + a])
            mean, se = _gain(mem, np.int64(a), np.int64(played))
            rows.append((int(legal[1 + a]), float(mean), float(se), alive, played))
    return act, rows


def register_budget_variants() -> None:
    """Register ``expert-fast`` (``FAST_SAMPLES``) and ``expert-deep`` (``DEEP_SAMPLES``)."""
    for name, fn, k in (("expert-fast", decide_fast, FAST_SAMPLES),
                        ("expert-deep", decide_deep, DEEP_SAMPLES)):
        register_strategy(name, fn, version=EXPERT_VERSION, memory=MEMORY, reset=RESET,
                          description=f"expert with at most {k} determinizations a decision",
                          compile_seconds=100, plays="all", parts=("solver", "variant"))


register_strategy("expert", decide, version=EXPERT_VERSION, memory=MEMORY, reset=RESET,
                  description=f"determinized rollouts (at most {SAMPLES} deals a decision) "
                              "tested against hard's choice; hard's exact endgame",
                  compile_seconds=100, plays="all", parts=("solver", "variant"),
                  classic=decide_classic, classic_parts=("solver", "variant"))
if os.environ.get("DURAK_SIM_EXPERT_BUDGETS", "") == "1":
    register_budget_variants()
