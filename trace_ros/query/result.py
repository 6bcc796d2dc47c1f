"""What a question returns (``QueryEngine.ask``): status, answer, cited IDs and the
evidence shown, with the plan, the reader and timings. Its own module so the graph
stage (``paths.py``) can fill it without importing the engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .pack import EvidenceItem
from .plan import Plan


@dataclass
class QueryResult:
    status: str  # answered | missing | conflict | abstained
    answer: str
    source_ids: list[str]
    evidence: list[EvidenceItem]
    plan: Plan
    reader: str
    timings_ms: dict[str, float]
    # Route -> source IDs it contributed, best first (what the audit row records).
    routes: dict[str, list[str]] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    message: str = ""
    left_out: list[str] = field(default_factory=list)
    # The audit row's ID ("" when auditing is off).
    recall_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "answer": self.answer,
            "source_ids": self.source_ids,
            "evidence": [
                {"source_id": e.source_id, "speaker": e.record.speaker,
                 "modality": e.record.modality, "text": e.record.text,
                 "source_time": e.record.source_time, "session_id": e.record.session_id,
                 "score": round(e.score, 6), "label": e.record.label,
                 "confidence": e.record.confidence, "pose": e.record.pose}
                for e in self.evidence
            ],
            "paths": self.paths,
            "plan": self.plan.to_dict(),
            "reader": self.reader,
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
            "message": self.message,
            "recall_id": self.recall_id,
        }
