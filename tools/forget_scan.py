#!/usr/bin/env python3
"""Forget residue by byte scans: store marked secrets, use them, forget them, grep the files.

Builds a ledger with several subjects, each sentence carrying a unique marker token;
consolidates (vectors, facts, edges), asks questions (audit rows), then forgets by subject, by
session and by source IDs (non-ASCII, quoted and ``_``/``%`` IDs included), closes
the ledger and scans every file of it (main, -wal, -shm) for each forgotten marker,
table by table and byte by byte. Markers of records that were kept must still be found
(the scan can fail). Prints one JSON line; exit status 1 if any residue was found.

Usage: .venv/bin/python tools/forget_scan.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, MemoryConfig
from trace_ros.consolidation.project import build_projection
from trace_ros.consolidation.worker import Consolidator
from trace_ros.embed import MiniLMEncoder
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.answer import QueryEngine, QueryRequest

TABLES = ("sources", "jobs", "vectors", "audit", "audit_sources", "sessions", "tombstones",
          "facts", "fact_sources", "edges", "sources_fts_data", "facts_fts_data")


def corpus() -> list[tuple[Event, str]]:
    """(event, marker) pairs; markers are unique lowercase tokens."""
    out = []
    ids = ["bob_1", 'q"uote', "caf\u00e9-\u732b", "50%_off", "plain-id"]
    for s, subject in enumerate(("alice", "bob", "carol")):
        for i in range(12):
            marker = f"zq{subject}{i}x{s}marker"
            sid = ids[i] + f"-{subject}" if i < len(ids) else f"{subject}-{i}"
            out.append((Event("dialogue", Scope(subject, "r1", f"sess{i % 3}"),
                              f"I live in {marker} now and the code word {marker} opens the garden gate.",
                              subject.title(), stamp=1_700_000_000.0 + 100 * s + i,
                              source_id=sid), marker))
    return out


def _read(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("scan.db*")) if p.is_file()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", help="write the ledger into DIR and keep it")
    args = parser.parse_args(argv)
    folder = Path(args.keep or tempfile.mkdtemp(prefix="trace_ros_forget_scan_"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "scan.db"
    items = corpus()
    encoder = MiniLMEncoder()
    with Ledger(db) as ledger:
        ingest(ledger, [e for e, _ in items], CaptureConfig())
        projector, gate = build_projection(ledger, MemoryConfig())
        Consolidator(ledger, encoder, projector=projector, gate=gate).drain()
        gate.close()
        facts = ledger.graph_counts()["facts"]
        engine = QueryEngine(ledger, encoder)
        for subject in ("alice", "bob", "carol"):
            for i in range(3):
                engine.ask(QueryRequest(Scope(subject), f"What is the code word {i}?"))
        forgotten: set[str] = set()
        removed = ledger.forget(Scope("alice"))  # by subject
        removed += ledger.forget(Scope("bob", "r1", "sess1"))  # by session
        carol_ids = [e.source_id for e, _ in items if e.scope.subject_id == "carol"][:5]
        removed += ledger.forget(None, carol_ids)  # by source IDs
        forgotten = set(removed)
        markers = {e.source_id: m for e, m in items}
        gone = {markers[s] for s in forgotten}
        open_blobs = _read(folder)  # while the ledger is open, as under running nodes
    blobs = _read(folder)
    kept = set(markers.values()) - gone
    files = sorted(p for p in folder.glob("scan.db*") if p.is_file())
    residue = {f"{state}:{name}": sorted(m for m in gone if m.encode() in data)
               for state, bb in (("open", open_blobs), ("closed", blobs))
               for name, data in bb.items()}
    residue = {k: v for k, v in residue.items() if v}
    found_kept = sum(any(m.encode() in d for d in blobs.values()) for m in kept)
    per_table: dict[str, int] = {}
    with Ledger(db, create=False) as ledger:
        for table in TABLES:
            try:
                rows = ledger.query(f"SELECT * FROM {table}")
            except Exception:  # noqa: BLE001 - a table this schema does not have
                continue
            text = repr(rows)
            per_table[table] = sum(m in text or m.encode() in text.encode() for m in gone)
    result = {"sources": len(items), "facts_before_forget": facts, "forgotten": len(forgotten),
              "markers_forgotten": len(gone),
              "residue_files": residue, "residue_tables": {k: v for k, v in per_table.items() if v},
              "kept_markers_found": f"{found_kept}/{len(kept)}",
              "files_open": {k: len(v) for k, v in open_blobs.items()},
              "files": {p.name: p.stat().st_size for p in files}}
    print(json.dumps(result))
    return 0 if not residue and not result["residue_tables"] and found_kept == len(kept) else 1


if __name__ == "__main__":
    sys.exit(main())
