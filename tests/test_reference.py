"""Whole games on every engine (termination, card accounting, results) and the reference
engine's ``play`` / ``replay`` with registered and plain-Python strategies."""
import random
from types import SimpleNamespace

import numpy as np
import pytest

from durak_sim import seeding
from durak_sim.actions import LEGAL_SIZE, unpack_history
from durak_sim.observation import (
    O_ATTACKER, O_BOUTS, O_DEFENDER, O_DISCARD, O_HAND, O_HAND_SIZES, O_KNOWN, O_N_HIST,
    O_PLAYERS, O_SEAT, O_SEEN, O_STOCK, O_TABLE_ATTACKS, O_TABLE_DEFENCES, OBS_SIZE,
)
from durak_sim.reference import IllegalActionError, ReferenceGame, perft, play, replay
from durak_sim.registry import get_strategy


def check_cards_accounted(game):
    """hands + stock + table + discard hold the 36 cards once (via the public API)."""
    o0, o1 = game.observation(0), game.observation(1)
    h0, h1 = int(o0[O_HAND]), int(o1[O_HAND])
    table = int(o0[O_TABLE_ATTACKS]) | int(o0[O_TABLE_DEFENCES])
    discard = int(o0[O_DISCARD])
    parts = [h0, h1, int(o0[O_TABLE_ATTACKS]), int(o0[O_TABLE_DEFENCES]), discard]
    assert sum(p.bit_count() for p in parts) == (h0 | h1 | table | discard).bit_count()
    assert (h0 | h1 | table | discard).bit_count() + int(o0[O_STOCK]) == 36
    assert [o0[O_HAND_SIZES], o0[O_HAND_SIZES + 1]] == [h0.bit_count(), h1.bit_count()]
    assert int(o0[O_SEEN]) & (table | discard) == table | discard
    for s, h in ((0, h0), (1, h1)):
        assert int(o0[O_KNOWN + s]) & ~h == 0  # known cards are still in that hand
    for o in (o0, o1):
        assert o.shape == (OBS_SIZE,) and o.dtype == np.int64
        assert o[O_PLAYERS] == 2 and o[19] == 0
        assert not o[O_HAND_SIZES + 2:O_HAND_SIZES + 6].any()
        assert not o[O_KNOWN + 2:O_KNOWN + 6].any()
        assert o[O_DEFENDER] == 1 - o[O_ATTACKER]


def test_random_games_terminate_and_account_for_cards(engine, playout):
    rng = random.Random(2024)
    for deal in range(25):
        game = playout(engine.new(31337, deal), rng, visit=check_cards_accounted)
        res = game.result()
        assert res["outcome"] in ("durak", "draw")
        if res["outcome"] == "draw":
            assert res["durak"] is None and sorted(res["out_order"]) == [0, 1]
        else:
            assert res["out_order"] == [1 - res["durak"]]
        assert res["bouts"] == game.observation(0)[O_BOUTS] > 0
        assert game.to_move() is None and game.legal_actions() == []
        assert game.observation(0)[O_STOCK] == 0
        assert game.observation(0)[O_N_HIST] == len(game.history)
        assert [unpack_history(int(e)) for e in game.history_array()] == \
            [tuple(int(x) for x in h) for h in game.history]


def test_illegal_apply_raises(engine):
    game = engine.new(5, 5)
    legal = game.legal_actions()
    bad = next(c for c in range(110) if c not in legal)
    with pytest.raises(IllegalActionError):
        game.apply(bad)
    assert game.legal_actions() == legal  # nothing changed


def test_copy_is_independent(engine):
    game = engine.new(8, 1)
    before = game.observation(0).copy()
    child = game.copy()
    child.apply(child.legal_actions()[0])
    assert (game.observation(0) == before).all() and len(game.history) == 0
    assert len(child.history) == 1


def test_same_deal_same_game(engine):
    a, b = engine.new(99, 3), engine.new(99, 3)
    rng_a, rng_b = random.Random(1), random.Random(1)
    while not a.is_over():
        assert (a.observation() == b.observation()).all()
        assert a.legal_actions() == b.legal_actions()
        a.apply(rng_a.choice(a.legal_actions()))
        b.apply(rng_b.choice(b.legal_actions()))
    assert a.result() == b.result()


def test_perft_start_counts_open_cards(engine):
    game = engine.new(42, 7)
    assert perft(game, 0) == 1 and perft(game, 1) == 6


# ---------------------------------------------------------------- play / replay
@pytest.mark.parametrize("seats", [("random", "random"), ("easy", "random"), ("random", "easy"),
                                   ("easy", "easy")])
def test_play_replay_round_trip(seats):
    for deal in range(8):
        rec = play(123, deal, [get_strategy(s) for s in seats])
        assert rec["seats"] == list(seats)
        assert replay(rec) == rec["result"]
        assert rec == play(123, deal, list(seats))  # names resolve; same seed, same game


def test_easy_beats_random_mostly():
    losses = [play(7, d, ["easy", "random"])["result"]["durak"] for d in range(40)]
    assert losses.count(1) > 30


def _python_random(obs, legal, hist, rng, mem):
    """The ``random`` strategy in plain Python on the same stream contract."""
    stream = seeding.Stream(int(rng[0]))
    pick = stream.below(int(legal[0]))
    rng[0] = np.uint64(stream.state)
    return legal[1 + pick]


def test_plain_python_strategy_matches_compiled():
    py = SimpleNamespace(name="random", decide=_python_random, memory=1, reset=1)
    for deal in range(5):
        assert play(11, deal, [py, py]) == play(11, deal, ["random", "random"])


def test_strategy_call_contract():
    calls = []

    def decide(obs, legal, hist, rng, mem):
        calls.append((obs.copy(), int(mem[0]), mem[1:].copy(), len(hist), hist.dtype))
        assert legal.shape == (LEGAL_SIZE,) and legal[0] >= 2  # forced moves are not asked
        assert list(legal[1:legal[0] + 1]) == sorted(legal[1:legal[0] + 1])
        assert not legal[legal[0] + 1:].any()
        assert rng.dtype == np.uint64 and rng.shape == (1,)
        mem[1:] += 1
        return legal[1]

    strat = SimpleNamespace(name="probe", decide=decide, memory=4, reset=2)
    play(3, 4, [strat, strat])
    assert calls
    obs0, stamp, rest, n_hist, dtype = calls[0]
    assert stamp == 1 and list(rest) == [0, 0, 0] and n_hist >= 1 and dtype == np.int64
    for obs, _, _, n_hist, _ in calls:
        assert n_hist >= max(1, obs[O_N_HIST])
    assert all(c[0][O_SEAT] in (0, 1) for c in calls)


def test_illegal_strategy_names_strategy_seed_deal():
    def opens_with_stop(obs, legal, hist, rng, mem):
        return 73  # stop: never legal when opening

    bad = SimpleNamespace(name="cheater", decide=opens_with_stop, memory=1, reset=1)
    with pytest.raises(IllegalActionError, match=r"'cheater'.*73.*seed 17 deal 2"):
        play(17, 2, [bad, bad])


def test_new_matches_seeding():
    game = ReferenceGame.new(42, 7)
    hands, stock = seeding.deal_cards(42, 7)
    assert game.hands_dealt == hands and game.stock_dealt == stock
