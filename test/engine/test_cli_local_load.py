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
