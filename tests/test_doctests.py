"""Every module's docstring examples run (the house rule: doctests run), one test each."""
import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import durak_sim

MODULES = sorted(m.name for m in pkgutil.walk_packages(durak_sim.__path__, "durak_sim.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"


BENCHMARKS = sorted((Path(__file__).resolve().parents[1] / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("path", BENCHMARKS, ids=[p.stem for p in BENCHMARKS])
def test_benchmark_doctests(path):
    spec = importlib.util.spec_from_file_location(f"_bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"


def test_the_readmes_python_block_runs(tmp_path, monkeypatch):
    """The README's "From Python" example runs as written (in a folder of its own)."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("### From Python")
    block = readme[readme.index("```python", start) + len("```python"):]
    block = block[:block.index("```")]
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    assert (tmp_path / "my-run" / "report.md").exists()
