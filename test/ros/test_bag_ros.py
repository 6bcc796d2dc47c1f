"""A short session over DDS recorded to MCAP, imported into a fresh ledger: same answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")
pytest.importorskip("mcap_ros2", reason="needs mcap-ros2-support (requirements.txt)")

from trace_ros.cli import main  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.nodes.client import make_dialogue, make_perception  # noqa: E402
from trace_ros.nodes.record import Recorder  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest  # noqa: E402

TIMEOUT_S = 30.0
T0 = 1_760_000_000.0
QUESTIONS = ("Where do I keep my passport?", "Where did you last see my keys?",
             "What did you see?", "What did I say?")


def test_record_session_to_mcap_and_import_it(nodes: Any, db: Path, tmp_path: Path,
                                              make_client: Any, ready: Any) -> None:
    nodes.start(("memory_node",))
    client = make_client()
    ready(client, nodes, capture=True)
    bag = tmp_path / "session.mcap"
    msgs = [make_dialogue("alice", "I keep my passport in the desk drawer.", speaker="alice",
                          stamp=T0),
            make_dialogue("alice", "yes", speaker="alice"),      # zero stamp: at receipt
            make_perception("alice", "keys", actor="cam", confidence=0.5, frame_id="map",
                            xyz=(2.0, 1.0, 0.0), stamp=T0 + 2),
            make_dialogue("alice", "yes", speaker="alice")]      # said again: stored again
    with Recorder(bag) as recorder:
        # Discovery is matched on each side in its own time: the recorder seeing the client's
        # publishers is not the publishers seeing the recorder, and what they publish before
        # that reaches the memory node only. Wait for both sides (the memory node and the
        # recorder on each topic).
        deadline_ok = client.wait_for(
            lambda: recorder.connected() and client.dialogue_pub.get_subscription_count() >= 2
            and client.perception_pub.get_subscription_count() >= 2, TIMEOUT_S)
        assert deadline_ok, "recorder did not connect"
        for msg in msgs:
            before = len(client.acks)
            client.publish(msg)
            assert client.wait_for(lambda b=before: len(client.acks) > b, TIMEOUT_S)
        assert [a.status for a in client.acks] == ["accepted"] * 4
        assert client.wait_for(lambda: recorder.count == 4, TIMEOUT_S)  # its own delivery
    assert recorder.count == 4

    fresh = tmp_path / "fresh.db"
    assert main(["ingest", "--db", str(fresh), "--format", "mcap", "--no-consolidate",
                 str(bag)]) == 0
    with Ledger(fresh) as ledger:
        assert ledger.count_sources() == 4
    answers = []
    for ledger_path in (db, fresh):
        with Ledger(ledger_path) as ledger:
            engine = QueryEngine(ledger, None, audit=False)
            answers.append([engine.ask(QueryRequest(Scope("alice"), q), now=T0 + 60).to_dict()
                            for q in QUESTIONS])
            texts = sorted(r[0] for r in ledger.query("SELECT text FROM sources"))
            assert texts.count("yes") == 2
    for live, replayed in zip(*answers, strict=True):
        assert (live["status"], live["answer"]) == (replayed["status"], replayed["answer"])
    # Sources with a real stamp keep their ID through the bag.
    assert set(answers[0][0]["source_ids"]) == set(answers[1][0]["source_ids"])
