"""durak-sim tournament: durable chunks, resume after SIGKILL and Ctrl-C, identical tables
whatever the threads, one-line errors that never touch stored files, the SPRT."""
import hashlib
import json
import re
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from durak_sim import tournament
from durak_sim.errors import UserError
from durak_sim.play import play_games
from durak_sim.report import TABLE_FILES
from durak_sim.storage import Manifest
from durak_sim.counts import pentanomial_counts
from durak_sim.sprt_match import run_sprt
from durak_sim.tournament import TournamentConfig, make_config, run_tournament

from cli_errors import assert_one_line_error, invoke

CLI = [sys.executable, "-m", "durak_sim.cli"]
ROOT = Path(__file__).resolve().parents[1]
RESULT_FILES = [*TABLE_FILES.values(), "report.md"]


def run_cli(*args, **kw):
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, **kw)


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` -> its SHA-256."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def results(folder: Path) -> dict:
    return {name: (folder / name).read_bytes() for name in RESULT_FILES}



# --------------------------------------------------------------------------------------
# Config
# --------------------------------------------------------------------------------------
def test_pairings_round_robin_and_gauntlet():
    rr = make_config(["random", "easy"], deals=10, seed=1)
    assert rr.pairings() == [("random", "easy")] and rr.gauntlet is None
    g = make_config(["random"], deals=10, seed=1, gauntlet="easy")
    assert g.strategies == ("easy", "random") and g.pairings() == [("easy", "random")]
    assert g.command() == "durak-sim tournament --gauntlet easy random --deals 10 --seed 1"
    assert TournamentConfig.from_dict(rr.to_dict()) == rr
    cfg = make_config(None, deals=5, seed=2)       # the built-in levels, weakest first
    from durak_sim.registry import default_field
    assert list(cfg.strategies) == default_field() == ["random", "easy", "normal", "hard"]
    assert make_config(["random", "easy"], deals=25, seed=1, chunk_deals=10).chunk_ranges() \
        == [(0, 10), (10, 20), (20, 25)]


@pytest.mark.parametrize("kwargs, words", [
    ({"strategies": ["easy", "nosuch"]}, "unknown strategy"),
    ({"strategies": ["easy"]}, "at least two"),
    ({"strategies": ["easy", "easy"]}, "listed twice"),
    ({"strategies": ["easy", "random"], "gauntlet": "easy"}, "also listed"),
    ({"strategies": ["easy", "random"], "deals": 0}, "deals"),
])
def test_bad_configs(kwargs, words):
    kwargs = {"deals": 10, "seed": 1, **kwargs}
    with pytest.raises(ValueError, match=words):   # UserError or StrategyError
        make_config(kwargs.pop("strategies"), **kwargs)


def test_cli_help_repeats_the_real_defaults():
    from durak_sim import cli_tournament

    assert cli_tournament.DEFAULT_DEALS == tournament.DEFAULT_DEALS
    assert cli_tournament.CHUNK_DEALS == tournament.CHUNK_DEALS
    assert Path(cli_tournament.RUNS_DIR) == tournament.RUNS_DIR


def test_pentanomial_counts_match_stats_pairing_table():
    from durak_sim import stats
    from durak_sim.storage import result_columns

    batch = play_games(["easy", "random"], seed=9, deals=range(500), threads=1)
    pent = pentanomial_counts(result_columns(batch), batch.rots)
    table = stats.pairing_table(batch.frame(), order=["easy", "random"])
    assert pent.tolist() == table[["p0", "p1", "p2", "p3", "p4"]].iloc[0].tolist()


# --------------------------------------------------------------------------------------
# The main job: tournament then report, same bytes
# --------------------------------------------------------------------------------------
def test_cli_tournament_then_report_rebuilds_the_same_bytes(tmp_path):
    out = tmp_path / "t"
    proc = run_cli("tournament", "random", "easy", "--deals", 2000, "--seed", 3, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "Bradley-Terry" in proc.stdout and "Elo" in proc.stdout
    first = results(out)
    html_before = (out / "report.html").read_bytes()
    for name in RESULT_FILES:
        (out / name).unlink()
    proc = run_cli("report", out)
    assert proc.returncode == 0, proc.stderr
    assert results(out) == first
    assert (out / "report.html").read_bytes() == html_before
    md = (out / "report.md").read_text()
    for fact in ("seed | 3", "random v1, easy v1", "2,000 per pairing",
                 "durak-sim tournament random easy --deals 2000 --seed 3",
                 '"variant": "podkidnoy"', "durak-sim | 0.1.0"):
        assert fact in md, fact
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["deals"] == 2000 and manifest["chunks"][0]["rows"] == 4000
    assert "tournament random easy" in manifest["provenance"]["command"]
    assert json.loads((out / "timing.json").read_text())["sessions"][0]["deals_per_s"] > 0


def test_a_timing_file_that_cannot_be_written_never_stops_a_run(tmp_path):
    """timing.json is a courtesy: where it cannot be written (here a folder stands in its
    place) the tournament still stores every chunk and builds its report."""
    out = tmp_path / "t"
    run_tournament(["random", "easy"], 400, 4, out, 1, progress=False, chunk_deals=200)
    (out / "timing.json").unlink()
    (out / "timing.json").mkdir()
    res = run_tournament(["random", "easy"], 1000, 4, out, 1, progress=False, resume=True,
                         chunk_deals=200)
    assert res.complete and res.report is not None and len(Manifest.load(out).chunks) == 5


def test_threads_and_chunking_do_not_change_the_tables(tmp_path):
    a = run_tournament(["random", "easy"], 3000, 4, tmp_path / "a", 1, progress=False)
    b = run_tournament(["random", "easy"], 3000, 4, tmp_path / "b", 2, progress=False,
                       chunk_deals=700)
    assert a.complete and b.complete and b.chunks_total == 5
    assert results(tmp_path / "a") == results(tmp_path / "b")


def _wait_for_chunks(manifest: Path, proc, n: int, timeout: float = 120.0) -> int:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail(f"tournament ended before it could be killed: {proc.stderr.read()}")
        try:
            done = len(json.loads(manifest.read_text())["chunks"])
        except (OSError, ValueError, KeyError):
            done = 0
        if done >= n:
            return done
        time.sleep(0.01)
    pytest.fail("no chunk finished in time")


def test_sigkill_mid_run_then_resume_equals_an_uninterrupted_run(tmp_path):
    out = tmp_path / "killed"
    args = ["tournament", "random", "easy", "--deals", 60_000, "--chunk", 1200, "--seed", 11,
            "--threads", 1, "--out", out]
    proc = subprocess.Popen([*CLI, *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_chunks(out / "manifest.json", proc, 1)
        end = time.monotonic() + 60   # written just after the manifest
        while not (out / "timing.json").exists() and time.monotonic() < end:
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    done_at_kill = Manifest.load(out).chunks
    assert 1 <= len(done_at_kill) < 50, "the run must be killed mid-way"
    kept = {c["file"]: c["sha256"] for c in done_at_kill}

    resumed = run_cli("tournament", "--resume", out, "--threads", 2)
    assert resumed.returncode == 0, resumed.stderr
    chunks = Manifest.load(out).chunks
    assert len(chunks) == 50
    assert all({c["file"]: c["sha256"] for c in chunks}[f] == sha for f, sha in kept.items())
    assert not list(out.rglob("*.tmp"))
    # the killed session keeps its timing up to its last save, the resumed one follows it
    killed, resumed = json.loads((out / "timing.json").read_text())["sessions"]
    assert killed["ended"] is None and killed["last_saved"] and not killed["complete"]
    assert killed["deals_played"] >= 1200 and killed["kernel_seconds"] > 0
    assert resumed["ended"] and resumed["complete"] and "last_saved" not in resumed

    whole = run_tournament(["random", "easy"], 60_000, 11, tmp_path / "whole", 2,
                           progress=False)
    assert whole.chunks_total == 2  # a different chunking: the tables must not care
    assert results(out) == results(tmp_path / "whole")


def _as_at_a_terminal() -> None:
    """In the child: SIGINT handled by default and not blocked, as for a command started at a
    terminal. A child inherits an ignored disposition and the signal mask of whatever started
    the test run (a CI job may start it with SIGINT ignored or blocked); Python then installs
    no KeyboardInterrupt handler, or the signal stays pending, and Ctrl-C cannot be tested."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_saves_and_says_how_to_resume(tmp_path):
    out = tmp_path / "t"
    # 200 chunks: long enough that a busy machine cannot let it finish before the signal
    proc = subprocess.Popen([*CLI, "tournament", "random", "easy", "--deals", "400000",
                             "--chunk", "2000", "--threads", "1", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_at_a_terminal)
    try:
        _wait_for_chunks(out / "manifest.json", proc, 1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert f"durak-sim tournament --resume {out}" in err
    done = Manifest.load(out).chunks
    assert 1 <= len(done) < 200
    # a chunk under way is saved in part too (runner.py), and the line says so
    assert re.search(rf"interrupted: {len(done)} of 200 chunks saved( \(and 1 more in part\))? "
                     rf"in {re.escape(str(out))}", err), err
    res = run_tournament(resume=True, out=out, progress=False, report=False)
    assert res.complete and res.chunks_done == 200


def test_resume_of_a_finished_tournament_plays_nothing(tmp_path):
    out = tmp_path / "t"
    run_tournament(["random", "easy"], 300, 1, out, 1, progress=False, report=False)
    before = snapshot(out / "games")
    res = run_tournament(resume=True, out=out, progress=False)
    assert res.deals_played == 0 and res.complete and res.report is not None
    assert snapshot(out / "games") == before and (out / "report.md").is_file()


def test_default_out_is_a_new_folder_under_reports_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = invoke("tournament", "random", "easy", "--deals", 50, "--seed", 6)
    assert res.returncode == 0, res.stderr
    made = list((tmp_path / "reports" / "runs").iterdir())
    assert len(made) == 1 and made[0].name.startswith("tournament-")
    assert made[0].name.endswith("-seed6") and (made[0] / "report.html").is_file()


def test_gauntlet(tmp_path):
    from durak_sim.registry import builtin_levels

    default = make_config(None, deals=10, seed=1, gauntlet="easy")
    assert default.strategies == ("easy", *(n for n in builtin_levels() if n != "easy"))
    res = run_tournament(["random"], 300, 2, tmp_path / "g", 1, gauntlet="easy",
                         progress=False)
    assert res.config.gauntlet == "easy" and res.config.pairings() == [("easy", "random")]
    assert "gauntlet: easy against random" in (tmp_path / "g" / "report.md").read_text()


# --------------------------------------------------------------------------------------
# Bad input: one line, exit 2, nothing stored is touched
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, words", [
    (["tournament", "easy", "nosuch"], ["unknown strategy", "nosuch"]),
    (["tournament", "easy"], ["at least two"]),
    (["tournament", "easy", "easy"], ["listed twice"]),
    (["tournament", "--gauntlet", "nosuch", "easy"], ["unknown strategy"]),
    (["tournament", "easy", "random", "--deals", "0"], ["--deals"]),
    (["tournament", "easy", "random", "--resume"], ["--resume needs"]),
    (["report"], ["Missing argument"]),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    assert_one_line_error(invoke(*args), *words)


def test_bad_input_from_the_console_script(tmp_path):
    assert_one_line_error(run_cli("tournament", "easy", "nosuch", "--out", tmp_path / "x"),
                          "unknown strategy")
    assert not (tmp_path / "x").exists()


def test_unwritable_out(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("keep")
    assert_one_line_error(invoke("tournament", "random", "easy", "--deals", 10, "--out",
                                 blocker / "sub"), "cannot write")
    assert_one_line_error(invoke("tournament", "random", "easy", "--deals", 10, "--out",
                                 blocker), "not a folder")
    assert blocker.read_text() == "keep"


def test_existing_non_empty_out_is_refused_and_untouched(tmp_path):
    out = tmp_path / "busy"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    assert_one_line_error(invoke("tournament", "random", "easy", "--deals", 10, "--out", out),
                          "not empty", "--resume")
    assert snapshot(out) == before
    # and resuming a folder that holds no tournament
    assert_one_line_error(invoke("tournament", "--resume", out), "no tournament")
    assert_one_line_error(invoke("report", out), "no tournament")
    assert snapshot(out) == before


def test_resume_of_another_tournament_is_refused_and_untouched(tmp_path):
    out = tmp_path / "t"
    run_tournament(["random", "easy"], 500, 1, out, 1, progress=False, chunk_deals=200)
    before = snapshot(out)
    for args, words in [(["--deals", 400], ["holds 500 deals", "never drops"]),
                        (["--seed", 2], ["another tournament", "seed"]),
                        (["easy", "random"], ["another tournament", "strategies"]),
                        (["--chunk", 100], ["another tournament", "chunk"])]:
        assert_one_line_error(invoke("tournament", *args, "--out", out, "--resume"), *words)
    assert_one_line_error(invoke("tournament", "--resume", out, "--out", tmp_path / "x"),
                          "different folders")
    assert snapshot(out) == before


def test_a_tournament_grown_by_resume_deals_equals_one_played_at_that_size(tmp_path):
    out = tmp_path / "g"
    run_tournament(["random", "easy", "normal"], 500, 3, out, 1, progress=False,
                   chunk_deals=200)
    before = snapshot(out / "games")
    res = invoke("tournament", "--resume", out, "--deals", 1100, "--no-progress")
    assert res.returncode == 0, res.stderr
    run_tournament(["random", "easy", "normal"], 1100, 3, tmp_path / "s", 2, progress=False,
                   chunk_deals=200)
    assert results(out) == results(tmp_path / "s")
    games = snapshot(out / "games")
    assert {k: games[k] for k in before} == before      # the stored deals are untouched
    m = Manifest.load(out)
    assert m.config["deals"] == 1100 and m.config["grown_from"] == [500]
    assert sorted({(c["deal_lo"], c["deal_hi"]) for c in m.chunks}) == \
        [(0, 200), (200, 400), (400, 500), (500, 700), (700, 900), (900, 1100)]
    assert len(m.provenance["resumed"]) == 1
    again = run_tournament(resume=True, out=out, progress=False, report=False)
    assert again.complete and again.deals_played == 0
    # a grown tournament grows again
    run_tournament(resume=True, out=out, deals=1200, progress=False)
    assert Manifest.load(out).config["grown_from"] == [500, 1100]
    assert TournamentConfig.from_dict(Manifest.load(out).config).chunk_ranges()[-1] == \
        (1100, 1200)


def test_resume_refuses_changed_strategy_versions(tmp_path):
    out = tmp_path / "t"
    run_tournament(["random", "easy"], 100, 1, out, 1, progress=False, report=False)
    m = Manifest.load(out)
    m.config["strategies"][1]["version"] = 99
    m.save(out)
    before = snapshot(out)
    with pytest.raises(UserError, match="versions changed"):
        run_tournament(resume=True, out=out, progress=False)
    assert snapshot(out) == before


def test_damaged_chunk_is_played_again_on_resume(tmp_path):
    out = tmp_path / "t"
    run_tournament(["random", "easy"], 400, 1, out, 1, progress=False, chunk_deals=200,
                   report=False)
    before = snapshot(out / "games")
    chunk = out / Manifest.load(out).chunks[0]["file"]
    chunk.write_bytes(b"garbage")
    res = run_tournament(resume=True, out=out, progress=False, report=False)
    assert res.deals_played == 200 and res.complete
    assert snapshot(out / "games") == before        # the same bytes again


def test_an_error_while_playing_keeps_every_finished_deal(tmp_path, monkeypatch, capsys):
    """Chunks are stored on a background thread while the next games are played: an error in
    the kernel still lets the stored chunk finish (listed in the manifest) and saves the deals
    played of the chunk it stopped (a partial chunk), and a storage error is raised in the
    caller."""
    from durak_sim import runner

    real = runner.play_deals

    def failing_at_300(strats, config, lo, hi, threads, stop=None):
        if lo >= 300:
            raise RuntimeError("kernel failed")
        return real(strats, config, lo, hi, threads, stop)

    out = tmp_path / "t"
    with monkeypatch.context() as m:
        m.setattr(runner, "play_deals", failing_at_300)
        m.setattr(runner, "FIRST_BLOCK_GAMES", 100)   # blocks of 50 deals
        m.setattr(runner, "GROWTH", 1)
        with pytest.raises(RuntimeError, match="kernel failed"):
            run_tournament(["random", "easy"], 1000, 1, out, 1, progress=False,
                           chunk_deals=200, report=False)
    stored = Manifest.load(out)
    assert [c["deal_lo"] for c in stored.chunks] == [0]
    assert [(p["deal_lo"], p["played_hi"]) for p in stored.partials] == [(200, 300)]
    # a report of the stopped run counts the partial chunk's games too (a QA finding: it
    # left them out while saying it covered the games played)
    from durak_sim.report import build_report

    seen = tmp_path / "seen"
    shutil.copytree(out, seen)
    rep = build_report(seen)
    assert rep.games == 600 and (rep.chunks_done, rep.chunks_partial) == (1, 1)
    assert "1 of 5 chunks are stored, 1 more in part; the tables cover every game stored" \
        in (seen / "report.md").read_text()
    # a damaged partial chunk is said and its deals played again, to the same games
    damaged = tmp_path / "damaged"
    shutil.copytree(out, damaged)
    part = damaged / stored.partials[0]["file"]
    part.write_bytes(part.read_bytes()[:-40])
    again = run_tournament(resume=True, out=damaged, progress=False, report=False)
    assert again.deals_played == 800
    assert "partial chunk" in capsys.readouterr().err
    assert run_tournament(resume=True, out=out, progress=False, report=False).deals_played \
        == 700
    assert not Manifest.load(out).partials and not list(out.rglob("*.partial.parquet"))
    whole = run_tournament(["random", "easy"], 1000, 1, tmp_path / "w", 1, progress=False,
                           chunk_deals=200, report=False)
    assert whole.complete and snapshot(out / "games") == snapshot(tmp_path / "w" / "games")

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runner, "write_chunk", no_space)
    res = invoke("tournament", "random", "easy", "--deals", 1000, "--chunk", 200, "--threads",
                 1, "--out", tmp_path / "u")
    # one line: which file, why, what is kept and how to continue
    assert_one_line_error(res, "cannot write", str(tmp_path / "u" / "games"),
                          "No space left on device", "chunks stored before are kept",
                          f"durak-sim tournament --resume {tmp_path / 'u'}")
    assert Manifest.load(tmp_path / "u").chunks == []


# --------------------------------------------------------------------------------------
# SPRT
# --------------------------------------------------------------------------------------
def test_sprt_stops_on_a_clear_difference():
    r = run_sprt("easy", "random", 0, 50, seed=1, block=200, threads=1)
    assert r.decision == "H1"
    assert r.deals % 200 == 0 and 0 < r.deals <= 2000
    assert r.games == 2 * r.deals and sum(r.pentanomial) == r.deals
    assert r.llr >= r.bounds[1]
    assert r.estimate.elo > 50 and r.estimate.lo < r.estimate.elo < r.estimate.hi
    d = r.to_dict()
    assert d["decision"] == "H1" and d["deals"] == r.deals
    json.dumps(d)
    again = run_sprt("easy", "random", 0, 50, seed=1, block=200, threads=2)
    assert (again.deals, again.pentanomial) == (r.deals, r.pentanomial)
    from rich.console import Console
    console = Console(record=True, width=120)
    r.print(console)
    text = console.export_text()
    assert "H1 accepted" in text and f"{r.deals:,}" in text


def test_sprt_reverse_accepts_h0_and_limits():
    r = run_sprt("random", "easy", -10, 10, seed=2, block=100, threads=1)
    assert r.decision == "H0"
    r = run_sprt("easy", "random", 0, 5, seed=2, block=10, max_deals=10, threads=1)
    assert r.deals == 10 and r.decision in ("H0", "H1", "continue")
    with pytest.raises(UserError, match="elo0 < elo1"):
        run_sprt("easy", "random", 5, 0)
    with pytest.raises(UserError, match="two different"):
        run_sprt("easy", "easy", 0, 5)


# --------------------------------------------------------------------------------------
# Benchmark smoke run
# --------------------------------------------------------------------------------------
def test_tournament_benchmark_prints_a_json_line():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_tournament.py"),
                          "--pairs", "500", "--threads", "1"], capture_output=True, text=True,
                         check=True).stdout
    line = json.loads(out.strip().splitlines()[-1])
    assert line["bench"] == "tournament" and line["pairs"] == 500
    assert line["ratio"] > 0 and line["bare_s"] > 0 and "ratio_play" in line


def test_tournament_benchmark_fresh_runs_new_processes():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_tournament.py"),
                          "--pairs", "300", "--threads", "1", "--fresh", "--repeat", "2"],
                         capture_output=True, text=True, check=True).stdout
    *runs, last = [json.loads(x) for x in out.strip().splitlines()]
    assert [x["bench"] for x in runs] == ["tournament-fresh"] * 2
    for line in runs:
        assert line["pairs"] == 300 and line["compile_s"] >= 0
        assert line["bare_s"] > 0 and line["tournament_s"] > 0 and line["ratio"] > 0
    assert last["bench"] == "tournament-fresh-summary" and last["runs"] == 2
    assert min(x["ratio"] for x in runs) <= last["ratio_median"] <= max(x["ratio"] for x in runs)


def test_resume_of_a_file_and_a_name_too_long_are_one_line_each(tmp_path):
    from cli_errors import assert_one_line_error

    (tmp_path / "afile").write_text("mine\n")
    proc = subprocess.run([*CLI, "tournament", "--resume", str(tmp_path / "afile")],
                          capture_output=True, text=True)
    assert_one_line_error(proc, "is a file, not a tournament's folder")
    assert (tmp_path / "afile").read_text() == "mine\n"
    proc = subprocess.run([*CLI, "tournament", "easy", "random", "--deals", "2", "--out",
                           str(tmp_path / ("x" * 300))], capture_output=True, text=True)
    assert_one_line_error(proc, "File name too long: ")
    assert "Errno" not in proc.stderr
