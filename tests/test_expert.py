"""expert (strategies/expert.py) and its sampler (strategies/_sampling.py): the card
memory replays the public history exactly, samples deal exactly the unseen cards and never
depend on where the hidden cards lie, the compact rollout plays the kernel's game, and
expert plays legally and reproducibly. Its strength is measured by benchmarks, not here
(benchmarks/bench_expert.py; one slow test below)."""
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from durak_sim import seeding
from durak_sim.cards import FULL_DECK
from durak_sim.kernel import layout as L
from durak_sim.kernel.engine import apply_action
from durak_sim.kernel.game import KernelGame
from durak_sim.strategies._sampling import (K_DRAWN0, K_EDRAWN, K_EMASK, K_NE, K_NOT_EASY,
                                            K_NOT_NORMAL, K_OKNOWN, K_SIZE, K_SIZE0, K_STOCK,
                                            opponent_is_easy, sample_deal, track, unseen_cards)
from durak_sim.observation import (O_ATTACKER, O_BOUT_LIMIT, O_DISCARD, O_HAND, O_HAND_SIZES,
                                   O_KNOWN, O_N_ATTACKS, O_PHASE, O_STOCK, O_TABLE_ATTACKS,
                                   O_TABLE_DEFENCES, O_TAKING, O_TRUMP_CARD, O_TRUMP_SUIT,
                                   O_UNBEATEN, PHASE_DEFEND)
from durak_sim.play import play_games
from durak_sim.reference import hist_for_strategy, legal_array
from durak_sim.registry import get_strategy
from durak_sim.strategies import expert as X

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _games(opponent_policy, seed, deals):
    """Every position of the deals where the mover has a choice, with the kernel's state:
    ``(game, seat, obs, hist)``; the moves are ``opponent_policy(game, rng)``."""
    rng = random.Random(seed)
    for deal in range(deals):
        game = KernelGame.new(seed, deal)
        while not game.is_over():
            codes = game.legal_actions()
            if len(codes) > 1:
                seat = game.to_move()
                yield game, seat, game.observation(seat), hist_for_strategy(game)
            game.apply(opponent_policy(game, codes, rng))


def _random(game, codes, rng):
    return rng.choice(codes)


def _lowest(game, codes, rng):
    """easy's choice (a deterministic opponent for which the lack facts are true)."""
    seat = game.to_move()
    legal = legal_array(codes)
    return int(get_strategy("easy").decide(game.observation(seat), legal,
                                           hist_for_strategy(game), np.zeros(1, np.uint64),
                                           np.zeros(1, np.int64)))


def _hidden_truth(game, seat):
    """(the opponent's hidden cards, the stock in draw order) as the state holds them."""
    st = game.st
    opp = 1 - seat
    hidden = int(st[L.S_HANDS + opp]) & ~int(st[L.S_KNOWN + opp])
    top, n = int(st[L.S_STOCK_TOP]), int(st[L.S_STOCK_N])
    return hidden, [int(c) for c in st[L.S_STOCK + top:L.S_STOCK + top + n]]


def test_card_memory_replays_sizes_stock_and_draws():
    mems = {}
    n = 0
    for game, seat, obs, hist in _games(_random, 11, 40):
        km = mems.setdefault((game.seed, game.deal, seat), np.zeros(K_SIZE, np.int64))
        track(obs, hist, km)
        assert km[K_SIZE0] == obs[O_HAND_SIZES] and km[K_SIZE0 + 1] == obs[O_HAND_SIZES + 1]
        assert km[K_STOCK] == obs[O_STOCK]
        # 24 cards were in the stock: each was drawn by one seat
        assert km[K_DRAWN0] + km[K_DRAWN0 + 1] == 24 - obs[O_STOCK]
        assert km[K_OKNOWN] == obs[O_KNOWN + 1 - seat]
        n += 1
    assert n > 500


def test_lack_facts_hold_against_a_lowest_card_player():
    """Against easy (beats when it can, with its lowest card, plain before trump) every
    epoch's bound holds for the true hidden hand: the facts and the draw counts are right."""
    mems = {}
    checked = 0
    for game, seat, obs, hist in _games(_lowest, 12, 40):
        km = mems.setdefault((game.deal, seat), np.zeros(K_SIZE, np.int64))
        track(obs, hist, km)
        if obs[O_STOCK] < 2:
            continue
        hidden, _ = _hidden_truth(game, seat)
        opp = 1 - seat
        for e in range(int(km[K_NE])):
            room = int(km[K_DRAWN0 + opp] - km[K_EDRAWN + e])
            assert bin(hidden & int(km[K_EMASK + e])).count("1") <= room
            checked += 1
    assert checked > 300


def _seated(name):
    """A policy: ``name`` in seat 1, hard in seat 0."""
    strats = [get_strategy("hard"), get_strategy(name)]
    mems = {}

    def policy(game, codes, rng):
        seat = game.to_move()
        key = (game.deal, seat)
        if key not in mems:
            mems[key] = np.zeros(strats[seat].memory, np.int64)
            mems[key][0] = 1
        return int(strats[seat].decide(game.observation(seat), legal_array(codes),
                                       hist_for_strategy(game), np.zeros(1, np.uint64),
                                       mems[key]))
    return policy


@pytest.mark.parametrize("name", ["easy", "normal", "hard"])
def test_opponent_model_tells_easy_from_normal_and_hard(name):
    """Seat 0 watches seat 1: easy is recognised in most deals and never contradicts the
    model; normal and hard are never taken for easy."""
    mems = {}
    for game, seat, obs, hist in _games(_seated(name), 16, 30):
        if seat == 0:
            track(obs, hist, mems.setdefault(game.deal, np.zeros(K_SIZE, np.int64)))
    easy = sum(bool(opponent_is_easy(km)) for km in mems.values())
    if name == "easy":
        assert easy >= 25 and all(km[K_NOT_EASY] == 0 for km in mems.values())
    else:
        assert easy == 0 and all(km[K_NOT_NORMAL] == 0 for km in mems.values())


@pytest.mark.parametrize("facts", [0, 1])
def test_samples_deal_exactly_the_unseen_cards(facts):
    mems = {}
    n = 0
    for game, seat, obs, hist in _games(_random, 13, 30):
        km = mems.setdefault((game.deal, seat), np.zeros(K_SIZE, np.int64))
        track(obs, hist, km)
        if obs[O_STOCK] == 0:
            continue
        opp = 1 - seat
        pool = int(unseen_cards(obs))
        seen = (int(obs[O_HAND]) | int(obs[O_DISCARD]) | int(obs[O_TABLE_ATTACKS])
                | int(obs[O_TABLE_DEFENCES]) | int(obs[O_KNOWN + opp]) | 1 << int(obs[O_TRUMP_CARD]))
        assert pool == FULL_DECK & ~seen
        k = int(obs[O_STOCK])
        hidden_n = int(obs[O_HAND_SIZES + opp]) - bin(int(obs[O_KNOWN + opp])).count("1")
        for i in range(3):
            rng = np.array([seeding.stream_start(5, n, i)], np.uint64)
            stock = np.full(40, -1, np.int64)
            h = int(sample_deal(obs, km, rng, stock, facts))
            assert h >= 0 and h & seen == 0 and h & ~pool == 0       # only unseen cards
            assert bin(h).count("1") == hidden_n                     # the hand's size
            cards = [int(c) for c in stock[:k]]
            assert cards[-1] == obs[O_TRUMP_CARD]                    # the face-up trump last
            rest = cards[:-1]
            assert len(set(rest)) == len(rest) and all(pool >> c & 1 for c in rest)
            assert sum(1 << c for c in rest) | h == pool and not sum(1 << c for c in rest) & h
        n += 1
    assert n > 200


def test_samples_do_not_depend_on_the_hidden_cards():
    """R6: the same observation with the hidden cards dealt otherwise (the other hand and
    the stock permuted) gives the same memory, the same samples and the same decision."""
    strat = get_strategy("expert")
    checked = moved = 0
    for i, (game, seat, obs, hist) in enumerate(_games(_random, 14, 12)):
        if i % 4 or obs[O_STOCK] < 2:
            continue
        alt = game.permute_hidden(seat, random.Random(i))
        assert (alt.observation(seat) == obs).all()
        moved += _hidden_truth(alt, seat) != _hidden_truth(game, seat)
        outs = []
        for g in (game, alt):
            km = np.zeros(K_SIZE, np.int64)
            track(g.observation(seat), hist_for_strategy(g), km)
            rng = np.array([seeding.stream_start(14, i, 3)], np.uint64)
            stock = np.zeros(40, np.int64)
            hs = [int(sample_deal(g.observation(seat), km, rng, stock, 1))
                  for _ in range(4)]
            mem = np.zeros(strat.memory, np.int64)
            mem[0] = 1
            code = int(strat.decide(g.observation(seat), legal_array(g.legal_actions()),
                                    hist_for_strategy(g), rng, mem))
            outs.append((km.tolist(), hs, stock.tolist(), code, int(rng[0])))
        assert outs[0] == outs[1]
        checked += 1
    assert checked >= 10 and moved > checked // 2


@pytest.mark.parametrize("opp_easy", [0, 1])
def test_compact_rollout_plays_the_kernel_game(opp_easy):
    """``fast_rollout`` (scalars) and ``rollout`` (the kernel's state and engine, normal's
    decide) end every determinized position the same way, for every legal first action."""
    st = np.zeros(L.S_SIZE, np.int64)
    st2 = np.zeros(L.S_SIZE, np.int64)
    hist2 = np.zeros(X.ROLLOUT_HIST, np.int64)
    obs2 = np.zeros(64, np.int64)
    legal2 = np.zeros(256, np.int64)
    nmem = np.zeros(2 * X.NORMAL_MEMORY, np.int64)
    w = np.zeros(X.W_SIZE, np.int64)
    rng = np.array([7], np.uint64)
    mems = {}
    compared = set()
    n = 0
    for i, (game, seat, obs, hist) in enumerate(_games(_random, 15, 40)):
        km = mems.setdefault((game.deal, seat), np.zeros(K_SIZE, np.int64))
        track(obs, hist, km)
        if obs[O_STOCK] < 1 or i % 3:
            continue
        stock = np.zeros(40, np.int64)
        h = sample_deal(obs, km, rng, stock, 0)
        X.build_state(obs, h, stock, st)
        opp = 1 - seat
        u = obs[O_UNBEATEN] if obs[O_PHASE] == PHASE_DEFEND else -1
        for a in game.legal_actions():
            st2[:] = st
            hist2[0] = hist[-1]
            apply_action(st2, a, hist2)
            r1 = X.rollout(st2, hist2, obs2, legal2, nmem, rng, seat, opp_easy)
            w[:] = 0
            w[X.W_H + seat] = obs[O_HAND]
            w[X.W_H + opp] = obs[O_KNOWN + opp] | h
            w[X.W_K + seat] = obs[O_KNOWN + seat]
            w[X.W_K + opp] = obs[O_KNOWN + opp]
            r2 = X.fast_rollout(w, obs[O_DISCARD], obs[O_TABLE_ATTACKS],
                                obs[O_TABLE_DEFENCES], u, obs[O_N_ATTACKS], obs[O_BOUT_LIMIT],
                                obs[O_TAKING], obs[O_ATTACKER], obs[O_PHASE], stock, 0,
                                obs[O_STOCK], obs[O_TRUMP_SUIT], obs[O_TRUMP_CARD], seat, a,
                                opp_easy)
            assert r1 == r2, (game.deal, a)
            compared.add(int(r1))
            n += 1
    assert n > 1000 and compared >= {-1, 1}


def test_expert_is_legal_and_reproducible():
    # an illegal action raises; both seats, against each built-in level
    for other in ("random", "easy", "normal", "hard"):
        a = play_games(["expert", other], seed=31, deals=range(6), threads=1)
        b = play_games(["expert", other], seed=31, deals=range(6), threads=2)
        assert np.array_equal(a.results, b.results)
    r1 = play_games(["expert", "hard"], seed=32, deals=range(8), record=True)
    r2 = play_games(["expert", "hard"], seed=32, deals=range(8), record=True)
    assert list(r1.records()) == list(r2.records())


def test_expert_searches_before_the_endgame_and_advises():
    game = KernelGame.new(40, 3)
    rng = random.Random(3)
    while True:  # a position with a choice and a stock of two or more
        codes = game.legal_actions()
        if len(codes) > 1 and game.observation(game.to_move())[O_STOCK] >= 2:
            break
        game.apply(rng.choice(codes))
    seat = game.to_move()
    obs, legal, hist = game.observation(seat), legal_array(game.legal_actions()), \
        hist_for_strategy(game)
    state = seeding.stream_start(40, 3, 1 + seat)
    act, rows = X.expert_advice(obs, legal, hist, np.array([state], np.uint64))
    mem = np.zeros(X.MEMORY, np.int64)
    mem[0] = 1
    assert act == int(X.decide(obs, legal, hist, np.array([state], np.uint64), mem))
    assert [r[0] for r in rows] == game.legal_actions()
    base = int(mem[X.E_BASE])
    assert any(r[0] == base and r[1] == 0.0 for r in rows)
    assert mem[X.E_SEARCHED] == 1 and mem[X.E_ROLLOUTS] >= mem[X.E_DONE] > 0
    # each row's deals: the whole search for a move in the running, fewer for a dropped one
    # (its mean is over those alone: the sum of its gains over them)
    done = int(mem[X.E_DONE])
    for k, (code, mean, se, alive, deals) in enumerate(rows):
        assert (deals == done) if alive else (0 < deals <= done)
        assert mean * deals == pytest.approx(mem[X.E_SUM + k])


def test_expert_is_registered_for_every_table_with_its_own_default_game_decide():
    s = get_strategy("expert")
    assert s.plays == "all" and s.compiled and s.memory == X.MEMORY
    assert s.classic is X.decide_classic
    from durak_sim.rules import Rules

    assert s.supports(Rules()) and s.supports(Rules(players=3))
    assert s.supports(Rules(variant="teams", players=4))


def test_expert_benchmark_prints_json_lines():
    out = subprocess.run([sys.executable, str(BENCH / "bench_expert.py"), "time", "--games",
                          "2", "--kernel-deals", "2"], capture_output=True, text=True,
                         check=True).stdout
    line = json.loads(out)
    assert line["bench"] == "expert-time" and line["decisions"] > 0
    assert line["mean_ms"] > 0 and line["p99_ms"] >= line["p50_ms"] > 0
    assert line["search_decisions"] + line["endgame_decisions"] == line["decisions"]
    assert line["kernel_ms_per_decision"] > 0 and "compile_s" in line
    out = subprocess.run([sys.executable, str(BENCH / "bench_expert.py"), "budgets",
                          "--budgets", "expert-fast", "--deals", "3", "--timed-games", "1"],
                         capture_output=True, text=True, check=True).stdout
    line = json.loads(out)
    assert line["bench"] == "expert-budget" and line["strategy"] == "expert-fast"
    assert line["samples"] == X.FAST_SAMPLES and 0 <= line["score"] <= 1
    assert line["decisions"] > 0 and line["mean_ms"] > 0


@pytest.mark.slow
def test_expert_beats_hard():
    batch = play_games(["expert", "hard"], seed=2027, deals=range(1000))
    from durak_sim import stats

    pair = stats.pairing_table(batch.frame(), order=["expert", "hard"]).iloc[0]
    assert pair.elo_lo > 0


def test_solve_expert_advises_from_the_seat_s_view(tmp_path):
    """``solve --expert``: a position with a stock is advised from what the seat to move
    sees (a row per legal move, the other hand's cards never read: swapping them with the
    stock's hidden cards gives the same advice); an empty-stock one is still solved."""
    import json

    from click.testing import CliRunner

    from durak_sim.advise import advise, applies
    from durak_sim.cli import main as cli
    from durak_sim.position import Position

    base = {"format": "durak-sim/position/1", "trump": "D", "attacker": 0, "table": [],
            "taking": False, "bout_limit": None}
    mine = ["6S", "KD", "9H", "7C", "QS", "AH"]
    a = dict(base, hands=[mine, ["TS", "7D", "8H", "JC", "6C", "9S"]],
             stock=["8S", "TC", "JH", "6D"])
    b = dict(base, hands=[mine, ["8S", "TC", "JH", "JC", "6C", "9S"]],
             stock=["TS", "7D", "8H", "6D"])
    end = dict(base, hands=[["6S", "KD", "9H"], ["TS", "7D"]], stock=[])
    pa, pb, pe = (Position.from_dict(d) for d in (a, b, end))
    assert applies(pa) and not applies(pe)
    assert advise(pa, seed=3) == advise(pb, seed=3)
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in (a, end)) + "\n")
    res = CliRunner().invoke(cli, ["solve", "--expert", "--json", str(path)])
    assert res.exit_code == 0, res.output
    first, second = (json.loads(x) for x in res.stdout.strip().splitlines())
    assert first["advisor"] == "expert" and len(first["moves"]) == 6
    assert all(0 < m["deals"] <= max(n["deals"] for n in first["moves"]) for m in first["moves"])
    # hard's choice, the baseline, is marked (a QA finding: with every gain 0 the JSON did
    # not say which move it was)
    base = [m for m in first["moves"] if m["hard"]]
    assert len(base) == 1 and base[0]["gain"] == 0 and base[0]["se"] == 0 \
        and base[0]["in_running"]
    assert second["value"] == -1
    # the cards known to be in the other hand (R6.1) reach expert's view
    from durak_sim.cards import cards_mask, parse_card
    from durak_sim.observation import O_KNOWN
    from durak_sim.reference import ReferenceGame

    pk = Position.from_dict(dict(a, known=[[], ["TS", "7D"]]))
    assert pk.to_dict()["known"] == [[], ["7D", "TS"]]
    assert Position.from_dict(pk.to_dict()) == pk
    obs = ReferenceGame.from_position(pk.to_dict()).observation(0)
    assert obs[O_KNOWN + 1] == cards_mask([parse_card("TS"), parse_card("7D")])
