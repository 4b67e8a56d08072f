"""The endgame solver's shared ground: constants, the work area's layout, card-mask helpers,
the canonical key of an empty-stock bout start, the table set-up (``durak_sim.kernel.solver``
documents the search; this module only holds what its parts share).

Work area: ``tt`` (one per thread) begins with ``WORK`` words of scratch (``C_*`` offsets
below: the deal's constants, counters, the beat table, the stock, the root's moves and
bounds, the move lists of every ply), then ``2**log2`` table entries of ``TT_WORDS`` words in
buckets of two.
"""
import numba
import numpy as np

from .bits import squeeze_nibbles
from .config import JIT

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
def _rank_counts(h):
    """Nibble r: how many cards of rank r ``h`` holds (0-4)."""
    x = h & (NIB0 * 3)
    y = (h >> 2) & (NIB0 * 3)
    return (x & NIB0) + ((x >> 1) & NIB0) + (y & NIB0) + ((y >> 1) & NIB0)


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
def _phase(tab, unb, tk):
    if tab == 0:
        return PH_OPEN
    if tk != 0:
        return PH_TAKING
    if unb >= 0:
        return PH_DEFEND
    return PH_ATTACK


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


@numba.njit(inline="always", **JIT)
def _sort_by_score(out, scores, k, mover):
    """Sort the ``k`` root actions ``out[1..k]`` by ``scores`` (stable insertion sort), the
    best for ``mover`` first: highest for seat 0, lowest for seat 1."""
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
