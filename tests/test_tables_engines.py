"""The two engines, state by state (OpenSpiel style): the numba kernel (``KernelGame``) and the
pure-Python reference engine (``ReferenceGame``), written apart from docs/rules.md, play the
same random playouts at every table of every named ruleset (teams: four and six players),
first deals and later deals of a series (R9.1, E13). At every step both must give the same
seat to move, the same legal actions and the same observation for every seat (R6, E1-E13);
at the end the same result and history. The kernel's records replay on the reference engine.
The default run plays a few deals a table; ``pytest -m slow`` plays many more.
"""
import random

import numpy as np
import pytest

from durak_sim.actions import action_str
from durak_sim.kernel.game import KernelGame
from durak_sim.observation import OBS_SIZE
from durak_sim.play import play_games, play_series
from durak_sim.reference import ReferenceGame, replay
from durak_sim.rules import VARIANTS, Rules
from durak_sim.seeding import series_streams


def tables():
    for name in VARIANTS:
        for players in ((4, 6) if name == "teams" else range(2, 7)):
            yield name, players


TABLES = list(tables())
IDS = [f"{name}-{players}p" for name, players in TABLES]


def _obs_diff(a: np.ndarray, b: np.ndarray) -> list:
    return [(i, int(a[i]), int(b[i])) for i in range(OBS_SIZE) if a[i] != b[i]]


def compare(rules: Rules, seed: int, deal: int, rng: random.Random, *, stream: int = 0,
            dealer: int | None = None) -> int:
    """One random playout on both engines, checked state by state; returns its length."""
    kern = KernelGame.new(seed, deal, rules, stream=stream, dealer=dealer)
    ref = ReferenceGame.new(seed, deal, rules, stream=stream, dealer=dealer)
    assert kern.first_attacker == ref.first_attacker and kern.dealer == ref.dealer
    assert [list(h) for h in kern.hands_dealt] == ref.hands_dealt
    assert list(kern.stock_dealt) == ref.stock_dealt
    steps = 0
    while True:
        where = f"{rules.tag} seed {seed} deal {deal} stream {stream} dealer {dealer} " \
                f"step {steps}"
        assert kern.is_over() == ref.is_over(), where
        assert kern.to_move() == ref.to_move(), where
        legal = ref.legal_actions()
        assert kern.legal_actions() == legal, \
            f"{where}: {[action_str(a) for a in kern.legal_actions()]} (kernel) != " \
            f"{[action_str(a) for a in legal]} (reference)"
        for seat in range(rules.players):
            ko, ro = kern.observation(seat), ref.observation(seat)
            assert ko.dtype == ro.dtype == np.int64 and ko.shape == ro.shape == (OBS_SIZE,)
            assert (ko == ro).all(), \
                f"{where} seat {seat}: (entry, kernel, reference) {_obs_diff(ko, ro)}"
        if ref.is_over():
            break
        code = rng.choice(legal)
        kern.apply(code)
        ref.apply(code)
        steps += 1
    assert kern.result() == ref.result(), where
    assert [tuple(int(x) for x in h) for h in kern.history] == ref.history, where
    assert (kern.history_array() == ref.history_array()).all(), where
    return steps


def check_table(name: str, players: int, deals: int, series_deals: int, seed: int) -> None:
    rules = Rules(variant=name, players=players)
    rng = random.Random(seed * 100 + players)
    for deal in range(deals):
        assert compare(rules, seed, deal, rng) > 0
    for k in range(1, series_deals + 1):          # later deals of a series (R9.1, E13)
        stream, _ = series_streams(k)
        compare(rules, seed, 1000 + k, rng, stream=stream, dealer=(k * 5) % players)


@pytest.mark.parametrize("name,players", TABLES, ids=IDS)
def test_engines_agree_state_by_state(name, players):
    check_table(name, players, deals=12, series_deals=5, seed=41)


@pytest.mark.slow
@pytest.mark.parametrize("name,players", TABLES, ids=IDS)
def test_engines_agree_state_by_state_deep(name, players):
    check_table(name, players, deals=300, series_deals=60, seed=43)


def test_the_first_deal_of_a_series_is_a_first_deal():
    """Deal 0 of a series (dealer None) deals as R2.1 says, swap included (E8, E13)."""
    rules = Rules(variant="podkidnoy-full", players=3)
    stream, _ = series_streams(0)
    rng = random.Random(5)
    for j in range(5):
        compare(rules, 17, j, rng, stream=stream)


@pytest.mark.parametrize("name,players", [("podkidnoy", 5), ("perevodnoy", 3), ("prostoy", 4),
                                          ("teams", 6), ("podkidnoy-full", 2)])
def test_kernel_records_replay_on_the_reference_engine(name, players):
    rules = Rules(variant=name, players=players)
    seats = [("easy", "random")[s % 2] for s in range(players)]
    batch = play_games(seats, seed=77, deals=range(12), swap=False, rules=rules, threads=1,
                       record=True)
    recs = list(batch.records())
    batch = play_series(seats, seed=78, series=range(2), deals=3, rules=rules, threads=1,
                        record=True)
    recs += list(batch.records())
    assert len(recs) == 18
    for rec in recs:
        assert replay(rec) == rec["result"]
