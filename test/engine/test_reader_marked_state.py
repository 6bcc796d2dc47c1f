""""What X am I …?" where no record names X: the nearest-in-meaning record that says its
value is new answers (newstate.dense_new_state); nothing else is taken for it."""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.newstate import _marked_value
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 9, 0, 0, 0, 0, 0)))


def _read(question: str, *texts: tuple[str, int, float]) -> tuple[str, list[str]]:
    """Records given as (text, dense rank, days after T0), spoken by the asker."""
    items = [EvidenceItem(SourceRecord(i, f"s-{i}", "ann", "", "s1", "dialogue", "Ann", text, "",
                                       None, None, {}, T0 + days * DAY, False, T0 + days * DAY,
                                       "h"), 1.0, {"dense": rank})
             for i, (text, rank, days) in enumerate(texts, 1)]
    p = pack(items, 2000, 20)
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY), p)
    return out.answer, out.cited_ids


def test_the_value_before_a_change_marker_is_the_new_state() -> None:
    assert _marked_value("ok vegan month is over. pescatarian from now on, I need fish") \
        == "pescatarian"
    assert _marked_value("I'm the secretary now, would you believe.") == "the secretary"
    assert _marked_value("Still going strong, me.") == ""
    assert _marked_value("it's now or never") == ""


def test_a_category_never_named_is_answered_by_the_latest_marked_value() -> None:
    answer, cited = _read("What diet am I doing?",
                          ("doing veganuary in october lol. fully vegan from wednesday", 1, 0),
                          ("ok vegan month is over. pescatarian from now on, I need fish", 3, 20))
    assert answer.lower() == "pescatarian" and cited == ["s-2"]


def test_an_unmarked_or_far_record_is_not_taken_for_the_value() -> None:
    # Said again without a change marker: no value is read as new (no guess).
    answer, _ = _read("What diet am I doing?", ("still loving the fish, honestly", 1, 20))
    assert answer == ""
    # Marked, but far from the question in meaning: another thing's new state.
    answer, _ = _read("What diet am I doing?", ("the blue mug now, the other one cracked", 9, 20))
    assert answer == ""


def test_someone_named_in_the_question_is_not_answered_from_the_asker_s_records() -> None:
    answer, _ = _read("What diet is Ravi doing?",
                      ("ok vegan month is over. pescatarian from now on", 1, 20))
    assert answer == ""


def test_the_day_a_state_starts_marks_it_new() -> None:
    assert _marked_value("Noted, vegetarian from today.") == "vegetarian"
    assert _marked_value("doing veganuary lol. fully vegan from wednesday") == "vegan"


def test_a_marked_value_said_later_to_have_stopped_is_not_the_answer() -> None:
    answer, _ = _read("What diet am I doing?",
                      ("full vegan from today. goodbye cheese", 1, 0),
                      ("I'm not vegan any more. eating fish again", 2, 20))
    assert answer == ""
    assert _marked_value("I'm into Phoebe Bridgers right now.") == "Phoebe Bridgers"
