"""R6 (what a player may know) at every table: for every named variant at two, three, four and
six players (teams: four and six), at positions of random playouts, shuffling the cards the
mover cannot see (the other hands' unrevealed cards and the stock but its face-up card) changes
nothing it observes nor its legal actions, and no registered strategy that plays the ruleset
decides differently. tests/test_observation_r6.py does the same for the two-player default
game with more positions."""
import random

import numpy as np
import pytest

from durak_sim import seeding
from durak_sim.observation import (
    O_HAND, O_HAND_SIZES, O_KNOWN, O_PLAYERS, O_STOCK, O_TRUMP_CARD,
)
from durak_sim.reference import hist_for_strategy, legal_array
from durak_sim.registry import get_strategy, strategy_names
from durak_sim.rules import VARIANTS, Rules

N_GAMES = 3
EVERY = 3          # one position in three where the mover has a choice
PERMUTATIONS = 2
#: strategies that search every decision at these tables: asked at fewer positions
SEARCHING = ("expert",)


def tables():
    for name in VARIANTS:
        for players in ((4, 6) if name == "teams" else (2, 3, 4, 6)):
            yield Rules(variant=name, players=players)


TABLES = list(tables())
IDS = [r.tag for r in TABLES]


def positions(engine, rules, seed):
    """Copies of positions of a few random games where the mover has a real choice."""
    rng = random.Random(seed)
    k = 0
    for deal in range(N_GAMES):
        game = engine.new(seed, deal, rules)
        while not game.is_over():
            legal = game.legal_actions()
            if len(legal) > 1:
                k += 1
                if k % EVERY == 0:
                    yield deal, game.copy()
            game.apply(rng.choice(legal))


@pytest.mark.parametrize("rules", TABLES, ids=IDS)
def test_R6_2_permuting_hidden_cards_keeps_observation_at_every_table(engine, rules):
    n = rules.players
    checked = changed = 0
    for deal, game in positions(engine, rules, 600 + n):
        seat = game.to_move()
        seen = game.observation(seat)
        legal = game.legal_actions()
        theirs = {t: game.observation(t) for t in range(n) if t != seat}
        assert seen[O_PLAYERS] == n
        for k in range(PERMUTATIONS):
            alt = game.permute_hidden(seat, random.Random(deal * 1000 + checked * 7 + k))
            assert (alt.observation(seat) == seen).all()
            assert alt.legal_actions() == legal and alt.to_move() == seat
            moved = False
            for t, o in theirs.items():
                a = alt.observation(t)
                # sizes, the known cards and the face-up trump stay put
                assert a[O_HAND_SIZES + t] == o[O_HAND_SIZES + t]
                assert a[O_STOCK] == o[O_STOCK] and a[O_TRUMP_CARD] == o[O_TRUMP_CARD]
                known = int(o[O_KNOWN + t])
                assert int(a[O_HAND]) & known == known
                assert int(a[O_HAND]) & int(seen[O_HAND]) == 0   # never the mover's cards
                moved |= int(a[O_HAND]) != int(o[O_HAND])
            changed += moved
            checked += 1
    # the test is not vacuous: there were positions, and hidden cards did move
    assert checked >= 20, checked
    assert changed > checked // 4, (changed, checked)


def cases():
    for rules, tag in zip(TABLES, IDS):
        for name in strategy_names():
            if get_strategy(name).supports(rules):
                yield pytest.param(rules, name, id=f"{tag}-{name}")


@pytest.mark.parametrize("rules,name", list(cases()))
def test_R6_2_strategies_cannot_tell_permuted_positions_apart_at_every_table(engine, rules,
                                                                             name):
    strat = get_strategy(name)
    n = rules.players
    seed = 700 + n
    asked = moved = 0
    for i, (deal, game) in enumerate(positions(engine, rules, seed)):
        if name in SEARCHING and asked >= 20:   # (a searched decision costs ~50-300 ms)
            break
        seat = game.to_move()
        alt = game.permute_hidden(seat, random.Random(i))
        moved += any(int(alt.observation(t)[O_HAND]) != int(game.observation(t)[O_HAND])
                     for t in range(n) if t != seat)
        state = seeding.stream_start(seed, deal, 1 + seat)
        mem = np.zeros(strat.memory, dtype=np.int64)
        mem[0] = 1
        actions = []
        for g in (game, alt):
            rng = np.array([state], dtype=np.uint64)
            m = mem.copy()
            code = int(strat.decide(g.observation(seat), legal_array(g.legal_actions()),
                                    hist_for_strategy(g), rng, m))
            actions.append((code, int(rng[0]), m.tolist()))
        assert actions[0] == actions[1], f"{name} at {rules.tag} deal {deal}, position {i}"
        assert actions[0][0] in game.legal_actions()
        asked += 1
    assert asked >= 20 and moved > asked // 4, (asked, moved)
