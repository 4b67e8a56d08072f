"""A match that stops as soon as it is decided: a pentanomial SPRT (:mod:`durak_sim.sprt`)
checked every ``block`` deal pairs, the games played in kernel calls of about two seconds
(:class:`durak_sim.runner.BlockSizer`) so that progress shows and Ctrl-C is answered
promptly, whatever the pairing's speed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import UserError
from .play import (check_seed, game_schedule, play_schedule, ready_lineup,
                   resolve_strategies)
from .rules import Rules
from .storage import result_columns


@dataclass
class SPRTResult:
    """Outcome of :func:`run_sprt`. ``decision``: ``"H1"`` (A is ``elo1`` stronger),
    ``"H0"`` (A is ``elo0`` stronger) or ``"continue"`` (``max_deals`` reached first);
    ``deals``: deal pairs played; ``estimate``: :class:`durak_sim.sprt.SPRTEstimate`, the
    median-unbiased Elo with its interval (and the naive, biased one); None when Ctrl-C
    came before the first block was finished."""

    a: str
    b: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str
    seed: int
    block: int
    max_deals: int
    decision: str
    deals: int
    pentanomial: list
    llr: float
    bounds: tuple
    estimate: "object"
    seconds: float
    compile_seconds: float
    rules: Rules = Rules()
    versions: dict = field(default_factory=dict)
    #: Ctrl-C stopped the test before it decided (``deals``: the blocks finished)
    interrupted: bool = False

    @property
    def games(self) -> int:
        return 2 * self.deals

    def to_dict(self) -> dict:
        from .match import _plain

        return _plain({
            "a": self.a, "b": self.b, "versions": self.versions, "rules": self.rules.to_dict(),
            "sprt": {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha,
                     "beta": self.beta, "model": self.model, "block": self.block,
                     "max_deals": self.max_deals},
            "seed": self.seed, "decision": self.decision, "deals": self.deals,
            "games": self.games, "pentanomial": list(self.pentanomial), "llr": self.llr,
            "bounds": list(self.bounds),
            "estimate": None if self.estimate is None else self.estimate.as_dict(),
            "seconds": self.seconds, "compile_seconds": self.compile_seconds,
            **({"interrupted": True} if self.interrupted else {}),
        })

    def print(self, console=None) -> None:
        """Decision, deal count, LLR and the unbiased Elo estimate (rich)."""
        from rich.table import Table

        from .formatting import num, print_whole, secs, wide_console

        if console is None:
            console = wide_console(118)
        verdict = {"H1": f"H1 accepted: {self.a} is {self.elo1:+g} Elo (or more) stronger",
                   "H0": f"H0 accepted: {self.a} is {self.elo0:+g} Elo (or less) stronger",
                   "continue": f"no decision within {self.max_deals:,} deals"}[self.decision]
        if self.interrupted:
            verdict = f"no decision: interrupted after {self.deals:,} deal pairs"
        e = self.estimate
        t = Table(title=f"SPRT {self.a} vs {self.b}: elo0 {self.elo0:+g}, elo1 {self.elo1:+g}, "
                        f"alpha {self.alpha:g}, beta {self.beta:g} ({self.model}), seed "
                        f"{self.seed}, {self.rules.tag}", title_justify="left",
                  show_header=False)
        t.add_column("", justify="left")
        t.add_column("", justify="right")
        rows = [("decision", verdict),
                ("deal pairs played", f"{self.deals:,} ({self.games:,} games; checked every "
                                      f"{self.block:,} pairs)"),
                ("pentanomial p0..p4", " ".join(f"{c:,}" for c in self.pentanomial)),
                ("LLR  [bounds]", f"{self.llr:+.3f}  [{self.bounds[0]:+.3f}, "
                                  f"{self.bounds[1]:+.3f}]"),
                ("time", f"{secs(self.seconds)} s (compile/load {secs(self.compile_seconds)} s "
                         f"apart)")]
        if e is not None:   # (none before the first block is finished)
            rows[-1:-1] = [
                (f"Elo (median-unbiased) [{100 * e.conf:g}% CI]",   # a sweep: no bound, "-"
                 f"{num(e.elo, '+.1f')}  [{num(e.lo, '+.1f')}, {num(e.hi, '+.1f')}]"),
                ("Elo (naive, biased by stopping)", num(e.naive_elo, "+.1f")),
                ("LOS", f"{100 * e.los:.2f}%")]
        from rich.markup import escape

        for k, v in rows:   # (as text: "[bounds]" is no style)
            t.add_row(escape(k), escape(v))
        print_whole(console, t)


def run_sprt(a: str, b: str, elo0: float, elo1: float, seed: int = 1,
             threads: int | None = None, max_deals: int = 1_000_000, alpha: float = 0.05,
             beta: float = 0.05, block: int = 1000, *, model: str = "logistic",
             rules: Rules = Rules(), progress: bool = False,
             interruptible: bool = False) -> SPRTResult:
    """Play ``a`` against ``b`` in blocks of ``block`` duplicate deal pairs (deals 0, 1, ...
    of ``seed``, each twice with the seats swapped) until a pentanomial SPRT
    (:class:`durak_sim.sprt.SPRT`) of H0 ``elo = elo0`` against H1 ``elo = elo1`` decides,
    or ``max_deals`` deal pairs are played.

    The test is checked once per block (after deal pairs ``block``, ``2 block``, ...), not
    after every pair: the LLR may overshoot a bound by up to one block, which makes the
    test slightly conservative; the decision and the deal count depend only on the seed,
    ``block`` and the strategies (not on threads, nor on how the blocks are played).
    ``progress``: live progress on stderr when it is a terminal; ``interruptible``: Ctrl-C
    (in the main thread) ends the test at once, with the blocks finished (``interrupted``).

    >>> r = run_sprt("easy", "random", 0, 50, seed=1, block=500)
    >>> r.decision, r.deals % 500
    ('H1', 0)
    """
    import contextlib

    from .limits import MAX_DEALS
    from .progress import Board, live
    from .runner import BlockSizer, block_scores
    from .stopping import StopFlag
    from .sprt import SPRT

    seed = check_seed(seed)
    for name, v in (("block", block), ("max_deals", max_deals)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= v <= MAX_DEALS:
            raise UserError(f"{name} must be an integer in 1..{MAX_DEALS:,}, got {v!r}")
    try:
        test = SPRT(elo0, elo1, alpha=alpha, beta=beta, model=model)
    except ValueError as exc:
        raise UserError(f"SPRT: {exc}") from None
    strats = resolve_strategies([a, b])
    if strats[0].name == strats[1].name:
        raise UserError("an SPRT needs two different strategies")
    board = Board(f"SPRT {a} vs {b}: H0 {elo0:+g}, H1 {elo1:+g} Elo, at most {max_deals:,} "
                  f"deal pairs, checked every {block:,}", unit="deal pairs", games_per_unit=2)
    board.add("m", f"{a} vs {b}", max_deals, a=a, b=b)
    sizer = BlockSizer()
    seconds = 0.0
    compile_s = ready_lineup(strats, rules)
    lo = 0
    status = "continue"
    interrupted = False
    with contextlib.ExitStack() as stack:
        stop = stack.enter_context(StopFlag()) if interruptible else None
        stack.enter_context(live(board, progress))
        while status == "continue" and lo < max_deals and not interrupted:
            hi = min(max_deals, lo + block)
            pent = np.zeros(5, np.int64)
            pos = lo
            while pos < hi:
                if stop:
                    interrupted = True
                    break
                n = min(sizer.size, hi - pos)
                d, r = game_schedule(np.arange(pos, pos + n, dtype=np.int64), 2, True)
                batch = play_schedule(strats, seed, d, r, rules=rules, threads=threads,
                                      stop=None if stop is None else stop.kernel_flag)
                if len(batch) < len(d):   # Ctrl-C during the call: this block is not whole
                    interrupted = True
                    break
                seconds += batch.seconds
                compile_s += batch.compile_seconds
                sizer.played(n, batch.seconds)
                wdl, part = block_scores((d, r, result_columns(batch)))
                pent += part
                pos += n
                board.advance("m", n, batch.seconds, wdl=wdl, pent=part)
            if not interrupted:
                status = test.update(pent)
                lo = hi
                board.status = f"LLR {test.llr:+.3f} [{test.bounds[0]:+.3f}, " \
                               f"{test.bounds[1]:+.3f}] after {lo:,} deal pairs"
    return SPRTResult(a=strats[0].name, b=strats[1].name, elo0=float(elo0), elo1=float(elo1),
                      alpha=float(alpha), beta=float(beta), model=model, seed=seed,
                      block=int(block), max_deals=int(max_deals), decision=status, deals=lo,
                      pentanomial=test.counts.tolist(), llr=test.llr, bounds=test.bounds,
                      estimate=test.estimate() if lo else None, seconds=seconds,
                      compile_seconds=compile_s,
                      rules=rules, versions={s.name: s.version for s in strats},
                      interrupted=interrupted)


__all__ = ["SPRTResult", "run_sprt"]
