"""Sync: push acknowledged sources and tombstones from one ledger to another.

An offline robot keeps its own SQLite ledger and, once back, pushes what it captured to the
fleet's (``trace-ros sync --from sqlite:///robot.db --to postgresql://…``); the same call
copies a whole ledger from one engine to the other. Everything goes through the ledger
contract (``store_sources``, ``forget``, ``add_tombstones``), so:

- it is idempotent: source IDs are deterministic, and the target's ``store_sources`` calls
  the same ID with the same content a duplicate, so a re-run stores nothing twice;
- it is resumable: after each batch the target's ``meta`` records a watermark per source
  ledger (the last source sequence number and the number of the last tombstone sent,
  both in the order the source ledger recorded them), and the next run starts after it.
  The source ledger returns sources only up to a number below which none is still to
  commit (``sources_after``: with many writers one may commit after a later number), so
  a run never passes one over.
  A tombstone recorded after a run but removed earlier (a forget synced in from a third
  ledger, a clock behind) comes after the mark too. A mark written before tombstones
  were numbered (removal time, ID, subject) cannot say which were sent: the next run
  sends every tombstone once more, which changes nothing the target already has;
- a tombstone on the source side forgets that source on the target (and leaves a tombstone
  there, so the target refuses it from then on); run the other way, a forget on the
  target reaches the source. A source the target has forgotten is refused (``rejected``).

Sources keep their known time (when the memory learned them). The target creates a
projection job with each stored source, as capture does: its consolidation rebuilds the
derived rows (vectors, facts, edges). No SQL here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from itertools import groupby
from typing import Any

from .capture import index_all
from .errors import ValidationError
from .storage.records import NewSource, SourceRecord

WATERMARK_PREFIX = "sync.from "


@dataclass
class SyncReport:
    """What one run sent: sources stored, already there, refused; tombstones applied."""

    sources_seen: int = 0
    accepted: int = 0
    duplicate: int = 0
    rejected: int = 0
    tombstones_seen: int = 0
    forgotten: int = 0
    tombstoned: int = 0
    last_seq: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def watermark_key(source_name: str, subject_id: str | None = None) -> str:
    """The target's ``meta`` key of the watermark for ``source_name`` (and one subject)."""
    return WATERMARK_PREFIX + source_name + (f" subject={subject_id}" if subject_id else "")


def _new_source(rec: SourceRecord) -> NewSource:
    return NewSource(rec.source_id, rec.scope, rec.modality, rec.speaker, rec.text, rec.label,
                     rec.confidence, rec.pose,
                     json.dumps(rec.payload, sort_keys=True, ensure_ascii=False),
                     rec.source_time, rec.time_from_receipt, rec.content_hash)


def sync(source: Any, target: Any, source_name: str, *, subject_id: str | None = None,
         batch: int = 500, on_batch: Callable[[int], None] | None = None) -> SyncReport:
    """Push ``source``'s sources and tombstones (of ``subject_id``, or all) to ``target``.

    ``source_name`` identifies the source ledger in the target's watermark (its URL without
    password). ``on_batch(n)`` is called after each committed batch of ``n`` sources or
    tombstones (a progress bar). Raises ``ValidationError`` for a batch size below 1 and
    whatever the engines raise (``LedgerError``)."""
    if batch < 1:
        raise ValidationError("batch", f"must be at least 1, got {batch}")
    key = watermark_key(source_name, subject_id)
    mark = json.loads(target.meta_value(key) or "{}")
    seq, t_seq = int(mark.get("seq", 0)), int(mark.get("tombstone_seq", 0))
    report = SyncReport(last_seq=seq)

    def save() -> None:
        target.put_meta_value(key, json.dumps({"seq": seq, "tombstone_seq": t_seq},
                                              sort_keys=True))

    while rows := source.sources_after(seq, batch, subject_id):
        # One transaction per run of equal known time, so each source keeps its own.
        for known, group in groupby(rows, key=lambda r: r.known_time):
            for res in target.store_sources([_new_source(r) for r in group], now=known):
                setattr(report, res.status, getattr(report, res.status) + 1)
        index_all(target, batch)  # the lexical index of what came
        seq = rows[-1].seq
        report.sources_seen += len(rows)
        report.last_seq = seq
        save()
        if on_batch:
            on_batch(len(rows))
    while stones := source.tombstones_recorded_after(t_seq, batch):
        # A tombstone of unknown subject ('', from before subjects were recorded) reaches
        # what the target holds under its ID, but only a full sync keeps it.
        mine = [s for s in stones if not subject_id or s.subject_id in (subject_id, "")]
        subjects_of: dict[str, set[str]] = {}
        for s in mine:
            subjects_of.setdefault(s.source_id, set()).add(s.subject_id)
        held = [r for r in target.get_sources(list(subjects_of))
                if (not subject_id or r.subject_id == subject_id)
                and subjects_of[r.source_id] & {r.subject_id, ""}]
        if held:
            report.forgotten += len(target.forget(source_ids=[r.source_id for r in held]))
        kept = [(s.source_id, s.removed_at, s.subject_id) for s in mine
                if s.subject_id or not subject_id]
        if kept:
            report.tombstoned += target.add_tombstones(kept)
        t_seq = stones[-1].seq
        report.tombstones_seen += len(stones)
        save()
        if on_batch:
            on_batch(len(stones))
    return report
