"""The consolidation loop: claim due jobs, project them, commit, bump the generation.

One batch: claim (a short write transaction), then outside any transaction
embed the sources and run the gate (GPU admission and model-based extraction
may take seconds), then ONE write transaction keeps only the jobs this worker
still holds, writes their vectors and projection, completes them and bumps the
generation. A crash anywhere leaves either nothing or the whole batch; the jobs
of a crashed worker are reclaimed when their lease expires, and projecting a
job again is idempotent (the projector replaces what a source derived before).
Capture is never blocked for longer than one batch's writes. Source records are
never changed here.

A failed batch is recorded on its jobs (``last_error``) and retried with
exponential backoff; a batch the gate refuses (e.g. GPU admission for the LLM
extractor), or one cut because the ledger went away (``Ledger.unavailable``: a
server restart), is deferred without spending an attempt — a job's attempts are
for faults of its own, and a job out of attempts is never projected. On its first run the worker
compares the stored vectors with its encoder and re-embeds those of another
model (``Ledger.model_changed``).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import psutil

from ..config import ConsolidationConfig
from ..embed import Encoder, source_text
from ..ledger import WINDOW_BEFORE, Job, Ledger, SourceRecord
from ..storage import Tx
from ..storage.vectorindex import VectorIndex
from ..storage.vectorpack import VectorPack
from .prefetch import Prefetch, per_text

_log = logging.getLogger(__name__)

# At most this many characters in a 'window' (see ``Consolidator._windows``).
WINDOW_MAX_CHARS = 1000
# A window's vector is the mean of its turns' own vectors, each weighted by its length
# in characters (what pooling over the joined text would weigh it by), the turn itself
# by this share of its length: the turn alone is the dense route already.
WINDOW_OWN_WEIGHT = 0.7


def worker_id() -> str:
    """``host:pid:start`` — the process start time guards against a reused PID."""
    start = psutil.Process(os.getpid()).create_time()
    return f"{socket.gethostname()}:{os.getpid()}:{start:.2f}"


def process_gone(worker: str) -> bool:
    """True when ``worker`` (a ``worker_id``) names a process of this host that no
    longer runs; False for other hosts and for names of another form."""
    parts = worker.split(":")
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    try:
        return f"{psutil.Process(int(parts[1])).create_time():.2f}" != parts[2]
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


class Projector(Protocol):
    """Turns claimed jobs into derived state inside the batch's write transaction.

    ``project`` returns one outcome per job, in order: 'add', 'revise' or 'noop'.
    It must only write through ``conn`` (the worker commits or rolls back the
    whole batch), so a crash mid-batch leaves nothing half-written.
    """

    def project(self, conn: Tx, jobs: list[Job]) -> list[str]: ...


class BatchGate(Protocol):
    """Runs before a batch is projected, outside any transaction.

    ``before_batch`` returns None to go ahead, or a number of seconds to defer
    the batch by (with ``reason`` saying why); it may do slow work for the batch
    here (model-based extraction), so that the write transaction stays short.
    ``notes`` returns, once per batch, what to record on each job (by job ID),
    e.g. that the extractor fell back to the CPU rules.
    """

    reason: str

    def before_batch(self, jobs: list[Job]) -> float | None: ...

    def notes(self) -> dict[int, str]: ...


class NoopProjector:
    """Embeddings only: no facts, no state change."""

    def project(self, conn: Tx, jobs: list[Job]) -> list[str]:
        return ["noop"] * len(jobs)


@dataclass
class BatchReport:
    claimed: int = 0
    done: int = 0
    failed: int = 0
    deferred: int = 0
    fenced: int = 0  # claimed but taken away before commit (requeued by a reset): not written
    reembedded: int = 0
    generation: int = 0
    seconds: float = 0.0
    error: str = ""


class Consolidator:
    def __init__(self, ledger: Ledger, encoder: Encoder, config: ConsolidationConfig | None = None,
                 worker_name: str | None = None, projector: Projector | None = None,
                 gate: BatchGate | None = None) -> None:
        self.ledger = ledger
        self.encoder = encoder
        self.projector: Projector = projector or NoopProjector()
        self.gate = gate
        self.config = config or ConsolidationConfig()
        self.worker = worker_name or worker_id()
        self._check_model = True  # compare stored vectors with the encoder on the first run
        # The ledger's vectors_epoch (bumped by forget, rebuild, a model change) when no
        # window vector was found missing: looked for again only when it moves.
        self._windows_checked: str | None = None
        # Vectors kept for the next batch (a ``per_text`` encoder only): the last batch's
        # texts (the first turns of the next batch's windows are among them), and what
        # is being encoded ahead while a batch is projected (``prefetch.py``).
        self._recent: dict[str, np.ndarray] = {}
        self._ahead: Prefetch | None = None
        # A batch the ledger's going away cut, not yet put back (it was unreachable):
        # put back first thing once it answers again, before its lease runs out.
        self._unreleased: tuple[list[Job], str] | None = None
        # Subjects projected since the vector packs were last brought up to date
        # (``_write_packs``), and the indexes that write them (made when first needed).
        self._projected: set[str] = set()
        self._packers: list[VectorIndex] = []

    def run_once(self) -> BatchReport:
        """Claim and project one batch (or re-embed one batch of vectors of an old
        model when no job is due); returns what happened (claimed=0 and
        reembedded=0: idle)."""
        started = time.monotonic()
        cfg = self.config
        if self._unreleased is not None:
            self._release()  # the ledger is back (or this raises again)
        jobs = self.ledger.claim_jobs(self.worker, cfg.batch_size, cfg.lease_s, cfg.max_attempts,
                                      cfg.claim_subjects)
        if not jobs and self._reclaim_dead():
            jobs = self.ledger.claim_jobs(self.worker, cfg.batch_size, cfg.lease_s,
                                          cfg.max_attempts, cfg.claim_subjects)
        report = BatchReport(claimed=len(jobs))
        if not jobs:
            report.reembedded = self._reembed_batch() or self._rewindow_batch()
            if not report.reembedded:
                self._write_packs()
        else:
            self._project_batch(jobs, report)
        report.seconds = time.monotonic() - started
        return report

    def _project_batch(self, jobs: list[Job], report: BatchReport) -> None:
        cfg = self.config
        try:
            if self.gate is not None:
                delay = self.gate.before_batch(jobs)
                if delay is not None:
                    report.deferred = self.ledger.defer_jobs(jobs, self.worker, self.gate.reason,
                                                             delay)
                    return
            vectors, window_vectors = self._embed([j.source for j in jobs])
            if len(jobs) >= cfg.batch_size:
                self._encode_ahead(max(j.source.seq for j in jobs))
            notes = self.gate.notes() if self.gate is not None else {}
            with self.ledger.write() as conn:
                held = self.ledger.held_jobs(conn, self.worker, jobs)
                report.fenced = len(jobs) - len(held)
                if held:
                    vec_of = {j.job_id: v for j, v in zip(jobs, vectors, strict=True)}
                    self.ledger.put_vectors(conn, "source", self.encoder.name,
                                            [(j.source.source_id, j.source.subject_id,
                                              vec_of[j.job_id]) for j in held])
                    window_of = {j.job_id: v for j, v in zip(jobs, window_vectors, strict=True)}
                    self.ledger.put_vectors(conn, "window", self.encoder.name,
                                            [(j.source.source_id, j.source.subject_id,
                                              window_of[j.job_id]) for j in held])
                    outcomes = self.projector.project(conn, held)
                    report.done = self.ledger.complete_jobs(conn, self.worker, held, outcomes,
                                                            notes)
                    report.generation = self.ledger.bump_generation(conn)
            self._projected.update(j.source.subject_id for j in held)
        except Exception as exc:  # noqa: BLE001 - recorded on the jobs, retried with backoff
            report.error = f"{type(exc).__name__}: {exc}"
            if not self.ledger.unavailable(exc):
                report.failed = self.ledger.fail_jobs(jobs, self.worker, report.error,
                                                      cfg.max_attempts, cfg.retry_base_s,
                                                      cfg.retry_max_s)
                return
            # The ledger went away (a server restart): the jobs were not at fault, so
            # they go back without spending an attempt — else a few restarts and worker
            # kills in a row fail a job for good, and its source is never projected.
            self._unreleased = (jobs, f"ledger unavailable: {report.error}")
            report.deferred = self._release()

    def _write_packs(self) -> None:
        """Once the queue is empty, bring the vector packs of the subjects projected since
        up to date (source and window vectors; ``storage.packing.due`` decides when a pack
        is written again), so that a query process's first question about a subject reads
        one block, not a row per vector — the query engine would write them too, but only
        on that first question, which then pays for it."""
        if not self._projected:
            return
        if not self._packers:
            self._packers = [VectorIndex(self.ledger, self.encoder.name, kind, save=_save_now)
                             for kind in ("source", "window")]
        subjects = sorted(self._projected)
        self._projected.clear()
        for subject in subjects:
            for index in self._packers:
                try:
                    index.refresh(subject)
                except Exception:  # noqa: BLE001 - a pack only saves a question time
                    _log.exception("writing the vector pack of %s failed", subject)
                finally:
                    index.drop(subject)  # the worker keeps no subject's matrix

    def _release(self) -> int:
        """Put the cut batch back (``defer_jobs``: no attempt spent, due again after
        ``retry_base_s``); returns how many jobs it still held. Raises while the ledger
        is still away, keeping the batch for the next run."""
        assert self._unreleased is not None
        jobs, reason = self._unreleased
        n = self.ledger.defer_jobs(jobs, self.worker, reason, self.config.retry_base_s)
        self._unreleased = None
        return n

    def _embed(self, sources: list[SourceRecord]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each source's own vector and its 'window' vector, in order. A source with
        nothing before it in its session: its window is its own vector (every source
        has one, so the window route never leaves a source out)."""
        own = [source_text(s.speaker, s.text) for s in sources]
        return self._window_vectors(sources, self._windows(sources), own)

    def _window_vectors(self, sources: list[SourceRecord], windows: dict[int, list[str]],
                        own: list[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Encode ``own`` and the turns the windows hold (only those of an earlier batch
        are new texts: the encoder runs a text met twice once), and pool each window.

        Pooling the turns' vectors instead of encoding the joined text gives the window
        route the same retrieval on LoCoMo-10 (Hit@10 0.870 / R@5 0.716 against 0.871 /
        0.718) for a quarter of the encoding: a window's text is three turns long, and
        the encoder was three quarters of consolidation."""
        before = [t for s in sources for t in windows[s.seq][:-1]]
        known = self._known()
        todo = [t for t in dict.fromkeys(own + before) if t not in known]
        vector_of = {t: known[t] for t in own + before if t in known}
        vector_of.update(zip(todo, self.encoder.encode(todo), strict=True))
        if per_text(self.encoder):
            self._recent = vector_of
        vectors = (np.stack([vector_of[t] for t in own]) if own
                   else np.zeros((0, int(self.encoder.dim)), dtype=np.float32))
        return vectors, [_pooled(windows[s.seq], vector_of) if windows[s.seq] else v
                         for s, v in zip(sources, vectors, strict=True)]

    def _known(self) -> dict[str, np.ndarray]:
        """Vectors already made for texts a batch may hold: the last batch's and those
        encoded ahead (taken: the background encoding stops)."""
        known = self._recent
        if self._ahead is not None:
            known = {**known, **self._ahead.take()}
            self._ahead = None
        return known

    def _encode_ahead(self, after_seq: int) -> None:
        """Start encoding the texts of the sources stored after ``after_seq`` (one batch
        of them, in order: what the next claim will most likely take)."""
        if not per_text(self.encoder):
            return
        nxt = self.ledger.sources_after(after_seq, self.config.batch_size)
        texts = [t for t in (source_text(s.speaker, s.text) for s in nxt)
                 if t not in self._recent]
        if texts:
            self._ahead = Prefetch(self.encoder, texts)

    def close(self) -> None:
        """Stop encoding ahead (waits for the encoder call in progress)."""
        if self._ahead is not None:
            self._ahead.take()
            self._ahead = None

    def _windows(self, sources: list[SourceRecord], consecutive: bool = True
                 ) -> dict[int, list[str]]:
        """Source seq -> the texts of the sources before it in its session (at most
        ``WINDOW_BEFORE``) and its own, oldest first: what its 'window' vector pools, as
        a turn is often understood only with the turns it answers. [] for a source
        without a session or first in it. ``consecutive``: the sources of a session in
        this batch follow each other (a batch of jobs), so only the first asks the ledger
        for what came before; otherwise every source does."""
        before: dict[tuple[str, str, str], list[SourceRecord]] = {}
        out: dict[int, list[str]] = {}
        for src in sorted(sources, key=lambda s: s.seq):
            out[src.seq] = []
            if not src.session_id:
                continue
            key = (src.subject_id, src.robot_id, src.session_id)
            if key not in before or not consecutive:  # the first of its session: ask the ledger
                before[key] = self.ledger.session_before(*key, src.seq, WINDOW_BEFORE)
            prior = before[key][-WINDOW_BEFORE:]
            own = source_text(src.speaker, src.text)
            lines = [source_text(r.speaker, r.text) for r in prior]
            # A long turn before would outweigh the turn itself: the oldest go first.
            while lines and sum(len(t) + 1 for t in lines) + len(own) > WINDOW_MAX_CHARS:
                lines.pop(0)
            if lines:
                out[src.seq] = [*lines, own]
            before[key] = [*prior, src]
        return out

    def _reclaim_dead(self) -> int:
        """Jobs are claimed in source order, so a worker that died mid-batch holds up
        every newer job until its lease runs out: end the leases of workers of this
        host whose process is gone (named by ``worker_id``) at once."""
        freed = 0
        for holder in self.ledger.job_holders():
            if holder != self.worker and process_gone(holder):
                freed += self.ledger.expire_leases(holder)
        return freed

    def _reembed_batch(self) -> int:
        """After a change of embedding model: re-embed one batch of done sources
        that lack a vector of the current model; drop old vectors when none is left."""
        if not self._check_model:
            return 0
        name, dim = self.encoder.name, int(self.encoder.dim)
        if not self.ledger.model_changed(name, dim):
            self._check_model = False
            return 0
        sources = self.ledger.sources_to_reembed(name, dim, self.config.batch_size)
        if not sources:
            self.ledger.drop_other_vectors(name, dim)
            self._check_model = False
            return 0
        vectors, windows = self._embed(sources)
        self.ledger.replace_vectors(
            name, [(s.source_id, s.subject_id, v) for s, v in zip(sources, vectors, strict=True)],
            [(s.source_id, s.subject_id, w) for s, w in zip(sources, windows, strict=True)])
        return len(sources)

    def _rewindow_batch(self) -> int:
        """Embed again one batch of 'window' vectors that a forget dropped (the turns
        after a forgotten one), from the sources still stored; 0 when none is missing."""
        epoch = self.ledger.meta_value("vectors_epoch") or ""
        if epoch == self._windows_checked:
            return 0
        sources = self.ledger.sources_without_window(self.encoder.name, self.config.batch_size)
        if not sources:
            self._windows_checked = epoch
            return 0
        # A source left first in its session has its own vector as its window.
        own = [source_text(s.speaker, s.text) for s in sources]
        _, windows = self._window_vectors(sources, self._windows(sources, consecutive=False),
                                          own)
        self.ledger.put_window_vectors(
            self.encoder.name,
            [(s.source_id, s.subject_id, w) for s, w in zip(sources, windows, strict=True)])
        return len(sources)

    def drain(self, progress=None) -> int:
        """Run batches until no job is due and no vector awaits re-embedding;
        returns how many jobs were done. Stops early when a batch only failed
        (its retry waits for the backoff) or was only deferred."""
        total = 0
        try:
            while True:
                report = self.run_once()
                if report.claimed == 0 and report.reembedded == 0:
                    return total
                total += report.done
                if progress and report.claimed:
                    progress(report.claimed)
                if report.claimed and not report.done and (report.failed or report.deferred):
                    return total
        finally:
            self.close()


def _save_now(ledger: Ledger, pack: VectorPack) -> None:
    ledger.save_vector_pack(pack)


def _pooled(texts: list[str], vector_of: dict[str, np.ndarray]) -> np.ndarray:
    """The unit mean of the texts' vectors weighted by their lengths, the last (the
    turn itself) by ``WINDOW_OWN_WEIGHT`` of its length."""
    weights = np.array([len(t) for t in texts], dtype=np.float32)
    weights[-1] *= WINDOW_OWN_WEIGHT
    mean = weights @ np.stack([vector_of[t] for t in texts])
    return (mean / (float(np.linalg.norm(mean)) or 1.0)).astype(np.float32)
