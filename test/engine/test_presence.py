"""Presence records: how `trace-ros query` knows at once whether a query node serves a ledger."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from trace_ros.cli import main
from trace_ros.ledger import Ledger
from trace_ros.presence import (
    Announcer,
    Presence,
    is_live,
    ledger_identity,
    live_nodes,
    presence_dir,
)
from trace_ros.storage.url import parse_ledger_url, sqlite_url


def _announcer(db: Path, node: str = "/query_node", namespace: str = "/",
               domain_id: int = 0, period_s: float = 1.0, **kw: object) -> Announcer:
    service = namespace.rstrip("/") + "/memory/query"
    return Announcer(sqlite_url(db), node=node, namespace=namespace, service=service,
                     domain_id=domain_id, period_s=period_s, **kw)  # type: ignore[arg-type]


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_announce_beat_withdraw(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    announcer = _announcer(db, node="/robot1/query_node", namespace="/robot1", domain_id=7)
    path = announcer.announce()
    assert path.parent == tmp_path / "memory.db.nodes"
    (record,) = live_nodes(sqlite_url(db))
    assert (record.node, record.namespace, record.service, record.domain_id) == (
        "/robot1/query_node", "/robot1", "/robot1/memory/query", 7)
    assert (record.pid, record.host) == (os.getpid(), socket.gethostname())
    assert record.ledger == f"sqlite://{db.resolve()}"
    first = record.beat_at
    time.sleep(0.01)
    announcer.beat()
    assert live_nodes(sqlite_url(db))[0].beat_at > first
    announcer.withdraw()
    assert live_nodes(sqlite_url(db)) == [] and not path.exists()
    announcer.beat()  # after a withdraw a late timer tick writes nothing
    assert not path.exists()


def test_no_folder_means_no_node(tmp_path: Path) -> None:
    assert live_nodes(sqlite_url(tmp_path / "never.db")) == []


def test_stale_heartbeat_is_not_live(tmp_path: Path) -> None:
    announcer = _announcer(tmp_path / "m.db", period_s=0.5)
    announcer.announce()
    url = sqlite_url(tmp_path / "m.db")
    now = time.time()
    assert live_nodes(url, now=now + 1.4)  # two missed beats: still live
    assert live_nodes(url, now=now + 1.6) == []  # three: stale
    assert announcer.path.exists()  # its process is alive: the record stays for it to refresh


def test_record_of_a_dead_process_is_not_live_and_is_removed(tmp_path: Path) -> None:
    announcer = _announcer(tmp_path / "m.db")
    announcer.record = replace(announcer.record, pid=_dead_pid())
    announcer.announce()
    url = sqlite_url(tmp_path / "m.db")
    assert not is_live(announcer.record, time.time())  # fresh heartbeat, process gone
    assert live_nodes(url) == [] and announcer.path.exists()  # not stale yet: left alone
    assert live_nodes(url, now=time.time() + 60) == [] and not announcer.path.exists()


def test_reused_pid_is_not_live(tmp_path: Path) -> None:
    announcer = _announcer(tmp_path / "m.db")
    announcer.announce()
    record = live_nodes(sqlite_url(tmp_path / "m.db"))[0]
    assert record.pid_start is not None
    reused = replace(record, pid_start=record.pid_start - 3600.0)
    assert not is_live(reused, time.time())


def test_record_of_another_host_is_judged_by_its_heartbeat(tmp_path: Path) -> None:
    record = replace(_announcer(tmp_path / "m.db").record, host="elsewhere", pid=_dead_pid())
    now = record.beat_at
    assert is_live(record, now + 1.0)
    assert not is_live(record, now + 10.0)


def test_other_ledgers_and_unreadable_files_are_skipped(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    ours = _announcer(db)
    ours.announce()
    folder = ours.folder
    other = {**asdict(ours.record), "ledger": "sqlite:///elsewhere.db", "node": "/x"}
    (folder / "other.json").write_text(json.dumps(other))
    (folder / "torn.json").write_text('{"ledger": ')
    (folder / "future.json").write_text(json.dumps({**asdict(ours.record), "schema": 99}))
    assert [r.node for r in live_nodes(sqlite_url(db))] == ["/query_node"]


def test_freshest_first(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    old = _announcer(db, node="/a/query_node", namespace="/a", clock=lambda: time.time() - 1.0)
    new = _announcer(db, node="/b/query_node", namespace="/b")
    old.announce()
    new.announce()
    assert [r.node for r in live_nodes(sqlite_url(db))] == ["/b/query_node", "/a/query_node"]


def test_ledger_identity(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    db.touch()
    link = tmp_path / "link.db"
    link.symlink_to(db)
    assert ledger_identity(sqlite_url(link)) == ledger_identity(sqlite_url(db))
    assert presence_dir(sqlite_url(link)) == presence_dir(sqlite_url(db))
    pg = parse_ledger_url("postgresql://robot:secret@db.local:5433/fleet?sslmode=require")
    assert ledger_identity(pg) == "postgresql://robot@db.local:5433/fleet"
    other_role = parse_ledger_url("postgresql://viewer@db.local:5433/fleet")
    assert ledger_identity(other_role) != ledger_identity(pg)  # RLS may confine another role
    folder = presence_dir(pg)
    assert "secret" not in str(folder) and folder != presence_dir(other_role)
    socket_url = parse_ledger_url("postgresql://robot@/fleet?host=/run/postgresql")
    assert ledger_identity(socket_url) == "postgresql://robot@[/run/postgresql]/fleet"


def test_postgresql_records_live_in_a_folder_of_this_host(tmp_path: Path) -> None:
    url = parse_ledger_url(f"postgresql://robot@localhost:5432/bench_{os.getpid()}")
    announcer = Announcer(url, node="/query_node", namespace="/", service="/memory/query",
                          domain_id=0, period_s=1.0)
    try:
        announcer.announce()
        assert [r.ledger for r in live_nodes(url)] == [ledger_identity(url)]
    finally:
        announcer.withdraw()
    assert live_nodes(url) == []


def test_from_json_round_trip(tmp_path: Path) -> None:
    record = _announcer(tmp_path / "m.db").record
    assert Presence.from_json(json.dumps(asdict(record))) == record


def _ask(db: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    assert main(["query", "--db", str(db), "--subject", "alice", "--json", *extra,
                 "Where are my keys?"]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_cli_answers_here_at_once_when_no_live_node_serves_the_ledger(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No record, a record on another ROS domain, or one in another namespace: the command
    answers in its own process without starting ROS, and says why."""
    db = tmp_path / "m.db"
    Ledger(db).close()
    monkeypatch.setenv("ROS_DOMAIN_ID", "11")
    monkeypatch.setattr("trace_ros.cli._remote", lambda: pytest.fail("ROS was started"))
    assert _ask(db, capsys)["path"] == "local (no query node serves this ledger)"
    _announcer(db, domain_id=12).announce()
    out = _ask(db, capsys)
    assert out["path"] == ("local (the query node /query_node serves this ledger on ROS "
                           "domain 12, this command is on 11)")
    monkeypatch.setenv("ROS_DOMAIN_ID", "12")
    assert _ask(db, capsys, "--namespace", "robot9")["path"] == (
        "local (no query node serves this ledger in /robot9)")
