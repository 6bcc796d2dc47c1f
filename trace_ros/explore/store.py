"""Read-only access to a ledger for the explorer.

``open_read_only`` opens the SQLite file with ``mode=ro`` (and ``query_only``), so
nothing the web page does can write, and it is safe beside running nodes (WAL).
``ExploreReads`` holds the few reads the explorer needs that the ``Ledger`` and
its ``GraphStore`` mixin do not offer (subjects, perception poses, past
questions); everything else goes through their own methods.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlite_utils import Database

from ..config import LedgerConfig
from ..errors import TraceError
from ..ledger import MIGRATIONS, Ledger


class ReadOnlyLedger(Ledger):
    """A ``Ledger`` on a read-only connection: no migration, no WAL switch."""

    def __init__(self, path: str | Path, config: LedgerConfig | None = None) -> None:
        self.config = config or LedgerConfig()
        self.path = Path(path).expanduser().resolve()
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: no such ledger")
        self._lock = threading.RLock()
        self.conn = sqlite3.connect(
            f"file:{quote(str(self.path))}?mode=ro", uri=True,
            timeout=self.config.busy_timeout_ms / 1000.0, isolation_level=None,
            check_same_thread=False)
        self.conn.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_ms)}")
        self.conn.execute("PRAGMA query_only = ON")
        self.db = Database(self.conn)
        try:
            pending = MIGRATIONS.pending(self.db)
        except sqlite3.Error as exc:
            self.conn.close()
            raise TraceError(f"{self.path}: not a trace_ros ledger ({exc})") from exc
        if pending:
            self.conn.close()
            raise TraceError(f"{self.path}: ledger schema is older than this code; open it once "
                             "with `trace-ros stats --db` to migrate")

    def _migrate(self) -> None:  # pragma: no cover - never called on a read-only ledger
        raise TraceError("a read-only ledger is never migrated")


def open_read_only(path: str | Path, config: LedgerConfig | None = None) -> ReadOnlyLedger:
    return ReadOnlyLedger(path, config)


class ExploreReads:
    """Reads of the explorer that the ledger has no method for (SQL kept here)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def subjects(self) -> list[dict[str, Any]]:
        """Every subject with its source counts, time span, robots and sessions."""
        rows = self.ledger.query(
            "SELECT subject_id, count(*), sum(modality = 'perception'), min(source_time), "
            "max(source_time), count(DISTINCT robot_id), count(DISTINCT session_id) "
            "FROM sources GROUP BY subject_id ORDER BY subject_id")
        facts = dict(self.ledger.query("SELECT subject_id, count(*) FROM facts GROUP BY subject_id"))
        return [{"subject_id": r[0], "sources": int(r[1]), "perception": int(r[2] or 0),
                 "first_time": r[3], "last_time": r[4], "robots": int(r[5]),
                 "sessions": int(r[6]), "facts": int(facts.get(r[0], 0))} for r in rows]

    def subject_exists(self, subject_id: str) -> bool:
        return bool(self.ledger.query("SELECT 1 FROM sources WHERE subject_id = ? LIMIT 1",
                                      (subject_id,)))

    def robots(self, subject_id: str) -> list[str]:
        return [r[0] for r in self.ledger.query(
            "SELECT DISTINCT robot_id FROM sources WHERE subject_id = ? ORDER BY robot_id",
            (subject_id,))]

    def time_span(self, subject_id: str) -> tuple[float, float, float, float]:
        """(first, last) source time and (first, last) known time of a subject."""
        r = self.ledger.query(
            "SELECT min(source_time), max(source_time), min(known_time), max(known_time) "
            "FROM sources WHERE subject_id = ?", (subject_id,))[0]
        return (float(r[0] or 0), float(r[1] or 0), float(r[2] or 0), float(r[3] or 0))

    def past_questions(self, subject_id: str, limit: int) -> list[dict[str, Any]]:
        """The subject's audit rows, newest first."""
        out = []
        for r in self.ledger.query(
                "SELECT query_id, asked_at, question, status, answer, cited_ids, reader, scope "
                "FROM audit WHERE subject_id = ? ORDER BY asked_at DESC LIMIT ?",
                (subject_id, int(limit))):
            out.append({"query_id": str(r[0]), "asked_at": r[1], "question": r[2],
                        "status": r[3], "answer": r[4], "cited_ids": _json_list(r[5]),
                        "reader": r[6], "scope": _json_obj(r[7])})
        return out


def _json_list(text: str | None) -> list[Any]:
    try:
        out = json.loads(text or "[]")
    except json.JSONDecodeError:
        return []
    return out if isinstance(out, list) else []


def _json_obj(text: str | None) -> dict[str, Any]:
    try:
        out = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return out if isinstance(out, dict) else {}
