"""External engines: strategies that are programs speaking JSON lines over stdin/stdout.

The protocol is docs/engine-protocol.md. A strategy spec ``engine:PATH`` (or
``engine:CMD ARGS``, quoted for the shell) seats a program in any command: the registry makes
it a plain-Python strategy (:func:`engine_strategy`) whose ``decide`` asks the program, so it
plays on the reference engine (the slow path) like any Python plugin.

One process per seat: it is started at its seat's first decision, told the protocol
version, the ruleset, its seat and the strategy name (``hello``), told each new game
(``game``) and asked each decision (``decide``); ``quit`` ends it when the command ends
(:func:`close_all`). Every failure of the program (it exits, hangs past the time limit, closes
its output, prints something that is not an action, plays an illegal action, refuses the
ruleset) raises :class:`EngineFailure` after its process group has been killed: nothing is
left running. Its stderr is read through a pipe by a thread of its own that keeps only the
last ``engine_io.STDERR_TAIL`` bytes (an engine may write as much as it likes) and ends with the
process; the last line is quoted in the failure. Thinking time (from sending ``decide`` to
reading the answer) is counted per strategy (:func:`thinking_times`).

>>> parse_spec("engine:python3 -u bot.py")[-2:]
['-u', 'bot.py']
>>> is_engine_spec("engine:./bot"), is_engine_spec("easy")
(True, False)
"""
from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from .errors import StrategyFailure, UserError, option
from .engine_io import StderrTail, WriteTimeout, resolve_answer, short
from .engine_spawn import popen
from .limits import MAX_ENGINE_TIMEOUT
from .stopping import AT_ONCE_EXIT

PROTOCOL = 1
PREFIX = "engine:"
#: seconds an engine may take to answer one ``decide`` (``--engine-timeout``)
DEFAULT_TIMEOUT = 5.0
#: the environment variable that sets it where a command is given no --engine-timeout
ENV_TIMEOUT = "DURAK_SIM_ENGINE_TIMEOUT"
#: seconds it may take to start and answer ``hello``: at least this, else the decision limit
STARTUP_TIMEOUT = 10.0
#: seconds given to a ``quit`` before the process group is killed
QUIT_GRACE = 1.0
#: seconds between looks, while an answer is awaited, at whether the engine has exited
EXIT_CHECK = 0.25
#: the longest answer line read (bytes): an engine printing more is printing garbage
MAX_LINE = 1 << 20
#: workspace words of an engine strategy: mem[1] marks "the game was announced"
MEMORY = 2


class EngineFailure(StrategyFailure):
    """An engine failed (``kind``: ``crashed``, ``timeout``, ``closed``, ``garbage``,
    ``illegal``, ``refused``); the message is one line and says that its process was
    killed. ``seat`` is the seat it played."""

    def __init__(self, spec: str, seat: int, kind: str, detail: str):
        super().__init__(f"{detail}; its process was killed")
        self.spec, self.seat, self.kind, self.detail = spec, seat, kind, detail

    def one_line(self, where: str, at: str) -> str:
        """The engine, its seat, what happened, where (``errors.game_at``), and that its
        process was killed (``where`` is not needed: the engine names itself)."""
        return f"engine '{self.spec}' (seat {self.seat}) {self.detail} {at}; its process was killed"


@dataclass
class Settings:
    timeout: float = DEFAULT_TIMEOUT
    rules: object = None   # the command's ruleset (else read from the observation)
    from_option: bool = False   # the timeout is the command's --engine-timeout


def _env_timeout() -> float:
    """``DURAK_SIM_ENGINE_TIMEOUT`` (seconds) where a command gets no ``--engine-timeout``;
    else (or when it is not a valid limit: :func:`check_env_timeout` refuses that)
    ``DEFAULT_TIMEOUT``."""
    try:
        value = float(os.environ.get(ENV_TIMEOUT, DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if 0 < value <= MAX_ENGINE_TIMEOUT else DEFAULT_TIMEOUT


def check_env_timeout() -> None:
    """One line (``UserError``) when ``DURAK_SIM_ENGINE_TIMEOUT`` is set but not a number of
    seconds in (0, ``MAX_ENGINE_TIMEOUT``]."""
    raw = os.environ.get(ENV_TIMEOUT)
    if raw is None:
        return
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_ENGINE_TIMEOUT:
        raise UserError(f"{ENV_TIMEOUT} must be a number of seconds in (0, "
                        f"{MAX_ENGINE_TIMEOUT:g}], got {raw!r}")


SETTINGS = Settings(timeout=_env_timeout())
_LOCK = threading.Lock()
_LIVE: set = set()          # running EngineProcess objects
#: seconds a stopped play still waits for an engine's answers, so that the game under way
#: can end (and with it the deal) when its engines answer promptly
STOP_GRACE = 1.0
#: per thread: the stop flag (a one-element array) of the play under way
#: (:func:`stopping_with`), and when it was first seen set
_STOP = threading.local()
_THINKING: dict = {}        # strategy name -> [decisions, seconds, longest]


def apply_timeout(timeout: float | None) -> None:
    """A command's ``--engine-timeout`` (or a dask client's, for a worker's task), else a
    valid ``DURAK_SIM_ENGINE_TIMEOUT`` (a bad one is refused in one line once an engine is
    seated: ``registry.get_strategy``)."""
    SETTINGS.from_option = timeout is not None
    if timeout is not None:
        configure(timeout=timeout)


def configure(timeout: float | None = None, rules=None) -> None:
    """The per-decision time limit and the ruleset every engine started from now on is
    told (a command sets them from its options)."""
    if timeout is not None:
        if not 0 < timeout <= MAX_ENGINE_TIMEOUT:
            raise UserError(f"{option('--engine-timeout', 'timeout')} must be in "
                            f"(0, {MAX_ENGINE_TIMEOUT:g}] seconds, got {timeout}")
        SETTINGS.timeout = float(timeout)
    if rules is not None:
        SETTINGS.rules = rules


def is_engine_spec(name) -> bool:
    return isinstance(name, str) and name.startswith(PREFIX)


def parse_spec(spec: str) -> list[str]:
    """The argv of an ``engine:`` spec: ``engine:PATH`` or ``engine:CMD ARGS`` (shell
    words). A ``.py`` file is run by this Python; any other program must be executable (a
    name without ``/`` is looked up on PATH). UserError (one line) when it cannot run."""
    rest = spec[len(PREFIX):].strip()
    try:
        argv = shlex.split(rest)
    except ValueError as exc:
        raise UserError(f"cannot read the engine command {rest!r}: {exc}") from None
    if not argv:
        raise UserError("engine: needs a program: engine:PATH or engine:\"CMD ARGS\"")
    prog = argv[0]
    if os.path.isdir(prog) and ("/" in prog or prog.endswith(".py")):
        raise UserError(f"engine program {prog} is a folder: name the program file in it")
    if prog.endswith(".py"):
        if not os.path.isfile(prog):
            raise UserError(f"engine program not found: {prog}")
        return [sys.executable, "-u", os.path.abspath(prog), *argv[1:]]
    if "/" in prog:
        if not os.path.isfile(prog):
            raise UserError(f"engine program not found: {prog}")
        if not os.access(prog, os.X_OK):
            raise UserError(f"engine program {prog} is not executable (chmod +x, or name a "
                            f".py file)")
        return [os.path.abspath(prog), *argv[1:]]
    found = shutil.which(prog)
    if found is None:
        raise UserError(f"engine program not found on PATH: {prog}")
    return [found, *argv[1:]]


def engine_strategy(spec: str):
    """A registry ``Strategy`` (plain Python, every ruleset) that seats the program of
    ``spec``; its name is the spec itself."""
    from .registry import Strategy

    argv = parse_spec(spec)
    return Strategy(name=spec, fn=EngineDecide(spec, argv), version=1,
                    description=f"external engine: {shlex.join(argv)}", memory=MEMORY,
                    reset=MEMORY, compiled=False, module=__name__, plays="all")


def rules_from_obs(obs):
    """The ruleset an observation was made under (its flags, players and hand size)."""
    from .observation import O_HAND_TARGET, O_PLAYERS, O_RULES
    from .rules import (FLAG_LEAD_MULTIPLE, FLAG_NEIGHBOURS, FLAG_PROSTOY, FLAG_SWAP,
                        FLAG_TEAMS, FLAG_TRANSFER, Rules)

    from .rules import VARIANTS, RulesError

    f, n = int(obs[O_RULES]), int(obs[O_PLAYERS])
    given = SETTINGS.rules
    if given is not None and given.flags == f and given.players == n:
        return given
    for name in VARIANTS:   # a named ruleset as it is, if one fits (teams, podkidnoy-full)
        try:
            r = Rules(players=n, variant=name)
        except RulesError:
            continue
        if r.flags == f and r.hand_size == int(obs[O_HAND_TARGET]):
            return r
    if f & FLAG_PROSTOY:
        return Rules(players=n, variant="prostoy", teams=bool(f & FLAG_TEAMS) or None)
    scope = "neighbours" if f & FLAG_NEIGHBOURS else "all"
    return Rules(players=n, variant="perevodnoy" if f & FLAG_TRANSFER else "podkidnoy",
                 lead_multiple=bool(f & FLAG_LEAD_MULTIPLE), teams=bool(f & FLAG_TEAMS),
                 trump_six_swap=bool(f & FLAG_SWAP),
                 throw_in=None if scope == ("all" if n <= 4 else "neighbours") else scope)


class EngineStopped(BaseException):
    """The command was stopped (Ctrl-C, a kill) while an engine was asked something: the
    game under way is dropped, and that engine killed (its late answer is not read). An
    interruption, not a failure: like KeyboardInterrupt, no ``except Exception`` takes it."""


@contextlib.contextmanager
def stopping_with(flag):
    """While the block runs, an engine's answer is awaited only until ``STOP_GRACE`` s
    after ``flag[0]`` is seen set (looked at every ``EXIT_CHECK`` s while an answer is
    awaited): then :class:`EngineStopped` is raised."""
    old = getattr(_STOP, "flag", None), getattr(_STOP, "seen", None)
    _STOP.flag, _STOP.seen = flag, None
    try:
        yield
    finally:
        _STOP.flag, _STOP.seen = old


def _stop_asked() -> bool:
    flag = getattr(_STOP, "flag", None)
    if flag is None or not flag[0]:
        return False
    if _STOP.seen is None:
        _STOP.seen = time.monotonic()
    return time.monotonic() - _STOP.seen >= STOP_GRACE


class EngineDecide:
    """The ``decide`` of an engine strategy: one :class:`EngineProcess` per seat."""

    def __init__(self, spec: str, argv: list[str]):
        self.spec, self.argv = spec, argv
        self.procs: dict[int, EngineProcess] = {}
        self.__module__ = __name__

    def __call__(self, obs, legal, hist, rng, mem):
        from .observation import O_SEAT

        seat = int(obs[O_SEAT])
        proc = self.procs.get(seat)
        if proc is None or not proc.alive:
            proc = EngineProcess(self.spec, self.argv, seat, rules_from_obs(obs))
            self.procs[seat] = proc
            proc.start()
        if mem[1] == 0:   # the first decision of this game (mem[1:] is zeroed per game)
            mem[1] = 1
            proc.new_game(int(rng[0]))
        return proc.decide(obs, legal, hist)

    def close(self) -> None:
        for proc in list(self.procs.values()):
            proc.close()
        self.procs.clear()


def _stream_value(x: int) -> int:
    return int(x) & ((1 << 64) - 1)


class EngineProcess:
    """One running engine (one seat). Not thread-safe: one decision at a time."""

    def __init__(self, spec: str, argv: list[str], seat: int, rules):
        self.spec, self.argv, self.seat, self.rules = spec, argv, seat, rules
        self.proc: subprocess.Popen | None = None
        self.games = 0
        self._buf = b""
        self._err = None
        self.info: dict = {}
        self._sent = 0   # history entries of this game already sent (new_history)

    @property
    def alive(self) -> bool:
        return self.proc is not None

    # -- life ---------------------------------------------------------------------------
    def start(self) -> None:
        try:
            self.proc = popen(   # (it dies with durak-sim: durak_sim.engine_spawn)
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                close_fds=True, start_new_session=True)   # Ctrl-C is ours, not the engine's
        except OSError as exc:
            raise EngineFailure(self.spec, self.seat, "crashed",
                                f"engine {self.spec} could not start: "
                                f"{exc.strerror or exc}") from None
        try:
            self._err = StderrTail(self.proc.stderr)
        except (OSError, RuntimeError) as exc:   # no file or thread left for it
            self.proc.stderr.close()
            self.fail("crashed", f"could not be started: {exc}")
        os.set_blocking(self.proc.stdin.fileno(), False)
        with _LOCK:
            _LIVE.add(self)
        self.send({"type": "hello", "protocol": PROTOCOL, "rules": self.rules.to_dict(),
                   "seat": self.seat, "strategy": self.spec, "time_limit": SETTINGS.timeout})
        limit = max(SETTINGS.timeout, STARTUP_TIMEOUT)
        reply = self._read_json(time.monotonic() + limit, "hello", limit)
        kind = reply.get("type") if isinstance(reply, dict) else None
        if kind == "error":
            self.fail("refused", f"refused to play: {short(str(reply.get('message', '')))}")
        if kind != "ready":
            self.fail("garbage", f"answered hello with {short(json.dumps(reply))}, not "
                                 f"{{\"type\": \"ready\"}}")
        self.info = reply
        if reply.get("protocol", PROTOCOL) != PROTOCOL:
            self.fail("refused", f"speaks protocol {reply.get('protocol')!r}, not {PROTOCOL}")

    def new_game(self, rng_state: int) -> None:
        self.games += 1
        self._sent = 0
        self.send({"type": "game", "game": self.games, "seat": self.seat,
                   "rng": _stream_value(rng_state)})

    def close(self) -> None:
        """``quit``, then (after ``QUIT_GRACE`` s at most) kill the process group."""
        if self.proc is None:
            return
        try:
            self._write(b'{"type": "quit"}\n', time.monotonic() + 0.2)
            self.proc.stdin.close()
        except (OSError, ValueError, WriteTimeout):
            pass
        try:
            self.proc.wait(QUIT_GRACE)
        except subprocess.TimeoutExpired:
            pass
        self._kill()
        self._close_err()

    def _kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with _LOCK:
            _LIVE.discard(self)
        _kill_group(proc.pid)
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except (OSError, ValueError):
                pass
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:   # pragma: no cover - SIGKILL is not refused
            pass

    def fail(self, kind: str, detail: str):
        """Kill the process and raise :class:`EngineFailure`, its stderr's last line quoted
        (docs/engine-protocol.md; read to the end when the engine died by itself)."""
        proc = self.proc
        if kind in ("crashed", "closed") and proc is not None:
            try:
                code = proc.wait(0.5)
            except subprocess.TimeoutExpired:
                code = None
            if code is not None:
                detail += f" (exit code {code})" if code >= 0 else \
                    f" (killed by signal {-code})"
        quoted = kind in ("crashed", "closed", "garbage", "refused")
        self._kill()
        tail = self._close_err(QUIT_GRACE if quoted else 0.0)
        if tail:
            detail += f"; its stderr ends: {short(tail)}"
        raise EngineFailure(self.spec, self.seat, kind, detail)

    def _close_err(self, drain: float = 0.0) -> str:
        """Stop reading the engine's stderr (once its pipe has ended, at most ``drain`` s
        after its process was killed); its last line."""
        err, self._err = self._err, None
        if err is None:
            return ""
        err.stop(drain)
        return err.last_line()

    # -- messages -------------------------------------------------------------------------
    def send(self, msg: dict) -> None:
        data = (json.dumps(msg, separators=(",", ":")) + "\n").encode()
        try:
            self._write(data, time.monotonic() + SETTINGS.timeout)
        except WriteTimeout:
            self.fail("timeout", f"did not read its input for {SETTINGS.timeout:g} s")
        except (BrokenPipeError, OSError, ValueError):
            self.fail("crashed", "exited")

    def _write(self, data: bytes, deadline: float) -> None:
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                n = 0
            view = view[n:]
            if view:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WriteTimeout()
                self._unless_stopped()
                select.select([], [fd], [], min(left, EXIT_CHECK))

    def _unless_stopped(self) -> None:
        """:class:`EngineStopped` once the play under way is stopped (and its grace over);
        the engine is killed first (it is in the middle of an exchange that will not be
        finished)."""
        if _stop_asked():
            self._kill()
            self._close_err()
            raise EngineStopped()

    def _read_line(self, deadline: float, what: str, limit: float) -> bytes:
        fd = self.proc.stdout.fileno()
        while True:
            nl = self._buf.find(b"\n")
            if nl > MAX_LINE:
                self.fail("garbage", f"printed a line of more than {MAX_LINE:,} bytes")
            if nl >= 0:
                line, self._buf = self._buf[:nl], self._buf[nl + 1:]
                if line.strip():
                    return line.strip()
                continue
            if len(self._buf) > MAX_LINE:
                self.fail("garbage", f"printed a line of more than {MAX_LINE:,} bytes")
            left = deadline - time.monotonic()
            if left <= 0:
                self.fail("timeout", f"timed out: no answer to {what} within {limit:g} s")
            self._unless_stopped()
            ready, _, _ = select.select([fd], [], [], min(left, EXIT_CHECK))
            if not ready:
                # an engine that exited while a child of its holds its output open: no end
                # of file comes, so its exit is looked for (and whatever it wrote first read)
                if self.proc.poll() is not None and not select.select([fd], [], [], 0)[0]:
                    self.fail("crashed", f"exited without answering {what}")
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                try:
                    self.proc.wait(0.2)   # closing its output is most often exiting
                except subprocess.TimeoutExpired:
                    self.fail("closed", f"closed its output without answering {what}")
                self.fail("crashed", f"exited without answering {what}")
            self._buf += chunk

    def _no_extra_line(self) -> None:
        """Nothing may be waiting before a ``decide``: a line printed since the last answer
        (a second answer, an answer to ``game``) would be read as the next one."""
        fd = self.proc.stdout.fileno()
        # something not blank (or MAX_LINE bytes) is enough: an endless printer would keep
        # this reading
        while not self._buf.strip() and len(self._buf) <= MAX_LINE and \
                select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                break   # it exited: told when its answer is read
            self._buf += chunk
        extra = [ln for ln in self._buf.split(b"\n") if ln.strip()]
        if extra:
            self.fail("garbage", f"printed a line nobody asked for: "
                                 f"{short(extra[0].decode('utf-8', 'replace'))}")

    def _read_json(self, deadline: float, what: str, limit: float):
        line = self._read_line(deadline, what, limit)
        try:
            return json.loads(line)
        except (ValueError, RecursionError):   # not JSON; too many digits; nested too deep
            self.fail("garbage", f"printed garbage: {short(line.decode('utf-8', 'replace'))}")

    def decide(self, obs, legal, hist) -> int:
        """Ask for an action; the legal code it names (or :class:`EngineFailure`)."""
        from .actions import unpack_history
        from .records import action_dict
        from .views import legal_texts, observation_view

        codes = [int(c) for c in legal[1:int(legal[0]) + 1]]
        texts = legal_texts(obs, codes)
        from .observation import O_N_HIST

        packed = [int(h) for h in hist[:int(obs[O_N_HIST])]]
        if self._sent > len(packed):
            self._sent = 0   # cannot happen within a game: the history only grows
        new = [action_dict(*_record_form(unpack_history(h))) for h in packed[self._sent:]]
        self._sent = len(packed)
        msg = {"type": "decide", "seat": self.seat, "obs": [int(x) for x in obs],
               "legal": codes, "actions": texts, "hist": packed, "new_history": new,
               "view": observation_view(obs)}
        self._no_extra_line()
        t0 = time.perf_counter()
        self.send(msg)
        limit = SETTINGS.timeout
        line = self._read_line(time.monotonic() + limit, "decide", limit)
        _count_thinking(self.spec, time.perf_counter() - t0)
        code = resolve_answer(line, obs, codes, texts)
        if code is None:
            self.fail("garbage", f"printed garbage: {short(line.decode('utf-8', 'replace'))} "
                                 f"(no action: see Answers in durak-sim docs engine-protocol)")
        if code < 0:
            self.fail("illegal", f"played an illegal action "
                                 f"{short(line.decode('utf-8', 'replace'))} (legal: "
                                 f"{', '.join(texts)})")
        return code


def _record_form(entry: tuple[int, int, int]) -> tuple[int, int, int]:
    from .actions import DEFEND, DEFEND_AT, N_ACTIONS, action_card

    code, seat, target = entry
    if DEFEND_AT <= code < N_ACTIONS:
        code = DEFEND + action_card(code)
    return code, seat, target


def _count_thinking(name: str, seconds: float) -> None:
    with _LOCK:
        t = _THINKING.setdefault(name, [0, 0.0, 0.0])
        t[0] += 1
        t[1] += seconds
        t[2] = max(t[2], seconds)


def thinking_times() -> dict:
    """Per engine strategy: ``decisions``, ``seconds`` (the sum of the round trips from
    sending ``decide`` to reading the answer), ``mean_ms`` and ``max_ms``."""
    with _LOCK:
        return {name: {"decisions": n, "seconds": round(s, 6),
                       "mean_ms": round(1000 * s / n, 4) if n else None,
                       "max_ms": round(1000 * m, 4)}
                for name, (n, s, m) in _THINKING.items()}


def reset_thinking() -> None:
    with _LOCK:
        _THINKING.clear()


def close_all() -> None:
    """End every running engine (``quit``, then kill): nothing is left running."""
    with _LOCK:
        live = list(_LIVE)
    for proc in live:
        proc.close()


def kill_all_now() -> None:
    """Kill every running engine's process group at once, without ``quit`` (for an exit
    that cannot wait: a second Ctrl-C, :class:`durak_sim.stopping.StopFlag`). Called from
    another thread than the one playing, it takes no lock and touches no pipe."""
    for proc in list(_LIVE):
        p = proc.proc
        if p is not None:
            _kill_group(p.pid)


def _kill_group(pid: int) -> None:
    """SIGKILL the engine's process group: its children too (a shell script's)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


atexit.register(close_all)
AT_ONCE_EXIT.append(kill_all_now)
