"""/memory/query and /memory/forget with all three nodes on one ledger."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from trace_ros.srv import Query  # noqa: E402

from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.nodes.client import MemoryClient, make_dialogue, make_perception  # noqa: E402

TIMEOUT_S = 60.0
T0 = 1_735_000_000.0

ALICE = [
    ("alice-1", "I keep my passport in the top drawer of the desk."),
    ("alice-2", "My favourite colour is green."),
    ("alice-3", "The dentist appointment is on Friday at ten."),
]
BOB = [
    ("bob-1", "I keep my bicycle in the garage."),
    ("bob-2", "My favourite colour is orange."),
]

HOME = [
    ("home-1", "Nia", "My dentist appointment is on Monday at 3pm."),
    ("home-2", "Tomas", "My dentist appointment is on Friday at ten."),
]


def _events() -> list[Any]:
    msgs = [make_dialogue("alice", text, speaker="alice", session_id="a1", source_id=sid,
                          stamp=T0 + i) for i, (sid, text) in enumerate(ALICE)]
    msgs += [make_dialogue("bob", text, speaker="bob", session_id="b1", source_id=sid,
                           stamp=T0 + 10 + i) for i, (sid, text) in enumerate(BOB)]
    # Two speakers in one room, each telling their own appointment (the asker test).
    msgs += [make_dialogue("home", text, speaker=who, session_id="h1", source_id=sid,
                           stamp=T0 + 30 + i) for i, (sid, who, text) in enumerate(HOME)]
    msgs.append(make_perception("alice", "umbrella", "umbrella next to the front door",
                                actor="cam", frame_id="map", xyz=(1.0, 2.0, 0.0),
                                source_id="alice-see-1", stamp=T0 + 20))
    return msgs


@pytest.fixture(scope="module")
def client(module_nodes: Any, module_db: Any, ready: Any) -> Iterator[MemoryClient]:
    module_nodes.start(("memory_node", "consolidation_node", "query_node"))
    with MemoryClient("test_query") as c:
        ready(c, module_nodes, capture=True, query=True, forget=True)
        msgs = _events()
        for msg in msgs:
            c.publish(msg)
        acks = c.wait_acks([m.source_id for m in msgs], TIMEOUT_S)
        assert {a.status for a in acks.values()} == {"accepted"} and len(acks) == len(msgs)
        _wait_consolidated(module_db)
        yield c


def _wait_consolidated(db: Any) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    with Ledger(db) as ledger:
        while ledger.job_counts()["pending"] or ledger.job_counts()["running"]:
            assert time.monotonic() < deadline, "consolidation did not finish"
            time.sleep(0.2)


def _subjects(db: Any, ids: list[str]) -> dict[str, str]:
    with Ledger(db) as ledger:
        return {r.source_id: r.subject_id for r in ledger.get_sources(ids)}


def test_answer_cites_existing_sources_of_the_subject(client: MemoryClient,
                                                      module_db: Any) -> None:
    response = client.query("alice", "Where do I keep my passport?", TIMEOUT_S)
    assert response.status == "answered", response.message
    assert "drawer" in response.answer
    assert response.source_ids and "alice-1" in response.source_ids
    assert _subjects(module_db, list(response.source_ids)) == dict.fromkeys(
        response.source_ids, "alice")
    assert {e.source_id for e in response.evidence} >= set(response.source_ids)
    assert all(e.scope.subject_id == "alice" for e in response.evidence)
    assert response.reader == "extractive"
    assert '"operation"' in response.plan_json and '"total"' in response.timings_json
    assert response.recall_id.isdigit()  # the audit row this answer was recorded under


def test_the_asker_says_whose_my(client: MemoryClient) -> None:
    """Query.asker over DDS: "my" is the asker's, not the other speaker's in the room."""
    for asker, day, sid in (("Nia", "monday", "home-1"), ("Tomas", "friday", "home-2")):
        response = client.query("home", "When is my dentist appointment?", TIMEOUT_S,
                                asker=asker)
        assert response.status == "answered", response.message
        assert day in response.answer.lower(), (asker, response.answer)
        assert response.source_ids[0] == sid


def test_perception_is_answerable(client: MemoryClient) -> None:
    response = client.query("alice", "Where did you see the umbrella?", TIMEOUT_S)
    assert response.status == "answered", response.message
    assert response.source_ids == ["alice-see-1"]
    (evidence,) = [e for e in response.evidence if e.source_id == "alice-see-1"]
    assert evidence.modality == "perception" and evidence.source_time.sec == int(T0 + 20)
    # Spatial memory: the label, confidence and pose come back with the evidence.
    assert response.reader == "spatial:locate" and "in frame map" in response.answer
    assert (evidence.label, evidence.has_pose, evidence.pose.header.frame_id) == (
        "umbrella", True, "map")
    position = evidence.pose.pose.position
    assert (position.x, position.y, position.z) == (1.0, 2.0, 0.0)
    assert evidence.confidence == pytest.approx(1.0)


def test_region_and_window_survey(client: MemoryClient) -> None:
    near_door = ("map", 1.2, 2.0, 0.0, 0.5)
    response = client.query("alice", "What did you see near the door?", TIMEOUT_S,
                            region=near_door, window=(T0, T0 + 60))
    assert response.status == Query.Response.STATUS_ANSWERED, response.message
    assert response.source_ids == ["alice-see-1"] and response.reader == "spatial:survey"
    later = client.query("alice", "What did you see near the door?", TIMEOUT_S,
                         region=near_door, window=(T0 + 100, T0 + 200))
    assert later.status == Query.Response.STATUS_MISSING and not later.source_ids
    elsewhere = client.query("alice", "What did you see?", TIMEOUT_S,
                             region=("odom", 1.0, 2.0, 0.0, 5.0))
    assert elsewhere.status == Query.Response.STATUS_MISSING


def test_other_subject_never_sees_the_first_subjects_records(client: MemoryClient) -> None:
    for question in ("Where do I keep my passport?", "What is my favourite colour?",
                     "When is the dentist appointment?"):
        response = client.query("bob", question, TIMEOUT_S)
        shown = set(response.source_ids) | {e.source_id for e in response.evidence}
        assert not any(s.startswith("alice") for s in shown), (question, shown)
    response = client.query("bob", "What is my favourite colour?", TIMEOUT_S)
    assert response.status == "answered" and response.source_ids == ["bob-2"]


@pytest.mark.parametrize(("subject", "question", "field"), [
    ("", "Where is my passport?", "scope.subject_id"),
    ("alice", "   ", "question"),
])
def test_bad_query_is_an_error_naming_the_field(client: MemoryClient, subject: str,
                                                question: str, field: str) -> None:
    response = client.query(subject, question, TIMEOUT_S)
    assert response.status == "error"
    assert response.message.startswith(f"{field}:"), response.message
    assert not response.source_ids


@pytest.mark.parametrize(("sec", "nanosec", "field", "reason"), [
    (-5, 0, "as_of_valid", "negative"),
    (10, 1_000_000_000, "as_of_valid.nanosec", "below 1e9"),
])
def test_bad_time_view_is_an_error_not_now(client: MemoryClient, sec: int, nanosec: int,
                                           field: str, reason: str) -> None:
    from builtin_interfaces.msg import Time
    from trace_ros.msg import Scope as ScopeMsg
    from trace_ros.srv import Query

    request = Query.Request(scope=ScopeMsg(subject_id="alice"), question="Where is my passport?",
                            as_of_valid=Time(sec=sec, nanosec=nanosec))
    response = client._call(client.query_client, request, TIMEOUT_S, read_only=True)
    assert response.status == "error", (response.status, response.message)
    assert response.message.startswith(f"{field}:") and reason in response.message


def test_tiny_token_budget_says_so(client: MemoryClient) -> None:
    response = client.query("alice", "Where do I keep my passport?", TIMEOUT_S, token_budget=1)
    assert response.status != "missing"
    assert "token_budget" in response.message, response.message


def test_forget_removes_a_source_and_its_replay_is_rejected(client: MemoryClient,
                                                            module_db: Any) -> None:
    response = client.forget(source_ids=["alice-3"], timeout=TIMEOUT_S)
    assert (response.status, list(response.removed_source_ids)) == ("ok", ["alice-3"])
    assert response.sources_removed == 1
    assert _subjects(module_db, ["alice-3"]) == {}

    answer = client.query("alice", "When is the dentist appointment?", TIMEOUT_S)
    assert "alice-3" not in set(answer.source_ids) | {e.source_id for e in answer.evidence}

    replay = next(m for m in _events() if m.source_id == "alice-3")
    before = len(client.acks)
    client.publish(replay)
    assert client.wait_for(lambda: any(a.source_id == "alice-3"
                                       for a in client.acks[before:]), TIMEOUT_S)
    ack = next(a for a in client.acks[before:] if a.source_id == "alice-3")
    assert (ack.status, ack.field) == ("rejected", "source_id")
    assert "forgotten" in ack.reason
    assert _subjects(module_db, ["alice-3"]) == {}


def test_forget_without_scope_or_ids_is_an_error(client: MemoryClient) -> None:
    response = client.forget(timeout=TIMEOUT_S)
    assert response.status == "error" and "scope" in response.message


def test_cli_query_asks_the_running_node(client: MemoryClient, module_db: Any) -> None:
    """`trace-ros query` asks the query node that serves that ledger: on its Unix socket by
    default, over ROS with --via ros; the same answer either way."""
    import json
    import subprocess
    import sys

    from trace_ros.nodes.bringup import child_env

    def cli(*args: str) -> tuple[dict[str, Any], float]:
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-P", "-m", "trace_ros.cli", "query", "--db",
                               str(module_db), "--subject", "alice", "--json", "--wait", "20",
                               *args,
                               "Where do I keep my passport?"], env=child_env(),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1]), time.monotonic() - started

    via_node, node_s = cli()
    assert via_node["path"] == "node (/memory/query, unix socket)", via_node["path"]
    via_ros, ros_s = cli("--via", "ros")
    assert via_ros["path"].startswith("ros (/memory/query)"), via_ros["path"]
    assert via_ros["status"] == "answered" and "alice-1" in via_ros["source_ids"]
    local, local_s = cli("--via", "local")
    assert local["path"].startswith("local")
    assert (local["status"], local["answer"]) == (via_ros["status"], via_ros["answer"])
    assert (via_node["status"], via_node["answer"]) == (via_ros["status"], via_ros["answer"])
    print(f"trace-ros query: the node's socket {node_s:.2f} s, over ROS {ros_s:.2f} s, "
          f"local {local_s:.2f} s")
    other = subprocess.run([sys.executable, "-P", "-m", "trace_ros.cli", "query", "--db",
                            str(module_db) + ".other", "--subject", "alice", "--via", "ros",
                            "hello"], env=child_env(), capture_output=True, text=True,
                           timeout=120)
    assert other.returncode == 2 and "serves" in other.stderr
