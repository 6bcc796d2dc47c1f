"""The rebuild check of ``bench faults``: a consolidated ledger equals its rebuild;
a lost job (a source's facts missing) or a job applied twice shows as differences;
an undrained ledger is not compared. Real SQLite files, the node's CPU projector."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))

from graphkit import DAY, HashEncoder, capture  # noqa: E402

from trace_ros.bench.graphcheck import RebuildCheck, snapshot_diff  # noqa: E402
from trace_ros.capture import Event  # noqa: E402
from trace_ros.config import MemoryConfig  # noqa: E402
from trace_ros.consolidation.project import build_projection  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402

T0 = 1_700_000_000.0
TEXTS = ("I live in Boston with my sister.", "The red mug is on the kitchen table.",
         "We moved to Seattle last month.", "Actually the mug is in the sink now.",
         "I like green tea in the morning.", "I no longer like green tea, I prefer coffee.")


@pytest.fixture()
def ledger(tmp_path: Path) -> Ledger:
    with Ledger(tmp_path / "live.db") as led:
        events = [Event("dialogue", Scope("sam", "r1", f"s{i // 3}"), text, "Sam",
                        stamp=T0 + i * DAY, source_id=f"e{i}") for i, text in enumerate(TEXTS)]
        capture(led, events)
        cfg = MemoryConfig()
        projector, gate = build_projection(led, cfg)
        Consolidator(led, HashEncoder(), cfg.consolidation, projector=projector,
                     gate=gate).drain()
        gate.close()
        yield led


def _check() -> RebuildCheck:
    return RebuildCheck(None, encoder=HashEncoder())


def test_a_consolidated_ledger_equals_its_rebuild(ledger: Ledger) -> None:
    before = ledger.graph_snapshot()
    assert before["facts"] and before["edges"]
    result = _check().compare(ledger.path)
    assert result["facts_vs_rebuild"] == "equal", result
    assert result["rebuilt_jobs"] == len(TEXTS)
    assert ledger.graph_snapshot() == before  # the live ledger is left as it was


def test_a_lost_job_shows_as_missing_facts(ledger: Ledger) -> None:
    [fact_id] = ledger.query("SELECT fact_id FROM facts ORDER BY fact_id LIMIT 1")[0]
    with ledger.write() as conn:  # the job is done, its fact never written
        conn.execute("DELETE FROM fact_sources WHERE fact_id = ?", (fact_id,))
        conn.execute("DELETE FROM facts WHERE fact_id = ?", (fact_id,))
    result = _check().compare(ledger.path)
    assert result["facts_vs_rebuild"] == "differs"
    facts = result["differences"]["facts"]
    assert facts["only_rebuilt"] == 1 and facts["only_live"] == 0
    assert facts["examples"][0]["live"] is None and facts["examples"][0]["rebuilt"][0] == fact_id


def test_an_edge_applied_twice_differs() -> None:
    live = {"edges": [("sam", "updates", "a", "b", 0.9, "rule", 1.0, None)] * 2}
    rebuilt = {"edges": [("sam", "updates", "a", "b", 0.9, "rule", 1.0, None)]}
    diff = snapshot_diff(live, rebuilt)
    assert diff["edges"]["live"] == 2 and diff["edges"]["only_live"] == 1
    assert snapshot_diff(rebuilt, rebuilt) == {}


def test_an_undrained_ledger_is_not_compared(ledger: Ledger) -> None:
    with ledger.write() as conn:
        conn.execute("UPDATE jobs SET status = 'pending' WHERE job_id = "
                     "(SELECT min(job_id) FROM jobs)")
    result = _check().compare(ledger.path)
    assert result["facts_vs_rebuild"] == "not drained" and result["jobs"]["pending"] == 1


def test_the_faults_stream_makes_an_order_sensitive_graph(tmp_path: Path) -> None:
    """`bench faults` streams statements whose values change, so its rebuild check
    compares facts and update edges, not an empty graph."""
    from trace_ros.bench.faults import brief, diff_rows, statement

    with Ledger(tmp_path / "stream.db") as led:
        capture(led, [Event("dialogue", Scope(f"subject-{i % 4}", "", "faults"), statement(i),
                            "p", stamp=T0 + i, source_id=f"s/{i}") for i in range(120)])
        cfg = MemoryConfig()
        projector, gate = build_projection(led, cfg)
        Consolidator(led, HashEncoder(), cfg.consolidation, projector=projector,
                     gate=gate).drain()
        gate.close()
        counts = led.graph_counts()
    assert counts["facts"] > 50 and counts["edges_by_type"].get("updates", 0) > 5
    graph = {"differences": snapshot_diff({"facts": [("f1", 1), ("f2", 1)]},
                                          {"facts": [("f1", 2), ("f2", 2)]})}
    assert diff_rows(graph) == 4 and len(brief(graph["differences"])["facts"]["examples"]) == 1
