"""Capture: validation with field + reason, deterministic IDs, idempotency, group commit."""

from __future__ import annotations

import threading

import pytest

from trace_ros.capture import Event, GroupCommitWriter, ingest, prepare
from trace_ros.config import CaptureConfig
from trace_ros.errors import ValidationError
from trace_ros.ledger import Ledger, Scope, StoreResult

SC = Scope("alice", "r1", "s1")


@pytest.mark.parametrize(
    ("event", "field", "reason_part"),
    [
        (Event("dialogue", Scope(""), "hi", "A"), "scope.subject_id", "required"),
        (Event("dialogue", Scope("   "), "hi", "A"), "scope.subject_id", "required"),
        (Event("dialogue", SC, "   ", "A"), "text", "required"),
        (Event("perception", SC, "", "cam"), "description", "description or a label"),
        (Event("dialogue", SC, "x" * 20000, "A"), "text", "exceeds the limit"),
        (Event("dialogue", SC, "bad \ud800 surrogate", "A"), "text", "UTF-8"),
        (Event("dialogue", SC, "nul \x00 char", "A"), "text", "NUL"),
        (Event("dialogue", SC, "hi", "A", payload="{not json"), "payload_json", "not valid JSON"),
        (Event("dialogue", SC, "hi", "A", payload="[1, 2]"), "payload_json", "JSON object"),
        (Event("dialogue", SC, "hi", "A", payload={"attached_to": 7}), "payload_json.attached_to",
         "source ID"),
        (Event("dialogue", SC, "hi", "A", payload={"attached_to": " "}), "payload_json.attached_to",
         "source ID"),
        (Event("perception", SC, "mug", "cam", confidence=1.5), "confidence", "[0, 1]"),
        (Event("perception", SC, "mug", "cam", pose={"frame_id": "", "x": 1.0}), "pose.header.frame_id",
         "required"),
        (Event("perception", SC, "mug", "cam", pose={"frame_id": "map", "x": float("nan")}), "pose",
         "finite"),
        (Event("dialogue", SC, "hi", "A", stamp=-1.0), "header.stamp", "non-negative"),
        (Event("chat", SC, "hi", "A"), "modality", "must be one of"),
    ],
)
def test_rejections_name_field_and_reason(event: Event, field: str, reason_part: str) -> None:
    with pytest.raises(ValidationError) as err:
        prepare(event, CaptureConfig())
    assert err.value.field == field
    assert reason_part in err.value.reason


def test_deterministic_id_and_zero_stamp_means_now() -> None:
    cfg = CaptureConfig()
    a = prepare(Event("dialogue", SC, "hello", "Alice", stamp=0.0), cfg, now=1000.0)
    a2 = prepare(Event("dialogue", SC, "hello", "Alice", stamp=0.0), cfg, now=1000.0)
    b = prepare(Event("dialogue", SC, "hello", "Alice", stamp=0.0), cfg, now=2000.0)
    assert a.source_id == a2.source_id and a.content_hash == a2.content_hash
    # The receipt time of a zero stamp enters the derived ID: said again later, stored again.
    assert a.source_id != b.source_id
    assert a.time_from_receipt and a.source_time == 1000.0
    c = prepare(Event("dialogue", SC, "hello", "Bob", stamp=0.0), cfg, now=1000.0)
    assert c.source_id != a.source_id
    d = prepare(Event("dialogue", SC, "hello", "Alice", stamp=50.0), cfg)
    assert not d.time_from_receipt and d.source_time == 50.0


def test_repeated_zero_stamp_is_stored_again_replay_is_duplicate(ledger: Ledger) -> None:
    """"yes" twice with a zero stamp: two sources; a replayed real stamp: a duplicate.
    Receipt and known times are the given clock's, not the wall clock."""
    ticks = iter([100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0])
    yes = Event("dialogue", SC, "yes", "Alice", stamp=0.0)
    said = Event("dialogue", SC, "I left it on the shelf", "Alice", stamp=50.0)
    first = ingest(ledger, [yes, said], CaptureConfig(), clock=lambda: next(ticks))
    again = ingest(ledger, [yes, said], CaptureConfig(), clock=lambda: next(ticks))
    assert [r.status for r in first] == ["accepted", "accepted"]
    assert [r.status for r in again] == ["accepted", "duplicate"]
    rows = ledger.query("SELECT text, source_time, time_from_receipt, known_time FROM sources "
                        "ORDER BY seq")
    assert rows == [("yes", 100.0, 1, 102.0), ("I left it on the shelf", 50.0, 0, 102.0),
                    ("yes", 103.0, 1, 105.0)]


def test_writer_takes_times_from_its_clock(ledger: Ledger) -> None:
    done = threading.Event()
    results: list[StoreResult] = []

    def got(result: StoreResult) -> None:
        results.append(result)
        done.set()

    writer = GroupCommitWriter(ledger, CaptureConfig(), clock=lambda: 4242.0)
    writer.submit(Event("dialogue", SC, "hi", "Alice"), got)
    assert done.wait(10)
    writer.close()
    assert results[0].status == "accepted"
    assert ledger.query("SELECT source_time, known_time FROM sources") == [(4242.0, 4242.0)]


def test_perception_uses_label_when_no_description() -> None:
    item = prepare(Event("perception", SC, "", "cam", label="red mug", confidence=0.9,
                         pose={"frame_id": "map", "x": 1.0, "y": 2.0, "z": 0.0}), CaptureConfig())
    assert item.text == "red mug" and item.label == "red mug" and item.pose["frame_id"] == "map"


def test_idempotency(ledger: Ledger) -> None:
    cfg = CaptureConfig()
    first = Event("dialogue", SC, "I like tea", "Alice", stamp=1.0, source_id="client-1")
    same = Event("dialogue", SC, "I like tea", "Alice", stamp=1.0, source_id="client-1")
    other = Event("dialogue", SC, "I like coffee", "Alice", stamp=1.0, source_id="client-1")
    results = ingest(ledger, [first, same, other], cfg)
    assert [r.status for r in results] == ["accepted", "duplicate", "rejected"]
    assert results[1].sequence == results[0].sequence > 0
    assert results[2].field == "source_id" and "different content" in results[2].reason
    assert ledger.count_sources() == 1
    assert ledger.get_sources(["client-1"])[0].text == "I like tea"
    # The same checks hold across batches (the first one is already committed).
    again = ingest(ledger, [same, other], cfg)
    assert [r.status for r in again] == ["duplicate", "rejected"]
    assert again[0].sequence == results[0].sequence
    assert ledger.query("SELECT count(*) FROM jobs")[0][0] == 1


def test_bad_events_do_not_disturb_good_ones(ledger: Ledger) -> None:
    events = [Event("dialogue", SC, f"good {i}", "Alice", stamp=float(i + 1)) for i in range(5)]
    events.insert(2, Event("dialogue", Scope(""), "bad", "X"))
    events.insert(4, Event("dialogue", SC, "", "X"))
    results = ingest(ledger, events, CaptureConfig())
    assert [r.status for r in results].count("accepted") == 5
    assert [r.status for r in results].count("rejected") == 2
    assert ledger.count_sources() == 5


def test_group_commit_acks_after_commit(ledger: Ledger) -> None:
    cfg = CaptureConfig(group_commit_ms=5.0, max_batch=64)
    writer = GroupCommitWriter(ledger, cfg)
    done = threading.Event()
    results: list[StoreResult] = []
    lock = threading.Lock()
    n = 300

    def cb(res: StoreResult) -> None:
        # Acknowledged = durable: the row is visible to another connection now.
        if res.status == "accepted":
            other = Ledger(ledger.path)
            assert other.get_sources([res.source_id]), "acked before commit"
            other.close()
        with lock:
            results.append(res)
            if len(results) == n + 1:
                done.set()

    for i in range(n):
        writer.submit(Event("dialogue", SC, f"event {i}", "Alice", stamp=float(i + 1)), cb)
    writer.submit(Event("dialogue", Scope(""), "bad", "X"), cb)
    assert done.wait(60)
    writer.close()
    assert sum(r.status == "accepted" for r in results) == n
    assert writer.batches < n  # events were grouped into fewer transactions
    assert ledger.count_sources() == n


def test_writer_answers_every_item_when_the_write_fails(ledger: Ledger) -> None:
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=1.0))
    got: list[StoreResult] = []
    done = threading.Event()
    ledger.conn.execute("CREATE TRIGGER boom BEFORE INSERT ON sources "
                        "BEGIN SELECT RAISE(ABORT, 'disk says no'); END")

    def cb(res: StoreResult) -> None:
        got.append(res)
        done.set()

    writer.submit(Event("dialogue", SC, "doomed", "Alice", stamp=1.0), cb)
    assert done.wait(10)
    writer.close()
    assert got[0].status == "rejected" and got[0].field == "ledger" and "disk says no" in got[0].reason
    assert ledger.count_sources() == 0
