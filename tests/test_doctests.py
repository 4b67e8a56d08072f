"""Every module's docstring examples run (the house rule: doctests run), one test each."""
import doctest
import importlib
import pkgutil

import pytest

import durak_sim

MODULES = sorted(m.name for m in pkgutil.walk_packages(durak_sim.__path__, "durak_sim.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
