"""A relative of the one asked about, told as the subject of a value, is another holder
(issue 14, the misses of br and bs).

"And Alasdair's brother Euan is the 9th of January" names Alasdair only as whose brother
Euan is: it does not answer "When is Alasdair's birthday?", nor "Her sister's due ten days
later, the 13th" "When is Leila due?" (``language.kinship.relative_holds``). The chain
(``query.current``) takes no such record for the anchor or a revision, and the typed
reader reads no value from it. The look-alikes it must not touch: the question names the
relative ("When is Leila's sister due?", "When is Lily's birthday?" for "His sister
Lily"), the relative's state is only the reason for the speaker's own value ("His
daughter's got a party on Saturday, so he's put me in for Sunday"), a relative who passes
on a message, and a "who" question (the relative may be the answer). Real SQLite ledger,
the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.kinship import relative_holds  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402


@pytest.mark.parametrize(("text", "question"), [
    ("And Alasdair's brother Euan is the 9th of January, I always mix the two up.",
     "When is Alasdair's birthday?"),
    ("Leela's little one, Aria, her birthday's the 11th. I'll need a present for that too.",
     "When is Leela's birthday?"),
    ("Her sister's due ten days later, the 13th. Two babies in one May.", "When is Leila due?"),
    ("Tom's wife starts at the bakery on Monday.", "When does Tom start at the bakery?"),
])
def test_a_relatives_value(text: str, question: str) -> None:
    assert relative_holds(text, question)


@pytest.mark.parametrize(("text", "question"), [
    # the question names the relative, by kinship word or by name
    ("Her sister's due ten days later, the 13th.", "When is Leila's sister due?"),
    ("His sister Lily's birthday is in January, the 15th as well.", "When is Lily's birthday?"),
    # the one asked about, not a relative
    ("Alasdair's birthday is the 19th of January.", "When is Alasdair's birthday?"),
    ("My sister Leela's birthday is the 3rd of February.", "When is Leela's birthday?"),
    # the relative's state is the reason; the consequence gives the value
    ("Hugh again. His daughter's got a party on Saturday, so he's put me in for Sunday, "
     "eleven still.", "When is my lesson with Hugh this week?"),
    ("Then Ania's sister said she can't make it, so seven of us.",
     "How many people is Ania's birthday dinner for?"),
    # the relative passes on a message
    ("His neighbour passed on a message: he's working from home on Tuesdays now.",
     "Which day do I clean for Mr Greenwood?"),
    # someone else's relative, or no one named in the question
    ("Sam's brother is the 9th.", "When is Alasdair's birthday?"),
    ("Her sister's due on the 13th.", "When is my due date?"),
])
def test_no_relatives_value(text: str, question: str) -> None:
    assert not relative_holds(text, question)


def _birthdays(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Fiona", "Morning. Gales forecast for Wednesday, check every boat twice."),
            (6, "robot", "Good morning, Fiona. I'll keep the forecast in mind."),
            (6, "Fiona", "Alasdair's birthday is the 19th of January. Fifty, though he'd "
                         "rather nobody knew."),
            (6, "robot", "Alasdair's birthday is 19 January."),
            (13, "Fiona", "The gale took a fender off B pontoon and half a bin lid."),
            (13, "robot", "Glad it wasn't worse."),
            (13, "Fiona", last),
            (13, "robot", "Euan's birthday is 9 January.")]


def test_a_relatives_date_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """Euan's date is not Alasdair's: the first statement answers (on bs05 the brother's
    turn led, "9 January")."""
    history(ledger, encoder, _birthdays(
        "And Alasdair's brother Euan is the 9th of January, I always mix the two up."))
    res = ask(ledger, encoder, "When is Alasdair's birthday?")
    assert res.source_ids[:1] == ["t2"], (res.answer, res.source_ids)
    assert "19" in res.answer


def test_the_one_asked_of_still_revises(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The other direction: the same turn about Alasdair himself is his date now."""
    history(ledger, encoder, _birthdays(
        "Turns out Alasdair's birthday is actually the 9th of January, I always mix them up."))
    res = ask(ledger, encoder, "When is Alasdair's birthday?")
    assert res.source_ids[:1] == ["t6"], (res.answer, res.source_ids)


def test_a_value_told_before_the_relative_is_the_asked_ones() -> None:
    assert not relative_holds("Grandad's still in flat 3, and his friend Stan is in 8.",
                              "What's Grandad's flat number now?")
