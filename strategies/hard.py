"""``hard`` (docs/rules.md R10.4): card memory, then an exact endgame, at every table.

Card memory. Everything that was ever open is in the observation (R6.1): the discard pile,
the table, the face-up trump, the cards the opponent took up and still holds. So the cards
*unseen* by this seat are exactly ``all - own hand - discard - table - opponent's known
cards - the face-up trump while it lies in the stock``; the opponent's hidden cards and the
stock (but its face-up last card) are drawn from them.

The two-player default game has two regimes, by the stock size ``k`` (face-up trump
included); the other rulesets and tables follow below.

* ``k <= 1`` -- the endgame: the opponent's hand is known exactly (known cards plus every
  unseen card) and the stock is at most the known face-up trump. Hard plays perfectly: the
  exact search (``MODE_ONE``) gives the game-theoretic value and an optimal action. Among
  optimal actions the solver takes, when the position is won or drawn, the first winning
  (drawing) move of its search order (cheap, quick-looking wins first), and when every move
  loses, the move whose refutation needed the most search (a stand-in for losing slowly). The
  exact ply-count preference (``MODE_ORDERED``) costs 10-100 times the value search, so it
  is offered by ``durak-sim solve`` but not used in play. A node cap of ``NODE_CAP`` bounds
  the rare giant searches; when it is hit the answer is the move with the best value the
  finished tests proved (never one proven to lose while another may not), and the solver
  flags it in ``mem[M_STATS + 1]`` (benchmarks/bench_hard_endgame.py counts those
  decisions). The search is the solver's default (``solve_root``): alpha-beta, and for a
  value test alpha-beta has not settled within ``AB_BUDGET`` nodes the exact proof-number
  fallback (solver module docstring). The cap stops under 0.1% of the endgame decisions
  against normal (benchmarks/RESULTS.md, "hard": the measured rates and what each cap costs).
* otherwise -- the ``normal`` heuristic (R10.3), which already uses the same memory
  (opponent's known cards, what it failed to beat) to save trumps and throw in what cannot be
  beaten, with one change: where normal would beat with a trump in a bout in which the
  opponent has attacked with a trump, hard takes instead while the stock holds at least
  ``TAKE_TRUMPS_MINSTOCK`` (3) cards and at most ``TAKE_TRUMPS_TABLE`` (6) cards lie on the
  table. It keeps its own trumps and picks up the opponent's. The trump balance at the end of
  the stock decides most deals: replaying 2,000 deal pairs against easy, hard won 40% of the
  games where it held two trumps fewer than easy with six cards left in the stock, 65% at
  equal trumps and 84% with two more. Against easy (seeded duplicate matches) the rule is
  worth +4.3 points (4,000 pairs, seed 21) and +5.0 (10,000 pairs, seed 22); against normal,
  which seldom attacks with trumps, +0.3.

Every other ruleset and table (``plays="all"``). Hard plays exactly wherever the endgame is
a game of perfect information that it searches: **exactly two seats still hold cards** (two
players, or a larger table where the others are out: their places are settled, nobody else
may throw in, with teams the two left are opponents, so the rest is a two-player deal),
**the stock holds at most the face-up trump**, and the ruleset is **not prostoy**. The
opponent's hand is then every card that is not in hard's hand, the discard pile, on the
table or (while it lies there) the face-up trump: out seats hold nothing, and the opponent's
known cards (R6.1) are among these (hard checks the count against the opponent's hand size
and plays normal's move if it ever differed). The two seats are the search's seat 0 (the
lower) and seat 1. With transfers (perevodnoy), multi-card leads (``lead_multiple``,
podkidnoy-full) or both, the variant search (``durak_sim.kernel.vsolver``) plays it: its
legal moves are the engines' codes (a lead laid card by card and ``done``, defences that name
their targets, transfers), and a line of play that returns to a bout start it has passed
(transfers can pass the same cards back and forth) is a draw, which is what rule E12 makes of
a deal that goes round. With one-card leads and no transfer (podkidnoy and teams at any
table, the swap once decided, ``throw_in``) the plain solver plays it. Both run in
``MODE_ONE`` with the choice rule above, capped at ``GENERAL_NODE_CAP`` nodes with a table of
``2**LOG2_TT_GENERAL`` entries (the default game keeps ``NODE_CAP`` and its table: its play is
unchanged), and a capped decision is flagged in ``mem[M_STATS + 1]`` the same way. Their
endgames are bigger than the default game's: a lopsided perevodnoy endgame (15 cards against
1-4) or the two hands left at a four-player table (often 20-31 cards) can take far more than
the cap (benchmarks/RESULTS.md), and a capped search answers with the best move it proved.

Everywhere else hard is ``normal`` (R10.3) with hard's card memory, which is the
observation's: ``normal.decide`` reads every seat's known cards (``O_KNOWN``: cards picked
up, the face-up trump drawn, a swapped card) and the public history, and with the stock
nearly gone it narrows each seat's possible cards to the unseen ones. That covers three or
more seats still playing (the cards not seen are split among several hands: not of perfect
information), any position with two cards or more in the stock, and prostoy (whose endgame
hard does not search). The take-instead-of-trumping rule below applies at the two-player
tables but prostoy (it was tuned there; prostoy's take picks up only the unbeaten cards).

The workspace ``mem``: ``mem[0]`` is the engine's game stamp; then a per-game count of
endgame decisions, normal's words, scratch for the solver's in/out arrays, then the solver's
transposition table. The table is cleared in O(1) by the game stamp, so results never depend
on what another game left behind (observation.py contract); within a game its entries carry
over between decisions, which makes the later endgame decisions nearly free.
"""
import numba
import numpy as np

from durak_sim.actions import DEFEND, TAKE
from durak_sim.kernel.bits import popcount
from durak_sim.kernel.config import JIT
from durak_sim.kernel.solver import (MODE_ONE, OUT_SIZE, SOLVER_VERSION, STATS_SIZE, SUIT0,
                                     solve_root, table_words)
from durak_sim.kernel.vsolver import OUT_SIZE as VARIANT_OUT_SIZE
from durak_sim.kernel.vsolver import VSOLVER_VERSION, solve_variant
from durak_sim.kernel.vsolver import table_words as variant_table_words
from durak_sim.observation import (O_ATTACKER, O_BOUT_LIMIT, O_DISCARD, O_HAND,
                                   O_HAND_SIZES, O_KNOWN, O_N_ATTACKS, O_PHASE, O_PLACES,
                                   O_PLAYERS, O_RULES, O_SEAT, O_STOCK, O_TABLE,
                                   O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING, O_TRUMP_CARD,
                                   O_TRUMP_SUIT, PHASE_LEAD)
from durak_sim.registry import register_strategy
from durak_sim.rules import FLAG_LEAD_MULTIPLE, FLAG_PROSTOY, FLAG_TRANSFER
from durak_sim.strategies.normal import M_SIZE as NORMAL_MEMORY
from durak_sim.strategies.normal import NORMAL_VERSION
from durak_sim.strategies.normal import decide as normal_decide

#: node cap of one endgame search (a capped search takes 40-70 ms here); hits are counted by
#: benchmarks/bench_hard_endgame.py
NODE_CAP = 1_750_000
#: node cap of one search of the other rulesets' and tables' endgames (the variant search
#: of perevodnoy and multi-card leads, the plain solver's at the larger tables and for the
#: other options); their work area holds ``2**LOG2_TT_GENERAL`` table entries
GENERAL_NODE_CAP = 4_000_000
LOG2_TT_GENERAL = 17
#: bump when Hard's play changes (numba's cache does not see edits in imported modules)
HARD_VERSION = 8
#: the solver version this module's compiled code links. numba's cache keys a function on
#: its own file's text, so a faster solver with the same answers reaches hard's cached
#: ``decide`` only through a change here (hard's play, and so HARD_VERSION, stay the same)
SOLVER_LINKED = 9
#: the same for the variant search and for normal, whose ``decide`` hard inlines
VARIANT_LINKED = 3
NORMAL_LINKED = 3
if SOLVER_VERSION != SOLVER_LINKED:  # pragma: no cover - a development-time guard
    raise ImportError(f"strategies/hard.py links solver version {SOLVER_LINKED}, the solver "
                      f"is version {SOLVER_VERSION}: update SOLVER_LINKED")
if VSOLVER_VERSION != VARIANT_LINKED:  # pragma: no cover - a development-time guard
    raise ImportError(f"strategies/hard.py links variant search version {VARIANT_LINKED}, "
                      f"the search is version {VSOLVER_VERSION}: update VARIANT_LINKED")
if NORMAL_VERSION != NORMAL_LINKED:  # pragma: no cover - a development-time guard
    raise ImportError(f"strategies/hard.py links normal version {NORMAL_LINKED}, normal is "
                      f"version {NORMAL_VERSION}: update NORMAL_LINKED")
#: the take-instead-of-trumping rule before the endgame (module docstring)
TAKE_TRUMPS_MINSTOCK = 3
TAKE_TRUMPS_TABLE = 6

LOG2_TT = 16
M_STAMP = 0          # the engine's game stamp
M_SOLVES = 1         # endgame decisions so far in this game (zeroed by the engine each game)
M_NORMAL = 2         # the normal heuristic's workspace (its word 0 unused), zeroed each game
M_OUT = M_NORMAL + NORMAL_MEMORY      # the solvers' actions (the larger of their out sizes)
M_STATS = M_OUT + max(OUT_SIZE, VARIANT_OUT_SIZE)   # STATS_SIZE words
M_STOCK = M_STATS + STATS_SIZE        # 36 words: a stock in draw order
M_TABLE = M_STOCK + 36                # 12 words: the bout's pairs
M_TT = M_TABLE + 12
#: the plain solver's table is ``mem[M_TT:M_TT_END]`` exactly (the default game's play does
#: not depend on what follows); the variant search's work area is larger
M_TT_END = M_TT + table_words(LOG2_TT)
MEMORY = M_TT + max(table_words(LOG2_TT), variant_table_words(LOG2_TT_GENERAL))
RESET = M_OUT  # zero the counter and normal's words each game; the table is cleared by stamps

FULL = (1 << 36) - 1
#: the rulesets the variant search plays (the others: the plain solver)
VARIANT_FLAGS = FLAG_LEAD_MULTIPLE | FLAG_TRANSFER


@numba.njit(**JIT)
def _solve(obs, opp_hand, stock_n, mem, mode, node_cap):
    """Solve the position with the opponent's hand and the stock (already in mem) known;
    the solver's actions land in mem[M_OUT:], its statistics in mem[M_STATS:]. Returns the
    value from this seat's view."""
    seat = obs[O_SEAT]
    hand = obs[O_HAND]
    h0 = hand if seat == 0 else opp_hand
    h1 = opp_hand if seat == 0 else hand
    n_table = obs[O_N_ATTACKS]
    for i in range(12):
        mem[M_TABLE + i] = obs[O_TABLE + i]
    # one stamp per game: every solve of a game describes the same deal, so the table's
    # entries carry over between its decisions (solver contract), never into another game
    stamp = mem[M_STAMP]
    v = solve_root(h0, h1, obs[O_TRUMP_SUIT], mem[M_STOCK:M_STOCK + 36], stock_n,
                   obs[O_ATTACKER], mem[M_TABLE:M_TABLE + 12], n_table, obs[O_TAKING],
                   obs[O_BOUT_LIMIT], mem[M_TT:M_TT_END], stamp, node_cap, mode,
                   mem[M_OUT:M_OUT + OUT_SIZE], mem[M_STATS:M_STATS + STATS_SIZE])
    return v if seat == 0 else -v


@numba.njit(**JIT)
def _solve_two(obs, opp, opp_hand, stock_n, mem):
    """The endgame of two seats left (``_solve`` of any table and ruleset): this seat and
    ``opp`` are the solver's seats 0 and 1 in seat order; the variant search for transfers
    and multi-card leads, else the plain solver. The action lands in mem[M_OUT + 1]."""
    seat = obs[O_SEAT]
    low = seat < opp
    h0 = obs[O_HAND] if low else opp_hand
    h1 = opp_hand if low else obs[O_HAND]
    att = 0 if obs[O_ATTACKER] == min(seat, opp) else 1
    for i in range(12):
        mem[M_TABLE + i] = obs[O_TABLE + i]
    flags = obs[O_RULES]
    stamp = mem[M_STAMP]
    if flags & VARIANT_FLAGS:
        solve_variant(h0, h1, obs[O_TRUMP_SUIT], mem[M_STOCK:M_STOCK + 36], stock_n, att,
                      mem[M_TABLE:M_TABLE + 12], obs[O_N_ATTACKS], obs[O_TAKING],
                      obs[O_BOUT_LIMIT], flags, 1 if obs[O_PHASE] == PHASE_LEAD else 0,
                      mem[M_TT:], stamp, np.int64(GENERAL_NODE_CAP), np.int64(MODE_ONE),
                      mem[M_OUT:M_OUT + VARIANT_OUT_SIZE], mem[M_STATS:M_STATS + STATS_SIZE])
    else:
        solve_root(h0, h1, obs[O_TRUMP_SUIT], mem[M_STOCK:M_STOCK + 36], stock_n, att,
                   mem[M_TABLE:M_TABLE + 12], obs[O_N_ATTACKS], obs[O_TAKING],
                   obs[O_BOUT_LIMIT], mem[M_TT:], stamp, np.int64(GENERAL_NODE_CAP),
                   np.int64(MODE_ONE), mem[M_OUT:M_OUT + OUT_SIZE],
                   mem[M_STATS:M_STATS + STATS_SIZE])


@numba.njit(inline="always", **JIT)
def trumps_taken(act, stock, trump_suit, attacks, defences):
    """The take-instead-of-trumping rule (module docstring): ``TAKE`` where ``act`` beats with
    a trump in a bout whose attack cards ``attacks`` hold a trump, while the stock holds at
    least ``TAKE_TRUMPS_MINSTOCK`` cards and at most ``TAKE_TRUMPS_TABLE`` cards lie on the
    table (the opponent's trumps come with it); else ``act``. Scalars only (inlined into the
    hot paths that call it)."""
    if DEFEND <= act < TAKE and stock >= TAKE_TRUMPS_MINSTOCK:
        if ((act - DEFEND) & 3 == trump_suit and attacks & (SUIT0 << trump_suit) != 0
                and popcount(attacks | defences) <= TAKE_TRUMPS_TABLE):
            return np.int64(TAKE)
    return act


@numba.njit(**JIT)
def _unseen(obs):
    opp = 1 - obs[O_SEAT]
    seen = obs[O_HAND] | obs[O_DISCARD] | obs[O_TABLE_ATTACKS] | obs[O_TABLE_DEFENCES]
    seen |= obs[O_KNOWN + opp]
    if obs[O_STOCK] > 0:
        seen |= np.int64(1) << obs[O_TRUMP_CARD]
    return FULL & ~seen


@numba.njit(**JIT)
def _other_seat(obs):
    """The one other seat still playing when exactly two are (else -1)."""
    seat = obs[O_SEAT]
    opp = -1
    for s in range(obs[O_PLAYERS]):
        if s != seat and obs[O_PLACES + s] == 0:
            if opp >= 0:
                return -1
            opp = s
    return opp


@numba.njit(**JIT)
def _general(obs, legal, hist, rng, mem):
    """Every ruleset and table but the two-player default game (module docstring)."""
    stock = obs[O_STOCK]
    flags = obs[O_RULES]
    if stock <= 1 and (flags & FLAG_PROSTOY) == 0:
        opp = _other_seat(obs)
        if opp >= 0:
            seen = obs[O_HAND] | obs[O_DISCARD] | obs[O_TABLE_ATTACKS] | obs[O_TABLE_DEFENCES]
            if stock > 0:
                seen |= np.int64(1) << obs[O_TRUMP_CARD]
                mem[M_STOCK] = obs[O_TRUMP_CARD]
            opp_hand = FULL & ~seen
            if popcount(opp_hand) == obs[O_HAND_SIZES + opp]:
                mem[M_SOLVES] += 1
                _solve_two(obs, opp, opp_hand, stock, mem)
                act = mem[M_OUT + 1]
                for k in range(1, legal[0] + 1):
                    if legal[k] == act:
                        return act
    act = normal_decide(obs, legal, hist, rng, mem[M_NORMAL:M_NORMAL + NORMAL_MEMORY])
    if obs[O_PLAYERS] == 2 and (flags & FLAG_PROSTOY) == 0:
        return trumps_taken(act, stock, obs[O_TRUMP_SUIT], obs[O_TABLE_ATTACKS],
                            obs[O_TABLE_DEFENCES])
    return act


@numba.njit(**JIT)  # compiled for the kernel on first use (durak_sim.registry)
def decide_classic(obs, legal, hist, rng, mem):
    """The two-player default game: ``decide`` there, without the variant search's code
    (the kernel plays it in that game, which then does not compile that search)."""
    stock = obs[O_STOCK]
    if stock > 1:
        act = normal_decide(obs, legal, hist, rng, mem[M_NORMAL:M_NORMAL + NORMAL_MEMORY])
        return trumps_taken(act, stock, obs[O_TRUMP_SUIT], obs[O_TABLE_ATTACKS],
                            obs[O_TABLE_DEFENCES])
    # R10.4: the opponent's hand is known exactly; solve the perfect-information endgame
    opp = 1 - obs[O_SEAT]
    opp_hand = obs[O_KNOWN + opp] | _unseen(obs)
    if stock == 1:
        mem[M_STOCK] = obs[O_TRUMP_CARD]
    mem[M_SOLVES] += 1
    _solve(obs, opp_hand, stock, mem, np.int64(MODE_ONE), np.int64(NODE_CAP))
    return mem[M_OUT + 1]


@numba.njit(**JIT)  # compiled for the kernel on first use (durak_sim.registry)
def decide(obs, legal, hist, rng, mem):
    if obs[O_RULES] != 0 or obs[O_PLAYERS] != 2:
        return _general(obs, legal, hist, rng, mem)
    return decide_classic(obs, legal, hist, rng, mem)


register_strategy("hard", decide, version=HARD_VERSION, memory=MEMORY, reset=RESET,
                  description="card memory; normal before the endgame, then exact search (R10.4)",
                  compile_seconds=75, plays="all", parts=("solver", "variant"),
                  classic=decide_classic, classic_parts=("solver",))
