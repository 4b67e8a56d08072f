"""Stopping a command while an engine thinks (docs/engine-protocol.md): Ctrl-C or a kill is
answered within about a second, not at the end of the engine's time limit, and no engine
process outlives the command, also when a second Ctrl-C ends it at once."""
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from test_engines import BAD, CLI, _signals_as_at_a_terminal, gone

#: a plugin that plays its first legal action, and sleeps for ever at its third decision
SLEEPER = textwrap.dedent("""\
    import time
    from durak_sim.registry import register_strategy

    asked = [0]

    def decide(obs, legal, hist, rng, mem):
        asked[0] += 1
        if asked[0] == 3:
            time.sleep(1000)
        return int(legal[1])

    register_strategy("sleeper", decide, description="sleeps at its third decision",
                      plays="all")
""")


#: an engine that writes its pid and answers at once; with the mode ``child`` it starts a
#: child of its own that sleeps (its process group outlives it unless killed, as a shell
#: script's helpers would); with ``stubborn`` it ignores SIGINT and SIGTERM and sleeps on
#: when its input ends
PROMPT = textwrap.dedent("""\
    import json, os, signal, subprocess, sys, time
    pids, mode = sys.argv[1], sys.argv[2]
    mine = [os.getpid()]
    if mode == "child":
        sleeper = [sys.executable, "-c", "import time; time.sleep(1000)"]
        mine.append(subprocess.Popen(sleeper).pid)
    if mode == "stubborn":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(pids, "a") as f:
        f.write("".join(f"{p}\\n" for p in mine))
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "ready"}), flush=True)
        elif msg["type"] == "decide":
            print(json.dumps({"action": msg["legal"][0]}), flush=True)
    if mode == "stubborn":
        time.sleep(1000)
""")


def _wait_for(path, lines=1, seconds=60.0):
    """Until ``path`` holds ``lines`` lines (pids)."""
    def enough():
        return path.exists() and len(path.read_text().split()) >= lines

    deadline = time.monotonic() + seconds
    while not enough() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert enough()


@pytest.mark.parametrize("command", ["match", "tournament", "series"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_stop_while_an_engine_thinks_is_answered_at_once(tmp_path, command, sig):
    """The engine hangs at its fifth decision, with a time limit of a minute: the stop ends
    the command within a few seconds, exit code 130, and the engine is gone."""
    (tmp_path / "bad.py").write_text(BAD)
    pids = tmp_path / "pids"
    out = ["--out", str(tmp_path / "t")] if command == "tournament" else []
    proc = subprocess.Popen([*CLI, command, f"engine:bad.py hang {pids}", "easy", "--deals",
                             "5", "--engine-timeout", "60", "--no-progress", *out],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_signals_as_at_a_terminal)
    _wait_for(pids)
    time.sleep(1.5)   # its first four answers, then the hang
    t = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - t < 10, err
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "timed out" not in err
    assert all(gone(int(p)) for p in pids.read_text().split())


def test_a_second_ctrl_c_leaves_no_engine_running(tmp_path):
    """A plugin's decision that never returns holds the first Ctrl-C; the second exits at
    once, and the engine of the other seat is killed first, its process group with it."""
    (tmp_path / "prompt.py").write_text(PROMPT)
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    pids = tmp_path / "pids"
    proc = subprocess.Popen([*CLI, "match", f"engine:prompt.py {pids} child", "sleeper",
                             "--plugin", "sleeper.py", "--deals", "5", "--no-progress"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_signals_as_at_a_terminal)
    _wait_for(pids)
    time.sleep(1.5)
    proc.send_signal(signal.SIGINT)
    time.sleep(1.0)
    assert proc.poll() is None   # the plugin still sleeps
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "stopped at once" in err, err
    assert all(gone(int(p)) for p in pids.read_text().split())


def test_a_sigkilled_command_leaves_no_engine_running(tmp_path):
    """SIGKILL ends durak-sim with no chance to end its engines: each engine was started to
    die with it (Linux), also one that ignores every other way of being told."""
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    (tmp_path / "prompt.py").write_text(PROMPT)
    pids = tmp_path / "pids"
    proc = subprocess.Popen([*CLI, "match", f"engine:prompt.py {pids} stubborn", "easy",
                             "--deals", "500", "--no-progress"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(pids, lines=2)   # both seats' engines started
    proc.kill()
    proc.communicate(timeout=30)
    started = pids.read_text().split()
    assert len(started) == 2   # one a seat: the engine plays both seats of a swapped match
    assert all(gone(int(p)) for p in started)


def test_an_engine_started_off_the_main_thread_dies_with_the_process(tmp_path):
    """A library caller's thread (or a dask worker's) starts the engines: they are started
    from a thread that lives as long as the process (durak_sim.engine_spawn), so a SIGKILL
    of the process still ends them, and the calling thread's end does not."""
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    (tmp_path / "prompt.py").write_text(PROMPT)
    pids = tmp_path / "pids"
    script = textwrap.dedent(f"""\
        import threading, time
        from durak_sim.play import play_games
        spec = "engine:prompt.py {pids} stubborn"
        first = threading.Thread(target=play_games, args=([spec, "easy"],),
                                 kwargs=dict(seed=1, deals=range(2)))
        first.start()
        first.join()          # its thread has ended: its engines play on
        threading.Thread(target=play_games, args=([spec, "easy"],),
                         kwargs=dict(seed=1, deals=range(100000)), daemon=True).start()
        time.sleep(1000)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(pids, lines=2)
    time.sleep(1.0)
    assert proc.poll() is None, proc.communicate()
    started = pids.read_text().split()
    assert len(started) == 2 and not any(gone(int(p)) for p in started)
    proc.kill()
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while not all(gone(int(p)) for p in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(gone(int(p)) for p in started)


def test_a_forked_child_starts_its_engines_without_the_parent_s_starter_thread():
    """engine_spawn's starter thread is not in a forked child: the child starts a new one
    (it waited for ever on the parent's)."""
    import os
    import threading

    from durak_sim import engine_spawn

    started = []
    t = threading.Thread(target=lambda: started.append(engine_spawn.popen(["true"])))
    t.start()
    t.join()
    started[0].wait()
    pid = os.fork()
    if pid == 0:   # the child: a non-main thread starts a process
        code = 1
        try:
            box = []
            t = threading.Thread(target=lambda: box.append(engine_spawn.popen(["true"])))
            t.start()
            t.join(10)
            code = 0 if box and box[0].wait(10) == 0 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
