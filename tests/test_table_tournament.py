"""``durak-sim tournament --players N``: line-ups at tables of three to six players, every
deal in every seating, stored, resumable and reproducible like the two-player tournament
(same bytes whatever the threads, chunking, resumptions or the dask path), checked against
the manifest, and reported (tables, plots, report.md / report.html, all numbers finite)."""
import hashlib
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_errors import assert_one_line_error, invoke
from test_tournament import _as_at_a_terminal, _wait_for_chunks
from durak_sim import runner
from durak_sim.place_report import TABLE_FILES
from durak_sim.report import build_report
from durak_sim.rules import Rules
from durak_sim.storage import Manifest
from durak_sim.tournament import TournamentInterrupted, run_tournament

CLI = [sys.executable, "-m", "durak_sim.cli"]
PLUGIN = '''
from durak_sim.registry import register_strategy
from durak_sim.strategies.easy import decide as easy
from durak_sim.strategies.random import decide as random

register_strategy("random2", random, version=1, plays="all")
register_strategy("easy2", easy, version=1, plays="all")
'''


def run_cli(*args, **kw):
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, **kw)



def files(folder: Path, games: bool = True) -> dict:
    """Every result file (and stored chunk) -> SHA-256; the manifest and timings aside."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        if p.is_file() and p.name not in ("manifest.json", "timing.json") and \
                (games or not rel.startswith("games")):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def register_more():
    """random2 and easy2: the same play under other names (a field larger than a table)."""
    from durak_sim.registry import register_strategy
    from durak_sim.strategies.easy import decide as easy
    from durak_sim.strategies.random import decide as random

    register_strategy("random2", random, version=1, plays="all")
    register_strategy("easy2", easy, version=1, plays="all")


TABLES = {
    "3p": (["random", "easy", "easy"], Rules(players=3), 3),
    # the two randoms against the two easys: on the even seats or on the odd ones
    "4p-teams": (["random", "easy", "random", "easy"], Rules(variant="teams"), 2),
    "5p": (["random", "easy", "easy", "easy", "easy"], Rules(players=5), 5),
    "6p-transfer-teams": (["random", "easy", "easy", "random", "easy", "random"],
                          Rules(variant="teams", players=6, transfer=True), 12),
}


@pytest.fixture(scope="module", params=sorted(TABLES))
def table_run(request, tmp_path_factory):
    field, rules, seatings = TABLES[request.param]
    out = tmp_path_factory.mktemp(request.param) / "t"
    res = run_tournament(field, 120, 3, out, 1, progress=False, rules=rules, chunk_deals=50)
    return request.param, out, res, seatings


def _numbers_are_finite(folder: Path) -> None:
    for name in [*TABLE_FILES.values(), "report.md", "report.html"]:
        path = folder / name
        if not path.is_file():
            continue
        text = path.read_text()
        assert not re.search(r"\b(nan|NaN|inf|Infinity)\b", text), name
        if name.endswith(".csv"):
            frame = pd.read_csv(path)
            num = frame.select_dtypes("number").to_numpy(dtype=float)
            assert not np.isinf(num).any(), name


def test_the_partnerships_losses_are_the_team_table_s(table_run):
    """With teams, the counts a tournament's place table is built from hold each
    partnership's losses (the line-up's positions of one parity, on whichever seats a
    seating puts them), which are the team table's rows."""
    from durak_sim.place_report import count_stored
    from durak_sim.place_stats import place_counts_of

    name, out, res, _ = table_run
    cfg = res.config
    if not cfg.rules.teams:
        pytest.skip("no teams at this table")
    lineup = cfg.lineups()[0]
    c = place_counts_of(count_stored(out, Manifest.load(out), cfg))
    teams = pd.read_csv(out / "teams.csv").set_index("team")
    for p in (0, 1):
        key = "+".join(sorted(lineup[p::2], key=list(cfg.strategies).index))
        assert c.team_lost[p] == teams.loc[key, "lost"]


def test_every_table_size_plays_stores_and_reports(table_run):
    name, out, res, seatings = table_run
    cfg = res.config
    assert res.complete and len(cfg.seatings(cfg.lineups()[0])) == seatings
    assert res.games_played == 120 * seatings == cfg.games
    m = Manifest.load(out)
    assert all("lineup" in c and "pairing" not in c for c in m.chunks)
    assert [c["rows"] for c in m.chunks] == [50 * seatings, 50 * seatings, 20 * seatings]
    assert m.chunks[0]["file"].startswith("games/" + "_vs_".join(cfg.lineups()[0]) + "/")
    import pyarrow.parquet as pq

    t = pq.read_table(out / m.chunks[0]["file"])
    n = cfg.players
    assert t.column_names == ["seed", "deal", "seating", *(f"seat{s}" for s in range(n)),
                              *(f"seat{s}_version" for s in range(n)),
                              *(f"place{s}" for s in range(n)), "outcome", "durak",
                              "durak_team", "first_attacker", "bouts", "cards_left"]
    assert str(t.schema.field("seating").type) == "int16"
    assert str(t.schema.field("place0").type) == "int8"
    for f in [*(v for k, v in TABLE_FILES.items() if k != "teams" or cfg.rules.teams),
              "report.md", "report.html", "plots/ratings.png", "plots/places.svg",
              "plots/seats.png", "plots/convergence.png"]:
        assert (out / f).is_file(), f
    assert (out / "teams.csv").is_file() == cfg.rules.teams
    _numbers_are_finite(out)
    md = (out / "report.md").read_text()
    assert cfg.command() in md and f"--players {n}" in cfg.command()
    assert " ".join(cfg.rules.cli_args()) in cfg.command()
    assert cfg.rules.describe() in md and "seatings" in md
    ratings = pd.read_csv(out / "ratings.csv")
    assert abs(ratings["rating"].sum()) < 1e-6 and list(ratings["strategy"]) == ["easy",
                                                                                 "random"]
    s = pd.read_csv(out / "strategies.csv")
    assert s["games"].sum() == cfg.games * n
    assert s[[f"place{p}" for p in range(1, n + 1)]].to_numpy().sum() == cfg.games * n
    seats = pd.read_csv(out / "seats.csv")
    assert (seats["games"] == cfg.games).all() and len(seats) == n
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and "<img src=\"plots" not in html


def test_the_report_rebuilds_the_same_bytes(table_run, tmp_path):
    name, out, _, _ = table_run
    before = files(out)
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    for f in [*TABLE_FILES.values(), "report.md", "report.html"]:
        (copy / f).unlink(missing_ok=True)
    for p in (copy / "plots").iterdir():
        p.unlink()
    build_report(copy)
    assert files(copy) == before


def test_a_field_larger_than_the_table_plays_every_combination(tmp_path):
    register_more()
    res = run_tournament(["random", "easy", "random2", "easy2"], 60, 2, tmp_path / "t", 1,
                         progress=False, rules=Rules(players=3))
    cfg = res.config
    assert cfg.lineups() == [("random", "easy", "random2"), ("random", "easy", "easy2"),
                             ("random", "random2", "easy2"), ("easy", "random2", "easy2")]
    assert res.games_played == 4 * 60 * 6
    lineups = pd.read_csv(tmp_path / "t" / "lineups.csv")
    assert len(lineups) == 4 * 3 and set(lineups["deals"]) == {60}
    # a gauntlet: the line-ups that hold its strategy
    g = run_tournament(["easy", "random2", "easy2"], 30, 2, tmp_path / "g", 1, gauntlet="random",
                       progress=False, rules=Rules(players=3), report=False)
    assert g.config.lineups() == [("random", "easy", "random2"), ("random", "easy", "easy2"),
                                  ("random", "random2", "easy2")]
    # the same deal is the same deal at every table: random2 plays as random does
    t = pd.read_csv(tmp_path / "t" / "strategies.csv").set_index("strategy")
    assert t.loc["random", "games"] == t.loc["random2", "games"]


def test_an_unfinished_four_player_tournament_grows_to_the_same_tables(tmp_path,
                                                                      monkeypatch):
    field, rules = ["random", "easy", "easy", "random"], Rules(players=4)
    real, calls = runner.play_deals, []

    def stop_after_two(strats, config, lo, hi, threads, stop=None):
        got = real(strats, config, lo, hi, threads, stop)
        calls.append((lo, hi))
        if len(calls) == 2 and stop is not None:
            stop.kernel_flag[0] = 1
            stop.event.set()
        return got

    monkeypatch.setattr(runner, "play_deals", stop_after_two)
    with pytest.raises(TournamentInterrupted):
        run_tournament(field, 150, 4, tmp_path / "g", 1, progress=False, rules=rules,
                       chunk_deals=100)
    monkeypatch.setattr(runner, "play_deals", real)
    res = invoke("tournament", "--resume", tmp_path / "g", "--deals", 260, "--no-progress")
    assert res.returncode == 0, res.stderr
    run_tournament(field, 260, 4, tmp_path / "s", 2, progress=False, rules=rules,
                   chunk_deals=100)
    assert files(tmp_path / "g", games=False) == files(tmp_path / "s", games=False)
    assert Manifest.load(tmp_path / "g").config["grown_from"] == [150]


def test_a_resume_takes_the_same_game_under_another_name_and_refuses_another(tmp_path):
    out = tmp_path / "t"
    rules = Rules(variant="teams", players=4, transfer=True)
    run_tournament(["easy", "random", "easy", "random"], 3, 2, out, 1, progress=False,
                   chunk_deals=2, rules=rules)
    whole = files(out, games=False)
    m = Manifest.load(out)
    m.chunks = m.chunks[:1]        # as if stopped after the first chunk
    m.save(out)
    # the same game named as perevodnoy with teams: resumed, stored under its first name
    res = invoke("tournament", "--resume", out, "--rules", "perevodnoy", "--teams",
                 "--players", 4, "--no-progress")
    assert res.returncode == 0, res.stderr
    assert len(Manifest.load(out).chunks) == 2
    assert Manifest.load(out).config["rules"] == rules.to_dict()
    assert files(out, games=False) == whole
    # the teams game without transfers is another tournament: refused, nothing changed
    before = files(out)
    assert_one_line_error(invoke("tournament", "--resume", out, "--rules", "teams",
                                 "--players", 4, "--no-progress"),
                          "another tournament", "teams-4p-6+transfer", "asked teams-4p-6")
    # a field too small for its tables is another tournament's too (it was told only that
    # the field was too small, with a new tournament's command)
    assert_one_line_error(invoke("tournament", "--resume", out, "random", "easy",
                                 "--no-progress"),
                          "another tournament", "easy, random, easy, random",
                          "do not fit it", "the field has 2")
    # a gauntlet with no strategies named (the field is then every level): the same, and
    # no traceback
    assert_one_line_error(invoke("tournament", "--resume", out, "--gauntlet", "expert",
                                 "--rules", "prostoy", "--no-progress"), "another tournament")
    assert files(out) == before


def test_a_resume_at_three_players_takes_neighbours_as_the_same_game(tmp_path):
    """At two and three players every seat is the defender's neighbour: a tournament
    stored with the default throw-in resumes with --throw-in neighbours (docs/rulesets.md);
    a resume with another chunk size says that it is fixed."""
    out = tmp_path / "t"
    run_tournament(["random", "easy", "random"], 3, 2, out, 1, progress=False,
                   chunk_deals=2, rules=Rules(players=3))
    m = Manifest.load(out)
    m.chunks = m.chunks[:1]
    m.save(out)
    res = invoke("tournament", "--resume", out, "--players", 3, "--throw-in", "neighbours",
                 "--no-progress")
    assert res.returncode == 0, res.stderr
    assert len(Manifest.load(out).chunks) == 2
    assert Manifest.load(out).config["rules"] == Rules(players=3).to_dict()
    assert_one_line_error(invoke("tournament", "--resume", out, "--chunk", 1, "--no-progress"),
                          "keeps the chunk size", "resume without --chunk")


def test_an_incomplete_report_ends_its_convergence_at_the_deals_stored(tmp_path):
    """A tournament stopped after 150 of 2,000 deals: its convergence curve ends at 150
    deals (it was labelled with the next checkpoint, 151)."""
    out = tmp_path / "t"
    run_tournament(["random", "easy", "random", "easy"], 2000, 1, out, 1, progress=False,
                   chunk_deals=50, rules=Rules(players=4), report=False)
    m = Manifest.load(out)
    m.chunks = m.chunks[:3]
    m.save(out)
    build_report(out)
    conv = pd.read_csv(out / "convergence.csv")
    assert conv.groupby("strategy")["deals"].max().tolist() == [150, 150]
    assert conv["deals"].is_monotonic_increasing or \
        all(g["deals"].is_monotonic_increasing for _, g in conv.groupby("strategy"))


def test_a_ctrl_c_before_the_play_says_how_to_resume(tmp_path, monkeypatch):
    """Ctrl-C during the first run's compile, before the play takes it: the folder and its
    manifest exist, so the stop says how to resume (it said only "interrupted", and the
    same command again was refused: the folder is not empty)."""
    def compiling(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "play", compiling)
    out = tmp_path / "t"
    with pytest.raises(TournamentInterrupted) as e:
        run_tournament(["random", "easy", "random"], 4, 1, out, 1, progress=False,
                       rules=Rules(players=3))
    assert e.value.chunks_done == 0 and e.value.resume_command.endswith(str(out))
    monkeypatch.undo()
    assert run_tournament(resume=True, out=out, progress=False, report=False).complete


def test_threads_chunking_and_a_stop_with_resume_give_the_same_bytes(tmp_path, monkeypatch):
    field, rules = ["random", "easy", "easy", "random"], Rules(players=4)
    a = run_tournament(field, 300, 9, tmp_path / "a", 1, progress=False, rules=rules,
                       chunk_deals=100)
    b = run_tournament(field, 300, 9, tmp_path / "b", 2, progress=False, rules=rules,
                       chunk_deals=100)
    assert files(tmp_path / "a") == files(tmp_path / "b")
    c = run_tournament(field, 300, 9, tmp_path / "c", 2, progress=False, rules=rules,
                       chunk_deals=300)
    assert a.complete and b.complete and c.complete
    assert files(tmp_path / "a", games=False) == files(tmp_path / "c", games=False)
    # Ctrl-C in the middle of a chunk: the finished deals are kept in a partial chunk, and
    # the resumed run ends in the same bytes
    real, calls = runner.play_deals, []

    def stop_after_four(strats, config, lo, hi, threads, stop=None):
        got = real(strats, config, lo, hi, threads, stop)
        calls.append((lo, hi))
        if len(calls) == 4 and stop is not None:     # blocks 0-39, 40-79, 80-99, 100-119
            stop.kernel_flag[0] = 1
            stop.event.set()
        return got

    monkeypatch.setattr(runner, "play_deals", stop_after_four)
    monkeypatch.setattr(runner, "FIRST_BLOCK_GAMES", 40 * 6)   # 40 deals
    monkeypatch.setattr(runner, "GROWTH", 1)
    with pytest.raises(TournamentInterrupted):
        run_tournament(field, 300, 9, tmp_path / "d", 1, progress=False, rules=rules,
                       chunk_deals=100)
    stored = Manifest.load(tmp_path / "d")
    assert [c["deal_lo"] for c in stored.chunks] == [0]
    assert [(p["deal_lo"], p["played_hi"], p["rows"]) for p in stored.partials] == \
        [(100, 120, 20 * 6)]
    assert build_report(tmp_path / "d").games == 120 * 6   # the partial chunk's games too
    # the interrupted session's timing counts what it played
    session = json.loads((tmp_path / "d" / "timing.json").read_text())["sessions"][-1]
    assert (session["deals_played"], session["games_played"]) == (120, 120 * 6)
    assert session["kernel_seconds"] > 0 and not session["complete"]
    monkeypatch.setattr(runner, "play_deals", real)
    res = run_tournament(resume=True, out=tmp_path / "d", progress=False)
    assert res.complete and res.deals_played == 180
    assert files(tmp_path / "d") == files(tmp_path / "a")


def test_live_score_per_line_up():
    from durak_sim.place_counts import LiveScore
    from durak_sim.progress import Board

    lineup = ("hard", "easy", "easy", "easy")
    from durak_sim.lineups import seatings

    live = LiveScore(lineup, seatings(lineup), teams=False)
    cols = {"place0": np.array([1, 4]), "place1": np.array([2, 1]),
            "place2": np.array([3, 2]), "place3": np.array([4, 3]),
            "outcome": np.array([0, 0]), "durak": np.array([3, 0]),
            "durak_team": np.array([-1, -1])}
    live.add(np.array([0, 1]), cols)
    # seating 0: hard in seat 0 (1st); seating 1: hard in seat 1 (1st), an easy the Durak
    assert live.text() == "hard 1.00 place, 0.0% Durak · easy 3.00, 33.3%"
    board = Board("t", unit="deals")
    board.add(lineup, " ".join(lineup), 100, games_per_unit=4)
    board.advance(lineup, 10, 0.5)
    board.rows[lineup].live = live
    assert board.rows[lineup].games == 40 and board.score_line(lineup) == live.text()
    # on an 80-column terminal the counts and speed stay whole, the score on its own line
    import io

    from rich.console import Console

    buf = io.StringIO()
    Console(width=60, file=buf).print(board)
    lines = buf.getvalue().splitlines()
    assert any("10/100" in x and "games/s" in x for x in lines)
    assert any(x.startswith("    hard 1.00 place") for x in lines)


def test_an_edited_manifest_is_refused(tmp_path):
    out = tmp_path / "t"
    run_tournament(["random", "easy", "easy"], 100, 4, out, 1, progress=False,
                   rules=Rules(players=3), chunk_deals=50, report=False)
    original = (out / "manifest.json").read_text()
    edits = [
        (lambda m: m["chunks"][0].update(lineup=["easy", "random", "easy"]), "file"),
        (lambda m: m["chunks"][0].update(rows=149), "rows"),
        (lambda m: m["chunks"][0].pop("lineup"), "missing"),
        (lambda m: m["config"]["rules"].update(players=4), "malformed"),
        (lambda m: m["config"].update(seed=5), "seed 4"),
        (lambda m: m["config"]["strategies"][0].update(name="easy"), "not a line-up"),
    ]
    for edit, word in edits:
        m = json.loads(original)
        edit(m)
        (out / "manifest.json").write_text(json.dumps(m))
        for args in (["report", out], ["tournament", "--resume", out]):
            assert_one_line_error(invoke(*args), word)
    (out / "manifest.json").write_text(original)


def test_the_cli_at_n_players(tmp_path):
    plugin = tmp_path / "more.py"
    plugin.write_text(PLUGIN)
    assert_one_line_error(invoke("tournament", "random", "easy", "--players", "3", "--out",
                                 tmp_path / "x"),
                          "list a strategy more than once",
                          "durak-sim tournament random easy random --rules podkidnoy "
                          "--players 3")
    assert not (tmp_path / "x").exists()
    # its example loads the same plugins (a QA finding: it left them out, and failed)
    assert_one_line_error(run_cli("tournament", "random", "random2", "--players", "3",
                                  "--plugin", plugin, "--out", tmp_path / "x"),
                          f"e.g. durak-sim tournament random random2 random --rules podkidnoy "
                          f"--players 3 --plugin {plugin} (or")
    assert not (tmp_path / "x").exists()
    out = tmp_path / "g"
    proc = run_cli("tournament", "--gauntlet", "easy", "random", "random2", "easy2",
                   "--players", "3", "--deals", 40, "--seed", 2, "--plugin", plugin,
                   "--out", out, "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert "Plackett-Luce" in proc.stdout and "mean place" in proc.stdout
    cfg = json.loads((out / "manifest.json").read_text())["config"]
    assert cfg["gauntlet"] == "easy" and cfg["rules"]["players"] == 3
    md = (out / "report.md").read_text()
    assert "durak-sim tournament --gauntlet easy random random2 easy2 --deals 40 --seed 2 " \
           "--rules podkidnoy --players 3 --plugin" in md
    assert "gauntlet at tables of 3: easy with every 2 of the 3 others (3 line-ups)" in md


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_ctrl_c_or_a_kill_then_resume_ends_in_the_same_tables(tmp_path, sig):
    out = tmp_path / "t"
    args = ["tournament", "random", "easy", "easy", "--players", "3", "--deals", 40_000,
            "--chunk", 500, "--seed", 8, "--threads", 1, "--out", out]
    proc = subprocess.Popen([*CLI, *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_as_at_a_terminal)
    try:
        _wait_for_chunks(out / "manifest.json", proc, 2)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and f"durak-sim tournament --resume {out}" in err, err
    else:
        assert proc.returncode == -signal.SIGKILL
    done = Manifest.load(out).chunks
    assert 2 <= len(done) < 80, "stopped mid-way"
    resumed = run_cli("tournament", "--resume", out, "--threads", 2)
    assert resumed.returncode == 0, resumed.stderr
    whole = tmp_path / "whole"
    run_tournament(["random", "easy", "easy"], 40_000, 8, whole, 2, progress=False,
                   rules=Rules(players=3), chunk_deals=20_000)
    assert files(out, games=False) == files(whole, games=False)


def test_the_dask_path_stores_the_same_bytes(tmp_path):
    distributed = pytest.importorskip("distributed")
    field, rules = ["random", "easy", "random", "easy"], Rules(players=4)
    local = run_tournament(field, 400, 6, tmp_path / "l", 1, progress=False, rules=rules,
                           chunk_deals=100)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        res = run_tournament(field, 400, 6, tmp_path / "c", progress=False, rules=rules,
                             chunk_deals=100, scheduler=cluster.scheduler_address)
    assert local.complete and res.complete and res.workers == 2
    assert files(tmp_path / "c") == files(tmp_path / "l")


def test_an_unfinished_tournament_reports_what_is_stored(tmp_path):
    register_more()
    out = tmp_path / "t"
    run_tournament(["random", "easy", "random2", "easy2"], 80, 5, out, 1, progress=False,
                   rules=Rules(players=3), chunk_deals=40, report=False)
    m = Manifest.load(out)
    keep = [c for c in m.chunks if c["lineup"] == ["random", "easy", "random2"]]
    for c in m.chunks:                # one line-up only (two chunks), as if stopped
        if c not in keep:
            (out / c["file"]).unlink()
    m.chunks = keep
    m.save(out)
    rep = build_report(out)
    assert not rep.complete and rep.chunks_done == 2 and rep.chunks_total == 8
    md = (out / "report.md").read_text()
    assert "**INCOMPLETE**: 2 of 8 chunks" in md
    assert set(pd.read_csv(out / "strategies.csv")["strategy"]) == {"random", "easy",
                                                                    "random2"}
    _numbers_are_finite(out)


def test_a_stop_before_a_block_plays_no_deal():
    from durak_sim.tournament_config import make_config

    cfg = make_config(["random", "easy", "easy", "random"], deals=50, seed=1,
                      rules=Rules(players=4))
    from durak_sim.play import resolve_strategies

    strats = resolve_strategies(list(cfg.lineups()[0]))
    stop = runner.StopFlag()
    stop.kernel_flag[0] = 1
    (deals, seatings, cols), _, _ = runner.play_deals(strats, cfg, 0, 50, 1, stop)
    assert len(deals) == len(seatings) == 0 and all(len(v) == 0 for v in cols.values())
    (deals, seatings, cols), _, _ = runner.play_deals(strats, cfg, 10, 13, 1)
    assert deals.tolist() == [d for d in (10, 11, 12) for _ in range(6)]
    assert seatings.tolist() == list(range(6)) * 3 and sorted(cols) == sorted(
        ["outcome", "durak", "first_attacker", "bouts", "cards_left", "durak_team",
         "place0", "place1", "place2", "place3", runner.CAPPED])


def test_a_rate_with_no_hits_takes_the_games_as_its_sample(tmp_path):
    """Teams: no draw in 20 deals (40 games, 80 seat-games of each strategy). Partners draw
    together, so with the design effect taken as 1 (Korn & Graubard 1998) the games are the
    trials: the strategies' and the teams' draw intervals both are Wilson's for 0 of 40, its
    sample scaled for a variance of 20 deals by (t(n - 1) / t(19))**2."""
    from scipy.stats import t as student

    from durak_sim.stats import wilson_interval

    res = run_tournament(["easy", "random", "easy", "random"], 20, 4, tmp_path / "t", 1,
                         progress=False, rules=Rules(variant="teams", players=4))
    assert res.complete
    s = pd.read_csv(tmp_path / "t" / "strategies.csv")
    t = pd.read_csv(tmp_path / "t" / "teams.csv")
    assert (s["draw"] == 0).all() and (t["draws"] == 0).all()
    md = (tmp_path / "t" / "report.md").read_text()
    assert "partnerships (positions 0, 2 against 1, 3)" in md and "dashed line" in md
    def hi(n):
        return float(wilson_interval(0, 40 * (student.ppf(0.975, n - 1)
                                              / student.ppf(0.975, 19)) ** 2)[1])

    assert s["draw_hi"].tolist() == pytest.approx([hi(80)] * len(s))
    assert t["draws_hi"].tolist() == pytest.approx([hi(40)] * len(t))


def test_one_deal_reports_no_certainty(tmp_path):
    """One deal: its bootstrap resamples are that deal. The ratings and the paired rating
    differences get no interval; every rate gets a wide one, never a zero-width one."""
    proc = invoke("tournament", "random", "easy", "normal", "--players", "3", "--deals", "1",
                  "--threads", "1", "--out", tmp_path / "t", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    ratings = pd.read_csv(tmp_path / "t" / "ratings.csv")
    assert ratings[["lo", "hi"]].isna().all().all()
    h2h = pd.read_csv(tmp_path / "t" / "head_to_head.csv")
    assert h2h[["elo_lo", "elo_hi"]].isna().all().all()
    assert (h2h.score_hi - h2h.score_lo > 0.5).all()
    seats = pd.read_csv(tmp_path / "t" / "seats.csv")
    assert (seats.durak_hi - seats.durak_lo > 0.5).all()
    assert (seats.first_hi - seats.first_lo > 0.5).all()


def test_a_teams_field_larger_than_the_table_partners_every_two_equally(tmp_path):
    """A teams field of five: each four of them once for each split into partnerships (15
    line-ups), so every two strategies are partners in three line-ups and the field's order
    does not decide who partners whom (in field order alone, neighbours never would)."""
    from collections import Counter

    register_more()
    field = ["random", "easy", "normal", "random2", "easy2"]
    res = run_tournament(field, 4, 3, tmp_path / "t", 1, progress=False,
                         rules=Rules(variant="teams", players=4))
    lineups = res.config.lineups()
    assert len(lineups) == 15 and len(set(lineups)) == 15
    partners = Counter(frozenset(pair) for k in lineups for pair in (k[0::2], k[1::2]))
    assert set(partners.values()) == {3} and len(partners) == 10
    assert res.games_played == 15 * 4 * 8
    teams = pd.read_csv(tmp_path / "t" / "teams.csv", keep_default_na=False)
    teams = teams[teams["opponents"] != "*"]   # (the rows against all opponents: below)
    # a row per partnership and its opponents: both sides of each line-up, 32 games each
    assert len(teams) == 30 and set(teams["games"]) == {4 * 8}
    assert teams["team"].nunique() == 10 and teams.groupby("team").size().eq(3).all()
    # the report names a line-up by its partnerships in every table (a QA finding: game
    # length listed its four strategies)
    md = (tmp_path / "t" / "report.md").read_text()
    length = md.split("## Game length")[1].split("\n## ")[0]
    assert "| random+normal vs easy+random2 |" in length, length


def test_a_teams_field_has_each_partnership_against_all_its_opponents(tmp_path, monkeypatch):
    """A teams field of five (15 line-ups): each partnership has a row per pair of opponents
    and one against all of them (opponents ``*``) whose counts are those rows' sums, and
    whose loss interval is the deal-clustered one computed here from the stored games (the
    report's comes from the deal bootstrap: within a tenth of its width). A field of the
    table's size has no such row (its test above)."""
    from durak_sim.place_counts import team_pair_keys
    from durak_sim.storage import Manifest

    register_more()
    out = tmp_path / "t"
    run_tournament(["random", "easy", "normal", "random2", "easy2"], 60, 3, out, 1,
                   progress=False, rules=Rules(variant="teams", players=4))
    t = pd.read_csv(out / "teams.csv", keep_default_na=False)
    pooled = t[t["opponents"] == "*"].set_index("team")
    assert len(pooled) == 10                             # every two of the five
    sums = t[t["opponents"] != "*"].groupby("team")[["games", "won", "lost", "draws"]].sum()
    assert (pooled[["games", "won", "lost", "draws"]] == sums.loc[pooled.index]).all().all()
    assert "| all |" in (out / "report.md").read_text()
    # the line-ups share their 60 deals: 60 clusters, as the convergence band has them, and
    # the seat tables too
    from durak_sim import place_stats

    seen = []
    positions = place_stats._positions_table
    monkeypatch.setattr(place_stats, "_positions_table",
                        lambda *a: seen.append(a[-1]) or positions(*a))
    build_report(out)
    assert seen == [60, 60]
    s = pd.read_csv(out / "strategies.csv").set_index("strategy")
    c = pd.read_csv(out / "convergence.csv")
    last = c[c["deals"] == 60].set_index("strategy").loc[s.index]
    assert last["lo"].tolist() == pytest.approx(s["mean_place_lo"].tolist())
    assert last["hi"].tolist() == pytest.approx(s["mean_place_hi"].tolist())

    m = Manifest.load(out)
    names = [s["name"] for s in json.loads((out / "manifest.json").read_text())
             ["config"]["strategies"]]
    g = pd.concat([pd.read_parquet(out / c["file"]) for c in m.chunks])
    rows = []
    for seats, deal, outcome, durak_team in zip(g[[f"seat{s}" for s in range(4)]].to_numpy(),
                                                g["deal"], g["outcome"], g["durak_team"]):
        for q, (team, _) in enumerate(team_pair_keys(list(seats), names)):
            rows.append((deal, team, outcome != 1 and durak_team == q))
    games = pd.DataFrame(rows, columns=["deal", "team", "lost"])
    checked = 0
    for team, sub in games.groupby("team"):
        per = sub.groupby("deal")["lost"].agg(["sum", "count"]).to_numpy(float)
        x, n = per[:, 0], per[:, 1]
        r, d = x.sum() / n.sum(), len(x)
        half = 1.96 * np.sqrt(d / (d - 1) * ((x - r * n) ** 2).sum() / n.sum() ** 2)
        row = pooled.loc[team]
        assert row["lost_rate"] == pytest.approx(r)
        if half == 0:   # every deal alike: Wilson's interval on the games instead
            continue
        checked += 1
        assert (row["lost_hi"] - row["lost_lo"]) / 2 == pytest.approx(half, rel=0.1)
    assert checked >= 8


def test_games_the_cap_on_play_ended_are_kept_through_a_stop_and_told(tmp_path, monkeypatch):
    """Six easy players pass cards round for ever now and then (rules E12): deals 688 and
    1249 of seed 1 end at the cap on play. The manifest lists them, the report says so, and
    a run stopped with deal 688 in a partial chunk ends, resumed, in the same bytes and the
    same list."""
    field, rules = ["easy"] * 6, Rules(players=6)
    a = run_tournament(field, 1300, 1, tmp_path / "a", 1, progress=False, rules=rules)
    want = [{"deal": 688, "seating": 0}, {"deal": 1249, "seating": 0}]
    assert [c for ch in Manifest.load(tmp_path / "a").chunks for c in ch.get("capped", [])] \
        == want
    assert a.complete and "The cap on play (rules E12: durak-sim docs rules): 2 games (0.154% " \
        in (tmp_path / "a" / "report.md").read_text()
    real, calls = runner.play_deals, []

    def stop_after_two(strats, config, lo, hi, threads, stop=None):
        got = real(strats, config, lo, hi, threads, stop)
        calls.append((lo, hi))
        if len(calls) == 2 and stop is not None:     # blocks 0-399, 400-799
            stop.kernel_flag[0] = 1
            stop.event.set()
        return got

    monkeypatch.setattr(runner, "play_deals", stop_after_two)
    monkeypatch.setattr(runner, "FIRST_BLOCK_GAMES", 400)
    monkeypatch.setattr(runner, "GROWTH", 1)
    with pytest.raises(TournamentInterrupted):
        run_tournament(field, 1300, 1, tmp_path / "b", 1, progress=False, rules=rules)
    stored = Manifest.load(tmp_path / "b")
    assert [(p["played_hi"], p["capped"]) for p in stored.partials] == [(800, want[:1])]
    monkeypatch.setattr(runner, "play_deals", real)
    run_tournament(resume=True, out=tmp_path / "b", progress=False)
    assert [c for ch in Manifest.load(tmp_path / "b").chunks for c in ch.get("capped", [])] \
        == want
    assert files(tmp_path / "b") == files(tmp_path / "a")
    # a partial whose manifest entry names a game it does not hold is damaged: its deals
    # are played again (a warning, never a traceback)
    monkeypatch.setattr(runner, "play_deals", stop_after_two)
    calls.clear()
    with pytest.raises(TournamentInterrupted):
        run_tournament(field, 1300, 1, tmp_path / "c", 1, progress=False, rules=rules)
    m = json.loads((tmp_path / "c" / "manifest.json").read_text())
    m["partials"][0]["capped"][0]["seating"] = 99
    (tmp_path / "c" / "manifest.json").write_text(json.dumps(m))
    monkeypatch.setattr(runner, "play_deals", real)
    run_tournament(resume=True, out=tmp_path / "c", progress=False)
    assert files(tmp_path / "c") == files(tmp_path / "a")
