"""The "never recorded" verdict (``GraphStage.unrecorded``) and the reader's answer: a
statement of the one asked about, among the records nearest the question in meaning,
says what extraction missed and stands; anyone else's words, or their own far down the
ranking, do not."""

from __future__ import annotations

from trace_ros.language.text import stems
from trace_ros.query.pack import EvidenceItem
from trace_ros.query.paths import _OWN_NEAR, GraphOutcome, GraphStage
from trace_ros.query.plan import plan_question
from trace_ros.query.result import QueryResult

from .readerkit import T0, rec

QUESTION = "Where is Mo working now?"


def _finished(speaker: str, dense: int, who: frozenset[str] = frozenset({"mo"}),
              later: tuple[str, str] | None = None, later_dense: int = 2,
              text: str = "Bea, I've finally escaped the call centre! I start at the vet's "
                          "on Castle Street on Monday.") -> QueryResult:
    said = rec(1, text, speaker=speaker)
    shown = [EvidenceItem(said, 1.0, {"dense": dense})]
    if later is not None:
        shown.append(EvidenceItem(rec(2, later[0], speaker=later[1]), 1.0,
                                  {"dense": later_dense}))
    result = QueryResult("answered", "vet's on Castle Street", [said.source_id], shown,
                         plan_question(QUESTION, T0), "extractive", {})
    out = GraphOutcome(status="missing", message="nothing in memory records mo works at",
                       unrecorded=who, unrecorded_terms=stems(QUESTION) - {"mo"})
    GraphStage.finish(None, out, result)  # type: ignore[arg-type]  # uses no state
    return result


def test_their_own_near_statement_stands_against_never_recorded() -> None:
    res = _finished("Mo", 1)
    assert (res.status, res.answer) == ("answered", "vet's on Castle Street")


def test_another_speaker_or_a_far_statement_leaves_the_verdict() -> None:
    assert _finished("Bea", 1).status == "missing"
    assert _finished("Mo", _OWN_NEAR + 1).status == "missing"
    assert _finished("Mo", 0).status == "missing"  # not found by meaning at all


def test_a_later_near_record_of_theirs_leaves_the_verdict() -> None:
    """Their news may have moved on since: told by them, or of them by another."""
    assert _finished("Mo", 1, later=("Vet's was short-lived, I'm at the garage now.",
                                     "Mo")).status == "missing"
    assert _finished("Mo", 1, later=("Mo's gone back to the call centre.",
                                     "Bea")).status == "missing"
    # Another's news of their own ("I'm on the children's ward") is no news of Mo.
    assert _finished("Mo", 1, later=("I'm on the children's ward from next month.",
                                     "Bea")).status == "answered"
    assert _finished("Mo", 1, later=("Noted, the vet's.", "robot")).status == "answered"


def test_their_words_of_another_s_state_leave_the_verdict() -> None:
    res = _finished("Mo", 1, text="My brother works at the harbour.")
    assert res.status == "missing"


def test_other_verdicts_withhold_the_answer_whoever_said_it() -> None:
    res = _finished("Mo", 1, who=frozenset())  # "nothing mentions it" (``absent``)
    assert (res.status, res.answer, res.source_ids) == ("missing", "", [])


def test_a_later_record_of_theirs_about_something_else_leaves_their_statement() -> None:
    """A later turn of theirs far from the question in meaning that says no word of it or
    of their statement tells no news of it; nor does one that says the value read again,
    however near."""
    far = _OWN_NEAR + 1
    assert _finished("Mo", 1, later=("Which means I can actually make evening rehearsals.",
                                     "Mo"), later_dense=far).status == "answered"
    assert _finished("Mo", 1, later=("Which means I can actually make evening rehearsals.",
                                     "Mo"), later_dense=0).status == "answered"
    assert _finished("Mo", 1, later=("Still loving the vet's on Castle Street.",
                                     "Mo")).status == "answered"


def test_a_later_record_of_theirs_near_or_in_words_of_the_thing_keeps_the_verdict() -> None:
    """The look-alike: news near the question in meaning, or told in words of the question
    or of their statement, not the value read, may have moved on."""
    far = _OWN_NEAR + 1
    assert _finished("Mo", 1, later=("Which means I can actually make evening rehearsals.",
                                     "Mo")).status == "missing"  # near: it may be news
    assert _finished("Mo", 1, later=("Working Saturdays too now, at the garage.",
                                     "Mo"), later_dense=far).status == "missing"
    assert _finished("Mo", 1, later=("Back at the call centre, don't ask.",
                                     "Mo"), later_dense=far).status == "missing"
