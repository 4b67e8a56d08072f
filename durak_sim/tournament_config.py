"""What a tournament is, and whether a folder holds it: the :class:`TournamentConfig` (every
option its results depend on), its validation when made (:func:`make_config`) or read back
from a manifest (``TournamentConfig.from_dict``, ``TournamentConfig.check``), and the check
of stored games against it (:func:`check_stored`).

>>> cfg = make_config(["random", "easy"], deals=2000, seed=7)
>>> cfg.pairings(), cfg.command()
([('random', 'easy')], 'durak-sim tournament random easy --deals 2000 --seed 7')
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import UserError
from .play import check_seed, resolve_strategies
from .rules import RULES_VERSION, Rules
from .storage import Manifest, StorageError

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

    ``strategies``: the field in display order (a gauntlet's strategy first);
    ``versions``: their versions; ``gauntlet``: ``None`` for a round robin."""

    strategies: tuple[str, ...]
    versions: tuple[int, ...]
    seed: int
    deals: int
    chunk_deals: int = CHUNK_DEALS
    gauntlet: str | None = None
    rules: Rules = Rules()
    plugins: tuple[str, ...] = ()

    def pairings(self) -> list[tuple[str, str]]:
        """The pairings ``(a, b)`` in play order; ``a`` sits in seat 0 of ``swap`` 0.

        >>> TournamentConfig(("random", "easy", "hard"), (1, 1, 1), 1, 10).pairings()
        [('random', 'easy'), ('random', 'hard'), ('easy', 'hard')]
        >>> TournamentConfig(("hard", "random", "easy"), (1, 1, 1), 1, 10,
        ...                  gauntlet="hard").pairings()
        [('hard', 'random'), ('hard', 'easy')]
        """
        s = self.strategies
        if self.gauntlet is not None:
            return [(s[0], x) for x in s[1:]]
        return [(s[i], s[j]) for i in range(len(s)) for j in range(i + 1, len(s))]

    def chunk_ranges(self) -> list[tuple[int, int]]:
        """``(lo, hi)`` deal ranges of the chunks (``hi`` exclusive), in play order."""
        return [(lo, min(self.deals, lo + self.chunk_deals))
                for lo in range(0, self.deals, self.chunk_deals)]

    @property
    def games(self) -> int:
        return 2 * self.deals * len(self.pairings())

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
        if self.rules != Rules():  # pragma: no cover - one ruleset is implemented today
            parts += ["--rules", json.dumps(self.rules.to_dict(), sort_keys=True)]
        for p in self.plugins:
            parts += ["--plugin", p]
        return " ".join(_quote(p) for p in parts)

    def to_dict(self) -> dict:
        return {"strategies": [{"name": n, "version": v}
                               for n, v in zip(self.strategies, self.versions)],
                "seed": self.seed, "deals": self.deals, "chunk_deals": self.chunk_deals,
                "gauntlet": self.gauntlet, "rules": self.rules.to_dict(),
                "rules_version": RULES_VERSION, "plugins": list(self.plugins)}

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
            if len(names) < 2 or len(set(names)) != len(names) or \
                    not all(isinstance(n, str) and n for n in names):
                raise ValueError("strategies must be two or more different names")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in versions):
                raise ValueError("strategy versions must be integers")
            gauntlet = d.get("gauntlet")
            if gauntlet is not None and gauntlet != names[0]:
                raise ValueError("the gauntlet strategy must be listed first")
            plugins = d.get("plugins", [])
            if not isinstance(plugins, list) or not all(isinstance(p, str) for p in plugins):
                raise ValueError("plugins must be a list of names")
            return cls(strategies=names, versions=versions, seed=integer("seed", 0, MAX_INDEX),
                       deals=integer("deals", 1, MAX_DEALS),
                       chunk_deals=integer("chunk_deals", 1, MAX_CHUNK_DEALS),
                       gauntlet=gauntlet, rules=Rules.from_dict(d["rules"]),
                       plugins=tuple(plugins))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StorageError(f"malformed tournament config in manifest: "
                               f"{str(exc).splitlines()[0] if str(exc) else exc!r}") from None

    def check(self, manifest: Manifest) -> None:
        """The manifest's chunks must be chunks of this tournament: its pairings and chunk
        ranges, each once (``StorageError`` otherwise)."""
        pairings = set(self.pairings())
        ranges = dict(self.chunk_ranges())
        for kind, entries in (("chunk", manifest.chunks), ("partial chunk", manifest.partials)):
            seen = set()
            for c in entries:
                key = (tuple(c["pairing"]), c["deal_lo"])
                if key[0] not in pairings:
                    raise StorageError(f"manifest lists a {kind} of {key[0][0]} vs "
                                       f"{key[0][1]}, not a pairing of its tournament")
                if ranges.get(c["deal_lo"]) != c["deal_hi"]:
                    raise StorageError(f"manifest lists a {kind} of deals {c['deal_lo']}.."
                                       f"{c['deal_hi'] - 1}, not a chunk of its tournament")
                if key in seen:
                    raise StorageError(f"manifest lists the {kind} {c['file']} twice")
                seen.add(key)


def make_config(strategies: Sequence[str] | None, *, deals: int, seed: int,
                chunk_deals: int | None = None, gauntlet: str | None = None,
                rules: Rules = Rules(), plugins: Sequence[str] = ()) -> TournamentConfig:
    """Validate a tournament's options and resolve its strategies (aliases, versions).

    No ``strategies``: every built-in level (``registry.builtin_levels()``), or with a
    ``gauntlet`` every built-in level other than it. No ``chunk_deals``: :data:`CHUNK_DEALS`,
    or more when the tournament would otherwise have more than ``limits.MAX_CHUNKS`` chunks.

    >>> make_config(["random", "easy"], deals=10**6, seed=1).chunk_deals
    50000
    >>> make_config(None, deals=10**9, seed=1).chunk_deals   # 6 pairings, 20,000 chunks
    300031
    """
    from .limits import MAX_CHUNK_DEALS, MAX_CHUNKS, MAX_DEALS
    from .registry import builtin_levels

    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) \
            or not 1 <= deals <= MAX_DEALS:
        raise UserError(f"deals must be an integer in 1..{MAX_DEALS:,}, got {deals!r}")
    if chunk_deals is not None and (
            isinstance(chunk_deals, bool) or not isinstance(chunk_deals, (int, np.integer))
            or not 1 <= chunk_deals <= MAX_CHUNK_DEALS):
        raise UserError(f"chunk size must be an integer in 1..{MAX_CHUNK_DEALS:,}, got "
                        f"{chunk_deals!r}")
    seed = check_seed(seed)
    names = list(strategies) if strategies else []
    if gauntlet is not None:
        g = resolve_strategies([gauntlet])[0]
        if not names:
            names = [n for n in builtin_levels() if n != g.name]
        others = resolve_strategies(names)
        if any(s.name == g.name for s in others):
            raise UserError(f"the gauntlet strategy {g.name!r} is also listed among its "
                            f"opponents")
        strats = [g, *others]
    else:
        strats = resolve_strategies(names or builtin_levels())
    seen = set()
    for s in strats:
        if s.name in seen:
            raise UserError(f"strategy {s.name!r} is listed twice")
        seen.add(s.name)
    if len(strats) < 2:
        raise UserError(f"a tournament needs at least two strategies, got "
                        f"{len(strats)} ({', '.join(s.name for s in strats) or 'none'})")
    n_pairings = len(strats) - 1 if gauntlet is not None else len(strats) * (len(strats) - 1) // 2
    per_pairing = MAX_CHUNKS // n_pairings
    if chunk_deals is None:
        chunk_deals = min(MAX_CHUNK_DEALS, max(CHUNK_DEALS, -(-deals // per_pairing)))
    chunks = -(-deals // chunk_deals) * n_pairings
    if chunks > MAX_CHUNKS:
        need = -(-deals // per_pairing)
        raise UserError(f"{deals:,} deals in chunks of {chunk_deals:,} make {chunks:,} chunks "
                        f"for {n_pairings} pairing{'s' if n_pairings != 1 else ''}, more than "
                        f"{MAX_CHUNKS:,}: " + (f"use --chunk {need} or more" if need <=
                                              MAX_CHUNK_DEALS else "play fewer deals"))
    return TournamentConfig(strategies=tuple(s.name for s in strats),
                            versions=tuple(s.version for s in strats), seed=seed,
                            deals=int(deals), chunk_deals=int(chunk_deals),
                            gauntlet=strats[0].name if gauntlet is not None else None,
                            rules=rules, plugins=tuple(plugins))


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
    the manifest says they are: its seed, pairings, deals and strategy versions
    (``storage.check_games``); a ``UserError`` names the first that is not. Damaged files
    are another matter (``_drop_damaged``): this is a manifest edited, or two tournaments
    mixed, which no resume or report may paper over."""
    from .storage import check_games, read_chunks

    config.check(manifest)
    for c in manifest.chunks if chunks is None else chunks:
        table = read_chunks(out, [c], verify=False, columns=ID_COLUMNS)
        problem = check_games(table, seed=config.seed, names=config.strategies,
                              versions=config.versions, pairing=tuple(c["pairing"]),
                              lo=c["deal_lo"], hi=c["deal_hi"])
        if problem:
            raise UserError(f"{out}: its stored games do not match its manifest ({c['file']}: "
                            f"{problem}); the manifest was edited or mixes two tournaments")


#: the columns that say which games a chunk holds
ID_COLUMNS = ("seed", "deal", "swap", "seat0", "seat1", "seat0_version", "seat1_version")


__all__ = ["CHUNK_DEALS", "DEFAULT_DEALS", "ID_COLUMNS", "RUNS_DIR", "TournamentConfig",
           "check_stored", "default_out_dir", "make_config"]
