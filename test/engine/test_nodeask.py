"""The query node's Unix socket (trace_ros.nodeask): what `trace-ros query --via auto`
asks first when a node's presence record names one, without rclpy or DDS."""

from __future__ import annotations

import json
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from trace_ros.cli import main
from trace_ros.errors import ValidationError
from trace_ros.ledger import Ledger
from trace_ros.nodeask import MAX_SOCKET_PATH, AskServer, ask, request_fields, socket_path_for
from trace_ros.presence import Announcer, Presence, live_nodes
from trace_ros.storage.url import sqlite_url


def _announcer(db: Path, **kw: Any) -> Announcer:
    """A record on the ROS domain this process's commands are on (a full test run sets
    ROS_DOMAIN_ID for the ROS tests)."""
    from trace_ros.cli import _ros_domain

    return Announcer(sqlite_url(db), node="/query_node", namespace="/",
                     service="/memory/query", domain_id=_ros_domain(), period_s=1.0, **kw)


@pytest.fixture
def echo(tmp_path: Path) -> Iterator[AskServer]:
    asked: list[dict[str, Any]] = []

    def answer(data: Any) -> dict[str, Any]:
        asked.append(data)
        return {"status": "answered", "answer": data["question"].upper(), "asked": len(asked)}

    server = AskServer(tmp_path / "n.sock", answer)
    server.start()
    yield server
    server.close()


def test_one_question_one_answer(echo: AskServer) -> None:
    out, why, sent = ask(str(echo.path), {"question": "where?"})
    assert (out, why, sent) == ({"status": "answered", "answer": "WHERE?", "asked": 1}, "", True)
    out, _, _ = ask(str(echo.path), {"question": "again"})
    assert out is not None and out["asked"] == 2


def test_the_socket_is_its_users_alone(echo: AskServer) -> None:
    assert stat.S_ISSOCK(echo.path.stat().st_mode)
    assert stat.S_IMODE(echo.path.stat().st_mode) == 0o600


def test_close_removes_the_socket_and_a_later_ask_is_not_sent(echo: AskServer) -> None:
    echo.close()
    assert not echo.path.exists()
    out, why, sent = ask(str(echo.path), {"question": "x"})
    assert out is None and not sent and str(echo.path) in why


def test_a_request_that_is_not_json_is_answered_with_an_error(echo: AskServer) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(echo.path))
        conn.sendall(b"{not json\n")
        reply = json.loads(conn.makefile("rb").readline())
    assert reply["status"] == "error" and "not JSON" in reply["message"]


def test_a_server_that_closes_without_answering_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "mute.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    try:
        import threading

        def accept_and_close() -> None:
            conn, _ = listener.accept()
            conn.recv(1 << 16)
            conn.close()

        threading.Thread(target=accept_and_close, daemon=True).start()
        out, why, sent = ask(str(path), {"question": "x"}, answer_s=5.0)
    finally:
        listener.close()
    assert out is None and sent and "without an answer" in why


def test_request_fields_are_checked() -> None:
    f = request_fields({"subject": "alice", "question": "q", "as_of_valid": 0,
                        "as_of_known": 1.5e9, "token_budget": 50})
    assert f == {"subject": "alice", "question": "q", "robot": "", "session": "",
                 "as_of_valid": None, "as_of_known": 1.5e9, "token_budget": 50, "asker": ""}
    assert request_fields({"subject": "alice", "question": "q", "asker": "Nia"})["asker"] == "Nia"
    for bad in ([], {"subject": 3}, {"question": None}, {"as_of_valid": "yesterday"},
                {"asker": 7},
                {"as_of_known": -1.0}, {"token_budget": 1.5}, {"token_budget": True},
                {"extra": 1}):
        with pytest.raises(ValidationError):
            request_fields(bad)


def test_a_socket_path_too_long_for_af_unix_goes_to_a_user_folder(tmp_path: Path) -> None:
    short = tmp_path / "r.json"
    assert socket_path_for(short) == tmp_path / "r.sock"
    deep = tmp_path / ("d" * 120) / "r.json"
    moved = socket_path_for(deep)
    assert len(str(moved)) <= MAX_SOCKET_PATH and moved.suffix == ".sock"
    assert socket_path_for(deep) == moved  # the same record, the same place


def test_the_record_names_the_socket_and_older_records_have_none(tmp_path: Path) -> None:
    announcer = _announcer(tmp_path / "m.db")
    announcer.offer_socket(announcer.socket_path())
    announcer.announce()
    (record,) = live_nodes(sqlite_url(tmp_path / "m.db"))
    assert record.socket == str(tmp_path / "m.db.nodes" / announcer.path.with_suffix(
        ".sock").name)
    older = json.loads(announcer.path.read_text())
    del older["socket"]
    assert Presence.from_json(json.dumps(older)).socket == ""


def test_the_socket_of_a_dead_node_is_removed_with_its_record(tmp_path: Path) -> None:
    import subprocess
    import sys
    from dataclasses import replace

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    announcer = _announcer(tmp_path / "m.db")
    announcer.record = replace(announcer.record, pid=proc.pid)
    announcer.offer_socket(announcer.socket_path())
    announcer.announce()
    announcer.socket_path().write_text("")  # what a killed node leaves
    assert live_nodes(sqlite_url(tmp_path / "m.db"), now=time.time() + 60) == []
    assert not announcer.path.exists() and not announcer.socket_path().exists()


def _ask_cli(db: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    assert main(["query", "--db", str(db), "--subject", "alice", "--json", *extra,
                 "Where do I keep my passport?"]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    db = tmp_path / "m.db"
    events = tmp_path / "events.jsonl"
    events.write_text("".join(
        json.dumps({"subject_id": "alice", "session_id": "s1", "speaker": "Alice",
                    "stamp": 1_735_000_000.0 + i * 60, "text": text}) + "\n"
        for i, text in enumerate(["I keep my passport in the top drawer of the desk.",
                                  "My favourite colour is green."])))
    assert main(["ingest", "--db", str(db), "--format", "jsonl", str(events)]) == 0
    return db


def test_the_cli_asks_the_socket_without_ros_and_gets_the_local_answer(
        ledger: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A node's engine behind the socket (here in this process): the command asks it, does
    not start ROS, and the answer is the one the command finds by itself."""
    from trace_ros.config import load_config
    from trace_ros.embed import MiniLMEncoder
    from trace_ros.ledger import Scope
    from trace_ros.query.answer import QueryEngine, QueryRequest
    from trace_ros.query.readers import make_reader

    capsys.readouterr()
    local = _ask_cli(ledger, capsys, "--via", "local")
    cfg = load_config(None)
    with Ledger(ledger) as opened:
        engine = QueryEngine(opened, MiniLMEncoder(cfg.embed), make_reader(cfg.reader),
                             cfg.recall)

        def answer(data: Any) -> dict[str, Any]:
            f = request_fields(data)
            return engine.ask(QueryRequest(Scope(f["subject"], f["robot"], f["session"]),
                                           f["question"])).to_dict()

        announcer = _announcer(ledger)
        server = AskServer(announcer.socket_path(), answer)
        server.start()
        announcer.offer_socket(server.path)
        announcer.announce()
        monkeypatch.setattr("trace_ros.cli._remote", lambda: pytest.fail("ROS was started"))
        try:
            via_node = _ask_cli(ledger, capsys)
        finally:
            announcer.withdraw()
            server.close()
    assert via_node["path"] == "node (/memory/query, unix socket)"
    for key in ("status", "answer", "source_ids", "reader"):
        assert via_node[key] == local[key], key
    assert via_node["status"] == "answered" and "drawer" in via_node["answer"]


def test_a_socket_that_refuses_sends_the_cli_to_ros(
        ledger: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    announcer = _announcer(ledger)
    announcer.offer_socket(announcer.socket_path())  # named, but nothing listens
    announcer.announce()
    asked: list[str] = []

    def ask_service(service: str, *a: Any, **kw: Any) -> tuple[None, str]:
        asked.append(service)
        return None, f"{service} was not discovered in 0.1 s"

    monkeypatch.setattr("trace_ros.cli._remote", lambda: SimpleNamespace(ask_service=ask_service))
    try:
        out = _ask_cli(ledger, capsys)
    finally:
        announcer.withdraw()
    assert asked == ["/memory/query"]
    assert out["path"] == "local (/memory/query was not discovered in 0.1 s)"
