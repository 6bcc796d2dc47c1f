"""Reading many rows into memory at once without the garbage collector's full passes."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_gc_lock = threading.Lock()
_gc_loads = 0  # loads under way (``bulk_load``)
_gc_was_on = False
_gc_keep = False  # a load under way reads a subject afresh (``bulk_load(keep=True)``)
# Called once the last load ends when one of them read a subject afresh; set by
# ``trace_ros.gcfreeze`` (a running node keeps such loads out of the collector's sight).
after_fresh_load: Callable[[], None] | None = None


@contextmanager
def bulk_load(keep: bool = False) -> Iterator[None]:
    """No garbage collection while a subject's rows are read into memory. A load makes
    tens of thousands of objects that all stay (there is nothing for a collection to
    free), and each full collection it sets off walks the whole heap, the encoder's
    objects included: one subject's facts at 40,000 sources took 61-67 ms to load with
    collection held off and 91-227 ms without. Nested and concurrent loads share one
    pause; collection is back on (if it was on) when the last ends.

    ``keep``: the load reads a subject afresh (its first question, or after a deletion),
    not what changed since: once the last load ends, what was loaded is kept out of the
    collector's sight while a node holds the freeze (``after_fresh_load``, set by
    ``gcfreeze``: ``gcfreeze.keep_loaded``). Only then: a freeze also keeps aside the
    garbage cycles of that moment until the node lets go, so it must not come with every
    generation a running robot's ledger moves through."""
    global _gc_loads, _gc_was_on, _gc_keep
    with _gc_lock:
        if _gc_loads == 0:
            _gc_was_on = gc.isenabled()
            gc.disable()
        _gc_loads += 1
        _gc_keep = _gc_keep or keep
    try:
        yield
    finally:
        with _gc_lock:
            _gc_loads -= 1
            if _gc_loads == 0:
                if _gc_keep and after_fresh_load is not None:
                    after_fresh_load()
                _gc_keep = False
                if _gc_was_on:
                    gc.enable()
