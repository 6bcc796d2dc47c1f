"""The projected graph does not depend on where consolidation batches end, also when
several robots' sessions overlap in one subject (a fleet's shared subject): every
batching of the same sources in the same order gives the graph of a clean rebuild
in one batch. Found by ``trace-ros bench fleet`` (docs/fleet-bench.md): a session of
one robot was closed when another robot's later session started, its late sources
then re-derived the topics at the end of whichever batch they fell in, and the
cross-session gate for ``before`` edges saw different topics."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import capture, consolidate  # noqa: E402

from trace_ros.bench.faults import shared_subject_events  # noqa: E402
from trace_ros.config import ConsolidationConfig  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

# The default thresholds: with the hashing encoder they give the old fault at batch 7.
TOPICS = ConsolidationConfig()


def _drain(ledger: Ledger, batch: int) -> dict:
    ledger.reset_derived()
    ledger.clear_graph()
    consolidate(ledger, replace(TOPICS, batch_size=batch), CpuExtractor())
    return ledger.graph_snapshot("site")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory):
    """4 robots × 30 turns in one subject, and the graph of one clean batch."""
    led = Ledger(tmp_path_factory.mktemp("fleet") / "memory.db")
    capture(led, shared_subject_events(4, 30, 6))
    clean = _drain(led, 1000)
    yield led, clean
    led.close()


def test_overlapping_sessions_give_the_clean_rebuild_at_batch_sizes_7_and_128(fleet) -> None:
    led, clean = fleet
    counts = led.graph_counts("site")
    assert counts["edges_by_type"].get("before", 0) > 20 and counts["topics"] >= 1
    for batch in (3, 7, 128):
        assert _drain(led, batch) == clean, f"batch size {batch}"


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.integers(min_value=1, max_value=60))
def test_any_batch_size_gives_the_clean_rebuild(fleet, batch: int) -> None:
    led, clean = fleet
    assert _drain(led, batch) == clean


def test_each_robot_closes_its_own_sessions(fleet) -> None:
    """Robot 0's first session closes when robot 0 starts its second one, not when
    robot 1 starts its first; every robot's last session stays open."""
    led, _ = fleet
    _drain(led, 1000)
    with led.write() as tx:
        closed = led.graph.get_meta(tx, "topics_closed:site")
    assert closed == '{"robot_0":4,"robot_1":4,"robot_2":4,"robot_3":4}'
