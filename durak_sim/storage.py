"""Durable tournament results: Parquet chunks of games and a JSON manifest of what is done.

An output folder holds (see :mod:`durak_sim.tournament` for the rest of it)::

    manifest.json                       the tournament's config and every finished chunk
    games/<a>_vs_<b>/deals-<lo>-<last>.parquet   one chunk: deals lo..last of pairing a, b
    games/<a>_vs_<b>_vs_<c>/...         (a line-up of three or more players)

A *chunk* is the games of one line-up (at two players: one pairing) over one range of deal
indices, each deal once in every seating of the line-up (:mod:`durak_sim.lineups`; at two
players twice, ``swap`` 0 with ``a`` in seat 0, then the seats swapped). Both kinds of file
are written atomically:
the bytes go to a temporary file in the same folder, are flushed to disk, and then
``os.replace`` puts them in place, so a crash or SIGKILL leaves either the old file or the
new one, never half of one. A chunk is *finished* once the manifest lists it (with its row
count and SHA-256); a chunk file the manifest does not list is from an interrupted write
and is played again on resume (the seed contract makes it the same games).

Parquet columns, one row per game (the ``games`` frame of :mod:`durak_sim.stats` plus
strategy versions). Small integers are stored narrow and names as dictionaries whose
dictionary is the whole tournament's strategy list, so every chunk has the same schema:

==================================  ===============================================
``seed`` int64, ``deal`` int64      master seed, deal index
``swap`` int8                       0, or 1 for the seat-swapped twin
``seat0, seat1`` dictionary<str>    strategy names per seat (int16 codes)
``seat0_version, seat1_version``    strategy versions (int32)
``outcome`` dictionary<str>         ``"durak"`` or ``"draw"`` (int8 codes)
``durak`` int8                      losing seat, -1 on a draw
``first_attacker`` int8             seat that attacked first
``bouts`` int16, ``cards_left`` int8  bouts played, cards left in the Durak's hand
==================================  ===============================================

At three to six players (``N``) a chunk's columns are ``seed``, ``deal``, ``seating``
(int16, the index of the seating in :func:`durak_sim.lineups.seatings`), ``seat0`` ..
``seat{N-1}`` (dictionary names) and their ``_version`` columns, ``place0`` ..
``place{N-1}`` (int8: each seat's place, 1 first out; the seats of a draw, or of a losing
team, share the last place they reach), ``outcome``, ``durak`` (-1 on a draw and with
teams), ``durak_team`` (int8: the losing team, 0 for seats 0, 2, 4; -1 on a draw or without
teams), ``first_attacker``, ``bouts`` and ``cards_left``.

>>> import numpy as np
>>> cols = {"outcome": np.array([0, 1]), "durak": np.array([1, -1]),
...         "first_attacker": np.array([0, 1]), "bouts": np.array([9, 20]),
...         "cards_left": np.array([3, 0])}
>>> t = games_table(7, np.array([4, 4]), np.array([0, 1]), ["easy", "random"], [1, 1],
...                 (0, 1), cols)
>>> t.column("seat0").to_pylist(), t.column("outcome").to_pylist()
(['easy', 'random'], ['durak', 'draw'])
"""
from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import UserError
from .files import TMP_SUFFIX, StorageError, atomic_write_text, sha256_file

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "durak-sim/tournament/1"
GAMES_DIR = "games"
OUTCOMES = ("durak", "draw")   # dictionary of the ``outcome`` column: code 1 is a draw

#: column name -> numpy dtype of the narrow integer columns as stored
INT_COLUMNS = {"seed": np.int64, "deal": np.int64, "swap": np.int8,
               "seat0_version": np.int32, "seat1_version": np.int32, "durak": np.int8,
               "first_attacker": np.int8, "bouts": np.int16, "cards_left": np.int8,
               "seating": np.int16, "durak_team": np.int8}
COLUMNS = ("seed", "deal", "swap", "seat0", "seat1", "seat0_version", "seat1_version",
           "outcome", "durak", "first_attacker", "bouts", "cards_left")


def seat_columns(players: int) -> list[str]:
    return [f"seat{s}" for s in range(players)]


def seating_column(players: int) -> str:
    """The column of a game's seating: ``swap`` at two players, else ``seating``."""
    return "swap" if players == 2 else "seating"


def chunk_columns(players: int) -> tuple[str, ...]:
    """The columns of a chunk of games at a table of ``players`` (:data:`COLUMNS` at two).

    >>> chunk_columns(3)[:6], chunk_columns(3)[-9:]
    (('seed', 'deal', 'seating', 'seat0', 'seat1', 'seat2'), ('place0', 'place1', 'place2', 'outcome', 'durak', 'durak_team', 'first_attacker', 'bouts', 'cards_left'))
    """
    if players == 2:
        return COLUMNS
    seats = seat_columns(players)
    return ("seed", "deal", "seating", *seats, *(f"{c}_version" for c in seats),
            *(f"place{s}" for s in range(players)), "outcome", "durak", "durak_team",
            "first_attacker", "bouts", "cards_left")


def id_columns(players: int) -> tuple[str, ...]:
    """The columns that say which games a chunk holds."""
    seats = seat_columns(players)
    return ("seed", "deal", seating_column(players), *seats, *(f"{c}_version" for c in seats))


def is_name_column(column: str) -> bool:
    """Whether a chunk column holds strategy names (``seat0`` ..)."""
    return re.fullmatch(r"seat\d", column) is not None


def result_keys(players: int) -> tuple[str, ...]:
    """The per-game result columns of a table of ``players`` (:func:`result_columns`)."""
    base = ("outcome", "durak", "first_attacker", "bouts", "cards_left")
    if players == 2:
        return base
    return (*base, "durak_team", *(f"place{s}" for s in range(players)))


# --------------------------------------------------------------------------------------
# Chunks
# --------------------------------------------------------------------------------------
def _column_type(column: str):
    import pyarrow as pa

    if is_name_column(column):
        return pa.dictionary(pa.int16(), pa.string())
    if column == "outcome":
        return pa.dictionary(pa.int8(), pa.string())
    if column.endswith("_version"):
        return pa.int32()
    if column.startswith("place"):
        return pa.int8()
    return pa.from_numpy_dtype(INT_COLUMNS[column])


def _schema(players: int = 2):
    import pyarrow as pa

    return pa.schema([(c, _column_type(c)) for c in chunk_columns(players)])


def _default_seatings(lineup: Sequence) -> list:
    from .lineups import seatings

    return seatings(tuple(lineup))


def games_table(seed: int, deals: np.ndarray, rots: np.ndarray, names: Sequence[str],
                versions: Sequence[int], pairing: Sequence[int], cols: dict,
                seatings: Sequence[Sequence[int]] | None = None):
    """The Arrow table of one chunk's games.

    ``names``/``versions``: every strategy of the tournament (the dictionary of the name
    columns); ``pairing``: the line-up, as indices in ``names``; ``rots``: each game's
    seating, an index in ``seatings`` (default :func:`durak_sim.lineups.seatings` of the
    line-up without teams), where seating ``perm`` puts line-up position ``perm[s]`` in
    seat ``s`` (at two players: ``rots`` 1 swaps the seats); ``cols``: per game ``outcome``
    (0 a Durak, 1 a draw), ``durak``, ``first_attacker``, ``bouts``, ``cards_left`` and at
    more than two players ``durak_team`` and ``place0`` .. (see :func:`result_columns`)."""
    import pyarrow as pa

    players = len(pairing)
    perms = np.asarray(seatings if seatings is not None else _default_seatings(pairing),
                       dtype=np.int64)
    rots = np.asarray(rots)
    n = len(rots)
    who = np.asarray(pairing, dtype=np.int16)[perms[rots]]   # (games, seats) name codes
    dictionary = pa.array(list(names), pa.string())
    ver = np.asarray(versions, dtype=np.int32)
    arrays = {"seed": np.full(n, seed, np.int64), "deal": np.asarray(deals, np.int64),
              seating_column(players): rots.astype(INT_COLUMNS[seating_column(players)]),
              "outcome": pa.DictionaryArray.from_arrays(
                  pa.array(np.asarray(cols["outcome"]).astype(np.int8)),
                  pa.array(list(OUTCOMES), pa.string()))}
    for s, c in enumerate(seat_columns(players)):
        arrays[c] = pa.DictionaryArray.from_arrays(pa.array(who[:, s]), dictionary)
        arrays[f"{c}_version"] = ver[who[:, s]]
    for c in result_keys(players):
        if c != "outcome":
            arrays[c] = np.asarray(cols[c]).astype(INT_COLUMNS.get(c, np.int8))
    return pa.table([pa.array(arrays[c]) if isinstance(arrays[c], np.ndarray) else arrays[c]
                     for c in chunk_columns(players)], schema=_schema(players))


def result_columns(batch) -> dict:
    """Per-game result columns of a :class:`durak_sim.play.GameBatch` as numpy arrays.

    The same values as ``batch.frame()`` (``outcome`` as 0 = a Durak, 1 = a draw), taken
    straight from the kernel's result rows: building the frame's string columns costs a
    large fraction of the kernel time at millions of games."""
    return results_of_rows(batch.results, batch.rules.players)


def results_of_rows(r: np.ndarray, players: int) -> dict:
    """:func:`result_columns` of the kernel's result rows ``r`` of games at ``players``."""
    from .kernel import layout as E   # the R_* column layout of the kernel's result rows

    out = {"outcome": r[:, E.R_OUTCOME], "durak": r[:, E.R_DURAK],
           "first_attacker": r[:, E.R_FIRST], "bouts": r[:, E.R_BOUTS],
           "cards_left": r[:, E.R_CARDS_LEFT]}
    if players > 2:
        out["durak_team"] = r[:, E.R_DURAK_TEAM]
        for s in range(players):
            out[f"place{s}"] = r[:, E.R_PLACES + s]
    return out


def capped_words(n: int) -> tuple[str, str]:
    """``n`` games that the cap on play ended (rules E12), in words: ``("3 games", "went on
    past 3,000 actions and ended as a draw among the seats still playing")``."""
    from .kernel.layout import PLAY_CAP

    return (f"{n:,} game{'s' if n != 1 else ''}",
            f"went on past {PLAY_CAP:,} actions and ended as a draw among the seats still "
            f"playing")


def capped_rows(r: np.ndarray) -> np.ndarray:
    """Per game of the kernel's result rows ``r``: did the cap on play end it (rules E12)?"""
    from .kernel import layout as E

    return r[:, E.R_CAPPED] != 0


def write_chunk(path: Path, table) -> tuple[int, str]:
    """Write one chunk atomically (zstd Parquet); return ``(rows, sha256)``."""
    import pyarrow.parquet as pq

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + TMP_SUFFIX)
    try:
        with open(tmp, "wb") as f:
            # every column but ``deal`` Parquet-dictionary-encoded (names, constants, small
            # integers: bit-packed codes); ``deal``, a run of consecutive indices, is
            # delta-encoded: a dictionary would take three times as long to read, and space
            pq.write_table(table, f, compression="zstd",
                           use_dictionary=[c for c in table.column_names if c != "deal"],
                           column_encoding={"deal": "DELTA_BINARY_PACKED"},
                           write_statistics=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:     # a full disk: no half-written file is left to hold its space
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
    return table.num_rows, sha256_file(path)


def read_chunks(out: Path, chunks: Sequence[dict], verify: bool = True,
                columns: Sequence[str] | None = None):
    """The games of ``chunks`` (manifest entries) as one Arrow table, in the order given
    (only ``columns`` if given).

    With ``verify`` every file's SHA-256 and row count must match its entry."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    again = f" (durak-sim tournament --resume {out} plays it again)"
    for c in chunks:
        path = Path(out) / c["file"]
        if not path.is_file():
            raise StorageError(f"chunk file missing: {path}{again}")
        if verify and sha256_file(path) != c["sha256"]:
            raise StorageError(f"chunk file damaged (checksum differs): {path}{again}")
        try:
            t = pq.read_table(path, columns=list(columns) if columns is not None else None)
        except Exception as exc:   # (pyarrow's errors) a file damaged, or not a chunk
            if sha256_file(path) != c["sha256"]:
                raise StorageError(f"chunk file damaged (checksum differs): {path}{again}"
                                   ) from None
            raise StorageError(f"cannot read chunk file {path}: "
                               f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                               ) from None
        if t.num_rows != c["rows"]:
            raise StorageError(f"chunk file has {t.num_rows} rows, manifest says "
                               f"{c['rows']}: {path}")
        tables.append(t)
    if not tables:
        return None
    return pa.concat_tables(tables)


def game_arrays(table, names: Sequence[str], columns: Sequence[str] = COLUMNS) -> dict:
    """``columns`` of a chunk table as numpy arrays: the name columns as their codes
    (int16 indices in ``names``: every chunk's dictionary must be exactly ``names``),
    ``outcome`` as its codes (int8 indices in :data:`OUTCOMES`, 1 = a draw), integers in
    their narrow stored types."""
    cols = {}
    for c in columns:
        col = table.column(c)
        if is_name_column(c) or c == "outcome":
            cats = list(names) if c != "outcome" else list(OUTCOMES)
            for ch in col.chunks:
                if ch.dictionary.to_pylist() != cats:
                    raise StorageError(f"column {c} of a chunk has dictionary "
                                       f"{ch.dictionary.to_pylist()}, expected {cats}")
            codes = [ch.indices.to_numpy(zero_copy_only=False) for ch in col.chunks]
            cols[c] = (np.concatenate(codes) if codes else
                       np.zeros(0, np.int16 if c != "outcome" else np.int8))
        else:
            cols[c] = col.to_numpy()
    return cols


def games_frame(table, names: Sequence[str], columns: Sequence[str] = COLUMNS):
    """A chunk table as the ``games`` frame of :mod:`durak_sim.stats` (``columns`` of it).

    Names become categoricals over ``names`` (in that order: every chunk's dictionary must
    be exactly ``names``); integers keep their narrow stored types (half the memory
    traffic of int64 at millions of games)."""
    import pandas as pd

    arrays = game_arrays(table, names, columns)
    cols = {}
    for c in columns:
        if is_name_column(c) or c == "outcome":
            cats = list(names) if c != "outcome" else list(OUTCOMES)
            # object categories: pandas' arrow-backed "str" makes every later take slow
            cols[c] = pd.Categorical.from_codes(arrays[c].astype(np.int64),
                                                pd.Index(cats, dtype=object))
        else:
            cols[c] = arrays[c]
    return pd.DataFrame(cols)


# --------------------------------------------------------------------------------------
# Manifest
# --------------------------------------------------------------------------------------
def partial_file(*lineup_lo_hi) -> str:
    """Relative path of the partial chunk (the games played so far) of a chunk.

    >>> partial_file("easy", "random", 0, 50000)
    'games/easy_vs_random/deals-000000000-000049999.partial.parquet'
    """
    return chunk_file(*lineup_lo_hi).replace(".parquet", ".partial.parquet")


def chunk_file(*lineup_lo_hi) -> str:
    """Relative path of the chunk of a line-up (its strategies, then ``lo, hi``) holding
    deals ``lo .. hi - 1``.

    >>> chunk_file("easy", "random", 0, 50000)
    'games/easy_vs_random/deals-000000000-000049999.parquet'
    >>> chunk_file("hard", "easy", "easy", 50000, 60000)
    'games/hard_vs_easy_vs_easy/deals-000050000-000059999.parquet'
    """
    *names, lo, hi = lineup_lo_hi
    folder = "_vs_".join(folder_name(n) for n in names)
    return f"{GAMES_DIR}/{folder}/deals-{lo:09d}-{hi - 1:09d}.parquet"


def folder_name(name: str) -> str:
    """A strategy's name as part of a folder name: itself when it is a plain registered
    name, else (an external engine, ``engine:./bots/x.py``) the last part of it made safe,
    with a digest of the whole name so that two engines never share a folder.

    >>> folder_name("easy"), folder_name("engine:./bots/my bot.py")
    ('easy', 'engine-my-bot.py-97fb14e8')
    """
    import hashlib
    import re

    if re.fullmatch(r"[a-z0-9_-]+", name):
        return name
    kind, _, body = name.partition(":") if ":" in name else ("strategy", "", name)
    last = body.strip("'\" ").replace("\\", "/").rstrip("/").split("/")[-1]
    tail = re.sub(r"[^A-Za-z0-9._]+", "-", last)
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{re.sub(r'[^a-z0-9]+', '-', kind.lower())}-{tail.strip('-.') or 'x'}-{digest}"


def entry_key(c: dict) -> tuple:
    """The line-up of a manifest entry: its ``pairing`` (two players) or ``lineup``."""
    return tuple(c["lineup"] if "lineup" in c else c["pairing"])


@dataclass
class Manifest:
    """The JSON index of an output folder: ``config`` (what the tournament is),
    ``provenance`` (who ran it: package version, command line, start time), ``chunks``
    (finished chunks: ``pairing`` [a, b] (or at more than two players ``lineup``, the
    strategies of the line-up), ``deal_lo``, ``deal_hi`` (exclusive), ``file``, ``rows``,
    ``sha256``) and ``partials`` (chunks of an interrupted run played in part: the
    same keys and ``played_hi``, the end of the deals played; listed only while there are
    any)."""

    config: dict
    provenance: dict
    chunks: list
    partials: list = field(default_factory=list)

    @property
    def done(self) -> set:
        """``(a, b, deal_lo)`` of every finished chunk (``(*lineup, deal_lo)``)."""
        return {(*entry_key(c), c["deal_lo"]) for c in self.chunks}

    def to_dict(self) -> dict:
        d = {"format": MANIFEST_FORMAT, "config": self.config,
             "provenance": self.provenance, "chunks": self.chunks}
        if self.partials:
            d["partials"] = self.partials
        return d

    def save(self, out: Path) -> None:
        """Write ``manifest.json`` atomically (sorted keys, stable chunk order)."""
        self.chunks.sort(key=lambda c: (list(entry_key(c)), c["deal_lo"]))
        self.partials.sort(key=lambda c: (list(entry_key(c)), c["deal_lo"]))
        atomic_write_text(Path(out) / MANIFEST,
                          json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n")

    @classmethod
    def load(cls, out: Path) -> "Manifest":
        """Read ``out/manifest.json``; :class:`StorageError` if absent or not ours."""
        path = Path(out) / MANIFEST
        if not path.is_file():
            why = "is not a file" if path.exists() else "not found"
            raise StorageError(f"no tournament in {out} ({MANIFEST} {why})")
        games = Path(out) / GAMES_DIR
        if games.exists() and not games.is_dir():
            raise StorageError(f"{games} is not a folder: a tournament keeps its games there")
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise StorageError(f"cannot read {path}: it is not UTF-8 text (damaged?)") from None
        except (OSError, ValueError) as exc:
            raise StorageError(f"cannot read {path}: {exc}") from None
        if not isinstance(d, dict) or d.get("format") != MANIFEST_FORMAT:
            raise StorageError(f"{path} is not a durak-sim tournament manifest "
                               f"(format {d.get('format') if isinstance(d, dict) else None!r})")
        config, provenance = d.get("config"), d.get("provenance", {})
        chunks, partials = d.get("chunks", []), d.get("partials", [])
        for name, value, kind in (("config", config, dict), ("provenance", provenance, dict),
                                  ("chunks", chunks, list), ("partials", partials, list)):
            if not isinstance(value, kind):
                raise StorageError(f"{path}: \"{name}\" is not a JSON "
                                   f"{'object' if kind is dict else 'list'}")
        for kind, entries in (("chunk", chunks), ("partial chunk", partials)):
            for i, c in enumerate(entries):
                problem = _entry_problem(c, kind == "partial chunk")
                if problem:
                    raise StorageError(f"{path}: {kind} {i + 1} is malformed: {problem}")
        return cls(config=config, provenance=provenance, chunks=list(chunks),
                   partials=list(partials))


def _entry_problem(c, partial: bool) -> str | None:
    """What is wrong with a manifest's chunk entry (None: nothing). Its file must be the
    canonical name of its pairing and deals: a manifest never names another path."""
    if not isinstance(c, dict):
        return "not a JSON object"
    lineup = "lineup" in c
    if not lineup and "pairing" not in c:
        return "missing its line-up (lineup, or pairing at two players)"
    keys = {"lineup" if lineup else "pairing", "deal_lo", "deal_hi", "file", "rows", "sha256"}
    keys |= {"played_hi"} if partial else set()
    if keys - set(c):
        return f"missing {', '.join(sorted(keys - set(c)))}"
    p = c["lineup"] if lineup else c["pairing"]
    if not (isinstance(p, list) and all(isinstance(x, str) for x in p)):
        return f"{'lineup' if lineup else 'pairing'} is not a list of strategy names"
    if len(p) != 2 and not lineup:
        return "pairing is not two strategy names"
    if lineup and not 3 <= len(p) <= 6:
        return "lineup is not three to six strategy names"
    ints = ["deal_lo", "deal_hi", "rows"] + (["played_hi"] if partial else [])
    if not all(isinstance(c[k], int) and not isinstance(c[k], bool) and c[k] >= 0
               for k in ints):
        return f"{', '.join(ints)} must be integers >= 0"
    lo, hi = c["deal_lo"], c["deal_hi"]
    end = c["played_hi"] if partial else hi
    if not lo < end <= hi:
        return f"deals {lo}..{end} of a chunk {lo}..{hi}"
    if not lineup and c["rows"] != 2 * (end - lo):
        return f"{c['rows']} rows for {end - lo} deals (two games each)"
    if lineup and (c["rows"] == 0 or c["rows"] % (end - lo)):
        return f"{c['rows']} rows for {end - lo} deals (the same games each)"
    for name, keys in (("forfeits", ("deal", "seating", "seat")),
                       ("capped", ("deal", "seating"))):   # games listed beside the table
        games = c.get(name, [])
        if not (isinstance(games, list) and all(
                isinstance(f, dict) and set(f) == set(keys)
                and all(isinstance(v, int) and not isinstance(v, bool) for v in f.values())
                and lo <= f["deal"] < end for f in games)):
            return f"{name} is not a list of {{{', '.join(keys)}}} of its deals"
    if not (isinstance(c["sha256"], str) and len(c["sha256"]) == 64
            and all(ch in "0123456789abcdef" for ch in c["sha256"])):
        return "sha256 is not a SHA-256 in hex"
    want = (partial_file if partial else chunk_file)(*p, lo, hi)
    if c["file"] != want:
        return f"file {c['file']!r} is not {want!r}"
    return None


def check_games(table, *, seed: int, names: Sequence[str], versions: Sequence[int],
                pairing: Sequence[str], lo: int, hi: int,
                seatings: Sequence[Sequence[int]] | None = None) -> str | None:
    """What in a stored chunk's games contradicts what its manifest says they are (None:
    nothing): seed, deal indices and seatings in order, strategies in their seats, and
    their versions. ``pairing``: the line-up; ``seatings``: its seatings (default as
    :func:`games_table`'s); ``hi``: the end of the deals stored (exclusive)."""
    players = len(pairing)
    perms = np.asarray(seatings if seatings is not None else _default_seatings(pairing),
                       dtype=np.int64)
    k = len(perms)
    seats = seat_columns(players)
    g = game_arrays(table, names, id_columns(players))
    n = k * (hi - lo)
    if len(g["deal"]) != n:
        return f"{len(g['deal'])} games where the manifest lists {n}"
    if n and not (g["seed"] == seed).all():
        return f"played with seed {int(g['seed'][0])}, the manifest says seed {seed}"
    if not (np.array_equal(g["deal"], np.repeat(np.arange(lo, hi, dtype=np.int64), k))
            and np.array_equal(g[seating_column(players)], np.tile(np.arange(k), hi - lo))):
        return (f"not the games of deals {lo}..{hi - 1}, " +
                ("each twice with the seats swapped" if players == 2 else
                 f"each once in each of its {k} seatings"))
    codes = [list(names).index(x) for x in pairing]
    want_seats = np.asarray(codes)[perms]                     # (seatings, seats)
    if not all((g[c].reshape(-1, k) == want_seats[:, s]).all() for s, c in enumerate(seats)):
        return (f"not games of {pairing[0]} against {pairing[1]}" if players == 2 else
                f"not games of the line-up {', '.join(pairing)} in its seatings")
    for seat in seats:
        for code in dict.fromkeys(codes):
            name, want = names[code], versions[code]
            got = g[f"{seat}_version"][g[seat] == code]
            if len(got) and not (got == want).all():
                return (f"{name} played as version {int(got[got != want][0])}, the "
                        f"manifest says version {want}")
    return None


class DirectoryLock:
    """An exclusive, non-blocking ``flock`` on the output folder itself (no lock file to
    leave behind; the kernel drops it when the process dies, even by SIGKILL)."""

    def __init__(self, out: Path):
        self.out = Path(out)
        self.fd = None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # pragma: no cover - no flock (Windows): run unlocked
            return self
        self.fd = os.open(self.out, os.O_RDONLY)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self.fd)
            self.fd = None
            raise UserError(f"another durak-sim process is writing {self.out}") from None
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        return False
