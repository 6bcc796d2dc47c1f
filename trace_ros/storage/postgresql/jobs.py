"""Projection jobs on PostgreSQL: many workers on many machines, one queue.

Claims have the SQLite engine's meaning — within a subject jobs are claimed in source
order, a claim stops at the subject's first outstanding job that is not due (held by a
live worker, or waiting for a retry), leases expire, fences stop an old holder; a claim
takes whole runs subject by subject — and parallelism *across* subjects: a claim locks
the ``subject_queues`` row of each subject it takes with ``FOR UPDATE SKIP LOCKED``, so
concurrent workers take different subjects instead of waiting for each other. Capture
locks the same rows, so a subject's sources become visible to a claim in sequence order.
The run a claim reads is locked too (``NOWAIT``): rows a worker is completing (its lease
ran out meanwhile) make the claim skip the subject rather than wait and take them again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..records import NOT_DONE, Job, still_in_order, take_runs
from .sources import PgSourceStore

# The counts of jobs not done: a search of the status index that never visits a done job.
NOT_DONE_COUNTS = ("SELECT status, count(*) FROM jobs WHERE status IN ("
                   + ", ".join(f"'{status}'" for status in NOT_DONE) + ") GROUP BY status")

OUTSTANDING = "('pending', 'deferred', 'running')"
# A claim looks at this many more candidate subjects than it may take (some may be
# locked by a concurrent claim).
CLAIM_SLACK = 8
LOCK_NOT_AVAILABLE = "55P03"  # SQLSTATE of a row lock refused by NOWAIT


def _subjects(jobs: Sequence[Job]) -> list[str]:
    """The subjects of ``jobs`` (a job's subject is its source's)."""
    return sorted({j.source.subject_id for j in jobs})


def _lock_run(conn: Any, subject: str, now: float, max_attempts: int, room: int
              ) -> list[tuple[Any, ...]] | None:
    """Inside the claim (the subject's queue row locked): the subject's first ``room``
    outstanding jobs in source order, each with whether it is due, their rows locked;
    None when another transaction holds one of those rows. That is a worker completing
    or failing jobs whose lease expired: waiting for it and then claiming them would
    take jobs it just completed and project them again after their successors (READ
    COMMITTED re-checks only the UPDATE's own condition), so the subject is skipped
    this time, as one being claimed is (``NOWAIT`` in a savepoint: nothing waits)."""
    try:
        with conn.transaction():
            return conn.execute(
                "SELECT job_id, source_seq, attempts, fence, "
                "(status IN ('pending', 'deferred') AND coalesce(not_before, 0) <= %s) "
                "OR (status = 'running' AND lease_until < %s) FROM jobs "
                f"WHERE subject_id = %s AND status IN {OUTSTANDING} "
                "AND (attempts < %s OR status = 'running') "
                "ORDER BY source_seq LIMIT %s FOR UPDATE NOWAIT",
                (now, now, subject, max_attempts, room)).fetchall()
    except Exception as exc:  # psycopg.errors.LockNotAvailable (psycopg is imported lazily)
        if getattr(exc, "sqlstate", None) == LOCK_NOT_AVAILABLE:
            return None
        raise


class PgJobStore(PgSourceStore):
    """Claiming, completing, failing and counting jobs."""

    def claim_jobs(self, worker: str, limit: int, lease_s: float, max_attempts: int,
                   max_subjects: int = 0) -> list[Job]:
        """Atomically claim up to ``limit`` due jobs, subject by subject (the contract's
        ``claim_jobs``): the subject with the oldest due head first, its whole run of
        due jobs in source order, then the next subject's. Each subject is locked
        (``FOR UPDATE SKIP LOCKED``) before its queue is read, one at a time, so a
        concurrent claim skips the subject this one is taking, takes the next one, and
        never waits; a subject whose head another worker holds is not taken."""
        limit = max(1, int(limit))
        with self.write() as conn:
            # The lease runs from the claim, not from before a wait for a connection
            # (after a server restart the pool may take seconds to reconnect).
            now = time.time()
            conn.execute(
                "UPDATE jobs SET status = 'failed', lease_until = NULL, updated_at = %s, "
                "last_error = 'worker ' || coalesce(claimed_by, '?') || ' stopped during "
                "attempt ' || attempts || ' of ' || %s || ' (lease expired)' "
                "|| coalesce('; before: ' || last_error, '') "
                "WHERE status = 'running' AND lease_until < %s AND attempts >= %s",
                (now, max_attempts, now, max_attempts))
            # Candidates: subjects whose first outstanding job is due, oldest first; a
            # subject whose head is held or waiting is not taken (its later jobs must
            # wait for it), also a head running its last attempt (if its lease ran
            # out, it was failed just above). Read without a lock; each is checked
            # again under its lock.
            wanted = max_subjects if max_subjects > 0 else limit
            candidates = [r[0] for r in conn.execute(
                "SELECT q.subject_id FROM subject_queues q CROSS JOIN LATERAL ("
                "SELECT j.source_seq, (j.status IN ('pending', 'deferred') AND "
                "coalesce(j.not_before, 0) <= %s) OR (j.status = 'running' AND "
                "j.lease_until < %s) AS due FROM jobs j WHERE j.subject_id = q.subject_id "
                f"AND j.status IN {OUTSTANDING} AND (j.attempts < %s OR j.status = 'running') "
                "ORDER BY j.source_seq LIMIT 1) h WHERE h.due ORDER BY h.source_seq "
                "LIMIT %s", (now, now, max_attempts, wanted + CLAIM_SLACK))]
            runs: list[list[tuple[int, int, int, int]]] = []
            subject_of: dict[int, str] = {}  # job ID -> its subject
            room = limit
            for subject in candidates:
                if room <= 0 or len(runs) >= wanted:
                    break
                if conn.execute("SELECT subject_id FROM subject_queues WHERE subject_id = %s "
                                "FOR UPDATE SKIP LOCKED", (subject,)).fetchone() is None:
                    continue  # another worker is claiming it (or a writer capturing into it)
                rows = _lock_run(conn, subject, now, max_attempts, room)
                if rows is None:
                    continue  # a worker is writing (completing, failing) some of its jobs
                run = []
                for job_id, seq, attempts, fence, due in rows:
                    if not due:
                        break
                    run.append((int(job_id), int(seq), int(attempts), int(fence)))
                    subject_of[int(job_id)] = subject
                if run:
                    runs.append(run)
                    room -= len(run)
            taken = take_runs(runs, limit, max_subjects)
            if not taken:
                return []
            subjects = sorted({subject_of[r[0]] for r in taken})
            conn.execute(
                "UPDATE jobs SET status = 'running', attempts = attempts + 1, claimed_by = %s, "
                "lease_until = %s, fence = fence + 1, updated_at = %s "
                "WHERE subject_id = ANY(%s) AND job_id = ANY(%s)",
                (worker, now + lease_s, now, subjects, [r[0] for r in taken]))
            sources = self.sources_by_seq_in(conn, subjects, [r[1] for r in taken])
        return [Job(r[0], sources[r[1]], r[2] + 1, r[3] + 1) for r in taken if r[1] in sources]

    def job_holders(self) -> list[str]:
        """The workers that hold running jobs now."""
        return [r[0] for r in self.query(
            "SELECT DISTINCT claimed_by FROM jobs WHERE status = 'running' "
            "AND claimed_by IS NOT NULL")]

    def expire_leases(self, worker: str) -> int:
        """End the leases of a worker known to be dead; returns how many jobs it held."""
        with self.write() as conn:
            return int(conn.execute("UPDATE jobs SET lease_until = 0 WHERE status = 'running' "
                                    "AND claimed_by = %s", (worker,)).rowcount)

    @staticmethod
    def held_jobs(conn: Any, worker: str, jobs: Sequence[Job]) -> list[Job]:
        """Inside a write transaction: the jobs ``worker`` still holds under the same claim
        (their rows stay locked until the transaction ends), and of each subject only
        those before the first one taken away (``still_in_order``)."""
        if not jobs:
            return []
        fences = dict(conn.execute(
            "SELECT job_id, fence FROM jobs WHERE subject_id = ANY(%s) AND status = 'running' "
            "AND claimed_by = %s AND job_id = ANY(%s) FOR UPDATE",
            (_subjects(jobs), worker, [j.job_id for j in jobs])).fetchall())
        return still_in_order(jobs, {j.job_id for j in jobs if fences.get(j.job_id) == j.fence})

    @staticmethod
    def complete_jobs(conn: Any, worker: str, jobs: Sequence[Job],
                      outcomes: Sequence[str], notes: dict[int, str] | None = None) -> int:
        """Inside the batch's write transaction: mark held jobs done with their outcome."""
        if not jobs:
            return 0
        notes = notes or {}
        pairs = list(zip(jobs, outcomes, strict=True))
        return int(conn.execute(
            "UPDATE jobs j SET status = 'done', outcome = u.outcome, last_error = NULL, "
            "note = u.note, lease_until = NULL, not_before = NULL, updated_at = %s "
            "FROM unnest(%s::text[], %s::bigint[], %s::text[], %s::text[], %s::integer[]) "
            "AS u(subject_id, job_id, outcome, note, fence) WHERE j.subject_id = u.subject_id "
            "AND j.job_id = u.job_id AND j.claimed_by = %s AND j.fence = u.fence "
            "AND j.status = 'running'",
            (time.time(), [j.source.subject_id for j, _ in pairs],
             [j.job_id for j, _ in pairs], [o for _, o in pairs],
             [notes.get(j.job_id) for j, _ in pairs], [j.fence for j, _ in pairs],
             worker)).rowcount)

    def fail_jobs(self, jobs: Sequence[Job], worker: str, error: str, max_attempts: int,
                  backoff_s: float = 1.0, backoff_max_s: float = 300.0) -> int:
        """Record ``error`` on held jobs: back to ``pending`` not before the backoff, or
        ``failed`` after ``max_attempts``."""
        if not jobs:
            return 0
        now = time.time()
        with self.write() as conn:
            return int(conn.execute(
                "UPDATE jobs j SET status = CASE WHEN j.attempts >= %s THEN 'failed' "
                "ELSE 'pending' END, last_error = %s, lease_until = NULL, "
                "not_before = u.not_before, updated_at = %s "
                "FROM unnest(%s::text[], %s::bigint[], %s::double precision[], %s::integer[]) "
                "AS u(subject_id, job_id, not_before, fence) WHERE j.subject_id = u.subject_id "
                "AND j.job_id = u.job_id AND j.claimed_by = %s AND j.fence = u.fence "
                "AND j.status = 'running'",
                (max_attempts, error[:2000], now, [j.source.subject_id for j in jobs],
                 [j.job_id for j in jobs],
                 [now + min(backoff_max_s, backoff_s * 2.0 ** max(0, j.attempts - 1))
                  for j in jobs], [j.fence for j in jobs], worker)).rowcount)

    def defer_jobs(self, jobs: Sequence[Job], worker: str, reason: str, delay_s: float) -> int:
        """Put held jobs back as ``deferred`` until ``delay_s`` from now, without spending
        an attempt."""
        if not jobs:
            return 0
        now = time.time()
        with self.write() as conn:
            return int(conn.execute(
                "UPDATE jobs j SET status = 'deferred', attempts = greatest(0, j.attempts - 1), "
                "note = %s, claimed_by = NULL, lease_until = NULL, not_before = %s, "
                "updated_at = %s FROM unnest(%s::text[], %s::bigint[], %s::integer[]) "
                "AS u(subject_id, job_id, fence) WHERE j.subject_id = u.subject_id "
                "AND j.job_id = u.job_id AND j.claimed_by = %s AND j.fence = u.fence "
                "AND j.status = 'running'",
                (reason[:2000], now + delay_s, now, [j.source.subject_id for j in jobs],
                 [j.job_id for j in jobs],
                 [j.fence for j in jobs], worker)).rowcount)

    def job_counts(self) -> dict[str, int]:
        counts = {s: 0 for s in ("pending", "running", "done", "failed", "deferred")}
        counts.update({r[0]: int(r[1]) for r in self.query(
            "SELECT status, count(*) FROM jobs GROUP BY status")})
        return counts

    def jobs_not_done(self) -> dict[str, int]:
        counts = dict.fromkeys(NOT_DONE, 0)
        counts.update({r[0]: int(r[1]) for r in self.query(NOT_DONE_COUNTS)})
        return counts

    def job_errors(self, limit: int = 20) -> list[dict[str, Any]]:
        """The most recent jobs with an error or a note."""
        rows = self.query(
            "SELECT j.job_id, s.source_id, j.status, j.attempts, j.last_error, j.note, "
            "j.not_before FROM jobs j JOIN sources s "
            "ON s.subject_id = j.subject_id AND s.seq = j.source_seq "
            "WHERE j.last_error IS NOT NULL OR j.note IS NOT NULL "
            "ORDER BY j.updated_at DESC LIMIT %s", (int(limit),))
        keys = ("job_id", "source_id", "status", "attempts", "last_error", "note", "not_before")
        return [dict(zip(keys, r, strict=True)) for r in rows]
