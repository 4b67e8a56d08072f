"""One or more hand-built positions per rule of docs/rules.md R1-R6; every test name carries
the rule id it pins (``R3_4`` for R3.4). ``test_every_rule_has_a_test`` keeps it that way."""
import random
import sys

import pytest

from durak_sim import seeding
from durak_sim.actions import STOP, action_str, parse_action, unpack_history
from durak_sim.cards import RANKS, card_str, cards_mask, parse_card
from durak_sim.observation import (
    O_ATTACKER, O_BOUT_LIMIT, O_BOUTS, O_DEFENDER, O_DISCARD, O_HAND, O_HAND_SIZES, O_KNOWN,
    O_N_ATTACKS, O_N_HIST, O_PHASE, O_SEEN, O_STOCK, O_TABLE, O_TABLE_ATTACKS,
    O_TABLE_DEFENCES, O_TAKING, O_TRUMP_CARD, O_TRUMP_SUIT, O_UNBEATEN, PHASE_ATTACK,
    PHASE_DEFEND, PHASE_OPEN,
)
from durak_sim.reference import IllegalActionError, ReferenceGame
from durak_sim.rules import Rules, RulesError
from table_rules import lowest_trump_holder

RULE_IDS = [
    "R1.1", "R1.2", "R1.3",
    "R2.1", "R2.2", "R2.3", "R2.4",
    "R3.1", "R3.2", "R3.3", "R3.4", "R3.5", "R3.6", "R3.7", "R3.8",
    "R4.1", "R4.2",
    "R5.1", "R5.2", "R5.3",
    "R6.1", "R6.2",
]


def pos(hands, trump="H", stock=(), attacker=0, table=(), taking=False, bout_limit=None):
    return {"format": "durak-sim/position/1", "trump": trump, "hands": [list(h) for h in hands],
            "stock": list(stock), "attacker": attacker, "table": [list(p) for p in table],
            "taking": taking, "bout_limit": bout_limit}


def legal(game):
    """Legal actions in record notation, defence targets left out."""
    return [action_str(a) for a in game.legal_actions()]


def play(game, *actions):
    for text in actions:
        game.apply(parse_action(text)[0])
    return game


def mask(*cards):
    return cards_mask(cards)


def hand(game, seat):
    return int(game.observation(seat)[O_HAND])


# ---------------------------------------------------------------- R1 cards
def test_R1_1_deck_of_36_and_rank_order(engine):
    assert RANKS == "6789TJQKA"
    g = engine.new(3, 4)
    o0, o1 = g.observation(0), g.observation(1)
    assert (int(o0[O_HAND]) | int(o1[O_HAND])).bit_count() == 12
    assert o0[O_HAND_SIZES] + o0[O_HAND_SIZES + 1] + o0[O_STOCK] == 36
    # low to high: every higher rank of the suit beats 7S, no lower one does
    g = engine.from_position(pos([["7S", "QD"], ["6S", "8S", "AS", "JC"]]))
    play(g, "attack 7S")
    assert legal(g) == ["defend 8S", "defend AS", "take"]


def test_R1_2_two_letter_notation(engine):
    g = engine.from_position(pos([["TS", "6H"], ["AD", "JC"]], trump="C"))
    assert hand(g, 0) == (1 << parse_card("TS")) | (1 << parse_card("6H"))
    assert legal(g) == ["attack 6H", "attack TS"]
    assert card_str(4 * 4 + 0) == "TS"
    for bad in ("10S", "1S", "TX", "ts "):
        with pytest.raises(ValueError):
            engine.from_position(pos([[bad], ["AD"]]))


def test_R1_3_beating_same_suit_higher_or_trump(engine):
    g = engine.from_position(pos([["9S", "KC"], ["8S", "TS", "AS", "6D", "9C", "7H"]],
                                 trump="D"))
    play(g, "attack 9S")
    # higher spade or any trump; following suit is not required (6D is allowed beside TS)
    assert legal(g) == ["defend 6D", "defend TS", "defend AS", "take"]


def test_R1_3_only_a_higher_trump_beats_a_trump(engine):
    g = engine.from_position(pos([["8D"], ["7D", "9D", "AS", "AD"]], trump="D"))
    play(g, "attack 8D")
    assert legal(g) == ["defend 9D", "defend AD", "take"]


# ---------------------------------------------------------------- R2 deal
@pytest.mark.parametrize("seed,deal", [(0, 0), (42, 7), (2**62, 123456789)])
def test_R2_1_six_cards_each_in_seat_order(engine, seed, deal):
    g = engine.new(seed, deal)
    deck = seeding.deal_deck(seed, deal)
    for s in range(2):
        assert hand(g, s) == cards_mask(deck[s:12:2])  # one at a time, seat order
        assert g.observation(s)[O_HAND_SIZES + s] == 6
    assert g.observation(0)[O_STOCK] == 24
    hands, stock = seeding.deal_cards(seed, deal)
    assert [list(h) for h in g.hands_dealt] == hands and list(g.stock_dealt) == stock


def test_R2_2_face_up_trump_is_public_and_drawn_last(engine):
    seed, deal = 42, 7
    deck = seeding.deal_deck(seed, deal)
    g = engine.new(seed, deal)
    for s in range(2):
        o = g.observation(s)
        assert o[O_TRUMP_CARD] == deck[12] and o[O_TRUMP_SUIT] == deck[12] % 4
        assert int(o[O_SEEN]) == 1 << deck[12]
    rng = random.Random(5)
    while g.observation(0)[O_STOCK] > 0:
        before = g.observation(0)[O_STOCK]
        g.apply(rng.choice(g.legal_actions()))
        after = g.observation(0)[O_STOCK]
        if after == 0 and before > 0:  # the refill that drew the last card drew the trump
            holders = [s for s in range(2) if hand(g, s) >> deck[12] & 1]
            assert len(holders) == 1
            assert int(g.observation(0)[O_KNOWN + holders[0]]) >> deck[12] & 1
    assert g.observation(0)[O_TRUMP_CARD] == deck[12]


def test_R2_3_lowest_trump_attacks_first(engine):
    no_trump_seen = False
    for deal in range(400):
        hands, stock = seeding.deal_cards(9, deal)
        trump = stock[-1] % 4
        g = engine.new(9, deal)
        want = lowest_trump_holder(hands, trump)
        assert g.first_attacker == want and g.to_move() == want, deal
        assert g.observation(want)[O_ATTACKER] == want
        if not any(c % 4 == trump for h in hands for c in h):
            no_trump_seen = True
            assert want == 0
    assert no_trump_seen, "no deal without a trump in hand: widen the search"


def test_R2_3_position_without_trumps_in_hand():
    from durak_sim.reference import first_attacker_of
    assert first_attacker_of([mask("6S", "AC"), mask("7S")], 3) == 0
    assert first_attacker_of([mask("7H"), mask("6H")], 3) == 1


def test_R2_4_defender_is_the_other_seat(engine):
    for deal in range(20):
        g = engine.new(1, deal)
        o = g.observation()
        assert o[O_DEFENDER] == 1 - o[O_ATTACKER]
        g.apply(g.legal_actions()[0])
        assert g.to_move() == 1 - o[O_ATTACKER]


# ---------------------------------------------------------------- R3 a bout
def test_R3_1_open_with_any_card_compulsory(engine):
    g = engine.from_position(pos([["6S", "KD", "AH"], ["7S", "8S"]]))
    o = g.observation()
    assert o[O_PHASE] == PHASE_OPEN and g.to_move() == 0
    assert legal(g) == ["attack 6S", "attack KD", "attack AH"]  # any card, no stop
    with pytest.raises(IllegalActionError):
        g.apply(STOP)
    with pytest.raises(IllegalActionError):
        g.apply(parse_action("attack 7S")[0])  # not in hand


def test_R3_2_defender_answers_the_unbeaten_card(engine):
    g = engine.from_position(pos([["6S", "KD"], ["7S", "6C", "QH"]]))
    play(g, "attack 6S")
    o = g.observation()
    assert g.to_move() == 1 and o[O_PHASE] == PHASE_DEFEND
    assert o[O_UNBEATEN] == parse_card("6S")
    assert legal(g) == ["defend 7S", "defend QH", "take"]
    play(g, "defend 7S")
    code, seat, target = g.history[-1]
    assert (seat, target) == (1, parse_card("6S"))
    assert unpack_history(int(g.history_array()[-1])) == (code, 1, parse_card("6S"))
    assert g.observation(0)[O_UNBEATEN] == -1


def test_R3_3_throw_in_matching_any_rank_on_table(engine):
    g = engine.from_position(pos([["7C", "9H", "KD", "6S"], ["TS", "JS"]],
                                 table=[["7S", "9S"]]))
    assert g.observation()[O_PHASE] == PHASE_ATTACK and g.to_move() == 0
    assert legal(g) == ["attack 7C", "attack 9H", "stop"]  # attack rank 7, defence rank 9
    play(g, "attack 9H")
    assert g.to_move() == 1 and legal(g) == ["take"]  # 9H is a trump: nothing beats it


def test_R3_4_bout_limit_defender_hand(engine):
    g = engine.from_position(pos([["6S", "6C", "6D", "8D", "8H"], ["8S", "8C", "AD", "KH"]],
                                 trump="H"))
    # defender holds 4 at the open: limit 4, fixed for the whole bout
    assert g.observation()[O_BOUT_LIMIT] == 4
    play(g, "attack 6S", "defend 8S", "attack 6C", "defend 8C", "attack 6D", "defend AD")
    assert g.observation()[O_BOUT_LIMIT] == 4
    assert legal(g) == ["attack 8D", "attack 8H", "stop"]
    play(g, "attack 8D", "defend KH")
    assert g.observation()[O_N_ATTACKS] == 4 and legal(g) == ["stop"]  # 8H matches, too many


def test_R3_4_bout_limit_two_cards(engine):
    g = engine.from_position(pos([["6S", "6C", "6D", "6H"], ["7S", "7C"]], trump="D"))
    play(g, "attack 6S", "defend 7S", "attack 6C", "defend 7C")
    assert legal(g) == ["stop"]  # the defender's hand is empty anyway; the limit is 2


def test_R3_4_bout_limit_at_most_six(engine):
    table = [["6S", "7S"], ["6C", "7C"], ["6D", "7D"], ["7H", "8H"], ["8S", "9S"],
             ["8C", "9C"]]
    g = engine.from_position(pos([["9D", "8D", "QH"], ["TS", "TC", "TD"]], table=table))
    assert g.observation()[O_BOUT_LIMIT] == 6 and legal(g) == ["stop"]
    g = engine.from_position(pos([["6S", "AS"], ["7S", "7C", "7D", "8H", "8S", "8C", "8D"]]))
    assert g.observation()[O_BOUT_LIMIT] == 6


def test_R3_5_throw_in_after_take_unanswered(engine):
    g = engine.from_position(pos([["7C", "7D", "7H", "KD"], ["8S", "9S", "TC"]],
                                 table=[["7S", None]]))
    assert legal(g) == ["defend 8S", "defend 9S", "take"]
    play(g, "take")
    o = g.observation()
    assert g.to_move() == 0 and o[O_TAKING] == 1 and o[O_PHASE] == PHASE_ATTACK
    assert legal(g) == ["attack 7C", "attack 7D", "attack 7H", "stop"]
    play(g, "attack 7C")
    o = g.observation()
    assert g.to_move() == 0 and o[O_UNBEATEN] == -1 and o[O_PHASE] == PHASE_ATTACK
    play(g, "attack 7D")
    assert legal(g) == ["stop"]  # limit min(6, 3) = 3 reached (R3.4)


def test_R3_6_successful_defence_discards_and_defender_attacks(engine):
    g = engine.from_position(pos([["6S", "KD"], ["7S", "QC"]]))
    discard0 = int(g.observation()[O_DISCARD])  # the cards a position names nowhere
    play(g, "attack 6S", "defend 7S", "stop")
    o = g.observation()
    assert int(o[O_DISCARD]) == discard0 | mask("6S", "7S")
    assert int(o[O_SEEN]) & mask("6S", "7S") == mask("6S", "7S")
    assert o[O_ATTACKER] == 1 and o[O_DEFENDER] == 0 and g.to_move() == 1
    assert o[O_PHASE] == PHASE_OPEN and o[O_TABLE_ATTACKS] == 0 and o[O_BOUTS] == 1
    assert not g.is_over()


def test_R3_7_take_picks_up_everything_same_attacker(engine):
    g = engine.from_position(pos([["KD", "QC"], ["9C", "6H", "AS"]],
                                 table=[["7S", "8S"], ["8C", None]]))
    assert legal(g) == ["defend 6H", "defend 9C", "take"]
    play(g, "take")
    assert legal(g) == ["stop"]  # no 7 or 8 to throw in
    play(g, "stop")
    o = g.observation(0)
    picked = mask("7S", "8S", "8C")
    assert hand(g, 1) == picked | mask("9C", "6H", "AS")
    assert int(o[O_KNOWN + 1]) == picked  # its own defence 8S included
    assert int(o[O_DISCARD]) & picked == 0
    assert o[O_ATTACKER] == 0 and g.to_move() == 0 and o[O_PHASE] == PHASE_OPEN


def test_R3_8_attacker_without_cards_can_only_stop(engine):
    g = engine.from_position(pos([[], ["9S", "QC"]], table=[["7S", "8S"]],
                                 stock=["6C", "7C", "8H"]))
    assert g.to_move() == 0 and legal(g) == ["stop"]


def test_R3_8_taking_and_out_of_cards(engine):
    g = engine.from_position(pos([["7C"], ["8S", "9S", "TC"]], table=[["7S", None]]))
    play(g, "take", "attack 7C")
    assert legal(g) == ["stop"]


# ---------------------------------------------------------------- R4 refill
def test_R4_1_attacker_draws_first_then_defender(engine):
    g = engine.from_position(pos([["6S", "KD", "QD", "JD", "TD"],
                                  ["7S", "9C", "9D", "8D", "KC", "AC"]],
                                 stock=["6C", "7C", "8C", "AH"]))
    play(g, "attack 6S", "defend 7S", "stop")
    assert hand(g, 0) == mask("KD", "QD", "JD", "TD", "6C", "7C")
    assert hand(g, 1) == mask("9C", "9D", "8D", "KC", "AC", "8C")
    assert g.observation(1)[O_STOCK] == 1


def test_R4_1_attacker_first_after_a_take(engine):
    g = engine.from_position(pos([["6S", "KD", "QD", "JD", "TD", "9D"], ["7C", "8C"]],
                                 stock=["6C", "7D", "8H"]))
    play(g, "attack 6S", "take", "stop")
    assert hand(g, 0) == mask("KD", "QD", "JD", "TD", "9D", "6C")
    assert hand(g, 1) == mask("7C", "8C", "6S", "7D", "8H")
    assert int(g.observation(0)[O_KNOWN + 1]) == mask("6S", "8H")  # taken + face-up trump


def test_R4_2_short_stock_draw_until_empty(engine):
    g = engine.from_position(pos([["6S", "KD", "QD"], ["7S", "9C", "9D"]],
                                 stock=["6C", "8H"]))
    play(g, "attack 6S", "defend 7S", "stop")
    assert hand(g, 0) == mask("KD", "QD", "6C", "8H")
    assert hand(g, 1) == mask("9C", "9D")  # nothing left for the defender
    o = g.observation(1)
    assert o[O_STOCK] == 0 and int(o[O_KNOWN]) == mask("8H")
    assert not g.is_over()


def test_R3_8_R4_2_empty_attacker_refilled(engine):
    g = engine.from_position(pos([[], ["9S", "QC"]], table=[["7S", "8S"]],
                                 stock=["6C", "7C", "8H"]))
    play(g, "stop")
    assert hand(g, 0) == mask("6C", "7C", "8H") and hand(g, 1) == mask("9S", "QC")
    assert g.to_move() == 1 and not g.is_over()


# ---------------------------------------------------------------- R5 end
def test_R5_1_hand_empty_mid_bout_plays_on(engine):
    g = engine.from_position(pos([["6S"], ["7S", "8C"]]))
    play(g, "attack 6S", "defend 7S")
    assert not g.is_over() and g.to_move() == 0 and legal(g) == ["stop"]
    play(g, "stop")
    assert g.is_over() and g.to_move() is None and g.legal_actions() == []
    assert g.result() == {"outcome": "durak", "durak": 1, "out_order": [0], "bouts": 1}


def test_R5_1_defender_empty_mid_bout_attacker_may_not_throw_more(engine):
    g = engine.from_position(pos([["6S", "7C"], ["7S"]]))
    play(g, "attack 6S", "defend 7S")
    assert not g.is_over() and legal(g) == ["stop"]  # limit 1 (R3.4)
    play(g, "stop")
    assert g.result() == {"outcome": "durak", "durak": 0, "out_order": [1], "bouts": 1}


def test_R5_1_only_checked_with_empty_stock(engine):
    g = engine.from_position(pos([["6S"], ["7S", "8C"]], stock=["6C", "7C", "8H"]))
    play(g, "attack 6S", "defend 7S", "stop")
    assert not g.is_over() and hand(g, 0) == mask("6C", "7C", "8H")


def test_R5_1_after_take_the_taker_is_not_out(engine):
    g = engine.from_position(pos([["6S", "9D"], ["7D"]], trump="S"))
    play(g, "attack 6S", "take", "stop")
    assert not g.is_over() and hand(g, 1) == mask("7D", "6S")


def test_R5_2_both_out_in_one_bout_is_a_draw(engine):
    g = engine.from_position(pos([["6S"], ["7S"]]))
    play(g, "attack 6S", "defend 7S", "stop")
    assert g.result() == {"outcome": "draw", "durak": None, "out_order": [0, 1], "bouts": 1}
    g = engine.from_position(pos([["7S"], ["6S"]], attacker=1))
    play(g, "attack 6S", "defend 7S", "stop")
    assert g.result()["out_order"] == [1, 0]  # seat order from the bout's attacker


def test_R5_2_one_out_other_is_durak(engine):
    g = engine.from_position(pos([["6S", "AH", "KH"], ["7S", "6C"]], trump="H"))
    play(g, "attack 6S", "defend 7S", "stop")   # seat 1 attacks next
    play(g, "attack 6C", "defend AH", "stop")
    assert g.result() == {"outcome": "durak", "durak": 0, "out_order": [1], "bouts": 2}


def test_R5_3_no_card_points(engine):
    # the loser's remaining cards do not matter: only who is left holding cards
    for loser_cards in (["7C"], ["AH", "KH", "QH"]):
        g = engine.from_position(pos([["6S"], ["7S"] + loser_cards]))
        play(g, "attack 6S", "defend 7S", "stop")
        assert g.result() == {"outcome": "durak", "durak": 1, "out_order": [0], "bouts": 1}
        assert set(g.result()) == {"outcome", "durak", "out_order", "bouts"}


# ---------------------------------------------------------------- R6 information
def test_R6_1_observation_holds_public_information(engine):
    g = engine.from_position(pos([["6S", "6C", "KD", "AH"], ["7S", "9S", "8D", "QC"]],
                                 trump="H", stock=["TC", "JC", "QH"]))
    seen0 = int(g.observation()[O_SEEN])
    assert seen0 == int(g.observation()[O_DISCARD]) | mask("QH")
    play(g, "attack 6S", "defend 7S", "attack 6C", "take", "stop")
    # attacker 0 holds KD AH and draws the whole stock TC JC QH; the defender draws nothing
    o = g.observation(1)
    assert int(o[O_HAND]) == mask("9S", "8D", "QC", "6S", "7S", "6C")
    assert int(o[O_KNOWN + 1]) == mask("6S", "7S", "6C")
    assert int(o[O_KNOWN + 0]) == mask("QH")  # drew the face-up trump
    assert [o[O_HAND_SIZES], o[O_HAND_SIZES + 1]] == [5, 6]
    assert o[O_STOCK] == 0 and o[O_BOUTS] == 1 and o[O_N_HIST] == 5
    assert int(o[O_SEEN]) == seen0 | mask("6S", "7S", "6C")
    assert o[O_TRUMP_CARD] == parse_card("QH")
    play(g, "attack KD")
    o = g.observation()
    assert o[O_PHASE] == PHASE_DEFEND and o[O_UNBEATEN] == parse_card("KD")
    assert list(o[O_TABLE:O_TABLE + 4]) == [parse_card("KD"), -1, -1, -1]
    assert int(o[O_TABLE_ATTACKS]) == mask("KD") and o[O_TABLE_DEFENCES] == 0
    play(g, "take", "stop")
    o = g.observation(0)
    assert int(o[O_KNOWN + 1]) == mask("6S", "7S", "6C", "KD")
    # playing a known card removes it from the known set
    play(g, "attack AH", "take", "stop")
    assert int(g.observation(0)[O_KNOWN + 1]) == mask("6S", "7S", "6C", "KD", "AH")
    play(g, "attack QH")
    assert int(g.observation(1)[O_KNOWN + 0]) == 0


def test_R6_1_history_is_public(engine):
    g = engine.from_position(pos([["6S", "KD"], ["7S", "QC"]]))
    play(g, "attack 6S", "defend 7S", "stop")
    history = [tuple(int(x) for x in h) for h in g.history]
    assert [unpack_history(int(e)) for e in g.history_array()] == history
    assert [a for a, _, _ in history] == [parse_action(t)[0] for t in ("attack 6S", "defend 7S",
                                                                      "stop")]
    assert g.observation(0)[O_N_HIST] == g.observation(1)[O_N_HIST] == 3


def test_R6_2_no_hidden_cards_in_observation(engine):
    rng = random.Random(11)
    for deal in range(10):
        g = engine.new(77, deal)
        while not g.is_over():
            seat = g.to_move()
            o = g.observation(seat)
            other = 1 - seat
            hidden = hand(g, other) & ~int(o[O_KNOWN + other])
            for field in (O_HAND, O_SEEN, O_DISCARD, O_TABLE_ATTACKS, O_TABLE_DEFENCES,
                          O_KNOWN, O_KNOWN + 1):
                assert int(o[field]) & hidden == 0
            g2 = g.permute_hidden(seat, random.Random(deal))
            assert (g2.observation(seat) == o).all()
            g.apply(rng.choice(g.legal_actions()))


# ---------------------------------------------------------------- positions
@pytest.mark.parametrize("bad,msg", [
    (pos([["6S"], ["6S"]]), "twice"),
    (pos([["6S"], ["XX"]]), "unknown card"),
    (dict(pos([["6S"], ["7S"]]), hands=[["6S"], ["7S"], ["8S"]]), "2 hands"),
    (pos([["6S"], ["7S"]], table=[["9S", "8S"]]), "does not beat"),
    (pos([["6S"], ["7S", "8S"]], table=[["9S", None], ["9C", None]]), "unbeaten"),
    (pos([["6S"], ["7S", "8S"]], table=[["9S", "TS"], ["QC", None]]), "matches no rank"),
    (pos([["6S"], ["7S"]], table=[["9S", "TS"], ["9C", None]], bout_limit=1), "bout limit"),
    (pos([["6S"], ["7S"]], stock=["8S", "9C"]), "trump"),
    (pos([["6S"], ["7S"]], trump="7H", stock=["8H"]), "last stock card"),
    (pos([["6S"], ["7S"]], taking=True), "taking"),
    (pos([[], ["7S"]]), "no card"),
    (dict(pos([["6S"], ["7S"]]), attacker=2), "attacker"),
    (dict(pos([["6S"], ["7S"]]), format="chess"), "format"),
])
def test_position_validation(engine, bad, msg):
    with pytest.raises(ValueError) as exc:
        engine.from_position(bad)
    assert "\n" not in str(exc.value)
    if engine is ReferenceGame:  # other engines word their messages their own way
        assert msg in str(exc.value)


def test_position_defaults_and_phase(engine):
    g = engine.from_position({"trump": "QD", "hands": [["6S"], ["7S", "8S"]], "stock": [],
                              "attacker": 1})
    o = g.observation()
    assert g.to_move() == 1 and o[O_PHASE] == PHASE_OPEN and o[O_BOUT_LIMIT] == 1
    assert o[O_TRUMP_CARD] == parse_card("QD") and o[O_TRUMP_SUIT] == 2
    # everything not named is discarded and was seen, with the trump card
    assert int(o[O_DISCARD]) == cards_mask(range(36)) & ~mask("6S", "7S", "8S")
    assert int(o[O_SEEN]) == int(o[O_DISCARD])  # QD is in the discard here
    g = engine.from_position(pos([["6S"], ["7S", "8S"]], table=[["9S", "TS"]]))
    assert g.observation()[O_BOUT_LIMIT] == 3 and g.observation()[O_PHASE] == PHASE_ATTACK
    g = engine.from_position(pos([["6S"], ["7S", "8S"]], table=[["9S", None]], taking=True))
    assert g.observation()[O_PHASE] == PHASE_ATTACK and g.to_move() == 0
    g = engine.from_position(pos([["6S"], ["7S", "8S"]], trump="S", stock=["AS"]))
    assert g.observation(0)[O_TRUMP_CARD] == parse_card("AS")
    g = engine.from_position(pos([["6S"], ["7S"]], trump="D"))
    assert g.observation(0)[O_TRUMP_CARD] == -1


def test_rules_object_default():
    assert Rules().to_dict() == {"players": 2, "hand_size": 6, "variant": "podkidnoy"}


def test_every_rule_has_a_test():
    names = [n for n in dir(sys.modules[__name__]) if n.startswith("test_")]
    missing = [r for r in RULE_IDS if not any(r.replace(".", "_") + "_" in n for n in names)]
    assert not missing, f"rules without a test: {missing}"


def test_every_rule_id_of_the_rules_document_is_pinned():
    """docs/rules.md's R1-R6 are this module's ids (a new one needs a test here); the AI
    levels' R10 ids are each cited by the test module that pins them."""
    import re
    from pathlib import Path

    here = Path(__file__).parent
    text = (here.parent / "docs" / "rules.md").read_text()
    assert set(re.findall(r"\*\*(R[1-6]\.\d+)\b", text)) == set(RULE_IDS)
    levels = set(re.findall(r"\*\*(R10\.\d+)\b", text))
    assert levels == {"R10.1", "R10.2", "R10.3", "R10.4"}
    tests = "".join(p.read_text() for p in here.glob("test_*.py") if p.name != Path(__file__).name)
    assert {r for r in levels if not re.search(re.escape(r) + r"\b", tests)} == set()


def test_teams_alone_is_a_table_of_four():
    """--teams without --players: the table teams need (it was the variant's two, refused)."""
    assert Rules(teams=True).players == 4
    assert Rules(variant="perevodnoy", teams=True).same_game(Rules(variant="teams",
                                                                   transfer=True))
    assert Rules(teams=True, players=6).players == 6
    with pytest.raises(RulesError, match="not 2"):
        Rules(teams=True, players=2)


def test_neighbours_at_two_and_three_players_is_the_default_game():
    """Every other seat is the defender's neighbour there: the same flags, the same play
    by every level (they read the flags), and a classic-only strategy takes it."""
    from durak_sim.play import play_games
    from durak_sim.registry import get_strategy

    for n in (2, 3):
        assert Rules(players=n, throw_in="neighbours").flags == Rules(players=n).flags
    assert Rules(players=4, throw_in="neighbours").flags != Rules(players=4).flags
    for lineup in (["hard", "normal"], ["normal", "hard", "easy"]):
        rules = Rules(players=len(lineup))
        plain = play_games(lineup, seed=3, deals=range(60), rules=rules)
        other = play_games(lineup, seed=3, deals=range(60),
                           rules=Rules(players=len(lineup), throw_in="neighbours"))
        assert (plain.results == other.results).all()
    assert get_strategy("expert").supports(Rules(throw_in="neighbours"))
    assert get_strategy("expert").supports(Rules(players=3))
