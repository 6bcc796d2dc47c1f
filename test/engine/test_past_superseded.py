"""The reader's answer read from a record the chain marked superseded, while the current
record it found leads what is shown, is read again from the current record
(``QueryEngine.past_superseded``): "He's gone into teaching, … at the university" names
no word of "Where does Daniel work?", so the reader took "My husband Daniel works at the
Royal Infirmary". Only across conversations, and only where the current record gives an
answer; else the reader's first answer stands."""

from __future__ import annotations

from types import SimpleNamespace

from trace_ros.query.answer import QueryEngine
from trace_ros.query.pack import EvidenceItem, Pack
from trace_ros.query.paths import GraphOutcome
from trace_ros.query.plan import Plan
from trace_ros.query.readout import ReaderOutput
from trace_ros.storage.records import SourceRecord


def rec(seq: int, session: str, text: str) -> SourceRecord:
    return SourceRecord(seq, f"r{seq}", "home", "robot", session, "dialogue", "Kofi", text, "",
                        None, None, {}, float(seq), False, float(seq), "")


OLD = rec(1, "s0", "My husband Daniel works at the Royal Infirmary, he's a radiographer.")
NEW = rec(5, "s2", "Clinic didn't suit him. He's gone into teaching, at the university.")


class Reader:
    """Reads the first shown record when it is tied to its thread and says "university", else
    the one that says "Infirmary", as a reader that needs the question's words does."""

    name = "stub"

    def __init__(self, finds: bool = True) -> None:
        self.finds = finds
        self.calls = 0

    def read(self, question: str, plan: Plan, pack: Pack, resolution: object) -> ReaderOutput:
        self.calls += 1
        first = pack.items[0]
        if self.calls > 1 and self.finds and first.routes.get("carried") \
                and "university" in first.record.text:
            return ReaderOutput("university", [first.source_id])
        said = [i.source_id for i in pack.items if "Infirmary" in i.record.text]
        return ReaderOutput("Royal Infirmary", said[:1]) if said else ReaderOutput("")


def read(reader: Reader, new: SourceRecord = NEW, plan: Plan | None = None) -> ReaderOutput:
    pack = Pack([EvidenceItem(new, 1.0, {"graph": 1}),
                 EvidenceItem(OLD, 0.9, {"graph": 1, "superseded": 1})])
    graph = GraphOutcome(lead=[new.source_id], superseded=[OLD.source_id])
    plan = plan or Plan("lookup", "single", False, False, answer_type="place")
    first = reader.read("Where does Daniel work?", plan, pack, None)
    return QueryEngine.past_superseded(SimpleNamespace(reader=reader), "Where does Daniel work?",
                                       plan, pack, first, graph)


def test_the_current_record_answers_over_the_superseded_one() -> None:
    out = read(Reader())
    assert (out.answer, out.cited_ids) == ("university", ["r5"])


def test_no_answer_from_the_current_record_keeps_the_first() -> None:
    out = read(Reader(finds=False))
    assert (out.answer, out.cited_ids) == ("Royal Infirmary", ["r1"])


def test_a_later_turn_of_the_same_conversation_keeps_the_first() -> None:
    out = read(Reader(), rec(2, "s0", "Oh and he's doing some teaching at the university."))
    assert (out.answer, out.cited_ids) == ("Royal Infirmary", ["r1"])


def test_a_past_question_keeps_the_first() -> None:
    out = read(Reader(), plan=Plan("lookup", "single", False, False, current=False,
                                   answer_type="place", tense="past"))
    assert (out.answer, out.cited_ids) == ("Royal Infirmary", ["r1"])
