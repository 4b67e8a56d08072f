"""Rulesets and helpers of the per-rule positions of the larger tables
(``test_rules_tables``, ``test_rules_variants``, ``test_rules_series``): positions in the
``durak-sim/position/1`` format, actions by their record notation, the deal worked out by
hand from the seed contract (R2.3's first attacker also for ``test_rules``).
"""
import pytest

from durak_sim import seeding
from durak_sim.actions import DEFEND, action_str
from durak_sim.cards import cards_mask
from durak_sim.kernel.game import KernelGame
from durak_sim.observation import O_HAND, O_PLACES, O_PLAYERS, O_UNBEATEN
from durak_sim.rules import Rules


MASK64 = (1 << 64) - 1

#: each line-up at a table size of its own compiles a batch player; the default run keeps
#: the sizes other tests compile anyway, the rest are slow tests
SLOW = pytest.mark.slow


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


#: four hands for the throw-in and partnership positions (seat 0 attacks, seat 1 defends)
ALL_FOUR = [["KD"], ["AC", "QH"], ["7C", "JD"], ["9D", "JS"]]


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
