"""The graph stage's current record tells the value it leaves beside the new one: the
reader answers the new one.

"Millbrook says forget 12, report to the office and they'll put us at 4" after "we unload
at door 12": the 12 the superseded records state is what the record moves away from, so
the rest of the record is read, and the figure it hands over to takes the old one's place
("door 4"). The same figure said to carry on ("still 12", "same as ever") is kept, as is
a value only the record itself states.
"""

from __future__ import annotations

import sys
from pathlib import Path

from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader, _figure_handed_over

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import DAY, T0, rec  # noqa: E402

_OLD = ("Delivery to Millbrook: we unload at door 12.",)


def _read(question: str, current: str, old: tuple[str, ...] = _OLD) -> str:
    """The answer over ``current`` as the graph stage's current record and ``old`` as the
    records it supersedes (newest first)."""
    items = [EvidenceItem(rec(len(old), current), 1.0, {"graph": 1})]
    items += [EvidenceItem(rec(len(old) - 1 - k, text), 1.0, {"graph": 2 + k, "superseded": 1})
              for k, text in enumerate(old)]
    p = pack(items, 4000, 20)
    return ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY), p).answer


def test_the_value_left_gives_way_to_the_one_handed_over() -> None:
    said = "Millbrook says forget 12, report to the office and they'll put us at 4."
    assert _read("Which door are we at Millbrook?", said) == "door 4"


def test_a_value_said_to_carry_on_is_kept() -> None:
    said = "Millbrook says still 12, they'll put the other lorry at 4."
    assert _read("Which door are we at Millbrook?", said) == "door 12"
    said = "Millbrook says door 12 same as ever, they'll put the other lorry at 4 now."
    assert _read("Which door are we at Millbrook?", said) == "door 12"


def test_a_time_asked_before_reads_the_record_as_it_stands() -> None:
    # Asked of the time before the change, the value left is the answer.
    said = "Millbrook says forget 12, report to the office and they'll put us at 4."
    question = "Which door were we at Millbrook before they moved us?"
    assert "4" not in _read(question, said)


def test_the_figure_handed_over() -> None:
    assert _figure_handed_over("door 31", "Receiver says forget 31,",
                               "they'll put us at 9.", {"31", "door"}) == "door 9"
    # Two new figures, or one the superseded records said already: no single one.
    assert _figure_handed_over("door 31", "forget 31,", "bay 9 or 10.", {"31"}) == ""
    assert _figure_handed_over("door 31", "forget 31,", "back to 22.", {"31", "22"}) == ""
