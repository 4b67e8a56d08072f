"""Game records, format ``durak-sim/record/1`` (docs/game-record.md): build, check, read, write.

A record is a plain dict whose keys keep the spec's order, so ``dumps`` of the same deal is
byte-identical whichever engine played it. Files are JSON Lines, one record a line.

>>> from durak_sim.rules import Rules
>>> rec = make_record(Rules(), 1, 2, ["a", "b"], [[0], [1]], [2, 3], 0,
...                   [(0, 0, -1), (36 + 4, 1, 0), (73, 0, -1)],
...                   {"outcome": "draw", "durak": None, "out_order": [0, 1], "bouts": 1})
>>> rec["actions"][1]
{'seat': 1, 'act': 'defend', 'card': '7S', 'target': '6S'}
>>> actions_from_record(rec)[1]
(40, 1, 0)
"""
from __future__ import annotations

import codecs
import json
import reprlib
import sys
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator

from .actions import (ATTACK, DEFEND, DONE, KEEP, NAMED, STOP, SWAP, TAKE, TRANSFER,
                      action_card, is_attack, is_defend)
from .cards import card_str, parse_card
from .reference import RecordError
from .rules import Rules
from .seeding import MAX_SEED

FORMAT = "durak-sim/record/1"
KEYS = ("format", "rules", "seed", "deal", "seats", "hands", "stock", "trump",
        "first_attacker", "actions", "result")
RESULT_KEYS = ("outcome", "durak", "out_order", "bouts")
#: result keys of the larger tables: ``places`` (more than two players), ``durak_team``
OPTIONAL_RESULT_KEYS = ("places", "durak_team", "capped")
ACTS = ("attack", "defend", "take", "stop", "transfer", "done", "swap", "keep")
_BY_NAME = {"take": TAKE, "stop": STOP, "done": DONE, "swap": SWAP, "keep": KEEP}
#: the longest line of a records file: a record takes a few kB (the longest deal the cap on
#: play, E12, lets run about 200 kB)
MAX_LINE_BYTES = 16 << 20
#: what ``blank`` strips: JSON's whitespace
_WHITESPACE = b" \t\r\n"


def _act_name(code: int) -> str:
    if is_attack(code):
        return "attack"
    if is_defend(code):
        return "defend"
    if code == TAKE:
        return "take"
    if code == STOP:
        return "stop"
    if code in NAMED:
        return NAMED[code]
    return "transfer"


def action_dict(code: int, seat: int, target: int = -1) -> dict:
    """One record action: keys ``seat, act, card, target`` (card/target only when present)."""
    out = {"seat": int(seat), "act": _act_name(code)}
    card = action_card(code)
    if card >= 0:
        out["card"] = card_str(card)
    if target >= 0:
        out["target"] = card_str(target)
    return out


def make_record(rules: Rules, seed: int, deal: int, seats: list[str], hands: list[list[int]],
                stock: list[int], first_attacker: int, actions: Iterable[tuple[int, int, int]],
                result: dict, trump: int | None = None, dealer: int | None = None,
                series: dict | None = None) -> dict:
    """The record dict of one deal, keys in the format's order. ``hands`` in dealing order
    (not sorted), ``stock`` in draw order, ``actions`` as ``(code, seat, target)``;
    ``trump`` the face-up card as dealt (default the stock's last card; the six-by-six deal
    has no stock, R2.2); ``dealer`` only when it is not the last seat (R9.1) and ``series``
    (``{"series": j, "deal": k}``) only for a deal of a series; the result's ``places`` and
    ``durak_team`` only when given."""
    if trump is None:
        trump = stock[-1]
    rec = {
        "format": FORMAT,
        "rules": rules.to_dict(),
        "seed": int(seed),  # a record always names its deal (validate_record refuses null)
        "deal": int(deal),
    }
    if series is not None:
        rec["series"] = {"series": int(series["series"]), "deal": int(series["deal"])}
    rec.update({
        "seats": [str(s) for s in seats],
        "hands": [[card_str(int(c)) for c in h] for h in hands],
        "stock": [card_str(int(c)) for c in stock],
        "trump": card_str(int(trump)),
    })
    if dealer is not None and int(dealer) != len(hands) - 1:
        rec["dealer"] = int(dealer)
    res = {
        "outcome": result["outcome"],
        "durak": None if result["durak"] is None else int(result["durak"]),
        "out_order": [int(s) for s in result["out_order"]],
        "bouts": int(result["bouts"]),
    }
    if result.get("places") is not None:
        res["places"] = [int(p) for p in result["places"]]
    if "durak_team" in result:
        res["durak_team"] = None if result["durak_team"] is None else int(result["durak_team"])
    if result.get("capped"):
        res["capped"] = True
    rec.update({"first_attacker": int(first_attacker),
                "actions": [action_dict(int(c), s, int(t)) for c, s, t in actions],
                "result": res})
    return rec


def dumps(record: dict) -> str:
    """One line of JSON, no spaces, ASCII only."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=True)


def write_records(path, records: Iterable[dict]) -> int:
    """Write records as JSON Lines, all or nothing (``files.atomic_text_file``); returns
    how many were written."""
    from .files import atomic_text_file

    n = 0
    with atomic_text_file(Path(path), encoding="ascii") as f:
        for rec in records:
            f.write(dumps(rec) + "\n")
            n += 1
    return n


def read_records(path) -> Iterator[dict]:
    """Yield the records of a JSON Lines file (blank lines skipped, a UTF-8 byte order mark
    at its start too), read one line at a time. A line that is not a JSON object (not UTF-8,
    not JSON, a key given twice in one object, longer than ``MAX_LINE_BYTES``) raises
    RecordError naming its line number. Records are not validated: use
    ``validate_record``."""
    with open(Path(path), "rb") as f:
        try:
            for lineno, line in without_bom(read_lines(f)):
                if blank(line):
                    continue
                try:
                    rec = loads(utf8(line), unique_keys=True)
                except json.JSONDecodeError as exc:
                    raise RecordError(f"{path}:{lineno}: not JSON ({exc.msg})") from None
                except ValueError as exc:
                    what = str(exc) if str(exc) == NOT_UTF8 or GIVEN_TWICE in str(exc) \
                        else f"not JSON ({exc})"
                    raise RecordError(f"{path}:{lineno}: {what}") from None
                if not isinstance(rec, dict):
                    raise RecordError(f"{path}:{lineno}: a record must be a JSON object")
                yield rec
        except LineTooLong as exc:
            raise RecordError(f"{path}:{exc.lineno}: more than {size_str(exc.limit)} in one "
                              f"line (a record takes a few kB)") from None


# ---- reading JSON Lines (records and positions) ----------------------------------------
NOT_UTF8 = "not UTF-8 text"


class LineTooLong(ValueError):
    """A line longer than ``read_lines``'s limit: its number ``lineno`` and the ``limit``."""

    def __init__(self, lineno: int, limit: int):
        super().__init__(f"line {lineno}: more than {size_str(limit)}")
        self.lineno, self.limit = lineno, limit


def size_str(n: int) -> str:
    """
    >>> size_str(16 << 20), size_str(1000)
    ('16 MiB', '1,000 bytes')
    """
    return f"{n >> 20} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n:,} bytes"


def read_lines(f: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """Each line of the binary file ``f`` (its newline kept) with its number, from 1, read
    one at a time: at most ``limit`` bytes and a newline, a longer line raises LineTooLong
    once ``limit + 1`` bytes of it are read (a file of one huge line, ``/dev/zero``, costs
    no more memory than that).

    >>> import io
    >>> list(read_lines(io.BytesIO(b"ab\\n\\ncd")))
    [(1, b'ab\\n'), (2, b'\\n'), (3, b'cd')]
    >>> list(read_lines(io.BytesIO(b"abcd\\n"), limit=3))
    Traceback (most recent call last):
    durak_sim.records.LineTooLong: line 1: more than 3 bytes
    """
    lineno = 0
    while True:
        line = f.readline(limit + 1)
        if not line:
            return
        lineno += 1
        if len(line) > limit and not line.endswith(b"\n"):
            raise LineTooLong(lineno, limit)
        yield lineno, line


def without_bom(lines: Iterable[tuple[int, bytes]]) -> Iterator[tuple[int, bytes]]:
    """The numbered lines of :func:`read_lines`, the first without a UTF-8 byte order mark
    (which some editors write at the head of a file).

    >>> list(without_bom([(1, codecs.BOM_UTF8 + b"{}"), (2, codecs.BOM_UTF8)]))
    [(1, b'{}'), (2, b'\xef\xbb\xbf')]
    """
    for no, line in lines:
        yield no, (line[len(codecs.BOM_UTF8):] if no == 1 and line.startswith(codecs.BOM_UTF8)
                   else line)


def blank(line: bytes) -> bool:
    """Whether a line holds only JSON's whitespace."""
    return not line.strip(_WHITESPACE)


def utf8(data: bytes) -> str:
    """``data`` as UTF-8 text; ValueError ``NOT_UTF8`` if it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(NOT_UTF8) from None


#: the words of :func:`loads`' ValueError for a key given twice (``unique_keys``)
GIVEN_TWICE = "is given twice in one object"


def _unique_keys(pairs: list) -> dict:
    d = {}
    for key, value in pairs:
        if key in d:
            raise ValueError(f"the key {key!r} {GIVEN_TWICE}")
        d[key] = value
    return d


def loads(text: str, unique_keys: bool = False) -> Any:
    """``json.loads``, every failure a ValueError of one line: json.JSONDecodeError as json
    raises it (``msg``, ``lineno``, ``colno``), or a plain ValueError saying in a few words
    what the JSON holds that Python does not take (nesting deeper than its stack, an integer
    of more digits than it converts) or, with ``unique_keys``, a key given twice in one
    object (JSON leaves it open; Python would keep the last).

    >>> loads("[" * 100_000 + "]" * 100_000)
    Traceback (most recent call last):
    ValueError: nested too deeply
    >>> loads('{"attacker": 0, "attacker": 1}', unique_keys=True)
    Traceback (most recent call last):
    ValueError: the key 'attacker' is given twice in one object
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_keys if unique_keys else None)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as exc:
        if "digits" not in str(exc):
            raise
        raise ValueError(f"a number too long: more than {sys.get_int_max_str_digits():,} "
                         f"digits") from None


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _shown(x) -> str:
    """``repr`` cut short (a number of a thousand digits, a list nested deep)."""
    return reprlib.repr(x)


def _card(text, where: str) -> int:
    try:
        return parse_card(text)
    except ValueError as exc:
        raise RecordError(f"{where}: {exc}") from None


def validate_record(rec: dict, unfinished: bool = False) -> dict:
    """Check a record's shape (format, keys, types, card strings); return it unchanged.
    Raises RecordError with a one-line message. Unknown extra keys are allowed (the format
    may grow). Whether it replays is ``reference.replay``'s job. ``unfinished``: also take
    the record of a game stopped midway (``"unfinished": true`` and ``"result": null``,
    docs/game-record.md), which has no result to replay to."""
    if not isinstance(rec, dict):
        raise RecordError("a record must be a JSON object")
    if rec.get("format") != FORMAT:
        raise RecordError(f"unknown record format {_shown(rec.get('format'))} (expected "
                          f"{FORMAT!r})")
    missing = [k for k in KEYS if k not in rec]
    if missing:
        raise RecordError(f"record lacks {', '.join(missing)}")
    if not isinstance(rec["rules"], dict):
        raise RecordError("rules must be an object")
    for key, what in (("seed", "the master seed"), ("deal", "the deal index")):
        if not (_is_int(rec[key]) and 0 <= rec[key] <= MAX_SEED):
            raise RecordError(f"{key} must be {what}, an integer 0..{MAX_SEED} (seeding), "
                              f"got {_shown(rec[key])}")
    stopped = rec.get("unfinished", False)
    if not isinstance(stopped, bool):
        raise RecordError(f"unfinished, when present, is true or false, got "
                          f"{_shown(stopped)}")
    if stopped:
        if not unfinished:
            raise RecordError("the record is of a game stopped midway (unfinished): it has "
                              "no result to replay to")
        if rec["result"] is not None:
            raise RecordError("an unfinished record's result is null")
    if not isinstance(rec["seats"], list) or not all(isinstance(s, str) for s in rec["seats"]):
        raise RecordError("seats must be a list of strategy names")
    n = len(rec["seats"])
    try:
        players = Rules.from_dict(rec["rules"]).players
    except (ValueError, TypeError):   # (said where the rules are read)
        players = n
    if n != players:
        raise RecordError(f"seats must name {players} strategies, one a seat of the rules' "
                          f"{players} players, got {n}")
    if "dealer" in rec and not (_is_int(rec["dealer"]) and 0 <= rec["dealer"] < n):
        raise RecordError(f"dealer must be a seat 0..{n - 1}")
    ser = rec.get("series", {"series": 0, "deal": 0})
    if not (isinstance(ser, dict) and all(_is_int(ser.get(k)) and 0 <= ser[k] <= MAX_SEED
                                          for k in ("series", "deal"))):
        raise RecordError(f"series must be {{\"series\": j, \"deal\": k}} with whole numbers "
                          f"0..{MAX_SEED}, got {_shown(ser)} (E13)")
    if not isinstance(rec["hands"], list) or len(rec["hands"]) != n:
        raise RecordError(f"hands must be a list of {n} hands (one per seat)")
    for s, hand in enumerate(rec["hands"]):
        if not isinstance(hand, list):
            raise RecordError(f"hand {s} must be a list of cards")
        for c in hand:
            _card(c, f"hand {s}")
    if not isinstance(rec["stock"], list):
        raise RecordError("stock must be a list of cards")
    for c in rec["stock"]:
        _card(c, "stock")
    _card(rec["trump"], "trump")
    if not _is_int(rec["first_attacker"]) or not 0 <= rec["first_attacker"] < n:
        raise RecordError(f"first_attacker must be a seat 0..{n - 1}")
    if not isinstance(rec["actions"], list):
        raise RecordError("actions must be a list")
    for i, a in enumerate(rec["actions"]):
        where = f"action {i}"
        if not isinstance(a, dict):
            raise RecordError(f"{where} must be an object")
        if not _is_int(a.get("seat")) or not 0 <= a["seat"] < n:
            raise RecordError(f"{where}: bad seat {a.get('seat')!r}")
        act = a.get("act")
        if act not in ACTS:
            raise RecordError(f"{where}: unknown act {act!r}")
        if act in ("attack", "defend", "transfer"):
            if "card" not in a:
                raise RecordError(f"{where}: {act} needs a card")
            _card(a["card"], where)
        elif "card" in a:
            raise RecordError(f"{where}: {act} takes no card")
        if act == "defend":
            if "target" not in a:
                raise RecordError(f"{where}: defend needs a target")
            _card(a["target"], where)
        elif "target" in a:
            raise RecordError(f"{where}: only defend has a target")
    res = rec["result"]
    if stopped:
        return rec
    if not isinstance(res, dict) or any(k not in res for k in RESULT_KEYS):
        raise RecordError(f"result must be an object with {', '.join(RESULT_KEYS)}")
    if res["outcome"] not in ("durak", "draw"):
        raise RecordError(f"result outcome must be 'durak' or 'draw', got {res['outcome']!r}")
    if res["durak"] is not None and not (_is_int(res["durak"]) and 0 <= res["durak"] < n):
        raise RecordError(f"result durak must be a seat or null, got {res['durak']!r}")
    teams = "durak_team" in res
    if teams:
        t = res["durak_team"]
        if t is not None and t not in (0, 1):
            raise RecordError(f"result durak_team must be 0, 1 or null, got {t!r}")
        if (res["outcome"] == "draw") != (t is None) or res["durak"] is not None:
            raise RecordError("result: with teams, durak is null and durak_team is null "
                              "exactly when the outcome is a draw")
    elif (res["outcome"] == "draw") != (res["durak"] is None):
        raise RecordError("result: durak is null exactly when the outcome is a draw")
    if "capped" in res and (res["capped"] is not True or res["outcome"] != "draw"):
        raise RecordError("result capped, when present, is true and the outcome a draw (E12)")
    if "places" in res and (not isinstance(res["places"], list) or len(res["places"]) != n
                            or not all(_is_int(p) and 1 <= p <= n for p in res["places"])):
        raise RecordError(f"result places must be a list of {n} places 1..{n}")
    if not isinstance(res["out_order"], list) or not all(_is_int(s) for s in res["out_order"]):
        raise RecordError("result out_order must be a list of seats")
    if not _is_int(res["bouts"]) or res["bouts"] < 0:
        raise RecordError("result bouts must be a non-negative integer")
    return rec


def check_deal(rec: dict) -> None:
    """A record whose hands and stock are not what its ``seed`` and ``deal`` (with
    ``series``, ``dealer`` and the rules) deal: a ``RecordError`` (docs/game-record.md: they
    make the deal again exactly). For a record already checked for shape."""
    from .seeding import deal_deck, deal_table, series_streams

    try:
        rules = Rules.from_dict(rec["rules"])
    except ValueError as exc:
        raise RecordError(f"record rules: {exc}") from None
    stream = series_streams(rec["series"]["deal"])[0] if "series" in rec else 0
    hands, stock, _ = deal_table(deal_deck(rec["seed"], rec["deal"], stream), rules.players,
                                 rules.hand_size, rec.get("dealer"))
    if hands != [[parse_card(c) for c in h] for h in rec["hands"]] or \
            stock != [parse_card(c) for c in rec["stock"]]:
        where = (f"deal {rec['series']['deal']} of series {rec['deal']}" if "series" in rec
                 else f"deal {rec['deal']}")
        raise RecordError(f"its hands and stock are not {where} of seed {rec['seed']} "
                          f"(durak-sim docs game-record): the record was edited")


def actions_from_record(rec: dict) -> list[tuple[int, int, int]]:
    """``(code, seat, target)`` of every action of a record (target -1 unless defend), in
    the history's form: a defence is ``DEFEND + card`` with its target (an engine plays it
    as ``defend_at(card, target)`` while several attack cards are unbeaten)."""
    out = []
    for i, a in enumerate(rec["actions"]):
        act = a["act"]
        target = -1
        if act == "attack":
            code = ATTACK + _card(a["card"], f"action {i}")
        elif act == "defend":
            code = DEFEND + _card(a["card"], f"action {i}")
            target = _card(a["target"], f"action {i}")
        elif act in _BY_NAME:
            code = _BY_NAME[act]
        elif act == "transfer":
            code = TRANSFER + _card(a["card"], f"action {i}")
        else:
            raise RecordError(f"action {i}: unknown act {act!r}")
        out.append((code, int(a["seat"]), target))
    return out


__all__ = ["FORMAT", "RecordError", "make_record", "dumps", "write_records", "read_records",
           "validate_record", "actions_from_record", "action_dict"]
