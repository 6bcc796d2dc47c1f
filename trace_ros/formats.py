"""Readers for bulk source files: JSONL events and the LoCoMo conversation JSON.

Both yield ``capture.Event``s that then go through the same validation and
ledger path as events from the robot topics. A line that cannot even be turned
into an event yields an ``EventError`` so the caller can report it.
"""

from __future__ import annotations

import json
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
        return float(value)
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

            dt = dateparser.parse(text, settings={"TIMEZONE": "UTC", "RETURN_AS_TIMEZONE_AWARE": True})
        if dt is None:
            raise ValidationError(field, f"cannot parse time {text!r}")
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=UTC)
        return dt.timestamp()
    raise ValidationError(field, f"must be a number or a date string, got {type(value).__name__}")


def event_from_dict(obj: dict[str, Any]) -> Event:
    """One JSONL record → Event. Accepts flat scope keys or a nested ``scope`` object."""
    if not isinstance(obj, dict):
        raise ValidationError("record", "must be a JSON object")
    scope_obj = obj.get("scope") if isinstance(obj.get("scope"), dict) else obj
    scope = Scope(str(scope_obj.get("subject_id", "")), str(scope_obj.get("robot_id", "")),
                  str(scope_obj.get("session_id", "")))
    modality = str(obj.get("modality", "dialogue"))
    text = obj.get("text", obj.get("description", ""))
    speaker = obj.get("speaker", obj.get("actor", ""))
    payload = obj.get("payload", obj.get("payload_json"))
    confidence = obj.get("confidence")
    return Event(
        modality=modality, scope=scope, text=text if isinstance(text, str) else str(text),
        speaker=speaker if isinstance(speaker, str) else str(speaker),
        label=str(obj.get("label", "")),
        confidence=float(confidence) if confidence is not None else None,
        pose=obj.get("pose"), payload=payload,
        stamp=parse_time(obj.get("stamp", obj.get("time"))),
        source_id=str(obj.get("source_id", "")),
    )


def read_jsonl(path: str | Path) -> Iterator[Event | EventError]:
    with open(path, encoding="utf-8", errors="strict") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield event_from_dict(json.loads(line))
            except json.JSONDecodeError as exc:
                yield EventError(f"line {n}", ValidationError("record", f"not JSON ({exc.msg})"))
            except ValidationError as exc:
                yield EventError(f"line {n}", exc)


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
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValidationError("locomo", "top level must be a list of conversations")
    return data[:samples] if samples else data
