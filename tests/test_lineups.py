"""Tournaments at tables of three to six players: which line-ups a field gives, the seatings
of a line-up (all distinct permutations up to four players, rotations and mirror rotations
at five and six, partnerships kept with teams), and the configs that are refused."""
from collections import Counter
from itertools import permutations

import pytest

from durak_sim.errors import UserError
from durak_sim.lineups import field_lineups, seating_plan, seatings
from durak_sim.rules import Rules
from durak_sim.tournament_config import TournamentConfig, make_config


def _names(lineup, perms):
    return [tuple(lineup[p] for p in perm) for perm in perms]


@pytest.mark.parametrize("lineup, teams, count", [
    (("a", "b", "c"), False, 6),
    (("a", "b", "c", "d"), False, 24),
    (("hard", "easy", "easy", "easy"), False, 4),
    (("a", "a", "b", "b"), False, 6),
    (("a", "b", "c", "d", "e"), False, 10),
    (("a", "b", "c", "d", "e", "f"), False, 12),
    (("a", "b", "a", "b", "a", "b"), False, 2),
    (("a", "a", "a", "b", "b", "b"), False, 6),
    (("a", "b", "c", "d"), True, 8),
    (("a", "b", "c", "d", "e", "f"), True, 12),
    (("easy", "random", "easy", "random"), True, 2),
])
def test_seating_counts_are_the_distinct_seatings(lineup, teams, count):
    perms = seatings(lineup, teams)
    names = _names(lineup, perms)
    assert len(perms) == count and len(set(names)) == count
    assert perms[0] == tuple(range(len(lineup)))            # seating 0: as listed
    assert all(sorted(p) == list(range(len(lineup))) for p in perms)


@pytest.mark.parametrize("lineup", [("a", "b", "c"), ("a", "b", "c", "d"),
                                    ("hard", "easy", "easy", "easy")])
def test_up_to_four_players_every_distinct_permutation(lineup):
    every = {tuple(lineup[p] for p in perm) for perm in permutations(range(len(lineup)))}
    assert set(_names(lineup, seatings(lineup))) == every


@pytest.mark.parametrize("lineup, teams", [
    (("a", "b", "c", "d"), False), (("a", "b", "c", "d", "e"), False),
    (("a", "b", "c", "d", "e", "f"), False), (("a", "b", "c", "d"), True),
    (("a", "b", "c", "d", "e", "f"), True), (("h", "e", "e", "e", "e"), False),
    (("a", "b", "a", "c", "a", "c"), False)])
def test_every_strategy_sits_in_every_seat_equally_often(lineup, teams):
    names = _names(lineup, seatings(lineup, teams))
    for x in set(lineup):
        per_seat = Counter(s for t in names for s in range(len(t)) if t[s] == x)
        assert len(set(per_seat.values())) == 1 and len(per_seat) == len(lineup), (x, per_seat)


@pytest.mark.parametrize("n", [5, 6])
def test_five_and_six_players_meet_their_neighbours_on_both_sides(n):
    lineup = tuple("abcdef"[:n])
    names = _names(lineup, seatings(lineup))
    # the rotations of the line-up and of its mirror image
    assert names[:n] == [lineup[r:] + lineup[:r] for r in range(n)]
    for i, x in enumerate(lineup):
        left = Counter(t[(t.index(x) - 1) % n] for t in names)
        right = Counter(t[(t.index(x) + 1) % n] for t in names)
        # each of its two neighbours in the line-up sits on its left as often as on its right
        assert left == right and set(left) == {lineup[i - 1], lineup[(i + 1) % n]}


@pytest.mark.parametrize("lineup", [("a", "b", "c", "d"), ("a", "b", "c", "d", "e", "f"),
                                    ("a", "a", "b", "c")])
def test_teams_keep_the_partnerships_of_the_line_up(lineup):
    teams = ({lineup[0], *lineup[2::2]}, set(lineup[1::2]))
    for perm in seatings(lineup, teams=True):
        names = [lineup[p] for p in perm]
        sides = ({names[s] for s in range(0, len(names), 2)},
                 {names[s] for s in range(1, len(names), 2)})
        assert {frozenset(x) for x in sides} == {frozenset(x) for x in teams}
        # partners are positions of one parity, on seats of one parity
        assert len({(p - s) % 2 for s, p in enumerate(perm)}) == 1
    # with teams every permutation within the teams and the swap of the sides
    assert len(seatings(("a", "b", "c", "d"), teams=True)) == 2 * 2 * 2


@pytest.mark.parametrize("lineup, teams", [(("a", "b"), False), (("a", "b", "c", "d"), False),
                                           (("a", "b", "c", "d", "e"), False),
                                           (("a", "b", "c", "d", "e", "f"), True)])
def test_the_seating_plan_plays_each_seating_once(lineup, teams):
    perms = seatings(lineup, teams)
    plan = seating_plan(perms)
    n = len(lineup)
    got = {}
    for base, members in plan:
        for rot, g in members:
            got[g] = tuple(base[(s + rot) % n] for s in range(n))   # play_schedule's rule
    assert got == dict(enumerate(perms))


def test_line_ups_of_a_field():
    assert field_lineups(["r", "e", "n", "h"], 3) == [
        ("r", "e", "n"), ("r", "e", "h"), ("r", "n", "h"), ("e", "n", "h")]
    assert field_lineups(["g", "a", "b", "c"], 3, gauntlet=True) == [
        ("g", "a", "b"), ("g", "a", "c"), ("g", "b", "c")]
    assert field_lineups(["hard", "easy", "easy", "easy"], 4) == [("hard", "easy", "easy",
                                                                    "easy")]
    # at two players: a round robin's pairings
    cfg = TournamentConfig(("random", "easy", "hard"), (1, 1, 1), 1, 10)
    assert cfg.lineups() == cfg.pairings() == [("random", "easy"), ("random", "hard"),
                                               ("easy", "hard")]


def test_configs_at_n_players():
    cfg = make_config(["random", "easy", "easy", "easy"], deals=10, seed=2,
                      rules=Rules(players=4))
    assert cfg.lineups() == [("random", "easy", "easy", "easy")]
    assert cfg.names == ("random", "easy") and cfg.games == 40
    assert cfg.command() == ("durak-sim tournament random easy easy easy --deals 10 --seed 2 "
                             "--rules podkidnoy --players 4")
    back = TournamentConfig.from_dict(cfg.to_dict())
    assert back == cfg
    teams = make_config(["random", "easy", "easy", "random"], deals=10, seed=2,
                        rules=Rules(variant="teams"))
    assert teams.command().endswith("--rules teams --players 4") and teams.games == 10 * 4
    six = make_config(["random", "easy", "random", "easy", "random", "easy"], deals=5, seed=1,
                      rules=Rules(variant="perevodnoy", players=6))
    assert six.games == 5 * 2 and "--rules perevodnoy --players 6" in six.command()


@pytest.mark.parametrize("kwargs, words", [
    (dict(strategies=["random", "easy"], rules=Rules(players=3)),
     ["tables of 3 players needs 3 strategies a table", "list a strategy more than once",
      "e.g. strategies=['random', 'easy', 'random'] (or, for two-player pairings, "
      "rules=Rules(players=2))"]),
    (dict(strategies=["random", "easy", "easy"], rules=Rules(players=4)),
     ["listed twice", "exactly 4"]),
    (dict(strategies=["random", "random"], rules=Rules()), ["listed twice"]),
    (dict(strategies=["easy"], gauntlet="random", rules=Rules(players=3)),
     ["3 strategies a table", "e.g. gauntlet='random', strategies=['easy', 'easy']"]),
    (dict(strategies=["two-only", "easy", "random"], rules=Rules(players=3)),
     ["'two-only' does not play"]),
])
def test_impossible_fields_are_refused_in_one_line(kwargs, words):
    from durak_sim.registry import register_strategy
    from durak_sim.strategies.random import decide

    # a strategy that plays only the two-player default game
    register_strategy("two-only", decide, version=1, plays="classic")
    with pytest.raises(UserError) as err:
        make_config(deals=10, seed=1, **kwargs)
    text = str(err.value)
    assert "\n" not in text and all(w in text for w in words), text


def test_a_malformed_n_player_config_in_a_manifest_is_refused():
    from durak_sim.storage import StorageError

    cfg = make_config(["random", "easy", "easy"], deals=10, seed=2, rules=Rules(players=3))
    d = cfg.to_dict()
    d["strategies"][2]["version"] = 7      # one strategy, two versions
    with pytest.raises(StorageError, match="two versions"):
        TournamentConfig.from_dict(d)
    d = cfg.to_dict()
    d["rules"]["players"] = 4              # a field of three cannot fill a table of four
    with pytest.raises(StorageError, match="malformed"):
        TournamentConfig.from_dict(d)


def test_a_teams_field_splits_every_combination_into_partnerships_in_every_way():
    """Four of a teams field: three line-ups, its own order first; six: ten. Every two
    strategies of a combination are partners in the same number of its line-ups, and a
    field of exactly the table's size is one line-up, its partnerships as listed."""
    from collections import Counter
    from itertools import combinations

    from durak_sim.lineups import partnerships

    assert field_lineups(["a", "b", "c", "d"], 4, teams=True) == [("a", "b", "c", "d")]
    assert partnerships(tuple("abcd")) == [tuple("abcd"), tuple("acbd"), tuple("abdc")]
    six = partnerships(tuple("abcdef"))
    assert len(six) == len(set(six)) == 10 and six[0] == tuple("abcdef")
    teams = [frozenset(k[q::2]) for k in six for q in (0, 1)]
    assert len(set(teams)) == 20                      # every three of six, once
    pairs = Counter(frozenset(p) for t in teams for p in combinations(t, 2))
    assert set(pairs.values()) == {4}
    g = field_lineups(["g", "a", "b", "c", "d"], 4, gauntlet=True, teams=True)
    assert len(g) == 4 * 3 and all(k[0] == "g" for k in g)
    assert Counter(k[2] for k in g) == Counter({"a": 3, "b": 3, "c": 3, "d": 3})


def test_a_teams_gauntlet_of_one_table_gives_its_strategy_every_partner():
    """A QA finding: ``--gauntlet g a b c --rules teams`` played one line-up, g always the
    partner of b (the listing's order). It plays every split, as a larger gauntlet does;
    splits that repeat names (a strategy listed twice) are played once."""
    g = field_lineups(["g", "a", "b", "c"], 4, gauntlet=True, teams=True)
    assert len(g) == 3 and {k[2] for k in g} == {"a", "b", "c"} and all(k[0] == "g" for k in g)
    assert field_lineups(["g", "e", "e", "e"], 4, gauntlet=True, teams=True) == [
        ("g", "e", "e", "e")]
    assert field_lineups(["g", "e", "e", "n"], 4, gauntlet=True, teams=True) == [
        ("g", "e", "e", "n"), ("g", "e", "n", "e")]
    assert field_lineups(["g", "a", "b", "c"], 4, gauntlet=True) == [("g", "a", "b", "c")]
