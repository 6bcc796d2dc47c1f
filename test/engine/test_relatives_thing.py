"""Another owner's thing in the typed reader's choice (issue 14): a question that names no
owner ("When is the boiler being serviced?") asks of the asker's household's thing, so a
record giving that thing to someone's relative ("My mum's boiler is getting done on
Monday") does not answer it where another record states a value (``owners.kin_owned``);
and an owner's phrase is read to its head noun ("Toby's heart tablet" is Toby's tablet,
not the asker's "my own tablets", ``owners.other_owner``)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import DAY, T0, rec  # noqa: E402

from trace_ros.ledger import SourceRecord  # noqa: E402
from trace_ros.query.owners import kin_owned, other_owner, possessed  # noqa: E402
from trace_ros.query.pack import EvidenceItem, pack  # noqa: E402
from trace_ros.query.plan import plan_question  # noqa: E402
from trace_ros.query.readers import ExtractiveReader  # noqa: E402


def _read(question: str, asker: str, *records: SourceRecord) -> tuple[str, list[str]]:
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    plan = dataclasses.replace(plan_question(question, T0 + 30 * DAY), asker=asker)
    out = ExtractiveReader().read(question, plan, p)
    return out.answer, out.cited_ids


def test_a_relatives_thing_is_not_the_unowned_one_asked() -> None:
    q = "When is the boiler being serviced?"
    assert kin_owned(q, "Owen", rec(1, "My mum's boiler is getting done on Monday.", "Gwen"))
    assert kin_owned(q, "Owen", rec(1, "His brother's old boiler goes in on the 3rd.", "Gwen"))
    # Not the unowned thing itself, nor another thing of the relative's, nor a question
    # that names an owner or anyone, nor the robot's turn.
    assert not kin_owned(q, "Owen", rec(1, "Boiler man can come on Friday.", "Owen"))
    assert not kin_owned(q, "Owen", rec(1, "My mum's hip is sore, the boiler's Friday.", "Gwen"))
    assert not kin_owned("When is Mum's boiler being serviced?", "Owen",
                         rec(1, "My mum's boiler is getting done on Monday.", "Gwen"))
    assert not kin_owned("When is Gwen getting the boiler serviced?", "Owen",
                         rec(1, "My mum's boiler is getting done on Monday.", "Gwen"))
    assert not kin_owned(q, "Owen", rec(1, "Your mum's boiler is Monday.", "robot"))


def test_the_households_boiler_answers_before_a_relatives() -> None:
    """Fails before ``kin_owned``: the later record about the mother's boiler, sharing
    as many words, was taken as the newest revision."""
    answer, cited = _read(
        "When is the boiler being serviced?", "Owen",
        rec(1, "Boiler man can come on Friday.", "Owen"),
        rec(3, "My mum's boiler is getting done on Monday, same company.", "Gwen", T0 + DAY))
    assert cited[:1] == ["src-1"] and "Friday" in answer


def test_the_relatives_boiler_still_answers_alone() -> None:
    """The other direction: where it is the only record stating a value, it answers."""
    answer, cited = _read(
        "When is the boiler being serviced?", "Owen",
        rec(3, "My mum's boiler is getting done on Monday, same company.", "Gwen"))
    assert cited[:1] == ["src-3"] and "Monday" in answer


def test_an_owners_phrase_is_read_to_its_head_noun() -> None:
    mine = possessed("When do I take my own tablets?")
    assert other_owner(mine, "Toby's heart tablet is still eight and eight.", "Bea")
    assert other_owner(mine, "My dad's blood pressure tablets are at nine.", "Bea")
    assert not other_owner(mine, "My own tablets are at nine and nine.", "Bea")
    # The phrase ends at a function word: "Toby's heart is fine, tablets at nine" gives
    # Toby no tablet.
    assert not other_owner(mine, "Toby's heart is fine, tablets at nine.", "Bea")


def test_an_is_after_a_name_owns_nothing_further() -> None:
    """"Marjorie's still coming tomorrow" is "Marjorie is": the words after it are no
    noun phrase of hers (the question's "my sister coming" gives the asker no
    "coming" of theirs to clash with)."""
    sister = possessed("Which day was my sister coming to visit?")
    assert not other_owner(sister, "Marjorie's still coming tomorrow, cake and all.", "Bea")
    assert not other_owner(sister, "My sister's coming Tuesday afternoon as well.", "Bea")
