"""Where memory_node's CPU per event goes, stage by stage, in process (no DDS).

    PYTHONPATH=. python tools/capture_stages.py [--events N] [--group G] [--json]

Runs the node's own functions over the bench's events (``bench capture``'s bytes, one
event a message, a third of them perception) and prints the CPU (``time.thread_time``)
each stage takes per event: decode (``convert.read_event``), the Event, ``prepare``
(validation, ID, content hash), the hand-off to the writer's queue, the commit
(``store_sources`` in groups of G, not durable), the sync (``Ledger.sync``, one per
group) and the Ack's bytes. What this leaves out, the DDS take and the executor's
dispatch before the decode, and the Ack's publish after its bytes, is the rest of
``bench capture``'s ``cpu_us_per_event.node`` (its per-thread split: ``/proc/PID/task``).
Figures move with the load on the machine: compare in alternating runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def stages(events: int = 6000, group: int = 32, folder: Path | None = None) -> dict[str, float]:
    """CPU microseconds per event of each stage (and ``total``) over ``events`` events."""
    from trace_ros.msg import DialogueEvent, PerceptionEvent

    from trace_ros.bench.capture import Streamer
    from trace_ros.capture import GroupCommitWriter, prepare
    from trace_ros.config import CaptureConfig
    from trace_ros.ledger import Ledger, StoreResult
    from trace_ros.nodes import convert

    streamer = Streamer("stages")
    for _ in range(200):  # every shape's template once (the first of each is built apart)
        streamer.message_bytes()
    raws = [streamer.message_bytes() for _ in range(events)]
    kinds = {
        False: (DialogueEvent, convert.dialogue_to_event),
        True: (PerceptionEvent, convert.perception_to_event),
    }
    cpu: dict[str, float] = {}

    def timed(name: str, work: Callable[[], Any]) -> Any:
        started = time.thread_time()
        out = work()
        cpu[name] = (time.thread_time() - started) / events * 1e6
        return out

    msgs = timed("decode", lambda: [convert.read_event(raw, kinds[p][0])[0] for _, raw, p in raws])
    evs = timed("event", lambda: [kinds[p][1](m) for (_, _, p), m in zip(raws, msgs, strict=True)])
    config = CaptureConfig()
    items = timed("prepare", lambda: [prepare(e, config, None) for e in evs])
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        ledger = Ledger(Path(tmp) / "stages.db")  # synchronous FULL: sync fsyncs
        try:
            # The hand-off to a writer's queue (its own ledger: its commits are not timed).
            with Ledger(Path(tmp) / "queue.db") as queued:
                writer = GroupCommitWriter(queued, CaptureConfig(queue_depth=events + 1))
                timed("enqueue", lambda: [writer._enqueue(item, _ignore) for item in items])
                writer.close()
            now = time.time()
            groups = [items[i : i + group] for i in range(0, len(items), group)]
            started, synced = time.thread_time(), 0.0
            for part in groups:
                ledger.store_sources(part, now=now, durable=False)
                before = time.thread_time()
                ledger.sync()
                synced += time.thread_time() - before
            cpu["commit"] = (time.thread_time() - started - synced) / events * 1e6
            cpu["sync"] = synced / events * 1e6
        finally:
            ledger.close()
    result = StoreResult("bench-stages-0000000001", "accepted", sequence=1)
    timed("ack_bytes", lambda: [convert.result_to_ack_bytes(result, m.header) for m in msgs])
    cpu = {name: round(value, 2) for name, value in cpu.items()}
    cpu["total"] = round(sum(cpu.values()), 2)
    return cpu


def _ignore(_: Any) -> None:
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=6000)
    parser.add_argument("--group", type=int, default=32, help="events per commit (default 32)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    cpu = stages(max(1, args.events), max(1, args.group))
    if args.json:
        print(json.dumps(cpu))
    else:
        for name, value in cpu.items():
            print(f"{name:10s} {value:8.2f} us/event")
    return 0


if __name__ == "__main__":
    sys.exit(main())
