"""The terminal game: a person in seat 0 against AIs in the other seats (``durak-sim play``).

The deal is dealt and played exactly as in a match (the seed contract): the AI in seat *s*
gets the random stream (seed, deal, *s*) and a fresh workspace from
``reference.seat_inputs``, is asked only when it has a choice (E1) and decides on its own
observation, so its every choice is the one it makes in a match with the same seed and
seats. The person is asked the same way: a forced action is played for them and shown.

What a person may type is :mod:`durak_sim.human_input`; the hints are
:mod:`durak_sim.hints`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from rich.markup import escape

from .actions import (DONE, KEEP, STOP, SWAP, TAKE, TRANSFER, action_card, is_attack,
                      is_defend)
from .cards import RANK_DISPLAY, mask_cards
from .observation import (O_ATTACKER, O_BOUT_LIMIT, O_BOUTS, O_DEFENDER, O_DISCARD, O_HAND,
                          O_HAND_SIZES, O_KNOWN, O_N_ATTACKS, O_PHASE, O_PLACES,
                          O_PLAYERS, O_STOCK, O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING,
                          O_TRUMP_CARD, O_TRUMP_SUIT, PHASE_ATTACK, PHASE_LEAD)
from .formatting import ordinal
from .views import action_target, table_pairs

from .hints import Adviser, endgame_position, endgame_values  # noqa: F401
from .stopping import held_interrupts
from .human_input import (ATLASNYE, COMMANDS, HELP, _role, parse_card_word,  # noqa: F401
                          parse_input, show_card)

HUMAN = "human"
#: options the intro's headline already says (the ruleset, the table, the throw-in scope)
SHOWN = ("--rules", "--players", "--throw-in")


class Quit(Exception):
    """The player typed quit (or the input ended: ``eof``)."""

    def __init__(self, eof: bool = False):
        super().__init__()
        self.eof = eof


@dataclass(frozen=True)
class HumanSeat:
    """The person's seat in ``seat_inputs``: no workspace to speak of."""

    name: str = HUMAN
    memory: int = 1
    reset: int = 1


# ---------------------------------------------------------------------- the screen
class Screen:
    """How cards and lines are shown: ``rich`` colours on a terminal that has them (red
    hearts and diamonds, black suits in the terminal's own colour, trumps bold and
    underlined), plain text otherwise."""

    def __init__(self, console, ranks=RANK_DISPLAY):
        self.console = console
        self.ranks = ranks
        self.trump_suit = -1

    def card(self, card: int) -> str:
        text = show_card(card, self.ranks)
        # black suits in the terminal's own colour: readable on a dark or a light background
        style = ["red"] if card & 3 in (2, 3) else []
        if card & 3 == self.trump_suit:
            style += ["bold", "underline"]
        return f"[{' '.join(style)}]{text}[/]" if style else text

    def cards(self, cards, none="-") -> str:
        cards = list(cards)
        return " ".join(self.card(c) for c in cards) if cards else none

    def order(self, card: int) -> tuple:
        """Where a card sorts in a hand: by suit and rank, trumps last."""
        return (card & 3 == self.trump_suit, card & 3, card >> 2)

    def hand(self, mask: int) -> str:
        """A hand sorted by suit and rank, trumps last."""
        return self.cards(sorted(mask_cards(mask), key=self.order))

    def move_order(self, obs, codes: list[int]) -> list[int]:
        """The legal moves as the list shows them: the card moves in the hand's order (a
        card's targets by the table's order), then the swap, and take, stop or done last.

        >>> from durak_sim.cards import card_str, parse_card
        >>> s = Screen(None); s.trump_suit = parse_card("6C") & 3     # clubs are trumps
        >>> order = s.move_order(None, [TAKE, parse_card("6C"), parse_card("KH")])
        >>> [card_str(c) if c != TAKE else "take" for c in order]
        ['KH', '6C', 'take']
        """
        def key(code):
            if code in (TAKE, STOP, DONE, SWAP, KEEP):
                return (1, code in (TAKE, STOP, DONE), code)
            target = action_target(obs, code) if is_defend(code) else 99  # transfer last
            return (0, *self.order(action_card(code)), target, code)

        return sorted(codes, key=key)

    def say(self, text: str = "", whole: bool = False) -> None:
        """Print a line; ``whole``: never broken at the terminal's width (a command or a
        path to copy, which a line break would cut in two)."""
        if whole:
            self.console.print(text, soft_wrap=True)
        else:
            self.console.print(text)


# ---------------------------------------------------------------------- the game
def new_game(engine: str, seed: int, deal: int, rules, stream: int = 0,
             dealer: int | None = None):
    """A game at its start on the reference engine or on the kernel (the same deal and
    rules; ``KernelGame`` and ``ReferenceGame`` have one interface); ``stream`` and
    ``dealer`` a later deal of a series (R9.1, E13)."""
    if engine == "kernel":
        from .kernel.game import KernelGame

        return KernelGame.new(seed, deal, rules, stream=stream, dealer=dealer)
    from .reference import ReferenceGame

    return ReferenceGame.new(seed, deal, rules, stream=stream, dealer=dealer)


@dataclass(frozen=True)
class SeriesDeal:
    """Deal ``k`` (from 0) of a series of ``n`` deals (R9) whose number is the session's
    ``deal``; ``dealer`` None for its first deal (R2.1, R2.3), else the seat that deals."""
    k: int
    n: int
    dealer: int | None = None


class PlaySession:
    """One deal with a person in seat 0. ``read(prompt)`` reads a line (raises EOFError at
    the end of the input); ``ais`` the strategies of seats 1..n-1; ``series`` a
    :class:`SeriesDeal` when the deal is one of a series (``deal`` then numbers the series),
    dealt and seeded as ``durak-sim series`` deals it."""

    def __init__(self, seed: int, deal: int, rules, ais: list, screen: Screen, read,
                 pace: float = 0.6, hint: bool = False, engine: str = "reference",
                 sleep=time.sleep, advisor=None, series: SeriesDeal | None = None):
        from .reference import seat_inputs
        from .seeding import series_streams

        self.seed, self.deal, self.rules, self.series = seed, deal, rules, series
        stream, seat0 = series_streams(series.k) if series is not None else (0, None)
        self.game = new_game(engine, seed, deal, rules, stream,
                             series.dealer if series is not None else None)
        self.seats = [HumanSeat(), *ais]
        self.names = [HUMAN] + [s.name for s in ais]
        self.rngs, self.mems = seat_inputs(seed, deal, self.seats, seat_stream0=seat0)
        self.screen, self.read = screen, read
        self.pace, self.auto_hint, self.sleep = pace, hint, sleep
        self.screen.trump_suit = int(self.game.observation(0)[O_TRUMP_SUIT])
        self.adviser = Adviser(advisor)   # (advisor None: the strongest level of the table)
        self._took = False
        self._full_told = None   # (bout, attacks) whose full bout was told
        self.quit = False

    # -- who is who ---------------------------------------------------------------------
    def who(self, seat: int) -> str:
        """``you``, ``seat 1 (hard)``; a partner in a teams game is marked as one. (As the
        screen's markup: an engine's path may hold brackets.)"""
        if seat == 0:
            return "you"
        partner = ", your partner" if self.rules.teams and seat % 2 == 0 else ""
        return f"seat {seat} ({escape(self.names[seat])}{partner})"

    def _verb(self, seat: int, verb: str) -> str:
        """``you take`` / ``seat 1 (hard) takes``."""
        if seat == 0:
            return f"you {verb}"
        irregular = {"beat": "beats", "pass": "passes"}
        return f"{self.who(seat)} {irregular.get(verb, verb + 's')}"

    def at(self) -> str:
        """``at seed 1 deal 4`` (in a series ``at seed 1 series 4 deal 2``), as replay takes it."""
        from .errors import game_at

        return game_at(self.seed, self.deal, self.series.k if self.series else None)

    # -- the play -----------------------------------------------------------------------
    def run(self) -> None:
        """Play until the deal is over (or ``Quit`` / KeyboardInterrupt propagates)."""
        g = self.game
        self.intro()
        while not g.is_over():
            seat = g.to_move()
            codes = g.legal_actions()
            if len(codes) == 1:
                code = codes[0]
                if seat != 0:
                    self.sleep(self.pace)
                self.apply(seat, code, forced=True)
                continue
            if seat == 0:
                code = self.ask(codes)
            else:
                self.sleep(self.pace)
                code = self.decide(seat, codes)
            self.apply(seat, code)

    def decide(self, seat: int, codes: list[int]) -> int:
        """The AI's choice, exactly as ``reference.play_game`` asks it."""
        from .errors import StrategyFailure, describe_failure
        from .reference import hist_for_strategy, legal_array

        strat = self.seats[seat]
        g = self.game
        where = f"strategy {strat.name!r} (seat {seat})"
        at = self.at()
        try:
            code = strat.decide(g.observation(seat), legal_array(codes), hist_for_strategy(g),
                                self.rngs[seat], self.mems[seat])
        except StrategyFailure as exc:           # (an external engine's, in its own words)
            raise StrategyFailure(exc.one_line(where, at)) from None
        except (Exception, SystemExit) as exc:
            raise StrategyFailure(f"{where} {describe_failure(exc)} {at}") from None
        if int(code) not in codes:
            raise StrategyFailure(f"{where} returned illegal action {int(code)} {at}")
        return int(code)

    def ask(self, codes: list[int]) -> int:
        obs = self.game.observation(0)
        codes = self.screen.move_order(obs, codes)
        self.show_state(obs, codes)
        if self.auto_hint:
            self.show_hint(obs, codes)
        while True:
            try:
                line = self.read("your move> ")
            except EOFError:
                raise Quit(eof=True) from None
            p = parse_input(line, obs, codes, self.screen.ranks)
            if p.kind == "action":
                return p.code
            if p.kind == "choose":
                code = self.choose(p.options, obs)
                if isinstance(code, str):   # a command typed at which>
                    self._command(code, obs, codes)
                elif code is not None:
                    return code
            elif p.kind in ("quit", "help", "hint", "show", "empty"):
                self._command(p.kind, obs, codes)
            else:
                self.screen.say(f"[yellow]{p.message}[/]")

    def _command(self, kind: str, obs, codes) -> None:
        """``quit``, ``help``, ``hint`` or ``show`` (``empty``: an empty line)."""
        if kind == "quit":
            raise Quit()
        if kind == "help":
            self.screen.say(HELP)
        elif kind == "hint":
            self.show_hint(obs, codes)
        else:
            self.show_state(obs, codes)

    def choose(self, options: list[int], obs) -> int | str | None:
        """Which of several moves with one card (several targets, or defend / transfer), or
        of the defences of one attack card (it was typed); a command's name (``quit``,
        ``help``, ``hint``, ``show``) when one is typed."""
        s = self.screen
        card = action_card(options[0])
        head = f"{s.card(card)} can" if all(action_card(c) == card for c in options) else \
            f"{s.card(action_target(obs, options[0]))} can be beaten"
        s.say(f"{head}: " + "   ".join(
            f"{k} {self.label(obs, c)}" for k, c in enumerate(options, 1)))
        try:
            line = self.read("which> ").strip()
        except EOFError:
            raise Quit(eof=True) from None
        if line.isascii() and line.isdigit() and 1 <= int(line) <= len(options):
            return options[int(line) - 1]
        if COMMANDS.get(line.lower()) is not None:
            return COMMANDS[line.lower()]
        typed = parse_card_word(line)
        hits = [c for c in options if typed is not None and action_target(obs, c) == typed]
        if len(hits) != 1:   # (the defences of one card: the card to beat with)
            hits = [c for c in options if typed is not None and action_card(c) == typed]
        if len(hits) == 1:
            return hits[0]
        if line.lower() in ("transfer", "tr"):
            hits = [c for c in options if TRANSFER <= c < DONE]
            if hits:
                return hits[0]
        s.say("[yellow]not one of those: choose your move again[/]")
        return None

    # -- showing --------------------------------------------------------------------------
    def label(self, obs, code: int) -> str:
        """A legal move in words, for the numbered list."""
        s = self.screen
        phase = int(obs[O_PHASE])
        if code == TAKE:
            return "take"
        if code == STOP:
            return "stop"
        if code == DONE:
            return "done (end the lead)"
        if code == SWAP:
            return f"swap the trump six for {s.card(int(obs[O_TRUMP_CARD]))}"
        if code == KEEP:
            return "keep the trump six"
        card = s.card(action_card(code))
        if is_attack(code):
            return {PHASE_ATTACK: f"throw in {card}", PHASE_LEAD: f"add {card}"}.get(
                phase, f"attack with {card}")
        if is_defend(code):
            return f"beat {s.card(action_target(obs, code))} with {card}"
        return f"transfer with {card}"

    def intro(self) -> None:
        s, g = self.screen, self.game
        obs = g.observation(0)
        seats = ", ".join(f"seat {k} {n}" for k, n in enumerate(self.names))
        # the options beyond the ruleset's own, as typed (their values do not start with --)
        flags = [a for a in self.rules.cli_args() if a.startswith("--") and a not in SHOWN]
        sr = self.series
        where = f"deal {self.deal}" if sr is None else \
            f"series {self.deal} deal {sr.k} ({ordinal(sr.k + 1)} of {sr.n})" + \
            ("" if sr.dealer is None else f", dealt by {self.who(sr.dealer)}")
        s.say(f"[bold]durak-sim play[/]: seed {self.seed} {where}, "
              f"{self.rules.headline()}" + (f" ({' '.join(flags)})" if flags else "")
              + f"; you are seat 0 ({seats})")
        if self.rules.teams:
            s.say("teams: seats " + ", ".join(map(str, range(0, self.rules.players, 2)))
                  + " (yours) against " + ", ".join(map(str, range(1, self.rules.players, 2))))
        s.say(f"trump {s.card(int(obs[O_TRUMP_CARD]))}; {self.who(g.first_attacker)} "
              f"{'attack' if g.first_attacker == 0 else 'attacks'} first"
              + (f" (the seat after the dealer, {self.who(sr.dealer)}: R9.1)"
                 if sr is not None and sr.dealer is not None
                 else " (nobody holds a trump: seat 0, R2.3)" if not self._trump_held() else
                 " (lowest trump, R2.3)"))
        s.say("type help for the keys")

    def _trump_held(self) -> bool:
        suit = self.screen.trump_suit
        return any(c & 3 == suit for h in self.game.hands_dealt for c in h)

    def show_state(self, obs, codes) -> None:
        s = self.screen
        n = int(obs[O_PLAYERS])
        att, dfd = int(obs[O_ATTACKER]), int(obs[O_DEFENDER])
        places = [int(obs[O_PLACES + k]) for k in range(n)]
        s.say("")
        s.say(f"[bold]-- bout {int(obs[O_BOUTS]) + 1}: {self.who(att)} "
              f"{'attack' if att == 0 else 'attacks'} {'you' if dfd == 0 else self.who(dfd)} --[/]")
        trump = int(obs[O_TRUMP_CARD])
        stock = int(obs[O_STOCK])
        under = " (face up under the stock)" if stock else ""
        s.say(f"trump {s.card(trump)}{under}   stock {stock}   discard "
              f"{int(obs[O_DISCARD]).bit_count()}")
        for k in range(1, n):
            if places[k]:
                s.say(f"  {self.who(k)}: out, place {places[k]}")
                continue
            known = int(obs[O_KNOWN + k])
            role = ", attacker" if k == att else ", defender" if k == dfd else ""
            held = int(obs[O_HAND_SIZES + k])
            s.say(f"  {self.who(k)}{role}: {held} card{'' if held == 1 else 's'}"
                  + (f", known: {s.hand(known)}" if known else ""))
        pairs = table_pairs(obs)
        table = "   ".join(f"{s.card(a)} / {s.card(d) if d >= 0 else '-'}" for a, d in pairs)
        s.say(f"table: {table or 'empty'}" + ("   (the defender takes)" if int(obs[O_TAKING]) else ""))
        s.say(f"your hand: {s.hand(int(obs[O_HAND]))}")
        s.say(f"your move, {_role(obs)}: " + "   ".join(
            f"[bold]{k}[/] {self.label(obs, c)}" for k, c in enumerate(codes, 1)))

    def apply(self, seat: int, code: int, forced: bool = False) -> None:
        """Play ``code`` for ``seat`` and tell it (and the bout's end, the drawing, who went
        out)."""
        s, g = self.screen, self.game
        before = g.observation(0)
        seat_obs = g.observation(seat)
        phase = int(seat_obs[O_PHASE])
        target = action_target(seat_obs, code)
        with held_interrupts():   # Ctrl-C waits for the action: the record stays whole
            g.apply(code)
        told = self._describe(seat, code, phase, target, seat_obs, forced)
        if told is not None:
            s.say(told)
        if code == TAKE:
            self._took = True
        after = g.observation(0)
        if g.is_over() or int(after[O_BOUTS]) != int(before[O_BOUTS]):
            self._bout_over(seat, code, before, after)

    def _describe(self, seat, code, phase, target, obs, forced) -> str | None:
        s = self.screen
        only = " (the only move)" if forced else ""
        card = action_card(code)
        if is_attack(code):
            if phase == PHASE_ATTACK:
                text = self._verb(seat, "throw") + f" in {s.card(card)}"
            elif phase == PHASE_LEAD:
                text = self._verb(seat, "add") + f" {s.card(card)} to the lead"
            else:
                dfd = int(obs[O_DEFENDER])
                text = self._verb(seat, "attack") + \
                    f" {'you' if dfd == 0 else self.who(dfd)} with {s.card(card)}"
        elif is_defend(code):
            text = self._verb(seat, "beat") + f" {s.card(target)} with {s.card(card)}"
        elif TRANSFER <= code < DONE:
            text = self._verb(seat, "transfer") + f" with {s.card(card)}"
        elif code == TAKE:
            text = self._verb(seat, "take")
        elif code == STOP:
            if forced and phase == PHASE_ATTACK:
                limit = int(obs[O_BOUT_LIMIT])
                if int(obs[O_N_ATTACKS]) >= limit:   # (the limit, not the cards, stops it)
                    # once a bout: at a larger table every attacker asked stops in turn
                    full = (int(obs[O_BOUTS]), int(obs[O_N_ATTACKS]))
                    if self._full_told == full:
                        return None
                    self._full_told = full
                    return f"the bout is full: {limit} attack card{'s' if limit != 1 else ''} " \
                           f"(R3.4)"
                return ("you have" if seat == 0 else f"{self.who(seat)} has") + \
                    " nothing to throw in"
            text = self._verb(seat, "stop")
        elif code == DONE:
            text = self._verb(seat, "end") + " the lead"
        elif code == SWAP:
            text = self._verb(seat, "swap") + \
                f" the trump six for {s.card(int(obs[O_TRUMP_CARD]))}"
        else:
            text = self._verb(seat, "keep") + " the trump six"
        return text + only

    def _bout_over(self, seat, code, before, after) -> None:
        s, g = self.screen, self.game
        n = int(before[O_PLAYERS])
        dfd = int(before[O_DEFENDER])
        pairs = table_pairs(before)
        table = int(before[O_TABLE_ATTACKS]) | int(before[O_TABLE_DEFENCES])
        card = action_card(code)
        if card >= 0:
            table |= 1 << card
        if self._took:
            picked = int(after[O_KNOWN + dfd]) & table if dfd != 0 else int(after[O_HAND]) & table
            s.say(f"   {'you pick' if dfd == 0 else self.who(dfd) + ' picks'} up "
                  f"{s.cards(sorted(mask_cards(picked)))}")
        elif pairs or card >= 0:
            s.say("   bout beaten off: the table goes to the discard pile")
        self._took = False
        drew = []
        for k in range(n):
            size0 = int(before[O_HAND_SIZES + k]) - (1 if k == seat and card >= 0 else 0)
            picked = 0
            if k == dfd:
                mine = int(after[O_HAND]) if k == 0 else int(after[O_KNOWN + k])
                picked = (mine & table).bit_count()
            got = int(after[O_HAND_SIZES + k]) - size0 - picked
            if got > 0:
                drew.append((k, got))
        if drew:   # in drawing order (E9): the main attacker, the others after him, the
            # defender last
            att = int(before[O_ATTACKER])
            drew.sort(key=lambda kg: n if kg[0] == dfd else (kg[0] - att) % n)
            new = int(after[O_HAND]) & ~int(before[O_HAND]) & ~table
            parts = [f"{self.who(k)} +{got}" + (f" ({s.cards(sorted(mask_cards(new)))})"
                                                  if k == 0 and new else "")
                     for k, got in drew]
            s.say(f"   drawing: {', '.join(parts)}; stock {int(after[O_STOCK])}")
        gone = set(g.result()["out_order"]) if g.is_over() else set(range(n))
        for k in range(n):   # (the last places of a deal's end are not going out)
            if int(after[O_PLACES + k]) and not int(before[O_PLACES + k]) and k in gone:
                s.say(f"   {self.who(k)} {'are' if k == 0 else 'is'} out (place "
                      f"{int(after[O_PLACES + k])})")

    # -- hints -----------------------------------------------------------------------------
    def show_hint(self, obs, codes) -> None:
        for line in self.hint_lines(obs, codes):   # (markup: the cards' colours)
            self.screen.say(f"[cyan]{line}[/]")

    def hint_lines(self, obs, codes) -> list[str]:
        """The advice at seat 0's move (``hints.Adviser``)."""
        return self.adviser.lines(self, obs, codes)

    # -- the end ---------------------------------------------------------------------------
    def result_lines(self) -> list[str]:
        g = self.game
        res = g.result()
        n = self.rules.players
        lines = []
        if self.rules.teams:
            t = res.get("durak_team")
            if t is None:
                lines.append(f"a draw after {res['bouts']} bouts")
            else:
                lines.append(f"your team {'wins' if t == 1 else 'loses'} after "
                             f"{res['bouts']} bouts (team {t}, seats "
                             f"{', '.join(map(str, range(t, n, 2)))}, is the Durak)")
        elif res["outcome"] == "draw":
            lines.append(f"a draw after {res['bouts']} bouts")
        elif res["durak"] == 0:
            lines.append(f"you are the Durak after {res['bouts']} bouts")
        else:
            lines.append(("you win" if n == 2 else f"{self.who(res['durak'])} is the Durak")
                         + f" after {res['bouts']} bouts")
        if res.get("capped"):
            lines[0] += " (the cap on play ended it: E12, durak-sim docs rules)"
        if "places" in res:
            by_place = sorted(enumerate(res["places"]), key=lambda kp: (kp[1], kp[0]))
            lines.append("places: " + ", ".join(f"{p} {self.who(k)}" for k, p in by_place))
        return lines

    def stopped_lines(self, what: str) -> list[str]:
        """Where a game stopped midway: ``you quit after 12 actions``; the result when the
        stop came with the deal's last move (Ctrl-C waits for a move, then stops)."""
        if self.game.is_over():
            return [f"[bold]{line}[/]" for line in self.result_lines()]
        n = len(self.game.history)
        return ["", f"[bold]{what}[/] after {n} action{'' if n == 1 else 's'}"]

    def dealt_lines(self) -> list[str]:
        s = self.screen
        g = self.game
        of = "" if self.series is None else f" (deal {self.series.k} of the series)"
        lines = [f"the hands as dealt{of}:"]
        width = max(10, *map(len, self.names))
        for k, hand in enumerate(g.hands_dealt):
            lines.append(f"  seat {k} {escape(self.names[k]):<{width}} "
                         f"{s.hand(sum(1 << c for c in hand))}")
        return lines

    def records(self) -> list[dict]:
        """``[record()]`` (a series' ``records`` has one a deal)."""
        return [self.record()]

    def record(self) -> dict:
        """The game record (``durak-sim/record/1``); an unfinished game's has ``"result":
        null`` and ``"unfinished": true``."""
        from .records import make_record

        g = self.game
        over = g.is_over()
        res = g.result() if over else {"outcome": "draw", "durak": None, "out_order": [],
                                       "bouts": 0}
        rec = make_record(self.rules, self.seed, self.deal, self.names, g.hands_dealt,
                          g.stock_dealt, g.first_attacker, g.history, res, trump=g.face_up,
                          dealer=g.dealer, series=None if self.series is None else
                          {"series": self.deal, "deal": self.series.k})
        if not over:
            rec["result"] = None
            rec["unfinished"] = True
        return rec


__all__ = ["PlaySession", "Screen", "parse_input", "parse_card_word", "endgame_values",
           "endgame_position", "Quit", "HUMAN", "ATLASNYE", "HELP"]
