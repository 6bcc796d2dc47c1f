"""Scope isolation as a property: random multi-subject corpora (robots, sessions, shared
words, reused IDs); no query for one scope ever returns, routes or embeds a record of
another, including after a subject is forgotten while a consolidation batch is in
flight and another subject then stores the forgotten IDs.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.consolidation.worker import Consolidator
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.answer import QueryEngine, QueryRequest

WORDS = ["kitchen", "keys", "mug", "red", "garden", "passport", "dentist", "friday", "blue",
         "plant", "water", "drawer"]
EXAMPLES = int(os.environ.get("TRACE_ROS_FUZZ_EXAMPLES", "30"))


class HashEncoder:
    """Deterministic bag-of-words vectors, so the dense route runs without a model."""

    name, dim = "hash-bow", 32

    def __init__(self, during: Callable[[], None] | None = None) -> None:
        self.during = during

    def encode(self, texts: list[str]) -> np.ndarray:
        if self.during is not None:
            hook, self.during = self.during, None
            hook()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
            out[row] /= max(1.0, float(np.linalg.norm(out[row])))
        return out


scopes = st.builds(Scope, st.sampled_from(["a", "b", "c"]), st.sampled_from(["", "r1", "r2"]),
                   st.sampled_from(["", "s1", "s2"]))
events = st.builds(
    lambda scope, words, sid, t: Event("dialogue", scope, " ".join(words), scope.subject_id.upper(),
                                       stamp=1_700_000_000.0 + t, source_id=sid),
    scopes, st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
    st.one_of(st.just(""), st.sampled_from([f"id-{i}" for i in range(12)])),
    st.integers(0, 10_000))
questions = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)


def _check(ledger: Ledger, engine: QueryEngine, scope: Scope, question: str) -> None:
    result = engine.ask(QueryRequest(scope, question))
    routed = {sid for ids in result.routes.values() for sid in ids}
    shown = {e.source_id for e in result.evidence} | set(result.source_ids) | routed
    for rec in ledger.get_sources(sorted(shown)):
        assert rec.subject_id == scope.subject_id, (scope, rec)
        assert not scope.robot_id or rec.robot_id == scope.robot_id, (scope, rec)
        assert not scope.session_id or rec.session_id == scope.session_id, (scope, rec)
    assert len(ledger.get_sources(sorted(shown))) == len(shown), "a shown ID has no source"


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(corpus=st.lists(events, min_size=3, max_size=40), asks=st.lists(
    st.tuples(scopes, questions), min_size=1, max_size=6), race=st.booleans())
def test_no_query_crosses_scopes(corpus: list[Event], asks: list[tuple[Scope, str]],
                                 race: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Path(tmp) / "m.db")
        ingest(ledger, corpus, CaptureConfig())
        a_ids = [s.source_id for s in ledger.sources_in_scope(Scope("a"))]

        def forget_a_and_reuse_ids() -> None:
            ledger.forget(Scope("a"), allow_reingest=True)
            ingest(ledger, [Event("dialogue", Scope("b", "r1", "s1"), f"reused {w}", "B",
                                  stamp=1.0 + i, source_id=sid)
                            for i, (sid, w) in enumerate(zip(a_ids, WORDS * 10, strict=False))],
                   CaptureConfig())

        encoder = HashEncoder(forget_a_and_reuse_ids if race else None)
        Consolidator(ledger, encoder).drain()
        if not race:
            forget_a_and_reuse_ids()
            Consolidator(ledger, encoder).drain()
        # Every vector belongs to a stored source of the same subject.
        bad = ledger.query("SELECT v.owner_id FROM vectors v LEFT JOIN sources s "
                           "ON s.source_id = v.owner_id WHERE s.subject_id IS NULL "
                           "OR s.subject_id != v.subject_id")
        assert not bad, bad
        assert ledger.count_sources("a") == 0
        # Closed before the folder goes: its audit writer opens the ledger on a thread.
        with QueryEngine(ledger, encoder) as engine:
            for scope, question in asks:
                _check(ledger, engine, scope, question)
        ledger.close()
