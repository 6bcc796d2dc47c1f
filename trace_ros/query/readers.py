"""Readers turn packed evidence into an answer that cites source IDs.

``ExtractiveReader`` needs no model: it answers with the sentence of the shown
evidence that best matches the question, and cites the record it came from.
Every reader returns a ``ReaderOutput``; the checks in ``answer.py`` decide
whether its citations stand.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..config import ReaderConfig
from ..errors import ModelUnavailableError
from .pack import EvidenceItem, Pack
from .plan import Plan
from .text import content_terms, stem


@dataclass
class ReaderOutput:
    answer: str
    cited_ids: list[str] = field(default_factory=list)
    reader: str = ""
    note: str = ""


class Reader(Protocol):
    name: str

    def read(self, question: str, plan: Plan, pack: Pack) -> ReaderOutput: ...


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _terms(text: str) -> set[str]:
    return {stem(t) for t in content_terms(text)}


def format_day(epoch: float) -> str:
    t = time.gmtime(epoch)
    return f"{t.tm_mday} {time.strftime('%B %Y', t)}"


@dataclass
class _Scored:
    item: EvidenceItem
    overlap: float
    relevance: float
    sentence: str


class ExtractiveReader:
    """Answers with the best-matching evidence sentence; abstains when nothing matches."""

    name = "extractive"

    def __init__(self, prior_weight: float = 0.3, near_best: float = 0.8) -> None:
        self.prior_weight = prior_weight
        self.near_best = near_best

    def _score(self, q_terms: set[str], pos: int, item: EvidenceItem) -> _Scored:
        rec = item.record
        best_sentence, best_hits = rec.text, -1
        for sentence in _SENTENCE.split(rec.text) or [rec.text]:
            hits = len(q_terms & _terms(sentence))
            if hits > best_hits:
                best_sentence, best_hits = sentence, hits
        record_hits = len(q_terms & _terms(f"{rec.speaker} {rec.label} {rec.text}"))
        overlap = record_hits / max(1, len(q_terms))
        return _Scored(item, overlap, overlap + self.prior_weight / (1 + pos), best_sentence)

    def read(self, question: str, plan: Plan, pack: Pack) -> ReaderOutput:
        q_terms = _terms(question)
        scored = [self._score(q_terms, pos, item) for pos, item in enumerate(pack.items)]
        scored = [s for s in scored if s.overlap > 0]
        if not scored:
            return ReaderOutput("", [], self.name, "no shown evidence matches the question")
        best = max(s.relevance for s in scored)
        near = [s for s in scored if s.relevance >= self.near_best * best]
        by_time = sorted(near, key=lambda s: (s.item.record.source_time, s.item.record.seq))
        if plan.current:
            # Revisions of one state match the question about equally well in content;
            # recall order must not decide which is current, so compare overlap only.
            top = max(s.overlap for s in scored)
            revisions = [s for s in scored if s.overlap >= self.near_best * top]
            chosen = [max(revisions, key=lambda s: (s.item.record.source_time, s.item.record.seq))]
        elif plan.operation == "history":
            chosen = by_time
        elif plan.operation in ("count", "list"):
            chosen = sorted(near, key=lambda s: -s.relevance)[:5]
        else:
            chosen = [max(scored, key=lambda s: s.relevance)]
        parts = []
        for s in chosen:
            rec = s.item.record
            text = s.sentence.strip()
            if plan.shape == "temporal" or plan.operation == "history":
                text = f"{format_day(rec.source_time)}: {text}"
            parts.append(text)
        return ReaderOutput("; ".join(parts), [s.item.source_id for s in chosen], self.name)


def make_reader(config: ReaderConfig, lease_path: Path | None = None) -> Reader:
    """The reader named by ``config.kind``.

    ``qwen`` raises ``ModelUnavailableError`` when its local weights cannot be
    loaded or the GPU does not admit it; ``auto`` then falls back to the
    extractive reader. ``lease_path`` is the GPU lease table shared by the nodes.
    """
    if config.kind == "extractive":
        return ExtractiveReader()
    try:
        from ..admission import Admission
        from .qwen_reader import QwenReader
    except ImportError as exc:
        if config.kind == "qwen":
            raise ModelUnavailableError(f"qwen reader unavailable: {exc}") from exc
        return ExtractiveReader()
    admission = (Admission(lease_path, config.gpu_reserve_mb << 20)
                 if lease_path is not None else None)
    try:
        return QwenReader(config, admission)
    except ModelUnavailableError:
        if config.kind == "qwen":
            raise
        return ExtractiveReader()
