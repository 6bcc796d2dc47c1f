"""Audit rows off the request path: a queue and one writer thread.

A query allocates its ``recall_id`` without touching the ledger (microseconds
since the epoch, shifted, plus a per-process salt and counter: unique within a
process, practically unique across processes, ordered by time) and hands the
row to the writer. The writer stores whatever has queued up within
``flush_ms`` in ONE transaction on its own connection, so a question never
waits for an fsync or for the capture writer's lock, and a busy query node
pays one commit per batch, not per question.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import queue
import secrets
import threading
import time
import weakref
from pathlib import Path

from ..config import LedgerConfig
from ..ledger import AuditRecord, Ledger
from ..storage import LedgerURL, open_ledger

log = logging.getLogger(__name__)

_SALT = secrets.randbits(10)
_COUNTER = itertools.count()
_COUNTER_LOCK = threading.Lock()
_STOP = object()


def new_recall_id() -> int:
    """A 63-bit ID: time in microseconds << 10 | (salt + counter) mod 1024."""
    with _COUNTER_LOCK:
        n = next(_COUNTER)
    return (time.time_ns() // 1000) << 10 | ((_SALT + n) & 0x3FF)


class AuditWriter:
    """Batches ``AuditRecord``s into the ledger from a background thread."""

    def __init__(self, path: str | Path | LedgerURL, config: LedgerConfig | None = None,
                 batch: int = 256, flush_ms: float = 200.0) -> None:
        """``path``: the ledger's SQLite file, or its URL (``ledger.path`` of any engine)."""
        self.path = path if isinstance(path, LedgerURL) else Path(path)
        self.config = config
        self.batch = max(1, batch)
        self.flush_s = max(0.0, flush_ms) / 1000.0
        self.written = 0
        self.dropped = 0
        self.batches = 0
        self._queue: queue.Queue[object] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False
        _WRITERS.add(self)

    def submit(self, record: AuditRecord) -> None:
        with self._lock:
            if self._closed:
                self.dropped += 1
                return
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="audit-writer",
                                                daemon=True)
                self._thread.start()
        self._queue.put(record)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every submitted row is written (or given up); False on timeout."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def close(self, timeout: float = 10.0) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._queue.put(_STOP)
            thread.join(timeout)

    def _run(self) -> None:
        ledger: Ledger | None = None
        try:
            ledger = (open_ledger(self.path, self.config) if isinstance(self.path, LedgerURL)
                      else Ledger(self.path, self.config))
            stop = False
            while not stop:
                first = self._queue.get()
                items = [first]
                deadline = time.monotonic() + self.flush_s
                while len(items) < self.batch and items[-1] is not _STOP:
                    left = deadline - time.monotonic()
                    try:
                        items.append(self._queue.get(timeout=left) if left > 0
                                     else self._queue.get_nowait())
                    except queue.Empty:
                        break
                stop = items[-1] is _STOP
                records = [r for r in items if isinstance(r, AuditRecord)]
                try:
                    self.written += ledger.write_audit(records)
                    self.batches += 1
                except Exception:  # noqa: BLE001 - an audit failure must not stop queries
                    self.dropped += len(records)
                    log.exception("audit: could not write %d row(s)", len(records))
                for _ in items:
                    self._queue.task_done()
        except Exception:  # noqa: BLE001
            log.exception("audit writer stopped")
        finally:
            if ledger is not None:
                ledger.close()


_WRITERS: weakref.WeakSet[AuditWriter] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """Rows queued when the process exits are still written."""
    for writer in list(_WRITERS):
        writer.close()
