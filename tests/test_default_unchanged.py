"""The two-player default game did not change when the larger tables came: the same seeds give
the same records, byte for byte, as the kernel before them (a digest of 24,000 records taken
with that kernel), and the committed reference ladder rebuilds to the same tables and report."""
import hashlib
import shutil

import pytest

from durak_sim.play import play_games
from durak_sim.records import dumps

#: SHA-256 (first 16 hex digits) of the records below, as the two-player-only kernel wrote them
RECORDS_DIGEST = "5750a1880d06e4af"


def test_default_game_records_are_the_bytes_of_before():
    out = []
    for pair in (["random", "easy"], ["easy", "random"], ["random", "random"], ["easy", "easy"]):
        batch = play_games(pair, seed=7, deals=range(3000), record=True)
        out += [dumps(r) for r in batch.records()]
    digest = hashlib.sha256("\n".join(out).encode()).hexdigest()[:16]
    assert len(out) == 24_000 and digest == RECORDS_DIGEST


#: the same for the levels that read the observation most (SHA-256, first 16 hex digits, of
#: each pairing's records at seed 11, as the two-player-only kernel wrote them)
LEVEL_DIGESTS = {("normal", "easy", 2000): "fb16cf32b67f67b5",
                 ("random", "normal", 2000): "17c93c36d5add1e6",
                 ("hard", "normal", 200): "f1b2516d8ce7471e"}


@pytest.mark.parametrize("a, b, deals", list(LEVEL_DIGESTS))
def test_normal_and_hard_play_the_bytes_of_before(a, b, deals):
    batch = play_games([a, b], seed=11, deals=range(deals), record=True)
    text = "\n".join(dumps(r) for r in batch.records())
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == LEVEL_DIGESTS[a, b, deals]


def test_the_reference_ladder_rebuilds_byte_for_byte(tmp_path):
    from pathlib import Path

    from durak_sim.report import TABLE_FILES, build_report

    ladder = Path(__file__).parent.parent / "reports" / "ladder"
    copy = tmp_path / "ladder"
    shutil.copytree(ladder, copy)
    build_report(copy)
    for name in [*TABLE_FILES.values(), "report.md"]:
        assert (copy / name).read_bytes() == (ladder / name).read_bytes(), name
