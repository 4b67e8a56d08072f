"""Shared fixtures. ``ENGINES`` lists every game engine class with the ReferenceGame API
(``new``, ``from_position``, ``to_move``, ``legal_actions``, ``apply``, ``observation``,
``history_array``, ``is_over``, ``result``, ``history``, ``copy``, ``permute_hidden``);
engine-generic tests take the ``engine`` fixture and run once per class.

Tests marked ``slow`` are skipped unless the marker is selected (``pytest -m slow``).
"""
import os
import random
import signal
from pathlib import Path

import pytest

# Tests compare one kernel thread with two (determinism, resumes, stops). numba allows as
# many threads as the process may use cores, so on a machine with one such core the second
# thread is asked for (oversubscribed: the same results, a little slower), here before numba
# is imported (pyproject.toml's warning filters do not import it) and in the commands the
# tests start.
_cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
if "NUMBA_NUM_THREADS" not in os.environ and (_cores or 1) < 2:
    os.environ["NUMBA_NUM_THREADS"] = "2"

from durak_sim.kernel.game import KernelGame  # noqa: E402
from durak_sim.registry import load_builtins  # noqa: E402
from durak_sim.reference import ReferenceGame  # noqa: E402

# The CLI tests run ``python -m durak_sim.cli`` (and the benchmarks) in subprocesses: they
# must run the same durak_sim as these tests, which also shares one numba cache between both
# instead of compiling every kernel twice. Tests of a source tree (``python -m pytest`` from
# the repository, an editable install) give the subprocesses the source tree; tests of an
# installed copy (``pytest``, as the README says) keep a subprocess's own folder off its
# path (PYTHONSAFEPATH), which would otherwise put the repository's source tree first.
_ROOT = Path(__file__).resolve().parent.parent
if Path(__import__("durak_sim").__file__).resolve().parent.parent == _ROOT:
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(_ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
else:
    os.environ["PYTHONSAFEPATH"] = "1"

# Ctrl-C as at a terminal for the commands the tests start, whatever started the test run: a
# run started in the background (``&``, nohup, some CI runners) has SIGINT ignored or
# blocked, and a child inherits both, so the Ctrl-C tests would see no interrupt at all.
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

# the built-in strategies (``durak_sim.strategies``) importable by every test module, also
# when the tests run from a source tree whose package is installed elsewhere (CI)
load_builtins()

ENGINES = [ReferenceGame, KernelGame]


@pytest.fixture(params=ENGINES, ids=lambda cls: cls.__name__)
def engine(request):
    return request.param


def pytest_collection_modifyitems(config, items):
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def random_playout(game, rng: random.Random, visit=None, max_plies: int = 2000):
    """Play ``game`` to the end with uniformly random legal actions (Python ``rng``);
    ``visit(game)`` is called before every action and once at the end. Returns the game."""
    for _ in range(max_plies):
        if visit is not None:
            visit(game)
        if game.is_over():
            return game
        game.apply(rng.choice(game.legal_actions()))
    raise AssertionError(f"no end after {max_plies} plies")


@pytest.fixture
def playout():
    return random_playout
