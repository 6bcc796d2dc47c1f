"""The capture writer's answer collector, shared by its tests on SQLite alone and on every
engine: each answer is checked for durability when it comes (another connection must read
an accepted source) and every call per ID is counted."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from trace_ros.ledger import StoreResult


def other_connection(ledger: Any) -> Any:
    """A second connection to the same ledger: it sees committed rows only."""
    if hasattr(ledger, "url"):
        from trace_ros.storage.postgresql import PgLedger

        return PgLedger(ledger.url)
    from trace_ros.ledger import Ledger

    return Ledger(ledger.path)


class Answers:
    """Callbacks that check durability when called and count every call per ID."""

    def __init__(self, ledger: Any, expected: int) -> None:
        self.other = other_connection(ledger)
        self.calls: Counter[str] = Counter()
        self.results: list[StoreResult] = []
        self.not_durable: list[str] = []
        self.expected = expected
        self.done = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, res: StoreResult) -> None:
        with self.lock:
            if res.status == "accepted" and not self.other.get_sources([res.source_id]):
                self.not_durable.append(res.source_id)
            self.calls[res.source_id] += 1
            self.results.append(res)
            if len(self.results) == self.expected:
                self.done.set()

    def close(self) -> None:
        self.other.close()
