"""The throw-in game's loop (durak_sim/kernel/throw_in.py) shows a strategy the state the
general engine shows it, at every decision of every table it plays: a probe strategy whose
choice depends on every entry of its observation and of the public history plays the same
games on the kernel and on the reference engine. And the n-th card of a mask, which
``random`` is asked by there, is the same on every CPU path."""
import numba
import numpy as np
import pytest

from durak_sim import registry
from durak_sim.kernel.bits import nth_bit, nth_bit_loop
from durak_sim.kernel.config import STRATEGY_SIGNATURE
from durak_sim.observation import O_N_HIST
from durak_sim.play import play_games
from durak_sim.records import dumps
from durak_sim.reference import play
from durak_sim.rules import Rules

TABLES = [("podkidnoy", p) for p in range(2, 7)] + [("teams", 4), ("teams", 6)]


@numba.njit(STRATEGY_SIGNATURE, cache=False)
def probe(obs, legal, hist, rng, mem):
    """A legal action picked by an FNV-1a digest of the observation and the history."""
    h = np.uint64(14695981039346656037)
    for i in range(obs.shape[0]):
        h = (h ^ np.uint64(obs[i])) * np.uint64(1099511628211)
    for i in range(obs[O_N_HIST]):
        h = (h ^ np.uint64(hist[i])) * np.uint64(1099511628211)
    return legal[1 + np.int64(h >> np.uint64(33)) % legal[0]]


@pytest.fixture
def probe_strategy():
    registry.register_strategy("probe-obs", probe, description="test probe", plays="all")
    yield "probe-obs"
    registry._REGISTRY.pop("probe-obs", None)


@pytest.mark.parametrize("name,players", TABLES, ids=[f"{n}-{p}p" for n, p in TABLES])
def test_observations_are_the_general_engines(probe_strategy, name, players):
    rules = Rules(variant=name, players=players)
    for k in range(2):
        seats = [(probe_strategy, "random", "easy")[(s + k) % 3] for s in range(players)]
        batch = play_games(seats, seed=4100 + players, deals=range(40), swap=False,
                           rules=rules, threads=1, record=True)
        for rec in batch.records():
            ref = play(4100 + players, rec["deal"], seats, rules)
            assert dumps(rec) == dumps(ref), f"{rules.tag} seats {seats} deal {rec['deal']}"


def test_nth_bit_on_every_path():
    rng = np.random.default_rng(5)
    for _ in range(2000):
        mask = int(rng.integers(1, 1 << 36))
        cards = [c for c in range(36) if mask >> c & 1]
        r = int(rng.integers(0, len(cards)))
        assert nth_bit(np.int64(mask), np.int64(r)) == cards[r]
        assert nth_bit_loop(np.int64(mask), np.int64(r)) == cards[r]
