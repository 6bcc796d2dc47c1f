"""Bad input as a property (hypothesis): no crash, each rejection names a field, and
the valid records around the bad ones are all stored.

Strategies mix empty, huge and deeply nested values, control characters, NUL, lone
surrogates, NaN/negative/far-future numbers, nulls, wrong types and conflicting IDs
into ``Event``s (dialogue and perception), query requests, forget calls and JSONL lines.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trace_ros.capture import Event, ingest, prepare
from trace_ros.config import CaptureConfig
from trace_ros.errors import ValidationError
from trace_ros.formats import EventError, read_jsonl_lines
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.answer import QueryEngine, QueryRequest

EVENT_FIELDS = {"modality", "scope", "scope.subject_id", "scope.robot_id", "scope.session_id",
                "speaker", "actor", "text", "description", "label", "payload_json", "confidence",
                "pose", "pose.header.frame_id", "header.stamp", "source_id", "record", "line",
                "stamp"}
SCOPE_FIELDS = {"scope", "scope.subject_id", "scope.robot_id", "scope.session_id"}
QUERY_FIELDS = SCOPE_FIELDS | {"question", "token_budget", "as_of_valid", "as_of_known"}
CFG = CaptureConfig()
# More examples on demand: TRACE_ROS_FUZZ_EXAMPLES=3000 pytest test/engine/test_bad_input_props.py
EXAMPLES = int(os.environ.get("TRACE_ROS_FUZZ_EXAMPLES", "150"))
PROPS = settings(max_examples=EXAMPLES, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture])

# -- strategies ------------------------------------------------------------------

surrogate = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
control = st.characters(max_codepoint=0x1F)
nasty_text = st.one_of(
    st.just(""), st.just("   "), st.just("\x00"), st.text(max_size=40),
    st.text(alphabet=control, max_size=20),
    st.builds(lambda a, s, b: a + s + b, st.text(max_size=10), surrogate, st.text(max_size=10)),
    st.builds(lambda a, b: a + "\x00" + b, st.text(max_size=10), st.text(max_size=10)),
    st.integers(1, 70_000).map(lambda n: "x" * n),
    st.integers(1, 20_000).map(lambda n: "[" * n + "]" * n),
)
wrong_type = st.one_of(st.none(), st.integers(), st.floats(), st.booleans(),
                       st.lists(st.integers(), max_size=3),
                       st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))
any_text = st.one_of(nasty_text, wrong_type)
nasty_number = st.one_of(st.none(), st.floats(), st.just(float("nan")), st.just(-1.0),
                         st.just(1e18), st.integers(-10**20, 10**20), st.text(max_size=5),
                         st.booleans())
nasty_payload = st.one_of(
    st.none(), nasty_text, wrong_type,
    st.integers(1, 20_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.recursive(st.one_of(st.none(), st.integers(), st.text(max_size=8), st.floats()),
                 lambda kids: st.one_of(st.lists(kids, max_size=3),
                                        st.dictionaries(st.text(max_size=5), kids, max_size=3)),
                 max_leaves=20).map(lambda v: {"v": v}),
)
nasty_pose = st.one_of(
    st.none(), wrong_type, nasty_text,
    st.dictionaries(st.sampled_from(["frame_id", "x", "y", "z", "qw", "extra"]),
                    st.one_of(nasty_number, nasty_text), max_size=6),
)


@st.composite
def nasty_events(draw: st.DrawFn) -> Event:
    return Event(
        modality=draw(st.one_of(st.sampled_from(["dialogue", "perception"]), any_text)),
        scope=Scope(draw(st.one_of(st.just("bad"), any_text)), draw(any_text), draw(any_text)),
        text=draw(any_text), speaker=draw(any_text), label=draw(any_text),
        confidence=draw(nasty_number), pose=draw(nasty_pose), payload=draw(nasty_payload),
        stamp=draw(nasty_number), source_id=draw(st.one_of(st.just(""), any_text)),
    )


def good_event(i: int, modality: str = "dialogue") -> Event:
    return Event(modality, Scope("good", "r1", f"s{i % 3}"), f"good record number {i}",
                 "Goodspeaker", label="mug" if modality == "perception" else "",
                 confidence=0.5 if modality == "perception" else None,
                 stamp=1_700_000_000.0 + i, source_id=f"good-{i}")


@pytest.fixture
def ledger() -> Iterator[Ledger]:
    with tempfile.TemporaryDirectory() as tmp:
        led = Ledger(Path(tmp) / "memory.db")
        yield led
        led.close()


# -- properties --------------------------------------------------------------------


@PROPS
@given(nasty_events())
def test_prepare_never_crashes_and_names_the_field(event: Event) -> None:
    try:
        item = prepare(event, CFG)
    except ValidationError as exc:
        assert exc.field in EVENT_FIELDS, exc
        assert exc.reason
        return
    # Accepted: it is something that can be stored and read back as it was given.
    assert item.text and "\x00" not in item.text + item.speaker + item.scope.subject_id
    item.text.encode("utf-8")
    json.loads(item.payload_json)


@PROPS
@given(st.lists(nasty_events(), min_size=1, max_size=12), st.integers(1, 20), st.randoms())
def test_valid_records_around_bad_ones_are_all_stored(ledger: Ledger, bad: list[Event],
                                                      n_good: int, rnd: Any) -> None:
    base = ledger.count_sources("good")
    offset = base  # unique IDs across examples
    goods = [good_event(offset + i, rnd.choice(["dialogue", "perception"]))
             for i in range(n_good)]
    stream: list[Event] = goods + bad
    rnd.shuffle(stream)
    # Conflicting IDs: the same ID as an earlier good record, other content.
    stream += [Event("dialogue", g.scope, g.text + " (changed)", g.speaker, stamp=g.stamp,
                     source_id=g.source_id) for g in goods[:3]]
    results = ingest(ledger, stream, CFG)
    assert len(results) == len(stream)
    by_event = dict(zip(map(id, stream), results, strict=True))
    for g in goods:
        assert by_event[id(g)].status == "accepted", by_event[id(g)]
    for r in results:
        if r.status == "rejected":
            assert r.field in EVENT_FIELDS and r.reason, r
    assert ledger.count_sources("good") == base + n_good
    stored = ledger.get_sources([g.source_id for g in goods])
    assert [s.text for s in stored] == [g.text for g in goods]
    assert ledger.integrity_check() == "ok"


@PROPS
@given(scope=st.builds(Scope, st.one_of(st.just("good"), nasty_text), nasty_text, nasty_text),
       question=nasty_text, as_of=st.one_of(st.none(), st.floats(), st.just(-1.0)),
       budget=st.integers(-5, 10**6))
def test_query_never_crashes_and_never_leaks(ledger: Ledger, scope: Scope, question: str,
                                             as_of: float | None, budget: int) -> None:
    if ledger.count_sources() == 0:
        ingest(ledger, [good_event(i) for i in range(5)]
               + [Event("dialogue", Scope("other"), "other subject's secret record", "O",
                        stamp=1.0, source_id="other-1")], CFG)
    try:
        with QueryEngine(ledger, None, audit=True) as engine:  # its audit writer is a thread
            result = engine.ask(QueryRequest(scope, question, as_of_valid=as_of,
                                             token_budget=budget))
    except ValidationError as exc:
        assert exc.field in QUERY_FIELDS, exc
        return
    assert all(e.record.subject_id == scope.subject_id for e in result.evidence)
    if as_of is not None and math.isfinite(as_of):
        assert all(e.record.source_time <= as_of for e in result.evidence)


@PROPS
@given(subject=st.one_of(st.none(), nasty_text),
       ids=st.lists(st.one_of(nasty_text, st.sampled_from(["good-0", "other-1", "%", "_"])),
                    max_size=5))
def test_forget_never_crashes_and_removes_only_what_was_named(
        ledger: Ledger, subject: str | None, ids: list[str]) -> None:
    if ledger.count_sources() == 0:
        ingest(ledger, [good_event(i) for i in range(3)]
               + [Event("dialogue", Scope("other"), "other record", "O", stamp=1.0,
                        source_id="other-1")], CFG)
    before = {s.source_id: s.subject_id for s in ledger.sources_in_scope(Scope("good"))}
    before.update({s.source_id: s.subject_id for s in ledger.sources_in_scope(Scope("other"))})
    scope = Scope(subject) if subject is not None else None
    try:
        removed = ledger.forget(scope, ids, allow_reingest=True)
    except ValidationError as exc:
        assert exc.field in SCOPE_FIELDS or exc.field.startswith("source_ids["), exc
        return
    for sid in removed:
        assert sid in ids or (scope is not None and before.get(sid) == scope.subject_id)
        if scope is not None:
            assert before.get(sid) == scope.subject_id
    ingest(ledger, [good_event(i) for i in range(3)]
           + [Event("dialogue", Scope("other"), "other record", "O", stamp=1.0,
                    source_id="other-1")], CFG)


jsonl_bad_line = st.one_of(
    st.binary(max_size=60).filter(lambda b: b"\n" not in b and b"\r" not in b),
    st.builds(lambda d: json.dumps(d).encode(), st.dictionaries(
        st.sampled_from(["subject_id", "text", "speaker", "stamp", "confidence", "pose",
                         "payload", "modality", "source_id", "scope", "label"]),
        st.one_of(wrong_type, nasty_number, nasty_text.filter(lambda t: len(t) < 2000)),
        max_size=6)),
    st.integers(1, 5_000).map(lambda n: b"[" * n + b"]" * n),
    st.just(b"null"), st.just(b'"text"'), st.just(b"{}"),
)


@PROPS
@given(bad=st.lists(jsonl_bad_line, min_size=1, max_size=8), n_good=st.integers(1, 8),
       rnd=st.randoms())
def test_jsonl_good_lines_stored_bad_lines_reported(ledger: Ledger, bad: list[bytes],
                                                    n_good: int, rnd: Any) -> None:
    offset = ledger.count_sources("good")
    good = [json.dumps({"subject_id": "good", "speaker": "G", "stamp": 1_700_000_000 + offset + i,
                        "text": f"jsonl line {offset + i}", "source_id": f"jl-{offset + i}"}
                       ).encode() for i in range(n_good)]
    lines = good + bad
    rnd.shuffle(lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        items = list(read_jsonl_lines(path))
    events = [e for _w, e in items if not isinstance(e, EventError)]
    for _w, e in items:
        if isinstance(e, EventError):
            assert e.error.field in EVENT_FIELDS, e
    results = ingest(ledger, events, CFG)
    for r in results:
        if r.status == "rejected":
            assert r.field in EVENT_FIELDS, r
    assert ledger.count_sources("good") >= offset + n_good
    assert len(ledger.get_sources([f"jl-{offset + i}" for i in range(n_good)])) == n_good
