"""``match`` at tables of more than two players: its rates, mean places and head to head
re-counted from the game records, with each deal's seatings as one cluster."""
import json

import numpy as np
import pytest

from durak_sim.rules import Rules
from durak_sim.stats import elo_from_score, wilson_interval
from durak_sim.table_match import run_table_match


def _cluster_var(x_d, m_d):
    """The ratio variance over independent deals, written out."""
    x_d, m_d = np.asarray(x_d, float), np.asarray(m_d, float)
    r = x_d.sum() / m_d.sum()
    d = len(x_d)
    return d / (d - 1) * ((x_d - r * m_d) ** 2).sum() / m_d.sum() ** 2


def _df(n, d):
    """Korn & Graubard's scaling of the effective sample size for a variance of ``d``
    deals: (t(n - 1) / t(d - 1))**2 at 95%."""
    from scipy.stats import t

    return (t.ppf(0.975, n - 1) / t.ppf(0.975, d - 1)) ** 2


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("tm") / "r.jsonl"
    summary = run_table_match(["normal", "easy", "random", "easy"], deals=60, seed=4,
                              rules=Rules(players=4), records=out)
    return summary, [json.loads(line) for line in out.read_text().splitlines()]


def test_rates_and_mean_place_take_the_deal_as_the_cluster(played):
    summary, records = played
    t = summary.table.set_index("strategy")
    first, games, place = {}, {}, {}
    for r in records:
        for s, name in enumerate(r["seats"]):
            key = (name, r["deal"])
            games[key] = games.get(key, 0) + 1
            out_first = r["result"]["places"][s] == 1 and r["result"]["outcome"] != "draw"
            first[key] = first.get(key, 0) + out_first
            place[key] = place.get(key, 0) + r["result"]["places"][s]
    for name in ("normal", "easy", "random"):
        deals = sorted(d for (x, d) in games if x == name)
        m = [games[(name, d)] for d in deals]
        x = [first[(name, d)] for d in deals]
        p = [place[(name, d)] for d in deals]
        r = sum(x) / sum(m)
        n_eff = r * (1 - r) / _cluster_var(x, m) * _df(sum(m), len(m))
        assert (t.loc[name, "first_lo"], t.loc[name, "first_hi"]) == \
            pytest.approx(wilson_interval(r * n_eff, n_eff))
        # the mean place (1..4) rescaled to 0..1, Wilson's interval at its effective sample
        # size, mapped back
        mean = sum(p) / sum(m)
        q = (mean - 1) / 3
        n_q = q * (1 - q) / (_cluster_var(p, m) / 9) * _df(sum(m), len(m))
        lo, hi = wilson_interval(q * n_q, n_q)
        assert (t.loc[name, "mean_place_lo"], t.loc[name, "mean_place_hi"]) == \
            pytest.approx((1 + 3 * lo, 1 + 3 * hi), rel=1e-5)
        assert 1 <= t.loc[name, "mean_place_lo"] < mean < t.loc[name, "mean_place_hi"] <= 4


def test_head_to_head_is_counted_from_the_records(played):
    summary, records = played
    rows = {(h["a"], h["b"]): h for h in summary.head_to_head()}
    assert set(rows) == {("normal", "easy"), ("normal", "random"), ("easy", "random")}
    score, meet, ahead = {}, {}, {}
    for r in records:
        places = r["result"]["places"]
        for s, a in enumerate(r["seats"]):
            for t, b in enumerate(r["seats"]):
                if a == "easy" and b == "random":
                    d = r["deal"]
                    meet[d] = meet.get(d, 0) + 1
                    score[d] = score.get(d, 0) + (places[s] < places[t]) + \
                        0.5 * (places[s] == places[t])
                    ahead[d] = ahead.get(d, 0) + places[t] - places[s]
    deals = sorted(meet)
    m = [meet[d] for d in deals]
    h = rows[("easy", "random")]
    assert h["meetings"] == sum(m) == 60 * 4 * 2
    s = sum(score.values()) / sum(m)
    # Wilson's interval (score interval of a proportion) at the effective sample size
    # n_eff = s(1 - s) / var (with the degrees-of-freedom scaling of its deals), written out
    # here from its textbook formula
    z = 1.959964
    n_eff = s * (1 - s) / _cluster_var([score[d] for d in deals], m) * _df(sum(m), len(m))
    centre = (s + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z / (1 + z * z / n_eff) * np.sqrt(s * (1 - s) / n_eff + z * z / (4 * n_eff ** 2))
    assert (h["score"], h["score_lo"], h["score_hi"]) == pytest.approx(
        (s, centre - half, centre + half), rel=1e-5)
    assert 0 <= h["score_lo"] < s < h["score_hi"] <= 1
    assert h["elo"] == pytest.approx(float(elo_from_score(s)))
    assert h["places"] == pytest.approx(sum(ahead.values()) / sum(m))
    assert summary.to_dict()["head_to_head"][0]["a"] == "normal"
    # the Durak rate by seat with the interval the summary prints
    from durak_sim.table_match import seat_interval

    for d in summary.to_dict()["seats"]:
        lo, hi = seat_interval(summary.counts, d["seat"])
        assert (d["durak_lo"], d["durak_hi"]) == pytest.approx((lo, hi))
        assert d["durak_lo"] <= d["durak"] / d["games"] <= d["durak_hi"]


@pytest.mark.parametrize("deals", [1, 3])
def test_few_deals_give_finite_intervals_within_the_bounds(deals):
    """One deal (no variance to measure) or a few in which nothing varied: every interval is
    finite, holds its estimate, stays within the possible range and is not of zero width; a
    share of 1 shows its Elo as the bound of its meetings, marked."""
    s = run_table_match(["normal", "random", "random"], deals=deals, seed=3,
                        rules=Rules(players=3))
    for r in s.table.itertuples():
        assert 1 <= r.mean_place_lo <= r.mean_place <= r.mean_place_hi <= 3
        assert r.mean_place_hi > r.mean_place_lo
    for h in s.head_to_head():
        vals = [h[k] for k in ("score_lo", "score_hi", "places_lo", "places_hi", "elo",
                               "elo_lo", "elo_hi")]
        assert np.isfinite(vals).all()
        assert -2 <= h["places_lo"] <= h["places"] <= h["places_hi"] <= 2
        if h["score"] == 1:
            m = h["meetings"]
            assert h["elo_bound"] and h["elo"] == pytest.approx(400 * np.log10(4 * m + 1))


def test_the_series_score_has_its_mean_a_series_with_an_interval(tmp_path):
    """R9.2 score per series, from the records: the mean a series and Wilson's interval on
    its range (+-5 a series of 5 deals, however many seats a strategy holds without
    teams), the series independent."""
    from durak_sim.clustered import bounded_interval

    out = tmp_path / "s.jsonl"
    s = run_table_match(["easy", "random", "random"], deals=40, seed=6, rules=Rules(players=3),
                        records=out, series_deals=5)
    per_series: dict = {}
    for line in out.read_text().splitlines():
        r = json.loads(line)
        s_idx = r["series"]["series"]
        for seat, name in enumerate(r["seats"]):
            if name == "easy":
                res = r["result"]
                first = res["places"][seat] == 1 and res["outcome"] != "draw"
                per_series[s_idx] = per_series.get(s_idx, 0) + first - (res["durak"] == seat)
    x = np.array([per_series[j] for j in sorted(per_series)], float)
    row = s.table.set_index("strategy").loc["easy"]
    assert row.score == x.sum() and row.score_per_series == pytest.approx(x.mean())
    lo, hi = bounded_interval(x.mean(), x.var(ddof=1) / len(x), len(x), -5, 5)
    assert (row.score_per_series_lo, row.score_per_series_hi) == pytest.approx((lo, hi))
    assert -5 <= row.score_per_series_lo < row.score_per_series < row.score_per_series_hi <= 5
    assert "score_per_series" in s.to_dict()["strategies"][0]
    # random, seated twice, has the negated scores (a deal scores +1 and -1 once each): its
    # range is +-5 a series too (one seat alone first, one Durak a deal), not +-10, so its
    # interval is easy's negated
    two = s.table.set_index("strategy").loc["random"]
    assert two.score == -row.score
    assert (two.score_per_series_lo, two.score_per_series_hi) == pytest.approx((-hi, -lo))
    # outside a series the mean is a deal's (its seatings together), and so named
    m = run_table_match(["easy", "random", "random"], deals=10, seed=6, rules=Rules(players=3))
    keys = [k for k in m.to_dict()["strategies"][0] if k.startswith("score")]
    assert keys == ["score", "score_per_deal", "score_per_deal_lo", "score_per_deal_hi"]


@pytest.mark.parametrize("series, length", [(1, 60), (2, 30), (6, 10)])
def test_a_series_rates_take_blocks_of_ten_deals_as_clusters(tmp_path, series, length):
    """The rates of a series match take blocks of ``SERIES_BLOCK`` consecutive deals of a
    series as their clusters (a QA finding: one long series counted every deal as
    independent, two of them gave intervals of one degree of freedom), recomputed here from
    the records; the series score keeps the series as its unit."""
    from durak_sim.clustered import ratio_variance, wilson_design
    from durak_sim.table_match import SERIES_BLOCK

    out = tmp_path / "s.jsonl"
    s = run_table_match(["easy", "random"], deals=series, seed=6, records=out,
                        series_deals=length, rules=Rules())
    blocks: dict = {}
    for line in out.read_text().splitlines():
        r = json.loads(line)
        key = (r["series"]["series"], r["series"]["deal"] // SERIES_BLOCK)
        seat = r["seats"].index("easy")
        res = r["result"]
        first = res["out_order"][:1] == [seat] and res["outcome"] != "draw"
        m, x = blocks.get(key, (0, 0))
        blocks[key] = (m + 1, x + first)
    m, x = (np.array([b[j] for b in blocks.values()], float) for j in (0, 1))
    assert len(blocks) == series * length // SERIES_BLOCK and m.sum() == series * length
    var = ratio_variance(x.sum(), m.sum(), (x * x).sum(), (x * m).sum(), (m * m).sum(),
                         len(blocks))
    lo, hi = wilson_design(x.sum(), m.sum(), var, units=m.sum(), clusters=len(blocks),
                           trials=m.sum())
    row = s.table.set_index("strategy").loc["easy"]
    assert row.first == x.sum()
    assert (row.first_lo, row.first_hi) == pytest.approx((float(lo), float(hi)))


@pytest.mark.parametrize("command", [
    ["match", "easy", "random", "easy", "--players", "3", "--deals", "50"],
    ["series", "easy", "random", "easy", "--players", "3", "--deals", "4", "--series", "5"],
    ["match", "easy", "engine:{engine}", "--deals", "5"],
    ["match", "easy", "random", "--deals", "50"],
], ids=["match", "series", "engine-match", "two-players"])
def test_ctrl_c_before_the_first_deal_is_exit_130_and_leaves_the_records_file(
        tmp_path, monkeypatch, command):
    """Stopped before any deal was finished: exit code 130 (not a usage error), and the
    records file given with --force is left as it was, not emptied."""
    from click.testing import CliRunner

    from durak_sim.cli import main
    from durak_sim.engines import EXAMPLES
    from durak_sim.stopping import StopFlag

    monkeypatch.setattr(StopFlag, "__bool__", lambda self: True)   # Ctrl-C at once
    path = tmp_path / "r.jsonl"
    path.write_text("kept\n")
    args = [a.format(engine=EXAMPLES["lowest_card"]) for a in command]
    res = CliRunner().invoke(main, [*args, "--threads", "1", "--records", str(path),
                                    "--force", "--no-progress"])
    assert res.exit_code == 130, res.output
    assert "interrupted before the first deal was finished: nothing was written" in res.output
    assert path.read_text() == "kept\n"


def test_a_rate_never_seen_in_a_series_match_gets_the_plain_interval_of_its_deals():
    """No Durak in 20 deals (4 series of 5): the variance says nothing of the design effect,
    taken as 1 (Korn & Graubard 1998): Wilson's for 0 of the 20 seat-games, its sample
    scaled for a variance of 4 series (3 degrees of freedom); not wider than 1 hit's."""
    s = run_table_match(["easy", "normal", "random"], deals=4, seed=7, rules=Rules(players=3),
                        threads=1, series_deals=5, progress=False)
    t = s.table.set_index("strategy")
    zero = t[t.durak == 0]
    assert len(zero) and (zero.games == 20).all()
    assert np.allclose(zero.durak_hi, wilson_interval(0, 20 * _df(20, 4))[1])
    one = t[(t.durak > 0) & (t.durak < t.games)]
    assert (one.durak_hi > 0).all() and (zero.durak_hi.max() <= one.durak_hi.max() + 1e-12)


def test_with_teams_a_draw_is_every_seat_s_as_a_loss_is():
    """A team game is won, lost or drawn by the whole team (E11): each strategy's draws are
    its seat-games of drawn deals, as its Durak games are those its team lost."""
    s = run_table_match(["normal", "easy", "normal", "easy"], deals=2000, seed=3,
                        rules=Rules(variant="teams", players=4), threads=1, progress=False)
    c = s.counts
    assert c.team_draws > 0
    assert int(c.draws.sum()) == 4 * c.team_draws
    assert int(c.durak.sum()) == 2 * int(c.team_lost.sum())
    assert (c.durak + c.draws <= c.games).all()


def test_a_partnership_s_losses_and_their_interval(tmp_path):
    """With teams a match reports each partnership's losses (the line-up's positions 0, 2
    against 1, 3, whichever seats a rotation gives them; the seats' teams swap partnerships
    at every other rotation). The games come in clusters (a deal's rotations share its
    cards): the interval is Wilson's at the effective sample size of the deal-clustered
    variance, computed here from the records, not Wilson's over the games as if they were
    independent."""
    import json

    from durak_sim.clustered import ratio_variance, wilson_design
    from durak_sim.table_match import team_interval

    path = tmp_path / "teams.jsonl"
    s = run_table_match(["normal", "random", "easy", "random"], deals=40, seed=5,
                        rules=Rules(variant="teams", players=4), threads=1, progress=False,
                        records=path)
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    deals = sorted({r["deal"] for r in recs})
    assert len(recs) == s.games and len(deals) == 40
    partners = (["easy", "normal"], ["random", "random"])
    assert s.to_dict()["teams"]["partnerships"] == [["normal", "easy"], ["random", "random"]]

    def lost(r, team):
        t = r["result"].get("durak_team")
        return t is not None and sorted(r["seats"][t::2]) == partners[team]

    for team in (0, 1):
        x = np.array([sum(lost(r, team) for r in recs if r["deal"] == d) for d in deals], float)
        m = np.array([sum(r["deal"] == d for r in recs) for d in deals], float)
        k, g = int(x.sum()), int(m.sum())
        assert k == int(s.counts.team_lost[team])
        want = wilson_design(k, g, ratio_variance(k, g, x @ x, x @ m, m @ m, len(deals)),
                             units=len(deals), clusters=len(deals))
        assert team_interval(s.counts, team) == pytest.approx(want, abs=1e-12)
        assert s.to_dict()["teams"]["lost_lo"][team] == pytest.approx(want[0], abs=1e-12)
    assert s.counts.team_lost[1] > 0.9 * s.games   # random+random loses nearly every game


def test_a_match_counts_the_games_the_cap_on_play_ended(capsys):
    """The games of deals 688 and 1249 of seed 1 between six easy players, in one seating,
    end at the cap on play (rules E12, as in the tournament's test): the match counts them
    and says so."""
    s = run_table_match(["easy"] * 6, deals=1300, seed=1, rules=Rules(players=6), threads=1,
                        swap=False)
    assert s.counts.capped == 2 and s.to_dict()["capped"] == 2
    s.print()
    assert "the cap on play (rules E12): 2 games went on past 3,000 actions" in \
        capsys.readouterr().out
    assert run_table_match(["easy"] * 6, deals=600, seed=1, rules=Rules(players=6),
                           threads=1, swap=False).to_dict()["capped"] == 0
