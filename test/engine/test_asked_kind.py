"""The value read for a question is of the kind it asks for.

A place is not a clock time ("the fête kicks off at eight" says when, not where); a time
of day after "since" says when a span up to now began, not when a thing happens; a
command ("don't put me on the late run") tells what to do, not what something is.
"""

from __future__ import annotations

import calendar

import pytest

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import day_part, place_phrase, scored_run

DAY = 86400.0
# Wednesday 4 June 2025, 09:00 UTC.
T0 = float(calendar.timegm((2025, 6, 4, 9, 0, 0, 0, 0, 0)))


def rec(seq: int, text: str, speaker: str = "Priya") -> SourceRecord:
    when = T0 + seq * 120.0
    return SourceRecord(seq, f"src-{seq}", "priya", "r1", "s1", "dialogue", speaker, text, "",
                        None, None, {}, when, False, when, "h")


def read(question: str, *records: SourceRecord) -> tuple[str, list[str]]:
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    out = ExtractiveReader().read(question, plan_question(question, T0 + 2 * DAY), p)
    return out.answer, out.cited_ids


@pytest.mark.parametrize("sentence", [
    "The quiz begins at half eight.",
    "Same day as ever, and it still gets going at nine.",
    "Drinks from 6pm.",
])
def test_a_clock_time_is_no_place(sentence: str) -> None:
    assert place_phrase(sentence, set()) == ""


@pytest.mark.parametrize("sentence, place", [
    ("Drinks at 7pm at the Crown Inn.", "Crown Inn"),
    ("The fitting is at 10 in studio 3B.", "studio 3B"),
    ("She's moved, she's at 14 Orchard Way now.", "14 Orchard Way"),
])
def test_the_place_beside_a_time_is_read(sentence: str, place: str) -> None:
    assert place_phrase(sentence, set()) == place


def test_where_is_not_answered_by_when() -> None:
    answer, cited = read("Where is the choir concert?",
                         rec(1, "The choir concert is in St Anne's church hall this year."),
                         rec(2, "Oh, and the concert kicks off at eight."))
    assert answer == "St Anne's church hall"
    assert cited == ["src-1"]


def test_since_a_meal_is_no_time_of_the_thing() -> None:
    assert day_part("He's eaten nothing since lunch.") == ""
    assert day_part("He takes it with lunch.") == "with lunch"


def test_a_command_is_no_value() -> None:
    run, _ = scored_run("I'm on the vegan menu, so don't give me the cheese board.",
                        {"menu", "what"})
    assert "give me" not in run
    run, _ = scored_run("robot bring me a flat white pls", {"drink", "what"})
    assert "bring me" not in run
