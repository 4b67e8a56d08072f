"""The options and checks the ``durak-sim`` commands share (``cli``, ``cli_tournament``,
``cli_play``): kept apart from the command group so that a command module imports them without
importing the group that registers it."""
from __future__ import annotations

from pathlib import Path

import click

from .errors import UserError
from .limits import MAX_ENGINE_TIMEOUT, MAX_INDEX


class Seconds(click.FloatRange):
    """A number of seconds within a range; NaN, which passes every comparison, is refused
    too."""

    name = "seconds"

    def convert(self, value, param, ctx):
        rv = super().convert(value, param, ctx)
        if rv != rv:
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        return rv


def split_list(text: str) -> list[str]:
    """``A,B,C`` split at the commas outside quotes: an external engine's command may hold a
    comma in a quoted argument, which stays in its item (its quotes too, for the engine's
    own parsing, as in ``match``).

    >>> split_list('easy,engine:bot.py "x,y.log",hard')
    ['easy', 'engine:bot.py "x,y.log"', 'hard']
    >>> split_list(r'engine:bot.py "a\\"b,c",easy')   # (a backslash escapes, as in shlex)
    ['engine:bot.py "a\\\\"b,c"', 'easy']
    """
    items, item, quote, escaped = [], [], None, False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote is not None:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == ",":
            items.append("".join(item))
            item = []
            continue
        item.append(ch)
    items.append("".join(item))
    return items


def load_plugins(plugins) -> None:
    from .registry import load_plugin

    for p in plugins:
        load_plugin(p)


plugin_option = click.option(
    "--plugin", "plugins", multiple=True, metavar="MODULE|FILE.py",
    help="Import a module that registers strategies (repeatable).")
seed_option = click.option("--seed", type=click.IntRange(0, MAX_INDEX), default=1,
                           show_default=True, help="Master seed.")
threads_option = click.option("--threads", type=click.IntRange(1), default=None,
                              help="Threads, at most the cores numba may use (all of them "
                                   "unless NUMBA_NUM_THREADS says fewer)  [default: all]")
engine_timeout_option = click.option(
    "--engine-timeout", type=Seconds(0, MAX_ENGINE_TIMEOUT, min_open=True), default=None,
    metavar="SECONDS", help="Time limit of an external engine's decision (strategy "
                            "engine:PATH; durak-sim docs engine-protocol).  [default: 5]")


class PathParam(click.Path):
    """``click.Path`` that refuses an empty value, which it would read as the current
    folder (``--out ''`` would then fill the folder the command runs in)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail(f"needs a path, got {value!r}", param, ctx)
        return super().convert(value, param, ctx)


def check_output_file(path: Path, force: bool, option: str):
    """``path`` may be written (atomically, later): its folder is writable, and it does not
    exist unless ``force``; what exists there is a plain file or a symbolic link to one (the
    write replaces the linked file and keeps the link: ``files.write_target``). A device
    such as /dev/null, a pipe or a link to nothing would be lost or surprising, so they are
    refused even with ``force``. Nothing is created or changed here. Returns the output's
    ``files.Claim``: a file that appears at ``path`` from now on is kept, not replaced."""
    import stat
    import tempfile

    from .files import WriteError, claim, write_target

    if str(path) == "-":
        raise UserError(f"{option} -: the output is written to a file, not to standard output "
                        f"(the command prints there); name a file (one called '-' by its "
                        f"full path)")
    if path.is_dir():
        raise UserError(f"{option} {path} is a folder")
    try:
        target = write_target(path)
    except WriteError as exc:
        raise UserError(f"{option}: {exc}") from None
    if target.exists() and not stat.S_ISREG(target.stat().st_mode):
        raise UserError(f"{option} {path} is not a plain file (a device or a pipe): the file "
                        f"is written whole and put in its place, so give the path of a plain "
                        f"file")
    if path.exists() and not force:
        raise UserError(f"{option} {path} exists: add --force to replace it")
    folder = target.parent if str(target.parent) else Path(".")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".durak-sim-", delete=True):
            pass
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    return claim(path, force)


def stdout_to_devnull() -> None:
    """Point stdout at nothing once its reader has gone (``| head``): later writes and the
    interpreter's last flush then raise nothing."""
    import os
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def apply_engine_settings(timeout) -> None:
    """The command's ``--engine-timeout`` (:func:`durak_sim.external.apply_timeout`)."""
    from .external import apply_timeout

    apply_timeout(timeout)
