"""Keep what a long-lived process loaded out of the cyclic collector's sight (issue 16).

A node that has loaded its models, its ledger's caches and every module it imports holds
hundreds of thousands of objects that live as long as it does. Left where the collector
sees them, every full collection walks them all: ~200 ms with the GIL held in a warm
query node, seven of them in a 19 s pass of LoCoMo questions, each one a question (or a
captured event) that waits. ``gc.freeze()`` moves every object tracked now into the
permanent generation, which no collection walks; a full collection then walks only what
came after.

The permanent generation is the process's, not a node's: nodes composed into one process
(``trace-ros up --single-process``) share it. A node that unfroze on deactivate would
hand the other nodes' objects back to the collector too, so holders are counted:
:func:`hold` freezes (again: what the later holder loaded joins what is already kept
aside), :func:`release` unfreezes only when the last holder lets go. Until then, what a
released holder drops is still freed by reference counting; only its reference cycles
wait for the last release.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_holders: set[str] = set()


def hold(holder: str) -> None:
    """Collect what is garbage now, then keep everything left out of the collector's
    sight until every holder has released (``holder``: who holds, e.g. a node's name;
    holding twice under one name counts once)."""
    with _lock:
        gc.collect()
        gc.freeze()
        _holders.add(holder)


def release(holder: str) -> None:
    """``holder`` no longer needs it; the last release hands what was kept aside back to
    the collector. A holder that holds nothing is ignored."""
    with _lock:
        if holder not in _holders:
            return
        _holders.discard(holder)
        if not _holders:
            gc.unfreeze()


def holders() -> frozenset[str]:
    """Who holds now (for diagnostics and tests)."""
    with _lock:
        return frozenset(_holders)
