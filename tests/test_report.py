"""durak_sim.report and durak_sim.plots: tables from stored games only, a self-contained
HTML report, deterministic plots, and the convergence band against a hand computation."""
import io
import math
import re
import statistics

import numpy as np
import pandas as pd
import pytest

from durak_sim import plots, report
from durak_sim.play import play_games
from durak_sim.report import TABLE_FILES, build_report, compute_tables
from durak_sim.stats import _example_games
from durak_sim.storage import Manifest
from durak_sim.tournament import make_config, run_tournament

Z95 = statistics.NormalDist().inv_cdf(0.975)
#: the plots of a two-strategy report (no crosstable or ratings chart of one pairing)
PAIR_PLOTS = [p for p in plots.PLOTS if p not in ("crosstable", "ratings")]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "t"
    run_tournament(["random", "easy"], 1500, 8, out, 1, progress=False, chunk_deals=500)
    return out


def test_html_is_self_contained_with_its_plots(finished):
    html = (finished / "report.html").read_text()
    images = re.findall(r'<img [^>]*src="([^"]*)"', html)
    assert len(images) == len(PAIR_PLOTS) == 3
    assert all(src.startswith("data:image/png;base64,") for src in images)
    assert not re.search(r'(?:src|href)="(?!data:)', html)       # nothing outside the file
    assert "<link" not in html and "<script" not in html
    assert "random v1, easy v1" in html and "durak-sim tournament random easy" in html
    assert not (finished / "plots" / "crosstable.png").exists()
    for name in PAIR_PLOTS:
        assert (finished / "plots" / f"{name}.png").stat().st_size > 1000
        assert (finished / "plots" / f"{name}.svg").read_text().startswith("<?xml")


def test_every_table_has_a_header_and_intervals_stay_on_one_line(finished):
    md = (finished / "report.md").read_text()
    heads = [line for i, line in enumerate(md.splitlines())
             if line.startswith("|") and md.splitlines()[i + 1].startswith("|:")]
    assert heads and all(all(c.strip() for c in h.strip("|").split("|")) for h in heads)
    html = (finished / "report.html").read_text()
    assert "<th" in html and not re.search(r"<th[^>]*></th>", html)
    assert "td{white-space:nowrap}" in html and '<div class="t">' in html
    with pytest.raises(ValueError, match="without a header"):
        report._Doc().table(["", "value"], [["a", "b"]])


def test_rebuild_writes_the_same_bytes_everywhere(finished):
    files = [*TABLE_FILES.values(), "report.md", "report.html",
             *(f"plots/{n}.{ext}" for n in PAIR_PLOTS for ext in ("png", "svg"))]
    before = {f: (finished / f).read_bytes() for f in files}
    build_report(finished)
    assert {f: (finished / f).read_bytes() for f in files} == before
    svg = before["plots/convergence.svg"].decode()
    assert "<dc:date>" not in svg and "Matplotlib v" not in svg


def test_tables_equal_stats_on_the_played_games(finished):
    """The report's tables come from the stored games and equal those of the same games
    played again in memory (so storage loses nothing)."""
    from durak_sim import stats

    games = play_games(["random", "easy"], seed=8, deals=range(1500), threads=2).frame()
    cfg = make_config(["random", "easy"], deals=1500, seed=8)
    want, _ = compute_tables(games, cfg)
    rep = build_report(finished)
    for name in TABLE_FILES:
        got = pd.read_csv(finished / TABLE_FILES[name])
        exp = pd.read_csv(io.StringIO(report._csv(want[name]).decode()))
        pd.testing.assert_frame_equal(got, exp, check_dtype=False)
    assert rep.tables["pairings"]["pairs"].tolist() == [1500]
    p = stats.pairing_table(games, order=["random", "easy"]).iloc[0]
    cross = rep.tables["crosstable"].set_index("strategy")
    assert cross.loc["random", "easy"] == pytest.approx(p.score)
    assert cross.loc["easy", "random"] == pytest.approx(1 - p.score)
    assert np.isnan(cross.loc["easy", "easy"])


def test_stored_counts_equal_the_counts_of_the_stored_games_frame(finished):
    """The report counts the stored columns directly; the same as counting the frame."""
    from dataclasses import fields

    from durak_sim.stats import game_counts
    from durak_sim.tournament import TournamentConfig

    m = Manifest.load(finished)
    cfg = TournamentConfig.from_dict(m.config)
    got = report.load_counts(finished, m, cfg)
    want = game_counts(report.load_games(finished, m, cfg), cfg.strategies)
    for f in fields(got):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if f.name == "pair_points":
            assert [x.tolist() for x in a] == [x.tolist() for x in b]
        else:
            assert np.array_equal(np.asarray(a), np.asarray(b)), f.name
    assert got.pent.sum() == 1500 and len(got.pair_points[0]) == 1500


def test_a_tournament_reports_from_the_counts_it_kept_without_reading_chunks(
        tmp_path, monkeypatch):
    """run_tournament counts each chunk as it stores it; build_report then reads no chunk
    file, and writes the bytes that reading them gives. Counts whose checksum is not the
    stored chunk's are not used."""
    out = tmp_path / "t"
    res = run_tournament(["random", "easy"], 900, 3, out, 2, progress=False, chunk_deals=400,
                         report=False)
    assert len(res.chunk_counts) == 3
    files = [*TABLE_FILES.values(), "report.md", "report.html"]
    build_report(out)
    from_disk = {f: (out / f).read_bytes() for f in files}

    def no_reading(*args, **kwargs):
        raise AssertionError("a chunk was read")

    with monkeypatch.context() as m:
        m.setattr(report, "read_chunks", no_reading)
        build_report(out, known=res.chunk_counts)
    assert {f: (out / f).read_bytes() for f in files} == from_disk
    stale = {(f, "0" * 64): c for (f, _), c in res.chunk_counts.items()}
    with monkeypatch.context() as m:
        m.setattr(report, "read_chunks", no_reading)
        with pytest.raises(AssertionError, match="a chunk was read"):
            build_report(out, known=stale)


def test_incomplete_tournament_reports_what_is_stored(finished, tmp_path):
    import shutil

    out = tmp_path / "partial"
    shutil.copytree(finished, out)
    m = Manifest.load(out)
    m.chunks = m.chunks[:1]
    m.save(out)
    rep = build_report(out)
    assert not rep.complete and rep.games == 1000
    md = (out / "report.md").read_text()
    assert "INCOMPLETE" in md and "1 of 3 chunks" in md
    assert "<strong>INCOMPLETE</strong>" in (out / "report.html").read_text()


def test_convergence_band_by_hand():
    """Deal 0: easy scores 1; deal 1: 0.25. After n pairs the band is
    mean ± z sqrt(var / n), var the population variance of the pair scores so far; after
    the first, a sweep, it is the pairings table's: with a virtual drawn game, not a point."""
    from durak_sim.stats import elo_from_score, pair_score_stats

    c = plots.convergence(_example_games(), ["easy", "random"])
    assert c["pairs"].tolist() == [1, 2]
    assert c.loc[0, ["score", "hi"]].tolist() == [1.0, 1.0]
    sweep = pair_score_stats([[0, 0, 0, 0, 1]])
    assert elo_from_score(c.loc[0, "lo"]) == pytest.approx(sweep["elo_lo"][0], abs=1e-9)
    assert c.loc[0, "lo"] < 0.5
    mean = (1.0 + 0.25) / 2
    half = Z95 * math.sqrt(statistics.pvariance([1.0, 0.25]) / 2)
    assert c.loc[1, "score"] == mean
    assert c.loc[1, "lo"] == pytest.approx(mean - half, abs=1e-12)
    assert c.loc[1, "hi"] == 1.0          # mean + half > 1: clipped


def test_convergence_sorts_unsorted_input_and_samples():
    g = _example_games().iloc[[3, 0, 2, 1]].reset_index(drop=True)
    assert plots.convergence(g, ["easy", "random"])["score"].tolist() == [1.0, 0.625]
    many = play_games(["easy", "random"], seed=1, deals=range(3000), threads=1).frame()
    c = plots.convergence(many, ["easy", "random"], points=50)
    assert len(c) <= 50 and c["pairs"].iloc[-1] == 3000 and c["pairs"].is_monotonic_increasing
    assert (c["lo"] <= c["score"]).all() and (c["score"] <= c["hi"]).all()


def test_a_large_field_gets_readable_plots_of_a_bounded_size():
    """Of 40 strategies (780 pairings) the convergence plot shows the 24 pairings closest
    to even, and the crosstable is colour only, a third of an inch a cell."""
    names = [f"s{i}" for i in range(40)]
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    score = {p: 0.5 + 0.4 * ((7 * k) % 780) / 780 for k, p in enumerate(pairs)}
    conv = pd.DataFrame([{"a": a, "b": b, "pairs": n, "score": score[(a, b)], "lo": 0.0,
                          "hi": 1.0} for a, b in pairs for n in (1, 10)])
    fig = plots.convergence_figure(conv)
    shown = sorted(ax.get_title() for ax in fig.axes if ax.get_visible())
    closest = sorted(pairs, key=lambda p: score[p])[:plots.CONVERGENCE_PANELS]
    assert shown == sorted(f"{a} vs {b}" for a, b in closest)
    m = np.full((40, 40), 0.5)
    cross = pd.DataFrame(m, columns=names).assign(strategy=names)
    empty = pd.DataFrame(columns=["a", "b", "elo", "elo_lo", "elo_hi", "pairs", "p0", "p4"])
    fig = plots.crosstable_figure(cross, empty)
    assert not fig.axes[0].texts
    assert fig.get_figwidth() < 20 and fig.get_figheight() < 20


def test_length_histogram_counts():
    h = plots.length_histogram(_example_games(), ["easy", "random"])
    counts = dict(zip(h["bouts"], h["games"]))
    assert counts[9] == counts[12] == counts[20] == counts[11] == 1
    assert h["games"].sum() == 4


def test_plots_are_the_same_bytes_drawn_again(tmp_path):
    """Nothing a first drawing leaves behind (font caches, the measuring renderer) changes
    the second one's bytes."""
    g = _example_games()
    order = ["easy", "random"]
    tables, _ = compute_tables(g, make_config(order, deals=2, seed=7))
    one = plots.render_all(tables, g, order, tmp_path / "one")
    two = plots.render_all(tables, g, order, tmp_path / "two")
    assert one == two and list(one) == PAIR_PLOTS
    files = sorted(f.name for f in (tmp_path / "one").iterdir())
    assert files == sorted(f.name for f in (tmp_path / "two").iterdir()) and len(files) == 6
    for name in files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_cli_report_of_a_missing_folder(tmp_path):
    from click.testing import CliRunner

    from durak_sim.cli import main

    res = CliRunner().invoke(main, ["report", str(tmp_path / "nope")])
    assert res.exit_code == 2 and res.stderr.startswith("durak-sim: error: no tournament")


def test_cli_report_that_cannot_write_says_what_is_kept(tmp_path, monkeypatch):
    """A report that cannot write its files (a full disk, a read-only folder): one line
    naming the file, that the stored games are kept, and the command that builds it again."""
    from click.testing import CliRunner

    from durak_sim.cli import main
    from durak_sim.files import WriteError

    def cannot(folder, **kw):
        raise WriteError(f"cannot write {folder}/ratings.csv: Read-only file system")

    monkeypatch.setattr(report, "build_report", cannot)
    res = CliRunner().invoke(main, ["report", str(tmp_path)])
    assert res.exit_code == 2 and len(res.stderr.splitlines()) == 1
    assert "Read-only file system; every stored game is kept" in res.stderr
    assert res.stderr.rstrip().endswith(f"durak-sim report {tmp_path}")


def test_report_refuses_a_folder_a_tournament_is_writing_and_names_a_damaged_chunk(
        finished, tmp_path):
    """``report DIR`` while a tournament holds DIR: one line, nothing written (its report
    would be overwritten half way by the run's own). A chunk damaged where its Parquet
    reader stops first is named as damaged, with the way to repair it."""
    import shutil

    from cli_errors import assert_one_line_error, invoke
    from durak_sim.storage import DirectoryLock

    out = tmp_path / "t"
    shutil.copytree(finished, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with DirectoryLock(out):            # as a running tournament holds it
        assert_one_line_error(invoke("report", out), "another durak-sim process", str(out))
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    chunk = out / Manifest.load(out).chunks[0]["file"]
    data = bytearray(chunk.read_bytes())
    data[100] ^= 0xFF                    # inside the first compressed page
    chunk.write_bytes(bytes(data))
    assert_one_line_error(invoke("report", out), "damaged (checksum differs)", chunk.name,
                          "--resume")


def test_report_writes_through_links_and_keeps_them(finished, tmp_path):
    """``report DIR`` where outputs are symbolic links: each link's file gets the new
    content and the links stay links; a link to nothing is one line, nothing created."""
    import os
    import shutil

    from cli_errors import assert_one_line_error, invoke

    out, pub = tmp_path / "t", tmp_path / "published"
    shutil.copytree(finished, out)
    pub.mkdir()
    linked = ["report.md", "report.html", TABLE_FILES["ratings"], "plots/convergence.png"]
    for i, name in enumerate(linked):   # absolute and relative links
        (out / name).unlink()
        (pub / f"{i}").write_bytes(b"stale")
        target = pub / f"{i}" if i % 2 else os.path.relpath(pub / f"{i}", (out / name).parent)
        os.symlink(target, out / name)
    proc = invoke("report", out)
    assert proc.returncode == 0, proc.stderr
    for i, name in enumerate(linked):
        assert (out / name).is_symlink()
        assert (pub / f"{i}").read_bytes() == (finished / name).read_bytes()
    assert sorted(p.name for p in pub.iterdir()) == [str(i) for i in range(len(linked))]
    assert not list(out.rglob("*.tmp"))

    (out / "report.md").unlink()
    os.symlink(pub / "gone.md", out / "report.md")
    assert_one_line_error(invoke("report", out), f"cannot write {out / 'report.md'}",
                          "gone.md, which does not exist")
    assert (out / "report.md").is_symlink() and not (pub / "gone.md").exists()


def test_a_field_of_three_gets_every_plot_and_a_pair_not_the_redundant_two(tmp_path):
    g = _example_games()
    h = g.replace({"random": "normal"})
    games = pd.concat([g, h.assign(deal=h.deal + 10)], ignore_index=True)
    cfg = make_config(["random", "easy", "normal"], deals=20, seed=7)
    tables, _ = compute_tables(games, cfg)
    order = list(tables["strategies"]["strategy"])
    assert list(plots.render_all(tables, games, order, tmp_path / "three")) == list(plots.PLOTS)
    tables, _ = compute_tables(g, make_config(["easy", "random"], deals=2, seed=7))
    assert list(plots.render_all(tables, g, ["easy", "random"], tmp_path / "two")) == PAIR_PLOTS


def test_output_into_a_file_keeps_each_line_whole():
    """Into a file or a pipe no line is broken at the console's width (an interval or a
    path split over two lines); on a terminal rich wraps as usual."""
    import io

    from durak_sim.formatting import wide_console

    f = io.StringIO()
    c = wide_console(118, file=f)
    line = "first attacker wins " + "51.21 [51.14, 51.27] % " * 10
    c.print(line)
    assert f.getvalue() == line + "\n"


def _bt_tables(ratings: dict, pairings: list) -> dict:
    """Ratings and pairings tables of the report's shape, made up: ``pairings`` rows
    ``(a, b, elo, lo, hi, swept)``."""
    rows = [{"a": a, "b": b, "pairs": 100, "p0": 0, "p4": 100 if swept else 40, "elo": e,
             "elo_lo": lo, "elo_hi": hi} for a, b, e, lo, hi, swept in pairings]
    return {"ratings": pd.DataFrame({"strategy": list(ratings),
                                     "rating": list(ratings.values())}),
            "pairings": pd.DataFrame(rows)}


def test_the_model_check_compares_bradley_terry_with_each_pairings_own_elo():
    """A round robin of three: the ratings' difference against each pairing's paired Elo
    interval; a pairing won outright is left out; two strategies (one pairing) or a
    gauntlet fit exactly and have no check."""
    t = _bt_tables({"x": 100.0, "y": 0.0, "z": -100.0},
                   [("x", "y", 110, 95, 125, False), ("x", "z", 260, 240, 280, False),
                    ("y", "z", 1200, 1100, 1300, True)])
    rows, off, left_out = report.model_check(t)
    assert [r[:2] for r in rows] == [("x", "y"), ("x", "z")] and left_out == 1
    assert [r[-1] for r in rows] == [100.0, 200.0] and off == ["x-z"]
    two = _bt_tables({"x": 50.0, "y": -50.0}, [("x", "y", 100, 90, 110, False)])
    star = _bt_tables({"g": 0.0, "a": 1.0, "b": 2.0},
                      [("g", "a", 5, 0, 9, False), ("g", "b", 5, 0, 9, False)])
    assert report.model_check(two) == report.model_check(star) == ([], [], 0)


def test_a_round_robin_report_has_the_model_check(finished, tmp_path):
    """The report of a round robin of three or more says whether the ratings fit the
    pairings, with a row per pairing; one of two strategies has nothing to check."""
    r = run_tournament(["random", "easy", "normal"], 60, 3, tmp_path / "t", 1,
                       progress=False)
    rows, off, left_out = report.model_check(r.report.tables)
    text = (tmp_path / "t" / "report.md").read_text()
    assert len(rows) + left_out == 3
    assert "Model check: the Elo difference the Bradley-Terry ratings give" in text
    assert f"for {len(off)} of {len(rows)} pairings" in text if off else \
        "Every model difference lies inside" in text
    assert "Model check" not in (finished / "report.md").read_text()


def test_a_strategy_with_a_long_name_gets_its_plots(tmp_path):
    """An external engine's name is its command, often long: the convergence plot's title
    and label made the figure's margins cross ('left cannot be >= right') and the report
    failed after every game was stored."""
    from durak_sim.registry import register_strategy
    from durak_sim.strategies.random import decide

    name = "a-strategy-whose-name-is-as-long-as-an-engine-command-with-its-path-" * 2
    register_strategy(name, decide, version=1)
    r = run_tournament([name, "easy"], 3, 1, tmp_path / "t", 1, progress=False)
    assert r.report is not None and (tmp_path / "t" / "plots" / "convergence.png").exists()
