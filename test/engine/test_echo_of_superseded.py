"""The robot's reply to a record the graph stage marked superseded ("Six weeks' box rest."
after "Vet says Ziggy's on six weeks' box rest") says what no longer holds, as the record
does: not a reply to a live record, not a person's turn, not a reply in another session."""

from __future__ import annotations

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem
from trace_ros.query.readers import ExtractiveReader

from .readerkit import rec


def _items(*pairs: tuple[SourceRecord, dict[str, int]]) -> list[EvidenceItem]:
    return [EvidenceItem(r, 1.0, routes) for r, routes in pairs]


OLD = rec(1, "Vet says Ziggy's on six weeks' box rest for the tendon.", "Tariq")
ECHO = rec(2, "Six weeks' box rest.", "robot")
NEW = rec(3, "Bad news, she's extended it to ten weeks in total.", "Tariq")
REPLY = rec(4, "Ten weeks' box rest.", "robot")


def test_the_robots_echo_of_a_superseded_record_is_superseded_too() -> None:
    items = _items((OLD, {"superseded": 1}), (ECHO, {}), (NEW, {"graph": 1}), (REPLY, {}))
    reader = ExtractiveReader()
    assert reader._echoes_superseded(ECHO, items)
    assert not reader._echoes_superseded(REPLY, items)   # the reply to the live record
    assert not reader._echoes_superseded(NEW, items)     # a person's turn


def test_a_reply_in_another_session_echoes_nothing() -> None:
    other = SourceRecord(2, "src-2", "noor", "r1", "s2", "dialogue", "robot",
                         "Six weeks' box rest.", "", None, None, {}, ECHO.source_time, False,
                         ECHO.source_time, "h")
    items = _items((OLD, {"superseded": 1}), (other, {}))
    assert not ExtractiveReader()._echoes_superseded(other, items)

