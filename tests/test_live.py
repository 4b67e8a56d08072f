"""The live run: progress and score lines on a terminal, Ctrl-C answered within a block with
every finished deal kept, and a resume that ends in the same tables as an uninterrupted run."""
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from durak_sim.report import TABLE_FILES
from durak_sim.storage import Manifest
from durak_sim.tournament import run_tournament

CLI = [sys.executable, "-m", "durak_sim.cli"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")


def _as_at_a_terminal() -> None:
    """In the child: SIGINT handled by default and not blocked (as for a command started at a
    terminal, whatever the test run inherited)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """A command on a pseudo-terminal, 160 columns wide unless told; ``text`` is what it
    printed so far, without escape sequences."""

    def __init__(self, args, columns: int = 160):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns)}
        env.pop("NO_COLOR", None)
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     preexec_fn=_as_at_a_terminal, close_fds=True)
        os.close(slave)
        self.raw = b""

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def read(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:   # the child closed the terminal
                    return
                if not data:
                    return
                self.raw += data

    def wait_for(self, pattern: str, timeout: float) -> re.Match:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = list(re.finditer(pattern, self.text))
            if found:
                return found[-1]
            if self.proc.poll() is not None:
                self.read(0.2)
                break
            self.read(0.1)
        raise AssertionError(f"{pattern!r} did not appear; the terminal shows:\n"
                             f"{self.text[-3000:]}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)


def _done(text: str, label: str) -> list[int]:
    """The deal pairs done that the progress showed for a pairing, frame by frame."""
    return [int(m.group(1).replace(",", ""))
            for m in re.finditer(re.escape(label) + r"\s+([\d,]+)/", text)]


def test_progress_advances_and_ctrl_c_stops_a_hard_pairing_within_2_s(tmp_path):
    out = tmp_path / "t"
    term = Terminal([*CLI, "tournament", "hard", "easy", "--deals", "300", "--seed", "5",
                     "--threads", "1", "--out", str(out)])
    try:
        # the live board: deal pairs done, games/s and a score line that advance while
        # hard plays easy
        term.wait_for(r"hard vs easy\s+[1-9][\d,]*/300.*games/s.*W-D-L.*Elo", 240)
        term.read(2.5)
        shown = _done(term.text, "hard vs easy")
        assert len(set(shown)) >= 3 and shown == sorted(shown), shown
        assert re.search(r"(hard|easy) [\d,]+-[\d,]+-[\d,]+ \(W-D-L\), [\d.]+%", term.text)
        assert "elapsed" in term.text and "left" in term.text
        assert term.proc.poll() is None, "the run must still be playing"
        t = time.monotonic()
        term.proc.send_signal(signal.SIGINT)
        term.proc.wait(timeout=30)
        stopped = time.monotonic() - t
        term.read(0.5)
    finally:
        term.close()
    assert term.proc.returncode == 130, term.text[-2000:]
    assert stopped < 2.0, f"Ctrl-C took {stopped:.2f} s"
    assert "Traceback" not in term.text
    assert f"durak-sim tournament --resume {out}" in term.text
    kept = Manifest.load(out)
    played = sum(c["deal_hi"] - c["deal_lo"] for c in kept.chunks) + \
        sum(p["played_hi"] - p["deal_lo"] for p in kept.partials)
    assert played >= max(_done(term.text, "hard vs easy")) > 0   # every deal shown is kept

    resumed = run_tournament(resume=True, out=out, progress=False)
    assert resumed.complete and resumed.deals_played == 300 - played
    run_tournament(["hard", "easy"], 300, 5, tmp_path / "whole", 2, progress=False)
    for name in [*TABLE_FILES.values(), "report.md"]:
        assert (out / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name
    assert not list(Path(out).rglob("*.partial.parquet"))


def test_ctrl_c_ends_a_match_within_2_s_with_the_finished_deals(tmp_path):
    import json

    records = tmp_path / "r.jsonl"
    term = Terminal([*CLI, "match", "hard", "easy", "--deals", "3000", "--seed", "5",
                     "--threads", "1", "--records", str(records), "--json"])
    try:
        term.wait_for(r"hard vs easy\s+[1-9][\d,]*/3,000.*W-D-L", 240)
        t = time.monotonic()
        term.proc.send_signal(signal.SIGINT)
        term.proc.wait(timeout=30)
        stopped = time.monotonic() - t
        term.read(0.5)
    finally:
        term.close()
    assert term.proc.returncode == 130, term.text[-2000:]
    assert stopped < 2.0, f"Ctrl-C took {stopped:.2f} s"
    summary = json.loads(re.search(r'\{"a": .*\}', term.text).group(0))
    played = summary["deals"]
    assert 0 < played < 3000 and summary["interrupted_of"] == 3000
    assert f"interrupted after {played:,} of 3,000 deals" in term.text
    lines = records.read_text().splitlines()
    assert len(lines) == 2 * played             # every finished deal's two games, whole
    assert [json.loads(x)["deal"] for x in lines[::2]] == list(range(played))


def test_ctrl_c_ends_an_sprt_within_2_s():
    term = Terminal([*CLI, "match", "hard", "easy", "--sprt", "0", "5", "--deals", "100000",
                     "--seed", "5", "--threads", "1"])
    try:
        term.wait_for(r"hard vs easy\s+[1-9][\d,]*/100,000", 240)
        t = time.monotonic()
        term.proc.send_signal(signal.SIGINT)
        term.proc.wait(timeout=30)
        stopped = time.monotonic() - t
        term.read(0.5)
    finally:
        term.close()
    assert term.proc.returncode == 130, term.text[-2000:]
    assert stopped < 2.0, f"Ctrl-C took {stopped:.2f} s"
    assert "no decision: interrupted after" in term.text


HANGING = {
    "python": '''
import sys
from durak_sim.registry import register_strategy
def decide(obs, legal, hist, rng, mem):
    if obs[17] >= 2:
        print("HANGING", file=sys.stderr, flush=True)
        while True:
            pass
    return legal[1]
register_strategy("hang", decide)
''',
    "numba": '''
import numba
from durak_sim.kernel.config import STRATEGY_SIGNATURE
from durak_sim.registry import register_strategy
@numba.njit(STRATEGY_SIGNATURE, cache=False)
def decide(obs, legal, hist, rng, mem):
    k = 0
    while obs[17] >= 2:
        k += 1
    return legal[1 + k % 1]
register_strategy("hang", decide)
''',
}


def _stuck_then_killed(proc) -> float:
    """Ctrl-C once (the notice must come), then again: seconds from the second to the exit."""
    proc.send_signal(signal.SIGINT)
    end = time.monotonic() + 10
    err = b""
    while b"Ctrl-C again stops at once" not in err:
        assert time.monotonic() < end, err.decode()
        ready, _, _ = select.select([proc.stderr], [], [], 0.1)
        if ready:
            err += os.read(proc.stderr.fileno(), 65536)
    t = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=10)
    return time.monotonic() - t


@pytest.mark.parametrize("kind", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_a_strategy_that_never_returns_is_stopped_by_a_second_ctrl_c(tmp_path, kind):
    plugin = tmp_path / "hang.py"
    plugin.write_text(HANGING[kind])
    proc = subprocess.Popen([*CLI, "tournament", "hang", "random", "--deals", "50",
                             "--out", str(tmp_path / "t"), "--plugin", str(plugin)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=_as_at_a_terminal)
    try:
        if kind == "python":
            err = b""
            while b"HANGING" not in err:
                assert proc.poll() is None, err.decode()
                err += os.read(proc.stderr.fileno(), 65536)
        else:
            time.sleep(60)   # compiled and playing (a numba loop says nothing)
        assert proc.poll() is None
        took = _stuck_then_killed(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert took < 1.0


def test_the_kernel_begins_no_game_once_the_stop_flag_is_set():
    import threading

    import numpy as np

    from durak_sim.play import play_games

    flag = np.ones(1, np.int64)
    assert len(play_games(["random", "easy"], seed=1, deals=range(100), stop=flag)) == 0
    # set from another thread during a long call (hard against easy, one thread): the call
    # ends within a game or two, with the games before the stop exactly as unstopped
    play_games(["hard", "easy"], seed=3, deals=range(1), threads=1)   # compiled
    flag[0] = 0
    timer = threading.Timer(0.3, lambda: flag.__setitem__(0, 1))
    timer.start()
    t = time.monotonic()
    cut = play_games(["hard", "easy"], seed=3, deals=range(5000), threads=1, stop=flag)
    took = time.monotonic() - t
    assert took < 1.3 and 0 < len(cut) < 10000 and len(cut) % 2 == 0
    whole = play_games(["hard", "easy"], seed=3, deals=range(len(cut) // 2), threads=1)
    assert np.array_equal(cut.results, whole.results)


def test_a_stop_on_two_threads_keeps_the_games_before_the_first_not_played():
    """Each chunk marks only its first game not played (a huge batch's other rows are left
    untouched); the games kept are those before the batch's first such row, on two threads
    and in series alike, and they are the unstopped run's."""
    import threading

    import numpy as np

    from durak_sim.play import play_games, play_series

    flag = np.ones(1, np.int64)
    assert len(play_series(["random", "easy"], seed=1, series=range(10), deals=3,
                           stop=flag)) == 0
    for run in (lambda stop, n: play_games(["random", "easy"], seed=4, deals=range(n),
                                           threads=2, stop=stop),
                lambda stop, n: play_series(["random", "easy"], seed=4, series=range(n),
                                            deals=3, threads=2, stop=stop)):
        run(None, 10)   # compiled
        flag[0] = 0
        timer = threading.Timer(1.0, lambda: flag.__setitem__(0, 1))
        timer.start()
        cut = run(flag, 1_000_000)   # (about ten seconds unstopped)
        timer.join()
        assert 0 < len(cut) < 2_000_000
        whole = run(None, len(cut) // (2 if cut.series_deal is None else 3))
        assert np.array_equal(cut.results, whole.results)


def test_bench_s_json_lines_stay_whole_above_the_board_on_a_narrow_terminal():
    """On a terminal the progress board is live and the JSON lines go above it: each stays
    one line, however narrow the terminal (rich broke them at its width)."""
    import json

    term = Terminal([*CLI, "bench", "--pairing", "random,random", "--deals", "20000",
                     "--repeat", "1", "--threads", "1", "--seed", "3"], columns=60)
    try:
        term.wait_for(r'"numpy": "[^"]*"\}', 120)
        term.proc.wait(timeout=60)
        term.read(0.5)
    finally:
        term.close()
    # (the board's cursor moves are gone from the text: a line may follow its last line)
    (line,) = re.findall(r'\{"bench".*?"numpy": "[^"]*"\}', term.text)
    assert len(line) > 60 and json.loads(line)["pairing"] == "random,random", term.text
