"""`trace-ros query` answering in its own process loads the encoder on a thread while it
imports the pipeline; it must not exit while that load runs (onnxruntime aborts the
process when the interpreter ends under its session's creation)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trace_ros.cli import main
from trace_ros.ledger import Ledger


class SlowEncoder:
    """Loads slowly; counts loads that finished."""

    name = "slow-test-encoder"
    dim = 384

    def __init__(self, *_: Any) -> None:
        self.finished = 0
        self.encoded = False
        self.lock = threading.Lock()

    def cache_path(self) -> Path:
        return Path(__file__)  # "exported already": the CLI loads it ahead of the question

    def load(self) -> None:
        with self.lock:
            time.sleep(0.5)
            self.finished += 1

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded = True
        self.load()
        return np.zeros((len(texts), self.dim), dtype=np.float32)


def test_the_command_waits_for_the_encoders_load_before_it_ends(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from trace_ros.query.answer import QueryEngine

    db = tmp_path / "m.db"
    Ledger(db).close()
    made: list[SlowEncoder] = []
    monkeypatch.setattr("trace_ros.embed.MiniLMEncoder",
                        lambda *a: made.append(SlowEncoder()) or made[-1])

    class Answered:  # what a question answered without its embedding (a spatial one) gives
        def to_dict(self) -> dict[str, Any]:
            return {"status": "answered", "answer": "on the hall table", "source_ids": [],
                    "evidence": [], "reader": "spatial:locate"}

    monkeypatch.setattr(QueryEngine, "ask", lambda self, req, now=None: Answered())
    assert main(["query", "--via", "local", "--db", str(db), "--subject", "alice", "--json",
                 "Where did you last see my wallet?"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["path"] == "local (--via local)"
    (encoder,) = made
    assert not encoder.encoded  # nothing waited for the load on the question's behalf
    assert encoder.finished >= 1  # the preload ended before the command did


def test_a_query_process_ends_at_once_with_its_output_and_audit_row_kept(
        tmp_path: Path) -> None:
    """Run as the program, `trace-ros query` skips the interpreter's teardown: its answer,
    its exit status and its audit row are all still there."""
    import sqlite3
    import subprocess
    import sys

    db = tmp_path / "m.db"
    events = tmp_path / "events.jsonl"
    events.write_text(json.dumps({"subject_id": "alice", "speaker": "Alice", "stamp": 1.7e9,
                                  "text": "I keep my passport in the top drawer."}) + "\n")
    assert main(["ingest", "--db", str(db), "--format", "jsonl", str(events)]) == 0

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-P", "-m", "trace_ros.cli", "query", *args],
                              capture_output=True, text=True, timeout=120)

    done = run("--via", "local", "--db", str(db), "--subject", "alice", "--json",
               "Where do I keep my passport?")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "drawer" in out["answer"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM audit").fetchone()[0] == 1
    failed = run("--via", "local", "--db", str(tmp_path / "missing.db"), "--subject", "alice",
                 "anything")
    assert failed.returncode == 2 and failed.stderr.startswith("error:")
