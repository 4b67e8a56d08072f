"""A cold compile's helper processes (durak_sim.warm): they compile a part into the cache,
never outlive the run that started them, and a strategy names only known parts."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from durak_sim import warm
from durak_sim.registry import StrategyError, get_strategy, register_strategy


def test_the_built_in_searchers_name_their_parts():
    assert get_strategy("hard").parts == ("solver", "variant")
    assert get_strategy("expert").parts == ("solver", "variant")
    assert get_strategy("normal").parts == ()


def test_a_strategy_names_only_known_parts():
    from durak_sim.strategies.random import decide

    with pytest.raises(StrategyError, match="unknown parts"):
        register_strategy("warmtest", decide, parts=("solver", "nosuch"))


def test_a_helper_compiles_its_part_and_exits(tmp_path, monkeypatch):
    """With the part in the cache (the suite's searches are), it loads it and exits 0; from
    any current folder (a source checkout's would be imported by ``python -m``)."""
    (tmp_path / "durak_sim").mkdir()   # another copy of the package in the current folder
    (tmp_path / "durak_sim" / "__init__.py").write_text("raise SystemExit(3)\n")
    monkeypatch.chdir(tmp_path)
    helpers = warm.start(["solver"])
    assert len(helpers) == 1 and helpers[0].wait(timeout=300) == 0


def test_a_helper_ends_with_the_run_that_started_it(tmp_path):
    """A run killed (SIGKILL) while its helper compiles on a cold cache leaves nothing
    running: the helper gets SIGTERM at once (Linux)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    script = ("import sys, time\n"
              "from durak_sim import warm\n"
              "h = warm.start(['solver'])\n"
              "print(h[0].pid, flush=True)\n"
              "time.sleep(600)\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    run = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                           env=env)
    helper = int(run.stdout.readline())
    time.sleep(2)   # the helper is compiling now
    os.kill(helper, 0)
    run.send_signal(signal.SIGKILL)
    run.wait()
    for _ in range(100):
        try:
            os.kill(helper, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{helper}/stat") as f:   # a zombie (reaped by init soon) is gone too
            if f.read().split(")")[-1].split()[0] == "Z":
                return
        time.sleep(0.1)
    os.kill(helper, signal.SIGKILL)
    raise AssertionError("the helper outlived the run")


def test_finish_ends_helpers_still_running():
    h = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    warm.finish([h], wait=False)
    assert h.poll() is not None


def test_the_kernel_is_a_part_a_helper_compiles():
    """A helper compiles (here: loads) the game kernel for a table size, after which this
    process finds it in the cache under the key numba itself looks for."""
    from durak_sim import play

    helpers = warm.start([warm.kernel_part(2)])
    assert len(helpers) == 1 and helpers[0].wait(timeout=300) == 0
    assert play.kernel_cached(2) is True


@pytest.mark.parametrize("lineup", [("hard", "normal"), ("easy", "random", "normal")])
def test_every_line_up_of_a_size_has_the_random_probes_kernel_types(lineup):
    """The kernel a helper compiles (or ``prepare`` loads) for a table size is the one a
    real line-up of that size calls: the same argument types, so no compile in its play."""
    import numpy as np

    from durak_sim import play
    from durak_sim.play import Call, _NO_GAMES, _kernel_types, resolve_strategies
    from durak_sim.rules import Rules

    strats = resolve_strategies(list(lineup))
    play.prepare(strats)
    call = Call(7, tuple(s.fn for s in strats), Rules(players=len(strats)),
                np.int64(max(s.memory for s in strats)),
                np.array([s.reset for s in strats], np.int64))
    fn, args = call.target(*_NO_GAMES)
    assert (fn, tuple(fn.typeof_pyval(a) for a in args)) == _kernel_types(len(strats), False)


@pytest.mark.slow   # a kernel compiled cold
def test_a_cold_kernel_compiles_in_a_helper_and_loads_here(tmp_path):
    """On an empty cache the kernel for three seats is not cached (nor for two); after a
    helper compiled it, it is (and still not the two seats' one), and a three-player match
    then compiles no kernel of its own."""
    script = ("import time\n"
              "from durak_sim import play, warm\n"
              "before = play.kernel_cached(3), play.kernel_cached(2)\n"
              "warm.start([warm.kernel_part(3)])[0].wait()\n"
              "after = play.kernel_cached(3), play.kernel_cached(2)\n"
              "t = time.perf_counter()\n"
              "play.warm_kernel(3)\n"
              "print(before, after, time.perf_counter() - t < 5)\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env)
    assert out.stdout.split() == ["(False,", "False)", "(True,", "False)", "True"], out.stderr


def test_a_compile_step_leaves_this_thread_free_for_ctrl_c():
    """A compile runs in a thread while this one waits: Ctrl-C (SIGINT) raises here at once
    (inside LLVM's callbacks it could be swallowed), and a step's own error is raised here."""
    import threading

    from durak_sim.play import _interruptible

    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    t = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        _interruptible(time.sleep, 5)
    assert time.perf_counter() - t < 2
    with pytest.raises(ValueError, match="bad plugin"):
        _interruptible(lambda: (_ for _ in ()).throw(ValueError("bad plugin")))


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def test_ctrl_c_during_a_cold_compile_ends_the_run_at_once(tmp_path):
    """A match on an empty cache gets Ctrl-C (SIGINT to its process group, as a terminal
    sends it) while it compiles: exit code 130 within seconds, no helper left running."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads Linux's /proc")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    run = subprocess.Popen([sys.executable, "-m", "durak_sim.cli", "match", "hard", "easy",
                            "--deals", "10", "--no-progress"], env=env, cwd=tmp_path,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           start_new_session=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(5)   # (the hard level's searches take half a minute and more, cold)
    helpers = _children(run.pid)
    t = time.perf_counter()
    os.killpg(run.pid, signal.SIGINT)
    try:
        assert run.wait(timeout=20) == 130
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert time.perf_counter() - t < 5, run.stderr.read()
    assert "interrupted" in run.stderr.read()
    time.sleep(1)
    if len(os.sched_getaffinity(0)) < 2:   # one core: the run compiles alone, no helper
        return
    assert helpers and not [h for h in helpers if os.path.exists(f"/proc/{h}/status")
                            and "State:\tZ" not in open(f"/proc/{h}/status").read()]


def test_a_cold_search_is_announced_by_solve(monkeypatch, capsys):
    """``durak-sim solve`` (the solver of the API) says before a cold compile what it
    compiles; the check reads numba's own key (the suite has the searches compiled)."""
    from durak_sim import solve

    warm.compile_part("solver")
    assert warm.search_cached(False) is True
    monkeypatch.setattr(warm, "search_cached", lambda variant: False)
    solve._Solver()
    err = capsys.readouterr().err
    assert err.startswith("durak-sim: compiling the endgame solver for first use (about 32 s)")


def test_a_cold_strategy_whose_searches_are_cached_compiles_only_its_own_code(monkeypatch):
    """When hard is cold but its searches are in the cache (here: the suite compiled them),
    no helper starts for them and the notice's estimate leaves them out: it counts hard's
    own code alone (its ``compile_seconds`` less its parts')."""
    from durak_sim import play, registry
    from durak_sim.kernel import cache

    warm.compile_part("solver")
    warm.compile_part("variant")
    hard = get_strategy("hard")
    started, notices = [], []
    monkeypatch.setattr(registry, "_READY", set())
    monkeypatch.setattr(cache, "is_cached", lambda fn: False)
    monkeypatch.setattr(warm, "start", lambda parts: started.extend(parts) or [])
    monkeypatch.setattr(warm, "load_factor", lambda *args: 1.0)
    monkeypatch.setattr(play, "_compile", lambda s: None)
    play.prepare([hard], kernel=False, notice=notices.append)
    own = hard.compile_seconds - sum(warm.cost(p) for p in hard.parts)
    assert started == [] and len(notices) == 1
    assert f"for first use (about {own:.0f} s)" in notices[0]
    monkeypatch.setattr(warm, "part_cached", lambda name: name == "solver")
    notices.clear()
    play.prepare([hard], kernel=False, notice=notices.append)
    assert f"(about {own + warm.cost('variant'):.0f} s)" in notices[0]
