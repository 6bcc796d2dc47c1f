"""Bad input over DDS as a property (a bounded number of hypothesis examples).

Random DialogueEvent/PerceptionEvent messages, some altered on the wire (a NUL or an
invalid UTF-8 byte put into one string field, truncated bytes), and random forget
requests, sent to a real memory_node: every message is answered, each rejection
names a field, the valid messages around them are all stored, and the node keeps
serving.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from rclpy.serialization import serialize_message  # noqa: E402

from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.nodes.client import MemoryClient, make_dialogue, make_perception  # noqa: E402

ACK_TIMEOUT_S = 15.0
EXAMPLES = int(os.environ.get("TRACE_ROS_ROS_FUZZ_EXAMPLES", "15"))
ROS_PROPS = settings(max_examples=EXAMPLES, deadline=None, phases=[Phase.generate],
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FIELDS = {"modality", "scope.subject_id", "scope.robot_id", "scope.session_id", "speaker",
          "actor", "text", "description", "label", "payload_json", "confidence", "pose",
          "pose.header.frame_id", "header.stamp", "header.stamp.nanosec", "header.frame_id",
          "source_id", "message", "queue", "pose.header.stamp.nanosec"}
_ids = itertools.count()

# rclpy cannot publish a lone surrogate; invalid bytes are put on the wire instead.
ros_text = st.one_of(
    st.just(""), st.just("  "), st.text(st.characters(blacklist_categories=("Cs",),
                                                      blacklist_characters="\x00"), max_size=30),
    st.text(st.characters(max_codepoint=0x1F, blacklist_characters="\x00"), max_size=10),
    st.integers(1, 20_000).map(lambda n: "x" * n),
    st.integers(1, 12_000).map(lambda n: "[" * n + "]" * n),
)
ros_float = st.one_of(st.floats(width=32), st.just(float("nan")), st.just(-1.0), st.just(2.0))
WIRE_FIELDS = ("text", "speaker", "subject_id", "payload_json", "source_id")


@st.composite
def bad_messages(draw: st.DrawFn) -> tuple[Any, str]:
    """(message or serialized bytes, its source_id)."""
    sid = f"fz-{next(_ids)}"
    if draw(st.booleans()):
        msg: Any = make_dialogue(draw(ros_text), draw(ros_text), speaker=draw(ros_text),
                                 session_id=draw(ros_text), source_id=sid,
                                 stamp=draw(st.floats(0, 4e9)), payload_json=draw(ros_text))
    else:
        msg = make_perception(draw(ros_text), draw(ros_text), draw(ros_text),
                              actor=draw(ros_text), confidence=draw(ros_float),
                              frame_id=draw(ros_text),
                              xyz=draw(st.one_of(st.none(), st.tuples(ros_float, ros_float,
                                                                      ros_float))),
                              source_id=sid, payload_json=draw(ros_text))
    msg.header.stamp.nanosec = draw(st.sampled_from([0, 5, 999_999_999, 1_000_000_000,
                                                     4_000_000_000]))
    how = draw(st.sampled_from(["none", "nul", "utf8", "truncate"]))
    if how == "none":
        return msg, sid
    field = draw(st.sampled_from(WIRE_FIELDS if hasattr(msg, "speaker") else
                                 ("description", "actor", "subject_id", "payload_json")))
    target = msg.scope if field == "subject_id" else msg
    setattr(target, field, getattr(target, field) + "QQMARKQQ")
    raw = serialize_message(msg)
    if how == "truncate":
        return raw[:draw(st.integers(4, len(raw) - 1))], ""
    raw = raw.replace(b"QQMARKQQ", b"QQ\x00ARKQQ" if how == "nul" else b"QQ\xffARKQQ")
    return raw, "" if field == "source_id" else sid  # a bad ID is not echoed back


_PREVIOUS: list[str] = []


def _describe(item: Any) -> str:
    if isinstance(item, bytes):
        return f"bytes[{len(item)}]"
    return repr(item)[:400]


@pytest.fixture(scope="module")
def client(module_nodes: Any, ready: Any) -> Iterator[MemoryClient]:
    module_nodes.start(("memory_node",))
    with MemoryClient("test_bad_input") as c:
        ready(c, module_nodes, capture=True, forget=True)
        yield c


@ROS_PROPS
@given(bad=st.lists(bad_messages(), min_size=1, max_size=6), n_good=st.integers(1, 4))
def test_random_messages_answered_good_ones_stored(client: MemoryClient, module_db: Any,
                                                   module_nodes: Any, bad: list[tuple[Any, str]],
                                                   n_good: int) -> None:
    good = [make_dialogue("fz-good", f"good message {next(_ids)}", speaker="G",
                          source_id=f"fz-good-{next(_ids)}", stamp=1_700_000_000.0)
            for _ in range(n_good)]
    before = len(client.acks)
    stream: list[Any] = [good[0]] + [m for m, _ in bad] + good[1:]
    for item in stream:
        if isinstance(item, bytes):
            client.dialogue_pub.publish(item)  # truncated bytes of either type
        elif hasattr(item, "speaker"):
            client.dialogue_pub.publish(item)
        else:
            client.perception_pub.publish(item)
    named = [sid for _, sid in bad if sid] + [g.source_id for g in good]
    acks = client.wait_acks(named, ACK_TIMEOUT_S)
    global _PREVIOUS
    previous, _PREVIOUS = _PREVIOUS, [_describe(m) for m in stream]
    assert set(acks) >= {g.source_id for g in good}, \
        f"a valid message was not answered; previous example: {previous}"
    for g in good:
        assert acks[g.source_id].status == "accepted", acks[g.source_id]
    # Every message with an ID was answered (truncated bytes carry none; the DDS
    # layer may drop those before the node sees them).
    assert set(acks) == set(named), set(named) - set(acks)
    for ack in client.acks[before:]:
        if ack.status == "rejected":
            assert ack.field in FIELDS and ack.reason, (ack.field, ack.reason)
    assert module_nodes.alive()
    with Ledger(module_db) as ledger:
        stored = {s.source_id: s.text for s in ledger.get_sources([g.source_id for g in good])}
        for sid, ack in acks.items():
            if ack.status == "accepted" and sid.startswith("fz-") and not sid.startswith("fz-good"):
                (rec,) = ledger.get_sources([sid])
                assert "\x00" not in rec.text + rec.speaker + rec.subject_id
    assert stored == {g.source_id: g.text for g in good}


@settings(max_examples=max(5, EXAMPLES // 2), deadline=None)
@given(subject=ros_text, ids=st.lists(ros_text, max_size=4), allow=st.booleans())
def test_random_forget_requests_are_answered(client: MemoryClient, module_nodes: Any,
                                             subject: str, ids: list[str], allow: bool) -> None:
    response = client.forget(subject, ids, allow_reingest=allow, timeout=ACK_TIMEOUT_S)
    assert response.status in ("ok", "error"), response
    if response.status == "error":
        assert response.message
    assert module_nodes.alive()
