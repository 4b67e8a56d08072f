"""R6 and R10.1 (what a player, and so an AI, may know): shuffling the cards a seat cannot
see between the other hand and the stock changes nothing that seat observes, and no
registered strategy decides differently. Positions come from random games on every engine."""
import random

import numpy as np
import pytest

from durak_sim import seeding
from durak_sim.observation import O_HAND, O_HAND_SIZES, O_KNOWN, O_STOCK, O_TRUMP_CARD
from durak_sim.reference import hist_for_strategy, legal_array
from durak_sim.registry import get_strategy, strategy_names

N_GAMES = 6
PERMUTATIONS = 2


def _positions(engine, seed=606):
    """Every position of a few random games where the mover has a real choice."""
    rng = random.Random(seed)
    for deal in range(N_GAMES):
        game = engine.new(seed, deal)
        while not game.is_over():
            if len(game.legal_actions()) > 1:
                yield deal, game.copy()
            game.apply(rng.choice(game.legal_actions()))


def test_R6_2_permuting_hidden_cards_keeps_observation(engine):
    changed = checked = 0
    for deal, game in _positions(engine):
        seat = game.to_move()
        other = 1 - seat
        obs = game.observation(seat)
        theirs = game.observation(other)
        for k in range(PERMUTATIONS):
            alt = game.permute_hidden(seat, random.Random(deal * 1000 + k))
            assert (alt.observation(seat) == obs).all()
            assert alt.legal_actions() == game.legal_actions()
            assert alt.to_move() == seat
            alt_theirs = alt.observation(other)
            # sizes, the other's known cards and the face-up trump stay put
            assert alt_theirs[O_HAND_SIZES + other] == theirs[O_HAND_SIZES + other]
            assert alt_theirs[O_STOCK] == theirs[O_STOCK]
            known = int(theirs[O_KNOWN + other])
            assert int(alt_theirs[O_HAND]) & known == known
            assert alt_theirs[O_TRUMP_CARD] == theirs[O_TRUMP_CARD]
            changed += int(alt_theirs[O_HAND]) != int(theirs[O_HAND])
            checked += 1
    assert checked > 100 and changed > checked // 4  # the test is not vacuous


@pytest.mark.parametrize("name", strategy_names())
def test_R6_2_strategies_cannot_tell_permuted_positions_apart(engine, name):
    strat = get_strategy(name)
    for i, (deal, game) in enumerate(_positions(engine, seed=707)):
        if i % 3:
            continue  # a third of the positions is plenty
        seat = game.to_move()
        alt = game.permute_hidden(seat, random.Random(i))
        state = seeding.stream_start(707, deal, 1 + seat)
        mem = np.zeros(strat.memory, dtype=np.int64)
        mem[0] = 1
        actions = []
        for g in (game, alt):
            rng = np.array([state], dtype=np.uint64)
            m = mem.copy()
            code = int(strat.decide(g.observation(seat), legal_array(g.legal_actions()),
                                    hist_for_strategy(g), rng, m))
            actions.append((code, int(rng[0]), m.tolist()))
        assert actions[0] == actions[1], f"{name} at deal {deal}, position {i}"
        assert actions[0][0] in game.legal_actions()
