"""The "nothing mentions it" verdict (``GraphStage.absent``) and the reader's answer: a
cited record that says the thing's head word ("Dog food …" for "Biscuit's food")
names the thing as people do once it is known, and the answer stands; one that says only
the words before the head ("The caterers …" for "the caterers' deadline for payment"),
or nothing of the thing, leaves the verdict."""

from __future__ import annotations

from trace_ros.query.pack import EvidenceItem
from trace_ros.query.paths import GraphOutcome, GraphStage
from trace_ros.query.plan import plan_question
from trace_ros.query.result import QueryResult

from .readerkit import T0, rec


def _finished(question: str, thing: tuple[str, ...], text: str, answer: str,
              cited: bool = True) -> QueryResult:
    said = rec(1, text)
    other = rec(2, "Biscuit's booster is on the 17th.")
    shown = [EvidenceItem(said, 1.0, {"dense": 2}), EvidenceItem(other, 1.0, {"dense": 1})]
    ids = [other.source_id, said.source_id] if cited else [other.source_id]
    result = QueryResult("answered", answer, ids, shown, plan_question(question, T0),
                         "extractive", {})
    out = GraphOutcome(status="missing", message=f"nothing in memory records {' '.join(thing)}",
                       absent=thing)
    GraphStage.finish(None, out, result)  # type: ignore[arg-type]  # uses no state
    return result


def test_the_head_word_said_lets_the_answer_stand() -> None:
    res = _finished("Where's Biscuit's food kept?", ("biscuit", "food"),
                    "Dog food lives in the metal bin by the back door.", "metal bin")
    assert (res.status, res.answer) == ("answered", "metal bin")
    res = _finished("Where's my football kit?", ("football", "kit"),
                    "Kit's in the blue bag by the door.", "blue bag")
    assert res.status == "answered"


def test_the_words_before_the_head_leave_the_verdict() -> None:
    res = _finished("When is the caterers' deadline for payment?", ("caterers", "payment"),
                    "The retreat caterers need dietary requirements by Friday.", "Friday")
    assert (res.status, res.answer, res.source_ids) == ("missing", "", [])


def test_a_shown_record_the_answer_does_not_cite_does_not_count() -> None:
    res = _finished("Where's Biscuit's food kept?", ("biscuit", "food"),
                    "Dog food lives in the metal bin by the back door.", "metal bin",
                    cited=False)
    assert res.status == "missing"


def test_no_absent_words_the_verdict_stands_as_before() -> None:
    res = _finished("Where's Biscuit's food kept?", (),
                    "Dog food lives in the metal bin by the back door.", "metal bin")
    assert res.status == "missing"
