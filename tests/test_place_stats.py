"""The statistics of tournaments at tables of three to six players, each against a known
value: the Plackett-Luce fit against scipy's optimiser and the choix library, its prior
against the closed form of the two-player ratings, the bootstrap's Poisson weights against
the seed contract and the Poisson distribution, the deal bootstrap against the delta-method
standard error, Wilson intervals against scipy, and the counts of a hand-made chunk against
hand counts."""
import numpy as np
import pandas as pd
import pytest
import scipy.optimize
import scipy.stats

from durak_sim import place_stats as ps
from durak_sim import plackett_luce as plm
from durak_sim.place_counts import (BOOT_STREAM, BOOTSTRAP, PlaceTally, _TABLE,
                                    poisson_weights)
from durak_sim.rules import Rules
from durak_sim.seeding import Stream, stream_start
from durak_sim.stats import ELO_PER_NAT, elo_from_score, wilson_interval
from durak_sim.tournament_config import make_config


def _widened(lo, hi, deals, low=-np.inf, high=np.inf):
    """A percentile interval widened about its midpoint by sqrt(D / (D - 1)) t(D - 1) / z,
    clipped to the range (place_stats._quantiles), written out."""
    f = np.sqrt(deals / (deals - 1)) * scipy.stats.t.ppf(0.975, deals - 1) / \
        scipy.stats.norm.ppf(0.975)
    mid = (lo + hi) / 2
    return max(mid - f * (mid - lo), low), min(mid + f * (hi - mid), high)


def test_the_few_deals_factor_is_the_t_intervals():
    """The widening of a bootstrap percentile interval: 9.17 at two deals (sqrt(2) t(1) /
    z = sqrt(2) 12.706 / 1.960), 1.0003 at 5,000; a mean's widened interval from many
    resamples is then about the t interval of its deals."""
    pm1 = np.repeat([-1.0, 1.0], 50)[:, None]              # percentiles -1 and +1
    lo, hi = ps._quantiles(pm1, 0.95, 2)
    assert (lo[0], hi[0]) == pytest.approx((-9.1682, 9.1682), rel=1e-4)
    lo, hi = ps._quantiles(pm1, 0.95, 5000)
    assert hi[0] == pytest.approx(1.0003, abs=5e-5)
    assert ps._quantiles(pm1, 0.95, 2, -2, 3) == pytest.approx((-2, 3))    # clipped
    x = np.random.default_rng(5).normal(size=8)
    boot = np.random.default_rng(6).choice(x, size=(20000, 8)).mean(axis=1)
    lo, hi = ps._quantiles(boot[:, None], 0.95, 8)
    half = scipy.stats.t.ppf(0.975, 7) * x.std(ddof=1) / np.sqrt(8)
    assert (lo[0], hi[0]) == pytest.approx((x.mean() - half, x.mean() + half), abs=0.06)


# --------------------------------------------------------------------------------------
# Plackett-Luce
# --------------------------------------------------------------------------------------
#: choices (winner, seats still in as strategy indices), strategy 1 twice at some tables
CHOICES = [(0, (0, 1, 1)), (1, (0, 1, 1)), (1, (0, 1, 1)), (0, (0, 1)), (1, (0, 1)),
           (2, (0, 1, 2)), (0, (0, 1, 2)), (1, (1, 2)), (2, (1, 2)), (0, (0, 2)),
           (1, (0, 1, 1, 2)), (2, (0, 1, 1, 2)), (0, (0, 1, 2)), (1, (1, 1)), (2, (0, 2))]


def _aggregate(choices, k):
    sets = sorted({tuple(np.bincount(s, minlength=k)) for _, s in choices})
    wins, n = np.zeros(k), np.zeros(len(sets))
    for w, s in choices:
        wins[w] += 1
        n[sets.index(tuple(np.bincount(s, minlength=k)))] += 1
    return wins, n, sets


def _neg_loglik(theta, choices):
    """The seat-level likelihood: each seat still in is a candidate of its own."""
    return -sum(theta[w] - scipy.special.logsumexp(theta[list(s)]) for w, s in choices)


def test_plackett_luce_equals_scipy_on_choices_with_a_strategy_twice():
    wins, n, sets = _aggregate(CHOICES, 3)
    theta = plm.plackett_luce(wins[None, :], n[None, :], sets)[0]
    best = scipy.optimize.minimize(_neg_loglik, np.zeros(3), args=(CHOICES,), method="BFGS",
                                   options={"gtol": 1e-10})
    want = best.x - best.x.mean()
    assert abs(theta.mean()) < 1e-12
    np.testing.assert_allclose(theta, want, atol=1e-5)
    # and the likelihood it maximises is the seat-level one
    ll = plm._pl_parts(theta[None, :], wins[None, :], n[None, :], np.asarray(sets, float),
                      False)[0][0]
    assert ll == pytest.approx(-_neg_loglik(theta, CHOICES), abs=1e-9)


def test_plackett_luce_converges_on_millions_of_choices():
    """The counts of a six-seat field of two strategies over 600,000 games (a 200,000-deal
    tournament, times three): the gradient's rounding alone once moved every step by 5e-10
    along the constant vector, so the fit never converged. The gradient vanishes at the
    answer, and the two strategies' choices tell a plain 2x2 check of it."""
    wins = np.array([[4823625.5, 7170205.5]]) * 3
    n = np.array([[6481, 827, 316420, 104950, 23404, 2070980, 1150833, 688847, 297922,
                   1143340, 1687749, 2102078, 2400000]], float) * 3
    sets = [[0, 2], [0, 3], [1, 1], [1, 2], [1, 3], [2, 0], [2, 1], [2, 2], [2, 3], [3, 0],
            [3, 1], [3, 2], [3, 3]]
    theta = plm.plackett_luce(wins, n, sets)
    assert abs(theta.sum()) < 1e-8   # mean 0 up to the rounding of the first steps
    _, grad, _ = plm._pl_parts(theta, wins, n, np.asarray(sets, float), True)
    assert np.abs(grad).max() < 1e-6 * wins.sum()
    np.testing.assert_allclose(theta[0], [-0.96638278, 0.96638278], atol=1e-7)


def test_plackett_luce_equals_choix():
    choix = pytest.importorskip("choix")
    rng = np.random.default_rng(5)
    strength = np.array([0.0, 0.8, -0.5, 1.5])
    data = []
    for _ in range(400):                      # top-1 choices from random sets of 2-4
        s = list(rng.choice(4, size=rng.integers(2, 5), replace=False))
        p = np.exp(strength[s]) / np.exp(strength[s]).sum()
        w = s[rng.choice(len(s), p=p)]
        data.append((int(w), [int(x) for x in s if x != w]))
    wins, n, sets = _aggregate([(w, (w, *losers)) for w, losers in data], 4)
    theta = plm.plackett_luce(wins[None, :], n[None, :], sets)[0]
    want = choix.opt_top1(4, data, alpha=0.0)
    np.testing.assert_allclose(theta, want - want.mean(), atol=1e-5)
    # choix's likelihood of choices with a strategy twice among the seats is the same
    # (winner, the other seats still in): strategy 1 twice at each table
    dup = [(1, [0, 1]), (0, [1, 1]), (1, [1, 2]), (2, [1, 1])]
    wins, n, sets = _aggregate([(w, (w, *losers)) for w, losers in dup], 3)
    th = np.array([0.3, -0.2, 0.5])
    ll = plm._pl_parts(th[None, :], wins[None, :], n[None, :], np.asarray(sets, float),
                      False)[0][0]
    assert ll == pytest.approx(choix.log_likelihood_top1(dup, th), abs=1e-12)


def test_two_strategies_reduce_to_bradley_terry_with_its_prior():
    """One table of two, ``w`` of ``n`` choices won: the gap is the Elo of the score with
    the virtual drawn game, ``(w + 1/2) / (n + 1)``; a sweep gives 400 log10(2n + 1)."""
    for w, n in ((7, 10), (10, 10), (0, 25)):
        theta = plm.plackett_luce(np.array([[w + 0.5, n - w + 0.5]]), np.array([[n + 1.0]]),
                                 [(1, 1)])[0]
        gap = ELO_PER_NAT * (theta[0] - theta[1])
        assert gap == pytest.approx(elo_from_score((w + 0.5) / (n + 1)), abs=1e-8)
    theta = plm.plackett_luce(np.array([[10.5, 0.5]]), np.array([[11.0]]), [(1, 1)])[0]
    assert ELO_PER_NAT * (theta[0] - theta[1]) == pytest.approx(400 * np.log10(21))


def test_the_fit_is_vectorised_over_resamples():
    wins, n, sets = _aggregate(CHOICES, 3)
    rows = np.vstack([wins, wins * 2, wins + 1])
    ns = np.vstack([n, n * 2, n + np.array([3.0 if s == (1, 1, 1) else 0 for s in sets])])
    together = plm.plackett_luce(rows, ns, sets)
    for i in range(3):
        np.testing.assert_allclose(together[i], plm.plackett_luce(rows[i], ns[i], sets)[0],
                                   atol=1e-12)


# --------------------------------------------------------------------------------------
# The deal bootstrap
# --------------------------------------------------------------------------------------
def test_poisson_weights_follow_the_seed_contract():
    w = poisson_weights(9, np.array([0, 5, 123456789]))
    assert w.shape == (BOOTSTRAP, 3)
    for i, deal in enumerate((0, 5, 123456789)):
        s = Stream(stream_start(9, deal, BOOT_STREAM))
        want = []
        for _ in range(BOOTSTRAP // 4):
            z = s.next()
            want += [_TABLE[0][(z >> (16 * q)) & 0xFFFF] for q in range(4)]
        np.testing.assert_array_equal(w[:, i], want)
    # a deal's weights do not depend on the other deals asked for with it
    np.testing.assert_array_equal(poisson_weights(9, np.array([5]))[:, 0], w[:, 1])


def test_poisson_weights_are_poisson_1():
    poisson_weights(1, np.arange(2))
    table = _TABLE[0]
    freq = np.bincount(table.astype(int)) / 65536
    pmf = scipy.stats.poisson.pmf(np.arange(len(freq)), 1.0)
    assert np.abs(freq - pmf).max() < 1 / 65536 + 1e-12
    w = poisson_weights(3, np.arange(20000))
    assert w.mean() == pytest.approx(1.0, abs=0.003) and w.var() == pytest.approx(1.0, abs=0.01)


def test_the_deal_bootstrap_of_a_ratio_matches_the_delta_method():
    """Mean place as a ratio of per-deal sums: the bootstrap's standard error equals the
    cluster-robust (delta-method) one, ``sqrt(sum (y_d - r n_d)^2) / sum n_d``."""
    rng = np.random.default_rng(1)
    d = 5000
    n_d = rng.integers(1, 5, d).astype(float)
    y_d = n_d * 2.0 + rng.normal(0, 1.5, d) * np.sqrt(n_d) + rng.normal(0, 1.0, d)
    r = y_d.sum() / n_d.sum()
    se = np.sqrt(((y_d - r * n_d) ** 2).sum()) / n_d.sum()
    w = poisson_weights(4, np.arange(d)).astype(float)
    boot = (w @ y_d) / (w @ n_d)
    assert boot.std() == pytest.approx(se, rel=0.1)
    lo, hi = np.quantile(boot, [0.025, 0.975])
    assert lo < r < hi and (hi - lo) == pytest.approx(2 * 1.96 * se, rel=0.12)


# --------------------------------------------------------------------------------------
# Counting a hand-made chunk
# --------------------------------------------------------------------------------------
# line-up random, easy, easy at three seats: seatings [r, e, e], [e, r, e], [e, e, r]
HAND = {  # per game: seating, places, outcome, durak, first attacker, bouts, cards left
    "seating": [0, 1, 2, 0, 1, 2],
    "places": [[3, 1, 2], [1, 2, 3], [2, 1, 2], [1, 3, 2], [2, 3, 1], [1, 1, 1]],
    "outcome": [0, 0, 1, 0, 0, 1], "durak": [0, 2, -1, 1, 1, -1],
    "first_attacker": [0, 1, 2, 0, 1, 2], "bouts": [10, 12, 20, 9, 11, 14],
    "cards_left": [5, 3, 0, 2, 4, 0],
}


def _hand_tally(games=slice(None)):
    cfg = make_config(["random", "easy", "easy"], deals=2, seed=3, rules=Rules(players=3))
    tally = PlaceTally.of(cfg)
    places = np.array(HAND["places"])[games]
    cols = {f"place{s}": places[:, s].astype(np.int8) for s in range(3)}
    cols.update({c: np.array(HAND[c])[games] for c in ("outcome", "durak", "first_attacker",
                                                       "bouts", "cards_left")})
    cols["durak_team"] = np.full(len(places), -1)
    deals = np.array([0, 0, 0, 1, 1, 1])[games]
    tally.add(("random", "easy", "easy"), deals, np.array(HAND["seating"])[games], cols)
    return cfg, tally


def test_a_hand_made_chunk_is_counted_as_by_hand():
    cfg, t = _hand_tally()
    r, e = 0, 1                                              # names: random, easy
    assert t.games.tolist() == [6] and t.deals.tolist() == [2]
    assert t.place_hist[0, r].tolist() == [2, 2, 2] and t.place_hist[0, e].tolist() == [6, 4, 2]
    assert t.lost[0].tolist() == [2, 2] and t.drawn[0].tolist() == [2, 3]
    assert t.first[0].tolist() == [1, 4]
    assert t.seat[:, 1].tolist() == [1, 2, 1] and t.seat[:, 2].tolist() == [2, 2, 1]
    assert t.seat[:, 3].tolist() == [10, 11, 11]
    assert t.rel[:, 1].tolist() == [2, 2, 0]
    # choices: (winner, set) - a draw's tied seats and a table that went out together none
    assert t.wins.tolist() == [2, 7]
    assert dict(zip(t.sets, t.set_n.tolist())) == {(0, 2): 1, (1, 1): 3, (1, 2): 5}
    # the bootstrap sums: every resample, the weighted choices of each deal
    w = poisson_weights(3, np.array([0, 1]))
    np.testing.assert_array_equal(t.boot_pl[:, :2], w @ np.array([[1.0, 4.0], [1.0, 3.0]]))
    np.testing.assert_array_equal(t.bucket_place.sum(axis=0),
                                  [[12.0, 6.0], [20.0, 12.0]])   # place sums, seat-games
    assert t.bouts[0, 20] == 1 and t.cards[0].sum() == 4       # decisive games


def test_tallies_of_parts_merge_to_the_tally_of_the_whole():
    _, whole = _hand_tally()
    _, a = _hand_tally(slice(0, 3))
    _, b = _hand_tally(slice(3, 6))
    merged = a.merge(b)
    for f in ("games", "place_hist", "lost", "drawn", "first", "seat", "rel", "wins",
              "set_n", "boot_pl", "bucket_place", "boot_place", "bouts", "cards", "h2h",
              "boot_h2h", "clus", "boot_rates", "boot_pos"):
        np.testing.assert_array_equal(getattr(merged, f), getattr(whole, f), err_msg=f)


def test_a_field_stored_out_of_order_counts_each_deal_once():
    """An incomplete field whose line-ups hold different deal ranges (dask stores chunks in
    any order): the deals behind a strategy's intervals are the union of its line-ups'
    ranges, and a part merged in adds its ranges."""
    cfg = make_config(["random", "easy", "normal", "hard"], deals=10, seed=1,
                      rules=Rules(players=3))
    t = PlaceTally.of(cfg)
    one = {"place0": [1], "place1": [2], "place2": [3], "outcome": [0], "durak": [2],
           "durak_team": [-1], "first_attacker": [0], "bouts": [9], "cards_left": [4]}
    seatings = len(cfg.seatings(cfg.lineups()[0]))

    def add(tally, key, first, n):
        deals = np.repeat(np.arange(first, first + n), seatings)
        cols = {c: np.tile(np.array(v), len(deals)) for c, v in one.items()}
        tally.add(key, deals, np.tile(np.arange(seatings), n), cols)

    lineups = cfg.lineups()
    add(t, lineups[0], 0, 4)                                  # deals 0-3
    add(t, lineups[1], 2, 4)                                  # deals 2-5
    code = {x: i for i, x in enumerate(t.names)}
    shared = [x for x in lineups[0] if x in lineups[1]][0]
    assert ps._deals_of(t, code[shared]) == 6
    assert ps._deals_of(t, *(code[x] for x in lineups[0])) == 4
    part = PlaceTally.of(cfg)
    add(part, lineups[1], 8, 2)                               # deals 8-9
    assert t.merge(part).deals_in([1]) == 6 and ps._deals_of(t, code[shared]) == 8


def test_tables_of_a_hand_made_chunk():
    cfg, t = _hand_tally()
    s = ps.strategy_table(t).set_index("strategy")
    assert s.loc["easy", "mean_place"] == pytest.approx(20 / 12)
    assert s.loc["random", "games"] == 6 and s.loc["random", "first"] == 1
    # easy went out first 3 times of 6 seat-games in deal 0, once of 6 in deal 1: the
    # rate 1/3 with the deals independent has the variance 2 / 1 * ((3 - 2)**2 +
    # (1 - 2)**2) / 12**2 = 1/36, that of 8 independent games (r (1 - r) / 8), so its
    # interval is Wilson's for 8/3 of 8, its sample scaled for a variance of two deals (one
    # degree of freedom) by (t(11) / t(1))**2 (Korn & Graubard 1998)
    from scipy.stats import t as student

    n_eff = 8 * (student.ppf(0.975, 11) / student.ppf(0.975, 1)) ** 2
    lo, hi = wilson_interval(n_eff / 3, n_eff)
    assert (s.loc["easy", "first_lo"], s.loc["easy", "first_hi"]) == pytest.approx((lo, hi))
    lineups = ps.lineup_table(t, ["easy", "random"]).set_index("strategy")
    assert (lineups.loc["easy", "first_lo"], lineups.loc["easy", "first_hi"]) == \
        pytest.approx((lo, hi))
    seats = ps.seat_table(t)
    assert seats["mean_place"].tolist() == pytest.approx([10 / 6, 11 / 6, 11 / 6])
    # the mean place by seat and by position after the first attacker: the deal
    # bootstrap's percentile interval of the resampled place sums over the games; by hand,
    # each deal's three games: seats 6, 4, 7 and 4, 7, 4; positions 7, 6, 4 and 5, 5, 5
    w = poisson_weights(3, np.array([0, 1])).astype(float)
    games = w @ np.array([3.0, 3.0])
    for table, sums in ((seats, [[6, 4, 7], [4, 7, 4]]),
                        (ps.first_attacker_table(t), [[7, 6, 4], [5, 5, 5]])):
        with np.errstate(invalid="ignore", divide="ignore"):
            boot = (w @ np.array(sums, float)) / games[:, None]
        for j in range(3):
            b = boot[:, j][np.isfinite(boot[:, j])]
            assert (table.loc[j, "mean_place_lo"], table.loc[j, "mean_place_hi"]) == \
                pytest.approx(_widened(*np.quantile(b, [0.025, 0.975]), 2, 1, 3))
    # random's mean place in its line-up, the deals independent: places 3, 2, 2 and 1, 3, 1
    # (it sits in seat g of seating g), 7 and 5 of 3 games each, mean 2, variance
    # 2 / 1 * ((7 - 6)**2 + (5 - 6)**2) / 6**2 = 1/9; Wilson's on the range 1..3
    from durak_sim.clustered import bounded_interval

    lu = ps.lineup_table(t, ["easy", "random"]).set_index("strategy")
    assert lu.loc["random", "mean_place"] == 2
    assert (lu.loc["random", "mean_place_lo"], lu.loc["random", "mean_place_hi"]) == \
        pytest.approx(tuple(float(b) for b in bounded_interval(2.0, 1 / 9, 6, 1, 3, units=2)))
    conv = ps.convergence(t, ["easy", "random"])
    last = conv[conv["strategy"] == "easy"].iloc[-1]
    assert last["deals"] == 2 and last["mean_place"] == pytest.approx(20 / 12)
    mp = ps.mean_place(t).set_index("strategy")
    assert (last["lo"], last["hi"]) == pytest.approx((mp.loc["easy", "mean_place_lo"],
                                                      mp.loc["easy", "mean_place_hi"]))
    r = ps.pl_ratings(t).set_index("strategy")
    assert r["rating"].sum() == pytest.approx(0.0, abs=1e-9)
    assert r.loc["easy", "lo"] <= r.loc["easy", "rating"] <= r.loc["easy", "hi"]
    gl = ps.game_length_table(t)
    assert gl["lineup"].tolist() == ["*", "random, easy, easy"]
    assert gl.loc[0, "games"] == 6 and gl.loc[0, "bouts_max"] == 20
    assert gl.loc[0, "cards_left_mean"] == pytest.approx(14 / 4)


def test_head_to_head_of_a_hand_made_chunk_is_counted_as_by_hand():
    """Random against each easy seat of every game (easy against easy is no meeting)."""
    cfg, t = _hand_tally()
    who = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]])[HAND["seating"]]     # 0 random
    places = np.array(HAND["places"])
    mine = places[who == 0]                                    # random's place per game
    theirs = places[who == 1].reshape(-1, 2)
    ahead = int((mine[:, None] < theirs).sum())
    ties = int((mine[:, None] == theirs).sum())
    behind = int((mine[:, None] > theirs).sum())
    h = ps.head_to_head(t, ["easy", "random"]).iloc[0]
    assert (h.a, h.b, h.games) == ("easy", "random", 12)
    assert (h.ahead, h.ties, h.behind) == (behind, ties, ahead)
    assert h.score == pytest.approx((behind + ties / 2) / 12)
    assert h.places == pytest.approx((mine[:, None] - theirs).sum() / 12)
    # the bootstrap of the score: every resample's weighted sums of the two deals
    w = poisson_weights(3, np.array([0, 1])).astype(float)
    # twice easy's score in each deal (its three games): ahead 2, tied 1
    per_deal = [sum(2 * int((mine[g] > theirs[g]).sum()) + int((mine[g] == theirs[g]).sum())
                    for g in range(d, d + 3)) for d in (0, 3)]
    score2 = w @ np.array(per_deal, float)
    meet = w @ np.array([6.0, 6.0])
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = score2 / (2 * meet)
    lo, hi = np.quantile(boot[np.isfinite(boot)], [0.025, 0.975])
    assert (h.score_lo, h.score_hi) == pytest.approx(_widened(lo, hi, 2, 0, 1))
    # the rating difference: of the same resamples' fits, paired
    fits: dict = {}
    r = ps.pl_ratings(t, fits=fits).set_index("strategy")
    h = ps.head_to_head(t, ["easy", "random"], fits).iloc[0]
    assert h.elo == pytest.approx(r.loc["easy", "rating"] - r.loc["random", "rating"])
    assert h.elo_lo <= h.elo <= h.elo_hi


def test_resamples_that_drew_no_game_are_left_out_of_the_rating_intervals():
    """With two deals, about e**-2 of the resamples weight both 0: they hold only the prior,
    whose fit is 0 for every strategy; counted, they pinned interval ends at 0."""
    cfg, t = _hand_tally()
    w = poisson_weights(3, np.array([0, 1]))
    empty = w.sum(axis=1) == 0
    assert 0.05 < empty.mean() < 0.25
    fits: dict = {}
    r = ps.pl_ratings(t, fits=fits).set_index("strategy")
    for name in ("easy", "random"):
        boot = fits[name][1:]
        assert np.isnan(boot[empty]).all() and np.isfinite(boot[~empty]).all()
        lo, hi = np.quantile(boot[~empty], [0.025, 0.975])
        assert (r.loc[name, "lo"], r.loc[name, "hi"]) == pytest.approx(_widened(lo, hi, 2))
    h = ps.head_to_head(t, ["easy", "random"], fits).iloc[0]
    diff = (fits["easy"] - fits["random"])[1:][~empty]
    assert (h.elo_lo, h.elo_hi) == pytest.approx(
        _widened(*np.quantile(diff, [0.025, 0.975]), 2))


def test_one_deal_is_never_reported_as_certain():
    """With one deal every bootstrap resample is alike; the mean place, head-to-head and
    convergence intervals then fall back to Wilson's on their range with the deals as the
    sample: finite, within the range, holding the estimate, not of zero width."""
    from durak_sim.clustered import bounded_interval

    _, t = _hand_tally(slice(0, 3))                     # deal 0 alone
    mp = ps.mean_place(t).set_index("strategy")
    for name in ("random", "easy"):
        r = mp.loc[name]
        assert 1 <= r.mean_place_lo < r.mean_place < r.mean_place_hi <= 3
        assert (r.mean_place_lo, r.mean_place_hi) == pytest.approx(
            tuple(float(x) for x in bounded_interval(r.mean_place, np.nan, 1, 1, 3)))
    h = ps.head_to_head(t, ["easy", "random"]).iloc[0]
    assert 0 <= h.score_lo < h.score < h.score_hi <= 1
    assert -2 <= h.places_lo < h.places < h.places_hi <= 2
    conv = ps.convergence(t, ["easy", "random"])
    assert (conv["hi"] > conv["lo"]).all()


def test_strategies_whose_deals_all_came_out_alike_get_no_certain_rating(tmp_path):
    """hard plays prostoy as normal does (README), so in every seating of a deal the two
    finish alike: every resample gives a rating difference of exactly 0, which was shown
    as +0.0 [+0.0, +0.0] after 30 deals beside a score of 50 [33, 67] %. The difference
    now takes the score's interval in Elo, each rating (k - 1) / k of it, and the report
    says so."""
    from durak_sim.tournament import run_tournament

    out = tmp_path / "t"
    run_tournament(["normal", "hard", "normal", "hard"], 30, 1, out, 1, progress=False,
                   rules=Rules(variant="prostoy", players=4))
    h = pd.read_csv(out / "head_to_head.csv").iloc[0]
    assert h.elo == 0 and h.score == 0.5
    e = [float(elo_from_score(v)) for v in (h.score_lo, h.score_hi)]
    assert (h.elo_lo, h.elo_hi) == pytest.approx(e) and h.elo_lo < -100
    r = pd.read_csv(out / "ratings.csv")
    assert r["lo"].tolist() == pytest.approx([e[0] / 2] * 2)
    assert r["hi"].tolist() == pytest.approx([e[1] / 2] * 2)
    report = (out / "report.md").read_text()
    assert "same rating difference for normal - hard" in report
    assert "same rating for normal, hard" in report
    # with others at the table the two's resamples differ by rounding only (~1e-14): the
    # same fallback for the difference; the ratings move with the others, so they keep theirs
    out = tmp_path / "u"
    run_tournament(["normal", "hard", "easy", "random"], 30, 1, out, 1, progress=False,
                   rules=Rules(variant="prostoy", players=4))
    h = pd.read_csv(out / "head_to_head.csv").set_index(["a", "b"])
    pair = h.loc[("normal", "hard")] if ("normal", "hard") in h.index else h.loc[("hard", "normal")]
    assert abs(pair.elo) < 1e-9 and pair.elo_hi - pair.elo_lo > 100
    assert "same rating difference for" in (out / "report.md").read_text()
    r = pd.read_csv(out / "ratings.csv")
    assert (r["hi"] - r["lo"] > 10).all()


def test_team_choices_stop_at_the_losing_team_and_team_results_are_counted():
    cfg = make_config(["random", "easy", "random", "easy"], deals=1, seed=1,
                      rules=Rules(variant="teams"))
    t = PlaceTally.of(cfg)
    perms = cfg.seatings(cfg.lineups()[0])
    assert len(perms) == 2          # random on the even seats, or on the odd ones
    cols = {"place0": np.array([3, 1]), "place1": np.array([1, 3]),
            "place2": np.array([3, 2]), "place3": np.array([2, 3]),
            "outcome": np.array([0, 0]), "durak": np.array([-1, -1]),
            "durak_team": np.array([0, 1]), "first_attacker": np.array([0, 0]),
            "bouts": np.array([10, 10]), "cards_left": np.array([6, 6])}
    t.add(cfg.lineups()[0], np.array([0, 0]), np.array([0, 1]), cols)
    # game 0: seats 1 (easy), 3 (easy) out: random's team lost; game 1: the other way round
    assert t.lost[0].tolist() == [4, 0] and t.first[0].tolist() == [0, 2]
    assert t.wins.tolist() == [0, 4]            # two choices a game, the tie not ordered
    teams = ps.team_table(t)
    row = teams.set_index(["team", "opponents"]).loc[("random+random", "easy+easy")]
    assert row["games"] == 2 and row["lost"] == 2 and row["won"] == 0
    # head to head: opponents only (each game: 4 meetings; partners are not compared)
    h = ps.head_to_head(t, ["easy", "random"]).iloc[0]
    assert (h.games, h.ahead, h.behind, h.ties) == (8, 8, 0, 0)   # easy out first, both


def test_team_loss_intervals_take_the_deal_as_the_cluster():
    """random's team loses 2, 1, 0 of its 2 games in deals 0, 1, 2: the rate 1/2 has the
    variance 3 / 2 * (1 + 0 + 1) / 6**2 = 1/12 with the deals independent, that of 3
    independent games, so its interval is Wilson's for 1.5 of 3."""
    cfg = make_config(["random", "easy", "random", "easy"], deals=3, seed=1,
                      rules=Rules(variant="teams"))
    t = PlaceTally.of(cfg)
    team_lost = np.array([0, 1, 0, 0, 1, 0])        # seating 0: random even, 1: random odd
    even_lost = team_lost == 0
    cols = {"place0": np.where(even_lost, 3, 1), "place1": np.where(even_lost, 1, 3),
            "place2": np.where(even_lost, 3, 2), "place3": np.where(even_lost, 2, 3),
            "outcome": np.zeros(6), "durak": np.full(6, -1), "durak_team": team_lost,
            "first_attacker": np.zeros(6, np.int64), "bouts": np.full(6, 10),
            "cards_left": np.full(6, 6)}
    t.add(cfg.lineups()[0], np.array([0, 0, 1, 1, 2, 2]), np.array([0, 1] * 3), cols)
    row = ps.team_table(t).set_index(["team", "opponents"]).loc[("random+random", "easy+easy")]
    assert (row["games"], row["lost"]) == (6, 3)
    # ... scaled for a variance of three deals by (t(5) / t(2))**2 (Korn & Graubard 1998)
    n_eff = 3 * (scipy.stats.t.ppf(0.975, 5) / scipy.stats.t.ppf(0.975, 2)) ** 2
    assert (row["lost_lo"], row["lost_hi"]) == pytest.approx(wilson_interval(n_eff / 2, n_eff))


def test_strategies_that_never_met_get_no_ratings():
    """Two line-ups with no strategy in common (an unfinished round robin): no ratings."""
    from durak_sim.registry import register_strategy
    from durak_sim.strategies.random import decide

    for name in ("r3", "r4", "r5", "r6"):
        register_strategy(name, decide, version=1, plays="all")
    cfg = make_config(["random", "easy", "r3", "r4", "r5", "r6"], deals=1, seed=1,
                      rules=Rules(players=3))
    t = PlaceTally.of(cfg)
    cols = {"place0": np.array([1]), "place1": np.array([2]), "place2": np.array([3]),
            "outcome": np.array([0]), "durak": np.array([2]), "durak_team": np.array([-1]),
            "first_attacker": np.array([0]), "bouts": np.array([9]),
            "cards_left": np.array([4])}
    for key in (("random", "easy", "r3"), ("r4", "r5", "r6")):
        t.add(key, np.array([0]), np.array([0]), cols)
    with pytest.raises(ValueError, match="never met"):
        ps.pl_ratings(t)


def test_a_mean_place_at_the_end_of_its_range_is_as_certain_as_the_rate():
    """Last in every one of 20 games over 4 deals: the mean place's interval is the Durak
    rate's, mapped onto places 1..5 (both take the games as the sample, with the deals'
    degrees of freedom); one deal stays a sample of one."""
    from durak_sim.clustered import wilson_design

    lo, hi = ps._not_degenerate([5.0], [5.0], np.array([5.0]), [4], 1, 5, 0.95, trials=[20])
    r_lo, r_hi = wilson_design(20, 20, 0.0, units=4, clusters=4, trials=20)
    assert hi[0] == 5.0 and r_hi == 1.0
    assert lo[0] == pytest.approx(5 - 4 * (1 - float(r_lo)))
    assert lo[0] > 3.7   # the deals as the sample gave 3.04
    one, _ = ps._not_degenerate([5.0], [5.0], np.array([5.0]), [1], 1, 5, 0.95, trials=[5])
    assert one[0] == pytest.approx(ps._not_degenerate([5.0], [5.0], np.array([5.0]), [1], 1, 5,
                                                      0.95)[0][0])


def test_place_probabilities_by_hand():
    a, b, c = 3.0, 2.0, 1.0
    p = plm.place_probabilities(np.log([a, b, c]))
    t = a + b + c
    assert p[0, 0] == pytest.approx(a / t)
    assert p[0, 2] == pytest.approx(b / t * c / (a + c) + c / t * b / (a + b))
    assert p[2, 1] == pytest.approx(a / t * c / (b + c) + b / t * c / (a + c))
    six = plm.place_probabilities([0.3, -1.0, 2.0, 0.0, 0.5, -0.2])
    np.testing.assert_allclose(six.sum(axis=0), 1.0)
    np.testing.assert_allclose(six.sum(axis=1), 1.0)


def _tally_of_orders(orders):
    """A four-seat tally of one line-up a, b, c, d: one game a deal, ``orders[i]`` the
    seats in the order they went out."""
    d = len(orders)
    t = PlaceTally(["a", "b", "c", "d"], 4, [("a", "b", "c", "d")], False, 1, np.array([d]),
                   [[(0, 1, 2, 3)]])
    places = np.zeros((d, 4), np.int64)
    for i, order in enumerate(orders):
        places[i, list(order)] = np.arange(1, 5)
    t.add(("a", "b", "c", "d"), np.arange(d), np.zeros(d, np.int64),
          {**{f"place{s}": places[:, s] for s in range(4)}, "outcome": np.zeros(d),
           "durak": places.argmax(axis=1), "durak_team": np.full(d, -1),
           "first_attacker": np.zeros(d, np.int64), "bouts": np.ones(d, np.int64),
           "cards_left": np.ones(d, np.int64)})
    return t


def _model_check_of(tally):
    from durak_sim.place_report import _model_check
    from durak_sim.document import Doc

    ratings = ps.pl_ratings(tally)
    ratings["model_first"], ratings["model_durak"] = ps.model_rates(tally, ratings)
    doc = Doc()
    _model_check(doc, {"ratings": ratings, "strategies": ps.strategy_table(tally)}, False)
    return ratings, doc.markdown()


def test_the_model_check_passes_places_drawn_from_the_model_and_flags_others():
    """Orders drawn from Plackett-Luce itself: every model rate inside the observed
    interval. A strategy that goes out first or is the Durak, half and half: one strength
    cannot give both, and the check names it."""
    rng = np.random.default_rng(11)
    w = np.exp([1.0, 0.4, 0.0, -0.8])

    def pl_order():
        left, order = [0, 1, 2, 3], []
        while left:
            p = w[left] / w[left].sum()
            order.append(left.pop(rng.choice(len(left), p=p)))
        return order

    fits, text = _model_check_of(_tally_of_orders([pl_order() for _ in range(4000)]))
    assert "Every model rate lies inside the observed 95% interval." in text
    exact = plm.place_probabilities(np.log(w))
    np.testing.assert_allclose(fits["model_first"], exact[:, 0], atol=0.02)
    np.testing.assert_allclose(fits["model_durak"], exact[:, 3], atol=0.02)

    def all_or_nothing():
        rest = [1, 2, 3]
        rng.shuffle(rest)
        return [0, *rest] if rng.random() < 0.5 else [*rest, 0]

    _, text = _model_check_of(_tally_of_orders([all_or_nothing() for _ in range(4000)]))
    assert "outside the observed 95% interval for a (first out, Durak)" in text
