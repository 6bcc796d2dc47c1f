"""When the extractive reader answers and when it abstains, for values that were said.

A span that is the subject of a copula says back the question ("my guitar's strings"
for "What strings does my guitar take?"); what the record says it is answers, unless a
later shown record speaks of the same thing (it may have changed). A record that names
whom the question asks about may say the thing in other words ("her pickup's at …" for
"getting collected"); it answers where no record saying the thing names them.
"""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import clock_time

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 10, 0, 0, 0, 0, 0)))


def rec(seq: int, text: str, when: float = T0, speaker: str = "Noor") -> SourceRecord:
    return SourceRecord(seq, f"src-{seq}", "noor", "r1", "s1", "dialogue", speaker, text, "",
                        None, None, {}, when, False, when, "h")


def read(question: str, *records: SourceRecord) -> tuple[str, list[str]]:
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY), p)
    return out.answer, out.cited_ids


def test_the_complement_answers_where_the_subject_repeats_the_question() -> None:
    q = "What strings does my guitar take?"
    said = rec(1, "My guitar's strings are nylon, light tension, I swap them every month.")
    answer, cited = read(q, said, rec(2, "Dinner's at seven tonight.", T0 + DAY))
    assert cited == ["src-1"] and "nylon" in answer and "light tension" in answer, answer
    assert "swap" not in answer  # a clause of its own ends the value


def test_a_later_record_on_the_thing_keeps_the_complement_from_answering_now() -> None:
    q = "What strings does my guitar take?"
    old = rec(1, "My guitar's strings are nylon, light tension.")
    later = rec(2, "Shop was out of nylon, so steel strings on it for now.", T0 + DAY)
    answer, cited = read(q, old, later)
    assert "src-1" not in cited[:1] or "nylon" not in answer, (answer, cited)


def test_a_record_about_the_topic_stating_nothing_still_abstains() -> None:
    assert read("What strings does my guitar take?",
                rec(1, "I practise guitar every evening after work."))[0] == ""


def test_a_record_naming_whom_it_asks_of_answers_in_other_words() -> None:
    q = "What time is Dora getting picked up?"
    mine = rec(1, "Minibus is picking me up Friday at eight for the day centre.")
    echo = rec(2, "Minibus Friday at eight.", speaker="robot")
    hers = rec(3, "Dora's going Friday too. Her pickup's quarter to ten.")
    assert read(q, mine, echo, hers) == ("quarter to ten", ["src-3"])


def test_no_record_naming_them_still_abstains() -> None:
    q = "What time is Dora getting picked up?"
    mine = rec(1, "Minibus is picking me up Friday at eight for the day centre.")
    echo = rec(2, "Minibus Friday at eight.", speaker="robot")
    other = rec(3, "Tom's going Friday too. His pickup's quarter to ten.")
    assert read(q, mine, echo, other)[0] == ""


def test_how_much_of_a_thing_asks_a_part_of_it() -> None:
    q = "How much of a pill does Rex get?"
    said = rec(1, "Vet rang about Rex. His pill moves to the evening, and it's half a pill now.")
    assert read(q, said) == ("half a pill", ["src-1"])


def test_a_function_word_after_an_hour_is_no_counted_noun() -> None:
    """"Tuesdays at six this term": "this" ends in s but counts nothing ("at six people"
    does)."""
    said = rec(1, "Maya's swimming is Thursdays at seven this term.")
    assert read("What time is Maya's swimming?", said) == ("at seven", ["src-1"])
    assert clock_time("We booked a table at seven thousands of miles away.") == ""


def test_a_day_is_no_thing_a_what_question_names() -> None:
    q = "What grade is Lena's ballet exam?"
    said = rec(1, "Lena's ballet exam is Saturday the 15th, she's practising every night.")
    assert read(q, said)[0] == ""


def test_a_clock_time_still_tells_which_train() -> None:
    q = "Which train do I get on Mondays?"
    answer, cited = read(q, rec(1, "Mondays I'm on the 7:15, it's never late."))
    assert cited == ["src-1"] and "7:15" in answer, answer
