"""memory_node over real topics: every event acknowledged after it is stored, exactly once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from rclpy.serialization import serialize_message  # noqa: E402

from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.nodes.client import MemoryClient, make_dialogue, make_perception  # noqa: E402

ACK_TIMEOUT_S = 30.0


@pytest.fixture(scope="module")
def client(module_nodes: Any, ready: Any) -> Iterator[MemoryClient]:
    module_nodes.start(("memory_node",))
    with MemoryClient("test_capture") as c:
        ready(c, module_nodes, capture=True)
        yield c


def acks_for(client: MemoryClient, source_id: str, n: int) -> list[Any]:
    """The first ``n`` acks of ``source_id``, in arrival order (waits up to the deadline)."""
    def arrived() -> list[Any]:
        return [a for a in client.acks if a.source_id == source_id]
    assert client.wait_for(lambda: len(arrived()) >= n, ACK_TIMEOUT_S), \
        f"{source_id}: {len(arrived())} of {n} acks"
    return arrived()[:n]


def counts_by_id(db: Any, ids: list[str]) -> dict[str, int]:
    with Ledger(db) as ledger:
        marks = ",".join("?" * len(ids))
        rows = ledger.query(
            f"SELECT source_id, count(*) FROM sources WHERE source_id IN ({marks}) "
            "GROUP BY source_id", ids)
    return {sid: int(n) for sid, n in rows}


def mixed_events(n: int, prefix: str) -> list[Any]:
    msgs = []
    for i in range(n):
        subject = f"subject-{i % 5}"
        sid = f"{prefix}-{i}"
        if i % 3 == 2:
            msgs.append(make_perception(subject, "cup", f"cup number {i} on the table",
                                        actor="cam", confidence=0.8, frame_id="map",
                                        xyz=(i, 0.0, 0.0), session_id="s1", source_id=sid,
                                        stamp=1_700_000_000.0 + i))
        else:
            msgs.append(make_dialogue(subject, f"utterance number {i}", speaker=subject,
                                      session_id="s1", source_id=sid,
                                      stamp=1_700_000_000.0 + i))
    return msgs


def test_mixed_events_each_acknowledged_and_stored_once(client: MemoryClient,
                                                         module_db: Any) -> None:
    msgs = mixed_events(500, "mixed")
    for msg in msgs:
        client.publish(msg)
    ids = [m.source_id for m in msgs]
    acks = client.wait_acks(ids, ACK_TIMEOUT_S)
    assert len(acks) == 500, f"only {len(acks)} of 500 acknowledged"
    assert {a.status for a in acks.values()} == {"accepted"}
    sequences = [a.sequence for a in acks.values()]
    assert len(set(sequences)) == 500 and min(sequences) > 0
    assert counts_by_id(module_db, ids) == dict.fromkeys(ids, 1)
    # The ack carries the event's header back, so a client can match by stamp too.
    assert acks["mixed-7"].header.stamp.sec == 1_700_000_007


def _bad_cases() -> list[tuple[Any, str, str, str]]:
    """(message or raw bytes, source_id, expected field, expected reason fragment)."""
    def say(sid: str, text: str = "fine", **kw: Any) -> Any:
        return make_dialogue(kw.pop("subject", "subject-bad"), text, speaker="p",
                             source_id=sid, stamp=1_700_100_000.0, **kw)

    utf8 = serialize_message(say("bad-utf8", "ABCDEFGH")).replace(b"ABCDEFGH",
                                                                   b"AB\xff\xfeEFGH")
    def nul(sid: str, field: str, **kw: Any) -> bytes:
        """``field`` holds ``NUL-HERE``, then its X becomes a NUL byte in the wire
        bytes (same length, so CDR alignment holds); rclpy would cut it there."""
        msg = say(sid, **kw)
        target = msg.scope if field == "subject_id" else msg
        setattr(target, field, getattr(target, field) + "NULXHERE")
        return serialize_message(msg).replace(b"NULXHERE", b"NUL\x00HERE")

    late = say("bad-nanosec")
    late.header.stamp.nanosec = 1_500_000_000
    deep = "[" * 10_000 + "]" * 10_000
    return [
        (nul("bad-nul-text", "text"), "bad-nul-text", "text", "NUL"),
        (nul("bad-nul-speaker", "speaker"), "bad-nul-speaker", "speaker", "NUL"),
        (nul("bad-nul-subject", "subject_id"), "bad-nul-subject", "scope.subject_id", "NUL"),
        (nul("bad-nul-payload", "payload_json", payload_json='{"a": 1}'), "bad-nul-payload",
         "payload_json", "NUL"),
        (say("bad-deep-json", payload_json=deep), "bad-deep-json", "payload_json", "deep"),
        (say("bad-deep-object", payload_json='{"a":' * 10_000 + "1" + "}" * 10_000),
         "bad-deep-object", "payload_json", "deep"),
        (late, "bad-nanosec", "header.stamp.nanosec", "below 1e9"),
        (say("bad-subject", subject=""), "bad-subject", "scope.subject_id", "required"),
        (say("bad-empty", "   "), "bad-empty", "text", "must not be empty"),
        (say("bad-big", "x" * 20_000), "bad-big", "text", "exceeds the limit"),
        (say("bad-json", payload_json="{not json"), "bad-json", "payload_json",
         "not valid JSON"),
        (say("bad-json-list", payload_json="[1, 2]"), "bad-json-list", "payload_json",
         "JSON object"),
        (make_perception("subject-bad", "", "", source_id="bad-nothing-seen"),
         "bad-nothing-seen", "description", "label"),
        (make_perception("subject-bad", "cup", confidence=float("nan"),
                         source_id="bad-confidence"), "bad-confidence", "confidence", "[0, 1]"),
        (make_perception("subject-bad", "cup", xyz=(1.0, 2.0, 3.0), frame_id="",
                         source_id="bad-frame"), "bad-frame", "pose.header.frame_id",
         "required"),
        (utf8, "bad-utf8", "text", "UTF-8"),
    ]


def test_bad_messages_rejected_good_ones_around_them_stored(client: MemoryClient,
                                                            module_db: Any) -> None:
    cases = _bad_cases()
    good = mixed_events(2 * len(cases) + 2, "around")
    stream: list[Any] = [good[0], good[1]]
    for i, (bad, *_rest) in enumerate(cases):
        stream += [bad, good[2 * i + 2], good[2 * i + 3]]
    # The same ID in another subject (with other content): rejected; the first one stays.
    stream.append(make_dialogue("subject-bad", "changed text", speaker="p",
                                source_id=good[0].source_id, stamp=1_700_000_000.0))
    garbage = serialize_message(good[1])[:17]
    for item in stream:
        if isinstance(item, bytes):
            client.dialogue_pub.publish(item)
        else:
            client.publish(item)
    client.dialogue_pub.publish(garbage)
    nul_id = serialize_message(make_dialogue("subject-bad", "x", source_id="nul-idXtail")
                               ).replace(b"nul-idXtail", b"nul-id\x00tail")
    client.dialogue_pub.publish(nul_id)

    good_ids = [m.source_id for m in good]
    acks = client.wait_acks(good_ids + [sid for _m, sid, _f, _r in cases], ACK_TIMEOUT_S)
    for _msg, sid, field, reason in cases:
        assert sid in acks, f"no ack for {sid}"
        ack = acks[sid]
        assert (ack.status, ack.field) == ("rejected", field), (sid, ack.field, ack.reason)
        assert reason in ack.reason, (sid, ack.reason)
        assert ack.sequence == 0
    first, second = acks_for(client, good[0].source_id, 2)
    assert first.status == "accepted"
    assert (second.status, second.field) == ("rejected", "source_id")
    assert "another subject" in second.reason
    assert client.wait_for(lambda: any(a.field == "message" and not a.source_id
                                       for a in client.acks), ACK_TIMEOUT_S)
    undecodable = next(a for a in client.acks if a.field == "message" and not a.source_id)
    assert undecodable.status == "rejected" and "deserialize" in undecodable.reason

    assert client.wait_for(lambda: any(a.field == "source_id" and "NUL" in a.reason
                                       for a in client.acks), ACK_TIMEOUT_S)
    assert counts_by_id(module_db, ["nul-id"]) == {}
    assert all(acks[s].status == "accepted" for s in good_ids[1:])
    assert counts_by_id(module_db, good_ids) == dict.fromkeys(good_ids, 1)
    assert counts_by_id(module_db, [sid for _m, sid, _f, _r in cases]) == {}
    with Ledger(module_db) as ledger:
        (text,) = ledger.query("SELECT text FROM sources WHERE source_id = ?",
                               [good[0].source_id])[0]
    assert text == good[0].text


def test_duplicate_resend_is_acknowledged_as_duplicate(client: MemoryClient,
                                                       module_db: Any) -> None:
    msg = make_dialogue("subject-dup", "I said this once", speaker="p", source_id="dup-1",
                        stamp=1_700_200_000.0)
    client.publish(msg)
    (first,) = acks_for(client, "dup-1", 1)
    client.publish(msg)
    _, second = acks_for(client, "dup-1", 2)
    assert first.status == "accepted" and first.sequence > 0
    assert second.status == "duplicate" and second.sequence == first.sequence
    assert counts_by_id(module_db, ["dup-1"]) == {"dup-1": 1}


def test_event_without_id_gets_a_deterministic_one(client: MemoryClient) -> None:
    msg = make_dialogue("subject-noid", "no id given", speaker="p", stamp=1_700_300_000.0)
    client.publish(msg)
    assert client.wait_for(lambda: any(a.header.stamp.sec == 1_700_300_000 for a in client.acks),
                           ACK_TIMEOUT_S)
    first = next(a for a in client.acks if a.header.stamp.sec == 1_700_300_000)
    client.publish(msg)
    _, second = acks_for(client, first.source_id, 2)
    assert first.status == "accepted" and first.source_id.startswith("src-")
    assert second.status == "duplicate"
