"""Readers for bulk source files: JSONL events and the LoCoMo conversation JSON.

Both yield ``capture.Event``s that then go through the same validation and
ledger path as events from the robot topics. A line that cannot even be turned
into an event yields an ``EventError`` so the caller can report it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .capture import Event
from .errors import ValidationError
from .ledger import Scope


@dataclass(frozen=True)
class EventError:
    where: str
    error: ValidationError


def parse_time(value: Any, field: str = "stamp") -> float:
    """Seconds since the epoch from a number or an ISO-8601 / LoCoMo-style date string."""
    if value is None or value == "":
        return 0.0
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError as exc:
            raise ValidationError(field, "number too large for a time") from exc
    if isinstance(value, str):
        text = value.strip()
        for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
            try:
                return datetime.strptime(text, fmt).replace(tzinfo=UTC).timestamp()
            except ValueError:
                pass
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            dt = None
        if dt is None:
            import dateparser

            try:
                dt = dateparser.parse(text, settings={"TIMEZONE": "UTC",
                                                      "RETURN_AS_TIMEZONE_AWARE": True})
            except (ValueError, OverflowError, RecursionError):
                dt = None
        if dt is None:
            raise ValidationError(field, f"cannot parse time {text!r}")
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=UTC)
        try:
            return dt.timestamp()
        except (OverflowError, ValueError, OSError) as exc:
            raise ValidationError(field, f"time out of range {text!r}") from exc
    raise ValidationError(field, f"must be a number or a date string, got {type(value).__name__}")


def _text(obj: dict[str, Any], field: str, *keys: str) -> str:
    """The first of ``keys`` present in ``obj`` as a string ('' if absent).

    JSON ``null``, numbers, lists and objects are rejected naming ``field``:
    stringifying them would store ``"None"`` or ``"{'a': 1}"`` as if it had been said.
    """
    for key in keys:
        if key in obj:
            value = obj[key]
            if not isinstance(value, str):
                kind = "null" if value is None else type(value).__name__
                raise ValidationError(field, f"must be a string, got {kind}")
            return value
    return ""


def _number(obj: dict[str, Any], field: str) -> float | None:
    value = obj.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationError(field, f"must be a number, got {type(value).__name__}")
    return float(value)


def event_from_dict(obj: dict[str, Any]) -> Event:
    """One JSONL record → Event. Accepts flat scope keys or a nested ``scope`` object.

    Raises ``ValidationError`` naming the field when a value has the wrong type.
    """
    if not isinstance(obj, dict):
        raise ValidationError("record", f"must be a JSON object, got {type(obj).__name__}")
    scope_obj = obj.get("scope", obj)
    if not isinstance(scope_obj, dict):
        raise ValidationError("scope", f"must be an object, got {type(scope_obj).__name__}")
    if "subject_id" in scope_obj and scope_obj["subject_id"] is None:
        raise ValidationError("scope.subject_id", "required, got null")
    scope = Scope(*(_text(scope_obj, f"scope.{k}", k)
                    for k in ("subject_id", "robot_id", "session_id")))
    modality = _text(obj, "modality", "modality") or "dialogue"
    perception = modality == "perception"
    text = _text(obj, "description" if perception else "text", "text", "description")
    speaker = _text(obj, "actor" if perception else "speaker", "speaker", "actor")
    payload = obj.get("payload", obj.get("payload_json"))
    if payload is not None and not isinstance(payload, (str, dict)):
        raise ValidationError("payload_json", f"must be a JSON object, got {type(payload).__name__}")
    pose = obj.get("pose")
    if pose is not None and not isinstance(pose, dict):
        raise ValidationError("pose", f"must be an object, got {type(pose).__name__}")
    stamp_value = obj.get("stamp", obj.get("time"))
    if isinstance(stamp_value, bool):
        raise ValidationError("stamp", "must be a number or a date string, got bool")
    stamp = parse_time(stamp_value)
    if not math.isfinite(stamp):
        raise ValidationError("stamp", "must be a finite time")
    return Event(
        modality=modality, scope=scope, text=text, speaker=speaker,
        label=_text(obj, "label", "label"), confidence=_number(obj, "confidence"),
        pose=pose, payload=payload, stamp=stamp,
        source_id=_text(obj, "source_id", "source_id"),
    )


def read_jsonl(path: str | Path) -> Iterator[Event | EventError]:
    """Events of a JSONL file, one per non-blank line; a line that cannot be read
    (bad UTF-8, not JSON, nested too deep, wrong types) yields an ``EventError``
    naming its line, and the lines around it are still read."""
    for _where, item in read_jsonl_lines(path):
        yield item


def read_jsonl_lines(path: str | Path) -> Iterator[tuple[str, Event | EventError]]:
    """Like ``read_jsonl``, with each item's place (``line N``) in the file."""
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, start=1):
            where = f"line {n}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield where, EventError(where, ValidationError(
                    "line", f"not valid UTF-8 (byte {exc.start}: {exc.reason})"))
                continue
            if not line.strip():
                continue
            try:
                item: Event | EventError = event_from_dict(json.loads(line))
            except json.JSONDecodeError as exc:
                item = EventError(where, ValidationError("record", f"not JSON ({exc.msg})"))
            except RecursionError:
                item = EventError(where, ValidationError("record", "nested too deep to parse"))
            except ValidationError as exc:
                item = EventError(where, exc)
            yield where, item


_SESSION_KEY = re.compile(r"^session_(\d+)$")
IMAGE_SUFFIX = "#image"


def locomo_turn_id(source_id: str) -> str:
    """The LoCoMo dialogue ID (``D1:3``) a source ID refers to."""
    return source_id.split(":", 1)[-1].removesuffix(IMAGE_SUFFIX)


def locomo_sessions(sample: dict[str, Any]) -> list[tuple[int, float, list[dict[str, Any]]]]:
    conv = sample["conversation"]
    out = []
    for key, turns in conv.items():
        m = _SESSION_KEY.match(key)
        if m and isinstance(turns, list):
            stamp = parse_time(conv.get(f"{key}_date_time"), f"{key}_date_time")
            out.append((int(m.group(1)), stamp, turns))
    return sorted(out)


def locomo_events(sample: dict[str, Any]) -> Iterator[Event]:
    """One LoCoMo conversation → events: subject = sample id, session = ``session_N``,
    time = the session's date, source id = ``<sample_id>:<dia_id>``. A shared image's
    caption becomes a perception event of the same turn (``<id>#image``)."""
    subject = str(sample["sample_id"])
    for number, stamp, turns in locomo_sessions(sample):
        scope = Scope(subject, "", f"session_{number}")
        for turn in turns:
            if not (isinstance(turn, dict) and isinstance(turn.get("dia_id"), str)
                    and isinstance(turn.get("speaker"), str)):
                raise ValidationError(f"{subject}:session_{number}",
                                      "each turn needs a dia_id and a speaker")
            sid = f"{subject}:{turn['dia_id']}"
            yield Event("dialogue", scope, text=turn.get("text", ""), speaker=turn["speaker"],
                        stamp=stamp, source_id=sid)
            caption = turn.get("blip_caption")
            if caption:
                yield Event("perception", scope, text=f"{turn['speaker']} shared an image: {caption}",
                            speaker=turn["speaker"], label="image", stamp=stamp,
                            source_id=sid + IMAGE_SUFFIX,
                            payload={"img_url": turn.get("img_url", []),
                                     "query": turn.get("query", "")})


def read_locomo(path: str | Path, samples: int | None = None) -> list[dict[str, Any]]:
    """The conversations of a LoCoMo file; raises ``ValidationError("locomo", ...)`` for a
    file that is not LoCoMo-shaped JSON (instead of a traceback)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ValidationError("locomo", f"not valid UTF-8 ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise ValidationError("locomo", f"not JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise ValidationError("locomo", "nested too deep to parse") from None
    if not isinstance(data, list):
        raise ValidationError("locomo", "top level must be a list of conversations")
    data = data[:samples] if samples else data
    for i, sample in enumerate(data):
        if not (isinstance(sample, dict) and "sample_id" in sample
                and isinstance(sample.get("conversation"), dict)):
            raise ValidationError(f"locomo[{i}]", "needs sample_id and a conversation object")
    return data
