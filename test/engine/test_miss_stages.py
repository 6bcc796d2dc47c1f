"""Where a natural-bench miss lost its current record (``tools/miss_stages.py``, issue 14):
each stage told from the captured row, and an answer from a current record is no miss."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lead_steps
import miss_stages  # (tools/ is on the path: pytest.ini)


def _row(**kw: Any) -> dict[str, Any]:
    row = {"current": ["h:2.0"], "status": "answered", "ranked": ["h:0.0", "h:2.0"],
           "pack": ["h:0.0", "h:2.0"], "lead": [], "cited": ["h:0.0"]}
    row.update(kw)
    return row


def test_an_answer_from_a_current_record_is_no_miss() -> None:
    assert miss_stages.stage_of(_row(cited=["h:2.0", "h:0.0"])) == ""
    # Current cited, but not first: a miss (the bench scores the first citation).
    assert miss_stages.stage_of(_row(cited=["h:0.0", "h:2.0"])) == "packed, no lead"


def test_each_stage_is_told_from_the_row() -> None:
    assert miss_stages.stage_of(_row(status="abstained", cited=[])) == "abstained"
    assert miss_stages.stage_of(_row(ranked=["h:0.0"], pack=["h:0.0"])) == "not in the pool"
    assert miss_stages.stage_of(_row(pack=["h:0.0"])) == "not packed"
    assert miss_stages.stage_of(_row(lead=["h:2.0"])) == "lead, reader cited other"
    assert miss_stages.stage_of(_row(lead=["h:0.0"])) == "packed, chain led elsewhere"


def test_a_folder_without_a_ledger_is_refused(tmp_path: Path) -> None:
    assert miss_stages.main([str(tmp_path)]) == 2
    assert lead_steps.main([str(tmp_path)]) == 2  # the same arguments, the same refusal
