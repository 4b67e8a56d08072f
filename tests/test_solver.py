"""The endgame solver against a brute-force minimax written here from docs/rules.md alone.

The brute force has its own move generator and plays every line to the end (no pruning, no
hash table of its own: it memoises exact, complete states in a dict, which changes no result
and only avoids re-playing identical positions). It computes the score the kernel's docstring
defines (win sooner / lose later, ``BIG - plies``), so it checks the value, the set of optimal
actions and their preference order.

Default run: 1,100 random endgames with at most 8 cards in the two hands (each hand 1-6 cards,
bout starts and mid-bout positions: defend phase, after defences, while taking; some with a
one-card stock). ``-m slow``: 1,000 more with at most 10 cards and 60 with at most 12.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import numba
import numpy as np
import pytest

from durak_sim.actions import action_str
from durak_sim.cards import cards_mask, parse_card
from durak_sim.kernel import solver as K
from durak_sim.position import Position
from durak_sim.solve import solve, solve_many

BIG = 1 << 15  # the kernel's score unit: a win in p plies scores BIG - p
TAKE, STOP = 72, 73


# ---- brute force, from docs/rules.md ------------------------------------------------------
def bf_beats(card: int, other: int, trump: int) -> bool:
    """R1.3."""
    if card % 4 == other % 4:
        return card // 4 > other // 4
    return card % 4 == trump


@dataclass(frozen=True)
class St:
    hands: tuple          # (set of cards of seat 0, of seat 1) as frozensets
    stock: tuple          # draw order
    attacker: int
    table: tuple          # ((attack, defence or -1), ...) in play order
    taking: bool
    limit: int
    trump: int

    def key(self):
        return (self.hands, self.stock, self.attacker, frozenset(self.table), self.taking,
                self.limit)


def bf_mover(s: St) -> int:
    if s.table and not s.taking and any(d < 0 for _, d in s.table):
        return 1 - s.attacker
    return s.attacker


def bf_legal(s: St) -> list[int]:
    a, d = s.attacker, 1 - s.attacker
    if not s.table:                                   # R3.1: open with any card
        return sorted(s.hands[a])
    unbeaten = [x for x, y in s.table if y < 0]
    if unbeaten and not s.taking:                     # R3.2: beat the unbeaten card or take
        u = unbeaten[0]
        return sorted(36 + c for c in s.hands[d] if bf_beats(c, u, s.trump)) + [TAKE]
    acts = []
    if len(s.table) < s.limit:                        # R3.3-R3.5, R3.8: throw in or stop
        ranks = {x // 4 for pair in s.table for x in pair if x >= 0}
        acts = sorted(c for c in s.hands[a] if c // 4 in ranks)
    return acts + [STOP]


def bf_apply(s: St, act: int):
    """(next state, the deal's value if it ended, else None)."""
    hands = [set(s.hands[0]), set(s.hands[1])]
    a, d = s.attacker, 1 - s.attacker
    if act < 36:
        hands[a].remove(act)
        limit = s.limit if s.table else min(6, len(hands[d]))   # R3.4, fixed at the opening
        return St(tuple(map(frozenset, hands)), s.stock, a, s.table + ((act, -1),), s.taking,
                  limit, s.trump), None
    if act < 72:
        hands[d].remove(act - 36)
        table = list(s.table)
        i = next(i for i, (x, y) in enumerate(table) if y < 0)
        table[i] = (table[i][0], act - 36)
        return St(tuple(map(frozenset, hands)), s.stock, a, tuple(table), s.taking, s.limit,
                  s.trump), None
    if act == TAKE:
        return St(s.hands, s.stock, a, s.table, True, s.limit, s.trump), None
    # stop: the bout ends
    if s.taking:                                      # R3.7: picks up every card of the bout
        for x, y in s.table:
            hands[d].add(x)
            if y >= 0:
                hands[d].add(y)
        nxt = a
    else:                                             # R3.6
        nxt = d
    stock = list(s.stock)
    for seat in (a, d):                               # R4: attacker first, then defender
        while stock and len(hands[seat]) < 6:
            hands[seat].add(stock.pop(0))
    ns = St(tuple(map(frozenset, hands)), tuple(stock), nxt, (), False, 0, s.trump)
    if not stock and (not hands[0] or not hands[1]):  # R5
        return ns, (0 if not hands[0] and not hands[1] else (1 if not hands[0] else -1))
    return ns, None


def bf_score(s: St, memo: dict) -> int:
    """Seat 0's score: BIG - p for a win in p plies, -(BIG - p) for a loss, 0 for a draw,
    seat 0 maximising and seat 1 minimising."""
    k = s.key()
    if k in memo:
        return memo[k]
    m = bf_mover(s)
    best = None
    for act in bf_legal(s):
        ns, end = bf_apply(s, act)
        v = end * BIG if end is not None else bf_score(ns, memo)
        if best is None or (v > best if m == 0 else v < best):
            best = v
    best = best - 1 if best > 0 else (best + 1 if best < 0 else 0)
    memo[k] = best
    return best


def bf_solve(s: St):
    """(value, optimal actions best first) at the root."""
    memo: dict = {}
    scores = {}
    for act in bf_legal(s):
        ns, end = bf_apply(s, act)
        scores[act] = end * BIG if end is not None else bf_score(ns, memo)
    m = bf_mover(s)
    best = max(scores.values()) if m == 0 else min(scores.values())
    v = (best > 0) - (best < 0)
    opt = [a for a in sorted(scores) if (scores[a] > 0) - (scores[a] < 0) == v]
    if v != 0:
        opt.sort(key=lambda a: (-scores[a] if m == 0 else scores[a], a))
    return v, opt


# ---- random endgames -------------------------------------------------------------------------
def random_state(rng: random.Random, max_cards: int) -> St:
    while True:
        n0, n1 = rng.randint(1, 6), rng.randint(1, 6)
        if n0 + n1 <= max_cards:
            break
    trump = rng.randrange(4)
    deck = list(range(36))
    rng.shuffle(deck)
    stock = ()
    if rng.random() < 0.15:  # the face-up trump still to be drawn
        stock = (next(c for c in deck[n0 + n1:] if c % 4 == trump),)
    s = St((frozenset(deck[:n0]), frozenset(deck[n0:n0 + n1])), stock, rng.randrange(2), (),
           False, 0, trump)
    if rng.random() < 0.65:  # a few random plies into the bout
        for _ in range(rng.randint(1, 6)):
            ns, end = bf_apply(s, rng.choice(bf_legal(s)))
            if end is not None or not ns.table:
                break
            s = ns
    return s


def kind(s: St) -> str:
    if not s.table:
        return "open"
    if s.taking:
        return "taking"
    return "defend" if any(d < 0 for _, d in s.table) else "attack"


def kernel_solve(s: St, tt, stamp: int, mode: int, node_cap: int = 0, budgets=None):
    """The kernel's answer: value, actions, statistics. ``budgets``: ``(ab_budget,
    leaf_budget)`` of ``solve_budgets`` (default: ``solve_root``'s)."""
    table = np.full(12, -1, np.int64)
    for i, (x, y) in enumerate(s.table):
        table[2 * i], table[2 * i + 1] = x, y
    stock = np.zeros(2, np.int64)
    stock[:len(s.stock)] = s.stock
    out = np.zeros(K.OUT_SIZE, np.int64)
    stats = np.zeros(K.STATS_SIZE, np.int64)
    i64 = np.int64
    args = (i64(sum(1 << c for c in s.hands[0])), i64(sum(1 << c for c in s.hands[1])),
            i64(s.trump), stock, i64(len(s.stock)), i64(s.attacker), table, i64(len(s.table)),
            i64(s.taking), i64(s.limit), tt, i64(stamp), i64(node_cap), i64(mode), out, stats)
    if budgets is None:
        v = K.solve_root(*args)
    else:
        v = K.solve_budgets(*args, i64(budgets[0]), i64(budgets[1]))
    return int(v), out[1:out[0] + 1].tolist(), stats.copy()


def check_against_brute_force(seed: int, n: int, max_cards: int) -> dict:
    rng = random.Random(seed)
    tt = K.new_table(12)  # small on purpose: collisions and replacement get exercised
    kinds: dict = {}
    for i in range(n):
        s = random_state(rng, max_cards)
        kinds[kind(s)] = kinds.get(kind(s), 0) + 1
        kinds["stock"] = kinds.get("stock", 0) + bool(s.stock)
        v, opt = bf_solve(s)
        kv, kopt, stats = kernel_solve(s, tt, 3 * i + 1, K.MODE_ORDERED)
        assert stats[1] == 0 and stats[2] == 0
        assert (kv, kopt) == (v, opt), f"seed {seed} #{i}: {s}"
        kv1, one, _ = kernel_solve(s, tt, 3 * i + 2, K.MODE_ONE)
        assert kv1 == v and len(one) == 1 and one[0] in bf_legal(s)
        mover_loses = v == (-1 if bf_mover(s) == 0 else 1)
        assert mover_loses or one[0] in opt, f"seed {seed} #{i}: {s}"
        assert kernel_solve(s, tt, 3 * i + 3, K.MODE_VALUE)[0] == v
    return kinds


def test_exact_random_endgames():
    kinds = check_against_brute_force(seed=20240601, n=1000, max_cards=7)
    kinds8 = check_against_brute_force(seed=20240602, n=100, max_cards=8)
    for k in ("open", "defend", "attack", "taking", "stock"):
        assert kinds[k] + kinds8[k] >= 60, (kinds, kinds8)


@pytest.mark.slow
def test_exact_random_endgames_slow():
    check_against_brute_force(seed=7, n=1000, max_cards=10)
    check_against_brute_force(seed=8, n=60, max_cards=12)


def check_proof_number_search(seed: int, n: int, max_cards: int, leaf_budget: int):
    """The proof-number search alone (no alpha-beta budget at the root; ``leaf_budget``
    alpha-beta nodes at new bout starts, 0: none) against the brute force: the value, and in
    ``MODE_ONE`` an optimal action unless the mover loses."""
    rng = random.Random(seed)
    tt = K.new_table(12)
    for i in range(n):
        s = random_state(rng, max_cards)
        v, opt = bf_solve(s)
        kv, one, stats = kernel_solve(s, tt, i + 1, K.MODE_ONE, budgets=(0, leaf_budget))
        assert stats[1] == 0 and kv == v, f"seed {seed} #{i}: {s}"
        mover_loses = v == (-1 if bf_mover(s) == 0 else 1)
        assert len(one) == 1 and (mover_loses or one[0] in opt), f"seed {seed} #{i}: {s}"


def test_proof_number_search_is_exact():
    check_proof_number_search(seed=31, n=80, max_cards=8, leaf_budget=0)
    check_proof_number_search(seed=32, n=50, max_cards=8, leaf_budget=20)


@pytest.mark.slow
def test_proof_number_search_is_exact_slow():
    check_proof_number_search(seed=33, n=300, max_cards=10, leaf_budget=0)
    check_proof_number_search(seed=34, n=30, max_cards=12, leaf_budget=50)


def test_brute_force_follows_the_reference_engine():
    """The brute force's rules and the project's reference engine agree on random playouts
    (legal actions after every ply, the end and its result), so the solver plays the rules the
    engines play."""
    from durak_sim.cards import card_str
    from durak_sim.reference import ReferenceGame

    rng = random.Random(99)
    for _ in range(300):
        s = random_state(rng, 12)
        g = ReferenceGame.from_position({
            "format": "durak-sim/position/1", "trump": "SCDH"[s.trump],
            "hands": [[card_str(c) for c in sorted(h)] for h in s.hands],
            "stock": [card_str(c) for c in s.stock], "attacker": s.attacker,
            "table": [[card_str(a), card_str(d) if d >= 0 else None] for a, d in s.table],
            "taking": s.taking, "bout_limit": s.limit if s.table else None})
        while True:
            assert g.legal_actions() == bf_legal(s)
            a = rng.choice(bf_legal(s))
            s, end = bf_apply(s, a)
            g.apply(a)
            assert g.is_over() == (end is not None)
            if end is not None:
                durak = g.result()["durak"]
                assert end == (0 if durak is None else (1 if durak == 1 else -1))
                break


# ---- hand-made positions ---------------------------------------------------------------------
def position(trump: str, h0: str, h1: str, attacker: int = 0, stock: str = "", table=(),
             taking: bool = False) -> Position:
    return Position.from_dict(reachable=False, d={
        "format": "durak-sim/position/1", "trump": trump, "hands": [h0.split(), h1.split()],
        "stock": stock.split(), "attacker": attacker,
        "table": [[a, d] for a, d in table], "taking": taking})


KNOWN = [
    # the attacker's last card: he goes out unless the defender beats it with his last one
    (position("D", "6S", "TS 7D"), 1, ["attack 6S"]),
    (position("D", "6S", "TS"), 0, ["attack 6S"]),
    (position("D", "6S", "7H"), 1, ["attack 6S"]),
    # the defender's single card beats everything: he beats the opening card and goes out
    (position("D", "6S 7S 8H", "AD"), -1, ["attack 6S", "attack 7S", "attack 8H"]),
    # a pair of sixes against three cards: open, throw in the other six, out
    (position("D", "6S 6C", "7H 8H 9H"), 1, ["attack 6S", "attack 6C"]),
    # defend and go out (seat 1 wins at once) rather than take
    (position("D", "6S KD 9H", "7D", table=[("TS", None)]), -1, ["defend 7D TS", "take"]),
    # taking: throw in the last card to go out
    (position("H", "7C", "8S 9D", table=[("7S", None)], taking=True), 1, ["attack 7C", "stop"]),
    # refill (R4): seat 0 opens its last card, seat 1 beats it with 7S and seat 0 draws the
    # face-up AH first; then AH beats seat 1's last card 8D: both go out, a draw
    (position("H", "6S", "7S 8D", stock="AH"), 0, ["attack 6S"]),
    # S8: seat 1 can beat one card only (6C): seat 0 opens AS and AH, seat 1 takes them, and
    # 6C goes last, seat 0's last card
    (position("D", "AS AH 6C", "7C 8C 9C"), 1, ["attack AS", "attack AH"]),
    # S9: the beatable cards are the two nines: AS first (taken), then both nines in one bout
    (position("D", "AS 9C 9H", "TC TH 6S"), 1, ["attack AS"]),
    # S10: KH goes with KS while seat 1 takes it (KH beats neither), 6C is the last card
    (position("D", "KS KH 6C", "AH 7C 8C"), 1, ["attack KS", "attack KH"]),
    # S11: every card of seat 1 beats every card of seat 0, who cannot play out in one bout
    (position("D", "6S 7S 8S", "AD KD"), -1, ["attack 6S", "attack 7S", "attack 8S"]),
]


@pytest.mark.parametrize("i", range(len(KNOWN)))
def test_known_positions(i):
    p, value, best = KNOWN[i]
    r = solve(p)
    assert r.exact and r.order_exact
    if value is not None:
        assert r.value == value
        assert r.best_actions == best
    v, opt = bf_solve(_state(p))
    assert r.value == v
    assert r.best_actions == [action_str(a, p.unbeaten) for a in opt]


def _cards(mask: int) -> list[int]:
    return [c for c in range(36) if mask >> c & 1]


def _state(p: Position) -> St:
    """The brute force's state of a position."""
    return St((frozenset(_cards(p.hands[0])), frozenset(_cards(p.hands[1]))), p.stock,
              p.attacker, p.table, p.taking, p.bout_limit or 0, p.trump_suit)


def test_finished_deal_is_not_searched():
    r = solve(position("D", "", "6S"))
    assert (r.value, r.best_actions, r.nodes) == (1, [], 0)


# ---- the table, the stamp and the cap --------------------------------------------------------
def test_results_do_not_depend_on_earlier_deals():
    rng = random.Random(5)
    states = [random_state(rng, 8) for _ in range(60)]
    shared = K.new_table(10)
    for mode in (K.MODE_ONE, K.MODE_ORDERED):
        for i, s in enumerate(states):
            fresh = kernel_solve(s, K.new_table(10), 1, mode)
            again = kernel_solve(s, shared, 1000 * mode + i + 1, mode)
            assert fresh[:2] == again[:2]


def test_table_reuse_within_a_deal():
    """Follow the solver's own choices with one stamp, as the hard AI does: every value equals
    a fresh solve's, the action is optimal, and the value never changes along the line."""
    rng = random.Random(11)
    for game in range(25):
        s = random_state(rng, 9)
        tt = K.new_table(12)
        v0 = None
        for ply in range(200):
            v, one, _ = kernel_solve(s, tt, 77, K.MODE_ONE)
            fresh_v, fresh_opt, _ = kernel_solve(s, K.new_table(12), 77, K.MODE_SET)
            assert v == fresh_v
            if v != (-1 if bf_mover(s) == 0 else 1):
                assert one[0] in fresh_opt
            if v0 is None:
                v0 = v
            assert v == v0
            s, end = bf_apply(s, one[0])
            if end is not None:
                assert end == v0
                break


def test_node_cap():
    rng = random.Random(3)
    s = random_state(rng, 12)
    while len(bf_legal(s)) < 2:
        s = random_state(rng, 12)
    tt = K.new_table(12)
    v, one, stats = kernel_solve(s, tt, 1, K.MODE_ORDERED, node_cap=5)
    assert stats[1] == 1 and len(one) == 1 and one[0] in bf_legal(s)
    assert stats[0] <= 5 + 200
    p = position("D", "6S 7S 8S 9S TC", "6H 7H 8H 9H TD")
    r = solve(p, node_cap=3)
    assert not r.exact and len(r.best_actions) == 1
    assert r.to_dict()["exact"] is False           # --json says a capped answer is a guess
    full = solve(p)
    assert full.exact
    assert set(full.to_dict()) == {"value", "best_actions", "nodes", "seconds"}  # the spec's


@pytest.mark.parametrize("mover, lo, hi, pick", [
    # seat 0 to move; bounds are seat 0's: a proven draw beats a possible win or loss
    (0, [-1, 0, -1, -1], [-1, 0, 1, 0], 1),
    # nothing proven at least a draw: the first move that may still win, not a proven loss
    (0, [-1, -1, -1, -1], [-1, 0, 1, 1], 2),
    # seat 1 to move: its values are the negatives; move 0 is a proven win for seat 1
    (1, [-1, 0, -1, 0], [-1, 0, 1, 0], 0),
    # seat 1: moves 0, 1 proven to lose (seat 0 wins), move 2 unknown
    (1, [1, 1, -1, 0], [1, 1, 1, 1], 2),
])
def test_a_capped_search_answers_with_the_best_proven_move(mover, lo, hi, pick):
    """When the node cap stops the value tests, the move is the one with the best value they
    proved for the mover, then the best it may still have, never a move proven to lose
    while another may not (what ``bench_hard_endgame`` counts as leaving a value)."""
    tt = K.new_table(4)
    moves = [5, 9, 13, 72]
    for i, (m, a, b) in enumerate(zip(moves, lo, hi)):
        tt[K.C_MV + i], tt[K.C_LO + i], tt[K.C_HI + i] = m, a, b
    assert K._best_known(mover, len(moves), tt) == moves[pick]


def test_solve_many_and_action_notation():
    ps = [position("D", "6S", "TS 7D"), position("D", "6S KD 9H", "7D", table=[("TS", None)]),
          position("D", "", "")]
    rs = list(solve_many(ps))
    assert [r.value for r in rs] == [1, -1, 0]
    assert rs[1].best_actions[0] == "defend 7D TS"
    assert all(r.exact and r.seconds >= 0 for r in rs)
    assert rs[0].to_dict().keys() == {"value", "best_actions", "nodes", "seconds"}


def test_solve_value():
    stats = np.zeros(K.STATS_SIZE, np.int64)
    i64 = np.int64
    v = K.solve_value(i64(cards_mask(["6S"])), i64(cards_mask(["TS"])), i64(2),
                      np.zeros(1, np.int64), i64(0), i64(0), np.full(12, -1, np.int64), i64(0),
                      i64(0), i64(0), K.new_table(8), i64(1), i64(0), stats)
    assert v == 0 and stats[0] > 0 and stats[1] == 0


@numba.njit
def _hard_ai_like_call(h0, h1, trump, tt, stamp):
    stock = np.zeros(1, np.int64)
    table = np.full(12, -1, np.int64)
    out = np.zeros(K.OUT_SIZE, np.int64)
    stats = np.zeros(K.STATS_SIZE, np.int64)
    z = h0 - h0
    v = K.solve_root(h0, h1, trump, stock, z, z, table, z, z, z, tt, stamp, z, z + K.MODE_ONE,
                     out, stats)
    return v, out[1]


def test_callable_from_njit():
    tt = K.new_table(10)
    v, a = _hard_ai_like_call(np.int64(cards_mask(["6S"])), np.int64(cards_mask(["TS", "7D"])),
                              np.int64(2), tt, np.int64(1))
    assert (v, a) == (1, parse_card("6S"))


def test_benchmark_smoke(capsys):
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_solver.py"
    spec = importlib.util.spec_from_file_location("bench_solver", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.main(["--positions", "3", "--by-size"])
    bench.main(["--positions", "2", "--playout"])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert {"bench", "positions", "mean_ms", "p50_ms", "p99_ms", "max_ms", "mean_nodes",
            "compile_s"} <= set(lines[0])
    assert lines[0]["positions"] == 3 and lines[-1]["bench"] == "solver-playout"


# ---- the exact shortcuts at empty-stock bout starts -----------------------------------------
def static_value(s: St, tt) -> int:
    """The solver's shortcut verdict (``_static``, S1-S3 and S7-S11 at a bout start with an
    empty stock) for ``s``: seat 0's value, or 2 when no rule settles it."""
    i64 = np.int64
    K._setup(i64(s.trump), np.zeros(2, np.int64), i64(0), tt, i64(1), i64(0))
    a = s.attacker
    ha = i64(sum(1 << c for c in s.hands[a]))
    hd = i64(sum(1 << c for c in s.hands[1 - a]))
    return int(K._static(ha, hd, i64(0), i64(-1), i64(0), i64(0), i64(a), i64(0),
                         i64(K.PH_OPEN), tt))


@pytest.mark.parametrize("trump, att_hand, def_hand, rule, value", [
    ("D", "AS AH 6C", "7C 8C 9C", "S8", 1),
    ("D", "AS 9C 9H", "TC TH 6S", "S9", 1),
    ("D", "KS KH 6C", "AH 7C 8C", "S10", 1),
    ("D", "6S 7S 8S", "AD KD", "S11", -1),
    ("D", "6S 7S 8S", "AD KD 9H", "none", 2),     # 9H beats no spade: S11 does not hold
    ("D", "KS KH 6C 7C", "AH 8C 9C", "none", 2),  # two beatable cards of two ranks left
])
@pytest.mark.parametrize("attacker", [0, 1])
def test_static_rules(trump, att_hand, def_hand, rule, value, attacker):
    """Each new shortcut on a position built for it (the older rules do not settle them),
    checked against the brute force; the value is the attacker's."""
    hands = (att_hand, def_hand) if attacker == 0 else (def_hand, att_hand)
    s = _state(position(trump, *hands, attacker=attacker))
    v = static_value(s, K.new_table(8))
    if value == 2:
        assert v == 2, rule
        return
    assert v == (value if attacker == 0 else -value), rule
    assert bf_solve(s)[0] == v, rule


def test_static_rules_agree_with_brute_force():
    """Random empty-stock bout starts, lopsided on purpose (where the rules apply): every
    verdict of the shortcuts equals the brute force's value."""
    rng = random.Random(20261130)
    tt = K.new_table(8)
    fired = 0
    for _ in range(300):
        na = rng.randint(2, 6)
        nd = rng.randint(1, 8 - na)
        deck = list(range(36))
        rng.shuffle(deck)
        att = rng.randrange(2)
        hands = [frozenset(), frozenset()]
        hands[att] = frozenset(deck[:na])
        hands[1 - att] = frozenset(deck[na:na + nd])
        s = St(tuple(hands), (), att, (), False, 0, rng.randrange(4))
        v = static_value(s, tt)
        if v != 2:
            fired += 1
            assert bf_solve(s)[0] == v, s
    assert fired >= 100


def test_nibble_packing_matches_its_portable_loop():
    """The canonical keys' rank squeeze: BMI2's pext / pdep (where numba compiles for them)
    and the loop every other CPU runs give the same answers."""
    from durak_sim.kernel import bits

    rng = random.Random(5)
    for _ in range(2000):
        live = rng.getrandbits(36)
        m = 0
        for r in range(9):
            if (live >> (4 * r)) & 15:
                m |= 15 << (4 * r)
        x = np.int64(rng.getrandbits(36))
        got = bits.squeeze_nibbles(x, np.int64(m))
        assert got == bits.squeeze_nibbles_loop(x, np.int64(m))
        ranks = [r for r in range(9) if (m >> (4 * r)) & 15]
        assert got == sum(((int(x) >> (4 * r)) & 15) << (4 * j) for j, r in enumerate(ranks))
        for j, r in enumerate(ranks):
            assert bits.nth_nibble(np.int64(j), np.int64(m)) == 4 * r
            assert bits.nth_nibble_loop(np.int64(j), np.int64(m)) == 4 * r
