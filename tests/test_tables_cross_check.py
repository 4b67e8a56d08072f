"""Every table of every named ruleset, kernel against reference engine: byte-identical game
records deal by deal (random and easy in the seats), every kernel record replaying on the
reference engine, and series (R9) dealt and scored alike. The default run plays a few hundred
deals a table; ``pytest -m slow`` plays 10,000 (docs/rules.md, the cross-check of issue 23).
"""
import pytest

from durak_sim.play import play_games, play_series
from durak_sim.records import dumps
from durak_sim.reference import play, play_series as reference_series, replay
from durak_sim.rules import VARIANTS, Rules


def tables():
    for name in VARIANTS:
        sizes = (4, 6) if name == "teams" else range(2, 7)
        for players in sizes:
            yield name, players


TABLES = list(tables())


def lineup(players: int, k: int = 0) -> list[str]:
    return [("random", "easy")[(s + k) % 2] for s in range(players)]


def check(rules: Rules, seed: int, deals: int) -> None:
    for k in (0, 1):
        seats = lineup(rules.players, k)
        batch = play_games(seats, seed=seed, deals=range(deals), swap=False, rules=rules,
                           threads=2, record=True)
        for rec in batch.records():
            ref = play(seed, rec["deal"], seats, rules)
            assert dumps(rec) == dumps(ref), f"{rules.tag} seats {seats} deal {rec['deal']}"
            assert replay(rec) == rec["result"]


@pytest.mark.parametrize("name,players", TABLES, ids=[f"{n}-{p}p" for n, p in TABLES])
def test_kernel_records_equal_reference_records(name, players):
    check(Rules(variant=name, players=players), seed=2300 + players, deals=120)


@pytest.mark.slow
@pytest.mark.parametrize("name,players", TABLES, ids=[f"{n}-{p}p" for n, p in TABLES])
def test_kernel_records_equal_reference_records_10000_deals(name, players):
    check(Rules(variant=name, players=players), seed=23 + players, deals=5000)  # x 2 line-ups


#: option combinations no named ruleset plays: a multi-card lead transferred (R8.1 x R8.2),
#: prostoy with teams or the swap (R8.3 x R8.4, R8.5), the swap with transfers and teams,
#: transfers at six in teams with neighbours throwing in (R8.4 x R7.2 x R8.2)
COMBINATIONS = [
    Rules(variant="perevodnoy", players=4, lead_multiple=True),
    Rules(variant="perevodnoy", players=2, lead_multiple=True, trump_six_swap=True),
    Rules(variant="prostoy", players=4, teams=True),
    Rules(variant="prostoy", players=6, teams=True, trump_six_swap=True),
    Rules(variant="prostoy", players=3, trump_six_swap=True),
    Rules(variant="teams", players=4, transfer=True, trump_six_swap=True),
    Rules(variant="teams", players=6, transfer=True, throw_in="neighbours"),
]


@pytest.mark.parametrize("rules", COMBINATIONS, ids=[r.tag for r in COMBINATIONS])
def test_option_combinations_agree_on_both_engines(rules):
    check(rules, seed=2400 + rules.players, deals=60)


@pytest.mark.parametrize("name,players", [("podkidnoy", 3), ("teams", 4), ("prostoy", 2),
                                          ("podkidnoy-full", 4), ("perevodnoy", 5)])
def test_series_deal_alike_on_both_engines(name, players):
    rules = Rules(variant=name, players=players)
    seats = lineup(players)
    batch = play_series(seats, seed=9, series=range(6), deals=5, rules=rules, threads=2,
                        record=True)
    kernel = [dumps(r) for r in batch.records()]
    ref = [dumps(r) for j in range(6) for r in reference_series(9, j, 5, seats, rules)]
    assert kernel == ref
    # the Durak deals next (R9.1): the dealer of deal k + 1 is the Durak of deal k
    recs = list(batch.records())
    for a, b in zip(recs, recs[1:]):
        if a["series"]["series"] == b["series"]["series"] and a["result"]["durak"] is not None:
            assert b.get("dealer", players - 1) == a["result"]["durak"]
