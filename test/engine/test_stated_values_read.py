"""A value that was stated is read, though the record says it in a way the reader used to
miss; a value never stated still goes unanswered.

- A clock hour said with "at" after a date ("on the 9th at 3 o'clock", "Monday 4 May at
  6") is the time: the date is not read as a time, the hour after it is.
- "is 3.2 kilos" is a weight, not the bare hour a copula gives ("the alarm can be seven.").
- A figure said per period is a sum though it reads as a clock time ("9.75 an hour").
- "How much does X weigh?" asks a weight (a figure with its unit), not a sum of money; a
  bare number ("moved him into 4") or a dose said per time is no weight.
- The one the question names, speaking in the first person right after the others talked
  about the thing ("Mine's 31"), says it of themselves.
"""

from __future__ import annotations

import calendar

import pytest

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import Asked, asked, clock_time, quantities, sum_stated

# Monday 3 March 2025, 10:00 UTC.
T0 = float(calendar.timegm((2025, 3, 3, 10, 0, 0, 0, 0, 0)))


def turns(*texts: str | tuple[str, str]) -> list[SourceRecord]:
    """Consecutive turns of one session, two minutes apart (speaker "Noor" unless given)."""
    out = []
    for k, t in enumerate(texts):
        speaker, text = t if isinstance(t, tuple) else ("Noor", t)
        when = T0 + 120 * k
        out.append(SourceRecord(k + 1, f"src-{k + 1}", "noor", "r1", "s1", "dialogue", speaker,
                                text, "", None, None, {}, when, False, when, "h"))
    return out


def read(question: str, *records: SourceRecord) -> tuple[str, list[str]]:
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * 86400.0), p)
    return out.answer, out.cited_ids


@pytest.mark.parametrize(("text", "expected"), [
    ("The recital is on the 9th at 3 o'clock.", "at 3"),
    ("Quiz night, Monday 4 May at 6.", "at 6"),
    ("We meet on Thursday at 2", "at 2"),
    ("August 1 to 4", ""),  # the numbers of a date span are no time
])
def test_an_hour_said_with_at_after_a_date_is_the_time(text: str, expected: str) -> None:
    assert clock_time(text) == expected


def test_a_decimal_after_is_is_a_measure_not_a_bare_hour() -> None:
    assert clock_time("Her puppy is 3.2 kilos already.") == ""
    assert quantities("Her puppy is 3.2 kilos already.")[0][1].startswith("3.2 kilos")
    assert clock_time("the alarm can be seven.") == "seven"  # still a bare hour


def test_a_figure_per_period_is_a_sum_though_it_reads_as_a_time() -> None:
    assert sum_stated("the café pays 9.75 an hour, not bad") == "9.75"
    assert sum_stated("Let's meet at 7.30 a day early") == ""


def test_how_much_with_a_verb_of_measuring_asks_an_amount() -> None:
    q = "How much does the lamb weigh now?"
    assert asked(q, plan_question(q, T0)) == Asked("quantity")
    q = "How much does the lamb cost?"
    assert asked(q, plan_question(q, T0)) == Asked("money")


def test_a_weight_is_read_with_its_unit() -> None:
    answer, _ = read("How much does Tomasz's daughter weigh?",
                     *turns("Tomasz's daughter is 3.4 kilos, she was early."))
    assert "3.4 kilos" in answer


@pytest.mark.parametrize("text", [
    "We've moved Pepper into 4 so the big pen is free.",
    "Pepper is on his tablets, 50mg twice daily.",
])
def test_a_bare_number_or_a_dose_is_no_weight(text: str) -> None:
    assert read("How much does Pepper weigh?", *turns(text))[0] == ""


def test_an_hourly_rate_is_the_pay_asked() -> None:
    answer, _ = read("How much do I get paid an hour?",
                     *turns("new job at the café, it pays 9.75 an hour"))
    assert answer == "9.75"


def test_the_one_named_speaking_of_their_own_says_it_of_themselves() -> None:
    records = turns(("Ines", "The office gave me a new desk phone extension, it's 408."),
                    ("robot", "Extension 408, saved."),
                    ("Bruno", "Mine's 412, we're next to each other."))
    answer, cited = read("What is Bruno's extension?", *records)
    assert answer == "412"
    assert cited[0] == records[2].source_id


def test_a_name_not_speaking_does_not_take_the_others_value() -> None:
    records = turns(("Ines", "The office gave me a new desk phone extension, it's 408."),
                    ("robot", "Extension 408, saved."),
                    ("Ines", "Bruno says hello, by the way."))
    assert read("What is Bruno's extension?", *records)[0] == ""


@pytest.mark.parametrize(("text", "expected"), [
    ("the lamb feeds every three hours", "every three hours"),
    ("now it's every two and a half hours", "every two and a half hours"),
    ("check him every hour through the night", "every hour"),
    ("every bit of it was eaten", ""),
])
def test_every_count_of_hours_is_a_rate(text: str, expected: str) -> None:
    from trace_ros.query.spans import frequency

    assert frequency(text) == expected


def test_a_phrasal_verb_is_told_by_its_joined_noun() -> None:
    records = turns("Swimming lessons for the kids are at 3 now.",
                    "Pickup is 4.15, by the side gate.")
    answer, cited = read("What time do I pick the kids up?", *records)
    assert "4.15" in answer
    assert cited[0] == records[1].source_id


def test_the_measure_of_what_the_copula_names() -> None:
    answer, _ = read("What dose is Gran's ramipril?",
                     *turns("Gran's blood pressure was fine today.",
                            "And her ramipril is 2.5mg with breakfast."))
    assert answer.startswith("2.5mg")


def test_what_someone_serves_as_answers_what_x_they_are() -> None:
    records = turns(("Bea", "Ravi was cast as a sailor at first."),
                    ("Bea", "Big change, Ravi's stepping in as the lighthouse keeper."))
    answer, _ = read("What part is Ravi playing?", *records)
    assert answer == "lighthouse keeper"
    answer, _ = read("What's my job at the library now?",
                     *turns("Good news, the library have made me archive assistant."))
    assert answer == "archive assistant"


@pytest.mark.parametrize("text", [
    "Ravi's rehearsal moved to Friday evening.",
    "Big change, Tom's stepping in as the lighthouse keeper.",  # given to another
])
def test_no_role_given_to_the_one_asked_is_no_answer(text: str) -> None:
    assert read("What part is Ravi playing?", *turns(("Bea", text)))[0] == ""


def test_a_thing_under_another_name_is_not_the_one_asked() -> None:
    records = turns("The Lindqvist viewing is Tuesday, 11am.",
                    "Okafors can only come later in the week, 3pm on Wednesday.")
    answer, cited = read("What time is the Okafor viewing?", *records)
    assert cited and cited[0] == records[1].source_id
    assert "3" in answer


def test_another_name_on_the_thing_asked_marks_another_thing() -> None:
    from trace_ros.query.owners import other_name_on

    q = "What time is the Okafor viewing?"
    assert other_name_on(q, "The Lindqvist viewing is Tuesday at 11.")
    assert not other_name_on(q, "The Okafor viewing moved to Wednesday at 3.")
    assert not other_name_on(q, "Viewing moved to Wednesday at 3.")
