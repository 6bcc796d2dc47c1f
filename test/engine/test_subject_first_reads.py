"""What a subject's first question reads of all its sources comes from an index (issue 16,
cold questions; migration m009): its speakers from a covering index in the order the
rows gave them, the attached sources from a partial index, with the same results."""

from __future__ import annotations

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope

ANN = Scope("ann", "r1", "s1")
SPEAKERS_BEFORE = ("SELECT speaker FROM sources NOT INDEXED WHERE subject_id = ? AND "
                   "modality = 'dialogue' AND speaker != '' ORDER BY label, source_time, seq")
ATTACHED_BEFORE = (
    "SELECT c.seq, c.parent, p.seq FROM (SELECT seq, json_extract(payload, '$.attached_to') "
    "AS parent FROM sources WHERE seq > ? AND seq <= ? AND subject_id = ?) c LEFT JOIN sources "
    "p ON p.source_id = c.parent WHERE typeof(c.parent) = 'text' ORDER BY c.seq")


def _fill(ledger: Ledger) -> None:
    events = [Event("dialogue", ANN, f"line {i}", speaker, stamp=float(t), source_id=f"d{i}")
              for i, (speaker, t) in enumerate([("Zed", 5), ("Ann", 9), ("Bo", 1), ("Ann", 1),
                                                ("Zed", 1), ("", 2), ("Cy", 7)])]
    events += [Event("perception", ANN, "a mug", "cam", label="mug", stamp=3.0, source_id="p1"),
               Event("dialogue", ANN, "see this", "Ann", stamp=4.0, source_id="a1",
                     payload={"attached_to": "p1"}),
               Event("dialogue", ANN, "and that", "Ann", stamp=4.5, source_id="a2",
                     payload={"attached_to": "not-stored-yet"}),
               Event("dialogue", Scope("bob"), "bob's", "Bob", stamp=4.0, source_id="b1",
                     payload={"attached_to": "p1"})]
    results = ingest(ledger, events, CaptureConfig())
    assert [r.reason for r in results if r.status != "accepted"] == []


def _plan(ledger: Ledger, sql: str, args: tuple) -> str:
    return " ".join(str(r[-1]) for r in ledger.query("EXPLAIN QUERY PLAN " + sql, args))


def test_speakers_come_from_the_covering_index_in_the_rows_order(ledger: Ledger) -> None:
    _fill(ledger)
    rows = [r[0] for r in ledger.query(SPEAKERS_BEFORE, ("ann",))]
    assert ledger.speakers("ann") == list(dict.fromkeys(rows))  # in sources_label's order
    assert ledger.speakers("ann") == ["Bo", "Ann", "Zed", "Cy"]
    plan = _plan(ledger, "SELECT DISTINCT speaker FROM sources WHERE subject_id = ? "
                 "AND modality = 'dialogue' AND speaker != ''", ("ann",))
    assert "COVERING INDEX sources_label" in plan


def test_attachments_come_from_the_partial_index_as_from_the_rows(ledger: Ledger) -> None:
    _fill(ledger)
    last = ledger.last_seq()
    for after in (0, 3, 9):
        assert ledger.attachments_between("ann", after, last) == \
            [(r[0], r[1], r[2]) for r in ledger.query(ATTACHED_BEFORE, (after, last, "ann"))]
    assert [r[1] for r in ledger.attachments_between("ann", 0, last)] == ["p1", "not-stored-yet"]
    plan = _plan(ledger, "SELECT seq FROM sources WHERE seq > ? AND seq <= ? AND subject_id = ? "
                 "AND CASE WHEN json_valid(payload) THEN json_type(payload, '$.attached_to') "
                 "END = 'text'", (0, last, "ann"))
    assert "sources_attached" in plan
