"""The trace-ros command line on a real ledger file (no ROS)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_ros.cli import main
from trace_ros.ledger import Ledger

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo10.json"


def _jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "events.jsonl"
    rows = [
        {"subject_id": "alice", "session_id": "s1", "speaker": "Alice", "stamp": 1000,
         "text": "Please water the basil plant every Monday."},
        {"subject_id": "alice", "session_id": "s2", "speaker": "Alice", "stamp": 9000,
         "text": "Change of plan: water the basil on Wednesdays now."},
        {"subject_id": "bob", "speaker": "Bob", "stamp": 1000, "text": "I keep my keys in the blue bowl."},
        {"subject_id": "", "speaker": "X", "text": "no subject"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_ingest_query_stats_forget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.db")
    assert main(["ingest", "--db", db, "--format", "jsonl", str(_jsonl(tmp_path))]) == 1  # one rejected
    captured = capsys.readouterr()
    counts = json.loads(captured.out.strip().splitlines()[-1])
    assert counts == {"accepted": 3, "duplicate": 0, "rejected": 1, "consolidated": 3}
    assert "scope.subject_id" in captured.err

    assert main(["query", "--via", "local", "--db", db, "--subject", "alice", "--json",
                 "When should the basil be watered now?"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["status"] == "answered" and "Wednesday" in out["answer"]
    assert set(out) >= {"status", "answer", "source_ids", "evidence", "reader", "timings_ms"}
    assert out["source_ids"] and all(e["source_id"] for e in out["evidence"])

    assert main(["stats", "--db", db]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["sources"] == 3 and stats["subjects"] == {"alice": 2, "bob": 1}
    assert stats["jobs"]["done"] == 3 and stats["vectors"][0]["count"] == 3

    assert main(["forget", "--db", db, "--subject", "bob"]) == 0
    assert json.loads(capsys.readouterr().out)["removed"] == 1
    assert main(["rebuild", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out) == {"requeued": 2, "consolidated": 2}


def test_bad_query_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Ledger(tmp_path / "m.db").close()  # query never creates a ledger
    assert main(["query", "--via", "local", "--db", str(tmp_path / "m.db"), "--subject", " ",
                 "hello"]) == 2
    assert "scope.subject_id" in capsys.readouterr().err


@pytest.mark.skipif(not DATA.exists(), reason="LoCoMo data not beside the checkout")
def test_ingest_locomo_one_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.db")
    assert main(["ingest", "--db", db, "--format", "locomo", "--samples", "1", "--no-consolidate",
                 str(DATA)]) == 0
    counts = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert counts["accepted"] > 400 and counts["rejected"] == 0
    assert main(["query", "--via", "local", "--db", db, "--subject", "conv-26", "--json",
                 "LGBTQ support group"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert all(s.startswith("conv-26:") for s in out["source_ids"])
