"""Fixtures for engine tests: a real SQLite ledger in a temp dir, one MiniLM encoder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from trace_ros.config import CaptureConfig
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
