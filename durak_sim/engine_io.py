"""The pipes of an external engine (``durak_sim.external``): its stderr, kept as a bounded
tail by a thread of its own, and its answers, read as the legal action they name
(docs/engine-protocol.md, Answers).

>>> short("a  long\\nline", 6)
"'a long...'"
"""
from __future__ import annotations

import json
import os
import select
import threading

#: bytes of an engine's stderr kept (the last ones: its last line is quoted in a failure)
STDERR_TAIL = 4096


class WriteTimeout(Exception):
    pass


class StderrTail:
    """An engine's stderr, read from its pipe by a daemon thread as it comes; only the last
    ``STDERR_TAIL`` bytes are kept. The thread ends when the pipe ends (the engine and its
    process group are gone) or at :meth:`stop`, and closes the pipe."""

    def __init__(self, pipe):
        self._pipe = pipe
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._run, name="durak-sim engine stderr",
                                        daemon=True)
        try:
            self._thread.start()
        except RuntimeError:
            os.close(self._wake_r)
            os.close(self._wake_w)
            raise

    def _run(self) -> None:
        fd = self._pipe.fileno()
        poll = select.poll()   # (select() takes no descriptor above 1023)
        poll.register(fd, select.POLLIN)
        poll.register(self._wake_r, select.POLLIN)
        try:
            while True:
                ready = [f for f, _ in poll.poll()]
                if self._wake_r in ready:
                    return
                data = os.read(fd, 65536)
                if not data:
                    return
                with self._lock:
                    self._tail += data
                    del self._tail[:-STDERR_TAIL]
        except OSError:   # pragma: no cover - a pipe that failed: nothing more to keep
            pass
        finally:
            self._pipe.close()
            os.close(self._wake_r)

    def stop(self, drain: float = 0.0) -> None:
        """End the thread: when the pipe ends, within ``drain`` s, else at once."""
        if self._wake_w < 0:
            return
        self._thread.join(drain)
        if self._thread.is_alive():   # something outside the process group holds the pipe
            try:
                os.write(self._wake_w, b"x")
            except OSError:   # the thread ended meanwhile and closed the other end
                pass
            self._thread.join()
        os.close(self._wake_w)
        self._wake_w = -1

    def last_line(self) -> str:
        """The last line that is not blank of what was kept."""
        with self._lock:
            text = self._tail.decode("utf-8", "replace")
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return lines[-1].strip() if lines else ""


def resolve_answer(line: bytes, obs, codes: list[int], texts: list[str]) -> int | None:
    """The legal code an answer names; -1 when it names an action that is not legal now;
    None when it is not an action at all (garbage). An answer is a JSON object
    ``{"action": X}``, a bare JSON number or string, or bare record notation; ``X`` is a code
    or record notation (``defend 9D 7D``; a defence may leave out its target when only one
    attack card is unbeaten or the card beats only one of them)."""
    from .actions import parse_action

    try:
        text = line.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    value: object = text
    if text[:1] in "{[\"-0123456789":
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):   # not JSON; too many digits; nested too deep
            return None
    if isinstance(value, dict):
        value = value.get("action")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value in codes else -1
    if not isinstance(value, str):
        return None
    parts = value.split()
    # case does not matter (docs/engine-protocol.md): the verb as written in lower case,
    # the cards in upper
    words = " ".join(parts[:1] and [parts[0].lower()] + [w.upper() for w in parts[1:]])
    try:
        code, target = parse_action(words)
    except ValueError:
        return None
    want = " ".join(words.upper().split()[1:])
    for c, t in zip(codes, texts):
        if t.lower() == words.lower():
            return c
    if target < 0 and words.split()[0].lower() == "defend":   # a defence without its target
        hits = [c for c, t in zip(codes, texts)
                if t.startswith("defend ") and t.split()[1] == want]
        if len(hits) == 1:
            return hits[0]
    return -1


def short(text: str, n: int = 80) -> str:
    text = " ".join(str(text).split())
    return repr(text if len(text) <= n else text[:n] + "...")
