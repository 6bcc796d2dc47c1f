"""When a vector index saves a subject's vectors as one block (a vector pack), and the
writing of it off the request path.

A fresh process reads a subject's pack and only the rows stored after it
(``vectorindex.VectorIndex``), so the pack is saved again once the index holds ``STEP`` or a
sixteenth more vectors than it: a restarted node's first question reads at most that
many rows one by one. Writing tens of megabytes (and syncing them) is done by a
background thread; the process waits for it at exit, so a short-lived ``trace-ros
query`` leaves its packs whole for the next one.
"""

from __future__ import annotations

import atexit
import logging
import threading

from .contract import LedgerContract
from .vectorpack import VectorPack

STEP = 512

_log = logging.getLogger(__name__)
_writers: set[threading.Thread] = set()
_lock = threading.Lock()


def due(held: int, packed: int) -> bool:
    """Whether an index holding ``held`` vectors, ``packed`` of them in the saved pack,
    should save it again."""
    return held - packed >= max(STEP, held // 16)


def save_later(ledger: LedgerContract, pack: VectorPack) -> None:
    """Save ``pack`` through ``ledger`` on a thread of its own."""

    def run() -> None:
        try:
            ledger.save_vector_pack(pack)
        except Exception:  # a pack only saves time: it never fails a question
            _log.exception("saving the vector pack of %s failed", pack.subject_id)
        finally:
            with _lock:
                _writers.discard(threading.current_thread())

    thread = threading.Thread(target=run, name="vector-pack", daemon=True)
    with _lock:
        _writers.add(thread)
    thread.start()


def wait(timeout: float | None = None) -> None:
    """Wait for the packs being saved (at exit, and in tests)."""
    with _lock:
        pending = list(_writers)
    for thread in pending:
        thread.join(timeout)


atexit.register(wait, 30.0)
