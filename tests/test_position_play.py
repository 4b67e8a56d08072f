"""Which positions ``durak-sim solve`` reads (``durak_sim.position_play``): exactly those some
play reaches. Checked against the reference engine: every bout position it reaches from small
deals is read, and every random table that is read is one it reaches; then the cases the rules
exclude, one by one."""
import itertools
import json
import random

import pytest

from durak_sim.errors import UserError
from durak_sim.position import Position
from durak_sim.position_file import load_positions
from durak_sim.reference import ReferenceGame, endgame_position
from durak_sim.rules import Rules

FMT = "durak-sim/position/1"
POOL = ["7S", "7C", "7D", "7H", "8S", "8C", "8D"]   # four of a rank: transfer chains of 4
VARIANTS = {
    "podkidnoy": None,
    "perevodnoy": {"variant": "perevodnoy", "players": 2},
    "lead_multiple": {"variant": "podkidnoy", "players": 2, "lead_multiple": True},
    "both": {"variant": "perevodnoy", "players": 2, "lead_multiple": True},
}


def _key(hands, attacker, table, taking, lead):
    return (tuple(hands), attacker, tuple(table), bool(taking), bool(lead))


def _reached(rules) -> set:
    """Every mid-bout position of the two seats reached from every deal of POOL (stock
    empty), as keys of card-id masks."""
    from durak_sim.observation import PHASE_LEAD

    reach = set()
    for assign in itertools.product((0, 1, 2), repeat=len(POOL)):
        hands = [[c for c, a in zip(POOL, assign) if a == s] for s in (0, 1)]
        if not hands[0] or not hands[1]:
            continue
        for attacker in (0, 1):
            pos = {"format": FMT, "trump": "D", "hands": hands, "stock": [],
                   "attacker": attacker}
            if rules:
                pos["rules"] = rules
            stack = [ReferenceGame.from_position(pos)]
            while stack:
                g = stack.pop()
                for a in g.legal_actions():
                    c = g.copy()
                    c.apply(a)
                    if c.is_over() or not c.table:
                        continue
                    k = _key(c.hands, c.attacker, ((x, -1 if y is None or y < 0 else y)
                                                   for x, y in c.table),
                             c.taking, c.phase == PHASE_LEAD)
                    if k not in reach:
                        reach.add(k)
                        stack.append(c)
    return reach


def _pkey(p: Position):
    return _key(p.hands, p.attacker, p.table, p.taking, p.lead)


def _random_table(rng: random.Random, rules) -> dict:
    cards = POOL[:]
    rng.shuffle(cards)
    table, i = [], 0
    for _ in range(rng.randint(1, 3)):
        a = cards[i]
        i += 1
        d = None
        if rng.random() < 0.5:
            d, i = cards[i], i + 1
        table.append([a, d])
    rest = cards[i:]
    n0 = rng.randint(0, len(rest))
    n1 = rng.randint(0, len(rest) - n0)
    pos = {"format": FMT, "trump": "D", "hands": [rest[:n0], rest[n0:n0 + n1]], "stock": [],
           "attacker": rng.randint(0, 1), "table": table, "taking": rng.random() < 0.3}
    if rules:
        pos["rules"] = rules
        if rng.random() < 0.3:
            pos["lead"] = True
    return pos


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_bout_is_read_exactly_when_some_play_reaches_it(name):
    rules = VARIANTS[name]
    reach = _reached(rules)
    rng = random.Random(2026)
    # no false refusal: a sample of the reached positions is read
    for hands, attacker, table, taking, lead in rng.sample(sorted(reach), 1500):
        pos = {"format": FMT, "trump": "D", "stock": [], "attacker": attacker,
               "hands": [[_s(c) for c in _cards(h)] for h in hands],
               "table": [[_s(a), None if d < 0 else _s(d)] for a, d in table],
               "taking": taking}
        if rules:
            pos["rules"] = rules
            pos["lead"] = lead
        Position.from_dict(pos)
    # no false acceptance: a random table that is read is reached
    read = 0
    for _ in range(4000):
        try:
            p = Position.from_dict(_random_table(rng, rules))
        except UserError:
            continue
        read += 1
        assert _pkey(p) in reach
    assert read > 250


def _cards(mask: int) -> list[int]:
    from durak_sim.cards import mask_cards

    return mask_cards(mask)


def _s(card: int) -> str:
    from durak_sim.cards import card_str

    return card_str(card)


def test_every_position_of_played_deals_is_read():
    """Whole deals (the stock full at first) at two players, each ruleset the solver plays:
    every state's position is read."""
    n = 0
    for rules in (Rules(), Rules(variant="perevodnoy"), Rules(lead_multiple=True),
                  Rules(variant="perevodnoy", lead_multiple=True)):
        for deal in range(6):
            for g in _states(2026, deal, rules):
                Position.from_dict(endgame_position(g))
                n += 1
    assert n > 1000


def _states(seed: int, deal: int, rules: Rules):
    """Every state of a random play of the deal, the finished one included."""
    g = ReferenceGame.new(seed, deal, rules)
    rng = random.Random(seed * 1000 + deal)
    while not g.is_over():
        yield g
        g = g.copy()
        g.apply(rng.choice(g.legal_actions()))
    yield g


def test_a_finished_deal_as_the_engine_leaves_it_is_read():
    """The seats that went out at the end are in ``out`` (E11): the last two seats are read
    as the finished deal, its value the result."""
    n = 0
    for rules in (Rules(variant="perevodnoy"), Rules(lead_multiple=True),
                  Rules(players=3), Rules(variant="perevodnoy", players=4)):
        for deal in range(8):
            *_, g = _states(7, deal, rules)
            p = Position.from_dict(endgame_position(g))
            result = g.result()
            assert p.is_over() and len(p.out) == rules.players - 2
            if result["outcome"] == "draw":
                assert p.result() == 0
            else:
                assert p.seats[0 if p.result() == -1 else 1] == result["durak"]
            n += 1
    assert n == 32


def _pos(hands, table, attacker=0, rules=VARIANTS["perevodnoy"], **more):
    d = {"format": FMT, "trump": "D", "stock": [], "attacker": attacker, "hands": hands,
         "table": table, **more}
    if rules:
        d["rules"] = rules
    return d


REFUSED = {
    # E2, E5: throw-ins wait until every attack card is beaten
    "throw-in while a transferred card is unbeaten":
        (_pos([["6S"], ["8S", "TS", "JS"]], [["7S", None], ["7C", "9C"], ["9S", None]]),
         "9S was thrown in while 7S is unbeaten"),
    "throw-in while a lead card is unbeaten":
        (_pos([["6S"], ["8S", "TS", "JS"]], [["7S", None], ["7C", "9C"], ["9S", None]],
              rules=VARIANTS["lead_multiple"]), "9S was thrown in while 7S is unbeaten"),
    # R3.5: nobody answers a card thrown in to a taker
    "a card thrown in after the take is beaten":
        (_pos([["6S"], ["TS"]], [["7S", "8S"], ["8C", None], ["7C", "9C"]], taking=True),
         "beats a card thrown in after the defender took"),
    # R8.2: each transfer needs the new defender to hold as many cards as the attacks
    "three transferred sevens, the attacker's hand empty":
        (_pos([[], ["7H", "8S", "9S"]], [["7S", None], ["7C", None], ["7D", None]]),
         "a transfer needs him to hold at least as many"),
    "four transferred sevens, one card left":
        (_pos([["6S"], ["8S", "9S", "TS", "JS"]],
              [["7S", None], ["7C", None], ["7D", None], ["7H", None]]),
         "a transfer needs him to hold at least as many"),
    "a transfer chain at a larger table":
        (_pos([[], [], ["8S", "TS", "JS"]], [["7S", None], ["7C", None], ["7D", None]],
              rules={"variant": "perevodnoy", "players": 3}, out=[1]),
         "a transfer needs him to hold at least as many"),
    # E4: the attacker is asked for more of a lead only while it may grow
    "a lead without a card of its rank":
        (_pos([["7C"], ["8C"]], [["7S", None]], attacker=1, lead=True,
              rules=VARIANTS["lead_multiple"]), "the attacker holds no card of its rank"),
    "a lead at the bout limit":
        (_pos([["8C"], ["7C", "7H"]], [["7S", None]], attacker=1, lead=True,
              rules=VARIANTS["lead_multiple"]), "it is at the bout limit 1"),
    # R3.4, R8.1: a lead no longer than the defender's hand at the opening
    "a lead longer than the defender held":
        (_pos([["6S"], ["8C"]], [["7S", None], ["7C", None]], attacker=1,
              rules=VARIANTS["lead_multiple"]), "2 attacks exceed the bout limit 1"),
    # R4.1: with a stock, every hand was refilled to six at the start of the bout
    "small hands with a stock":
        (_pos([["6S"], ["7S"]], [], stock=["8D"], rules=None),
         "seat 0 held 1 card at the start of the bout while the stock holds cards"),
    "small hands with a stock, the transfer game":
        (_pos([["6S"], ["7S"]], [], stock=["8D"]),
         "seat 0 held 1 card at the start of the bout while the stock holds cards"),
    "a hand short of six mid-bout with a stock":
        (_pos([["6S", "6C", "6H", "9S"], ["9C", "TS", "JS", "QS", "KS", "AS"]],
              [["7S", "8S"]], stock=["8D"], rules=None),
         "seat 0 held 5 cards when the bout opened"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_an_unreachable_bout_is_refused_in_one_line(name):
    d, says = REFUSED[name]
    with pytest.raises(UserError, match=says) as e:
        Position.from_dict(d)
    assert "\n" not in str(e.value)


def test_the_same_hands_are_read_when_a_play_reaches_them():
    """The refused cases' neighbours: a take before the throw-ins, a transfer chain the
    hands allow, a lead that may grow, full hands with a stock."""
    Position.from_dict(_pos([[], ["8S", "9S", "TS"]],
                            [["7S", None], ["7C", None], ["7D", None]], taking=True))
    Position.from_dict(_pos([["6S"], ["7H", "8S", "9S"]],
                            [["7S", None], ["7C", None], ["7D", None]]))
    p = Position.from_dict(_pos([["8C", "9C"], ["7C", "7H"]], [["7S", None]], attacker=1,
                                lead=True, rules=VARIANTS["lead_multiple"]))
    assert p.phase == "lead"
    Position.from_dict(_pos([["6S", "6C", "6H", "9S", "9C"],
                             ["TS", "JS", "QS", "KS", "AS"]], [["7S", "8S"]],
                            stock=["8D"], rules=None))


@pytest.mark.parametrize("rules", [None, VARIANTS["perevodnoy"], VARIANTS["lead_multiple"]])
def test_a_finished_deal_is_read_in_every_game(rules):
    for hands, value in (([[], []], 0), ([["6S"], []], -1), ([[], ["6S"]], 1)):
        p = Position.from_dict(_pos(hands, [], rules=rules))
        assert p.is_over() and p.result() == value
        if rules:   # the seat out written in ``out``, as the engine leaves it
            gone = [s for s in (0, 1) if not hands[s]]
            q = Position.from_dict(_pos(hands, [], rules=rules, out=gone))
            assert q.is_over() and q.result() == value and q.out == ()


def test_finished_deals_of_larger_tables_and_teams():
    three = {"variant": "podkidnoy", "players": 3}
    p = Position.from_dict(_pos([[], ["6S", "7S"], []], [], attacker=2, rules=three,
                                out=[2, 0]))
    assert (p.seats, p.out, p.result()) == ((0, 1), (2,), 1)
    p = Position.from_dict(_pos([[], [], []], [], attacker=2, rules=three, out=[2, 0, 1]))
    assert (p.seats, p.out, p.result()) == ((0, 1), (2,), 0)
    with pytest.raises(UserError, match="the deal is over"):   # a team out: not two seats
        Position.from_dict(_pos([["6S"], [], ["7S"], []], [], rules={"variant": "teams"},
                                out=[3, 1]))


def test_a_key_given_twice_is_refused(tmp_path):
    text = ('{"format": "durak-sim/position/1", "trump": "D", "stock": [], "attacker": 0, '
            '"attacker": 1, "hands": [["6S"], ["7S"]]}')
    with pytest.raises(UserError, match="the key 'attacker' is given twice"):
        Position.from_json(text)
    f = tmp_path / "dup.json"
    f.write_text(text + "\n")
    with pytest.raises(UserError, match="line 1: invalid JSON: the key 'attacker'"):
        load_positions(str(f))
    f.write_text(json.dumps(json.loads(text), indent=1).replace('"attacker": 1',
                                                                '"attacker": 1, "stock": []'))
    with pytest.raises(UserError, match="the key 'stock' is given twice"):
        load_positions(str(f))


def test_solve_any_position_reads_what_no_deal_reaches(tmp_path):
    """The refusal names the way round it; --any-position takes the position as it is."""
    from cli_errors import assert_one_line_error, invoke

    f = tmp_path / "p.json"
    f.write_text(json.dumps(REFUSED["small hands with a stock"][0]))
    assert_one_line_error(invoke("solve", str(f)), "the refill (R4.1)",
                          "no deal reaches it (solve --any-position reads it all the same)")
    proc = invoke("solve", str(f), "--any-position", "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["best_actions"] == ["attack 6S"]


@pytest.mark.parametrize("players, hands, out", [
    (2, [["6S", "7S"], ["8S", "9C"]], [1]),
    (2, [["6S", "7S"], ["8S", "9C"]], [0, 1]),
    (3, [["6S", "7S"], ["8S", "9C"], []], [2, 1]),
])
def test_a_seat_in_out_that_holds_cards_is_refused_not_read_as_a_finished_deal(players, hands,
                                                                                out):
    """Only a finished deal (at most the Durak holds cards) is read with its last seats in
    ``out``; otherwise a seat in ``out`` with cards is refused (it was read as another
    position, its attacker changed)."""
    from durak_sim.position import Position

    d = {"format": "durak-sim/position/1", "trump": "D", "stock": [], "attacker": 1,
         "hands": hands, "out": out, "rules": {"players": players, "hand_size": 6,
                                               "variant": "podkidnoy"}}
    with pytest.raises(ValueError, match="out"):
        Position.from_dict(d)
