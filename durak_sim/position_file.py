"""Position files: the positions of a file (``durak-sim/position/1``, docs/position.md), read
one at a time, as one JSON object (over any lines) or JSON Lines, each bounded in size.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import stat
import sys
from typing import Any, Iterator

from .errors import UserError
from .position import Position

#: the longest position a file may hold (its line, or the whole file of one): a position
#: takes a few hundred bytes
MAX_POSITION_BYTES = 16 << 20


class PositionFile:
    """The positions of a file, read one at a time: one JSON object (over any lines), or JSON
    Lines, one position a line (blank lines skipped). Iterating yields ``(position, more)``,
    ``more``: whether another follows. A position takes at most ``MAX_POSITION_BYTES`` (its
    line, or the whole file of one), and reading holds no more than that, whatever the file.
    ``UserError`` names the file and (in JSON Lines of several positions) the line of
    anything wrong, once the positions before it have been yielded (``check`` finds it
    first). The path ``-`` reads standard input (named ``<stdin>`` in messages), as a pipe.
    """

    def __init__(self, path: str, reachable: bool = True):
        self.stdin = path == "-"
        self.path = "<stdin>" if self.stdin else path   # as messages name it
        self.reachable = reachable   # Position.from_dict's: False reads what no deal reaches

    def __iter__(self) -> Iterator[tuple[Position, bool]]:
        from .records import read_lines, without_bom

        try:
            # standard input is read, not closed
            f = (contextlib.nullcontext(sys.stdin.buffer) if self.stdin
                 else open(self.path, "rb"))
        except OSError as e:
            raise UserError(f"cannot read {self.path}: {e.strerror or e}") from None
        with f as stream:
            raw = without_bom(read_lines(stream, MAX_POSITION_BYTES))
            lines = False   # JSON Lines, rather than one object
            ahead = self._ahead(raw)
            if ahead is None:
                raise UserError(f"{self.path}: no position in the file")
            while ahead is not None:
                if isinstance(ahead, UserError):
                    raise ahead
                no, line = ahead
                try:
                    d = self._json(line, no)
                except json.JSONDecodeError as e:
                    if lines:
                        raise UserError(f"{self.path}: line {no}: invalid JSON: {e.msg} "
                                        f"(column {e.colno})") from None
                    # the first line of one object written over several
                    yield self._position(self._whole(raw, no, line, e), None), False
                    return
                ahead = self._ahead(raw)
                alone = not lines and ahead is None
                lines = True
                yield self._position(d, None if alone else no), ahead is not None

    def check(self) -> int | None:
        """Read every position of a regular file (``UserError`` at the first bad one), so
        that a command can refuse the file before answering any; return how many it holds.
        None, reading nothing, for a file that cannot be read twice (a pipe)."""
        if self.stdin:
            return None
        try:
            if not stat.S_ISREG(os.stat(self.path).st_mode):
                return None
        except OSError:
            return None   # (iterating says why)
        return sum(1 for _ in self)

    def _ahead(self, raw):
        """The next line that is not blank, ``(number, line)``, None at the end; a line that
        cannot be read comes back as its UserError, raised in its turn."""
        from .records import LineTooLong, blank, size_str

        try:
            return next(((no, line) for no, line in raw if not blank(line)), None)
        except LineTooLong as e:
            return UserError(f"{self.path}: line {e.lineno}: more than {size_str(e.limit)} "
                             f"in one line (a position takes a few hundred bytes)")
        except OSError as e:
            return UserError(f"cannot read {self.path}: {e.strerror or e}")

    def _json(self, line: bytes, no: int) -> Any:
        """The JSON value of line ``no``; json.JSONDecodeError as json raises it."""
        from .records import NOT_UTF8, loads, utf8

        try:
            return loads(utf8(line), unique_keys=True)
        except json.JSONDecodeError:
            raise
        except ValueError as e:
            what = NOT_UTF8 if str(e) == NOT_UTF8 else f"invalid JSON: {e}"
            raise UserError(f"{self.path}: line {no}: {what}") from None

    def _whole(self, raw, no: int, line: bytes, first_error) -> Any:
        """The JSON value of a file of one object whose first line ``no`` (``line``) is not
        JSON alone: the rest of the file, at most ``MAX_POSITION_BYTES`` in all."""
        from .records import LineTooLong, loads, size_str, utf8

        parts, size = ["\n" * (no - 1)], 0
        try:
            for at, text in itertools.chain([(no, line)], raw):
                size += len(text)
                if size > MAX_POSITION_BYTES:
                    raise LineTooLong(at, MAX_POSITION_BYTES)
                try:
                    parts.append(utf8(text))
                except ValueError as e:
                    raise UserError(f"{self.path}: line {at}: {e}") from None
        except LineTooLong:
            raise UserError(f"{self.path}: the position from line {no} on is more than "
                            f"{size_str(MAX_POSITION_BYTES)} (a position takes a few hundred "
                            f"bytes)") from None
        except OSError as e:
            raise UserError(f"cannot read {self.path}: {e.strerror or e}") from None
        try:
            return loads("".join(parts), unique_keys=True)
        except json.JSONDecodeError as e:
            if e.msg == "Extra data":   # JSON Lines whose first line is not JSON
                raise UserError(f"{self.path}: line {no}: invalid JSON: {first_error.msg} "
                                f"(column {first_error.colno}; a file of several positions "
                                f"holds one a line, JSON Lines)") from None
            raise UserError(f"{self.path}: invalid JSON at line {e.lineno} column {e.colno}: "
                            f"{e.msg}") from None
        except ValueError as e:
            raise UserError(f"{self.path}: invalid JSON: {e}") from None

    def _position(self, d: Any, no: int | None) -> Position:
        try:
            return Position.from_dict(d, self.reachable)
        except UserError as e:
            where = "" if no is None else f" line {no}:"
            raise UserError(f"{self.path}:{where} {e}") from None


def load_positions(path: str) -> list[Position]:
    """Every position of a file (``PositionFile``: one JSON object or JSON Lines), read
    whole. ``UserError`` names the line of a bad position in JSON Lines."""
    return [p for p, _ in PositionFile(path)]
