"""Errors a user can cause. The CLI prints them as one line and exits with code 2."""


class UserError(ValueError):
    """Bad input: an unknown name, a malformed file, an impossible option value."""


EXIT_USAGE = 2


class StrategyFailure(RuntimeError):
    """A strategy failed while playing: it raised, exited, returned something that is not a
    legal action, or never let the deal end. The message names the strategy, its seat, the
    seed and the deal; the CLI prints it as one line and exits with code 2."""

    def one_line(self, where: str, seed: int, deal: int) -> str:
        """The line that reports this failure of the strategy ``where`` names (``strategy
        'x' (seat 1)``) at deal ``deal`` of ``seed``; an external engine words it its own
        way (:class:`durak_sim.external.EngineFailure`), the same in every command."""
        return f"{where} {describe_failure(self)} at seed {seed} deal {deal}"


def describe_failure(exc: BaseException) -> str:
    """What a strategy's exception says, in a few words for a one-line error.

    >>> describe_failure(ValueError("bad\\nmore")), describe_failure(SystemExit(0))
    ('raised ValueError: bad', 'called sys.exit(0)')
    """
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code})"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"raised {type(exc).__name__}" + (f": {text}" if text else "")


class ExitNow(Exception):
    """Exit with ``code`` at once, everything saved and said (after Ctrl-C): the
    interpreter's own shutdown (numba, pandas, pyarrow and matplotlib torn down) would take
    another second of the user's time. The CLI does it; an in-process caller gets
    ``SystemExit(code)``."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code
