"""Hand-built positions for series of deals (R9) and how the engines ask for actions (E1-E13)
at the larger tables. Every test name carries the id it pins. The expected values are read
off docs/rules.md (and docs/position.md, docs/observation.md for the formats), never copied
from an engine; every test runs on both engines through the ``engine`` fixture (helpers:
``table_rules``).
"""
import random

import numpy as np
import pytest

from durak_sim import seeding
from durak_sim.actions import DEFEND, STOP, defend_at
from durak_sim.cards import card_str, cards_mask
from durak_sim.kernel.game import KernelGame
from durak_sim.observation import (
    O_ATTACKER, O_BOUTS, O_BOUT_LIMIT, O_DEALER, O_DEFENDER, O_FIRST, O_KNOWN, O_PHASE,
    O_STOCK, O_TO_MOVE, O_TRUMP_CARD, PHASE_DEFEND, PHASE_LEAD,
)
from durak_sim.records import actions_from_record
from durak_sim.rules import Rules
from table_rules import (
    MASK64, SLOW, dealt, full, hand, history_text, legal, lowest_trump_holder, mask, multi,
    obs, play, podkidnoy, pos, prostoy, record_of, series_records, teams, transfer,
)


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


def test_R9_1_R2_2_a_later_six_by_six_deal_turns_up_the_dealers_last_card(engine):
    """Six players, no stock: in a later deal the dealer (not seat 5) gets the last card
    dealt, which is face up, stays in his hand and is known there; the seat after him
    attacks."""
    for dealer in (0, 2, 4):
        hands, stock, up = dealt(11, 3, 6, stream=series_stream(1), dealer=dealer)
        g = engine.new(11, 3, podkidnoy(6), stream=series_stream(1), dealer=dealer)
        o = obs(g, 0)
        assert len(stock) == 0 and o[O_STOCK] == 0
        assert up == hands[dealer][-1] and o[O_TRUMP_CARD] == up
        assert hand(g, dealer) == cards_mask(hands[dealer]) and o[O_KNOWN + dealer] == 1 << up
        first = (dealer + 1) % 6
        assert o[O_FIRST] == o[O_ATTACKER] == first and g.to_move() == first


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
