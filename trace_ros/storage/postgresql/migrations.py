"""The PostgreSQL ledger's schema, as numbered migrations recorded in ``schema_version``.

Each migration runs in one transaction with its ``schema_version`` row, under a
transaction-level advisory lock, so several nodes starting at once migrate exactly once.
Column names and meanings are those of the SQLite schema (``storage/sqlite/migrations``);
what differs is only what the engines spell differently (identity columns, BIGINT
times in the same REAL seconds as ``double precision``, JSON as ``text`` to keep the bytes).

Every table that holds a subject's rows carries ``subject_id`` (see DESIGN §8);
``subject_queues`` has one row per subject with outstanding jobs, the row a claiming
worker locks (``FOR UPDATE SKIP LOCKED``) so jobs of one subject are claimed in source
order by one worker at a time while other workers take other subjects.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .postings import rebuild_postings

SCHEMA_TABLE = "schema_version"
# Any constant: the advisory lock under which migrations run (pg_advisory_xact_lock).
MIGRATION_LOCK = 0x7472616365  # "trace"


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str
    # Rows the SQL cannot make (they need this package's code), written after it in the
    # same transaction.
    backfill: Callable[[Any], None] | None = None



def _confined_as_sources(table: str) -> str:
    """SQL that confines a new ``table`` (with ``subject_id``) as ``sources`` is confined
    when the migration runs: its row-level security and every policy on ``sources``
    (``trace-ros ledger grant``'s, storage/postgresql/roles.py), and the confined roles'
    rights on it, so a role granted before the migration keeps capturing and forgetting
    after it (a later ``ledger grant`` finds the table in the catalogue anyway)."""
    return f"""
DO $$
DECLARE p record;
BEGIN
    IF (SELECT relrowsecurity FROM pg_class WHERE oid = 'sources'::regclass) THEN
        ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
    END IF;
    IF (SELECT relforcerowsecurity FROM pg_class WHERE oid = 'sources'::regclass) THEN
        ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
    END IF;
    FOR p IN SELECT policyname, roles, permissive, cmd, qual, with_check FROM pg_policies
             WHERE schemaname = current_schema() AND tablename = 'sources' LOOP
        EXECUTE format('CREATE POLICY %I ON {table} AS %s FOR %s TO %s USING (%s)%s',
            p.policyname, p.permissive, p.cmd,
            (SELECT string_agg(quote_ident(r), ', ') FROM unnest(p.roles) AS r),
            coalesce(p.qual, 'true'),
            CASE WHEN p.with_check IS NULL THEN '' ELSE ' WITH CHECK (' || p.with_check || ')' END);
        IF p.policyname LIKE 'trace\\_ros\\_subjects\\_%' THEN
            EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO %s',
                (SELECT string_agg(quote_ident(r), ', ') FROM unnest(p.roles) AS r));
        END IF;
    END LOOP;
END $$;
"""

V1 = Migration(1, "p001_sources_jobs", """
CREATE TABLE sources (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id TEXT NOT NULL UNIQUE,
    subject_id TEXT NOT NULL,
    robot_id TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL DEFAULT '',
    modality TEXT NOT NULL CHECK (modality IN ('dialogue', 'perception')),
    speaker TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    confidence DOUBLE PRECISION,
    pose TEXT,
    payload TEXT NOT NULL DEFAULT '{}',
    source_time DOUBLE PRECISION NOT NULL,
    time_from_receipt INTEGER NOT NULL DEFAULT 0,
    known_time DOUBLE PRECISION NOT NULL,
    content_hash TEXT NOT NULL
);
CREATE INDEX sources_scope_time ON sources (subject_id, source_time);
CREATE INDEX sources_scope_session ON sources (subject_id, session_id);

CREATE TABLE jobs (
    job_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subject_id TEXT NOT NULL,
    source_seq BIGINT NOT NULL UNIQUE REFERENCES sources (seq) ON DELETE CASCADE,
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'running', 'done', 'failed', 'deferred')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    outcome TEXT CHECK (outcome IN ('add', 'revise', 'noop')),
    note TEXT,
    claimed_by TEXT,
    lease_until DOUBLE PRECISION,
    not_before DOUBLE PRECISION,
    fence INTEGER NOT NULL DEFAULT 0,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX jobs_outstanding ON jobs (subject_id, source_seq)
    WHERE status IN ('pending', 'deferred', 'running');
CREATE INDEX jobs_status ON jobs (status, job_id);

CREATE TABLE subject_queues (subject_id TEXT PRIMARY KEY);

CREATE TABLE sessions (
    subject_id TEXT NOT NULL,
    robot_id TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL,
    start_time DOUBLE PRECISION NOT NULL,
    end_time DOUBLE PRECISION NOT NULL,
    n_sources INTEGER NOT NULL DEFAULT 0,
    topic_id INTEGER,
    PRIMARY KEY (subject_id, robot_id, session_id)
);

CREATE TABLE tombstones (
    source_id TEXT PRIMARY KEY,
    removed_at DOUBLE PRECISION NOT NULL
);

CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('generation', '0');
""")

V2 = Migration(2, "p002_vectors", """
CREATE EXTENSION IF NOT EXISTS vector;
-- vid orders vectors as SQLite's rowid does: a replaced vector gets a new one, so an
-- index loading what came after its watermark sees the replacement.
CREATE TABLE vectors (
    vid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    owner_kind TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vec vector NOT NULL,
    PRIMARY KEY (owner_kind, owner_id, model)
);
CREATE INDEX vectors_subject ON vectors (subject_id, model, owner_kind, vid);
""")

V3 = Migration(3, "p003_audit", """
CREATE TABLE audit (
    query_id BIGINT PRIMARY KEY,
    asked_at DOUBLE PRECISION NOT NULL,
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
CREATE INDEX audit_subject ON audit (subject_id, asked_at);
-- Which sources a query showed and cited: forget finds audit rows through this.
CREATE TABLE audit_sources (
    query_id BIGINT NOT NULL REFERENCES audit (query_id) ON DELETE CASCADE,
    source_id TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('shown', 'cited')),
    PRIMARY KEY (query_id, source_id, role)
);
CREATE INDEX audit_sources_source ON audit_sources (source_id);
""")

V4 = Migration(4, "p004_perception_labels", """
CREATE INDEX sources_label ON sources (subject_id, modality, label, source_time);
""")

V5 = Migration(5, "p005_graph", """
-- The evidence graph (DESIGN §2), keyed by subject first like every table. fid orders
-- facts as SQLite's rowid does (ties of a lexical search keep insertion order); lex and
-- n_tokens are the fact's lexical index (description, value, subject), written with it.
CREATE TABLE facts (
    subject_id TEXT NOT NULL,
    fact_id TEXT NOT NULL,
    fid BIGINT GENERATED ALWAYS AS IDENTITY,
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
    anchor_time DOUBLE PRECISION NOT NULL,
    anchor_text TEXT NOT NULL DEFAULT '',
    anchor_fallback INTEGER NOT NULL DEFAULT 0,
    valid_from DOUBLE PRECISION NOT NULL,
    valid_to DOUBLE PRECISION,
    known_from DOUBLE PRECISION NOT NULL,
    known_to DOUBLE PRECISION,
    status TEXT NOT NULL DEFAULT 'active'
        CHECK (status IN ('active', 'superseded', 'revoked', 'unresolved')),
    validity DOUBLE PRECISION NOT NULL DEFAULT 1.0,
    source_seq BIGINT NOT NULL,
    generation BIGINT NOT NULL DEFAULT 0,
    extractor TEXT NOT NULL DEFAULT '',
    lex tsvector NOT NULL DEFAULT ''::tsvector,
    n_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (subject_id, fact_id)
);
CREATE INDEX facts_id ON facts (fact_id);
CREATE INDEX facts_key ON facts (subject_id, entity, relation);
CREATE INDEX facts_scope_time ON facts (subject_id, valid_from);
CREATE INDEX facts_source_seq ON facts (source_seq);
CREATE INDEX facts_generation ON facts (subject_id, generation);
CREATE INDEX facts_lex ON facts USING gin (lex);

-- Provenance: a fact is derived from one or more sources.
CREATE TABLE fact_sources (
    subject_id TEXT NOT NULL,
    fact_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    PRIMARY KEY (subject_id, fact_id, source_id),
    FOREIGN KEY (subject_id, fact_id) REFERENCES facts (subject_id, fact_id) ON DELETE CASCADE
);
CREATE INDEX fact_sources_fact ON fact_sources (fact_id);
CREATE INDEX fact_sources_source ON fact_sources (source_id);

-- Typed edges between vertices (fact IDs and hierarchy vertices, which carry their
-- subject); the same (type, src, dst) is stored once.
CREATE TABLE edges (
    subject_id TEXT NOT NULL,
    edge_id BIGINT GENERATED ALWAYS AS IDENTITY,
    type TEXT NOT NULL CHECK (type IN ('updates', 'contradicts', 'causes', 'enables',
        'prevents', 'before', 'in_session', 'in_topic', 'mentions')),
    src TEXT NOT NULL,
    dst TEXT NOT NULL,
    confidence DOUBLE PRECISION NOT NULL DEFAULT 1.0,
    justification TEXT NOT NULL DEFAULT '',
    created_at DOUBLE PRECISION NOT NULL,
    invalidated_at DOUBLE PRECISION,
    generation BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (subject_id, edge_id),
    UNIQUE (subject_id, type, src, dst)
);
CREATE INDEX edges_src ON edges (src, type);
CREATE INDEX edges_dst ON edges (dst, type);
CREATE INDEX edges_generation ON edges (subject_id, generation);

CREATE TABLE topics (
    subject_id TEXT NOT NULL,
    topic_id INTEGER NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    centroid BYTEA,
    n_sessions INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (subject_id, topic_id)
);
INSERT INTO meta (key, value) VALUES ('graph_epoch', '') ON CONFLICT (key) DO NOTHING;
""")

V6 = Migration(6, "p006_lexical", """
-- Lexical recall (BM25 with FTS5's meaning, storage/postgresql/search.py): each source's
-- stemmed terms as a tsvector (text, speaker and subject positions weighted D, A and C)
-- with its token count, and per subject the counts BM25's averages need.
CREATE TABLE source_lex (
    subject_id TEXT NOT NULL,
    seq BIGINT NOT NULL REFERENCES sources (seq) ON DELETE CASCADE,
    lex tsvector NOT NULL,
    n_tokens INTEGER NOT NULL,
    PRIMARY KEY (subject_id, seq)
);
CREATE INDEX source_lex_seq ON source_lex (seq);
CREATE INDEX source_lex_terms ON source_lex USING gin (lex);

CREATE TABLE lex_stats (
    subject_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('source', 'fact')),
    n_docs BIGINT NOT NULL DEFAULT 0,
    n_tokens BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (subject_id, kind)
);
""")

V7 = Migration(7, "p007_lexical_by_subject", """
-- The lexical indexes keyed by subject as well (btree_gin, for a (subject_id, lex) GIN
-- index, is not in every build): each row's terms with one more lexeme, chr(1) followed
-- by the MD5 of its subject (nothing to quote, one length), which no stem can equal. A
-- search in a subject asks for that lexeme too (storage/postgresql/search.py), so the
-- index returns that subject's rows alone instead of every subject's. The plain indexes
-- stay for the ledger-wide document counts.
CREATE INDEX source_lex_subject_terms ON source_lex
    USING gin ((lex || array_to_tsvector(ARRAY[chr(1) || md5(subject_id)])));
CREATE INDEX facts_lex_subject ON facts
    USING gin ((lex || array_to_tsvector(ARRAY[chr(1) || md5(subject_id)])));
""")

V8 = Migration(8, "p008_subject_keys", """
-- Every table keyed by subject (DESIGN §8): subject_id leads the primary key and every
-- unique constraint of sources, jobs, vectors, audit, audit_sources and tombstones, so
-- the schema can be distributed by subject. Written to upgrade a database with rows:
-- the foreign keys that lean on the old keys go first and come back on the new ones.
ALTER TABLE source_lex DROP CONSTRAINT source_lex_seq_fkey;
ALTER TABLE jobs DROP CONSTRAINT jobs_source_seq_fkey;
ALTER TABLE jobs DROP CONSTRAINT jobs_source_seq_key;
ALTER TABLE jobs DROP CONSTRAINT jobs_pkey;
ALTER TABLE sources DROP CONSTRAINT sources_source_id_key;
ALTER TABLE sources DROP CONSTRAINT sources_pkey;
ALTER TABLE sources ADD PRIMARY KEY (subject_id, seq);
ALTER TABLE sources ADD UNIQUE (subject_id, source_id);
-- A source ID names one source in the whole ledger (SQLite's meaning): capture checks it
-- across subjects, and the contract's lookups by ID or sequence number that name no
-- subject use these (plain, not unique) indexes.
CREATE INDEX sources_id ON sources (source_id);
CREATE INDEX sources_seq ON sources (seq);
ALTER TABLE jobs ADD PRIMARY KEY (subject_id, job_id);
ALTER TABLE jobs ADD UNIQUE (subject_id, source_seq);
ALTER TABLE jobs ADD FOREIGN KEY (subject_id, source_seq)
    REFERENCES sources (subject_id, seq) ON DELETE CASCADE;
ALTER TABLE source_lex ADD FOREIGN KEY (subject_id, seq)
    REFERENCES sources (subject_id, seq) ON DELETE CASCADE;

ALTER TABLE vectors DROP CONSTRAINT vectors_pkey;
ALTER TABLE vectors DROP CONSTRAINT vectors_vid_key;
ALTER TABLE vectors ADD PRIMARY KEY (subject_id, owner_kind, owner_id, model);
ALTER TABLE vectors ADD UNIQUE (subject_id, vid);

-- audit_sources takes its subject from its audit row.
ALTER TABLE audit_sources ADD COLUMN subject_id TEXT;
UPDATE audit_sources l SET subject_id = a.subject_id FROM audit a
    WHERE a.query_id = l.query_id;
ALTER TABLE audit_sources ALTER COLUMN subject_id SET NOT NULL;
ALTER TABLE audit_sources DROP CONSTRAINT audit_sources_query_id_fkey;
ALTER TABLE audit_sources DROP CONSTRAINT audit_sources_pkey;
ALTER TABLE audit DROP CONSTRAINT audit_pkey;
ALTER TABLE audit ADD PRIMARY KEY (subject_id, query_id);
ALTER TABLE audit_sources ADD PRIMARY KEY (subject_id, query_id, source_id, role);
ALTER TABLE audit_sources ADD FOREIGN KEY (subject_id, query_id)
    REFERENCES audit (subject_id, query_id) ON DELETE CASCADE;
DROP INDEX audit_sources_source;
CREATE INDEX audit_sources_source ON audit_sources (subject_id, source_id);

-- A tombstone's source is gone, and with it what named the subject: a tombstone left
-- before this migration gets subject '' ("unknown"), which refuses its ID in every
-- subject; forget records the subject from now on.
ALTER TABLE tombstones ADD COLUMN subject_id TEXT NOT NULL DEFAULT '';
ALTER TABLE tombstones ALTER COLUMN subject_id DROP DEFAULT;
ALTER TABLE tombstones DROP CONSTRAINT tombstones_pkey;
ALTER TABLE tombstones ADD PRIMARY KEY (subject_id, source_id);
CREATE INDEX tombstones_order ON tombstones (removed_at, source_id);
""")

V9 = Migration(9, "p009_tombstone_subjects_found", """
-- A tombstone left before p008 has subject '' (unknown). Where the ledger still names the
-- forgotten source's subject (an audit row that showed or cited it, its vector, a fact it
-- backed: rows an older forget left; a tombstone of the same ID in one subject), it gets
-- that subject (a tombstone already there stands for it). One named in no row or in
-- several subjects stays '': it refuses its ID in every subject, and a role confined to
-- its subjects reads it (roles.py) but cannot lift it.
CREATE TEMP TABLE tombstone_named ON COMMIT DROP AS
    SELECT source_id, min(subject_id) AS subject_id FROM (
        SELECT source_id, subject_id FROM audit_sources
        UNION SELECT owner_id, subject_id FROM vectors WHERE owner_kind = 'source'
        UNION SELECT source_id, subject_id FROM fact_sources
        UNION SELECT source_id, subject_id FROM tombstones WHERE subject_id <> ''
    ) named WHERE subject_id <> '' AND source_id IN
        (SELECT source_id FROM tombstones WHERE subject_id = '')
    GROUP BY source_id HAVING count(DISTINCT subject_id) = 1;
DELETE FROM tombstones t USING tombstone_named n, tombstones k WHERE t.subject_id = ''
    AND t.source_id = n.source_id AND k.subject_id = n.subject_id
    AND k.source_id = n.source_id;
UPDATE tombstones t SET subject_id = n.subject_id FROM tombstone_named n
    WHERE t.subject_id = '' AND t.source_id = n.source_id;
""")

V10 = Migration(10, "p010_source_ids", """
-- A source ID names one source in the whole ledger (the contract's lookups by ID rely on
-- it; SQLite's sources.source_id is UNIQUE): keyed by subject since p008, sources cannot
-- say so themselves, and capture's check across subjects sees only what its role may
-- (row-level security) and not what another writer has yet to commit. This registry
-- says it: one row per ID, unique on the ID alone, claimed in the capture transaction
-- (a second claim waits for the first to commit, then finds it taken). It is global, as
-- meta is (a reference table when the schema is distributed by subject; sources keep a
-- foreign key to it, as a distributed table may to a reference table); forget removes
-- its rows after the sources. A database where an ID already names sources in two subjects is refused,
-- naming them: delete all but one of each (as the owner, DELETE FROM sources ...), then
-- open it again.
CREATE TABLE source_ids (
    source_id TEXT PRIMARY KEY,
    subject_id TEXT NOT NULL
);
DO $$
DECLARE shared text;
BEGIN
    SELECT string_agg(format('%s (subjects %s)', source_id, subjects), '; ') INTO shared
    FROM (SELECT source_id, string_agg(subject_id, ', ' ORDER BY subject_id) AS subjects
          FROM sources GROUP BY source_id HAVING count(*) > 1 ORDER BY source_id LIMIT 5) d;
    IF shared IS NOT NULL THEN
        RAISE EXCEPTION 'source_id: a source ID must name one source in the whole ledger, '
            'and these name sources in several subjects: %', shared
            USING ERRCODE = 'unique_violation',
                  HINT = 'Delete all but one source of each ID (DELETE FROM sources WHERE '
                         'subject_id = ... AND source_id = ...), then open the ledger again.';
    END IF;
END $$;
INSERT INTO source_ids (source_id, subject_id) SELECT source_id, subject_id FROM sources;
-- No source without its claim: a statement that bypasses capture is held to it as well.
ALTER TABLE source_ids ADD CONSTRAINT source_ids_pair UNIQUE (source_id, subject_id);
ALTER TABLE sources ADD CONSTRAINT sources_source_id_claimed FOREIGN KEY
    (source_id, subject_id) REFERENCES source_ids (source_id, subject_id);
""")

V11 = Migration(11, "p011_tombstone_order", """
-- Tombstones numbered in the order the ledger records them (seq, as SQLite's m010), the
-- order trace-ros sync resumes from: it resumed from the removal time, and a tombstone
-- recorded after a run with an older one (a forget synced in from a third ledger, a
-- robot's clock behind) was never sent. Those already there are numbered in the order
-- sync read them; the identity continues after them. Writers of tombstones take the
-- advisory lock TOMBSTONE_LOCK (storage/postgresql/forget.py) first, so numbers are
-- committed in order and a reader never sees one before a smaller one.
ALTER TABLE tombstones ADD COLUMN seq BIGINT;
UPDATE tombstones t SET seq = o.n FROM (SELECT subject_id, source_id, row_number()
    OVER (ORDER BY removed_at, source_id, subject_id) AS n FROM tombstones) o
    WHERE t.subject_id = o.subject_id AND t.source_id = o.source_id;
ALTER TABLE tombstones ALTER COLUMN seq SET NOT NULL;
ALTER TABLE tombstones ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY;
SELECT setval(pg_get_serial_sequence('tombstones', 'seq'),
              (SELECT coalesce(max(seq), 0) + 1 FROM tombstones), false);
DROP INDEX tombstones_order;
CREATE INDEX tombstones_seq ON tombstones (seq);
""")

V12 = Migration(12, "p012_vector_numbers_drawn_first", """
-- A vector's vid is drawn by its writer before the row is written (as a source's seq is,
-- storage/postgresql/settled.py), so that a query's vector index, which resumes after the
-- last vid it read, can stop at a settled one and never pass over a vector another
-- worker committed later with a smaller vid. A replaced vector takes the drawn vid too,
-- which an identity given ALWAYS refuses to an update.
ALTER TABLE vectors ALTER COLUMN vid SET GENERATED BY DEFAULT;
""")

V13 = Migration(13, "p013_source_postings", """
-- Each subject's sources per stem, in blocks of up to 128 entries (seq, the row's token
-- count, the stem's count in the text and speaker columns) packed in one bytea
-- (storage/postings.py, as SQLite's m011): lexical search reads a common stem's ~20,000
-- sources of a subject at a million sources as ~160 values by key, where the GIN index
-- gave every matching row's tsvector to unnest (issue 15: p95 412 ms at 1,000,000
-- sources). lo and hi bound a block's seqs (writers may commit out of order). Filled from
-- the sources by this package's code in the same transaction, then kept by capture and
-- forget. Keyed by subject like every table (row-level security covers it).
CREATE TABLE source_postings (
    subject_id TEXT NOT NULL,
    stem TEXT NOT NULL,
    block BIGINT NOT NULL,
    lo BIGINT NOT NULL,
    hi BIGINT NOT NULL,
    n INTEGER NOT NULL,
    postings BYTEA NOT NULL,
    PRIMARY KEY (subject_id, stem, block)
) WITH (toast_tuple_target = 8160);  -- a block (2.5 KB at most) stays in its row
""" + _confined_as_sources("source_postings"), backfill=rebuild_postings)

V14 = Migration(14, "p014_speaker_turns", """
-- How many dialogue turns each speaker of a subject has (SQLite's m012), kept by capture
-- and counted again by forget: the graph stage asks it once per subject and generation,
-- and counting it from the sources read every dialogue turn of the subject.
CREATE TABLE speaker_turns (
    subject_id TEXT NOT NULL,
    speaker TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (subject_id, speaker)
);
INSERT INTO speaker_turns (subject_id, speaker, n)
    SELECT subject_id, speaker, count(*) FROM sources
    WHERE modality = 'dialogue' AND speaker <> '' GROUP BY subject_id, speaker;
""" + _confined_as_sources("speaker_turns"))

V15 = Migration(15, "p015_vector_packs", """
-- A subject's vectors of one model and owner kind as one block (storage/vectorpack.py,
-- as SQLite's pack files), in parts of at most 32 MB (storage/postgresql/packs.py): a
-- query process's first question about a subject reads its pack instead of every vector
-- row and, for a large subject, its coarse partition with it instead of building one.
-- Derived: saved by the query side, deleted whenever the vectors epoch moves. The parts
-- are stored uncompressed (float vectors do not compress; trying costs a pass).
CREATE TABLE vector_packs (
    subject_id TEXT NOT NULL,
    model TEXT NOT NULL,
    owner_kind TEXT NOT NULL,
    part INTEGER NOT NULL,
    epoch TEXT NOT NULL,
    size BIGINT NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (subject_id, model, owner_kind, part)
);
ALTER TABLE vector_packs ALTER COLUMN data SET STORAGE EXTERNAL;
""" + _confined_as_sources("vector_packs"))

V16 = Migration(16, "p016_sessions_by_span", """
-- A session's sources are read through sources_scope_time within the session's span from
-- the sessions table (sources.session_span), as on SQLite (m015): the (subject, session)
-- index, which every capture writes to, goes.
DROP INDEX IF EXISTS sources_scope_session;
""")

MIGRATIONS: tuple[Migration, ...] = (V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13,
                                     V14, V15, V16)


def applied(conn: Any) -> list[str]:
    """Names of the applied migrations, oldest first ([] for an empty database)."""
    exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (SCHEMA_TABLE,)).fetchone()[0]
    if not exists:
        return []
    return [r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA_TABLE} ORDER BY version")]


def migrate(conn: Any) -> list[str]:
    """Apply what is pending on ``conn`` (autocommit off); returns the names applied.
    Raises ``RuntimeError`` naming migrations this code does not know (a newer build)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(f"CREATE TABLE IF NOT EXISTS {SCHEMA_TABLE} (version INTEGER PRIMARY KEY, "
                     "name TEXT NOT NULL UNIQUE, applied_at DOUBLE PRECISION NOT NULL)")
        done = applied(conn)
        unknown = [n for n in done if n not in {m.name for m in MIGRATIONS}]
        if unknown:
            raise RuntimeError(f"written by a newer trace_ros (schema {', '.join(unknown)})")
        out = []
        for m in MIGRATIONS:
            if m.name in done:
                continue
            conn.execute(m.sql)
            if m.backfill is not None:
                m.backfill(conn)
            conn.execute(f"INSERT INTO {SCHEMA_TABLE} (version, name, applied_at) "
                         "VALUES (%s, %s, %s)", (m.version, m.name, time.time()))
            out.append(m.name)
    return out
