"""Plans: operation × shape, current by default, named times become windows or as-ofs."""

from __future__ import annotations

import calendar

import pytest

from trace_ros.query.plan import plan_question

JUNE_9_2023 = float(calendar.timegm((2023, 6, 9, 14, 0, 0, 0, 0, 0)))


def day(y: int, m: int, d: int) -> float:
    return float(calendar.timegm((y, m, d, 0, 0, 0, 0, 0, 0)))


@pytest.mark.parametrize(
    ("question", "operation", "shape"),
    [
        ("How many times did she call?", "count", "factual"),
        ("How long did the trip take?", "temporal_arithmetic", "temporal"),
        ("When is the parcel pickup?", "temporal_lookup", "temporal"),
        ("Where does she live now?", "current_state", "factual"),
        ("What did she use to drink before that?", "history", "factual"),
        ("What pets does she have?", "list", "factual"),
        ("List the places she has lived.", "list", "factual"),
        ("Can you list her hobbies?", "list", "factual"),
        # A thing called a list, and the plural slots of one schedule, are one state.
        ("What milk should go on the shopping list?", "fact", "factual"),
        ("Which days am I in the office?", "fact", "factual"),
        ("What hours is my shift at the shop?", "fact", "factual"),
        ("What kind of music does he like?", "fact", "preference"),
        ("Would she enjoy a trip to the mountains?", "fact", "open"),
        ("What do Jon and Gina both have in common?", "fact", "multi_hop"),
    ],
)
def test_operation_and_shape(question: str, operation: str, shape: str) -> None:
    plan = plan_question(question, JUNE_9_2023)
    assert (plan.operation, plan.shape) == (operation, shape)
    assert plan.needs_complete_set == (operation in ("count", "list"))
    assert plan.needs_endpoints == (operation == "temporal_arithmetic")


@pytest.mark.parametrize("question", ["When is my parcel pickup?", "What does she study?",
                                      "Where is the red mug?", "Who is her doctor?"])
def test_every_question_is_current_unless_it_names_another_time(question: str) -> None:
    plan = plan_question(question, JUNE_9_2023)
    assert plan.current and plan.window is None and plan.as_of is None


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("What did she read in 2022?", (day(2022, 1, 1), day(2023, 1, 1))),
        ("What did he cook last week?", (day(2023, 5, 29), day(2023, 6, 5))),
        ("What did she paint in May?", (day(2023, 5, 1), day(2023, 6, 1))),
        ("Where was he yesterday?", (day(2023, 6, 8), day(2023, 6, 9))),
        ("What happened on 3 March 2023?", (day(2023, 3, 3), day(2023, 3, 4))),
        # A part of a month, hyphenated or not, is that month (``window_point`` reads the part).
        ("Back in mid-January, what date was the op booked for?",
         (day(2023, 1, 1), day(2023, 2, 1))),
        ("Who was on the desk in mid April?", (day(2023, 4, 1), day(2023, 5, 1))),
        ("What was he reading in late-February?", (day(2023, 2, 1), day(2023, 3, 1))),
        # A weekday counted in a month is that day; "the week of" a date, its week.
        ("What did I order on the first Friday of May?", (day(2023, 5, 5), day(2023, 5, 6))),
        ("Where was the market on the last Sunday of January?",
         (day(2023, 1, 29), day(2023, 1, 30))),
        ("What shift was she on in the week of the 17th of May?",
         (day(2023, 5, 15), day(2023, 5, 22))),
        ("Who was on the desk in the week of the 3rd?", (day(2023, 5, 29), day(2023, 6, 5))),
    ],
)
def test_named_times_become_windows(question: str, window: tuple[float, float]) -> None:
    plan = plan_question(question, JUNE_9_2023)
    assert plan.window == window and not plan.current and plan.time_text


def test_before_a_time_is_an_as_of_and_before_an_event_is_not_current() -> None:
    plan = plan_question("Where did she live before 5 May 2023?", JUNE_9_2023)
    assert plan.as_of == day(2023, 5, 5) and plan.window is None and not plan.current
    for q in ("Where did she live before she moved?", "What did he do when he was a kid?",
              "What sport did she used to play?", "When was it before?"):
        plan = plan_question(q, JUNE_9_2023)
        assert not plan.current and plan.time_text, q


def test_relative_times_follow_the_reference_time() -> None:
    a = plan_question("What did he cook last week?", JUNE_9_2023).window
    b = plan_question("What did he cook last week?", JUNE_9_2023 + 14 * 86400).window
    assert a is not None and b is not None and b[0] - a[0] == 14 * 86400


def test_a_single_weekday_asked_in_the_present_is_the_coming_one() -> None:
    """Asked on Friday 9 June, "on for Saturday" is the plan for Saturday 10 June as it
    stands now: no window of time said (nothing is said on a day still ahead), current.
    A past question keeps the window it names; a weekly slot names none (every Wednesday)."""
    ahead = plan_question("How many housekeepers are on for Saturday?", JUNE_9_2023)
    assert ahead.window is None and ahead.current and ahead.time_text == "Saturday"
    past = plan_question("What did Caroline do on Saturday?", JUNE_9_2023)
    assert past.window == (day(2023, 6, 3), day(2023, 6, 4)) and not past.current
    assert plan_question("What time is rhyme time on Wednesdays?", JUNE_9_2023).window is None


def test_a_month_or_a_period_still_to_come_asked_in_the_present_is_the_plan_for_it() -> None:
    """Asked on 9 June 2023, "in October" of a present or future question is the coming
    October, and "from next month" a time still ahead: the plan for it as it stands now,
    no window to look back at (nothing is said in a time still ahead). A past question
    keeps the window it names, the latest such month."""
    for q in ("Which hymn are we rehearsing in October?", "Where is the reunion in October?",
              "What are my hours at the garden centre from next month?"):
        p = plan_question(q, JUNE_9_2023)
        assert p.window is None and p.current and p.time_text, q
    past = plan_question("Which hymn did we rehearse in October?", JUNE_9_2023)
    assert past.window == (day(2022, 10, 1), day(2022, 11, 1)) and not past.current


def test_a_weekday_after_an_article_or_an_owner_names_the_thing() -> None:
    """"the Monday evening spin class", "Jo's Friday lesson": the slot is part of the
    thing's name, as a holiday asked of is; it is no time to look back at. After "on" it
    is a time."""
    for q in ("Who's teaching the Monday evening spin class?",
              "Who's doing the Thursday school run?", "Where is Jo's Friday lesson?",
              "What time is my Tuesday physio?"):
        p = plan_question(q, JUNE_9_2023)
        assert p.window is None and p.current, q
    on = plan_question("Who taught the spin class on Monday evening?", JUNE_9_2023)
    assert on.window is not None and not on.current


def test_most_recently_asks_for_the_newest() -> None:
    """"Which company did he most recently sign with?" is past in tense but asks for the
    latest revision, as "latest" does; so does an outcome ("How did it turn out?")."""
    for q in ("Which company did John most recently sign with?",
              "Where did she go on her most recent trip?",
              "How did the bake sale turn out?", "What came of his application?",
              "How did Priya do in the audition?"):
        p = plan_question(q, JUNE_9_2023)
        assert p.operation == "current_state" and p.wants_newest, q
    assert not plan_question("Which company did John sign with?", JUNE_9_2023).wants_newest


def test_a_holiday_asked_of_is_the_thing_and_a_holiday_asked_in_is_a_time() -> None:
    """"Where are we having Christmas Day?" asks where that day is spent, not what was
    said on it; after "on" it is the time asked about."""
    of = plan_question("Where are we having Christmas Day?", JUNE_9_2023)
    assert of.window is None and of.time_text == ""
    on = plan_question("What did we eat on Christmas Day?", JUNE_9_2023)
    assert on.window == (day(2022, 12, 25), day(2022, 12, 26))


@pytest.mark.parametrize(
    ("question", "answer_type", "focus"),
    [
        ("When did she go?", "date", ""),
        ("How long has he painted?", "duration", ""),
        ("Where did she move from?", "place", ""),
        ("Who gave her the book?", "person", ""),
        ("Why did he quit?", "reason", ""),
        ("Does she like tea?", "yesno", ""),
        ("What kind of flooring is he looking for?", "thing", "flooring"),
        ("How many cats does she have?", "number", ""),
    ],
)
def test_answer_type_and_focus(question: str, answer_type: str, focus: str) -> None:
    plan = plan_question(question, JUNE_9_2023)
    assert (plan.answer_type, plan.focus) == (answer_type, focus)


def test_a_fronted_clause_does_not_hide_what_is_asked() -> None:
    """"Before it got moved, when was the review?" asks a date as "When was the review?"
    does; the clause before the comma frames it."""
    p = plan_question("Before it got moved around, when was the budget meeting first set?",
                      JUNE_9_2023)
    assert (p.operation, p.answer_type) == ("temporal_lookup", "date")
    p = plan_question("Back then, who ran the Tuesday quiz?", JUNE_9_2023)
    assert p.answer_type == "person"
    p = plan_question("Based on what she said, is Ana coming to the party?", JUNE_9_2023)
    assert p.answer_type == "yesno"


def test_a_holiday_in_a_present_question_is_the_coming_one() -> None:
    """"When does the pool shut on Christmas Eve?" asked in June asks of the coming one,
    the plan as it stands (no window to look back at); asked in the past tense it is the
    last one gone."""
    ahead = plan_question("When does the pool shut on Christmas Eve?", JUNE_9_2023)
    assert ahead.window is None and ahead.as_of is None
    gone = plan_question("When did the pool shut on Christmas Eve?", JUNE_9_2023)
    assert gone.window == (day(2022, 12, 24), day(2022, 12, 25))


def test_a_before_clause_of_an_event_to_come_is_no_past_view() -> None:
    """"What's my last day before I leave the firm?" asks the plan now; "before I moved
    teams", "before he got promoted" and "before the flood" name an earlier time."""
    assert plan_question("What's my last day before I leave the firm?", JUNE_9_2023).current
    assert plan_question("When is the handover before she goes on leave?", JUNE_9_2023).current
    assert not plan_question("What was my desk before I moved teams?", JUNE_9_2023).current
    assert not plan_question("Which van did he drive before he got promoted?",
                             JUNE_9_2023).current
    assert not plan_question("What was the party going to be before the flood?",
                             JUNE_9_2023).current


def test_a_weekday_said_in_the_plural_is_a_slot_not_a_window() -> None:
    """"What hours do I work on Saturdays?" asks of every Saturday, the thing's slot: no
    window of the last Saturday; "on Saturday" still names that day."""
    from trace_ros.query.plan import named_time

    ref = 1762000000.0  # Saturday 1 November 2025
    assert named_time("What hours do I work on Saturdays now?", ref) == ("", None, None)
    assert named_time("When do I swim on Mondays?", ref) == ("", None, None)
    assert named_time("Where was I on Monday?", ref)[0] == "Monday"


def test_a_day_of_the_month_asked_in_the_present_is_the_coming_one() -> None:
    """Asked on 9 June 2023, "the screening on the 21st" and "on the 3rd of July" in a
    present question are the coming days, the plan for them as it stands (no window);
    asked in the past tense, "on the 3rd" is the last one gone, a window; a year named
    keeps the window."""
    for q in ("What time is the screening on the 21st?", "Where's my appeal on the 3rd of July?",
              "Who is working on July 3rd?"):
        p = plan_question(q, JUNE_9_2023)
        assert p.window is None and p.as_of is None and p.current and p.time_text, q
    gone = plan_question("What did we practise on the 3rd?", JUNE_9_2023)
    assert gone.window == (day(2023, 6, 3), day(2023, 6, 4)) and not gone.current
    dated = plan_question("Where was my appeal on the 3rd of July 2022?", JUNE_9_2023)
    assert dated.window is not None and not dated.current


def test_a_past_question_of_how_a_thing_ended_wants_the_newest() -> None:
    """"What day did the jabs end up on?", "Which one did she settle on in the end?" ask
    the thing as it was settled, the newest telling, as a present question does; a past
    question of an event ("Which company did John sign with?") or dated by another
    ("Which caterer did we go with before the move?") does not."""
    for q in ("What day did Biscuit's jabs end up on?", "Which venue did she settle on?",
              "When was the MOT booked for in the end?", "Which caterer did we go with?"):
        p = plan_question(q, JUNE_9_2023)
        assert p.settled and p.wants_newest, q
    for q in ("Which company did John sign with?",
              "Which caterer did we go with before the move?",
              "What time did the meeting end?"):
        p = plan_question(q, JUNE_9_2023)
        assert not p.settled and not p.wants_newest, q
