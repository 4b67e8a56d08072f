"""Errors a user can cause. The CLI prints them as one line and exits with code 2."""


class UserError(ValueError):
    """Bad input: an unknown name, a malformed file, an impossible option value."""


EXIT_USAGE = 2


class ExitNow(Exception):
    """Exit with ``code`` at once, everything saved and said (after Ctrl-C): the
    interpreter's own shutdown (numba, pandas, pyarrow and matplotlib torn down) would take
    another second of the user's time. The CLI does it; an in-process caller gets
    ``SystemExit(code)``."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code
