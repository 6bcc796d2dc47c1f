"""Message <-> engine conversion, and nothing else.

Every function here is pure: it takes a ROS message (or serialized bytes) and
returns an engine object, or the other way round. Malformed input raises
``ValidationError(field, reason)`` like the engine does, so a node answers it
the same way as any other rejection.
"""

from __future__ import annotations

import functools
import json
import math
import operator
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any, TypeVar

from builtin_interfaces.msg import Time
from rclpy.serialization import deserialize_message, serialize_message
from std_msgs.msg import Header

from trace_ros.capture import Event
from trace_ros.errors import ValidationError
from trace_ros.ledger import Scope, StoreResult
from trace_ros.msg import Ack, AckBatch, DialogueEvent, EventBatch, Evidence, PerceptionEvent
from trace_ros.msg import Scope as ScopeMsg
from trace_ros.nodes import cdr
from trace_ros.query.answer import QueryRequest, QueryResult
from trace_ros.query.spatial import Region
from trace_ros.srv import Forget, Query

M = TypeVar("M")
_REPLACEMENT = "\ufffd"


# -- time and scope ----------------------------------------------------------


def stamp_to_seconds(stamp: Time, field: str = "header.stamp") -> float:
    """``builtin_interfaces/Time`` -> seconds since the epoch; a zero stamp stays 0.0.

    Raises ``ValidationError(field, ...)`` for a nanosecond part of a second or more.
    """
    if stamp.nanosec >= 1_000_000_000:
        raise ValidationError(f"{field}.nanosec", f"must be below 1e9, got {stamp.nanosec}")
    return stamp.sec + stamp.nanosec * 1e-9


def seconds_to_stamp(seconds: float) -> Time:
    if not math.isfinite(seconds) or seconds <= 0:
        return Time()
    sec = int(seconds)
    nanosec = min(999_999_999, round((seconds - sec) * 1e9))
    return Time(sec=sec, nanosec=nanosec)


def optional_time(stamp: Time, field: str) -> float | None:
    """A time view from a request: zero means "now", i.e. ``None``; a negative time
    is rejected (it used to be taken silently as "now")."""
    seconds = stamp_to_seconds(stamp, field)
    if seconds < 0:
        raise ValidationError(field, f"must not be negative, got {seconds}")
    return seconds if seconds > 0 else None


def scope_from_msg(msg: ScopeMsg) -> Scope:
    return Scope(msg.subject_id, msg.robot_id, msg.session_id)


def scope_to_msg(scope: Scope) -> ScopeMsg:
    return ScopeMsg(subject_id=scope.subject_id, robot_id=scope.robot_id,
                    session_id=scope.session_id)


# -- incoming events -----------------------------------------------------------


def _string_paths(msg: Any, prefix: str = "") -> Iterator[str]:
    for name, kind in msg.get_fields_and_field_types().items():
        value = getattr(msg, name)
        if kind == "string":
            yield prefix + name
        elif hasattr(value, "get_fields_and_field_types"):
            yield from _string_paths(value, f"{prefix}{name}.")


@functools.cache
def _string_getters(msg_type: type) -> tuple[tuple[str, Callable[[Any], str]], ...]:
    """(dotted name, getter) of every string field of ``msg_type``, nested ones included."""
    return tuple((path, operator.attrgetter(path)) for path in _string_paths(msg_type()))


def decode(raw: bytes, msg_type: type[M]) -> M:
    """Deserialize ``raw`` into ``msg_type``.

    Raises ``ValidationError("message", ...)`` when the bytes are not a valid message.
    """
    try:
        return deserialize_message(raw, msg_type)
    except Exception as exc:  # noqa: BLE001 - rclpy raises several types here
        raise ValidationError("message", f"cannot deserialize {msg_type.__name__}: {exc}") from exc


def check_utf8(msg: Any, raw: bytes) -> None:
    """Raise ``ValidationError(<field>, ...)`` if a string of ``msg`` held a NUL byte
    or invalid UTF-8 as it arrived.

    rclpy cuts a string at a NUL and substitutes U+FFFD for invalid bytes while
    deserializing; storing text altered like that (or under a shortened scope) as
    if it had been said is not acceptable for an auditable record. The strings are
    read from ``raw`` itself (``cdr.strings``); for a type it cannot walk, a message
    whose strings contain U+FFFD is re-serialized and compared instead.
    """
    try:
        fields = cdr.strings(raw, type(msg))
    except cdr.Unsupported:
        suspects = [name for name, get in _string_getters(type(msg)) if _REPLACEMENT in get(msg)]
        if suspects and serialize_message(msg) != raw:
            raise ValidationError(suspects[0],
                                  "not valid UTF-8 (bytes were altered on receipt)") from None
        return
    for name, data in fields:
        if b"\x00" in data:
            raise ValidationError(name, "contains a NUL byte")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValidationError(name, f"not valid UTF-8 (byte {exc.start}: {exc.reason})") from None


def read_event(raw: bytes, msg_type: type) -> tuple[Any, ValidationError | None]:
    """The event in ``raw`` (a serialized ``msg_type``) and the first problem of its
    strings as they arrived (a NUL byte or invalid UTF-8, naming the field), or None.

    The fields are read by ``cdr.decode`` (a fraction of the cost of rclpy's
    deserialisation plus ``check_utf8``); the result has the message's attributes.
    Bytes in another representation go through ``decode`` and ``check_utf8``.
    Raises ``ValidationError("message", ...)`` when ``raw`` is not such a message.
    """
    try:
        decoded = cdr.decode(raw, msg_type)
    except cdr.Malformed as exc:
        raise ValidationError("message",
                              f"cannot deserialize {msg_type.__name__}: {exc}") from None
    except cdr.Unsupported:
        msg = decode(raw, msg_type)
        try:
            check_utf8(msg, raw)
        except ValidationError as exc:
            return msg, exc
        return msg, None
    problem = decoded.problem
    return decoded.fields, None if problem is None else ValidationError(*problem)


def pose_to_dict(pose_stamped: Any) -> dict[str, Any]:
    p, q = pose_stamped.pose.position, pose_stamped.pose.orientation
    return {"frame_id": pose_stamped.header.frame_id, "x": p.x, "y": p.y, "z": p.z,
            "qx": q.x, "qy": q.y, "qz": q.z, "qw": q.w}


# The Event of each message is made with every field given by position, in Event's order
# (modality, scope, text, speaker, label, confidence, pose, payload, stamp, source_id):
# one an event, and a frozen dataclass called by keyword with defaults left out took about
# twice as long (~3.5 against ~1.8 us).


def dialogue_to_event(msg: DialogueEvent) -> Event:
    s = msg.scope
    return Event("dialogue", Scope(s.subject_id, s.robot_id, s.session_id), msg.text,
                 msg.speaker, "", None, None, msg.payload_json,
                 stamp_to_seconds(msg.header.stamp), msg.source_id)


def perception_to_event(msg: PerceptionEvent) -> Event:
    s = msg.scope
    return Event("perception", Scope(s.subject_id, s.robot_id, s.session_id),
                 msg.description, msg.actor, msg.label, float(msg.confidence),
                 pose_to_dict(msg.pose) if msg.has_pose else None, msg.payload_json,
                 stamp_to_seconds(msg.header.stamp), msg.source_id)


def printable(text: str) -> str:
    """``text`` made safe to publish: no NUL, no lone surrogate (rclpy would raise).
    ASCII text without NUL (IDs, statuses, most reasons) is returned as it is: five
    strings an Ack, one Ack an event."""
    if text.isascii() and "\x00" not in text:
        return text
    return text.replace("\x00", "\\0").encode("utf-8", "backslashreplace").decode("utf-8")


def result_to_ack(result: StoreResult, header: Header | None = None) -> Ack:
    return Ack(header=header if header is not None else Header(),
               source_id=printable(result.source_id), status=result.status,
               field=printable(result.field), reason=printable(result.reason),
               sequence=max(0, int(result.sequence)))


_NO_HEADER = SimpleNamespace(stamp=SimpleNamespace(sec=0, nanosec=0), frame_id="")


def result_to_ack_bytes(result: StoreResult, header: Any = None) -> bytes:
    """``result_to_ack`` serialized (``Publisher.publish`` takes the bytes): the same
    Ack, without building the message object. ``header``: the event's (a ``Header``
    or what ``read_event`` gave), or None for an empty one."""
    header = header if header is not None else _NO_HEADER
    stamp = header.stamp
    return _ACK_BYTES(stamp.sec, stamp.nanosec, printable(header.frame_id),
                      printable(result.source_id), printable(result.status),
                      printable(result.field), printable(result.reason),
                      max(0, int(result.sequence)))


# Ack's leaf fields, in the order result_to_ack_bytes passes them.
_ACK_FIELDS = ("header.stamp.sec", "header.stamp.nanosec", "header.frame_id", "source_id",
               "status", "field", "reason", "sequence")
_ACK_BYTES = cdr.flat_encoder(Ack)
assert cdr.flat_fields(Ack) == _ACK_FIELDS, "the Ack message changed: update result_to_ack_bytes"


def _ack_fields(result: StoreResult, header: Any) -> SimpleNamespace:
    header = header if header is not None else _NO_HEADER
    return SimpleNamespace(
        header=SimpleNamespace(stamp=header.stamp, frame_id=printable(header.frame_id)),
        source_id=printable(result.source_id), status=printable(result.status),
        field=printable(result.field), reason=printable(result.reason),
        sequence=max(0, int(result.sequence)))


def batch_events(raw: bytes) -> tuple[Any, list[tuple[Any, Callable[[Any], Event] | None,
                                                      ValidationError | None]]]:
    """The header of the ``EventBatch`` in ``raw`` and its elements, dialogue first: (the
    element's fields, the function that makes its ``Event``, the first problem of its
    strings as they arrived or None). Raises ``ValidationError("message", ...)`` when
    ``raw`` is not such a message (each element is then unanswerable)."""
    try:
        decoded = cdr.decode(raw, EventBatch)
    except (cdr.Malformed, cdr.Unsupported) as exc:
        raise ValidationError("message", f"cannot deserialize EventBatch: {exc}") from None
    first: dict[str, ValidationError] = {}
    for name, reason in decoded.problems:
        element, dot, field = name.partition("].")
        if dot:  # a string of the batch's own header is only echoed (printable) in the answer
            first.setdefault(element + "]", ValidationError(field, reason))
    fields = decoded.fields
    items = [(msg, dialogue_to_event, first.get(f"dialogue[{i}]"))
             for i, msg in enumerate(fields.dialogue)]
    items += [(msg, perception_to_event, first.get(f"perception[{i}]"))
              for i, msg in enumerate(fields.perception)]
    return fields.header, items


def ack_batch_bytes(header: Any, acks: list[tuple[StoreResult, Any]]) -> bytes:
    """An ``AckBatch`` serialized: ``header`` (the batch's, or None) and one Ack per
    (result, the element's header or None), in order."""
    header = header if header is not None else _NO_HEADER
    return cdr.encode(AckBatch, SimpleNamespace(
        header=SimpleNamespace(stamp=header.stamp, frame_id=printable(header.frame_id)),
        acks=[_ack_fields(result, h) for result, h in acks]))


# -- query ---------------------------------------------------------------------


def query_request_from_msg(req: Query.Request) -> QueryRequest:
    region = None
    if req.has_region:
        c = req.region_center
        region = Region(c.header.frame_id, c.point.x, c.point.y, c.point.z,
                        float(req.region_radius))
    return QueryRequest(
        scope=scope_from_msg(req.scope), question=req.question,
        as_of_valid=optional_time(req.as_of_valid, "as_of_valid"),
        as_of_known=optional_time(req.as_of_known, "as_of_known"),
        token_budget=int(req.token_budget), region=region,
        window_start=optional_time(req.window_start, "window_start"),
        window_end=optional_time(req.window_end, "window_end"),
        asker=req.asker,
    )


def evidence_to_msg(item: Any) -> Evidence:
    r = item.record
    msg = Evidence(source_id=item.source_id, modality=r.modality, speaker=r.speaker,
                   text=r.text, source_time=seconds_to_stamp(r.source_time),
                   scope=scope_to_msg(r.scope), score=float(item.score), label=r.label,
                   confidence=float(r.confidence or 0.0))
    if r.pose:
        msg.has_pose = True
        msg.pose.header.frame_id = str(r.pose.get("frame_id", ""))
        msg.pose.header.stamp = msg.source_time
        p, q = msg.pose.pose.position, msg.pose.pose.orientation
        p.x, p.y, p.z = (float(r.pose.get(k, 0.0)) for k in ("x", "y", "z"))
        q.x, q.y, q.z, q.w = (float(r.pose.get(k, d)) for k, d in
                              (("qx", 0.0), ("qy", 0.0), ("qz", 0.0), ("qw", 1.0)))
    return msg


def query_result_to_response(result: QueryResult, response: Query.Response) -> Query.Response:
    response.status = result.status
    response.answer = result.answer
    response.source_ids = list(result.source_ids)
    response.evidence = [evidence_to_msg(e) for e in result.evidence]
    response.paths = list(result.paths)
    response.plan_json = json.dumps(result.plan.to_dict(), sort_keys=True)
    response.reader = result.reader
    response.timings_json = json.dumps({k: round(v, 3) for k, v in result.timings_ms.items()})
    message = result.message
    if result.left_out:
        message = "; ".join(filter(None, [message, "left out: " + ", ".join(result.left_out)]))
    response.message = message
    response.recall_id = result.recall_id
    return response


# -- forget --------------------------------------------------------------------


def forget_args(req: Forget.Request) -> tuple[Scope | None, list[str], bool]:
    """(scope or None, source IDs, allow_reingest) for ``Ledger.forget``."""
    scope = scope_from_msg(req.scope)
    ids = [s for s in req.source_ids if s.strip()]
    if not scope.subject_id.strip():
        if scope.robot_id or scope.session_id:
            raise ValidationError("scope.subject_id",
                                  "required when robot_id or session_id is given")
        return None, ids, bool(req.allow_reingest)
    return scope, ids, bool(req.allow_reingest)


def forget_response(removed: list[str], response: Forget.Response) -> Forget.Response:
    response.status = "ok"
    response.sources_removed = len(removed)
    response.removed_source_ids = list(removed)
    response.message = f"removed {len(removed)} source(s)"
    return response
