"""rosbag2 MCAP import/export with the mcap and mcap-ros2-support libraries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("mcap_ros2", reason="needs mcap-ros2-support (requirements.txt)")

from mcap_ros2.writer import Writer  # noqa: E402

from trace_ros.bags import read_mcap, read_topic_map, schema_text  # noqa: E402
from trace_ros.capture import Event, ingest  # noqa: E402
from trace_ros.cli import main  # noqa: E402
from trace_ros.config import CaptureConfig  # noqa: E402
from trace_ros.errors import ValidationError  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest  # noqa: E402

ALICE = Scope("alice", "r1", "s1")
T0 = 1_750_000_000.0


def _fill(ledger: Ledger) -> None:
    events = [
        Event("dialogue", ALICE, "My passport is in the top drawer.", "alice", stamp=T0,
              payload={"lang": "en"}),
        Event("dialogue", ALICE, "The dentist is on Friday.", "alice", stamp=T0 + 5),
        Event("perception", ALICE, "", "head_camera", label="keys", confidence=0.75,  # float32 in the msg
              pose={"frame_id": "map", "x": 1.0, "y": -2.0, "z": 0.5, "qx": 0.0, "qy": 0.0,
                    "qz": 0.0, "qw": 1.0}, stamp=T0 + 9),
        Event("dialogue", Scope("bob"), "Bob's secret", "bob", stamp=T0 + 1),
    ]
    assert {r.status for r in ingest(ledger, events, CaptureConfig())} == {"accepted"}


def _rows(db: Path) -> list[tuple]:
    with Ledger(db) as ledger:
        return ledger.query("SELECT source_id, subject_id, modality, speaker, text, label, "
                            "confidence, pose, payload, source_time, content_hash FROM sources "
                            "ORDER BY source_id")


def test_export_then_import_gives_the_same_sources_and_answers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second, bag = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "alice.mcap"
    with Ledger(first) as ledger:
        _fill(ledger)
    assert main(["export", "--db", str(first), "--subject", "alice", str(bag)]) == 0
    assert json.loads(capsys.readouterr().out)["written"] == 3
    assert main(["ingest", "--db", str(second), "--format", "mcap", "--no-consolidate",
                 str(bag)]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["accepted"] == 3
    assert _rows(second) == [r for r in _rows(first) if r[1] == "alice"]
    answers = []
    for db in (first, second):
        with Ledger(db) as ledger:
            engine = QueryEngine(ledger, None, audit=False)
            answers.append([engine.ask(QueryRequest(ALICE, q), now=T0 + 60).to_dict()
                            for q in ("Where is my passport?", "Where did you last see my keys?")])
    for a, b in zip(*answers, strict=True):
        assert (a["status"], a["answer"], a["source_ids"]) == (b["status"], b["answer"],
                                                               b["source_ids"])
    assert "in frame map" in answers[1][1]["answer"]


def test_zero_stamps_take_the_bag_log_time_and_mapped_topics(tmp_path: Path) -> None:
    bag = tmp_path / "raw.mcap"
    with open(bag, "wb") as stream:
        writer = Writer(stream)
        dialogue = writer.register_msgdef("trace_ros/msg/DialogueEvent",
                                          schema_text("DialogueEvent"))
        string = writer.register_msgdef("std_msgs/msg/String", "string data\n")
        for n, at in enumerate((T0, T0 + 3)):
            writer.write_message("/robot9/memory/dialogue", dialogue, {
                "header": {"stamp": {"sec": 0, "nanosec": 0}, "frame_id": ""},
                "scope": {"subject_id": "alice", "robot_id": "", "session_id": ""},
                "source_id": "", "speaker": "alice", "text": "yes", "payload_json": ""},
                log_time=int(at * 1e9), publish_time=int(at * 1e9), sequence=n)
        writer.write_message("/speech", string, {"data": "turn left"},
                             log_time=int((T0 + 4) * 1e9), publish_time=0, sequence=3)
        writer.write_message("/other", string, {"data": "ignored"}, log_time=int(T0 * 1e9),
                             publish_time=0, sequence=4)
        writer.finish()
    topics = tmp_path / "topics.yaml"
    topics.write_text("topics:\n  /speech: {kind: dialogue, subject_id: alice, speaker: op}\n")
    got = list(read_mcap(bag, read_topic_map(topics)))
    assert [b.topic for b in got] == ["/robot9/memory/dialogue"] * 2 + ["/speech"]
    db = tmp_path / "m.db"
    assert main(["ingest", "--db", str(db), "--format", "mcap", "--no-consolidate",
                 "--topics", str(topics), str(bag)]) == 0
    with Ledger(db) as ledger:
        rows = ledger.query("SELECT speaker, text, source_time, time_from_receipt "
                            "FROM sources ORDER BY seq")
    # "yes" twice, each at its receipt (log) time: two sources, not a duplicate.
    assert rows == [("alice", "yes", T0, 1), ("alice", "yes", T0 + 3, 1),
                    ("op", "turn left", T0 + 4, 1)]
    bad = tmp_path / "bad.yaml"
    bad.write_text("topics:\n  /speech: {kind: smell}\n")
    with pytest.raises(ValidationError, match="dialogue or perception"):
        read_topic_map(bad)
