"""Strategies as installable packages: an entry point of the group ``durak_sim.strategies``
is found by every command without --plugin, listed with its package's name and version; a
broken one is one line on stderr and the others still load; a built-in's name is refused."""
import os
import subprocess
import sys
import textwrap

import pytest

CLI = [sys.executable, "-m", "durak_sim.cli"]

PACKAGE = textwrap.dedent("""\
    from durak_sim.registry import register_strategy


    def first(obs, legal, hist, rng, mem):
        return int(legal[1])


    register_strategy("toy-first", first, version=3, description="the first legal action",
                      plays="all")


    def register_more():
        register_strategy("toy-last", lambda obs, legal, hist, rng, mem: int(legal[legal[0]]),
                          version=2, description="the last legal action")
""")


def site(tmp_path, entry_points: str, name="toy_strats", version="1.2"):
    """A distribution on a temporary sys.path entry: the package and its .dist-info."""
    root = tmp_path / "site"
    pkg = root / "toy_strats"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(PACKAGE)
    (pkg / "broken.py").write_text("raise ImportError('missing dependency frobnicate')\n")
    (pkg / "clash.py").write_text(
        "from durak_sim.registry import register_strategy\n"
        "register_strategy('easy', lambda obs, legal, hist, rng, mem: int(legal[1]))\n")
    info = root / f"{name}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\n"
                                   f"Version: {version}\n")
    (info / "entry_points.txt").write_text("[durak_sim.strategies]\n" + entry_points)
    return root


def run(root, *args, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, cwd=cwd)


def test_listed_with_the_package_and_played_by_name(tmp_path):
    root = site(tmp_path, "toy = toy_strats\nmore = toy_strats:register_more\n")
    listed = run(root, "strategies")
    assert listed.returncode == 0 and listed.stderr == "", listed.stderr
    lines = {ln.split()[0]: ln for ln in listed.stdout.splitlines()}
    assert "v3" in lines["toy-first"] and "[package toy-strats 1.2]" in lines["toy-first"]
    assert "v2" in lines["toy-last"] and "[package toy-strats 1.2]" in lines["toy-last"]
    assert "package" not in lines["easy"]
    played = run(root, "match", "toy-first", "easy", "--deals", "5", "--no-progress", "--json")
    assert played.returncode == 0, played.stderr
    assert '"toy-first": 3' in played.stdout      # its version, in the summary's versions
    table = run(root, "match", "toy-first", "easy", "random", "--deals", "3", "--no-progress")
    assert table.returncode == 0, table.stderr


def test_a_broken_package_is_one_line_and_the_others_still_load(tmp_path):
    root = site(tmp_path, "broken = toy_strats.broken\nclash = toy_strats.clash\n"
                          "more = toy_strats:register_more\nnotfound = toy_strats.nope\n"
                          "nocall = toy_strats:PACKAGE_NAME\ntoy = toy_strats\n")
    listed = run(root, "strategies")
    assert listed.returncode == 0
    warnings = listed.stderr.strip().splitlines()
    assert len(warnings) == 4, listed.stderr
    assert all(w.startswith("durak-sim: warning: strategy package toy-strats 1.2 (entry point ")
               for w in warnings)
    by_name = {w.split("(entry point ")[1].split(" =")[0]: w for w in warnings}
    assert "ImportError: missing dependency frobnicate" in by_name["broken"]
    assert "ModuleNotFoundError" in by_name["notfound"]
    assert "Traceback" not in listed.stderr
    # the clash is refused with --plugin's own words
    (tmp_path / "clash_plugin.py").write_text((root / "toy_strats" / "clash.py").read_text())
    plugin = subprocess.run([*CLI, "strategies", "--plugin", str(tmp_path / "clash_plugin.py")],
                            capture_output=True, text=True)
    assert plugin.returncode == 2
    assert "strategy name 'easy' is taken by 'easy' (durak_sim.strategies.easy)" in \
        by_name["clash"]
    assert "strategy name 'easy' is taken by 'easy' (durak_sim.strategies.easy)" in plugin.stderr
    names = [ln.split()[0] for ln in listed.stdout.splitlines()]
    assert "toy-first" in names and "toy-last" in names
    assert next(ln for ln in listed.stdout.splitlines() if ln.startswith("easy")).split()[1] \
        == "v1"   # the built-in kept its name
    played = run(root, "match", "toy-last", "easy", "--deals", "3", "--no-progress")
    assert played.returncode == 0


def test_pip_installed_package_in_a_venv(tmp_path):
    """The real thing: pip installs a package declaring the entry point into a venv that
    sees this durak-sim; its strategy plays by name without --plugin."""
    pytest.importorskip("wheel")   # pip builds the package's wheel with it (offline)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "venv_toy.py").write_text(PACKAGE.replace("toy-first", "venv-toy")
                                     .replace("toy-last", "venv-toy-last"))
    (pkg / "setup.py").write_text(textwrap.dedent("""\
        from setuptools import setup
        setup(name="venv-toy", version="0.3", py_modules=["venv_toy"],
              entry_points={"durak_sim.strategies": ["toy = venv_toy",
                                                      "more = venv_toy:register_more"]})
    """))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    py = venv / "bin" / "python"
    pip = subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-build-isolation",
                          "--no-index", "-q", str(pkg)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=repo)
    listed = subprocess.run([str(py), "-m", "durak_sim.cli", "strategies"], capture_output=True,
                            text=True, env=env)
    assert "[package venv-toy 0.3]" in listed.stdout, listed.stdout + listed.stderr
    played = subprocess.run([str(py), "-m", "durak_sim.cli", "match", "venv-toy", "easy",
                             "--deals", "4", "--no-progress"], capture_output=True, text=True,
                            env=env)
    assert played.returncode == 0, played.stderr
    assert "venv-toy" in played.stdout


def test_load_entry_points_in_process(tmp_path, monkeypatch):
    from durak_sim import registry

    root = site(tmp_path, "more = toy_strats:register_more\nbroken = toy_strats.broken\n",
                name="toy_strats_ip")
    monkeypatch.syspath_prepend(str(root))
    import importlib

    importlib.invalidate_caches()
    said = []
    try:
        problems = registry.load_entry_points(warn=said.append)
        assert problems == said and len(said) == 1 and "frobnicate" in said[0]
        s = registry.get_strategy("toy-last")
        assert s.distribution == "toy-strats-ip 1.2" and s.version == 2 and not s.compiled
    finally:
        for name in ("toy-first", "toy-last"):
            registry._REGISTRY.pop(name, None)
        for mod in [m for m in sys.modules if m.startswith("toy_strats")]:
            del sys.modules[mod]
