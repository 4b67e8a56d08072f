"""durak_sim.storage: Parquet chunks, the manifest, atomic files, the folder lock."""
import json

import numpy as np
import pandas as pd
import pytest

from durak_sim import storage
from durak_sim.play import game_schedule, play_schedule
from durak_sim.files import atomic_write_bytes, remove_temporaries, sha256_file
from durak_sim.storage import (COLUMNS, Manifest, StorageError, chunk_file, games_frame,
                               games_table, read_chunks, result_columns, write_chunk)

NAMES = ["random", "easy"]


def _chunk(lo, hi, seed=5, pairing=(0, 1), threads=1):
    d, r = game_schedule(np.arange(lo, hi), 2, True)
    strats = [NAMES[pairing[0]], NAMES[pairing[1]]]
    batch = play_schedule(strats, seed, d, r, threads=threads)
    return batch, games_table(seed, d, r, NAMES, [1, 1], pairing, result_columns(batch))


def test_chunk_round_trip_equals_the_batch_frame(tmp_path):
    """Stored games read back as exactly the games frame play.py builds."""
    batch, table = _chunk(0, 300)
    rows, sha = write_chunk(tmp_path / chunk_file("random", "easy", 0, 300), table)
    assert rows == 600 and sha == sha256_file(tmp_path / chunk_file("random", "easy", 0, 300))
    entry = {"file": chunk_file("random", "easy", 0, 300), "rows": rows, "sha256": sha}
    back = games_frame(read_chunks(tmp_path, [entry]), NAMES)
    assert list(back.columns) == list(COLUMNS)
    want = batch.frame()
    for c in want.columns:
        got = back[c].astype(str) if c in ("seat0", "seat1", "outcome") else back[c]
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want[c]), err_msg=c)
    assert (back["seat0_version"] == 1).all() and (back["seat1_version"] == 1).all()
    assert not list(tmp_path.rglob("*.tmp"))


def test_the_batch_frame_of_a_larger_table_has_every_seat_and_place():
    """At four players the frame has a column per seat and per place, agreeing with the
    batch's own seat names and places (it had two seats and a rotation as ``swap``)."""
    from durak_sim.rules import Rules

    batch = play_schedule(["random", "easy", "random", "normal"], 3,
                          *game_schedule(range(5), 4, True), rules=Rules(players=4))
    f = batch.frame()
    assert "swap" not in f and f["rotation"].tolist() == [0, 1, 2, 3] * 5
    seats = f[[f"seat{s}" for s in range(4)]].values.tolist()
    assert seats == [batch.seat_names(g) for g in range(len(batch))]
    np.testing.assert_array_equal(f[[f"place{s}" for s in range(4)]].to_numpy(), batch.places())
    assert sorted(f.loc[0, [f"place{s}" for s in range(4)]]) == [1, 2, 3, 4] or \
        f.loc[0, "outcome"] == "draw"


def test_narrow_types_and_shared_dictionary(tmp_path):
    """Every chunk has the same schema (dictionary = the whole field), small ints narrow."""
    _, t1 = _chunk(0, 50)
    _, t2 = _chunk(50, 100, pairing=(1, 0))
    assert t1.schema == t2.schema
    assert str(t1.schema.field("bouts").type) == "int16"
    assert str(t1.schema.field("durak").type) == "int8"
    assert t2.column("seat0").chunk(0).dictionary.to_pylist() == NAMES
    # swap 0 of pairing (1, 0): "easy" sits in seat 0
    assert t2.column("seat0").to_pylist()[:2] == ["easy", "random"]


def test_damaged_or_missing_chunks_are_detected(tmp_path):
    _, table = _chunk(0, 40)
    rel = chunk_file("random", "easy", 0, 40)
    rows, sha = write_chunk(tmp_path / rel, table)
    entry = {"file": rel, "rows": rows, "sha256": sha}
    data = bytearray((tmp_path / rel).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / rel).write_bytes(bytes(data))
    with pytest.raises(StorageError, match="checksum"):
        read_chunks(tmp_path, [entry])
    (tmp_path / rel).unlink()
    with pytest.raises(StorageError, match="missing"):
        read_chunks(tmp_path, [entry])


def _entry(a, b, lo, hi):
    from durak_sim.storage import chunk_file

    return {"pairing": [a, b], "deal_lo": lo, "deal_hi": hi, "file": chunk_file(a, b, lo, hi),
            "rows": 2 * (hi - lo), "sha256": "0" * 64}


def test_manifest_round_trip_and_foreign_files(tmp_path):
    m = Manifest(config={"seed": 1}, provenance={"package_version": "x"},
                 chunks=[_entry("b", "c", 0, 10), _entry("a", "b", 10, 20),
                         _entry("a", "b", 0, 10)])
    m.save(tmp_path)
    back = Manifest.load(tmp_path)
    assert back.config == {"seed": 1}
    assert [(c["pairing"], c["deal_lo"]) for c in back.chunks] == [
        (["a", "b"], 0), (["a", "b"], 10), (["b", "c"], 0)]
    assert back.done == {("a", "b", 0), ("a", "b", 10), ("b", "c", 0)}
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(StorageError, match="not a durak-sim tournament"):
        Manifest.load(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(StorageError, match="cannot read"):
        Manifest.load(tmp_path)
    with pytest.raises(StorageError, match="no tournament"):
        Manifest.load(tmp_path / "nowhere")


def test_atomic_write_leaves_no_temporary_and_cleanup(tmp_path):
    atomic_write_bytes(tmp_path / "a.bin", b"one")
    atomic_write_bytes(tmp_path / "a.bin", b"two")
    assert (tmp_path / "a.bin").read_bytes() == b"two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin"]
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.parquet.tmp").write_bytes(b"half")
    assert remove_temporaries(tmp_path) == 1
    assert not (tmp_path / "sub" / "x.parquet.tmp").exists()


def test_a_killed_writers_temporary_goes_with_the_next_write(tmp_path):
    """A SIGKILLed writer of a text file leaves ``.NAME.PID.tmp``; the next write of that
    file removes it once its process is gone, and leaves a live process's alone."""
    import os
    import subprocess
    import sys

    from durak_sim.files import atomic_text_file

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    orphan = tmp_path / f".games.jsonl.{int(dead.stdout)}.tmp"
    live = tmp_path / f".games.jsonl.{os.getppid()}.tmp"
    other = tmp_path / f".other.jsonl.{int(dead.stdout)}.tmp"
    for p in (orphan, live, other):
        p.write_text("half")
    with atomic_text_file(tmp_path / "games.jsonl") as f:
        f.write("x\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["games.jsonl", live.name, other.name])


def test_directory_lock_is_exclusive(tmp_path):
    from durak_sim.errors import UserError

    with storage.DirectoryLock(tmp_path):
        with pytest.raises(UserError, match="another durak-sim process"):
            with storage.DirectoryLock(tmp_path):
                pass
    with storage.DirectoryLock(tmp_path):   # released
        pass


def test_stats_agree_on_stored_and_object_frames():
    """The stored frame's categoricals and narrow ints give the same tables as plain
    strings and int64 (what stats.py documents)."""
    from durak_sim import stats

    batch, table = _chunk(0, 400)
    stored = games_frame(table, NAMES, stats.GAME_COLUMNS)
    plain = batch.frame()
    order = NAMES
    for fn in (lambda g: stats.strategy_table(g), lambda g: stats.pairing_table(g, order=order),
               lambda g: stats.bradley_terry(g, n_boot=50, seed=1),
               lambda g: stats.first_attacker_advantage(g, order=order),
               lambda g: stats.seat_advantage(g, order=order),
               lambda g: stats.game_length(g, order=order)):
        a, b = fn(stored), fn(plain)
        names = {c: object for c in a.columns if c in ("strategy", "a", "b")}
        pd.testing.assert_frame_equal(a.astype(names), b.astype(names), check_dtype=False)


def test_an_atomic_write_onto_a_link_writes_its_file_and_keeps_the_link(tmp_path):
    """Through every link (relative ones too) to the regular file at the end, renamed into
    place beside it; a link to nothing, to a folder or in a loop is refused, untouched."""
    import os

    from durak_sim.files import WriteError, atomic_text_file

    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (elsewhere / "report.md").write_text("old")
    os.symlink("../elsewhere/report.md", out / "mid.md")
    os.symlink(out / "mid.md", out / "report.md")
    atomic_write_bytes(out / "report.md", b"new")
    with atomic_text_file(out / "mid.md") as f:
        f.write("text\n")
    assert (elsewhere / "report.md").read_text() == "text\n"
    assert (out / "report.md").is_symlink() and (out / "mid.md").is_symlink()
    assert sorted(p.name for p in elsewhere.iterdir()) == ["report.md"]
    assert sorted(p.name for p in out.iterdir()) == ["mid.md", "report.md"]

    os.symlink(elsewhere / "nowhere.md", out / "dangling.md")
    os.symlink(elsewhere, out / "folder.md")
    os.symlink("loop.md", out / "loop.md")
    for name, why in (("dangling.md", "nowhere.md, which does not exist"),
                      ("folder.md", "elsewhere, which is not a regular file"),
                      ("loop.md", "Too many levels of symbolic links")):
        with pytest.raises(WriteError, match=f"^cannot write {out / name}: .*{why}"):
            atomic_write_bytes(out / name, b"x")
        with pytest.raises(WriteError, match=f"^cannot write {out / name}: .*{why}"):
            with atomic_text_file(out / name) as f:
                f.write("x")
        assert (out / name).is_symlink()
    assert not (elsewhere / "nowhere.md").exists()
    assert sorted(p.name for p in elsewhere.iterdir()) == ["report.md"]


def test_a_read_only_folder_is_named_in_one_line(tmp_path, monkeypatch):
    """On a read-only file system even the clean-up of the temporary file fails: the error
    still names the file being written, not the temporary one."""
    import errno
    import os
    from pathlib import Path

    from durak_sim.files import WriteError, atomic_text_file

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr("builtins.open", read_only)
    monkeypatch.setattr(Path, "unlink", read_only)
    with pytest.raises(WriteError, match="cannot write .*ratings.csv: Read-only file system"):
        atomic_write_bytes(tmp_path / "ratings.csv", b"x")
    with pytest.raises(WriteError, match="cannot write .*games.jsonl: Read-only file system"):
        with atomic_text_file(tmp_path / "games.jsonl") as f:
            f.write("x")


def test_a_file_where_a_folder_belongs_is_named(tmp_path):
    from durak_sim.files import WriteError, make_folder
    from durak_sim.storage import GAMES_DIR

    (tmp_path / "plots").write_text("mine")
    with pytest.raises(WriteError, match="plots: it is a file, not a folder"):
        make_folder(tmp_path / "plots")
    assert (tmp_path / "plots").read_text() == "mine"
    assert make_folder(tmp_path / "a" / "b").is_dir()
    # a tournament folder whose games/ is a file is refused before anything is written
    m = Manifest(config={}, provenance={}, chunks=[])
    m.save(tmp_path)
    (tmp_path / GAMES_DIR).write_text("not games")
    with pytest.raises(StorageError, match="games is not a folder"):
        Manifest.load(tmp_path)


def test_a_file_that_appears_during_a_write_is_kept(tmp_path):
    """A records file that was not there when its write began is never replaced: a file of
    that name made meanwhile (by the user, by another run) stays, the new one goes beside
    it, and the error says where. One that was there (the command was told --force) is."""
    from durak_sim.files import NameTaken, atomic_text_file

    late = tmp_path / "late.jsonl"
    with pytest.raises(NameTaken) as e:
        with atomic_text_file(late) as f:
            f.write("new\n")
            late.write_text("precious\n")
    assert late.read_text() == "precious\n"
    assert e.value.kept == tmp_path / "late-1.jsonl" and e.value.kept.read_text() == "new\n"
    assert "late.jsonl: a file of that name appeared" in str(e.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["late-1.jsonl", "late.jsonl"]
    with atomic_text_file(late) as f:   # there from the start: replaced
        f.write("again\n")
    assert late.read_text() == "again\n"
    with pytest.raises(NameTaken) as e:   # told not to replace: the next free name
        with atomic_text_file(late, replace=False) as f:
            f.write('{"a":1}\n')
    assert e.value.kept == tmp_path / "late-2.jsonl" and late.read_text() == "again\n"


def test_a_file_system_without_hard_links_keeps_a_file_that_appeared(tmp_path, monkeypatch):
    import errno

    from durak_sim import files

    def no_links(*args):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(files.os, "link", no_links)
    late = tmp_path / "late.jsonl"
    with files.atomic_text_file(late) as f:
        f.write("first\n")
    assert late.read_text() == "first\n"
    with pytest.raises(files.NameTaken) as e:
        with files.atomic_text_file(tmp_path / "b.jsonl") as f:
            f.write("new\n")
            (tmp_path / "b.jsonl").write_text("precious\n")
    assert (tmp_path / "b.jsonl").read_text() == "precious\n"
    assert e.value.kept.read_text() == "new\n"


def test_a_records_file_made_during_a_match_or_a_play_is_kept(tmp_path, monkeypatch):
    """The decision is taken when the command checks its output, before any compile: a file
    made at the path after that (during a cold compile, or while you play) stays, the
    records go beside it, the summary or the game's closing lines come as always, then one
    line says where the records are (exit code 2)."""
    from click.testing import CliRunner

    from durak_sim import match
    from durak_sim.cli import main
    from durak_sim.human import PlaySession

    late = tmp_path / "late.jsonl"
    ready = match.ready_lineup

    def compile_then_a_file(*args, **kw):
        late.write_text("precious\n")
        return ready(*args, **kw)

    monkeypatch.setattr(match, "ready_lineup", compile_then_a_file)
    res = CliRunner().invoke(main, ["match", "easy", "random", "--deals", "5", "--records",
                                    str(late), "--no-progress", "--json"])
    assert res.exit_code == 2
    assert json.loads(res.stdout)["deals"] == 5   # the summary
    assert res.stderr == (f"durak-sim: error: cannot write {late}: a file of that name "
                          f"appeared while this one was written, and is left as it was; the "
                          f"new one is {tmp_path / 'late-1.jsonl'}\n")
    assert late.read_text() == "precious\n"
    assert len((tmp_path / "late-1.jsonl").read_text().splitlines()) == 10

    mine = tmp_path / "mine.jsonl"
    record = PlaySession.record

    def a_file_then_the_record(self):
        if not mine.exists():
            mine.write_text("precious\n")
        return record(self)

    monkeypatch.setattr(PlaySession, "record", a_file_then_the_record)
    res = CliRunner().invoke(main, ["play", "--ai", "random", "--seed", "3", "--pace", "0",
                                    "--record", str(mine)], input="quit\n")
    assert res.exit_code == 2
    kept = tmp_path / "mine-1.jsonl"
    assert f"record: {kept}" in res.stdout and "the deal again from its start" in res.stdout
    assert res.stderr.endswith(f"the new one is {kept}\n")
    assert mine.read_text() == "precious\n" and json.loads(kept.read_text())["seed"] == 3
