"""Helpers for the graph tests: a deterministic hashing encoder, an extractor that
reads its fact drafts from the event payload (so each test states exactly what
was extracted), and one call that captures and consolidates."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, ConsolidationConfig
from trace_ros.consolidation.extract import ExtractContext
from trace_ros.consolidation.project import GraphProjector
from trace_ros.consolidation.worker import Consolidator
from trace_ros.facts import FactDraft
from trace_ros.ledger import Ledger, SourceRecord

DAY = 86400.0


class HashEncoder:
    """Bag of hashed words, L2-normalised: deterministic and instant."""

    name = "hash-test"
    dim = 64

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
        return out


class PayloadExtractor:
    """Drafts come from ``payload["facts"]``; "@addressee" in participants is
    replaced by the context's addressee. Records every context it was given."""

    name = "payload"

    def __init__(self) -> None:
        self.contexts: dict[str, ExtractContext] = {}

    def extract(self, source: SourceRecord, context: ExtractContext) -> list[FactDraft]:
        self.contexts[source.source_id] = context
        drafts = []
        for spec in source.payload.get("facts", []):
            spec = dict(spec)
            parts = [context.addressee if p == "@addressee" else p
                     for p in spec.pop("participants", [source.speaker])]
            # Like the CPU extractor: no time expression → the session's time, flagged.
            spec.setdefault("anchor_time", context.session_time or source.source_time)
            spec.setdefault("description", source.text)
            spec["cues"] = tuple(spec.get("cues", ()))
            drafts.append(FactDraft(participants=tuple(parts), **spec))
        return drafts


def fact(type_: str = "state_change", **kw: Any) -> dict[str, Any]:
    return {"type": type_, **kw}


def consolidate(ledger: Ledger, config: ConsolidationConfig | None = None,
                extractor: Any = None) -> int:
    projector = GraphProjector(ledger, extractor or PayloadExtractor(), config)
    return Consolidator(ledger, HashEncoder(), config, projector=projector).drain()


def capture(ledger: Ledger, events: Sequence[Event]) -> None:
    results = ingest(ledger, events, CaptureConfig())
    assert all(r.status == "accepted" for r in results), results
