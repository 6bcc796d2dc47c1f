"""The query pipeline in one place: plan → recall → pack → read → check.

``QueryEngine.ask`` is what the query node, the CLI and the benchmarks call.
Scope filters apply inside every recall route, before ranking. Cited IDs must
be among the IDs shown to the reader, or the answer is withheld (abstained).
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from ..config import RecallConfig
from ..embed import Encoder
from ..errors import ValidationError
from ..ledger import Ledger, Scope
from .pack import EvidenceItem, Pack, pack
from .plan import Plan, plan_question
from .readers import ExtractiveReader, Reader
from .recall import Hit, VectorIndex, lexical, reciprocal_rank_fusion
from .spatial import Region, SpatialAnswer, answer_spatial

ROUTES = ("lexical", "dense")
MAX_QUESTION_BYTES = 4096


@dataclass(frozen=True)
class QueryRequest:
    scope: Scope
    question: str
    as_of_valid: float | None = None
    as_of_known: float | None = None
    token_budget: int = 0
    # Spatial memory (query.spatial): perceptions within a region and a source-time window.
    region: Region | None = None
    window_start: float | None = None
    window_end: float | None = None


@dataclass
class QueryResult:
    status: str  # answered | missing | conflict | abstained
    answer: str
    source_ids: list[str]
    evidence: list[EvidenceItem]
    plan: Plan
    reader: str
    timings_ms: dict[str, float]
    routes: dict[str, list[str]] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    message: str = ""
    left_out: list[str] = field(default_factory=list)

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
        }


class QueryEngine:
    # What ``ablate`` can remove; the benchmark reports any other component as not applicable.
    COMPONENTS: tuple[str, ...] = ROUTES

    def __init__(self, ledger: Ledger, encoder: Encoder | None, reader: Reader | None = None,
                 config: RecallConfig | None = None, *, ablate: Collection[str] = (),
                 audit: bool = True) -> None:
        self.ledger = ledger
        self.encoder = encoder
        self.reader: Reader = reader or ExtractiveReader()
        self.config = config or RecallConfig()
        self.ablate = set(ablate)
        self.audit = audit
        self.index = VectorIndex(ledger, encoder.name) if encoder is not None else None

    def validate(self, req: QueryRequest) -> None:
        req.scope.check()
        question = req.question.strip()
        if not question:
            raise ValidationError("question", "required, must not be empty")
        if len(question.encode("utf-8", "replace")) > MAX_QUESTION_BYTES:
            raise ValidationError("question", f"longer than {MAX_QUESTION_BYTES} bytes")
        if req.token_budget < 0:
            raise ValidationError("token_budget", "must not be negative")

    def recall(self, req: QueryRequest, timings: dict[str, float]) -> dict[str, list[Hit]]:
        """Run every enabled route within the scope; fill per-route timings."""
        cfg = self.config
        routes: dict[str, list[Hit]] = {}
        if "lexical" not in self.ablate:
            t = time.perf_counter()
            routes["lexical"] = lexical(self.ledger, req.scope, req.question, cfg.lexical_k,
                                        req.as_of_valid, req.as_of_known,
                                        weights=(1.0, cfg.speaker_weight))
            timings["recall_lexical"] = _ms(t)
        if "dense" not in self.ablate and self.encoder is not None and self.index is not None:
            t = time.perf_counter()
            qvec = self.encoder.encode([req.question])[0]
            timings["embed"] = _ms(t)
            t = time.perf_counter()
            routes["dense"] = self.index.search(req.scope, qvec, cfg.dense_k,
                                                req.as_of_valid, req.as_of_known)
            timings["recall_dense"] = _ms(t)
        return routes

    def ask(self, req: QueryRequest, now: float | None = None) -> QueryResult:
        """Answer ``req``; raises ``ValidationError`` for a malformed request.

        ``now`` is the caller's clock (a node's ROS clock), recorded as the audit time."""
        self.validate(req)
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        plan = plan_question(req.question)
        spatial = answer_spatial(
            self.ledger, req.scope, req.question, time.time() if now is None else now,
            region=req.region, window=(req.window_start, req.window_end),
            as_of_valid=req.as_of_valid, as_of_known=req.as_of_known,
            limit=self.config.evidence_k)
        if spatial is not None:
            result = _spatial_result(spatial, plan, timings, t0)
            if self.audit:
                self._audit(req, result, time.time() if now is None else now)
            return result
        routes = self.recall(req, timings)

        t = time.perf_counter()
        fused = reciprocal_rank_fusion(routes, self.config.rrf_k)
        candidates_n = self.config.evidence_k * 3
        records = self.ledger.get_sources_by_seq([f.seq for f in fused[:candidates_n]])
        candidates = [EvidenceItem(records[f.seq], f.score, f.ranks)
                      for f in fused[:candidates_n] if f.seq in records]
        timings["recall"] = timings.get("recall_lexical", 0.0) + timings.get("recall_dense", 0.0)
        timings["fuse"] = _ms(t)

        t = time.perf_counter()
        budget = req.token_budget or self.config.token_budget
        packed: Pack = pack(candidates, budget, self.config.evidence_k)
        timings["pack"] = _ms(t)

        t = time.perf_counter()
        out = self.reader.read(req.question, plan, packed)
        timings["read"] = _ms(t)

        shown = set(packed.source_ids)
        cited = [c for c in dict.fromkeys(out.cited_ids) if c in shown]
        if not packed.items:
            status, message = "missing", "no source in scope matches the question"
        elif not cited or not out.answer:
            status = "abstained"
            message = out.note or "the reader cited no shown source"
        else:
            status, message = "answered", out.note
        answer = out.answer if status == "answered" else ""
        timings["total"] = _ms(t0)
        result = QueryResult(
            status=status, answer=answer, source_ids=cited if status == "answered" else [],
            evidence=packed.items, plan=plan, reader=out.reader or self.reader.name,
            timings_ms=timings, routes={k: [h.source_id for h in v] for k, v in routes.items()},
            message=message, left_out=packed.left_out,
        )
        if self.audit:
            self._audit(req, result, time.time() if now is None else now)
        return result

    def _audit(self, req: QueryRequest, res: QueryResult, now: float) -> None:
        sc = req.scope
        with self.ledger.write() as conn:
            conn.execute(
                "INSERT INTO audit (asked_at, subject_id, scope, question, plan, routes, "
                "evidence_ids, cited_ids, answer, status, reader, timings) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (now, sc.subject_id,
                 json.dumps({"subject_id": sc.subject_id, "robot_id": sc.robot_id,
                             "session_id": sc.session_id, "as_of_valid": req.as_of_valid,
                             "as_of_known": req.as_of_known}),
                 req.question, json.dumps(res.plan.to_dict()),
                 json.dumps({k: len(v) for k, v in res.routes.items()}),
                 json.dumps([e.source_id for e in res.evidence]), json.dumps(res.source_ids),
                 res.answer, res.status, res.reader, json.dumps(res.timings_ms)),
            )


def _spatial_result(spatial: SpatialAnswer, plan: Plan, timings: dict[str, float],
                    t0: float) -> QueryResult:
    """A locate/survey answer from perceptions (query.spatial), cited like any other."""
    timings["total"] = _ms(t0)
    evidence = [EvidenceItem(r, 1.0, {"spatial": i + 1}) for i, r in enumerate(spatial.records)]
    status = "answered" if spatial.cited else "missing"
    return QueryResult(status=status, answer=spatial.answer, source_ids=spatial.cited,
                       evidence=evidence, plan=plan, reader=f"spatial:{spatial.kind}",
                       timings_ms=timings, routes={"spatial": spatial.cited},
                       message=spatial.message)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
