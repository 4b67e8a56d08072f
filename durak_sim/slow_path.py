"""What the kernel's batches do not do themselves: plain-Python strategies (played on the
reference engine, the slow path), and the diagnosis of a strategy that failed inside the
kernel (found by halving the batch, then told by the reference engine in one line)."""
from __future__ import annotations

import time

import numpy as np

from .errors import StrategyFailure, describe_failure
from .external import EngineStopped, stopping_with


def _layout():
    from .kernel import layout

    return layout


def _fill_row(row, game, res: dict) -> None:
    """A kernel result row (R_* columns) from a finished reference game and its result."""
    E = _layout()
    durak = -1 if res["durak"] is None else res["durak"]
    team = res.get("durak_team")
    team = -1 if team is None else team
    row[E.R_OUTCOME] = int(res["outcome"] == "draw")
    row[E.R_DURAK] = durak
    row[E.R_FIRST] = game.first_attacker
    row[E.R_BOUTS] = res["bouts"]
    if durak >= 0:
        left = game.hands[durak].bit_count()
    elif team >= 0:
        left = sum(h.bit_count() for s, h in enumerate(game.hands) if s & 1 == team)
    else:
        left = 0
    row[E.R_CARDS_LEFT] = left
    row[E.R_N_ACTIONS] = len(game.history)
    row[E.R_N_OUT] = len(res["out_order"])
    row[E.R_OUT:E.R_OUT + 6] = -1
    row[E.R_OUT:E.R_OUT + len(res["out_order"])] = res["out_order"]
    places = res.get("places")
    if places is None:   # two players: the first out 1, the other 2 (a draw: both 1)
        places = [1, 1] if durak < 0 else [2 if s == durak else 1 for s in range(2)]
    row[E.R_PLACES:E.R_PLACES + 6] = 0
    row[E.R_PLACES:E.R_PLACES + len(places)] = places
    row[E.R_DURAK_TEAM] = team
    row[E.R_DEALER] = game.dealer
    row[E.R_CAPPED] = int(bool(res.get("capped")))


def play_reference(strats, seed, deals, rots, n_series_deals, rules, record, stop=None):
    """The slow path: any strategy written in plain Python plays on the reference engine
    (the same games as the kernel would play: the seed contract)."""
    from .actions import pack_history
    from .play import GameBatch, IllegalStrategyAction, prepare
    from .reference import IllegalActionError, play_game
    from .seeding import deal_deck, series_streams

    E = _layout()
    compile_s = prepare(strats, kernel=False)
    per = 1 if n_series_deals is None else n_series_deals
    n = len(deals) * per
    players = rules.players
    results = np.zeros((n, E.R_COLS), np.int64)
    actions = np.zeros((n, E.MAX_ACTIONS), np.int64) if record else None
    decks = np.zeros((n, 36), np.int64) if record else None
    t = time.perf_counter()
    done = n
    for j in range(len(deals)):
        rot = int(rots[j])
        seated = [strats[(s + rot) % players] for s in range(players)]
        dealer = None
        for k in range(per):
            if stop is not None and stop[0]:   # stopped: the games (series) before are kept
                done = j * per
                break
            g = j * per + k
            kw = {}
            if n_series_deals is not None:
                deck_stream, seat0 = series_streams(k)
                kw = {"stream": deck_stream, "seat_stream0": seat0, "dealer": dealer,
                      "series_deal": k}
            try:
                with stopping_with(stop):
                    game = play_game(seed, int(deals[j]), seated, rules, **kw)
            except EngineStopped:   # an engine still thinking a while after a stop
                done = j * per
                break
            except IllegalActionError as exc:
                raise IllegalStrategyAction(str(exc)) from None
            except StrategyFailure as exc:
                raise StrategyFailure(str(exc)) from None   # one line: the cause is in it
            res = game.result()
            _fill_row(results[g], game, res)
            if record:
                for i, (code, seat, target) in enumerate(game.history):
                    actions[g, i] = pack_history(code, seat, target)
                decks[g] = deal_deck(seed, int(deals[j]), kw.get("stream", 0))
            if n_series_deals is not None:
                dealer = _next_dealer(res, game.dealer, rules)
        if done < n:
            break
    series_deal = None if n_series_deals is None else np.tile(np.arange(per), len(deals))
    batch = GameBatch(seed, rules, list(strats),
                      np.asarray(deals if n_series_deals is None else np.repeat(deals, per)),
                      np.asarray(rots if n_series_deals is None else np.repeat(rots, per)),
                      results, actions, decks, time.perf_counter() - t, compile_s,
                      {"backend": "reference"}, series_deal)
    return batch.head(done) if done < n else batch


def _next_dealer(res: dict, dealer: int, rules) -> int:
    """R9.1: the Durak deals next; with teams the losing team's member seated first after
    the dealer; after a draw the same dealer."""
    if res["durak"] is not None:
        return res["durak"]
    team = res.get("durak_team")
    if team is not None:
        k = dealer
        for _ in range(rules.players):
            k = (k + 1) % rules.players
            if k & 1 == team:
                return k
    return dealer


def find_failure(call, strats, deals, rots, exc) -> Exception:
    """The error of a kernel call that a strategy broke: the first failing game (or series)
    found by halving the batch (the games are the same whatever the batch), then told by the
    reference engine, which calls the same ``decide`` from Python and sees its exception."""
    from .kernel.threads import get_threads, set_threads

    # one thread: an exception raised in a worker thread of a parallel call can be seen
    # again by that thread's next call, which would make the search below point elsewhere
    threads = get_threads()
    set_threads(1)
    try:
        return _find_failure(call, strats, deals, rots, exc)
    finally:
        set_threads(threads)


def _find_failure(call, strats, deals, rots, exc) -> Exception:
    from .reference import play_game

    E = _layout()
    per = call.series_deals or 1

    def fails(lo: int, hi: int) -> bool:
        res = np.zeros(((hi - lo) * per, E.R_COLS), np.int64)
        try:
            call.run(deals[lo:hi], rots[lo:hi], 1, res, None, None, np.zeros(1, np.int64))
        except Exception:  # noqa: BLE001 - what is being looked for
            return True
        return False

    lo, hi = 0, len(deals)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fails(lo, mid):
            hi = mid
        else:
            lo = mid
    rules = call.rules
    n = rules.players
    seated = [strats[(s + int(rots[lo])) % n] for s in range(n)]
    try:
        if call.series_deals is None:
            play_game(call.seed, int(deals[lo]), seated, rules)
        else:
            play_reference(seated, call.seed, deals[lo:lo + 1], np.zeros(1, np.int64),
                           call.series_deals, rules, False)
    except StrategyFailure as found:
        return found
    names = ", ".join(s.name for s in seated)
    return StrategyFailure(f"a strategy failed in the kernel at seed {call.seed} deal "
                           f"{int(deals[lo])} (seats: {names}): {describe_failure(exc)}")


def check_errors(batch) -> None:
    """One line naming the strategy, seat, seed and deal of the first game that went wrong."""
    from .play import IllegalStrategyAction

    E = _layout()
    bad = np.flatnonzero(batch.results[:, E.R_ERROR])
    if not len(bad):
        return
    g = int(bad[0])
    row = batch.results[g]
    seat = int(row[E.R_ERROR_SEAT])
    where = f"at seed {batch.seed} deal {int(batch.deals[g])}"
    if batch.series_deal is not None:
        where = f"at seed {batch.seed} series {int(batch.deals[g])} deal " \
                f"{int(batch.series_deal[g])}"
    if row[E.R_ERROR] == E.ERR_ILLEGAL:
        name = batch.seat_names(g)[seat]
        raise IllegalStrategyAction(
            f"strategy {name!r} (seat {seat}) returned illegal action "
            f"{int(row[E.R_ERROR_ACTION])} {where}")
    raise IllegalStrategyAction(f"game too long (> {E.MAX_ACTIONS} actions) {where}: an "
                                f"engine error, please report it")
