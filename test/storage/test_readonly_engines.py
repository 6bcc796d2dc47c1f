"""The explorer's read-only ledger and its reads, on every engine: it reads what the
writer stored, and the engine refuses any write through it."""

from __future__ import annotations

from typing import Any

import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.errors import TraceError
from trace_ros.ledger import Scope
from trace_ros.storage.readonly import open_read_only
from trace_ros.storage.url import sqlite_url


def _target(ledger: Any) -> Any:
    return ledger.url if hasattr(ledger, "url") else sqlite_url(ledger.path)


def test_read_only_ledger_reads_and_refuses_writes(ledger: Any) -> None:
    events = [Event("dialogue", Scope(subject, "r1", "s1"), f"{subject} says hello", "Ann",
                    stamp=10.0 + i, source_id=f"{subject}-{i}")
              for i, subject in enumerate(("ann", "ann", "bob"))]
    ingest(ledger, events, CaptureConfig())
    ro = open_read_only(_target(ledger))
    try:
        summaries = ro.subject_summaries()
        assert [(s["subject_id"], s["sources"], s["robots"]) for s in summaries] == \
            [("ann", 2, 1), ("bob", 1, 1)]
        assert ro.has_subject("ann") and not ro.has_subject("zed")
        assert ro.robots_of("ann") == ["r1"] and ro.time_span_of("ann")[:2] == (10.0, 11.0)
        assert [r[1] for r in ro.search_sources(Scope("ann"), '"hello"', 5)] == ["ann-0", "ann-1"]
        assert ro.past_questions("ann", 5) == []
        with pytest.raises(Exception):  # noqa: B017 - each engine's own refusal
            ro.forget(Scope("ann"))
        assert ledger.count_sources("ann") == 2
    finally:
        ro.close()


def test_a_missing_sqlite_ledger_is_not_created(tmp_path: Any) -> None:
    with pytest.raises((FileNotFoundError, TraceError)):
        open_read_only(tmp_path / "none.db")
    assert not (tmp_path / "none.db").exists()
