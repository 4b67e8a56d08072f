"""Playing a tournament's chunks on a dask.distributed cluster (``--scheduler ADDRESS``).

The client (``durak-sim tournament --scheduler tcp://host:8786``) keeps everything durable
on its own disk: it submits every chunk still to play as one task, each worker plays its
chunks with the numba kernel, and the client stores each chunk as soon as its games come
back (:mod:`durak_sim.storage`, exactly as a local run stores them), so an interrupted or
failed cluster run continues with ``--resume`` like a local one, and the stored games, the
tables and the report are the same bytes as a local run's (the seed contract: a chunk's
games depend only on the seed, the strategies and the deal indices).

Workers run ``dask worker ADDRESS`` with durak-sim installed (``pip install
'durak-sim[distributed]'``). The client refuses a cluster that would not play the same
games: before the first task it asks every worker for its durak-sim version, rules version
and the versions of the tournament's strategies, and every task checks them again (a worker
may join later). Plugins (``--plugin``) are loaded on the workers too: a module must be
importable there, a ``.py`` file must exist there at the same absolute path.

Each task plays one chunk in one kernel call on ``--threads`` threads (default: the
machine's cores divided by the task slots of all its workers, so ``dask worker --nthreads
1`` per machine lets one task use every core, and several workers on one machine share it).
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from .errors import StrategyFailure, UserError, option

#: seconds the scheduler has to answer (connection and handshake); dask retries a refused
#: connection meanwhile, so a scheduler still starting up is found. A reachable scheduler
#: answers within a second even far away: longer is a typo or a scheduler that is not there.
CONNECT_TIMEOUT = 10
#: default of ``--worker-wait``: seconds a run goes on seeing no worker (at the start, or
#: when every worker is gone) or no answer from the scheduler, before it stops (resumable).
#: A killed worker under ``dask worker``'s nanny is back in a few seconds, and dask plays its
#: tasks again; a cluster gone for half a minute is not coming back by itself.
WORKER_WAIT = 30.0
#: seconds between two looks at the cluster while no chunk comes back
POLL_SECONDS = 1.0
#: the address schemes a run connects with (``HOST:PORT`` alone is ``tcp://``); ``tls://``
#: needs dask's TLS settings, ``inproc://`` a scheduler in this same process
SCHEMES = ("tcp", "ws", "wss", "tls")
SUPPORTED = "tcp://HOST:PORT or HOST:PORT, ws://, wss://, and tls:// with dask's TLS settings"
_LOADED_PLUGINS: set[str] = set()


def _first_line(exc: BaseException, name: bool = True) -> str:
    """An exception in a few words for a one-line error.

    >>> _first_line(OSError("refused\\nmore")), _first_line(ValueError(""), name=False)
    ('OSError: refused', 'ValueError')
    """
    text = str(exc).splitlines()[0] if str(exc).strip() else ""
    if not text or not name:
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def _opt() -> str:
    return option("--scheduler", "scheduler")


def _client_class():
    try:
        from distributed import Client
    except ImportError:
        raise UserError(f"{_opt()} needs dask.distributed: pip install "
                        "'durak-sim[distributed]' (from a clone: pip install "
                        "'.[distributed]')") from None

    class _Client(Client):
        """A Client that gives up connecting after its ``timeout`` (distributed waits for
        ever for a server that accepts the connection and says nothing) and closes itself
        when it fails to start (distributed leaves a half-made client whose finalizer
        hangs for a minute at exit and prints a traceback)."""

        def __init__(self, *args, **kwargs):
            try:
                super().__init__(*args, **kwargs)
            except BaseException:
                try:
                    self.close(timeout=CONNECT_TIMEOUT)
                except Exception:  # pragma: no cover - the first error is the one to say
                    pass
                raise

        async def _start(self, *args, **kwargs):
            import asyncio

            # (a little after distributed's own timeout, whose error says more)
            return await asyncio.wait_for(super()._start(*args, **kwargs),
                                          self._timeout + 2)

    return _Client


def check_address(address: str) -> None:
    """A malformed scheduler address, or one whose scheme durak-sim does not connect with
    (:data:`SCHEMES`), is a :class:`UserError` before any connection is tried (an empty
    one would start a local cluster instead)."""
    from distributed.comm.addressing import get_address_host_port, parse_address
    from distributed.comm.registry import get_backend

    try:
        if not address.strip():
            raise ValueError("empty")
        scheme, loc = parse_address(address)
        get_backend(scheme)
    except (ValueError, TypeError, ImportError) as exc:
        raise _malformed(address, exc) from None
    _check_scheme(address, scheme, loc)
    if scheme == "inproc":   # (no host and port)
        return
    try:
        host, port = get_address_host_port(address)
        if not host or not 0 < int(port) < 65536:
            raise ValueError("no host" if not host else f"port {port} out of range")
    except (ValueError, TypeError) as exc:
        raise _malformed(address, exc) from None


def _malformed(address: str, exc: Exception) -> UserError:
    return UserError(f"{_opt()} {address!r} is not a dask scheduler address "
                     f"({_first_line(exc, name=False)}); give tcp://HOST:PORT")


def _check_scheme(address: str, scheme: str, loc: str) -> None:
    """A :class:`UserError` for a scheme that cannot reach the scheduler from here."""
    if scheme == "inproc":
        from distributed.comm.inproc import global_manager

        try:
            if global_manager.get_listener_for(loc) is not None:
                return   # (a library caller's scheduler in this process)
        except ValueError:   # another process's address, or no inproc address at all
            pass
        raise UserError(f"{_opt()} {address!r}: the inproc:// scheme is not supported "
                        f"here, it reaches only a scheduler in the same process "
                        f"(supported: {SUPPORTED})")
    if scheme not in SCHEMES:
        raise UserError(f"{_opt()} {address!r}: the {scheme}:// scheme is not supported "
                        f"(supported: {SUPPORTED})")
    if scheme == "tls":
        from distributed.security import Security

        sec = Security()
        if not (sec.tls_ca_file and sec.tls_client_cert):
            raise UserError(f"{_opt()} {address!r}: tls:// needs dask's TLS settings "
                            f"(distributed.comm.tls.ca-file and .client.cert), which are "
                            f"not set; give tcp://HOST:PORT, HOST:PORT, ws:// or wss://")


@contextmanager
def quiet_distributed_logging(level: int = logging.CRITICAL):
    """While the CLI talks to a cluster: distributed's own log lines below ``level``
    silenced (a lost scheduler is dozens of lines of tracebacks before durak-sim's own
    line, which says what happened). Library callers keep distributed's logging as it is
    configured; the CLI restores it afterwards."""
    try:
        import distributed  # noqa: F401 - it configures its loggers when imported
    except ImportError:
        yield
        return
    names = ["distributed", "tornado", *(n for n in logging.root.manager.loggerDict
                                          if n.startswith(("distributed.", "tornado.")))]
    saved = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(level)
    try:
        yield
    finally:
        for n, old in saved.items():
            logging.getLogger(n).setLevel(old)


def worker_plugins(plugins: Sequence[str]) -> tuple[str, ...]:
    """The plugins as the workers load them: ``.py`` files by absolute path."""
    return tuple(str(Path(p).resolve()) if p.endswith(".py") else p for p in plugins)


def worker_versions(strategies: Sequence[str], plugins: Sequence[str]) -> dict:
    """On a worker: what decides the games it would play (run by the client's check and
    by every task)."""
    from . import __version__
    from .play import resolve_strategies
    from .registry import load_plugin
    from .rules import RULES_VERSION

    try:
        for p in plugins:
            if p not in _LOADED_PLUGINS:
                load_plugin(p)
                _LOADED_PLUGINS.add(p)
        versions = [s.version for s in resolve_strategies(list(strategies))]
    except ValueError as exc:   # a plugin or a strategy this worker does not have
        return {"error": str(exc)}
    return {"package_version": __version__, "rules_version": RULES_VERSION,
            "versions": versions}


def _mismatch(expected: dict, got: dict) -> str | None:
    if "error" in got:
        return got["error"]
    for key, what in (("package_version", "durak-sim"), ("rules_version", "rules version"),
                      ("versions", "strategy versions")):
        if got.get(key) != expected[key]:
            return f"{what} {got.get(key)} instead of the client's {expected[key]}"
    return None


#: a worker plays the tasks that seat external engines one at a time (its threads share
#: the engines' processes and settings)
_ENGINE_TASK = threading.Lock()


def play_chunk(config_dict: dict, pairing: tuple[str, ...], lo: int, hi: int,
               expected: dict, threads: int | None, host_slots: dict | None = None,
               engine_timeout: float | None = None):
    """On a worker: play deals ``lo .. hi - 1`` of one line-up (``pairing``: its strategies;
    one task). Returns
    ``(games, kernel s, compile s)`` as the local play does, or ``{"error": ...}`` when this
    worker would not play the client's games.

    External engines in the line-up are started for the task, with the client's time limit
    (``engine_timeout``) and the tournament's ruleset, and ended (``quit``, then killed)
    when it ends: a worker outlives the commands whose tasks it plays, and engines kept
    from one would play the next with its settings."""
    from .external import is_engine_spec
    from .play import resolve_strategies
    from .runner import play_deals
    from .tournament_config import TournamentConfig

    config = TournamentConfig.from_dict(config_dict)
    got = worker_versions(config.strategies, expected["plugins"])
    problem = _mismatch(expected, got)
    if problem is not None:
        return {"error": problem}
    if threads is None:
        threads = _worker_threads(host_slots or {})
    strats = resolve_strategies(list(pairing))
    with _CancelWatch() as stop:
        if not any(is_engine_spec(s.name) for s in strats):
            out = play_deals(strats, config, lo, hi, threads, stop)
        else:
            from . import external

            with _ENGINE_TASK:
                external.close_all()   # (none should be left; never one of another command's)
                external.apply_timeout(engine_timeout)
                external.configure(rules=config.rules)
                try:
                    out = play_deals(strats, config, lo, hi, threads, stop)
                finally:
                    external.close_all()
    if stop:
        # (a part of the chunk must never reach a client as the whole of it)
        raise RuntimeError("the dask scheduler cancelled this chunk while it was played")
    return out


class _CancelWatch:
    """On a worker, while a task plays: the kernel's stop flag (``play_deals``' ``stop``),
    set once the scheduler has cancelled the task: its client stopped (Ctrl-C, a kill, a
    lost connection). dask does not stop a running task; without this the chunk played on
    to its end, beside the worker's next tasks. The task's state is read from the worker's
    own record of its tasks, every ``CANCEL_POLL`` seconds."""

    CANCEL_POLL = 0.25

    def __init__(self):
        import numpy as np

        self.kernel_flag = np.zeros(1, np.int64)
        self._done = threading.Event()
        self._thread = None

    def __bool__(self) -> bool:
        return bool(self.kernel_flag[0])

    def __enter__(self):
        try:
            from distributed import get_worker
            from distributed.worker import thread_state

            worker, key = get_worker(), thread_state.key
        except (ImportError, ValueError, AttributeError):   # (not in a worker's task)
            return self
        self._thread = threading.Thread(target=self._watch, args=(worker, key), daemon=True,
                                        name="durak-sim-cancel-watch")
        self._thread.start()
        return self

    def _watch(self, worker, key) -> None:
        while not self._done.wait(self.CANCEL_POLL):
            try:
                task = worker.state.tasks.get(key)
                cancelled = task is None or task.state in ("cancelled", "released",
                                                           "forgotten")
            except Exception:   # pragma: no cover - a dask without this record: play on
                return
            if cancelled:
                self.kernel_flag[0] = 1
                return

    def __exit__(self, *exc) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()


def _worker_threads(host_slots: dict) -> int:
    """Kernel threads of one task: this machine's cores shared among the task slots of
    every worker on it (``host_slots``: host -> slots, as the client saw them; a worker
    that joined later counts its own)."""
    from .kernel.threads import thread_limit
    from .play import cpu_count

    try:
        from distributed import get_worker
        from distributed.comm import get_address_host

        worker = get_worker()
        slots = host_slots.get(get_address_host(worker.address), worker.state.nthreads)
    except (ImportError, ValueError, AttributeError):  # pragma: no cover - not in a worker
        slots = 1
    return max(1, min(thread_limit(), cpu_count() // max(1, int(slots))))


class Cluster:
    """A connection to a dask scheduler whose workers play a tournament's chunks.

    Before the run, a cluster that cannot play is a :class:`UserError` (an unreachable
    scheduler, one without workers for ``worker_wait`` seconds, a worker with other
    versions). During the run, a cluster that fails stops it like Ctrl-C does
    (:class:`durak_sim.runner.Stopped`, whose message says what happened): the scheduler
    lost, no worker or no answer from the scheduler for ``worker_wait`` seconds, a chunk
    whose workers kept dying or that failed on a worker."""

    def __init__(self, address: str, config, threads: int | None = None,
                 worker_wait: float | None = None, timeout: float = CONNECT_TIMEOUT):
        Client = _client_class()
        check_address(address)
        self.address = address
        self.worker_wait = WORKER_WAIT if worker_wait is None else float(worker_wait)
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except KeyboardInterrupt:
            raise KeyboardInterrupt(f"while connecting to the dask scheduler at {address}"
                                    ) from None
        except OSError as exc:   # refused, unknown host, timed out
            while exc.__cause__ is not None and str(exc.__cause__).strip():
                exc = exc.__cause__   # the first error says most (when it says anything)
            why = _first_line(exc) if str(exc).strip() else "no answer"
            raise UserError(f"cannot reach the dask scheduler at {address} (tried for "
                            f"{timeout:g} s): {why}") from None
        except Exception as exc:   # something else answered
            raise UserError(f"{address} does not answer as a dask scheduler "
                            f"({_first_line(exc)})") from None
        try:
            self.threads = threads
            self.config = config
            self.expected = self._expected(config)
            self._check_workers()
        except KeyboardInterrupt:
            self.close()
            raise KeyboardInterrupt(f"while waiting for the workers of the dask scheduler "
                                    f"at {address}") from None
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _expected(config) -> dict:
        from . import __version__
        from .rules import RULES_VERSION

        return {"package_version": __version__, "rules_version": RULES_VERSION,
                "versions": list(config.versions),
                "plugins": list(worker_plugins(config.plugins))}

    def _check_workers(self) -> None:
        try:
            self.client.wait_for_workers(1, timeout=self.worker_wait)
        except TimeoutError:
            raise UserError(f"the dask scheduler at {self.address} has no workers (none "
                            f"for {self.worker_wait:g} s; "
                            f"{option('--worker-wait', 'worker_wait')} sets how long)"
                            ) from None
        except OSError:
            raise UserError(self._lost()) from None
        answers = self.client.run(worker_versions, list(self.config.strategies),
                                  self.expected["plugins"], on_error="return")
        for worker, got in sorted(answers.items()):
            problem = (f"it cannot run durak-sim ({_first_line(got)})"
                       if isinstance(got, BaseException) else _mismatch(self.expected, got))
            if problem is not None:
                raise UserError(f"dask worker {worker} cannot play this tournament: {problem}")
        from distributed.comm import get_address_host

        self.workers = len(answers)
        self.host_slots = {}
        for worker, slots in self.client.nthreads().items():
            host = get_address_host(worker)
            self.host_slots[host] = self.host_slots.get(host, 0) + slots

    def play(self, todo: Sequence[tuple[tuple, int, int]]) -> Iterator[tuple]:
        """Submit every chunk of ``todo`` (``(lineup, lo, hi)``); yield ``(lineup, lo, hi,
        games, kernel s, compile s)`` as each comes back, in the order they finish.
        Closing the iterator early cancels the chunks not yet finished. A cluster that fails raises
        :class:`durak_sim.runner.Stopped` saying what happened."""
        from .external import SETTINGS

        config = self.config.to_dict()
        futures = {}
        finished: queue.SimpleQueue = queue.SimpleQueue()
        for lineup, lo, hi in todo:
            f = self.client.submit(play_chunk, config, tuple(lineup), lo, hi, self.expected,
                                   self.threads, self.host_slots, SETTINGS.timeout,
                                   pure=False, retries=1,
                                   key=f"durak-sim-chunk-{'-'.join(lineup)}-{lo}-{hi}-"
                                       f"{id(self):x}")
            futures[f] = (tuple(lineup), lo, hi)
            f.add_done_callback(finished.put)
        self._seen, self._silent = time.monotonic(), False   # the cluster last seen working
        lost = set()   # finished, but their results died with their worker: played again
        try:
            left = len(futures)
            while left:
                for f in [f for f in lost if f.status not in ("lost", "pending")]:
                    lost.discard(f)
                    finished.put(f)
                try:
                    f = finished.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    self._watch()
                    continue
                out = self._result(f, futures[f])
                if out is None:
                    lost.add(f)
                    continue
                left -= 1
                self._seen = time.monotonic()
                games, kernel_s, compile_s = out
                f.release()
                yield (*futures[f], games, kernel_s, compile_s)
        finally:
            if self.client.status == "running" and not self._silent:
                try:
                    self.client.cancel(list(futures), force=True)
                except Exception:  # pragma: no cover - closing the client cancels them too
                    pass

    def _stop(self, why: str):
        from .runner import Stopped

        return Stopped(why)

    def _result(self, f, chunk: tuple) -> tuple | None:
        """A finished future's games, or ``None`` when its result is lost (its worker
        died before the result was fetched: dask plays it again); else raises
        ``Stopped``."""
        from concurrent.futures import CancelledError

        lineup, lo, hi = chunk
        what = f"{' vs '.join(lineup)} deals {lo}..{hi - 1}"
        if f.status == "lost":
            return None
        try:
            out = f.result(timeout=self.worker_wait)
        except CancelledError as exc:
            if self.client.status != "running" or "connection" in getattr(exc, "reason", ""):
                raise self._stop(self._lost()) from None
            raise self._stop(f"the dask scheduler at {self.address} cancelled {what}"
                             ) from None
        except TimeoutError:
            if f.status in ("lost", "pending"):
                return None
            if not self._answers():
                raise self._stop(self._silence("has not answered")) from None
            raise self._stop(f"cannot fetch {what} from the dask workers of "
                             f"{self.address} (no answer for {self.worker_wait:g} s)"
                             ) from None
        except StrategyFailure:
            raise   # a strategy's own failure: the same line as a local run's
        except Exception as exc:
            if f.status != "error" and not self._answers():   # fetching it failed
                raise self._stop(self._lost()) from None
            if type(exc).__name__ == "KilledWorker":   # (dask gave the chunk up)
                n = getattr(exc, "allowed_failures", 0) + 1
                last = getattr(getattr(exc, "last_worker", None), "address", "?")
                raise self._stop(f"{n} dask worker{'s' if n > 1 else ''} died while playing "
                                 f"{what} (the last: {last})") from None
            raise self._stop(f"a dask worker failed on {what}: {_first_line(exc)}"
                             ) from None
        if isinstance(out, dict):
            raise self._stop(f"dask worker {self._who(f)} cannot play this tournament: "
                             f"{out['error']}")
        return out

    def _answers(self) -> bool:
        if self.client.status != "running":
            return False
        try:
            self.client.nthreads(callback_timeout=POLL_SECONDS)
        except (OSError, TimeoutError):
            return False
        return True

    def _who(self, f) -> str:
        try:
            return ", ".join(self.client.who_has([f]).get(f.key, ())) or "?"
        except Exception:  # pragma: no cover - only to name it
            return "?"

    def _watch(self) -> None:
        """No chunk came back for a while: raise ``Stopped`` when the scheduler is lost,
        or has had no worker or not answered for ``worker_wait`` seconds."""
        if self.client.status != "running":
            raise self._stop(self._lost())
        left = self._seen + self.worker_wait - time.monotonic()
        try:
            workers = len(self.client.nthreads(callback_timeout=max(POLL_SECONDS, left)))
        except (OSError, TimeoutError):
            workers = None
        self._silent = workers is None
        if workers:
            self._seen = time.monotonic()
        elif time.monotonic() - self._seen >= self.worker_wait:
            raise self._stop(self._silence("has not answered" if workers is None
                                           else "has had no worker"))

    def _lost(self) -> str:
        return f"lost the connection to the dask scheduler at {self.address}"

    def _silence(self, what: str) -> str:
        return (f"the dask scheduler at {self.address} {what} for {self.worker_wait:g} s "
                f"({option('--worker-wait', 'worker_wait')})")

    def close(self) -> None:
        try:
            self.client.close(timeout=CONNECT_TIMEOUT)
        except Exception:  # pragma: no cover - closing a broken connection
            pass
