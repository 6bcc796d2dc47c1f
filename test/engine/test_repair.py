"""Conversational repair (issue 14): a speaker taking back a value they have just given.

"We're eight. - Sorry, nine, not eight." / "The van's booked for the 21st. - Oh, scratch
that, … the 23rd." The later turn gives a value of the kind the earlier gave and either
denies the earlier value or opens on a repair marker; consolidation relates it as an
``updates`` edge and the query leads with it. Both directions: a value said again after
"sorry", a "sorry" followed by a value of something else, and a verb denied ("not going
till Monday") repair nothing; a later statement that keeps a value the thing was said to
have no longer ("not half six" … "the youth group stays on half six") is another thing's.
Real SQLite ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import CHATTER, ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language import revision  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402


def _repair_edges(ledger: Ledger) -> list[tuple[str, str]]:
    """(newer source, older source) of the ``updates`` edges a repair made."""
    return [(a, b) for a, b in ledger.query(
        "SELECT sn.source_id, so.source_id FROM edges e "
        "JOIN fact_sources sn ON sn.fact_id = e.src JOIN fact_sources so ON so.fact_id = e.dst "
        "WHERE e.type = 'updates' AND e.justification LIKE 'repair:%'")]


def test_repairs_both_ways() -> None:
    # the earlier value denied in favour of another of its kind
    assert revision.repairs("The quiz team is eight players this year.",
                            "Sorry, nine, not eight, I forgot Priya.") >= {"eight"}
    assert revision.repairs("Locker 2.14 is yours.", "Sorry, 2.41, not 2.14.")
    # a marker opening the turn, the new value of the same kind close after it
    assert revision.repairs("The van is booked for the 21st.",
                            "Oh, scratch that, the garage moved it, the 23rd.")
    assert revision.repairs("Pick-up is Friday.", "No wait, it's Thursday, I misread it.")
    # nothing taken back: the value again, or a value of another thing's kind
    assert not revision.repairs("The van is booked for the 21st.", "Sorry, yes, still the 21st.")
    assert not revision.repairs("My locker is number 41.",
                                "Sorry, I have to dash, the bus leaves on Tuesday.")
    assert not revision.repairs("The van is booked for the 21st.",
                                "Lovely weather for it, the garage said.")


def test_negated_values_and_what_replaces_them() -> None:
    assert revision.negated("It's the 14th, not the 12th.") >= {"12"}
    assert revision.negated("Choir's at quarter to seven now, not half six.") >= {"half", "six"}
    # a verb denied, with no value in the denied one's place, takes nothing back
    assert revision.negated("I'm not going back till Monday.") == frozenset()
    assert revision.repaired_within("Room 314. Sorry, 341, the card says so.") == {"314"}
    assert revision.given_instead("So eight from now on, not seven.") == "eight"
    denied, given = revision.denied_for("Choir's at quarter to seven now, not half six.")
    assert revision.keeps_denied("The youth group is staying on half six, mind.", denied, given)
    assert not revision.keeps_denied("Choir's back to half six after all.", denied, given)


def test_a_self_correction_in_the_next_turn_leads(ledger: Ledger,
                                                   encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Nia", "Put me down for the quiz on Thursday, our team is eight players."),
        (6, "robot", "Quiz on Thursday, team of eight."),
        (6, "Nia", "Sorry, nine, not eight. I forgot Priya's joining us."),
        (6, "robot", "Nine it is."),
        *CHATTER,
    ])
    assert ("t2", "t0") in _repair_edges(ledger)
    res = ask(ledger, encoder, "How many players are on my quiz team?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] == ["t2"], (res.answer, res.source_ids)
    assert "nine" in res.answer.lower() or "9" in res.answer, res.answer


def test_a_repair_marker_with_a_new_value_leads(ledger: Ledger,
                                                 encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Nia", "The removal van is booked for the 21st."),
        (6, "robot", "Removal van: the 21st."),
        (6, "Nia", "Oh, scratch that, the firm rang back, the 23rd."),
        (6, "robot", "Okay."),
        *CHATTER,
    ])
    assert ("t2", "t0") in _repair_edges(ledger)
    res = ask(ledger, encoder, "When is the removal van booked?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] == ["t2"], (res.answer, res.source_ids)
    assert "23" in res.answer, res.answer


def test_a_sorry_about_something_else_repairs_nothing(ledger: Ledger,
                                                       encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Nia", "My gym locker is number 41."),
        (6, "robot", "Locker 41."),
        (6, "Nia", "Sorry, I have to dash, the bus leaves on Tuesday at 5."),
        *CHATTER,
    ])
    assert _repair_edges(ledger) == []
    res = ask(ledger, encoder, "What's my gym locker number?")
    assert res.source_ids[:1] in (["t0"], ["t1"]), (res.answer, res.source_ids)
    assert "41" in res.answer, res.answer


def test_a_later_statement_keeping_a_denied_value_is_another_things(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Nia", "Choir practice starts at half six on Mondays."),
        (6, "robot", "Choir: Mondays at half six."),
        *CHATTER,
        (9, "Nia", "Choir practice starts at quarter to seven now, not half six."),
        (9, "robot", "Choir at 6:45."),
        (9, "Nia", "The youth group practice is staying on half six, mind."),
        (9, "robot", "Youth group at half six."),
    ])
    res = ask(ledger, encoder, "What time does choir practice start?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] in (["t5"], ["t6"]), (res.answer, res.source_ids)
    assert "quarter" in res.answer.lower() or "6:45" in res.answer, res.answer


def test_a_denied_hour_in_other_words_leads_with_the_hour_given(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The later turn names no word of the thing but the hour it moves away from: "not
    seven" ties it to "comes at seven"; the answer is the hour given in its place."""
    history(ledger, encoder, [
        (6, "Nia", "The bin lorry comes at seven. Recycling is the blue box."),
        (6, "robot", "Bin lorry at seven, blue box for recycling."),
        *CHATTER,
        (9, "Nia", "The council's new crew can't start that early. So nine from now on, "
                   "not seven."),
        (9, "robot", "Okay."),
    ])
    res = ask(ledger, encoder, "What time does the bin lorry come now?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
    assert "nine" in res.answer.lower() or "9" in res.answer, res.answer
