"""The numba kernel and the reference engine, written independently, must agree game by game:
identical game records (byte for byte) for >= 10,000 games across strategy pairs, and every
record the kernel writes must replay through the reference engine to the same result."""
import itertools

import pytest

from durak_sim.play import play_games
from durak_sim.records import dumps
from durak_sim.reference import play, replay
from durak_sim.registry import builtin_levels, default_field

PAIRS = [("random", "random"), ("easy", "random"), ("random", "easy"), ("easy", "easy")]
GAMES_PER_PAIR = 2_500  # 4 pairs x 2,500 = 10,000 games


@pytest.mark.parametrize("pair", PAIRS, ids=",".join)
def test_kernel_records_equal_reference_records(pair):
    batch = play_games(list(pair), seed=20261129, deals=range(1000, 1000 + GAMES_PER_PAIR),
                       swap=False, record=True)
    n = 0
    for rec in batch.records():
        ref = play(rec["seed"], rec["deal"], rec["seats"])
        assert dumps(rec) == dumps(ref), f"deal {rec['deal']} differs"
        n += 1
    assert n == GAMES_PER_PAIR


def _replays(pairs):
    for a, b in pairs:
        deals = range(10 if "expert" in (a, b) else 60)   # (an expert game costs ~50 ms)
        batch = play_games([a, b], seed=7, deals=deals, swap=True, record=True)
        for rec in batch.records():
            assert replay(rec) == rec["result"]


def test_every_kernel_record_replays_on_the_reference_engine():
    """Every two levels of the default field (each in both seats: the deals are played
    seat-swapped), in the order of the default tournament's pairings, whose compiled kernels
    it shares; expert's line-ups (each a kernel compile) in the slow test below and in
    test_strategies.py."""
    _replays(itertools.combinations(default_field(), 2))


@pytest.mark.slow
def test_every_ordered_line_up_replays_on_the_reference_engine():
    """Every ordered line-up, self-play included (each compiles a kernel of its own)."""
    _replays(itertools.product(builtin_levels(), repeat=2))


def test_kernel_results_match_records():
    batch = play_games(["easy", "random"], seed=3, deals=range(200), record=True)
    frame = batch.frame()
    for (i, row), rec in zip(frame.iterrows(), batch.records()):
        assert row.deal == rec["deal"] and [row.seat0, row.seat1] == rec["seats"]
        assert row.outcome == rec["result"]["outcome"]
        assert row.bouts == rec["result"]["bouts"]
        assert row.first_attacker == rec["first_attacker"]
