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


def test_a_question_in_other_case_or_spacing_is_not_encoded_again(
        filled: Ledger, encoder: MiniLMEncoder) -> None:
    """The vectors are kept under what they are made from (the encoder's token IDs)."""
    runs: list[str] = []

    class Keyed(Counting):
        def vector_key(self, text: str) -> tuple[int, ...]:
            return self.inner.vector_key(text)

    keyed = Keyed(encoder)
    engine = QueryEngine(filled, keyed, audit=False)
    first = engine.ask(QueryRequest(ALICE, "What beverage does she take without milk?"))
    runs = list(keyed.texts)
    again = engine.ask(QueryRequest(ALICE, "what  BEVERAGE does she take without milk?"))
    assert keyed.texts == runs  # the same token IDs: nothing encoded
    assert (again.answer, again.source_ids) == (first.answer, first.source_ids)
    other = engine.ask(QueryRequest(ALICE, "What beverage does she take without milk"))
    assert len(keyed.texts) == len(runs) + 1  # another token (no "?"): encoded
    assert other.status in ("answered", "abstained", "missing")
    engine.close()


def test_texts_with_one_key_have_one_vector(encoder: MiniLMEncoder) -> None:
    texts = ["Where is ALICE's   bike?", "where is alice's bike?", "Where is Alice\u2019s bike?"]
    keys = [encoder.vector_key(t) for t in texts]
    vecs = encoder.encode(texts)
    assert keys[0] == keys[1]
    assert np.array_equal(vecs[0], vecs[1])
    if keys[2] != keys[0]:
        assert not np.array_equal(vecs[2], vecs[0])


def test_the_question_vector_starts_before_the_plan(filled: Ledger, encoder: MiniLMEncoder,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The slowest step starts first: the plan is made while the question is encoded."""
    engine = QueryEngine(filled, encoder, audit=False)
    order: list[str] = []
    begin, plan = engine.begin_recall, engine.plan
    monkeypatch.setattr(engine, "begin_recall",
                        lambda *a, **k: order.append("vector") or begin(*a, **k))
    monkeypatch.setattr(engine, "plan", lambda *a, **k: order.append("plan") or plan(*a, **k))
    result = engine.ask(QueryRequest(ALICE, "What beverage does she take without milk?"))
    assert order == ["vector", "plan"]
    assert result.evidence  # the routes' hits reached the reader
    engine.close()
