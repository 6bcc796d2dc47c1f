"""Bulk formats: JSONL events and LoCoMo conversations into the same capture path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_ros.capture import Event
from trace_ros.errors import ValidationError
from trace_ros.formats import (
    EventError,
    locomo_events,
    locomo_turn_id,
    parse_time,
    read_jsonl,
)

SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ann", "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Ben!"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Look at this.", "img_url": ["u"],
             "blip_caption": "a photo of a cat", "query": "cat"},
        ],
        "session_2_date_time": "10:00 am on 9 June, 2023",
        "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Back again."}],
    },
    "qa": [],
}


def test_parse_time_formats() -> None:
    assert parse_time("1:56 pm on 8 May, 2023") == 1683554160.0
    assert parse_time("2023-05-08T13:56:00Z") == 1683554160.0
    assert parse_time(12.5) == 12.5 and parse_time(None) == 0.0
    with pytest.raises(ValidationError):
        parse_time("not a date at all, really")


def test_locomo_mapping() -> None:
    events = list(locomo_events(SAMPLE))
    assert [e.source_id for e in events] == ["conv-x:D1:1", "conv-x:D1:2", "conv-x:D1:2#image",
                                             "conv-x:D2:1"]
    first, _, image, last = events
    assert first.scope.subject_id == "conv-x" and first.scope.session_id == "session_1"
    assert first.speaker == "Ann" and first.stamp == 1683554160.0
    assert image.modality == "perception" and "a photo of a cat" in image.text
    assert last.scope.session_id == "session_2"
    assert locomo_turn_id("conv-x:D1:2#image") == "D1:2"
    # The caption is attached to its turn: packing shows the two as one unit.
    assert image.payload["attached_to"] == "conv-x:D1:2" and "attached_to" not in (first.payload or {})


def test_jsonl_reports_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    lines = [
        json.dumps({"subject_id": "a", "speaker": "A", "text": "hello", "stamp": "2024-01-01T00:00:00Z"}),
        "{broken",
        json.dumps({"modality": "perception", "scope": {"subject_id": "a"}, "label": "mug",
                    "pose": {"frame_id": "map", "x": 1, "y": 2, "z": 0}}),
        "",
        json.dumps({"subject_id": "a", "text": "x", "stamp": "someday maybe never"}),
    ]
    path.write_text("\n".join(lines) + "\n")
    out = list(read_jsonl(path))
    assert isinstance(out[0], Event) and out[0].stamp == 1704067200.0
    assert isinstance(out[1], EventError) and out[1].where == "line 2"
    assert isinstance(out[2], Event) and out[2].label == "mug" and out[2].pose["frame_id"] == "map"
    assert isinstance(out[3], EventError) and out[3].error.field == "stamp"
