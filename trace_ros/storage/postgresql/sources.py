"""Sources on PostgreSQL: idempotent capture from many writers, and the reads of sources.

``store_sources`` has the meaning of the SQLite engine's: same ID + same content is a
duplicate, same ID + other content or a tombstoned ID is rejected, and a source is stored
with its job in one transaction. What many concurrent writers add: the batch first locks
its subjects' ``subject_queues`` rows (in subject order, so two writers never deadlock),
so within a subject sequence numbers are assigned and committed in the same order and a
worker never sees a later source of a subject before an earlier one; ``ON CONFLICT DO
NOTHING`` settles two writers storing the same ID at once. Across subjects nothing orders
the writers: the reads that resume after a number (``sources_after``, ``marks``) stop at
a settled one (``settled``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

from ..records import FORGOTTEN, OTHER_SUBJECT, NewSource, Scope, SourceRecord, StoreResult, seen_before
from ..scopes import SOURCE_COLUMNS, scope_condition, span_condition
from .base import PgBase
from .lexindex import index_sources
from .settled import SETTLED, draw

INSERT_COLUMNS = SOURCE_COLUMNS.removeprefix("seq, ")


def scope_filter(scope: Scope, alias: str = "s", as_of_valid: float | None = None,
                 as_of_known: float | None = None) -> tuple[str, list[Any]]:
    """SQL condition and arguments restricting sources to a scope and time view
    (``storage.scopes.scope_condition`` with psycopg's placeholder)."""
    return scope_condition("%s", scope, alias, as_of_valid, as_of_known)


def session_span(alias: str, subject_id: str, session_id: str, robot_id: str | None = None
                 ) -> tuple[str, list[Any]]:
    """``storage.scopes.span_condition`` with psycopg's placeholder."""
    return span_condition("%s", alias, subject_id, session_id, robot_id)


def forgotten_ids(conn: Any, subjects: Sequence[str],
                  ids: Sequence[str]) -> set[tuple[str, str]]:
    """(subject, source ID) of the tombstones of ``ids`` in ``subjects`` and of those
    whose subject is unknown (``''``: left before migration p008), which refuse their
    ID in every subject."""
    return {(r[0], r[1]) for r in conn.execute(
        "SELECT subject_id, source_id FROM tombstones WHERE subject_id = ANY(%s) "
        "AND source_id = ANY(%s)", ([*subjects, ""], list(ids)))}


def claim_ids(conn: Any, rows: Sequence[tuple[str, str]]) -> set[str]:
    """Inside the capture transaction: claim (source ID, subject) pairs in the ledger-wide
    ``source_ids``; returns the IDs another subject holds (rows this role may not see,
    or a writer's that committed meanwhile: the claim waits for it)."""
    if not rows:
        return set()
    got = {r[0] for r in conn.execute(
        "INSERT INTO source_ids (source_id, subject_id) SELECT * FROM unnest(%s::text[], "
        "%s::text[]) ON CONFLICT (source_id) DO NOTHING RETURNING source_id",
        ([r[0] for r in rows], [r[1] for r in rows]))}
    return {r[0] for r in rows} - got


def add_speaker_turns(conn: Any, said: Sequence[tuple[str, str]]) -> None:
    """Inside the capture transaction: count new dialogue turns (subject, speaker) in
    ``speaker_turns`` (none for an empty speaker)."""
    counts: dict[tuple[str, str], int] = {}
    for key in said:
        if key[1]:
            counts[key] = counts.get(key, 0) + 1
    if counts:
        keys = sorted(counts)
        conn.execute(
            "INSERT INTO speaker_turns (subject_id, speaker, n) SELECT * FROM unnest("
            "%s::text[], %s::text[], %s::bigint[]) ON CONFLICT (subject_id, speaker) DO UPDATE "
            "SET n = speaker_turns.n + excluded.n",
            ([k[0] for k in keys], [k[1] for k in keys], [counts[k] for k in keys]))


def recount_speaker_turns(conn: Any, subjects: Sequence[str]) -> None:
    """Inside forget's transaction: the subjects' dialogue turns per speaker counted again."""
    conn.execute("DELETE FROM speaker_turns WHERE subject_id = ANY(%s)", (list(subjects),))
    conn.execute("INSERT INTO speaker_turns (subject_id, speaker, n) SELECT subject_id, speaker, "
                 "count(*) FROM sources WHERE subject_id = ANY(%s) AND modality = 'dialogue' "
                 "AND speaker <> '' GROUP BY subject_id, speaker", (list(subjects),))


class PgSourceStore(PgBase):
    """Capture and the reads of stored sources."""

    def sync(self) -> None:
        """Nothing to do: every capture commit here is durable when it returns."""

    def index_postings(self, max_sources: int = 500) -> int:
        """Nothing to do: the postings are written in the capture transaction here. Many
        writers commit at once, out of their sequence numbers' order, so a mark like
        SQLite's could pass over a source a transaction still open commits later."""
        return 0

    def store_sources(self, items: Iterable[NewSource], now: float | None = None, *,
                      durable: bool = True) -> list[StoreResult]:
        """Store sources and their projection jobs in ONE transaction (group commit);
        returns once committed, so every ``accepted`` result is durable (``durable`` is
        the contract's: a PostgreSQL commit is always waited for)."""
        batch = list(items)
        if not batch:
            return []
        now = time.time() if now is None else now
        ids = list(dict.fromkeys(item.source_id for item in batch))
        subjects = sorted({item.scope.subject_id for item in batch})
        with self.write() as conn:
            conn.execute("INSERT INTO subject_queues (subject_id) SELECT unnest(%s::text[]) "
                         "ON CONFLICT DO NOTHING", (subjects,))
            conn.execute("SELECT subject_id FROM subject_queues WHERE subject_id = ANY(%s) "
                         "ORDER BY subject_id FOR UPDATE", (subjects,))
            # A source ID names one source in the whole ledger (SQLite's meaning, and
            # what the contract's lookups by ID rely on): checked across the subjects
            # this role sees, then claimed in ``source_ids`` (migration p010).
            known = {r[0]: (int(r[1]), r[2], r[3]) for r in conn.execute(
                "SELECT source_id, seq, content_hash, subject_id FROM sources "
                "WHERE source_id = ANY(%s)", (ids,))}
            forgotten = forgotten_ids(conn, subjects, ids)
            results: list[StoreResult | None] = []
            new_rows: list[tuple[Any, ...]] = []
            pending: dict[str, tuple[str, str]] = {}
            for item in batch:
                sid = item.source_id
                seen = (seen_before(item, known[sid][1:], known[sid][0]) if sid in known
                        else seen_before(item, pending.get(sid)))
                if seen is not None:
                    results.append(seen)
                    continue
                if (item.scope.subject_id, sid) in forgotten or ("", sid) in forgotten:
                    results.append(StoreResult(sid, "rejected", "source_id", FORGOTTEN))
                    continue
                sc = item.scope
                pending[sid] = (item.content_hash, sc.subject_id)
                results.append(None)
                new_rows.append((sid, sc.subject_id, sc.robot_id, sc.session_id, item.modality,
                                 item.speaker, item.text, item.label, item.confidence,
                                 json.dumps(item.pose) if item.pose else None, item.payload_json,
                                 item.source_time, int(item.time_from_receipt), now,
                                 item.content_hash))
            taken = claim_ids(conn, [(r[0], r[1]) for r in new_rows])
            new_rows = [r for r in new_rows if r[0] not in taken]
            seqs = self._insert_sources(conn, new_rows, now) if new_rows else {}
        out: list[StoreResult] = []
        for item, res in zip(batch, results, strict=True):
            sid = item.source_id
            if sid in taken and (res is None or res.sequence == 0):  # this batch's repeats too
                res = StoreResult(sid, "rejected", "source_id", OTHER_SUBJECT)
            elif res is None:
                res = (StoreResult(sid, "accepted", sequence=seqs[sid]) if sid in seqs else
                       StoreResult(sid, "duplicate", sequence=0))
            elif res.status == "duplicate" and res.sequence == 0 and sid in seqs:
                res = StoreResult(sid, "duplicate", sequence=seqs[sid])
            out.append(res)
        return out

    @staticmethod
    def _insert_sources(conn: Any, rows: list[tuple[Any, ...]], now: float) -> dict[str, int]:
        """Inside the capture transaction: insert rows (numbered in order, drawn first and
        inserted in a subtransaction: ``settled``), their jobs and session spans; returns
        the new sequence number of each source ID."""
        columns = [draw(conn, "sources", "seq", len(rows)), *zip(*rows, strict=True)]
        types = ("bigint", "text", "text", "text", "text", "text", "text", "text", "text",
                 "double precision", "text", "text", "double precision", "integer",
                 "double precision", "text")
        unnest = ", ".join(f"%s::{t}[]" for t in types)
        with conn.pipeline(), conn.transaction():  # one round trip with its savepoint
            cur = conn.execute(
                f"INSERT INTO sources (seq, {INSERT_COLUMNS}) OVERRIDING SYSTEM VALUE "
                f"SELECT * FROM unnest({unnest}) ON CONFLICT (subject_id, source_id) "
                "DO NOTHING RETURNING source_id, seq, subject_id",
                [list(c) for c in columns])
        new = cur.fetchall()
        seq_of = {r[0]: int(r[1]) for r in new}
        added = sorted((int(r[1]), r[2]) for r in new)
        subjects = sorted({r[2] for r in new})
        index_sources(conn, [(seq_of[r[0]], r[1], r[5], r[6]) for r in rows if r[0] in seq_of])
        add_speaker_turns(conn, [(r[1], r[5]) for r in rows if r[0] in seq_of and r[4] == "dialogue"])
        conn.execute("INSERT INTO jobs (subject_id, source_seq, created_at, updated_at) "
                     "SELECT u.subject_id, u.seq, %s, %s FROM unnest(%s::bigint[], %s::text[]) "
                     "AS u(seq, subject_id) ORDER BY u.seq",
                     (now, now, [q for q, _ in added], [s for _, s in added]))
        conn.execute(
            "INSERT INTO sessions (subject_id, robot_id, session_id, start_time, end_time, "
            "n_sources) SELECT subject_id, robot_id, session_id, min(source_time), "
            "max(source_time), count(*) FROM sources WHERE subject_id = ANY(%s) "
            "AND seq = ANY(%s) AND session_id <> '' GROUP BY subject_id, robot_id, session_id "
            "ON CONFLICT (subject_id, robot_id, session_id) DO UPDATE SET "
            "start_time = least(sessions.start_time, excluded.start_time), "
            "end_time = greatest(sessions.end_time, excluded.end_time), "
            "n_sources = sessions.n_sources + excluded.n_sources",
            (subjects, [q for q, _ in added]))
        return seq_of

    @staticmethod
    def sources_by_seq_in(conn: Any, subjects: Sequence[str],
                          seqs: Sequence[int]) -> dict[int, SourceRecord]:
        """Inside a transaction: sources by sequence number, of the given subjects."""
        if not seqs:
            return {}
        rows = conn.execute(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE subject_id = ANY(%s) "
                            "AND seq = ANY(%s)", (list(subjects), list(seqs))).fetchall()
        return {int(r[0]): SourceRecord.from_row(r) for r in rows}

    def get_sources(self, source_ids: Sequence[str]) -> list[SourceRecord]:
        """Sources by ID, in the order asked (missing IDs are skipped)."""
        if not source_ids:
            return []
        rows = self.query(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE source_id = ANY(%s)",
                          (list(source_ids),))
        by_id = {r[1]: SourceRecord.from_row(r) for r in rows}
        return [by_id[s] for s in source_ids if s in by_id]

    def sources_after(self, after_seq: int, limit: int,
                      subject_id: str | None = None) -> list[SourceRecord]:
        """Up to ``limit`` sources stored after ``after_seq``, in sequence order, up to
        the largest settled number (``settled``): a source another writer numbered
        earlier but has not committed yet is never passed over."""
        cond, args = ("subject_id = %s AND ", [subject_id]) if subject_id else ("", [])
        return [SourceRecord.from_row(r) for r in self.query(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE {cond}seq > %s AND seq <= ("
            f"SELECT seq FROM sources WHERE {cond}seq > %s AND {SETTLED} "
            "ORDER BY seq DESC LIMIT 1) ORDER BY seq LIMIT %s",
            [*args, int(after_seq), *args, int(after_seq), int(limit)])]

    def get_sources_by_seq(self, seqs: Sequence[int]) -> dict[int, SourceRecord]:
        if not seqs:
            return {}
        rows = self.query(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE seq = ANY(%s)",
                          (list(seqs),))
        return {int(r[0]): SourceRecord.from_row(r) for r in rows}

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
        return int(self.query("SELECT count(*) FROM sources WHERE subject_id = %s",
                              (subject_id,))[0][0])

    def seqs_of(self, source_ids: Sequence[str]) -> dict[str, int]:
        """Sequence numbers of the given source IDs (missing ones left out)."""
        if not source_ids:
            return {}
        return {r[0]: int(r[1]) for r in self.query(
            "SELECT source_id, seq FROM sources WHERE source_id = ANY(%s)", (list(source_ids),))}

    def session_before(self, subject_id: str, robot_id: str, session_id: str, seq: int,
                       n: int) -> list[SourceRecord]:
        """The last ``n`` sources of the session stored before ``seq``, oldest first."""
        span, span_args = session_span("s", subject_id, session_id, robot_id)
        rows = self.query(
            f"SELECT {SOURCE_COLUMNS} FROM sources s WHERE s.subject_id = %s AND {span} "
            "AND s.session_id = %s AND s.robot_id = %s AND s.seq < %s "
            "ORDER BY s.seq DESC LIMIT %s",
            (subject_id, *span_args, session_id, robot_id, int(seq), int(n)))
        return [SourceRecord.from_row(r) for r in reversed(rows)]

    def source_counts(self) -> dict[str, int]:
        """How many rows each source ID has (a crash test expects exactly one)."""
        return {sid: int(n) for sid, n in self.query(
            "SELECT source_id, count(*) FROM sources GROUP BY source_id")}
