"""A manifest that no longer matches its games: edited, truncated or hostile manifests are
refused by ``report`` and ``--resume`` with one line and exit code 2, and nothing stored is
changed."""
import hashlib
import json
import shutil
import subprocess
import sys

import pytest

from cli_errors import assert_one_line_error, invoke
from durak_sim.tournament import run_tournament

CLI = [sys.executable, "-m", "durak_sim.cli"]


def run_cli(*args):
    """The console script in a new process (the error contract end to end)."""
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=300)


def snapshot(folder):
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("m") / "t"
    run_tournament(["random", "easy", "normal"], 600, 7, out, 1, progress=False,
                   chunk_deals=200)
    return out


@pytest.fixture(scope="module")
def unfinished(tmp_path_factory, finished):
    """The same tournament with its last chunks unplayed (as an interrupted run leaves it)."""
    out = tmp_path_factory.mktemp("m") / "u"
    shutil.copytree(finished, out)
    m = json.loads((out / "manifest.json").read_text())
    dropped = m["chunks"][-2:]
    m["chunks"] = m["chunks"][:-2]
    for c in dropped:
        (out / c["file"]).unlink()
    for f in ("report.md", "report.html"):
        (out / f).unlink()
    (out / "manifest.json").write_text(json.dumps(m, indent=1, sort_keys=True) + "\n")
    return out


def _edit(m, path, value):
    node = m
    for k in path[:-1]:
        node = node[k]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value


_DELETE = object()

EDITS = {
    "seed": (["config", "seed"], 8, ["seed 7", "seed 8"]),
    "strategy swapped": (["config", "strategies", 0, "name"], "hard", ["not a pairing"]),
    "version": (["config", "strategies", 1, "version"], 99, ["version"]),
    "deals": (["config", "deals"], 500, ["not a chunk"]),
    "chunk size": (["config", "chunk_deals"], 300, ["not a chunk"]),
    "seed not a number": (["config", "seed"], "seven", ["seed"]),
    "config not an object": (["config"], [1, 2], ["config"]),
    "chunks not a list": (["chunks"], {"a": 1}, ["chunks"]),
    "chunk without sha": (["chunks", 0, "sha256"], _DELETE, ["missing sha256"]),
    "file outside the folder": (["chunks", 0, "file"], "../../etc/passwd", ["file"]),
    "rows": (["chunks", 0, "rows"], 5, ["rows"]),
    "foreign pairing": (["chunks", 0, "pairing"], ["easy", "hard"], ["malformed", "file"]),
    "format": (["format"], "other/1", ["not a durak-sim tournament manifest"]),
    "gauntlet": (["config", "gauntlet"], "normal", ["gauntlet"]),
    "grown from": (["config", "grown_from"], [400, 300], ["grown_from"]),
    "grown elsewhere": (["config", "grown_from"], [300], ["not a chunk"]),
    # Python's own words ("string indices must be integers") said nothing of the manifest
    "strategies as names": (["config", "strategies"], ["random", "easy"],
                            ["malformed tournament config", "value of the wrong kind"]),
    "no deals": (["config", "deals"], _DELETE, ["malformed tournament config", "lacks 'deals'"]),
}


@pytest.mark.parametrize("name", sorted(EDITS))
@pytest.mark.parametrize("which", ["finished", "unfinished"])
def test_an_edited_manifest_is_refused_and_nothing_changes(tmp_path, request, which, name):
    src = request.getfixturevalue(which)
    out = tmp_path / "t"
    shutil.copytree(src, out)
    path, value, words = EDITS[name]
    m = json.loads((out / "manifest.json").read_text())
    _edit(m, path, value)
    (out / "manifest.json").write_text(json.dumps(m))
    before = snapshot(out)
    for args in (["report", out], ["tournament", "--resume", out]):
        proc = (run_cli if (name, which) == ("seed", "finished") else invoke)(*args)
        assert_one_line_error(proc, *words)
        assert snapshot(out) == before, args


@pytest.mark.parametrize("text", ["", "{", "[]", "null", '{"format": "durak-sim/tournament/1"}'])
def test_a_broken_manifest_file_is_one_line(tmp_path, finished, text):
    out = tmp_path / "t"
    shutil.copytree(finished, out)
    (out / "manifest.json").write_text(text)
    before = snapshot(out)
    for args in (["report", out], ["tournament", "--resume", out]):
        proc = (run_cli if text == "{" else invoke)(*args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert snapshot(out) == before


def test_a_manifest_that_is_not_utf8_says_so(tmp_path, finished):
    out = tmp_path / "t"
    shutil.copytree(finished, out)
    (out / "manifest.json").write_bytes(b"\xff\xfe{}")
    for args in (["report", out], ["tournament", "--resume", out]):
        assert_one_line_error(invoke(*args), "manifest.json: it is not UTF-8 text")


def test_a_chunk_of_another_tournament_is_refused(tmp_path, finished):
    """A chunk file replaced by another tournament's (and its checksum updated to match)."""
    out, other = tmp_path / "t", tmp_path / "o"
    shutil.copytree(finished, out)
    run_tournament(["random", "easy", "normal"], 600, 8, other, 1, progress=False,
                   chunk_deals=200, report=False)
    m = json.loads((out / "manifest.json").read_text())
    c = m["chunks"][0]
    shutil.copy(other / c["file"], out / c["file"])
    c["sha256"] = hashlib.sha256((out / c["file"]).read_bytes()).hexdigest()
    (out / "manifest.json").write_text(json.dumps(m))
    for args in (["report", out], ["tournament", "--resume", out]):
        assert_one_line_error(invoke(*args), "seed 8", "seed 7")


def test_a_tournament_run_from_python_records_the_command_that_plays_it_again(tmp_path):
    """Not the host program's argv (pytest's, a script's): the durak-sim command."""
    out = tmp_path / "t"
    r = run_tournament(["random", "easy"], deals=40, seed=5, out=out, progress=False,
                       report=False)
    m = json.loads((out / "manifest.json").read_text())
    assert m["provenance"]["command"] == r.config.command() == \
        "durak-sim tournament random easy --deals 40 --seed 5"
    run_tournament(resume=True, out=out, deals=60, progress=False, report=False)
    m = json.loads((out / "manifest.json").read_text())
    assert m["provenance"]["resumed"][0]["command"] == \
        f"durak-sim tournament --resume {out} --deals 60"
