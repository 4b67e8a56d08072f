"""Errors a user can cause. The CLI prints them as one line and exits with code 2.

A message that names an option names it as the caller wrote it: the command's option
(``--threads``) inside a durak-sim command, the keyword argument (``threads``) when a
function of the library is called from Python (:func:`option`)."""
import contextvars
import os

#: set while a durak-sim command runs (``cli.Group.main``)
IN_COMMAND = contextvars.ContextVar("durak_sim_in_command", default=False)
_UNSET = object()


def option(command: str, keyword: str, value=_UNSET) -> str:
    """An option as an error names it: ``command`` (``--out``) inside a durak-sim command,
    ``keyword`` (``out``) from Python; with ``value``, followed by it as each would show it.

    >>> option("--chunk", "chunk_deals", 5000), option("--out", "out", "my-run")
    ('chunk_deals=5000', "out='my-run'")
    >>> token = IN_COMMAND.set(True)
    >>> option("--chunk", "chunk_deals"), option("--out", "out", "my-run")
    ('--chunk', '--out my-run')
    >>> IN_COMMAND.reset(token)
    """
    if IN_COMMAND.get():
        return command if value is _UNSET else f"{command} {value}"
    if value is _UNSET:
        return keyword
    return f"{keyword}={str(value)!r}" if isinstance(value, (str, os.PathLike)) else \
        f"{keyword}={value!r}"


class UserError(ValueError):
    """Bad input: an unknown name, a malformed file, an impossible option value."""


EXIT_USAGE = 2


class StrategyFailure(RuntimeError):
    """A strategy failed while playing: it raised, exited, returned something that is not a
    legal action, or never let the deal end. The message names the strategy, its seat, the
    seed and the deal; the CLI prints it as one line and exits with code 2."""

    def one_line(self, where: str, at: str) -> str:
        """The line that reports this failure of the strategy ``where`` names (``strategy
        'x' (seat 1)``) at the game ``at`` names (:func:`game_at`); an external engine
        words it its own way (:class:`durak_sim.external.EngineFailure`), the same in every
        command."""
        return f"{where} {describe_failure(self)} {at}"


def game_at(seed: int, deal: int, series_deal: int | None = None) -> str:
    """Where a game is, as ``replay`` takes it: ``at seed 1 deal 4``, or in a series ``at
    seed 1 series 4 deal 2`` (deal 2 of series 4).

    >>> game_at(1, 4), game_at(1, 4, 2)
    ('at seed 1 deal 4', 'at seed 1 series 4 deal 2')
    """
    if series_deal is None:
        return f"at seed {seed} deal {deal}"
    return f"at seed {seed} series {deal} deal {series_deal}"


def describe_failure(exc: BaseException) -> str:
    """What a strategy's exception says, in a few words for a one-line error.

    >>> describe_failure(ValueError("bad\\nmore")), describe_failure(SystemExit(0))
    ('raised ValueError: bad', 'called sys.exit(0)')
    """
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code})"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"raised {type(exc).__name__}" + (f": {text}" if text else "")


NOTHING_FINISHED = "interrupted before the first deal was finished: nothing was written"


def describe_compile_failure(exc: BaseException) -> str:
    """One line of a numba compile error: its kind, where (the strategy's file and line) and
    the first line that says what failed, rather than the pipeline's header.

    >>> class TypingError(Exception): pass
    >>> e = TypingError('Failed in nopython mode pipeline (step: nopython frontend)\\n'
    ...                 'No implementation of function add found for signature:\\n'
    ...                 ' >>> add(unicode_type, int64)\\n\\nFile "bot.py", line 6:\\n  x')
    >>> describe_compile_failure(e)
    'TypingError at bot.py line 6: No implementation of function add found for signature: add(unicode_type, int64)'
    """
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    what = next((ln for ln in lines if not ln.startswith(
        ("Failed in", "During:", "File ", "There are", "- Of which", ">>>"))), "")
    sig = next((ln[3:].strip() for ln in lines if ln.startswith(">>>")), "")
    where = re.findall(r'File "([^"]+)", line (\d+)', text)
    at = f" at {where[-1][0]} line {where[-1][1]}" if where else ""
    said = " ".join(w for w in (what, sig) if w)
    return f"{type(exc).__name__}{at}" + (f": {said}" if said else "")


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM, SIGHUP) before anything was finished; the message says what was
    kept (the CLI prints it and exits with 130, as for any Ctrl-C)."""


class ExitNow(Exception):
    """Exit with ``code`` at once, everything saved and said (after Ctrl-C): the
    interpreter's own shutdown (numba, pandas, pyarrow and matplotlib torn down) would take
    another second of the user's time. The CLI does it; an in-process caller gets
    ``SystemExit(code)``."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code
