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

from pathlib import Path
from typing import Iterator, Sequence

from .errors import UserError

#: seconds to wait for the scheduler, and for a first worker
CONNECT_TIMEOUT = 30
_LOADED_PLUGINS: set[str] = set()


def _client_class():
    try:
        from distributed import Client
    except ImportError:
        raise UserError("--scheduler needs dask.distributed: pip install "
                        "'durak-sim[distributed]'") from None
    return Client


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


def play_chunk(config_dict: dict, pairing: tuple[str, str], lo: int, hi: int,
               expected: dict, threads: int | None, host_slots: dict | None = None):
    """On a worker: play deals ``lo .. hi - 1`` of one pairing (one task). Returns
    ``(games, kernel s, compile s)`` as the local play does, or ``{"error": ...}`` when this
    worker would not play the client's games."""
    from .play import resolve_strategies
    from .runner import play_deals
    from .tournament import TournamentConfig

    config = TournamentConfig.from_dict(config_dict)
    got = worker_versions(config.strategies, expected["plugins"])
    problem = _mismatch(expected, got)
    if problem is not None:
        return {"error": problem}
    if threads is None:
        threads = _worker_threads(host_slots or {})
    return play_deals(resolve_strategies(list(pairing)), config, lo, hi, threads)


def _worker_threads(host_slots: dict) -> int:
    """Kernel threads of one task: this machine's cores shared among the task slots of
    every worker on it (``host_slots``: host -> slots, as the client saw them; a worker
    that joined later counts its own)."""
    import numba

    from .play import cpu_count

    try:
        from distributed import get_worker
        from distributed.comm import get_address_host

        worker = get_worker()
        slots = host_slots.get(get_address_host(worker.address), worker.state.nthreads)
    except (ImportError, ValueError, AttributeError):  # pragma: no cover - not in a worker
        slots = 1
    return max(1, min(numba.config.NUMBA_NUM_THREADS, cpu_count() // max(1, int(slots))))


class Cluster:
    """A connection to a dask scheduler whose workers play a tournament's chunks."""

    def __init__(self, address: str, config, threads: int | None = None,
                 timeout: float = CONNECT_TIMEOUT):
        Client = _client_class()
        self.address = address
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise UserError(f"cannot reach the dask scheduler at {address}: "
                            f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                            ) from None
        try:
            self.threads = threads
            self.config = config
            self.expected = self._expected(config)
            self._check_workers(timeout)
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

    def _check_workers(self, timeout: float) -> None:
        try:
            self.client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            raise UserError(f"the dask scheduler at {self.address} has no workers "
                            f"({type(exc).__name__} after {timeout:g} s)") from None
        answers = self.client.run(worker_versions, list(self.config.strategies),
                                  self.expected["plugins"])
        for worker, got in sorted(answers.items()):
            problem = _mismatch(self.expected, got)
            if problem is not None:
                raise UserError(f"dask worker {worker} cannot play this tournament: {problem}")
        from distributed.comm import get_address_host

        self.workers = len(answers)
        self.host_slots = {}
        for worker, slots in self.client.nthreads().items():
            host = get_address_host(worker)
            self.host_slots[host] = self.host_slots.get(host, 0) + slots

    def play(self, todo: Sequence[tuple[str, str, int, int]]) -> Iterator[tuple]:
        """Submit every chunk of ``todo``; yield ``(a, b, lo, hi, games, kernel s,
        compile s)`` as each comes back, in the order they finish. Closing the iterator
        early cancels the chunks not yet finished."""
        from distributed import as_completed

        config = self.config.to_dict()
        futures = {}
        for a, b, lo, hi in todo:
            f = self.client.submit(play_chunk, config, (a, b), lo, hi, self.expected,
                                   self.threads, self.host_slots, pure=False, retries=1,
                                   key=f"durak-sim-chunk-{a}-{b}-{lo}-{hi}-"
                                       f"{id(self):x}")
            futures[f] = (a, b, lo, hi)
        try:
            for f in as_completed(list(futures), loop=self.client.loop):
                a, b, lo, hi = futures[f]
                try:
                    out = f.result()
                except Exception as exc:
                    raise RuntimeError(f"a dask worker failed on {a} vs {b} deals "
                                       f"{lo}..{hi - 1}: {type(exc).__name__}: {exc}") from exc
                if isinstance(out, dict):
                    raise UserError(f"a dask worker cannot play this tournament: "
                                    f"{out['error']}")
                games, kernel_s, compile_s = out
                f.release()
                yield a, b, lo, hi, games, kernel_s, compile_s
        finally:
            self.client.cancel(list(futures), force=True)

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # pragma: no cover - closing a broken connection
            pass
