"""``hard`` (RULES.md R10.4): card memory, then an exact endgame.

Card memory. Everything that was ever open is in the observation (R6.1): the discard pile,
the table, the face-up trump, the cards the opponent took up and still holds. So the cards
*unseen* by this seat are exactly ``all - own hand - discard - table - opponent's known
cards - the face-up trump while it lies in the stock``; the opponent's hidden cards and the
stock (but its face-up last card) are drawn from them.

Two regimes, by the stock size ``k`` (face-up trump included):

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
  fallback (solver module docstring). In ``bench_hard_endgame.py --deals 10000`` against
  normal it cut the capped decisions from 334 to 241 of about 123,000 (hard version 4;
  version 3 was alpha-beta alone). Version 5 plays with solver version 6: the exact
  shortcuts S8-S11 for lopsided empty-stock bout starts and a better defence order: in the
  same benchmark 156 capped decisions of 122,796 (0.127%), and 1,411 deals/s against normal
  on one thread instead of 979 (``bench_kernel.py``). Version 6 doubles the cap to 2,000,000
  nodes: over 100,000 deals against normal (``bench_hard_endgame.py --seed 9``) the cap
  stopped 0.078% of the endgame decisions [0.067%, 0.089%] instead of 0.117% [0.104%,
  0.131%], under the issue's 0.1%, at the cost of about a fifth of its speed (1,636 deals/s on
  one thread instead of 2,136, ``bench_kernel.py --seed 3``): the capped searches take about
  40% of hard's endgame nodes, and no way of sharing the budget found fewer caps for the
  same nodes (benchmarks/RESULTS.md). Solver version 7 searches the same nodes in the same
  order 12-15% faster (move lists, the canonical key's rank squeeze), so version 6 plays
  exactly as before at 1,913-1,976 deals/s. Version 7 lowers the cap to 1,750,000 nodes:
  over 1,000,000 deals of four seeds it stops 0.088% [0.084%, 0.092%] of the endgame
  decisions (one seed of 100,000 deals alone 0.098%), under 0.1%, and hard plays normal
  about 8% faster, 2,101 deals/s on one thread (the capped searches are the costliest tenth
  of a percent of calls).
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
from durak_sim.observation import (O_ATTACKER, O_BOUT_LIMIT, O_DISCARD, O_HAND,
                                   O_KNOWN, O_N_ATTACKS, O_SEAT, O_STOCK, O_TABLE,
                                   O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING, O_TRUMP_CARD,
                                   O_TRUMP_SUIT)
from durak_sim.registry import register_strategy
from durak_sim.strategies.normal import M_SIZE as NORMAL_MEMORY
from durak_sim.strategies.normal import decide as normal_decide

#: node cap of one endgame search (a capped search takes 40-70 ms here); hits are counted by
#: benchmarks/bench_hard_endgame.py
NODE_CAP = 1_750_000
#: bump when Hard's play changes (numba's cache does not see edits in imported modules)
HARD_VERSION = 7
#: the solver version this module's compiled code links. numba's cache keys a function on
#: its own file's text, so a faster solver with the same answers reaches hard's cached
#: ``decide`` only through a change here (hard's play, and so HARD_VERSION, stay the same)
SOLVER_LINKED = 7
if SOLVER_VERSION != SOLVER_LINKED:  # pragma: no cover - a development-time guard
    raise ImportError(f"strategies/hard.py links solver version {SOLVER_LINKED}, the solver "
                      f"is version {SOLVER_VERSION}: update SOLVER_LINKED")
#: the take-instead-of-trumping rule before the endgame (module docstring)
TAKE_TRUMPS_MINSTOCK = 3
TAKE_TRUMPS_TABLE = 6

LOG2_TT = 16
M_STAMP = 0          # the engine's game stamp
M_SOLVES = 1         # endgame decisions so far in this game (zeroed by the engine each game)
M_NORMAL = 2         # the normal heuristic's workspace (its word 0 unused), zeroed each game
M_OUT = M_NORMAL + NORMAL_MEMORY      # OUT_SIZE words: the solver's actions
M_STATS = M_OUT + OUT_SIZE            # STATS_SIZE words
M_STOCK = M_STATS + STATS_SIZE        # 36 words: a stock in draw order
M_TABLE = M_STOCK + 36                # 12 words: the bout's pairs
M_TT = M_TABLE + 12
MEMORY = M_TT + table_words(LOG2_TT)
RESET = M_OUT  # zero the counter and normal's words each game; the table is cleared by stamps

FULL = (1 << 36) - 1


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
                   obs[O_BOUT_LIMIT], mem[M_TT:], stamp, node_cap, mode,
                   mem[M_OUT:M_OUT + OUT_SIZE], mem[M_STATS:M_STATS + STATS_SIZE])
    return v if seat == 0 else -v


@numba.njit(**JIT)
def _unseen(obs):
    opp = 1 - obs[O_SEAT]
    seen = obs[O_HAND] | obs[O_DISCARD] | obs[O_TABLE_ATTACKS] | obs[O_TABLE_DEFENCES]
    seen |= obs[O_KNOWN + opp]
    if obs[O_STOCK] > 0:
        seen |= np.int64(1) << obs[O_TRUMP_CARD]
    return FULL & ~seen


@numba.njit(**JIT)  # compiled for the kernel on first use (durak_sim.registry)
def decide(obs, legal, hist, rng, mem):
    stock = obs[O_STOCK]
    if stock > 1:
        act = normal_decide(obs, legal, hist, rng, mem[M_NORMAL:M_NORMAL + NORMAL_MEMORY])
        if DEFEND <= act < TAKE and stock >= TAKE_TRUMPS_MINSTOCK:
            trumps = SUIT0 << obs[O_TRUMP_SUIT]
            if ((act - DEFEND) & 3 == obs[O_TRUMP_SUIT] and obs[O_TABLE_ATTACKS] & trumps != 0
                    and popcount(obs[O_TABLE_ATTACKS] | obs[O_TABLE_DEFENCES])
                    <= TAKE_TRUMPS_TABLE):
                return TAKE  # the opponent's trumps come with the table
        return act
    # R10.4: the opponent's hand is known exactly; solve the perfect-information endgame
    opp = 1 - obs[O_SEAT]
    opp_hand = obs[O_KNOWN + opp] | _unseen(obs)
    if stock == 1:
        mem[M_STOCK] = obs[O_TRUMP_CARD]
    mem[M_SOLVES] += 1
    _solve(obs, opp_hand, stock, mem, np.int64(MODE_ONE), np.int64(NODE_CAP))
    return mem[M_OUT + 1]


register_strategy("hard", decide, version=HARD_VERSION, memory=MEMORY, reset=RESET,
                  description="card memory; normal before the endgame, then exact search (R10.4)",
                  compile_seconds=110)
