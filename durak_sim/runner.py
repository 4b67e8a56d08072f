"""Playing a tournament's games and storing them the moment they are finished.

On this machine the line-ups (at two players: the pairings) are played interleaved: one
block of games of each unfinished line-up in turn, each block sized to take about
``BLOCK_SECONDS`` of play whatever the line-up's speed (a line-up starts with a small block
and grows it). A block plays its deals in every seating of its line-up
(:mod:`durak_sim.lineups`). So the live progress (:mod:`durak_sim.progress`) knows every
line-up's speed within seconds and its time-left estimate holds. Ctrl-C does not wait for
the block: the kernel begins no further game once it is pressed.

The stored unit stays the *chunk* (``chunk_deals`` deal indices of one line-up,
:mod:`durak_sim.storage`), so the stored files do not depend on timing: a block's games join
its line-up's current chunk, and a chunk is stored as soon as it is complete. A chunk still
being played is saved as a *partial* chunk every ``PARTIAL_SECONDS`` of its play and when
the run stops, and a resume continues it from there: Ctrl-C loses no finished deal, and a
kill loses at most the last ``PARTIAL_SECONDS`` of a line-up's play. Storing runs on a
background thread while the kernel plays on (it releases the GIL).

A dask cluster (:mod:`durak_sim.cluster`) plays whole chunks as tasks instead; they are
stored the same way as they come back.
"""
from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .external import is_engine_spec
from .files import WriteError
from .counts import pentanomial_counts
from .play import play_schedule, prepare
from .progress import Board, live
from .stopping import StopFlag
from .storage import (INT_COLUMNS, Manifest, StorageError, capped_rows, chunk_file,
                      entry_key, game_arrays, games_table, partial_file, read_chunks,
                      result_keys, results_of_rows, seating_column, write_chunk)

#: seconds of play a kernel call aims at: the progress steps this often. Shorter calls cost
#: the threads idle time at each call's end, waiting for its last (slowest) games: hard's
#: games are heavy-tailed (benchmarks/RESULTS.md, 2026-12-04: the default tournament's play
#: 34-42 s at 2 s, 55-57 s at 0.5 s; four players, 50 deals of the four levels, 56 s and 74 s)
BLOCK_SECONDS = 2.0
#: games of a line-up's first block (its speed is unknown: 16 deal pairs at two players, one
#: deal in its 24 seatings at four), and the growth per block at most
FIRST_BLOCK_GAMES, GROWTH = 32, 8
#: a chunk being played is saved (as a partial chunk) after this many seconds of its play
PARTIAL_SECONDS = 2.0
#: chunks played but not yet stored, at most (the kernel does not wait for storage)
STORE_QUEUE = 3


class Stopped(Exception):
    """Ctrl-C stopped the play, or a failing cluster did (the message says what happened);
    everything played is saved. ``played``: what the session played (:class:`Played`), set
    by :func:`play`."""

    played = None


@dataclass
class Played:
    """What one session played: ``deals`` (deal indices x line-ups) and ``games``, kernel
    and compile seconds, and the counts of every two-player chunk it stored by
    ``(file, sha256)``."""

    deals: int = 0
    games: int = 0
    kernel_seconds: float = 0.0
    compile_seconds: float = 0.0
    chunk_counts: dict = field(default_factory=dict)
    chunks_stored: int = 0
    partials_saved: int = 0


# --------------------------------------------------------------------------------------
# Games of a range of deals
# --------------------------------------------------------------------------------------
class BlockSizer:
    """Deals per kernel call, so that a call takes about ``BLOCK_SECONDS`` of play: from
    the speed over every call so far (one deal of a slow pairing may take a hundred times
    its median, so the last call alone would mislead), growing at most ``GROWTH`` times a
    call from a small first one (``FIRST_BLOCK_GAMES`` games: of ``games_per_deal`` each, at
    least one deal), and never more than ``most``.

    >>> BlockSizer().size, BlockSizer(games_per_deal=24).size, BlockSizer(4, most=5).size
    (16, 1, 5)
    """

    def __init__(self, games_per_deal: int = 2, most: int | None = None):
        first = max(1, FIRST_BLOCK_GAMES // games_per_deal)
        self.size = first if most is None else min(first, most)
        self.most = most
        self.deals, self.seconds = 0, 0.0

    def played(self, n: int, seconds: float) -> None:
        self.deals += n
        self.seconds += seconds
        rate = self.deals / self.seconds if self.seconds > 0 else float("inf")
        self.size = int(min(max(1.0, rate * BLOCK_SECONDS), n * GROWTH))
        if self.most is not None:
            self.size = min(self.size, self.most)


def play_deals(strats, config, lo: int, hi: int, threads, stop=None) -> tuple:
    """Deals ``lo .. hi - 1`` of one line-up (``strats``, its strategies in line-up order),
    each once in every seating (at two players: twice, the seats swapped), in one kernel
    call per group of seatings that are rotations of one another
    (``config.seating_plan``): ``((deals, seatings, columns), kernel s, compile s)``, the
    games in deal order, seatings in order within a deal, the result columns narrowed to
    their stored types. ``stop`` (a :class:`StopFlag`) set during the play: the deals
    before the first one not finished in every seating."""
    plan = config.seating_plan([s.name for s in strats])
    k = sum(len(members) for _, members in plan)
    deals = np.arange(lo, hi, dtype=np.int64)
    batches, seconds, compile_s = [], 0.0, 0.0
    lost = []   # per call, the forfeits (--forfeit: an engine's failure scored as its loss)
    for base, members in plan:
        rots = np.array([r for r, _ in members], dtype=np.int64)
        seated = [strats[i] for i in base]
        flag = None if stop is None else stop.kernel_flag
        d, r = np.repeat(deals, len(rots)), np.tile(rots, len(deals))
        if config.forfeit or any(is_engine_spec(s.name) for s in seated):
            # external engines: each failure one line naming the engine, its seat, the
            # seed and the deal, or with --forfeit scored as its loss
            from .engine_match import play_schedule_forfeit

            lost.append([])
            batch = play_schedule_forfeit(seated, config.seed, d, r, rules=config.rules,
                                          forfeit=config.forfeit, stop=flag,
                                          forfeits=lost[-1])
        else:
            batch = play_schedule(seated, config.seed, d, r, rules=config.rules,
                                  threads=threads, stop=flag)
        batches.append(batch)
        seconds += batch.seconds
        compile_s += batch.compile_seconds
    done = min(len(b) // len(m) for b, (_, m) in zip(batches, plan))
    if len(plan) == 1:   # (two players: one call, the games already in order)
        rows = batches[0].results[:done * k]
    else:
        width = batches[0].results.shape[1]
        rows = np.empty((done, k, width), np.int64)
        for b, (_, members) in zip(batches, plan):
            rows[:, [g for _, g in members]] = \
                b.results[:done * len(members)].reshape(done, len(members), width)
        rows = rows.reshape(done * k, width)
    cols = {c: v.astype(INT_COLUMNS.get(c, np.int8))
            for c, v in results_of_rows(rows, config.players).items()}
    cols[CAPPED] = capped_rows(rows)
    if config.forfeit:   # the seat that forfeited each game, -1 for none (not stored)
        seat = np.full((done, k), -1, np.int8)
        for (_, members), forfeits in zip(plan, lost):
            for f in forfeits:
                j, m = divmod(f.game, len(members))
                if j < done:
                    seat[j, members[m][1]] = f.seat
        cols[FORFEIT] = seat.reshape(-1)
    return ((np.repeat(deals[:done], k), np.tile(np.arange(k, dtype=np.int64), done), cols),
            seconds, compile_s)


#: the column of a block's games that --forfeit adds: the seat that forfeited, -1 for none;
#: the manifest keeps each chunk's forfeits (``forfeits_of``), the games table does not
FORFEIT = "forfeit"
#: the column of a block's games that says which ended at the cap on play (rules E12, a
#: draw); the manifest keeps each chunk's (``capped_of``), the games table does not
CAPPED = "capped"


def forfeits_of(games: tuple) -> list:
    """``[{"deal", "seating", "seat"}]`` of the forfeited games among ``games``."""
    deals, rots, cols = games
    seat = cols.get(FORFEIT)
    if seat is None:
        return []
    return [{"deal": int(deals[g]), "seating": int(rots[g]), "seat": int(seat[g])}
            for g in np.flatnonzero(seat >= 0)]


def capped_of(games: tuple) -> list:
    """``[{"deal", "seating"}]`` of the games among ``games`` that the cap on play ended."""
    deals, rots, cols = games
    return [{"deal": int(deals[g]), "seating": int(rots[g])}
            for g in np.flatnonzero(cols[CAPPED])]


def _extras(games: tuple) -> dict:
    """A chunk's or partial's manifest fields beyond its games: its forfeits and the games
    the cap on play ended, each when there are any."""
    return {k: v for k, v in (("forfeits", forfeits_of(games)), ("capped", capped_of(games)))
            if v}


def _concat(parts: list) -> tuple:
    if len(parts) == 1:
        return parts[0]
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            {k: np.concatenate([p[2][k] for p in parts]) for k in parts[0][2]})


def block_scores(games: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The first-named side's W/D/L in games and pentanomial counts of a block's games."""
    _, rots, cols = games
    draw = cols["outcome"] == 1
    lost = ~draw & (cols["durak"] == rots % 2)
    n = len(rots)
    d, l = int(draw.sum()), int(lost.sum())
    return np.array([n - d - l, d, l]), pentanomial_counts(cols, rots)


def _advance(board: Board, config, key: tuple, n: int, seconds: float, games: tuple) -> None:
    """Row ``key`` of the board played ``n`` deals (``games``) in ``seconds``, with its
    running score when the board is shown: at two players W-D-L and the paired Elo, at more
    each strategy's mean place and Durak rate (:class:`durak_sim.place_counts.LiveScore`)."""
    if config.players == 2:
        wdl, pent = block_scores(games) if board.shown else (None, None)
        board.advance(key, n, seconds, wdl=wdl, pent=pent)
        return
    board.advance(key, n, seconds)
    if board.shown:
        row = board.rows[key]
        if row.live is None:
            from .place_counts import LiveScore

            row.live = LiveScore(key, config.seatings(key), config.rules.teams)
        row.live.add(games[1], games[2])


# --------------------------------------------------------------------------------------
# Storage (one background thread: the only writer of the manifest while it runs)
# --------------------------------------------------------------------------------------
class _Store:
    """Writes chunks and partials on its own thread, the manifest after each; then calls
    ``on_saved(played)`` (the session's timing, kept up to date for a run that is killed)."""

    def __init__(self, out: Path, manifest: Manifest, config, index: dict, played: Played,
                 on_saved=None):
        self.out, self.manifest, self.config, self.index = out, manifest, config, index
        self.played, self.on_saved = played, on_saved
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="durak-sim-store")
        self.pending: list = []   # (kind, future), oldest first

    def _table(self, key, games):
        deals, rots, cols = games
        c = self.config
        return games_table(c.seed, deals, rots, c.names, c.name_versions,
                           [self.index[n] for n in key], cols, c.seatings(key))

    def _entry(self, key, lo, hi) -> dict:
        return {"pairing" if self.config.players == 2 else "lineup": list(key),
                "deal_lo": lo, "deal_hi": hi}

    def _write(self, rel: str, table) -> tuple[int, str]:
        try:
            return write_chunk(self.out / rel, table)
        except OSError as exc:   # a full disk, a folder gone: say where, keep what is stored
            raise WriteError(f"cannot write {self.out / rel}: {exc.strerror or exc}"
                             ) from None

    def _chunk(self, key, lo, hi, games):
        table = self._table(key, games)
        rel = chunk_file(*key, lo, hi)
        rows, sha = self._write(rel, table)
        m = self.manifest
        entry = {**self._entry(key, lo, hi), "file": rel, "rows": rows, "sha256": sha,
                 **_extras(games)}
        m.chunks.append(entry)
        stale = [p for p in m.partials if (entry_key(p), p["deal_lo"]) == (key, lo)]
        m.partials[:] = [p for p in m.partials if p not in stale]
        m.save(self.out)   # the chunk is finished from here on
        # its partial's file, also one the manifest forgot as damaged (its deals replayed)
        for rel_p in {p["file"] for p in stale} | {partial_file(*key, lo, hi)}:
            (self.out / rel_p).unlink(missing_ok=True)
        self._saved()
        if self.config.players > 2:   # (counted when reported, chunk by chunk)
            return rel, sha, None
        from .report import count_table

        return rel, sha, count_table(table, self.config.strategies)

    def _partial(self, key, lo, hi, games):
        table = self._table(key, games)
        rel = partial_file(*key, lo, hi)
        rows, sha = self._write(rel, table)
        m = self.manifest
        m.partials[:] = [p for p in m.partials if (entry_key(p), p["deal_lo"]) != (key, lo)]
        entry = {**self._entry(key, lo, hi), "file": rel, "played_hi": int(games[0][-1]) + 1,
                 "rows": rows, "sha256": sha, **_extras(games)}
        m.partials.append(entry)
        m.save(self.out)
        self._saved()

    def _saved(self) -> None:
        if self.on_saved is not None:
            self.on_saved(self.played)

    def chunk(self, key, lo, hi, games) -> None:
        self.finish(keep=STORE_QUEUE - 1)
        self.pending.append(("chunk", self.pool.submit(self._chunk, key, lo, hi, games)))

    def partial(self, key, lo, hi, games) -> None:
        self.finish(keep=STORE_QUEUE - 1)
        self.pending.append(("partial", self.pool.submit(self._partial, key, lo, hi, games)))

    def finish(self, keep: int = 0) -> None:
        """Wait until at most ``keep`` stores are pending; their errors are raised here."""
        while len(self.pending) > keep:
            kind, future = self.pending[0]
            out = future.result()
            self.pending.pop(0)
            if kind == "chunk":
                rel, sha, counts = out
                if counts is not None:
                    self.played.chunk_counts[(rel, sha)] = counts
                self.played.chunks_stored += 1
            else:
                self.played.partials_saved += 1

    def close(self) -> None:
        self.pool.shutdown(wait=True)


def load_partials(out: Path, manifest: Manifest, config) -> dict:
    """The partial chunks stored in ``out`` that are intact and belong to chunks still to
    play: ``{(*lineup, lo): (played_hi, games)}``; the others are forgotten (their deals
    are played again)."""
    from .tournament_config import games_problem

    todo = {(*k, lo) for lo, _ in config.chunk_ranges() for k in config.lineups()}
    todo -= manifest.done
    seating = seating_column(config.players)
    keep, found = [], {}
    for p in manifest.partials:
        key = (*entry_key(p), p["deal_lo"])
        if key not in todo or key in found:
            continue
        try:
            table = read_chunks(out, [p])
            if games_problem(config, p, table, hi=p["played_hi"]):
                raise StorageError("not the games the manifest says")
            cols = game_arrays(table, config.names,
                               ("deal", seating, *result_keys(config.players)))
            deals = cols.pop("deal")
            rots = cols.pop(seating).astype(np.int64)
            _extra_columns(p, config, deals, rots, cols)
        except (StorageError, OSError, KeyError, ValueError, TypeError):
            print(f"durak-sim: warning: partial chunk {p.get('file')} is missing or damaged; "
                  f"playing its deals again", file=sys.stderr)
            continue
        found[key] = (int(p["played_hi"]), (deals, rots, cols))
        keep.append(p)
    manifest.partials[:] = keep
    return found


def _extra_columns(p: dict, config, deals, rots, cols: dict) -> None:
    """Into ``cols``: the columns a partial's manifest entry ``p`` keeps beside its games,
    the forfeits (with ``--forfeit``) and the games the cap on play ended. ``KeyError``: it
    names a game the partial does not hold."""
    at = {(int(d), int(r)): g for g, (d, r) in enumerate(zip(deals, rots))}
    if config.forfeit:
        seat = np.full(len(deals), -1, np.int8)
        for f in p.get("forfeits", []):
            seat[at[f["deal"], f["seating"]]] = f["seat"]
        cols[FORFEIT] = seat
    capped = np.zeros(len(deals), bool)
    for c in p.get("capped", []):
        capped[at[c["deal"], c["seating"]]] = True
    cols[CAPPED] = capped


# --------------------------------------------------------------------------------------
# Local play: line-ups interleaved, blocks sized by time
# --------------------------------------------------------------------------------------
class _Lineup:
    """One line-up's play: its chunks still to play and the games of the current one."""

    def __init__(self, key: tuple, strats, seatings: int, ranges: list, partials: dict):
        self.key, self.strats, self.seatings = key, strats, seatings
        self.ranges = ranges          # (lo, hi) chunks to play, in order
        self.k = 0
        self.parts: list = []         # games of the current chunk so far
        self.saved = 0                # of them, deals already in a partial chunk
        self.since_save = 0.0         # play seconds since the last save of the chunk
        self.sizer = BlockSizer(seatings)
        self.partials = partials
        self._enter_chunk()

    def _enter_chunk(self) -> None:
        self.parts, self.saved, self.since_save = [], 0, 0.0
        if self.k < len(self.ranges):
            lo, _ = self.ranges[self.k]
            self.pos = lo
            got = self.partials.get((*self.key, lo))
            if got is not None:
                self.pos, games = got
                self.parts = [games]
                self.saved = self.pos - lo

    @property
    def finished(self) -> bool:
        return self.k >= len(self.ranges)

    @property
    def chunk(self) -> tuple[int, int]:
        return self.ranges[self.k]


def play_local(out: Path, config, manifest: Manifest, threads, board: Board, stop: StopFlag,
               played: Played, store: _Store, strats: dict, partials: dict) -> None:
    """Play every chunk not in ``manifest`` here, interleaved by line-up (module docstring).
    Raises :class:`Stopped` after saving when ``stop`` is set."""
    done = manifest.done
    runs = []
    for key in config.lineups():
        ranges = [(lo, hi) for lo, hi in config.chunk_ranges() if (*key, lo) not in done]
        if ranges:
            runs.append(_Lineup(key, [strats[n] for n in key], len(config.seatings(key)),
                                ranges, partials))
    for p in runs:
        if p.parts:
            board.rows[p.key].done += p.pos - p.chunk[0]
    try:
        while not stop:
            active = [p for p in runs if not p.finished]
            if not active:
                break
            for p in active:
                if stop:
                    break
                _play_block(p, config, threads, board, played, store, stop)
    except BaseException:
        _save_partials(runs, store, board)   # whatever stopped it, keep what was played
        raise
    if stop:
        _save_partials(runs, store, board)
        raise Stopped


def _save_partials(runs: list, store: _Store, board: Board) -> None:
    board.status = "stopping: saving every finished deal ..."
    for p in runs:
        if not p.finished and p.pos > p.chunk[0] + p.saved:
            store.partial(p.key, *p.chunk, _concat(p.parts))
    store.finish()


def _play_block(p: _Lineup, config, threads, board: Board, played: Played,
                store: _Store, stop: "StopFlag | None" = None) -> None:
    lo, hi = p.chunk
    n = min(p.sizer.size, hi - p.pos)
    games, kernel_s, compile_s = play_deals(p.strats, config, p.pos, p.pos + n, threads, stop)
    played.kernel_seconds += kernel_s
    played.compile_seconds += compile_s
    if len(games[0]) < p.seatings * n:   # Ctrl-C during the call: the deals finished before
        n = len(games[0]) // p.seatings
        if n == 0:
            return
    played.deals += n
    played.games += n * p.seatings
    p.pos += n
    p.parts.append(games)
    p.since_save += kernel_s
    _advance(board, config, p.key, n, kernel_s, games)
    p.sizer.played(n, kernel_s)
    if p.pos == hi:
        store.chunk(p.key, lo, hi, _concat(p.parts))
        p.k += 1
        p._enter_chunk()
    elif p.since_save >= PARTIAL_SECONDS:
        games = _concat(p.parts)
        p.parts = [games]
        store.partial(p.key, lo, hi, games)
        p.saved = p.pos - lo
        p.since_save = 0.0


# --------------------------------------------------------------------------------------
# The whole play of a session
# --------------------------------------------------------------------------------------
def play(out: Path, config, manifest: Manifest, threads, progress: bool, console,
         cluster=None, on_saved=None) -> Played:
    """Play (here or on ``cluster``) every chunk of ``config`` not yet in ``manifest`` and
    store it; return what was played. Ctrl-C raises :class:`Stopped` once everything played
    is saved (locally: every finished deal; on a cluster: every finished chunk).
    ``on_saved(played)`` is called after each save to the manifest, on the store's thread
    (it must not raise: an error there fails the store)."""
    from .play import resolve_strategies

    names = list(config.names)
    index = {n: i for i, n in enumerate(names)}
    played = Played()
    partials = load_partials(out, manifest, config)
    done = manifest.done
    kind = "gauntlet" if config.gauntlet else "round robin"
    if config.players == 2:
        board = Board(f"{kind}: {config.deals:,} deal pairs per pairing, seed {config.seed}",
                      unit="deal pairs", games_per_unit=2)
    else:
        board = Board(f"{kind} at {config.players} players ({config.rules.tag}): "
                      f"{config.deals:,} deals per line-up, each in every seating, seed "
                      f"{config.seed}", unit="deals")
    for key in config.lineups():
        stored = sum(hi - lo for lo, hi in config.chunk_ranges() if (*key, lo) in done)
        if config.players == 2:
            board.add(key, f"{key[0]} vs {key[1]}", config.deals, stored, a=key[0], b=key[1])
        else:
            board.add(key, " ".join(key), config.deals, stored,
                      games_per_unit=len(config.seatings(key)))
    if board.done == board.total:
        return played
    strats = dict(zip(names, resolve_strategies(names)))
    if cluster is None:
        # compile first (it says so when that takes long), then take Ctrl-C as a flag
        # (engines are not compiled; the kernel only when some line-up plays on it)
        compiled = [s.for_rules(config.rules) for s in strats.values() if s.compiled]
        kernel = any(all(strats[n].compiled for n in key) for key in config.lineups())
        played.compile_seconds += prepare(compiled, kernel=kernel, seats=config.players)
    store = _Store(out, manifest, config, index, played, on_saved)
    try:
        with live(board, progress, console):
            if cluster is not None:
                _play_cluster(cluster, config, manifest, board, played, store)
            else:
                with StopFlag(f"; resume with: durak-sim tournament --resume {out}") as stop:
                    play_local(out, config, manifest, threads, board, stop, played, store,
                               strats, partials)
            store.finish()
    except Stopped as exc:
        exc.played = played
        raise
    finally:
        try:
            store.finish()
        except BaseException:  # pragma: no cover - the first error is the one raised
            pass
        store.close()
    return played


def _play_cluster(cluster, config, manifest: Manifest, board: Board, played: Played,
                  store: _Store) -> None:
    done = manifest.done
    todo = [(key, lo, hi) for lo, hi in config.chunk_ranges() for key in config.lineups()
            if (*key, lo) not in done]
    board.status = f"playing on {cluster.workers} dask worker{'s' if cluster.workers != 1 else ''}"
    chunks = cluster.play(todo)
    try:
        for key, lo, hi, games, kernel_s, compile_s in chunks:
            played.kernel_seconds += kernel_s
            played.compile_seconds += compile_s
            played.deals += hi - lo
            played.games += len(games[0])
            _advance(board, config, key, hi - lo, kernel_s, games)
            store.chunk(key, lo, hi, games)
    except (KeyboardInterrupt, Stopped) as exc:   # Ctrl-C, or the cluster failed
        chunks.close()   # the cluster's unfinished chunks are cancelled
        store.finish()
        raise Stopped(*exc.args) from None
    finally:
        chunks.close()
