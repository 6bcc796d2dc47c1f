#!/usr/bin/env python3
"""Does the projected graph depend on batch boundaries? Same sources, same order, two batch sizes.

Captures ``--robots`` robots' dialogue in ONE subject (``site``), each robot in sessions of
its own (``robot_<i>-s<k>``, ``--session`` turns each) so that the robots' sessions overlap
in time, as a fleet's shared subject does; consolidates it with batches of 128, takes the
graph, requeues everything (``reset_derived``) and consolidates it again with batches of
``--small``, then once more with 128. Prints one JSON line: the tables that differ between
128 and ``--small`` (rows only on either side, one example), and whether 128 vs 128 is equal.
A rebuild must reproduce the graph whatever the batch boundaries (consolidation/hierarchy.py),
so any difference is a determinism fault. Exit status 1 when 128 and ``--small`` differ.
SQLite in a temporary folder, MiniLM on the CPU (about a minute for 600 events, 2 cores).
The same check with the hashing encoder, in seconds, is test/engine/test_batch_boundaries.py;
this tool runs it at fleet size with the real encoder.

Usage: .venv/bin/python tools/batch_boundaries.py [--robots 4] [--turns 150] [--session 25]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from trace_ros.bench.faults import shared_subject_events
from trace_ros.bench.graphcheck import snapshot_diff
from trace_ros.capture import ingest
from trace_ros.config import load_config
from trace_ros.consolidation.project import build_projection
from trace_ros.consolidation.worker import Consolidator
from trace_ros.embed import MiniLMEncoder
from trace_ros.ledger import Ledger


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--robots", type=int, default=4)
    parser.add_argument("--turns", type=int, default=150, help="turns per robot")
    parser.add_argument("--session", type=int, default=25, help="turns per session")
    parser.add_argument("--small", type=int, default=7, help="the small batch size")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = load_config(None, None, {"ledger.db_path": str(Path(tmp) / "b.db")})
        encoder = MiniLMEncoder(cfg.embed)
        encoder.load()

        def drain(ledger: Ledger, batch: int) -> dict[str, Any]:
            cfg.consolidation.batch_size = batch
            projector, gate = build_projection(ledger, cfg)
            try:
                Consolidator(ledger, encoder, cfg.consolidation, projector=projector,
                             gate=gate).drain()
            finally:
                gate.close()
            return ledger.graph_snapshot()

        with Ledger(Path(tmp) / "b.db") as ledger:
            ingest(ledger, shared_subject_events(args.robots, args.turns, args.session), cfg.capture)
            big = drain(ledger, 128)
            ledger.reset_derived()
            small = drain(ledger, args.small)
            ledger.reset_derived()
            again = drain(ledger, 128)
    diff = snapshot_diff(big, small)
    print(json.dumps({
        "robots": args.robots, "events": args.robots * args.turns,
        f"128_vs_{args.small}": {t: {"only_128": d["only_live"], "only_small": d["only_rebuilt"],
                                     "example": d["examples"][:1]} for t, d in diff.items()}
        or "equal",
        "128_vs_128": "equal" if not snapshot_diff(big, again) else "differs"}))
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
