"""Results that survive extremes: a pairing that one side wins every game of, self-play,
a field split into groups that never met. Ratings, ranks and every table, CSV, report
and summary stay finite (a dash where a value is undefined, never nan or inf)."""
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from durak_sim import plots
from durak_sim.match import run_match
from durak_sim.play import play_games
from durak_sim.registry import register_strategy
from durak_sim.report import TABLE_FILES, compute_tables
from durak_sim.stats import (_example_games, elo_limit, first_attacker_advantage,
                             pairing_table, seat_advantage, strategy_table)
from durak_sim.tournament import make_config, run_tournament


def _highest(obs, legal, hist, rng, mem):
    return legal[legal[0]]      # the highest-coded legal action: take, stop, highest card


# plain Python: plays on the reference engine (about 3 ms a game), no compile
register_strategy("test-highest", _highest, description="test only: the last legal action")

NOT_A_NUMBER = re.compile(r"\b(nan|NaN|inf|Infinity)\b")


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """easy and random against test-highest, which loses every game of both pairings."""
    out = tmp_path_factory.mktemp("extremes") / "t"
    res = run_tournament(["test-highest", "easy", "random"], 40, 3, out, 1, progress=False,
                         chunk_deals=25)
    return out, res


def test_a_sweep_gives_finite_ratings_and_ranks_that_follow_them(sweep):
    out, res = sweep
    r = res.report.tables["ratings"]
    assert np.isfinite(r[["rating", "lo", "hi"]].to_numpy()).all()
    assert list(r["strategy"]) == ["easy", "random", "test-highest"]
    assert r["rating"].is_monotonic_decreasing
    assert ((r["lo"] <= r["rating"]) & (r["rating"] <= r["hi"])).all()
    assert not res.report.notes
    md = (out / "report.md").read_text()
    ranks = re.findall(r"^\| (\d) \| ([\w-]+) \|", md, re.M)
    assert ranks == [("1", "easy"), ("2", "random"), ("3", "test-highest")]


def test_pairings_read_from_the_stronger_side_and_sweeps_are_bounds(sweep):
    out, res = sweep
    t = res.report.tables
    rating = dict(zip(t["ratings"]["strategy"], t["ratings"]["rating"]))
    p = t["pairings"]
    assert all(rating[a] > rating[b] for a, b in zip(p["a"], p["b"]))
    assert (p["elo"] > 0).all() and (p["score"] > 0.5).all()
    swept = p[p["b"] == "test-highest"]
    assert len(swept) == 2 and (swept["p4"] == 40).all()
    assert swept["elo"].tolist() == pytest.approx([elo_limit(40)] * 2)
    assert swept["var_ratio"].isna().all()
    md = (out / "report.md").read_text()
    assert md.count(f"≥ +{elo_limit(40):.1f} [") == (p["p4"] == 40).sum() >= 2
    assert [tuple(x) for x in t["first_attacker"][["a", "b"]].values[1:]] == \
        [tuple(x) for x in p[["a", "b"]].values]


def test_no_table_csv_report_or_plot_shows_nan_or_inf(sweep):
    out, res = sweep
    for name, file in TABLE_FILES.items():
        text = (out / file).read_text()
        assert not NOT_A_NUMBER.search(text), (file, NOT_A_NUMBER.search(text))
        assert not np.isinf(res.report.tables[name].select_dtypes("number").to_numpy()).any()
    for file in ("report.md", "report.html"):
        body = (out / file).read_text()
        body = re.sub(r'src="data:image/png;base64,[^"]*"', "", body)
        assert not NOT_A_NUMBER.search(body), (file, NOT_A_NUMBER.search(body))
    for name in plots.PLOTS:           # ratings included: they exist now
        svg = (out / "plots" / f"{name}.svg").read_text()
        texts = " ".join(re.findall(r">([^<>]*)</text>", svg))
        assert not NOT_A_NUMBER.search(texts), (name, texts)


def test_the_match_summary_of_a_sweep_is_finite(capsys):
    s = run_match("easy", "test-highest", deals=30, seed=2)
    p = s.pairing.iloc[0]
    assert (p.p4, p.elo) == (30, pytest.approx(elo_limit(30))) and math.isnan(p.var_ratio)
    d = s.to_dict()
    text = json.dumps(d, allow_nan=False)          # refuses NaN and inf
    assert d["pairing"]["var_ratio"] is None and "Infinity" not in text
    s.print()
    shown = capsys.readouterr().out
    assert not NOT_A_NUMBER.search(shown) and "≥ +" in shown and "a sweep" in shown


def test_self_play_counts_every_game_once(capsys):
    s = run_match("easy", "easy", deals=300, seed=5)
    row = s.table.iloc[0]
    assert len(s.table) == 1 and s.games == 600
    assert row.games == 600 and row.wins + row.durak + row.draws == 600
    assert s.pairing is None
    assert row.wins == s.seat.iloc[0].wins                     # seat 0's result
    s.print()
    assert "counted once" in capsys.readouterr().out


@pytest.mark.parametrize("a, b, swap", [("easy", "random", True), ("random", "easy", True),
                                        ("easy", "random", False)])
def test_the_match_summary_equals_the_statistics_of_its_games(a, b, swap):
    """Counted block by block, the summary is what the games frame gives, exactly."""
    deals = 2500                              # blocks of 16, 128, 1024 ... deals
    s = run_match(a, b, deals=deals, seed=9, swap=swap)
    games = play_games([a, b], seed=9, deals=range(deals), swap=swap).frame()
    order = list(dict.fromkeys([a, b]))
    want = strategy_table(games).set_index("strategy").loc[order].reset_index()
    pd.testing.assert_frame_equal(s.table, want)
    pd.testing.assert_frame_equal(s.seat, seat_advantage(games))
    pd.testing.assert_frame_equal(s.first, first_attacker_advantage(games))
    if swap:
        pd.testing.assert_frame_equal(s.pairing, pairing_table(games, order=[a, b]))
    assert s.games == len(games)


def test_a_field_split_into_groups_has_no_ratings_but_a_finite_report(tmp_path):
    """random-easy and normal-hard never met: no relative ratings (a note, dashes)."""
    g = _example_games()
    h = g.replace({"easy": "normal", "random": "hard"})
    games = pd.concat([g, h.assign(deal=h.deal + 10)], ignore_index=True)
    cfg = make_config(["random", "easy", "normal", "hard"], deals=20, seed=7)
    tables, notes = compute_tables(games, cfg)
    assert notes and "never played each other" in notes[0]
    assert tables["ratings"]["rating"].isna().all()
    written = plots.render_all(tables, games, list(tables["strategies"]["strategy"]), tmp_path)
    assert "ratings" not in written and "crosstable" in written
