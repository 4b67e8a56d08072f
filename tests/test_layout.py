"""House rules of the source tree, checked: the public layers do not import numba (only the
kernel and the compiled strategies do), and no module grows far past 600 lines."""
import ast
from pathlib import Path

import durak_sim

PACKAGE = Path(durak_sim.__file__).parent
SOURCE = Path(__file__).resolve().parents[1]     # the checkout, whether or not installed editable


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> set:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_kernel_and_the_strategies_import_numba():
    kernel = PACKAGE / "kernel"
    offenders = [str(p.relative_to(PACKAGE)) for p in _modules()
                 if kernel not in p.parents and p.parent.name != "strategies"
                 and "numba" in _imports(p)]
    assert offenders == []


def test_no_module_is_much_over_600_lines():
    sources = _modules()
    sources += sorted((SOURCE / "strategies").glob("*.py"))
    long = {str(p): n for p in sources
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 650}
    assert long == {}


def test_the_observation_indices_in_the_docs_are_the_codes():
    """docs/observation.md lists every entry's index and every phase's value for engines
    written in other languages: each must be the constant's, and none may be missing."""
    import re

    from durak_sim import observation

    text = " ".join((SOURCE / "docs" / "observation.md").read_text().split())
    said = {n: int(v) for n, v in re.findall(r"`((?:O|PHASE)_[A-Z_]+)` (\d+)", text)}
    codes = {n: getattr(observation, n) for n in dir(observation)
             if n.startswith(("O_", "PHASE_")) and isinstance(getattr(observation, n), int)}
    assert said == codes
