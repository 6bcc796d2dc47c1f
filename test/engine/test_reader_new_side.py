"""The value read from the graph stage's current record is the one it holds to, not the one
it leaves: a value the superseded records state, which the current record turns down ("not
3") or gives as the cause of a consequence ("…, so we've shifted to …"), gives way to the
other value of the kind it states. A record that restates the old value beside another of
the kind keeps it. Also the schedules and times a record states of the thing asked."""

from __future__ import annotations

from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader, _placed_whole
from trace_ros.query.spans import answer_date
from trace_ros.query.typed import _left_for, _taken_out

from .readerkit import DAY, T0, rec


def read_items(question: str, items: list[EvidenceItem]) -> tuple[str, list[str]]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(items, 4000, 20))
    return out.answer, out.cited_ids


def test_a_day_given_as_the_cause_gives_way_to_the_consequence() -> None:
    old = rec(1, "My standing meeting with Professor Daniels is Fridays at three.")
    new = rec(2, "Daniels is teaching on Fridays now, so we've shifted to Wednesdays after "
                 "lunch.", when=T0 + 7 * DAY)
    answer, cited = read_items("When is my meeting with Professor Daniels?",
                               [EvidenceItem(new, 1.0, {"graph": 1}),
                                EvidenceItem(old, 1.0, {"superseded": 1})])
    assert answer == "Wednesdays" and cited[0] == "src-2"


def test_a_number_turned_down_gives_way_to_the_one_given() -> None:
    old = rec(1, "Grandad's moving within Willow Court, he's taking the empty one next to "
                 "the office, 3.")
    new = rec(2, "Mei, it's 8, not 3. Flat 3 is the office.", speaker="Jun",
              when=T0 + 7 * DAY)
    answer, _ = read_items("What's Grandad's flat number now?",
                           [EvidenceItem(new, 1.0, {"graph": 1}),
                            EvidenceItem(old, 1.0, {"superseded": 1})])
    assert answer == "8"


def test_the_old_value_restated_beside_another_is_kept() -> None:
    """Nothing turns the old number down, nor gives it as a cause: the record restates it,
    and the other number it names is someone else's."""
    old = rec(1, "Grandad's flat number at Willow Court is 3, ground floor.")
    new = rec(2, "Grandad's still in flat 3, and his friend Stan is in 8.", when=T0 + 7 * DAY)
    answer, _ = read_items("What's Grandad's flat number now?",
                           [EvidenceItem(new, 1.0, {"graph": 1}),
                            EvidenceItem(old, 1.0, {"superseded": 1})])
    assert "3" in answer and "8" not in answer


def test_left_for_reads_a_turn_down_or_a_cause() -> None:
    assert _left_for("so the spare's in there, not under the frog", "under the frog",
                     {"frog"}, {"safe"})
    assert _left_for("Receiver says forget 31, they'll put us at 9", "31", {"31"}, {"9"})
    assert _left_for("Teaching on Fridays now, so we've shifted to Wednesdays", "Fridays",
                     {"fridai"}, {"wednesdai"})
    # Restated, with another value of something else: not left.
    assert not _left_for("Still Fridays for me, and the seminar is Wednesdays", "Fridays",
                         {"fridai"}, {"wednesdai"})
    # The cause says the old value still holds: not left.
    assert not _left_for("Priya's still taking the dog, so Tomas can have a lie-in", "Priya",
                         {"priya"}, {"toma"})
    # The consequence says the old value again: not left.
    assert not _left_for("It was Wednesdays, so it's Fridays again", "Fridays",
                         {"fridai"}, {"wednesdai"})


def test_taken_out_drops_the_phrase_or_its_words() -> None:
    assert _taken_out("the spare's in there, not under the frog.", "under the frog",
                      {"frog"}) == "the spare's in there, not ."
    assert _taken_out("Teaching on Fridays now, so Wednesdays", "every Friday",
                      {"fridai"}) == "Teaching on now, so Wednesdays"


def test_a_monthly_day_keeps_its_place_in_the_month() -> None:
    said = "They voted to keep the committee on first Tuesdays."
    assert answer_date(said, T0) == "first Tuesdays"
    assert answer_date("Bins go out on Tuesdays.", T0) == "Tuesdays"


def test_a_habit_is_told_by_the_time_of_day_not_a_day_that_dates_something_else() -> None:
    old = rec(1, "Mum takes one amlodipine every morning with breakfast.")
    new = rec(2, "The doctor saw me Friday. I am to take the little pill at night now, not "
                 "in the morning.", speaker="Nonna", when=T0 + 7 * DAY)
    answer, _ = read_items("When does Nonna take her amlodipine?",
                           [EvidenceItem(new, 1.0, {"graph": 1}),
                            EvidenceItem(old, 1.0, {"superseded": 1})])
    assert "night" in answer and "Friday" not in answer


def test_the_persons_fuller_value_over_the_robots_echo() -> None:
    said = rec(1, "Spare gas bottles for the patio heaters are in the cage behind the bins.",
               speaker="Tamsin")
    echo = rec(2, "Cage behind the bins.", speaker="robot")
    answer, cited = read_items("Where are the spare gas bottles for the patio heaters?",
                               [EvidenceItem(said, 1.0, {}), EvidenceItem(echo, 1.0, {})])
    assert "cage" in answer.lower() and cited[0] == "src-1"


def test_the_resolvers_place_is_read_whole_from_its_source() -> None:
    said = ["Wren, I moved the vacuum bags to the shelf in the laundry room."]
    assert _placed_whole("shelf", said) == "shelf in the laundry room"
    assert _placed_whole("shop", ["My barber Luca is working at the shop on Bridge "
                                  "Street."]) == "shop on Bridge Street"
    # A source that does not say the value, or says no more of it: the value as it is.
    assert _placed_whole("garage", said) == "garage"
    assert _placed_whole("laundry room", ["It's in the laundry room."]) == "laundry room"



def _gordon(new: str) -> tuple[str, list[str]]:
    old = rec(1, "Gordon works at the fish farm.")
    return read_items("Where does Gordon work?",
                      [EvidenceItem(rec(2, new, when=T0 + 7 * DAY), 1.0, {}),
                       EvidenceItem(old, 1.0, {})])


def test_the_newest_record_leaves_an_earlier_records_value_without_the_graph_stage() -> None:
    """No graph stage's record leads: the newest revision's value, one an earlier shown
    record states, gives way where the newest tells it first and another place of its own
    after it."""
    answer, cited = _gordon("Gordon handed his notice in at work at the farm today. The "
                            "bakery on Station Road has taken him on.")
    assert "Station Road" in answer and "farm" not in answer and cited[0] == "src-2"


def test_the_newest_record_keeping_or_only_planning_keeps_the_earlier_value() -> None:
    # Still there, another holder's new place beside it; a place only planned.
    for new in ("Gordon's still at work at the farm. The bakery on Station Road has taken "
                "his brother on.",
                "Gordon was at work at the farm today. He'll try the bakery on Station Road."):
        answer, _ = _gordon(new)
        assert "farm" in answer and "Station" not in answer
