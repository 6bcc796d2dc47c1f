"""Capture benchmark: acknowledged-durable events/s and publish->Ack latency over real topics.

    trace-ros bench capture [--seconds 20] [--window 32] [--rate 0] [--batch 32]
                            [--batch-window 2] [--json] [--db PATH]

Starts memory_node (a child process) on a fresh ledger and publishes mixed
dialogue and perception events from this process at full speed for ``--seconds``,
one event per message (memory/dialogue, memory/perception), with at most
``--window`` events unacknowledged; each event is timed from just before
``publish`` to its Ack (sent by the node after the group commit). Once the node is
saturated, a bigger window adds only queueing (Little's law: latency ~ window /
throughput), so the window is part of every result. ``--rate R`` adds a phase paced
at R events/s. ``--batch N`` (0: none) adds a phase of the same events sent N to an
EventBatch message (memory/events), at most ``--batch-window`` messages
unacknowledged, each event timed from its batch's ``publish`` to the AckBatch: its
figures are reported apart, under ``batched``, never mixed with the per-event ones.
After the run the ledger must hold exactly the accepted events, and pass ``PRAGMA
integrity_check``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cliargs import (
    ArgParser,
    add_ledger_url,
    ledger_file,
    non_negative_float,
    positive_float,
    positive_int,
)
from .metrics import percentile

SUBJECTS = [f"person-{i}" for i in range(8)]
TEXTS = ["Please remind me to water the plants at six.", "I left my keys next to the sink.",
         "The delivery should arrive before noon tomorrow.", "Can you bring me a glass of water?"]
LABELS = ["red mug", "keys", "parcel", "plant", "glass of water"]


# Events of one shape (modality, subject, text or label, pose) repeat every SHAPES events;
# numbers and sessions are written with a fixed width, so a shape's bytes differ only there.
SHAPES = 120
DIGITS, SESSION_DIGITS = 10, 6
_STAMP = struct.Struct("<iI")  # header.stamp, the first field after the encapsulation


@dataclass(frozen=True)
class _Shape:
    """One shape's serialized event, and where its number and session are written."""

    raw: bytes
    numbers: tuple[int, ...]
    session: int
    perception: bool
    stamps: tuple[int, ...]  # header.stamp, and the pose's (the same Time in ``message``)

    @staticmethod
    def of(raw: bytes, i: int, perception: bool) -> _Shape:
        number = f"{i:0{DIGITS}d}".encode()
        session = f"s{i // 500:0{SESSION_DIGITS}d}".encode()
        # The number ends the source ID and the text or description (each once).
        numbers = _offsets(raw, number)
        stamps = _offsets(raw, raw[4:4 + _STAMP.size])
        found = raw.find(struct.pack("<I", len(session) + 1) + session + b"\x00")
        if len(numbers) != 2 or found < 0 or stamps[0] != 4 or len(stamps) > 1 + perception:
            raise ValueError("a bench event's number or session is not where it should be")
        return _Shape(raw, tuple(numbers), found + 5, perception, tuple(stamps))

    def fill(self, i: int, sec: int, nanosec: int) -> bytes:
        out = bytearray(self.raw)
        number = b"%0*d" % (DIGITS, i)
        for at in self.numbers:
            out[at:at + DIGITS] = number
        out[self.session:self.session + SESSION_DIGITS] = b"%0*d" % (SESSION_DIGITS, i // 500)
        for at in self.stamps:
            _STAMP.pack_into(out, at, sec, nanosec)
        return bytes(out)


def _offsets(raw: bytes, part: bytes) -> list[int]:
    found, at = [], raw.find(part)
    while at >= 0:
        found.append(at)
        at = raw.find(part, at + len(part))
    return found


@dataclass
class RunStats:
    window: int
    rate: float
    batch: int = 0  # events per message of a batched phase (0: one per message)
    seconds: float = 0.0
    published: int = 0
    statuses: Counter = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    missing: int = 0
    # CPU seconds spent in the run by memory_node and by this (publishing) process: the
    # cost per event, which other work on the same cores leaves nearly unchanged.
    cpu_s: dict[str, float] = field(default_factory=dict)
    # memory_node's threads by role (``thread_usage``): CPU seconds and context switches.
    threads: dict[str, tuple[float, int]] = field(default_factory=dict)

    @property
    def accepted(self) -> int:
        return self.statuses["accepted"]

    def percentile(self, q: float) -> float:
        value = percentile(self.latencies_ms, q)
        return float("nan") if value is None else value

    def summary(self) -> dict[str, Any]:
        batched = {"events_per_message": self.batch, "messages_per_s": round(
            self.published / self.batch / self.seconds, 1) if self.seconds else 0.0} \
            if self.batch else {}
        return batched | {
            "events_per_s": round(self.accepted / self.seconds, 1) if self.seconds else 0.0,
            "ack_latency_ms": {f"p{q}": round(self.percentile(q), 2) for q in (50, 95, 99)}
            | {"max": round(max(self.latencies_ms, default=float("nan")), 2)},
            "window": self.window, "rate": self.rate, "seconds": round(self.seconds, 2),
            "published": self.published, "accepted": self.accepted,
            "duplicate": self.statuses["duplicate"], "rejected": self.statuses["rejected"],
            "missing": self.missing,
            "cpu_us_per_event": {k: round(v / self.accepted * 1e6, 1) if self.accepted else 0.0
                                 for k, v in self.cpu_s.items()},
            "node_threads": {role: {"cpu_us_per_event": round(cpu / self.accepted * 1e6, 1),
                                    "switches_per_event": round(n / self.accepted, 2)}
                             for role, (cpu, n) in sorted(self.threads.items())
                             if self.accepted},
        }


class Streamer:
    """Publishes events with a bounded number in flight and times their Acks."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.count = 0
        self.sent: dict[str, float] = {}
        self.cond = threading.Condition()
        self.stats: RunStats | None = None
        self.last_ack = 0.0
        self._templates: tuple[Any, Any] | None = None
        self._shapes: dict[int, _Shape] = {}

    def on_ack(self, ack: Any) -> None:
        """``ack``: an Ack, or its bytes (a client with ``raw_acks``)."""
        now = time.perf_counter()
        if isinstance(ack, bytes):
            from trace_ros.nodes.client import read_ack

            ack = read_ack(ack)
        with self.cond:
            sent = self.sent.pop(ack.source_id, None)
            if sent is not None and self.stats is not None:
                self.stats.latencies_ms.append((now - sent) * 1000.0)
                self.stats.statuses[ack.status] += 1
                self.last_ack = now
            self.cond.notify_all()

    def on_ack_batch(self, raw: bytes) -> None:
        """An AckBatch's bytes: every event of its batch timed to now."""
        now = time.perf_counter()
        from trace_ros.nodes.client import read_ack_batch

        batch = read_ack_batch(raw)
        with self.cond:
            sent = self.sent.pop(batch.header.frame_id, None)
            if sent is not None and self.stats is not None:
                ms = (now - sent) * 1000.0
                self.stats.latencies_ms += [ms] * len(batch.acks)
                self.stats.statuses.update(ack.status for ack in batch.acks)
                self.last_ack = now
            self.cond.notify_all()

    @staticmethod
    def _new_templates() -> tuple[Any, Any]:
        from trace_ros.nodes.client import make_dialogue, make_perception

        return (make_dialogue(SUBJECTS[0], "", speaker=SUBJECTS[0]),
                make_perception(SUBJECTS[0], LABELS[0], "", actor="bench/detector",
                                confidence=0.9, frame_id="map", xyz=(0.0, 0.0, 0.0)))

    def message_bytes(self) -> tuple[str, bytes, bool]:
        """The next event serialized, as (source ID, bytes, is perception): the bytes
        ``message`` would give, written into the serialized template of its shape (the
        event's number, session and stamp in place; every number has the same width).
        An honest, cheaper load: building and converting a message object per event cost
        this process ~45 us of CPU an event (on the cores the node runs on), its bytes
        ~5, and the node receives the same bytes either way."""
        i = self.count
        shape = self._shapes.get(i % SHAPES)
        if shape is None:
            from trace_ros.msg import PerceptionEvent
            from trace_ros.nodes import cdr

            msg = self.message()
            raw = cdr.encode(type(msg), msg)
            self._shapes[i % SHAPES] = _Shape.of(raw, i, isinstance(msg, PerceptionEvent))
            return msg.source_id, raw, isinstance(msg, PerceptionEvent)
        self.count += 1
        stamp = time.time()
        return (f"bench-{self.run_id}-{i:0{DIGITS}d}",
                shape.fill(i, int(stamp), int((stamp % 1.0) * 1e9)), shape.perception)

    def message(self, templates: tuple[Any, Any] | None = None) -> Any:
        """The next event. Two message objects are reused (publish copies them), so
        the publisher spends its time publishing rather than building messages;
        ``templates``: another two (a batch needs one pair per element)."""
        if templates is None:
            if self._templates is None:
                self._templates = self._new_templates()
            templates = self._templates
        i = self.count
        self.count += 1
        subject = SUBJECTS[i % len(SUBJECTS)]
        perception = i % 3 == 2
        msg = templates[1 if perception else 0]
        msg.source_id = f"bench-{self.run_id}-{i:0{DIGITS}d}"
        msg.scope.subject_id = subject
        msg.scope.session_id = f"s{i // 500:0{SESSION_DIGITS}d}"
        stamp = time.time()
        msg.header.stamp.sec = int(stamp)
        msg.header.stamp.nanosec = int((stamp % 1.0) * 1e9)
        if perception:
            msg.label = LABELS[i % len(LABELS)]
            msg.description = f"seen on pass {i:0{DIGITS}d}"
            msg.pose.pose.position.x = float(i % 10)
        else:
            msg.speaker = subject
            msg.text = f"{TEXTS[i % len(TEXTS)]} (#{i:0{DIGITS}d})"
        return msg

    def run(self, client: Any, seconds: float, window: int, rate: float,
            progress: Any = None, drain_s: float = 15.0) -> RunStats:
        stats = RunStats(window, rate)
        with self.cond:
            self.stats = stats
        start = time.perf_counter()
        end = start + seconds
        interval = 1.0 / rate if rate > 0 else 0.0
        next_at = start
        while True:
            now = time.perf_counter()
            if now >= end:
                break
            with self.cond:
                if len(self.sent) >= window:
                    self.cond.wait(0.05)
                    continue
            if interval and now < next_at:
                time.sleep(min(next_at - now, 0.002))
                continue
            source_id, raw, perception = self.message_bytes()
            with self.cond:
                self.sent[source_id] = time.perf_counter()
            (client.perception_pub if perception else client.dialogue_pub).publish(raw)
            stats.published += 1
            next_at += interval
            if progress is not None and stats.published % 200 == 0:
                progress(stats)
        with self.cond:
            self.cond.wait_for(lambda: not self.sent, timeout=drain_s)
            stats.missing = len(self.sent)
            self.sent.clear()
            self.stats = None
            # Acknowledged-durable throughput: accepted Acks over the time to the last Ack.
            stats.seconds = max(self.last_ack, end if stats.missing else 0.0) - start
        return stats


    def run_batched(self, client: Any, seconds: float, batch: int, window: int,
                    progress: Any = None, drain_s: float = 15.0) -> RunStats:
        """Full speed, ``batch`` events per EventBatch, at most ``window`` batches
        unacknowledged; each event's latency is its batch's publish -> AckBatch."""
        from trace_ros.nodes.client import make_batch

        stats = RunStats(window, 0.0, batch)
        pool = [self._new_templates() for _ in range(batch)]
        with self.cond:
            self.stats = stats
        start = time.perf_counter()
        end = start + seconds
        n = 0
        while time.perf_counter() < end:
            with self.cond:
                if len(self.sent) >= window:
                    self.cond.wait(0.05)
                    continue
            n += 1
            key = f"batch-{self.run_id}-{n}"
            msg = make_batch([self.message(templates) for templates in pool], frame_id=key)
            with self.cond:
                self.sent[key] = time.perf_counter()
            client.publish_batch(msg)
            stats.published += batch
            if progress is not None and n % 10 == 0:
                progress(stats)
        with self.cond:
            self.cond.wait_for(lambda: not self.sent, timeout=drain_s)
            stats.missing = len(self.sent) * batch
            self.sent.clear()
            self.stats = None
            stats.seconds = max(self.last_ack, end if stats.missing else 0.0) - start
        return stats


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = ArgParser(prog="trace-ros bench capture",
                       description=__doc__.split("\n\n")[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=__doc__.split("\n\n", 2)[2])
    parser.add_argument("--seconds", type=positive_float, default=20.0,
                        help="duration of the full-speed run (default 20)")
    parser.add_argument("--window", type=positive_int, default=32,
                        help="max unacknowledged events in flight (default 32)")
    parser.add_argument("--rate", type=non_negative_float, default=0.0,
                        help="also run a phase paced at this many events/s (default: no)")
    parser.add_argument("--batch", type=int, default=32, metavar="N",
                        help="also run a phase of N events per EventBatch message, reported "
                             "apart under 'batched' (default 32; 0: no such phase)")
    parser.add_argument("--batch-window", type=positive_int, default=2, metavar="M",
                        help="max unacknowledged EventBatch messages (default 2)")
    parser.add_argument("--db", help="ledger file (default: a fresh temporary one)")
    add_ledger_url(parser)
    parser.add_argument("--params", type=Path, help="ROS parameter file for memory_node")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY:=VALUE",
                        help="memory_node parameter override (repeatable)")
    parser.add_argument("--json", action="store_true",
                        help="print the results as one JSON object on the last line")
    args = parser.parse_args(argv)
    ledger_file(parser, args)
    if args.window < 1 or args.seconds <= 0 or args.rate < 0 or args.batch < 0:
        parser.error("--window must be >= 1, --seconds > 0, --rate >= 0, --batch >= 0")
    if any(":=" not in item for item in args.param):
        parser.error("-p/--param takes KEY:=VALUE")
    return args


def node_settings(params: Path, overrides: list[str]) -> dict[str, Any]:
    """The memory_node settings that shape capture cost, as the node will read them."""
    from trace_ros.config import load_config, read_params_file

    flat = read_params_file(params, "memory_node")
    given = dict(item.split(":=", 1) for item in overrides)
    engine = {k: v for k, v in given.items() if "." in k}
    cfg = load_config(params, "memory_node", engine)
    return {"group_commit_ms": cfg.capture.group_commit_ms,
            "group_commit_idle_ms": cfg.capture.group_commit_idle_ms,
            "max_batch": cfg.capture.max_batch,
            "synchronous": cfg.ledger.synchronous,
            "executor": given.get("executor", flat.get("executor", "events"))}


def cpu_seconds(node_pid: int) -> dict[str, float]:
    """User + system CPU seconds so far of memory_node and of this process."""
    import psutil

    def used(pid: int | None) -> float:
        times = psutil.Process(pid).cpu_times()
        return float(times.user + times.system)

    return {"node": used(node_pid), "publisher": used(None)}


def thread_usage(pid: int) -> dict[str, tuple[float, int]]:
    """(CPU seconds, context switches) so far of the threads of process ``pid``, summed by
    role: ``executor`` (the main thread, which spins the node), the capture writer's
    ``writer``, ``answers`` and ``ckpt`` (the WAL checkpoints; named by
    ``capture.os_thread_name``),
    ``dds`` (the middleware's threads, ``dds.*``) and ``other``. Read from Linux's
    ``/proc``; empty where there is none."""
    from trace_ros.capture import OS_THREAD_PREFIX

    usage: dict[str, tuple[float, int]] = {}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return usage
    for tid in tids:
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
            status = Path(f"/proc/{pid}/task/{tid}/status").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
        switches = sum(int(line.split()[1]) for line in status.splitlines()
                       if line.startswith(("voluntary_ctxt_switches",
                                           "nonvoluntary_ctxt_switches")))
        role = ("executor" if int(tid) == pid else name[len(OS_THREAD_PREFIX):]
                if name.startswith(OS_THREAD_PREFIX) else "dds" if name.startswith("dds.")
                else "other")
        seconds, count = usage.get(role, (0.0, 0))
        usage[role] = (seconds + cpu, count + switches)
    return usage


def _table(results: dict[str, RunStats], caption: str) -> Any:
    from rich.table import Table

    table = Table(title="trace_ros capture: memory_node over ROS 2 topics", caption=caption)
    table.add_column("")
    for name in results:
        table.add_column(name, justify="right")
    rows: list[tuple[str, Any]] = [
        ("events per message", lambda st: st.batch or 1),
        ("window (max in flight)",
         lambda st: f"{st.window} messages" if st.batch else st.window),
        ("offered rate", lambda st: f"{st.rate:g}/s" if st.rate else "full speed"),
        ("duration s", lambda st: f"{st.seconds:.1f}"),
        ("published", lambda st: st.published),
        ("acked accepted", lambda st: st.accepted),
        ("acked duplicate", lambda st: st.statuses["duplicate"]),
        ("acked rejected", lambda st: st.statuses["rejected"]),
        ("no ack (missing)", lambda st: st.missing),
        ("durable events/s", lambda st: f"{st.summary()['events_per_s']:.0f}"),
        ("messages/s", lambda st: f"{st.summary().get('messages_per_s', st.summary()['events_per_s']):.0f}"),
        ("ack latency p50 ms", lambda st: f"{st.percentile(50):.1f}"),
        ("ack latency p95 ms", lambda st: f"{st.percentile(95):.1f}"),
        ("ack latency p99 ms", lambda st: f"{st.percentile(99):.1f}"),
        ("ack latency max ms", lambda st: f"{max(st.latencies_ms, default=float('nan')):.1f}"),
        ("node CPU µs/event", lambda st: st.summary()["cpu_us_per_event"].get("node", "-")),
        ("publisher CPU µs/event",
         lambda st: st.summary()["cpu_us_per_event"].get("publisher", "-")),
    ]
    for label, cell in rows:
        table.add_row(label, *(str(cell(st)) for st in results.values()))
    return table


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    from rich.console import Console
    from rich.progress import Progress

    from trace_ros.ledger import Ledger
    from trace_ros.nodes import bringup
    from trace_ros.nodes.client import MemoryClient

    console, progress_console = Console(), Console(stderr=True)
    tmp = None if args.db else tempfile.mkdtemp(prefix="trace_ros_bench_")
    db = Path(args.db or Path(tmp or ".") / "capture.db").expanduser().resolve()
    params = args.params or bringup.default_params_file()
    settings = node_settings(params, args.param)
    procs = bringup.start(["memory_node"], params,
                          bringup.overrides_for(str(db), args.param), log_level="warn")
    streamer = Streamer(f"{os.getpid()}-{int(time.time())}")
    load_before = os.getloadavg()  # other work on these cores shapes every figure
    results: dict[str, RunStats] = {}
    warmup = RunStats(0, 0.0)
    try:
        with MemoryClient("bench_capture", on_ack=streamer.on_ack, keep_acks=False,
                          raw_acks=True, on_ack_batch=streamer.on_ack_batch) as client:
            if not client.wait_ready(30.0, batch=args.batch > 0):
                progress_console.print("[red]memory_node did not come up within 30 s[/red]")
                return 1
            warmup = streamer.run(client, 1.0, args.window, 0.0)  # not reported
            phases = [("full speed", 0.0)] + ([(f"paced {args.rate:g}/s", args.rate)]
                                               if args.rate else []) \
                + ([(f"batched {args.batch}/message", -1.0)] if args.batch else [])
            with Progress(console=progress_console, transient=True) as progress:
                for name, rate in phases:
                    task = progress.add_task(name, total=args.seconds)
                    t0 = time.perf_counter()

                    def update(st: RunStats, task: Any = task, t0: float = t0,
                               name: str = name) -> None:
                        progress.update(task, completed=time.perf_counter() - t0,
                                        description=f"{name}: {st.accepted} acked")

                    cpu = cpu_seconds(procs[0].pid)
                    threads = thread_usage(procs[0].pid)
                    results[name] = (
                        streamer.run_batched(client, args.seconds, args.batch,
                                             args.batch_window, update) if rate < 0 else
                        streamer.run(client, args.seconds, args.window, rate, update))
                    results[name].cpu_s = {k: v - cpu[k] for k, v in
                                           cpu_seconds(procs[0].pid).items()}
                    results[name].threads = {
                        role: (seconds - threads.get(role, (0.0, 0))[0],
                               count - threads.get(role, (0.0, 0))[1])
                        for role, (seconds, count) in thread_usage(procs[0].pid).items()}
    finally:
        bringup.stop(procs)
    with Ledger(db) as ledger:
        stored = ledger.count_sources()
        integrity = ledger.integrity_check()
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    # Every event has its own ID, so the ledger must hold exactly the accepted ones.
    expected = warmup.accepted + sum(st.accepted for st in results.values())
    ok = (integrity == "ok" and stored == expected
          and all(st.missing == 0 and st.accepted == st.published
                  for st in [warmup, *results.values()]))
    caption = (f"ledger holds {stored} sources, accepted acks (incl. {warmup.accepted} warm-up) "
               f"{expected}: {'match' if stored == expected else 'MISMATCH'}; integrity "
               f"{integrity}; " + ", ".join(f"{k}={v}" for k, v in settings.items()))
    console.print(_table(results, caption))
    summary = results["full speed"].summary() | {
        "paced": {k: v.summary() for k, v in results.items()
                  if k != "full speed" and not v.batch},
        "batched": next((v.summary() for v in results.values() if v.batch), None),
        "stored": stored, "expected": expected, "integrity": integrity,
        "settings": settings, "ok": ok,
        "load_average": {"before": [round(x, 2) for x in load_before],
                         "after": [round(x, 2) for x in os.getloadavg()]}}
    if args.json:
        print(json.dumps(summary))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
