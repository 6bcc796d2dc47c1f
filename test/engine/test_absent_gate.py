"""The graph stage's ``absent`` gate: a thing no record in the view names is *missing*;
one named over a turn and the reply to it is recorded.

Real SQLite ledger, real consolidation with the rule-based CPU extractor and the graph
projector, questions through ``QueryEngine.ask`` with the extractive reader.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import HashEncoder, capture  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.project import GraphProjector  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest, QueryResult  # noqa: E402

U = Scope("u")
S1 = Scope("u", "r1", "s1")
T0 = datetime(2025, 6, 2, 9, tzinfo=UTC).timestamp()


def store(ledger: Ledger, lines: list[tuple[str, str]]) -> None:
    capture(ledger, [Event("dialogue", S1, text, speaker, stamp=T0 + 40 * i,
                           source_id=f"t{i}") for i, (speaker, text) in enumerate(lines)])
    Consolidator(ledger, HashEncoder(), projector=GraphProjector(ledger, CpuExtractor())).drain()


def ask(ledger: Ledger, question: str) -> QueryResult:
    with QueryEngine(ledger, HashEncoder(), audit=False) as eng:
        return eng.ask(QueryRequest(U, question))


def test_a_thing_named_over_a_turn_and_its_reply_is_recorded(ledger: Ledger) -> None:
    store(ledger, [
        ("Nadia", "Karim's cousin is getting married in Leeds on the 28th of June."),
        ("robot", "Wedding in Leeds, 28 June."),
        ("Karim", "Sounds lovely."),
    ])
    res = ask(ledger, "When is Karim's cousin's wedding?")
    assert res.status == "answered" and res.source_ids[0] in ("t0", "t1"), \
        (res.status, res.message, res.answer)


def test_whose_thing_it_is_is_said_with_it(ledger: Ledger) -> None:
    store(ledger, [
        ("Clifford", "Bad news on the Amy front. It's all off with Tom."),
        ("Clifford", "Her friend Georgie is still getting married in June, so Amy's a bridesmaid."),
        ("robot", "Georgie's wedding in June."),
    ])
    res = ask(ledger, "When is Amy's wedding?")
    assert res.status != "answered", (res.answer, res.source_ids)
