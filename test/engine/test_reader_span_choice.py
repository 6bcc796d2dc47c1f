"""Which phrase of the right record answers: general rules of what the question asks
(its wh-word, its head noun) and of what the sentence says (its clauses, who speaks)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import DAY, T0, read, rec  # noqa: E402

from trace_ros.language.revision import state_values
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import (
    answer_date,
    asked,
    held_days,
    idents,
    place_phrase,
    stems,
)


def test_how_old_am_i_is_the_age_the_asker_gives_of_themself() -> None:
    assert read("How old am I?", rec(1, "Well, I'm 74, you know."),
                rec(2, "My sister Ann is 70, she's the baby.")) == "74"


def test_an_age_may_be_followed_by_more_of_the_clause() -> None:
    assert read("How old is Mari?",
                rec(1, "His sister Mari is 12 and wants to help with the calves."),
                rec(2, "Mari's birthday isn't till October.")) == "12"


def test_a_place_name_joined_by_and_is_one_name() -> None:
    assert read("Where's the seminar dinner?",
                rec(1, "The seminar dinner's at the Fox and Hounds on the 26th.")) \
        == "Fox and Hounds"


def test_where_it_went_as_a_consequence_is_where_it_is() -> None:
    answer = read("Where does Jet sleep?",
                  rec(1, "Jet barked at the cats all night in that porch, so he's been "
                         "turfed out to the old stable."))
    assert answer == "old stable"


def test_my_room_is_the_speakers_room() -> None:
    assert read("Where's the hoover?",
                rec(1, "The hoover's living in my room now, I'm the only one who uses it.",
                    speaker="Cass")) == "Cass's room"
    # Said by no one in particular (the robot), it stays as said.
    assert read("Where's the hoover?", rec(1, "The hoover is in the hall cupboard.",
                                           speaker="robot")) == "hall cupboard"


def test_a_weekday_after_next_week_is_that_weekday_of_next_week() -> None:
    # Said on Monday 3 March 2025: the Tuesday of next week, not tomorrow.
    assert answer_date("Same time next week, Tuesday five.", T0) == "Tuesday 11 March 2025"
    assert answer_date("This week it's Friday.", T0) == "Friday 7 March 2025"


def test_a_day_the_revisions_named_stays_when_only_a_week_is_left() -> None:
    said = "Same time next week, Tuesday five."
    before = state_values("I go to physio every Tuesday, five o'clock.")
    assert held_days(said, before) == said
    # Beside another day it is what the record changes from.
    assert "Tuesday" not in held_days("Tuesday is out, Thursday at five.", before)


def test_the_speaker_doing_it_is_not_the_one_spoken_to() -> None:
    assert read("Who is doing the deliveries on the day?",
                rec(1, "And I'm still doing the deliveries myself that day, Sami, like I said.",
                    speaker="Teresa")) == "Teresa"


def test_a_name_tied_by_with_is_no_label_of_which_one() -> None:
    old = rec(1, "Summer student Maya starts in June. She'll do the protein purification "
                 "project with Ahmed.")
    new = rec(2, "Ahmed's off on paternity leave in June, so I've moved Maya onto imaging "
                 "with Dana instead.")
    echo = rec(3, "Maya now on the imaging project with Dana.", speaker="robot")
    items = [EvidenceItem(new, 1.0, {"graph": 1}), EvidenceItem(old, 0.9, {"superseded": 1}),
             EvidenceItem(echo, 0.8, {})]
    question = "Which project is Maya doing this summer?"
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(items, 4000, 20))
    assert "imaging" in out.answer and "Dana" not in out.answer


def test_how_many_did_i_have_asks_a_count_held_then() -> None:
    question = "How many pupils did I have just after Ada joined?"
    ask = asked(question, plan_question(question, T0 + 30 * DAY))
    assert (ask.kind, ask.focus) == ("count", "pupils")


def test_a_place_is_said_with_the_part_or_name_set_after_it() -> None:
    q = stems("Where are the samples kept?")
    assert place_phrase("The Ramos box is still on two, rack C.", q) == "two, rack C"
    assert place_phrase("The butter is from a farm in Devon, Greenacre, they deliver on "
                        "Tuesday.", stems("Where does the butter come from?")) \
        == "farm in Devon, Greenacre"
    # Not a time said after it, nor someone spoken to.
    assert place_phrase("It's in the shed, at 5 we go.", q) == "shed"
    assert place_phrase("It's in the shed, Sami, by the door.", q) == "shed"


def test_a_day_or_week_by_its_place_in_a_month_is_said_as_such() -> None:
    # "the second Wednesday" is no one date ahead of the record; "last Friday" is.
    assert answer_date("It's the second Wednesday, not the first.", T0) == "the second Wednesday"
    assert answer_date("Huw's off the second week of August.", T0) == "the second week of August"
    assert answer_date("Book club, first Thursday, that's the 6th.", T0) == "first Thursday"
    assert answer_date("I saw her last Friday.", T0) != "last Friday"


def test_a_preposition_written_on_by_a_hyphen_leads_to_no_place() -> None:
    said = "After the break-in scare, the fuel card's kept in the practice manager's drawer."
    assert place_phrase(said, stems("Where is the fuel card kept?")) == "practice manager's drawer"


def _read_after(old_text: str, said: str, question: str) -> str:
    """The answer to ``question`` where ``said`` is the graph's lead and ``old_text`` the
    record it supersedes."""
    items = [EvidenceItem(rec(2, said), 1.0, {"graph": 1}),
             EvidenceItem(rec(1, old_text), 0.9, {"superseded": 1})]
    return ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                   pack(items, 4000, 20)).answer


def _corrected(said: str) -> str:
    """The answer for Leanne's extension where ``said`` corrects "Leanne's extension is 214"."""
    return _read_after("Leanne's extension is 214, by the way.", said,
                       "What's Leanne's phone extension?")


def test_of_several_figures_the_one_said_by_the_question_s_words_answers() -> None:
    # The correction names the old figure as another thing's, the asked one after it.
    assert _corrected("Sorry, I gave you the wrong number. 214 is the sterilisation room, "
                      "Leanne is on 216.") == "216"
    # The other direction: the figure said by the question's words comes first.
    assert _corrected("Sorry, wrong number. Leanne is on 216, 214 is the sterilisation "
                      "room.") == "216"


def test_a_lone_figure_is_read_as_before() -> None:
    assert _corrected("Sorry, wrong number, Leanne is on 216.") == "216"



def _walker(said: str) -> str:
    """Who takes the dog, where ``said`` follows "On Saturdays Priya takes the dog"."""
    return _read_after("On Saturdays Priya is taking the dog.", said,
                       "Who is taking the dog on Saturdays?")


def test_a_name_the_revisions_gave_in_the_cause_is_who_it_changes_from() -> None:
    assert _walker("Priya's gone off the dog too, so her brother Tomas is walking "
                   "it.") == "Tomas"


def test_a_name_said_again_stays() -> None:
    assert _walker("Priya's still taking the dog on Saturdays, so Tomas can have a "
                   "lie-in.") == "Priya"
    assert _walker("Priya's taking the dog on Saturdays, with Tomas.") == "Priya"


def test_a_dotted_room_number_is_an_ident_not_a_clock_time() -> None:
    assert idents("The lab has flooded, so we're in 2.15 this week.", {"room"}) == ["2.15"]
    assert idents("You're at desk 3.12 upstairs.", {"desk"}) == ["desk 3.12"]
    # Said as a time it stays a time.
    assert idents("Meet at 2.15 by the lab.", {"room"}) == []
    assert idents("I'm on the 9.30 train.", {"room"}) == []


def test_which_room_reads_the_dotted_room_a_consequence_moves_to() -> None:
    old = rec(1, "The reading group meets in room B4 on Thursdays.")
    new = rec(2, "B4 is being painted, so we've ended up in 2.15 for the rest of term.")
    items = [EvidenceItem(new, 1.0, {"graph": 1}), EvidenceItem(old, 0.9, {"superseded": 1})]
    question = "Which room is the reading group in?"
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(items, 4000, 20))
    assert "2.15" in out.answer
