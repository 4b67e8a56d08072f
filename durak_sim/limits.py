"""What the engine and this kind of machine can serve: every count and index a command takes
is checked against these before anything is played or written (the CLI shows them in
``--help``).

* Deal indices and seeds are the kernel's ``int64``: at most ``2**63 - 1``.
* ``MAX_DEALS`` deal indices per match or tournament pairing: a few minutes of the fastest
  pairing on two cores, hours of the slower ones. A two-player match or tournament keeps
  per-deal counts for its paired intervals (40 bytes a deal and pairing: five int64s; twice
  that while they are merged, so a match of ``MAX_DEALS`` deals needs some 4-8 GB, an
  estimate from those sizes), and stores or summarises everything else per block or chunk.
* ``MAX_PAIRED_GAMES`` games of a two-player tournament in all (pairings times seat swaps
  times deals): its report holds those per-deal counts of every pairing at once (measured:
  20,000,000 games peak at 1.7 GB; at that rate, about 7 GB at the bound). Larger tables count their
  places chunk by chunk in flat memory (24,000,000 four-player games: 0.44 GB).
* A tournament's manifest lists every chunk and is rewritten as each one is stored, so a
  tournament has at most ``MAX_CHUNKS`` chunks in all (the default chunk size grows to fit,
  up to ``MAX_CHUNK_DEALS``, whose games are held in memory until stored: about 100 MB a
  pairing).
* ``bench`` times one kernel call per run, whose result rows (136 bytes a deal) are held in
  memory: at most ``MAX_BENCH_DEALS`` deals a run.
* ``play_games``, ``play_schedule`` and ``play_series`` return their games in memory (208
  bytes a game; a tournament's chunk is such a batch): at most ``MAX_BATCH_GAMES`` games a
  call (deals times seat rotations, or series times deals), the largest chunk at six
  players, about 2.5 GB; with ``record=True`` each game also holds its actions (32 kB), so
  at most ``MAX_RECORD_BATCH_GAMES``, about 3.3 GB.
* Game records are JSON Lines of about 1.5 kB a game at two players, 7.5 kB at six (a
  record grows with the seats): at most ``MAX_RECORD_SEAT_GAMES`` seat-games (games times
  players) a file, 2,000,000 two-player games or 666,666 six-player ones, about 3 and 5 GB.
* An external engine's time limit a decision: at most ``MAX_ENGINE_TIMEOUT`` seconds (a day;
  the operating system's timers take no more).
"""
from __future__ import annotations

MAX_INDEX = (1 << 63) - 1
MAX_DEALS = 100_000_000
MAX_PAIRED_GAMES = 100_000_000
MAX_CHUNKS = 20_000
MAX_CHUNK_DEALS = 2_000_000
MAX_BATCH_GAMES = 6 * MAX_CHUNK_DEALS
MAX_RECORD_BATCH_GAMES = 100_000
MAX_BENCH_DEALS = 10_000_000
MAX_REPEAT = 1_000
MAX_RECORD_SEAT_GAMES = 4_000_000
MAX_NODES = 1 << 62
#: deals of one series (R9): the kernel plays a series in one go, its rows held together
MAX_SERIES_DEALS = 10_000
MAX_ENGINE_TIMEOUT = 86_400.0
#: a tournament's wait for dask workers: at most a week (a longer one is a typo)
MAX_WORKER_WAIT = 604_800.0
