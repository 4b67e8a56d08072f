"""``normal`` (docs/rules.md R10.3). It is clearly stronger than ``easy`` and ``random``,
replays a deal the same way in any batch, and keeps the promises of its docstring on
hand-built positions: it saves trumps, takes rather than trump early, sheds late, plays the
empty-stock ending from the opponent's exact hand, and attacks where the opponent could not
beat."""
import numpy as np
import pytest

from durak_sim import stats
from durak_sim.actions import DEFEND, STOP, TAKE, TRANSFER, parse_action
from durak_sim.cards import parse_card
from durak_sim.play import play_games
from durak_sim.reference import ReferenceGame, hist_for_strategy, legal_array
from durak_sim.registry import get_strategy

NORMAL = get_strategy("normal")


def _win(table, name):
    row = table.set_index("strategy").loc[name]
    return row.win_rate, row.win_lo


def test_normal_beats_easy_clearly():
    # 20,000 seat-swapped deal pairs; measured: ~71% wins, ~4% draws
    games = play_games(["normal", "easy"], seed=2026, deals=range(20_000)).frame()
    rate, lo = _win(stats.strategy_table(games), "normal")
    assert lo > 0.5
    assert rate > 0.6


def test_normal_beats_random():
    games = play_games(["normal", "random"], seed=2027, deals=range(2_000)).frame()
    rate, lo = _win(stats.strategy_table(games), "normal")
    assert lo > 0.9


def test_normal_registration():
    assert NORMAL.compiled and NORMAL.version >= 1 and NORMAL.description
    assert NORMAL.reset == NORMAL.memory  # every word of mem is per-game state


def test_a_deal_plays_the_same_in_any_batch():
    # mem is reset per game and nothing else carries over: a deal played alone, in another
    # order or twice gives the same game
    full = play_games(["normal", "easy"], seed=5, deals=range(40), record=True)
    part = play_games(["normal", "easy"], seed=5, deals=[17, 3, 17], record=True)
    recs = {(r["deal"], tuple(r["seats"])): r["actions"] for r in full.records()}
    for r in part.records():
        assert r["actions"] == recs[(r["deal"], tuple(r["seats"]))]


# ---- decisions on hand-built positions (reference engine, the numba decide) -------------------
def _game(hands, stock, trump, attacker=0, table=(), taking=False):
    pos = {"format": "durak-sim/position/1", "trump": trump, "hands": hands, "stock": stock,
           "attacker": attacker}
    if table:
        pos["table"] = [list(p) for p in table]
        pos["taking"] = taking
    return ReferenceGame.from_position(pos)


def _play(game, *actions):
    for a in actions:
        code, _ = parse_action(a)
        game.apply(code)
    return game


def _decide(game):
    """normal's action for the seat to move, on a fresh game workspace."""
    mem = np.zeros(NORMAL.memory, dtype=np.int64)
    mem[0] = 1
    rng = np.array([12345], dtype=np.uint64)
    codes = game.legal_actions()
    code = int(NORMAL.decide(game.observation(game.to_move()), legal_array(codes),
                             hist_for_strategy(game), rng, mem))
    assert code in codes
    assert rng[0] == 12345  # deterministic: it never draws
    return code


def c(text):
    return parse_card(text)


STOCK10 = ["KH", "QS", "9S", "TC", "AC", "AS", "KC", "QH", "JD", "AD"]  # trump: diamonds
STOCK_A = ["9H", "QS", "9S", "TC", "AC", "AS", "KC", "8D", "JD", "AD"]


def test_opens_with_a_plain_card_before_a_lower_trump():
    g = _game([["6D", "8S", "QH", "JC"], ["7S", "9C", "TH", "KD"]], STOCK_A, "AD")
    assert _decide(g) == c("8S")


@pytest.mark.parametrize("stock, expected", [(STOCK10, "take"), ([], "defend")])
def test_takes_rather_than_trump_early_defends_when_the_stock_is_gone(stock, expected):
    # the only beater of 7S is the trump 9D
    g = _game([["8H", "JH"], ["6H", "9C", "9D", "QC"]], stock, "AD" if stock else "D",
              table=[("7S", None)])
    code = _decide(g)
    assert code == (TAKE if expected == "take" else DEFEND + c("9D"))


def test_defends_with_the_cheapest_beater():
    g = _game([["JH", "6C"], ["8S", "KS", "9D", "QC"]], STOCK_A, "AD", table=[("7S", None)])
    assert _decide(g) == DEFEND + c("8S")


def test_throws_only_junk_to_a_taker_early_and_anything_late():
    # 7H was beaten by QH, then QC was thrown in and the defender takes
    hands = [["7C", "7D", "QS", "AH"], ["6H", "8C", "9C", "TH", "JC"]]
    table = [("7H", "QH"), ("QC", None)]
    stock = ["9H", "JS", "9S", "TC", "AC", "AS", "KC", "8D", "JD", "AD"]
    early = _game(hands, stock, "AD", table=table, taking=True)
    assert _decide(early) == c("7C")
    early = _play(early, "attack 7C")
    assert _decide(early) == STOP  # neither the trump 7D nor the queen
    late = _game(hands, ["JD", "AD"], "AD", table=table, taking=True)
    late = _play(late, "attack 7C")
    assert _decide(late) == c("QS")  # sheds the rest too, the queen before the trump


def test_empty_stock_attacks_with_what_the_opponent_cannot_beat():
    # the opponent holds exactly 7S 8C: 6S would be beaten, AH cannot be
    g = _game([["6S", "AH"], ["7S", "8C"]], [], "D")
    assert _decide(g) == c("AH")


@pytest.mark.parametrize("attacker_hand, expected", [
    (["9C", "AH"], "take"),    # TS would hold 9S, but 9C follows and nothing beats it
    (["8C", "AH"], "defend"),  # nothing more to throw in: TS holds the bout
])
def test_empty_stock_takes_at_once_when_the_bout_cannot_be_held(attacker_hand, expected):
    g = _game([attacker_hand, ["TS", "6C"]], [], "D", table=[("9S", None)])
    code = _decide(g)
    assert code == (TAKE if expected == "take" else DEFEND + c("TS"))


def test_attacks_the_suit_the_opponent_failed_to_beat():
    hands = [["8H", "7S", "9H", "JC", "QC", "KS"], ["6S", "6C", "7C", "TS", "JS", "8C"]]
    fresh = _game([["7S", "9H", "JC", "QC", "KS", "KH"], hands[1]], STOCK10[1:], "AD")
    assert _decide(fresh) == c("7S")  # no information: the cheapest card
    # the opponent took 8H: it held no higher heart and no trump
    g = _play(_game(hands, STOCK10, "AD"), "attack 8H", "take", "stop")
    assert g.to_move() == 0 and g.observation(0)[4] == fresh.observation(0)[4]
    assert _decide(g) == c("9H")


# ---- the transfer game (R8.2) ------------------------------------------------------------------
PEREVODNOY = {"players": 2, "hand_size": 6, "variant": "perevodnoy"}


def _transfer_game(defender_hand, stock):
    pos = {"format": "durak-sim/position/1", "rules": PEREVODNOY, "trump": "AS",
           "hands": [["6H", "9D", "JC"], defender_hand], "stock": stock, "attacker": 0,
           "table": [["7C", None]]}
    return ReferenceGame.from_position(pos)


@pytest.mark.parametrize("stock", [["KH", "TD", "9H", "AS"], ["KH", "AS"], ["AS"], []])
def test_transfers_with_a_plain_card_and_never_with_a_trump(stock):
    # 7C is attacked; trumps are spades. A plain seven passes the attack on, early and late
    # alike; a trump seven is kept for defence, late as well as early
    assert _decide(_transfer_game(["7H", "7S", "QC", "8D"], stock)) == TRANSFER + c("7H")
    assert _decide(_transfer_game(["7S", "QC", "8D", "KD"], stock)) != TRANSFER + c("7S")


@pytest.mark.parametrize("stock, transfers", [(["KH", "TD", "9H", "AS"], False), (["KH", "AS"], True),
                                              ([], True)])
def test_in_a_team_game_transfers_with_a_trump_late(stock, transfers):
    # the attack passes on to an opponent there: late, a trump seven is passed on, not kept
    pos = {"format": "durak-sim/position/1", "trump": "AS", "stock": stock, "attacker": 0,
           "rules": {"players": 4, "hand_size": 6, "variant": "teams", "transfer": True},
           "hands": [["6H", "9D", "JC"], ["7S", "QC", "8D", "KD"], ["6C", "JH"], ["TC", "QH"]],
           "table": [["7C", None]]}
    code = _decide(ReferenceGame.from_position(pos))
    assert (code == TRANSFER + c("7S")) == transfers
