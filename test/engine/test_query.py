"""Recall and the query pipeline: FTS5, dense MiniLM, fusion, scope isolation, checks."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, RecallConfig
from trace_ros.consolidation.worker import Consolidator
from trace_ros.embed import MiniLMEncoder
from trace_ros.errors import ValidationError
from trace_ros.ledger import Ledger, Scope
from trace_ros.query import recall as rc
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.query.plan import plan_question
from trace_ros.query.recall import (
    Hit,
    VectorIndex,
    fts_match_expression,
    lexical,
    reciprocal_rank_fusion,
)

ALICE = Scope("alice", "r1", "s1")
BOB = Scope("bob", "r1", "s1")
DAY = 86400.0


def _fill(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    events = [
        Event("dialogue", ALICE, "I will pick up the parcel on Tuesday.", "Alice", stamp=1 * DAY),
        Event("dialogue", ALICE, "My sister Carla is visiting from Lisbon next week.", "Alice", stamp=2 * DAY),
        Event("dialogue", ALICE, "Actually, move the parcel pickup to Thursday.", "Alice", stamp=3 * DAY),
        Event("dialogue", ALICE, "I drink my coffee black.", "Alice", stamp=1 * DAY + 60),
        Event("perception", ALICE, "red mug on the kitchen counter", "front_camera", label="red mug",
              pose={"frame_id": "map", "x": 1.0, "y": 2.0, "z": 0.9}, stamp=2 * DAY),
        Event("dialogue", BOB, "Bob's parcel is a secret birthday present.", "Bob", stamp=1 * DAY),
        Event("dialogue", BOB, "Bob drinks green tea every morning.", "Bob", stamp=1 * DAY),
    ]
    results = ingest(ledger, events, CaptureConfig())
    assert all(r.status == "accepted" for r in results)
    assert Consolidator(ledger, encoder).drain() == len(events)


@pytest.fixture
def filled(ledger: Ledger, encoder: MiniLMEncoder) -> Ledger:
    _fill(ledger, encoder)
    return ledger


def test_fts_expression_drops_stopwords_and_quotes() -> None:
    assert fts_match_expression('When is the "parcel" pickup?') == '"parcel" OR "pickup"'
    assert fts_match_expression("what is it?") == ""


def test_lexical_is_scoped_before_ranking(filled: Ledger) -> None:
    hits = lexical(filled, ALICE, "parcel", 10)
    ids = {h.source_id for h in hits}
    texts = {s.text for s in filled.get_sources(list(ids))}
    assert len(hits) == 2 and all("parcel" in t for t in texts)
    assert not any("Bob" in t for t in texts)
    # Bob's scope sees only Bob's record.
    bob_hits = lexical(filled, BOB, "parcel", 10)
    assert [s.speaker for s in filled.get_sources([h.source_id for h in bob_hits])] == ["Bob"]


def test_lexical_stems(filled: Ledger) -> None:
    assert lexical(filled, ALICE, "visits", 5), "porter stemming should match 'visiting'"


def test_dense_recall_finds_paraphrase(filled: Ledger, encoder: MiniLMEncoder) -> None:
    index = VectorIndex(filled, encoder.name)
    qvec = encoder.encode(["What beverage does she take without milk?"])[0]
    hits = index.search(ALICE, qvec, 3)
    top = filled.get_sources([hits[0].source_id])[0]
    assert "coffee" in top.text
    assert all(filled.get_sources([h.source_id])[0].subject_id == "alice" for h in hits)


def test_dense_index_sees_new_vectors_and_forgets(filled: Ledger, encoder: MiniLMEncoder) -> None:
    index = VectorIndex(filled, encoder.name)
    before = len(index.refresh("alice").ids)
    gate = Event("dialogue", ALICE, "The garden gate squeaks.", "Alice", stamp=4 * DAY)
    ingest(filled, [gate], CaptureConfig())
    Consolidator(filled, encoder).drain()
    assert len(index.refresh("alice").ids) == before + 1
    gone = index.refresh("alice").ids[0]
    filled.forget(None, [gone])
    assert gone not in index.refresh("alice").ids


def test_dense_index_skips_the_ledger_only_while_the_generation_holds(
        filled: Ledger, encoder: MiniLMEncoder) -> None:
    index = VectorIndex(filled, encoder.name)
    generation = filled.generation()
    before = len(index.refresh("alice", generation).ids)
    gate = Event("dialogue", ALICE, "The garden gate squeaks.", "Alice", stamp=4 * DAY)
    ingest(filled, [gate], CaptureConfig())
    Consolidator(filled, encoder).drain()
    assert filled.generation() != generation  # vectors are written with a bump
    assert len(index.refresh("alice", generation).ids) == before  # the caller's (old) view
    assert len(index.refresh("alice", filled.generation()).ids) == before + 1


def test_question_is_embedded_beside_the_text_search(filled: Ledger,
                                                     encoder: MiniLMEncoder) -> None:
    engine = QueryEngine(filled, encoder, audit=False)
    question = QueryRequest(ALICE, "What beverage does she take without milk?")
    res = engine.ask(question)
    assert res.routes["dense"] and "embed" in res.timings_ms and "recall_lexical" in res.timings_ms
    assert "coffee" in filled.get_sources([res.routes["dense"][0]])[0].text
    engine.close()  # stops the worker; a later question starts a new one
    again = engine.ask(question)
    assert again.routes["dense"] == res.routes["dense"]


def test_time_views_hide_later_records(filled: Ledger, encoder: MiniLMEncoder) -> None:
    engine = QueryEngine(filled, encoder)
    res = engine.ask(QueryRequest(ALICE, "When is the parcel pickup?", as_of_valid=2 * DAY))
    assert res.status == "answered"
    assert all(e.record.source_time <= 2 * DAY for e in res.evidence)
    assert "Tuesday" in res.answer


def test_rrf_orders_by_fused_rank() -> None:
    routes = {"a": [Hit(1, "x", 0), Hit(2, "y", 0)], "b": [Hit(2, "y", 0), Hit(3, "z", 0)]}
    fused = reciprocal_rank_fusion(routes, k=60)
    assert [f.source_id for f in fused] == ["y", "x", "z"]
    assert fused[0].ranks == {"a": 2, "b": 1}


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("How many times did she call?", "count"),
        ("How long did the trip take?", "temporal_arithmetic"),
        ("When is the parcel pickup?", "temporal_lookup"),
        ("Where does she live now?", "current_state"),
        ("What did she use to drink before that?", "history"),
        ("What colour is the mug?", "fact"),
    ],
)
def test_plan_operations(question: str, operation: str) -> None:
    assert plan_question(question).operation == operation


def test_answer_cites_shown_sources_of_the_subject(filled: Ledger, encoder: MiniLMEncoder) -> None:
    engine = QueryEngine(filled, encoder)
    res = engine.ask(QueryRequest(ALICE, "How does Alice take her coffee?"))
    assert res.status == "answered"
    assert res.source_ids and set(res.source_ids) <= {e.source_id for e in res.evidence}
    cited = filled.get_sources(res.source_ids)
    assert all(s.subject_id == "alice" for s in cited)
    assert "black" in res.answer
    assert res.reader == "extractive"
    assert {"embed", "recall", "pack", "read", "total"} <= set(res.timings_ms)
    assert res.recall_id and res.to_dict()["recall_id"] == res.recall_id
    assert engine.flush()
    rows = filled.query("SELECT query_id, routes, status FROM audit")
    assert [(str(r[0]), r[2]) for r in rows] == [(res.recall_id, "answered")]
    links = filled.query("SELECT source_id, role FROM audit_sources WHERE query_id = ?",
                         (int(res.recall_id),))
    assert {s for s, role in links if role == "shown"} == {e.source_id for e in res.evidence}
    assert {s for s, role in links if role == "cited"} == set(res.source_ids)
    engine.close()


def test_current_state_prefers_newest_revision(filled: Ledger, encoder: MiniLMEncoder) -> None:
    res = QueryEngine(filled, encoder).ask(QueryRequest(ALICE, "When is the parcel pickup now?"))
    assert res.status == "answered" and "Thursday" in res.answer


def test_scope_isolation_in_answers(filled: Ledger, encoder: MiniLMEncoder) -> None:
    res = QueryEngine(filled, encoder).ask(QueryRequest(BOB, "What does he drink every morning?"))
    assert all(e.record.subject_id == "bob" for e in res.evidence)
    assert "green tea" in res.answer
    res = QueryEngine(filled, encoder).ask(QueryRequest(Scope("carol"), "What does he drink?"))
    assert res.status == "missing" and res.source_ids == [] and res.evidence == []


def test_abstains_when_nothing_matches(filled: Ledger, encoder: MiniLMEncoder) -> None:
    res = QueryEngine(filled, encoder).ask(QueryRequest(ALICE, "Quantum chromodynamics lattice?"))
    assert res.status in {"abstained", "missing"} and res.answer == "" and res.source_ids == []


def test_ablation_and_budget(filled: Ledger, encoder: MiniLMEncoder) -> None:
    lexical_only = QueryEngine(filled, encoder, ablate={"dense"})
    res = lexical_only.ask(QueryRequest(ALICE, "parcel"))
    assert "recall_dense" not in res.timings_ms and res.evidence
    tiny = QueryEngine(filled, encoder, config=RecallConfig(token_budget=15))
    res = tiny.ask(QueryRequest(ALICE, "parcel pickup coffee mug"))
    assert len(res.evidence) <= 1 and res.left_out


@pytest.mark.parametrize(
    ("req", "field"),
    [
        (QueryRequest(Scope(""), "hi"), "scope.subject_id"),
        (QueryRequest(ALICE, "   "), "question"),
        (QueryRequest(ALICE, "x" * 5000), "question"),
        (QueryRequest(ALICE, "hi", token_budget=-1), "token_budget"),
    ],
)
def test_bad_requests_name_the_field(filled: Ledger, encoder: MiniLMEncoder, req: QueryRequest,
                                     field: str) -> None:
    with pytest.raises(ValidationError) as err:
        QueryEngine(filled, encoder).ask(req)
    assert err.value.field == field


def test_lexical_subject_prefilter_is_exact(ledger: Ledger) -> None:
    events = [Event("dialogue", Scope(subj), f"the lamp in room {subj}", "X", stamp=1.0)
              for subj in ("conv-2", "conv-2-b", "conv-26", "***")]
    ingest(ledger, events, CaptureConfig())
    for subj in ("conv-2", "conv-2-b", "conv-26", "***"):
        hits = lexical(ledger, Scope(subj), "lamp", 10)
        assert [s.subject_id for s in ledger.get_sources([h.source_id for h in hits])] == [subj]


@pytest.mark.parametrize("question", ["Where is the red mug?", "Where did you last see the red mug?",
                                      "Is the parcel pickup still on Tuesday?"])
def test_present_state_questions_are_current(question: str) -> None:
    assert plan_question(question).current


def test_audit_rows_are_batched_off_the_request_path(filled: Ledger) -> None:
    engine = QueryEngine(filled, None)
    results = [engine.ask(QueryRequest(ALICE, f"parcel pickup {i}?")) for i in range(20)]
    ids = [r.recall_id for r in results]
    assert len(set(ids)) == 20 and all(i.isdigit() for i in ids)
    assert engine.flush()
    assert engine.auditor is not None and engine.auditor.written == 20
    assert engine.auditor.batches < 20  # one transaction holds many rows
    stored = {str(r[0]) for r in filled.query("SELECT query_id FROM audit")}
    assert stored == set(ids)
    routes = json.loads(filled.query("SELECT routes FROM audit WHERE query_id = ?",
                                     (int(ids[0]),))[0][0])
    assert routes["lexical"] and set(routes["lexical"]) <= {
        s.source_id for s in filled.sources_in_scope(Scope("alice"))}
    engine.close()


def test_close_writes_what_is_queued_and_forget_removes_audit_links(filled: Ledger) -> None:
    engine = QueryEngine(filled, None)
    res = engine.ask(QueryRequest(ALICE, "When is the parcel pickup?"))
    engine.close()
    qid = int(res.recall_id)
    assert filled.query("SELECT count(*) FROM audit WHERE query_id = ?", (qid,))[0][0] == 1
    shown = res.evidence[0].source_id
    filled.forget(None, [shown])
    assert filled.query("SELECT count(*) FROM audit WHERE query_id = ?", (qid,))[0][0] == 0
    assert filled.query("SELECT count(*) FROM audit_sources WHERE query_id = ?", (qid,))[0][0] == 0
    off = QueryEngine(filled, None, audit=False).ask(QueryRequest(ALICE, "parcel?"))
    assert off.recall_id == ""


def test_an_audit_row_queued_before_a_forget_is_not_written_after_it(filled: Ledger) -> None:
    """The writer is behind the request path: a forget can land between the answer and
    the audit write. The row (which may quote the forgotten text) must not appear."""
    from trace_ros.ledger import AuditRecord

    engine = QueryEngine(filled, None, audit=False)
    res = engine.ask(QueryRequest(ALICE, "When is the parcel pickup?"))
    shown = [e.source_id for e in res.evidence]
    record = AuditRecord(query_id=424242, asked_at=1.0, subject_id="alice", scope={},
                         question="When is the parcel pickup?", plan={}, routes={},
                         shown=shown, cited=res.source_ids, answer=res.answer,
                         status=res.status, reader="extractive", timings={})
    filled.forget(None, [shown[0]])
    assert filled.write_audit([record]) == 0
    assert filled.query("SELECT count(*) FROM audit WHERE query_id = 424242")[0][0] == 0



class _EagerOrder:
    """Every place made at once, as the index did before it made them on demand."""

    def __init__(self, sv: Any) -> None:
        rows = np.argsort(sv.seqs, kind="stable")
        self.n = len(rows)
        self._pos = {int(sv.seqs[r]): i for i, r in enumerate(rows)}
        self._places = [rc.Place(int(sv.seqs[r]), sv.ids[r], (sv.robot[r], sv.session[r]),
                                 sv.speaker[r], float(sv.source_time[r])) for r in rows]
        self._known = [float(sv.known_time[r]) for r in rows]

    def positions(self, seqs: list[int]) -> list[int] | None:
        return [self._pos[s] for s in seqs] if all(s in self._pos for s in seqs) else None

    def place(self, i: int) -> rc.Place:
        return self._places[i]

    def known(self, i: int) -> float:
        return self._known[i]


def test_places_made_on_demand_are_those_made_at_once(filled: Ledger,
                                                     encoder: MiniLMEncoder) -> None:
    # A subject's first question no longer makes the place of every embedded source: the
    # places and neighbours made on demand are those made at once, for every scope, time
    # view and span; a seq without a vector goes to the ledger either way.
    other = Scope("alice", "r2", "s2")
    more = [Event("dialogue", ALICE if i % 3 else other, f"Turn {i} about the garden shed.",
                  "Alice" if i % 2 else "Robot", stamp=5 * DAY + i * 60) for i in range(9)]
    ingest(filled, more, CaptureConfig())
    Consolidator(filled, encoder).drain()
    sv = VectorIndex(filled, encoder.name).refresh("alice")
    eager = replace(sv, _order=_EagerOrder(sv))
    seqs = sorted(int(s) for s in sv.seqs)
    known = sorted(float(k) for k in sv.known_time)
    for scope in (Scope("alice"), ALICE, other, Scope("alice", "r1")):
        for view in ((None, None), (5 * DAY + 200, None), (None, known[len(known) // 2])):
            for span in (0, 1, 2):
                for chosen in (seqs, seqs[::2], seqs[-1:], seqs[1:3], []):
                    got = rc._places_in_memory(sv, scope, chosen, span, *view)
                    assert got == rc._places_in_memory(eager, scope, chosen, span, *view)
                    assert got is not None and set(got[0]) >= set(chosen)
    assert rc._places_in_memory(sv, ALICE, [seqs[0], 10**9], 1, None, None) is None
    assert rc._places_in_memory(eager, ALICE, [seqs[0], 10**9], 1, None, None) is None
