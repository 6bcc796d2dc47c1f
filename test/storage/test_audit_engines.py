"""The ledger contract's audit rows, run on every engine."""

from __future__ import annotations

from typing import Any

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import AuditRecord, Scope

CFG = CaptureConfig()


def _record(query_id: int, subject: str, shown: list[str], cited: list[str]) -> AuditRecord:
    return AuditRecord(query_id, 100.0 + query_id, subject, {"subject_id": subject},
                       f"question {query_id}?", {"operation": "fact"}, {"lexical": 2}, shown,
                       cited, "an answer", "answered", "extractive", {"total_ms": 1.5})


def _ids(ledger: Any) -> list[int]:
    return [int(r[0]) for r in ledger.query("SELECT query_id FROM audit ORDER BY query_id")]


def _say(ledger: Any, subject: str, sid: str) -> None:
    ingest(ledger, [Event("dialogue", Scope(subject, "r1", "s1"), f"text of {sid}", "Ann",
                          stamp=1.0, source_id=sid)], CFG)


def test_audit_rows_are_written_once_and_only_while_their_sources_exist(ledger: Any) -> None:
    _say(ledger, "ann", "a")
    _say(ledger, "ann", "b")
    assert ledger.write_audit([_record(1, "ann", ["a", "b"], ["a"]),
                               _record(2, "ann", ["a", "gone"], [])]) == 1
    assert ledger.write_audit([_record(1, "ann", ["a"], [])]) == 0  # same ID: skipped
    assert _ids(ledger) == [1]
    row = ledger.query("SELECT question, status, reader FROM audit")
    assert [tuple(r) for r in row] == [("question 1?", "answered", "extractive")]


def test_forget_removes_the_audit_rows_that_showed_the_sources(ledger: Any) -> None:
    for sid in ("a", "b", "c"):
        _say(ledger, "ann", sid)
    _say(ledger, "bob", "z")
    ledger.write_audit([_record(1, "ann", ["a"], ["a"]), _record(2, "ann", ["b"], []),
                        _record(3, "ann", ["c"], ["c"]), _record(4, "bob", ["z"], ["z"])])
    ledger.forget(source_ids=["a"])
    assert _ids(ledger) == [2, 3, 4]
    ledger.forget(Scope("ann"))  # a whole subject: its audit goes with it
    assert _ids(ledger) == [4]
