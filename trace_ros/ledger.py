"""The ledger: one SQLite file (WAL) that is the single authority of the memory.

Sources are immutable records of what was said or perceived; every source has
one projection job. Vectors, the FTS5 index and anything in memory are derived
and can be rebuilt from sources (``Ledger.rebuild_fts``, consolidation for vectors).

One ``Ledger`` wraps one connection shared by the threads of a process (a lock
serialises use); several processes may open the same file (busy timeout).
Write transactions start with ``BEGIN IMMEDIATE`` so a writer waits for the
lock instead of failing when it upgrades from reading.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlite_utils import Database, Migrations

from .config import LedgerConfig
from .errors import LedgerError, ValidationError, check_text
from .explorestore import ExploreStore
from .graphstore import GraphStore
from .ledger_spatial import SpatialReads
from .ledgerfile import file_lock, preflight

MIGRATIONS = Migrations("trace_ros")


@MIGRATIONS()
def m001_sources_jobs(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE sources (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            source_id TEXT NOT NULL UNIQUE,
            subject_id TEXT NOT NULL,
            robot_id TEXT NOT NULL DEFAULT '',
            session_id TEXT NOT NULL DEFAULT '',
            modality TEXT NOT NULL CHECK (modality IN ('dialogue', 'perception')),
            speaker TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL,
            label TEXT NOT NULL DEFAULT '',
            confidence REAL,
            pose TEXT,
            payload TEXT NOT NULL DEFAULT '{}',
            source_time REAL NOT NULL,
            time_from_receipt INTEGER NOT NULL DEFAULT 0,
            known_time REAL NOT NULL,
            content_hash TEXT NOT NULL
        );
        CREATE INDEX sources_scope_time ON sources (subject_id, source_time);
        CREATE INDEX sources_scope_session ON sources (subject_id, session_id);

        CREATE TABLE jobs (
            job_id INTEGER PRIMARY KEY AUTOINCREMENT,
            source_seq INTEGER NOT NULL UNIQUE REFERENCES sources (seq) ON DELETE CASCADE,
            status TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'running', 'done', 'failed', 'deferred')),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            outcome TEXT CHECK (outcome IN ('add', 'revise', 'noop')),
            claimed_by TEXT,
            lease_until REAL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX jobs_status ON jobs (status, job_id);

        CREATE TABLE sessions (
            subject_id TEXT NOT NULL,
            robot_id TEXT NOT NULL DEFAULT '',
            session_id TEXT NOT NULL,
            start_time REAL NOT NULL,
            end_time REAL NOT NULL,
            n_sources INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (subject_id, robot_id, session_id)
        );

        CREATE TABLE vectors (
            owner_kind TEXT NOT NULL,
            owner_id TEXT NOT NULL,
            subject_id TEXT NOT NULL,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vec BLOB NOT NULL,
            PRIMARY KEY (owner_kind, owner_id, model)
        );
        CREATE INDEX vectors_subject ON vectors (subject_id, model, owner_kind);

        CREATE TABLE tombstones (
            source_id TEXT PRIMARY KEY,
            removed_at REAL NOT NULL
        );

        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta (key, value) VALUES ('generation', '0');

        CREATE TABLE audit (
            query_id INTEGER PRIMARY KEY AUTOINCREMENT,
            asked_at REAL NOT NULL,
            subject_id TEXT NOT NULL,
            scope TEXT NOT NULL,
            question TEXT NOT NULL,
            plan TEXT NOT NULL,
            routes TEXT NOT NULL,
            evidence_ids TEXT NOT NULL,
            cited_ids TEXT NOT NULL,
            answer TEXT NOT NULL,
            status TEXT NOT NULL,
            reader TEXT NOT NULL,
            timings TEXT NOT NULL
        );

        -- Lexical recall: BM25 over source text (porter stemming), kept in step
        -- with sources by triggers; 'rebuild' recreates it from sources alone.
        CREATE VIRTUAL TABLE sources_fts USING fts5 (
            text, speaker, content='sources', content_rowid='seq',
            tokenize='porter unicode61'
        );
        CREATE TRIGGER sources_fts_ai AFTER INSERT ON sources BEGIN
            INSERT INTO sources_fts (rowid, text, speaker) VALUES (new.seq, new.text, new.speaker);
        END;
        CREATE TRIGGER sources_fts_ad AFTER DELETE ON sources BEGIN
            INSERT INTO sources_fts (sources_fts, rowid, text, speaker)
            VALUES ('delete', old.seq, old.text, old.speaker);
        END;
        """
    )


@MIGRATIONS()
def m002_fts_subject(db: Database) -> None:
    """Index the subject in FTS5 too, so lexical recall filters by subject inside
    MATCH instead of ranking every subject's matches first (cost grew with the
    whole ledger, measured by ``bench scale``)."""
    db.executescript(
        """
        DROP TRIGGER sources_fts_ai;
        DROP TRIGGER sources_fts_ad;
        DROP TABLE sources_fts;
        CREATE VIRTUAL TABLE sources_fts USING fts5 (
            text, speaker, subject_id, content='sources', content_rowid='seq',
            tokenize='porter unicode61'
        );
        CREATE TRIGGER sources_fts_ai AFTER INSERT ON sources BEGIN
            INSERT INTO sources_fts (rowid, text, speaker, subject_id)
            VALUES (new.seq, new.text, new.speaker, new.subject_id);
        END;
        CREATE TRIGGER sources_fts_ad AFTER DELETE ON sources BEGIN
            INSERT INTO sources_fts (sources_fts, rowid, text, speaker, subject_id)
            VALUES ('delete', old.seq, old.text, old.speaker, old.subject_id);
        END;
        INSERT INTO sources_fts (sources_fts) VALUES ('rebuild');
        """
    )


@MIGRATIONS()
def m003_graph(db: Database) -> None:
    """The evidence graph (DESIGN §2): facts with bitemporal validity and provenance,
    typed edges, topics; FTS5 over facts; audit rows linked to sources by a table."""
    db.executescript(
        """
        CREATE TABLE facts (
            fact_id TEXT PRIMARY KEY,
            subject_id TEXT NOT NULL,
            robot_id TEXT NOT NULL DEFAULT '',
            session_id TEXT NOT NULL DEFAULT '',
            type TEXT NOT NULL CHECK (type IN
                ('action', 'state_change', 'preference', 'plan', 'observation')),
            participants TEXT NOT NULL DEFAULT '[]',
            entity TEXT NOT NULL DEFAULT '',
            relation TEXT NOT NULL DEFAULT '',
            value TEXT NOT NULL DEFAULT '',
            polarity INTEGER NOT NULL DEFAULT 1,
            description TEXT NOT NULL,
            anchor_time REAL NOT NULL,
            anchor_text TEXT NOT NULL DEFAULT '',
            anchor_fallback INTEGER NOT NULL DEFAULT 0,
            valid_from REAL NOT NULL,
            valid_to REAL,
            known_from REAL NOT NULL,
            known_to REAL,
            status TEXT NOT NULL DEFAULT 'active'
                CHECK (status IN ('active', 'superseded', 'revoked', 'unresolved')),
            validity REAL NOT NULL DEFAULT 1.0,
            source_seq INTEGER NOT NULL,
            generation INTEGER NOT NULL DEFAULT 0,
            extractor TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX facts_key ON facts (subject_id, entity, relation);
        CREATE INDEX facts_scope_time ON facts (subject_id, valid_from);
        CREATE INDEX facts_source_seq ON facts (source_seq);

        -- Provenance: a fact is derived from one or more sources.
        CREATE TABLE fact_sources (
            fact_id TEXT NOT NULL REFERENCES facts (fact_id) ON DELETE CASCADE,
            source_id TEXT NOT NULL,
            PRIMARY KEY (fact_id, source_id)
        );
        CREATE INDEX fact_sources_source ON fact_sources (source_id);

        -- Typed edges between vertices: fact IDs, 'session:<robot>/<session>',
        -- 'topic:<n>', 'entity:<name>'. Fact-to-fact types carry the graph's meaning.
        CREATE TABLE edges (
            edge_id INTEGER PRIMARY KEY AUTOINCREMENT,
            subject_id TEXT NOT NULL,
            type TEXT NOT NULL CHECK (type IN ('updates', 'contradicts', 'causes', 'enables',
                'prevents', 'before', 'in_session', 'in_topic', 'mentions')),
            src TEXT NOT NULL,
            dst TEXT NOT NULL,
            confidence REAL NOT NULL DEFAULT 1.0,
            justification TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            invalidated_at REAL,
            generation INTEGER NOT NULL DEFAULT 0,
            UNIQUE (type, src, dst)
        );
        CREATE INDEX edges_src ON edges (src, type);
        CREATE INDEX edges_dst ON edges (dst, type);
        CREATE INDEX edges_subject ON edges (subject_id, type);

        CREATE TABLE topics (
            subject_id TEXT NOT NULL,
            topic_id INTEGER NOT NULL,
            label TEXT NOT NULL DEFAULT '',
            centroid BLOB,
            n_sessions INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (subject_id, topic_id)
        );
        ALTER TABLE sessions ADD COLUMN topic_id INTEGER;

        CREATE VIRTUAL TABLE facts_fts USING fts5 (
            description, value, subject_id, content='facts', content_rowid='rowid',
            tokenize='porter unicode61'
        );
        CREATE TRIGGER facts_fts_ai AFTER INSERT ON facts BEGIN
            INSERT INTO facts_fts (rowid, description, value, subject_id)
            VALUES (new.rowid, new.description, new.value, new.subject_id);
        END;
        CREATE TRIGGER facts_fts_ad AFTER DELETE ON facts BEGIN
            INSERT INTO facts_fts (facts_fts, rowid, description, value, subject_id)
            VALUES ('delete', old.rowid, old.description, old.value, old.subject_id);
        END;
        CREATE TRIGGER facts_fts_au AFTER UPDATE OF description, value ON facts BEGIN
            INSERT INTO facts_fts (facts_fts, rowid, description, value, subject_id)
            VALUES ('delete', old.rowid, old.description, old.value, old.subject_id);
            INSERT INTO facts_fts (rowid, description, value, subject_id)
            VALUES (new.rowid, new.description, new.value, new.subject_id);
        END;

        -- Which sources a query showed and cited: forget finds audit rows through this.
        CREATE TABLE audit_sources (
            query_id INTEGER NOT NULL REFERENCES audit (query_id) ON DELETE CASCADE,
            source_id TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('shown', 'cited')),
            PRIMARY KEY (query_id, source_id, role)
        );
        CREATE INDEX audit_sources_source ON audit_sources (source_id);
        """
    )


@MIGRATIONS()
def m004_job_retry(db: Database) -> None:
    """Jobs: ``not_before`` (retry backoff and deferral: not claimed before this
    time), ``note`` (what happened beyond the outcome, e.g. an extractor fallback),
    ``fence`` (bumped at every claim and by ``reset_derived``: a completion carrying
    an older fence is ignored, so a requeued job is never completed by its old holder)."""
    db.executescript(
        """
        ALTER TABLE jobs ADD COLUMN not_before REAL;
        ALTER TABLE jobs ADD COLUMN note TEXT;
        ALTER TABLE jobs ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;
        """
    )


@MIGRATIONS()
def m005_perception_labels(db: Database) -> None:
    """Perceptions by label: "where did you last see X" reads the scope's labels and then
    the latest sightings of the matching ones, instead of every perception of the scope."""
    db.executescript(
        """
        CREATE INDEX sources_label ON sources (subject_id, modality, label, source_time);
        """
    )


# Payload key naming the source a record belongs with (an image shared with an
# utterance, a camera snapshot taken as it was said): shown together as one unit.
ATTACHED_TO = "attached_to"
# A 'window' vector embeds a source with up to this many sources before it in its session.
WINDOW_BEFORE = 2

SOURCE_COLUMNS = (
    "seq, source_id, subject_id, robot_id, session_id, modality, speaker, text, label, "
    "confidence, pose, payload, source_time, time_from_receipt, known_time, content_hash"
)


@dataclass(frozen=True)
class Scope:
    """Who a record belongs to. Reads always filter by ``subject_id`` first."""

    subject_id: str
    robot_id: str = ""
    session_id: str = ""

    def check(self) -> None:
        if not self.subject_id or not self.subject_id.strip():
            raise ValidationError("scope.subject_id", "required, must not be empty")


@dataclass(frozen=True)
class SourceRecord:
    seq: int
    source_id: str
    subject_id: str
    robot_id: str
    session_id: str
    modality: str
    speaker: str
    text: str
    label: str
    confidence: float | None
    pose: dict[str, Any] | None
    payload: dict[str, Any]
    source_time: float
    time_from_receipt: bool
    known_time: float
    content_hash: str

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> SourceRecord:
        (seq, sid, subj, robot, sess, modality, speaker, text, label, conf, pose, payload,
         stime, from_receipt, ktime, chash) = row
        return cls(seq, sid, subj, robot, sess, modality, speaker, text, label, conf,
                   json.loads(pose) if pose else None, json.loads(payload or "{}"),
                   stime, bool(from_receipt), ktime, chash)

    @property
    def scope(self) -> Scope:
        return Scope(self.subject_id, self.robot_id, self.session_id)

    @property
    def attached_to(self) -> str:
        """The source this record is attached to ('' when it stands alone)."""
        value = self.payload.get(ATTACHED_TO) if isinstance(self.payload, dict) else None
        return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class NewSource:
    """A validated source ready to store (built by ``capture.prepare``)."""

    source_id: str
    scope: Scope
    modality: str
    speaker: str
    text: str
    label: str
    confidence: float | None
    pose: dict[str, Any] | None
    payload_json: str
    source_time: float
    time_from_receipt: bool
    content_hash: str


@dataclass(frozen=True)
class StoreResult:
    source_id: str
    status: str  # accepted | duplicate | rejected
    field: str = ""
    reason: str = ""
    sequence: int = 0


@dataclass(frozen=True)
class Job:
    """A claimed job. ``fence`` is the claim's token: completing or failing the job
    only takes effect while the row still carries it (see ``Ledger.held_jobs``)."""

    job_id: int
    source: SourceRecord
    attempts: int
    fence: int = 0


def scope_filter(scope: Scope, alias: str = "s", as_of_valid: float | None = None,
                 as_of_known: float | None = None) -> tuple[str, list[Any]]:
    """SQL condition and arguments that restrict sources to a scope and time view."""
    scope.check()
    conds = [f"{alias}.subject_id = ?"]
    args: list[Any] = [scope.subject_id]
    if scope.robot_id:
        conds.append(f"{alias}.robot_id = ?")
        args.append(scope.robot_id)
    if scope.session_id:
        conds.append(f"{alias}.session_id = ?")
        args.append(scope.session_id)
    if as_of_valid is not None:
        conds.append(f"{alias}.source_time <= ?")
        args.append(as_of_valid)
    if as_of_known is not None:
        conds.append(f"{alias}.known_time <= ?")
        args.append(as_of_known)
    return " AND ".join(conds), args


class Ledger(GraphStore, ExploreStore, SpatialReads):
    """The SQLite authority. Thread-safe within a process; safe across processes."""

    def __init__(self, path: str | Path, config: LedgerConfig | None = None, *,
                 create: bool = True) -> None:
        """Open (with ``create``, or create) the ledger at ``path`` and apply pending
        migrations. Raises ``LedgerError`` for a file that is not ours, read-only,
        from a newer schema, or (without ``create``) missing; the file is left as it was."""
        self.config = config or LedgerConfig()
        self.path = Path(path).expanduser()
        preflight(self.path, create)
        self._lock = threading.RLock()
        self.conn = sqlite3.connect(
            str(self.path), timeout=self.config.busy_timeout_ms / 1000.0,
            isolation_level=None, check_same_thread=False,
        )
        try:
            self._setup()
        except sqlite3.Error as exc:
            self.conn.close()
            raise LedgerError(f"{self.path}: cannot open the ledger ({exc})") from exc
        except BaseException:
            self.conn.close()
            raise

    def _setup(self) -> None:
        self.conn.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_ms)}")
        # Deleted content is overwritten, not left in free pages (forget must forget).
        self.conn.execute("PRAGMA secure_delete = ON")
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.db = Database(self.conn)
        # Three nodes may open a fresh file at once: a file lock makes exactly
        # one of them check and migrate it, with a deadline.
        lock_path = self.path.with_name(self.path.name + ".migrate.lock")
        with file_lock(lock_path, self.config.lock_timeout_s), self._lock:
            self._refuse_foreign()  # before WAL mode, which would rewrite the header
            mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise LedgerError(f"{self.path}: could not enable WAL mode (got {mode})")
            self.conn.execute(f"PRAGMA synchronous = {self.config.synchronous.upper()}")
            if MIGRATIONS.pending(self.db):
                MIGRATIONS.apply(self.db)

    def _refuse_foreign(self) -> None:
        """Raise ``LedgerError`` for another program's database or a newer ledger."""
        tables = {r[0] for r in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
        if not tables:
            return  # a new, empty file
        applied: list[str] = []
        if MIGRATIONS.migrations_table in tables:
            applied = [r[0] for r in self.conn.execute(
                f"SELECT name FROM {MIGRATIONS.migrations_table} WHERE migration_set = ?",
                (MIGRATIONS.name,))]
        if not applied:
            raise LedgerError(f"{self.path}: a SQLite database, but not a trace_ros ledger "
                              f"(tables: {', '.join(sorted(tables)[:5])}); refusing to change it")
        known = {m.name for m in MIGRATIONS._migrations}
        unknown = [name for name in applied if name not in known]
        if unknown:
            raise LedgerError(f"{self.path}: written by a newer trace_ros (schema "
                              f"{', '.join(unknown)}); upgrade trace_ros to use it")

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions -------------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), rolled back on error."""
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as exc:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
                    raise LedgerError(f"{self.path}: the disk (or max_page_count) is full; "
                                      "nothing of this write was stored") from exc
                raise

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot of ONE generation for several reads.

        Every read made on this thread inside the block — through the yielded
        connection or through this Ledger's own read methods (``query``,
        ``get_sources``, ``generation`` …, which share the connection and the
        re-entrant lock) — sees the ledger as of the same committed batch, even
        while another process commits new ones (WAL keeps the snapshot). The
        snapshot starts on entry (the generation is read at once), so
        ``Ledger.generation_of(conn)`` inside the block names the generation seen.
        Other threads of this process wait for the block; do not write inside it.
        """
        with self._lock:
            self.conn.execute("BEGIN")
            try:
                self.conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
                yield self.conn
            finally:
                self.conn.execute("COMMIT")

    @staticmethod
    def generation_of(conn: sqlite3.Connection) -> int:
        """The generation visible to ``conn`` (inside ``read()`` or ``write()``)."""
        return int(conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self.conn.execute(sql, args).fetchall()

    # -- capture (fast path) ------------------------------------------------

    def store_sources(self, items: Iterable[NewSource],
                      now: float | None = None) -> list[StoreResult]:
        """Store sources and their projection jobs in ONE transaction (group commit).

        Per item: same ID + same content hash = ``duplicate``; same ID + other
        content = ``rejected``; a tombstoned ID = ``rejected``. Returns once the
        transaction is committed, so every ``accepted`` result is durable.
        The batch is checked with one lookup per table and written with one
        statement per table (not per item): the writer's cost per event is what
        bounds capture throughput.
        """
        batch = list(items)
        if not batch:
            return []
        now = time.time() if now is None else now  # known time: the caller's clock
        ids = list({item.source_id for item in batch})
        with self.write() as conn:
            known: dict[str, tuple[int, str]] = {}
            forgotten: set[str] = set()
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                marks = ",".join("?" * len(chunk))
                known.update((r[0], (r[1], r[2])) for r in conn.execute(
                    f"SELECT source_id, seq, content_hash FROM sources WHERE source_id IN ({marks})",
                    chunk))
                forgotten.update(r[0] for r in conn.execute(
                    f"SELECT source_id FROM tombstones WHERE source_id IN ({marks})", chunk))
            results: list[StoreResult | None] = []
            new_rows: list[tuple[Any, ...]] = []
            new_slots: list[int] = []
            pending: dict[str, str] = {}  # accepted earlier in this batch: id -> hash
            for item in batch:
                sid = item.source_id
                prior_hash = known[sid][1] if sid in known else pending.get(sid)
                if prior_hash is not None:
                    if prior_hash == item.content_hash:
                        seq = known[sid][0] if sid in known else 0
                        results.append(StoreResult(sid, "duplicate", sequence=seq))
                    else:
                        results.append(StoreResult(sid, "rejected", "source_id",
                                                   "already stored with different content"))
                    continue
                if sid in forgotten:
                    results.append(StoreResult(sid, "rejected", "source_id",
                                               "was forgotten; re-ingest only with allow_reingest"))
                    continue
                sc = item.scope
                pending[sid] = item.content_hash
                new_slots.append(len(results))
                results.append(None)
                new_rows.append((sid, sc.subject_id, sc.robot_id, sc.session_id, item.modality,
                                 item.speaker, item.text, item.label, item.confidence,
                                 json.dumps(item.pose) if item.pose else None, item.payload_json,
                                 item.source_time, int(item.time_from_receipt), now,
                                 item.content_hash))
            if new_rows:
                seqs = self._insert_sources(conn, new_rows, now)
                by_id = dict(zip((r[0] for r in new_rows), seqs, strict=True))
                for slot, row in zip(new_slots, new_rows, strict=True):
                    results[slot] = StoreResult(row[0], "accepted", sequence=by_id[row[0]])
                for slot, item in enumerate(batch):  # duplicates of rows new in this batch
                    res = results[slot]
                    if res is not None and res.status == "duplicate" and res.sequence == 0:
                        results[slot] = StoreResult(item.source_id, "duplicate",
                                                    sequence=by_id[item.source_id])
        return [r for r in results if r is not None]

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
        conn.execute("INSERT INTO jobs (source_seq, created_at, updated_at) "
                     "SELECT seq, ?, ? FROM sources WHERE seq > ?", (now, now, before))
        conn.execute(
            "INSERT INTO sessions (subject_id, robot_id, session_id, start_time, end_time, "
            "n_sources) SELECT subject_id, robot_id, session_id, min(source_time), "
            "max(source_time), count(*) FROM sources WHERE seq > ? AND session_id != '' "
            "GROUP BY subject_id, robot_id, session_id "
            "ON CONFLICT (subject_id, robot_id, session_id) DO UPDATE SET "
            "start_time = min(start_time, excluded.start_time), "
            "end_time = max(end_time, excluded.end_time), "
            "n_sources = n_sources + excluded.n_sources", (before,))
        seq_of = dict(new)
        return [seq_of[r[0]] for r in rows]

    # -- reads ----------------------------------------------------------------

    def get_sources(self, source_ids: Sequence[str]) -> list[SourceRecord]:
        """Sources by ID, in the order asked (missing IDs are skipped)."""
        if not source_ids:
            return []
        marks = ",".join("?" * len(source_ids))
        rows = self.query(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE source_id IN ({marks})",
                          list(source_ids))
        by_id = {r[1]: SourceRecord.from_row(r) for r in rows}
        return [by_id[s] for s in source_ids if s in by_id]

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

    # -- generation -------------------------------------------------------------

    def generation(self) -> int:
        return int(self.query("SELECT value FROM meta WHERE key = 'generation'")[0][0])

    @staticmethod
    def bump_generation(conn: sqlite3.Connection) -> int:
        """Inside a write transaction: advance the generation readers reload on."""
        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
        return int(conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])

    # -- jobs (slow path) ---------------------------------------------------------
    #
    # A job is claimed with a lease (``lease_until``) and a fence token. The
    # worker embeds and extracts outside any transaction, then, inside ONE write
    # transaction, keeps only the jobs it still holds (``held_jobs``), writes
    # their derived state and completes them (``complete_jobs``). A failure is
    # retried with exponential backoff (``not_before``); a job refused by GPU
    # admission is deferred without spending an attempt.

    def claim_jobs(self, worker: str, limit: int, lease_s: float, max_attempts: int) -> list[Job]:
        """Atomically claim jobs that are due: pending or deferred ones whose
        ``not_before`` has passed, and running ones whose lease expired (their
        worker died). A job whose lease expired on its last attempt is marked
        ``failed`` with the reason, instead of staying ``running`` forever."""
        now = time.time()
        with self.write() as conn:
            conn.execute(
                "UPDATE jobs SET status = 'failed', lease_until = NULL, updated_at = ?, "
                "last_error = 'worker ' || coalesce(claimed_by, '?') || ' stopped during attempt ' "
                "|| attempts || ' of ' || ? || ' (lease expired)' "
                "|| coalesce('; before: ' || last_error, '') "
                "WHERE status = 'running' AND lease_until < ? AND attempts >= ?",
                (now, max_attempts, now, max_attempts))
            # Projection is order-dependent (a newer fact revises an older one), so jobs
            # are claimed strictly in source order: the claim stops at the first
            # outstanding job that is not due (another worker holds it, or it waits for
            # a retry), and a newer source is never projected before an older one.
            # Job IDs follow source order (both are assigned in the capture transaction).
            outstanding = conn.execute(
                "SELECT job_id, source_seq, attempts, fence, "
                "(status IN ('pending', 'deferred') AND coalesce(not_before, 0) <= ?) "
                "OR (status = 'running' AND lease_until < ?) FROM jobs "
                "WHERE status IN ('pending', 'deferred', 'running') AND attempts < ? "
                "ORDER BY job_id LIMIT ?", (now, now, max_attempts, limit)).fetchall()
            rows = []
            for row in outstanding:
                if not row[4]:
                    break
                rows.append(row[:4])
            if not rows:
                return []
            conn.executemany(
                "UPDATE jobs SET status = 'running', attempts = attempts + 1, claimed_by = ?, "
                "lease_until = ?, fence = fence + 1, updated_at = ? WHERE job_id = ?",
                [(worker, now + lease_s, now, r[0]) for r in rows],
            )
        sources = self.get_sources_by_seq([r[1] for r in rows])
        return [Job(r[0], sources[r[1]], r[2] + 1, r[3] + 1) for r in rows if r[1] in sources]

    def job_holders(self) -> list[str]:
        """The workers that hold running jobs now."""
        return [r[0] for r in self.query(
            "SELECT DISTINCT claimed_by FROM jobs WHERE status = 'running' "
            "AND claimed_by IS NOT NULL")]

    def expire_leases(self, worker: str) -> int:
        """End the leases of a worker known to be dead, so its jobs are claimed at once
        (rather than when the lease runs out). Returns how many jobs it held."""
        with self.write() as conn:
            cur = conn.execute("UPDATE jobs SET lease_until = 0 WHERE status = 'running' "
                               "AND claimed_by = ?", (worker,))
            return int(cur.rowcount)

    @staticmethod
    def held_jobs(conn: sqlite3.Connection, worker: str, jobs: Sequence[Job]) -> list[Job]:
        """Inside a write transaction: the jobs of ``jobs`` that ``worker`` still
        holds under the same claim (a ``reset_derived``, or a reclaim after the
        lease expired, takes a job away; its old holder must then write nothing)."""
        held: list[Job] = []
        for start in range(0, len(jobs), 500):
            chunk = list(jobs[start:start + 500])
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT job_id, fence FROM jobs WHERE status = 'running' AND claimed_by = ? "
                f"AND job_id IN ({marks})", [worker, *(j.job_id for j in chunk)]).fetchall()
            fences = dict(rows)
            held.extend(j for j in chunk if fences.get(j.job_id) == j.fence)
        return held

    @staticmethod
    def complete_jobs(conn: sqlite3.Connection, worker: str, jobs: Sequence[Job],
                      outcomes: Sequence[str], notes: dict[int, str] | None = None) -> int:
        """Inside the batch's write transaction: mark held jobs done with their
        outcome (and an optional note). Returns how many rows changed."""
        now = time.time()
        notes = notes or {}
        cur = conn.executemany(
            "UPDATE jobs SET status = 'done', outcome = ?, last_error = NULL, note = ?, "
            "lease_until = NULL, not_before = NULL, updated_at = ? "
            "WHERE job_id = ? AND claimed_by = ? AND fence = ? AND status = 'running'",
            [(outcome, notes.get(j.job_id), now, j.job_id, worker, j.fence)
             for j, outcome in zip(jobs, outcomes, strict=True)])
        return int(cur.rowcount)

    def fail_jobs(self, jobs: Sequence[Job], worker: str, error: str, max_attempts: int,
                  backoff_s: float = 1.0, backoff_max_s: float = 300.0) -> int:
        """Record ``error`` on held jobs; each goes back to ``pending`` with its
        next attempt not before ``backoff_s * 2**(attempts-1)`` seconds (capped at
        ``backoff_max_s``), or to ``failed`` after ``max_attempts``."""
        now = time.time()
        with self.write() as conn:
            cur = conn.executemany(
                "UPDATE jobs SET status = CASE WHEN attempts >= ? THEN 'failed' ELSE 'pending' END, "
                "last_error = ?, lease_until = NULL, not_before = ?, updated_at = ? "
                "WHERE job_id = ? AND claimed_by = ? AND fence = ? AND status = 'running'",
                [(max_attempts, error[:2000],
                  now + min(backoff_max_s, backoff_s * 2.0 ** max(0, j.attempts - 1)),
                  now, j.job_id, worker, j.fence) for j in jobs],
            )
            return int(cur.rowcount)

    def defer_jobs(self, jobs: Sequence[Job], worker: str, reason: str, delay_s: float) -> int:
        """Put held jobs back as ``deferred`` until ``delay_s`` from now, without
        spending an attempt (the job was not tried: e.g. GPU admission refused)."""
        now = time.time()
        with self.write() as conn:
            cur = conn.executemany(
                "UPDATE jobs SET status = 'deferred', attempts = max(0, attempts - 1), "
                "note = ?, claimed_by = NULL, lease_until = NULL, not_before = ?, updated_at = ? "
                "WHERE job_id = ? AND claimed_by = ? AND fence = ? AND status = 'running'",
                [(reason[:2000], now + delay_s, now, j.job_id, worker, j.fence) for j in jobs])
            return int(cur.rowcount)

    def job_counts(self) -> dict[str, int]:
        rows = self.query("SELECT status, count(*) FROM jobs GROUP BY status")
        counts = {s: 0 for s in ("pending", "running", "done", "failed", "deferred")}
        counts.update({r[0]: int(r[1]) for r in rows})
        return counts

    def job_errors(self, limit: int = 20) -> list[dict[str, Any]]:
        """The most recent jobs with an error or a note (for diagnostics and the CLI)."""
        rows = self.query(
            "SELECT j.job_id, s.source_id, j.status, j.attempts, j.last_error, j.note, "
            "j.not_before FROM jobs j JOIN sources s ON s.seq = j.source_seq "
            "WHERE j.last_error IS NOT NULL OR j.note IS NOT NULL "
            "ORDER BY j.updated_at DESC LIMIT ?", (int(limit),))
        keys = ("job_id", "source_id", "status", "attempts", "last_error", "note", "not_before")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    # -- vectors ----------------------------------------------------------------

    @staticmethod
    def put_vectors(conn: sqlite3.Connection, owner_kind: str, model: str,
                    rows: Iterable[tuple[str, str, np.ndarray]]) -> None:
        """Inside a write transaction: store (owner_id, subject_id, vector) rows."""
        conn.executemany(
            "INSERT OR REPLACE INTO vectors (owner_kind, owner_id, subject_id, model, dim, vec) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(owner_kind, oid, subj, model, int(v.shape[0]),
              np.asarray(v, dtype=np.float32).tobytes()) for oid, subj, v in rows],
        )

    def session_before(self, subject_id: str, robot_id: str, session_id: str, seq: int,
                       n: int) -> list[SourceRecord]:
        """The last ``n`` sources of the session stored before ``seq``, oldest first
        (what a 'window' vector embeds with a source)."""
        rows = self.query(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE subject_id = ? AND session_id = ? "
            "AND robot_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
            (subject_id, session_id, robot_id, int(seq), int(n)))
        return [SourceRecord.from_row(r) for r in reversed(rows)]

    def vector_models(self) -> list[tuple[str, int, int]]:
        """(model, dim, count) of the stored source vectors."""
        return [(r[0], int(r[1]), int(r[2])) for r in self.query(
            "SELECT model, dim, count(*) FROM vectors WHERE owner_kind = 'source' "
            "GROUP BY model, dim")]

    def model_changed(self, model: str, dim: int) -> bool:
        """True when stored source vectors are of another model or dimension than
        (``model``, ``dim``): they must be re-embedded (``sources_to_reembed``)."""
        return any((m, d) != (model, dim) for m, d, _n in self.vector_models())

    def sources_to_reembed(self, model: str, dim: int, limit: int) -> list[SourceRecord]:
        """Sources whose projection is done but that have no vector of (``model``,
        ``dim``): after a change of embedding model, these are re-embedded
        without re-projecting. Pending jobs get their vector when they run."""
        rows = self.query(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE seq IN ("
            "SELECT j.source_seq FROM jobs j JOIN sources s ON s.seq = j.source_seq "
            "WHERE j.status = 'done' AND NOT EXISTS (SELECT 1 FROM vectors v WHERE "
            "v.owner_kind = 'source' AND v.owner_id = s.source_id AND v.model = ? AND v.dim = ?) "
            "ORDER BY j.source_seq LIMIT ?) ORDER BY seq", (model, int(dim), int(limit)))
        return [SourceRecord.from_row(r) for r in rows]

    def sources_without_window(self, model: str, limit: int) -> list[SourceRecord]:
        """Sources with a vector of ``model`` but no 'window' vector of it: forgetting a
        source drops the windows of the turns after it (they embedded its text), and
        these are embedded again from what is still stored."""
        rows = self.query(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE source_id IN ("
            "SELECT v.owner_id FROM vectors v WHERE v.owner_kind = 'source' AND v.model = ? "
            "AND NOT EXISTS (SELECT 1 FROM vectors w WHERE w.owner_kind = 'window' "
            "AND w.owner_id = v.owner_id AND w.model = v.model)) ORDER BY seq LIMIT ?",
            (model, int(limit)))
        return [SourceRecord.from_row(r) for r in rows]

    def put_window_vectors(self, model: str, rows: Sequence[tuple[str, str, np.ndarray]]) -> int:
        """Store 'window' vectors of ``model`` (the query's index picks them up by
        generation); returns the generation."""
        with self.write() as conn:
            self.put_vectors(conn, "window", model, rows)
            return self.bump_generation(conn)

    def replace_vectors(self, model: str, rows: Sequence[tuple[str, str, np.ndarray]],
                        window_rows: Sequence[tuple[str, str, np.ndarray]] = ()) -> int:
        """Store re-embedded source (and window) vectors of ``model`` and drop the same
        sources' vectors of any other model, in one transaction; returns the generation."""
        with self.write() as conn:
            self.put_vectors(conn, "source", model, rows)
            if window_rows:
                self.put_vectors(conn, "window", model, window_rows)
            ids = [r[0] for r in rows]
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                conn.execute(
                    f"DELETE FROM vectors WHERE owner_kind IN ('source', 'window') AND model != ? "
                    f"AND owner_id IN ({','.join('?' * len(chunk))})", [model, *chunk])
            self._bump_vectors_epoch(conn)
            return self.bump_generation(conn)

    def drop_other_vectors(self, model: str, dim: int) -> int:
        """Delete source vectors not of (``model``, ``dim``); returns how many."""
        with self.write() as conn:
            cur = conn.execute("DELETE FROM vectors WHERE owner_kind IN ('source', 'window') "
                               "AND (model != ? OR dim != ?)", (model, int(dim)))
            if cur.rowcount:
                self._bump_vectors_epoch(conn)
                self.bump_generation(conn)
            return int(cur.rowcount)

    # -- maintenance ---------------------------------------------------------------

    def rebuild_fts(self) -> None:
        with self.write() as conn:
            conn.execute("INSERT INTO sources_fts (sources_fts) VALUES ('rebuild')")

    def source_counts(self) -> dict[str, int]:
        """How many rows each source ID has (a crash test expects exactly one)."""
        return {sid: int(n) for sid, n in self.query(
            "SELECT source_id, count(*) FROM sources GROUP BY source_id")}

    def orphans(self) -> dict[str, int]:
        """Derived rows that lost their origin: sources without a job, vectors
        without a source, facts without a provenance source."""
        return {
            "jobless_sources": int(self.query(
                "SELECT count(*) FROM sources s LEFT JOIN jobs j ON j.source_seq = s.seq "
                "WHERE j.job_id IS NULL")[0][0]),
            "orphan_vectors": int(self.query(
                "SELECT count(*) FROM vectors v WHERE v.owner_kind = 'source' AND NOT EXISTS "
                "(SELECT 1 FROM sources s WHERE s.source_id = v.owner_id)")[0][0]),
            "orphan_facts": int(self.query(
                "SELECT count(*) FROM facts f WHERE NOT EXISTS (SELECT 1 FROM fact_sources fs "
                "JOIN sources s ON s.source_id = fs.source_id WHERE fs.fact_id = f.fact_id)"
            )[0][0]),
        }

    def integrity_check(self) -> str:
        return str(self.query("PRAGMA integrity_check")[0][0])

    def stats(self) -> dict[str, Any]:
        subjects = self.query(
            "SELECT subject_id, count(*) FROM sources GROUP BY subject_id ORDER BY subject_id")
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*")
                   if p.is_file() and not p.name.endswith(".lock"))
        return {
            "db_path": str(self.path),
            "sources": self.count_sources(),
            "subjects": {s: int(n) for s, n in subjects},
            "sessions": int(self.query("SELECT count(*) FROM sessions")[0][0]),
            "jobs": self.job_counts(),
            "vectors": [{"model": m, "dim": d, "count": n} for m, d, n in self.vector_models()],
            "tombstones": int(self.query("SELECT count(*) FROM tombstones")[0][0]),
            "queries": int(self.query("SELECT count(*) FROM audit")[0][0]),
            "generation": self.generation(),
            "db_bytes": size,
        }

    # -- forget ------------------------------------------------------------------

    def forget(self, scope: Scope | None = None, source_ids: Sequence[str] = (),
               allow_reingest: bool = False, now: float | None = None) -> list[str]:
        """Remove sources and everything derived from them; return the removed IDs.

        With a scope, everything in it (or only the listed IDs that belong to
        it). Without one, the listed IDs. Each removed ID leaves a content-free
        tombstone unless ``allow_reingest``.
        """
        if scope is None and not source_ids:
            raise ValidationError("scope", "give a scope with a subject_id or source IDs")
        for i, sid in enumerate(source_ids):
            check_text(f"source_ids[{i}]", sid)
        if scope is not None:
            for name in ("subject_id", "robot_id", "session_id"):
                check_text(f"scope.{name}", getattr(scope, name))
        conds: list[str] = []
        args: list[Any] = []
        if scope is not None:
            cond, args = scope_filter(scope, "sources")
            conds.append(cond)
        if source_ids:
            conds.append(f"source_id IN ({','.join('?' * len(source_ids))})")
            args = args + list(source_ids)
        where = " AND ".join(conds)
        now = time.time() if now is None else now
        with self.write() as conn:
            rows = conn.execute(
                f"SELECT source_id, subject_id FROM sources WHERE {where}", args).fetchall()
            removed = [r[0] for r in rows]
            subjects = {r[1] for r in rows}
            for chunk_start in range(0, len(removed), 500):
                chunk = removed[chunk_start:chunk_start + 500]
                marks = ",".join("?" * len(chunk))
                conn.execute(f"DELETE FROM vectors WHERE owner_kind IN ('source', 'window') "
                             f"AND owner_id IN ({marks})", chunk)
                # A window vector embeds the sources before its own: those that
                # follow a forgotten source in its session lose theirs too.
                lags = ", ".join(f"lag(source_id, {i}) OVER w AS p{i}"
                                 for i in range(1, WINDOW_BEFORE + 1))
                hit = " OR ".join(f"p{i} IN ({marks})" for i in range(1, WINDOW_BEFORE + 1))
                conn.execute(
                    "DELETE FROM vectors WHERE owner_kind = 'window' AND owner_id IN ("
                    f"SELECT source_id FROM (SELECT source_id, {lags} FROM sources "
                    f"WHERE subject_id IN (SELECT subject_id FROM sources WHERE source_id "
                    f"IN ({marks})) WINDOW w AS (PARTITION BY subject_id, robot_id, "
                    f"session_id ORDER BY seq)) WHERE {hit})",
                    chunk + chunk * WINDOW_BEFORE)
                conn.execute(f"DELETE FROM sources WHERE source_id IN ({marks})", chunk)
                self._forget_audit(conn, chunk)
            if allow_reingest:
                conn.executemany("DELETE FROM tombstones WHERE source_id = ?",
                                 [(s,) for s in list(source_ids) + removed])
            else:
                conn.executemany(
                    "INSERT OR REPLACE INTO tombstones (source_id, removed_at) VALUES (?, ?)",
                    [(s, now) for s in removed])
            # Graph (GraphStore, issue 6): facts, edges and the hierarchy derived from them.
            self.forget_derived(conn, removed, subjects, self.generation_now(conn) + 1)
            for subject in subjects:
                self._recount_sessions(conn, subject)
            if scope is not None and not source_ids:
                conn.execute("DELETE FROM audit WHERE subject_id = ?", (scope.subject_id,))
            self._bump_vectors_epoch(conn)
            self.bump_generation(conn)
            if removed:
                # FTS5 keeps a deleted row's tokens in old segments until they are
                # merged: merge them all now so the forgotten words are gone too.
                conn.execute("INSERT INTO sources_fts (sources_fts) VALUES ('optimize')")
                conn.execute("INSERT INTO facts_fts (facts_fts) VALUES ('optimize')")
        if removed:
            self.checkpoint()
        return removed

    @staticmethod
    def _forget_audit(conn: sqlite3.Connection, source_ids: Sequence[str]) -> None:
        """Inside a write transaction: delete the audit rows that showed or cited any
        of ``source_ids``: by the ``audit_sources`` link table, and by exact membership
        in the JSON ID arrays of rows written before that table was filled."""
        ids = json.dumps(list(source_ids))
        conn.execute(
            "DELETE FROM audit WHERE query_id IN ("
            " SELECT query_id FROM audit_sources WHERE source_id IN (SELECT value FROM json_each(?))"
            " UNION SELECT a.query_id FROM audit a, json_each(a.evidence_ids) e"
            "  WHERE e.value IN (SELECT value FROM json_each(?))"
            " UNION SELECT a.query_id FROM audit a, json_each(a.cited_ids) c"
            "  WHERE c.value IN (SELECT value FROM json_each(?)))", (ids, ids, ids))

    def checkpoint(self) -> bool:
        """Copy the WAL into the main file and truncate it, so the -wal file keeps no
        copy of deleted rows. Returns False if a reader kept it from completing
        (the next checkpoint finishes the job)."""
        with self._lock:
            busy = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        return not busy

    @staticmethod
    def _bump_vectors_epoch(conn: sqlite3.Connection) -> None:
        """Tell in-memory vector indexes that rows were removed (full reload needed)."""
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('vectors_epoch', ?)",
                     (f"{time.time():.6f}",))

    def reset_derived(self, model: str | None = None) -> int:
        """Drop derived vectors (all, or those not of ``model``; with all, the graph's
        facts, edges and topics too), rebuild FTS, and requeue every source's job
        so consolidation recreates what was dropped, in one transaction.
        Returns the number of jobs requeued.

        Jobs a live worker holds are requeued too, but fenced: their ``fence`` and
        ``claimed_by`` change, so the old holder's completion writes nothing
        (``held_jobs``) and cannot mark the requeued job done."""
        now = time.time()
        with self.write() as conn:
            if model is None:
                conn.execute("DELETE FROM vectors")
                self.clear_all_graph(conn)  # facts, edges, topics: re-derived by the requeue
            else:
                conn.execute("DELETE FROM vectors WHERE model != ?", (model,))
            conn.execute("INSERT INTO sources_fts (sources_fts) VALUES ('rebuild')")
            cur = conn.execute("UPDATE jobs SET status = 'pending', attempts = 0, "
                               "last_error = NULL, note = NULL, claimed_by = NULL, "
                               "lease_until = NULL, not_before = NULL, fence = fence + 1, "
                               "updated_at = ?", (now,))
            self._bump_vectors_epoch(conn)
            self.bump_generation(conn)
            return int(cur.rowcount)

    @staticmethod
    def _recount_sessions(conn: sqlite3.Connection, subject_id: str) -> None:
        conn.execute("DELETE FROM sessions WHERE subject_id = ?", (subject_id,))
        conn.execute(
            "INSERT INTO sessions (subject_id, robot_id, session_id, start_time, end_time, "
            "n_sources) SELECT subject_id, robot_id, session_id, min(source_time), "
            "max(source_time), count(*) FROM sources WHERE subject_id = ? AND session_id != '' "
            "GROUP BY subject_id, robot_id, session_id", (subject_id,))

    # -- query road: recall reads and audit rows ------------------------------------
    #
    # What the query pipeline reads (scoped FTS5 over sources and facts, session
    # neighbours, a subject's participants, vectors for the in-memory index) and
    # the audit rows a background writer stores in batches, one transaction each.

    def search_sources(self, scope: Scope, match: str, k: int,
                       as_of_valid: float | None = None, as_of_known: float | None = None,
                       weights: tuple[float, float] = (1.0, 1.0)) -> list[tuple[int, str, float]]:
        """(seq, source_id, score) of the scope's sources matching an FTS5 expression,
        best BM25 first (score: higher is better). The subject is also matched inside
        FTS5 so only its rows are ranked; the join's exact scope filter stays the
        authority (a phrase can match a longer subject ID). Ties keep storage order."""
        if not match or k <= 0:
            return []
        if any(ch.isalnum() for ch in scope.subject_id):
            match = f"subject_id : {_fts_phrase(scope.subject_id)} AND ({match})"
        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        rows = self.query(
            f"SELECT s.seq, s.source_id, bm25(sources_fts, {float(weights[0])}, "
            f"{float(weights[1])}, 0.0) AS rank FROM sources_fts "
            "JOIN sources s ON s.seq = sources_fts.rowid "
            f"WHERE sources_fts MATCH ? AND {cond} ORDER BY rank, s.seq LIMIT ?",
            [match, *args, int(k)])
        return [(int(r[0]), r[1], -float(r[2])) for r in rows]

    def search_facts(self, scope: Scope, match: str, k: int,
                     as_of_valid: float | None = None, as_of_known: float | None = None
                     ) -> list[tuple[int, str, str, float, str]]:
        """(source seq, source_id, fact_id, score, fact status) for facts matching an
        FTS5 expression, one row per provenance source in the scope, best first.
        A time view hides facts valid or known only after it."""
        if not match or k <= 0:
            return []
        if any(ch.isalnum() for ch in scope.subject_id):
            match = f"subject_id : {_fts_phrase(scope.subject_id)} AND ({match})"
        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        if as_of_valid is not None:
            cond += " AND f.valid_from <= ?"
            args.append(as_of_valid)
        if as_of_known is not None:
            cond += " AND f.known_from <= ?"
            args.append(as_of_known)
        rows = self.query(
            "SELECT s.seq, s.source_id, f.fact_id, bm25(facts_fts, 1.0, 1.0, 0.0) AS rank, "
            "f.status FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid "
            "JOIN fact_sources fs ON fs.fact_id = f.fact_id "
            "JOIN sources s ON s.source_id = fs.source_id "
            f"WHERE facts_fts MATCH ? AND f.subject_id = ? AND {cond} "
            "ORDER BY rank, s.seq LIMIT ?",
            [match, scope.subject_id, *args, int(k)])
        return [(int(r[0]), r[1], r[2], -float(r[3]), r[4]) for r in rows]

    def speakers(self, subject_id: str) -> list[str]:
        """The distinct non-empty dialogue speakers of a subject (its participants)."""
        return [r[0] for r in self.query(
            "SELECT DISTINCT speaker FROM sources WHERE subject_id = ? "
            "AND modality = 'dialogue' AND speaker != ''", (subject_id,))]

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
                "SELECT s.seq, s.source_id, s.robot_id, s.session_id, s.speaker, s.source_time "
                "FROM sources s "
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
            "WHERE seq > ? AND seq <= ? AND subject_id = ?) c "
            "LEFT JOIN sources p ON p.source_id = c.parent "
            "WHERE typeof(c.parent) = 'text' ORDER BY c.seq",
            (int(after_seq), int(upto_seq), subject_id))]

    def seqs_of(self, source_ids: Sequence[str]) -> dict[str, int]:
        """Sequence numbers of the given source IDs (missing ones left out)."""
        if not source_ids:
            return {}
        marks = ",".join("?" * len(source_ids))
        return {r[0]: int(r[1]) for r in self.query(
            f"SELECT source_id, seq FROM sources WHERE source_id IN ({marks})", list(source_ids))}

    def last_seq(self) -> int:
        """The highest sequence number ever stored (0 for an empty ledger)."""
        return self.marks()[1]

    def marks(self) -> tuple[int, int]:
        """(generation, highest source sequence number ever stored), in one read: what
        a query's caches check to know whether they are still current."""
        row = self.query(
            "SELECT (SELECT value FROM meta WHERE key = 'generation'), "
            "(SELECT seq FROM sqlite_sequence WHERE name = 'sources')")[0]
        return int(row[0]), int(row[1] or 0)

    def meta_value(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def source_vectors_after(self, subject_id: str, model: str, after_rowid: int,
                             owner_kind: str = "source") -> list[tuple[Any, ...]]:
        """Vectors of ``model`` owned by a source (``owner_kind``: 'source', or another
        kind keyed by source ID) stored after ``after_rowid``, in rowid order:
        (rowid, seq, source_id, robot_id, session_id, source_time, known_time, vec,
        speaker)."""
        return self.query(
            "SELECT v.rowid, s.seq, s.source_id, s.robot_id, s.session_id, s.source_time, "
            "s.known_time, v.vec, s.speaker FROM vectors v JOIN sources s ON s.source_id = v.owner_id "
            "WHERE v.owner_kind = ? AND v.subject_id = ? AND v.model = ? "
            "AND v.rowid > ? ORDER BY v.rowid", (owner_kind, subject_id, model, int(after_rowid)))

    def write_audit(self, records: Sequence[AuditRecord]) -> int:
        """Store audit rows and their shown/cited source links in ONE transaction
        (the query path hands them to a background writer, never waits for this).
        A row whose ID is already stored is skipped. Returns rows written."""
        if not records:
            return 0
        written = 0
        with self.write() as conn:
            for r in records:
                # Queued before a forget that removed what it showed: its answer may
                # quote forgotten text, so it is not written at all.
                shown = list(dict.fromkeys([*r.shown, *r.cited]))
                present = conn.execute(
                    "SELECT count(*) FROM sources WHERE source_id IN "
                    "(SELECT value FROM json_each(?))", (json.dumps(shown),)).fetchone()[0]
                if present < len(shown):
                    continue
                cur = conn.execute(
                    "INSERT OR IGNORE INTO audit (query_id, asked_at, subject_id, scope, question, "
                    "plan, routes, evidence_ids, cited_ids, answer, status, reader, timings) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (r.query_id, r.asked_at, r.subject_id, json.dumps(r.scope), r.question,
                     json.dumps(r.plan), json.dumps(r.routes), json.dumps(r.shown),
                     json.dumps(r.cited), r.answer, r.status, r.reader, json.dumps(r.timings)))
                if not cur.rowcount:
                    continue
                written += 1
                links = [(r.query_id, s, "shown") for s in dict.fromkeys(r.shown)]
                links += [(r.query_id, s, "cited") for s in dict.fromkeys(r.cited)]
                conn.executemany("INSERT OR IGNORE INTO audit_sources (query_id, source_id, role) "
                                 "VALUES (?, ?, ?)", links)
        return written


def _fts_phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


@dataclass(frozen=True)
class AuditRecord:
    """One query's audit row: what was asked, what each route found, what was shown
    and cited. ``query_id`` is allocated by the caller (no write on the request path)."""

    query_id: int
    asked_at: float
    subject_id: str
    scope: dict[str, Any]
    question: str
    plan: dict[str, Any]
    routes: dict[str, Any]
    shown: list[str]
    cited: list[str]
    answer: str
    status: str
    reader: str
    timings: dict[str, float]
