"""The reader's last refusals: an answer of the asked kind in form but not in what it says
is declined (a never-stated question), and the look-alike that does say it still stands."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import DAY, T0, read, rec  # noqa: E402

from trace_ros.query.declines import (  # noqa: E402
    _measure_without_figure,
    _strung_with_time,
    _the_asker,
    counts_another,
    declined,
)
from trace_ros.query.names import no_name_given  # noqa: E402
from trace_ros.query.pack import EvidenceItem, pack  # noqa: E402
from trace_ros.query.plan import plan_question  # noqa: E402
from trace_ros.query.readout import ReaderOutput  # noqa: E402
from trace_ros.query.spans import Asked, asked  # noqa: E402


def test_a_count_is_no_name() -> None:
    assert read("What are my hens called?",
                rec(0, "We've got five hens now, the eggs are amazing.")) == ""
    assert read("What's my dog called?", rec(0, "My dog's called Pepper.")) == "Pepper"


@pytest.mark.parametrize(("focus", "answer", "text", "refused"), [
    ("boyfriend", "Leeds", "She's moved in with her boyfriend in Leeds now.", True),
    ("hens", "Five", "We've got five hens now.", True),
    ("names", "Thursday", "Peter and the grandchildren on Thursday.", True),
    ("twins", "school, swimming lessons", "The twins' swimming lessons have gone to school.",
     True),
    ("landlord", "Byrne", "Our landlord is called Byrne.", False),
    ("landlord", "Mr Byrne", "The landlord's a Mr Byrne.", False),
    ("twins", "Ada and Jo", "The twins are Ada and Jo.", False),
    ("names", "Miso, Pepper", "Our cats are Miso and Pepper.", False),
    ("names", "Miso, Thursday", "Miso comes on Thursday.", True),
    ("vet", "Greenway Vets", "Pepper's jab is booked at Greenway Vets.", False),  # the vet's
])
def test_what_is_no_name(focus: str, answer: str, text: str, refused: bool) -> None:
    said = pack([EvidenceItem(rec(0, text), 1.0, {})], 4000, 20)
    out = ReaderOutput(answer, ["src-0"], "e")
    assert no_name_given(Asked("name", focus), out, said) is refused


def test_a_number_labelling_another_thing_is_no_floor() -> None:
    said = rec(0, "Hang on, no. Six is the one we lost out on. Ours is Flat 9.")
    assert read("What floor is the new flat on?", said) == ""
    assert "9" in read("What's the number of my new flat?", said)


def test_a_phone_number_is_no_count() -> None:
    assert read("How many flyers did we print?",
                rec(0, "Printed new flyers with the 658 number.")) == ""
    assert "500" in read("How many flyers did we print?", rec(0, "We printed 500 flyers."))


@pytest.mark.parametrize(("question", "answer", "refused"), [
    ("How big is my greenhouse?", "morning", True),
    ("How big is my greenhouse?", "eight feet by six", False),
    ("How heavy is my load?", "Thursday", True),
    ("How do I take my tea?", "black", False),  # manner: no measure asked
    ("How old is Theo?", "seven", False),
])
def test_a_measure_needs_a_figure(question: str, answer: str, refused: bool) -> None:
    assert _measure_without_figure(question, answer) is refused


def test_who_told_me_is_not_me() -> None:
    plan = dataclasses.replace(plan_question("Who told me I was on lates?", T0), asker="Owen")
    assert _the_asker("Who told me I was on lates?", plan, "Owen")
    assert not _the_asker("Who told me I was on lates?", plan, "Gwen")
    other = dataclasses.replace(plan_question("Who is on lates?", T0), asker="Owen")
    assert not _the_asker("Who is on lates?", other, "Owen")  # no "me": anyone may be it


def test_spans_strung_with_a_day_are_no_thing() -> None:
    q = "What are we getting Charlie for his birthday?"
    plan = plan_question(q, T0 + 30 * DAY)
    ask = asked(q, plan)
    assert _strung_with_time(ask, plan, "Tuesday 9 December, Young Charlie's")
    assert not _strung_with_time(ask, plan, "a bike, a helmet")
    why = declined(ask, q, plan, ReaderOutput("Tuesday 9 December, Young Charlie's", ["x"], "e"))
    assert why
    listed = dataclasses.replace(plan, operation="list")
    assert not _strung_with_time(Asked(), listed, "Monday, the blue kettle")


def test_a_count_of_mentions_counts_the_thing_asked() -> None:
    question = "Before 20 March, how many dogs had we adopted?"
    coco = rec(0, "We adopted Coco from the shelter.")
    shadow = rec(1, "Shadow came home with us from the shelter too.")
    dogs = rec(2, "The dogs need their jabs before the park.", when=T0 + 25 * DAY)
    # A later record speaks of the dogs; the mentions counted by then say none.
    assert read(question, coco, shadow, dogs) == ""
    # No record names a dog: the mentions may be its members, counted as before.
    assert read(question, coco, shadow) == "one"
    # The counted mention names one.
    assert read(question, rec(0, "We adopted a dog, Coco, from the shelter."), shadow,
                dogs) == "one"
    # Occasions are counted over records that need not say "times".
    assert read("How many times have we been to the shelter?", coco,
                rec(1, "Back at the shelter today, Shadow came home with us.")) == "two"


@pytest.mark.parametrize(("question", "texts", "shown", "refused"), [
    ("How many rooms is each housekeeper doing?", ["She's going in Tuesday the 20th now."],
     ["The rooms on the top floor are done."], True),
    ("How many rooms is each housekeeper doing?", ["She's going in Tuesday the 20th now."],
     [], False),  # no record names a room: its members may be what is counted
    ("How many rooms is each housekeeper doing?", ["Fourteen rooms each on Saturdays."],
     ["The rooms on the top floor are done."], False),
    ("How many letters has Joanna had?", ["A letter came for Joanna."], ["letters"], False),
    ("How many weeks was she away?", ["She flew back from Lisbon."], ["weeks"], False),
    ("How do I take my tea?", ["Black."], ["tea"], False),  # no count asked
])
def test_counts_another(question: str, texts: list[str], shown: list[str],
                        refused: bool) -> None:
    assert counts_another(question, texts, shown) is refused
