"""What the wheel holds: the package, its strategies, the LICENSE and the docs pages the help
texts cite (``durak-sim docs``), installed and read from outside the source tree."""
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from durak_sim.cli import main
from durak_sim.cli_docs import pages

REPO = Path(__file__).resolve().parent.parent


def test_docs_lists_and_prints_every_page():
    runner = CliRunner()
    listed = runner.invoke(main, ["docs"])
    assert listed.exit_code == 0
    names = sorted(p.stem for p in (REPO / "docs").glob("*.md"))
    assert [line.split()[0] for line in listed.output.splitlines()] == names
    assert sorted(pages()) == names
    for name in ("rules", "RULESETS.md"):
        shown = runner.invoke(main, ["docs", name])
        assert shown.exit_code == 0
        assert shown.output == (REPO / "docs" / f"{name.lower().removesuffix('.md')}.md"
                                ).read_text(encoding="utf-8")


def test_an_unknown_page_is_one_line():
    r = CliRunner().invoke(main, ["docs", "nope"])
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [
        "durak-sim: error: no page 'nope': the pages are " + ", ".join(sorted(pages()))]


def test_help_texts_cite_pages_that_exist():
    """Every ``durak-sim docs NAME`` a help text or message cites is a page."""
    import re

    cited = set()
    for path in (REPO / "durak_sim").glob("*.py"):
        cited |= set(re.findall(r"durak-sim docs ([a-z-]+)", path.read_text(encoding="utf-8")))
    assert cited and cited <= set(pages())


def test_the_wheel_holds_the_docs_and_the_license(tmp_path):
    """pip builds the wheel (with build isolation: pyproject's setuptools); installed apart,
    ``durak-sim docs`` reads the pages from the installed package."""
    pytest.importorskip("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                            str(tmp_path), str(REPO)], capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip(f"pip cannot build the wheel here: {built.stderr.strip()[-200:]}")
    wheel = next(tmp_path.glob("durak_sim-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for page in (REPO / "docs").glob("*.md"):
        assert f"durak_sim/docs/{page.name}" in names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert "durak_sim/strategies/hard.py" in names
    target = tmp_path / "installed"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                          "--target", str(target), str(wheel)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr
    # python -S: no .pth files, so an editable install of this checkout cannot answer first
    code = ("import sys, sysconfig; sys.path[:0] = [sys.argv[1], sysconfig.get_path('purelib')];"
            "import durak_sim.cli_docs as d; print(d.folder()); "
            "print(d.page_text('rules').splitlines()[0])")
    shown = subprocess.run([sys.executable, "-S", "-c", code, str(target)],
                           capture_output=True, text=True, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    where, first = shown.stdout.splitlines()
    assert Path(where) == target / "durak_sim" / "docs"
    assert first == "# The rules durak-sim plays"
