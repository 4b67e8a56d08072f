"""Every registered strategy: legal actions only, same seed => same play, and the built-in
levels ordered as RULES.md R10 says."""
import numpy as np
import pytest

from durak_sim import stats
from durak_sim.play import play_games
from durak_sim.registry import builtin_levels, get_strategy, strategy_names


#: the strategies registered when the tests are collected (the built-ins, installed packages;
#: not what other tests register as they run, nor the ``test-`` helpers their modules
#: register on import)
NAMES = [n for n in strategy_names() if not n.startswith("test-")]


@pytest.mark.parametrize("name", NAMES)
def test_strategy_plays_legally_and_reproducibly(name):
    # an illegal action would raise; both seats, against every other registered strategy
    for other in NAMES:
        slow = "expert" in (name, other) or not (get_strategy(name).compiled and
                                                 get_strategy(other).compiled)
        deals = range(8 if slow else 30)   # (expert's games cost ~50 ms, plain Python's ~3)
        a = play_games([name, other], seed=99, deals=deals)
        b = play_games([name, other], seed=99, deals=deals)
        assert np.array_equal(a.results, b.results)


def test_random_strategy_draws_from_its_own_stream():
    a = play_games(["random", "random"], seed=1, deals=range(200), swap=False)
    b = play_games(["random", "random"], seed=2, deals=range(200), swap=False)
    assert not np.array_equal(a.results, b.results)


def test_easy_beats_random_clearly():
    games = play_games(["easy", "random"], seed=2026, deals=range(3000)).frame()
    table = stats.strategy_table(games).set_index("strategy")
    assert table.loc["easy", "win_lo"] > 0.5


def test_builtin_levels_are_registered_in_order():
    levels = builtin_levels()
    assert levels[:2] == ["random", "easy"]
    for name in levels:
        s = get_strategy(name)
        assert s.compiled and s.version >= 1 and s.description


def test_the_kernel_names_the_source_of_the_strategies_it_compiles_in():
    from durak_sim.kernel import batch

    assert batch.inlined_source() == batch.INLINED_SOURCE, \
        "strategies/random.py or easy.py changed: set INLINED_SOURCE in kernel/batch.py"
