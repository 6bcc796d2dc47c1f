"""Fixtures for engine tests: a real SQLite ledger in a temp dir, one MiniLM encoder, and a
small LoCoMo-shaped conversation captured and consolidated into a kept ledger (the query
timing tools' tests read it as they read `bench locomo`'s)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from trace_ros.bench.locomo import capture_and_consolidate
from trace_ros.config import CaptureConfig, load_config
from trace_ros.embed import MiniLMEncoder
from trace_ros.ledger import Ledger


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    led = Ledger(tmp_path / "memory.db")
    yield led
    led.close()


@pytest.fixture(scope="session")
def encoder() -> MiniLMEncoder:
    enc = MiniLMEncoder()
    enc.load()
    return enc


@pytest.fixture
def capture_config() -> CaptureConfig:
    return CaptureConfig()


# Two sessions of two friends: a cat's bed moved between them, and a trip.
MINI_LOCOMO = {
    "sample_id": "mini",
    "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo",
        "session_1_date_time": "1:00 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely! Where do you keep her bed?"},
            {"speaker": "Ann", "dia_id": "D1:3", "text": "Her bed is in the hallway for now."},
        ],
        "session_2_date_time": "2:00 pm on 9 June, 2023",
        "session_2": [
            {"speaker": "Ann", "dia_id": "D2:1", "text": "I moved Miso's bed to the kitchen."},
            {"speaker": "Bo", "dia_id": "D2:2", "text": "I went camping in Oslo last week."},
        ],
    },
    "qa": [
        {"question": "What is Ann's cat called?", "answer": "Miso", "evidence": ["D1:1"],
         "category": 4},
        {"question": "Where is Miso's bed now?", "answer": "the kitchen",
         "evidence": ["D2:1"], "category": 4},
        {"question": "Where did Bo go camping?", "answer": "Oslo", "evidence": ["D2:2"],
         "category": 1},
    ],
}


@pytest.fixture
def kept_locomo(tmp_path: Path, encoder: MiniLMEncoder) -> tuple[Path, Path]:
    """A consolidated ledger of ``MINI_LOCOMO`` and the LoCoMo file it came from."""
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([MINI_LOCOMO]))
    db = tmp_path / "kept.db"
    cfg = load_config(None, None, {"ledger.db_path": str(db)})
    with Ledger(db, cfg.ledger) as ledger:
        capture_and_consolidate(ledger, [MINI_LOCOMO], cfg, encoder)
    return db, data
