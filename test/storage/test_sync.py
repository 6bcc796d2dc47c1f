"""``trace-ros sync``: sources and tombstones pushed from a SQLite ledger (an offline
robot's) to a ledger of every engine — copied whole, re-run without sending anything
twice, forgets reaching the other side, resumed after a partial run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from trace_ros.capture import Event, ingest
from trace_ros.cli import main
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope
from trace_ros.sync import sync, watermark_key

CFG = CaptureConfig()
NAME = "sqlite:///robot.db"


def _robot(path: Path, n: int = 6) -> Ledger:
    """A robot's ledger with ``n`` turns of subject ann and two of subject bob."""
    led = Ledger(path)
    for i in range(n):
        ingest(led, [Event("dialogue", Scope("ann", "r1", "s1"), f"turn {i}", "Ann",
                           stamp=100.0 + i, source_id=f"a-{i}")], CFG)
    ingest(led, [Event("dialogue", Scope("bob", "r1", "s2"), f"bob {i}", "Bob",
                       stamp=200.0 + i, source_id=f"b-{i}") for i in range(2)], CFG)
    return led


def _ids(led: Any, subject: str = "ann") -> list[str]:
    return [r.source_id for r in led.sources_in_scope(Scope(subject))]


def test_copy_rerun_and_forget_both_ways(ledger: Any, tmp_path: Path) -> None:
    robot = _robot(tmp_path / "robot.db")
    first = sync(robot, ledger, NAME, batch=3)
    assert (first.sources_seen, first.accepted, first.duplicate) == (8, 8, 0)
    assert ledger.count_sources() == 8 and ledger.job_counts()["pending"] == 8
    copy = ledger.get_sources(["a-2"])[0]
    orig = robot.get_sources(["a-2"])[0]
    assert (copy.text, copy.content_hash, copy.source_time, copy.known_time) == \
        (orig.text, orig.content_hash, orig.source_time, orig.known_time)
    again = sync(robot, ledger, NAME)
    assert (again.sources_seen, again.accepted) == (0, 0)  # the watermark: nothing re-read
    assert ledger.count_sources() == 8
    # A forget on the robot reaches the target, and the target then refuses the ID.
    robot.forget(source_ids=["a-1"])
    gone = sync(robot, ledger, NAME)
    assert gone.forgotten == 1 and "a-1" not in _ids(ledger)
    # A forget on the target reaches the robot when run the other way.
    ledger.forget(source_ids=["a-4"])
    back = sync(ledger, robot, "target")
    assert back.forgotten == 1 and "a-4" not in _ids(robot)
    assert back.rejected == 0 and back.duplicate == 6  # the first run back re-reads all
    assert _ids(robot) == _ids(ledger) == ["a-0", "a-2", "a-3", "a-5"]
    robot.close()


def test_resume_after_a_partial_run(ledger: Any, tmp_path: Path) -> None:
    robot = _robot(tmp_path / "robot.db")

    def crash(n: int) -> None:
        raise KeyboardInterrupt  # the link drops after the first committed batch

    with pytest.raises(KeyboardInterrupt):
        sync(robot, ledger, NAME, batch=3, on_batch=crash)
    assert ledger.count_sources() == 3
    rest = sync(robot, ledger, NAME, batch=3)
    assert (rest.sources_seen, rest.accepted, rest.duplicate) == (5, 5, 0)
    assert ledger.source_counts() == {sid: 1 for sid in _ids(robot) + _ids(robot, "bob")}
    # Without the watermark (another source name) everything is sent and nothing stored twice.
    blind = sync(robot, ledger, "elsewhere")
    assert (blind.accepted, blind.duplicate) == (0, 8)
    robot.close()


def test_one_subject(ledger: Any, tmp_path: Path) -> None:
    robot = _robot(tmp_path / "robot.db")
    only = sync(robot, ledger, NAME, subject_id="bob")
    assert only.accepted == 2 and ledger.count_sources() == 2
    robot.forget(source_ids=["b-0", "a-0"])
    sync(robot, ledger, NAME, subject_id="bob")
    assert _ids(ledger, "bob") == ["b-1"]
    # A tombstone names its subject: one subject's sync takes its own, leaves a-0's at home.
    assert [(t.source_id, t.subject_id) for t in ledger.tombstones_recorded_after(0, 10)] == \
        [("b-0", "bob")]
    robot.close()


def test_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _robot(tmp_path / "robot.db").close()
    src, dst = f"sqlite://{tmp_path}/robot.db", f"sqlite://{tmp_path}/fleet.db"
    assert main(["sync", "--from", src, "--to", dst, "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()[-1]
    assert '"accepted": 8' in out
    assert main(["sync", "--from", src, "--to", dst, "--json"]) == 0
    assert '"sources_seen": 0' in capsys.readouterr().out
    with Ledger(tmp_path / "fleet.db", create=False) as fleet:
        assert fleet.count_sources() == 8


@pytest.mark.parametrize("argv, needle", [
    (["--from", "mysql://x/y", "--to", "sqlite:b.db"], "--from: unknown engine"),
    (["--from", "sqlite:///nowhere/missing.db", "--to", "sqlite:b.db"], "--from:"),
    (["--from", "sqlite:a.db", "--to", "sqlite:a.db"], "--to: names the same ledger"),
])
def test_command_errors(argv: list[str], needle: str, tmp_path: Path,
                        monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["sync", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_command_to_postgresql(open_engine: Callable[[str], Any], tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    target = open_engine("postgresql")
    _robot(tmp_path / "robot.db").close()
    url = str(target.url)
    if target.url.password:
        pytest.skip("the server's URL carries a password (the command line shows none)")
    assert main(["sync", "--from", f"sqlite://{tmp_path}/robot.db", "--to", url]) == 0
    assert "8 stored" in capsys.readouterr().out
    assert target.count_sources() == 8


def test_tombstones_tied_on_time_and_id_all_arrive_once(ledger: Any, tmp_path: Path) -> None:
    """One ID can be tombstoned in several subjects at one time (a tombstone of unknown
    subject, ``''``, beside its subject's; two ledgers' forgets met by sync): each has a
    number of its own, so no batch boundary skips one or sends one twice."""
    stones = [("x-0", 50.0, "ann"), ("x-1", 50.0, "ann"), ("x-1", 50.0, "bob"),
              ("x-1", 50.0, ""), ("x-2", 50.0, "ann")]
    assert ledger.add_tombstones(stones) == 5
    target = Ledger(tmp_path / "target.db")
    first = sync(ledger, target, "fleet", batch=1)
    assert first.tombstones_seen == 5
    assert sorted(t[:3] for t in target.tombstones_recorded_after(0, 10)) == sorted(stones)
    assert sync(ledger, target, "fleet", batch=2).tombstones_seen == 0
    target.close()


@pytest.mark.parametrize("fleet_is_source", [False, True], ids=["robot->fleet",
                                                                "fleet->robot"])
def test_a_tombstone_recorded_late_with_an_older_removal_time_arrives(
        ledger: Any, tmp_path: Path, fleet_is_source: bool) -> None:
    """A tombstone recorded after a run but removed before the last one sent — a forget
    synced in from a third ledger, or made on a robot whose clock is behind — is sent by
    the next run (sync resumes from the order tombstones were recorded in, not from their
    removal time), and a run after that sends nothing twice."""
    robot = _robot(tmp_path / "robot.db")
    sync(robot, ledger, NAME)
    src, dst = (ledger, robot) if fleet_is_source else (robot, ledger)
    src.forget(source_ids=["a-3"], now=500.0)
    first = sync(src, dst, "src")
    assert (first.tombstones_seen, first.forgotten) == (1, 1)
    third = Ledger(tmp_path / "third.db")  # another robot's forget, an hour older
    assert third.add_tombstones([("z-0", 100.0, "ann")]) == 1
    assert sync(third, src, "third").tombstoned == 1
    src.forget(source_ids=["a-1"], now=400.0)  # a clock behind
    late = sync(src, dst, "src")
    assert (late.tombstones_seen, late.forgotten, late.tombstoned) == (2, 1, 1)
    assert _ids(dst) == ["a-0", "a-2", "a-4", "a-5"]
    assert {t.source_id for t in dst.tombstones_recorded_after(0, 10)} == {"a-1", "a-3", "z-0"}
    again = sync(src, dst, "src")
    assert (again.sources_seen, again.tombstones_seen) == (0, 0)
    # Both ways, nothing goes round forever: what came back is not sent again.
    back = sync(dst, src, "dst")
    assert (back.forgotten, back.tombstoned) == (0, 0)
    assert sync(src, dst, "src").tombstones_seen == 0
    third.close()
    robot.close()


def test_a_mark_from_before_tombstones_were_numbered_sends_them_all_once_more(
        ledger: Any, tmp_path: Path) -> None:
    """A watermark written before tombstones were numbered — (removal time, ID, subject)
    of the last one sent — cannot say whether one recorded later with an older time was
    sent: the next run sends every tombstone once more (the target keeps those it has),
    and records the new mark."""
    robot = _robot(tmp_path / "robot.db")
    sync(robot, ledger, NAME)
    robot.forget(source_ids=["a-3"], now=500.0)
    sync(robot, ledger, NAME)
    robot.forget(source_ids=["a-1"], now=400.0)  # recorded after the mark, older
    ledger.put_meta_value(watermark_key(NAME), json.dumps(
        {"seq": robot.last_seq(), "tombstone_at": 500.0, "tombstone_id": "a-3",
         "tombstone_subject": "ann"}))
    resumed = sync(robot, ledger, NAME)
    assert (resumed.sources_seen, resumed.tombstones_seen) == (0, 2)
    assert (resumed.forgotten, resumed.tombstoned) == (1, 0)
    assert "a-1" not in _ids(ledger)
    assert set(json.loads(ledger.meta_value(watermark_key(NAME)))) == {"seq", "tombstone_seq"}
    assert sync(robot, ledger, NAME).tombstones_seen == 0
    robot.close()
