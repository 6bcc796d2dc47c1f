"""The consolidation loop: claim pending jobs, project them, commit, bump the generation.

Today a projection embeds the source (dense recall reads these vectors) and
records the outcome; fact extraction and linking plug in here as further steps
of ``_project``. Source records are never changed by it.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from typing import Protocol

from ..config import ConsolidationConfig
from ..embed import Encoder, source_text
from ..ledger import Job, Ledger


class Projector(Protocol):
    """Turns claimed jobs into derived state inside the batch's write transaction.

    ``project`` returns one outcome per job, in order: 'add', 'revise' or 'noop'.
    It must only write through ``conn`` (the worker commits or rolls back the
    whole batch), so a crash mid-batch leaves nothing half-written.
    """

    def project(self, conn: sqlite3.Connection, jobs: list[Job]) -> list[str]: ...


class NoopProjector:
    """Embeddings only: no facts, no state change."""

    def project(self, conn: sqlite3.Connection, jobs: list[Job]) -> list[str]:
        return ["noop"] * len(jobs)


@dataclass
class BatchReport:
    claimed: int = 0
    done: int = 0
    failed: int = 0
    generation: int = 0
    seconds: float = 0.0


class Consolidator:
    def __init__(self, ledger: Ledger, encoder: Encoder, config: ConsolidationConfig | None = None,
                 worker_name: str | None = None, projector: Projector | None = None) -> None:
        self.ledger = ledger
        self.encoder = encoder
        self.projector: Projector = projector or NoopProjector()
        self.config = config or ConsolidationConfig()
        self.worker = worker_name or f"{socket.gethostname()}:{os.getpid()}"

    def run_once(self) -> BatchReport:
        """Claim and project one batch; returns what happened (claimed=0: idle)."""
        started = time.monotonic()
        cfg = self.config
        jobs = self.ledger.claim_jobs(self.worker, cfg.batch_size, cfg.lease_s, cfg.max_attempts)
        report = BatchReport(claimed=len(jobs))
        if not jobs:
            return report
        try:
            vectors = self.encoder.encode([source_text(j.source.speaker, j.source.text)
                                           for j in jobs])
        except Exception as exc:  # noqa: BLE001 - recorded on the jobs, retried later
            self.ledger.fail_jobs([j.job_id for j in jobs], f"embed: {exc}", cfg.max_attempts)
            report.failed = len(jobs)
            report.seconds = time.monotonic() - started
            return report
        now = time.time()
        with self.ledger.write() as conn:
            # A forget may have removed some sources since the claim (their jobs went
            # with them); nothing may be written for those.
            still = Ledger.claimed_jobs(conn, [j.job_id for j in jobs], self.worker)
            if len(still) < len(jobs):
                keep = [k for k, j in enumerate(jobs) if j.job_id in still]
                jobs = [jobs[k] for k in keep]
                vectors = [vectors[k] for k in keep]
            Ledger.put_vectors(conn, "source", self.encoder.name,
                               [(j.source.source_id, j.source.subject_id, v)
                                for j, v in zip(jobs, vectors, strict=True)])
            outcomes = self.projector.project(conn, jobs)
            conn.executemany(
                "UPDATE jobs SET status = 'done', outcome = ?, last_error = NULL, "
                "lease_until = NULL, updated_at = ? WHERE job_id = ? AND claimed_by = ?",
                [(outcome, now, j.job_id, self.worker)
                 for j, outcome in zip(jobs, outcomes, strict=True)])
            report.generation = Ledger.bump_generation(conn)
        report.done = len(jobs)
        report.seconds = time.monotonic() - started
        return report

    def drain(self, progress=None) -> int:
        """Run batches until no job is pending; returns how many were done."""
        total = 0
        while True:
            report = self.run_once()
            if report.claimed == 0:
                return total
            total += report.done
            if progress:
                progress(report.claimed)
            if report.failed and not report.done:
                return total
