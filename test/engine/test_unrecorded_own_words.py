"""The "never recorded" verdict (``GraphStage.unrecorded``) and the reader's answer: a
statement of the one asked about, among the records nearest the question in meaning,
says what extraction missed and stands; anyone else's words, or their own far down the
ranking, do not."""

from __future__ import annotations

from trace_ros.query.pack import EvidenceItem
from trace_ros.query.paths import _OWN_NEAR, GraphOutcome, GraphStage
from trace_ros.query.plan import plan_question
from trace_ros.query.result import QueryResult

from .readerkit import T0, rec

QUESTION = "Where is Mo working now?"


def _finished(speaker: str, dense: int, who: frozenset[str] = frozenset({"mo"}),
              later: tuple[str, str] | None = None,
              text: str = "Bea, I've finally escaped the call centre! I start at the vet's "
                          "on Castle Street on Monday.") -> QueryResult:
    said = rec(1, text, speaker=speaker)
    shown = [EvidenceItem(said, 1.0, {"dense": dense})]
    if later is not None:
        shown.append(EvidenceItem(rec(2, later[0], speaker=later[1]), 1.0, {"dense": 2}))
    result = QueryResult("answered", "vet's on Castle Street", [said.source_id], shown,
                         plan_question(QUESTION, T0), "extractive", {})
    out = GraphOutcome(status="missing", message="nothing in memory records mo works at",
                       unrecorded=who)
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
