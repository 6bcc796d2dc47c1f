"""The SQLite ledger's schema, as numbered migrations, and the runner that applies them.

Each migration is one SQL script applied in ONE transaction together with its row in
``schema_version`` (version, name, applied_at): a crash leaves a migration applied with its
record or not at all. The same row also goes to ``_sqlite_migrations``, the table builds
before the storage split kept (sqlite-utils' ``Migrations``), so those builds still open a
ledger this one wrote and refuse one that a newer build changed. A ledger written before
``schema_version`` existed is adopted on open: its applied migrations are recorded there.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .postings import postings_to_the_end, rebuild_postings, table_sql

# Name under which ``_sqlite_migrations`` (the pre-split record) lists our migrations.
LEGACY_SET = "trace_ros"
SCHEMA_TABLE = "schema_version"
LEGACY_TABLE = "_sqlite_migrations"


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str
    why: str = ""
    # True when nothing a read-only ledger (the explorer) reads changes: it may then open
    # a file this migration has not reached yet (it never migrates).
    readers_unaffected: bool = False
    # Rows the SQL cannot make (they need this package's code), written after it in the
    # same transaction.
    backfill: Callable[[sqlite3.Connection], None] | None = None


M001 = Migration(1, "m001_sources_jobs", """
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
""",
    "")

M002 = Migration(2, "m002_fts_subject", """
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
""",
    """Index the subject in FTS5 too, so lexical recall filters by subject inside
MATCH instead of ranking every subject's matches first (cost grew with the
whole ledger, measured by ``bench scale``).""")

M003 = Migration(3, "m003_graph", """
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
""",
    """The evidence graph (DESIGN §2): facts with bitemporal validity and provenance,
typed edges, topics; FTS5 over facts; audit rows linked to sources by a table.""")

M004 = Migration(4, "m004_job_retry", """
        ALTER TABLE jobs ADD COLUMN not_before REAL;
        ALTER TABLE jobs ADD COLUMN note TEXT;
        ALTER TABLE jobs ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;
""",
    """Jobs: ``not_before`` (retry backoff and deferral: not claimed before this
time), ``note`` (what happened beyond the outcome, e.g. an extractor fallback),
``fence`` (bumped at every claim and by ``reset_derived``: a completion carrying
an older fence is ignored, so a requeued job is never completed by its old holder).""")

M005 = Migration(5, "m005_perception_labels", """
        CREATE INDEX sources_label ON sources (subject_id, modality, label, source_time);
""",
    """Perceptions by label: "where did you last see X" reads the scope's labels and then
the latest sightings of the matching ones, instead of every perception of the scope.""")

M006 = Migration(6, "m006_tombstone_subjects", """
        CREATE TABLE tombstones_by_subject (
            subject_id TEXT NOT NULL,
            source_id TEXT NOT NULL,
            removed_at REAL NOT NULL,
            PRIMARY KEY (subject_id, source_id)
        );
        INSERT INTO tombstones_by_subject (subject_id, source_id, removed_at)
            SELECT '', source_id, removed_at FROM tombstones;
        DROP TABLE tombstones;
        ALTER TABLE tombstones_by_subject RENAME TO tombstones;
        CREATE INDEX tombstones_order ON tombstones (removed_at, source_id);
""",
    """Tombstones name their subject, as on PostgreSQL (migration p008): ``trace-ros sync``
carries it, and a one-subject sync pushes that subject's tombstones. A tombstone left
before this migration has lost its source and with it the subject: it gets ``''``
(unknown), which refuses its ID in every subject.""", readers_unaffected=True)


# The SQL function (registered on every ledger connection) giving a row's token count
# from its FTS5 ``docsize`` blob: one varint per column, summed.
FTS_SIZE = "trace_ros_fts_size"


def fts_size(blob: bytes | None) -> int:
    """The sum of the varints of an FTS5 ``docsize`` blob (a row's tokens, all columns)."""
    total, value = 0, 0
    for byte in blob or b"":
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            total, value = total + value, 0
    return total


def _lex_parts(fts: str, key: str, kind: str, a: str, b: str) -> tuple[str, str, str, str]:
    """The statements that (index, unindex) a row of ``fts`` and (add, take) it to the
    subject's statistics: the row's size is read from FTS5's own ``docsize`` (after
    indexing a new row, before removing an old one)."""
    values = f"{a}, {b}, subject_id"
    index = (f"INSERT INTO {fts} (rowid, {values}) VALUES "
             f"(new.{key}, new.{a}, new.{b}, new.subject_id);")
    unindex = (f"INSERT INTO {fts} ({fts}, rowid, {values}) VALUES "
               f"('delete', old.{key}, old.{a}, old.{b}, old.subject_id);")

    def size(row: str) -> str:
        return f"(SELECT {FTS_SIZE}(sz) FROM {fts}_docsize WHERE id = {row}.{key})"

    add = (f"INSERT INTO lex_stats (subject_id, kind, n_docs, n_tokens) VALUES "
           f"(new.subject_id, '{kind}', 1, {size('new')}) ON CONFLICT (subject_id, kind) "
           "DO UPDATE SET n_docs = n_docs + 1, n_tokens = n_tokens + excluded.n_tokens;")
    take = (f"UPDATE lex_stats SET n_docs = n_docs - 1, n_tokens = n_tokens - {size('old')} "
            f"WHERE subject_id = old.subject_id AND kind = '{kind}'; DELETE FROM lex_stats "
            f"WHERE subject_id = old.subject_id AND kind = '{kind}' AND n_docs <= 0;")
    return index, unindex, add, take


def _lex_stats(table: str, fts: str, key: str, kind: str, a: str, b: str) -> str:
    """Count ``table``'s statistics now, and make its FTS5 triggers keep them."""
    index, unindex, add, take = _lex_parts(fts, key, kind, a, b)
    return f"""
        INSERT INTO lex_stats (subject_id, kind, n_docs, n_tokens)
            SELECT t.subject_id, '{kind}', count(*), sum({FTS_SIZE}(d.sz)) FROM {table} t
            JOIN {fts}_docsize d ON d.id = t.{key} GROUP BY t.subject_id;
        DROP TRIGGER IF EXISTS {fts}_ai;
        DROP TRIGGER IF EXISTS {fts}_ad;
        DROP TRIGGER IF EXISTS {fts}_au;
        CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} BEGIN {index} {add} END;
        CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} BEGIN {take} {unindex} END;
        CREATE TRIGGER {fts}_au AFTER UPDATE OF {a}, {b}, subject_id ON {table}
            BEGIN {take} {unindex} {index} {add} END;"""


M007 = Migration(7, "m007_lexical_stats", """
        -- Where each stem stands in each row (no storage of their own: FTS5's index).
        CREATE VIRTUAL TABLE sources_vocab USING fts5vocab (sources_fts, instance);
        CREATE VIRTUAL TABLE facts_vocab USING fts5vocab (facts_fts, instance);
        CREATE TABLE lex_stats (
            subject_id TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('source', 'fact')),
            n_docs INTEGER NOT NULL DEFAULT 0,
            n_tokens INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (subject_id, kind)
        );
""" + _lex_stats("sources", "sources_fts", "seq", "source", "text", "speaker")
    + _lex_stats("facts", "facts_fts", "rowid", "fact", "description", "value") + "\n",
    """Lexical statistics per subject (issue 15), as PostgreSQL keeps them (``lex_stats``,
migration p006): BM25 ranks a subject's rows with its own row count, mean row length and
document frequencies (``storage/lexrank.py``, from the FTS5 vocabulary's ``instance``
tables created here), not FTS5's, which are the whole table's. The FTS5 triggers keep the
counts, with each row's size as FTS5 itself counted it (its ``docsize``), read through a
function every ledger connection registers (a connection without it cannot write sources
or facts: only this package's may). A reader of a file not migrated yet counts a subject's
statistics from its rows (``sqlite/search.subject_stats``): the same figures.""",
    readers_unaffected=True)


M008 = Migration(8, "m008_tombstone_subjects_found", """
        CREATE TEMP TABLE tombstone_named AS
            SELECT source_id, min(subject_id) AS subject_id FROM (
                SELECT l.source_id, a.subject_id FROM audit_sources l
                    JOIN audit a ON a.query_id = l.query_id
                UNION SELECT e.value, a.subject_id FROM audit a, json_each(CASE WHEN
                    json_valid(a.evidence_ids) THEN a.evidence_ids ELSE '[]' END) e
                UNION SELECT c.value, a.subject_id FROM audit a, json_each(CASE WHEN
                    json_valid(a.cited_ids) THEN a.cited_ids ELSE '[]' END) c
                UNION SELECT owner_id, subject_id FROM vectors WHERE owner_kind = 'source'
                UNION SELECT fs.source_id, f.subject_id FROM fact_sources fs
                    JOIN facts f ON f.fact_id = fs.fact_id
                UNION SELECT source_id, subject_id FROM tombstones WHERE subject_id != ''
            ) WHERE subject_id != '' AND source_id IN
                (SELECT source_id FROM tombstones WHERE subject_id = '')
            GROUP BY source_id HAVING count(DISTINCT subject_id) = 1;
        DELETE FROM tombstones WHERE subject_id = '' AND source_id IN (SELECT t.source_id
            FROM tombstones t JOIN temp.tombstone_named n ON n.source_id = t.source_id
            AND n.subject_id = t.subject_id);
        UPDATE tombstones SET subject_id = (SELECT n.subject_id FROM temp.tombstone_named n
            WHERE n.source_id = tombstones.source_id)
            WHERE subject_id = '' AND source_id IN (SELECT source_id FROM temp.tombstone_named);
        DROP TABLE temp.tombstone_named;
""",
    """A tombstone left before migration m006 has subject ``''`` (unknown); where the
ledger still names the forgotten source's subject — an audit row that showed or cited it,
its vector, a fact it backed (rows an older forget left), or a tombstone of the same ID
in one subject — it gets that subject (a tombstone already there stands for it). One
named in no row, or in several subjects, stays ``''``: it refuses its ID in every
subject, ``sync`` carries it only in a full sync, and on PostgreSQL a role confined to
its subjects reads it but cannot lift it (``ledger grant``).""", readers_unaffected=True)


M009 = Migration(9, "m009_subject_first_reads", """
        DROP INDEX sources_label;
        CREATE INDEX sources_label ON sources
            (subject_id, modality, label, source_time, seq, speaker);
        CREATE INDEX sources_attached ON sources (subject_id, seq) WHERE CASE WHEN
            json_valid(payload) THEN json_type(payload, '$.attached_to') END = 'text';
""",
    """What a subject's first question reads of every source of it, read from an index
instead of the rows (text included; 12,500 of them at 100,000 sources, 11-57 ms each):
its speakers (``speakers``: ``sources_label`` covers them, its order and use for labels as
before, so they come in the same order and capture keeps one index) and the sources
attached to another (``attachments_between``: a partial index of the rows whose payload
names one, on the query's own condition).""",
    readers_unaffected=True)


M010 = Migration(10, "m010_tombstone_order", """
        CREATE TABLE tombstones_in_order (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            subject_id TEXT NOT NULL,
            source_id TEXT NOT NULL,
            removed_at REAL NOT NULL,
            UNIQUE (subject_id, source_id)
        );
        INSERT INTO tombstones_in_order (subject_id, source_id, removed_at)
            SELECT subject_id, source_id, removed_at FROM tombstones
            ORDER BY removed_at, source_id, subject_id;
        DROP TABLE tombstones;
        ALTER TABLE tombstones_in_order RENAME TO tombstones;
""",
    """Tombstones are numbered in the order the ledger records them (``seq``, as on
PostgreSQL, migration p011), and ``trace-ros sync`` resumes from that number: it resumed
from the removal time, and a tombstone recorded after a run with an older one (a forget
synced in from a third ledger, a robot's clock behind) was never sent. AUTOINCREMENT: a
lifted tombstone's number is never given again (a plain rowid may be, and VACUUM may
renumber one). Those already there are numbered in the order sync read them; a sync
watermark written before (removal time, ID, subject) sends every tombstone once more.""",
    readers_unaffected=True)


M011 = Migration(11, "m011_source_postings", table_sql() + ";\n",
    """Each subject's sources per stem, in blocks of up to 128 entries (seq, the row's
token count, the stem's count in the text and speaker columns) packed in one value
(``storage/postings.py``): lexical search reads a common stem's ~20,000 sources of a
subject at a million sources as ~160 values instead of FTS5's vocabulary, which holds
every subject's instances of the stem and gives them one row at a time (issue 15: p95
210 ms at 1,000,000 sources). Filled from the sources here (FTS5's tokenizer, in this
package's code) and laid out in key order, then kept by capture and forget.""",
    readers_unaffected=True, backfill=rebuild_postings)


M012 = Migration(12, "m012_speaker_turns", """
        CREATE TABLE speaker_turns (
            subject_id TEXT NOT NULL,
            speaker TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (subject_id, speaker)
        );
        INSERT INTO speaker_turns (subject_id, speaker, n)
            SELECT subject_id, speaker, count(*) FROM sources
            WHERE modality = 'dialogue' AND speaker != '' GROUP BY subject_id, speaker;
        CREATE TRIGGER sources_turns_ai AFTER INSERT ON sources
            WHEN new.modality = 'dialogue' AND new.speaker != '' BEGIN
            INSERT INTO speaker_turns (subject_id, speaker, n)
                VALUES (new.subject_id, new.speaker, 1)
                ON CONFLICT (subject_id, speaker) DO UPDATE SET n = n + 1;
        END;
        CREATE TRIGGER sources_turns_ad AFTER DELETE ON sources
            WHEN old.modality = 'dialogue' AND old.speaker != '' BEGIN
            UPDATE speaker_turns SET n = n - 1
                WHERE subject_id = old.subject_id AND speaker = old.speaker;
            DELETE FROM speaker_turns
                WHERE subject_id = old.subject_id AND speaker = old.speaker AND n <= 0;
        END;
""",
    """How many dialogue turns each speaker of a subject has, kept by triggers
(``speaker_turns``): the graph stage asks it once per subject and generation, and counting
it from the sources read every dialogue turn of the subject through an index (50-60 ms at
1,000,000 sources, on the first question of each subject after each consolidation batch).
Sources are never updated, only inserted and deleted.""",
    readers_unaffected=True)


M013 = Migration(13, "m013_postings_mark", """
        CREATE TABLE postings_mark (
            one INTEGER PRIMARY KEY CHECK (one = 1),
            upto INTEGER NOT NULL
        );
        INSERT INTO postings_mark (one, upto) SELECT 1, coalesce(max(seq), 0) FROM sources;
""",
    """The source postings (m011) are written after capture, up to a mark (``upto``:
every source up to it is indexed, none above it), no longer in the capture transaction
(issue 16: they cost capture half its rate). The writer indexes the sources above the
mark while no event waits, bulk ingest after each batch; a search reads the ones above
it from their text (``sqlite/postings``). A ledger's postings hold every source until
now: the mark is its last source. A reader of a file not migrated yet reads its postings
as holding every source, as they do.""",
    readers_unaffected=True)


_INDEXED = "old.seq <= (SELECT upto FROM postings_mark)"
_SRC = _lex_parts("sources_fts", "seq", "source", "text", "speaker")

M014 = Migration(14, "m014_deferred_lexical", f"""
        DROP TRIGGER sources_fts_ai;
        DROP TRIGGER sources_fts_ad;
        DROP TRIGGER sources_fts_au;
        DROP TRIGGER sources_turns_ai;
        DROP TRIGGER sources_turns_ad;
        CREATE TRIGGER sources_fts_ad AFTER DELETE ON sources WHEN {_INDEXED}
            BEGIN {_SRC[3]} {_SRC[1]} END;
        CREATE TRIGGER sources_fts_au AFTER UPDATE OF text, speaker, subject_id ON sources
            WHEN {_INDEXED} BEGIN {_SRC[3]} {_SRC[1]} {_SRC[0]} {_SRC[2]} END;
        CREATE TRIGGER sources_turns_ad AFTER DELETE ON sources
            WHEN old.modality = 'dialogue' AND old.speaker != '' AND {_INDEXED} BEGIN
            UPDATE speaker_turns SET n = n - 1
                WHERE subject_id = old.subject_id AND speaker = old.speaker;
            DELETE FROM speaker_turns
                WHERE subject_id = old.subject_id AND speaker = old.speaker AND n <= 0;
        END;
""",
    """FTS5's index of the sources, their lexical statistics (``lex_stats``) and the
speakers' turn counts (``speaker_turns``) are written after capture, with the postings,
up to the postings' mark (m013), no longer by triggers in the capture transaction (issue
16: they cost capture ~70 us of CPU per event of ~155, and ~1.7 KB of WAL). The delete
triggers take out only what was indexed (the rows up to the mark); the sources above it
are indexed by ``sqlite/deferred.index_pending``, and a search adds them from their text
(``sqlite/deferred``). Here the triggers indexed every source: the postings are written
up to the last one, and the mark moves there. A reader of a file not migrated yet finds
the triggers' rows complete (``deferred.derived_upto``).""",
    readers_unaffected=True, backfill=postings_to_the_end)


M015 = Migration(15, "m015_sessions_by_span", """
        DROP INDEX sources_scope_session;
""",
    """A session's sources are read through ``sources_scope_time`` within the session's
span from the ``sessions`` table (``rows.session_span``), and the (subject, session) index
is dropped: it wrote a page for every subject a capture commit touched (issue 16: 13.4 of
76.8 WAL pages a commit of 32 events, ``tools/wal_pages.py``). The span is kept with the
sources in the same transaction, so it covers each of them; a reader of a file not
migrated yet reads the same rows (its index left unused or used).""",
    readers_unaffected=True)


class Migrations:
    """The ordered migrations of one schema, applied and checked on a connection.

    Methods take a ``sqlite3.Connection`` or anything with a ``conn`` attribute (a
    ``sqlite_utils.Database``); ``pending`` and ``unknown`` only read."""

    def __init__(self, migrations: list[Migration]) -> None:
        versions = [m.version for m in migrations]
        if versions != list(range(1, len(migrations) + 1)):
            raise ValueError(f"migration versions must be 1..n in order, got {versions}")
        self.migrations = tuple(migrations)

    @property
    def latest(self) -> int:
        return len(self.migrations)

    def applied(self, db: Any) -> list[str]:
        """Names of the migrations recorded as applied, in ``schema_version`` order, then
        any that only the pre-split record lists."""
        conn = _conn(db)
        tables = _tables(conn)
        names: list[str] = []
        if SCHEMA_TABLE in tables:
            names += [r[0] for r in conn.execute(
                f"SELECT name FROM {SCHEMA_TABLE} ORDER BY version")]
        if LEGACY_TABLE in tables:
            names += [r[0] for r in conn.execute(
                f"SELECT name FROM {LEGACY_TABLE} WHERE migration_set = ? ORDER BY id",
                (LEGACY_SET,)) if r[0] not in names]
        return names

    def pending(self, db: Any) -> list[Migration]:
        done = set(self.applied(db))
        return [m for m in self.migrations if m.name not in done]

    def unknown(self, db: Any) -> list[str]:
        """Recorded migrations this code does not know (written by a newer build)."""
        known = {m.name for m in self.migrations}
        return [n for n in self.applied(db) if n not in known]

    def apply(self, db: Any) -> list[Migration]:
        """Record adopted migrations in ``schema_version``, then apply the pending ones,
        each in its own transaction. Returns those applied. The caller holds the
        migration lock (``files.file_lock``)."""
        conn = _conn(db)
        self._adopt(conn)
        done: list[Migration] = []
        for m in self.pending(conn):
            now = time.time()
            stamp = time.strftime("%Y-%m-%d %H:%M:%S+00:00", time.gmtime(now))
            try:
                # executescript commits what is open first: the script opens the
                # transaction, and what follows it runs statement by statement.
                conn.executescript("BEGIN IMMEDIATE;\n" + _SCHEMA_DDL + m.sql)
                if m.backfill is not None:
                    m.backfill(conn)
                conn.execute(f"INSERT INTO {SCHEMA_TABLE} (version, name, applied_at) "
                             "VALUES (?, ?, ?)", (m.version, m.name, now))
                conn.execute(f"INSERT INTO {LEGACY_TABLE} (migration_set, name, applied_at) "
                             "VALUES (?, ?, ?)", (LEGACY_SET, m.name, stamp))
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            done.append(m)
        return done

    def _adopt(self, conn: sqlite3.Connection) -> None:
        """A ledger written before ``schema_version``: record what it has applied."""
        tables = _tables(conn)
        if LEGACY_TABLE not in tables:
            return
        recorded = set()
        if SCHEMA_TABLE in tables:
            recorded = {r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA_TABLE}")}
        legacy = {r[0] for r in conn.execute(f"SELECT name FROM {LEGACY_TABLE} "
                                             "WHERE migration_set = ?", (LEGACY_SET,))}
        missing = [m for m in self.migrations if m.name in legacy and m.name not in recorded]
        if not missing and SCHEMA_TABLE in tables:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA_DDL.strip().split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.executemany(f"INSERT INTO {SCHEMA_TABLE} (version, name, applied_at) "
                             "VALUES (?, ?, ?)",
                             [(m.version, m.name, time.time()) for m in missing])
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


_SCHEMA_DDL = f"""
CREATE TABLE IF NOT EXISTS {SCHEMA_TABLE} (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    applied_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS "{LEGACY_TABLE}" (
    "id" INTEGER PRIMARY KEY, "migration_set" TEXT, "name" TEXT, "applied_at" TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS "idx_{LEGACY_TABLE}_migration_set_name"
    ON "{LEGACY_TABLE}" ("migration_set", "name");
"""


def _conn(db: Any) -> sqlite3.Connection:
    return db if isinstance(db, sqlite3.Connection) else db.conn


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


MIGRATIONS = Migrations([M001, M002, M003, M004, M005, M006, M007, M008, M009, M010, M011, M012,
                         M013, M014, M015])
