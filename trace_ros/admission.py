"""GPU admission control (DESIGN §5): a model may use the device only when admitted.

Free device memory minus a reserve must cover the model's need, counting
leases that other holders were granted but have not yet filled (their memory is
not visible to the probe yet). Leases live in a small JSON file guarded by
``flock`` beside the ledger, so every node of one robot (and every thread: each
request opens its own file description) sees one table.

Each lease is keyed by a holder name that is unique per ``Admission`` object:
the role the caller gives plus host, PID and a random suffix, so two query
nodes never overwrite each other's lease. A lease is void when its process is
gone, when the PID now belongs to another process (its start time, from
psutil, differs from the one recorded), or, while not yet loaded, when its
expiry passed without a ``heartbeat`` (a holder that hung before loading).
The probe that reads free memory is injectable: tests simulate a full or an
empty device without one.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

MemoryProbe = Callable[[str], tuple[int, int]]  # device -> (free_bytes, total_bytes)
DEFAULT_TTL_S = 600.0  # longer than a slow NF4 load: the reader does not heartbeat


def lease_file_for(db_path: str | Path) -> Path:
    """The lease table shared by every node using the ledger at ``db_path``."""
    path = Path(db_path).expanduser()
    return path.with_name(path.name + ".gpu-leases.json")


def cuda_probe(device: str) -> tuple[int, int]:
    import torch

    free, total = torch.cuda.mem_get_info(torch.device(device))
    return int(free), int(total)


@dataclass(frozen=True)
class Decision:
    admitted: bool
    device: str
    need_bytes: int
    free_bytes: int
    reserved_by_others: int
    reason: str
    holder: str = ""


def process_start_time(pid: int) -> float | None:
    """When process ``pid`` started (None when there is no such process)."""
    try:
        return float(psutil.Process(pid).create_time())
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None
    except psutil.AccessDenied:
        return -1.0  # alive but not ours to inspect: cannot tell a reuse


def lease_is_live(lease: dict[str, Any], now: float) -> bool:
    """False for a lease of a dead process, of a reused PID, or an unloaded lease
    past its expiry."""
    pid = int(lease.get("pid", 0) or 0)
    started = process_start_time(pid) if pid > 0 else None
    if started is None:
        return False
    recorded = lease.get("pid_start")
    if recorded is not None and started >= 0 and abs(started - float(recorded)) > 1.0:
        return False  # the PID was reused by another process
    expires = lease.get("expires_at")
    return bool(lease.get("loaded")) or expires is None or float(expires) >= now


class Admission:
    """Leases of device memory shared through ``lease_path``.

    ``request(role, need, device)`` grants or refuses; ``mark_loaded``,
    ``heartbeat`` and ``release`` take the same role. Raises nothing on a
    refusal: the ``Decision`` says why.
    """

    def __init__(self, lease_path: str | Path, reserve_bytes: int,
                 probe: MemoryProbe = cuda_probe, ttl_s: float = DEFAULT_TTL_S) -> None:
        self.lease_path = Path(lease_path)
        self.reserve_bytes = int(reserve_bytes)
        self.probe = probe
        self.ttl_s = ttl_s
        self._suffix = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._pid_start = process_start_time(os.getpid())
        self.last: Decision | None = None

    def holder_id(self, role: str) -> str:
        """The lease key of ``role`` for this object: unique across nodes and processes."""
        return f"{role}@{self._suffix}"

    @contextmanager
    def _table(self) -> Iterator[dict[str, dict]]:
        self.lease_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lease_path, "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                fh.seek(0)
                text = fh.read()
                try:
                    table: dict[str, dict] = json.loads(text) if text.strip() else {}
                except json.JSONDecodeError:
                    table = {}  # a torn file: every lease is void, holders re-request
                now = time.time()
                table = {k: v for k, v in table.items() if lease_is_live(v, now)}
                yield table
                fh.seek(0)
                fh.truncate()
                fh.write(json.dumps(table, sort_keys=True))
                fh.flush()
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def request(self, role: str, need_bytes: int, device: str) -> Decision:
        """Grant ``role`` a lease of ``need_bytes`` on ``device`` if it fits in the
        free memory minus the reserve and minus what others leased but have not
        loaded yet. The decision is kept in ``last``."""
        holder = self.holder_id(role)
        with self._table() as table:
            try:
                free, _total = self.probe(device)
            except Exception as exc:  # noqa: BLE001 - no device, no driver: refused
                self.last = Decision(False, device, need_bytes, 0, 0,
                                     f"cannot read free memory of {device}: {exc}", holder)
                return self.last
            pending = sum(int(v["bytes"]) for k, v in table.items()
                          if k != holder and v["device"] == device and not v.get("loaded"))
            available = free - self.reserve_bytes - pending
            if need_bytes > available:
                self.last = Decision(
                    False, device, need_bytes, free, pending,
                    f"needs {need_bytes >> 20} MiB, {max(0, available) >> 20} MiB available "
                    f"after a {self.reserve_bytes >> 20} MiB reserve and {pending >> 20} MiB "
                    f"leased to others", holder)
                return self.last
            table[holder] = {"bytes": int(need_bytes), "device": device, "pid": os.getpid(),
                             "pid_start": self._pid_start, "loaded": False, "role": role,
                             "expires_at": time.time() + self.ttl_s}
            self.last = Decision(True, device, need_bytes, free, pending, "admitted", holder)
            return self.last

    def mark_loaded(self, role: str) -> None:
        """The holder's memory is now allocated (and visible to the probe)."""
        with self._table() as table:
            lease = table.get(self.holder_id(role))
            if lease is not None:
                lease["loaded"] = True

    def heartbeat(self, role: str) -> bool:
        """Extend the lease's expiry; False when it was lost (expired or released)."""
        with self._table() as table:
            lease = table.get(self.holder_id(role))
            if lease is None:
                return False
            lease["expires_at"] = time.time() + self.ttl_s
            return True

    def release(self, role: str) -> None:
        with self._table() as table:
            table.pop(self.holder_id(role), None)

    def leases(self) -> dict[str, dict]:
        """The live leases, by holder ID (dead, reused-PID and expired ones dropped)."""
        with self._table() as table:
            return dict(table)

    def state(self, device: str | None = None) -> dict[str, Any]:
        """Flat admission state for /diagnostics: leases, leased bytes, the last
        decision of this object and, for ``device``, the probe's free memory."""
        table = self.leases()
        mine = {k: v for k, v in table.items() if k.endswith(self._suffix)}
        out: dict[str, Any] = {
            "gpu_leases": len(table),
            "gpu_leased_mb": sum(int(v["bytes"]) for v in table.values()) >> 20,
            "gpu_pending_mb": sum(int(v["bytes"]) for v in table.values()
                                  if not v.get("loaded")) >> 20,
            "gpu_reserve_mb": self.reserve_bytes >> 20,
            "gpu_holders": ",".join(sorted(table)),
            "gpu_my_leases": ",".join(sorted(v.get("role", k) for k, v in mine.items())),
        }
        if self.last is not None:
            out["gpu_admission"] = "admitted" if self.last.admitted else "refused"
            out["gpu_admission_reason"] = self.last.reason
        if device:
            try:
                free, total = self.probe(device)
                out["gpu_free_mb"], out["gpu_total_mb"] = free >> 20, total >> 20
            except Exception as exc:  # noqa: BLE001 - reported, not fatal
                out["gpu_free_mb"] = f"unavailable: {exc}"
        return out
