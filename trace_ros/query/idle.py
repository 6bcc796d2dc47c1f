"""A model reader that is unloaded after a while without questions and loaded again on use.

Frees the GPU (and its admission lease) on a robot that is asked little; the next question
pays the load again. ``unload_if_idle`` is called periodically by the query node with its
clock and the dynamic ``reader.idle_unload_s`` (0: never unload).
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from typing import Any

from .pack import Pack
from .plan import Plan
from .readers import Reader, ReaderOutput


class IdleUnloadingReader:
    def __init__(self, load: Callable[[], Reader], clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self._load = load
        self._clock = clock
        self._lock = threading.Lock()
        self.inner: Reader | None = load()
        self.last_used = clock()
        self.loads = 1
        self.unloads = 0

    @property
    def name(self) -> str:
        inner = self.inner
        return inner.name if inner is not None else getattr(self, "_last_name", "unloaded")

    def __getattr__(self, attr: str) -> Any:
        # decision, device, ... of the loaded reader (diagnostics); None while unloaded
        if attr.startswith("_") or attr in ("inner",):
            raise AttributeError(attr)
        return getattr(self.inner, attr, None)

    def read(self, question: str, plan: Plan, pack: Pack) -> ReaderOutput:
        with self._lock:
            if self.inner is None:
                self.inner = self._load()
                self.loads += 1
            self.last_used = self._clock()
            inner = self.inner
        return inner.read(question, plan, pack)

    def unload_if_idle(self, idle_s: float) -> bool:
        """Unload when unused for ``idle_s`` seconds (``idle_s`` <= 0: never). True if done."""
        with self._lock:
            if idle_s <= 0 or self.inner is None or self._clock() - self.last_used < idle_s:
                return False
            inner, self.inner = self.inner, None
            self._last_name = inner.name
            self.unloads += 1
        close = getattr(inner, "close", None)
        if close is not None:
            close()
        del inner
        gc.collect()
        try:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except ImportError:
            pass
        return True

    def close(self) -> None:
        with self._lock:
            inner, self.inner = self.inner, None
        close = getattr(inner, "close", None)
        if close is not None:
            close()
