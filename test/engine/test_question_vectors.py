"""A question asked again is answered from its kept vector, with the same answer."""

from __future__ import annotations

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.consolidation.worker import Consolidator
from trace_ros.embed import MiniLMEncoder
from trace_ros.ledger import Ledger, Scope
from trace_ros.query import answer as answer_mod
from trace_ros.query.answer import QueryEngine, QueryRequest

ALICE = Scope("alice", "r1", "s1")


class Counting:
    """The real encoder, counting the texts it is asked to encode."""

    def __init__(self, inner: MiniLMEncoder) -> None:
        self.inner = inner
        self.name = inner.name
        self.texts: list[str] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    def encode(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.encode(texts)


@pytest.fixture
def filled(ledger: Ledger, encoder: MiniLMEncoder) -> Ledger:
    events = [Event("dialogue", ALICE, "I drink my coffee black.", "Alice", stamp=60.0),
              Event("dialogue", ALICE, "The parcel comes on Tuesday.", "Alice", stamp=120.0)]
    assert all(r.status == "accepted" for r in ingest(ledger, events, CaptureConfig()))
    Consolidator(ledger, encoder).drain()
    return ledger


def test_a_repeated_question_skips_the_encoder(filled: Ledger, encoder: MiniLMEncoder) -> None:
    counting = Counting(encoder)
    engine = QueryEngine(filled, counting, audit=False)
    question = QueryRequest(ALICE, "What beverage does she take without milk?")
    first = engine.ask(question)
    asked = list(counting.texts)
    again = engine.ask(question)
    assert counting.texts == asked  # nothing encoded the second time
    assert (again.answer, again.source_ids, again.routes) == (first.answer, first.source_ids,
                                                             first.routes)
    vec = engine._question_vector(asked[0])
    assert not vec.flags.writeable
    assert np.array_equal(vec, encoder.encode([asked[0]])[0])
    engine.close()


def test_only_the_last_questions_are_kept(filled: Ledger, encoder: MiniLMEncoder,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answer_mod, "QUESTION_VECTORS", 2)
    counting = Counting(encoder)
    engine = QueryEngine(filled, counting, audit=False)
    for text in ("coffee", "parcel", "coffee", "tuesday", "parcel"):
        engine._question_vector(text)
    # "coffee" was used again before "tuesday" came, so "parcel" was the oldest and went.
    assert counting.texts == ["coffee", "parcel", "tuesday", "parcel"]
    engine.close()
