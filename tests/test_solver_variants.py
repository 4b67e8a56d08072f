"""The variant search (``durak_sim.kernel.vsolver``: transfers, multi-card leads, both)
against a brute force written here over the reference engine, and hard at every table.

The brute force knows nothing of the search: it builds the whole game graph of a position
with the reference engine (``copy``, ``legal_actions``, ``apply``, ``is_over``, ``result``)
and solves it backwards (retrograde analysis): seat 0 wins in ``p`` plies when, at its move,
some action wins in ``p - 1`` (at seat 1's move, every action does, ``p`` one more than the
slowest); likewise for seat 1; every other position is a draw. That is minimax over every
line with the score the kernel's docstring defines (``BIG - p`` for a win in ``p`` plies,
``-(BIG - p)`` for a loss, 0 for a draw), and it needs no pruning and no move order. Unlike
the default game, the transfer game can return to a position it has passed (two players
passing the same cards back and forth): a line that never ends is a draw, for the brute force
as for the search, which is what the retrograde analysis gives (a position neither side can
force an end from is scored 0).

Default run: 300 random endgames (at most 6 cards in the hands and on the table; dealt at
random or reached by playing random deals to the empty stock and on). ``-m slow``: 1,100 more
with at most 7 cards and 100 with at most 8. Every one: the value, the set of optimal actions and their order (``MODE_ORDERED``),
``MODE_ONE``'s action, and the legal actions and the state after every action of random lines
against the reference engine's.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import deque

import numpy as np
import pytest

from durak_sim.cards import card_str
from durak_sim.kernel import solver as K
from durak_sim.kernel import solver_base as B
from durak_sim.kernel import vsolver as V
from durak_sim.kernel import vsolver_rules as R
from durak_sim.observation import PHASE_ATTACK, PHASE_DEFEND, PHASE_LEAD, PHASE_OPEN
from durak_sim.reference import ReferenceGame, endgame_position
from durak_sim.rules import Rules

BIG = 1 << 15
RULESETS = [Rules(variant="perevodnoy"), Rules(lead_multiple=True),
            Rules(variant="perevodnoy", lead_multiple=True)]


# ---- the brute force ------------------------------------------------------------------------
def value_of(game) -> int:
    """Seat 0's value of a finished two-player deal: +1 seat 1 is the Durak, 0 a draw."""
    durak = game.result()["durak"]
    return 0 if durak is None else (1 if durak == 1 else -1)


def key(game) -> tuple:
    return (tuple(game.hands), tuple(game.stock), game.attacker, game.defender, game.phase,
            frozenset(map(tuple, game.table)), game.taking, game.bout_limit, game.asked)


def game_graph(root):
    """Every position reachable from ``root``: per position its mover and, per legal action,
    ``(action, position index or None, value if the deal ended)``."""
    index = {key(root): 0}
    games = [root]
    children = []
    for g in games:
        out = []
        for a in g.legal_actions():
            c = g.copy()
            c.apply(a)
            if c.is_over():
                out.append((a, None, value_of(c)))
                continue
            k = key(c)
            if k not in index:
                index[k] = len(games)
                games.append(c)
            out.append((a, index[k], None))
        children.append(out)
    return [g.to_move() for g in games], children


def retrograde(movers, children) -> list[int]:
    """Every position's score (seat 0's view): forced wins with their lengths, else 0."""
    n = len(children)
    score = [0] * n
    parents = [[] for _ in range(n)]
    for i, out in enumerate(children):
        for _, j, _ in out:
            if j is not None:
                parents[j].append(i)
    for side, winner in ((1, 0), (-1, 1)):
        plies = [0] * n
        left = [len(out) for out in children]
        queue = deque()
        for i, out in enumerate(children):
            ends = sum(1 for _, j, v in out if j is None and v == side)
            if movers[i] == winner:
                if ends:
                    plies[i] = 1
                    queue.append(i)
            else:
                left[i] -= ends
                if left[i] == 0:
                    plies[i] = 1
                    queue.append(i)
        while queue:
            j = queue.popleft()
            for p in parents[j]:
                if plies[p]:
                    continue
                if movers[p] != winner:
                    left[p] -= 1
                    if left[p]:
                        continue
                plies[p] = plies[j] + 1
                queue.append(p)
        for i in range(n):
            if plies[i]:
                score[i] = side * (BIG - plies[i])
    return score


def brute_force(game):
    """(value, optimal actions best first) of ``game``."""
    movers, children = game_graph(game)
    score = retrograde(movers, children)
    scores = {a: v * BIG if j is None else score[j] for a, j, v in children[0]}
    mover = movers[0]
    best = max(scores.values()) if mover == 0 else min(scores.values())
    v = (best > 0) - (best < 0)
    opt = [a for a in sorted(scores) if (scores[a] > 0) - (scores[a] < 0) == v]
    if v != 0:
        opt.sort(key=lambda a: (-scores[a] if mover == 0 else scores[a], a))
    return v, opt


# ---- positions ------------------------------------------------------------------------------
def dealt_endgame(rng: random.Random, max_cards: int):
    """Random hands (1-6 cards each), sometimes the face-up trump still in the stock, then
    sometimes a few random plies into the bout."""
    while True:
        n0, n1 = rng.randint(1, 6), rng.randint(1, 6)
        if n0 + n1 <= max_cards:
            break
    rules = rng.choice(RULESETS)
    trump = rng.randrange(4)
    deck = list(range(36))
    rng.shuffle(deck)
    attacker = rng.randrange(2)
    lead = rules.lead_multiple and rng.random() < 0.3 and (n0, n1)[attacker] >= 2
    if lead:
        # a lead being laid: the attacker holds two cards of a rank and opens with one
        first = 0 if attacker == 0 else n0
        j = next(i for i in range(first + 1, 36) if deck[i] >> 2 == deck[first] >> 2)
        deck[first + 1], deck[j] = deck[j], deck[first + 1]
    stock = []
    if rng.random() < 0.15:
        stock = [next(c for c in deck[n0 + n1:] if c % 4 == trump)]
    g = ReferenceGame.from_position({
        "format": "durak-sim/position/1", "trump": "SCDH"[trump],
        "hands": [[card_str(c) for c in deck[:n0]], [card_str(c) for c in deck[n0:n0 + n1]]],
        "stock": [card_str(c) for c in stock], "attacker": attacker,
        "rules": rules.to_dict()})
    if lead:
        g.apply(deck[0 if attacker == 0 else n0])
        while g.phase == PHASE_LEAD and rng.random() < 0.6:
            g.apply(rng.choice(g.legal_actions()))   # grow the lead or end it: several unbeaten
        return g
    if rng.random() < 0.7:
        for _ in range(rng.randint(1, 8)):
            c = g.copy()
            c.apply(rng.choice(g.legal_actions()))
            if c.is_over() or not c.table or cards(c) > max_cards + 1:
                break
            g = c
    return g


def cards(g) -> int:
    """The cards in play: both hands and the table."""
    return sum(bin(h).count("1") for h in g.hands) + sum(1 + (d >= 0) for _, d in g.table)


def played_endgame(rng: random.Random, max_cards: int, deal: int):
    """A deal played at random to the empty stock and on, until at most ``max_cards`` cards
    are left in the hands (None when it ends first)."""
    g = ReferenceGame.new(rng.randrange(1 << 30), deal, rng.choice(RULESETS))
    while not g.is_over():
        if not g.stock and cards(g) <= max_cards:
            return g
        g.apply(rng.choice(g.legal_actions()))
    return None


def endgames(seed: int, n: int, max_cards: int):
    rng = random.Random(seed)
    out = []
    deal = 0
    while len(out) < n:
        if len(out) % 3 == 2:
            deal += 1
            g = played_endgame(rng, max_cards, deal)
            if g is None:
                continue
        else:
            g = dealt_endgame(rng, max_cards)
        out.append(g)
    return out


# ---- the kernel -----------------------------------------------------------------------------
def kernel_args(g) -> tuple:
    table = np.full(12, -1, np.int64)
    for i, (a, d) in enumerate(g.table):
        table[2 * i], table[2 * i + 1] = a, d
    stock = np.zeros(2, np.int64)
    stock[:len(g.stock)] = g.stock
    i64 = np.int64
    return (i64(g.hands[0]), i64(g.hands[1]), i64(g.trump_suit), stock, i64(len(g.stock)),
            i64(g.attacker), table, i64(len(g.table)), i64(int(g.taking)),
            i64(g.bout_limit if g.table else 0), i64(g.rules.flags),
            i64(int(g.phase == PHASE_LEAD)))


def kernel_solve(g, tt, stamp: int, mode: int, node_cap: int = 0):
    out = np.zeros(V.OUT_SIZE, np.int64)
    stats = np.zeros(K.STATS_SIZE, np.int64)
    i64 = np.int64
    v = V.solve_variant(*kernel_args(g), tt, i64(stamp), i64(node_cap), i64(mode), out, stats)
    return int(v), out[1:out[0] + 1].tolist(), stats.copy()


def kind(g) -> str:
    names = {PHASE_OPEN: "open", PHASE_ATTACK: "attack", PHASE_DEFEND: "defend",
             PHASE_LEAD: "lead"}
    k = names[g.phase]
    if g.phase == PHASE_DEFEND and len(g.unbeaten()) > 1:
        k = "defend-several"
    return k + ("-taking" if g.taking else "")


def check_against_brute_force(seed: int, n: int, max_cards: int) -> dict:
    tt = V.new_table(12)  # small on purpose: collisions and replacement get exercised
    kinds: dict = {}
    for i, g in enumerate(endgames(seed, n, max_cards)):
        kinds[kind(g)] = kinds.get(kind(g), 0) + 1
        kinds[g.rules.tag] = kinds.get(g.rules.tag, 0) + 1
        v, opt = brute_force(g)
        kv, kopt, stats = kernel_solve(g, tt, 3 * i + 1, K.MODE_ORDERED)
        assert stats[1] == 0 and stats[2] == 0
        assert (kv, kopt) == (v, opt), f"seed {seed} #{i}: {g.rules.tag} {g!r}"
        kv1, one, _ = kernel_solve(g, tt, 3 * i + 2, K.MODE_ONE)
        mover_loses = v == (-1 if g.to_move() == 0 else 1)
        assert kv1 == v and one[0] in g.legal_actions()
        assert mover_loses or one[0] in opt, f"seed {seed} #{i}"
        kv2, kset, _ = kernel_solve(g, tt, 3 * i + 3, K.MODE_SET)
        assert (kv2, kset) == (v, sorted(opt))
    return kinds


def test_exact_against_brute_force():
    kinds = check_against_brute_force(seed=8101, n=300, max_cards=6)
    # every phase the variants add comes up
    for k in ("open", "lead", "defend", "defend-several", "attack", "attack-taking"):
        assert kinds.get(k, 0) >= 3, kinds
    assert all(kinds.get(r.tag, 0) >= 20 for r in RULESETS), kinds


@pytest.mark.slow
def test_exact_against_brute_force_slow():
    kinds = check_against_brute_force(seed=8102, n=1100, max_cards=7)
    kinds8 = check_against_brute_force(seed=8103, n=100, max_cards=8)
    assert sum(kinds.get(r.tag, 0) + kinds8.get(r.tag, 0) for r in RULESETS) == 1200


# ---- the rules, move by move ----------------------------------------------------------------
def kernel_state(g) -> tuple:
    tab = ub = 0
    for a, d in g.table:
        tab |= 1 << a
        if d >= 0:
            tab |= 1 << d
        elif not g.taking and g.phase != PHASE_LEAD:   # a lead is answered once laid
            ub |= 1 << a
    return (g.hands[0], g.hands[1], tab, ub, len(g.table), g.bout_limit if g.table else 0,
            int(g.taking), g.attacker, R.X_LEAD if g.phase == PHASE_LEAD else 0)


def test_legal_actions_and_moves_are_the_reference_engine_s():
    """``_vlegal`` and ``_vchild`` along random lines: the same legal codes after every
    action, the same state, the same end."""
    rng = random.Random(77)
    tt = V.new_table(10)
    out = np.zeros(V.OUT_SIZE, np.int64)
    i64 = np.int64
    steps = 0
    for g in endgames(9, 300, 9):
        B._setup(i64(g.trump_suit), np.array(g.stock + [0], np.int64), i64(len(g.stock)), tt,
                 i64(1), i64(0))
        tt[R.C_FLAGS] = g.rules.flags & (R.F_LEAD | R.F_TRANSFER)
        state = kernel_state(g)
        sp = 0
        while True:
            h0, h1, tab, ub, natt, lim, tk, att, x = state
            n = R._vlegal(i64(h0), i64(h1), i64(tab), i64(ub), i64(natt), i64(lim), i64(tk),
                          i64(att), i64(x), tt, out, i64(0))
            assert out[1:n + 1].tolist() == g.legal_actions()
            a = rng.choice(g.legal_actions())
            child = R._vchild(i64(h0), i64(h1), i64(tab), i64(ub), i64(natt), i64(lim),
                              i64(tk), i64(att), i64(sp), i64(x), i64(a), tt)
            g.apply(a)
            steps += 1
            if g.is_over():
                assert child[10] == value_of(g)
                break
            assert child[10] == 2
            sp = child[8]
            mine = tuple(int(v) for v in child[:8]) + (int(child[9]) & R.X_LEAD,)
            assert mine == kernel_state(g)
            state = mine
    assert steps > 3000


def goes_round(children) -> bool:
    """Whether the game graph has a cycle (a line of play can return to a position)."""
    state = [0] * len(children)
    for root in range(len(children)):
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, iter(children[root]))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif nxt[1] is not None:
                if state[nxt[1]] == 1:
                    return True
                if state[nxt[1]] == 0:
                    state[nxt[1]] = 1
                    stack.append((nxt[1], iter(children[nxt[1]])))
    return False


def shared_ranks(rng: random.Random):
    """A transfer game's bout start where both hands hold cards of the same two ranks (the
    cards that can be passed back and forth), and a card or none besides."""
    trump = rng.randrange(4)
    ranks = rng.sample(range(9), 2)
    pool = [r * 4 + s for r in ranks for s in range(4) if s != trump]
    rng.shuffle(pool)
    k = rng.randint(4, 5)
    others = [c for c in range(36) if c >> 2 not in ranks]
    rng.shuffle(others)
    hands = [pool[:k // 2] + others[:rng.randint(0, 1)],
             pool[k // 2:k] + others[1:1 + rng.randint(0, 1)]]
    return ReferenceGame.from_position({
        "format": "durak-sim/position/1", "trump": "SCDH"[trump],
        "hands": [[card_str(c) for c in h] for h in hands], "stock": [],
        "attacker": rng.randrange(2), "rules": Rules(variant="perevodnoy").to_dict()})


def check_going_round(seed: int, want: int) -> None:
    rng = random.Random(seed)
    tt = V.new_table(12)
    cyclic = 0
    for i in range(40 * want):
        g = shared_ranks(rng)
        movers, children = game_graph(g)
        if not goes_round(children):
            continue
        cyclic += 1
        v, opt = brute_force(g)
        kv, kopt, stats = kernel_solve(g, tt, i + 1, K.MODE_ORDERED)
        assert stats[1] == 0 and (kv, kopt) == (v, opt), f"#{i} {g!r}"
        if cyclic == want:
            break
    assert cyclic == want


def test_deals_that_can_go_round():
    """Transfers can pass the same cards back and forth for ever (seat 0 leads 7S, seat 1
    passes it back with 7H, seat 0 takes both; seat 1 leads 7C, seat 0 passes it back with
    7H, seat 1 takes: the deal is where it was). A line that never ends is a draw (E12 ends
    such a deal in a draw); the search, which checks every bout start of its line against the
    earlier ones, agrees with the brute force on positions whose game graph has such cycles."""
    check_going_round(5, 12)


@pytest.mark.slow
def test_deals_that_can_go_round_slow():
    check_going_round(6, 80)


# ---- the position format and durak-sim solve ------------------------------------------------
def position(rules: dict, hands, attacker=0, **kw) -> dict:
    d = {"format": "durak-sim/position/1", "trump": "D", "hands": hands, "stock": [],
         "attacker": attacker, "rules": rules}
    d.update(kw)
    return d


PEREVODNOY = {"players": 2, "hand_size": 6, "variant": "perevodnoy"}


def test_solve_takes_variant_and_larger_table_positions():
    from durak_sim.position import Position
    from durak_sim.solve import solve

    p = Position.from_dict(position(PEREVODNOY, [["6S", "7S"], ["6H", "9D"]],
                                    table=[["6C", None]], attacker=1))
    assert p.variant and p.phase == "defend" and p.to_move == 0
    r = solve(p)
    g = ReferenceGame.from_position(p.to_dict())
    v, opt = brute_force(g)
    from durak_sim.actions import action_str

    assert r.exact and r.value == v
    assert r.best_actions == [action_str(a, p.unbeaten) for a in opt]
    assert Position.from_dict(p.to_dict()) == p
    # a larger table with two seats left: seats 1 and 3, value from seat 1's view
    four = {"players": 4, "hand_size": 6, "variant": "perevodnoy"}
    q = Position.from_dict(position(four, [[], ["6S", "7S"], [], ["6H", "9D"]], attacker=3,
                                    out=[0, 2], table=[["6C", None]], bout_limit=2))
    assert q.seats == (1, 3) and q.attacker == 1 and q.to_move == 0
    assert solve(q).value == r.value
    assert Position.from_dict(q.to_dict()) == q


def test_solve_takes_every_variant_position_the_games_reach():
    """Several unbeaten cards (a lead, a transfer, some of them beaten in any order) are
    positions ``durak-sim solve`` reads: its answer is the brute force's."""
    from durak_sim.actions import action_str
    from durak_sim.position import Position
    from durak_sim.solve import solve

    several = 0
    for g in endgames(seed=8104, n=600, max_cards=6):
        p = Position.from_dict(endgame_position(g), reachable=False)  # small hands, a stock
        assert Position.from_dict(p.to_dict(), reachable=False) == p
        if len(g.unbeaten()) < 2 or g.taking:
            continue
        several += 1
        v, opt = brute_force(g)
        r = solve(p)
        assert r.exact and r.value == v
        assert r.best_actions == [action_str(a, p.unbeaten) for a in opt]
    assert several >= 10


def test_solve_reads_every_two_seat_endgame_of_every_table():
    """Random deals at every table hard searches: each state with two seats left and at most
    the face-up trump in the stock is a position ``durak-sim solve`` reads and writes back."""
    from durak_sim.observation import PHASE_SWAP
    from durak_sim.position import Position
    from durak_sim.solve import solve_many

    rng = random.Random(8107)
    seen: dict = {}
    positions = []
    for rules in [t for t in TABLES if not t.prostoy]:
        for deal in range(6):
            g = ReferenceGame.new(rng.randrange(1 << 30), deal, rules)
            while not g.is_over():
                left = rules.players - len(g.out)
                if left == 2 and len(g.stock) <= 1 and g.phase != PHASE_SWAP:
                    p = Position.from_dict(endgame_position(g))
                    assert Position.from_dict(p.to_dict()) == p
                    positions.append(p)
                    seen[rules.tag] = seen.get(rules.tag, 0) + 1
                g.apply(rng.choice(g.legal_actions()))
    assert len(seen) == len([t for t in TABLES if not t.prostoy]), seen
    results = list(solve_many(positions, node_cap=2000, order_nodes=2000))
    assert len(results) == len(positions) and all(r.best_actions for r in results)


@pytest.mark.parametrize("rules, hands, extra, words", [
    ({"players": 2, "hand_size": 5, "variant": "prostoy"}, [["6S"], ["7S"]], {}, "prostoy"),
    ({"players": 3, "hand_size": 6, "variant": "perevodnoy"}, [["6S"], ["7S"], ["8S"]], {},
     "3 seats still play"),
    ({"players": 2, "hand_size": 6, "variant": "podkidnoy-full"},
     [["6D", "9S"], ["7S", "8D"]], {"swap": True, "stock": ["TC", "AD"]}, "swap"),
])
def test_solve_refuses_the_rest_in_one_line(tmp_path, rules, hands, extra, words):
    from cli_errors import assert_one_line_error

    f = tmp_path / "p.json"
    f.write_text(json.dumps(position(rules, hands, **extra)))
    proc = subprocess.run([sys.executable, "-m", "durak_sim.cli", "solve", str(f)],
                          capture_output=True, text=True)
    assert_one_line_error(proc, words)


def test_budgets_stop_the_variant_search(tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps(position(PEREVODNOY, [["6S", "6C", "7D", "9H", "TS", "QD"],
                                                  ["6H", "7S", "8C", "JD", "KS", "AD"]])))
    proc = subprocess.run([sys.executable, "-m", "durak_sim.cli", "solve", str(f), "--json",
                           "--max-nodes", "50"], capture_output=True, text=True, check=True)
    line = json.loads(proc.stdout)
    assert line["exact"] is False and line["stopped_by"] == "nodes"
    assert len(line["best_actions"]) == 1


# ---- hard at every table --------------------------------------------------------------------
TABLES = [Rules(variant="perevodnoy"), Rules(lead_multiple=True),
          Rules(variant="podkidnoy-full"), Rules(players=3), Rules(players=4),
          Rules(variant="perevodnoy", players=5), Rules(players=6),
          Rules(variant="teams"), Rules(variant="teams", players=6, transfer=True),
          Rules(variant="prostoy"), Rules(variant="prostoy", players=4),
          Rules(trump_six_swap=True, players=3)]


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: r.tag)
def test_hard_plays_every_table_legally_and_deterministically(rules):
    from durak_sim.play import play_games
    from durak_sim.records import dumps
    from durak_sim.reference import replay

    line_up = ["hard"] + ["normal", "easy", "hard", "random", "normal"][:rules.players - 1]
    runs = [play_games(line_up, seed=31, deals=range(6), rules=rules, record=True)
            for _ in range(2)]
    texts = [[dumps(r) for r in b.records()] for b in runs]
    assert texts[0] == texts[1]
    for rec in list(runs[0].records())[:4]:
        replay(rec)   # the reference engine takes every action: legal


def check_proof_number_search(seed: int, n: int, max_cards: int, leaf_budget: int) -> None:
    """The proof-number search alone (``solve_variant_budgets`` with no alpha-beta budget at
    the root) finds every value and optimal set the brute force does."""
    tt = V.new_table(12)
    i64 = np.int64
    for i, g in enumerate(endgames(seed, n, max_cards)):
        v, opt = brute_force(g)
        out = np.zeros(V.OUT_SIZE, np.int64)
        stats = np.zeros(K.STATS_SIZE, np.int64)
        kv = V.solve_variant_budgets(*kernel_args(g), tt, i64(i + 1), i64(0), i64(K.MODE_SET),
                                     out, stats, i64(0), i64(leaf_budget))
        assert stats[1] == 0
        assert (int(kv), out[1:out[0] + 1].tolist()) == (v, sorted(opt)), f"#{i} {g!r}"


@pytest.mark.parametrize("leaf_budget", [0, 30])
def test_proof_number_search_is_exact(leaf_budget):
    check_proof_number_search(8111 + leaf_budget, 200, 6, leaf_budget)


@pytest.mark.slow
def test_proof_number_search_is_exact_slow():
    check_proof_number_search(8121, 600, 7, 0)
