"""The robot's word is not the first source of a value a person told it earlier, in
another session too (``typed._told_before``): the person's statement is cited first, where
it states all the robot says of the value and names a word of the question."""

from __future__ import annotations

from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.readers import ExtractiveReader

from .readerkit import turn

KEY_Q = "Where is the spare walk-in freezer key kept?"


def _cited(question: str, answer: str, cited: str, *items: EvidenceItem) -> list[str]:
    return ExtractiveReader()._own_statement(cited, answer, question,
                                             pack(list(items), 4000, 20), figures=True)


def test_the_person_who_told_the_value_is_cited_before_the_robot() -> None:
    told = turn(1, "s1", "And the spare key for the walk-in freezer lives in the blue tin "
                         "above the till.", "Nadia")
    chat = turn(7, "s2", "Busy lunch, we ran out of soup.", "Nadia")
    robot = turn(8, "s2", "In the blue tin above the till.", "robot")
    items = [EvidenceItem(r, 1.0, {}) for r in (robot, told, chat)]
    assert _cited(KEY_Q, "blue tin above the till", robot.source_id, *items) \
        == [told.source_id, robot.source_id]


def test_a_person_saying_only_part_of_the_value_told_another() -> None:
    # The robot's Friday 19 September is a week after the person's twelfth: not theirs.
    told = turn(1, "s1", "We've exchanged on the new flat. Moving day's Friday the twelfth "
                         "of September.", "Yvonne")
    robot = turn(9, "s2", "Moving day Friday 19 September, then.", "robot")
    items = [EvidenceItem(r, 1.0, {}) for r in (robot, told)]
    assert _cited("When am I moving house?", "Friday 19 September 2025", robot.source_id,
                  *items) == [robot.source_id]


def test_a_superseded_statement_or_one_about_nothing_asked_is_not_the_source() -> None:
    told = turn(1, "s1", "And the spare key for the walk-in freezer lives in the blue tin "
                         "above the till.", "Nadia")
    robot = turn(8, "s2", "In the blue tin above the till.", "robot")
    superseded = [EvidenceItem(robot, 1.0, {}), EvidenceItem(told, 0.9, {"superseded": 1})]
    assert _cited(KEY_Q, "blue tin above the till", robot.source_id, *superseded) \
        == [robot.source_id]
    # The same words said of something the question does not name.
    other = turn(1, "s1", "The biscuits live in the blue tin above the till.", "Nadia")
    items = [EvidenceItem(robot, 1.0, {}), EvidenceItem(other, 0.9, {})]
    assert _cited("Where is the freezer key kept?", "blue tin above the till",
                  robot.source_id, *items) == [robot.source_id]


def test_one_plain_word_of_the_value_is_too_little_to_say_who_told_it() -> None:
    # "his place" said before is not the robot's "your place": "place" alone ties nothing.
    told = turn(1, "s1", "We're driving to his place for Christmas, four hours.", "Kofi")
    robot = turn(9, "s2", "Okay, Christmas at your place.", "robot")
    items = [EvidenceItem(r, 1.0, {}) for r in (robot, told)]
    assert _cited("Where are we spending Christmas?", "your place", robot.source_id,
                  *items) == [robot.source_id]
    # A time word is enough: "Better luck next Thursday." repeats the club's Thursdays.
    club = turn(1, "s1", "Bridge club is Thursdays at two, we're partnering the Hendersons "
                         "this term.", "Walter")
    luck = turn(9, "s2", "Better luck next Thursday.", "robot")
    items = [EvidenceItem(r, 1.0, {}) for r in (luck, club)]
    assert _cited("Which day is our bridge club?", "Thursday", luck.source_id, *items) \
        == [club.source_id, luck.source_id]
