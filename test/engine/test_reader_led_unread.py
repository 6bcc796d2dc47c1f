"""Where the graph stage's current record gives no value of the kind asked in the words
the reader reads ("And now it's seven."), the values of the records it superseded are
not the answer: a value told with it or after it (the robot saying it back) is, where
one is; only where none is does the reader read on as before.
"""

from __future__ import annotations

from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

from .readerkit import DAY, T0, rec

OLD = rec(1, "New rota: I start at eight from next week.")
MID = rec(2, "They moved everyone half an hour earlier, so half seven for me.", when=T0 + DAY)
LEAD = rec(5, "And now it's seven. The manager says seven till spring.", when=T0 + 2 * DAY)
ECHO = rec(6, "Starting at 7am from now on, noted.", speaker="robot", when=T0 + 2 * DAY)


def read(question: str, *items: EvidenceItem) -> tuple[str, list[str]]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(list(items), 4000, 20))
    return out.answer, out.cited_ids


def test_a_value_told_after_the_current_record_beats_the_superseded_ones() -> None:
    answer, cited = read("What time do I start work?",
                         EvidenceItem(LEAD, 1.0, {"graph": 1}),
                         EvidenceItem(OLD, 1.0, {"superseded": 1}),
                         EvidenceItem(MID, 1.0, {"superseded": 1}),
                         EvidenceItem(ECHO, 1.0, {}))
    assert "src-1" not in cited[:1] and "src-2" not in cited[:1], (answer, cited)
    assert answer.replace(" ", "").lower().startswith("7am"), (answer, cited)


def test_without_a_graph_stage_record_the_reading_is_as_before() -> None:
    # No current record marked: nothing tells the reader the old values are given up.
    answer, cited = read("What time do I start work?", EvidenceItem(OLD, 1.0, {}),
                         EvidenceItem(ECHO, 1.0, {}))
    assert cited, (answer, cited)
