"""Hand-built positions for every rule of docs/rules.md beyond the two-player default game.
Here: the deal at every table (R2) and more than two players (R7); the variants (R8) are in
``test_rules_variants.py``, series (R9) and how the engines ask for actions (E1-E13) in
``test_rules_series.py``. Every test name carries the id it pins (``R7_3``, ``E4``);
``test_every_rule_has_a_test`` keeps it that way over the three files. The expected values
are read off docs/rules.md (and docs/position.md, docs/observation.md for the formats),
never copied from an engine; every test runs on both engines through the ``engine`` fixture
(helpers: ``table_rules``).
"""
import random

import pytest

from durak_sim import seeding
from durak_sim.cards import cards_mask
from durak_sim.observation import (
    O_ATTACKER, O_BOUTS, O_BOUT_LIMIT, O_DEALER, O_DEFENDER, O_DISCARD, O_ELIGIBLE, O_FIRST,
    O_HAND_SIZES, O_HAND_TARGET, O_KNOWN, O_N_OUT, O_PHASE, O_PLAYERS, O_RULES, O_SEEN,
    O_STOCK, O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING, O_TO_MOVE, O_TRUMP_CARD,
    O_TRUMP_SUIT, PHASE_ATTACK, PHASE_DEFEND, PHASE_OPEN,
)
from durak_sim.rules import FLAG_NEIGHBOURS
from table_rules import (
    ALL_FOUR, SLOW, dealt, full, hand, history_text, legal, lowest_trump_holder, mask, obs,
    places, play, podkidnoy, pos, prostoy, record_of, seats_mask, teams, transfer,
)

RULE_IDS = [
    "R2.1", "R2.2", "R2.3", "R2.4",
    "R7.1", "R7.2", "R7.3", "R7.4", "R7.5", "R7.6",
    "R8.1", "R8.2", "R8.3", "R8.4", "R8.5",
    "R9.1", "R9.2",
    "E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", "E10", "E11", "E12", "E13",
]


# ======================================================================== R2 the deal
@pytest.mark.parametrize("rules", [podkidnoy(3), podkidnoy(4), podkidnoy(5), podkidnoy(6),
                                   prostoy(3), prostoy(6), teams(6)],
                         ids=lambda r: r.tag)
def test_R2_1_one_card_at_a_time_in_seat_order_dealer_last(engine, rules):
    n, hs = rules.players, rules.hand_size
    for seed, deal in ((0, 0), (42, 7), (2**62, 123456789)):
        deck = seeding.deal_deck(seed, deal)
        g = engine.new(seed, deal, rules)
        for s in range(n):
            # card k of the shuffled pack goes to seat k mod players
            assert hand(g, s) == cards_mask(deck[k] for k in range(n * hs) if k % n == s)
            assert obs(g, s)[O_HAND_SIZES + s] == hs and obs(g, s)[O_HAND_TARGET] == hs
        # the last seat deals and gets the last card dealt
        assert hand(g, n - 1) >> deck[n * hs - 1] & 1
        assert obs(g, 0)[O_DEALER] == n - 1 and obs(g, 0)[O_PLAYERS] == n
        assert obs(g, 0)[O_STOCK] == 36 - n * hs


@pytest.mark.parametrize("players", [3, 4, 5])
def test_R2_2_next_card_face_up_sets_trump_and_is_drawn_last(engine, players):
    rules = podkidnoy(players)
    seed, deal = 17, 3
    deck = seeding.deal_deck(seed, deal)
    up = deck[6 * players]
    g = engine.new(seed, deal, rules)
    for s in range(players):
        o = obs(g, s)
        assert o[O_TRUMP_CARD] == up and o[O_TRUMP_SUIT] == up % 4
        assert int(o[O_SEEN]) >> up & 1                       # everyone knows it
        assert all(int(o[O_KNOWN + t]) == 0 for t in range(players))  # in nobody's hand
    rng = random.Random(players)
    drew = False
    while not g.is_over():
        before = int(obs(g, 0)[O_STOCK])
        g.apply(rng.choice(g.legal_actions()))
        if before > 0 and int(obs(g, 0)[O_STOCK]) == 0:   # the refill that emptied the stock
            holders = [s for s in range(players) if hand(g, s) >> up & 1]
            assert len(holders) == 1, "the face-up card is the last card of the stock"
            assert int(obs(g, 0)[O_KNOWN + holders[0]]) >> up & 1   # known in its hand
            drew = True
    assert drew


def test_R2_2_six_by_six_no_stock_face_up_card_stays_with_the_dealer(engine):
    rules = podkidnoy(6)
    for seed, deal in ((5, 0), (5, 1), (99, 12)):
        deck = seeding.deal_deck(seed, deal)
        up = deck[35]   # the last card dealt, to seat 5 (the dealer)
        g = engine.new(seed, deal, rules)
        for s in range(6):
            o = obs(g, s)
            assert o[O_STOCK] == 0
            assert o[O_TRUMP_CARD] == up and o[O_TRUMP_SUIT] == up % 4
            assert int(o[O_KNOWN + 5]) == 1 << up        # everyone knows seat 5 holds it
            assert all(int(o[O_KNOWN + t]) == 0 for t in range(5))
            assert o[O_HAND_SIZES + s] == 6
        assert hand(g, 5) >> up & 1
        # it stays known until it is played
        rng = random.Random(deal)
        while hand(g, 5) >> up & 1:
            assert int(obs(g, 0)[O_KNOWN + 5]) >> up & 1
            if g.is_over():
                break
            g.apply(rng.choice(g.legal_actions()))
        else:
            o = obs(g, 0)
            assert (int(o[O_TABLE_ATTACKS]) | int(o[O_TABLE_DEFENCES])) >> up & 1
            assert not int(o[O_KNOWN + 5]) >> up & 1


@pytest.mark.parametrize("rules", [podkidnoy(3), podkidnoy(4), podkidnoy(5), podkidnoy(6),
                                   prostoy(4), teams(4), teams(6)], ids=lambda r: r.tag)
def test_R2_3_lowest_trump_in_a_hand_attacks_first_at_every_table(engine, rules):
    n, hs = rules.players, rules.hand_size
    for deal in range(40):
        hands, stock, up = dealt(8, deal, n, hs)
        want = lowest_trump_holder(hands, up % 4)
        g = engine.new(8, deal, rules)
        o = obs(g, want)
        assert o[O_FIRST] == want and o[O_ATTACKER] == want, deal
        if not rules.trump_six_swap:
            assert g.to_move() == want


def test_R2_3_without_a_trump_in_any_hand_seat_0_attacks_at_three_players(engine):
    found = 0
    for deal in range(300):
        hands, stock, up = dealt(5, deal, 3)
        if any(c % 4 == up % 4 for h in hands for c in h):
            continue
        g = engine.new(5, deal, podkidnoy(3))
        assert obs(g, 0)[O_FIRST] == 0 and g.to_move() == 0, deal
        found += 1
    assert found >= 2          # deals 141 and 258


def test_R2_3_face_up_card_is_in_nobodys_hand(engine):
    """Three players: a deal whose face-up card is the trump six. It is nobody's: the lowest
    trump held in a hand decides."""
    found = 0
    for deal in range(400):
        hands, stock, up = dealt(31, deal, 3)
        if up >= 4:   # not a six (rank 0)
            continue
        want = lowest_trump_holder(hands, up % 4)
        g = engine.new(31, deal, podkidnoy(3))
        assert obs(g, 0)[O_FIRST] == want and g.to_move() == want
        found += 1
    assert found >= 3


def test_R2_3_six_by_six_face_up_card_counts_as_its_holders(engine):
    """Six of six: every card is dealt; when the face-up card (the dealer's last card) is the
    trump six it is the lowest trump and seat 5 attacks first."""
    found = 0
    for deal in range(300):
        hands, stock, up = dealt(44, deal, 6)
        assert stock == [] and up in hands[5]
        g = engine.new(44, deal, podkidnoy(6))
        want = lowest_trump_holder(hands, up % 4)
        assert obs(g, 0)[O_FIRST] == want
        if up < 4:
            assert want == 5 and g.to_move() == 5
            found += 1
    assert found >= 3


@pytest.mark.parametrize("rules", [podkidnoy(3), podkidnoy(5), podkidnoy(6), prostoy(3),
                                   teams(4), teams(6), transfer(4)], ids=lambda r: r.tag)
def test_R2_4_defender_is_the_seat_after_the_attacker(engine, rules):
    n = rules.players
    for deal in range(12):
        g = engine.new(3, deal, rules)
        o = obs(g, 0)
        first = int(o[O_ATTACKER])
        assert o[O_DEFENDER] == (first + 1) % n      # with teams the next seat is an opponent
        g.apply(g.legal_actions()[0])
        if int(obs(g, 0)[O_PHASE]) == PHASE_DEFEND:
            assert g.to_move() == (first + 1) % n


# ======================================================================== R7 two to six
def test_R7_1_defender_is_the_next_active_seat_clockwise(engine):
    r = podkidnoy(4)
    hands = [["6S", "9C"], [], ["7S", "8D"], ["KD", "QC"]]
    g = engine.from_position(pos(r, hands, attacker=0, out=[1]))
    o = obs(g, 0)
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (0, 2)      # seat 1 is out: skipped
    assert g.to_move() == 0 and legal(g) == ["attack 6S", "attack 9C"]
    play(g, "attack 6S")
    assert g.to_move() == 2 and legal(g) == ["defend 7S", "take"]
    # clockwise around the table: seat 3 attacks seat 0
    g = engine.from_position(pos(r, hands, attacker=3, out=[1]))
    assert obs(g, 3)[O_DEFENDER] == 0
    play(g, "attack QC")
    assert g.to_move() == 0



def test_R7_2_E3_every_active_player_but_the_defender_up_to_four(engine):
    g = engine.from_position(pos(podkidnoy(4), ALL_FOUR, table=[["7S", "9S"]]))
    o = obs(g, 0)
    assert o[O_ELIGIBLE] == seats_mask(0, 2, 3) and not o[O_RULES] & FLAG_NEIGHBOURS
    assert g.to_move() == 0 and o[O_PHASE] == PHASE_ATTACK and legal(g) == ["stop"]
    play(g, "stop")
    assert g.to_move() == 2 and legal(g) == ["attack 7C", "stop"]
    play(g, "stop")
    assert g.to_move() == 3 and legal(g) == ["attack 9D", "stop"]
    play(g, "attack 9D")
    assert g.to_move() == 1 and legal(g) == ["defend QH", "take"]


@pytest.mark.parametrize("att,dfd,near,hands", [
    (0, 1, 2, [["KD"], ["AC", "QH"], ["7C", "JD"], ["7D", "QC"], ["9D", "QS"]]),
    (3, 4, 5, [["7D", "QC"], ["9D", "QS"], ["7H", "TC"], ["KD"], ["AC", "QH"], ["7C", "JD"]]),
    (4, 0, 1, [["AC", "QH"], ["7C", "JD"], ["7D", "QC"], ["9D", "QS"], ["KD"]]),
])
def test_R7_2_E3_only_the_neighbours_at_five_and_six(engine, att, dfd, near, hands):
    """Default for five or six dealt in: the main attacker (the nearest seat before the
    defender) and the nearest seat after the defender; the others never throw in, though
    they hold matching cards."""
    players = len(hands)
    r = podkidnoy(players)
    assert r.throw_in_scope == "neighbours"
    g = engine.from_position(pos(r, hands, attacker=att, table=[["7S", "9S"]]))
    o = obs(g, att)
    assert o[O_ELIGIBLE] == seats_mask(att, near) and o[O_RULES] & FLAG_NEIGHBOURS
    assert o[O_DEFENDER] == dfd and g.to_move() == att
    play(g, "stop")
    assert g.to_move() == near
    play(g, "stop")   # the round is over: nobody else is asked, the bout ends
    assert obs(g, 0)[O_BOUTS] == 1 and g.to_move() == dfd       # R3.6: the defender attacks
    assert [s for s, _ in history_text(g)] == [att, near]


def test_R7_2_E3_neighbours_however_many_are_still_active(engine):
    """Five dealt in, seat 2 out: still neighbours; the nearest active seat after defender
    1 is seat 3, and seat 4 may not throw in."""
    hands = [["KD"], ["AC", "QH"], [], ["7C", "JD"], ["9D", "JS"]]
    g = engine.from_position(pos(podkidnoy(5), hands, table=[["7S", "9S"]], out=[2]))
    assert obs(g, 0)[O_ELIGIBLE] == seats_mask(0, 3)
    play(g, "stop")
    assert g.to_move() == 3 and legal(g) == ["attack 7C", "stop"]
    play(g, "stop")
    assert g.to_move() == 1 and obs(g, 1)[O_PHASE] == PHASE_OPEN   # seat 4 was not asked


def test_R7_2_E3_throw_in_option_overrides_the_table_size(engine):
    g = engine.from_position(pos(podkidnoy(4, throw_in="neighbours"), ALL_FOUR,
                                 table=[["7S", "9S"]]))
    assert obs(g, 0)[O_ELIGIBLE] == seats_mask(0, 2)
    play(g, "stop", "stop")
    assert g.to_move() == 1 and obs(g, 1)[O_BOUTS] == 1            # seat 3 never asked
    hands = ALL_FOUR + [["9C", "QC"], ["TH", "8C"]]
    g = engine.from_position(pos(podkidnoy(6, throw_in="all"), hands, table=[["7S", "9S"]]))
    assert obs(g, 0)[O_ELIGIBLE] == seats_mask(0, 2, 3, 4, 5)
    play(g, "stop", "stop", "stop")
    assert g.to_move() == 4 and legal(g) == ["attack 9C", "stop"]


def test_R7_3_E2_asking_order_main_attacker_first_then_seat_order(engine):
    hands = [["8C", "QC"], ["TD", "AC"], ["KD"], ["JC", "AH", "7H"]]
    g = engine.from_position(pos(podkidnoy(4), hands, attacker=2, table=[["8S", "TS"]]))
    assert obs(g, 2)[O_DEFENDER] == 3 and obs(g, 2)[O_BOUT_LIMIT] == 4
    assert g.to_move() == 2 and legal(g) == ["stop"]
    play(g, "stop")
    assert g.to_move() == 0 and legal(g) == ["attack 8C", "stop"]
    assert obs(g, 0)[O_TO_MOVE] == 0 and obs(g, 0)[O_PHASE] == PHASE_ATTACK
    play(g, "stop")
    assert g.to_move() == 1 and legal(g) == ["attack TD", "stop"]
    play(g, "attack TD")                          # the first throw-in ends the asking
    assert g.to_move() == 3 and legal(g) == ["defend 7H", "defend AH", "take"]
    play(g, "defend 7H")                          # a new round, from the main attacker
    assert g.to_move() == 2 and legal(g) == ["stop"]
    play(g, "stop")
    assert g.to_move() == 0 and legal(g) == ["attack 8C", "stop"]
    play(g, "stop")
    assert g.to_move() == 1 and legal(g) == ["stop"]
    play(g, "stop")                               # everyone asked in turn has stopped
    assert history_text(g) == [(2, "stop"), (0, "stop"), (1, "attack TD"),
                               (3, "defend 7H TD"), (2, "stop"), (0, "stop"), (1, "stop")]
    o = obs(g, 3)
    assert o[O_BOUTS] == 1 and (o[O_ATTACKER], o[O_DEFENDER]) == (3, 0)   # R7.4
    assert int(o[O_DISCARD]) & mask("8S", "TS", "TD", "7H") == mask("8S", "TS", "TD", "7H")


def test_R7_3_E2_asking_after_a_take(engine):
    hands = [["7C", "KD"], ["AC", "8D"], ["7D", "JS"]]
    g = engine.from_position(pos(podkidnoy(3), hands, table=[["7S", None]]))
    assert obs(g, 0)[O_BOUT_LIMIT] == 2
    play(g, "take")
    assert g.to_move() == 0 and obs(g, 0)[O_TAKING] == 1
    assert legal(g) == ["attack 7C", "stop"]
    play(g, "stop")
    assert g.to_move() == 2 and legal(g) == ["attack 7D", "stop"]
    play(g, "attack 7D")                          # not answered; asking starts again at 0
    assert g.to_move() == 0 and legal(g) == ["stop"]   # the bout limit 2 is reached
    play(g, "stop")
    assert g.to_move() == 2 and legal(g) == ["stop"]
    play(g, "stop")
    assert hand(g, 1) == mask("AC", "8D", "7S", "7D")
    assert int(obs(g, 0)[O_KNOWN + 1]) == mask("7S", "7D")
    o = obs(g, 2)   # R7.4: the taker is skipped, the seat after him attacks
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (2, 0) and g.to_move() == 2


def test_R7_4_E10_after_a_take_the_next_active_seat_after_the_defender(engine):
    hands = [["KD", "9C"], ["AC", "8D"], [], ["JS", "QS"]]
    g = engine.from_position(pos(podkidnoy(4), hands, table=[["7S", None]], out=[2]))
    assert obs(g, 0)[O_ELIGIBLE] == seats_mask(0, 3)
    play(g, "take", "stop", "stop")
    o = obs(g, 3)
    # the seat after the defender (2) is out: the next active seat after it attacks
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (3, 0) and g.to_move() == 3
    assert o[O_PHASE] == PHASE_OPEN and hand(g, 1) == mask("AC", "8D", "7S")


def test_R7_4_R7_5_E10_defender_out_after_defending_next_seat_attacks(engine):
    hands = [["KD", "9C"], ["7S"], ["JS", "QS"], ["8C", "TD"]]
    g = engine.from_position(pos(podkidnoy(4), hands, table=[["6S", None]]))
    assert obs(g, 0)[O_BOUT_LIMIT] == 1
    play(g, "defend 7S")
    for seat in (0, 2, 3):      # the limit is reached: each is asked and stops (E2)
        assert g.to_move() == seat and legal(g) == ["stop"]
        play(g, "stop")
    o = obs(g, 2)
    assert not g.is_over() and o[O_N_OUT] == 1 and places(g) == [0, 1, 0, 0]
    # the defender should attack but is out: the next active seat after it attacks
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (2, 3) and g.to_move() == 2


def test_R7_5_E11_several_out_after_one_bout_in_seat_order_from_the_main_attacker(engine):
    hands = [["6C"], ["KD"], ["6S"], ["7S", "7C"]]
    g = engine.from_position(pos(podkidnoy(4), hands, attacker=2))
    play(g, "attack 6S", "defend 7S")
    assert g.to_move() == 2 and legal(g) == ["stop"]    # empty hand: still in the bout
    play(g, "stop")
    assert g.to_move() == 0
    play(g, "attack 6C", "defend 7C", "stop", "stop")
    assert g.to_move() == 1 and legal(g) == ["stop"]
    play(g, "stop")
    # emptied in the order 2, 0, 3; placed in seat order from the main attacker 2: 2, 3, 0
    assert g.is_over()
    assert g.result() == {"outcome": "durak", "durak": 1, "out_order": [2, 3, 0], "bouts": 1,
                          "places": [3, 4, 1, 2]}


def test_R7_5_E11_the_last_players_out_together_draw(engine):
    hands = [["6C"], ["6S"], ["7S", "7C"]]
    g = engine.from_position(pos(podkidnoy(3), hands, attacker=1))
    play(g, "attack 6S", "defend 7S", "stop", "attack 6C", "defend 7C", "stop", "stop")
    assert g.result() == {"outcome": "draw", "durak": None, "out_order": [1, 2, 0],
                          "bouts": 1, "places": [1, 1, 1]}
    # two left of four, both out after the same bout: they share the next place
    g = engine.from_position(pos(podkidnoy(4), [["6S"], ["7S"], [], []], out=[3, 2]))
    play(g, "attack 6S", "defend 7S", "stop")
    assert g.result() == {"outcome": "draw", "durak": None, "out_order": [3, 2, 0, 1],
                          "bouts": 1, "places": [3, 3, 2, 1]}


def test_R7_5_E9_E11_stock_runs_out_before_the_defender_draws(engine):
    """The checks come after the drawing (R5.1, E11): the stock's last card goes to the main
    attacker (E9), so the defender, who beat with his last card, draws nothing and is out."""
    hands = [["6S", "KD"], ["7S"], ["9C", "TD"]]
    g = engine.from_position(pos(podkidnoy(3), hands, stock=["8H"], trump="8H"))
    play(g, "attack 6S", "defend 7S", "stop", "stop")
    o = obs(g, 2)
    assert hand(g, 0) == mask("KD", "8H") and int(o[O_KNOWN + 0]) == mask("8H")
    assert o[O_STOCK] == 0 and places(g) == [0, 1, 0] and o[O_N_OUT] == 1
    assert (o[O_ATTACKER], o[O_DEFENDER]) == (2, 0) and g.to_move() == 2   # R7.4


def test_R7_5_hands_empty_while_the_stock_lasts_are_refilled(engine):
    hands = [["6S"], ["7S", "9C"], ["8D", "KC"]]
    g = engine.from_position(pos(podkidnoy(3), hands, stock=["TC", "JC", "QH"],
                                 trump="QH"))
    play(g, "attack 6S", "defend 7S", "stop", "stop")
    assert not g.is_over() and obs(g, 0)[O_N_OUT] == 0
    assert hand(g, 0) == mask("TC", "JC", "QH")       # the attacker draws first


def test_R7_6_places_in_the_order_players_went_out(engine):
    hands = [["6S", "8C"], ["7S"], ["7C", "KD"]]
    g = engine.from_position(pos(podkidnoy(3), hands))
    play(g, "attack 6S", "defend 7S", "stop", "stop")
    assert places(g) == [0, 1, 0] and obs(g, 0)[O_N_OUT] == 1
    assert (obs(g, 2)[O_ATTACKER], obs(g, 2)[O_DEFENDER]) == (2, 0)
    play(g, "attack 7C", "defend 8C", "stop")
    assert g.result() == {"outcome": "durak", "durak": 2, "out_order": [1, 0], "bouts": 2,
                          "places": [2, 1, 3]}




@pytest.mark.parametrize("rules", [podkidnoy(3), pytest.param(podkidnoy(5), marks=SLOW),
                                   transfer(4), pytest.param(prostoy(6), marks=SLOW),
                                   full(4)], ids=lambda r: r.tag)
def test_R7_6_records_places_follow_out_order(engine, rules):
    n = rules.players
    seats = ["random", "easy"] * 3
    for deal in range(6):
        res = record_of(engine, 60, deal, seats[:n], rules)["result"]
        p, out = res["places"], res["out_order"]
        if res["outcome"] == "durak":
            assert len(out) == n - 1 and res["durak"] not in out and p[res["durak"]] == n
            assert [p[s] for s in out] == list(range(1, n))
        else:   # a draw: everyone went out; the last bout's seats share its place
            assert sorted(out) == list(range(n)) and res["durak"] is None
            last = max(p)
            tied = [s for s in out if p[s] == last]
            assert out[-len(tied):] == tied
            assert [p[s] for s in out[:-len(tied)]] == list(range(1, n - len(tied) + 1))
            assert last == n - len(tied) + 1


# ---------------------------------------------------------------- completeness
def test_every_rule_has_a_test():
    from pathlib import Path
    import re

    here = Path(__file__).parent
    names = [n for f in ("test_rules_tables.py", "test_rules_variants.py",
                         "test_rules_series.py")
             for n in re.findall(r"^def (test_\w+)", (here / f).read_text(), re.M)]
    missing = [r for r in RULE_IDS if not any(r.replace(".", "_") + "_" in n for n in names)]
    assert not missing, f"rules without a test: {missing}"


def test_every_id_of_the_rules_document_is_listed():
    from pathlib import Path
    import re

    text = (Path(__file__).parent.parent / "docs" / "rules.md").read_text()
    ids = set(re.findall(r"\*\*(R[2789]\.\d+|E\d+)\b", text))
    assert ids == set(RULE_IDS), sorted(ids ^ set(RULE_IDS))
