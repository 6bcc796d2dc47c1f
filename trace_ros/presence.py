"""Which running query nodes serve a ledger, known at once: no DDS listening window.

A query node that serves ``memory/query`` for a ledger keeps a small *presence record*
for as long as its service is up: written when it activates, its heartbeat time refreshed
on a timer, removed when it deactivates or shuts down. ``trace-ros query`` reads the
records of its ledger (a directory listing and a few small JSON files: well under a
millisecond) and so knows at once whether a live node serves that ledger, under which
namespace, on which ROS domain and with which service name; then it waits only for that
service to be discovered, or answers in its own process straight away.

Where the records live (``presence_dir``):

- a SQLite ledger: the folder ``<ledger file>.nodes/`` beside the file (as SQLite keeps
  its ``-wal`` and ``-shm`` files), so every user of that file on the host sees them;
- a PostgreSQL ledger: a per-user folder of this host (``<tmp>/trace_ros-<uid>/nodes/``,
  one subfolder per ledger identity). A fleet's database is shared by hosts whose query
  nodes a command can reach over DDS only if the network lets it; this host's own nodes
  are the ones it can vouch for. A node on another host is still asked with
  ``--via ros``, which looks for it over DDS as before.

A record is live while its heartbeat is younger than ``STALE_BEATS`` periods and, on this
host, while its process exists and is the same process (its start time is recorded, so a
reused PID does not count). A record of a dead process of this host is removed by the
reader that finds it. Nothing here imports rclpy: the node passes its names in.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from .storage.url import LedgerURL

STALE_BEATS = 3  # a record is stale after this many missed heartbeats
SCHEMA = 1


def ledger_identity(url: LedgerURL) -> str:
    """One string per ledger, the same for every process that opens it: a SQLite file's
    real path (symlinks resolved), or a PostgreSQL database with the role that uses it
    (another role may be confined to other subjects, so it is another view of the data).
    No password."""
    if url.path is not None:
        return f"sqlite://{url.path.expanduser().resolve()}"
    socket_dir = dict(url.options).get("host", "")
    where = f"{url.host}:{url.port}" if url.host else f"[{socket_dir}]"
    return f"postgresql://{url.user}@{where}/{url.database}"


def presence_dir(url: LedgerURL) -> Path:
    """Where the presence records of the ledger ``url`` live (see the module docstring)."""
    if url.path is not None:
        path = url.path.expanduser().resolve()
        return path.with_name(path.name + ".nodes")
    import tempfile
    from hashlib import sha256

    key = sha256(ledger_identity(url).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"trace_ros-{os.getuid()}" / "nodes" / key


@dataclass(frozen=True)
class Presence:
    """One node's record: who serves the ledger ``ledger`` (``ledger_identity``), where."""

    ledger: str
    node: str  # fully qualified node name, e.g. /robot1/query_node
    namespace: str  # e.g. /robot1 (/ at the root)
    service: str  # fully qualified service name, e.g. /robot1/memory/query
    domain_id: int  # ROS_DOMAIN_ID of the node's context
    host: str
    pid: int
    pid_start: float | None  # the process's start time (None: unknown)
    period_s: float  # heartbeat period
    started_at: float  # wall clock, seconds
    beat_at: float  # wall clock of the last heartbeat
    schema: int = SCHEMA
    # The node's Unix socket on its host (trace_ros.nodeask), "" for none: a command of
    # this host asks there first. Older records and readers simply lack or skip it.
    socket: str = ""

    def age_s(self, now: float) -> float:
        return max(0.0, now - self.beat_at)

    def stale_after_s(self) -> float:
        return STALE_BEATS * self.period_s

    @classmethod
    def from_json(cls, text: str) -> Presence:
        """Raises ``ValueError`` (or ``KeyError``/``TypeError``) for a record it cannot read."""
        data: dict[str, Any] = json.loads(text)
        if data.get("schema") != SCHEMA:
            raise ValueError(f"presence record schema {data.get('schema')!r}")
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in names})


def _process_start(pid: int) -> float | None:
    from .admission import process_start_time

    return process_start_time(pid)


def is_live(record: Presence, now: float, host: str | None = None,
            process_start: Callable[[int], float | None] = _process_start) -> bool:
    """Heartbeat fresh and, on this host (``host``, default ours), the same process alive."""
    if record.age_s(now) > record.stale_after_s():
        return False
    if record.host != (host or socket.gethostname()):
        return True  # its process cannot be looked at from here: the heartbeat decides
    started = process_start(record.pid)
    if started is None:
        return False
    return not (record.pid_start is not None and started >= 0
                and abs(started - record.pid_start) > 1.0)


def live_nodes(url: LedgerURL, now: float | None = None) -> list[Presence]:
    """The live presence records of the ledger ``url``, freshest heartbeat first. Records
    of dead processes of this host are removed; unreadable or stale ones are skipped."""
    folder = presence_dir(url)
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        return []  # no folder: no node ever announced itself for this ledger here
    now = time.time() if now is None else now
    identity = ledger_identity(url)
    host = socket.gethostname()
    out = []
    for name in names:
        path = folder / name
        try:
            record = Presence.from_json(path.read_text())
        except (OSError, ValueError, KeyError, TypeError):
            continue  # being replaced, or not ours to read: skip it
        if record.ledger != identity:
            continue
        if is_live(record, now, host):
            out.append(record)
        elif record.host == host and record.age_s(now) > record.stale_after_s() \
                and _process_start(record.pid) is None:
            with contextlib.suppress(OSError):
                path.unlink()  # a node that died without removing its record
            if record.socket and Path(record.socket) == _socket_path(path):
                with contextlib.suppress(OSError):
                    Path(record.socket).unlink()  # and its socket file
    return sorted(out, key=lambda r: -r.beat_at)


def _socket_path(record_path: Path) -> Path:
    from .nodeask import socket_path_for

    return socket_path_for(record_path)


class Announcer:
    """Keeps one node's presence record: ``announce`` (on activate), ``beat`` (on a timer
    every ``period_s``), ``withdraw`` (on deactivate or shutdown). Raises ``OSError`` when
    the record cannot be written (the node logs it and serves anyway)."""

    def __init__(self, url: LedgerURL, *, node: str, namespace: str, service: str,
                 domain_id: int, period_s: float,
                 clock: Callable[[], float] = time.time) -> None:
        self.folder = presence_dir(url)
        self.clock = clock
        pid = os.getpid()
        now = clock()
        self.record = Presence(
            ledger=ledger_identity(url), node=node, namespace=namespace, service=service,
            domain_id=int(domain_id), host=socket.gethostname(), pid=pid,
            pid_start=_process_start(pid), period_s=float(period_s), started_at=now,
            beat_at=now)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", node.strip("/")) or "node"
        self.path = self.folder / f"{self.record.host}.{pid}.{safe}.json"
        self.announced = False

    def socket_path(self) -> Path:
        """Where this node's Unix socket goes (``nodeask.socket_path_for``)."""
        return _socket_path(self.path)

    def offer_socket(self, path: Path) -> None:
        """Name the node's Unix socket in the record (from the next write on)."""
        self.record = replace(self.record, socket=str(path))

    def announce(self) -> Path:
        """Write the record; its path."""
        self.announced = True
        self.beat()
        return self.path

    def beat(self) -> None:
        """Refresh the heartbeat time (an atomic replace: a reader never sees half a file)."""
        if not self.announced:
            return
        self.record = replace(self.record, beat_at=self.clock())
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        text = json.dumps(asdict(self.record), sort_keys=True)
        try:
            tmp.write_text(text)
        except FileNotFoundError:  # the folder was removed under a running node
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text)
        os.replace(tmp, self.path)

    def withdraw(self) -> None:
        """Remove the record (idempotent; the folder is left for the next node)."""
        self.announced = False
        with contextlib.suppress(OSError):
            self.path.unlink()

