"""rosbag2 MCAP files in and out, with the ``mcap`` and ``mcap-ros2-support`` libraries.

Import: the ``*/memory/dialogue`` and ``*/memory/perception`` topics of a bag (any namespace),
plus any topic a small YAML maps to ``dialogue`` or ``perception`` (messages of our own two
types, or ``std_msgs/msg/String`` with the scope and speaker given in the map), become
``capture.Event``s that go through the same validation and ledger as the node's. A zero
header stamp takes the message's log time in the bag (when it was received), so a replay
records the bag's times. Export: a subject's sources as DialogueEvent / PerceptionEvent
messages on ``memory/dialogue`` / ``memory/perception``, stamped with their source times.
No rclpy here: messages are decoded and encoded from the schema text in the bag.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .capture import Event
from .errors import ValidationError
from .ledger import Scope, SourceRecord

DIALOGUE_TYPE = "trace_ros/msg/DialogueEvent"
PERCEPTION_TYPE = "trace_ros/msg/PerceptionEvent"
STRING_TYPE = "std_msgs/msg/String"
_SEPARATOR = "=" * 80

# Standard definitions our messages use (rosbag2 stores a type with its dependencies).
_STANDARD = {
    "std_msgs/Header": "builtin_interfaces/Time stamp\nstring frame_id\n",
    "builtin_interfaces/Time": "int32 sec\nuint32 nanosec\n",
    "geometry_msgs/PoseStamped": "std_msgs/Header header\ngeometry_msgs/Pose pose\n",
    "geometry_msgs/Pose": "geometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n",
    "geometry_msgs/Point": "float64 x\nfloat64 y\nfloat64 z\n",
    "geometry_msgs/Quaternion": "float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
}
_DEPENDENCIES = {
    "DialogueEvent": ["std_msgs/Header", "builtin_interfaces/Time", "trace_ros/Scope"],
    "PerceptionEvent": ["std_msgs/Header", "builtin_interfaces/Time", "trace_ros/Scope",
                        "geometry_msgs/PoseStamped", "geometry_msgs/Pose",
                        "geometry_msgs/Point", "geometry_msgs/Quaternion"],
}


def _msg_dir() -> Path:
    """Our .msg files: the source tree, else the installed share directory."""
    for candidate in (Path(__file__).resolve().parents[1] / "msg",
                      Path(sys.prefix) / "share" / "trace_ros" / "msg"):
        if (candidate / "DialogueEvent.msg").is_file():
            return candidate
    raise FileNotFoundError("trace_ros msg definitions not found (msg/DialogueEvent.msg)")


def _own(name: str) -> str:
    """A trace_ros .msg with package-relative type names made absolute."""
    text = (_msg_dir() / f"{name}.msg").read_text(encoding="utf-8")
    return text.replace("\nScope scope", "\ntrace_ros/Scope scope")


def schema_text(name: str) -> str:
    """The ros2msg schema of trace_ros/msg/<name> with its dependencies, as rosbag2 writes."""
    parts = [_own(name)]
    for dep in _DEPENDENCIES[name]:
        body = _own("Scope") if dep == "trace_ros/Scope" else _STANDARD[dep]
        parts.append(f"{_SEPARATOR}\nMSG: {dep}\n{body}")
    return "\n".join(parts)


@dataclass(frozen=True)
class TopicMap:
    """How a topic becomes events: ``kind`` dialogue | perception; for std_msgs/String,
    the scope and speaker every message gets."""

    kind: str
    subject_id: str = ""
    robot_id: str = ""
    session_id: str = ""
    speaker: str = ""


def read_topic_map(path: str | Path | None) -> dict[str, TopicMap]:
    """``{topic: TopicMap}`` from a YAML file such as::

        topics:
          /robot1/speech: {kind: dialogue, subject_id: alice, speaker: alice}
          /detections: {kind: perception}
    """
    if not path:
        return {}
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    topics = data.get("topics") if isinstance(data, dict) else None
    if not isinstance(topics, dict):
        raise ValidationError("topics", f"{path}: needs a 'topics' mapping of topic names")
    out: dict[str, TopicMap] = {}
    for topic, spec in topics.items():
        spec = {"kind": spec} if isinstance(spec, str) else dict(spec or {})
        if spec.get("kind") not in ("dialogue", "perception"):
            raise ValidationError(f"topics.{topic}.kind", "must be dialogue or perception")
        unknown = set(spec) - set(TopicMap.__dataclass_fields__)
        if unknown:
            raise ValidationError(f"topics.{topic}", f"unknown keys {sorted(unknown)}")
        out[str(topic)] = TopicMap(**{k: str(v) for k, v in spec.items()})
    return out


def _kind_of(topic: str, schema: str, topic_map: dict[str, TopicMap]) -> TopicMap | None:
    if topic in topic_map:
        return topic_map[topic]
    if topic.endswith("memory/dialogue") and schema == DIALOGUE_TYPE:
        return TopicMap("dialogue")
    if topic.endswith("memory/perception") and schema == PERCEPTION_TYPE:
        return TopicMap("perception")
    return None


def _stamp(header: Any) -> float:
    return header.stamp.sec + header.stamp.nanosec / 1e9


def _scope(msg: Any, spec: TopicMap) -> Scope:
    scope = getattr(msg, "scope", None)
    if scope is not None:
        return Scope(scope.subject_id, scope.robot_id, scope.session_id)
    return Scope(spec.subject_id, spec.robot_id, spec.session_id)


def message_to_event(msg: Any, schema: str, spec: TopicMap) -> Event:
    """A decoded message -> Event (same fields as the node's conversion)."""
    if schema == STRING_TYPE:
        return Event(spec.kind, _scope(msg, spec), text=msg.data, speaker=spec.speaker)
    if schema == DIALOGUE_TYPE:
        return Event("dialogue", _scope(msg, spec), text=msg.text, speaker=msg.speaker,
                     payload=msg.payload_json, stamp=_stamp(msg.header),
                     source_id=msg.source_id)
    if schema == PERCEPTION_TYPE:
        pose = None
        if msg.has_pose:
            p, q = msg.pose.pose.position, msg.pose.pose.orientation
            pose = {"frame_id": msg.pose.header.frame_id, "x": p.x, "y": p.y, "z": p.z,
                    "qx": q.x, "qy": q.y, "qz": q.z, "qw": q.w}
        return Event("perception", _scope(msg, spec), text=msg.description, speaker=msg.actor,
                     label=msg.label, confidence=float(msg.confidence), pose=pose,
                     payload=msg.payload_json, stamp=_stamp(msg.header),
                     source_id=msg.source_id)
    raise ValidationError("schema", f"cannot import messages of type {schema}")


@dataclass
class BagEvent:
    topic: str
    log_time: float  # seconds: when the recorder received it
    event: Event | None
    error: ValidationError | None = None


def read_mcap(path: str | Path, topic_map: dict[str, TopicMap] | None = None
              ) -> Iterator[BagEvent]:
    """Events of the memory topics (and mapped ones) of an MCAP bag, in log-time order."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    topic_map = topic_map or {}
    with open(path, "rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        summary = reader.get_summary()
        wanted = [c.topic for c in (summary.channels.values() if summary else [])
                  if _kind_of(c.topic, summary.schemas[c.schema_id].name, topic_map)]
        if not wanted:
            return
        for schema, channel, message, decoded in reader.iter_decoded_messages(
                topics=wanted, log_time_order=True):
            spec = _kind_of(channel.topic, schema.name, topic_map)
            assert spec is not None
            log_time = message.log_time / 1e9
            try:
                yield BagEvent(channel.topic, log_time,
                               message_to_event(decoded, schema.name, spec))
            except ValidationError as exc:
                yield BagEvent(channel.topic, log_time, None, exc)
            except (AttributeError, TypeError, ValueError) as exc:
                yield BagEvent(channel.topic, log_time, None,
                               ValidationError("message", f"cannot convert: {exc}"))


def write_mcap(path: str | Path, records: list[SourceRecord], namespace: str = "") -> int:
    """Write ``records`` as a rosbag2 MCAP file; returns how many messages were written."""
    from mcap_ros2.writer import Writer

    ns = "/" + namespace.strip("/") if namespace.strip("/") else ""
    with open(path, "wb") as stream:
        writer = Writer(stream)
        schemas = {name: writer.register_msgdef(f"trace_ros/msg/{name}", schema_text(name))
                   for name in ("DialogueEvent", "PerceptionEvent")}
        for n, r in enumerate(sorted(records, key=lambda r: (r.source_time, r.seq))):
            nanos = int(round(r.source_time * 1e9))
            stamp = {"sec": nanos // 1_000_000_000, "nanosec": nanos % 1_000_000_000}
            common = {"header": {"stamp": stamp, "frame_id": ""},
                      "scope": {"subject_id": r.subject_id, "robot_id": r.robot_id,
                                "session_id": r.session_id},
                      "source_id": r.source_id,
                      "payload_json": "" if not r.payload else _json(r.payload)}
            if r.modality == "dialogue":
                name = "DialogueEvent"
                msg = {**common, "speaker": r.speaker, "text": r.text}
            else:
                name = "PerceptionEvent"
                pose = r.pose or {}
                msg = {**common, "actor": r.speaker, "label": r.label,
                       "description": r.text if r.text != r.label else "",
                       "confidence": float(r.confidence or 0.0), "has_pose": bool(r.pose),
                       "pose": {"header": {"stamp": stamp, "frame_id": pose.get("frame_id", "")},
                                "pose": {"position": {k: float(pose.get(k, 0.0))
                                                      for k in ("x", "y", "z")},
                                         "orientation": {
                                             "x": float(pose.get("qx", 0.0)),
                                             "y": float(pose.get("qy", 0.0)),
                                             "z": float(pose.get("qz", 0.0)),
                                             "w": float(pose.get("qw", 1.0))}}}}
            topic = f"{ns}/memory/{'dialogue' if name == 'DialogueEvent' else 'perception'}"
            writer.write_message(topic, schemas[name], msg, log_time=nanos, publish_time=nanos,
                                 sequence=n)
        writer.finish()
    return len(records)


def _json(obj: dict[str, Any]) -> str:
    import json

    return json.dumps(obj, sort_keys=True, ensure_ascii=False)
