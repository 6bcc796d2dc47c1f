"""The records the ledger stores and returns, whichever engine holds them.

Plain frozen dataclasses and vertex-name helpers with no SQL and no engine import: the
layers above (capture, consolidation, the resolver, query, explorer) build and read these,
and every engine in ``trace_ros.storage`` returns them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..errors import ValidationError
from .frozen import fast_init

# Payload key naming the source a record belongs with (an image shared with an
# utterance, a camera snapshot taken as it was said): shown together as one unit.
ATTACHED_TO = "attached_to"
# A 'window' vector pools a source with up to this many sources before it in its session.
WINDOW_BEFORE = 2
# Fact-to-fact edge types that carry a causal dependency.
CAUSAL_TYPES = ("causes", "enables", "prevents")


@fast_init  # one an event in capture (trace_ros.storage.frozen)
@dataclass(frozen=True)
class Scope:
    """Who a record belongs to. Reads always filter by ``subject_id`` first."""

    subject_id: str
    robot_id: str = ""
    session_id: str = ""

    def check(self) -> None:
        if not self.subject_id or not self.subject_id.strip():
            raise ValidationError("scope.subject_id", "required, must not be empty")


@dataclass(frozen=True)
class SourceRecord:
    seq: int
    source_id: str
    subject_id: str
    robot_id: str
    session_id: str
    modality: str
    speaker: str
    text: str
    label: str
    confidence: float | None
    pose: dict[str, Any] | None
    payload: dict[str, Any]
    source_time: float
    time_from_receipt: bool
    known_time: float
    content_hash: str

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> SourceRecord:
        (seq, sid, subj, robot, sess, modality, speaker, text, label, conf, pose, payload,
         stime, from_receipt, ktime, chash) = row
        return cls(seq, sid, subj, robot, sess, modality, speaker, text, label, conf,
                   json.loads(pose) if pose else None, json.loads(payload or "{}"),
                   stime, bool(from_receipt), ktime, chash)

    @property
    def scope(self) -> Scope:
        return Scope(self.subject_id, self.robot_id, self.session_id)

    @property
    def attached_to(self) -> str:
        """The source this record is attached to ('' when it stands alone)."""
        value = self.payload.get(ATTACHED_TO) if isinstance(self.payload, dict) else None
        return value if isinstance(value, str) else ""


@fast_init  # one an event in capture (trace_ros.storage.frozen)
@dataclass(frozen=True)
class NewSource:
    """A validated source ready to store (built by ``capture.prepare``)."""

    source_id: str
    scope: Scope
    modality: str
    speaker: str
    text: str
    label: str
    confidence: float | None
    pose: dict[str, Any] | None
    payload_json: str
    source_time: float
    time_from_receipt: bool
    content_hash: str


class Tombstone(NamedTuple):
    """A forgotten source's content-free mark: its ID, when it was removed, its subject
    (``''``: unknown, left before subjects were recorded) and ``seq``, the order the
    ledger recorded it in (what ``sync`` resumes from: a tombstone recorded later may
    carry an older removal time)."""

    source_id: str
    removed_at: float
    subject_id: str
    seq: int


@fast_init  # one an event in capture (trace_ros.storage.frozen)
@dataclass(frozen=True)
class StoreResult:
    source_id: str
    status: str  # accepted | duplicate | rejected
    field: str = ""
    reason: str = ""
    sequence: int = 0


# Why capture refuses an ID (``StoreResult.reason``; the field is ``source_id``).
OTHER_CONTENT = "already stored with different content"
OTHER_SUBJECT = "already names a source of another subject"
FORGOTTEN = "was forgotten; re-ingest only with allow_reingest"


def seen_before(item: NewSource, prior: tuple[str, str] | None,
                seq: int = 0) -> StoreResult | None:
    """What capture answers for ``item`` when its ID is already stored (``prior``: the
    stored content hash and subject, at ``seq``; ``seq`` 0: earlier in this batch):
    ``duplicate`` for the same content, else ``rejected`` naming ``source_id`` — a
    source ID names one source in the whole ledger. None when it is not stored."""
    if prior is None:
        return None
    content_hash, subject_id = prior
    if subject_id != item.scope.subject_id:
        return StoreResult(item.source_id, "rejected", "source_id", OTHER_SUBJECT)
    if content_hash != item.content_hash:
        return StoreResult(item.source_id, "rejected", "source_id", OTHER_CONTENT)
    return StoreResult(item.source_id, "duplicate", sequence=seq)


# A job's statuses other than done: few at any time, while done jobs only accumulate.
NOT_DONE = ("pending", "running", "failed", "deferred")


@dataclass(frozen=True)
class Job:
    """A claimed job. ``fence`` is the claim's token: completing or failing the job
    only takes effect while the row still carries it (see ``Ledger.held_jobs``)."""

    job_id: int
    source: SourceRecord
    attempts: int
    fence: int = 0


ClaimRow = tuple[int, int, int, int]  # job_id, source_seq, attempts, fence


def still_in_order(jobs: Sequence[Job], held: set[int]) -> list[Job]:
    """Of a claim's ``jobs``, those (by job ID in ``held``) its worker may still write:
    per subject, the jobs before the first one taken away from it. A reclaim after an
    expired lease takes a subject's jobs from its head, and may take only part of the
    old holder's run (a claim stops at its limit); the old holder writing the rest
    would project them before the new holder projects the earlier ones, out of source
    order. In the order of ``jobs``."""
    cut: set[str] = set()
    keep: set[int] = set()
    for job in sorted(jobs, key=lambda j: j.source.seq):
        subject = job.source.subject_id
        if subject in cut:
            continue
        if job.job_id in held:
            keep.add(job.job_id)
        else:
            cut.add(subject)
    return [j for j in jobs if j.job_id in keep]


def take_runs(runs: Iterable[Sequence[ClaimRow]], limit: int,
              max_subjects: int = 0) -> list[ClaimRow]:
    """What one claim takes from subjects' runs of due jobs (each in source order,
    oldest head first): whole runs, subject by subject, until ``limit`` jobs or
    ``max_subjects`` subjects (0: no bound); the last run may be cut. In source order."""
    taken: list[ClaimRow] = []
    subjects = 0
    for run in runs:
        if len(taken) >= limit or (max_subjects and subjects >= max_subjects):
            break
        if run:
            taken.extend(run[:limit - len(taken)])
            subjects += 1
    return sorted(taken, key=lambda r: r[1])


@dataclass(frozen=True)
class AuditRecord:
    """One query's audit row: what was asked, what each route found, what was shown
    and cited. ``query_id`` is allocated by the caller (no write on the request path)."""

    query_id: int
    asked_at: float
    subject_id: str
    scope: dict[str, Any]
    question: str
    plan: dict[str, Any]
    routes: dict[str, Any]
    shown: list[str]
    cited: list[str]
    answer: str
    status: str
    reader: str
    timings: dict[str, float]


def session_vertex(subject_id: str, robot_id: str, session_id: str) -> str:
    return f"session:{subject_id}/{robot_id}/{session_id}"


def topic_vertex(subject_id: str, topic_id: int) -> str:
    return f"topic:{subject_id}/{topic_id}"


def entity_vertex(subject_id: str, name: str) -> str:
    return f"entity:{subject_id}/{name}"


@dataclass(frozen=True)
class SessionRow:
    subject_id: str
    robot_id: str
    session_id: str
    start_time: float
    end_time: float
    n_sources: int
    topic_id: int | None

    @property
    def vertex(self) -> str:
        return session_vertex(self.subject_id, self.robot_id, self.session_id)


@dataclass(frozen=True)
class TopicRow:
    subject_id: str
    topic_id: int
    label: str
    centroid: np.ndarray | None
    n_sessions: int

    @property
    def vertex(self) -> str:
        return topic_vertex(self.subject_id, self.topic_id)
