"""Projection jobs (the slow path's queue).

A job is claimed with a lease (``lease_until``) and a fence token. The worker embeds and
extracts outside any transaction, then, inside ONE write transaction, keeps only the jobs
it still holds (``held_jobs``), writes their derived state and completes them
(``complete_jobs``). A failure is retried with exponential backoff (``not_before``); a
job refused by GPU admission is deferred without spending an attempt.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from ..records import NOT_DONE, Job, still_in_order, take_runs
from .base import SqliteBase

# The counts of jobs not done: a search of the status index that never visits a done job.
NOT_DONE_COUNTS = ("SELECT status, count(*) FROM jobs WHERE status IN ("
                   + ", ".join(f"'{status}'" for status in NOT_DONE) + ") GROUP BY status")

# A claim reads at most this many times ``limit`` of the oldest outstanding jobs.
CLAIM_WINDOW = 16


class JobStore(SqliteBase):
    """Claiming, completing, failing and counting jobs."""

    def claim_jobs(self, worker: str, limit: int, lease_s: float, max_attempts: int,
                   max_subjects: int = 0) -> list[Job]:
        """Atomically claim jobs that are due, subject by subject (the contract's
        ``claim_jobs``): pending or deferred ones whose ``not_before`` has passed, and
        running ones whose lease expired (their worker died). A job whose lease expired
        on its last attempt is marked ``failed`` with the reason, instead of staying
        ``running`` forever. The write lock makes the claim atomic, so a concurrent
        claim never waits on a subject another claim took: it sees the subject's head
        held and takes the next subject (what SKIP LOCKED gives on PostgreSQL)."""
        limit = max(1, int(limit))
        with self.write() as conn:
            now = time.time()  # the lease runs from the claim, not from a wait for the lock
            conn.execute(
                "UPDATE jobs SET status = 'failed', lease_until = NULL, updated_at = ?, "
                "last_error = 'worker ' || coalesce(claimed_by, '?') || ' stopped during attempt ' "
                "|| attempts || ' of ' || ? || ' (lease expired)' "
                "|| coalesce('; before: ' || last_error, '') "
                "WHERE status = 'running' AND lease_until < ? AND attempts >= ?",
                (now, max_attempts, now, max_attempts))
            # A job running its last attempt is outstanding too: it holds its subject
            # like any other held job (if its lease ran out, it was failed just above).
            # Projection is order-dependent within a subject (a newer fact revises an
            # older one), so a subject's jobs are claimed strictly in source order: its
            # run stops at its first outstanding job that is not due (another worker
            # holds it, or it waits for a retry). Job IDs follow source order (both are
            # assigned in the capture transaction). The claim looks at a window of the
            # oldest outstanding jobs; each subject's part of it is a prefix of that
            # subject's queue, so what it takes is always in order.
            window = conn.execute(
                "SELECT j.job_id, s.subject_id, j.source_seq, j.attempts, j.fence, "
                "(j.status IN ('pending', 'deferred') AND coalesce(j.not_before, 0) <= ?) "
                "OR (j.status = 'running' AND j.lease_until < ?) FROM jobs j "
                "JOIN sources s ON s.seq = j.source_seq "
                "WHERE j.status IN ('pending', 'deferred', 'running') "
                "AND (j.attempts < ? OR j.status = 'running') "
                "ORDER BY j.job_id LIMIT ?",
                (now, now, max_attempts, limit * CLAIM_WINDOW)).fetchall()
            runs: dict[str, list[tuple[int, int, int, int]]] = {}
            blocked: set[str] = set()
            for job_id, subject, seq, attempts, fence, due in window:
                if subject in blocked:
                    continue
                if not due:
                    blocked.add(subject)
                    continue
                runs.setdefault(subject, []).append((job_id, seq, attempts, fence))
            rows = take_runs(runs.values(), limit, max_subjects)
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
        lease expired, takes a job away; its old holder must then write nothing), and
        of each subject only those before the first one taken away (``still_in_order``)."""
        held: set[int] = set()
        for start in range(0, len(jobs), 500):
            chunk = list(jobs[start:start + 500])
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT job_id, fence FROM jobs WHERE status = 'running' AND claimed_by = ? "
                f"AND job_id IN ({marks})", [worker, *(j.job_id for j in chunk)]).fetchall()
            fences = dict(rows)
            held.update(j.job_id for j in chunk if fences.get(j.job_id) == j.fence)
        return still_in_order(jobs, held)

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

    def jobs_not_done(self) -> dict[str, int]:
        counts = dict.fromkeys(NOT_DONE, 0)
        counts.update({r[0]: int(r[1]) for r in self.query(NOT_DONE_COUNTS)})
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
