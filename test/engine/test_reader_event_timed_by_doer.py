"""The typed reader's refusal of a "which/what X" question whose thing no shown record
names ("What time is Mr Ferreira's discharge?" where no turn says a discharge) stands,
unless the time is asked of an event that a record tells by who does it or what is done,
with a time of the kind asked, the event's noun unsaid ("Chef's got me starting at six"
for "What time do I start my shift?", "Ruth comes to see me on Wednesdays" for "Which
day does Ruth visit me?"). A record naming whom with no time, and a code or number given
for another thing ("Gate code 5582" for "What's the code for the office alarm?"), still
tell nothing of the thing asked.
"""

from __future__ import annotations

from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

from .readerkit import DAY, T0, rec


def read(question: str, *texts: str) -> tuple[str, list[str]]:
    items = [EvidenceItem(rec(n + 1, t), 1.0, {}) for n, t in enumerate(texts)]
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(items, 4000, 20))
    return out.answer, out.cited_ids


def test_a_time_told_by_what_is_done_answers_for_the_event() -> None:
    answer, cited = read("What time do I start my shift?",
                         "Chef's got me starting at six on breakfasts.")
    assert cited == ["src-1"] and "six" in answer, (answer, cited)


def test_a_day_told_by_who_comes_answers_for_the_visit() -> None:
    answer, cited = read("Which day does Ruth visit me now?",
                         "My daughter Ruth comes to see me on Wednesdays, usually after lunch.")
    assert cited == ["src-1"] and "wednesday" in answer.lower(), (answer, cited)


def test_whom_named_with_no_time_tells_nothing_of_the_event() -> None:
    answer, cited = read("What time is Mr Ferreira's discharge?",
                         "Mr Ferreira went up to side room 2 after lunch.",
                         "The porters start at midnight on the ward.")
    assert (answer, cited) == ("", []), (answer, cited)


def test_a_code_of_another_thing_is_not_the_one_asked() -> None:
    answer, cited = read("What's the code for the office alarm?",
                         "Gate code 5582.", "The break room door code is still 4471.")
    assert (answer, cited) == ("", []), (answer, cited)


def test_a_title_is_not_whom_the_event_is_of() -> None:
    answer, cited = read("What time is Mr Ferreira's discharge?",
                         "Mr Ferreira went up to side room 2 after lunch.",
                         "Mr Patel's physio is at 10 tomorrow.")
    assert (answer, cited) == ("", []), (answer, cited)
