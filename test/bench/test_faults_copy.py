"""The copy ``bench faults`` compares with its rebuild is taken only once the copy itself
owes no consolidation job: a job made after the live ledger was read as drained (an event
still on its way) must not reach the comparison as "not drained". Real SQLite files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))

from graphkit import HashEncoder, capture  # noqa: E402

from trace_ros.bench import faults  # noqa: E402
from trace_ros.capture import Event  # noqa: E402
from trace_ros.config import MemoryConfig  # noqa: E402
from trace_ros.consolidation.project import build_projection  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402

T0 = 1_700_000_000.0


def _event(i: int) -> Event:
    return Event("dialogue", Scope("sam", "r1", "s0"), f"Note number {i}: the mug is on shelf {i}.",
                 "Sam", stamp=T0 + i, source_id=f"e{i}")


@pytest.fixture()
def drained(tmp_path: Path) -> Path:
    with Ledger(tmp_path / "live.db") as led:
        capture(led, [_event(0)])
        cfg = MemoryConfig()
        projector, gate = build_projection(led, cfg)
        Consolidator(led, HashEncoder(), cfg.consolidation, projector=projector,
                     gate=gate).drain()
        gate.close()
        return led.path


def _pending(path: Path) -> int:
    with Ledger(path, create=False) as led:
        return led.job_counts()["pending"]


def test_a_drained_ledger_is_copied(drained: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    assert faults.copy_when_drained(drained, copy, timeout=2.0)
    assert _pending(copy) == 0


def test_a_job_made_after_the_drained_read_is_not_copied_as_drained(
        drained: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_wait = faults._wait

    def read_then_event(predicate, timeout, step=0.2):  # type: ignore[no-untyped-def]
        ok = real_wait(predicate, timeout, step)
        with Ledger(drained, create=False) as led:  # an event lands just after the read
            capture(led, [_event(led.job_counts()["pending"] + led.job_counts()["done"])])
        return ok

    monkeypatch.setattr(faults, "_wait", read_then_event)
    copy = tmp_path / "copy.db"
    # Each read is followed by a new job, so the copy never drains: False, not a copy
    # that owes jobs passed on as drained.
    assert not faults.copy_when_drained(drained, copy, timeout=1.5)
    assert _pending(copy) > 0
