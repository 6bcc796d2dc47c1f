"""A rule's ``updates`` edge is read against the question (issue 14, first_other).

Consolidation's rules relate a later statement of the speaker to an earlier one
without knowing what will be asked. The chain still reads the record an edge found
against the question, as it reads the other later records: one that says what became
of a value given up ("352 is the supervisor's line now") or passes on a wish that
changed nothing ("Omar asked if … as well, but the coach said no"), or moves another
titled person ("Mrs Osei" when Mr Osei is asked of), does not lead.
Both directions: a rule's edge to a plain new value of the thing still leads.
Real SQLite ledger, MiniLM vectors, the CPU extractor and graph projector.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import CHATTER, ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402


def test_what_became_of_the_old_value_does_not_lead(ledger: Ledger,
                                                    encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Mina", "My extension at the depot is 352 if anyone needs me."),
        (6, "robot", "Noted: extension 352 at the depot."),
        *CHATTER,
        (9, "Mina", "The depot moved my desk, so my extension is 367 now."),
        (9, "Mina", "352 is the depot supervisor's line now."),
    ])
    res = ask(ledger, encoder, "What's my extension at the depot?")
    assert res.status == "answered", res.message
    assert res.source_ids[0] == "t5", (res.source_ids, res.answer)
    assert "367" in res.answer


def test_a_wish_passed_on_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Nia", "Omar's swimming lesson is on Wednesdays after school."),
        (6, "robot", "Noted: Omar swims on Wednesdays."),
        *CHATTER,
        (9, "Nia", "Omar asked if swimming could move to Fridays as well, but the coach "
                   "just laughed."),
    ])
    res = ask(ledger, encoder, "Which day is Omar's swimming lesson?")
    assert res.status == "answered", res.message
    assert res.source_ids[0] == "t0", (res.source_ids, res.answer)


def test_another_titled_person_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Sofia", "Mrs Osei is in bed 4, she needs help with her tray at lunch."),
        (6, "robot", "Noted: Mrs Osei, bed 4."),
        (7, "Sofia", "There's a Mr Osei come in overnight too, no relation, he's in bed 7."),
        *CHATTER,
        (9, "Sofia", "We've moved Mrs Osei to the side room, bed 12. She's on isolation."),
    ])
    res = ask(ledger, encoder, "Which bed is Mr Osei in?")
    assert res.status == "answered", res.message
    assert res.source_ids[0] == "t2", (res.source_ids, res.answer)


def test_a_rule_edge_to_a_new_value_still_leads(ledger: Ledger,
                                                encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Mina", "My extension at the depot is 352 if anyone needs me."),
        (6, "robot", "Noted: extension 352 at the depot."),
        *CHATTER,
        (9, "Mina", "The depot moved my desk, so my extension is 367 now."),
    ])
    res = ask(ledger, encoder, "What's my extension at the depot?")
    assert res.status == "answered", res.message
    assert res.source_ids[0] == "t5", (res.source_ids, res.answer)
