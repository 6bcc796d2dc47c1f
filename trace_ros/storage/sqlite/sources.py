"""Sources (the fast path's writes and the reads of what was said or perceived).

A source and its projection job are stored in ONE transaction (``store_sources``), with
the session's span; a tombstoned ID is refused. The sources' lexical rows (FTS5's index,
statistics, turn counts, postings) are written after it (``index_postings``). Forgetting lives in ``forget``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Any

from ..records import ATTACHED_TO, FORGOTTEN, NewSource, Scope, SourceRecord, StoreResult, seen_before
from ..scopes import SOURCE_COLUMNS
from .base import SqliteBase
from .deferred import index_pending
from .rows import scope_filter, session_span

# How many sources before a given one ``session_before`` reads by number first.
_RECENT = 4096


class SourceStore(SqliteBase):
    """Capture and the reads of stored sources."""

    # The WAL file (device, inode) whose folder ``sync`` has made durable.
    _synced_wal: tuple[int, int] | None = None

    def store_sources(self, items: Iterable[NewSource], now: float | None = None, *,
                      durable: bool = True) -> list[StoreResult]:
        """Store sources and their projection jobs in ONE transaction (group commit).

        Per item: same ID + same content hash = ``duplicate``; same ID + other
        content = ``rejected``; a tombstoned ID = ``rejected``. Returns once the
        transaction is committed, so every ``accepted`` result is durable; with
        ``durable=False`` the commit does not wait for the disk (``synchronous =
        NORMAL`` for it alone; WAL keeps it atomic) and its results are durable once
        ``sync`` has returned after it.
        The batch is checked with one lookup per table and written with one
        statement per table (not per item): the writer's cost per event is what
        bounds capture throughput.
        """
        batch = list(items)
        if not batch:
            return []
        now = time.time() if now is None else now  # known time: the caller's clock
        ids = list({item.source_id for item in batch})
        with self._lock, self._unsynced(not durable):
            return self._store(batch, ids, now)

    def _store(self, batch: list[NewSource], ids: list[str],
               now: float) -> list[StoreResult]:
        with self.write() as conn:
            known: dict[str, tuple[int, str, str]] = {}  # id -> (seq, hash, subject)
            forgotten: set[tuple[str, str]] = set()  # (subject, source ID)
            subjects = sorted({item.scope.subject_id for item in batch} | {""})
            subject_marks = ",".join("?" * len(subjects))
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                marks = ",".join("?" * len(chunk))
                known.update((r[0], (r[1], r[2], r[3])) for r in conn.execute(
                    "SELECT source_id, seq, content_hash, subject_id FROM sources "
                    f"WHERE source_id IN ({marks})", chunk))
                # A tombstone of unknown subject ('') refuses its ID in every subject.
                forgotten.update((r[0], r[1]) for r in conn.execute(
                    f"SELECT subject_id, source_id FROM tombstones WHERE subject_id IN "
                    f"({subject_marks}) AND source_id IN ({marks})", [*subjects, *chunk]))
            results: list[StoreResult | None] = []
            new_rows: list[tuple[Any, ...]] = []
            new_slots: list[int] = []
            # accepted earlier in this batch: id -> (hash, subject)
            pending: dict[str, tuple[str, str]] = {}
            repeated = False  # an ID given twice in this batch
            for item in batch:
                sid = item.source_id
                if sid in known:
                    results.append(seen_before(item, known[sid][1:], known[sid][0]))
                    continue
                if sid in pending:
                    repeated = True
                    results.append(seen_before(item, pending[sid]))
                    continue
                sc = item.scope
                if forgotten and ((sc.subject_id, sid) in forgotten or ("", sid) in forgotten):
                    results.append(StoreResult(sid, "rejected", "source_id", FORGOTTEN))
                    continue
                pending[sid] = (item.content_hash, sc.subject_id)
                new_slots.append(len(results))
                results.append(None)
                new_rows.append((sid, sc.subject_id, sc.robot_id, sc.session_id, item.modality,
                                 item.speaker, item.text, item.label, item.confidence,
                                 json.dumps(item.pose) if item.pose else None, item.payload_json,
                                 item.source_time, int(item.time_from_receipt), now,
                                 item.content_hash))
            if new_rows:
                seqs = self._insert_sources(conn, new_rows, now)
                for slot, row, seq in zip(new_slots, new_rows, seqs, strict=True):
                    results[slot] = StoreResult(row[0], "accepted", sequence=seq)
                if repeated:  # duplicates of rows new in this batch get their sequence
                    by_id = dict(zip((r[0] for r in new_rows), seqs, strict=True))
                    for slot, item in enumerate(batch):
                        res = results[slot]
                        if res is not None and res.status == "duplicate" and res.sequence == 0:
                            results[slot] = StoreResult(item.source_id, "duplicate",
                                                        sequence=by_id[item.source_id])
        return [r for r in results if r is not None]

    def index_postings(self, max_sources: int = 500) -> int:
        """Write the lexical rows (FTS5's index, statistics, turn counts, postings) of up
        to ``max_sources`` sources captured since the last call, oldest first, in one write
        transaction (``deferred.index_pending``).
        Returns how many were indexed: fewer than ``max_sources`` means none is left.

        The transaction is committed without waiting for the disk (``synchronous =
        NORMAL`` for it alone; WAL keeps it atomic): an index lost with a power cut goes
        with its mark, and is written again. The next capture's sync makes it durable."""
        with self._lock, self._unsynced():
            with self.write() as conn:
                return index_pending(conn, max_sources)

    @contextmanager
    def _unsynced(self, unsynced: bool = True) -> Iterator[None]:
        """Inside the lock: the block's commits do not wait for the disk (``synchronous =
        NORMAL`` where the ledger's is FULL or EXTRA; the setting is restored after)."""
        lower = unsynced and self.config.synchronous.upper() in ("FULL", "EXTRA")
        if lower:
            self.conn.execute("PRAGMA synchronous = NORMAL")
        try:
            yield
        finally:
            if lower:
                self.conn.execute(f"PRAGMA synchronous = {self.config.synchronous.upper()}")

    def sync(self) -> None:
        """Make every transaction committed so far on this connection durable: one fsync
        of the WAL, outside the lock (the next commit goes on meanwhile), as ``synchronous
        = FULL`` makes at each commit; the directory too the first time a WAL file is seen
        (its name must survive a power cut as well). A ledger set to NORMAL or OFF is
        not made durable (its configuration says so)."""
        if self.config.synchronous.upper() not in ("FULL", "EXTRA"):
            return
        wal = self._wal_path
        try:
            fd = os.open(wal, os.O_RDONLY)
        except FileNotFoundError:  # no WAL (the last connection closed): all is in the file
            wal, fd = self.path, os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(fd)
            seen = os.fstat(fd)
        finally:
            os.close(fd)
        if (seen.st_dev, seen.st_ino) != self._synced_wal:
            folder = os.open(wal.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
            self._synced_wal = (seen.st_dev, seen.st_ino)

    @cached_property
    def _wal_path(self) -> Path:
        """The WAL file ``sync`` makes durable (worked out once: it syncs every group)."""
        return self.path.with_name(self.path.name + "-wal")

    @staticmethod
    def _insert_sources(conn: sqlite3.Connection, rows: list[tuple[Any, ...]],
                        now: float) -> list[int]:
        """Inside a write transaction: insert rows, their jobs and session spans;
        return the new sequence numbers in row order."""
        before = conn.execute("SELECT coalesce(max(seq), 0) FROM sources").fetchone()[0]
        conn.executemany(
            "INSERT INTO sources (source_id, subject_id, robot_id, session_id, modality, "
            "speaker, text, label, confidence, pose, payload, source_time, "
            "time_from_receipt, known_time, content_hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        # AUTOINCREMENT: this transaction's rows are exactly those above ``before``.
        new = conn.execute("SELECT source_id, seq FROM sources WHERE seq > ?", (before,)).fetchall()
        seq_of = dict(new)
        conn.execute("INSERT INTO jobs (source_seq, created_at, updated_at) "
                     "SELECT seq, ?, ? FROM sources WHERE seq > ?", (now, now, before))
        # The spans are summed here from the rows in hand: grouping the new rows in SQL
        # scanned the whole (subject_id, session_id) index on every commit, a cost that
        # grew with the ledger (0.2 -> 0.5 ms per event from 2,000 to 80,000 sources).
        spans: dict[tuple[str, str, str], list[Any]] = {}
        for row in rows:  # no list made, min or max called for a session already seen
            if row[3]:
                key, at = (row[1], row[2], row[3]), row[11]
                span = spans.get(key)
                if span is None:
                    spans[key] = [at, at, 1]
                    continue
                if at < span[0]:
                    span[0] = at
                elif at > span[1]:
                    span[1] = at
                span[2] += 1
        conn.executemany(
            "INSERT INTO sessions (subject_id, robot_id, session_id, start_time, end_time, "
            "n_sources) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (subject_id, robot_id, session_id) DO UPDATE SET "
            "start_time = min(start_time, excluded.start_time), "
            "end_time = max(end_time, excluded.end_time), "
            "n_sources = n_sources + excluded.n_sources",
            [(*key, *span) for key, span in spans.items()])
        return [seq_of[r[0]] for r in rows]

    def get_sources(self, source_ids: Sequence[str]) -> list[SourceRecord]:
        """Sources by ID, in the order asked (missing IDs are skipped)."""
        if not source_ids:
            return []
        marks = ",".join("?" * len(source_ids))
        rows = self.query(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE source_id IN ({marks})",
                          list(source_ids))
        by_id = {r[1]: SourceRecord.from_row(r) for r in rows}
        return [by_id[s] for s in source_ids if s in by_id]

    def sources_after(self, after_seq: int, limit: int,
                      subject_id: str | None = None) -> list[SourceRecord]:
        """Up to ``limit`` sources stored after ``after_seq``, in sequence order."""
        cond, args = ("AND subject_id = ? ", [subject_id]) if subject_id else ("", [])
        return [SourceRecord.from_row(r) for r in self.query(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE seq > ? {cond}ORDER BY seq LIMIT ?",
            [int(after_seq), *args, int(limit)])]

    def get_sources_by_seq(self, seqs: Sequence[int]) -> dict[int, SourceRecord]:
        if not seqs:
            return {}
        marks = ",".join("?" * len(seqs))
        rows = self.query(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE seq IN ({marks})",
                          list(seqs))
        return {r[0]: SourceRecord.from_row(r) for r in rows}

    def sources_in_scope(self, scope: Scope, *, as_of_valid: float | None = None,
                         as_of_known: float | None = None,
                         limit: int | None = None, newest_first: bool = False
                         ) -> list[SourceRecord]:
        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        order = "DESC" if newest_first else "ASC"
        sql = (f"SELECT {SOURCE_COLUMNS} FROM sources s WHERE {cond} "
               f"ORDER BY s.source_time {order}, s.seq {order}")
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [SourceRecord.from_row(r) for r in self.query(sql, args)]

    def count_sources(self, subject_id: str | None = None) -> int:
        if subject_id is None:
            return int(self.query("SELECT count(*) FROM sources")[0][0])
        return int(self.query("SELECT count(*) FROM sources WHERE subject_id = ?",
                              (subject_id,))[0][0])

    def seqs_of(self, source_ids: Sequence[str]) -> dict[str, int]:
        """Sequence numbers of the given source IDs (missing ones left out)."""
        if not source_ids:
            return {}
        marks = ",".join("?" * len(source_ids))
        return {r[0]: int(r[1]) for r in self.query(
            f"SELECT source_id, seq FROM sources WHERE source_id IN ({marks})", list(source_ids))}

    def session_before(self, subject_id: str, robot_id: str, session_id: str, seq: int,
                       n: int) -> list[SourceRecord]:
        """The last ``n`` sources of the session stored before ``seq``, oldest first
        (what a 'window' vector pools with a source).

        First the sources just before ``seq`` by number, newest first, up to
        ``_RECENT`` of them (a session's last turns are usually there): ``n`` found there
        are the last ``n``. Otherwise the session's span (``rows.session_span``), which
        reads every source of the subject in the session's time."""
        key = (subject_id, session_id, robot_id)
        rows = self.query(  # NOT INDEXED: by rowid, newest first, stopping at n
            f"SELECT {SOURCE_COLUMNS} FROM sources s NOT INDEXED WHERE s.seq < ? "
            "AND s.seq >= ? AND s.subject_id = ? AND s.session_id = ? AND s.robot_id = ? "
            "ORDER BY s.seq DESC LIMIT ?", (int(seq), int(seq) - _RECENT, *key, int(n)))
        if len(rows) < n:
            span, span_args = session_span("s", subject_id, session_id, robot_id)
            rows = self.query(
                f"SELECT {SOURCE_COLUMNS} FROM sources s "
                f"WHERE s.subject_id = ? AND {span} AND s.session_id = ? AND s.robot_id = ? "
                "AND s.seq < ? ORDER BY s.seq DESC LIMIT ?",
                (subject_id, *span_args, session_id, robot_id, int(seq), int(n)))
        return [SourceRecord.from_row(r) for r in reversed(rows)]

    def sources_near(self, scope: Scope, seqs: Sequence[int], span: int,
                     as_of_valid: float | None = None, as_of_known: float | None = None
                     ) -> list[tuple[int, str, str, str, str, float]]:
        """(seq, source_id, robot_id, session_id, speaker, source_time) of the scope's
        sources whose sequence number lies within ``span`` of one of ``seqs``, in
        sequence order."""
        wanted = sorted({s + d for s in seqs for d in range(-span, span + 1)})
        if not wanted:
            return []
        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        out: list[tuple[int, str, str, str, str, float]] = []
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            out.extend((int(r[0]), r[1], r[2], r[3], r[4], float(r[5])) for r in self.query(
                # NOT INDEXED: by rowid, the seqs asked; the planner otherwise takes the
                # (subject, time) index and reads every source of the subject (125,000
                # at a million sources: 50-75 ms where these lookups take 0.5 ms).
                "SELECT s.seq, s.source_id, s.robot_id, s.session_id, s.speaker, s.source_time "
                "FROM sources s NOT INDEXED "
                f"WHERE s.seq IN ({','.join('?' * len(chunk))}) AND {cond} ORDER BY s.seq",
                [*chunk, *args]))
        return out

    def attachments_between(self, subject_id: str, after_seq: int, upto_seq: int
                            ) -> list[tuple[int, str, int | None]]:
        """(seq, attached_to, seq of that source or None) of the subject's sources stored
        in ``(after_seq, upto_seq]`` whose payload names a source they are attached to."""
        return [(int(r[0]), r[1], None if r[2] is None else int(r[2])) for r in self.query(
            "SELECT c.seq, c.parent, p.seq FROM (SELECT seq, "
            f"json_extract(payload, '$.{ATTACHED_TO}') AS parent FROM sources "
            "WHERE seq > ? AND seq <= ? AND subject_id = ? AND CASE WHEN json_valid(payload) "
            f"THEN json_type(payload, '$.{ATTACHED_TO}') END = 'text') c "  # sources_attached
            "LEFT JOIN sources p ON p.source_id = c.parent "
            "WHERE typeof(c.parent) = 'text' ORDER BY c.seq",
            (int(after_seq), int(upto_seq), subject_id))]

    def speakers(self, subject_id: str) -> list[str]:
        """The distinct non-empty dialogue speakers of a subject (its participants)."""
        return [r[0] for r in self.query(
            "SELECT DISTINCT speaker FROM sources WHERE subject_id = ? "
            "AND modality = 'dialogue' AND speaker != ''", (subject_id,))]
