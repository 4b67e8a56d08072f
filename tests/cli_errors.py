"""The CLI's error contract, shared by the tests: bad input is one line on stderr and exit
code 2, never a traceback. A notice that numba is compiling on first use
(``durak-sim: compiling ...``) may come before it: it is not part of the error."""

NOTICE = "durak-sim: compiling "


def error_lines(stderr: str) -> list[str]:
    """The lines of ``stderr`` without compile notices."""
    return [line for line in stderr.strip().splitlines() if not line.startswith(NOTICE)]


def assert_one_line_error(proc, *words):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = error_lines(proc.stderr)
    assert len(lines) == 1, proc.stderr
    err = lines[0]
    assert err.startswith("durak-sim: error:"), err
    for w in words:
        assert w in err, err


def invoke(*args):
    """The CLI in-process (the console script's Group and its error handling, without a
    new interpreter's start-up): ``returncode``, ``stdout`` and ``stderr`` like
    ``subprocess.run``'s."""
    from types import SimpleNamespace

    from click.testing import CliRunner

    from durak_sim.cli import main

    res = CliRunner().invoke(main, [str(a) for a in args])
    return SimpleNamespace(returncode=res.exit_code, stderr=res.stderr, stdout=res.stdout)
