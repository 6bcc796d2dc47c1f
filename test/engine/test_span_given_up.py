"""Answer spans read what holds, not what the speaker just gave up, and read a time
whole: a phrase whose clause says it no longer holds ("no more …", "… any more", "no
longer", ", not …") loses to the one that does, unless the question asks what is denied;
a plain "no" states the value ("no nuts"). Spoken minutes ("four thirty") and a second
time joined to the first ("at six and three") belong to the time said; "bedtime's ten
now" gives an hour. A day turned down beside one the dates reader does not date is not
when; a bare weekday is the one a date of the same record names, and keeps the part of
the day said with it; a day said again keeps the hour a record gave that day."""

from __future__ import annotations

from types import SimpleNamespace

from trace_ros.language.text import stems
from trace_ros.query.days import (
    bare_weekday,
    dated_weekday,
    turns_down_only,
    with_hour,
)
from trace_ros.query.plan import plan_question
from trace_ros.query.spans import (
    clock_time,
    denied,
    extract,
    format_when,
    scored_run,
    tokens,
    without_times,
)

T = 1_741_000_000.0


def _denied_words(text: str) -> list[str]:
    toks = tokens(text)
    return [t.low for i, t in enumerate(toks) if t.word and denied(toks, i, i + 1)]


def test_a_clause_that_gives_its_words_up_is_denied():
    assert "butter" in _denied_words("No more butter on her toast, she has jam now.")
    assert "jam" not in _denied_words("No more butter on her toast, she has jam now.")
    assert "bus" in _denied_words("He doesn't take the bus any more, he cycles.")
    assert "7th" in _denied_words("The meeting is on the 9th, not the 7th.")
    assert "9th" not in _denied_words("The meeting is on the 9th, not the 7th.")
    assert "garage" in _denied_words("The van is no longer in the garage.")


def test_a_plain_no_states_the_value():
    assert _denied_words("Absolutely no nuts in anything for him.") == []
    assert _denied_words("She is not at home today.") == []  # not a contrast after a comma


def test_the_phrase_that_holds_beats_the_one_given_up():
    q = "How does Mum have her toast?"
    run, _ = scored_run("No more butter on her toast, she has jam now.", stems(q))
    assert run == "jam"
    plan = plan_question(q, T)
    said = "No more butter on her toast, she has jam now."
    assert extract(q, plan, said, T, stems(q), 6, said) == "jam"


def test_a_question_about_what_is_denied_keeps_it():
    q = "What does Mum not have on her toast any more?"
    run, _ = scored_run("No more butter on her toast, she has jam now.", stems(q),
                        asks_denied=True)
    assert run == "butter"


def test_spoken_minutes_are_part_of_the_time():
    assert clock_time("Doors close at four thirty on weekdays.") == "four thirty"
    assert clock_time("The train is at seven forty-five.") == "seven forty-five"
    assert clock_time("Meet at four.") == "at four"
    assert clock_time("We were four thirty-somethings at the table.") == ""


def test_a_second_time_joined_to_the_first_is_said_too():
    assert clock_time("The cats are fed at six and three, every day.") == "at six and three"
    assert clock_time("Walks at nine and at five.") == "at nine and at five"
    assert clock_time("Lunch at one and two people will come.") == "at one"
    assert clock_time("Open between 8 and 12.") == "between 8 and 12"


def test_an_hour_a_noun_gives_is_a_time_where_one_is_asked():
    assert clock_time("The film starts at eight, so lights-out's eleven now.") == "at eight"
    assert clock_time("So lights-out's eleven now.") == "eleven"
    assert clock_time("He's ten now.") == ""  # an age
    assert without_times("That's seven now.") == "That's seven now."  # a count stays


def test_a_day_turned_down_beside_an_undated_one_is_not_when():
    said = "The gym fee goes out on the 2nd of each month from now on, not the 9th."
    assert turns_down_only([said])
    assert not turns_down_only(["Forget Friday, the CEO can't make it."])


def test_a_bare_weekday_is_the_one_a_date_of_the_record_gives():
    # A Tuesday resolved to the first one ahead; the record's "the 24th" is a Tuesday on.
    assert dated_weekday("Tuesday 17 March 2026", ["24 March 2026"]) == "Tuesday 24 March 2026"
    assert dated_weekday("Tuesday 17 March 2026 at 9", ["24 March 2026"]) \
        == "Tuesday 24 March 2026 at 9"
    # Another weekday, or too far on, is another day.
    assert dated_weekday("Tuesday 17 March 2026", ["25 March 2026"]) == "Tuesday 17 March 2026"
    assert dated_weekday("Tuesday 17 March 2026", ["12 May 2026"]) == "Tuesday 17 March 2026"
    assert bare_weekday("Tuesday, same slot.")
    assert not bare_weekday("Tuesday the 17th, same slot.")


def test_a_weekday_keeps_the_part_of_the_day_said_with_it():
    when = 1_742_317_200.0  # Tuesday 18 March 2025, 17:00 UTC
    said = 1_742_205_600.0  # Monday 17 March 2025, 10:00 UTC
    assert format_when("Tuesday evening", when, said) == "Tuesday evening, 18 March 2025"
    assert format_when("Tuesday", when, said) == "Tuesday 18 March 2025"


def test_a_day_said_again_keeps_the_hour_given_for_it():
    def found(value: str, at: float) -> tuple[SimpleNamespace, str, float]:
        rec = SimpleNamespace(source_time=at, seq=int(at))
        return SimpleNamespace(item=SimpleNamespace(record=rec)), value, 1.0

    day = "Thursday 26 March 2026"
    told = [found("Thursday 26 March 2026 at half ten", 1.0), found(day, 3.0),
            found("Thursday 26 March 2026 at eleven", 2.0), found("Friday 27 March 2026 at 9", 4.0)]
    assert with_hour(day, told) == "Thursday 26 March 2026 at eleven"  # the newest told
    assert with_hour("Friday 27 March 2026", told[:3]) == "Friday 27 March 2026"
    assert with_hour("every Thursday", told) == "every Thursday"


def test_who_holds_it_is_the_name_in_what_follows_so() -> None:
    from trace_ros.ledger import SourceRecord
    from trace_ros.query.pack import EvidenceItem, pack
    from trace_ros.query.readers import ExtractiveReader

    # The graph stage's current record for the state, told in other words than asked.
    said = SourceRecord(1, "src-1", "nora", "r1", "s1", "dialogue", "Nora",
                        "Priya is moving away, so we've signed it all over to my cousin Ravi.",
                        "", None, None, {}, T, False, T, "h")
    q = "Who has Nora's power of attorney?"
    out = ExtractiveReader().read(q, plan_question(q, T + 86400.0),
                                  pack([EvidenceItem(said, 1.0, {"graph": 1})], 4000, 20))
    assert out.answer == "Ravi"


def test_an_amount_said_bare_takes_the_unit_said_before() -> None:
    from trace_ros.query.amounts import with_unit

    def found(value: str) -> tuple[None, str, float]:
        return None, value, 1.0

    told = [found("40mg"), found("30mg"), found("20mg")]
    assert with_unit("20", told) == "20mg"  # as a record says that very figure
    assert with_unit("down to 20", told) == "down to 20mg"
    assert with_unit("25", told) == "25 mg"  # the one unit they all use
    assert with_unit("25", [*told, found("2 tablets")]) == "25"  # two units: none added
    assert with_unit("half a tablet", told) == "half a tablet"
