"""GPU admission control: a model may use the device only when it is admitted.

Free device memory minus a reserve must cover the model's need, counting
leases that other processes were granted but have not yet filled (their
memory is not visible to the probe yet). Leases live in a small JSON file
guarded by ``flock`` beside the ledger, so the nodes of one robot share it.
The probe that reads free memory is injectable: tests simulate a full or an
empty device without one.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

MemoryProbe = Callable[[str], tuple[int, int]]  # device -> (free_bytes, total_bytes)


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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Admission:
    def __init__(self, lease_path: str | Path, reserve_bytes: int,
                 probe: MemoryProbe = cuda_probe) -> None:
        self.lease_path = Path(lease_path)
        self.reserve_bytes = reserve_bytes
        self.probe = probe

    @contextmanager
    def _table(self) -> Iterator[dict[str, dict]]:
        self.lease_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lease_path, "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                fh.seek(0)
                text = fh.read()
                table: dict[str, dict] = json.loads(text) if text.strip() else {}
                # Leases of processes that died are void.
                table = {k: v for k, v in table.items() if _alive(int(v.get("pid", 0)))}
                yield table
                fh.seek(0)
                fh.truncate()
                fh.write(json.dumps(table, sort_keys=True))
                fh.flush()
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def request(self, holder: str, need_bytes: int, device: str) -> Decision:
        """Grant ``holder`` a lease of ``need_bytes`` on ``device`` if it fits."""
        with self._table() as table:
            free, _total = self.probe(device)
            pending = sum(int(v["bytes"]) for k, v in table.items()
                          if k != holder and v["device"] == device and not v.get("loaded"))
            available = free - self.reserve_bytes - pending
            if need_bytes > available:
                return Decision(False, device, need_bytes, free, pending,
                                f"needs {need_bytes >> 20} MiB, {max(0, available) >> 20} MiB "
                                f"available after a {self.reserve_bytes >> 20} MiB reserve and "
                                f"{pending >> 20} MiB leased to others")
            table[holder] = {"bytes": int(need_bytes), "device": device, "pid": os.getpid(),
                             "loaded": False}
            return Decision(True, device, need_bytes, free, pending, "admitted")

    def mark_loaded(self, holder: str) -> None:
        """The holder's memory is now allocated (and visible to the probe)."""
        with self._table() as table:
            if holder in table:
                table[holder]["loaded"] = True

    def release(self, holder: str) -> None:
        with self._table() as table:
            table.pop(holder, None)

    def leases(self) -> dict[str, dict]:
        with self._table() as table:
            return dict(table)
