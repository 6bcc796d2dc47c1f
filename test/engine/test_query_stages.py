"""The CPU stage split of a question asked twice on a kept ledger (``tools/query_stages.py``,
issue 16): the engine's stage clock reads CPU only inside the tool, the per-text readings
it may read first are the cached one-``text`` ones, and both passes answer alike."""

from __future__ import annotations

import time
from pathlib import Path

import query_stages  # (tools/ is on the path: pytest.ini)

from trace_ros.embed import MiniLMEncoder
from trace_ros.query import answer


def test_each_pass_times_every_stage_and_answers_alike(
        kept_locomo: tuple[Path, Path], encoder: MiniLMEncoder) -> None:
    db, data = kept_locomo
    got = query_stages.stages(db, data, passes=2, records=True, encoder=encoder)
    assert got["questions"] == 3 and len(got["passes"]) == 2 and got["same"] is True
    for stages in got["passes"]:
        assert set(stages) == set(query_stages.STAGES)
        assert stages["total"]["n"] == 3 and stages["total"]["p50"] > 0
    assert got["read_records"]["records"] >= 5 and got["read_records"]["readings"] > 0


def test_the_cpu_clock_is_the_engines_only_inside() -> None:
    wall = answer.time
    with query_stages.cpu_clock():
        assert answer.time.perf_counter is time.thread_time
        assert time.perf_counter is not time.thread_time  # the process's own clock is left
    assert answer.time is wall


def test_readings_are_the_cached_one_text_ones() -> None:
    from trace_ros.language import revision

    found = query_stages.text_readings()
    assert revision.keys in found and revision.values_named in found
    # A reading of a question, or of a text with another argument, is not one.
    assert revision.question_terms not in found and revision.owners not in found
    assert all(hasattr(f, "cache_info") for f in found)


def test_a_missing_ledger_is_refused(tmp_path: Path) -> None:
    assert query_stages.main([str(tmp_path / "none.db"), "--data", "x.json"]) == 2
