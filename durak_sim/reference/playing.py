"""Playing deals on the reference engine: strategies in the seats (``play_game``, ``play``,
``play_series``), records replayed card by card (``replay``), perft counts.

>>> rec = play(1, 0, ["random", "easy"])
>>> rec["seats"], replay(rec) == rec["result"]
(['random', 'easy'], True)
>>> recs = play_series(3, 0, 3, ["easy", "random", "easy"], Rules(players=3))
>>> [r["series"]["deal"] for r in recs], all(replay(r) == r["result"] for r in recs)
([0, 1, 2], True)
>>> perft(ReferenceGame.new(42, 7), 1)
6
"""
from __future__ import annotations

import json

import numpy as np

from .. import seeding
from ..actions import DEFEND, LEGAL_SIZE, action_str, defend_at, is_defend
from ..cards import N_CARDS, card_str, parse_card
from ..errors import StrategyFailure, describe_failure, game_at
from ..observation import PHASE_DEFEND
from ..rules import Rules
from .core import IllegalActionError, RecordError
from .game import ReferenceGame


def _resolve(strategy):
    if isinstance(strategy, str):
        from ..registry import get_strategy
        return get_strategy(strategy)
    return strategy


def hist_for_strategy(game) -> np.ndarray:
    """The history array a strategy gets: never empty (a zero entry when nothing happened)."""
    hist = np.ascontiguousarray(game.history_array(), dtype=np.int64)
    return hist if len(hist) else np.zeros(1, dtype=np.int64)


def legal_array(codes: list[int]) -> np.ndarray:
    """``int64[LEGAL_SIZE]``: ``[n, codes..., 0...]`` (``durak_sim.actions``)."""
    legal = np.zeros(LEGAL_SIZE, dtype=np.int64)
    legal[0] = len(codes)
    legal[1:1 + len(codes)] = codes
    return legal


def seat_inputs(seed: int, deal: int, strategies: list, stamp: int = 1,
                seat_stream0: int | None = None) -> tuple[list, list]:
    """Each seat's random stream and zeroed workspace with the game ``stamp`` in word 0
    (observation.py contract), as the kernel hands them over. Seat *s*'s stream is stream
    ``1 + s`` of the deal, or in a series ``seat_stream0 - s`` (E13, ``seeding``)."""
    def stream(s: int) -> int:
        if seat_stream0 is None:
            return 1 + s
        return (seat_stream0 - s) & seeding.MASK64

    rngs = [np.array([seeding.stream_start(seed, deal, stream(s))], dtype=np.uint64)
            for s in range(len(strategies))]
    mems = []
    for strat in strategies:
        mem = np.zeros(strat.memory, dtype=np.int64)
        mem[0] = stamp
        mems.append(mem)
    return rngs, mems


def decisions(game):
    """The deal's decision points: plays each forced action (the only legal one) itself, as
    the engine does (E1), and yields ``(seat, codes)`` whenever the seat to move has a
    choice. The caller applies one of ``codes`` before asking for the next."""
    while not game.is_over():
        codes = game.legal_actions()
        if len(codes) == 1:
            game.apply(codes[0])
            continue
        yield game.to_move(), codes


def play_game(seed: int, deal: int, strategies: list, rules: Rules = Rules(), *,
              stream: int = 0, seat_stream0: int | None = None,
              dealer: int | None = None, series_deal: int | None = None) -> ReferenceGame:
    """Play deal ``deal`` of ``seed`` with one strategy per seat; return the finished game.

    ``strategies``: registry ``Strategy`` objects (or names, or anything with ``name``,
    ``decide``, ``memory``, ``reset``). A single legal action is played without asking (E1).
    ``stream``, ``seat_stream0``, ``dealer``: a deal of a series (E13, R9.1; ``seeding``);
    ``series_deal``: its number in the series (``deal`` the series'), for error lines.
    """
    strats = [_resolve(s) for s in strategies]
    if len(strats) != rules.players:
        raise ValueError(f"need {rules.players} strategies, got {len(strats)}")
    game = ReferenceGame.new(seed, deal, rules, stream=stream, dealer=dealer)
    rngs, mems = seat_inputs(seed, deal, strats, seat_stream0=seat_stream0)
    for seat, codes in decisions(game):
        strat = strats[seat]
        where = f"strategy {strat.name!r} (seat {seat})"
        at = game_at(seed, deal, series_deal)
        try:
            code = strat.decide(game.observation(seat), legal_array(codes),
                                hist_for_strategy(game), rngs[seat], mems[seat])
        except StrategyFailure as exc:           # (an external engine's, in its own words)
            raise StrategyFailure(exc.one_line(where, at)) from exc
        except (Exception, SystemExit) as exc:   # a plugin's error is its own, told in one line
            raise StrategyFailure(f"{where} {describe_failure(exc)} {at}") from exc
        if isinstance(code, (bool, float)) or not isinstance(code, (int, np.integer)):
            raise StrategyFailure(f"{where} returned {code!r}, not an action code {at}")
        code = int(code)
        if code not in codes:
            raise IllegalActionError(f"{where} returned illegal action {code} {at}")
        game.apply(code)
    game.seat_names = [s.name for s in strats]
    return game


def _record(game, seed, deal, series=None) -> dict:
    from ..records import make_record

    return make_record(game.rules, seed, deal, game.seat_names, game.hands_dealt,
                       game.stock_dealt, game.first_attacker, game.history, game.result(),
                       trump=game.face_up, dealer=game.dealer, series=series)


def play(seed: int, deal: int, strategies: list, rules: Rules = Rules()) -> dict:
    """Play deal ``deal`` of ``seed`` (see ``play_game``); return its game record."""
    return _record(play_game(seed, deal, strategies, rules), seed, deal)


def next_dealer(result: dict, dealer: int, players: int) -> int:
    """R9.1: the Durak deals next; after a draw the same dealer; with teams the losing
    team's member seated first after the previous dealer."""
    if result["durak"] is not None:
        return result["durak"]
    team = result.get("durak_team")
    if team is not None:
        return next(s for s in [(dealer + k) % players for k in range(1, players + 1)]
                    if s & 1 == team)
    return dealer


def play_series(seed: int, j: int, k_deals: int, strategies: list,
                rules: Rules = Rules()) -> list[dict]:
    """The ``k_deals`` records of series ``j`` of ``seed`` (R9, E13): deal *k* uses deal
    index ``j``, the deck stream and seat streams of ``seeding.series_streams(k)``, the
    dealer moving by R9.1 (deal 0 is a first deal: R2.1, R2.3, the swap of E8)."""
    records, dealer = [], None
    for k in range(k_deals):
        deck_stream, seat0 = seeding.series_streams(k)
        game = play_game(seed, j, strategies, rules, stream=deck_stream, seat_stream0=seat0,
                         dealer=dealer, series_deal=k)
        records.append(_record(game, seed, j, series={"series": j, "deal": k}))
        dealer = next_dealer(game.result(), game.dealer, rules.players)
    return records


def replay(record: dict) -> dict:
    """Replay a game record card by card from its hands and stock; return its result.

    Checks the deal (36 cards once, hands of the ruleset's size, the face-up card, the
    dealer), the first attacker (R2.3, or R9.1 in a later deal of a series), that every
    action is the right seat's and legal (a defence's target unbeaten), and the result.
    Raises RecordError with a one-line message.
    """
    from ..records import actions_from_record, validate_record

    rec = validate_record(record)
    try:
        rules = Rules.from_dict(rec["rules"])
    except ValueError as exc:
        raise RecordError(f"record rules: {exc}") from None
    n = rules.players
    hands = [[parse_card(c) for c in h] for h in rec["hands"]]
    stock = [parse_card(c) for c in rec["stock"]]
    if len(hands) != n:
        raise RecordError(f"record rules say {n} players but it has {len(hands)} hands")
    if sorted([c for h in hands for c in h] + stock) != list(range(N_CARDS)):
        raise RecordError("hands and stock do not hold the 36 cards once each (R1.1)")
    if any(len(h) != rules.hand_size for h in hands):
        raise RecordError(f"every hand must be dealt {rules.hand_size} cards (R2.1)")
    dealer = _record_dealer(rec, n)
    last_dealt = n - 1 if dealer is None else dealer
    face_up = stock[-1] if stock else hands[last_dealt][-1]
    if card_str(face_up) != rec["trump"]:
        where = "last stock card" if stock else "last card dealt"
        raise RecordError(f"trump {rec['trump']} is not the {where} {card_str(face_up)} (R2.2)")
    game = ReferenceGame.from_deal(hands, stock, rules, rec["seed"], rec["deal"],
                                   face_up=face_up, dealer=dealer)
    if rec["first_attacker"] != game.first_attacker:
        rule = "R2.3" if dealer is None else "R9.1"
        raise RecordError(f"first_attacker {rec['first_attacker']} but {rule} gives seat "
                          f"{game.first_attacker}")
    for i, (code, seat, target) in enumerate(actions_from_record(rec)):
        what = action_str(code, target)
        if game.is_over():
            raise RecordError(f"action {i} ({what}): the deal is already over")
        if seat != game.to_move():
            raise RecordError(f"action {i} ({what}): seat {seat} acted but seat "
                              f"{game.to_move()} is to move")
        if is_defend(code) and game.phase == PHASE_DEFEND:
            unbeaten = game.unbeaten()
            if target not in unbeaten:
                raise RecordError(f"action {i} ({what}): {card_str(target)} is not an unbeaten "
                                  f"attack card (the unbeaten: "
                                  f"{' '.join(card_str(c) for c in unbeaten)})")
            if len(unbeaten) > 1:  # E5: the engine's code names the target
                code = defend_at(code - DEFEND, target)
        if code not in game.legal_actions():
            raise RecordError(f"action {i} ({what}) by seat {seat} is illegal")
        game.apply(code)
    if not game.is_over():
        raise RecordError(f"the actions end before the deal does (after {len(rec['actions'])})")
    result = game.result()
    if result != rec["result"]:
        raise RecordError(f"record result {json.dumps(rec['result'])} but the replay gives "
                          f"{json.dumps(result)}")
    return result


def _record_dealer(rec: dict, n: int) -> int | None:
    """The dealer of a record's deal: None for a first deal (R2.1), a seat for a later deal
    of a series (R9.1; ``dealer`` is written only when it is not the last seat)."""
    series = rec.get("series")
    if series is not None:
        if not isinstance(series, dict) or any(
                not isinstance(series.get(k), int) or isinstance(series.get(k), bool)
                or series[k] < 0 for k in ("series", "deal")):
            raise RecordError("series must be {\"series\": j, \"deal\": k} (E13)")
    later = series is not None and series["deal"] > 0
    if "dealer" in rec:
        if not later:
            raise RecordError("dealer is written only for a later deal of a series (R9.1)")
        return rec["dealer"]
    return n - 1 if later else None


# ---------------------------------------------------------------------- perft
def perft(game, depth: int) -> int:
    """Leaf nodes exactly ``depth`` plies below ``game`` (every decision is a ply, forced ones
    too; a deal that ends sooner contributes 0, as in chess perft). Works on any engine with
    ``copy``, ``legal_actions``, ``apply``, ``is_over``."""
    if depth == 0:
        return 1
    if game.is_over():
        return 0
    actions = game.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for code in actions:
        child = game.copy()
        child.apply(code)
        total += perft(child, depth - 1)
    return total


def divide(game, depth: int) -> dict[str, int]:
    """``perft(child, depth - 1)`` per root action, keyed by record notation
    (``attack 7D``, ``defend 9D 7D``, ``take``, ``stop``)."""
    from ..observation import O_UNBEATEN

    out = {}
    if depth < 1 or game.is_over():
        return out
    target = int(game.observation()[O_UNBEATEN])
    for code in game.legal_actions():
        child = game.copy()
        child.apply(code)
        out[action_str(code, target if DEFEND <= code < DEFEND + 36 else -1)] = \
            perft(child, depth - 1)
    return out
