"""The static first-stage question encoder (``staticembed``) and the engine's use of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from trace_ros import staticembed
from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, MemoryConfig, RecallConfig
from trace_ros.consolidation.worker import Consolidator
from trace_ros.embed import MiniLMEncoder
from trace_ros.errors import ConfigError
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.staticembed import StaticEncoder, cached_table, derive_table, token_weights

ALICE = Scope("alice", "r1", "s1")


def test_a_row_is_the_output_at_the_tokens_own_position() -> None:
    seen: list[np.ndarray] = []

    def run_ids(ids: np.ndarray) -> np.ndarray:
        seen.append(ids)
        # hidden[n, position, dim]: position p of token t holds 10 * t + p.
        return (10.0 * ids[:, :, None] + np.arange(3)[None, :, None]).repeat(2, axis=2)

    table = derive_table(run_ids, vocab_size=5, cls_id=3, sep_id=4, batch=2)
    assert table.shape == (5, 2) and table.dtype == np.float16
    assert table[:, 0].tolist() == [10.0 * t + 1 for t in range(5)]
    assert [len(b) for b in seen] == [2, 2, 1]
    assert all((b[:, 0] == 3).all() and (b[:, 2] == 4).all() for b in seen)


def test_weights_follow_the_rank_and_leave_out_stop_words_and_punctuation() -> None:
    vocab = {"[CLS]": 0, "?": 1, "x": 2, "the": 3, "coffee": 4, "parcel": 5, "##s": 6, "!!": 7}
    w = token_weights(vocab, {"the"})
    assert w[vocab["the"]] == 0 and w[vocab["?"]] == 0 and w[vocab["!!"]] == 0
    # Ranks count from the first whole word ("the"): later (rarer) words weigh more.
    assert 0 < w[vocab["coffee"]] < w[vocab["parcel"]] < w[vocab["##s"]]


def test_a_vector_is_the_normalised_weighted_mean_of_its_rows() -> None:
    table = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float16)
    ids = {"a": [0], "b": [1], "ab": [0, 1], "c": [2], "": []}
    enc = StaticEncoder("m", table, np.array([1.0, 3.0, 0.0], dtype=np.float32), ids.__getitem__)
    got = enc.encode(["ab", "a", "c", ""])
    assert np.allclose(got[0], np.array([1, 3]) / np.sqrt(10))
    assert np.allclose(got[1], [1, 0])
    assert np.allclose(got[2], np.array([1, 1]) / np.sqrt(2))  # only weight-0 tokens: alike
    assert np.allclose(got[3], [0, 0])
    assert got.dtype == np.float32 and enc.encode([]).shape == (0, 2)


def test_the_table_is_derived_once_and_then_read_from_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def derive() -> np.ndarray:
        calls.append(1)
        return np.arange(6, dtype=np.float16).reshape(3, 2)

    path = tmp_path / "t" / "table.npy"
    first = cached_table(path, derive)
    monkeypatch.setattr(staticembed, "_TABLES", {})  # a new process
    again = cached_table(path, derive)
    assert calls == [1] and path.is_file()
    assert isinstance(again, np.memmap) and np.array_equal(first, again)


class _Fake:
    """An encoder whose vectors are chosen per text; ``static`` its first stage."""

    dim = 2

    def __init__(self, name: str, vectors: dict[str, list[float]],
                 static: _Fake | None = None) -> None:
        self.name = name
        self.vectors = vectors
        self.static = static
        self.texts: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return np.array([self.vectors.get(t, [1.0, 0.0]) for t in texts], dtype=np.float32)


class _WithStatic(_Fake):
    def static_encoder(self, stopwords: object = ()) -> _Fake:
        assert self.static is not None
        return self.static


@pytest.fixture
def two_turns(ledger: Ledger) -> Ledger:
    events = [Event("dialogue", ALICE, "I drink my coffee black.", "Alice", stamp=60.0),
              Event("dialogue", ALICE, "The parcel comes on Tuesday.", "Alice", stamp=120.0)]
    assert all(r.status == "accepted" for r in ingest(ledger, events, CaptureConfig()))
    vectors = {"Alice: I drink my coffee black.": [1.0, 0.0],
               "Alice: The parcel comes on Tuesday.": [0.0, 1.0]}
    Consolidator(ledger, _Fake("fake", vectors)).drain()
    return ledger


def _dense(engine: QueryEngine, question: str) -> list[str]:
    return engine.ask(QueryRequest(ALICE, question)).routes["dense"]


@pytest.mark.parametrize("overlap", [True, False])
def test_the_static_setting_ranks_by_the_first_stages_vector(two_turns: Ledger,
                                                             overlap: bool) -> None:
    question = "zzz qqq?"  # no word matches: the order is the vectors'
    static = _Fake("fake", {question: [0.0, 1.0]})
    full = _WithStatic("fake", {question: [1.0, 0.0]}, static)
    by_full = QueryEngine(two_turns, full, config=RecallConfig(overlap_embedding=overlap),
                          audit=False)
    by_static = QueryEngine(two_turns, full, audit=False,
                            config=RecallConfig(question_encoder="static",
                                                overlap_embedding=overlap))
    parcel = two_turns.sources_in_scope(ALICE)[1].source_id
    assert _dense(by_full, question)[0] != parcel
    full.texts.clear()
    assert _dense(by_static, question)[0] == parcel
    assert question not in full.texts and question in static.texts
    by_full.close()
    by_static.close()


def test_an_encoder_without_a_static_table_keeps_its_own_vectors(two_turns: Ledger) -> None:
    question = "zzz qqq?"
    plain = _Fake("fake", {question: [0.0, 1.0]})
    engine = QueryEngine(two_turns, plain, audit=False,
                         config=RecallConfig(question_encoder="static"))
    assert _dense(engine, question)[0] == two_turns.sources_in_scope(ALICE)[1].source_id
    assert question in plain.texts
    engine.close()


def test_an_unknown_question_encoder_is_refused() -> None:
    cfg = MemoryConfig()
    cfg.recall.question_encoder = "tiny"
    with pytest.raises(ConfigError, match="question_encoder"):
        cfg.validate()


def test_the_minilm_table_places_a_text_near_its_minilm_vector(
        encoder: MiniLMEncoder) -> None:
    """The derived table lives in the documents' space: a sentence's static vector is
    nearer its own MiniLM vector than another sentence's."""
    static = encoder.static_encoder({"i", "my", "the", "on"})
    assert static.name == encoder.name
    texts = ["I drink my coffee black.", "The parcel comes on Tuesday."]
    sims = static.encode(texts) @ encoder.encode(texts).T
    assert sims[0, 0] > sims[0, 1] and sims[1, 1] > sims[1, 0]
    assert encoder.static_encoder() is static


def test_warm_derives_the_first_stage_before_the_first_question(two_turns: Ledger) -> None:
    asked: list[object] = []

    class _Counting(_WithStatic):
        def static_encoder(self, stopwords: object = ()) -> _Fake:
            asked.append(stopwords)
            return super().static_encoder(stopwords)

    full = _Counting("fake", {}, _Fake("fake", {}))
    engine = QueryEngine(two_turns, full, audit=False,
                         config=RecallConfig(question_encoder="static"))
    engine.warm()
    assert len(asked) == 1  # loaded at warm-up (the node's configure), not at the question
    _dense(engine, "zzz qqq?")
    assert len(asked) == 1
    engine.close()
    plain = QueryEngine(two_turns, full, audit=False)
    plain.warm()
    assert len(asked) == 1  # the default question encoder derives nothing
    plain.close()
