"""Which tables and indexes a capture commit writes to the WAL, in pages per commit.

    PYTHONPATH=. python tools/wal_pages.py [--events N] [--group G] [--preload P] [--json]

Stores P of the bench's events (``bench capture``'s, a third of them perception, eight
subjects in turn) in a fresh ledger, checkpoints, then N more in groups of G as the
capture writer commits them, and reads the WAL's frames: each is one page a commit
wrote (the whole page, ~4 KB, however little changed in it), named by SQLite's
``dbstat`` after the b-tree (table or index) it belongs to. An index whose key leads
with the subject writes a page per subject (and per label, ...) that a group touches,
whatever the group's size: what an index costs capture is its pages here, their bytes
in the WAL, their fsync and their checkpoint, more than its CPU (issue 16: measured
with ``tools/capture_stages.py``'s commit stage, which ignores the disk).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import struct
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_WAL_HEADER, _FRAME_HEADER = 32, 24


def bench_items(n: int) -> list[Any]:
    """``n`` of the bench's events, decoded and prepared as the node prepares them."""
    from trace_ros.msg import DialogueEvent, PerceptionEvent

    from trace_ros.bench.capture import Streamer
    from trace_ros.capture import prepare
    from trace_ros.config import CaptureConfig
    from trace_ros.nodes import convert

    kinds = {False: (DialogueEvent, convert.dialogue_to_event),
             True: (PerceptionEvent, convert.perception_to_event)}
    streamer = Streamer("walpages")
    for _ in range(200):  # every shape's template once
        streamer.message_bytes()
    config = CaptureConfig()
    items = []
    for _, raw, perception in (streamer.message_bytes() for _ in range(n)):
        msg_type, to_event = kinds[perception]
        items.append(prepare(to_event(convert.read_event(raw, msg_type)[0]), config, None))
    return items


def wal_pages(wal: bytes) -> Counter[int]:
    """How many frames of the WAL file's bytes hold each page number."""
    page_size = struct.unpack(">I", wal[8:12])[0]
    pages: Counter[int] = Counter()
    for offset in range(_WAL_HEADER, len(wal) - _FRAME_HEADER + 1, _FRAME_HEADER + page_size):
        pages[struct.unpack(">I", wal[offset:offset + 4])[0]] += 1
    return pages


def pages_per_commit(events: int = 3200, group: int = 32, preload: int = 20000
                     ) -> dict[str, Any]:
    """Frames per commit of each b-tree, and the WAL's bytes per event."""
    from trace_ros.ledger import Ledger

    items = bench_items(preload + events)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pages.db"
        ledger = Ledger(path)
        try:
            now = time.time()
            for start in range(0, preload, 256):
                ledger.store_sources(items[start:min(start + 256, preload)], now=now,
                                     durable=False)
            ledger.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            ledger.conn.execute("PRAGMA wal_autocheckpoint = 0")
            rest = items[preload:]
            for start in range(0, events, group):
                ledger.store_sources(rest[start:start + group], now=now, durable=False)
            wal = (path.parent / (path.name + "-wal")).read_bytes()
            with sqlite3.connect(path) as conn:  # dbstat: SQLite's page-to-b-tree map
                owner = dict(conn.execute("SELECT pageno, name FROM dbstat"))
        finally:
            ledger.close()
    commits = -(-events // group)
    by_tree: Counter[str] = Counter()
    for page, frames in wal_pages(wal).items():
        by_tree[owner.get(page, "?")] += frames
    return {"events": events, "group": group, "preload": preload,
            "wal_bytes_per_event": round(len(wal) / events),
            "pages_per_commit": round(sum(by_tree.values()) / commits, 1),
            "by_tree": {name: round(frames / commits, 1) for name, frames in by_tree.most_common()}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=3200)
    parser.add_argument("--group", type=int, default=32, help="events per commit (default 32)")
    parser.add_argument("--preload", type=int, default=20000,
                        help="events stored before (default 20000)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    result = pages_per_commit(max(1, args.events), max(1, args.group), max(0, args.preload))
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['pages_per_commit']} pages a commit of {result['group']}, "
          f"{result['wal_bytes_per_event']} WAL bytes an event")
    for name, pages in result["by_tree"].items():
        print(f"  {name:32s} {pages:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
