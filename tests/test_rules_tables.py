"""Hand-built positions for every rule of docs/rules.md beyond the two-player default game:
the deal at every table (R2), more than two players (R7), the variants (R8), series (R9) and
how the engines ask for actions (E1-E13). Every test name carries the id it pins (``R7_3``,
``E4``); ``test_every_rule_has_a_test`` keeps it that way. The expected values are read off
docs/rules.md (and docs/position.md, docs/observation.md for the formats), never copied from
an engine; every test runs on both engines through the ``engine`` fixture.
"""
import random
import sys

import numpy as np
import pytest

from durak_sim import seeding
from durak_sim.actions import (
    DEFEND, DEFEND_AT, STOP, action_str, defend_at, unpack_history,
)
from durak_sim.cards import SUITS, card_str, cards_mask, parse_card
from durak_sim.kernel.game import KernelGame
from durak_sim.observation import (
    O_ATTACKER, O_BOUT_LIMIT, O_BOUTS, O_DEALER, O_DEFENDER, O_DISCARD, O_ELIGIBLE, O_FIRST,
    O_HAND, O_HAND_SIZES, O_HAND_TARGET, O_KNOWN, O_N_ATTACKS, O_N_OUT, O_N_UNBEATEN,
    O_PHASE, O_PLACES, O_PLAYERS, O_RULES, O_SEEN, O_STOCK, O_TABLE_ATTACKS,
    O_TABLE_DEFENCES, O_TAKING, O_TEAM, O_TO_MOVE, O_TRUMP_CARD, O_TRUMP_SUIT, O_UNBEATEN,
    PHASE_ATTACK, PHASE_DEFEND, PHASE_LEAD, PHASE_OPEN, PHASE_SWAP,
)
from durak_sim.records import actions_from_record
from durak_sim.rules import (
    FLAG_LEAD_MULTIPLE, FLAG_NEIGHBOURS, FLAG_PROSTOY, FLAG_SWAP, FLAG_TEAMS, FLAG_TRANSFER,
    Rules,
)

RULE_IDS = [
    "R2.1", "R2.2", "R2.3", "R2.4",
    "R7.1", "R7.2", "R7.3", "R7.4", "R7.5", "R7.6",
    "R8.1", "R8.2", "R8.3", "R8.4", "R8.5",
    "R9.1", "R9.2",
    "E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", "E10", "E11", "E12", "E13",
]

MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------- rulesets used below
def podkidnoy(n, **opts):
    return Rules(players=n, **opts)


def transfer(n, **opts):
    return Rules(variant="perevodnoy", players=n, **opts)


def prostoy(n):
    return Rules(variant="prostoy", players=n)


def teams(n, **opts):
    return Rules(variant="teams", players=n, **opts)


def multi(n, **opts):
    return Rules(players=n, lead_multiple=True, **opts)


def full(n):
    return Rules(variant="podkidnoy-full", players=n)


# ---------------------------------------------------------------- helpers
def pos(rules, hands, trump="H", stock=(), attacker=0, table=(), taking=False,
        bout_limit=None, **extra):
    """A ``durak-sim/position/1`` dict (docs/position.md); ``extra``: the larger-table
    fields (``out``, ``defender``, ``asked``, ``lead``, ``swap``, ``known``, ...)."""
    d = {"format": "durak-sim/position/1", "rules": rules.to_dict(), "trump": trump,
         "hands": [list(h) for h in hands], "stock": list(stock), "attacker": attacker,
         "table": [list(p) for p in table], "taking": taking, "bout_limit": bout_limit}
    d.update(extra)
    return d


def legal(game):
    """The legal actions in record notation, in code order (a defence of the one unbeaten
    card without its target, one of several unbeaten cards with it, E5)."""
    return [action_str(a) for a in game.legal_actions()]


def _code(game, text):
    """The legal code whose record notation is ``text`` (``defend C`` or ``defend C T``)."""
    target = int(game.observation(game.to_move())[O_UNBEATEN])
    for code in game.legal_actions():
        names = {action_str(code)}
        if DEFEND <= code < DEFEND + 36 and target >= 0:
            names.add(action_str(code, target))
        if text in names:
            return code
    raise AssertionError(f"{text!r} is not legal for seat {game.to_move()}: {legal(game)}")


def play(game, *actions):
    for text in actions:
        game.apply(_code(game, text))
    return game


def mask(*cards):
    return cards_mask(cards)


def hand(game, seat):
    return int(game.observation(seat)[O_HAND])


def obs(game, seat=0):
    return game.observation(seat)


def seats_mask(*seats):
    return sum(1 << s for s in seats)


def history_text(game, start=0):
    """``[(seat, record notation)]`` of the history from ``start``."""
    out = []
    for code, seat, target in game.history[start:]:
        out.append((int(seat), action_str(int(code), int(target))))
    return out


def places(game):
    o = obs(game, 0)
    return [int(o[O_PLACES + s]) for s in range(int(o[O_PLAYERS]))]


def lowest_trump_holder(hands, trump_suit):
    """R2.3 by hand: the seat holding the lowest trump (card ids are rank * 4 + suit)."""
    best = None
    for s, h in enumerate(hands):
        for c in h:
            if c % 4 == trump_suit and (best is None or c < best[0]):
                best = (c, s)
    return 0 if best is None else best[1]


def dealt(seed, deal, players, hand_size=6, stream=0, dealer=None):
    """R2.1, R2.2, R9.1 by hand from the shuffled deck (the seed contract): the hands (card
    k to seat (dealer + 1 + k) mod players), the stock in draw order and the face-up card."""
    deck = seeding.deal_deck(seed, deal, stream)
    if dealer is None:
        dealer = players - 1
    n = players * hand_size
    hands = [[] for _ in range(players)]
    for k in range(n):
        hands[(dealer + 1 + k) % players].append(deck[k])
    if n == 36:
        return hands, [], deck[35]
    return hands, deck[n + 1:] + [deck[n]], deck[n]


def record_of(engine, seed, deal, seats, rules):
    """The game record of one deal played by ``engine``'s player (the kernel's batch player,
    or the reference engine's ``play``)."""
    if engine is KernelGame:
        from durak_sim.replay import replay_deal

        return replay_deal(seed, deal, seats, rules)
    from durak_sim.reference import play as reference_play

    return reference_play(seed, deal, seats, rules)


def series_records(engine, seed, j, deals, seats, rules):
    """The records of series ``j`` (``deals`` deals) played by ``engine``'s player."""
    if engine is KernelGame:
        from durak_sim.play import play_series

        batch = play_series(seats, seed=seed, series=[j], deals=deals, rules=rules, threads=1,
                            record=True)
        return list(batch.records())
    from durak_sim.reference import play_series as reference_series

    return list(reference_series(seed, j, deals, seats, rules))


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


ALL_FOUR = [["KD"], ["AC", "QH"], ["7C", "JD"], ["9D", "JS"]]


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


#: each line-up at a table size of its own compiles a batch player; the default run keeps
#: the sizes other tests compile anyway, the rest are slow tests
SLOW = pytest.mark.slow


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


# ======================================================================== R9 series, E13
def next_dealer(prev, rules):
    """R9.1 by hand: who deals after the deal of record ``prev``."""
    n = rules.players
    res = prev["result"]
    before = prev.get("dealer", n - 1)
    if res["outcome"] == "draw":
        return before                               # the previous dealer deals again
    if rules.teams:                                 # the losing team's first seat after him
        return next(s for s in ((before + i) % n for i in range(1, n + 1))
                    if s % 2 == res["durak_team"])
    return res["durak"]


def series_stream(k):
    return (-8 * (k + 1)) & MASK64


def check_series(recs, rules, seed, j):
    """R9.1 and E13's deck streams for the records of series ``j``; returns how many deals
    followed a draw."""
    n, hs = rules.players, rules.hand_size
    after_draw = 0
    for k, rec in enumerate(recs):
        assert rec["series"] == {"series": j, "deal": k}
        assert Rules.from_dict(rec["rules"]) == rules and rec["deal"] == j
        if k == 0:
            dealer = None                          # dealt as R2.1 says: the last seat
            assert "dealer" not in rec
        else:
            dealer = next_dealer(recs[k - 1], rules)
            assert rec.get("dealer", n - 1) == dealer, (j, k)
            after_draw += recs[k - 1]["result"]["outcome"] == "draw"
        hands, stock, up = dealt(seed, j, n, hs, stream=series_stream(k), dealer=dealer)
        assert rec["hands"] == [[card_str(c) for c in h] for h in hands], (j, k)
        assert rec["stock"] == [card_str(c) for c in stock] and rec["trump"] == card_str(up)
        if k == 0:                                 # R2.3
            assert rec["first_attacker"] == lowest_trump_holder(hands, up % 4)
        else:                                      # the seat after the dealer
            assert rec["first_attacker"] == (dealer + 1) % n
    return after_draw


SERIES_TABLES = [prostoy(2), prostoy(3), podkidnoy(3), teams(4), teams(6), transfer(5)]


@pytest.mark.parametrize("rules", [r if r.players == 3 else pytest.param(r, marks=SLOW)
                                   for r in SERIES_TABLES], ids=lambda r: r.tag)
def test_R9_1_E13_the_durak_deals_next(engine, rules):
    seats = ["random", "easy"] * 3
    draws = 0
    for j in range(12):
        recs = series_records(engine, 93, j, 5, seats[:rules.players], rules)
        assert len(recs) == 5
        draws += check_series(recs, rules, 93, j)
    if rules.prostoy:   # draws are common enough there to be sure to see one
        assert draws >= 1, "no deal after a draw: widen the search"


def test_R9_1_the_durak_deals_and_the_seat_after_him_attacks(engine):
    """A series deal dealt by seat 1 of three: card k goes to seat (2 + k) mod 3, seat 1
    gets the last card dealt, seat 2 attacks first whoever holds the lowest trump."""
    rules = podkidnoy(3)
    hands, stock, up = dealt(5, 2, 3, stream=series_stream(1), dealer=1)
    g = engine.new(5, 2, rules, stream=series_stream(1), dealer=1)
    assert "swap" not in legal(engine.new(5, 2, full(3), stream=series_stream(1), dealer=1))
    deck = seeding.deal_deck(5, 2, series_stream(1))
    assert hands[2][0] == deck[0] and hands[1][-1] == deck[17]
    for s in range(3):
        assert hand(g, s) == cards_mask(hands[s])
    o = obs(g, 2)
    assert o[O_DEALER] == 1 and o[O_FIRST] == 2 and o[O_ATTACKER] == 2 and g.to_move() == 2
    assert o[O_TRUMP_CARD] == up


def test_R9_2_score_first_out_plus_one_durak_minus_one(engine):
    rules = podkidnoy(3)
    seats = ["random", "easy", "random"]
    score = {"random": 0, "easy": 0}
    lost = [0, 0, 0]
    recs = []
    for j in range(8):
        recs += series_records(engine, 94, j, 4, seats, rules)
    assert len(recs) == 32                       # a fixed number of deals a series
    for rec in recs:
        res = rec["result"]
        p = res["places"]
        if res["outcome"] == "durak":
            lost[res["durak"]] += 1
            score[seats[res["durak"]]] -= 1
            score[seats[res["out_order"][0]]] += 1
            assert p[res["out_order"][0]] == 1
        elif p.count(1) == 1:                    # a draw among the last: the first out scores
            score[seats[p.index(1)]] += 1
    assert sum(lost) == sum(r["result"]["outcome"] == "durak" for r in recs)
    if engine is KernelGame:
        from durak_sim.play import play_series
        from durak_sim.table_match import count_places

        batch = play_series(seats, seed=94, series=range(8), deals=4, rules=rules, threads=1)
        counts = count_places(batch, ["random", "easy"])
        assert counts.score.tolist() == [score["random"], score["easy"]]
        assert counts.seat_durak.tolist() == lost


def test_R9_2_teams_lose_together(engine):
    """Every member of the losing team is a Durak of the deal (E11): it scores -1, even a
    member that went out first (+1, so 0 in all); the first out scores +1 (E13)."""
    rules = teams(4)
    seats = ["random", "easy", "random", "easy"]
    recs = []
    for j in range(10):
        recs += series_records(engine, 95, j, 3, seats, rules)
    score = {"random": 0, "easy": 0}
    first_of_losers = 0
    for rec in recs:
        res = rec["result"]
        p = res["places"]
        assert res["durak"] is None
        if p.count(1) == 1:
            score[seats[p.index(1)]] += 1
        if res["outcome"] == "durak":
            t = res["durak_team"]
            # the other team is out; the losing team's seats still holding cards are last
            assert all(s in res["out_order"] for s in range(1 - t, 4, 2))
            holding = [s for s in range(t, 4, 2) if s not in res["out_order"]]
            assert holding and all(res["places"][s] == max(res["places"]) for s in holding)
            for s in range(t, 4, 2):
                score[seats[s]] -= 1
            first_of_losers += p.count(1) == 1 and p.index(1) % 2 == t
    assert first_of_losers      # (the case the rule settles happens in these deals)
    if engine is KernelGame:
        from durak_sim.play import play_series
        from durak_sim.table_match import count_places

        batch = play_series(seats, seed=95, series=range(10), deals=3, rules=rules, threads=1)
        counts = count_places(batch, ["random", "easy"])
        team_lost = [sum(r["result"].get("durak_team") == t for r in recs) for t in (0, 1)]
        assert counts.team_lost.tolist() == team_lost
        assert counts.score.tolist() == [score["random"], score["easy"]]


# ======================================================================== E1 forced actions
def replay_with_random(game, rec, stream_of):
    """Walk ``rec`` on ``game`` with the ``random`` strategy in every seat, seat ``s``
    drawing from stream ``stream_of(s)``: it must choose every recorded action where the
    seat had a choice, and must not have been asked where it had none (E1: else its stream
    would have moved on and the later choices would differ). Returns the number of forced
    actions in the record."""
    from durak_sim.reference import hist_for_strategy, legal_array
    from durak_sim.registry import get_strategy

    strat = get_strategy("random")
    n = len(rec["seats"])
    rngs = [np.array([stream_of(s)], dtype=np.uint64) for s in range(n)]
    mems = [np.array([1], dtype=np.int64) for _ in range(n)]
    forced = 0
    for i, (code, seat, target) in enumerate(actions_from_record(rec)):
        assert game.to_move() == seat, i
        codes = game.legal_actions()
        want = code if code in codes else defend_at(code - DEFEND, target)
        if len(codes) == 1:        # played by the engine, recorded all the same
            forced += 1
            assert codes == [want], f"action {i}"
        else:
            chosen = int(strat.decide(game.observation(seat), legal_array(codes),
                                      hist_for_strategy(game), rngs[seat], mems[seat]))
            assert chosen == want, f"action {i}"
        game.apply(want)
    assert game.is_over() and game.result() == rec["result"]
    return forced


@pytest.mark.parametrize("rules", [podkidnoy(3), transfer(4), prostoy(3), teams(4), full(3)],
                         ids=lambda r: r.tag)
def test_E1_forced_actions_are_played_without_asking_and_recorded(engine, rules):
    n = rules.players
    forced = 0
    for deal in range(4):
        rec = record_of(engine, 96, deal, ["random"] * n, rules)
        g = engine.new(96, deal, rules)
        forced += replay_with_random(g, rec, lambda s: seeding.stream_start(96, deal, 1 + s))
    assert forced > 0


def test_E13_series_seat_streams(engine):
    rules = podkidnoy(4)
    for j in (0, 3):
        recs = series_records(engine, 97, j, 3, ["random"] * 4, rules)
        for k, rec in enumerate(recs):
            dealer = None if k == 0 else rec.get("dealer", 3)
            g = engine.new(97, j, rules, stream=series_stream(k), dealer=dealer)
            replay_with_random(g, rec, lambda s: seeding.stream_start(
                97, j, (-8 * (k + 1) - 1 - s) & MASK64))


# ======================================================================== E2-E12
def test_E2_a_seat_that_can_throw_in_nothing_is_still_asked(engine):
    hands = [["KD", "QC"], ["9S", "AH"], ["JD"]]
    g = engine.from_position(pos(podkidnoy(3), hands, table=[["7S", "8S"]]))
    play(g, "stop")
    assert g.to_move() == 2 and legal(g) == ["stop"]      # no 7 or 8: asked all the same
    play(g, "stop")
    assert history_text(g) == [(0, "stop"), (2, "stop")] and obs(g, 1)[O_BOUTS] == 1


def test_E2_position_asked_mid_round(engine):
    """docs/position.md ``asked``: the seat asked now; every eligible seat before it in
    this round has stopped."""
    hands = [["8C", "QC"], ["TD", "AC"], ["KD"], ["JC", "AH", "7H"]]
    g = engine.from_position(pos(podkidnoy(4), hands, attacker=2, table=[["8S", "TS"]],
                                 asked=1))
    assert g.to_move() == 1 and obs(g, 1)[O_TO_MOVE] == 1
    assert legal(g) == ["attack TD", "stop"]
    play(g, "stop")                     # the last of the round: the bout ends
    o = obs(g, 3)
    assert o[O_BOUTS] == 1 and (o[O_ATTACKER], o[O_DEFENDER]) == (3, 0)


def test_E4_position_in_the_lead_phase(engine):
    g = engine.from_position(pos(multi(2), [["7C", "7D", "KC"], ["8S", "9C", "AD", "TH"]],
                                 table=[["7S", None]], lead=True))
    o = obs(g, 0)
    assert g.to_move() == 0 and o[O_PHASE] == PHASE_LEAD and o[O_BOUT_LIMIT] == 4
    assert legal(g) == ["attack 7C", "attack 7D", "done"]
    play(g, "done")
    assert g.to_move() == 1 and legal(g) == ["defend 8S", "defend TH", "take"]


def test_E5_several_unbeaten_any_order_take_at_any_step_throw_ins_wait(engine):
    hands = [["7S", "7C", "9D"], ["8S", "8C", "AH"], ["9C", "8D"]]
    g = engine.from_position(pos(multi(3), hands))
    play(g, "attack 7S", "attack 7C", "defend 8C 7C")   # no third 7: the lead ends (E4)
    # one card is still unbeaten: nobody is asked to throw in yet
    assert g.to_move() == 1 and obs(g, 1)[O_PHASE] == PHASE_DEFEND
    assert legal(g) == ["defend 8S", "defend AH", "take"]
    play(g, "take")
    assert g.to_move() == 0 and legal(g) == ["stop"]
    play(g, "stop")
    assert g.to_move() == 2 and legal(g) == ["attack 8D", "stop"]
    play(g, "attack 8D", "stop", "stop")     # limit 3 reached; a new round, both stop
    assert hand(g, 1) == mask("8S", "AH", "7S", "7C", "8C", "8D")
    assert (obs(g, 2)[O_ATTACKER], obs(g, 2)[O_DEFENDER]) == (2, 0)


def test_E9_drawing_main_attacker_then_seat_order_defender_last(engine):
    hands = [["6C", "AD"], ["9D"], ["6S", "TD", "JD"], ["7S", "QD", "KD"]]
    stock = ["8C", "JC", "QC", "AS", "9S", "KS", "TS", "8S", "QS", "7H"]
    g = engine.from_position(pos(podkidnoy(4), hands, attacker=2, stock=stock, trump="7H"))
    play(g, "attack 6S", "defend 7S", "stop", "attack 6C")
    assert legal(g) == ["take"]
    play(g, "take", "stop", "stop", "stop")
    assert hand(g, 2) == mask("TD", "JD", "8C", "JC", "QC", "AS")
    assert hand(g, 0) == mask("AD", "9S", "KS", "TS", "8S", "QS")
    assert hand(g, 1) == mask("9D", "7H")
    assert hand(g, 3) == mask("QD", "KD", "6S", "7S", "6C")     # nothing left for him
    o = obs(g, 0)
    assert int(o[O_KNOWN + 1]) == mask("7H") and int(o[O_KNOWN + 3]) == mask("6S", "7S", "6C")
    assert o[O_STOCK] == 0 and (o[O_ATTACKER], o[O_DEFENDER]) == (0, 1)


ALL_TABLES = [Rules(variant=v, players=n) for v in
              ("podkidnoy", "perevodnoy", "prostoy", "podkidnoy-full") for n in range(2, 7)] + \
    [teams(4), teams(6)]


@pytest.mark.parametrize("rules", ALL_TABLES, ids=lambda r: r.tag)
def test_E12_no_deal_comes_near_the_cap(engine, rules):
    rng = random.Random(rules.players)
    for deal in range(3):
        g = engine.new(98, deal, rules)
        n = 0
        while not g.is_over():
            g.apply(rng.choice(g.legal_actions()))
            n += 1
        assert n < 1024 and len(g.history) == n


def test_E12_an_engine_stops_at_4096_actions(engine):
    from durak_sim.reference import IllegalActionError

    g = engine.new(12, 34, podkidnoy(3))
    code = g.legal_actions()[0]
    if engine is KernelGame:
        from durak_sim.kernel import layout

        assert layout.MAX_ACTIONS == 4096
        g.st[layout.S_NHIST] = layout.MAX_ACTIONS
    else:
        g.history.extend([(STOP, 0, -1)] * (4096 - len(g.history)))
    with pytest.raises(Exception) as exc:
        g.apply(code)
    assert "seed 12" in str(exc.value) and "deal 34" in str(exc.value)
    assert isinstance(exc.value, (IllegalActionError, RuntimeError, ValueError))


def test_E12_a_deal_going_round_for_ever_ends_as_a_draw_at_the_cap(engine):
    """Six ``easy`` players pass cards round by takes without end in deal 1063 of seed 3:
    the bout that ends with 3,000 actions or more played ends the deal, a draw among the
    seats still active, which share the next place."""
    from durak_sim.reference import play_game

    rules = podkidnoy(6)
    if engine is KernelGame:
        from durak_sim.play import play_games

        res = next(play_games(["easy"] * 6, seed=3, deals=[1063], swap=False, rules=rules,
                              threads=1, record=True).records())["result"]
    else:
        game = play_game(3, 1063, ["easy"] * 6, rules)
        res = game.result()
        assert 3000 <= len(game.history) < 3100
    assert res["capped"] is True and res["outcome"] == "draw" and res["durak"] is None
    assert res["out_order"] == [4, 1, 3]
    assert res["places"] == [4, 2, 4, 3, 1, 4]   # the three still active share place 4


# ---------------------------------------------------------------- completeness
def test_every_rule_has_a_test():
    names = [n for n in dir(sys.modules[__name__]) if n.startswith("test_")]
    missing = [r for r in RULE_IDS if not any(r.replace(".", "_") + "_" in n for n in names)]
    assert not missing, f"rules without a test: {missing}"


def test_every_id_of_the_rules_document_is_listed():
    from pathlib import Path
    import re

    text = (Path(__file__).parent.parent / "docs" / "rules.md").read_text()
    ids = set(re.findall(r"\*\*(R[2789]\.\d+|E\d+)\b", text))
    assert ids == set(RULE_IDS), sorted(ids ^ set(RULE_IDS))
