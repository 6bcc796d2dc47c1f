"""Encoding the next batch's texts while this batch is projected.

A batch is encoded first (on every encoder session the CPUs allow) and then projected
on one thread (the rules, the linking, the writes), during which the encoder sits
idle: on LoCoMo-10 the projection is a third of consolidation. When a batch came
full, more jobs are likely waiting; the worker reads the sources stored after it and
``Prefetch`` encodes their texts on a background thread, a few at a time, while the
projection runs (onnxruntime lets go of the GIL while it runs). The next batch takes
the vectors made so far and encodes only the rest.

Only for an encoder whose vector of a text depends on that text alone (``per_text``):
a vector made ahead is then the one the batch would have made. A text the next batch
does not hold (another worker claimed it) costs its encoding and nothing else.
"""

from __future__ import annotations

import threading

import numpy as np

from ..embed import Encoder

# Texts per call to the encoder: each call holds the encoder (shared with a query node
# in one process) for a few milliseconds per text, and a stop waits for one call.
CHUNK = 4
# The longest a ``take`` waits for the call in progress (one chunk takes milliseconds).
JOIN_TIMEOUT_S = 30.0


def per_text(encoder: Encoder) -> bool:
    """Whether ``encoder`` gives a text the same vector whatever it is encoded with (its
    ``per_text`` flag; False when it has none)."""
    return bool(getattr(encoder, "per_text", False))


class Prefetch:
    """Encodes ``texts`` in order on a background thread until done or taken."""

    def __init__(self, encoder: Encoder, texts: list[str]) -> None:
        self._encoder = encoder
        self._texts = list(dict.fromkeys(texts))
        self._stop = threading.Event()
        self._vectors: dict[str, np.ndarray] = {}
        self._thread = threading.Thread(target=self._run, name="trace-ros-prefetch",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for start in range(0, len(self._texts), CHUNK):
            if self._stop.is_set():
                return
            chunk = self._texts[start:start + CHUNK]
            try:
                rows = self._encoder.encode(chunk)
            except Exception:  # noqa: BLE001 - the batch encodes these and raises there
                return
            self._vectors.update(zip(chunk, rows, strict=True))

    def stop(self) -> None:
        """Encode nothing after the call in progress (returns at once)."""
        self._stop.set()

    def take(self) -> dict[str, np.ndarray]:
        """Stop after the call in progress and return text -> vector of what was encoded
        (nothing when the thread did not stop in time: it still holds the encoder)."""
        self.stop()
        self._thread.join(JOIN_TIMEOUT_S)
        return {} if self._thread.is_alive() else self._vectors
