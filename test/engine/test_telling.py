"""How a statement is told (``consolidation/telling.py``) and the judgement's signals of it:
a change told as news (opening on what happened, the present perfect, a reason, a time it holds from)
weighs for an update; a value of one kind given way to another anywhere in the two does."""

from __future__ import annotations

from trace_ros.consolidation import judge, telling

BEFORE = "Choir practice is Thursday nights at St Peter's."
NEWS = "The vicar's taken on hospice visits, so choir's gone over to Wednesdays."
FROM = "From next week we get the fish Wednesday, first thing."


def test_the_present_perfect_is_read() -> None:
    assert telling.telling("Arne's taken the key home with him.").perfect
    assert telling.telling("The camp has been pushed back a week.").perfect
    assert not telling.telling("The key is in the top drawer.").perfect


def test_a_reason_is_read() -> None:
    assert telling.telling("Italian's closed for refurb, so Gregor's hosting it.").reason
    assert telling.telling("We moved it because of the strike.").reason
    assert not telling.telling(BEFORE).reason


def test_a_time_a_state_holds_from_is_read() -> None:
    assert telling.telling(FROM).start
    assert telling.telling("Starting November their dock opens at five.").start
    assert telling.telling("Come October he's doing our visits on Fridays.").start
    assert not telling.telling("I came from Leeds on the train.").start
    assert not telling.telling(BEFORE).start


def test_a_statement_opening_on_what_happened_is_read() -> None:
    assert telling.telling("They rescheduled my eye exam: it's on the 20th instead.").past_opening
    assert telling.telling("The Krone double-booked us. The Hirschen is free.").past_opening
    # the state told first, the past after it of another thing
    assert not telling.telling("Priya's birthday is on the 15th, we booked the Thai place."
                               ).past_opening


def test_signals_in_order() -> None:
    s = dict(zip(("perfect_new", "reason_new", "start_new", "past_opening"),
                 telling.signals(NEWS), strict=True))
    assert s == {"perfect_new": 1.0, "reason_new": 1.0, "start_new": 0.0, "past_opening": 0.0}
    assert telling.signals("Your tablet moves to bedtime from now on.")[2] == 1.0


def test_the_judgement_weighs_a_change_told_as_news_for_an_update() -> None:
    """The fit gives the later told in the perfect, with a reason, and from a time a
    positive weight, and a value of one kind given way to another anywhere in the two."""
    found = judge.weigh(NEWS, [BEFORE], [0.6], lambda t: True)
    assert found
    signals = dict(zip(judge.FEATURES, found[0][1], strict=True))
    assert signals["perfect_new"] == 1.0 and signals["reason_new"] == 1.0
    assert signals["replaces"] == 1.0
    p = judge.probability(list(signals.values()))
    for name in ("perfect_new", "reason_new", "replaces"):
        assert judge.probability(list(dict(signals, **{name: 0.0}).values())) < p
    for name in ("start_new", "past_opening", "contrasts"):
        assert judge.probability(list(dict(signals, **{name: 1.0}).values())) > p
