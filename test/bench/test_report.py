"""The report builder on hand-made runs: contract keys, ablation rows, markdown."""

from __future__ import annotations

from trace_ros.bench.dataset import Question
from trace_ros.bench.evaluate import QuestionRun, Shown
from trace_ros.bench.report import build_report, render_markdown

from .contract import check_report

QUESTIONS = [
    Question("s", 0, "q0", "Miso", 4, ("D1:1",), ()),
    Question("s", 1, "q1", "Oslo", 2, ("D2:1",), ("D9:9",)),
    Question("s", 2, "q2", "x, y", 1, ("D1:2", "D1:3"), ()),
    Question("s", 3, "q3", "yes", 3, ("D1:1",), ()),
    Question("s", 4, "q4", "no", 3, (), ("bad",)),
]
STAGES = {"embed": 5.0, "recall_lexical": 0.2, "recall_dense": 0.3, "recall": 0.5, "fuse": 0.1,
          "pack": 0.1, "read": 0.4, "total": 6.2}


def _shown(turns: list[str], answer: str, ms: float, stages: bool = False) -> Shown:
    return Shown([f"s:{t}" for t in turns], turns, answer, "answered" if answer else "abstained",
                 ms, dict(STAGES) if stages else {}, 100)


def _runs() -> list[QuestionRun]:
    runs = []
    for i, q in enumerate(QUESTIONS):
        system = _shown(["D1:1", "D2:1", "D1:2"], q.answer if i % 2 == 0 else "", 6.0 + i, True)
        base = {n: _shown(["D1:3", "D1:1"], "", 1.0 + i) for n in ("dense", "bm25", "hybrid")}
        runs.append(QuestionRun(q, system, base))
    return runs


def test_report_has_the_contract_keys_and_not_applicable_ablations() -> None:
    runs = _runs()
    ablations = {"graph": "component not built", "dense": [r.system for r in runs]}
    report = build_report(
        runs, ablations,
        data={"file": "mini", "conversations": 1, "turns": 5, "sources": 6, "questions": 5,
              "scorable": 4, "invalid_evidence": [{"sample_id": "s", "qa_index": 1,
                                                   "question": "q1", "evidence_id": "D9:9"}],
              "excluded": [{"sample_id": "s", "qa_index": 4, "question": "q4"}]},
        config={"reader": "extractive", "k": 10},
        ingest={"events": 6, "events_per_s": 100.0, "capture_s": 0.06, "consolidation_s": 1.0},
        memory={"peak_rss_mb": 10.0, "db_mb": 0.1}, full_tokens={"s": 1000},
        graph={"facts": 4, "facts_by_type": {"plan": 4}, "facts_by_status": {"active": 4},
               "edges_by_type": {"in_session": 4, "updates": 1}, "sessions": 2, "topics": 1})
    check_report(report, {"graph": False, "dense": True})
    assert report["system"]["overall"]["n"] == 4
    assert report["system"]["overall"]["hit@10"] == 1.0
    assert report["system"]["status"] == {"answered": 3, "missing": 0, "conflict": 0,
                                          "abstained": 2}
    assert report["ablations"]["dense"]["delta"]["hit@10"] == 0.0
    assert report["latency_ms"]["stages"]["graph"]["n"] == 0
    assert report["latency_ms"]["end_to_end"]["p50"] == 8.0
    assert report["context"]["ratio"] == 0.1
    md = render_markdown(report)
    assert "| trace_ros (system) |" in md and "| system − dense |" in md
    assert "| edges by type | in_session 4, updates 1 |" in md
    assert "`graph`: component not built" in md and "`D9:9`" in md
