"""Another person's update at consolidation: ``Supersession._relayed`` and ``owners``.

Invented sentences. In a shared place one person states a thing and another later gives
it a new value (a colleague moving a patient's physio, a contractor moving a closure);
consolidation relates the two with an ``updates`` edge. Two people each telling of their
own ("I'm on Tuesdays" / "I'm on Thursdays"), or the later naming another holder, relate
nothing; nor does a restatement.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_plan_realised import _updates  # noqa: E402

from trace_ros.consolidation.supersede import _restates, relayed_revision  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.revision import owners  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

CHATTER = [(3, 4, "Bo", "The printer on the second floor is jammed again."),
           (3, 4, "Ana", "Someone left cake in the staff room, help yourselves.")]


def test_whose_state_a_statement_tells() -> None:
    assert owners("Mr Pryce in bed 4 has his dressing changed on Mondays.", "Ana") \
        >= {"pryce"}
    assert owners("I'm on the late shift on Tuesdays.", "Ana Lopes") == {"ana", "lopes"}
    # an addressee is the holder only when spoken to, not when the speaker tells of self
    assert "gloria" in owners("Gloria, sorry, your scan has moved to Friday.", "Tom")
    assert "gloria" not in owners("Thanks Gloria, I'm off to the gym on Friday.", "Tom")
    # a relative is someone's by the speaker: no holder shared across speakers
    assert "mum" not in owners("Mum's hair appointment is on Thursday.", "Ana")
    assert owners("The lift is out of service until Wednesday.", "Ana") == frozenset()


def test_another_persons_new_value_of_the_same_holders_thing_updates(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "Mr Pryce in bed 4 has physiotherapy every Tuesday at ten."),
        *CHATTER,
        (3, 5, "Bo", "The physiotherapy team moved Mr Pryce to Thursday at ten."),
    ])
    edges = {(n, o): why for n, o, why in rows}
    assert ("t3", "t0") in edges, rows
    assert edges[("t3", "t0")].startswith("relayed update"), rows


def test_two_people_each_telling_of_their_own_do_not_update(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "I have my physiotherapy session every Tuesday at ten."),
        *CHATTER,
        (3, 5, "Bo", "I have my physiotherapy session every Thursday at ten."),
    ])
    assert ("t3", "t0") not in {(n, o) for n, o, _ in rows}, rows


def test_another_holders_similar_thing_does_not_update(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "Mr Pryce in bed 4 has physiotherapy every Tuesday at ten."),
        *CHATTER,
        (3, 5, "Bo", "Mrs Okoro in bed 9 has physiotherapy every Thursday at ten."),
    ])
    assert ("t3", "t0") not in {(n, o) for n, o, _ in rows}, rows


def test_another_person_restating_the_value_does_not_update(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "Mr Pryce in bed 4 has physiotherapy every Tuesday at ten."),
        *CHATTER,
        (3, 5, "Bo", "Mr Pryce still has physiotherapy on Tuesday at ten."),
    ])
    assert ("t3", "t0") not in {(n, o) for n, o, _ in rows}, rows


def test_a_first_turn_relaying_a_change_updates(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The one who relays the change may never have spoken before; a thing no one holds
    is revised by someone in a session the earlier speaker takes part in (a stranger's
    look-alike in another session stays apart: ``test_link``'s cross-session gate)."""
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "The linen delivery for the ward comes on Tuesdays at seven."),
        (3, 5, "Ana", "Someone left cake in the staff room, help yourselves."),
        (3, 5, "Cal", "Hi, Cal from the laundry. The linen delivery for the ward is on "
                      "Wednesdays at seven now."),
    ])
    assert ("t2", "t0") in {(n, o) for n, o, _ in rows}, rows


def test_passing_on_the_same_value_is_no_relayed_update(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """Another person repeating the value in other words ("the fifteenth" for "the
    15th") passes the thing on; it does not change it."""
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "Mr Pryce's hip scan is on the 15th of May."),
        *CHATTER,
        (3, 5, "Bo", "I've told Mr Pryce. Hip scan on the fifteenth of May, no food the "
                     "night before."),
    ])
    assert ("t3", "t0") not in {(n, o) for n, o, _ in rows}, rows
    assert _restates("Physics paper 1 is the 15th of May.",
                     "Physics on the fifteenth of May, no excuses.")
    assert not _restates("Completion is Friday the 27th.",
                         "Our solicitor says completion's now Friday the 6th of March.")


# ``_relayed_marked``: another person marks the holder's value as changed, in words that
# share no salient word of the thing with the holder's statement.
HOLDERS_VISIT = (3, 3, "Ana", "Mr Pryce has the eye clinic on the 12th for his drops.")


def test_another_person_marking_a_change_of_the_holders_value_updates(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        HOLDERS_VISIT,
        *CHATTER,
        (3, 5, "Bo", "Dr Singh rang, no slot for Mr Pryce on the 12th, so his eyes get "
                     "seen on the 19th instead."),
    ])
    edges = {(n, o): why for n, o, why in rows}
    assert ("t3", "t0") in edges, rows
    assert edges[("t3", "t0")].startswith("relayed marked change"), rows


@pytest.mark.parametrize("later", [
    # the relayer's own change, not the holder's
    "Dr Singh rang, no slot for me on the 12th, so my eyes get seen on the 19th instead.",
    # another holder's change of the same kind of thing
    "Dr Singh rang, no slot for Mrs Okoro on the 12th, so her eyes get seen on the 19th "
    "instead.",
])
def test_a_marked_change_of_another_holders_thing_is_no_relayed_marked_update(
        ledger: Ledger, encoder: MiniLMEncoder, later: str) -> None:
    rows = _updates(ledger, encoder, [HOLDERS_VISIT, *CHATTER, (3, 5, "Bo", later)])
    assert ("t3", "t0") not in {(n, o) for n, o, _ in rows}, rows


def test_whence_the_news_comes_is_no_holder() -> None:
    old = "Mr Pryce has the eye clinic on the 12th for his drops."
    names = frozenset({"ana", "bo"})
    assert relayed_revision(
        old, "Dr Singh rang, so Mr Pryce goes in on the 19th instead.", names)
    assert not relayed_revision(
        old, "Mrs Okoro goes in on the 19th instead.", names)
    assert not relayed_revision(  # a restatement gives no other value
        old, "Dr Singh rang, Mr Pryce is still on the 12th.", names)
    assert not relayed_revision(  # a value only asked for is no change told
        old, "Dr Singh rang, can Mr Pryce go in on the 19th instead? No rush.", names)
