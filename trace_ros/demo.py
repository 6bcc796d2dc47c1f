"""The demo: bring up the memory, tell it a few things over ROS 2, ask it questions.

    trace-ros demo [--serve] [--params FILE] [--db PATH]

Starts memory_node, consolidation_node and query_node (child processes, see
``trace_ros.nodes.bringup``), streams two short sessions of dialogue and
perception on /memory/dialogue and /memory/perception, waits for every Ack and
for consolidation, then asks questions on /memory/query and prints each answer
with the source records it cites. Exit status 0 only if every question was
answered with source IDs that exist in the ledger. ``--serve`` keeps the nodes
running afterwards until Ctrl-C.
"""

from __future__ import annotations

import argparse
import calendar
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .cliargs import ArgParser, add_ledger_url, ledger_file

SUBJECT = "alex"
OTHER_SUBJECT = "sam"
ROBOT = "demo-robot"
STARTUP_TIMEOUT_S = 120.0
STEP_TIMEOUT_S = 60.0


def _at(day: int, hour: int, minute: int = 0) -> float:
    """Fixed times (March 2025) so a rerun on the same ledger replays identical events."""
    return float(calendar.timegm((2025, 3, day, hour, minute, 0)))


# (source_id, kind, session, time, speaker/actor, text or (label, description, xyz))
SCRIPT: list[tuple[str, str, str, float, str, Any]] = [
    ("demo-s1-01", "say", "day-1", _at(3, 9, 0), SUBJECT,
     "Good morning! I'll pick up the parcel from the post office on Tuesday."),
    ("demo-s1-02", "say", "day-1", _at(3, 9, 1), "robot",
     "Noted: parcel pickup on Tuesday."),
    ("demo-s1-03", "say", "day-1", _at(3, 9, 2), SUBJECT, "I drink my coffee black."),
    ("demo-s1-04", "say", "day-1", _at(3, 9, 3), SUBJECT,
     "My sister Maya is visiting next weekend."),
    ("demo-s1-05", "see", "day-1", _at(3, 9, 5), "head_camera/detector",
     ("red mug", "red mug on the kitchen counter", (2.1, 0.4, 0.9))),
    ("demo-s1-06", "see", "day-1", _at(3, 9, 6), "head_camera/detector",
     ("keys", "keys on the hallway shelf", (-1.5, 3.2, 1.1))),
    ("demo-s2-01", "say", "day-2", _at(5, 18, 0), SUBJECT,
     "Actually, move the parcel pickup to Thursday."),
    ("demo-s2-02", "say", "day-2", _at(5, 18, 1), "robot",
     "Done: the parcel pickup is now on Thursday."),
    ("demo-s2-03", "say", "day-2", _at(5, 18, 2), SUBJECT,
     "I switched to oat milk in my coffee."),
    ("demo-s2-04", "see", "day-2", _at(5, 18, 4), "head_camera/detector",
     ("red mug", "red mug in the dishwasher", (3.0, -0.8, 0.5))),
    # Another person: never part of alex's answers.
    ("demo-sam-01", "say", "day-2", _at(5, 18, 10), OTHER_SUBJECT,
     "I take my coffee with two sugars."),
]

# (question, a word the right answer contains): the expectation is printed, for the
# reader of the output; the exit status checks only that answers cite existing sources.
QUESTIONS = [
    ("What is the latest plan for the parcel pickup?", "Thursday"),
    ("How do I take my coffee these days?", "oat milk"),
    ("Where is the red mug?", "dishwasher"),
    ("Who is visiting next weekend?", "Maya"),
    ("Where did you see my keys?", "hallway"),
]


def script_messages() -> list[Any]:
    from trace_ros.nodes.client import make_dialogue, make_perception

    msgs = []
    for sid, kind, session, stamp, who, body in SCRIPT:
        subject = OTHER_SUBJECT if sid.startswith("demo-sam") else SUBJECT
        if kind == "say":
            msgs.append(make_dialogue(subject, body, speaker=who, session_id=session,
                                      robot_id=ROBOT, source_id=sid, stamp=stamp))
        else:
            label, description, xyz = body
            msgs.append(make_perception(subject, label, description, actor=who,
                                        confidence=0.93, frame_id="map", xyz=xyz,
                                        session_id=session, robot_id=ROBOT, source_id=sid,
                                        stamp=stamp))
    return msgs


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = ArgParser(prog="trace-ros demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", action="store_true",
                        help="keep the nodes running after the demo until Ctrl-C")
    parser.add_argument("--params", type=Path, help="ROS parameter file (default: "
                        "config/memory.yaml)")
    parser.add_argument("--db", help="ledger file (default: a fresh temporary one)")
    add_ledger_url(parser)
    args = parser.parse_args(argv)
    ledger_file(parser, args)
    return args


class DemoError(RuntimeError):
    """A step of the demo did not complete in time or as expected."""


def _wait_up(client: Any, procs: list[Any], deadline: float) -> None:
    while not client.wait_ready(1.0, capture=True, query=True, forget=True):
        dead = [p.args[3].rsplit(".", 1)[-1] for p in procs if p.poll() is not None]
        if dead:
            raise DemoError(f"{', '.join(dead)} exited during start-up")
        if time.monotonic() > deadline:
            raise DemoError(f"the nodes were not ready within {STARTUP_TIMEOUT_S:.0f} s")


def _wait_consolidated(db: Path, deadline: float) -> int:
    from trace_ros.ledger import Ledger

    with Ledger(db) as ledger:
        while True:
            jobs = ledger.job_counts()
            if jobs["pending"] == 0 and jobs["running"] == 0:
                return ledger.generation()
            if time.monotonic() > deadline:
                raise DemoError(f"consolidation still has {jobs['pending']} pending jobs")
            time.sleep(0.2)


def _existing_ids(db: Path, ids: list[str]) -> set[str]:
    from trace_ros.ledger import Ledger

    with Ledger(db) as ledger:
        return {r.source_id for r in ledger.get_sources(ids)}


def run_demo(client: Any, procs: list[Any], db: Path) -> bool:
    """Stream the script, ask the questions, print the answers. True if all answered."""
    _wait_up(client, procs, time.monotonic() + STARTUP_TIMEOUT_S)
    msgs = script_messages()
    print(f"Streaming {len(msgs)} events (2 sessions, dialogue + perception) ...")
    for msg in msgs:
        client.publish(msg)
    ids = [m.source_id for m in msgs]
    acks = client.wait_acks(ids, STEP_TIMEOUT_S)
    bad = {s: (a.status, a.reason) for s, a in acks.items()
           if a.status not in ("accepted", "duplicate")}
    if len(acks) < len(ids) or bad:
        raise DemoError(f"acks: {len(acks)}/{len(ids)} received, not stored: {bad}")
    statuses = sorted({a.status for a in acks.values()})
    print(f"  {len(acks)} acks ({', '.join(statuses)}): durable in {db}")
    generation = _wait_consolidated(db, time.monotonic() + STEP_TIMEOUT_S)
    print(f"  consolidated: no pending jobs, generation {generation}\n")

    all_ok = True
    for question, expected in QUESTIONS:
        response = client.query(SUBJECT, question, timeout=STEP_TIMEOUT_S)
        texts = {e.source_id: (e.speaker, e.text) for e in response.evidence}
        exist = _existing_ids(db, list(response.source_ids))
        ok = (response.status == "answered" and bool(response.source_ids)
              and set(response.source_ids) <= exist)
        all_ok &= ok
        print(f"Q: {question}  [subject {SUBJECT}]")
        print(f"   status: {response.status}  reader: {response.reader}")
        print(f"   answer: {response.answer or '-'}")
        if response.message:
            print(f"   note:   {response.message}")
        matched = "yes" if expected.lower() in response.answer.lower() else "NO"
        print(f"   expected to mention {expected!r}: {matched}")
        for sid in response.source_ids:
            speaker, text = texts.get(sid, ("?", "?"))
            print(f"   source {sid}: ({speaker}) {text}")
        if not ok:
            print("   !! not answered with existing source IDs")
        print()
    return all_ok


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # progress shows live
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    from trace_ros.nodes import bringup
    from trace_ros.nodes.client import MemoryClient

    tmp = None if args.db else tempfile.mkdtemp(prefix="trace_ros_demo_")
    db = Path(args.db or Path(tmp or ".") / "memory.db").expanduser().resolve()
    params = args.params or bringup.default_params_file()
    procs: list[Any] = []
    code = 1
    try:
        with MemoryClient("trace_ros_demo") as client:
            if client.wait_for(client.query_client.service_is_ready, 1.5):
                print("error: another memory already serves /memory/query on ROS_DOMAIN_ID="
                      f"{os.environ.get('ROS_DOMAIN_ID', '0')}; stop it or choose another "
                      "ROS_DOMAIN_ID", file=sys.stderr)
                return 2
            procs = bringup.start(bringup.NODES, params, bringup.overrides_for(str(db), []),
                                  log_level="warn")
            print(f"Started {', '.join(bringup.NODES)}; waiting for /memory/query ...")
            ok = run_demo(client, procs, db)
            code = 0 if ok else 1
            print("All questions answered with existing source IDs." if ok
                  else "Some questions were not answered with existing source IDs.")
        if args.serve:
            print(f"Serving (ledger {db}); Ctrl-C to stop. Try:\n"
                  "  ros2 service call /memory/query trace_ros/srv/Query "
                  f"\"{{scope: {{subject_id: {SUBJECT}}}, question: 'Where is the red mug?'}}\"")
            served = bringup.supervise(procs, list(bringup.NODES))
            procs = []
            code = code or served
    except DemoError as exc:
        print(f"demo failed: {exc}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 130
    finally:
        bringup.stop(procs)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
