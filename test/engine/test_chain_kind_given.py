"""The chain's later record must give a value of the kind asked (issue 14): a "which"
question whose anchor labels the thing by its noun ("bay C") takes a record that labels
it anew ("bay A") though no capitalised name comes with it.

Real SQLite ledger, the real MiniLM encoder, the CPU extractor and graph projector,
questions through ``QueryEngine.ask``.
"""
from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphkit import capture  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.project import GraphProjector  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest, QueryResult  # noqa: E402

HOME = "home"


def _history(ledger: Ledger, encoder: MiniLMEncoder,
             turns: list[tuple[int, str, str]]) -> None:
    """(day of October 2025, speaker, text); one session a day; IDs t0, t1, …"""
    events = [Event("dialogue", Scope(HOME, "r1", f"d{day}"), text, speaker,
                    stamp=datetime(2025, 10, day, 9, i, tzinfo=UTC).timestamp(),
                    source_id=f"t{i}")
              for i, (day, speaker, text) in enumerate(turns)]
    capture(ledger, events)
    Consolidator(ledger, encoder, projector=GraphProjector(ledger, CpuExtractor())).drain()


def _ask(ledger: Ledger, encoder: MiniLMEncoder, question: str) -> QueryResult:
    with QueryEngine(ledger, encoder, audit=False) as eng:
        return eng.ask(QueryRequest(Scope(HOME), question))


def test_the_noun_asked_labelled_anew_revises_which(ledger: Ledger,
                                                     encoder: MiniLMEncoder) -> None:
    _history(ledger, encoder, [
        (6, "Ravi", "The Okoro family's boxes are in storage bay C, pallets 3 to 5."),
        (6, "robot", "Okoro boxes: bay C."),
        (8, "Ravi", "Moved the Okoro boxes over to bay F so the loader can reach the back."),
        (8, "robot", "Okoro boxes in bay F."),
        (9, "Ravi", "The canteen kettle is broken again."),
        (13, "Ravi", "Okoro are picking up Friday, so I've put their boxes by the door, bay A."),
        (13, "robot", "Okoro boxes in bay A."),
    ])
    res = _ask(ledger, encoder, "Which bay are the Okoro boxes in?")
    assert res.status == "answered", res.message
    assert res.source_ids[0] == "t5", (res.source_ids, res.answer)



def test_a_record_keeping_the_label_answers_with_it(ledger: Ledger,
                                                    encoder: MiniLMEncoder) -> None:
    # The record that keeps the label ("everything stays … in rack B") leads and says
    # it again: the label answers though an earlier record gave the same one.
    _history(ledger, encoder, [
        (6, "Farah", "My samples are in the cold store, rack D, top shelf."),
        (6, "robot", "Cold store, rack D, top shelf."),
        (8, "Farah", "The cold store failed overnight. They're in the spare fridge "
                     "in the lab now, rack B."),
        (8, "robot", "Samples now in the spare fridge, rack B."),
        (9, "Farah", "The engineer says the repair will take weeks."),
        (9, "Farah", "So everything stays upstairs in rack B until further notice."),
    ])
    res = _ask(ledger, encoder, "Which rack are my samples in now?")
    assert res.status == "answered", res.message
    assert "rack b" in res.answer.lower(), (res.source_ids, res.answer)
