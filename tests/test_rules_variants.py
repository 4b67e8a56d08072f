"""Hand-built positions for the variants of docs/rules.md (R8): multi-card leads, transfers,
prostoy, teams and the swap. Every test name carries the id it pins. The expected values are
read off docs/rules.md (and docs/position.md, docs/observation.md for the formats), never
copied from an engine; every test runs on both engines through the ``engine`` fixture
(helpers: ``table_rules``).
"""
import pytest

from durak_sim.actions import DEFEND, DEFEND_AT, unpack_history
from durak_sim.cards import SUITS, cards_mask, parse_card
from durak_sim.observation import (
    O_ATTACKER, O_BOUTS, O_BOUT_LIMIT, O_DEFENDER, O_DISCARD, O_ELIGIBLE, O_FIRST,
    O_HAND_TARGET, O_KNOWN, O_N_ATTACKS, O_N_UNBEATEN, O_PHASE, O_RULES, O_SEEN, O_STOCK,
    O_TABLE_ATTACKS, O_TEAM, O_TRUMP_CARD, O_TRUMP_SUIT, O_UNBEATEN, PHASE_ATTACK,
    PHASE_DEFEND, PHASE_LEAD, PHASE_OPEN, PHASE_SWAP,
)
from durak_sim.rules import (
    FLAG_LEAD_MULTIPLE, FLAG_PROSTOY, FLAG_SWAP, FLAG_TEAMS, FLAG_TRANSFER, Rules,
)
from table_rules import (
    ALL_FOUR, dealt, full, hand, history_text, legal, lowest_trump_holder, mask, multi, obs,
    places, play, podkidnoy, pos, prostoy, seats_mask, series_records, teams, transfer,
)


# ======================================================================== R8.1 multi-card leads
def test_R8_1_E4_E5_lead_of_several_cards_of_one_rank(engine):
    g = engine.from_position(pos(multi(2), [["7S", "7C", "7D", "KC"],
                                            ["8S", "9C", "AD", "TH"]]))
    assert obs(g, 0)[O_RULES] & FLAG_LEAD_MULTIPLE
    assert legal(g) == ["attack 7S", "attack 7C", "attack 7D", "attack KC"]
    play(g, "attack 7S")
    o = obs(g, 0)
    assert g.to_move() == 0 and o[O_PHASE] == PHASE_LEAD and o[O_BOUT_LIMIT] == 4
    assert legal(g) == ["attack 7C", "attack 7D", "done"]    # the lead's rank, or done
    play(g, "attack 7C")
    assert legal(g) == ["attack 7D", "done"]
    play(g, "done")
    o = obs(g, 1)
    assert g.to_move() == 1 and o[O_PHASE] == PHASE_DEFEND
    assert o[O_N_UNBEATEN] == 2 and o[O_UNBEATEN] == parse_card("7S")   # first in play order
    # each defence names its target (DEFEND_AT codes), any order; or take
    assert legal(g) == ["take", "defend 8S 7S", "defend TH 7S", "defend 9C 7C",
                        "defend TH 7C"]
    assert all(c == 72 or c >= DEFEND_AT for c in g.legal_actions())
    play(g, "defend 9C 7C")
    assert obs(g, 1)[O_N_UNBEATEN] == 1
    assert legal(g) == ["defend 8S", "defend TH", "take"]   # one left: its target implied
    play(g, "defend 8S")
    # throw-ins stay one card at a time: the defender answers each
    assert g.to_move() == 0 and legal(g) == ["attack 7D", "stop"]
    play(g, "attack 7D")
    assert g.to_move() == 1 and legal(g) == ["defend TH", "defend AD", "take"]
    assert history_text(g) == [(0, "attack 7S"), (0, "attack 7C"), (0, "done"),
                               (1, "defend 9C 7C"), (1, "defend 8S 7S"), (0, "attack 7D")]
    assert [unpack_history(int(e)) for e in g.history_array()][3] == \
        (DEFEND + parse_card("9C"), 1, parse_card("7C"))


def test_R8_1_E4_lead_ends_by_itself_at_the_bout_limit(engine):
    g = engine.from_position(pos(multi(3), [["7S", "7C", "7D"], ["8S", "9C"], ["KD", "AS"]]))
    assert obs(g, 0)[O_BOUT_LIMIT] == 2
    play(g, "attack 7S")
    assert legal(g) == ["attack 7C", "attack 7D", "done"]
    play(g, "attack 7C")          # the limit is reached: no done, the defender answers
    o = obs(g, 1)
    assert g.to_move() == 1 and o[O_PHASE] == PHASE_DEFEND and o[O_N_UNBEATEN] == 2
    assert len(g.history) == 2
    assert legal(g) == ["take", "defend 8S 7S", "defend 9C 7C"]


def test_R8_1_E4_a_single_card_lead_is_one_attack(engine):
    g = engine.from_position(pos(multi(2), [["7S", "KC", "9D"], ["8S", "9C"]]))
    play(g, "attack 7S")          # no other 7: nothing can be added, no done asked
    assert g.to_move() == 1 and obs(g, 1)[O_PHASE] == PHASE_DEFEND
    assert legal(g) == ["defend 8S", "take"] and len(g.history) == 1


# ======================================================================== R8.2 transfers
def test_R8_2_E6_transfer_to_the_next_seat(engine):
    hands = [["KD", "QC"], ["7C", "8S", "KS"], ["9C", "TD"]]
    g = engine.from_position(pos(transfer(3), hands, table=[["7S", None]]))
    assert obs(g, 1)[O_RULES] & FLAG_TRANSFER
    assert g.to_move() == 1 and legal(g) == ["defend 8S", "defend KS", "take", "transfer 7C"]
    play(g, "transfer 7C")
    o = obs(g, 2)
    # seat 2 defends against both cards; seat 1 is the bout's main attacker now
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (1, 2) and g.to_move() == 2
    assert o[O_BOUT_LIMIT] == 2 and o[O_N_ATTACKS] == 2 and o[O_N_UNBEATEN] == 2
    assert int(o[O_TABLE_ATTACKS]) == mask("7S", "7C") and o[O_ELIGIBLE] == seats_mask(0, 1)
    assert legal(g) == ["take", "defend 9C 7C"]       # no 7 to pass on; TD beats nothing
    play(g, "defend 9C 7C")
    assert legal(g) == ["take"]
    play(g, "take")
    assert g.to_move() == 1 and legal(g) == ["stop"]    # asked from the new main attacker
    play(g, "stop")
    assert g.to_move() == 0 and legal(g) == ["stop"]
    play(g, "stop")
    assert hand(g, 2) == mask("TD", "7S", "7C", "9C")
    o = obs(g, 0)   # the taker (seat 2) is skipped: seat 0 attacks seat 1
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (0, 1) and g.to_move() == 0


def test_R8_2_E6_transfer_needs_as_many_cards_in_the_new_defenders_hand(engine):
    hands = [["KD", "QC"], ["7C", "8S", "KS"], ["9C"]]     # seat 2 could not answer two
    g = engine.from_position(pos(transfer(3), hands, table=[["7S", None]]))
    assert legal(g) == ["defend 8S", "defend KS", "take"]


def test_R8_2_E6_bout_limit_after_a_transfer_is_the_new_defenders_hand(engine):
    hands = [["9C", "TD", "KD"], ["7C", "8S", "KS", "AC", "6D"], ["9S", "9D", "TC"]]
    g = engine.from_position(pos(transfer(3), hands, table=[["7S", None]]))
    assert obs(g, 1)[O_BOUT_LIMIT] == 5
    play(g, "transfer 7C")
    assert obs(g, 2)[O_BOUT_LIMIT] == 3               # min(6, seat 2's three cards)
    play(g, "defend 9S 7S", "defend TC")
    assert g.to_move() == 1 and legal(g) == ["stop"]
    play(g, "stop")
    assert g.to_move() == 0 and legal(g) == ["attack 9C", "attack TD", "stop"]
    play(g, "attack 9C", "take", "stop")
    assert g.to_move() == 0 and legal(g) == ["stop"]   # TD matches, but three is the limit
    play(g, "stop")
    assert hand(g, 2) == mask("9D", "7S", "9S", "7C", "TC", "9C")


def test_R8_2_two_players_the_attack_goes_back(engine):
    g = engine.from_position(pos(transfer(2), [["KD", "9S", "7D"], ["7C", "AS"]],
                                 table=[["7S", None]]))
    assert legal(g) == ["defend AS", "take", "transfer 7C"]
    play(g, "transfer 7C")
    o = obs(g, 0)
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (1, 0) and g.to_move() == 0
    assert o[O_BOUT_LIMIT] == 3
    # passing 7D back would put three cards against seat 1's one: not offered
    assert legal(g) == ["take", "defend 9S 7S"]
    # with three cards behind it, seat 1 can be passed to again
    g = engine.from_position(pos(transfer(2), [["KD", "9S", "7D"], ["7C", "AS", "KS", "QS"]],
                                 table=[["7S", None]]))
    play(g, "transfer 7C")
    assert legal(g) == ["take", "transfer 7D", "defend 9S 7S"]
    play(g, "transfer 7D")
    o = obs(g, 1)
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (0, 1) and o[O_N_UNBEATEN] == 3
    assert o[O_BOUT_LIMIT] == 3
    assert legal(g) == ["take", "defend QS 7S", "defend KS 7S", "defend AS 7S"]


CHAIN = dict(hands=[["KC", "QD", "JD", "TD", "9D"], ["7C", "AS", "8S", "6C", "6D", "TC"],
                    ["7D", "AC", "KS", "QS", "JS", "TS"], ["9S", "9C", "9H", "KD", "AD", "8D"]],
             stock=["6S", "8C", "JC", "QC", "JH"], table=[["7S", None]])


def test_R8_2_E9_chain_of_transfers_new_main_attacker_asks_and_draws_first(engine):
    g = engine.from_position(pos(transfer(4), **CHAIN))
    assert legal(g) == ["defend 8S", "defend AS", "take", "transfer 7C"]
    play(g, "transfer 7C")
    o = obs(g, 2)
    assert (o[O_ATTACKER], o[O_DEFENDER], o[O_ELIGIBLE]) == (1, 2, seats_mask(0, 1, 3))
    assert legal(g) == ["take", "transfer 7D", "defend TS 7S", "defend JS 7S", "defend QS 7S",
                        "defend KS 7S", "defend AC 7C"]
    play(g, "transfer 7D")
    o = obs(g, 3)
    assert (o[O_ATTACKER], o[O_DEFENDER], o[O_ELIGIBLE]) == (2, 3, seats_mask(0, 1, 2))
    assert o[O_BOUT_LIMIT] == 6 and o[O_N_UNBEATEN] == 3
    assert legal(g) == ["take", "defend 9S 7S", "defend 9H 7S", "defend 9C 7C",
                        "defend 9H 7C", "defend 8D 7D", "defend 9H 7D", "defend KD 7D",
                        "defend AD 7D"]
    play(g, "defend 8D 7D", "defend 9S 7S", "defend 9C 7C")
    # asked from the main attacker 2, then 0 and 1 (seat order, the defender skipped)
    assert g.to_move() == 2 and legal(g) == ["stop"]
    play(g, "stop")
    assert g.to_move() == 0 and legal(g) == ["attack 9D", "stop"]
    play(g, "stop")
    assert g.to_move() == 1 and legal(g) == ["attack 8S", "stop"]
    play(g, "stop")
    # drawing from the main attacker 2, then 0, 1, the defender 3 last (E9)
    assert hand(g, 2) == mask("AC", "KS", "QS", "JS", "TS", "6S")
    assert hand(g, 0) == mask("KC", "QD", "JD", "TD", "9D", "8C")
    assert hand(g, 1) == mask("AS", "8S", "6C", "6D", "TC", "JC")
    assert hand(g, 3) == mask("9H", "KD", "AD", "QC", "JH")
    o = obs(g, 3)
    assert int(o[O_KNOWN + 3]) == mask("JH") and o[O_STOCK] == 0
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (3, 0) and g.to_move() == 3


def test_R8_2_E3_transfer_settles_the_throw_in_seats_anew(engine):
    """Five players (neighbours): against seat 1 the neighbours are 0 and 2; after seat 1
    passes to seat 2 they are 1 and 3, and seat 0 is no longer asked."""
    hands = [["9C", "KD"], ["7C", "AC"], ["9D", "8S", "QC"], ["9H", "JC"], ["TS", "9S"]]
    g = engine.from_position(pos(transfer(5), hands, table=[["7S", None]]))
    assert obs(g, 0)[O_ELIGIBLE] == seats_mask(0, 2)
    play(g, "transfer 7C")
    assert obs(g, 2)[O_ELIGIBLE] == seats_mask(1, 3)
    play(g, "defend 8S 7S", "defend QC 7C")
    assert g.to_move() == 1 and legal(g) == ["stop"]
    play(g, "stop")
    assert g.to_move() == 3 and legal(g) == ["stop"]     # 9H, JC match no 7, 8 or Q
    play(g, "stop")
    assert obs(g, 2)[O_BOUTS] == 1 and g.to_move() == 2  # seat 0 was never asked
    assert [s for s, _ in history_text(g)] == [1, 2, 2, 1, 3]


def test_R8_2_E6_no_transfer_once_a_card_is_beaten(engine):
    hands = [["KD", "QC"], ["7D", "8C", "TC"], ["9C", "TD", "JS", "QS", "KS"]]
    g = engine.from_position(pos(transfer(3), hands, table=[["7S", "9S"], ["7C", None]]))
    assert g.to_move() == 1 and legal(g) == ["defend 8C", "defend TC", "take"]
    # and none while taking: the defender is not asked again in the bout
    g = engine.from_position(pos(transfer(3), hands, table=[["7S", None]], taking=True))
    assert g.to_move() == 0 and obs(g, 0)[O_PHASE] == PHASE_ATTACK


def test_R8_2_R8_4_teams_transfer_to_the_next_active_opponent(engine):
    hands = [["KD", "9C", "8D"], ["7C", "AS"], [], ["QC", "JD"]]
    g = engine.from_position(pos(teams(4, transfer=True), hands, table=[["7S", None]],
                                 out=[2]))
    assert legal(g) == ["defend AS", "take", "transfer 7C"]
    play(g, "transfer 7C")
    o = obs(g, 0)
    # seat 2 is out: the next active opponent of seat 1 is seat 0 (not its partner 3)
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (1, 0) and g.to_move() == 0
    assert o[O_BOUT_LIMIT] == 3 and o[O_ELIGIBLE] == seats_mask(1, 3)
    assert legal(g) == ["take", "defend 9C 7C"]


def test_R8_2_E6_a_transfer_passes_over_an_out_seat(engine):
    """Without teams the next active seat after the transferring defender defends: seat 2
    is out, so seat 3, and the limit is seat 3's three cards."""
    hands = [["9C", "9D", "KD"], ["7C", "8S", "KS"], [], ["7D", "QS", "JH"]]
    g = engine.from_position(pos(transfer(4), hands, table=[["7S", None]], out=[2]))
    play(g, "transfer 7C")
    o = obs(g, 0)
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (1, 3) and g.to_move() == 3
    assert o[O_BOUT_LIMIT] == 3 and o[O_ELIGIBLE] == seats_mask(0, 1)
    # seat 0 holds three cards: as many as the attack cards a transfer to it would make
    assert legal(g) == ["take", "transfer 7D", "defend JH 7S", "defend QS 7S", "defend JH 7C"]


def test_R7_5_R8_2_after_a_transfer_the_out_order_starts_at_the_new_main_attacker(engine):
    hands = [[], ["7C"], ["9S", "9C"], ["AH", "KH"]]
    g = engine.from_position(pos(transfer(4), hands, table=[["7S", None]]))
    play(g, "transfer 7C", "defend 9S 7S", "defend 9C 7C")
    for seat in (1, 3, 0):      # R7.3 from the new main attacker, skipping the defender
        assert g.to_move() == seat and legal(g) == ["stop"]
        play(g, "stop")
    # seats 0, 1 and 2 are empty after the bout: placed in seat order from seat 1
    assert g.result() == {"outcome": "durak", "durak": 3, "out_order": [1, 2, 0], "bouts": 1,
                          "places": [3, 1, 2, 4]}


# ======================================================================== R8.3 prostoy
PROSTOY_DEFENDER = ["8S", "8C", "TD", "QC", "AH"]


def test_R8_3_E4_lead_of_one_or_three_with_a_pair(engine):
    g = engine.from_position(pos(prostoy(2), [["7S", "7C", "9D", "JC", "KH"],
                                              PROSTOY_DEFENDER]))
    o = obs(g, 0)
    assert o[O_HAND_TARGET] == 5 and o[O_BOUT_LIMIT] == 5 and o[O_RULES] & FLAG_PROSTOY
    assert legal(g) == ["attack 7S", "attack 7C", "attack 9D", "attack JC", "attack KH"]
    play(g, "attack 7S")
    # one card is a lead (done); any card can still make three holding a pair
    assert obs(g, 0)[O_PHASE] == PHASE_LEAD
    assert legal(g) == ["attack 7C", "attack 9D", "attack JC", "attack KH", "done"]
    play(g, "attack 9D")
    assert legal(g) == ["attack 7C"]        # two cards are no lead; only the pair saves it
    play(g, "attack 7C")
    # 7 7 9 is a lead; J and K cannot make five with two pairs: the lead ends by itself
    o = obs(g, 1)
    assert g.to_move() == 1 and o[O_PHASE] == PHASE_DEFEND and o[O_N_UNBEATEN] == 3
    assert len(g.history) == 3
    assert legal(g) == ["take", "defend 8S 7S", "defend AH 7S", "defend 8C 7C",
                        "defend QC 7C", "defend AH 7C", "defend TD 9D", "defend AH 9D"]


def test_R8_3_E4_three_of_a_kind_with_two_odd_cards_is_no_lead(engine):
    g = engine.from_position(pos(prostoy(2), [["7S", "7C", "7D", "9D", "JC"],
                                              PROSTOY_DEFENDER]))
    play(g, "attack 7S")
    assert legal(g) == ["attack 7C", "attack 7D", "attack 9D", "attack JC", "done"]
    play(g, "attack 7C")
    assert legal(g) == ["attack 7D", "attack 9D", "attack JC"]
    play(g, "attack 7D")        # 7 7 7 is a lead of three; 7 7 7 9 J would be none
    assert g.to_move() == 1 and obs(g, 1)[O_N_UNBEATEN] == 3


def test_R8_3_E4_four_of_a_rank_and_any_fifth(engine):
    g = engine.from_position(pos(prostoy(2), [["7S", "7C", "7D", "7H", "JC"],
                                              PROSTOY_DEFENDER]))
    play(g, "attack 7S", "attack 7C", "attack 7D")
    assert legal(g) == ["attack 7H", "attack JC", "done"]
    play(g, "attack JC")
    assert legal(g) == ["attack 7H"]        # 7 7 7 J needs the fourth 7
    play(g, "attack 7H")
    assert g.to_move() == 1 and obs(g, 1)[O_N_UNBEATEN] == 5


def test_R8_3_E4_two_pairs_and_any_fifth(engine):
    g = engine.from_position(pos(prostoy(2), [["7S", "7C", "9D", "9S", "JC"],
                                              PROSTOY_DEFENDER]))
    play(g, "attack 7S", "attack 7C", "attack 9D")
    assert legal(g) == ["attack 9S", "attack JC", "done"]
    play(g, "attack 9S")
    assert legal(g) == ["attack JC"]        # four cards of two pairs are no lead
    play(g, "attack JC")
    assert g.to_move() == 1 and obs(g, 1)[O_N_UNBEATEN] == 5
    # three of a kind with a pair counts as two pairs
    g = engine.from_position(pos(prostoy(2), [["7S", "7C", "7D", "9S", "9D"],
                                              PROSTOY_DEFENDER]))
    play(g, "attack 7S", "attack 7C", "attack 7D")
    assert legal(g) == ["attack 9S", "attack 9D", "done"]
    play(g, "attack 9S", "attack 9D")
    assert g.to_move() == 1 and obs(g, 1)[O_N_UNBEATEN] == 5


def test_R8_3_E4_five_card_lead_through_unfinished_leads(engine):
    """7 9 J holds no pair: no lead of three, but on the way to 7 7 9 9 J (two pairs)."""
    g = engine.from_position(pos(prostoy(2), [["7S", "7C", "9D", "9S", "JC"],
                                              PROSTOY_DEFENDER]))
    play(g, "attack 7S", "attack 9D")
    assert legal(g) == ["attack 7C", "attack 9S", "attack JC"]
    play(g, "attack JC")
    assert legal(g) == ["attack 7C", "attack 9S"]           # no done: 7 9 J is no lead
    play(g, "attack 9S")
    assert legal(g) == ["attack 7C"]
    play(g, "attack 7C")
    assert g.to_move() == 1 and obs(g, 1)[O_N_UNBEATEN] == 5


def test_R8_3_E4_never_more_cards_than_the_defender_holds(engine):
    attacker = ["7S", "7C", "9D", "9S", "JC"]
    g = engine.from_position(pos(prostoy(2), [attacker, ["8S", "AH"]]))
    assert obs(g, 0)[O_BOUT_LIMIT] == 2
    play(g, "attack 7S")        # two cards: no lead of three can be laid
    assert g.to_move() == 1 and legal(g) == ["defend 8S", "defend AH", "take"]
    g = engine.from_position(pos(prostoy(2), [attacker, ["8S", "8C", "TD", "AH"]]))
    assert obs(g, 0)[O_BOUT_LIMIT] == 4
    play(g, "attack 7S")
    assert legal(g) == ["attack 7C", "attack 9S", "attack 9D", "attack JC", "done"]
    play(g, "attack 9S")
    assert legal(g) == ["attack 7C", "attack 9D"]
    play(g, "attack 9D")        # three; five would be more than the defender's four
    assert g.to_move() == 1 and obs(g, 1)[O_N_UNBEATEN] == 3


PROSTOY_BOUT = dict(hands=[["JC", "KH"], ["8S", "8C", "TD", "QC", "AH"]],
                    table=[["7S", None], ["9D", None], ["7C", None]])


def test_R8_3_E7_take_picks_up_only_the_unbeaten_cards(engine):
    g = engine.from_position(pos(prostoy(2), stock=["6S", "6C", "QD", "6H"], **PROSTOY_BOUT))
    assert g.to_move() == 1 and obs(g, 1)[O_N_UNBEATEN] == 3
    play(g, "defend 8S 7S")
    assert legal(g) == ["take", "defend 8C 7C", "defend QC 7C", "defend AH 7C",
                        "defend TD 9D", "defend AH 9D"]
    play(g, "take")               # the bout ends at once: no throw-ins in prostoy
    o = obs(g, 0)
    assert o[O_BOUTS] == 1 and o[O_PHASE] == PHASE_OPEN
    assert hand(g, 1) == mask("8C", "TD", "QC", "AH", "9D", "7C")
    assert int(o[O_KNOWN + 1]) == mask("9D", "7C")
    assert int(o[O_DISCARD]) & mask("7S", "8S") == mask("7S", "8S")
    assert int(o[O_DISCARD]) & mask("7C", "9D") == 0
    # refilled to five, the attacker first; the taker loses its turn (two players: the
    # same attacker again)
    assert hand(g, 0) == mask("JC", "KH", "6S", "6C", "QD") and o[O_STOCK] == 1
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (0, 1) and g.to_move() == 0


def test_R8_3_E7_every_card_beaten_ends_the_bout_at_once(engine):
    g = engine.from_position(pos(prostoy(2), stock=["6S", "6C", "QD", "KD", "AS", "JH", "6H"],
                                 **PROSTOY_BOUT))
    play(g, "defend 8S 7S", "defend TD 9D", "defend 8C 7C")
    o = obs(g, 1)
    assert o[O_BOUTS] == 1 and o[O_PHASE] == PHASE_OPEN
    assert int(o[O_DISCARD]) & mask("7S", "8S", "9D", "TD", "7C", "8C") == \
        mask("7S", "8S", "9D", "TD", "7C", "8C")
    assert hand(g, 0) == mask("JC", "KH", "6S", "6C", "QD")
    assert hand(g, 1) == mask("QC", "AH", "KD", "AS", "JH")
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (1, 0) and g.to_move() == 1


def test_R8_3_E10_after_a_take_with_seats_out(engine):
    """A prostoy take skips the taker (R7.4); the attacker of the bout goes out after it."""
    taker = ["8S", "AC", "6H", "TD", "KD"]
    lead = [["7S", None], ["7D", None], ["9C", None]]
    g = engine.from_position(pos(prostoy(3), [[], taker, ["QS", "QD"]], table=lead))
    play(g, "defend 8S 7S", "take")
    o = obs(g, 2)
    assert places(g) == [1, 0, 0] and (o[O_ATTACKER], o[O_DEFENDER]) == (2, 1)
    assert o[O_BOUT_LIMIT] == 5 and legal(g) == ["attack QS", "attack QD"]
    # teams of three, seat 2 out: the seat after the taker is out, so its next active
    # partner (4; seat 0 goes out after this bout) attacks the next opponent after seat 2
    rules = Rules(variant="prostoy", players=6, teams=True)
    hands = [[], taker, [], ["QS", "QD"], ["JC"], ["6C"]]
    g = engine.from_position(pos(rules, hands, table=lead, out=[2]))
    play(g, "defend 8S 7S", "take")
    o = obs(g, 4)
    assert places(g) == [2, 0, 1, 0, 0, 0] and (o[O_ATTACKER], o[O_DEFENDER]) == (4, 3)
    assert o[O_BOUT_LIMIT] == 2 and g.to_move() == 4 and legal(g) == ["attack JC"]


def test_R8_3_E3_only_the_attacker_attacks_at_any_table(engine):
    hands = [["7S", "KD"], ["8S", "9C", "TD", "QC", "AH"], ["7C", "8D", "QS"]]
    g = engine.from_position(pos(prostoy(3), hands))
    assert int(obs(g, 0)[O_ELIGIBLE]) & ~seats_mask(0) == 0    # nobody else throws in
    play(g, "attack 7S")
    assert g.to_move() == 1 and legal(g) == ["defend 8S", "defend AH", "take"]
    play(g, "defend 8S")       # beaten: the bout is over, nobody is asked to throw in
    o = obs(g, 1)
    assert o[O_BOUTS] == 1 and (o[O_ATTACKER], o[O_DEFENDER]) == (1, 2)
    assert [s for s, _ in history_text(g)] == [0, 1]
    g = engine.from_position(pos(prostoy(3), hands))
    play(g, "attack 7S", "take")
    o = obs(g, 2)
    assert o[O_BOUTS] == 1 and (o[O_ATTACKER], o[O_DEFENDER]) == (2, 0)   # R7.4
    assert hand(g, 1) == mask("8S", "9C", "TD", "QC", "AH", "7S")


# ======================================================================== R8.4 teams
def test_R8_4_E10_defender_is_the_next_active_opponent(engine):
    hands = [["6S", "9C"], [], ["7S", "8D"], ["KD", "QC"]]
    g = engine.from_position(pos(teams(4), hands, out=[1]))
    o = obs(g, 0)
    # seat 2 is seat 0's partner: seat 3 defends
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (0, 3)
    assert o[O_RULES] & FLAG_TEAMS and o[O_TEAM] == 0 and obs(g, 3)[O_TEAM] == 1
    play(g, "attack 6S")
    assert g.to_move() == 3


def test_R8_4_E3_partners_never_throw_in_against_their_partner(engine):
    g = engine.from_position(pos(teams(4), ALL_FOUR, table=[["7S", "9S"]]))
    assert obs(g, 0)[O_ELIGIBLE] == seats_mask(0, 2)     # not seat 3, the defender's partner
    play(g, "stop")
    assert g.to_move() == 2 and legal(g) == ["attack 7C", "stop"]
    play(g, "stop")
    assert obs(g, 1)[O_BOUTS] == 1 and g.to_move() == 1  # seat 3 (holding 9D) not asked


def test_R8_4_E3_teams_of_three_neighbours(engine):
    hands = [["KD"], ["AC", "QH"], ["7C", "JD"], ["9D", "JS"], ["9C", "QS"], ["7D", "8C"]]
    g = engine.from_position(pos(teams(6), hands, table=[["7S", "9S"]]))
    assert obs(g, 0)[O_ELIGIBLE] == seats_mask(0, 2)      # six dealt in: neighbours
    # seat 1 out: seat 0 attacks its next active opponent, seat 3; the main attacker and the
    # neighbours of seat 3 (2 and 4) may throw in
    hands = [["KD"], [], ["7C", "JD"], ["AC", "QH"], ["9C", "QS"], ["7D", "8C"]]
    g = engine.from_position(pos(teams(6), hands, table=[["7S", "9S"]], out=[1],
                                 bout_limit=3))
    o = obs(g, 0)
    assert o[O_DEFENDER] == 3 and o[O_ELIGIBLE] == seats_mask(0, 2, 4)
    play(g, "stop")
    assert g.to_move() == 2 and legal(g) == ["attack 7C", "stop"]
    play(g, "stop")
    assert g.to_move() == 4 and legal(g) == ["attack 9C", "stop"]


def test_R8_4_E3_a_partner_neighbour_is_dropped_not_replaced(engine):
    """Six dealt in (neighbours), seat 4 out: the defender's neighbours are 2 and 5, and 5
    is its partner; the next opponent beyond it (seat 0, holding a nine) is no neighbour."""
    hands = [["9C", "KD"], ["AC", "QH"], ["7C", "JD"], ["9D", "JS", "AS"], [], ["7D", "8C"]]
    g = engine.from_position(pos(teams(6), hands, attacker=2, table=[["7S", "9S"]], out=[4]))
    assert obs(g, 2)[O_DEFENDER] == 3 and obs(g, 2)[O_ELIGIBLE] == seats_mask(2)
    assert legal(g) == ["attack 7C", "stop"]
    play(g, "stop")
    o = obs(g, 3)
    assert o[O_BOUTS] == 1 and g.to_move() == 3 and o[O_ATTACKER] == 3


def test_R8_4_E10_out_defender_turn_passes_to_its_partner(engine):
    hands = [["KD", "9C"], ["7S"], ["JS", "QS"], ["8C", "TD"]]
    g = engine.from_position(pos(teams(4), hands, table=[["6S", None]]))
    play(g, "defend 7S")
    assert g.to_move() == 0 and legal(g) == ["stop"]
    play(g, "stop")
    assert g.to_move() == 2 and legal(g) == ["stop"]
    play(g, "stop")                  # seat 3 is the defender's partner: not asked
    o = obs(g, 3)
    assert places(g) == [0, 1, 0, 0] and not g.is_over()
    # seat 1 should attack but is out: its partner 3 attacks from seat 1's place, against
    # the next active opponent after seat 1: seat 2
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (3, 2) and g.to_move() == 3
    assert legal(g) == ["attack 8C", "attack TD"]
    play(g, "attack 8C")
    assert g.to_move() == 2
    # the same position written down needs its defender (docs/position.md): the default
    # would be seat 0, the next active opponent after seat 3
    written = pos(teams(4), [["KD", "9C"], [], ["JS", "QS"], ["8C", "TD"]], attacker=3,
                  out=[1], defender=2)
    g = engine.from_position(written)
    assert (obs(g, 3)[O_ATTACKER], obs(g, 3)[O_DEFENDER]) == (3, 2)
    del written["defender"]
    assert obs(engine.from_position(written), 3)[O_DEFENDER] == 0


def test_R8_4_E10_after_a_take_the_out_seats_partner_attacks(engine):
    hands = [["KD", "9C"], ["AC", "8D"], [], ["JS", "QS"]]
    g = engine.from_position(pos(teams(4), hands, table=[["7S", None]], out=[2]))
    assert obs(g, 0)[O_ELIGIBLE] == seats_mask(0)
    play(g, "take", "stop")
    o = obs(g, 0)
    # the seat after the taker is seat 2, out: its partner 0 attacks again, against the
    # next active opponent after seat 2: seat 3
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (0, 3) and g.to_move() == 0
    hands = [["KD", "9C"], ["AC", "8D"], [], ["JS", "QS"], ["TD", "6C"], ["QD", "KS"]]
    g = engine.from_position(pos(teams(6), hands, table=[["7S", None]], out=[2]))
    assert obs(g, 0)[O_ELIGIBLE] == seats_mask(0)     # neighbours 0 and 3; 3 is a partner
    play(g, "take", "stop")
    o = obs(g, 4)
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (4, 3) and g.to_move() == 4


def test_R8_4_E11_a_team_out_the_other_loses(engine):
    hands = [[], ["9D"], ["6S"], ["7S", "8C"]]
    g = engine.from_position(pos(teams(4), hands, attacker=2, out=[0]))
    assert obs(g, 2)[O_DEFENDER] == 3 and obs(g, 2)[O_ELIGIBLE] == seats_mask(2)
    play(g, "attack 6S", "defend 7S", "stop")
    assert g.is_over()
    res = g.result()
    p = res.pop("places")
    assert res == {"outcome": "durak", "durak": None, "out_order": [0, 2], "bouts": 1,
                   "durak_team": 1}
    # seats 1 and 3 are the Durak: they share the last place, after seats 0 and 2
    assert (p[0], p[2]) == (1, 2) and p[1] == p[3] > 2


def test_R8_4_E11_both_teams_out_after_one_bout_draw(engine):
    g = engine.from_position(pos(teams(4), [[], [], ["6S"], ["7S"]], attacker=2, out=[0, 1]))
    play(g, "attack 6S", "defend 7S", "stop")
    assert g.result() == {"outcome": "draw", "durak": None, "out_order": [0, 1, 2, 3],
                          "bouts": 1, "places": [1, 2, 3, 3], "durak_team": None}


# ======================================================================== R8.5 the swap
SWAP_HANDS = [["6H", "7S", "9C", "JD", "QS", "KC"], ["8S", "TC", "AD", "QD", "7C", "8D"]]


def test_R8_5_E8_swap_the_trump_six_for_the_face_up_card(engine):
    g = engine.from_position(pos(full(2), SWAP_HANDS, trump="KH", stock=["6S", "KH"],
                                 swap=True))
    o = obs(g, 0)
    assert g.to_move() == 0 and o[O_PHASE] == PHASE_SWAP and o[O_RULES] & FLAG_SWAP
    assert legal(g) == ["swap", "keep"]
    play(g, "swap")
    o = obs(g, 1)
    assert o[O_TRUMP_CARD] == parse_card("6H") and o[O_TRUMP_SUIT] == SUITS.index("H")
    assert hand(g, 0) == mask("KH", "7S", "9C", "JD", "QS", "KC")
    assert int(o[O_KNOWN + 0]) == mask("KH") and int(o[O_SEEN]) >> parse_card("6H") & 1
    assert g.to_move() == 0 and o[O_PHASE] == PHASE_OPEN and history_text(g) == [(0, "swap")]
    play(g, "attack 7S", "defend 8S", "stop")
    # the six lies under the stock: drawn last, by the defender here, and known
    assert hand(g, 0) == mask("KH", "9C", "JD", "QS", "KC", "6S")
    assert hand(g, 1) >> parse_card("6H") & 1
    assert int(obs(g, 0)[O_KNOWN + 1]) == mask("6H")


def test_R8_5_E8_keep_changes_nothing(engine):
    g = engine.from_position(pos(full(2), SWAP_HANDS, trump="KH", stock=["6S", "KH"],
                                 swap=True))
    play(g, "keep")
    o = obs(g, 0)
    assert o[O_TRUMP_CARD] == parse_card("KH") and hand(g, 0) == cards_mask(SWAP_HANDS[0])
    assert int(o[O_KNOWN + 0]) == 0 and g.to_move() == 0 and o[O_PHASE] == PHASE_OPEN


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R8_5_E8_offered_to_the_six_holder_before_the_first_attack(engine, players):
    rules = full(players)
    offered = not_offered = 0
    for deal in range(60):
        hands, stock, up = dealt(70, deal, players)
        six = up % 4                        # the six of the trump suit (rank 0)
        holder = next((s for s, h in enumerate(hands) if six in h), None)
        first = lowest_trump_holder(hands, up % 4)
        g = engine.new(70, deal, rules)
        assert obs(g, 0)[O_FIRST] == first and obs(g, 0)[O_ATTACKER] == first
        if holder is None or up == six:     # in the stock, or itself face up: no swap
            assert obs(g, 0)[O_PHASE] == PHASE_OPEN and g.to_move() == first
            not_offered += 1
            continue
        offered += 1
        assert g.to_move() == holder and obs(g, holder)[O_PHASE] == PHASE_SWAP
        assert legal(g) == ["swap", "keep"]
        play(g, "swap")
        o = obs(g, holder)
        # the first attacker stays as R2.3 settled it on the hands as dealt
        assert o[O_FIRST] == first and o[O_ATTACKER] == first and g.to_move() == first
        assert o[O_PHASE] == PHASE_OPEN and o[O_TRUMP_CARD] == six
        assert hand(g, holder) >> up & 1 and not hand(g, holder) >> six & 1
        assert int(o[O_KNOWN + holder]) == 1 << up
    assert offered >= 3 and not_offered >= 3


def test_R8_5_E8_never_offered_without_a_stock_or_without_the_rule(engine):
    for deal in range(30):
        g = engine.new(71, deal, full(6))    # six of six: the stock is empty
        assert obs(g, 0)[O_PHASE] == PHASE_OPEN and "swap" not in legal(g)
        g = engine.new(71, deal, podkidnoy(3))
        assert obs(g, 0)[O_PHASE] == PHASE_OPEN


def test_R8_5_in_a_series_only_the_first_deal(engine):
    swaps = 0
    for j in range(6):
        recs = series_records(engine, 72, j, 4, ["easy", "random", "easy"], full(3))
        for k, rec in enumerate(recs):
            acts = [a["act"] for a in rec["actions"]]
            decisions = acts.count("swap") + acts.count("keep")
            if k:
                assert decisions == 0, (j, k)
            else:
                hands = [[parse_card(c) for c in h] for h in rec["hands"]]
                up = parse_card(rec["trump"])
                held = any(up % 4 in h for h in hands) and up >= 4
                assert decisions == int(held)
                swaps += decisions
    assert swaps >= 1
