"""``recall.question_encoder: cascade``: the static question vector first, MiniLM's only
when the vector routes' top 10 and the text search's top 10 disagree."""

from __future__ import annotations

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, MemoryConfig, RecallConfig
from trace_ros.consolidation.worker import Consolidator
from trace_ros.embed import MiniLMEncoder
from trace_ros.errors import ConfigError
from trace_ros.ledger import Ledger, Scope
from trace_ros.query import recall as rc
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.storage.vectorindex import Hit

ALICE = Scope("alice", "r1", "s1")
TURNS = ["I drink my coffee black every morning.", "The parcel comes on Tuesday.",
         "My sister lives in Lisbon now.", "We painted the kitchen yellow last spring.",
         "The robot vacuum gets stuck under the sofa.", "I started learning the cello in May.",
         "Our dog Biscuit hates thunderstorms.", "The dentist moved my appointment to Friday.",
         "I switched to oat milk in my tea.", "The bakery on the corner closed for good.",
         "My running shoes are worn out already.", "We booked a cabin by the lake for August."]
QUESTION = "What does Alice like to drink in the morning?"


class _Counting:
    """The real encoder, noting each text it is asked to encode (its static table is its own)."""

    def __init__(self, inner: MiniLMEncoder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.texts: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.encode(texts)

    def static_encoder(self, stopwords: object = ()) -> object:
        return self.inner.static_encoder(stopwords)


@pytest.fixture
def talk(ledger: Ledger, encoder: MiniLMEncoder) -> Ledger:
    events = [Event("dialogue", ALICE, text, "Alice", stamp=60.0 * (i + 1))
              for i, text in enumerate(TURNS)]
    assert all(r.status == "accepted" for r in ingest(ledger, events, CaptureConfig()))
    Consolidator(ledger, encoder).drain()
    return ledger


def _hits(*seqs: int) -> list[Hit]:
    return [Hit(s, f"id{s}", 1.0) for s in seqs]


def test_agreement_counts_the_text_top_k_found_by_the_vector_routes_rank_by_rank() -> None:
    lexical = _hits(1, 2, 3, 4)
    # Rank by rank over both routes: 5, 1, 6, 2 are the top 4; 3 (rank 3) is not.
    assert rc.agreement(lexical, [_hits(5, 6, 3), _hits(1, 2)], k=4) == 2
    assert rc.agreement(lexical, [_hits(5, 6, 3), _hits(1, 2)], k=5) == 3
    assert rc.agreement(lexical, [], k=4) == 0
    assert rc.agreement([], [_hits(1)], k=4) == 0


def test_cascade_asks_minilm_only_when_agreement_is_below_the_setting(
        talk: Ledger, encoder: MiniLMEncoder) -> None:
    static = QueryEngine(talk, encoder, audit=False, config=RecallConfig(question_encoder="static"))
    full = QueryEngine(talk, encoder, audit=False)
    found = static.recall(QueryRequest(ALICE, QUESTION), {}).routes
    agree = rc.agreement(found["lexical"], [found["dense"], found["window"]])
    assert 0 < agree < 10  # a few text matches, all among the static top 10
    by_static = static.ask(QueryRequest(ALICE, QUESTION)).routes["dense"]
    by_minilm = full.ask(QueryRequest(ALICE, QUESTION)).routes["dense"]
    assert by_static != by_minilm  # the two vectors rank the turns differently
    for setting, second in ((agree, False), (agree + 1, True), (0, False)):
        counting = _Counting(encoder)
        engine = QueryEngine(talk, counting, audit=False,
                             config=RecallConfig(question_encoder="cascade", cascade_agree=setting))
        res = engine.ask(QueryRequest(ALICE, QUESTION))
        assert ("embed_second" in res.timings_ms) is second
        assert bool(counting.texts) is second  # the question, without the name it says
        assert res.routes["dense"] == (by_minilm if second else by_static)
        engine.close()
    static.close()
    full.close()


def test_cascade_settings_are_checked() -> None:
    cfg = MemoryConfig()
    cfg.recall.question_encoder = "cascade"
    cfg.validate()
    for bad in (-1, 11):
        cfg.recall.cascade_agree = bad
        with pytest.raises(ConfigError, match="recall.cascade_agree"):
            cfg.validate()
