"""Another thing of the kind asked is a look-alike, not the thing (issue 14).

"After-school club runs till 5:45" names a club as "What time does breakfast club start?"
does, with another word before it that says which club, and never says "breakfast": it
speaks of another club (``owners.other_kind_named``), so neither the graph stage's lead
nor the reader answers from it. The other direction: a word that only dates or ranks
the thing ("the new club", "the main pool"), a weekday ("Thursday class"), the question's
own word anywhere in the record, or a noun the question only uses as its verb ("does the
van park") tell no other thing. So is "the other locum" or "its own code", the thing on
other days of the week than the question names, and another speaker's "my flat" for the
asker's "our flat" (``owners.speakers_mine``). The asker's own thing told by another under
the asker's name is no other owner's (``owners.other_owner`` with the asker), and "my
fortieth birthday party" owns the party.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import HOME, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest  # noqa: E402
from trace_ros.query.owners import (  # noqa: E402
    other_kind_named,
    other_owner,
    possessed,
    speakers_mine,
)
from trace_ros.storage.records import SourceRecord  # noqa: E402


@pytest.mark.parametrize(("question", "text"), [
    ("What time does breakfast club start?", "After-school club runs till 5:45 on Fridays."),
    ("Whose is the kitchen speaker?", "The lounge speaker is still mine though, hands off."),
    ("Where's the clean linen trolley?", "Yeah still there. The dirty linen cage went to bay D."),
    ("What's my work mobile number?", "My own personal mobile hasn't changed, 07700 900514."),
    ("How much are concert tickets?", "raffle tickets still a pound each"),
    # not only opening a clause: after an article or a possessive
    ("Whose is the kitchen speaker?", "Theo's got the lounge speaker now."),
    # "the other", "its own": one more of the kind beside the one asked
    ("Who is covering Mondays as locum?", "The other locum, Dr. Amadi, does Thursdays."),
    ("What's my locker code at work?", "The drugs cabinet has its own code, 7310."),
    # the same thing on other days of the week than the question names
    ("What time does the yard close on weeknights?", "Weekends the yard closes at six."),
    ("What's on the galley menu on Wednesdays?", "Galley menu: Friday is macaroni cheese."),
])
def test_another_of_the_kind(question: str, text: str) -> None:
    assert other_kind_named(question, text)


@pytest.mark.parametrize(("question", "text"), [
    # the question's own word, anywhere in the record
    ("What time does breakfast club start?", "Breakfast club starts at eight now."),
    ("What time does breakfast club start?", "The school club moved breakfast to 7:30."),
    # a word that dates or ranks the thing, a weekday, a pronoun
    ("What time does breakfast club start?", "The new club starts at 7:30."),
    ("What night is my Spanish class?", "First Thursday class was last night."),
    ("When is my baby due?", "I'm due in April, if anyone's asking."),
    # no word before the noun in the question, or the question's verb
    ("When does the club meet?", "Chess club meets on Mondays."),
    ("Where does the van park when it's at Pennick?", "The pub car park is free now."),
    # a word before the noun that opens no noun phrase
    ("How much is the school trip?", "Maya said trip money is due Friday, thirty pounds."),
    # a name before the noun is whose it is, not which kind
    ("When does Hannah bring Theo to visit?", "They're bringing him on Sunday."),
    # "the other" before the noun a "which" question asks for is its value
    ("Which side of the stage is the props table on?", "It's on the other side now."),
    ("Which is my other locker?", "The other locker is 12."),
    # a day of the days asked, a question that asks a day or of a time gone by
    ("What time does the café open on weekdays?", "Mondays we open at eight now."),
    ("Which weekdays am I working?", "So I'm Mondays and Fridays now."),
    ("What time was the yard shut on weeknights?", "Weekends the yard closes at six."),
])
def test_not_another_of_the_kind(question: str, text: str) -> None:
    assert not other_kind_named(question, text)


def test_the_askers_own_under_their_name() -> None:
    owners = possessed("Where's my epipen?")
    text = "The nurse said it shouldn't get cold, so Astrid's epipen lives in her handbag."
    assert not other_owner(owners, text, "Astrid")
    assert other_owner(owners, text, "Bea")  # told to Bea, Astrid's is another's
    said = "Did Priya tell you? Her class is moving for good, up to room 22."
    assert not other_owner(possessed("Which room is my class in now?"), said, "Priya")
    assert other_owner(possessed("Which room is my class in now?"), said, "Dev")


def _rec(speaker: str, text: str) -> SourceRecord:
    return SourceRecord(1, "s1", HOME, "r1", "d1", "dialogue", speaker, text, "", None, None,
                        {}, 0.0, False, 0.0, "")


def test_another_speakers_own() -> None:
    question = "Where are the spare bike lights in our flat?"
    text = "The bike lights at my flat are in the hall cupboard."
    assert speakers_mine(question, "Eleni", _rec("Greg", text))
    assert not speakers_mine(question, "Eleni", _rec("Eleni", text))  # the asker's own
    assert not speakers_mine(question, "Eleni", _rec("robot", text))
    assert not speakers_mine("Where are Tom's bike lights?", "Eleni", _rec("Greg", text))
    assert not speakers_mine(question, "Eleni", _rec("Greg", "My bike is in the hall."))


def test_another_club_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Yvonne", "Breakfast club starts at 7:45, Leo's going Monday to Wednesday."),
        (6, "robot", "Breakfast club at 7:45, Monday to Wednesday."),
        (7, "Yvonne", "The fog this morning was so thick I could barely see the gate."),
        (8, "Yvonne", "After-school club runs till 5:45, but he only does that on Fridays."),
    ])
    with QueryEngine(ledger, encoder, audit=False) as eng:
        res = eng.ask(QueryRequest(Scope(HOME), "What time does breakfast club start?"))
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)
    assert "7:45" in res.answer


def test_the_askers_thing_to_its_head_noun() -> None:
    """"my fortieth birthday party" owns the party too: Mara's party is another's."""
    owners = possessed("What date is my fortieth birthday party?")
    assert owners.get("parti") == "i", owners
    assert other_owner(owners, "And Mara's party is on the 21st of March.", "Ursina")
    assert not other_owner(owners, "My party's moved to the 28th.", "Ursina")


@pytest.mark.parametrize(("question", "text"), [
    ("When did Maria's grandmother pass away?", "My grandma passed away last week."),
    ("What did Joanna get from her brother that brought back memories?",
     "That letter brought back so much."),
])
def test_a_verb_and_its_particle_are_no_noun_phrase(question: str, text: str) -> None:
    """"pass away", "brought back": the verb a particle follows is no thing of a kind."""
    assert not other_kind_named(question, text)


def test_a_counted_thing_may_be_told_as_another() -> None:
    """"her second movie script" is one more of its kind: "Another movie script" of hers
    may be the one asked, not a look-alike."""
    assert not other_kind_named("When was Joanna's second movie script shown?",
                                "Another movie script I wrote was shown last Sunday!")
    assert other_kind_named("When was Joanna's movie script shown?",
                            "Another movie script I wrote was shown last Sunday!")


def test_a_verb_form_after_another_is_not_the_thing() -> None:
    """"another cat named Bailey" for the pets' names: "named" is no other name."""
    assert not other_kind_named("What are Melanie's pets' names?",
                                "We got another cat named Bailey too.")
    assert other_kind_named("Who is covering Mondays as locum?",
                            "The other locum, Dr. Amadi, does Thursdays.")


def test_question_read_once_same_verdicts() -> None:
    """The question's part of the look-alike checks is read once per question
    (``_thing_of_another``, ``_days_asked``, ``_things_named``; issue 16): the verdicts
    are those of reading it per record, "ANOTHER" and "The Other" in any case included,
    and a record naming none of "other" or "own" is no other one of the kind."""
    from trace_ros.query import owners
    assert owners._thing_of_another("When was Joanna's second movie script shown?") is None
    assert "locum" in owners._thing_of_another("Who is covering Mondays as locum?")
    assert owners._days_asked("What time does the yard close on weeknights?") \
        == frozenset(("monday", "tuesday", "wednesday", "thursday", "friday"))
    assert owners._days_asked("Which days does the yard close early on Mondays?") == frozenset()
    assert owners._things_named("When is the O'Brien tasting?") == {"tast": "O'Brien"}
    assert other_kind_named("Who is covering Mondays as locum?",
                            "THE OTHER LOCUM, Dr. Amadi, does Thursdays.")
    assert other_kind_named("What's my locker code at work?", "The cabinet has ITS OWN code.")
    assert not other_kind_named("Who is covering Mondays as locum?",
                                "Dr. Amadi is covering as locum now.")
