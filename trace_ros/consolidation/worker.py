"""The consolidation loop: claim pending jobs, project them, commit, bump the generation.

Today a projection embeds the source (dense recall reads these vectors) and
records the outcome; fact extraction and linking plug in here as further steps
of ``_project``. Source records are never changed by it.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass

from ..config import ConsolidationConfig
from ..embed import Encoder, source_text
from ..ledger import Job, Ledger


@dataclass
class BatchReport:
    claimed: int = 0
    done: int = 0
    failed: int = 0
    generation: int = 0
    seconds: float = 0.0


class Consolidator:
    def __init__(self, ledger: Ledger, encoder: Encoder, config: ConsolidationConfig | None = None,
                 worker_name: str | None = None) -> None:
        self.ledger = ledger
        self.encoder = encoder
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
            Ledger.put_vectors(conn, "source", self.encoder.name,
                               [(j.source.source_id, j.source.subject_id, v)
                                for j, v in zip(jobs, vectors, strict=True)])
            conn.executemany(
                "UPDATE jobs SET status = 'done', outcome = ?, last_error = NULL, "
                "lease_until = NULL, updated_at = ? WHERE job_id = ? AND claimed_by = ?",
                [(self._project(j), now, j.job_id, self.worker) for j in jobs])
            report.generation = Ledger.bump_generation(conn)
        report.done = len(jobs)
        report.seconds = time.monotonic() - started
        return report

    def _project(self, job: Job) -> str:
        """Projection outcome for one source: 'add', 'revise' or 'noop'.

        No fact extraction exists yet, so no state changes: 'noop'.
        """
        return "noop"

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
