"""Readings of texts kept in memory, and their release after a forget.

The language and query helpers keep what they read from a text (its words, values,
tense, sentences) in bounded ``functools`` caches keyed by the text itself: the same
records are read again for every question. A forget removes a text from the ledger, its
WAL and its indexes; ``forget_texts`` removes it from these caches too, by emptying every
module-level ``functools`` cache of the package (what a later question reads is read
again). Whoever sees that a forget happened calls it: the vector index, whose
``vectors_epoch`` a forget moves (``storage/vectorindex.py``).
"""

from __future__ import annotations

import sys


def forget_texts() -> int:
    """Empty every module-level ``functools`` cache of ``trace_ros``; how many."""
    emptied = 0
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "trace_ros" or name.startswith("trace_ros.")):
            continue
        for obj in list(vars(module).values()):
            clear = getattr(obj, "cache_clear", None)
            if callable(clear) and hasattr(obj, "cache_info"):
                clear()
                emptied += 1
    return emptied
