"""Ask every question through the system, the baselines and the ablated systems.

Scoring looks only at what the reader is shown: the source records of the
packed evidence, in order (an item that shows several records — a window or a
path — counts each record it shows, in order), each mapped to its LoCoMo turn
(an image caption counts as its turn), the first ``TOP_K`` distinct turns —
as for the baselines, whose reader is shown every record of their top turns.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..embed import Encoder
from ..formats import locomo_turn_id
from ..language.text import estimate_tokens
from ..ledger import Ledger, Scope, SourceRecord
from ..query.answer import QueryEngine, QueryRequest
from ..query.pack import EvidenceItem, Pack
from ..query.plan import plan_question
from ..query.readers import Reader
from .baselines import Baselines
from .dataset import Question
from .metrics import TOP_K, QuestionScore, bleu1, distinct, locomo_f1, score_retrieval

Progress = Callable[[int], object]


class SharedEncoder:
    """Wraps the real encoder, remembering each text's vector and encode time.

    With ``replay=True`` a text seen before is served from memory, so the
    baselines and ablated systems use exactly the vector the system computed.
    """

    def __init__(self, inner: Encoder, cache: dict[str, tuple[np.ndarray, float]] | None = None,
                 replay: bool = False) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache = {} if cache is None else cache
        self.replay = replay

    @property
    def dim(self) -> int:
        return self.inner.dim

    def static_encoder(self, stopwords: Iterable[str] = ()) -> Any:
        """The inner encoder's static first stage (``staticembed``); AttributeError
        when it has none."""
        return self.inner.static_encoder(stopwords)

    def replaying(self) -> SharedEncoder:
        return SharedEncoder(self.inner, self.cache, replay=True)

    def encode(self, texts: list[str]) -> np.ndarray:
        if self.replay and texts and all(t in self.cache for t in texts):
            return np.stack([self.cache[t][0] for t in texts])
        t0 = time.perf_counter()
        vecs = self.inner.encode(texts)
        each = (time.perf_counter() - t0) * 1000.0 / max(1, len(texts))
        for text, vec in zip(texts, vecs, strict=True):
            self.cache[text] = (vec, each)
        return vecs


@dataclass
class Shown:
    """What one method showed for one question, and what it answered."""

    source_ids: list[str]
    turns: list[str]
    answer: str
    status: str
    latency_ms: float
    stages: dict[str, float] = field(default_factory=dict)
    context_tokens: int = 0

    def score(self, q: Question) -> QuestionScore:
        retrieval = score_retrieval(self.turns, q.evidence) if q.scorable else None
        return QuestionScore(q.category, retrieval, locomo_f1(self.answer, q.answer, q.category),
                             bleu1(self.answer, q.answer))


def shown_source_ids(evidence: Iterable[Any], limit: int | None = TOP_K) -> list[str]:
    ids: list[str] = []
    for item in evidence:
        records = getattr(item, "records", None)
        if records:
            ids.extend(r.source_id for r in records)
        else:
            ids.append(item.source_id)
    return distinct(ids, limit)


def turns_of(source_ids: Iterable[str], limit: int = TOP_K) -> list[str]:
    return distinct((locomo_turn_id(s) for s in source_ids), limit)


def render_tokens(records: Iterable[SourceRecord]) -> int:
    """Tokens of records rendered as the packer renders evidence."""
    return sum(estimate_tokens(EvidenceItem(r, 0.0, {}).render()) for r in records)


def ask_system(engine: QueryEngine, q: Question) -> Shown:
    """``latency_ms`` is ``QueryEngine.ask`` as a caller sees it; ``stages`` adds
    ``retrieval``: finding, ranking and packing the evidence, the question's
    embedding included, without the reader (what the baselines' latency covers)."""
    t = time.perf_counter()
    result = engine.ask(QueryRequest(Scope(q.sample_id), q.question))
    latency = (time.perf_counter() - t) * 1000.0
    shown = shown_source_ids(result.evidence, None)
    tokens = sum(estimate_tokens(item.render()) for item in result.evidence)
    stages = dict(result.timings_ms)
    stages["retrieval"] = stages.get("total", latency) - stages.get("read", 0.0)
    return Shown(shown, turns_of(shown), result.answer, result.status, latency, stages, tokens)


def read_baseline(ledger: Ledger, reader: Reader, question: str, source_ids: Sequence[str],
                  seqs: Sequence[int], latency_ms: float) -> Shown:
    """The top ``TOP_K`` distinct turns of a ranked list, answered by the system's reader
    from every ranked record of those turns."""
    turns = turns_of(source_ids)
    keep = set(turns)
    chosen = [(s, q) for s, q in zip(source_ids, seqs, strict=True) if locomo_turn_id(s) in keep]
    records = ledger.get_sources_by_seq([q for _, q in chosen])
    pack = Pack(items=[EvidenceItem(records[q], 0.0, {}) for _, q in chosen if q in records])
    out = reader.read(question, plan_question(question), pack)
    cited = set(out.cited_ids) & {i.source_id for i in pack.items}
    status = "missing" if not pack.items else "answered" if cited and out.answer else "abstained"
    answer = out.answer if status == "answered" else ""
    return Shown([s for s, _ in chosen], turns, answer, status, latency_ms)


@dataclass
class QuestionRun:
    question: Question
    system: Shown
    baselines: dict[str, Shown]


def run_questions(ledger: Ledger, engine: QueryEngine, encoder: SharedEncoder | None,
                  reader: Reader, baselines: Baselines, questions: Sequence[Question],
                  progress: Progress | None = None) -> list[QuestionRun]:
    """The system, then each baseline (sharing the system's question vector), per question."""
    runs = []
    for q in questions:
        system = ask_system(engine, q)
        qvec, embed_ms = None, 0.0
        if encoder is not None:
            if q.question not in encoder.cache:
                encoder.encode([q.question])
            qvec, embed_ms = encoder.cache[q.question]
        base = {name: read_baseline(ledger, reader, q.question, b.source_ids, b.seqs, b.latency_ms)
                for name, b in baselines.run(Scope(q.sample_id), q.question, qvec, embed_ms).items()}
        runs.append(QuestionRun(q, system, base))
        if progress:
            progress(1)
    return runs


def run_ablation(engine: QueryEngine, questions: Sequence[Question],
                 progress: Progress | None = None) -> list[Shown]:
    out = []
    for q in questions:
        out.append(ask_system(engine, q))
        if progress:
            progress(1)
    return out
