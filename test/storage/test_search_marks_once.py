"""A question's text searches share the marks and statistics they read (issue 16): inside
one ``read()`` block the ledger's marks, the postings' mark and the subject's statistics
are read once per subject; a later block reads them again, so a source stored between two
blocks is found and counted by the second; outside a block every search reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from trace_ros.capture import Event, prepare
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope
from trace_ros.storage.sqlite import search

CONFIG = CaptureConfig()


def _store(led: Ledger, texts: list[str], start: int, subject: str = "s") -> None:
    events = [Event("dialogue", Scope(subject, "", "s1"), text, "Ann",
                    stamp=1000.0 + start + i, source_id=f"{subject}{start + i}")
              for i, text in enumerate(texts)]
    assert all(r.status == "accepted" for r in led.store_sources(
        [prepare(e, CONFIG) for e in events], now=2000.0))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the marks were read."""
    reads: list[int] = []
    real = search._marks

    def marks(conn: Any) -> tuple[Any, int]:
        reads.append(1)
        return real(conn)

    monkeypatch.setattr(search, "_marks", marks)
    return reads


def test_marks_read_once_per_block_and_subject(tmp_path: Path, counted: list[int]) -> None:
    with Ledger(tmp_path / "l.db") as led:
        _store(led, ["the bike is in the shed", "the key is under the mat"], 0)
        _store(led, ["the bike lock is blue"], 0, subject="t")
        with led.read():
            first = led.search_sources(Scope("s"), '"bike"', 5)
            again = led.search_sources(Scope("s"), '"key"', 5)
            assert len(counted) == 1
            led.search_sources(Scope("t"), '"bike"', 5)
            assert len(counted) == 2  # another subject reads its own
        outside = (led.search_sources(Scope("s"), '"bike"', 5),
                   led.search_sources(Scope("s"), '"key"', 5))
        assert len(counted) == 4  # no block: each search reads them
        assert (first, again) == outside


def test_a_later_block_sees_what_was_stored_between(tmp_path: Path, counted: list[int]) -> None:
    with Ledger(tmp_path / "l.db") as led:
        _store(led, ["the bike is in the shed", "the key is under the mat"], 0)
        with led.read():
            before = led.search_sources(Scope("s"), '"bike"', 5)
        _store(led, ["the bike is in the garage now"], 10)
        with led.read():
            after = led.search_sources(Scope("s"), '"bike"', 5)
        assert len(before) == 1 and len(after) == 2
        assert len(counted) == 2
        # The same rows and scores as a search on its own (statistics read afresh).
        assert after == led.search_sources(Scope("s"), '"bike"', 5)
