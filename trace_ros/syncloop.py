"""Continuous sync: a memory node pushes its ledger to the fleet's while it runs.

``SyncLoop`` runs ``trace_ros.sync.sync`` from the node's own ledger to a target every
``period_s`` on a thread of its own (a robot keeps capturing into its SQLite file when the
fleet is out of reach, and the next round sends what it missed: the watermark in the
target makes each round resumable and idempotent, as ``trace-ros sync`` is).

An unreachable target never stops the loop: the first failure of an outage is reported
once (``on_error``), the rounds of the outage after it are silent, the target is
re-opened at each next round, and the first success reports the end of the outage
(``on_recover``). Callables are injected (the target's opener, the period, the reports),
so this module knows nothing of ROS.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from .sync import SyncReport, sync


class SyncLoop:
    """A stoppable background thread of sync rounds (``start``, ``stop``, ``run_once``)."""

    def __init__(self, source: Any, source_name: str, open_target: Callable[[], Any], *,
                 period_s: Callable[[], float], batch: Callable[[], int] = lambda: 500,
                 target_name: str = "the target",
                 on_error: Callable[[str], None] = lambda _m: None,
                 on_recover: Callable[[str], None] = lambda _m: None) -> None:
        self.source = source
        self.source_name = source_name
        self.target_name = target_name
        self._open_target = open_target
        self._period_s = period_s
        self._batch = batch
        self._on_error = on_error
        self._on_recover = on_recover
        self._target: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.failing = False
        self.rounds = 0
        self.sent = 0  # sources stored on the target, all rounds
        self.last_ok: float | None = None
        self.last_error = ""

    def run_once(self) -> SyncReport | None:
        """One round; returns its report, or None when the target could not be used."""
        try:
            if self._target is None:
                self._target = self._open_target()
            report = sync(self.source, self._target, self.source_name,
                          batch=max(1, int(self._batch())))
        except Exception as exc:  # noqa: BLE001 - any failure is an outage, never fatal
            self._drop_target()
            self.last_error = " ".join(str(exc).split()) or type(exc).__name__
            if not self.failing:
                self.failing = True
                self._on_error(f"sync to {self.target_name} failed, retrying every "
                               f"{self._period_s():g} s: {self.last_error}")
            return None
        finally:
            self.rounds += 1
        self.sent += report.accepted
        self.last_ok = time.time()
        if self.failing:
            self.failing = False
            self._on_recover(f"sync to {self.target_name} resumed "
                             f"({report.accepted} sources sent)")
        return report

    def start(self) -> None:
        """Run rounds on a daemon thread until ``stop``; the first one at once."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="trace_ros_sync", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop after the round in progress (waits at most ``timeout`` s) and close the
        target; True when the thread ended in time."""
        self._stop.set()
        thread, self._thread = self._thread, None
        ended = True
        if thread is not None:
            thread.join(timeout)
            ended = not thread.is_alive()
        if ended:
            self._drop_target()
        return ended

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_once()
            self._stop.wait(max(0.01, float(self._period_s())))

    def _drop_target(self) -> None:
        target, self._target = self._target, None
        if target is not None:
            try:
                target.close()
            except Exception:  # noqa: BLE001, S110 - a broken connection may not close cleanly
                pass

    def state(self) -> dict[str, Any]:
        """For /diagnostics: failing or ok, rounds, sources sent, the last error."""
        return {"sync_state": "failing" if self.failing else "ok", "sync_rounds": self.rounds,
                "sync_sent": self.sent, "sync_last_error": self.last_error if self.failing
                else ""}


def ledger_name(url: Any) -> str:
    """The name a ledger's watermark is kept under on a target: its URL without password,
    a SQLite file's absolute (``trace-ros sync --from`` names it the same way)."""
    from .storage.url import SQLITE, sqlite_url

    if url.engine == SQLITE and url.path is not None:
        url = sqlite_url(url.path)
    return str(url)


def loop_for(source: Any, config: Any, *, on_error: Callable[[str], None],
             on_recover: Callable[[str], None]) -> SyncLoop | None:
    """The loop ``config.sync`` asks for (a ``MemoryConfig``), pushing ``source`` (the
    ledger at ``config.ledger_url``); None when ``sync.to_url`` is empty. Raises
    ``ConfigError`` for a bad URL or one naming the source ledger itself."""
    from .errors import ConfigError
    from .storage import open_sources_ledger
    from .storage.url import parse_ledger_url

    if not config.sync.to_url:
        return None
    target = parse_ledger_url(config.sync.to_url, "sync.to_url")
    name = ledger_name(config.ledger_url)
    if ledger_name(target) == name:
        raise ConfigError(f"sync.to_url: names this node's own ledger ({name})")
    return SyncLoop(source, name,
                    lambda: open_sources_ledger(target, create=True, field="sync.to_url"),
                    period_s=lambda: config.sync.period_s, batch=lambda: config.sync.batch,
                    target_name=str(target), on_error=on_error, on_recover=on_recover)
