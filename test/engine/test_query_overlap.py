"""The overlap's paired timing on a kept ledger (``tools/query_overlap.py``, issue 16):
both settings of ``recall.overlap_embedding`` ask every question, show and answer alike,
and the worker's hand-over is stamped in order; by default the question is embedded on
the asking thread."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import query_overlap  # (tools/ is on the path: pytest.ini)

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, RecallConfig, load_config
from trace_ros.consolidation.worker import Consolidator
from trace_ros.embed import MiniLMEncoder
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.answer import QueryEngine, QueryRequest


def test_both_settings_ask_every_question_and_answer_alike(
        kept_locomo: tuple[Path, Path], encoder: MiniLMEncoder) -> None:
    db, data = kept_locomo
    got = query_overlap.compare(db, data, reps=2, encoder=encoder)
    assert got["questions"] == 3 and got["reps"] == 2 and got["same"] is True
    for setting in query_overlap.SETTINGS:
        assert got[setting]["wall"] > 0 and got[setting]["cpu"] > 0
        assert got[setting]["total"] > 0 and got[setting]["read"] > 0
    # Only the overlap hands the embedding over to the worker; in line it runs here.
    assert got["on"]["handoff"] > 0 and got["on"]["embed_wait"] > 0
    assert got["off"]["handoff"] == 0 and got["off"]["embed"] > 0
    assert 0.0 <= got["paired"]["on_sooner"] <= 1.0


def test_the_hand_over_is_stamped_in_order(kept_locomo: tuple[Path, Path],
                                           encoder: MiniLMEncoder) -> None:
    db, _ = kept_locomo
    cfg = load_config(None, None, {"ledger.db_path": str(db)})
    with Ledger(db, cfg.ledger) as ledger:
        engine = QueryEngine(ledger, encoder, config=RecallConfig(overlap_embedding=True),
                             audit=False)
        stamps: dict[str, float] = {}
        query_overlap.timed(engine, stamps)
        engine.ask(QueryRequest(Scope("mini"), "Where is Miso's bed now?"))
        engine.close()
    assert stamps["begin"] <= stamps["start"] <= stamps["done"] <= stamps["woke"]


def test_a_missing_ledger_is_refused(tmp_path: Path) -> None:
    assert query_overlap.main([str(tmp_path / "none.db"), "--data", "x.json"]) == 2


class _Recording:
    """An encoder that records the thread each text is embedded on."""

    name = "fake"
    dim = 2

    def __init__(self) -> None:
        self.threads: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.threads += [threading.current_thread().name] * len(texts)
        return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)


def test_by_default_the_question_is_embedded_on_the_asking_thread(ledger: Ledger) -> None:
    scope = Scope("alice", "r1", "s1")
    assert ingest(ledger, [Event("dialogue", scope, "The parcel comes on Tuesday.", "Alice",
                                 stamp=60.0)], CaptureConfig())[0].status == "accepted"
    enc = _Recording()
    Consolidator(ledger, enc).drain()
    enc.threads.clear()
    assert RecallConfig().overlap_embedding is False
    engine = QueryEngine(ledger, enc, audit=False)
    engine.ask(QueryRequest(scope, "When does the parcel come?"))
    engine.close()
    assert enc.threads and set(enc.threads) == {threading.current_thread().name}
    assert engine._pool is None  # no worker thread was started
