"""expert's search at every table but the two-player default game (strategies/expert.py).

Wherever hard plays ``normal``'s move (three or more seats still holding cards, two or more
cards in the stock, prostoy; hard's own search takes the rest: two seats left with at most
the face-up trump in the stock), expert searches the decision the way it does in the
default game, on the kernel's own state and engine, so that every ruleset is played by the
rules the kernel plays:

1. **The base action**: hard's choice.
2. **Determinizations** (``sample_table``, from the seat's own stream): the cards the seat has
   not seen (every other hand's unknown cards and the stock but its face-up last card) dealt
   again at random: each seat still playing keeps its known cards (``O_KNOWN``) and gets a
   random set of its hidden size, the rest is the stock in a random order, the face-up trump
   last. What the seat has seen is never dealt (the same unseen set whatever the hidden cards
   are: a decision cannot depend on them, R6).
3. **Rollouts** (``table_rollout``): on each determinization every legal action still in the
   running is played, then the whole deal, every seat by hard's policy before its search
   (``normal``, with hard's take-instead-of-trumping rule at the two-player tables but
   prostoy), each seat with a fresh normal memory. The result is the seat's: at two
   players and with teams +1 a won deal, -1 a lost one, 0 a draw (the score's half); at
   three or more ``players + 1 - 2 * place`` (the first out ``players - 1``, the Durak
   ``1 - players``; the engine's places: seats going out in one bout take the next places
   in turn, and only a drawn end shares one): every place counts, as the N-player tables
   rate by places.
4. **The decision**: the default game's sequential test on the gains over the base action,
   sample by sample (``step_drop``, ``choose``: expert.py's constants).

The workspace is a caller's slice of ``G_SIZE`` words (scratch, nothing kept between
decisions); the test's sums are expert's.
"""
import numba
import numpy as np

from durak_sim.actions import LEGAL_SIZE
from durak_sim.kernel.bits import lowest, popcount
from durak_sim.kernel.config import JIT
from durak_sim.kernel.engine import apply_action, fill_general, fill_legal, legal_set, observe
from durak_sim.kernel.layout import (S_ACTIVE, S_CAPPED, S_DURAK, S_DURAK_TEAM, S_FACE_UP,
                                     S_FLAGS, S_HANDS, S_NHIST, S_OUT, S_OVER, S_PLACES,
                                     S_PLAYERS, S_SIZE, S_STOCK, S_STOCK_TOP, S_SWAPPER,
                                     S_TO_MOVE, S_TRANKS, S_UNBEATEN_MASK)
from durak_sim.kernel.rng import rng_below
from durak_sim.observation import (MAX_SEATS, O_HAND, O_HAND_SIZES, O_KNOWN,
                                   O_PLACES, O_PLAYERS, O_RULES, O_SEAT, O_STOCK, O_TABLE,
                                   O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TRUMP_CARD,
                                   O_TRUMP_SUIT, OBS_SIZE)
from durak_sim.rules import FLAG_PROSTOY, FLAG_TEAMS
from durak_sim.strategies._sampling import unseen_cards
from durak_sim.strategies.hard import trumps_taken
from durak_sim.strategies.normal import M_POS as NORMAL_POS
from durak_sim.strategies.normal import M_SIZE as NORMAL_MEMORY
from durak_sim.strategies.normal import decide as normal_decide

#: bump with every change of this module's answers or speed, and set TABLES_LINKED in
#: strategies/expert.py to match (numba's cache keys expert's code on expert.py's text)
TABLES_VERSION = 1
#: a rollout longer than this many actions counts as a draw (E12 ends a deal at 3,000)
MAX_TABLE_ROLLOUT = 3000

# ---- the scratch slice's layout ----
G_HID = 0                               # MAX_SEATS words: each seat's dealt hidden cards
G_STOCK = G_HID + MAX_SEATS             # 40 words: the dealt stock, in draw order
G_CARDS = G_STOCK + 40                  # 40 words: the unseen cards, shuffled
G_ST = G_CARDS + 40                     # the determinization's kernel state
G_ROLL = G_ST + S_SIZE                  # a rollout's copy of it
G_OBS = G_ROLL + S_SIZE                 # an observation in the rollout
G_LEGAL = G_OBS + OBS_SIZE              # its legal actions
G_NMEM = G_LEGAL + LEGAL_SIZE           # normal's memory for every seat
G_HIST = G_NMEM + MAX_SEATS * NORMAL_MEMORY   # the rollout's history
G_SIZE = G_HIST + MAX_TABLE_ROLLOUT + 64


@numba.njit(**JIT)
def sample_table(obs, rng, g):
    """One determinization into ``g`` (module docstring): ``g[G_HID + s]`` seat s's hidden
    cards (0 for the seat itself), ``g[G_STOCK:]`` the stock in draw order. Draws the unseen
    cards' order from ``rng`` (Fisher-Yates); the other seats take the first ones in
    seat order, the stock the rest. Returns -1 when the counts do not match (never in a
    consistent game), else 0."""
    me = obs[O_SEAT]
    stock = obs[O_STOCK]
    face_up = stock > 0 and obs[O_TRUMP_CARD] >= 0
    pool = unseen_cards(obs)
    n = popcount(pool)
    need = stock - 1 if face_up else stock
    for s in range(MAX_SEATS):
        g[G_HID + s] = 0
    for s in range(obs[O_PLAYERS]):
        if s != me:
            hidden = obs[O_HAND_SIZES + s] - popcount(obs[O_KNOWN + s])
            if hidden < 0:
                return -1
            need += hidden
    if need != n:
        return -1
    k = 0
    m = pool
    while m != 0:
        g[G_CARDS + k] = lowest(m)
        m &= m - 1
        k += 1
    for j in range(n - 1, 0, -1):
        r = rng_below(rng, j + 1)
        t = g[G_CARDS + j]
        g[G_CARDS + j] = g[G_CARDS + r]
        g[G_CARDS + r] = t
    k = 0
    for s in range(obs[O_PLAYERS]):
        if s != me:
            h = np.int64(0)
            for _ in range(obs[O_HAND_SIZES + s] - popcount(obs[O_KNOWN + s])):
                h |= np.int64(1) << g[G_CARDS + k]
                k += 1
            g[G_HID + s] = h
    for q in range(n - k):
        g[G_STOCK + q] = g[G_CARDS + k + q]
    if face_up:
        g[G_STOCK + stock - 1] = obs[O_TRUMP_CARD]
    return 0


@numba.njit(**JIT)
def build_table_state(obs, g, st):
    """The kernel state of the determinization in ``g`` (``sample_table``) of ``obs``: the
    observation's public entries, every hand (the seat's own, the others' known and dealt
    hidden cards), the stock, the seats out in order. Its history restarts at 1 (a rollout's
    entry 0 is not read). The face-up card as dealt and the trump six's holder (read only
    when the deal is dealt and at the swap, which expert does not search) are the face-up
    trump and none."""
    me = obs[O_SEAT]
    for i in range(OBS_SIZE):
        st[i] = obs[i]
    for i in range(OBS_SIZE, S_SIZE):
        st[i] = 0
    st[S_OVER] = 0
    unb = np.int64(0)
    ranks = np.int64(0)
    for i in range(6):
        a = obs[O_TABLE + 2 * i]
        if a >= 0:
            ranks |= np.int64(0xF) << (a & ~3)
            d = obs[O_TABLE + 2 * i + 1]
            if d < 0:
                unb |= np.int64(1) << a
            else:
                ranks |= np.int64(0xF) << (d & ~3)
    st[S_UNBEATEN_MASK] = unb
    st[S_TRANKS] = ranks
    st[S_STOCK_TOP] = 0
    active = np.int64(0)
    for s in range(obs[O_PLAYERS]):
        st[S_HANDS + s] = obs[O_HAND] if s == me else obs[O_KNOWN + s] | g[G_HID + s]
        p = obs[O_PLACES + s]
        if p == 0:
            active |= np.int64(1) << s
        else:
            st[S_OUT + p - 1] = s
    st[S_ACTIVE] = active
    st[S_DURAK] = -1
    st[S_DURAK_TEAM] = -1
    st[S_FACE_UP] = obs[O_TRUMP_CARD]
    st[S_SWAPPER] = -1
    for k in range(obs[O_STOCK]):
        st[S_STOCK + k] = g[G_STOCK + k]
    st[S_NHIST] = 1
    st[S_CAPPED] = 0


@numba.njit(**JIT)
def rollout_policy(obs, legal, hist, rng, nmem):
    """hard's policy before its search: normal, and at the two-player tables but prostoy
    hard's take-instead-of-trumping rule (strategies/hard.py)."""
    act = normal_decide(obs, legal, hist, rng, nmem)
    if obs[O_PLAYERS] == 2 and (obs[O_RULES] & FLAG_PROSTOY) == 0:
        return trumps_taken(act, obs[O_STOCK], obs[O_TRUMP_SUIT], obs[O_TABLE_ATTACKS],
                            obs[O_TABLE_DEFENCES])
    return act


@numba.njit(**JIT)
def table_result(st, me):
    """Seat ``me``'s result of a finished deal (module docstring), 0 when not finished."""
    if st[S_OVER] == 0:
        return np.int64(0)
    if st[S_FLAGS] & FLAG_TEAMS:
        t = st[S_DURAK_TEAM]
        if t < 0:
            return np.int64(0)
        return np.int64(-1) if t == (me & 1) else np.int64(1)
    if st[S_PLAYERS] == 2:   # (a draw would share the first place: it is the score's half)
        d = st[S_DURAK]
        if d < 0:
            return np.int64(0)
        return np.int64(-1) if d == me else np.int64(1)
    place = st[S_PLACES + me]
    return st[S_PLAYERS] + 1 - 2 * place


@numba.njit(**JIT)
def table_rollout(st, g, rng, me):
    """Play ``st`` out, every seat by ``rollout_policy`` with a fresh memory; ``me``'s result
    (``table_result``; a rollout of ``MAX_TABLE_ROLLOUT`` actions: 0)."""
    players = st[S_PLAYERS]
    hist = g[G_HIST:G_HIST + MAX_TABLE_ROLLOUT + 64]
    obs = g[G_OBS:G_OBS + OBS_SIZE]
    legal = g[G_LEGAL:G_LEGAL + LEGAL_SIZE]
    for i in range(players * NORMAL_MEMORY):
        g[G_NMEM + i] = 0
    for s in range(players):
        g[G_NMEM + s * NORMAL_MEMORY + NORMAL_POS] = 1   # hist[0] is not the rollout's
    hist[0] = 0
    steps = 0
    while st[S_OVER] == 0:
        if steps >= MAX_TABLE_ROLLOUT:
            return np.int64(0)
        mask, base, tail, general = legal_set(st)
        seat = st[S_TO_MOVE]
        if general:
            n = fill_general(st, legal)
        else:
            n = fill_legal(legal, mask, base, tail)
        code = legal[1]
        if n > 1:
            observe(st, seat, obs)
            lo = G_NMEM + seat * NORMAL_MEMORY
            code = rollout_policy(obs, legal, hist, rng, g[lo:lo + NORMAL_MEMORY])
        apply_action(st, code, hist)
        steps += 1
    return table_result(st, me)


@numba.njit(**JIT)
def gain_stats(sums, sqs, a, done):
    """(mean, standard error) of action ``a``'s gain over the base after ``done`` samples."""
    mean = sums[a] / done
    var = (sqs[a] - done * mean * mean) / max(done - 1, 1)
    return mean, np.sqrt(max(var, 0.0) / done)


@numba.njit(**JIT)
def step_drop(sums, sqs, alive, played, n, bi, done, z_drop):
    """After a step of the test: drop every action but the base ``bi`` whose mean gain is
    ``z_drop`` standard errors or more below zero; return how many were dropped."""
    dropped = 0
    for a in range(n):
        if a != bi and alive[a] != 0:
            mean, se = gain_stats(sums, sqs, a, done)
            if mean + z_drop * se <= 0.0:
                alive[a] = 0
                played[a] = done
                dropped += 1
    return dropped


@numba.njit(**JIT)
def choose(sums, sqs, alive, legal, n, bi, done, z_play, base):
    """The action of the best mean gain among those ``z_play`` standard errors or more above
    zero, else ``base``."""
    best = base
    top = 0.0
    for a in range(n):
        if a != bi and alive[a] != 0:
            mean, se = gain_stats(sums, sqs, a, done)
            if mean > top and mean > z_play * se:
                top = mean
                best = legal[1 + a]
    return best


@numba.njit(**JIT)
def table_search(obs, legal, rng, base, sums, sqs, alive, played, res, g, samples, step,
                 z_play, z_drop):
    """The search (module docstring) from hard's action ``base``; the test's words are the
    caller's (``sums``, ``sqs``, ``alive``, ``played``, ``res``: a word per legal action).
    Returns ``(action, determinizations used, rollouts)``."""
    me = obs[O_SEAT]
    n = legal[0]
    bi = 0
    for a in range(n):
        if legal[1 + a] == base:
            bi = a
        sums[a] = 0
        sqs[a] = 0
        alive[a] = 1
    st = g[G_ST:G_ST + S_SIZE]
    roll = g[G_ROLL:G_ROLL + S_SIZE]
    hist = g[G_HIST:G_HIST + MAX_TABLE_ROLLOUT + 64]
    n_alive = n - 1
    done = 0
    rollouts = 0
    while done < samples and n_alive > 0:
        for _ in range(step):
            if sample_table(obs, rng, g) < 0:   # not in a consistent game
                return base, done, rollouts
            build_table_state(obs, g, st)
            for a in range(n):
                if alive[a] == 0 and a != bi:
                    continue
                for i in range(S_SIZE):
                    roll[i] = st[i]
                apply_action(roll, legal[1 + a], hist)
                res[a] = table_rollout(roll, g, rng, me)
                rollouts += 1
            for a in range(n):
                if alive[a] != 0:
                    d = res[a] - res[bi]
                    sums[a] += d
                    sqs[a] += d * d
        done += step
        n_alive -= step_drop(sums, sqs, alive, played, n, bi, done, z_drop)
    return choose(sums, sqs, alive, legal, n, bi, done, z_play, base), done, rollouts
