"""SQLite lexical search keeps what it read of a subject's stems (``sqlite/lexcache``)
while the subject's sources stay the same: a search after a capture, a forget, or a
write by another connection ranks exactly as a reader that kept nothing, and a repeated
search reads no vocabulary again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope

SAM = ("The garden needs water and the garden soil is dry.", "Tomatoes grow in the garden.",
       "We watched the football match.", "The soil in the garden is rich now.",
       "Basil and tomatoes, both from the garden.", "I water the basil every morning.",
       "The garden soil got water from the rain.", "Sam's football boots are in the garden.")
QUERIES = ('"garden"', '"soil" OR "water"', '"garden" AND "basil"', '"tomatoes" NOT "basil"',
           '"garden soil" OR "football"', '"sam" OR "rain"', '"sam\'s"')


def _say(led: Ledger, subject: str, texts: tuple[str, ...], first: int = 0) -> None:
    events = [Event("dialogue", Scope(subject, "r1", "s1"), text, subject.title(),
                    stamp=1_700_000_000.0 + first + i, source_id=f"{subject}-{first + i}")
              for i, text in enumerate(texts)]
    assert all(r.status == "accepted" for r in ingest(led, events, CaptureConfig()))


def _searches(led: Ledger, subject: str = "sam") -> list[Any]:
    return [led.search_sources(Scope(subject), q, 10, weights=w)
            for q in QUERIES for w in ((1.0, 1.0), (1.0, 0.5))]


def _fresh(path: Path) -> list[Any]:
    with Ledger(path) as led:  # a reader that has read nothing yet
        return _searches(led)


def test_a_search_after_capture_and_forget_ranks_as_a_fresh_reader(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    with Ledger(path) as led:
        _say(led, "sam", SAM[:4])
        _say(led, "zoe", SAM[2:])
        assert _searches(led) == _fresh(path)
        _say(led, "sam", SAM[4:], first=4)
        assert _searches(led) == _fresh(path) != []
        led.forget(source_ids=["sam-1"])
        assert _searches(led) == _fresh(path)
        # A forget and a capture between two searches: as many rows and tokens as
        # before ("We watched the football match."), other words.
        led.forget(source_ids=["sam-2"])
        _say(led, "sam", ("The garden soil was dry.",), first=20)
        assert _searches(led) == _fresh(path)
        led.forget(Scope("sam"))
        assert _searches(led) == _fresh(path) == [[]] * len(_searches(led))


def test_another_connections_capture_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    with Ledger(path) as reader, Ledger(path) as writer:
        _say(writer, "sam", SAM[:3])
        before = _searches(reader)
        _say(writer, "sam", SAM[3:], first=3)
        assert _searches(reader) == _fresh(path) != before


def test_a_repeated_search_reads_no_vocabulary(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    with Ledger(path) as led:
        _say(led, "sam", SAM)
        first = _searches(led)
        statements: list[str] = []
        led.conn.set_trace_callback(statements.append)
        assert _searches(led) == first
        led.conn.set_trace_callback(None)
        assert statements and not [s for s in statements if "_vocab" in s or "_docsize" in s]
