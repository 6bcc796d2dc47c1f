"""The memory node's continuous sync (``trace_ros.syncloop``), without ROS: rounds push new
sources and forgets to a target of every engine; an unreachable target is reported once
per outage, never stops the loop, and the sync resumes when the target comes back."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, MemoryConfig
from trace_ros.errors import ConfigError
from trace_ros.ledger import Ledger, Scope
from trace_ros.storage import open_sources_ledger
from trace_ros.storage.url import sqlite_url
from trace_ros.syncloop import SyncLoop, ledger_name, loop_for

CFG = CaptureConfig()


def _say(led: Any, sid: str, stamp: float) -> None:
    ingest(led, [Event("dialogue", Scope("ann", "r1", "s1"), f"turn {sid}", "Ann", stamp=stamp,
                       source_id=sid)], CFG)


def _ids(led: Any) -> list[str]:
    return [r.source_id for r in led.sources_in_scope(Scope("ann"))]


def _wait(check: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def _reopen(led: Any) -> Callable[[], Any]:
    """An opener of another handle on the same ledger, as the node opens its target."""
    return lambda: open_sources_ledger(led.url if hasattr(led, "url") else sqlite_url(led.path))


def test_rounds_push_new_sources_and_forgets(ledger: Any, tmp_path: Path) -> None:
    robot = Ledger(tmp_path / "robot.db")
    loop = SyncLoop(robot, "sqlite:///robot.db", _reopen(ledger), period_s=lambda: 0.05)
    _say(robot, "a-0", 1.0)
    loop.start()
    try:
        assert _wait(lambda: _ids(ledger) == ["a-0"])
        _say(robot, "a-1", 2.0)  # captured while the loop runs
        assert _wait(lambda: _ids(ledger) == ["a-0", "a-1"])
        robot.forget(source_ids=["a-0"])
        assert _wait(lambda: _ids(ledger) == ["a-1"])
    finally:
        assert loop.stop()
    # a-0 in one round, a-1 (and perhaps the forget with it) in a later one
    assert loop.sent == 2 and not loop.failing and loop.rounds >= 2
    robot.close()


def test_an_outage_is_logged_once_and_the_sync_resumes(tmp_path: Path) -> None:
    robot = Ledger(tmp_path / "robot.db")
    mount = tmp_path / "fleet"
    mount.write_text("")  # the target's folder is not there: a file blocks it
    target = sqlite_url(mount / "ledger.db")
    errors: list[str] = []
    recovered: list[str] = []
    loop = SyncLoop(robot, "robot", lambda: open_sources_ledger(target, create=True),
                    period_s=lambda: 0.02, target_name=str(target),
                    on_error=errors.append, on_recover=recovered.append)
    _say(robot, "a-0", 1.0)
    for _ in range(5):
        assert loop.run_once() is None
    assert len(errors) == 1 and str(target) in errors[0] and "cannot create" in errors[0]
    assert loop.failing and loop.state()["sync_state"] == "failing"
    mount.unlink()  # the target is back
    report = loop.run_once()
    assert report is not None and report.accepted == 1
    assert recovered == [f"sync to {target} resumed (1 sources sent)"] and not loop.failing
    robot.close()


@pytest.fixture
def private_pg(pg_admin_url: Any, tmp_path: Path) -> Any:
    """A PostgreSQL server of this test's own, which the test stops and starts again."""
    pgserver = pytest.importorskip("pgserver")
    server = pgserver.get_server(tmp_path / "pg", cleanup_mode="delete")
    try:
        yield server
    finally:
        server.cleanup()


def test_a_server_restart_is_one_outage_and_the_thread_carries_on(private_pg: Any,
                                                                    tmp_path: Path) -> None:
    from pgserver._commands import pg_ctl

    from trace_ros.storage.url import parse_ledger_url

    url = parse_ledger_url(private_pg.get_uri(), "pgserver")
    robot = Ledger(tmp_path / "robot.db")
    errors: list[str] = []
    recovered: list[str] = []
    loop = SyncLoop(robot, "robot", lambda: open_sources_ledger(url), period_s=lambda: 0.05,
                    on_error=errors.append, on_recover=recovered.append)
    _say(robot, "a-0", 1.0)
    loop.start()
    try:
        assert _wait(lambda: loop.sent == 1)
        pg_ctl(["-w", "stop", "-m", "immediate"], pgdata=private_pg.pgdata,
               user=private_pg.system_user)
        _say(robot, "a-1", 2.0)  # captured while the fleet is away
        assert _wait(lambda: len(errors) == 1)
        time.sleep(0.3)  # more failed rounds: no more reports
        assert len(errors) == 1 and loop.rounds > 2 and loop.failing
        private_pg.ensure_postgres_running()
        assert _wait(lambda: recovered != [] and loop.sent == 2)
    finally:
        assert loop.stop()
    assert len(errors) == 1 and len(recovered) == 1
    with open_sources_ledger(url) as fleet:
        assert _ids(fleet) == ["a-0", "a-1"]
    robot.close()


def test_the_node_config_builds_the_loop(tmp_path: Path) -> None:
    robot = Ledger(tmp_path / "robot.db")
    cfg = MemoryConfig()
    cfg.ledger.db_path = str(tmp_path / "robot.db")
    assert loop_for(robot, cfg, on_error=print, on_recover=print) is None  # off by default
    cfg.sync.to_url = f"sqlite://{tmp_path / 'fleet.db'}"
    loop = loop_for(robot, cfg, on_error=print, on_recover=print)
    assert loop is not None and loop.source_name == ledger_name(cfg.ledger_url)
    assert loop.source_name == str(sqlite_url(tmp_path / "robot.db"))  # as `trace-ros sync`
    cfg.sync.period_s = 7.5  # a dynamic parameter: the loop reads the live config
    assert loop._period_s() == 7.5
    cfg.sync.to_url = f"sqlite:{tmp_path / 'robot.db'}"
    with pytest.raises(ConfigError, match="sync.to_url: names this node's own ledger"):
        loop_for(robot, cfg, on_error=print, on_recover=print)
    with pytest.raises(ConfigError, match="sync.to_url"):
        MemoryConfig.from_flat({"sync.to_url": "ftp://nowhere"})
    with pytest.raises(ConfigError, match="sync.period_s"):
        MemoryConfig.from_flat({"sync.period_s": 0.0})
    robot.close()
