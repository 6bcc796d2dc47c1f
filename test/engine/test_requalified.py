"""A later statement that shares only the head of the thing asked and qualifies it
otherwise is another thing of the kind (issue 14, the first cited record a distractor's).

"Where do physio clinic calls go?": "The dental clinic is going to the front desk from
Monday" names "clinic" with another qualifier and never says "calls"; it must not beat the
revision that does. And the other direction: a revision that reuses the head with a new
value as its modifier ("peppermint tea now"), or with no qualifier of its own, still
leads. Real SQLite ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.revision import compounded, keys, requalified  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

CHATTER = [(7, "Omar", "The car park's being resurfaced, so I'm parking on the street."),
           (7, "robot", "Noted."),
           (8, "Omar", "We had a fire drill at half nine, everyone out in four minutes.")]


def test_the_compound_of_a_head_in_the_question() -> None:
    """What the question puts right beside the shared word qualifies it; a word elsewhere
    in the question does not."""
    assert compounded("Where do physio clinic calls go?", keys("clinic")) \
        == frozenset({"physio", "call"})
    assert "run" in compounded("Which days is Mr Okoro's physio run?", keys("physio"))
    assert not compounded("How do I take my coffee?", keys("coffee"))


def test_another_qualifier_of_the_head_is_another_thing() -> None:
    """A content word or a possessor the question and thread never say, right before the
    shared word, with the compound word missing: another thing. The same head with no
    qualifier of its own, or with the compound word kept, is not."""
    known = keys("Where do physio clinic calls go? Physio clinic calls go to Dr Amin.")
    thing = keys("clinic")
    kept = frozenset({"call"})
    assert requalified("The dental clinic still rings through to reception.", thing, kept,
                       known)
    assert requalified("Mrs Hale's clinic is on Fridays.", thing, kept, known)
    assert not requalified("The clinic line goes to the locum now.", thing, kept, known)
    assert not requalified("The new clinic calls go to the locum.", thing, kept, known)
    assert not requalified("The dental clinic calls go to the locum.", thing, kept, known)
    assert not requalified("Dental clinic rings reception.", thing, frozenset(), known)


def test_a_head_said_plainly_beside_a_qualified_one_names_the_thing() -> None:
    """Each run of the thing's words is qualified by the word before it: one said plainly
    ("the refund window's four weeks") names the thing, whatever another run's qualifier
    ("three late cancellations", a reason); every run qualified otherwise is another
    thing ("Work Secret Santa")."""
    question = "How far ahead do guests have to cancel to get a full refund?"
    anchor = "Guests get a full refund if they cancel at least fourteen days before arrival."
    known = keys(question) | keys(anchor)
    thing = keys("cancel refund")
    kept = frozenset({"full"})
    assert not requalified("Marian got stung by three late cancellations over Christmas, so "
                           "the refund window's four weeks now.", thing, kept, known)
    assert requalified("Marian got stung by three late cancellations over Christmas.",
                       thing, kept, known)
    santa = keys("secret santa")
    assert requalified("Work Secret Santa is a tenner.", santa, frozenset({"limit"}),
                       keys("What's the house Secret Santa limit?"))


def test_a_differently_qualified_statement_does_not_lead(ledger: Ledger,
                                                         encoder: MiniLMEncoder) -> None:
    """The dental clinic, said last, is not the physio clinic."""
    history(ledger, encoder, [
        (6, "Omar", "Physio clinic calls go to Dr Amin's mobile."),
        (6, "robot", "Physio clinic calls to Dr Amin's mobile."),
        *CHATTER,
        (9, "Omar", "Dr Amin's off on paternity leave, so physio clinic calls go to the "
                    "locum line now."),
        (9, "robot", "Physio clinic calls to the locum line."),
        (9, "Omar", "The dental clinic is going to the front desk from Monday."),
    ])
    res = ask(ledger, encoder, "Where do physio clinic calls go?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_a_new_value_as_modifier_still_leads(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"Peppermint tea for me now": the modifier is the value asked, not another thing."""
    history(ledger, encoder, [
        (6, "Omar", "I take my tea strong, with two sugars."),
        (6, "robot", "Strong, two sugars."),
        *CHATTER,
        (9, "Omar", "The doctor wants me off caffeine, so it's peppermint tea for me now."),
        (9, "robot", "Peppermint tea, noted."),
    ])
    res = ask(ledger, encoder, "How do I take my tea?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
