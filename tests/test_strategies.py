"""Every registered strategy: legal actions only, same seed => same play, and the built-in
levels ordered as docs/rules.md R10 says."""
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


def test_threads_of_a_fresh_process_see_the_whole_registry():
    """Four threads asking for a strategy at once in a new interpreter (a fresh dask
    worker): each waits until every built-in has registered (three of four found an empty
    registry when the first one only marked the loading as begun)."""
    import subprocess
    import sys

    script = (
        "import threading\n"
        "from durak_sim import registry\n"
        "errs = []\n"
        "def ask():\n"
        "    try:\n"
        "        registry.get_strategy('random')\n"
        "    except Exception as e:\n"
        "        errs.append(str(e))\n"
        "ts = [threading.Thread(target=ask) for _ in range(4)]\n"
        "[t.start() for t in ts]\n"
        "[t.join() for t in ts]\n"
        "print(len(errs), errs[:1])\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "0 []", out.stdout + out.stderr


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


PLUGIN_TWICE = """\
from durak_sim.registry import register_strategy


def decide(obs, legal, hist, rng, mem):
    return legal[1]


def decide2(obs, legal, hist, rng, mem):
    return legal[legal[0]]


register_strategy("test-twice", decide, plays="all")
register_strategy("test-twice", SECOND, plays="all")
"""


def _forget(*names):
    from durak_sim import registry

    for name in names:
        registry._REGISTRY.pop(name, None)
    for alias in [a for a, n in registry._ALIASES.items() if n in names or a in names]:
        del registry._ALIASES[alias]


def test_a_name_registered_twice_is_refused_unless_it_is_the_same_registration(tmp_path):
    """Another ``decide`` (or other settings, or the same code in another file) under a
    name already registered is refused in one line naming the strategy and the file; the
    same registration again (a plugin loaded twice, as ``tournament`` does, or by another
    path to the same file) is accepted."""
    from durak_sim.registry import StrategyError, load_plugin, register_strategy

    twice = tmp_path / "twice_plugin.py"
    twice.write_text(PLUGIN_TWICE.replace("SECOND", "decide2"))
    same = tmp_path / "same_plugin.py"
    same.write_text(PLUGIN_TWICE.replace("test-twice", "test-same").replace("SECOND", "decide"))
    try:
        with pytest.raises(StrategyError) as err:
            load_plugin(str(twice))
        msg = str(err.value)
        assert "\n" not in msg and "strategy 'test-twice' is registered twice" in msg
        assert f"decide at {twice}:4, then decide2 at {twice}:8" in msg, msg
        assert get_strategy("test-twice").fn.__name__ == "decide"   # the first one stays
        for _ in range(2):
            load_plugin(str(same))
        first = get_strategy("test-same")
        (tmp_path / "link").symlink_to(tmp_path)
        load_plugin(str(tmp_path / "link" / same.name))   # the same file by another path
        assert get_strategy("test-same").fn.__code__ == first.fn.__code__
        other = tmp_path / "other" / same.name   # the same code in another file
        other.parent.mkdir()
        other.write_text(same.read_text())
        with pytest.raises(StrategyError, match=f"then decide at {other}:4"):
            load_plugin(str(other))
        with pytest.raises(StrategyError, match="'test-same' is registered twice"):
            register_strategy("test-same", first.fn, version=2, plays="all")
        with pytest.raises(StrategyError, match="'test-same' is registered twice"):
            register_strategy("test-same", first.fn, plays="classic")
        # an alias of another strategy of the same module, or a name that is one
        register_strategy("test-a", first.fn, aliases=("test-al",))
        register_strategy("test-a", first.fn, aliases=("test-al",))
        for name, aliases in (("test-b", ("test-al",)), ("test-al", ())):
            with pytest.raises(StrategyError, match="'test-al' is taken by 'test-a' of "):
                register_strategy(name, first.fn, aliases=aliases)
        assert get_strategy("test-al").name == "test-a"
    finally:
        _forget("test-twice", "test-same", "test-a", "test-b", "test-al")


def test_the_workspace_a_strategy_may_register_is_bounded():
    from durak_sim.registry import MAX_MEMORY, StrategyError, register_strategy
    from durak_sim.strategies.random import decide

    assert MAX_MEMORY == 4_194_304 and all(get_strategy(n).memory <= MAX_MEMORY for n in NAMES)
    try:
        for memory in (10**12, MAX_MEMORY + 1, 0):
            with pytest.raises(StrategyError, match=r"'test-mem': memory must be 1 to "
                                                    r"4,194,304 int64 words \(32 MiB a seat\)"):
                register_strategy("test-mem", decide, memory=memory)
        for memory in (1.5, "10", True, None):
            with pytest.raises(StrategyError, match="memory must be an integer"):
                register_strategy("test-mem", decide, memory=memory)
        with pytest.raises(StrategyError, match="need 1 <= reset <= memory"):
            register_strategy("test-mem", decide, memory=2, reset=3)
        assert register_strategy("test-mem", decide, memory=MAX_MEMORY).memory == MAX_MEMORY
    finally:
        _forget("test-mem")


#: (file, its text or None: not written, words of the one-line error)
CANNOT_LOAD = [
    ("exits.py", "import sys; sys.exit(0)\n",
     ["cannot load plugin exits.py: it called sys.exit(0) on import"]),
    ("exits3.py", "import sys; sys.exit(3)\n", ["plugin exits3.py", "sys.exit(3)"]),
    ("raises.py", "raise RuntimeError()\n", ["cannot load plugin raises.py: RuntimeError"]),
    ("interrupts.py", "raise KeyboardInterrupt\n",
     ["cannot load plugin interrupts.py: it raised KeyboardInterrupt on import"]),
    ("notpy.txt", "not python\n", ["cannot load plugin notpy.txt: not a .py file",
                                   "--plugin takes a .py file or the name of an importable "
                                   "module"]),
    ("sub/notpy.txt", "not python\n", ["plugin sub/notpy.txt: not a .py file"]),
    ("adir/x.txt", "", ["cannot load plugin adir: a folder that is no importable package"]),
    ("nowhere_mod", None, ["cannot load plugin nowhere_mod: no module named 'nowhere_mod' "
                           "on Python's path (the current folder is on it only with "
                           "PYTHONPATH=.; or give a .py file) (--plugin takes"]),
    ("hog.py", "from durak_sim.registry import register_strategy\n"
               "from durak_sim.strategies.random import decide\n"
               "register_strategy('test-hog', decide, memory=10**12)\n",
     ["strategy 'test-hog': memory must be 1 to 4,194,304 int64 words"]),
    ("dupe.py", PLUGIN_TWICE.replace("test-twice", "test-dupe").replace("SECOND", "decide2"),
     ["strategy 'test-dupe' is registered twice", "dupe.py:8"]),
    ("upper.py", "from durak_sim.registry import register_strategy\n"
                 "from durak_sim.strategies.random import decide\n"
                 "register_strategy('Test-Upper', decide)\n",
     ["plugin upper.py: invalid strategy name 'Test-Upper': a name is lower-case letters"]),
]


@pytest.mark.parametrize("file, source, words", CANNOT_LOAD, ids=[c[0] for c in CANNOT_LOAD])
def test_a_plugin_that_cannot_load_is_one_line_naming_it(tmp_path, monkeypatch, file, source,
                                                          words):
    """A plugin that exits or raises on import, a file that is not Python, a folder, a module
    not found, a workspace beyond the bound, a name registered twice: one line, exit code 2,
    nothing played."""
    from cli_errors import assert_one_line_error, invoke

    monkeypatch.chdir(tmp_path)
    if source is not None:
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file).write_text(source)
    spec = file.split("/")[0] if file.startswith("adir/") else file
    try:
        proc = invoke("match", "easy", "random", "--deals", "10", "--plugin", spec)
    finally:
        _forget("test-hog", "test-dupe")
    assert_one_line_error(proc, *words)
    assert proc.stdout == ""


def test_a_plugin_that_does_not_compile_is_one_line_with_its_line_and_cause(tmp_path,
                                                                            monkeypatch):
    from cli_errors import assert_one_line_error, invoke

    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text(
        "import numba\n"
        "from durak_sim.registry import register_strategy\n"
        "@numba.njit\n"
        "def decide(obs, legal, hist, rng, mem):\n"
        "    return 'x' + legal[1]\n"
        "register_strategy('test-broken', decide)\n")
    try:
        proc = invoke("match", "test-broken", "random", "--deals", "10", "--plugin", "broken.py")
    finally:
        _forget("test-broken")
    assert_one_line_error(proc, "strategy 'test-broken' does not compile for the kernel: "
                                "TypingError at broken.py line 5: No implementation of function")


def test_r10_2_easy_plays_its_lowest_card_plain_before_trump():
    """R10.2: easy opens with its lowest plain card (before a lower trump), beats with the
    lowest card that beats, and takes only when nothing beats."""
    from durak_sim.actions import DEFEND, TAKE
    from durak_sim.cards import parse_card as c
    from durak_sim.reference import ReferenceGame, hist_for_strategy, legal_array

    easy = get_strategy("easy")

    def decide(hands, table=()):
        pos = {"format": "durak-sim/position/1", "trump": "AD", "hands": hands,
               "stock": ["9H", "QS", "9S", "TC", "AC", "AS", "KC", "8D", "JD", "AD"],
               "attacker": 0}
        if table:
            pos["table"] = [list(p) for p in table]
        g = ReferenceGame.from_position(pos)
        mem = np.zeros(max(easy.memory, 1), dtype=np.int64)
        mem[0] = 1
        codes = g.legal_actions()
        code = int(easy.decide(g.observation(g.to_move()), legal_array(codes),
                               hist_for_strategy(g), np.array([7], dtype=np.uint64), mem))
        assert code in codes
        return code

    assert decide([["6D", "8S", "QH", "7C"], ["7S", "9C", "TH", "KD"]]) == c("7C")
    assert decide([["JH", "6C"], ["KS", "8S", "9D", "QC"]], [("7S", None)]) == DEFEND + c("8S")
    assert decide([["JH", "6C"], ["6S", "9D", "QC"]], [("7S", None)]) == DEFEND + c("9D")
    assert decide([["JH", "6C"], ["6S", "QC"]], [("7S", None)]) == TAKE


def test_a_plugin_cached_under_its_other_name_says_so(tmp_path):
    """numba caches a plugin's compiled code beside it under the module name it was loaded
    as; loaded the other way (a module name against a .py file) the cache names a module
    that is not there. One line says so and what to do."""
    import os
    import subprocess
    import sys

    from cli_errors import assert_one_line_error

    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "cacheplug.py").write_text(
        "import numba\n"
        "from durak_sim.kernel.config import JIT, STRATEGY_SIGNATURE\n"
        "from durak_sim.registry import register_strategy\n\n"
        "@numba.njit(STRATEGY_SIGNATURE, **JIT)\n"
        "def decide(obs, legal, hist, rng, mem):\n"
        "    return legal[legal[0]]\n\n"
        "register_strategy('cachelast', decide, version=1, plays='all')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "p")}
    cli = [sys.executable, "-m", "durak_sim.cli", "match", "cachelast", "random", "--deals",
           "2", "--no-progress", "--plugin"]
    first = subprocess.run([*cli, str(tmp_path / "p" / "cacheplug.py")], env=env,
                           capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert_one_line_error(subprocess.run([*cli, "cacheplug"], env=env, capture_output=True,
                                         text=True), "numba's cache of it", "__pycache__")


def test_hard_plays_the_default_game_alike_with_its_classic_decide():
    """The kernel plays hard's ``classic`` decide in the two-player default game (it links
    only the default game's solver, so a first run compiles less): the same games, move for
    move, as hard's full ``decide``; every other table keeps the full one."""
    from dataclasses import replace

    from durak_sim.rules import Rules

    hard = get_strategy("hard")
    classic = hard.for_rules(Rules())
    assert classic.fn is hard.classic and classic.parts == ("solver",) and classic.specialised
    assert classic.ready_key == "hard:classic" and classic.compile_seconds < hard.compile_seconds
    for rules in (Rules(players=3), Rules(variant="perevodnoy"), Rules(lead_multiple=True)):
        assert hard.for_rules(rules) is hard
    full = replace(hard, classic=None)   # the same strategy without its classic decide
    deals = range(40)
    a = play_games(["hard", "normal"], seed=7, deals=deals, record=True)
    b = play_games([full, "normal"], seed=7, deals=deals, record=True)
    assert np.array_equal(a.results, b.results)
    assert np.array_equal(a.actions, b.actions)
