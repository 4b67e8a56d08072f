"""Errors a user can cause. The CLI prints them as one line and exits with code 2."""


class UserError(ValueError):
    """Bad input: an unknown name, a malformed file, an impossible option value."""


EXIT_USAGE = 2
