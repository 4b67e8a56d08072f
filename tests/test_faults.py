"""Kills at any moment: nothing a killed durak-sim leaves behind holds its folder or outlives
it, and resuming ends in the same tables as an uninterrupted run."""
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from durak_sim.errors import UserError
from durak_sim.report import TABLE_FILES
from durak_sim.tournament import run_tournament

CLI = [sys.executable, "-m", "durak_sim.cli"]
RESULTS = [*TABLE_FILES.values(), "report.md", "report.html"]
ARGS = ["random", "easy", "normal", "--deals", "3000", "--chunk", "500", "--seed", "13"]


def _session(sid: int) -> list[int]:
    """The processes still alive in session ``sid`` (a command started in a session of its
    own: it and everything it started)."""
    alive = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            alive.append(int(d.name))
    return alive


def _start(*args) -> subprocess.Popen:
    return subprocess.Popen([*CLI, *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)


def _kill(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    end = time.monotonic() + 5
    while _session(proc.pid):
        assert time.monotonic() < end, f"left running: {_session(proc.pid)}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    out = tmp_path_factory.mktemp("f") / "whole"
    run_tournament(ARGS[:3], 3000, 13, out, 2, progress=False, chunk_deals=500)
    return {name: (out / name).read_bytes() for name in RESULTS}


def _complete(manifest: Path) -> bool:
    try:
        return len(json.loads(manifest.read_text())["chunks"]) == 18
    except (OSError, ValueError, KeyError):
        return False


def test_a_kill_while_the_report_is_drawn_leaves_nothing_behind(tmp_path, whole):
    out = tmp_path / "t"
    proc = _start("tournament", *ARGS, "--out", out)
    while not _complete(out / "manifest.json"):
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.01)
    time.sleep(0.2)   # into the report: tables, figures or documents
    _kill(proc)
    resumed = subprocess.run([*CLI, "tournament", "--resume", str(out)], capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr   # no lock left held on the folder
    assert {name: (out / name).read_bytes() for name in RESULTS} == whole
    # a report killed midway, and made again
    proc = _start("report", out)
    time.sleep(1.0)
    _kill(proc)
    again = subprocess.run([*CLI, "report", str(out)], capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr
    assert {name: (out / name).read_bytes() for name in RESULTS} == whole


@pytest.mark.slow
def test_kills_at_random_moments_then_resumes_end_in_the_same_tables(tmp_path, whole):
    """A tournament killed again and again at random moments (play, storage, every report
    step), resumed after each kill: the tables of the end equal an uninterrupted run's, and
    no process ever outlives the one killed."""
    rng = random.Random(2026)
    t = time.monotonic()
    proc = _start("tournament", *ARGS, "--out", tmp_path / "timed")
    assert proc.wait() == 0
    duration = time.monotonic() - t   # a whole run here: the kills fall anywhere in it
    kills = 0
    for run in range(8):
        out = tmp_path / f"t{run}"
        fresh = ["tournament", *ARGS, "--out", out]
        args = fresh
        while True:
            proc = _start(*args)
            args = ["tournament", "--resume", out]
            deadline = time.monotonic() + rng.uniform(0.2, duration)
            while proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            if proc.poll() is not None:
                err = proc.stderr.read().decode()
                if proc.returncode == 2 and "start it again without --resume" in err:
                    args = fresh   # killed before it stored anything: as a user would
                    continue
                assert proc.returncode == 0, err
                break
            _kill(proc)
            kills += 1
        assert {name: (out / name).read_bytes() for name in RESULTS} == whole, run
        assert not list(out.rglob("*.tmp")) and not list(out.rglob("*.partial.parquet"))
    assert kills >= 8


def _small_files(limit: int):
    """In the child: no file may grow past ``limit`` bytes (as on a full disk, a write
    fails: EFBIG instead of ENOSPC), the signal for it ignored."""
    def apply():
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return apply


def test_a_bad_mplbackend_does_not_fail_the_report(tmp_path, whole):
    """The figures are drawn into files by Agg: an unknown ``MPLBACKEND`` (which fails
    matplotlib's import) changes nothing, not a byte."""
    out = tmp_path / "t"
    proc = subprocess.run([*CLI, "tournament", *ARGS, "--out", str(out)], capture_output=True,
                          text=True, env={**os.environ, "MPLBACKEND": "bogus"}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert {name: (out / name).read_bytes() for name in RESULTS} == whole


def test_a_failing_report_says_the_games_are_stored(tmp_path, monkeypatch):
    from durak_sim import report

    def broken(*args, **kwargs):
        raise ValueError("a library could not start\nits details")

    monkeypatch.setattr(report, "build_report", broken)
    with pytest.raises(UserError, match=r"^the report failed: a library could not start; "
                                        r"every game is stored: durak-sim report .* builds"):
        run_tournament(["random", "easy"], 10, 13, tmp_path / "t", 1, progress=False)


def test_a_manifest_that_cannot_be_written_names_the_resume(tmp_path):
    """The manifest grows with every chunk: when it can no longer be written, the line
    names it and the resume, as for a chunk, and the resumed folder is the one an
    uninterrupted run makes."""
    from cli_errors import assert_one_line_error

    args = ["tournament", "random", "easy", "--deals", "3000", "--chunk", "50", "--seed",
            "13", "--no-progress"]
    out, whole = tmp_path / "t", tmp_path / "w"
    proc = subprocess.run([*CLI, *args, "--out", str(out)], capture_output=True, text=True,
                          preexec_fn=_small_files(8_192), timeout=300)
    assert_one_line_error(proc, f"cannot write {out / 'manifest.json'}", "File too large",
                          "chunks stored before are kept",
                          f"durak-sim tournament --resume {out}")
    for cmd in (["tournament", "--resume", str(out)], [*args, "--out", str(whole)]):
        done = subprocess.run([*CLI, *cmd], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    assert {name: (out / name).read_bytes() for name in RESULTS} == \
        {name: (whole / name).read_bytes() for name in RESULTS}


def test_a_full_disk_is_one_line_naming_the_file_and_the_resume(tmp_path, whole):
    from cli_errors import assert_one_line_error

    subprocess.run([*CLI, "match", "normal", "easy", "--deals", "10"], check=True,
                   capture_output=True)   # compiled before: the cache is not written below
    out = tmp_path / "t"
    proc = subprocess.run([*CLI, "tournament", *ARGS[:3], "--deals", "3000", "--chunk",
                           "3000", "--seed", "13", "--out", str(out)], capture_output=True,
                          text=True, preexec_fn=_small_files(6_000), timeout=300)
    assert_one_line_error(proc, "cannot write", str(out / "games"), "File too large",
                          "kept", f"durak-sim tournament --resume {out}")
    assert list((out / "games").rglob("*.tmp")) == []   # no half-written chunk holds space
    # the report's files alone too big: the games are all stored, the report is made again
    done = tmp_path / "d"
    proc = subprocess.run([*CLI, "tournament", *ARGS, "--out", str(done)], capture_output=True,
                          text=True, preexec_fn=_small_files(30_000), timeout=300)
    assert_one_line_error(proc, "cannot write", "File too large", "every game is stored",
                          f"durak-sim report {done}")
    again = subprocess.run([*CLI, "report", str(done)], capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr
    assert {name: (done / name).read_bytes() for name in RESULTS} == whole
    resumed = subprocess.run([*CLI, "tournament", "--resume", str(out)], capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert {name: (out / name).read_bytes() for name in RESULTS} == whole

    keep = tmp_path / "keep.jsonl"
    keep.write_text("precious\n")
    proc = subprocess.run([*CLI, "match", "easy", "random", "--deals", "2000", "--records",
                           str(keep), "--force"], capture_output=True, text=True,
                          preexec_fn=_small_files(100_000), timeout=300)
    assert_one_line_error(proc, "cannot write", str(keep), "File too large")
    assert keep.read_text() == "precious\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".keep")] == []


def test_a_match_that_fails_part_way_leaves_the_records_file_as_it_was(tmp_path):
    from cli_errors import assert_one_line_error

    plugin = tmp_path / "late.py"
    plugin.write_text('''
import numba
from durak_sim.kernel.config import STRATEGY_SIGNATURE
from durak_sim.registry import register_strategy
@numba.njit(STRATEGY_SIGNATURE, cache=False)
def decide(obs, legal, hist, rng, mem):
    if obs[17] >= 24:
        raise ValueError("late")
    return legal[1]
register_strategy("late", decide)
''')
    keep = tmp_path / "keep.jsonl"
    keep.write_text("precious\n")
    proc = subprocess.run([*CLI, "match", "late", "random", "--deals", "20000", "--records",
                           str(keep), "--force", "--plugin", str(plugin)], capture_output=True,
                          text=True, timeout=300)
    assert_one_line_error(proc, "'late' (seat", "raised ValueError: late")
    assert keep.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.jsonl", "late.py"]


def test_a_run_killed_before_it_stored_anything_starts_again(tmp_path):
    """Killed before its manifest: ``--resume`` says in one line to start it again, and the
    folder it left (empty, or holding only its write probe) takes the fresh command."""
    from cli_errors import assert_one_line_error

    from durak_sim.tournament import WRITE_PROBE

    for leftover in (None, "empty", WRITE_PROBE):
        out = tmp_path / f"t-{leftover}"
        if leftover is not None:
            out.mkdir()
        if leftover == WRITE_PROBE:
            (out / WRITE_PROBE).write_bytes(b"")
        proc = subprocess.run([*CLI, "tournament", "--resume", str(out)], capture_output=True,
                              text=True, timeout=120)
        assert_one_line_error(proc, "cannot resume", "no tournament was stored", str(out),
                              "start it again without --resume")
        proc = subprocess.run([*CLI, "tournament", "random", "easy", "--deals", "20",
                               "--out", str(out), "--no-progress"], capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert (out / "manifest.json").is_file() and not (out / WRITE_PROBE).exists()


def _as_a_script_s_background_job() -> None:
    """Signals as a job a script starts with ``&`` has them: SIGINT ignored, a kill not (a
    test run under ``nohup`` would pass on SIGHUP ignored too)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_kill_stops_a_background_job_of_a_script_as_ctrl_c_does(tmp_path, sig):
    """A job a script starts with ``&`` ignores SIGINT; a kill (or the terminal closing) must
    still stop it as Ctrl-C stops a job in the foreground: the finished deals' records kept,
    their summary printed, exit 130 (it used to raise in the middle of the play and keep
    nothing)."""
    proc = subprocess.Popen([*CLI, "match", "easy", "random", "--deals", "900000",
                             "--threads", "1", "--no-progress", "--records", "r.jsonl"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True,
                            preexec_fn=_as_a_script_s_background_job)
    try:
        time.sleep(6)                       # loaded, and some deals played
        assert proc.poll() is None
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted after" in err, err
    assert "easy" in out
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert lines and len(lines) % 2 == 0 and len(lines) < 1800000


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_ctrl_c_or_a_kill_stops_a_bench_run_under_way(sig):
    """bench's timed run is one kernel call; Ctrl-C (or a kill) stops it between two games,
    not when the call ends (it used to wait for the call: minutes with a slow pairing), and
    says that run is not reported. A run of 20M random deals takes about 50 s here."""
    proc = subprocess.Popen([*CLI, "bench", "--deals", "10000000", "--threads", "1",
                             "--repeat", "2", "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL)
                                                for s in (signal.SIGINT, signal.SIGTERM)])
    try:
        time.sleep(6)                       # loaded, and the first run under way
        assert proc.poll() is None
        t = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
        waited = time.monotonic() - t
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and out == "", (out, err)
    # (a notice that the play has not ended may come first: the unplayed games of a batch
    # of millions are marked stopped, which takes a second or more under load)
    assert err.strip().splitlines()[-1] == "durak-sim: interrupted: the timed run under way " \
                                           "(1 thread) is not reported", err
    assert "Traceback" not in err
    assert waited < 15, waited   # (a batch of millions of games is still tidied up)


def test_a_held_block_holds_a_kill_passed_on_as_ctrl_c():
    """play's record is written under held_interrupts: a kill the command passes on as
    Ctrl-C (cli.py), even two at once, waits for the block's end."""
    import os

    from durak_sim.stopping import held_interrupts

    def forward(*_):
        raise KeyboardInterrupt

    forward.stops_like_ctrl_c = True
    old = signal.signal(signal.SIGTERM, forward)
    try:
        with held_interrupts(reraise=False) as held:
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
        assert held.hit and signal.getsignal(signal.SIGTERM) is forward
        with pytest.raises(KeyboardInterrupt):
            with held_interrupts():
                os.kill(os.getpid(), signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, old)


def test_the_library_refuses_what_the_commands_refuse():
    """The plain-Python API checks its input as the commands do, in one line: deal indices
    are whole numbers (1.5 was played as deal 1), the solver's budgets are not negative, a
    position may be given as its dict."""
    from durak_sim.play import play_games
    from durak_sim.position import Position
    from durak_sim.replay import replay_deal
    from durak_sim.rules import Rules
    from durak_sim.solve import solve

    for deals in ([1.5], ["3"], [True], [1, True], (0, False), [1, np.True_],
                  np.array([2.0])):
        with pytest.raises(UserError, match="deal indices must be whole numbers"):
            play_games(["random", "easy"], seed=1, deals=deals)
    with pytest.raises(UserError, match="whole numbers, not 7.9"):
        replay_deal(42, 7.9, ["easy", "random"])
    with pytest.raises(UserError, match=r"rules=Rules\(players=3\)"):
        play_games(["random", "easy", "random"], seed=1, deals=[0])
    assert len(play_games(["random", "easy", "random"], seed=1, deals=np.arange(2, dtype=np.uint8),
                          rules=Rules(players=3))) == 6
    p = {"format": "durak-sim/position/1", "trump": "D", "hands": [["6S"], ["TS", "7D"]],
         "stock": [], "attacker": 0}
    for kw, what in (({"node_cap": -5}, "node_cap"), ({"order_nodes": 1.5}, "order_nodes"),
                     ({"time_limit": -1}, "time_limit"), ({"time_limit": float("inf")},
                                                          "time_limit")):
        with pytest.raises(UserError, match=what):
            solve(Position.from_dict(p), **kw)
    assert solve(p).value == solve(Position.from_dict(p)).value == 1
    with pytest.raises(UserError, match="missing key"):
        solve({"trump": "D"})
