"""The PostgreSQL ledger is shaped for distribution by subject (DESIGN §8, issue 15 point 4):
every table carries ``subject_id`` in its primary key and in every unique constraint, and
every statement in ``trace_ros/storage/postgresql`` that touches a table filters or sets
``subject_id`` — so the schema can be sharded by subject (e.g. Citus) without rewriting
queries, and no statement reaches across subjects by accident.

Three tables are global on purpose and exempt:

- ``schema_version``: which migrations the database has; one per database, read and
  written only by ``migrate`` under its advisory lock — nothing in it belongs to a subject.
- ``meta``: the ledger's generation (the one counter every query node reloads on; a
  per-subject counter would change what "one generation" means), the vector indexes'
  epoch and ``trace-ros sync``'s watermarks per source ledger. In a sharded deployment it
  is a reference table.
- ``source_ids``: one row per source ID, unique on the ID alone (migration p010), so a
  source ID names one source in the whole ledger — what no subject-keyed constraint can
  say, and what capture's check cannot see across a confined role's subjects or another
  writer's open transaction. ``sources`` keep a foreign key to it; in a sharded
  deployment it is a reference table.

Where the schema or a statement does not have the property yet, ``KNOWN_GAPS`` says so,
exactly: the tests fail on any new gap, and on a gap that was closed (remove it from the
list). The static check reads every SQL string literal (f-strings with their holes filled
from module constants and from ``scope_filter``-style helpers, which a test below shows
always return a subject condition) and is itself tested on bad statements.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from trace_ros.storage.postgresql import migrations

PACKAGE = Path(migrations.__file__).parent
GLOBAL_TABLES = {"meta", "source_ids", migrations.SCHEMA_TABLE}
# Helpers whose returned SQL condition always starts with the subject (tested below).
SUBJECT_FILTERS = {"scope_filter", "_perception_filter"}
DML = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b", re.I)
TOUCHES = re.compile(r"\b(?:FROM|JOIN|UPDATE|INTO)\s+([a-z_][a-z0-9_]*)", re.I)
CLAUSE = re.compile(r"\b(?:WHERE|ON|INTO|SET)\b", re.I)
# What names columns without filtering by them: results and orderings, to the next clause.
NOT_A_FILTER = re.compile(r"\b(?:RETURNING|ORDER BY|GROUP BY|PARTITION BY)\b[^()]*?"
                          r"(?=\b(?:LIMIT|FOR|WINDOW|ON CONFLICT)\b|\)|$)", re.I)

# Gaps in the schema: table -> what is missing. None left: migration p008 put the
# subject into the keys of sources, jobs, vectors, audit, audit_sources and tombstones.
SCHEMA_GAPS: dict[str, str] = {}
# Statements that touch a subject's table without filtering or setting subject_id:
# "module.function" -> how many. Each group says why it stays.
STATEMENT_GAPS = {
    # Lookups by source ID or sequence number that the contract gives no subject (a
    # source ID names one source in the whole ledger; capture checks that across
    # subjects, and forget by IDs alone finds their subjects first — every statement
    # after that one is by subject; lifting an unheld ID's tombstone without a scope).
    "sources.get_sources": 1,
    "sources.get_sources_by_seq": 1,
    "sources.seqs_of": 1,
    "sources.store_sources": 1,
    "forget.forget": 1,
    "forget._lift_tombstones": 1,
    # Fleet-wide on purpose: counts and statistics of the whole ledger, sync's sweeps
    # (sources of all subjects when none is given, every tombstone), the job queue's
    # cross-subject sweeps (leases past their last attempt, a dead worker's leases,
    # which workers hold jobs) and the embedding model of the whole ledger.
    "sources.count_sources": 1,
    "sources.source_counts": 1,
    "sources.sources_after": 1,
    "forget.tombstones_recorded_after": 1,
    "jobs.claim_jobs": 1,
    "jobs.expire_leases": 1,
    "jobs.job_holders": 1,
    "jobs.job_counts": 1,
    "vectors.vector_models": 1,
    "vectors.drop_other_vectors": 1,
    # Every vector pack the role may see, when the ledger-wide vectors epoch moves (forget,
    # rebuild, a model change): a pack of the old epoch is never loaded again.
    "packs.drop_packs": 1,
    # The largest settled source number of the whole ledger (storage/postgresql/settled):
    # the contract's marks() names no subject.
    "base.marks": 1,
    # The graph, search and maintenance port: fleet-wide reads and sweeps (all subjects
    # when none is given), statements by fact/edge/source ID that the contract gives no
    # subject (BM25's statistics are each subject's own since issue 15).
    "explore.subject_summaries": 2,
    "forget.forget_derived": 1,
    "graph_reads.graph_counts": 6,
    "graph_reads.graph_snapshot": 5,
    "graph_writes.clear_all_graph": 7,
    "graph_writes.delete_edges": 1,
    "graph_writes.delete_facts": 4,
    "graph_writes.fact_edges": 1,
    "graph_writes.facts_of_sources": 1,
    "graph_writes.origins": 1,
    "graph_writes.set_edges_invalidated": 1,
    "graph_writes.set_fact_state": 1,
    "graph_writes.source_vector": 1,
    "maintenance.reset_derived": 3,
    "maintenance.stats": 4,
    "rows.raw_fact_rows": 1,
    "search._rebuild_source_lex": 3,
    # The source postings built again from every source (migration p013, rebuild).
    "postings.clear_postings": 1,
    "postings.rebuild_postings": 1,
}


# -- the schema -----------------------------------------------------------------------------

def key_violations(conn: Any) -> dict[str, str]:
    """Table -> what keeps ``subject_id`` out of its keys, for every table of the current
    schema but the global ones."""
    out: dict[str, str] = {}
    tables = [r[0] for r in conn.execute(
        "SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace "
        "AND relkind IN ('r', 'p') ORDER BY relname")]
    for table in tables:
        if table in GLOBAL_TABLES:
            continue
        has = conn.execute("SELECT count(*) FROM information_schema.columns WHERE "
                           "table_schema = current_schema() AND table_name = %s "
                           "AND column_name = 'subject_id'", (table,)).fetchone()[0]
        if not has:
            out[table] = "no subject_id column"
            continue
        # Primary key, unique constraints and unique indexes alike.
        keys = conn.execute(
            "SELECT i.indisprimary, ARRAY(SELECT a.attname FROM unnest(i.indkey) k(n) "
            "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n) "
            "FROM pg_index i WHERE i.indrelid = %s::regclass AND i.indisunique "
            "ORDER BY i.indisprimary DESC, i.indexrelid", (table,)).fetchall()
        bad = [f"{'primary key' if primary else 'unique'} ({', '.join(cols)})"
               for primary, cols in keys if "subject_id" not in cols]
        if not any(primary for primary, _ in keys):
            bad.insert(0, "no primary key")
        if bad:
            out[table] = "; ".join(bad)
    return out


@pytest.fixture
def pg(open_engine: Callable[[str], Any]) -> Iterator[Any]:
    import psycopg

    from trace_ros.storage.postgresql.base import conninfo

    led = open_engine("postgresql")
    with psycopg.connect(**conninfo(led.url), autocommit=True) as conn:
        yield conn


def test_every_table_keys_on_the_subject(pg: Any) -> None:
    assert key_violations(pg) == SCHEMA_GAPS


def test_the_key_check_flags_a_table_keyed_without_the_subject(pg: Any) -> None:
    pg.execute("CREATE TABLE good_t (subject_id text, k int, u text, "
               "PRIMARY KEY (subject_id, k), UNIQUE (u, subject_id))")
    pg.execute("CREATE TABLE bad_t (k int PRIMARY KEY, subject_id text, u text UNIQUE)")
    pg.execute("CREATE TABLE nokey_t (subject_id text)")
    pg.execute("CREATE TABLE bare_t (k int PRIMARY KEY)")
    found = key_violations(pg)
    assert "good_t" not in found
    assert found["bad_t"] == "primary key (k); unique (u)"
    assert found["nokey_t"] == "no primary key"
    assert found["bare_t"] == "no subject_id column"


OLD_ROWS = """
INSERT INTO sources (source_id, subject_id, robot_id, session_id, modality, speaker, text,
    source_time, known_time, content_hash) VALUES
    ('a-0', 'ann', 'r1', 's1', 'dialogue', 'Ann', 'I like tea', 1, 1, 'h0'),
    ('b-0', 'bob', 'r1', 's1', 'dialogue', 'Bob', 'I like coffee', 2, 2, 'h1');
INSERT INTO jobs (subject_id, source_seq, created_at, updated_at)
    SELECT subject_id, seq, 1, 1 FROM sources ORDER BY seq;
INSERT INTO subject_queues (subject_id) VALUES ('ann'), ('bob');
INSERT INTO source_lex (subject_id, seq, lex, n_tokens)
    SELECT subject_id, seq, to_tsvector('simple', text), 3 FROM sources;
INSERT INTO lex_stats (subject_id, kind, n_docs, n_tokens) VALUES ('ann', 'source', 1, 3),
    ('bob', 'source', 1, 3);
INSERT INTO vectors (owner_kind, owner_id, subject_id, model, dim, vec)
    VALUES ('source', 'a-0', 'ann', 'm', 2, '[1, 0]');
INSERT INTO audit (query_id, asked_at, subject_id, scope, question, plan, routes,
    evidence_ids, cited_ids, answer, status, reader, timings) VALUES (7, 1, 'ann', '{}',
    'q', '{}', '{}', '["a-0"]', '["a-0"]', 'a', 'answered', 'extractive', '{}');
INSERT INTO audit_sources (query_id, source_id, role) VALUES (7, 'a-0', 'shown');
INSERT INTO tombstones (source_id, removed_at) VALUES ('c-0', 5);
"""


def test_p008_keys_a_database_that_has_rows(fresh_pg_url: Any,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A ledger written before p008 (rows in every table it changes) is migrated in
    place: rows kept, audit links given their audit row's subject, an old tombstone
    (its subject unknown) still refusing its ID in every subject."""
    import psycopg

    from trace_ros.capture import Event, ingest
    from trace_ros.config import CaptureConfig
    from trace_ros.storage.postgresql import PgLedger
    from trace_ros.storage.postgresql.base import conninfo
    from trace_ros.storage.records import Scope

    before = [m for m in migrations.MIGRATIONS if m.version < 8]
    with psycopg.connect(**conninfo(fresh_pg_url)) as conn:
        with monkeypatch.context() as patch:
            patch.setattr(migrations, "MIGRATIONS", tuple(before))
            migrations.migrate(conn)
        with conn.transaction():
            conn.execute(OLD_ROWS)
    with PgLedger(fresh_pg_url) as led:
        assert led.query("SELECT name FROM schema_version WHERE version = 8") == \
            [("p008_subject_keys",)]
        with psycopg.connect(**conninfo(fresh_pg_url), autocommit=True) as conn:
            assert key_violations(conn) == {}
        assert led.query("SELECT subject_id, query_id, source_id FROM audit_sources") == \
            [("ann", 7, "a-0")]
        assert led.tombstones_recorded_after(0, 10) == [("c-0", 5.0, "", 1)]
        assert [r.source_id for r in led.get_sources(["a-0", "b-0"])] == ["a-0", "b-0"]
        assert led.integrity_check() == "ok"
        refused = ingest(led, [Event("dialogue", Scope(s, "r1", "s1"), "hi", "Ann", stamp=9.0,
                                     source_id="c-0") for s in ("ann", "dave")],
                         CaptureConfig())
        assert [r.status for r in refused] == ["rejected", "rejected"]
        jobs = led.claim_jobs("w", 10, 30.0, 3)
        assert sorted(j.source.source_id for j in jobs) == ["a-0", "b-0"]
        assert led.forget(source_ids=["a-0"]) == ["a-0"]
        assert led.query("SELECT count(*) FROM audit")[0][0] == 0
        assert led.query("SELECT count(*) FROM vectors")[0][0] == 0
        assert led.query("SELECT s.source_id FROM jobs j JOIN sources s ON s.subject_id = "
                         "j.subject_id AND s.seq = j.source_seq") == [("b-0",)]
        assert [(t.source_id, t.subject_id) for t in led.tombstones_recorded_after(0, 10)] == \
            [("c-0", ""), ("a-0", "ann")]
        assert led.count_sources() == 1


# -- the statements -------------------------------------------------------------------------

def ledger_tables() -> set[str]:
    """Every table the migrations create, but the global ones."""
    names = {m.group(1) for mig in migrations.MIGRATIONS
             for m in re.finditer(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)", mig.sql)}
    return names - GLOBAL_TABLES


def statements(source: str, constants: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(function name, statement text) of every SQL DML string literal in ``source``:
    f-string holes naming a module constant take its text, holes built from a
    ``SUBJECT_FILTERS`` helper's result read ``subject_id = %s``, others stay ``{…}``."""
    tree = ast.parse(source)
    skip = {id(n.body[0].value) for n in ast.walk(tree)  # docstrings
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr)}
    skip |= {id(part) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)
             for part in n.values}  # an f-string's pieces are read with it
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        filtered = _subject_filter_names(func)
        for node in ast.walk(func):
            if id(node) in skip or not isinstance(node, (ast.Constant, ast.JoinedStr)):
                continue
            text = _text(node, constants, filtered)
            if text is not None and DML.match(text):
                yield func.name, text


def _subject_filter_names(func: ast.FunctionDef) -> set[str]:
    """Local names assigned (alone or in a tuple) from a call to a subject filter."""
    out: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                getattr(node.value.func, "id", None) in SUBJECT_FILTERS:
            for target in node.targets:
                elts = target.elts if isinstance(target, ast.Tuple) else [target]
                out.update(e.id for e in elts[:1] if isinstance(e, ast.Name))
    return out


def _text(node: ast.AST, constants: dict[str, Any], filtered: set[str]) -> str | None:
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    parts = []
    for part in node.values:  # type: ignore[attr-defined]
        if isinstance(part, ast.Constant):
            parts.append(str(part.value))
            continue
        expr = part.value
        names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        if isinstance(expr, ast.Name) and isinstance(constants.get(expr.id), str):
            parts.append(constants[expr.id])
        elif names & filtered:
            parts.append("subject_id = %s")
        else:
            parts.append("{" + ast.unparse(expr) + "}")
    return "".join(parts)


def unfiltered(text: str, tables: set[str]) -> bool:
    """True when ``text`` touches a subject's table but never names ``subject_id`` in a
    WHERE/ON condition, an INSERT's column list or a SET (a select list does not count)."""
    if not {t.lower() for t in TOUCHES.findall(text)} & tables:
        return False
    text = NOT_A_FILTER.sub(" ", text)
    first = CLAUSE.search(text)
    return first is None or "subject_id" not in text[first.start():]


def statement_violations(folder: Path = PACKAGE) -> dict[str, int]:
    """"module.function" -> statements touching a subject's table without its subject."""
    tables = ledger_tables()
    out: dict[str, int] = {}
    for path in sorted(folder.glob("*.py")):
        if path.stem in ("migrations", "roles"):  # DDL and the catalogue, not the ledger's rows
            continue
        module = importlib.import_module(f"trace_ros.storage.postgresql.{path.stem}")
        for func, text in statements(path.read_text(), vars(module)):
            if unfiltered(text, tables):
                key = f"{path.stem}.{func}"
                out[key] = out.get(key, 0) + 1
    return out


def test_every_statement_filters_or_sets_the_subject() -> None:
    assert statement_violations() == STATEMENT_GAPS


BAD_AND_GOOD = '''
COLS = "seq, text"

def bad_lookup(conn, sid):
    return conn.execute("SELECT text FROM sources WHERE source_id = %s", (sid,))

def bad_select_list(conn):
    return conn.execute(f"SELECT subject_id, {COLS} FROM sources ORDER BY seq")

def bad_hole(conn, where):
    return conn.execute(f"DELETE FROM jobs WHERE {where}")

def bad_returning(conn, sid):
    return conn.execute("DELETE FROM sources WHERE source_id = %s RETURNING subject_id", (sid,))

def bad_order(conn, ids):
    return conn.execute("SELECT text FROM vectors WHERE owner_id = ANY(%s) "
                        "ORDER BY subject_id LIMIT 5", (ids,))

def good_filter(conn, subject):
    return conn.execute(f"SELECT {COLS} FROM sources WHERE subject_id = %s", (subject,))

def good_scope(conn, scope):
    cond, args = scope_filter(scope)
    return conn.execute(f"UPDATE sessions SET n_sources = 0 WHERE {cond}", args)

def good_insert(conn):
    conn.execute("INSERT INTO tombstones (subject_id, source_id) VALUES (%s, %s)", ("a", "b"))

def global_meta(conn):
    return conn.execute("SELECT value FROM meta WHERE key = 'generation'")
'''


def test_the_statement_check_flags_statements_without_the_subject() -> None:
    tables = ledger_tables()
    flagged = {func for func, text in statements(BAD_AND_GOOD, {"COLS": "seq, text"})
               if unfiltered(text, tables)}
    assert flagged == {"bad_lookup", "bad_select_list", "bad_hole", "bad_returning",
                       "bad_order"}


def test_the_subject_filters_always_name_the_subject() -> None:
    from trace_ros.storage.postgresql.sources import scope_filter
    from trace_ros.storage.postgresql.spatial import _perception_filter
    from trace_ros.storage.records import Scope

    for scope in (Scope("ann"), Scope("ann", "r1", "s1")):
        cond, args = scope_filter(scope, "s", 1.0, 2.0)
        assert cond.startswith("s.subject_id = %s") and args[0] == "ann"
        conds, args = _perception_filter(scope, 0.0, 5.0, None, None)
        assert conds[0].startswith("s.subject_id = %s") and args[0] == "ann"
