"""What a person types at ``durak-sim play``: the number of a legal action, a card (``7d``,
``10♦``, ``td``, ``В♠``), ``take``, ``stop``, ``transfer 8d``, ``done``, ``swap``,
``keep``, or a command; illegal input is explained by the rule it breaks.

>>> from durak_sim.reference import ReferenceGame
>>> g = ReferenceGame.new(42, 7)
>>> obs, codes = g.observation(), g.legal_actions()
>>> parse_input("7h", obs, codes).code, parse_input("1", obs, codes).code
(7, 7)
>>> parse_input("take", obs, codes).message
'only the defender takes; you are opening the bout: lay a card'
>>> parse_input("1 2", obs, codes).message
"one move at a time: type one move's number (1-6)"
>>> parse_input("take take", obs, codes).message
"one move at a time: type take on its own (not 'take take')"
>>> parse_input("7h 7h", obs, codes).message
'one move at a time: type 7♥ once (two cards mean the card you beat with, then the attack card)'
>>> parse_input("9" * 5000, obs, codes).message, parse_input("²", obs, codes).kind
('there is no move 999999...: choose 1-6', 'error')
>>> parse_card_word("10♦"), parse_card_word("Т♠"), parse_card_word("qh")
(18, 32, 27)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .actions import (DONE, KEEP, STOP, SWAP, TAKE, TRANSFER, action_card, is_attack,
                      is_defend)
from .cards import RANK_DISPLAY, SUIT_SYMBOLS, mask_cards
from .observation import (O_BOUT_LIMIT, O_HAND, O_N_ATTACKS, O_PHASE, O_RULES, O_STOCK,
                          O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING, PHASE_ATTACK,
                          PHASE_DEFEND, PHASE_LEAD, PHASE_OPEN, PHASE_SWAP)
from .rules import FLAG_SWAP, FLAG_TRANSFER
from .views import action_target, unbeaten_cards

#: court cards as seed 001's atlas pack prints them (R1.1): В Д К Т for J Q K A
ATLASNYE = ("6", "7", "8", "9", "10", "В", "Д", "К", "Т")
RANK_WORDS = {"6": 0, "7": 1, "8": 2, "9": 3, "10": 4, "t": 4, "j": 5, "q": 6, "k": 7,
              "a": 8, "в": 5, "д": 6, "к": 7, "т": 8}
SUIT_WORDS = {"s": 0, "c": 1, "d": 2, "h": 3, "♠": 0, "♣": 1, "♦": 2, "♥": 3, "♤": 0,
              "♧": 1, "♢": 2, "♡": 3}
VERBS = {"attack": "attack", "a": "attack", "throw": "attack", "add": "attack",
         "lead": "attack", "open": "attack", "defend": "defend", "beat": "defend",
         "cover": "defend", "b": "defend", "transfer": "transfer", "tr": "transfer"}
WORDS = {"take": TAKE, "stop": STOP, "done": DONE, "swap": SWAP, "keep": KEEP}
#: the commands, each a line of its own (the aliases: the command they are)
COMMANDS = {"help": "help", "h": "help", "?": "help", "quit": "quit", "q": "quit",
            "exit": "quit", "hint": "hint", "advice": "hint", "show": "show", "table": "show",
            "redraw": "show", "look": "show"}
FILLER = {"on", "with", "against", "onto", "over", "->", ">", "/", "-"}
HELP = """\
Keys (case does not matter):
  3            play legal move number 3 of the list
  7d  10♦  td  play that card: attack, throw in, defend or transfer, whatever is legal
               (ranks 6 7 8 9 10/t j q k a, or В Д К Т; suits s c d h or ♠ ♣ ♦ ♥)
  9d 7d        beat 7♦ with 9♦ (the target, when several cards are unbeaten; else asked);
               also as the moves are listed: beat 7d with 9d
  take  stop   pick the cards up (defender); add nothing more (attacker)
  transfer 8d  pass the attack on with 8♦ (the transfer game)
  done         end a lead of several cards;  swap / keep: the trump six (R8.5)
  hint         the adviser's move (expert's unless --advisor names another);
               once you and one other seat are left, the stock empty: every move's exact value
  show         show the table again;  help: this;  quit (or Ctrl-C): stop, keeping the record"""



@dataclass
class Parsed:
    """What a line of input asks: ``kind`` ``action`` (``code``), ``choose`` (``options``:
    the legal codes it could mean), ``error`` (``message``), or a command (``help``,
    ``hint``, ``quit``, ``show``, ``empty``)."""

    kind: str
    code: int = -1
    message: str = ""
    options: list = field(default_factory=list)


def parse_card_word(word: str) -> int | None:
    """A card from a word like ``7d``, ``10♦``, ``TD``, ``В♠`` (None if it is not one)."""
    w = word.strip().lower().replace("\ufe0f", "")
    if len(w) < 2 or w[-1] not in SUIT_WORDS or w[:-1] not in RANK_WORDS:
        return None
    return RANK_WORDS[w[:-1]] * 4 + SUIT_WORDS[w[-1]]


def show_card(card: int, ranks=RANK_DISPLAY) -> str:
    return ranks[card >> 2] + SUIT_SYMBOLS[card & 3]


def _role(obs) -> str:
    phase = int(obs[O_PHASE])
    return {PHASE_OPEN: "opening the bout", PHASE_LEAD: "laying your lead",
            PHASE_ATTACK: "attacking", PHASE_DEFEND: "defending",
            PHASE_SWAP: "deciding on the trump six"}.get(phase, "playing")


def parse_input(text: str, obs, codes: list[int], ranks=RANK_DISPLAY) -> Parsed:
    """What ``text`` asks for at the seat's decision (``obs``, legal ``codes``)."""
    raw = text.replace(",", " ").split()
    words = [w for w in raw if w.lower() not in FILLER]
    if not words:
        return Parsed("empty")
    first = words[0].lower()
    if len(words) == 1 and first in COMMANDS:
        return Parsed(COMMANDS[first])
    digits = first[1:] if first[:1] == "-" else first   # (-1: no such move, as 0 is)
    if len(words) == 1 and digits.isascii() and digits.isdecimal():   # (not "٣", "１")
        k = int(first) if len(digits) < 10 else -1
        if 1 <= k <= len(codes):
            return Parsed("action", code=codes[k - 1])
        shown = first if len(digits) < 10 else first[:6] + "..."
        return Parsed("error", message=f"there is no move {shown}: choose 1-{len(codes)}")
    if len(words) > 1 and all(w.isascii() and w.isdecimal() for w in words):
        return Parsed("error", message=f"one move at a time: type one move's number "
                                       f"(1-{len(codes)})")
    if len(words) == 1 and first in WORDS:
        code = WORDS[first]
        if code in codes:
            return Parsed("action", code=code)
        return Parsed("error", message=_why_not_word(first, obs, codes))
    alone = next((w for w in words if w.lower() in WORDS or (
        w.lower() in COMMANDS and len(w) > 1)), None)   # (not "h": "7 h" is a card, split)
    if len(words) > 1 and alone is not None:
        return Parsed("error", message=f"one move at a time: type {alone.lower()} on its own "
                                       f"(not {_echo(text)!r})")
    verb = VERBS.get(first)
    if verb is not None:
        words = words[1:]
        if verb == "transfer" and not int(obs[O_RULES]) & FLAG_TRANSFER:   # (any card)
            return Parsed("error", message="this game has no transfers (perevodnoy or "
                                           "--transfer, R8.2)")
        if not words:   # a verb alone: which card?
            if verb == "defend":
                return Parsed("error", message=f"{first} with which card? type {first} and your "
                                               f"card, like {first} 9d ({first} 7d with 9d "
                                               f"names the card to beat too), or a move's "
                                               f"number")
            return Parsed("error", message=f"{first} which card? type {first} and the card, "
                                           f"like {first} 7d, or a move's number")
    cards = [parse_card_word(w) for w in words]
    if len(words) == 2 and parse_card_word(words[0] + words[1]) is not None:
        return Parsed("error", message=f"a card is one word: type "
                                       f"{_echo(words[0] + words[1])}")
    if not words or len(words) > 2 or any(c is None for c in cards):
        bad = _echo(next((w for w, c in zip(words, cards) if c is None), text))
        return Parsed("error", message=f"I do not understand {bad!r}: type a move's number "
                                       f"(1-{len(codes)}), a card like 7d or 10♦, or help")
    if raw[-1].lower() == "with":   # "beat 7d with": the card after it is missing
        return Parsed("error", message=f"with which card? type the card after with, like "
                                       f"beat 7d with 9d")
    card = cards[0]
    target = cards[1] if len(cards) == 2 else None
    if target is not None and _with_between(raw):
        card, target = target, card   # "beat 10♠ with K♠", as the list of moves words it
    name = show_card(card, ranks)
    if target == card:
        return Parsed("error", message=f"one move at a time: type {name} once (two cards mean "
                                       f"the card you beat with, then the attack card)")
    if not int(obs[O_HAND]) >> card & 1:
        beats = [c for c in codes if _kind(c) == "defend" and action_target(obs, c) == card]
        if target is None and beats and verb in (None, "defend"):
            return Parsed("choose", options=beats)   # the card to beat: beat it with which?
        return Parsed("error", message=_not_held(card, name, obs))
    options = [c for c in codes if action_card(c) == card and _kind(c) != "other"]
    if verb is not None:
        options = [c for c in options if _kind(c) == verb]
    if target is not None:
        options = [c for c in options if _kind(c) == "defend" and action_target(obs, c) == target]
    if len(options) == 1:
        return Parsed("action", code=options[0])
    if options:
        return Parsed("choose", options=options)
    return Parsed("error", message=_why_not_card(card, target, verb, obs, codes, ranks))


def _not_held(card: int, name: str, obs) -> str:
    """Why a card typed is not a move of yours: it is on the table, or not in your hand."""
    if card in unbeaten_cards(obs) and int(obs[O_PHASE]) == PHASE_DEFEND:
        return f"nothing of yours beats {name} (R1.3: a higher card of the same suit, or a " \
               f"trump): take"
    if (int(obs[O_TABLE_ATTACKS]) | int(obs[O_TABLE_DEFENCES])) >> card & 1:
        return f"{name} is on the table, not in your hand"
    return f"you do not hold {name}"


def _with_between(raw: list[str]) -> bool:
    """Whether ``with`` stands between the two cards of the words: then the card after it
    is the one played (``beat 7d with 9d``); otherwise the first is (``9d 7d``, ``9d on
    7d``).

    >>> _with_between("beat 7d with 9d".split()), _with_between("9d on 7d".split())
    (True, False)
    """
    at = [i for i, w in enumerate(raw) if parse_card_word(w) is not None]
    return len(at) == 2 and any(w.lower() == "with" for w in raw[at[0] + 1:at[1]])


def _echo(text: str) -> str:
    """Input quoted back in a message: a pasted screenful is cut to 40 characters."""
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(code: int) -> str:
    if is_attack(code):
        return "attack"
    if is_defend(code):
        return "defend"
    if TRANSFER <= code < DONE:
        return "transfer"
    return "other"


def _why_not_word(word: str, obs, codes) -> str:
    phase = int(obs[O_PHASE])
    role = _role(obs)
    if word == "take":
        return f"only the defender takes; you are {role}" + \
            (": lay a card" if phase == PHASE_OPEN else
             ": add a card, or done ends the lead" if phase == PHASE_LEAD else
             ": stop ends your attack" if STOP in codes else "")
    if word == "stop":
        if phase == PHASE_OPEN:
            return "you must open the bout with a card (R3.1)"
        if phase == PHASE_DEFEND:
            return "you are defending: beat the card(s) or take"
        if phase == PHASE_LEAD:
            return "you are laying your lead: done ends it"
        return "you cannot stop now"
    if word == "done":
        return "done ends a lead of several cards; you are not laying one" \
            if phase != PHASE_LEAD else "your lead is not a pattern that may end here (R8.3)"
    if not int(obs[O_RULES]) & FLAG_SWAP:
        return "this game has no trump-six swap (--trump-six-swap, R8.5)"
    if int(obs[O_STOCK]) == 0:
        return "the stock is empty: there is no face-up card to swap the trump six for (R8.5)"
    return f"{word} is for the trump six's holder before the first attack (R8.5)"


def _why_not_card(card, target, verb, obs, codes, ranks) -> str:
    name = show_card(card, ranks)
    phase = int(obs[O_PHASE])
    if phase == PHASE_DEFEND:
        unbeaten = unbeaten_cards(obs)
        if verb == "transfer":
            if not int(obs[O_RULES]) & FLAG_TRANSFER:
                return "this game has no transfers (perevodnoy or --transfer, R8.2)"
            if int(obs[O_TAKING]) or int(obs[O_TABLE_DEFENCES]):
                return "a transfer comes before any attack card is beaten or taken (R8.2, E6)"
            return f"{name} cannot transfer: a transfer card has the rank on the table and " \
                   f"the next defender must hold enough cards (R8.2)"
        if verb == "attack":
            return "you are defending: beat the card(s) or take"
        if target is not None and target not in unbeaten:
            return f"{show_card(target, ranks)} is not an unbeaten attack card (unbeaten: " \
                   f"{' '.join(show_card(c, ranks) for c in unbeaten)})"
        against = [target] if target is not None else unbeaten
        return f"{name} does not beat {' or '.join(show_card(c, ranks) for c in against)} " \
               f"(R1.3: a higher card of the same suit, or a trump)"
    if verb in ("defend", "transfer") or target is not None:
        return f"you are {_role(obs)}, not defending"
    if phase == PHASE_ATTACK:
        if int(obs[O_N_ATTACKS]) >= int(obs[O_BOUT_LIMIT]):
            return f"the bout is full: {int(obs[O_BOUT_LIMIT])} attack cards (R3.4)"
        on_table = int(obs[O_TABLE_ATTACKS]) | int(obs[O_TABLE_DEFENCES])
        table_ranks = sorted({c >> 2 for c in mask_cards(on_table)})
        if card >> 2 not in table_ranks:
            return f"you can throw in only a rank that is on the table (R3.3): " \
                   f"{', '.join(ranks[r] for r in table_ranks)}"
        return f"{name} cannot be thrown in now"
    if phase == PHASE_LEAD:
        return f"{name} cannot join your lead (R8.1: the lead's rank; R8.3: a legal " \
               f"pattern); done ends the lead"
    if phase == PHASE_SWAP:
        return "first decide on the trump six: swap or keep"
    return f"{name} is not legal now"
