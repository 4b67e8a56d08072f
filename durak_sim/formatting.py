"""Numbers as text for the report and the match summary: a value that is undefined (NaN,
or not finite) is written as a dash, never as ``nan`` or ``inf``.

>>> pct_ci(0.5, 0.45, 0.55), pct_ci(float("nan"), 0.0, 1.0), num(float("inf"), ".3f")
('50.00 [45.00, 55.00]', '-', '-')
>>> elo_ci(1231.8, 1000.9, 1231.8, bound=True)
'≥ +1231.8 [+1000.9, +1231.8]'
"""
from __future__ import annotations

import math

DASH = "-"


def finite(*xs) -> bool:
    return all(math.isfinite(x) for x in xs)


def _fmt(x, spec: str) -> str:
    """``format`` without a minus sign on a value that shows as zero (``-0.0000``)."""
    s = format(x, spec)
    if s.startswith("-") and not any(c in s[1:] for c in "123456789"):
        s = ("+" if spec.startswith("+") else "") + s[1:]
    return s


def num(x, spec: str) -> str:
    """``x`` formatted, a dash when it is not finite.

    >>> num(-1e-17, "+.4f"), num(-0.0, ".2f"), num(float("nan"), ".2f")
    ('+0.0000', '0.00', '-')
    """
    return _fmt(x, spec) if finite(x) else DASH


def secs(x: float) -> str:
    """Seconds with two decimals; a time under a hundredth with two significant digits
    (a short run's kernel time is not "0.00").

    >>> secs(12.345), secs(0.0412), secs(0.00345), secs(0.00005), secs(0.0)
    ('12.35', '0.04', '0.0034', '0.000050', '0.00')
    """
    if x >= 0.01 or x <= 0:
        return f"{x:.2f}"
    return f"{x:.{1 - math.floor(math.log10(x))}f}"


def p_value(p) -> str:
    """A p-value to three significant figures; one below the smallest a double holds (the
    tail underflows) as ``<1e-300``.

    >>> p_value(0.04321), p_value(0.0), p_value(float("nan"))
    ('0.0432', '<1e-300', '-')
    """
    return "<1e-300" if finite(p) and p < 1e-300 else num(p, ".3g")


def pct(x, spec: str = ".2f") -> str:
    return format(100 * x, spec) if finite(x) else DASH


def pct_ci(rate, lo, hi, spec: str = ".2f", gap: str = " ") -> str:
    """A rate and its interval in percent: ``50.00 [45.00, 55.00]``."""
    if not finite(rate, lo, hi):
        return DASH
    return f"{format(100 * rate, spec)}{gap}[{100 * lo:.2f}, {100 * hi:.2f}]"


def ci(lo, hi, spec: str = "+.1f") -> str:
    """An interval, by default an Elo one: ``[+1.5, +9.0]``."""
    return f"[{_fmt(lo, spec)}, {_fmt(hi, spec)}]" if finite(lo, hi) else DASH


def elo_ci(e, lo, hi, bound: bool = False) -> str:
    """An Elo difference and its interval; ``bound``: the Elo is a bound (a sweep, see
    :func:`durak_sim.stats.elo_limit`), marked with ≥ or ≤."""
    if not finite(e):
        return DASH
    mark = ("≥ " if e > 0 else "≤ ") if bound else ""
    return f"{mark}{e:+.1f} {ci(lo, hi)}"


def ordinal(k: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``.

    >>> [ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 22, 100)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '100th']
    """
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def is_sweep(row) -> bool:
    """Whether a row of :func:`durak_sim.stats.pairing_table` is a sweep: one side won
    every deal pair."""
    return row.pairs > 0 and row.pairs in (row.p0, row.p4)


def wide_console(min_width: int, file=None):
    """A rich console at least ``min_width`` columns wide, on ``file`` (stdout); into a
    file or a pipe its lines are never broken (``soft_wrap``): an interval or a path split
    over two lines is no use to a reader or a script."""
    from rich.console import Console

    plain = Console(file=file)
    return Console(width=max(plain.width, min_width), file=file,
                   soft_wrap=not plain.is_terminal)


def print_whole(console, renderable) -> None:
    """Print a table with none of its figures cut: rich would shorten the cells of a table
    wider than the console with ``…`` (a long strategy name, a file or pipe of the default
    width), so the console is widened to the table's natural width for it (on a narrower
    terminal the lines then wrap)."""
    from rich.measure import Measurement

    need = Measurement.get(console, console.options.update(max_width=1 << 16),
                           renderable).maximum
    width = console.width
    console.width = max(width, need)
    try:
        console.print(renderable)
    finally:
        console.width = width
