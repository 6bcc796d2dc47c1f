"""The graph stage's current record may say a new place only of "it" ("Gym floor's being
resealed, so it's the back room of the Red Lion now"): the place answers, rather than the
older record that names the thing and its old place. Only the current record is read so;
a record the graph stage did not mark current, or a copula that names no place ("it's the
same", "it's a nightmare"), gives none."""

from __future__ import annotations

import pytest

from trace_ros.query.complement import place_said_of_it
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

from .readerkit import DAY, T0, rec


def read_items(question: str, items: list[EvidenceItem]) -> tuple[str, list[str]]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(items, 4000, 20))
    return out.answer, out.cited_ids


@pytest.mark.parametrize(("text", "place"), [
    ("Gym floor's being resealed, so it's the back room of the Red Lion now.",
     "the back room of the Red Lion"),
    ("It's the seminar room, not the back office.", "the seminar room"),
    ("It's the same.", ""),                       # no place
    ("It's a nightmare.", ""),                    # no definite thing
    ("So it's a table for 6 now.", ""),
    ("It's the best thing about it.", ""),
    ("It is the 14th of May.", ""),               # a time
])
def test_the_place_said_of_it(text: str, place: str) -> None:
    assert place_said_of_it(text) == place


OLD = "Pirates of Penzance rehearsals are in the scout hut on Mill Road."
NEW = "Rehearsals can't have the gym while it's resealed, so it's the back room of the Red Lion now."
Q = "Where are Pirates rehearsals now?"


def test_the_current_record_saying_the_place_of_it_answers() -> None:
    old, new = rec(1, OLD), rec(2, NEW, when=T0 + 7 * DAY)
    assert read_items(Q, [EvidenceItem(old, 1.0, {"superseded": 1}),
                          EvidenceItem(new, 1.0, {"graph": 1})]) == (
        "the back room of the Red Lion", ["src-2"])


def test_a_record_not_marked_current_says_no_place_of_it() -> None:
    """Without the graph stage's tie, "it" may be anything: the record naming the thing
    answers."""
    old, new = rec(1, OLD), rec(2, NEW, when=T0 + 7 * DAY)
    answer, cited = read_items(Q, [EvidenceItem(old, 1.0, {}), EvidenceItem(new, 1.0, {})])
    assert cited == ["src-1"] and "scout hut" in answer


def test_a_current_record_naming_no_place_leaves_the_older_one() -> None:
    old = rec(1, OLD)
    same = rec(2, "Rehearsal night moved to Thursday, but it's the same.", when=T0 + 7 * DAY)
    answer, cited = read_items(Q, [EvidenceItem(old, 1.0, {"superseded": 1}),
                                   EvidenceItem(same, 1.0, {"graph": 1})])
    assert "the same" not in answer
