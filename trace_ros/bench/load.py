"""Load benchmark: steady capture and queries over ROS at the same time.

    trace-ros bench load [--seconds 60] [--rate 500] [--qps 20] [--json] [--db PATH]

Starts the three nodes on a fresh ledger, publishes ``--rate`` dialogue events/s
for ``--seconds`` while calling /memory/query ``--qps`` times a second (paced,
asynchronous, so a slow answer does not slow the pacing). Reports events
acknowledged and dropped (published but never acknowledged after a grace period),
query latency percentiles, the nodes' resident memory growth from the end of the
warm-up to the end of the run, and how long after the stream stopped the
consolidation backlog took to drain (``jobs_lag_s``). Last line (``--json``):
``{"events_acked", "dropped", "query_ms": {"p50", "p95", "p99"}, "rss_growth_mb",
"jobs_lag_s", ...}``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..cliargs import ArgParser, add_ledger_url, ledger_file, positive_float
from .metrics import percentile
from .summary import print_summary

NODES = ("memory_node", "consolidation_node", "query_node")
QUESTIONS = ("What did I say about the kitchen?", "Where are my keys?",
             "When is the delivery due?", "What should I water?")
TEXTS = ("I left my keys next to the sink.", "Please water the plants at six.",
         "The delivery should arrive before noon tomorrow.", "The kitchen light is broken.")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = ArgParser(prog="trace-ros bench load",
                       description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=positive_float, default=60.0)
    parser.add_argument("--rate", type=positive_float, default=500.0, help="events per second")
    parser.add_argument("--qps", type=positive_float, default=20.0, help="queries per second")
    parser.add_argument("--db", help="ledger file (default: a fresh temporary one)")
    add_ledger_url(parser)
    parser.add_argument("--json", action="store_true", help="JSON summary on the last line")
    args = parser.parse_args(argv)
    ledger_file(parser, args)
    return args


def _rss_mb(pids: list[int]) -> float:
    import psutil

    total = 0
    for pid in pids:
        try:
            total += psutil.Process(pid).memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


def _pace(rate: float, seconds: float, step: Any, stop: threading.Event) -> int:
    """Call ``step(i)`` ``rate`` times a second for ``seconds``; returns the count."""
    period, start, i = 1.0 / rate, time.monotonic(), 0
    while not stop.is_set():
        due = start + i * period
        if due - start >= seconds:
            break
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        step(i)
        i += 1
    return i


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    from trace_ros.ledger import Ledger
    from trace_ros.msg import Scope as ScopeMsg
    from trace_ros.nodes import bringup
    from trace_ros.nodes.client import MemoryClient, make_dialogue
    from trace_ros.srv import Query

    tmp = None if args.db else tempfile.mkdtemp(prefix="trace_ros_load_")
    db = Path(args.db or Path(tmp or ".") / "load.db").expanduser().resolve()
    procs = bringup.start(NODES, bringup.default_params_file(),
                          bringup.overrides_for(str(db), []), log_level="error")
    pids = [p.pid for p in procs]
    statuses: Counter = Counter()
    latencies: list[float] = []
    query_status: Counter = Counter()
    lock = threading.Lock()
    summary: dict[str, Any] = {}

    def on_ack(ack: Any) -> None:
        with lock:
            statuses[ack.status] += 1

    try:
        with MemoryClient("bench_load", keep_acks=False, on_ack=on_ack) as client:
            deadline = time.monotonic() + 180.0
            while not client.wait_ready(1.0, capture=True, query=True):
                if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                    print("bench load: the nodes did not come up", file=sys.stderr)
                    return 1
            tag = f"l{os.getpid()}"

            def publish(i: int) -> None:
                client.publish(make_dialogue(f"subject-{i % 8}", f"{TEXTS[i % 4]} (#{i})",
                                             speaker="p", session_id=f"s{i // 5000}",
                                             source_id=f"{tag}-{i}", stamp=1_700_000_000.0 + i))

            def ask(i: int) -> None:
                request = Query.Request(scope=ScopeMsg(subject_id=f"subject-{i % 8}"),
                                        question=QUESTIONS[i % len(QUESTIONS)])
                sent = time.perf_counter()
                future = client.query_client.call_async(request)

                def done(fut: Any) -> None:
                    with lock:
                        latencies.append((time.perf_counter() - sent) * 1000.0)
                        query_status[fut.result().status if fut.result() else "none"] += 1
                future.add_done_callback(done)

            stop = threading.Event()
            _pace(args.rate, 3.0, lambda i: publish(10_000_000 + i), stop)  # warm-up
            ask(0)
            time.sleep(2.0)
            with lock:
                latencies.clear()
                query_status.clear()
                statuses.clear()
            rss_start = _rss_mb(pids)
            asker = threading.Thread(target=lambda: _pace(args.qps, args.seconds, ask, stop),
                                     daemon=True)
            started = time.monotonic()
            asker.start()
            published = _pace(args.rate, args.seconds, publish, stop)
            elapsed = time.monotonic() - started
            asker.join(args.seconds + 5)
            stream_end = time.monotonic()
            grace = time.monotonic() + 30.0
            while time.monotonic() < grace:
                with lock:
                    answered = sum(statuses.values())
                if answered >= published:
                    break
                time.sleep(0.2)
            rss_end = _rss_mb(pids)
            with Ledger(db, create=False) as ledger:
                lag_deadline = stream_end + 600.0
                while time.monotonic() < lag_deadline:
                    jobs = ledger.job_counts()
                    if jobs["pending"] + jobs["running"] == 0:
                        break
                    time.sleep(0.5)
                jobs_lag = time.monotonic() - stream_end
                integrity = ledger.integrity_check()
            with lock:
                acked = statuses["accepted"] + statuses["duplicate"]
                summary = {
                    "seconds": round(elapsed, 2), "rate": args.rate, "qps": args.qps,
                    "events_published": published, "events_acked": acked,
                    "events_per_s": round(acked / elapsed, 1),
                    "dropped": published - acked, "rejected": statuses["rejected"],
                    "queries": len(latencies),
                    "queries_per_s": round(len(latencies) / elapsed, 1),
                    "query_status": dict(query_status),
                    "query_ms": {f"p{q}": round(percentile(latencies, q) or 0.0, 1)
                                 for q in (50, 95, 99)},
                    "rss_start_mb": round(rss_start, 1),
                    "rss_growth_mb": round(rss_end - rss_start, 1),
                    "jobs_lag_s": round(jobs_lag, 1), "jobs": jobs, "integrity": integrity,
                }
    finally:
        bringup.stop(procs, timeout=20.0)
        if tmp and not args.db:
            shutil.rmtree(tmp, ignore_errors=True)
    print_summary(summary, args.json)
    return 0 if summary and summary["dropped"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
