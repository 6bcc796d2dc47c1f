"""Does a live ledger's evidence graph equal a clean rebuild from its sources?

A consolidation job lost (marked done without its facts) or applied twice (facts
or edges written again after a crash) leaves the graph different from what
projecting every source once, in order, gives. ``RebuildCheck.compare`` copies
the ledger (SQLite online backup, one snapshot), and on the copy — only if its
consolidation had drained — takes ``graph_snapshot()``, runs ``reset_derived()``
and drains the jobs with the projector the consolidation node uses
(``build_projection`` + ``Consolidator``), and compares the two snapshots.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

# Columns that identify a row of each graph_snapshot() table (for the examples).
KEY_COLUMNS = {"facts": 1, "provenance": 2, "edges": 4, "topics": 2, "sessions": 3}
EXAMPLES = 3


def undrained(jobs: dict[str, int]) -> int:
    """Jobs the consolidation still owes (a failed job owes nothing more)."""
    return jobs["pending"] + jobs["running"] + jobs["deferred"]


def _short(row: tuple[Any, ...] | None, width: int = 60) -> list[Any] | None:
    if row is None:
        return None
    return [v[:width] + "…" if isinstance(v, str) and len(v) > width else v for v in row]


def snapshot_diff(live: dict[str, list], rebuilt: dict[str, list]) -> dict[str, Any]:
    """Per table that differs: row counts, rows only in one side, and a few
    examples paired by key (``live`` or ``rebuilt`` None where the row is missing)."""
    out: dict[str, Any] = {}
    for table in sorted(live.keys() | rebuilt.keys()):
        a = Counter(tuple(r) for r in live.get(table, []))
        b = Counter(tuple(r) for r in rebuilt.get(table, []))
        only_a, only_b = a - b, b - a
        if not only_a and not only_b:
            continue
        k = KEY_COLUMNS.get(table, 1)
        by_key: dict[tuple, dict[str, Any]] = {}
        for side, rows in (("live", only_a), ("rebuilt", only_b)):
            for row in rows:
                entry = by_key.setdefault(row[:k], {"live": None, "rebuilt": None})
                entry[side] = _short(row)
        out[table] = {"live": sum(a.values()), "rebuilt": sum(b.values()),
                      "only_live": sum(only_a.values()), "only_rebuilt": sum(only_b.values()),
                      "examples": [by_key[key] for key in sorted(by_key, key=repr)[:EXAMPLES]]}
    return out


class RebuildCheck:
    """Compares a ledger's graph with a rebuild of a copy; the encoder loads once."""

    def __init__(self, params: Path | None, overrides: dict[str, Any] | None = None,
                 node: str = "consolidation_node", encoder: Any = None) -> None:
        """Config as ``node`` reads it from ``params`` plus ``overrides``; ``encoder``
        replaces the configured MiniLM encoder (tests)."""
        self.params, self.overrides, self.node = params, dict(overrides or {}), node
        self.encoder = encoder
        self._encoders: dict[tuple, Any] = {}

    def _encoder(self, cfg: Any) -> Any:
        import dataclasses

        from trace_ros.embed import MiniLMEncoder

        if self.encoder is not None:
            return self.encoder
        key = dataclasses.astuple(cfg.embed)
        if key not in self._encoders:
            self._encoders[key] = MiniLMEncoder(cfg.embed)
        return self._encoders[key]

    def compare(self, db: Path) -> dict[str, Any]:
        """``{"facts_vs_rebuild": "equal" | "differs" | "not drained", ...}`` for the
        ledger at ``db`` (left untouched: the rebuild runs on a temporary copy)."""
        from trace_ros.ledger import Ledger

        with tempfile.TemporaryDirectory(prefix="trace_ros_rebuild_") as tmp:
            copy = Path(tmp) / "copy.db"
            with Ledger(db, create=False) as ledger:
                ledger.backup_to(copy)
            return self.compare_copy(copy)

    def compare_copy(self, copy: Path) -> dict[str, Any]:
        """As ``compare``, but rebuilds ``copy`` itself (a ledger copy made earlier)."""
        from trace_ros.config import load_config
        from trace_ros.consolidation.project import build_projection
        from trace_ros.consolidation.worker import Consolidator
        from trace_ros.ledger import Ledger

        cfg = load_config(self.params, self.node, {**self.overrides,
                                                   "ledger.db_path": str(copy)})
        with Ledger(copy, cfg.ledger, create=False) as ledger:
            jobs = ledger.job_counts()
            if undrained(jobs):
                return {"facts_vs_rebuild": "not drained", "jobs": jobs}
            live = ledger.graph_snapshot()
            requeued = ledger.reset_derived()
            projector, gate = build_projection(ledger, cfg)
            worker = Consolidator(ledger, self._encoder(cfg), cfg.consolidation,
                                  projector=projector, gate=gate)
            try:
                worker.drain()
            finally:
                gate.close()
            rebuilt_jobs = ledger.job_counts()
            rebuilt = ledger.graph_snapshot()
        diff = snapshot_diff(live, rebuilt)
        out: dict[str, Any] = {"facts_vs_rebuild": "differs" if diff else "equal",
                               "rebuilt_jobs": requeued,
                               "graph_rows": {t: len(rows) for t, rows in live.items()}}
        if rebuilt_jobs["done"] != requeued:
            out["rebuild_jobs"] = rebuilt_jobs  # the rebuild itself failed some jobs
            out["facts_vs_rebuild"] = "differs"
        if diff:
            out["differences"] = diff
        return out
