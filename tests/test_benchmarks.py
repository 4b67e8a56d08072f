"""Benchmarks are maintained code: a smoke run of each prints well-formed JSON lines."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def test_kernel_benchmark_prints_json_lines():
    out = subprocess.run([sys.executable, str(BENCH / "bench_kernel.py"), "--deals", "500",
                          "--repeat", "1", "--threads", "1,2", "--reference", "10"],
                         capture_output=True, text=True, check=True).stdout
    lines = [json.loads(x) for x in out.splitlines()]
    kernel = [x for x in lines if x["bench"] == "kernel"]
    assert {x["threads"] for x in kernel} == {1, 2}
    assert all(x["deals_per_s"] > 0 and "compile_s" in x for x in kernel)
    # the same deals on the reference engine, and the kernel's speed-up over it
    ref = [x for x in lines if x["bench"] == "reference"]
    assert len(ref) == 2 and all(x["deals"] == 10 and x["deals_per_s"] > 0 for x in ref)
    summary = [x for x in lines if x["bench"] == "kernel-summary"]
    assert len(summary) == 2 and all(x["kernel_vs_reference"] > 0 and x["scaling"] > 0
                                     for x in summary)


def test_hard_endgame_benchmark_checks_every_endgame_decision(tmp_path):
    """R10.4: hard solves the endgame of perfect information: the benchmark checks each of
    its uncapped endgame decisions against the solver's value, and none gives one away."""
    dump = tmp_path / "capped.jsonl"
    log = tmp_path / "decisions.jsonl"
    out = subprocess.run([sys.executable, str(BENCH / "bench_hard_endgame.py"), "--deals", "10",
                          "--jobs", "1", "--verify-cap", "1000000", "--tt-log2", "16",
                          "--dump-capped", str(dump), "--dump-decisions", str(log),
                          "--dump-unverified", str(tmp_path / "unverified.jsonl")],
                         capture_output=True, text=True, check=True).stdout
    line = json.loads(out)
    assert line["bench"] == "hard-endgame" and line["games"] == 20
    assert line["endgame_decisions"] > 0
    assert line["kept"] + line["left"] + line["unverified"] == line["endgame_decisions"]
    assert line["left_uncapped"] == 0
    lo, hi = line["cap_hit_rate_ci95"]
    assert 0 <= lo <= line["cap_hit_rate"] <= hi <= 1
    assert line["deals_with_cap_hits"] <= min(10, line["cap_hits"])
    by_cards = np.array(line["by_cards"])     # [cards, decisions, caps] per cards left
    assert by_cards[:, 1].sum() == line["endgame_decisions"]
    assert by_cards[:, 2].sum() == line["cap_hits"]
    assert (np.diff(by_cards[:, 0]) > 0).all() and (by_cards[:, 0] <= 36).all()
    # one position (docs/position.md, for durak-sim solve) per capped decision
    from durak_sim.position import Position

    lines = dump.read_text().splitlines()
    assert len(lines) == line["cap_hits"]
    assert all(Position.from_json(x).to_move is not None for x in lines)
    unverified = (tmp_path / "unverified.jsonl").read_text().splitlines()
    assert len(unverified) == line["unverified_uncapped"]

    # the log of every endgame call, solved again in order (bench_solver.py --replay): the
    # replay is hard's own search, so it takes every logged action again
    replay = json.loads(subprocess.run(
        [sys.executable, str(BENCH / "bench_solver.py"), "--replay", str(log)],
        capture_output=True, text=True, check=True).stdout)
    assert replay["bench"] == "solver-replay"
    assert replay["calls"] == replay["logged_actions"] == line["endgame_decisions"]
    assert replay["same_actions"] == replay["calls"]
    assert replay["cap_hits"] == line["cap_hits"] and replay["nodes"] > 0
    # plain positions (durak-sim/position/1 lines) replay too, each in a table of its own
    plain = tmp_path / "plain.jsonl"
    logged = [json.loads(x) for x in log.read_text().splitlines()[:5]]
    plain.write_text("".join(json.dumps(d["position"]) + "\n" for d in logged))
    again = json.loads(subprocess.run(
        [sys.executable, str(BENCH / "bench_solver.py"), "--replay", str(plain)],
        capture_output=True, text=True, check=True).stdout)
    assert again["calls"] == again["games"] == len(logged) and again["logged_actions"] == 0


@pytest.mark.parametrize("extra", [["--rules", "perevodnoy"], ["--players", "4", "--rotate"]],
                         ids=["perevodnoy", "four-players"])
def test_replay_is_hard_s_search_at_every_table(tmp_path, extra):
    """A log of the transfer game (the variant search) or of a larger table (the plain
    solver with the general settings) replays as hard played it. (The checks get one node,
    so every uncapped decision is checked again, with the second check's cap.)"""
    log = tmp_path / "decisions.jsonl"
    line = json.loads(subprocess.run(
        [sys.executable, str(BENCH / "bench_hard_endgame.py"), "--deals", "12", "--jobs", "1",
         "--verify-cap", "1", "--retry-cap", "100000000", "--retry-log2", "18",
         "--dump-decisions", str(log), *extra],
        capture_output=True, text=True, check=True).stdout)
    assert line["unverified_uncapped"] == line["left"] == 0 < line["verified_on_retry"]
    assert line["kept"] == line["endgame_decisions"] - line["unverified"]
    replay = json.loads(subprocess.run(
        [sys.executable, str(BENCH / "bench_solver.py"), "--replay", str(log)],
        capture_output=True, text=True, check=True).stdout)
    assert replay["calls"] == line["endgame_decisions"] > 0
    assert replay["same_actions"] == replay["calls"]
    assert replay["cap_hits"] == line["cap_hits"]
    from durak_sim.strategies import hard

    assert (replay["node_cap"], replay["tt_log2"]) == (hard.GENERAL_NODE_CAP,
                                                       hard.LOG2_TT_GENERAL)


def test_unverified_decisions_are_checked_by_the_optimal_set(tmp_path):
    """Decisions no value check settled (here every one: the checks get one node) are
    checked again through durak-sim's solve: hard's action among the optimal ones."""
    dump = tmp_path / "unverified.jsonl"
    line = json.loads(subprocess.run(
        [sys.executable, str(BENCH / "bench_hard_endgame.py"), "--deals", "8", "--jobs", "1",
         "--players", "4", "--rotate", "--verify-cap", "1", "--dump-unverified", str(dump)],
        capture_output=True, text=True, check=True).stdout)
    out = subprocess.run([sys.executable, str(BENCH / "check_unverified.py"), str(dump),
                          "--max-nodes", "50000000", "--table-log2", "18"],
                         capture_output=True, text=True, check=True).stdout
    *rows, summary = [json.loads(x) for x in out.splitlines()]
    assert summary["bench"] == "check-unverified"
    assert summary["decisions"] == len(rows) == line["unverified_uncapped"] > 0
    assert summary["kept"] == len(rows) and all(r["kept"] for r in rows)


def test_the_unverified_check_reads_bounds_when_the_set_is_cut_short():
    from types import SimpleNamespace as R

    sys.path.insert(0, str(BENCH))
    try:
        from check_unverified import verdict
    finally:
        sys.path.remove(str(BENCH))

    assert verdict(R(exact=True, best_actions=["defend 9S KH", "take"]), "defend 9S")
    assert not verdict(R(exact=True, best_actions=["take"]), "defend 9S")
    cut = R(exact=False, bounds=(1, 1), action_bounds={"attack AD": (1, 1),
                                                       "attack AH": (-1, 1),
                                                       "stop": (-1, -1)})
    assert verdict(cut, "attack AD") is True and verdict(cut, "attack AH") is None
    assert verdict(cut, "stop") is False and verdict(cut, "attack 6S") is None
    assert verdict(R(exact=False, bounds=(-1, 1), action_bounds={}), "take") is None


def test_solve_limits_benchmark_prints_json_lines():
    out = subprocess.run([sys.executable, str(BENCH / "bench_solve_limits.py"), "--reps", "1",
                          "--cli", "--cli-time-limit", "0.5"],
                         capture_output=True, text=True, check=True).stdout
    lines = [json.loads(x) for x in out.splitlines()]
    ab = [x for x in lines if x["bench"] == "solve-watch"]
    assert len(ab) == 3 and all(len(x["nodes"]) == 1 and x["watched_over_direct"] > 0
                                for x in ab)
    (cli,) = [x for x in lines if x["bench"] == "solve-default"]
    assert cli["stopped_by"] == "time" and cli["wall_s"] > cli["search_s"] > 0


def test_cap_hit_interval_resamples_whole_deals():
    """Without clustering (one decision a deal) the deal bootstrap is the binomial interval
    (Wilson's, scipy); with the same hits packed into few deals it is wider."""
    import numpy as np
    import scipy.stats

    sys.path.insert(0, str(BENCH))
    try:
        from bench_hard_endgame import rate_interval
    finally:
        sys.path.remove(str(BENCH))
    caps = np.zeros(20_000, np.int64)
    caps[:100] = 1
    lo, hi = rate_interval(caps, np.ones(20_000, np.int64))
    wilson = scipy.stats.binomtest(100, 20_000).proportion_ci(method="wilson")
    assert abs(lo - wilson.low) < 0.0004 and abs(hi - wilson.high) < 0.0004
    packed = np.zeros(20_000, np.int64)
    packed[:10] = 10
    plo, phi = rate_interval(packed, np.ones(20_000, np.int64))
    assert phi - plo > 2 * (hi - lo)


def test_solver_profile_names_numba_functions():
    """The profiler's reading of numba's mangled names (perf map and reports)."""
    sys.path.insert(0, str(BENCH))
    try:
        from profile_solver import _short
    finally:
        sys.path.remove(str(BENCH))
    assert _short("_ZN9durak_sim6kernel6solver3_vsB3v67B48c8tJTIeFIjxB2IKSgExx") == \
        "durak_sim.kernel.solver._vs"
    assert _short("_ZN7cpython9durak_sim6kernel6solver10solve_rootB2v1") == \
        "cpython.durak_sim.kernel.solver.solve_root"
    assert _short("cfunc._ZN9durak_sim") == "cfunc._ZN9durak_sim"


@pytest.mark.slow
def test_solver_profile_runs_under_perf(tmp_path):
    """A fresh compile (about a minute) and a short replay under perf; skipped without perf
    or without permission to sample."""
    import shutil

    if shutil.which("perf") is None or shutil.which("objdump") is None:
        pytest.skip("perf or objdump not installed")
    probe = subprocess.run(["perf", "stat", "-e", "task-clock", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("perf may not sample here")
    log = tmp_path / "decisions.jsonl"
    subprocess.run([sys.executable, str(BENCH / "bench_hard_endgame.py"), "--deals", "20",
                    "--jobs", "1", "--dump-decisions", str(log)], capture_output=True,
                   check=True)
    out = subprocess.run([sys.executable, str(BENCH / "profile_solver.py"), "--replay",
                          str(log), "--repeat", "1", "--out", str(tmp_path / "p")],
                         capture_output=True, text=True, check=True).stdout
    line = json.loads(out.splitlines()[-1])
    assert line["bench"] == "solver-profile" and line["calls"] > 0
    assert (tmp_path / "p" / "functions.txt").exists()


def test_engine_benchmark_prints_a_json_line_with_the_compile_apart():
    out = subprocess.run([sys.executable, str(BENCH / "bench_engine.py"), "--deals", "4",
                          "--repeat", "1"], capture_output=True, text=True, check=True).stdout
    (line,) = [json.loads(x) for x in out.splitlines()]
    assert line["bench"] == "engine" and line["games"] == 8 and line["same_records"]
    assert line["decisions"] > 0 and line["engine_s"] > 0 and line["compile_s"] >= 0


@pytest.mark.slow   # compiles normal's line-ups at two more tables
def test_normal_tables_benchmark_prints_a_line_per_table():
    out = subprocess.run([sys.executable, str(BENCH / "bench_normal_tables.py"), "--deals", "40",
                          "--only", "perevodnoy-3,teams-4"],
                         capture_output=True, text=True, check=True).stdout
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x["tag"] for x in lines] == ["perevodnoy-3p-6", "teams-4p-6"]
    for x in lines:
        assert x["deals"] == 40 and 0 <= x["capped"] <= 40
        assert 1 <= x["normal"]["place"] <= x["rules"]["players"]
        assert 0 <= x["other"]["durak"] <= 1 and x["normal"]["place_ci95"] >= 0
        assert x["seconds"] >= 0 and x["compile_s"] >= 0


@pytest.mark.parametrize("players, levels", [(2, "random,easy"), (4, "random,easy,easy,easy")])
def test_coverage_benchmark_prints_a_line_per_interval_column(tmp_path, players, levels):
    out = subprocess.run([sys.executable, str(BENCH / "bench_coverage.py"), "--players",
                          str(players), "--levels", levels, "--runs", "2", "--deals", "10",
                          "--truth-deals", "40", "--out", str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    lines = [json.loads(x) for x in out.splitlines()]
    cols = [x for x in lines if x["bench"] == "coverage"]
    tables = {x["table"] for x in cols}
    assert tables == ({"strategies", "ratings", "pairings"} if players == 2 else
                      {"strategies", "ratings", "head_to_head", "seats", "first_attacker"})
    assert all(x["runs"] + x["no_interval"] == 2 for x in cols)
    assert all(0 <= x["coverage"] <= 1 for x in cols if x["runs"])
    assert lines[-1]["bench"] == "coverage-summary" and lines[-1]["runs"] == 2


@pytest.mark.parametrize("script,args,said", [
    ("bench_kernel.py", ["--pairing", "foo,bar"], "unknown strategy 'foo'"),
    ("bench_solver.py", ["--replay", "/nonexistent/log.jsonl"], "/nonexistent/log.jsonl: "),
    ("bench_hard_endgame.py", ["--rules", "bogus"], "unknown ruleset 'bogus'"),
    ("bench_normal_tables.py", ["--only", "bogus-9"], "--only: no table bogus-9"),
    ("bench_coverage.py", ["--players", "4", "--runs", "1"], "--players 4 needs --levels"),
    ("bench_tables.py", ["--ab", "/nonexistent/site", "--rounds", "1", "--deals", "100"],
     "/nonexistent/site holds no durak_sim package"),
])
def test_a_benchmark_given_bad_input_says_so_in_one_line(script, args, said):
    """As the commands do: one line on stderr, exit code 2, no traceback."""
    r = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                       text=True)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0] and lines[0].startswith(str(BENCH / script))


def test_a_benchmark_s_help_says_its_whole_first_paragraph():
    """(it said only the docstring's first line, cut mid-sentence)"""
    out = subprocess.run([sys.executable, str(BENCH / "bench_hard_endgame.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    first = " ".join(out.split("\n\n")[1].split())
    assert first.endswith(".") and "how often its search" in first
