"""Fleet benchmark: many robots and consolidation workers on one PostgreSQL ledger, under faults.

    trace-ros bench fleet [--robots 4] [--workers 2] [--seconds 60] [--rate 20]
        [--rounds 4] [--ledger-url postgresql://…] [--json] [--out DIR]

Without ``--ledger-url`` a PostgreSQL server of its own is started with ``pgserver`` in a
temporary folder (and removed afterwards); ``--ledger-url`` names an existing, empty
database instead (the benchmark never wipes one, and cannot restart a server it does not
own, so its rounds are worker kills only). On that one ledger it starts, as child
processes on a private ``ROS_DOMAIN_ID`` with ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``:

- ``--robots`` memory nodes, one per namespace ``robot_<i>``, and from this process one
  client per robot publishing ``--rate`` events/s over DDS: dialogue and perception events
  of that robot for its own subject (``person-<i>``) and, one event in four, perceptions
  and statements for the subject all robots share (``site``). An event is *acked* when its
  memory node answers ``accepted`` or ``duplicate`` (after the commit); one refused for a
  passing reason (ledger unreachable, queue full) or left unanswered is sent again with
  its ID, as a robot would, and a robot stops adding new events while 500 wait;
- ``--workers`` consolidation nodes (``fleet/worker_<i>``, the layout of
  ``launch/fleet.launch.py``) claiming jobs with ``FOR UPDATE SKIP LOCKED``.

During the stream ``--rounds`` faults alternate, evenly spaced (the stream goes on past
``--seconds`` until the last round's checks are done): ``kill -9`` of a worker
while it holds a claimed batch (then it is started again), and an immediate PostgreSQL
restart (``pg_ctl stop -m immediate``, then start). A worker round survives when the dead
worker's jobs are taken over and consolidation moves on; a restart round when every
robot's memory node acks new events and consolidation moves on after it.

After the stream (unanswered events sent again until acked) and the drain:

- ``acked_lost``: acked events missing from the ledger (must be 0);
- ``live_jobs``: the jobs by status after the drain (``failed`` must be 0: a job out of
  attempts is never projected, and its source's facts are missing from the live graph);
- consolidation throughput: every job is requeued (``reset_derived``) and projected again,
  timed, by all the workers, then by one (``consolidation_sources_per_s``, sources/s);
  each rebuild's graph is compared with the live one (``graphcheck.snapshot_diff``):
  ``graph_equals_rebuild``;
- query latency (``query_ms`` p50/p95 over a fixed question set per subject through
  ``QueryEngine``; the first question of each subject, which loads its vectors and graph,
  is timed apart as ``cold_ms``);
- the fleet question "Where did any robot last see the <label>?" in the shared subject,
  checked against the newest sighting of that label over all robots.

The last line (``--json``) is ``{robots, workers, events_acked, acked_lost,
capture_events_per_s, consolidation_sources_per_s: {"1", "2"}, query_ms: {p50, p95},
kills: {rounds, survived}, graph_equals_rebuild, ...}``; ``--out DIR`` also writes it,
with every round's record, to ``DIR/fleet.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cliargs import ArgParser, bounded, non_negative_float, non_negative_int, positive_float
from .engines import own_server
from .faults import statement
from .graphcheck import snapshot_diff, undrained
from .metrics import latency_summary, percentile, status_counts
from .summary import print_summary

SHARED = "site"
LABELS = ("red cart", "blue trolley", "wheelchair", "linen bag")
WORKER_NS = "fleet/worker_{}"
ROBOT_NS = "robot_{}"
LEASE_S = 15.0  # a live worker's lease that broke with the server ends this soon
WINDOW = 500  # events a robot keeps waiting for their ack before it stops adding new ones
RESEND_S = 3.0  # an event still unanswered after this long is sent again
RETRY_S = 0.5  # an event refused for a passing reason is sent again after this long
TRANSIENT = ("ledger", "queue")  # refusals a robot retries
START_TIMEOUT_S = 120.0
ROUND_TIMEOUT_S = 90.0
DRAIN_TIMEOUT_S = 1800.0
FLUSH_TIMEOUT_S = 90.0
QUESTIONS = ("Where do I live now?", "What do I like?", "When is my dentist appointment?",
             "Where is the red mug?", "What did I say about the kitchen?")
FLEET_QUESTION = "Where did any robot last see the {label}?"
NOTES = [
    "The fleet question is asked in the subject every robot writes its sightings to "
    f"('{SHARED}') with no robot filter, so it is answered across robots. It is not asked "
    "across subjects: every read is filtered by subject first (DESIGN.md section 3), so a "
    "sighting stored under one person's subject is not visible from another's, and no query "
    "spans subjects today.",
]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = ArgParser(prog="trace-ros bench fleet",
                       description=__doc__.split("\n\n")[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=__doc__.split("\n\n", 2)[2])
    parser.add_argument("--robots", type=bounded(int, 1, maximum=32), default=4,
                        help="memory nodes, one per namespace (default 4)")
    parser.add_argument("--workers", type=bounded(int, 1, maximum=16), default=2,
                        help="consolidation workers (default 2)")
    parser.add_argument("--seconds", type=positive_float, default=60.0,
                        help="length of the event stream (default 60)")
    parser.add_argument("--rate", type=non_negative_float, default=20.0,
                        help="events per second per robot (default 20); 0: as fast as the "
                             "acks come back, at most 500 waiting per robot")
    parser.add_argument("--rounds", type=non_negative_int, default=4,
                        help="fault rounds during the stream, alternating worker kill and "
                             "PostgreSQL restart (default 4)")
    parser.add_argument("--ledger-url", metavar="URL",
                        help="an empty PostgreSQL database (postgresql://user@host:port/db); "
                             "default: a server of its own (pgserver) in a temporary folder")
    parser.add_argument("--domain-id", type=bounded(int, 0, maximum=101), default=None,
                        help="ROS_DOMAIN_ID of the run (default: a private one from the pid)")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="which label the fleet question asks about")
    parser.add_argument("--out", type=Path, help="also write DIR/fleet.json")
    parser.add_argument("--json", action="store_true",
                        help="print the results as one JSON object on the last line")
    args = parser.parse_args(argv)
    if args.ledger_url is not None:
        from ..errors import ConfigError
        from ..storage.url import POSTGRESQL, parse_ledger_url

        try:
            url = parse_ledger_url(args.ledger_url, "--ledger-url")
        except ConfigError as exc:
            parser.error(str(exc))
        if url.engine != POSTGRESQL:
            parser.error("--ledger-url: the fleet benchmark needs a postgresql:// ledger")
        args.ledger_url = url
    return args


# -- the robots ------------------------------------------------------------------------------


@dataclass
class _Sent:
    msg: Any
    subject: str
    first_s: float
    last_s: float
    retry_at: float | None = None


@dataclass
class Robot:
    """One robot's stream: what it sent, what was acked, what it sends again."""

    index: int
    run_id: str
    client: Any = None
    count: int = 0
    pending: dict[str, _Sent] = field(default_factory=dict)
    acked: dict[str, str] = field(default_factory=dict)  # source_id -> subject
    statuses: Counter = field(default_factory=Counter)
    refused: Counter = field(default_factory=Counter)  # field of a refusal -> count
    resent: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    last_accept_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def name(self) -> str:
        return ROBOT_NS.format(self.index)

    def on_ack(self, ack: Any) -> None:
        now = time.monotonic()
        with self.lock:
            sent = self.pending.get(ack.source_id)
            if sent is None:
                return
            self.statuses[ack.status] += 1
            if ack.status in ("accepted", "duplicate"):
                del self.pending[ack.source_id]
                self.acked[ack.source_id] = sent.subject
                self.latencies_ms.append((now - sent.first_s) * 1000.0)
                self.last_accept_s = now
            else:
                self.refused[ack.field] += 1
                if ack.field in TRANSIENT:
                    sent.retry_at = now + RETRY_S
                else:  # refused for good: never acked, not expected in the ledger
                    del self.pending[ack.source_id]

    def event(self) -> tuple[Any, str]:
        """The next event of this robot, and its subject."""
        from trace_ros.nodes.client import make_dialogue, make_perception

        n = self.count
        self.count += 1
        robot = self.name
        shared = n % 4 == 3
        subject = SHARED if shared else f"person-{self.index}"
        source_id = f"fleet-{self.run_id}-{robot}-{n}"
        session = f"{robot}-s{n // 200}"
        stamp = time.time()
        if (shared and (n // 4) % 2 == 0) or (not shared and n % 4 == 1):
            label = LABELS[(n // (8 if shared else 4)) % len(LABELS)]
            msg = make_perception(subject, label, f"{label} seen by {robot} on pass {n}",
                                  actor=f"{robot}/camera", confidence=0.9, frame_id="map",
                                  xyz=(10.0 * self.index + n % 7, float(n % 5), 0.0),
                                  session_id=session, robot_id=robot, source_id=source_id,
                                  stamp=stamp)
        else:
            speaker = "staff" if shared else subject
            msg = make_dialogue(subject, statement(n), speaker=speaker, session_id=session,
                                robot_id=robot, source_id=source_id, stamp=stamp)
        return msg, subject

    def publish_new(self) -> bool:
        """Send the next event unless the window is full; False when it is."""
        with self.lock:
            if len(self.pending) >= WINDOW:
                return False
            msg, subject = self.event()
            now = time.monotonic()
            self.pending[msg.source_id] = _Sent(msg, subject, now, now)
        self.client.publish(msg)
        return True

    def resend_due(self) -> int:
        """Send again what was refused for a passing reason or left unanswered."""
        now = time.monotonic()
        with self.lock:
            due = [s for s in self.pending.values()
                   if (s.retry_at is not None and s.retry_at <= now)
                   or (s.retry_at is None and now - s.last_s >= RESEND_S)]
            for s in due:
                s.retry_at, s.last_s = None, now
            self.resent += len(due)
        for s in due:
            self.client.publish(s.msg)
        return len(due)

    def waiting(self) -> int:
        with self.lock:
            return len(self.pending)

    def snapshot(self) -> dict[str, str]:
        with self.lock:
            return dict(self.acked)


class Stream:
    """Each robot publishes ``rate`` events/s on its own thread until stopped."""

    def __init__(self, robots: list[Robot], rate: float) -> None:
        self.robots, self.rate = robots, rate
        self.stop = threading.Event()
        self.held_back = 0  # new events not sent because the window was full
        self.threads = [threading.Thread(target=self._run, args=(r,), daemon=True,
                                         name=f"fleet-{r.name}") for r in robots]

    def _run(self, robot: Robot) -> None:
        period = 1.0 / self.rate if self.rate > 0 else 0.0
        nxt = time.monotonic()
        last_resend = nxt
        while not self.stop.is_set():
            if not robot.publish_new():
                if not period:  # full speed: wait for acks to open the window
                    self.stop.wait(0.005)
                else:
                    self.held_back += 1
            now = time.monotonic()
            if now - last_resend >= 0.2:
                robot.resend_due()
                last_resend = now
            if not period:
                continue
            nxt += period
            delay = nxt - time.monotonic()
            if delay > 0:
                self.stop.wait(delay)
            elif delay < -1.0:  # fell behind (e.g. a long GIL hold): do not burst
                nxt = time.monotonic()

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def join(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(10.0)


# -- the processes --------------------------------------------------------------------------


class Fleet:
    """The PostgreSQL server (when it is ours), the memory nodes and the workers."""

    def __init__(self, url: Any, server: Any, robots: int, workers: int) -> None:
        from trace_ros.nodes import bringup

        self.bringup = bringup
        self.url, self.server = url, server
        self.params = bringup.default_params_file()
        self.memory_overrides = bringup.overrides_for(None, [], str(url))
        self.worker_overrides = bringup.overrides_for(
            None, ["consolidation.period_s:=0.2", f"consolidation.lease_s:={LEASE_S}"], str(url))
        self.memory = [self._start("memory_node", ROBOT_NS.format(i), self.memory_overrides)
                       for i in range(robots)]
        self.workers: list[subprocess.Popen | None] = [None] * workers
        self.exits: list[dict[str, Any]] = []  # workers that died unasked
        for i in range(workers):
            self.start_worker(i)

    def _start(self, node: str, namespace: str, overrides: list[str]) -> subprocess.Popen:
        return self.bringup.start([node], self.params, overrides, log_level="error",
                                  namespace=namespace)[0]

    def start_worker(self, i: int) -> subprocess.Popen:
        proc = self._start("consolidation_node", WORKER_NS.format(i), self.worker_overrides)
        self.workers[i] = proc
        return proc

    def stop_worker(self, i: int) -> None:
        proc = self.workers[i]
        if proc is not None:
            self.bringup.stop([proc], timeout=20.0)
        self.workers[i] = None

    def revive(self, log: Callable[[str], None]) -> int:
        """Start again any worker that exited without being told to (recorded in
        ``self.exits``); returns how many workers run now."""
        for i, proc in enumerate(self.workers):
            if proc is not None and proc.poll() is not None:
                self.exits.append({"worker": WORKER_NS.format(i), "pid": proc.pid,
                                   "status": proc.returncode})
                log(f"{WORKER_NS.format(i)} (pid {proc.pid}) exited unexpectedly with status "
                    f"{proc.returncode}; starting it again")
                self.start_worker(i)
        return sum(p is not None for p in self.workers)

    def kill_worker(self, i: int) -> None:
        proc = self.workers[i]
        if proc is not None and proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        if proc is not None:
            proc.wait(timeout=30)
        self.workers[i] = None

    def restart_server(self) -> float:
        """``pg_ctl stop -m immediate``, then start; seconds the server was down."""
        from pgserver._commands import pg_ctl

        started = time.monotonic()
        pg_ctl(["-w", "stop", "-m", "immediate"], pgdata=self.server.pgdata,
               user=self.server.system_user)
        self.server.ensure_postgres_running()
        return time.monotonic() - started

    def close(self) -> None:
        procs = [p for p in [*self.memory, *self.workers] if p is not None]
        for proc in procs:
            self.bringup.stop([proc], timeout=20.0)


def _retry(fn: Callable[[], Any], timeout: float = 60.0) -> Any:
    """``fn()``, tried again while the server is away (a pooled connection that broke with
    a restart fails once)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return fn()
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _wait(predicate: Callable[[], bool], timeout: float, step: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return True
        except Exception:  # noqa: BLE001 - the server is restarting: ask again
            pass
        time.sleep(step)
    try:
        return bool(predicate())
    except Exception:  # noqa: BLE001
        return False


def _holds(ledger: Any, pid: int) -> bool:
    """Whether the worker process ``pid`` holds claimed jobs now (a batch is running)."""
    return any(f":{pid}:" in w for w in ledger.job_holders())


# -- the fault rounds ------------------------------------------------------------------------


def kill_round(fleet: Fleet, ledger: Any, i: int) -> dict[str, Any]:
    """``kill -9`` worker ``i`` while it holds a claimed batch, start it again, and check
    that its jobs are taken over and consolidation goes on."""
    proc = fleet.workers[i]
    assert proc is not None
    pid = proc.pid
    mid_batch = _wait(lambda: _holds(ledger, pid), 30.0, 0.01)
    fleet.kill_worker(i)
    killed_at = time.monotonic()
    done_before = _retry(lambda: ledger.job_counts()["done"])
    fleet.start_worker(i)
    taken_over = _wait(lambda: not _holds(ledger, pid), ROUND_TIMEOUT_S, 0.25)
    moved_on = _wait(lambda: ledger.job_counts()["done"] > done_before, ROUND_TIMEOUT_S, 0.25)
    restarted = fleet.workers[i] is not None and fleet.workers[i].poll() is None
    return {"fault": "kill -9 worker", "worker": WORKER_NS.format(i), "pid": pid,
            "mid_batch": mid_batch, "jobs_taken_over": taken_over,
            "consolidation_moved_on": moved_on, "restarted": restarted,
            "recover_s": round(time.monotonic() - killed_at, 2),
            "survived": mid_batch and taken_over and moved_on and restarted}


def restart_round(fleet: Fleet, ledger: Any, robots: list[Robot]) -> dict[str, Any]:
    """Stop PostgreSQL with ``-m immediate`` and start it again, then check that every
    robot's memory node acks new events and consolidation goes on."""
    done_before = _retry(lambda: ledger.job_counts()["done"])
    down_s = fleet.restart_server()
    back = time.monotonic()
    acks_again = _wait(lambda: all(r.last_accept_s > back for r in robots), ROUND_TIMEOUT_S)
    moved_on = _wait(lambda: ledger.job_counts()["done"] > done_before, ROUND_TIMEOUT_S, 0.25)
    return {"fault": "postgresql immediate restart", "down_s": round(down_s, 2),
            "robots_ack_again": acks_again, "consolidation_moved_on": moved_on,
            "recover_s": round(time.monotonic() - back, 2),
            "survived": acks_again and moved_on}


# -- after the stream ------------------------------------------------------------------------


def flush(robots: list[Robot], timeout: float) -> int:
    """Send what still waits for an ack again until it is acked or the deadline; returns
    how many events are still unanswered."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not sum(r.waiting() for r in robots):
            return 0
        for r in robots:
            r.resend_due()
        time.sleep(0.2)
    return sum(r.waiting() for r in robots)


def rebuild_throughput(ledger: Any, live: dict[str, list], timeout: float,
                       revive: Callable[[], Any] = lambda: None) -> dict[str, Any]:
    """Requeue every job (``reset_derived``) and time the running workers' projection of
    all of them; compare the result with the live graph. ``revive`` is called on every
    poll (it restarts a worker that died)."""
    requeued = _retry(ledger.reset_derived)
    started = time.monotonic()
    holders: Counter = Counter()  # samples by how many workers held claimed jobs

    def drained_now() -> bool:
        revive()
        holders[len(ledger.job_holders())] += 1
        return undrained(ledger.job_counts()) == 0

    drained = _wait(drained_now, timeout, 0.1)
    seconds = time.monotonic() - started
    jobs = _retry(ledger.job_counts)
    diff = snapshot_diff(live, _retry(ledger.graph_snapshot)) if drained else {}
    equal = drained and not diff and jobs["failed"] == 0
    out: dict[str, Any] = {"sources": requeued, "seconds": round(seconds, 2),
                           "sources_per_s": round(requeued / seconds, 1) if drained else None,
                           "drained": drained, "jobs": jobs, "equals_live": equal,
                           "workers_holding_jobs": {str(k): v for k, v in sorted(holders.items())}}
    if diff:
        out["differences"] = {t: {**d, "examples": d["examples"][:1]} for t, d in diff.items()}
    return out


def ask_questions(ledger: Any, cfg: Any, subjects: list[str]) -> tuple[dict[str, Any], Any]:
    """Query latency over the question set of every subject, the first one of each timed
    apart; returns (figures, engine)."""
    from trace_ros.embed import MiniLMEncoder
    from trace_ros.ledger import Scope
    from trace_ros.query.answer import QueryEngine, QueryRequest
    from trace_ros.query.readers import ExtractiveReader

    encoder = MiniLMEncoder(cfg.embed)
    encoder.load()
    engine = QueryEngine(ledger, encoder, ExtractiveReader(), cfg.recall, audit=False)
    cold, warm, statuses = [], [], []
    for subject in subjects:
        t = time.perf_counter()
        engine.ask(QueryRequest(Scope(subject), "What happened today?"))
        cold.append((time.perf_counter() - t) * 1000.0)
    questions = list(QUESTIONS) + [FLEET_QUESTION.format(label=x) for x in LABELS]
    for subject in subjects:
        for q in questions:
            t = time.perf_counter()
            result = engine.ask(QueryRequest(Scope(subject), q))
            warm.append((time.perf_counter() - t) * 1000.0)
            statuses.append(result.status)
    return {"query_ms": latency_summary(warm), "cold_ms": latency_summary(cold),
            "query_status": status_counts(statuses)}, engine


def fleet_question(ledger: Any, engine: Any, label: str) -> dict[str, Any]:
    """Ask where any robot last saw ``label`` in the shared subject; right when the answer
    cites the newest sighting of that label over all robots."""
    from trace_ros.ledger import Scope
    from trace_ros.query.answer import QueryRequest

    question = FLEET_QUESTION.format(label=label)
    sightings = ledger.perceptions(Scope(SHARED), labels=[label])
    robots = sorted({s.robot_id for s in sightings})
    newest = sightings[0] if sightings else None
    t = time.perf_counter()
    result = engine.ask(QueryRequest(Scope(SHARED), question))
    ms = (time.perf_counter() - t) * 1000.0
    cited = list(result.source_ids)
    right = newest is not None and result.status == "answered" and cited[:1] == [newest.source_id]
    return {"question": question, "subject": SHARED, "status": result.status,
            "answer": result.answer, "cited": cited[:3], "ms": round(ms, 1),
            "newest_sighting": newest.source_id if newest else None,
            "newest_robot": newest.robot_id if newest else None,
            "robots_that_saw_it": robots, "answered_across_robots": right}


# -- the run ---------------------------------------------------------------------------------


def _round_kinds(rounds: int, restart: bool) -> list[str]:
    kinds = ["kill", "restart"] if restart else ["kill"]
    return [kinds[n % len(kinds)] for n in range(rounds)]


def run(args: argparse.Namespace, log: Callable[[str], None]) -> dict[str, Any]:
    from trace_ros.config import load_config
    from trace_ros.errors import TraceError
    from trace_ros.nodes.bringup import default_params_file
    from trace_ros.nodes.client import MemoryClient
    from trace_ros.storage import open_ledger

    tmp = Path(tempfile.mkdtemp(prefix="trace_ros_fleet_"))
    server = None
    fleet: Fleet | None = None
    clients: list[Any] = []
    try:
        if args.ledger_url is None:
            server, url = own_server(tmp / "pg", "bench fleet")
        else:
            url = args.ledger_url
        cfg = load_config(default_params_file(), "query_node", {"ledger.url": str(url)})
        ledger = open_ledger(url, cfg.ledger, field="--ledger-url")  # migrates before the nodes
        if ledger.count_sources():
            ledger.close()
            raise TraceError(f"--ledger-url: {url} is not empty; the benchmark needs an empty "
                             "database (it never deletes one)")
        log(f"ledger {url}; starting {args.robots} memory nodes and {args.workers} workers "
            f"on ROS_DOMAIN_ID={os.environ['ROS_DOMAIN_ID']}")
        fleet = Fleet(url, server, args.robots, args.workers)
        run_id = f"{os.getpid()}"
        robots = [Robot(i, run_id) for i in range(args.robots)]
        for r in robots:
            r.client = MemoryClient(f"bench_fleet_{r.name}", namespace=r.name,
                                    on_ack=r.on_ack, keep_acks=False)
            clients.append(r.client)
        t0 = time.monotonic()
        for r in robots:
            if not r.client.wait_ready(max(1.0, START_TIMEOUT_S - (time.monotonic() - t0))):
                raise TraceError(f"bench fleet: the memory node of {r.name} did not come up")
        log(f"memory nodes up in {time.monotonic() - t0:.1f} s; streaming {args.seconds:g} s "
            f"at {args.rate:g} events/s per robot, {args.rounds} fault rounds")
        stream = Stream(robots, args.rate)
        kinds = _round_kinds(args.rounds, server is not None)
        rounds: list[dict[str, Any]] = []
        started = time.monotonic()
        stream.start()
        for n, kind in enumerate(kinds):
            due = started + args.seconds * (n + 1) / (len(kinds) + 1)
            time.sleep(max(0.0, due - time.monotonic()))
            fleet.revive(log)
            if kind == "kill":
                killed = sum(r["fault"].startswith("kill") for r in rounds)
                record = kill_round(fleet, ledger, killed % args.workers)  # in turn
            else:
                record = restart_round(fleet, ledger, robots)
            record["round"] = n
            rounds.append(record)
            log(json.dumps(record))
        time.sleep(max(0.0, started + args.seconds - time.monotonic()))
        stream.join()
        stream_s = time.monotonic() - started
        unanswered = flush(robots, FLUSH_TIMEOUT_S)
        acked = {sid: subj for r in robots for sid, subj in r.snapshot().items()}
        log(f"stream over: {len(acked)} events acked in {stream_s:.1f} s, {unanswered} "
            "unanswered; draining")
        def drained_now() -> bool:
            fleet.revive(log)
            return undrained(ledger.job_counts()) == 0

        drained = _wait(drained_now, DRAIN_TIMEOUT_S, 0.5)
        counts = _retry(ledger.source_counts)
        lost = [sid for sid in acked if sid not in counts]
        # A job that ran out of attempts counts as drained, but its source was never
        # projected: the live graph lacks its facts (the rebuilds requeue it).
        live_jobs = _retry(ledger.job_counts)
        live = _retry(ledger.graph_snapshot)
        throughput: dict[str, Any] = {}
        if drained:
            for n_workers in sorted({args.workers, 1}, reverse=True):
                for i in range(n_workers, args.workers):
                    fleet.stop_worker(i)
                log(f"rebuild with {n_workers} worker(s)")
                throughput[str(n_workers)] = rebuild_throughput(
                    ledger, live, DRAIN_TIMEOUT_S, lambda: fleet.revive(log))
                log(json.dumps({n_workers: {k: v for k, v in throughput[str(n_workers)].items()
                                            if k != "differences"}}))
        worker_exits = list(fleet.exits)
        fleet.close()
        fleet = None
        subjects = [f"person-{i}" for i in range(args.robots)] + [SHARED]
        log("asking the question set")
        queries, engine = ask_questions(ledger, cfg, subjects)
        fq = fleet_question(ledger, engine, LABELS[args.seed % len(LABELS)])
        graph_rows = {t: len(rows) for t, rows in live.items()}
        integrity = ledger.integrity_check()
        orphans = ledger.orphans()
        ledger.close()
        latencies = [ms for r in robots for ms in r.latencies_ms]
        kills = Counter(rec["fault"] for rec in rounds)
        notes = list(NOTES)
        notes.append(f"capture_events_per_s is the acked rate of the stream as offered "
                     f"({args.rate:g} events/s per robot, 0: as fast as acks return), over "
                     "its whole length, fault rounds included")
        if server is None:
            notes.append("--ledger-url names a server this benchmark does not own: no "
                         "PostgreSQL restart rounds, worker kills only")
        if args.workers > 1 and all(str(k) in throughput for k in (1, args.workers)):
            one = throughput["1"]["sources_per_s"] or 0.0
            many = throughput[str(args.workers)]["sources_per_s"] or 0.0
            notes.append(f"consolidation speed-up with {args.workers} workers: "
                         f"{many / one if one else float('nan'):.2f}x on {os.cpu_count()} "
                         "CPU cores shared with PostgreSQL, the memory nodes and this process")
        return {
            "robots": args.robots, "workers": args.workers,
            "events_acked": len(acked), "acked_lost": len(lost),
            "capture_events_per_s": round(len(acked) / stream_s, 1),
            "consolidation_sources_per_s": {k: v["sources_per_s"] for k, v in throughput.items()},
            "query_ms": {"p50": _round(queries["query_ms"]["p50"]),
                         "p95": _round(queries["query_ms"]["p95"])},
            "kills": {"rounds": len(rounds), "survived": sum(r["survived"] for r in rounds),
                      "by_fault": dict(kills)},
            "graph_equals_rebuild": bool(throughput) and all(
                v["equals_live"] for v in throughput.values()),
            "fleet_question": fq,
            "seconds": round(stream_s, 1), "rate_per_robot": args.rate,
            "events_sent": sum(r.count for r in robots), "held_back": stream.held_back,
            "resent": sum(r.resent for r in robots), "unanswered": unanswered,
            "refused": dict(sum((r.refused for r in robots), Counter())),
            "ack_ms": {"p50": _round(percentile(latencies, 50)),
                       "p95": _round(percentile(latencies, 95))},
            "lost_examples": lost[:5], "drained": drained, "live_jobs": live_jobs,
            "rebuilds": throughput, "cold_ms": {k: _round(queries["cold_ms"][k])
                                                for k in ("p50", "p95")},
            "query_status": queries["query_status"], "graph_rows": graph_rows,
            "integrity": integrity, "orphans": orphans, "rounds": rounds,
            "worker_exits": worker_exits,
            "engine": "postgresql", "ledger": str(url), "domain_id":
                int(os.environ["ROS_DOMAIN_ID"]), "notes": notes,
        }
    finally:
        for client in clients:
            client.close()
        if fleet is not None:
            fleet.close()
        if server is not None:
            server.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    domain = args.domain_id if args.domain_id is not None else os.getpid() % 100 + 1
    os.environ["ROS_DOMAIN_ID"] = str(domain)  # before any rclpy context exists
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

    # The pool's reconnection attempts while the server restarts are expected: not logged.
    logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)

    def log(line: str) -> None:
        print(f"bench fleet: {line}", file=sys.stderr, flush=True)

    # A SIGTERM ends the run through its clean-up (nodes stopped, our server removed).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    summary = run(args, log)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "fleet.json").write_text(json.dumps(summary, indent=2) + "\n")
    brief = {k: v for k, v in summary.items() if k not in ("rounds", "rebuilds")}
    brief["rounds"] = [{k: r[k] for k in ("round", "fault", "survived", "recover_s")}
                       for r in summary["rounds"]]
    print_summary(brief, args.json)
    ok = (summary["acked_lost"] == 0 and not summary["worker_exits"]
          and summary["kills"]["survived"] == summary["kills"]["rounds"]
          and summary["graph_equals_rebuild"] and summary["unanswered"] == 0
          and summary["live_jobs"]["failed"] == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
