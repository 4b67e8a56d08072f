"""The larger tables through the real CLI: rulesets and line-ups refused in one line (exit
code 2, nothing touched), and match, series, replay and bench at every kind of table, their
records replaying on the reference engine; the reproduce command of a report runs as printed."""
import json
import shlex
from pathlib import Path
import subprocess
import sys

import pytest

from cli_errors import assert_one_line_error, invoke
from durak_sim.reference import replay

CLI = [sys.executable, "-m", "durak_sim.cli"]
#: a plugin whose strategy ``classiconly`` plays only the two-player default game
CLASSIC = ["--plugin", str(Path(__file__).parent / "plugins" / "classic_only.py")]


def run_cli(*args, cwd=None):
    """The CLI in-process; in a new process where it loads a plugin or needs a working
    folder (a plugin's registration must not outlive its command)."""
    if cwd is None and "--plugin" not in args:
        return invoke(*args)
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("args, words", [
    (["match", "random", "easy", "--players", "7"], ["--players", "7"]),
    (["match", "random", "easy", "random", "easy", "random", "--rules", "teams"],
     ["teams need 4 players", "not 5"]),
    (["match", "random", "easy", "--rules", "teams", "--players", "3"], ["teams", "not 3"]),
    (["match", "random", "easy", "--rules", "prostoy", "--transfer"], ["prostoy", "transfer"]),
    (["match", "random", "easy", "--rules", "prostoy", "--lead-multiple"],
     ["prostoy", "leads of several cards of a rank"]),
    (["match", "random", "easy", "--rules", "prostoy", "--throw-in", "all"],
     ["prostoy", "no throw-ins"]),
    (["match", "random", "easy", "--rules", "nosuch"], ["unknown ruleset", "nosuch"]),
    (["match", "random", "easy", "--throw-in", "some"], ["--throw-in", "some"]),
    (["match", "classiconly", "easy", "random", *CLASSIC],
     ["classiconly", "does not play", "3 players"]),
    (["match", "classiconly", "easy", "--rules", "perevodnoy", *CLASSIC],
     ["classiconly", "perevodnoy"]),
    (["match", "random", "easy", "random", "--players", "4"], ["4 players need 4"]),
    (["match", "random", "easy", "random", "--sprt", "0", "10"], ["--sprt", "two players"]),
    (["tournament", "random", "easy", "--players", "4"], ["two-player", "--players 4"]),
    (["tournament", "random", "easy", "--rules", "teams"], ["two-player", "4 players"]),
    (["series", "random", "easy", "--deals", "0"], ["--deals"]),
    (["series", "random", "easy"], ["--deals"]),
    (["series", "classiconly", "easy", "random", "--deals", "3", *CLASSIC],
     ["classiconly", "does not play"]),
    (["replay", "--seed", "1", "--deal", "0", "--seats", "random,easy,random", "--rules",
      "teams"], ["teams", "not 3"]),
    (["replay", "--seed", "1", "--deal", "0", "--seats", "random,easy", "--players", "3"],
     ["3 players need 3"]),
    (["bench", "--pairing", "random,easy", "--rules", "teams"], ["teams", "not 2"]),
])
def test_impossible_rulesets_and_line_ups_are_one_line(args, words):
    assert_one_line_error(run_cli(*args), *words)


@pytest.mark.parametrize("args", [
    ["match", "random", "easy", "random", "--rules", "teams", "--deals", "3"],
    ["match", "classiconly", "easy", "random", "--deals", "3", *CLASSIC],
    ["series", "random", "easy", "--rules", "prostoy", "--transfer", "--deals", "3"],
])
def test_a_refused_run_leaves_an_existing_records_file_alone(tmp_path, args):
    keep = tmp_path / "keep.jsonl"
    keep.write_text("precious\n")
    proc = run_cli(*args, "--records", str(keep), "--force")
    assert proc.returncode == 2, proc.stderr
    assert keep.read_text() == "precious\n"


@pytest.mark.parametrize("args, players", [
    (["match", "random", "easy", "random", "easy", "--deals", "20"], 4),
    (["match", "easy", "random", "easy", "random", "--rules", "teams", "--deals", "20"], 4),
    (["match", "random", "easy", "random", "--rules", "perevodnoy", "--deals", "20"], 3),
    (["match", "random", "easy", "random", "easy", "random", "easy", "--rules", "prostoy",
      "--deals", "10"], 6),
    (["match", "easy", "random", "--rules", "podkidnoy-full", "--deals", "20"], 2),
    (["series", "random", "easy", "random", "--deals", "4", "--series", "5"], 3),
    (["series", "easy", "random", "easy", "random", "easy", "random", "--rules", "teams",
      "--deals", "3", "--series", "4"], 6),
])
def test_tables_play_and_their_records_replay(tmp_path, args, players):
    out = tmp_path / "r.jsonl"
    proc = run_cli(*args, "--records", str(out), "--json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["rules"]["players"] == players
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records and all(r["rules"] == summary["rules"] for r in records)
    for rec in records:
        assert replay(rec) == rec["result"]
        if players > 2:
            places = rec["result"]["places"]
            assert len(places) == players and all(1 <= p <= players for p in places)
            if rec["result"]["durak"] is not None:
                assert places[rec["result"]["durak"]] == max(places)


def test_replay_shows_a_larger_table_bout_by_bout():
    proc = run_cli("replay", "--seed", "7", "--deal", "3", "--seats", "easy,random,random")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "seat 0 (easy)" in text and "seat 2 (random)" in text
    assert "attacks" in text and "Durak" in text
    rec = json.loads(run_cli("replay", "--seed", "7", "--deal", "3", "--seats",
                             "easy,random,random", "--json").stdout)
    assert rec["rules"]["players"] == 3 and replay(rec) == rec["result"]


def test_replay_of_a_series_deal_is_that_deal_of_the_series(tmp_path):
    out = tmp_path / "s.jsonl"
    proc = run_cli("series", "random", "easy", "random", "--deals", "3", "--series", "2",
                   "--seed", "5", "--records", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    last = records[-1]
    assert last["series"] == {"series": 1, "deal": 2}
    proc = run_cli("replay", "--seed", "5", "--series", "1", "--deal", "2", "--seats",
                   "random,easy,random", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == last
    summary = json.loads(run_cli("series", "random", "easy", "random", "--deals", "3",
                                 "--series", "2", "--seed", "5", "--json").stdout)
    assert (summary["series"], summary["deals"], summary["games"]) == (2, 3, 6)
    # --record --series J --deal K: that deal of that series, as in the seed mode
    shown = run_cli("replay", "--record", str(out), "--series", "1", "--deal", "2", "--json")
    assert shown.returncode == 0, shown.stderr
    assert [json.loads(x) for x in shown.stdout.splitlines()] == [last]
    assert_one_line_error(run_cli("replay", "--record", str(out), "--seed", "5"),
                          "--seed does not apply")


def test_bench_times_a_larger_table():
    proc = run_cli("bench", "--pairing", "random,random,random,random", "--deals", "2000",
                   "--threads", "1", "--repeat", "1", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout.splitlines()[-1])
    assert line["deals_per_s"] > 0 and line["rules"]["players"] == 4


def test_a_reports_reproduce_command_runs_as_printed(tmp_path):
    """A two-player tournament of another ruleset: the command its report prints makes the
    same tables again."""
    first = tmp_path / "first"
    proc = run_cli("tournament", "random", "easy", "--deals", "40", "--rules", "perevodnoy",
                   "--out", str(first), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((first / "manifest.json").read_text())
    assert manifest["config"]["rules"]["variant"] == "perevodnoy"
    report = (first / "report.md").read_text()
    command = next(line for line in report.splitlines()
                   if line.strip().startswith("durak-sim tournament"))
    argv = shlex.split(command.strip())
    assert argv[-2:] == ["--out", "DIR"] and "--rules" in argv
    again = tmp_path / "again"
    proc = run_cli(*argv[1:-1], str(again), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    for name in ("strategies.csv", "pairings.csv"):
        assert (again / name).read_bytes() == (first / name).read_bytes(), name


def test_a_resume_from_another_folder_asks_for_a_relative_plugin_path(tmp_path):
    """A manifest keeps a plugin's path as given; resumed from elsewhere, the line says to
    give it with --plugin, and with it the tournament goes on."""
    start = tmp_path / "start"
    start.mkdir()
    (start / "mine.py").write_text(Path(CLASSIC[1]).read_text())
    proc = run_cli("tournament", "classiconly", "random", "--deals", "4", "--chunk", "2",
                   "--plugin", "mine.py", "--out", "t", "--no-progress", cwd=start)
    assert proc.returncode == 0, proc.stderr
    out = start / "t"
    proc = run_cli("tournament", "--resume", str(out), "--deals", "6", "--no-progress",
                   cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "mine.py" in proc.stderr and "--plugin PATH" in proc.stderr
    proc = run_cli("tournament", "--resume", str(out), "--deals", "6", "--plugin",
                   str(start / "mine.py"), "--no-progress", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_a_strategy_failing_in_a_series_is_named_by_series_and_deal(tmp_path):
    """The line names the deal as ``replay --series J --deal K`` takes it (the series, then
    the deal in it), not by the deal index the series shares."""
    import re

    plugin = tmp_path / "late.py"
    plugin.write_text('''
from durak_sim.registry import register_strategy
calls = [0]
def decide(obs, legal, hist, rng, mem):
    calls[0] += 1
    if calls[0] > 200:
        raise RuntimeError("tired")
    return legal[1]
register_strategy("late", decide, plays="all")
''')
    proc = subprocess.run([*CLI, "series", "late", "random", "random", "--deals", "4",
                           "--series", "50", "--threads", "1", "--plugin", str(plugin)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert_one_line_error(proc, "strategy 'late'", "raised RuntimeError: tired")
    where = re.search(r"at seed 1 series (\d+) deal (\d+)$", proc.stderr.strip())
    assert where, proc.stderr
    j, k = map(int, where.groups())
    assert j < 50 and k < 4 and (j, k) != (0, 0)


@pytest.mark.parametrize("args, why", [
    (["--seed", "11", "--series", "1", "--deal", "2"], "the seat after the dealer, seat 2: R9.1"),
    (["--seed", "11", "--series", "1", "--deal", "0"], "lowest trump, R2.3"),
    (["--seed", "2459", "--deal", "0"], "nobody holds a trump: seat 0, R2.3"),
])
def test_replay_says_why_the_first_attacker_attacks_first(args, why):
    proc = invoke("replay", *args, "--seats", "easy,normal,random", "--players", "3")
    assert proc.returncode == 0, proc.stderr
    assert f"attacks first ({why})" in proc.stdout


def test_replay_of_a_series_file_picks_a_deal_with_series_and_deal(tmp_path):
    path = tmp_path / "s.jsonl"
    proc = invoke("series", "easy", "normal", "random", "--deals", "3", "--series", "2",
                  "--players", "3", "--threads", "1", "--records", path)
    assert proc.returncode == 0, proc.stderr
    assert_one_line_error(invoke("replay", "--record", path, "--deal", "1"),
                          "records of series", "--series J --deal K")
    proc = invoke("replay", "--record", path, "--series", "1", "--deal", "2")
    assert proc.returncode == 0 and proc.stdout.startswith("deal 2 of series 1 ")
    # a file of series and single deals together: --deal alone picks among the single deals
    single = tmp_path / "m.jsonl"
    assert invoke("match", "easy", "normal", "random", "--deals", "2", "--threads", "1",
                  "--records", single).returncode == 0
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(path.read_text() + single.read_text())
    proc = invoke("replay", "--record", mixed, "--deal", "1", "--json")
    assert proc.returncode == 0 and proc.stdout.count("\n") == 3   # its three seatings
    assert_one_line_error(invoke("replay", "--record", mixed, "--deal", "5"),
                          "no record of deal 5", "records of series")
    assert_one_line_error(invoke("replay", "--record", "/dev/null"), "not a regular file")
    assert_one_line_error(invoke("replay", "--record", path, "--players", "4"),
                          "the rules options do not apply")


def test_a_table_wider_than_the_output_keeps_every_figure(tmp_path):
    """Printed to a pipe (no terminal width), a series' table with its score column, or a
    match with a long engine name, is never cut short with '…'."""
    import subprocess
    import sys

    cli = [sys.executable, "-m", "durak_sim.cli"]
    env = {**__import__("os").environ, "COLUMNS": "80"}
    out = subprocess.run([*cli, "series", "easy", "random", "normal", "random", "easy", "normal",
                          "--deals", "5", "--series", "4", "--no-progress", "--threads", "1"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "…" not in out.stdout and "a series)" in out.stdout
