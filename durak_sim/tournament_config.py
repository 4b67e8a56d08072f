"""What a tournament is, and whether a folder holds it: the :class:`TournamentConfig` (every
option its results depend on), its validation when made (:func:`make_config`) or read back
from a manifest (``TournamentConfig.from_dict``, ``TournamentConfig.check``), and the check
of stored games against it (:func:`check_stored`).

>>> cfg = make_config(["random", "easy"], deals=2000, seed=7)
>>> cfg.pairings(), cfg.command()
([('random', 'easy')], 'durak-sim tournament random easy --deals 2000 --seed 7')
>>> cfg = make_config(["random", "easy", "easy"], deals=100, seed=1, rules=Rules(players=3))
>>> cfg.lineups(), len(cfg.seatings(cfg.lineups()[0])), cfg.games, cfg.command()
([('random', 'easy', 'easy')], 3, 300, 'durak-sim tournament random easy easy --deals 100 --seed 1 --rules podkidnoy --players 3')
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import UserError, option
from .external import is_engine_spec
from .lineups import field_lineups, seating_plan, seatings
from .play import check_seed, check_supported, resolve_strategies
from .registry import name_list
from .rules import RULES_VERSION, Rules, check_rules
from .storage import Manifest, StorageError, entry_key, id_columns

#: deal indices per pairing of ``durak-sim tournament`` with no ``--deals``; each is played
#: twice. The four built-in levels play them in about a minute on 2 cores (hard against easy,
#: its long endgame searches, takes most of it), and every step of the ladder still comes out
#: well clear of even (95% intervals of about +-1.5 points).
DEFAULT_DEALS = 1_000
#: deal indices per stored chunk: large enough that storage costs little next to play
CHUNK_DEALS = 50_000
#: parent of the default output folders (relative to the working directory)
RUNS_DIR = Path("reports") / "runs"


def _quote(s: str) -> str:
    import shlex

    return shlex.quote(s)


@dataclass(frozen=True)
class TournamentConfig:
    """What a tournament is: everything its results depend on, plus its chunk size.

    ``strategies``: the field in display order (a gauntlet's strategy first; at more than
    two players a field of exactly ``rules.players`` may name a strategy more than once);
    ``versions``: their versions; ``gauntlet``: ``None`` for a round robin; ``rules``: the
    ruleset, whose ``players`` is the table size (:mod:`durak_sim.lineups`)."""

    strategies: tuple[str, ...]
    versions: tuple[int, ...]
    seed: int
    deals: int
    chunk_deals: int = CHUNK_DEALS
    gauntlet: str | None = None
    rules: Rules = Rules()
    plugins: tuple[str, ...] = ()
    #: score an external engine's failure as its loss and go on (--forfeit)
    forfeit: bool = False
    #: the deal counts it had before it was grown (``--resume DIR --deals N``), increasing:
    #: the chunks already cut keep their ranges, the new deals get chunks of their own
    grown_from: tuple[int, ...] = ()

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def names(self) -> tuple[str, ...]:
        """The different strategies of the field, in field order (the stored games'
        dictionary of names)."""
        return tuple(dict.fromkeys(self.strategies))

    @property
    def name_versions(self) -> tuple[int, ...]:
        """The versions of :attr:`names`."""
        version = dict(zip(self.strategies, self.versions))
        return tuple(version[n] for n in self.names)

    def lineups(self) -> list[tuple[str, ...]]:
        """The line-ups in play order (:func:`durak_sim.lineups.field_lineups`); at two
        players the pairings ``(a, b)``, ``a`` in seat 0 of ``swap`` 0.

        >>> TournamentConfig(("random", "easy", "hard"), (1, 1, 1), 1, 10).lineups()
        [('random', 'easy'), ('random', 'hard'), ('easy', 'hard')]
        >>> TournamentConfig(("hard", "random", "easy"), (1, 1, 1), 1, 10,
        ...                  gauntlet="hard").lineups()
        [('hard', 'random'), ('hard', 'easy')]
        """
        return field_lineups(self.strategies, self.players, self.gauntlet is not None,
                             self.rules.teams)

    pairings = lineups

    def seatings(self, lineup: Sequence[str]) -> list[tuple[int, ...]]:
        """The seatings of a line-up (:func:`durak_sim.lineups.seatings`): each deal is
        played once in each."""
        return seatings(tuple(lineup), self.rules.teams)

    def seating_plan(self, lineup: Sequence[str]) -> list:
        """The seatings of a line-up grouped into kernel calls
        (:func:`durak_sim.lineups.seating_plan`)."""
        return seating_plan(self.seatings(lineup))

    def chunk_ranges(self) -> list[tuple[int, int]]:
        """``(lo, hi)`` deal ranges of the chunks (``hi`` exclusive), in play order: each
        stretch of deals (all of them, or for a grown tournament the deals before its first
        growth, then those each growth added) cut into ``chunk_deals``.

        >>> TournamentConfig(("random", "easy"), (1, 1), 1, 250, 100).chunk_ranges()
        [(0, 100), (100, 200), (200, 250)]
        >>> TournamentConfig(("random", "easy"), (1, 1), 1, 250, 100, grown_from=(50, 120)
        ...                  ).chunk_ranges()
        [(0, 50), (50, 120), (120, 220), (220, 250)]
        """
        marks = [0, *self.grown_from, self.deals]
        return [(lo, min(b, lo + self.chunk_deals))
                for a, b in zip(marks, marks[1:]) for lo in range(a, b, self.chunk_deals)]

    def grown(self, deals: int) -> "TournamentConfig":
        """This tournament with ``deals`` deal indices (more than it has): the same games
        for the deals it has, chunked as they were, and the new ones after them. Its results
        are those of a tournament played with ``deals`` from the start (chunking never
        changes a byte of them).

        >>> c = TournamentConfig(("random", "easy"), (1, 1), 1, 250, 100).grown(400)
        >>> c.deals, c.grown_from, c.chunk_ranges()[-3:]
        (400, (250,), [(200, 250), (250, 350), (350, 400)])
        """
        from dataclasses import replace
        from .limits import MAX_CHUNKS, MAX_DEALS

        if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) \
                or not self.deals < deals <= MAX_DEALS:
            raise UserError(f"a tournament of {self.deals:,} deals grows to more deals, at "
                            f"most {MAX_DEALS:,}; got {deals!r}")
        config = replace(self, deals=int(deals), grown_from=(*self.grown_from, self.deals))
        config.check_games(f"growing to {deals:,} deals")
        chunks = len(config.chunk_ranges()) * len(config.lineups())
        if chunks > MAX_CHUNKS:
            raise UserError(f"growing to {deals:,} deals makes {chunks:,} chunks, more than "
                            f"{MAX_CHUNKS:,}: play a new tournament of {deals:,} deals instead")
        return config

    @property
    def games(self) -> int:
        return self.deals * sum(len(self.seatings(k)) for k in self.lineups())

    def check_games(self, what: str) -> None:
        """A two-player tournament of more than ``MAX_PAIRED_GAMES`` games: one line (its
        report holds every pairing's per-deal counts in memory, ``durak_sim.limits``)."""
        from .limits import MAX_PAIRED_GAMES

        if self.players == 2 and self.games > MAX_PAIRED_GAMES:
            per = self.games // self.deals
            raise UserError(f"{what} makes {self.games:,} games ({per:,} a deal), more than "
                            f"the {MAX_PAIRED_GAMES:,} a two-player tournament's report holds "
                            f"in memory: play at most {MAX_PAIRED_GAMES // per:,} deals")

    def command(self) -> str:
        """The command that plays this tournament again (threads, output folder and chunk
        size do not change its results, so they are left out).

        >>> TournamentConfig(("random", "easy"), (1, 1), 7, 2000).command()
        'durak-sim tournament random easy --deals 2000 --seed 7'
        """
        parts = ["durak-sim", "tournament"]
        if self.gauntlet is not None:
            parts += ["--gauntlet", self.gauntlet, *self.strategies[1:]]
        else:
            parts += list(self.strategies)
        parts += ["--deals", str(self.deals), "--seed", str(self.seed)]
        rules = self.rules.cli_args()
        if self.players > 2 and "--players" not in rules:   # (the table size, said)
            rules += ["--players", str(self.players)]
        parts += rules
        for p in self.plugins:
            parts += ["--plugin", p]
        if self.forfeit:
            parts.append("--forfeit")
        return " ".join(_quote(p) for p in parts)

    def to_dict(self) -> dict:
        return {"strategies": [{"name": n, "version": v}
                               for n, v in zip(self.strategies, self.versions)],
                "seed": self.seed, "deals": self.deals, "chunk_deals": self.chunk_deals,
                "gauntlet": self.gauntlet, "rules": self.rules.to_dict(),
                "rules_version": RULES_VERSION, "plugins": list(self.plugins),
                **({"forfeit": True} if self.forfeit else {}),
                **({"grown_from": list(self.grown_from)} if self.grown_from else {})}

    @classmethod
    def from_dict(cls, d: dict) -> "TournamentConfig":
        """The config a manifest holds, checked as a whole (``StorageError`` if it is not
        one this durak-sim could have written)."""
        from .limits import MAX_CHUNK_DEALS, MAX_DEALS, MAX_INDEX

        def integer(key, lo, hi):
            v = d[key]
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"{key} must be an integer in {lo}..{hi}, got {v!r}")
            return v

        try:
            names = tuple(s["name"] for s in d["strategies"])
            versions = tuple(s["version"] for s in d["strategies"])
            rules = Rules.from_dict(d["rules"])
            if len(names) < 2 or not all(isinstance(n, str) and n for n in names):
                raise ValueError("strategies must be two or more names")
            if len(set(names)) != len(names) and (rules.players == 2
                                                  or len(names) != rules.players):
                raise ValueError("strategies must be different names (or one line-up)")
            if len(names) < rules.players:
                raise ValueError(f"{len(names)} strategies for {rules.players} players")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in versions):
                raise ValueError("strategy versions must be integers")
            if len(set(zip(names, versions))) != len(set(names)):
                raise ValueError("a strategy listed twice with two versions")
            gauntlet = d.get("gauntlet")
            if gauntlet is not None and gauntlet != names[0]:
                raise ValueError("the gauntlet strategy must be listed first")
            plugins = d.get("plugins", [])
            if not isinstance(plugins, list) or not all(isinstance(p, str) for p in plugins):
                raise ValueError("plugins must be a list of names")
            forfeit = d.get("forfeit", False)
            if not isinstance(forfeit, bool):
                raise ValueError("forfeit must be true or false")
            deals = integer("deals", 1, MAX_DEALS)
            grown = d.get("grown_from", [])
            if (not isinstance(grown, list) or not all(
                    isinstance(g, int) and not isinstance(g, bool) for g in grown)
                    or [g for g in grown if not 0 < g < deals] or sorted(set(grown)) != grown):
                raise ValueError(f"grown_from must be increasing deal counts below {deals}")
            return cls(strategies=names, versions=versions, seed=integer("seed", 0, MAX_INDEX),
                       deals=deals, chunk_deals=integer("chunk_deals", 1, MAX_CHUNK_DEALS),
                       gauntlet=gauntlet, rules=rules, plugins=tuple(plugins),
                       forfeit=forfeit, grown_from=tuple(grown))
        except KeyError as exc:
            raise StorageError(f"malformed tournament config in manifest: it lacks "
                               f"{exc.args[0]!r}") from None
        except (TypeError, AttributeError):   # (Python's words would not say which)
            raise StorageError("malformed tournament config in manifest: a field holds a "
                               "value of the wrong kind (was the file edited?)") from None
        except ValueError as exc:
            raise StorageError(f"malformed tournament config in manifest: "
                               f"{str(exc).splitlines()[0] if str(exc) else exc!r}") from None

    def check(self, manifest: Manifest) -> None:
        """The manifest's chunks must be chunks of this tournament: its line-ups (pairings)
        and chunk ranges, each once, with a game per seating of each deal
        (``StorageError`` otherwise)."""
        lineups = {k: len(self.seatings(k)) for k in self.lineups()}
        ranges = dict(self.chunk_ranges())
        field = "pairing" if self.players == 2 else "lineup"
        for kind, entries in (("chunk", manifest.chunks), ("partial chunk", manifest.partials)):
            seen = set()
            for c in entries:
                if field not in c:
                    raise StorageError(f"manifest lists a {kind} without a {field}")
                key = (entry_key(c), c["deal_lo"])
                if key[0] not in lineups:
                    raise StorageError(
                        f"manifest lists a {kind} of {key[0][0]} vs {key[0][1]}, not a "
                        f"pairing of its tournament" if self.players == 2 else
                        f"manifest lists a {kind} of {', '.join(key[0])}, not a line-up of "
                        f"its tournament")
                if ranges.get(c["deal_lo"]) != c["deal_hi"]:
                    raise StorageError(f"manifest lists a {kind} of deals {c['deal_lo']}.."
                                       f"{c['deal_hi'] - 1}, not a chunk of its tournament")
                end = c.get("played_hi", c["deal_hi"])
                if c["rows"] != lineups[key[0]] * (end - c["deal_lo"]):
                    raise StorageError(f"manifest lists {c['rows']} rows for the {kind} "
                                       f"{c['file']}, not {lineups[key[0]]} games a deal")
                if key in seen:
                    raise StorageError(f"manifest lists the {kind} {c['file']} twice")
                seen.add(key)


def make_config(strategies: Sequence[str] | None, *, deals: int, seed: int,
                chunk_deals: int | None = None, gauntlet: str | None = None,
                rules: Rules = Rules(), plugins: Sequence[str] = (),
                forfeit: bool = False) -> TournamentConfig:
    """Validate a tournament's options and resolve its strategies (aliases, versions).

    No ``strategies``: every level of the default field that plays ``rules``
    (``registry.default_field()``: the built-in levels but expert), or with a ``gauntlet``
    every built-in level (``registry.builtin_levels()``) that plays it other than it.
    No ``chunk_deals``: :data:`CHUNK_DEALS`, or more when the tournament would otherwise
    have more than ``limits.MAX_CHUNKS`` chunks. ``rules.players`` is the table size: a
    larger field plays every line-up of that many (:mod:`durak_sim.lineups`).

    >>> make_config(["random", "easy"], deals=10**6, seed=1).chunk_deals
    50000
    >>> make_config(["random", "easy"], deals=5 * 10**7, seed=1).chunk_deals   # 1,000 chunks
    50000
    """
    from .limits import MAX_CHUNK_DEALS, MAX_CHUNKS, MAX_DEALS
    from .registry import builtin_levels, default_field

    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) \
            or not 1 <= deals <= MAX_DEALS:
        raise UserError(f"deals must be an integer in 1..{MAX_DEALS:,}, got {deals!r}")
    if chunk_deals is not None and (
            isinstance(chunk_deals, bool) or not isinstance(chunk_deals, (int, np.integer))
            or not 1 <= chunk_deals <= MAX_CHUNK_DEALS):
        raise UserError(f"{option('--chunk', 'chunk_deals')} must be an integer in "
                        f"1..{MAX_CHUNK_DEALS:,}, got {chunk_deals!r}")
    seed = check_seed(seed)
    rules = check_rules(rules)
    players = rules.players
    names = name_list(strategies, "strategies") if strategies else []
    plugins = tuple(name_list(plugins, "plugins"))

    def plays(n: str) -> bool:
        return resolve_strategies([n])[0].supports(rules)

    if gauntlet is not None:
        g = resolve_strategies([gauntlet])[0]
        if not names:   # the built-in levels that play the ruleset
            names = [n for n in builtin_levels() if n != g.name and plays(n)]
        others = resolve_strategies(names)
        if any(s.name == g.name for s in others):
            raise UserError(f"the gauntlet strategy {g.name!r} is also listed among its "
                            f"opponents")
        strats = [g, *others]
    else:
        # the default field: its levels that play the ruleset
        strats = resolve_strategies(names or [n for n in default_field() if plays(n)])
    check_supported(strats, rules)
    _check_field([s.name for s in strats], rules, gauntlet is not None, plugins)
    if forfeit and not any(is_engine_spec(s.name) for s in strats):   # (as match says)
        raise UserError(option("--forfeit", "forfeit=True") + " is for fields with an "
                        "external engine (engine:PATH): no other strategy forfeits")
    n_lineups = len(field_lineups([s.name for s in strats], players, gauntlet is not None,
                                  rules.teams))
    if n_lineups > MAX_CHUNKS:
        raise UserError(f"{len(strats)} strategies make {n_lineups:,} line-ups of {players}, "
                        f"more than {MAX_CHUNKS:,}: name fewer")
    per_pairing = MAX_CHUNKS // n_lineups
    if chunk_deals is None:
        chunk_deals = min(MAX_CHUNK_DEALS, max(CHUNK_DEALS, -(-deals // per_pairing)))
    chunks = -(-deals // chunk_deals) * n_lineups
    if chunks > MAX_CHUNKS:
        need = -(-deals // per_pairing)
        what = "pairing" if players == 2 else "line-up"
        fix = (f"use {option('--chunk', 'chunk_deals', need)} or more"
               if need <= MAX_CHUNK_DEALS else "play fewer deals")
        raise UserError(f"{deals:,} deals in chunks of {chunk_deals:,} make {chunks:,} chunks "
                        f"for {n_lineups} {what}{'s' if n_lineups != 1 else ''}, more than "
                        f"{MAX_CHUNKS:,}: {fix}")
    config = TournamentConfig(strategies=tuple(s.name for s in strats),
                              versions=tuple(s.version for s in strats), seed=seed,
                              deals=int(deals), chunk_deals=int(chunk_deals),
                              gauntlet=strats[0].name if gauntlet is not None else None,
                              rules=rules, plugins=tuple(plugins), forfeit=bool(forfeit))
    config.check_games(f"{deals:,} deals of {n_lineups:,} pairing"
                       f"{'s' if n_lineups != 1 else ''}")
    return config


def _check_field(names: list, rules: Rules, gauntlet: bool, plugins: Sequence[str] = ()) -> None:
    """A field that gives line-ups of ``rules.players``: two or more strategies, different
    ones unless the field is exactly one line-up of more than two players (``UserError``;
    its example command loads the same ``plugins``)."""
    players = rules.players
    distinct = list(dict.fromkeys(names))
    one_lineup = players > 2 and len(names) == players
    for n in distinct:
        if names.count(n) > 1 and not one_lineup:
            more = (f" (a strategy may sit more than once only in a field of exactly "
                    f"{players}, one line-up)" if players > 2 else "")
            times = {2: "twice", 3: "three times"}.get(names.count(n),
                                                     f"{names.count(n)} times")
            raise UserError(f"strategy {n!r} is listed {times}{more}")
    if len(names) < 2:
        raise UserError(f"a tournament needs at least two strategies, got "
                        f"{len(names)} ({', '.join(names) or 'none'})")
    if len(names) < players:
        seats = ([distinct[0], *(distinct[1:] * players)[:players - 1]] if gauntlet else
                 (distinct * players)[:players])
        import shlex

        loads = [a for p in plugins for a in ("--plugin", shlex.quote(p))]
        example = option(" ".join(["durak-sim tournament", *(["--gauntlet"] if gauntlet
                                                              else []), *seats,
                                   *rules.cli_args(), *loads]),
                         (f"gauntlet={seats[0]!r}, strategies={seats[1:]!r}" if gauntlet
                          else f"strategies={seats!r}")
                         + (f", plugins={list(plugins)!r}" if plugins else ""))
        two = (option("leave out --rules teams", "rules without teams") if rules.teams else
               option("give --players 2", "rules=Rules(players=2)"))
        raise UserError(f"a tournament at tables of {players} players needs {players} "
                        f"strategies a table, the field has {len(distinct)} "
                        f"({', '.join(distinct)}): list a strategy more than once to seat it "
                        f"more than once, e.g. {example} (or, for two-player pairings, "
                        f"{two})")


def default_out_dir(seed: int, now: datetime | None = None, parent: Path = RUNS_DIR) -> Path:
    """A new folder ``reports/runs/tournament-<YYYYmmdd-HHMMSS>-seed<S>`` (``-2``, ``-3``
    ... appended if that exists).

    >>> default_out_dir(7, datetime(2024, 5, 1, 12, 0, 0), Path("/nonexistent")).name
    'tournament-20240501-120000-seed7'
    """
    now = now or datetime.now()
    base = parent / f"tournament-{now:%Y%m%d-%H%M%S}-seed{seed}"
    path, k = base, 2
    while path.exists():
        path = base.with_name(f"{base.name}-{k}")
        k += 1
    return path


def check_stored(out: Path, manifest: Manifest, config: TournamentConfig,
                 chunks: Sequence[dict] | None = None) -> None:
    """The stored games of ``chunks`` (default: every chunk of the manifest) must be what
    the manifest says they are: its seed, line-ups (pairings), deals, seatings and strategy
    versions (``storage.check_games``); a ``UserError`` names the first that is not.
    Damaged files are another matter (``_drop_damaged``): this is a manifest edited, or two
    tournaments mixed, which no resume or report may paper over."""
    from .storage import read_chunks

    config.check(manifest)
    for c in manifest.chunks if chunks is None else chunks:
        table = read_chunks(out, [c], verify=False, columns=id_columns(config.players))
        stored_problem(out, config, c, table)


def games_problem(config: TournamentConfig, c: dict, table, hi: int | None = None):
    """What in ``table`` (the games of the manifest entry ``c``, deals up to ``hi``,
    default its ``deal_hi``) contradicts ``config`` (None: nothing); see
    ``storage.check_games``."""
    from .storage import check_games

    key = entry_key(c)
    return check_games(table, seed=config.seed, names=config.names,
                       versions=config.name_versions, pairing=key, lo=c["deal_lo"],
                       hi=c["deal_hi"] if hi is None else hi, seatings=config.seatings(key))


def stored_problem(out: Path, config: TournamentConfig, c: dict, table) -> None:
    """:func:`games_problem` of a chunk (finished, or stored in part: its deals up to
    ``played_hi``) as the one-line ``UserError`` of :func:`check_stored`."""
    problem = games_problem(config, c, table, c.get("played_hi"))
    if problem:
        raise UserError(f"{out}: its stored games do not match its manifest ({c['file']}: "
                        f"{problem}); the manifest was edited or mixes two tournaments")


#: the columns that say which games a chunk of two players holds
ID_COLUMNS = id_columns(2)


__all__ = ["CHUNK_DEALS", "DEFAULT_DEALS", "ID_COLUMNS", "RUNS_DIR", "TournamentConfig",
           "check_stored", "default_out_dir", "games_problem", "make_config", "stored_problem"]
