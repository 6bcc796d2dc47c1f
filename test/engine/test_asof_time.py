"""What held at a past time (issue 14, as_of): how the time a question names is read.

A part of a month is read by whole days, "the start of March" is the first talk in it,
and the words of the time (or of the event a state is dated by) are not words of the
thing asked. Both directions: a change told a week into the month does not answer "at
the start of", and the same question asked of now takes the change.
"""

from __future__ import annotations

import dataclasses
import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import capture  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.project import GraphProjector  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.timeanchor import window_point  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest, QueryResult  # noqa: E402
from trace_ros.query.plan import plan_question, without_named_time  # noqa: E402

HOME = "home"
DAY = 86400.0


def ts(month: int, day: int, hour: int = 9, minute: int = 0) -> float:
    return datetime(2025, month, day, hour, minute, tzinfo=UTC).timestamp()


OCTOBER = (ts(10, 1, 0), ts(11, 1, 0))
JUNE = (ts(6, 1, 0), ts(7, 1, 0))


def test_the_start_of_a_month_is_its_first_talk() -> None:
    """"At the start of October" ends with the first day talked on in it: a change told
    on the 8th had not happened at its start."""
    said = [ts(9, 24), ts(10, 1, 10), ts(10, 8, 15), ts(10, 22)]
    assert window_point(OCTOBER, "in early October", said) == ts(10, 2, 0)
    assert window_point(OCTOBER, "at the start of October", said) == ts(10, 2, 0)
    # The first talk after a third of the way in is no start: a third of the way in.
    late = [ts(10, 20), ts(10, 27)]
    assert window_point(OCTOBER, "in early October", late) == OCTOBER[0] + 31 * DAY / 3
    assert window_point(OCTOBER, "in early October") == OCTOBER[0] + 31 * DAY / 3


def test_the_middle_of_a_month_is_its_whole_middle_day() -> None:
    """"Mid-June" is the 16th, all of it: a statement that evening told what held then."""
    assert window_point(JUNE, "in mid-June") == ts(6, 17, 0)
    assert window_point(JUNE, "at the end of June") == JUNE[1]


def _held(question: str) -> str:
    plan = plan_question(question, ts(11, 5))
    at = plan.window[0] + DAY if plan.window is not None else ts(10, 2)
    return without_named_time(question, dataclasses.replace(plan, as_of=at))


def test_the_time_asked_of_is_no_word_of_the_thing() -> None:
    assert _held("What was Mum's laundry day in early October?").split() == \
        "What was Mum's laundry day ?".split()
    assert "start" not in _held("What did the pontoon cost at the start of October?")
    assert "Tuesday" in _held("What was the Tuesday special in the week of the 13th?")
    assert "13th" not in _held("What was the Tuesday special in the week of the 13th?")
    # A weekday that names the thing stays; so does the event a state is dated by.
    assert "Friday" in _held("What was my usual Friday order in August?")
    assert "frost" in _held("What time did football start before the frost?")


def test_a_time_of_the_present_stays_a_word_of_the_thing() -> None:
    q = "What time is swimming on Fridays?"
    assert without_named_time(q, plan_question(q, ts(11, 5))) == q


def _history(ledger: Ledger, encoder: MiniLMEncoder,
             turns: list[tuple[float, str, str]]) -> None:
    events = [Event("dialogue", Scope(HOME, "r1", f"s{int(t // DAY)}"), text, speaker,
                    stamp=t, source_id=f"t{i}") for i, (t, speaker, text) in enumerate(turns)]
    capture(ledger, events)
    Consolidator(ledger, encoder, projector=GraphProjector(ledger, CpuExtractor())).drain()


def _ask(ledger: Ledger, encoder: MiniLMEncoder, question: str) -> QueryResult:
    with QueryEngine(ledger, encoder, audit=False) as eng:
        return eng.ask(QueryRequest(Scope(HOME), question), now=ts(10, 23))


def test_what_held_at_the_start_of_a_month_is_not_a_change_told_later_in_it(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    _history(ledger, encoder, [
        (ts(10, 1, 10), "Maureen", "I do Mum's washing now. Her laundry day at the home "
                                   "is Tuesday."),
        (ts(10, 1, 10, 2), "robot", "Your mum's laundry day is Tuesday."),
        (ts(10, 1, 10, 4), "Maureen", "They label everything with her name in red."),
        (ts(10, 8, 15), "Maureen", "The home rang, Mum's laundry day has moved to "
                                   "Thursdays now, new rota."),
        (ts(10, 8, 15, 2), "Maureen", "Thursdays. Fine, I'll bring her clean bits Wednesday."),
        (ts(10, 22, 11), "Maureen", "How's the weather for the weekend?"),
        (ts(10, 22, 11, 2), "robot", "Dry and cold, around nine degrees."),
    ])
    then = _ask(ledger, encoder, "What was Mum's laundry day in early October?")
    assert then.source_ids[:1] in (["t0"], ["t1"]), (then.answer, then.source_ids)
    assert "tuesday" in then.answer.lower()
    now = _ask(ledger, encoder, "What is Mum's laundry day?")
    assert now.source_ids[:1] in (["t3"], ["t4"]), (now.answer, now.source_ids)


def test_a_season_is_a_window_of_three_months() -> None:
    """"Over the summer" asked in November is June to August; "last winter" the one over
    by then; a season still to come ("this summer" asked of a plan) is the thing's time."""
    asked = ts(11, 20)
    summer = plan_question("Which room was I in over the summer?", asked)
    assert summer.window == (ts(6, 1, 0), ts(9, 1, 0)) and not summer.current
    winter = plan_question("What was my dose last winter?", asked)
    assert winter.window == (datetime(2024, 12, 1, tzinfo=UTC).timestamp(), ts(3, 1, 0))
    ahead = plan_question("What time is swimming over the winter?", asked)
    assert ahead.window is None and ahead.as_of is None
    before = plan_question("What time was swimming before the summer?", asked)
    assert before.as_of == ts(6, 1, 0)
    assert plan_question("What is on the summer menu?", asked).window is None
    # A season with its year is read by the time expressions, not as the latest one.
    assert plan_question("Where was I in summer 2021?", asked).window != summer.window


def test_a_month_before_anything_was_said_is_no_view() -> None:
    """"Where was the family going in July?" asked in June of a trip planned in May: the
    July it names without a year resolves to last year's, before anything was said; it
    is when the thing is, not a moment to look back at."""
    from trace_ros.query.current import held_time

    asked = datetime(2026, 6, 2, tzinfo=UTC).timestamp()
    q = "Where was the family going in July?"
    plan = plan_question(q, asked)
    said = [datetime(2026, 5, 4, 9, tzinfo=UTC).timestamp(),
            datetime(2026, 5, 18, 19, tzinfo=UTC).timestamp()]
    assert plan.window is not None and plan.window[1] < said[0]
    assert held_time(q, plan, lambda text: {}, latest=said[-1], said=said) is None
    # Its words stay words of the thing when the view ends elsewhere.
    moved = dataclasses.replace(plan, as_of=said[1] - 1.0)
    assert without_named_time(q, moved) == q


def test_a_state_after_an_event_is_what_the_event_left(ledger: Ledger,
                                                       encoder: MiniLMEncoder) -> None:
    """"After <event>": the value told with the event, though it does not name the
    thing, not the first value nor a later change; asked of now, the later change; and
    "looked after" is no event."""
    _history(ledger, encoder, [
        (ts(10, 2, 9), "Owen", "We've got forty ewes in the top field."),
        (ts(10, 2, 9, 2), "robot", "Forty ewes, noted."),
        (ts(10, 2, 9, 4), "Owen", "And six goats by the barn."),
        (ts(10, 9, 17), "Owen", "A loose dog got in on Sunday night. We lost five, so "
                                "thirty-five left."),
        (ts(10, 9, 17, 2), "robot", "Sorry to hear it. Thirty-five then."),
        (ts(10, 9, 17, 4), "Owen", "The goats were fine."),
        (ts(10, 16, 8), "Owen", "Bought twelve at the mart to make up the numbers, so "
                                "forty-seven in all."),
        (ts(10, 16, 8, 2), "robot", "Forty-seven ewes."),
    ])
    after = _ask(ledger, encoder, "How many ewes did we have after the dog?")
    assert after.source_ids[:1] == ["t3"], (after.answer, after.source_ids)
    now = _ask(ledger, encoder, "How many ewes do we have?")
    assert now.source_ids[:1] == ["t6"], (now.answer, now.source_ids)
    assert current_after("Who looked after the dog last week?") is None
    assert current_after("What did we play after six?") is None


def current_after(question: str) -> str | None:
    from trace_ros.query.current import _AFTER

    m = _AFTER.search(question)
    return m.group("clause") if m else None
