"""Which b-trees a capture commit writes to the WAL (``tools/wal_pages.py``, issue 16):
the frames are read from the WAL file and named after the table or index of their page."""

from __future__ import annotations

import sqlite3
import struct

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

import wal_pages  # noqa: E402  (tools/ is on the path: pytest.ini)


def _has_dbstat() -> bool:
    try:
        sqlite3.connect(":memory:").execute("SELECT count(*) FROM dbstat").fetchone()
    except sqlite3.OperationalError:
        return False
    return True


def test_frames_are_counted_by_page_number() -> None:
    page = 512
    header = b"\x37\x7f\x06\x82" + struct.pack(">II", 3007000, page) + bytes(20)
    frames = b"".join(struct.pack(">I", number) + bytes(20) + bytes(page)
                      for number in (1, 5, 5, 9))
    assert wal_pages.wal_pages(header + frames) == {1: 1, 5: 2, 9: 1}


@pytest.mark.skipif(not _has_dbstat(), reason="this SQLite has no dbstat table")
def test_every_commit_writes_the_sources_and_their_indexes() -> None:
    result = wal_pages.pages_per_commit(events=64, group=8, preload=64)
    trees = result["by_tree"]
    assert {"sources", "sources_scope_time", "sources_label",
            "jobs"} <= set(trees)
    assert result["pages_per_commit"] == pytest.approx(sum(trees.values()), abs=0.1 * len(trees))
    assert result["wal_bytes_per_event"] > 0
