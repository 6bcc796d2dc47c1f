"""The ledger contract: every operation the layers above the storage package use.

Capture, consolidation, the resolver, query, the explorer, the CLI and the benchmarks talk
to a ledger only through these methods; an engine (``storage/sqlite/`` today, PostgreSQL
for a fleet next) implements all of them with the same meaning. The contract is named
after what the layers need, not after SQL. Two kinds of member:

- methods on the ledger (``ledger.store_sources(...)``): each manages its own transaction
  or reads on the ledger's connection (inside ``read()`` several reads see one generation);
- static *transaction statements*: they take the handle that ``write()`` or ``read()``
  yields (``Tx``; a ``sqlite3.Connection`` for SQLite, a ``psycopg.Connection`` for
  PostgreSQL) and run inside the caller's transaction (a consolidation batch, a forget).
  The evidence graph's are grouped in ``GraphStatements``, reached as ``ledger.graph``
  (or ``storage.graph_of(tx)`` where only the handle is at hand):
  ``ledger.graph.insert_facts(tx, facts)``; callers never name an engine's class.

``query`` runs engine SQL directly; it is for diagnostics and tests, and code above the
storage package should not need it. ``test/engine/test_storage_contract.py`` checks that
each engine's ledger (and its ``graph``) has every member here with the same parameters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol, Self, runtime_checkable

import numpy as np

from ..facts import Edge, Fact
from .records import (
    AuditRecord,
    Job,
    NewSource,
    Scope,
    SessionRow,
    SourceRecord,
    StoreResult,
    Tombstone,
    TopicRow,
)
from .vectorpack import VectorPack

# An engine's transaction handle, yielded by ``write()`` and ``read()``.
Tx = Any


@runtime_checkable
class GraphStatements(Protocol):
    """The evidence graph's *transaction statements* of one engine: static methods that take
    the handle ``write()`` or ``read()`` yields and run inside the caller's transaction (a
    consolidation batch, a forget). ``ledger.graph`` is this namespace, and
    ``storage.graph_of(tx)`` finds it from a handle alone."""

    # -- evidence graph, inside a transaction ------------------------------------------------

    @staticmethod
    def insert_facts(conn: Tx, facts: Sequence[Fact]) -> None:
        """Store new facts with their provenance."""

    @staticmethod
    def insert_edges(conn: Tx, subject_id: str,
                     edges: Iterable[tuple[str, str, str, float, str, float]],
                     generation: int) -> int:
        """Insert (type, src, dst, confidence, justification, created_at) rows; an edge that
        exists already (same type, src, dst) is kept as it is. Returns rows added."""

    @staticmethod
    def delete_edges(conn: Tx, edge_ids: Sequence[int]) -> None:
        """Delete edges by ID."""

    @staticmethod
    def set_fact_state(conn: Tx,
                       rows: Sequence[tuple[str, float | None, float | None, str, float]],
                       generation: int) -> int:
        """Write (fact_id, valid_to, known_to, status, validity) where they changed; the fact's
        generation moves on so incremental readers see it. Returns changes."""

    @staticmethod
    def set_edges_invalidated(conn: Tx, src: str, types: Sequence[str],
                              at: float | None, generation: int) -> None:
        """Set ``invalidated_at`` on the edges of ``types`` leaving ``src``."""

    @staticmethod
    def delete_facts(conn: Tx, fact_ids: Sequence[str]) -> set[str]:
        """Delete facts, their provenance and every edge touching them. Returns the facts at the
        other end of deleted fact-to-fact edges (their state must be recomputed)."""

    @staticmethod
    def facts_of_sources(conn: Tx, source_ids: Sequence[str]) -> list[str]:
        """IDs of facts whose provenance lies wholly within ``source_ids``."""

    @staticmethod
    def mark_graph_changed(conn: Tx) -> None:
        """Rows were deleted: in-memory graphs must reload fully, not incrementally."""

    @staticmethod
    def clear_subject_graph(conn: Tx, subject_id: str) -> None:
        """Drop everything derived in the graph for one subject (facts, edges, topics, session
        vectors and topic assignments, hierarchy bookkeeping)."""

    @staticmethod
    def clear_all_graph(conn: Tx) -> None:
        """Drop every fact, edge, topic and session embedding (rebuild recreates them)."""

    @staticmethod
    def facts_by_ids(conn: Tx, fact_ids: Sequence[str]) -> list[Fact]:
        """Facts by ID, with their provenance."""

    @staticmethod
    def facts_by_key(conn: Tx, subject_id: str, entity: str,
                     relation: str) -> list[Fact]:
        """Facts of one key; ``relation`` ending in ':' matches every qualified form."""

    @staticmethod
    def facts_of_seq(conn: Tx, source_seq: int) -> list[Fact]:
        """The facts projected from one source."""

    @staticmethod
    def facts_near_time(conn: Tx, subject_id: str, t: float, later: bool,
                        limit: int, exclude_seq: int) -> list[Fact]:
        """The ``limit`` facts with resolved anchors nearest before (or after) ``t``."""

    @staticmethod
    def facts_matching_text(conn: Tx, subject_id: str, match: str,
                            limit: int, before_seq: int) -> list[Fact]:
        """Facts whose description matches an FTS5 query, best BM25 first, from sources before
        ``before_seq`` (only what a sequential projection had seen)."""

    @staticmethod
    def fact_edges(conn: Tx, fact_ids: Sequence[str], types: Sequence[str],
                   direction: str = "both") -> list[Edge]:
        """Edges of the given types leaving (``out``), entering (``in``) or touching (``both``)
        the facts."""

    @staticmethod
    def generation_now(conn: Tx) -> int:
        """The generation visible in this transaction."""

    @staticmethod
    def origins(conn: Tx, seqs: Sequence[int]) -> dict[int, tuple[str, str]]:
        """(modality, speaker) of sources by sequence number."""

    @staticmethod
    def speakers_first_seen(conn: Tx, subject_id: str) -> dict[str, int]:
        """Each speaker of a subject with the first sequence number it spoke at."""

    @staticmethod
    def source_vector(conn: Tx, source_id: str) -> np.ndarray | None:
        """A source's stored vector (the first model's), or None."""

    @staticmethod
    def speaker_statements(conn: Tx, subject_id: str, speaker: str,
                           before_seq: int, after_seq: int = 0
                           ) -> list[tuple[int, str, str, np.ndarray]]:
        """(seq, source_id, text, vector) of one speaker's dialogue turns in a subject with
        ``after_seq`` < seq < ``before_seq`` and a stored source vector, by seq."""

    @staticmethod
    def get_meta(conn: Tx, key: str) -> str | None:
        """A ``meta`` value inside a transaction, or None."""

    @staticmethod
    def set_meta(conn: Tx, key: str, value: str) -> None:
        """Set a ``meta`` value inside a transaction."""

    # -- sessions and topics, inside a transaction -------------------------------------------

    @staticmethod
    def session_turns(conn: Tx, key: tuple[str, str, str], max_seq: int
                      ) -> list[tuple[int, str, str, str]]:
        """(seq, speaker, modality, text) of one session's sources up to ``max_seq``, in sequence
        order; ``key`` is (subject, robot, session)."""

    @staticmethod
    def session_field(conn: Tx, key: tuple[str, str, str], column: str) -> Any:
        """One column (``start_time`` or ``topic_id``) of a session, or None."""

    @staticmethod
    def session_rows(conn: Tx, subject_id: str) -> list[SessionRow]:
        """A subject's sessions in chronological order (start time, then ID)."""

    @staticmethod
    def session_source_mean(conn: Tx, subject_id: str, robot_id: str,
                            session_id: str, max_seq: int | None = None
                            ) -> tuple[np.ndarray | None, int, str]:
        """Mean of the session's source vectors (of one model), with how many and which model.
        ``max_seq`` limits it to sources up to that sequence number."""

    @staticmethod
    def session_vectors(conn: Tx, subject_id: str,
                        vertices: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """Stored session embeddings of a subject (or of the given session vertices)."""

    @staticmethod
    def sessions_with_vectors(conn: Tx, subject_id: str) -> set[str]:
        """Session vertices of a subject that have an embedding."""

    @staticmethod
    def put_session_vector(conn: Tx, subject_id: str, vertex: str,
                           model: str, vec: np.ndarray) -> None:
        """Store (replace) a session vertex's embedding."""

    @staticmethod
    def topic_rows(conn: Tx, subject_id: str) -> list[TopicRow]:
        """A subject's topics, in topic order."""

    @staticmethod
    def replace_topics(conn: Tx, subject_id: str,
                       topics: Sequence[tuple[int, str, np.ndarray | None, int]]) -> None:
        """Replace a subject's topics with (topic_id, label, centroid, n_sessions) rows."""

    @staticmethod
    def set_session_topics(conn: Tx, subject_id: str,
                           rows: Sequence[tuple[str, str, int | None]]) -> None:
        """Set (robot_id, session_id, topic_id) assignments."""

    @staticmethod
    def member_edges(conn: Tx, subject_id: str, type_: str,
                     src_prefix: str) -> list[Edge]:
        """A subject's edges of one type whose source starts with ``src_prefix``."""

    @staticmethod
    def reset_hierarchy(conn: Tx, subject_id: str) -> None:
        """Drop a subject's topics, session embeddings and session/topic edges."""


@runtime_checkable
class LedgerContract(Protocol):
    """What a ledger engine provides (see the module docstring)."""

    # -- connection, transactions, generation ------------------------------------------------

    def close(self) -> None:
        """Release the connection (the ledger cannot be used afterwards)."""

    def __enter__(self) -> Self:
        """The ledger itself (``with`` closes it)."""

    def __exit__(self, *exc: object) -> None:
        """Close the ledger."""

    def write(self) -> AbstractContextManager[Tx]:
        """One write transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), rolled back on error."""

    def read(self) -> AbstractContextManager[Tx]:
        """A consistent snapshot of ONE generation for several reads."""

    @staticmethod
    def generation_of(conn: Tx) -> int:
        """The generation visible to ``conn`` (inside ``read()`` or ``write()``)."""

    @staticmethod
    def unavailable(exc: BaseException) -> bool:
        """Whether ``exc`` (raised by one of this ledger's operations) says the ledger could
        not be reached or was busy: a passing condition (a server restarting, a lock held
        too long), not a fault of the work that was being written. A consolidation batch
        cut by it is put back without spending an attempt."""

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of one engine SQL statement (diagnostics and tests only; see the module docstring)."""

    def generation(self) -> int:
        """The committed generation (bumped by every consolidation batch and forget)."""

    @staticmethod
    def bump_generation(conn: Tx) -> int:
        """Inside a write transaction: advance the generation readers reload on."""

    def marks(self) -> tuple[int, int]:
        """(generation, ``last_seq()``), in one read: what a query's caches check to know
        whether they are still current."""

    def meta_value(self, key: str) -> str | None:
        """A value of the ledger's key-value ``meta`` table, or None."""

    def put_meta_value(self, key: str, value: str) -> None:
        """Set ``meta[key]`` in a transaction of its own (e.g. a sync watermark)."""

    def last_seq(self) -> int:
        """The highest sequence number up to which every source is stored (0 for an empty
        ledger): each source numbered at or below it is visible or never will be. With
        one writer, the highest ever stored; with many, a number another writer holds
        uncommitted stays above it until that writer ends."""

    def checkpoint(self) -> bool:
        """Copy the WAL into the main file and truncate it, so the -wal file keeps no copy of
        deleted rows. Returns False if a reader kept it from completing (the next
        checkpoint finishes the job)."""

    def checkpoints_apart(self, on: bool) -> bool:
        """Whether this ledger's commits leave the WAL's checkpoints to ``checkpoint_apart``
        (called by another thread): with ``on`` they stop checkpointing, without they do
        again. Returns False where the engine has nothing of the kind (PostgreSQL)."""

    def checkpoint_apart(self) -> bool:
        """One checkpoint of the WAL that does not hold up commits (SQLite: PASSIVE, on a
        connection of its own); returns whether it copied everything. Raises the engine's
        error when it cannot; False where ``checkpoints_apart`` is False."""

    def backup_to(self, path: str | Path) -> None:
        """Copy the whole ledger to ``path`` with SQLite's online backup, in one step: one
        consistent snapshot while other processes keep writing (rebuild checks)."""

    # -- sources: capture and reads ----------------------------------------------------------

    def store_sources(self, items: Iterable[NewSource], now: float | None = None, *,
                      durable: bool = True) -> list[StoreResult]:
        """Store sources and their projection jobs in ONE transaction (group commit).
        With ``durable=False`` an engine may return before the commit is on disk (SQLite:
        the WAL is not synced); such results may be acknowledged only after ``sync``."""

    def sync(self) -> None:
        """Make every transaction this process has committed so far durable (SQLite: one
        fsync of the WAL, outside the ledger's lock, so the next commit goes on meanwhile;
        PostgreSQL commits durably: nothing to do). Raises ``OSError`` if it cannot."""

    def index_postings(self, max_sources: int = 500) -> int:
        """Write the lexical index (the source postings, and on SQLite FTS5's index, the
        subjects' lexical statistics and the speakers' turn counts) of up to
        ``max_sources`` sources stored since it was last written, oldest first, in one
        transaction; returns how many (fewer than ``max_sources``: none is left). SQLite
        writes them here, after capture (the capture writer while no event waits, bulk
        ingest after each batch); PostgreSQL in the capture transaction (always 0).
        Searches and ``speaker_turns`` give the same results either way."""

    def get_sources(self, source_ids: Sequence[str]) -> list[SourceRecord]:
        """Sources by ID, in the order asked (missing IDs are skipped)."""

    def get_sources_by_seq(self, seqs: Sequence[int]) -> dict[int, SourceRecord]:
        """Sources by sequence number (missing ones left out)."""

    def sources_in_scope(self, scope: Scope, *, as_of_valid: float | None = None,
                         as_of_known: float | None = None,
                         limit: int | None = None, newest_first: bool = False
                         ) -> list[SourceRecord]:
        """The scope's sources visible in a time view, in source-time order."""

    def count_sources(self, subject_id: str | None = None) -> int:
        """How many sources the ledger (or one subject) holds."""

    def seqs_of(self, source_ids: Sequence[str]) -> dict[str, int]:
        """Sequence numbers of the given source IDs (missing ones left out)."""

    def session_before(self, subject_id: str, robot_id: str, session_id: str, seq: int,
                       n: int) -> list[SourceRecord]:
        """The last ``n`` sources of the session stored before ``seq``, oldest first (what a
        'window' vector pools with a source)."""

    def sources_near(self, scope: Scope, seqs: Sequence[int], span: int,
                     as_of_valid: float | None = None, as_of_known: float | None = None
                     ) -> list[tuple[int, str, str, str, str, float]]:
        """(seq, source_id, robot_id, session_id, speaker, source_time) of the scope's sources
        whose sequence number lies within ``span`` of one of ``seqs``, in sequence
        order."""

    def attachments_between(self, subject_id: str, after_seq: int, upto_seq: int
                            ) -> list[tuple[int, str, int | None]]:
        """(seq, attached_to, seq of that source or None) of the subject's sources stored in
        ``(after_seq, upto_seq]`` whose payload names a source they are attached to."""

    def speakers(self, subject_id: str) -> list[str]:
        """The distinct non-empty dialogue speakers of a subject (its participants)."""

    def sources_after(self, after_seq: int, limit: int,
                      subject_id: str | None = None) -> list[SourceRecord]:
        """Up to ``limit`` sources stored after ``after_seq`` (of one subject, or all), in
        sequence order (what ``sync`` pushes and resumes after): only up to ``last_seq()``,
        so a source numbered before the last one returned never becomes visible later —
        with many writers one may commit after another that drew a larger number."""

    # -- forget and tombstones ---------------------------------------------------------------

    def tombstones_recorded_after(self, after_seq: int, limit: int) -> list[Tombstone]:
        """Up to ``limit`` tombstones of every subject recorded after ``after_seq``, in the
        order this ledger recorded them (``Tombstone.seq``, what ``sync`` pushes and
        resumes from): one recorded later may carry an older removal time (a forget
        synced in from another ledger, a clock behind), so the removal time cannot say
        what was sent. A number is never given twice, and a tombstone forgotten again
        gets a new one. A tombstone left before its subject was recorded has subject
        ``''`` (unknown)."""

    def add_tombstones(self, items: Sequence[tuple[str, float, str]]) -> int:
        """Record tombstones (source ID, removed at, subject) for IDs this ledger does not
        hold in that subject (``forget`` removes those it holds); an existing tombstone is
        kept. Returns how many were new."""

    def forget(self, scope: Scope | None = None, source_ids: Sequence[str] = (),
               allow_reingest: bool = False, now: float | None = None) -> list[str]:
        """Remove sources and everything derived from them; return the removed IDs. A
        tombstone refuses its ID in its subject; one of unknown subject (``''``) in every
        subject. ``allow_reingest`` lifts the tombstones of the IDs: in the scope's
        subject (and unknown ones), or in any subject when no scope is given."""

    @staticmethod
    def forget_derived(conn: Tx, source_ids: Sequence[str],
                       subjects: Iterable[str], generation: int = 0) -> None:
        """Inside ``Ledger.forget``'s transaction: remove the facts derived only from
        ``source_ids`` and every edge touching them, recompute the state of the facts
        they updated, contradicted or caused, and reset the hierarchy of the subjects
        (their session embeddings and topic centroids contained the forgotten text);
        ``hierarchy.rederive_hierarchy`` or the next batch rebuilds it."""

    # -- projection jobs ---------------------------------------------------------------------

    def claim_jobs(self, worker: str, limit: int, lease_s: float, max_attempts: int,
                   max_subjects: int = 0) -> list[Job]:
        """Atomically claim up to ``limit`` jobs that are due: pending or deferred ones whose
        ``not_before`` has passed, and running ones whose lease expired (their worker
        died). A job whose lease expired on its last attempt is marked ``failed`` with
        the reason, instead of staying ``running`` forever.

        Subject by subject: the subject whose first outstanding job is oldest comes first,
        and the claim takes its whole run of due jobs from that head (in source order, up
        to the first one that is not due), then the next subject's run, until ``limit``
        jobs or ``max_subjects`` subjects (0: no bound). A subject whose head another
        worker holds under a live lease, or that waits for a retry, is not taken, so
        concurrent workers split the subjects between them and no subject's jobs are
        held by two workers. The jobs are returned in source order."""

    def job_holders(self) -> list[str]:
        """The workers that hold running jobs now."""

    def expire_leases(self, worker: str) -> int:
        """End the leases of a worker known to be dead, so its jobs are claimed at once (rather
        than when the lease runs out). Returns how many jobs it held."""

    @staticmethod
    def held_jobs(conn: Tx, worker: str, jobs: Sequence[Job]) -> list[Job]:
        """Inside a write transaction: the jobs of ``jobs`` that ``worker`` still holds under the
        same claim (a ``reset_derived``, or a reclaim after the lease expired, takes a
        job away; its old holder must then write nothing). Of each subject only the jobs
        before the first one taken away: a reclaim takes a subject's jobs from its head
        and may stop within the old holder's run, and the old holder writing the rest
        would project them before the earlier ones."""

    @staticmethod
    def complete_jobs(conn: Tx, worker: str, jobs: Sequence[Job],
                      outcomes: Sequence[str], notes: dict[int, str] | None = None) -> int:
        """Inside the batch's write transaction: mark held jobs done with their outcome (and an
        optional note). Returns how many rows changed."""

    def fail_jobs(self, jobs: Sequence[Job], worker: str, error: str, max_attempts: int,
                  backoff_s: float = 1.0, backoff_max_s: float = 300.0) -> int:
        """Record ``error`` on held jobs; each goes back to ``pending`` with its next attempt not
        before ``backoff_s * 2**(attempts-1)`` seconds (capped at ``backoff_max_s``),
        or to ``failed`` after ``max_attempts``."""

    def defer_jobs(self, jobs: Sequence[Job], worker: str, reason: str, delay_s: float) -> int:
        """Put held jobs back as ``deferred`` until ``delay_s`` from now, without spending an
        attempt (the job was not tried: e.g. GPU admission refused)."""

    def job_counts(self) -> dict[str, int]:
        """How many jobs are in each status (a scan of every job ever made)."""

    def jobs_not_done(self) -> dict[str, int]:
        """How many jobs are pending, running, failed or deferred: read through the
        status index without visiting the done jobs, whose number only grows — for
        diagnostics that run every second on a node's thread."""

    def job_errors(self, limit: int = 20) -> list[dict[str, Any]]:
        """The most recent jobs with an error or a note (for diagnostics and the CLI)."""

    # -- vectors -----------------------------------------------------------------------------

    @staticmethod
    def put_vectors(conn: Tx, owner_kind: str, model: str,
                    rows: Iterable[tuple[str, str, np.ndarray]]) -> None:
        """Inside a write transaction: store (owner_id, subject_id, vector) rows."""

    def vector_models(self) -> list[tuple[str, int, int]]:
        """(model, dim, count) of the stored source vectors."""

    def model_changed(self, model: str, dim: int) -> bool:
        """True when stored source vectors are of another model or dimension than (``model``,
        ``dim``): they must be re-embedded (``sources_to_reembed``)."""

    def sources_to_reembed(self, model: str, dim: int, limit: int) -> list[SourceRecord]:
        """Sources whose projection is done but that have no vector of (``model``, ``dim``):
        after a change of embedding model, these are re-embedded without re-
        projecting. Pending jobs get their vector when they run."""

    def sources_without_window(self, model: str, limit: int) -> list[SourceRecord]:
        """Sources with a vector of ``model`` but no 'window' vector of it: forgetting a source
        drops the windows of the turns after it (they pooled its vector), and these
        are pooled again from what is still stored."""

    def put_window_vectors(self, model: str, rows: Sequence[tuple[str, str, np.ndarray]]) -> int:
        """Store 'window' vectors of ``model`` (the query's index picks them up by generation);
        returns the generation."""

    def replace_vectors(self, model: str, rows: Sequence[tuple[str, str, np.ndarray]],
                        window_rows: Sequence[tuple[str, str, np.ndarray]] = ()) -> int:
        """Store re-embedded source (and window) vectors of ``model`` and drop the same sources'
        vectors of any other model, in one transaction; returns the generation."""

    def drop_other_vectors(self, model: str, dim: int) -> int:
        """Delete source vectors not of (``model``, ``dim``); returns how many."""

    def source_vectors_after(self, subject_id: str, model: str, after_rowid: int,
                             owner_kind: str = "source") -> list[tuple[Any, ...]]:
        """Vectors of ``model`` owned by a source (``owner_kind``: 'source', or another kind
        keyed by source ID) stored after ``after_rowid``, in rowid order: (rowid, seq,
        source_id, robot_id, session_id, source_time, known_time, vec, speaker). A vector
        with a rowid below the last one returned never becomes visible later (with many
        writers, rows another writer holds uncommitted wait until it ends)."""

    def load_vector_pack(self, subject_id: str, model: str, owner_kind: str,
                         epoch: str) -> VectorPack | None:
        """The subject's vectors of (``model``, ``owner_kind``) as one block read under the
        ``vectors_epoch`` ``epoch`` (``storage.vectorpack``), or None when the engine keeps
        none; the rows after its ``watermark`` come from ``source_vectors_after``."""

    def save_vector_pack(self, pack: VectorPack) -> bool:
        """Keep ``pack`` for the next process's first question about its subject; False
        when it was not kept (the engine keeps none, or the epoch moved since it was read).
        Whatever moves the epoch (forget, rebuild, a model change) drops every pack."""

    # -- lexical search ----------------------------------------------------------------------

    def search_sources(self, scope: Scope, match: str, k: int,
                       as_of_valid: float | None = None, as_of_known: float | None = None,
                       weights: tuple[float, float] = (1.0, 1.0)) -> list[tuple[int, str, float]]:
        """(seq, source_id, score) of the scope's sources matching an FTS5 expression, best BM25
        first (score: higher is better). The subject is also matched inside FTS5 so
        only its rows are ranked; the join's exact scope filter stays the authority (a
        phrase can match a longer subject ID). Ties keep storage order."""

    def search_facts(self, scope: Scope, match: str, k: int,
                     as_of_valid: float | None = None, as_of_known: float | None = None
                     ) -> list[tuple[int, str, str, float, str]]:
        """(source seq, source_id, fact_id, score, fact status) for facts matching an FTS5
        expression, one row per provenance source in the scope, best first. A time
        view hides facts valid or known only after it."""

    # -- audit -------------------------------------------------------------------------------

    def write_audit(self, records: Sequence[AuditRecord]) -> int:
        """Store audit rows and their shown/cited source links in ONE transaction (the query path
        hands them to a background writer, never waits for this). A row whose ID is
        already stored is skipped. Returns rows written."""

    # -- maintenance and statistics ----------------------------------------------------------

    def reset_derived(self, model: str | None = None) -> int:
        """Drop derived vectors (all, or those not of ``model``; with all, the graph's facts,
        edges and topics too), rebuild FTS, and requeue every source's job so
        consolidation recreates what was dropped, in one transaction. Returns the
        number of jobs requeued."""

    def rebuild_fts(self) -> None:
        """Recreate the lexical index of sources from the sources alone."""

    def source_counts(self) -> dict[str, int]:
        """How many rows each source ID has (a crash test expects exactly one)."""

    def orphans(self) -> dict[str, int]:
        """Derived rows that lost their origin: sources without a job, vectors without a source,
        facts without a provenance source."""

    def integrity_check(self) -> str:
        """The engine's own consistency check (``ok`` when sound)."""

    def stats(self) -> dict[str, Any]:
        """What the ledger holds: sources by subject, sessions, jobs, vectors, tombstones, size."""

    # -- evidence graph ----------------------------------------------------------------------

    graph: Any
    """The engine's ``GraphStatements`` (``ledger.graph.insert_facts(tx, ...)``)."""

    def clear_graph(self) -> None:
        """Drop all facts, edges and topics (``rebuild`` recreates them from sources)."""

    # -- evidence graph reads ----------------------------------------------------------------

    def facts_for_key(self, subject_id: str, entity: str, relation: str) -> list[Fact]:
        """Facts of one (entity, relation) key of a subject (the resolver's read)."""

    def edges_among(self, fact_ids: Sequence[str], types: Sequence[str]) -> list[Edge]:
        """Edges of the given types touching the facts."""

    def keyed_facts(self, subject_id: str) -> list[Fact]:
        """Every keyed fact of a subject (for update chains), oldest first."""

    def facts_since(self, subject_id: str, generation: int = -1) -> list[Fact]:
        """A subject's facts written or changed after ``generation``."""

    def fact_rows_since(self, subject_id: str, generation: int = -1
                        ) -> list[tuple[tuple[Any, ...], tuple[str, ...]]]:
        """``facts_since`` as (row of ``facts.FACT_COLUMNS``, provenance), in the same order,
        not yet decoded: ``facts.fact_from_row(row, provenance)`` makes each a ``Fact``
        (``query.factcache`` decodes only the facts a question touches)."""

    def facts_of_sources_in(self, subject_id: str, source_ids: Sequence[str]) -> list[Fact]:
        """A subject's facts whose provenance includes one of ``source_ids`` (query seeds)."""

    def speaker_turns(self, subject_id: str) -> dict[str, int]:
        """How many dialogue turns each speaker of a subject has."""

    def facts_with_ids(self, fact_ids: Sequence[str]) -> list[Fact]:
        """Facts by ID, with their provenance."""

    def facts_of_entities(self, subject_id: str, entities: Sequence[str],
                          limit: int) -> list[Fact]:
        """Keyed facts about ``entities`` (normalised names), newest first (ties by fact ID), at
        most ``limit`` per entity (``query.factcache`` answers the same)."""

    def edges_since(self, subject_id: str, generation: int = -1,
                    types: Sequence[str] | None = None) -> list[Edge]:
        """A subject's edges written or changed after ``generation`` (``types``: only edges
        of those types), by edge ID."""

    def hierarchy_edges(self, subject_id: str) -> list[Edge]:
        """A subject's session chain and session → topic edges."""

    def sessions_of(self, subject_id: str) -> list[SessionRow]:
        """A subject's sessions in chronological order."""

    def topics_of(self, subject_id: str) -> list[TopicRow]:
        """A subject's topics."""

    def graph_marks(self) -> tuple[int, str]:
        """(generation, graph epoch) in one read: what a cache of facts and edges checks."""

    def graph_epoch(self) -> str:
        """Moves whenever graph rows are deleted (caches reload in full)."""

    def graph_counts(self, subject_id: str | None = None) -> dict[str, Any]:
        """Facts by type and status, edges by type, sessions, topics (one subject or all)."""

    def graph_snapshot(self, subject_id: str | None = None) -> dict[str, Any]:
        """Everything derived in the graph, without generations or row IDs: two ledgers built
        from the same sources compare equal (tests, rebuild checks)."""

    # -- spatial reads -----------------------------------------------------------------------

    def perception_labels(self, scope: Scope, *, since: float | None = None,
                          until: float | None = None, as_of_valid: float | None = None,
                          as_of_known: float | None = None) -> list[str]:
        """The distinct labels of the perceptions ``perceptions`` would return."""

    def perceptions(self, scope: Scope, *, since: float | None = None,
                    until: float | None = None, as_of_valid: float | None = None,
                    as_of_known: float | None = None,
                    labels: Sequence[str] | None = None,
                    limit: int = 5000) -> list[SourceRecord]:
        """Perception sources in ``scope`` with ``since <= source_time <= until``, newest first
        (``labels``: only those labels)."""

    # -- explorer reads ----------------------------------------------------------------------

    def subject_summaries(self) -> list[dict[str, Any]]:
        """Every subject with its source counts, time span, robots, sessions and facts."""

    def has_subject(self, subject_id: str) -> bool:
        """Whether any source of ``subject_id`` is stored."""

    def robots_of(self, subject_id: str) -> list[str]:
        """The robots that stored sources of a subject."""

    def time_span_of(self, subject_id: str) -> tuple[float, float, float, float]:
        """(first, last) source time and (first, last) known time of a subject."""

    def past_questions(self, subject_id: str, limit: int) -> list[dict[str, Any]]:
        """The subject's audit rows, newest first."""

