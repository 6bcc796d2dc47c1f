"""Crash-fault benchmark: kill -9 the nodes under a steady event stream, and check.

    trace-ros bench faults [--rounds 12] [--rate 100] [--seed 0] [--json] [--db PATH]

Starts memory_node, consolidation_node and query_node (each in its own process
group) on one ledger and streams dialogue events at ``--rate``/s. Each round kills
one target with SIGKILL at a random moment, in turn: memory_node, consolidation_node,
query_node, consolidation_node while a batch is running, memory_node right after a
forget request was sent, and a ``trace-ros rebuild`` process mid-run. The killed
node is restarted. After every round:

- every acknowledged source is present exactly once (a forget either removed all
  of its subject's earlier sources or none),
- every source has exactly one job, no vector belongs to a missing source,
- ``PRAGMA integrity_check`` is ok, and
- the killed node serves again (an ack, an answer, or a finished batch), and
- no consolidation job was lost or applied twice: with the stream paused until
  consolidation has drained, the ledger is copied (online backup) and the facts,
  provenance, edges, topics and sessions of the copy equal a clean rebuild of it
  (``reset_derived`` and a drain with the node's projector; ``graphcheck``).
  ``--graph-check`` says after which rounds: ``every`` one (the default), those
  that hit ``consolidation`` (a killed node, a killed batch, a killed rebuild;
  each check costs a full reprojection of the copy), or only at the ``end``.

A round survives when all of these hold. At the end the stream stops, every
job must reach ``done`` and the graph must equal a rebuild. The last line
(``--json``) is ``{"rounds", "survived", "acked", "acked_lost", "duplicated",
"facts_vs_rebuild", ...}``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..cliargs import (
    ArgParser,
    add_ledger_url,
    ledger_file,
    non_negative_int,
    positive_float,
    positive_int,
)
from .graphcheck import RebuildCheck, undrained
from .metrics import percentile
from .summary import print_summary

NODES = ("memory_node", "consolidation_node", "query_node")
TARGETS = ("memory_node", "consolidation_node", "query_node", "consolidation_batch",
           "forget", "rebuild")
SERVE_TIMEOUT_S = 120.0
ASK_AGAIN_S = 10.0  # a probe question not answered by then is asked again
DRAIN_TIMEOUT_S = 600.0  # a killed rebuild requeued every job
# A killed worker's jobs wait for their lease to expire; the default (120 s) would
# make every drain after a consolidation fault wait that long.
LEASE_S = 15.0
CONSOLIDATION_FAULTS = ("consolidation_node", "consolidation_batch", "rebuild")
# State-bearing statements whose values change every few events, so the stream
# makes facts, `updates` and `contradicts` edges (order-sensitive projection),
# not only chatter: a lost or doubled job shows in the graph.
STATEMENTS = ("I live in {city} now.", "The {thing} is on the {place}.", "I like {food}.",
              "My dentist appointment is on {day}.", "Steady event number {i} about the kitchen.")
VALUES = {"city": ("Boston", "Seattle", "Denver", "Austin"),
          "thing": ("red mug", "blue cup", "spare keys"),
          "place": ("kitchen table", "sink", "shelf", "desk"),
          "food": ("green tea", "coffee", "pasta"), "day": ("Monday", "Tuesday", "Friday")}


def statement(i: int) -> str:
    """Event ``i``'s text: a template in turn, its values changing every 7 events."""
    return STATEMENTS[i % len(STATEMENTS)].format(
        i=i, **{k: v[(i // 7) % len(v)] for k, v in VALUES.items()})


def shared_subject_events(robots: int, turns: int, session: int) -> list[Any]:
    """Turn n of every robot in turn (a hundredth of a second apart, one second per turn),
    in ONE subject (``site``), each robot in sessions of its own of ``session`` turns: a
    fleet's shared subject, whose robots' sessions overlap in time."""
    from ..capture import Event
    from ..storage.records import Scope

    return [Event("dialogue", Scope("site", f"robot_{r}", f"robot_{r}-s{n // session}"),
                  text=statement(n * robots + r), speaker="staff",
                  stamp=1_790_000_000.0 + n + r * 0.01, source_id=f"e-{r}-{n}")
            for n in range(turns) for r in range(robots)]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = ArgParser(prog="trace-ros bench faults",
                       description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=positive_int, default=12)
    parser.add_argument("--rate", type=positive_float, default=100.0, help="events per second")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--graph-check", choices=("every", "consolidation", "end"),
                        default="every",
                        help="after which rounds the graph is compared with a rebuild "
                             "(always at the end too)")
    parser.add_argument("--db", help="ledger file (default: a fresh temporary one)")
    add_ledger_url(parser)
    parser.add_argument("--json", action="store_true", help="JSON summary on the last line")
    args = parser.parse_args(argv)
    ledger_file(parser, args)
    return args


class Stream:
    """Publishes events at a steady rate from a thread; records what was acknowledged."""

    def __init__(self, client: Any, rate: float, tag: str) -> None:
        self.client, self.rate, self.tag = client, rate, tag
        self.acked: dict[str, str] = {}  # source_id -> subject
        self.sent = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.paused = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def on_ack(self, ack: Any) -> None:
        if ack.status in ("accepted", "duplicate") and ack.source_id.startswith(self.tag):
            with self.lock:
                self.acked[ack.source_id] = ack.source_id.split("/")[1]

    def subject(self, i: int) -> str:
        return f"subject-{i % 4}"

    def _run(self) -> None:
        from trace_ros.nodes.client import make_dialogue

        period = 1.0 / self.rate
        nxt = time.monotonic()
        while not self.stop.is_set():
            if self.paused.is_set():
                time.sleep(0.05)
                nxt = time.monotonic()
                continue
            i = self.sent
            subject = self.forget_subject or self.subject(i)
            self.client.publish(make_dialogue(
                subject, statement(i), speaker="p",
                session_id="faults", source_id=f"{self.tag}/{subject}/{i}",
                stamp=1_700_000_000.0 + i))
            self.sent += 1
            nxt += period
            time.sleep(max(0.0, nxt - time.monotonic()))

    forget_subject = ""

    def snapshot(self) -> dict[str, str]:
        with self.lock:
            return dict(self.acked)


def _wait(predicate: Callable[[], bool], timeout: float, step: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def check_ledger(db: Path, acked: dict[str, str], forgotten: dict[str, set[str]]
                 ) -> dict[str, Any]:
    """Acked sources present exactly once (forget: all-or-none per subject), one job per
    source, no orphan vector, integrity ok."""
    from trace_ros.ledger import Ledger

    with Ledger(db, create=False) as ledger:
        counts = ledger.source_counts()
        orphans = ledger.orphans()
        integrity = ledger.integrity_check()
    # A forgotten subject's sources are checked by the all-or-none rule instead.
    lost = [sid for sid, subject in acked.items()
            if sid not in counts and subject not in forgotten]
    partial = [subj for subj, ids in forgotten.items()
               if 0 < sum(sid in counts for sid in ids) < len(ids)]
    return {"acked_lost": len(lost), "lost_examples": lost[:5],
            "duplicated": sum(n > 1 for n in counts.values()), **orphans, "integrity": integrity,
            "forget_partial": partial}


class Harness:
    def __init__(self, db: Path, rng: random.Random) -> None:
        from trace_ros.nodes import bringup

        self.bringup = bringup
        self.db, self.rng = db, rng
        self.params = bringup.default_params_file()
        self.overrides = bringup.overrides_for(str(db), ["consolidation.period_s:=0.2",
                                                         f"consolidation.lease_s:={LEASE_S}"])
        # The same lease for a `trace-ros rebuild` killed mid-run.
        self.rebuild_params = db.with_name(db.name + ".rebuild.yaml")
        self.rebuild_params.write_text(json.dumps(
            {"/**": {"ros__parameters": {"consolidation": {"lease_s": LEASE_S}}}}))
        self.procs: dict[str, subprocess.Popen] = {}
        for name in NODES:
            self.start(name)

    def start(self, name: str) -> None:
        self.procs[name] = self.bringup.start([name], self.params, self.overrides,
                                              log_level="error")[0]

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)

    def close(self) -> None:
        self.bringup.stop(list(self.procs.values()), timeout=20.0)
        self.rebuild_params.unlink(missing_ok=True)

    def jobs(self) -> dict[str, int]:
        from trace_ros.ledger import Ledger

        with Ledger(self.db, create=False) as ledger:
            return ledger.job_counts()

    def drained_copy(self, dest: Path) -> bool:
        """Wait until consolidation owes no job, then copy the ledger to ``dest``.
        False if it did not drain in time (copied anyway)."""
        time.sleep(1.0)  # events on the wire reach the ledger (and make jobs)
        return copy_when_drained(self.db, dest, DRAIN_TIMEOUT_S)


def copy_when_drained(db: Path, dest: Path, timeout: float) -> bool:
    """Copy ``db`` to ``dest`` once the copy owes no consolidation job: the live ledger is
    read as drained first, and copied again while the copy is not — an event still on its
    way (a memory node starved while a restarted node loads) makes a job between the read
    and the copy. False if that did not happen within ``timeout`` (copied anyway)."""
    from trace_ros.ledger import Ledger

    def jobs(path: Path) -> int:
        with Ledger(path, create=False) as ledger:
            return undrained(ledger.job_counts())

    deadline = time.monotonic() + timeout
    while True:
        live = _wait(lambda: jobs(db) == 0, max(0.0, deadline - time.monotonic()), 0.5)
        with Ledger(db, create=False) as ledger:
            ledger.backup_to(dest)
        if live and jobs(dest) == 0:
            return True
        if not live or time.monotonic() >= deadline:
            return False
        time.sleep(0.5)


def serves(name: str, harness: Harness, probe: int) -> bool:
    """Whether the restarted node does its work again within the deadline. A fresh
    client each time: the killed node's endpoints linger in an old client's graph."""
    from trace_ros.nodes.client import MemoryClient, make_dialogue

    if name == "consolidation_node":
        done = harness.jobs()["done"]  # a batch finishes after the restart
        return _wait(lambda: harness.jobs()["done"] > done, SERVE_TIMEOUT_S, 0.5)
    deadline = time.monotonic() + SERVE_TIMEOUT_S
    with MemoryClient(f"bench_faults_probe_{probe}") as client:
        want = {"capture": True} if name == "memory_node" else {"capture": False, "query": True}
        if not _wait(lambda: client.wait_ready(1.0, **want), SERVE_TIMEOUT_S, 0.0):
            return False
        if name == "query_node":
            # Asked again while no reply comes: a restarted node that answers before it
            # has matched this new client's reply reader drops the reply ("failed to send
            # response (timeout)", rmw_fastrtps), and a question is safe to ask twice.
            while time.monotonic() < deadline:
                try:
                    reply = client.query("subject-0", "What did I say about the kitchen?",
                                         min(ASK_AGAIN_S, max(1.0, deadline - time.monotonic())))
                except TimeoutError:
                    continue
                return reply.status in ("answered", "abstained", "missing")
            return False
        sid = f"probe-{probe}"
        msg = make_dialogue("probe", f"probe {probe}", speaker="p", source_id=sid,
                            stamp=1_800_000_000.0 + probe)
        while time.monotonic() < deadline:
            client.publish(msg)
            if sid in client.wait_acks([sid], 1.0):
                return True
        return False


def run_round(kind: str, harness: Harness, client: Any, stream: Stream,
              forgotten: dict[str, set[str]], n: int) -> tuple[str, float]:
    """Inject one fault; returns (node to check, seconds it was down)."""
    rng = harness.rng
    time.sleep(rng.uniform(0.2, 1.5))
    if kind == "consolidation_batch":
        _wait(lambda: harness.jobs()["running"] > 0, 20.0, 0.01)
        kind = "consolidation_node"
    if kind == "forget":
        subject = f"forget-{n}"
        stream.forget_subject = subject
        _wait(lambda: sum(s == subject for s in stream.snapshot().values()) >= 20, 30.0)
        stream.forget_subject = ""
        time.sleep(0.3)
        forgotten[subject] = {sid for sid, s in stream.snapshot().items() if s == subject}
        from trace_ros.msg import Scope as ScopeMsg
        from trace_ros.srv import Forget

        client.forget_client.call_async(Forget.Request(scope=ScopeMsg(subject_id=subject)))
        time.sleep(rng.uniform(0.0, 0.05))
        kind = "memory_node"
    if kind == "rebuild":
        proc = subprocess.Popen([sys.executable, "-m", "trace_ros.cli", "rebuild", "--db",
                                 str(harness.db), "--params", str(harness.rebuild_params)],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=harness.bringup.child_env())
        time.sleep(rng.uniform(0.5, 4.0))
        proc.kill()
        proc.wait()
        return "consolidation_node", 0.0
    started = time.monotonic()
    harness.kill(kind)
    harness.start(kind)
    return kind, time.monotonic() - started


def graph_check(harness: Harness, stream: Stream, checker: RebuildCheck) -> dict[str, Any]:
    """Pause the stream, drain, copy, compare the copy's graph with its rebuild, and
    resume (paused throughout, so the ledger, and the next check's cost, grows only
    while faults are injected). ``facts_vs_rebuild`` is "equal", "differs" (with
    the differences) or "not drained"."""
    started = time.monotonic()
    stream.paused.set()
    try:
        with tempfile.TemporaryDirectory(prefix="trace_ros_faults_copy_") as tmp:
            copy = Path(tmp) / "copy.db"
            drained = harness.drained_copy(copy)
            drain_s = time.monotonic() - started
            result = checker.compare_copy(copy)
    finally:
        stream.paused.clear()
    if not drained and result["facts_vs_rebuild"] != "not drained":
        result["facts_vs_rebuild"] = "not drained"
    return {**result, "drain_s": round(drain_s, 1),
            "check_s": round(time.monotonic() - started, 1)}


def diff_rows(graph: dict[str, Any]) -> int:
    """How many graph rows differ from the rebuild (0 when equal or not compared)."""
    return sum(t["only_live"] + t["only_rebuilt"] for t in graph.get("differences", {}).values())


def brief(differences: dict[str, Any]) -> dict[str, Any]:
    """Differences for the summary line: counts per table and one example each."""
    return {table: {**d, "examples": d["examples"][:1]} for table, d in differences.items()}


def wants_graph_check(mode: str, fault: str) -> bool:
    return mode == "every" or (mode == "consolidation" and fault in CONSOLIDATION_FAULTS)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    from trace_ros.nodes.client import MemoryClient

    tmp = None if args.db else tempfile.mkdtemp(prefix="trace_ros_faults_")
    db = Path(args.db or Path(tmp or ".") / "faults.db").expanduser().resolve()
    rng = random.Random(args.seed)
    harness = Harness(db, rng)
    checker = RebuildCheck(harness.params, {"consolidation.lease_s": LEASE_S})
    graph_checks: Counter = Counter()
    grew_after: list[str] = []  # rounds after which more graph rows differed than before
    last_diff_rows = 0
    rounds: list[dict[str, Any]] = []
    kills: Counter = Counter()
    forgotten: dict[str, set[str]] = {}
    serve_s: list[float] = []
    summary: dict[str, Any] = {}
    try:
        tag = f"f{os.getpid()}"
        with MemoryClient("bench_faults", keep_acks=False) as client:
            stream = Stream(client, args.rate, tag)
            client.on_ack = stream.on_ack
            if not _wait(lambda: client.wait_ready(1.0, capture=True, query=True, forget=True),
                         SERVE_TIMEOUT_S, 0.0):
                print("bench faults: the nodes did not come up", file=sys.stderr)
                return 1
            stream.thread.start()
            for n in range(args.rounds):
                kind = TARGETS[n % len(TARGETS)]
                node, _down = run_round(kind, harness, client, stream, forgotten, n)
                kills[kind] += 1
                t = time.monotonic()
                ok_serve = serves(node, harness, n)
                serve_s.append(time.monotonic() - t)
                time.sleep(0.5)  # acks on the wire still count
                check = check_ledger(db, stream.snapshot(), forgotten)
                graph: dict[str, Any] = {"facts_vs_rebuild": "not checked"}
                if wants_graph_check(args.graph_check, kind):
                    graph = graph_check(harness, stream, checker)
                    graph_checks[graph["facts_vs_rebuild"]] += 1
                    graph["graph_diff_rows"] = diff_rows(graph)
                    if graph["graph_diff_rows"] > last_diff_rows:
                        grew_after.append(f"{n}:{kind}")
                    last_diff_rows = graph["graph_diff_rows"]
                ok = (ok_serve and check["acked_lost"] == 0 and check["duplicated"] == 0
                      and check["jobless_sources"] == 0 and check["orphan_vectors"] == 0
                      and check["integrity"] == "ok" and not check["forget_partial"]
                      and graph["facts_vs_rebuild"] in ("equal", "not checked"))
                rounds.append({"round": n, "fault": kind, "serves_again": ok_serve,
                               "survived": ok, **check, **graph})
                print(json.dumps(rounds[-1]), file=sys.stderr, flush=True)
            stream.stop.set()
            stream.thread.join(10)
            final_graph = graph_check(harness, stream, checker)
            graph_checks[final_graph["facts_vs_rebuild"]] += 1
            drained = final_graph["facts_vs_rebuild"] != "not drained"
            final = check_ledger(db, stream.snapshot(), forgotten)
            summary = {
                "rounds": len(rounds), "survived": sum(r["survived"] for r in rounds),
                "acked": len(stream.snapshot()), "sent": stream.sent,
                "acked_lost": final["acked_lost"], "duplicated": final["duplicated"],
                "orphan_vectors": final["orphan_vectors"], "integrity": final["integrity"],
                "jobs_all_done": drained, "jobs": harness.jobs(), "faults": dict(kills),
                "forgets": len(forgotten), "forget_partial": final["forget_partial"],
                "serve_again_s": {f"p{q}": round(percentile(serve_s, q) or 0.0, 2)
                                  for q in (50, 95)},
                "facts_vs_rebuild": final_graph["facts_vs_rebuild"],
                "graph_checks": dict(graph_checks),
                "graph_diff_grew_after": grew_after,
                "graph_differences": brief(final_graph.get("differences", {})),
                "graph_rows": final_graph.get("graph_rows"),
                "db": str(db),
            }
    finally:
        harness.close()
        if tmp and not args.db:
            shutil.rmtree(tmp, ignore_errors=True)
    print_summary(summary, args.json)
    ok = (summary.get("survived") == summary.get("rounds") and summary.get("acked_lost") == 0
          and summary.get("facts_vs_rebuild") == "equal")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
