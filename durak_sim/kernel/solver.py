"""Exact endgame solver: two-player Podkidnoy with every card known (RULES.md R1-R6).

All cards are known and the stock's order is fixed, so the deal is a finite two-player game
of perfect information. Its value from seat 0's view is ``1`` (seat 0 goes out, seat 1 is the
Durak), ``0`` (draw) or ``-1``. The search is a null-window alpha-beta (value tests "seat 0
wins?" and "seat 0 does not lose?", the likelier first) over a transposition table, written as
module-level njit functions (``cache=True``, type-stable recursion).

Entry point (njit, callable from other njit code; every scalar int64, every array int64)
------------------------------------------------------------------------------------------
``solve_root(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
bout_limit, tt, stamp, node_cap, mode, out, stats) -> value`` (seat 0's view)

* ``hand0``, ``hand1``: card masks of seat 0 and seat 1 (``durak_sim.cards``).
* ``trump``: the trump suit 0..3.
* ``stock[0:stock_n]``: the cards still in the stock, in draw order (the face-up trump last).
* ``attacker``: the seat attacking in the current bout.
* ``table[0:2*n_table]``: the bout's pairs in play order, ``table[2i]`` the i-th attack card,
  ``table[2i+1]`` the card that beat it or -1 (the layout of ``observation.O_TABLE``).
  ``n_table == 0``: the bout has not started, the attacker must open.
* ``taking``: 1 once the defender has said take (R3.5).
* ``bout_limit``: the bout's attack limit (R3.4); ignored when ``n_table == 0`` (it is fixed
  when the attacker opens: ``min(6, defender's hand)``).
* ``tt``: the caller's work array, one per thread: ``new_table(log2)`` or any zeroed int64
  array of ``table_words(log2)`` words (a ``WORK``-word scratch area, then ``2**log2`` entries
  of 4 words in buckets of two). ``log2 = 16`` (2.4 MB) suits the hard AI; 17-18 halve the
  nodes of the rare huge searches.
* ``stamp``: int64 > 0, different for every deal. Entries written under another stamp are
  ignored, so a new stamp is an O(1) clear and answers never depend on other deals. Within one
  stamp every call must describe the same deal (same stock order): entries then carry over
  from decision to decision, which makes later calls cheap. Values, optimal sets and the
  ``MODE_ORDERED`` order never depend on what the table holds; ``MODE_ONE``'s pick among
  optimal actions may (it follows the search order, which puts the table's remembered move
  first), so it is a function of the deal's earlier calls: deterministic.
* ``node_cap``: stop after about this many nodes (0: no cap); ``stats[1]`` then says so, and
  the action is the best one the finished tests proved (``_best_known``).
* ``mode``: ``MODE_VALUE`` (0) the value only; ``MODE_ONE`` (1) the value and one action in
  ``out[1]``; ``MODE_SET`` (2) every optimal action, codes ascending; ``MODE_ORDERED`` (3)
  every optimal action, best first (below).
* ``out``: int64[``OUT_SIZE``]: ``out[0] = n``, ``out[1..n]`` action codes
  (``durak_sim.actions``: attack c = c, defend c = 36 + c, take 72, stop 73).
* ``stats``: int64[``STATS_SIZE``]: ``[0]`` nodes, ``[1]`` 1 when the answer is not exact (the
  node cap, or a line deeper than ``MAX_PLY`` plies): the value is then a guess and ``out``
  holds one legal action (the best one proved before the stop; the proof-number search stops
  the same way deeper than ``PN_PLIES``), ``[2]`` 1 when the cap cut
  the ``MODE_ORDERED`` order short (value
  and set still exact; the preference phase has a budget of another ``node_cap`` nodes),
  ``[3]`` value-search nodes, ``[4]`` optimal-set nodes, ``[5]`` preference nodes, ``[6]``
  table cut-offs, ``[7]`` rule cut-offs.

``solve_value(...)`` is ``solve_root`` in ``MODE_VALUE`` without ``mode`` and ``out``.

Which action
------------
``MODE_ORDERED``: every position has a score ``s`` from seat 0's view: ``BIG - p`` when seat 0
wins in ``p`` plies, ``-(BIG - p)`` when it loses in ``p`` plies, ``0`` for a draw, under play
where seat 0 maximises ``s`` and seat 1 minimises it: both sides win as quickly and lose as
slowly as they can, and a draw has no length. Every decision is a ply, forced ones included.
The optimal actions are ordered by the score of the position each leads to, best for the mover
first, ties by action code. This is exact and can cost 10-100 times the value search.

``MODE_ONE`` (the hard AI's call, no search beyond the value's): when the mover can win (or at
best draw), the first action that the value search proved winning (drawing), in search order;
when every action loses, the one whose refutation took the most nodes in this call ("the most
resistant", a cheap stand-in for losing slowly), the first such in search order. Search order:
the table's remembered move, then (open) non-trumps before trumps, a rank single in the hand
first, low first; (defend) non-trumps before trumps, each: beaters of a rank the attacker
lacks, then of a rank he holds once, then the rest, low first; take last; (throw in)
non-trumps first, low first, stop last.

Scores and values share the table: entries hold bounds on ``s``; the value tests are ``s >= 1``
and ``s >= 0``, and since no deal lasts ``BIG`` plies they need no depth.

Inside the search
-----------------
State: ``h0, h1`` hands, ``tab`` every card on the table (attacks and defences), ``unb`` the
unbeaten attack card or -1, ``natt`` attacks so far, ``lim`` the limit, ``tk`` taking, ``att``
attacker, ``sp`` cards drawn from ``stock``, ``mn`` while taking: the lowest card that may still
be thrown in (throw-ins during a take are searched in increasing card order, so each set of
thrown cards is searched once; such nodes are never stored). The table stores bout starts
(keyed on both hands, the attacker and the cards left in the stock) and, within
``TT_SHALLOW`` plies of the root, bout nodes too (the whole state): they are the roots of the
deal's next calls. Deeper bout nodes transpose too rarely to pay for a probe. With an empty
stock a bout start's key is canonical: ranks holding no card of either hand are squeezed out
and the three non-trump suits sorted by their pattern, which renames cards without changing
any beat or rank match, so such positions are the same game (stored moves are renamed too).

Exact shortcuts (empty stock; each follows from R3-R5):
(S1) the attacker opens with his last card: he has no card to throw in, so the bout ends
after the defender's answer. He wins unless the defender beats it with the defender's own last
card (draw). Three plies. (S2) the defender holds one card that beats every attacker card:
the limit is 1, so he beats the opening card, the bout ends, he is out and the attacker is not.
(S3) the attacker holds a single rank, no more cards than the limit, and the defender more
cards than that: the attacker plays every card this bout (each matches the opening card's rank,
whatever the defender does), the defender cannot go out. (S4) while taking, every card the
attacker still holds may be thrown in: he throws them all and goes out; the taker holds cards.
(S5) the defender holds one card, it beats the unbeaten card, and no throw-in could follow it
(limit reached or no matching rank): he beats it and goes out (draw if the attacker has none).
(S6) against a defender's last card, an opening that card beats loses in three plies, the
quickest any line can end: such openings are not searched when another opening exists.
(S7) at a bout start no card of the defender beats any card of the attacker: the attacker
wins. He opens his non-trumps, then his trumps, each suit low to high, one card a bout; the
defender can never beat (a card he took is lower than or off-suit from every later one, and
no trump comes before the last non-trump), so he takes every bout, the attacker keeps the
attack and is out first. The next rules extend S7 (bout starts; the defender may beat the
cards the rules call "beatable"; "unbeatable": no card of his beats it):
(S8) at most one attacker card is beatable: he plays the others as in S7, the beatable one
last: the defender, who took at least one card, still holds a card when the attacker is out.
(S9) the beatable cards are all of one rank, no more of them than the limit of the last bout
(``min(6, nd + unbeatable)``), and fewer than the defender's cards then: the unbeatable ones
as in S7, then S3 with the rest (each matches the opening card's rank).
(S10) S8 or S9 after throwing in, in the bouts of S7 (the defender takes each), beatable cards
of an unbeatable card's rank that beat no unbeatable card (room ``min(6, nd) - 1`` a bout,
counted per rank): the defender can never beat a later card with them.
(S11) every defender card beats every attacker card and the attacker holds more cards than
the limit: the defender beats every attack (any card does); then either he is out and the
attacker is not, or he attacks with cards the attacker cannot beat (S7).
Distance tests (``t >= 2``, ``t <= -1``) end at once when the threshold is past the deal's
end: a deal not over lasts at least one more ply, so ``t >= BIG`` fails and ``t <= 1 - BIG``
holds; this bounds the search of "wins within p plies" to depth p.

Equal-value reduction: two cards of one suit in the defender's hand with no live card (hands,
table, stock) between them, each the only live card of its rank, are interchangeable as a
defence: whatever follows is the same up to renaming the two cards (the one on the table is
either picked up with the other or discarded). Only the lower one is searched. The same is
not true of attacks (after a take the two cards are in different hands and one beats the
other), so attacks are never reduced; nor of cards whose rank has another live card (the rank
decides throw-ins). The optimal set is always taken over every legal action, unreduced.

Proof-number fallback (lopsided endgames)
-----------------------------------------
With many cards against few (11 v 5, 14 v 2) alpha-beta must refute every choice of the big
hand, and its fixed move order often proves the small side's win by a line that leaves the big
hand the most replies: such tests took millions of nodes. So each root value test runs
alpha-beta for ``AB_BUDGET`` nodes, and if that does not settle it (and the node cap is not
reached), the tests of the root moves still open run as a depth-first proof-number search
(df-pn, ``_mid``): it expands the move whose proof (or disproof) looks cheapest, so it finds
the lines where the big hand has few replies. It is exact: a proof number becomes 0 (or a
disproof number 0) only from exact facts (deal ends, the rules S1-S5 and S7-S11, alpha-beta tests
that finished, entries settled so), and it searches the same moves as ``_vs`` (with S6 and the
equal-value reduction). Details: a new child's numbers are 1 and the number of its mover's
moves (the proof number of an AND node, the disproof number of an OR node: "df-pn+" style);
the 1 + 1/4 threshold trick; at a bout start met for the first time, alpha-beta runs first
for ``PN_LEAF_AB`` nodes (small subtrees are far cheaper by alpha-beta). The proof search
shares the table: its entries hold proof and disproof numbers of any state (bout nodes too;
keys: both hands, the table, attacks left, the unbeaten card or the throw-in floor ``mn``,
attacker, stock left; empty-stock bout starts canonical as above) under the tag
``-(4 * stamp + t + 2)``, which no value-search probe matches. A settled bout start is written
as a bound of the value search's entry instead, and ``_vs`` also reads settled proof entries
of the bout nodes it stores (near the root), so the deal's next calls reuse what it proved.
On 92 hard-vs-normal endgames that hit the 1M-node cap it solves 44 within 1M nodes and 86
within 20M (alpha-beta alone: none and 70); replaying 48,847 endgame decisions of 4,000 deals
in order, the cap hits fell from 76 to 45 and the nodes by 8%. Alpha-beta stays first because
it is faster on ordinary positions and because its proofs follow its move order, which often
matches the opponent's play: the deal's next calls then find their answers in the table.
In play (``benchmarks/bench_hard_endgame.py --deals 10000``, hard against normal) it cut the
cap hits from 334 to 241 of about 123,000 endgame decisions (0.27% to 0.20%) with no loss of
deals per second (979 on one thread against 900-940); against easy (300 deals) from 7.3% to
5.3%, with the mean decision 6.4 ms to 4.2 ms. ``durak-sim solve`` and the hard AI (from its
version 4) use it.

Version 6 added the shortcuts S8-S11 and the defence order above (non-trumps first, then by
how many cards of the beater's rank the attacker holds). On the same 92 endgames it solves
66 within 1M nodes and 88 within 20M (197M nodes in all instead of 337M); 1,500 ordinary
endgames of the same log take 5.5M nodes instead of 9.5M; replaying the log's 48,847
decisions in order (one stamp per deal and seat, as in play) at a 1M cap, 24 hit the cap
instead of 55 and the nodes fell from 155M to 99M. No value changed: every position solved
by both versions has the same value, and the rules' verdicts match the tests' brute force.

Version 7 searches the same nodes in the same order, 12-15% faster: the defence and throw-in
lists are built from precomputed masks (one per group of the order above) instead of loops
over the groups, and the canonical key's rank squeeze is BMI2's ``pext`` where numba
compiles for it (``bits.squeeze_nibbles``; a loop over the ranks elsewhere). Replaying 49,332 decisions of
hard: identical values, actions, node counts and caps.

``_vs`` is compiled without numba's reference counting (``_nrt=False``): it allocates nothing,
and the count updates of the array argument at every call cost about half its time.
"""
import numba
import numpy as np

from .bits import lowest, nth_nibble, popcount, squeeze_nibbles
from .config import JIT

#: bump with every change of the search (its answers or its speed) and set SOLVER_LINKED in
#: strategies/hard.py to match: numba's cache keys hard's compiled ``decide``, which links
#: this module's code, on hard.py's text alone
SOLVER_VERSION = 7

# action codes (durak_sim.actions)
A_DEFEND = 36
A_TAKE = 72
A_STOP = 73

MODE_VALUE = 0
MODE_ONE = 1
MODE_SET = 2
MODE_ORDERED = 3

OUT_SIZE = 64
STATS_SIZE = 8

#: a score no deal reaches: plies are bounded by 14 per bout and bouts by about 1,100
BIG = 1 << 15

# phases, derived from the state
PH_OPEN = 0
PH_DEFEND = 1
PH_ATTACK = 2
PH_TAKING = 3

# work area at the head of ``tt``
C_TRUMP = 0
C_STOCK_N = 1
C_NODES = 2
C_CAP = 3
C_CAPPED = 4
C_STAMP = 5
C_TT_MASK = 6
C_TRUMP_MASK = 7
C_TT_CUTS = 8
C_STATIC = 9
C_PN_LEAF = 10           # the proof-number search's alpha-beta budget at a new bout start
C_BEAT = 16              # 36 words: mask of the cards that beat card c (R1.3)
C_SUFFIX = C_BEAT + 36   # 37 words: mask of stock[sp:stock_n] for sp = 0..36
C_STOCK = C_SUFFIX + 37  # 36 words: the stock in draw order
C_LEGAL = C_STOCK + 36   # 64 words: root actions
C_EFFORT = C_LEGAL + 64  # 40 words: nodes spent under each root move (MODE_ONE)
C_MV = C_EFFORT + 40     # MOVES_PER_PLY words per ply: move lists
MOVES_PER_PLY = 40
MAX_PLY = 500
C_LO = C_MV + MOVES_PER_PLY * MAX_PLY  # 40 words: a lower bound of each root move's value
C_HI = C_LO + 40                       # 40 words: its upper bound (seat 0's view, -1..1)
C_PN = C_HI + 40          # PN_PLIES * MOVES_PER_PLY words: proof search, children's numbers
PN_PLIES = 300
WORK = 1 << 15           # words of the work area (>= C_PN + PN_PLIES * MOVES_PER_PLY)
TT_WORDS = 4             # an entry: key1, key2, stamp, data

NIB0 = 0x111111111       # bit 4r of every rank r
SUIT0 = 0x111111111      # the cards of suit 0; suit s is SUIT0 << s
M32 = 0xFFFFFFFF
M20 = (1 << 20) - 1
#: inside bouts, nodes this close to the root are stored too (they are the next calls' roots)
TT_SHALLOW = 3
CARDS = (1 << 36) - 1
SMASK = (1 << 17) - 1    # a score bound in the data word, offset by BIG
WORK_MAX = (1 << 22) - 1  # an entry's node count saturates here
#: proof search: an infinite proof or disproof number; finite sums saturate one below it
PN_INF = (1 << 28) - 1
M28 = (1 << 28) - 1
#: the value tests run alpha-beta for this many nodes, then the proof-number search
AB_BUDGET = 400_000
#: the proof-number search tries alpha-beta for this many nodes at a bout start it meets first
PN_LEAF_AB = 1000


def table_words(log2_entries=16):
    """Length of a ``tt`` array with ``2**log2_entries`` entries (2**16: 2.2 MB)."""
    return WORK + (TT_WORDS << log2_entries)


def new_table(log2_entries=16):
    """A zeroed ``tt`` work array (stamps must be > 0, so every entry starts stale)."""
    return np.zeros(table_words(log2_entries), np.int64)


@numba.njit(inline="always", **JIT)
def _ranks_mask(tab):
    """Every card whose rank is in ``tab`` (R3.3)."""
    x = (tab | (tab >> 1) | (tab >> 2) | (tab >> 3)) & NIB0
    return x * 15


@numba.njit(inline="always", **JIT)
def _below(h):
    """Every card below the highest card of ``h`` of its suit."""
    x = h >> 4
    x |= x >> 4
    x |= x >> 8
    x |= x >> 16
    x |= x >> 32
    return x


@numba.njit(inline="always", **JIT)
def _above(h):
    """Every card above the lowest card of ``h`` of its suit."""
    x = (h << 4) & CARDS
    x |= (x << 4) & CARDS
    x |= (x << 8) & CARDS
    x |= (x << 16) & CARDS
    x |= (x << 32) & CARDS
    return x


@numba.njit(inline="always", **JIT)
def _hash(k1, k2):
    h = ((k1 & M32) * 0x2545F491) ^ ((k1 >> 32) * 0x4F6CDD1D) ^ ((k2 & M32) * 0x5851F42D) \
        ^ ((k2 >> 32) * 0x14057B7E)
    return h ^ (h >> 29)


@numba.njit(inline="always", **JIT)
def _squeeze(h0, h1, trump):
    """Canonical form of an empty-stock bout start: the ranks holding no card of either hand
    left out (rank by rank, in order) and the three non-trump suits sorted by their pattern.
    Returns both squeezed hands and the map back of the suits: bits 36+2t.. hold the suit
    that canonical suit t came from (canonical rank j is the j-th live rank: ``nth_nibble``)."""
    lr = _ranks_mask(h0 | h1)
    q0 = squeeze_nibbles(h0, lr)
    q1 = squeeze_nibbles(h1, lr)
    # the non-trump suits, by signature (both hands' bits of the suit), largest first
    a = (trump + 1) & 3
    b = (trump + 2) & 3
    c = (trump + 3) & 3
    sa = ((q0 >> a) & SUIT0) | (((q1 >> a) & SUIT0) << 1)
    sb = ((q0 >> b) & SUIT0) | (((q1 >> b) & SUIT0) << 1)
    sc = ((q0 >> c) & SUIT0) | (((q1 >> c) & SUIT0) << 1)
    if sa < sb:
        a, b = b, a
        sa, sb = sb, sa
    if sb < sc:
        b, c = c, b
        sb, sc = sc, sb
    if sa < sb:
        a, b = b, a
        sa, sb = sb, sa
    # canonical suit slots: the non-trump suits in increasing order get a, b, c
    ta = (trump + 1) & 3
    tb = (trump + 2) & 3
    tc = (trump + 3) & 3
    if ta > tb:
        ta, tb = tb, ta
    if tb > tc:
        tb, tc = tc, tb
    if ta > tb:
        ta, tb = tb, ta
    tm = SUIT0 << trump
    r0 = (q0 & tm) | (((q0 >> a) & SUIT0) << ta) | (((q0 >> b) & SUIT0) << tb) \
        | (((q0 >> c) & SUIT0) << tc)
    r1 = (q1 & tm) | (((q1 >> a) & SUIT0) << ta) | (((q1 >> b) & SUIT0) << tb) \
        | (((q1 >> c) & SUIT0) << tc)
    back = (trump << (2 * trump)) | (a << (2 * ta)) | (b << (2 * tb)) | (c << (2 * tc))
    return r0, r1, back << 36


@numba.njit(inline="always", **JIT)
def _refill(ha, hd, sp, ctx, n):
    """R4: the attacker draws up to six first, then the defender."""
    while sp < n and popcount(ha) < 6:
        ha |= 1 << ctx[C_STOCK + sp]
        sp += 1
    while sp < n and popcount(hd) < 6:
        hd |= 1 << ctx[C_STOCK + sp]
        sp += 1
    return ha, hd, sp


@numba.njit(inline="always", **JIT)
def _child(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, a, ctx):
    """The state after action ``a``; ``term`` is the deal's value if it ends there, else 2."""
    c0 = h0
    c1 = h1
    ctab = tab
    cunb = unb
    cnatt = natt
    clim = lim
    ctk = tk
    catt = att
    csp = sp
    cmn = mn
    term = 2
    if a < A_DEFEND:
        b = 1 << a
        if att == 0:
            c0 = h0 ^ b
        else:
            c1 = h1 ^ b
        ctab = tab | b
        cnatt = natt + 1
        if tab == 0:
            # opening (R3.1): the bout's limit is fixed now (R3.4)
            clim = min(6, popcount(h1 if att == 0 else h0))
            cunb = a
        elif tk == 0:
            cunb = a
        else:
            cmn = a + 1
    elif a < A_TAKE:
        b = 1 << (a - A_DEFEND)
        if att == 0:
            c1 = h1 ^ b
        else:
            c0 = h0 ^ b
        ctab = tab | b
        cunb = -1
    elif a == A_TAKE:
        ctk = 1
        cunb = -1
        cmn = 0
    else:
        # stop: the bout ends (R3.6 / R3.7), refill (R4), end check (R5)
        n = ctx[C_STOCK_N]
        ha = h0 if att == 0 else h1
        hd = h1 if att == 0 else h0
        if tk != 0:
            hd = hd | tab
        ha, hd, csp = _refill(ha, hd, sp, ctx, n)
        if att == 0:
            c0 = ha
            c1 = hd
        else:
            c0 = hd
            c1 = ha
        if tk == 0:
            catt = 1 - att
        ctab = 0
        cunb = -1
        cnatt = 0
        clim = 0
        ctk = 0
        cmn = 0
        if csp == n and (c0 == 0 or c1 == 0):
            if c0 == 0 and c1 == 0:
                term = 0
            elif c0 == 0:
                term = 1
            else:
                term = -1
    return c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term


@numba.njit(inline="always", **JIT)
def _static(ha, hd, tab, unb, natt, lim, att, mn, phase, ctx):
    """Exact value (seat 0's view) of a state with an empty stock when one of the rules
    S1-S5 or S7-S11 (module docstring) settles it, else 2."""
    win = 1 if att == 0 else -1  # the attacker wins
    if phase == PH_OPEN:
        nd = popcount(hd)
        na = popcount(ha)
        if na == 1:
            if nd == 1 and (hd & ctx[C_BEAT + lowest(ha)]) != 0:
                return 0
            return win                                               # S1
        trumps = ctx[C_TRUMP_MASK]
        # the attacker cards the defender can beat: below his top card of their suit, or
        # any non-trump when he holds a trump
        bt = ha & (_below(hd) | ((~trumps & CARDS) if (hd & trumps) != 0 else 0))
        if nd == 1 and bt == ha:
            return -win                                              # S2
        if (ha & ~(15 << (lowest(ha) & ~3))) == 0 and na <= min(6, nd) and nd > na:
            return win                                               # S3
        if na > min(6, nd) and bt == ha:
            # S11: does every defender card beat every attacker card?
            m = ha
            while m and (hd & ~ctx[C_BEAT + lowest(m)]) == 0:
                m &= m - 1
            if m == 0:
                return -win                                          # S11
        if (bt & (bt - 1)) == 0:
            return win                                               # S7, S8
        if (bt & ~(15 << (lowest(bt) & ~3))) == 0:
            nb = popcount(bt)
            nd2 = nd + na - nb
            if nb <= min(6, nd2) and nd2 > nb:
                return win                                           # S9
        # S10: S9 after throwing in, during the takes of the unbeatable cards, beatable
        # cards of their ranks that beat none of them
        un = ha & ~bt
        if un != 0 and nd > 1:
            # the cards that beat an unbeatable card
            bu = _above(un) | (trumps if (un & ~trumps) != 0 else 0)
            cand = bt & _ranks_mask(un) & ~bu
            room = min(6, nd) - 1
            dumped = 0
            while cand:
                rm = 15 << (lowest(cand) & ~3)
                if popcount(cand & rm) <= popcount(un & rm) * room:
                    dumped |= cand & rm
                cand &= ~rm
            rest = bt & ~dumped
            if (rest & (rest - 1)) == 0:
                return win                                           # S10
            if (rest & ~(15 << (lowest(rest) & ~3))) == 0:
                nb = popcount(rest)
                nd2 = nd + na - nb
                if nb <= min(6, nd2) and nd2 > nb:
                    return win                                       # S10
    elif phase == PH_TAKING:
        if natt + popcount(ha) <= lim and (ha & ~(_ranks_mask(tab) & ~((1 << mn) - 1))) == 0:
            return win                                               # S4
    elif phase == PH_DEFEND:
        if hd != 0 and (hd & (hd - 1)) == 0 and (hd & ctx[C_BEAT + unb]) != 0:
            if natt >= lim or (ha & _ranks_mask(tab | hd)) == 0:
                return 0 if ha == 0 else -win                        # S5
    return 2


@numba.njit(inline="always", **JIT)
def _rank_counts(h):
    """Nibble r: how many cards of rank r ``h`` holds (0-4)."""
    x = h & (NIB0 * 3)
    y = (h >> 2) & (NIB0 * 3)
    return (x & NIB0) + ((x >> 1) & NIB0) + (y & NIB0) + ((y >> 1) & NIB0)


@numba.njit(inline="always", **JIT)
def _emit(m, best, base, cnt, tt):
    """Append the cards of ``m``, low first, but ``best``; returns the new count."""
    while m:
        c = lowest(m)
        m &= m - 1
        if c != best:
            tt[base + cnt] = c
            cnt += 1
    return cnt


@numba.njit(inline="always", **JIT)
def _emit_defences(m, live, best, base, cnt, tt):
    """Append the defences with the cards of ``m``, low first, with the equal-value reduction
    (module docstring), but ``best``; returns the new count."""
    prev = -1
    prev_single = False
    while m:
        c = lowest(m)
        m &= m - 1
        single = (live & (15 << (c & ~3))) == (1 << c)
        if single and prev_single and \
                (live & ((1 << c) - (1 << (prev + 1)))) & (SUIT0 << (c & 3)) == 0:
            prev = c
            continue
        prev = c
        prev_single = single
        if A_DEFEND + c != best:
            tt[base + cnt] = A_DEFEND + c
            cnt += 1
    return cnt


@numba.njit(inline="always", **JIT)
def _moves(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, phase, best, base, tt):
    """The moves to search, in search order, into tt[base:base+cnt]; returns cnt. ``best``
    (or -1) goes first. Includes the equal-value reduction of defences."""
    if att == 0:
        ha = h0
        hd = h1
    else:
        ha = h1
        hd = h0
    cnt = 0
    trumps = tt[C_TRUMP_MASK]
    if best >= 0:
        tt[base] = best
        cnt = 1
    if phase == PH_OPEN:
        hopen = ha
        if sp == tt[C_STOCK_N] and hd != 0 and (hd & (hd - 1)) == 0:
            # (S6) against a last card, an opening it beats loses at once (limit 1): skip those
            d = lowest(hd)
            beaten = (SUIT0 << (d & 3)) & ((1 << d) - 1)
            if (d & 3) == tt[C_TRUMP]:
                beaten |= ~trumps & CARDS
            if (ha & ~beaten) != 0:
                hopen = ha & ~beaten
        # non-trumps before trumps, low first; a card whose rank is single in the hand first
        for g in range(4):
            m = hopen & ~trumps if g < 2 else hopen & trumps
            while m:
                c = lowest(m)
                m &= m - 1
                if ((ha & (15 << (c & ~3))) == (1 << c)) == ((g & 1) == 0) and c != best:
                    tt[base + cnt] = c
                    cnt += 1
    elif phase == PH_DEFEND:
        # non-trumps before trumps, each: beaters of a rank the attacker lacks, then of a rank
        # he holds once, then the rest; low first; take last
        bt = hd & tt[C_BEAT + unb]
        live = h0 | h1 | tab | tt[C_SUFFIX + sp]
        rk = _ranks_mask(ha)
        # ranks of which the attacker holds two cards or more
        p1 = _rank_counts(ha)
        rk2 = (((p1 >> 1) | (p1 >> 2)) & NIB0) * 15
        nt = bt & ~trumps
        tr = bt & trumps
        cnt = _emit_defences(nt & ~rk, live, best, base, cnt, tt)
        cnt = _emit_defences(nt & rk & ~rk2, live, best, base, cnt, tt)
        cnt = _emit_defences(nt & rk2, live, best, base, cnt, tt)
        cnt = _emit_defences(tr & ~rk, live, best, base, cnt, tt)
        cnt = _emit_defences(tr & rk & ~rk2, live, best, base, cnt, tt)
        cnt = _emit_defences(tr & rk2, live, best, base, cnt, tt)
        if best != A_TAKE:
            tt[base + cnt] = A_TAKE
            cnt += 1
    else:
        # throw-ins (non-trumps first, low first), then stop
        if natt < lim:
            cand = ha & _ranks_mask(tab)
            if phase == PH_TAKING:
                cand &= ~((1 << mn) - 1)
        else:
            cand = 0
        cnt = _emit(cand & ~trumps, best, base, cnt, tt)
        cnt = _emit(cand & trumps, best, base, cnt, tt)
        if best != A_STOP:
            tt[base + cnt] = A_STOP
            cnt += 1

    return cnt


@numba.njit(inline="always", **JIT)
def _start_key(h0, h1, att, sp, tt):
    """The value search's keys of a bout start and its bucket (as ``_vs`` computes them)."""
    n = tt[C_STOCK_N]
    if sp == n:
        k1, key1, rmap = _squeeze(h0, h1, tt[C_TRUMP])
        k1 |= att << 36
    else:
        k1 = h0 | (att << 36) | ((n - sp) << 37)
        key1 = h1
    return k1, key1, WORK + (_hash(k1, key1) & tt[C_TT_MASK] & ~1) * TT_WORDS


@numba.njit(inline="always", **JIT)
def _bounds(h0, h1, att, sp, tt):
    """The bounds (lo, hi) on the score that the table holds for a bout start."""
    k1, key1, bucket = _start_key(h0, h1, att, sp, tt)
    stamp = tt[C_STAMP]
    d = -1
    if tt[bucket + 2] == stamp and tt[bucket] == k1 and tt[bucket + 1] == key1:
        d = tt[bucket + 3]
    elif tt[bucket + 6] == stamp and tt[bucket + 4] == k1 and tt[bucket + 5] == key1:
        d = tt[bucket + 7]
    if d < 0:
        return -BIG, BIG
    return (d & SMASK) - BIG, ((d >> 17) & SMASK) - BIG


@numba.njit(_nrt=False, **JIT)
def _vs(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, t, ply, tt):
    """1 when the score ``s`` of the state (module docstring) is >= t, else 0.

    ``t`` 1 / 0 are the value tests (seat 0 wins / does not lose); other thresholds test
    distances (``t >= 2``: seat 0 wins within ``BIG - t`` plies; ``t <= -1``: seat 0 does not
    lose within ``BIG + t - 1`` plies)."""
    tt[C_NODES] += 1
    if tt[C_CAPPED] != 0:
        return 0
    if tt[C_NODES] > tt[C_CAP] or ply >= MAX_PLY:
        tt[C_CAPPED] = 1
        return 0
    # distance tests: a deal not over yet lasts at least one more ply
    if t >= BIG:
        return 0
    if t <= 1 - BIG:
        return 1
    n = tt[C_STOCK_N]
    if att == 0:
        ha = h0
        hd = h1
    else:
        ha = h1
        hd = h0
    if tab == 0:
        phase = PH_OPEN
        mover = att
    elif tk != 0:
        phase = PH_TAKING
        mover = att
    elif unb >= 0:
        phase = PH_DEFEND
        mover = 1 - att
    else:
        phase = PH_ATTACK
        mover = att

    if sp == n:
        v = _static(ha, hd, tab, unb, natt, lim, att, mn, phase, tt)
        if v != 2:
            # a settled value gives the score's sign; S1 also its length (3 plies)
            if v == 0 or (v > 0 and t <= 1) or (v < 0 and t >= 0):
                tt[C_STATIC] += 1
                return 1 if v * BIG >= t else 0
            if phase == PH_OPEN and (ha & (ha - 1)) == 0:
                tt[C_STATIC] += 1
                return 1 if v * (BIG - 3) >= t else 0

    # transposition table: bout starts, and bout nodes near the root (module docstring)
    use_tt = phase == PH_OPEN or (phase != PH_TAKING and ply <= TT_SHALLOW)
    best = -1
    slot = 0
    k1 = 0
    lo = -BIG
    hi = BIG
    bucket = 0
    start = 0
    rmap = 0
    key1 = h1
    if use_tt:
        # with an empty stock, ranks with no live card are squeezed out of the key: positions
        # that differ only there are the same game up to renaming ranks (every beat and every
        # rank match is kept), so they share an entry; moves are stored squeezed too
        if phase != PH_OPEN:
            # inside a bout (near the root only): the whole state; lim >= 1 sets key1 apart
            k1 = h0 | ((tab & M20) << 36) | (att << 56) | ((n - sp) << 57)
            key1 = h1 | ((tab >> 20) << 36) | (lim << 52) | ((unb + 1) << 55)
        elif sp == n:
            k1, key1, rmap = _squeeze(h0, h1, tt[C_TRUMP])
            k1 |= att << 36
        else:
            k1 = h0 | (att << 36) | ((n - sp) << 37)
        bucket = WORK + (_hash(k1, key1) & tt[C_TT_MASK] & ~1) * TT_WORDS
        slot = -1
        stamp = tt[C_STAMP]
        if tt[bucket + 2] == stamp and tt[bucket] == k1 and tt[bucket + 1] == key1:
            slot = bucket
        elif tt[bucket + 6] == stamp and tt[bucket + 4] == k1 and tt[bucket + 5] == key1:
            slot = bucket + 4
        start = tt[C_NODES]
        if slot >= 0:
            d = tt[slot + 3]
            lo = (d & SMASK) - BIG
            hi = ((d >> 17) & SMASK) - BIG
            if lo >= t:
                tt[C_TT_CUTS] += 1
                return 1
            if hi < t:
                tt[C_TT_CUTS] += 1
                return 0
            best = ((d >> 34) & 127) - 1
            if best >= 0 and sp == n and phase == PH_OPEN:
                best = nth_nibble(best >> 2, _ranks_mask(h0 | h1)) \
                    | ((rmap >> (36 + 2 * (best & 3))) & 3)
        elif phase != PH_OPEN and (t == 0 or t == 1):
            # a bout node the proof-number search settled (an earlier call of the deal)
            p1, p2 = _pn_key(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, n, tt)
            ps = _pn_probe(p1, p2, -(tt[C_STAMP] * 4 + t + 2), tt)
            if ps >= 0:
                d = tt[ps + 3]
                if (d & M28) == 0:
                    tt[C_TT_CUTS] += 1
                    return 1
                if ((d >> 28) & M28) == 0:
                    tt[C_TT_CUTS] += 1
                    return 0

    base = C_MV + ply * MOVES_PER_PLY
    cnt = _moves(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, phase, best, base, tt)

    # ---- search; children test the threshold that makes this node's test succeed
    if t >= 2:
        ct = t + 1
    elif t <= -1:
        ct = t - 1
    else:
        ct = t
    maxnode = mover == 0
    result = 0 if maxnode else 1
    cut = -1
    for i in range(cnt):
        a = tt[base + i]
        c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
            h0, h1, tab, unb, natt, lim, tk, att, sp, mn, a, tt)
        if term != 2:
            r = 1 if term * BIG >= ct else 0
        else:
            r = _vs(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, ct, ply + 1, tt)
        if maxnode:
            if r != 0:
                result = 1
                cut = a
                break
        else:
            if r == 0:
                result = 0
                cut = a
                break
    if tt[C_CAPPED] != 0:
        return result
    if use_tt:
        if result != 0:
            if t > lo:
                lo = t
        else:
            if t - 1 < hi:
                hi = t - 1
        if cut < 0:
            cut = best
        if cut >= 0 and sp == n and phase == PH_OPEN:
            # the canonical card: its rank's index among the live ranks, its suit's slot
            cs = cut & 3
            for u in range(4):
                if ((rmap >> (36 + 2 * u)) & 3) == cs:
                    cs = u
                    break
            cut = (popcount(_ranks_mask(h0 | h1) & ((1 << (cut & ~3)) - 1)) >> 2 << 2) | cs
        work = min(tt[C_NODES] - start, WORK_MAX)
        if slot < 0:
            # replace a stale entry, else the one that took fewer nodes
            stamp = tt[C_STAMP]
            w0 = (tt[bucket + 3] >> 41) if tt[bucket + 2] == stamp else -1
            w1 = (tt[bucket + 7] >> 41) if tt[bucket + 6] == stamp else -1
            slot = bucket if w0 <= w1 else bucket + 4
        else:
            work = max(work, tt[slot + 3] >> 41)
        tt[slot] = k1
        tt[slot + 1] = key1
        tt[slot + 2] = tt[C_STAMP]
        tt[slot + 3] = (lo + BIG) | ((hi + BIG) << 17) | ((cut + 1) << 34) | (work << 41)
    return result


@numba.njit(inline="always", **JIT)
def _ab_bound(h0, h1, att, sp, t, r, work, tt):
    """Record in the value search's entry of a bout start what a proof-number search proved
    about it: ``s >= t`` (r 1) or ``s < t`` (r 0)."""
    k1, key1, bucket = _start_key(h0, h1, att, sp, tt)
    stamp = tt[C_STAMP]
    lo = -BIG
    hi = BIG
    cut = -1
    if tt[bucket + 2] == stamp and tt[bucket] == k1 and tt[bucket + 1] == key1:
        slot = bucket
    elif tt[bucket + 6] == stamp and tt[bucket + 4] == k1 and tt[bucket + 5] == key1:
        slot = bucket + 4
    else:
        slot = -1
    if slot >= 0:
        d = tt[slot + 3]
        lo = (d & SMASK) - BIG
        hi = ((d >> 17) & SMASK) - BIG
        cut = ((d >> 34) & 127) - 1
        work = max(work, d >> 41)
    else:
        slot = bucket if _entry_work(bucket, tt) <= _entry_work(bucket + 4, tt) else bucket + 4
    if r != 0:
        lo = max(lo, t)
    else:
        hi = min(hi, t - 1)
    work = min(work, WORK_MAX)
    tt[slot] = k1
    tt[slot + 1] = key1
    tt[slot + 2] = stamp
    tt[slot + 3] = (lo + BIG) | ((hi + BIG) << 17) | ((cut + 1) << 34) | (work << 41)


@numba.njit(inline="always", **JIT)
def _pn_key(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, n, tt):
    """The proof search's key of any state: both hands, the table, the attacks left
    (``lim - natt``: the limit matters only through it), the unbeaten card or, while taking,
    the lowest card that may still be thrown in, the attacker and the cards left in the stock."""
    if tab == 0 and sp == n:
        # an empty-stock bout start: the value search's canonical form (module docstring)
        k1, k2, rmap = _squeeze(h0, h1, tt[C_TRUMP])
        return k1 | (att << 36), k2
    x = unb + 1 if tk == 0 else 37 + mn
    rem = lim - natt if tab != 0 else 0
    k1 = h0 | ((tab & M20) << 36) | (att << 56) | ((n - sp) << 57)
    k2 = h1 | ((tab >> 20) << 36) | (rem << 52) | (x << 55)
    return k1, k2


@numba.njit(inline="always", **JIT)
def _pn_probe(k1, k2, tag, tt):
    """The entry's slot (or -1) for key (k1, k2) under the proof search's tag."""
    bucket = WORK + (_hash(k1, k2) & tt[C_TT_MASK] & ~1) * TT_WORDS
    if tt[bucket + 2] == tag and tt[bucket] == k1 and tt[bucket + 1] == k2:
        return bucket
    if tt[bucket + 6] == tag and tt[bucket + 4] == k1 and tt[bucket + 5] == k2:
        return bucket + 4
    return -1


@numba.njit(inline="always", **JIT)
def _entry_work(slot, tt):
    """How much an entry is worth keeping: log2 of its node count for a live entry of either
    search, -1 for a stale one."""
    w = tt[slot + 2]
    if w == tt[C_STAMP]:
        x = tt[slot + 3] >> 41
        b = 0
        while x > 0:
            x >>= 1
            b += 1
        return b
    if w == -(tt[C_STAMP] * 4 + 2) or w == -(tt[C_STAMP] * 4 + 3):
        return (tt[slot + 3] >> 56) & 63
    return -1


@numba.njit(inline="always", **JIT)
def _pn_store(k1, k2, tag, pn, dn, work, tt):
    """Store a state's proof and disproof numbers (replacing a stale entry, else the one of
    either search that took fewer nodes)."""
    bucket = WORK + (_hash(k1, k2) & tt[C_TT_MASK] & ~1) * TT_WORDS
    if tt[bucket + 2] == tag and tt[bucket] == k1 and tt[bucket + 1] == k2:
        slot = bucket
    elif tt[bucket + 6] == tag and tt[bucket + 4] == k1 and tt[bucket + 5] == k2:
        slot = bucket + 4
    else:
        slot = bucket if _entry_work(bucket, tt) <= _entry_work(bucket + 4, tt) else bucket + 4
    b = 0
    while work > 0:
        work >>= 1
        b += 1
    tt[slot] = k1
    tt[slot + 1] = k2
    tt[slot + 2] = tag
    tt[slot + 3] = pn | (dn << 28) | (b << 56)


@numba.njit(inline="always", **JIT)
def _pn_leaf(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, term, t, tag, tt):
    """Proof and disproof numbers of a child as far as known without expanding it: the
    deal's end, a rule S1-S5/S7-S11, the proof search's entry, the value search's bounds of a
    bout start; else 1, 1."""
    if term != 2:
        return (0, PN_INF) if term * BIG >= t else (PN_INF, 0)
    n = tt[C_STOCK_N]
    if sp == n:
        ph = _phase(tab, unb, tk)
        if att == 0:
            v = _static(h0, h1, tab, unb, natt, lim, att, mn, ph, tt)
        else:
            v = _static(h1, h0, tab, unb, natt, lim, att, mn, ph, tt)
        if v != 2:
            return (0, PN_INF) if v >= t else (PN_INF, 0)
    k1, k2 = _pn_key(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, n, tt)
    slot = _pn_probe(k1, k2, tag, tt)
    if slot >= 0:
        d = tt[slot + 3]
        return d & M28, (d >> 28) & M28
    if tab == 0:
        lo, hi = _bounds(h0, h1, att, sp, tt)
        if lo >= t:
            return 0, PN_INF
        if hi < t:
            return PN_INF, 0
    # not known: the mover's number of moves estimates the disproof (proof) number of an
    # OR (AND) node
    if tab == 0:
        m = popcount(h0 if att == 0 else h1)
        mover = att
    elif tk == 0 and unb >= 0:
        m = popcount((h1 if att == 0 else h0) & tt[C_BEAT + unb]) + 1
        mover = 1 - att
    else:
        m = 1
        if natt < lim:
            cand = (h0 if att == 0 else h1) & _ranks_mask(tab)
            if tk != 0:
                cand &= ~((1 << mn) - 1)
            m += popcount(cand)
        mover = att
    return (1, m) if mover == 0 else (m, 1)


@numba.njit(_nrt=False, **JIT)
def _mid(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, t, thpn, thdn, ply, tag, tt):
    """Depth-first proof-number search (df-pn) of the value test ``s >= t`` (t 0 or 1): expand
    the state until its proof number reaches ``thpn`` or its disproof number ``thdn``; returns
    both. Proof number 0: the test holds; disproof number 0: it fails. Only exact facts make a
    number 0 or ``PN_INF`` (deal ends, rules S1-S5/S7-S11, finished alpha-beta tests, entries
    settled so); every other number is a heuristic that steers the search only."""
    tt[C_NODES] += 1
    if tt[C_CAPPED] != 0:
        return 1, 1
    if tt[C_NODES] > tt[C_CAP] or ply >= PN_PLIES:
        tt[C_CAPPED] = 1
        return 1, 1
    n = tt[C_STOCK_N]
    k1, k2 = _pn_key(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, n, tt)
    start = tt[C_NODES]
    if tab == 0 and tt[C_PN_LEAF] > 0 and _pn_probe(k1, k2, tag, tt) < 0:
        # a bout start met for the first time: alpha-beta first, with a small budget
        cap = tt[C_CAP]
        tt[C_CAP] = min(cap, start + tt[C_PN_LEAF])
        r = _vs(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, t, ply, tt)
        tt[C_CAP] = cap
        if tt[C_CAPPED] == 0:
            # settled (``_vs`` stored it: a bout start)
            pn = 0 if r != 0 else PN_INF
            return pn, PN_INF - pn
        if tt[C_NODES] > cap:
            return 1, 1
        tt[C_CAPPED] = 0
    phase = _phase(tab, unb, tk)
    mover = 1 - att if phase == PH_DEFEND else att
    maxnode = mover == 0
    base = C_MV + ply * MOVES_PER_PLY
    nb = C_PN + ply * MOVES_PER_PLY
    cnt = _moves(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, phase, -1, base, tt)
    for i in range(cnt):
        c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
            h0, h1, tab, unb, natt, lim, tk, att, sp, mn, tt[base + i], tt)
        cp, cd = _pn_leaf(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term, t, tag,
                          tt)
        tt[nb + i] = cp | (cd << 32)
    pn = 1
    dn = 1
    while True:
        # OR node (seat 0 moves): pn the least child pn, dn the sum; AND node the reverse
        b1 = PN_INF + 1
        b2 = PN_INF + 1
        bi = 0
        other = 0
        tot = 0
        for i in range(cnt):
            x = tt[nb + i]
            cp = x & M32
            cd = x >> 32
            if maxnode:
                mine = cp
                oth = cd
            else:
                mine = cd
                oth = cp
            if mine < b1:
                b2 = b1
                b1 = mine
                bi = i
                other = oth
            elif mine < b2:
                b2 = mine
            if tot < PN_INF:
                tot = PN_INF if oth >= PN_INF else min(tot + oth, PN_INF - 1)
        if b1 > PN_INF:
            b1 = PN_INF
        if maxnode:
            pn = b1
            dn = tot
        else:
            pn = tot
            dn = b1
        if pn >= thpn or dn >= thdn:
            break
        # the child's thresholds (1 + 1/4 trick against thrashing between siblings)
        if b2 > PN_INF:
            b2 = PN_INF
        near = min(PN_INF, b2 + (b2 >> 2) + 1)
        if maxnode:
            cthpn = min(thpn, near)
            cthdn = PN_INF if thdn >= PN_INF else thdn - dn + other
        else:
            cthdn = min(thdn, near)
            cthpn = PN_INF if thpn >= PN_INF else thpn - pn + other
        c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
            h0, h1, tab, unb, natt, lim, tk, att, sp, mn, tt[base + bi], tt)
        cp, cd = _mid(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, t, cthpn, cthdn,
                      ply + 1, tag, tt)
        if tt[C_CAPPED] != 0:
            return 1, 1
        tt[nb + bi] = cp | (cd << 32)
    if tab == 0 and (pn == 0 or dn == 0):
        # a bout start settled: the value search's entry keeps it (later calls of the deal)
        _ab_bound(h0, h1, att, sp, t, 1 if pn == 0 else 0, tt[C_NODES] - start + 1, tt)
    else:
        _pn_store(k1, k2, tag, pn, dn, tt[C_NODES] - start + 1, tt)
    return pn, dn


@numba.njit(**JIT)
def _pn_test(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, t, ply, tt):
    """``_vs`` by the proof-number search: 1 when ``s >= t`` (t 0 or 1), else 0; meaningless
    when tt[C_CAPPED]."""
    tag = -(tt[C_STAMP] * 4 + t + 2)
    inf = t - t + PN_INF  # typed: every call of the recursion has the same types
    pn, dn = _mid(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, t, inf, inf, ply, tag, tt)
    return 1 if pn == 0 else 0


@numba.njit(**JIT)
def _setup(trump, stock, stock_n, tt, stamp, node_cap):
    ctx = tt
    for i in range(C_BEAT):
        ctx[i] = 0
    ctx[C_TRUMP] = trump
    ctx[C_STOCK_N] = stock_n
    ctx[C_CAP] = node_cap if node_cap > 0 else (1 << 62)
    ctx[C_STAMP] = stamp
    entries = (tt.shape[0] - WORK) // TT_WORDS
    p = 2
    while p * 2 <= entries:
        p *= 2
    ctx[C_TT_MASK] = p - 1
    ctx[C_TRUMP_MASK] = SUIT0 << trump
    for c in range(36):
        s = c & 3
        higher = (SUIT0 << s) & ~((2 << c) - 1)
        if s != trump:
            higher |= SUIT0 << trump
        ctx[C_BEAT + c] = higher
    acc = 0
    ctx[C_SUFFIX + stock_n] = 0
    for i in range(stock_n - 1, -1, -1):
        acc |= 1 << stock[i]
        ctx[C_SUFFIX + i] = acc
        ctx[C_STOCK + i] = stock[i]


@numba.njit(**JIT)
def _legal(h0, h1, tab, unb, natt, lim, tk, att, ctx, out, o):
    """Every legal action, codes ascending, into out[o+1..]; the count into out[o]."""
    ha = h0 if att == 0 else h1
    hd = h1 if att == 0 else h0
    cnt = 0
    if tab == 0:
        m = ha
        while m:
            c = lowest(m)
            m &= m - 1
            cnt += 1
            out[o + cnt] = c
    elif tk == 0 and unb >= 0:
        m = hd & ctx[C_BEAT + unb]
        while m:
            c = lowest(m)
            m &= m - 1
            cnt += 1
            out[o + cnt] = A_DEFEND + c
        cnt += 1
        out[o + cnt] = A_TAKE
    else:
        m = ha & _ranks_mask(tab) if natt < lim else 0
        while m:
            c = lowest(m)
            m &= m - 1
            cnt += 1
            out[o + cnt] = c
        cnt += 1
        out[o + cnt] = A_STOP
    out[o] = cnt
    return cnt


@numba.njit(**JIT)
def _strength(h, trump):
    s = 0
    m = h
    while m:
        c = lowest(m)
        m &= m - 1
        s += (c >> 2) + (9 if (c & 3) == trump else 0)
    return s


@numba.njit(**JIT)
def _guess_seat0_wins(h0, h1, trump):
    """Which value test runs first: seat 0 is guessed to win when its cards are stronger on
    average (rank, +9 for a trump): right in about 85% of benchmark endgames."""
    return _strength(h0, trump) * popcount(h1) >= _strength(h1, trump) * popcount(h0)


@numba.njit(**JIT)
def _score_ge(h0, h1, tab, unb, natt, lim, tk, att, sp, t, tt):
    """Score test of a state at the root's children (ply 1, fresh throw-in order)."""
    return _vs(h0, h1, tab, unb, natt, lim, tk, att, sp, sp - sp, t, sp - sp + 1, tt)


@numba.njit(**JIT)
def _win_within(h0, h1, tab, unb, natt, lim, tk, att, sp, v, p, tt):
    """Whether the seat that wins (``v``: 1 seat 0, -1 seat 1) wins within ``p`` plies."""
    if v > 0:
        return _score_ge(h0, h1, tab, unb, natt, lim, tk, att, sp, BIG - p, tt) != 0
    return _score_ge(h0, h1, tab, unb, natt, lim, tk, att, sp, p - BIG + 1, tt) == 0


@numba.njit(**JIT)
def _exact_score(h0, h1, tab, unb, natt, lim, tk, att, sp, v, horizon, tt):
    """Score of a child state of known value ``v`` (seat 0's view) with its length capped:
    ``v * (BIG - min(p, horizon + 1))`` for a deal that ends in ``p`` plies."""
    if v == 0:
        return v - v
    # smallest p <= horizon with a win within p plies: doubling steps, then bisection
    lo = 1
    hi = horizon + 1
    p = 1
    while p <= horizon:
        if _win_within(h0, h1, tab, unb, natt, lim, tk, att, sp, v, p, tt):
            hi = p
            break
        if tt[C_CAPPED] != 0:
            return v * (BIG - lo)
        lo = p + 1
        p = min(2 * p, horizon) if p < horizon else horizon + 1
    while lo < hi:
        p = (lo + hi) // 2
        if _win_within(h0, h1, tab, unb, natt, lim, tk, att, sp, v, p, tt):
            hi = p
        else:
            lo = p + 1
        if tt[C_CAPPED] != 0:
            break
    return v * (BIG - lo)


@numba.njit(inline="always", **JIT)
def _phase(tab, unb, tk):
    if tab == 0:
        return PH_OPEN
    if tk != 0:
        return PH_TAKING
    if unb >= 0:
        return PH_DEFEND
    return PH_ATTACK


@numba.njit(**JIT)
def _root_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, t, use_pn, tt):
    """``_vs`` at the root (value tests only), with the nodes spent under each move added up
    in tt[C_EFFORT + i] and what each test proved kept as bounds on the move's value
    (tt[C_LO + i], tt[C_HI + i]): a move whose bounds already answer the test is not searched
    again. Returns (result, the move that decided it or -1); when the node cap stops it
    (tt[C_CAPPED]) the result means nothing."""
    z = h0 - h0
    maxnode = mover == 0
    for i in range(cnt):
        a = tt[C_MV + i]
        if tt[C_LO + i] >= t:
            r = 1
        elif tt[C_HI + i] < t:
            r = 0
        else:
            c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
                h0, h1, tab, unb, natt, lim, tk, att, z, z, a, tt)
            if term != 2:
                r = 1 if term * BIG >= t else 0
            else:
                before = tt[C_NODES]
                if use_pn:
                    r = _pn_test(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, z, t, z + 1,
                                 tt)
                else:
                    r = _vs(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, z, t, z + 1, tt)
                tt[C_EFFORT + i] += tt[C_NODES] - before
                if tt[C_CAPPED] != 0:
                    return 0, -1
            if r != 0:
                tt[C_LO + i] = max(tt[C_LO + i], t)
            else:
                tt[C_HI + i] = min(tt[C_HI + i], t - 1)
        if maxnode and r != 0:
            return 1, a
        if not maxnode and r == 0:
            return 0, a
    return (0 if maxnode else 1), -1


@numba.njit(**JIT)
def _value_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, t, ab_budget, tt):
    """``_root_test`` by alpha-beta for ``ab_budget`` nodes, then (when that did not finish
    and the node cap is not reached) by the proof-number search (module docstring)."""
    cap = tt[C_CAP]
    if ab_budget > 0:
        tt[C_CAP] = min(cap, tt[C_NODES] + ab_budget)
        r, cut = _root_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, t, False, tt)
        tt[C_CAP] = cap
        if tt[C_CAPPED] == 0 or tt[C_NODES] > cap:
            return r, cut
        tt[C_CAPPED] = 0
    return _root_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, t, True, tt)


@numba.njit(**JIT)
def _best_known(mover, cnt, tt):
    """The node cap stopped the value search: the root move with the best value the
    finished tests proved for the mover (its lower bound), then the best it may still have
    (upper bound), the first such in search order. A move proven to lose is never preferred
    to one that may not, nor a possible win thrown for a proven draw."""
    bi = 0
    blo = -2
    bhi = -2
    for i in range(cnt):
        lo = tt[C_LO + i] if mover == 0 else -tt[C_HI + i]
        hi = tt[C_HI + i] if mover == 0 else -tt[C_LO + i]
        if lo > blo or (lo == blo and hi > bhi):
            bi = i
            blo = lo
            bhi = hi
    return tt[C_MV + bi]


@numba.njit(**JIT)
def _root_value(h0, h1, tab, unb, natt, lim, tk, att, mover, trump, ab_budget, tt):
    """The value (seat 0's view) by at most two null-window tests, the likelier outcome
    first; and a move for the mover: an optimal one when the mover does not lose, else the
    one whose refutation took the most nodes (the first such in search order). When the node
    cap stops the search, the value is a guess and the move ``_best_known``."""
    z = h0 - h0
    cnt = _moves(h0, h1, tab, unb, natt, lim, tk, att, z, z, _phase(tab, unb, tk), z - 1,
                 z + C_MV, tt)
    for i in range(cnt):
        tt[C_EFFORT + i] = 0
        tt[C_LO + i] = -1
        tt[C_HI + i] = 1
    first = 1 if _guess_seat0_wins(h0, h1, trump) else 0
    r, cut = _value_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, z + first,
                          ab_budget, tt)
    if tt[C_CAPPED] != 0:
        return z + first * 2 - 1, _best_known(mover, cnt, tt)
    good = -1
    if first == 1:
        if r != 0:
            v = 1
            if mover == 0:
                good = cut
        else:
            if mover == 1:
                good = cut
            r, cut = _value_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, z, ab_budget,
                                  tt)
            if tt[C_CAPPED] != 0:
                return z, _best_known(mover, cnt, tt)
            if r != 0:
                v = 0
                if mover == 0:
                    good = cut
            else:
                v = -1
                if mover == 1:
                    good = cut
    else:
        if r == 0:
            v = -1
            if mover == 1:
                good = cut
        else:
            if mover == 0:
                good = cut
            r, cut = _value_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, z + 1,
                                  ab_budget, tt)
            if tt[C_CAPPED] != 0:
                return z, _best_known(mover, cnt, tt)
            if r != 0:
                v = 1
                if mover == 0:
                    good = cut
            else:
                v = 0
                if mover == 1:
                    good = cut
    if good < 0 and cnt > 0:
        # the mover loses whatever he does: the most resistant move
        bi = 0
        for i in range(1, cnt):
            if tt[C_EFFORT + i] > tt[C_EFFORT + bi]:
                bi = i
        good = tt[C_MV + bi]
    return v, good


@numba.njit(**JIT)
def _optimal_set(h0, h1, tab, unb, natt, lim, tk, att, mover, v, out, tt):
    """Every optimal action (value ``v``), codes ascending, into out[1..]; returns the count."""
    z = h0 - h0
    nl = _legal(h0, h1, tab, unb, natt, lim, tk, att, tt, tt, z + C_LEGAL)
    k = 0
    for i in range(1, nl + 1):
        a = tt[C_LEGAL + i]
        c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
            h0, h1, tab, unb, natt, lim, tk, att, z, z, a, tt)
        if term != 2:
            opt = term == v
        elif mover == 0:
            # seat 0 moves: a child is optimal when it reaches v (none exceeds it)
            opt = v == -1 or _score_ge(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, v,
                                       tt) != 0
        else:
            opt = v == 1 or _score_ge(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, v + 1,
                                      tt) == 0
        if tt[C_CAPPED] != 0:
            return k
        if opt:
            k += 1
            out[k] = a
    return k


@numba.njit(**JIT)
def _order(h0, h1, tab, unb, natt, lim, tk, att, mover, v, k, out, tt):
    """Sort out[1..k] (optimal actions of a won or lost position) by preference: the exact
    score of the position each leads to, best for the mover first, ties by action code.
    Returns 0 when the node cap cut it short (the rest keep code order), else 1."""
    z = h0 - h0
    scores = np.empty(k, np.int64)
    done = 1
    for j in range(k):
        if done == 0:
            scores[j] = -BIG if mover == 0 else BIG
            continue
        c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
            h0, h1, tab, unb, natt, lim, tk, att, z, z, out[j + 1], tt)
        if term != 2:
            scores[j] = term * BIG
        else:
            scores[j] = _exact_score(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, v,
                                     z + BIG - 2, tt)
        if tt[C_CAPPED] != 0:
            done = 0
            scores[j] = -BIG if mover == 0 else BIG
    # stable insertion sort
    for j in range(1, k):
        a = out[j + 1]
        sj = scores[j]
        i = j - 1
        while i >= 0 and ((mover == 0 and scores[i] < sj) or (mover == 1 and scores[i] > sj)):
            scores[i + 1] = scores[i]
            out[i + 2] = out[i + 1]
            i -= 1
        scores[i + 1] = sj
        out[i + 2] = a
    return done


@numba.njit(**JIT)
def solve_root(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
               bout_limit, tt, stamp, node_cap, mode, out, stats):
    """Value (seat 0's view) of the position; actions into ``out`` (module docstring)."""
    return solve_budgets(hand0, hand1, trump, stock, stock_n, attacker, table, n_table,
                         taking, bout_limit, tt, stamp, node_cap, mode, out, stats,
                         stamp - stamp + AB_BUDGET, stamp - stamp + PN_LEAF_AB)


@numba.njit(**JIT)
def solve_budgets(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
                  bout_limit, tt, stamp, node_cap, mode, out, stats, ab_budget, leaf_budget):
    """``solve_root`` with the proof-number search's budgets (``AB_BUDGET``, ``PN_LEAF_AB``;
    0 and 0: the proof-number search alone, which the tests check on small deals; an
    ``ab_budget`` of at least ``node_cap`` (> 0): alpha-beta alone, the search before
    solver version 5, which the hard AI used up to its version 3)."""
    _setup(trump, stock, stock_n, tt, stamp, node_cap)
    tt[C_PN_LEAF] = leaf_budget
    for i in range(STATS_SIZE):
        stats[i] = 0
    out[0] = 0
    h0 = hand0
    h1 = hand1
    tab = h0 - h0
    unb = tab - 1
    for i in range(n_table):
        tab |= 1 << table[2 * i]
        if table[2 * i + 1] >= 0:
            tab |= 1 << table[2 * i + 1]
        elif taking == 0:
            unb = table[2 * i]
    natt = n_table
    lim = bout_limit if n_table > 0 else tab
    tk = tab - tab + (1 if taking != 0 else 0)
    att = attacker
    if tab == 0 and stock_n == 0 and (h0 == 0 or h1 == 0):
        # the deal is over (R5.2)
        return 0 if h0 == 0 and h1 == 0 else (1 if h0 == 0 else -1)
    mover = 1 - att if _phase(tab, unb, tk) == PH_DEFEND else att

    v, good = _root_value(h0, h1, tab, unb, natt, lim, tk, att, mover, trump, ab_budget,
                          tt)
    stats[3] = tt[C_NODES]
    if tt[C_CAPPED] == 0 and mode >= MODE_SET:
        k = _optimal_set(h0, h1, tab, unb, natt, lim, tk, att, mover, v, out, tt)
        out[0] = k
        stats[4] = tt[C_NODES] - stats[3]
        if tt[C_CAPPED] == 0 and mode == MODE_ORDERED and k > 1 and v != 0:
            # the preference phase gets a node budget of its own
            if node_cap > 0:
                tt[C_CAP] = tt[C_NODES] + node_cap
            if _order(h0, h1, tab, unb, natt, lim, tk, att, mover, v, k, out, tt) == 0:
                stats[2] = 1
                tt[C_CAPPED] = 0
            stats[5] = tt[C_NODES] - stats[3] - stats[4]
    if tt[C_CAPPED] != 0:
        # not exact: a legal action, the best guess there is
        stats[1] = 1
        if mode != MODE_VALUE:
            out[0] = 1
            out[1] = good if good >= 0 else tt[C_MV]
    elif mode == MODE_ONE:
        out[0] = 1
        out[1] = good
    stats[0] = tt[C_NODES]
    stats[6] = tt[C_TT_CUTS]
    stats[7] = tt[C_STATIC]
    return v


@numba.njit(**JIT)
def solve_value(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
                bout_limit, tt, stamp, node_cap, stats):
    """``solve_root`` in ``MODE_VALUE``: the value only (seat 0's view)."""
    out = np.empty(1, np.int64)
    return solve_root(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
                      bout_limit, tt, stamp, node_cap, stamp - stamp, out, stats)
