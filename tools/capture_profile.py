"""Where a live memory_node's CPU goes per event, stage by stage, under ``bench capture``.

    PYTHONPATH=. python tools/capture_profile.py OUT.json [--seconds 20] [--calls]

Runs ``trace-ros bench capture --batch 0`` (one event a message, over DDS), with the
memory node started by this script instead of ``trace_ros.nodes.memory_node``: the same
node, with its stages wrapped in ``time.thread_time`` timers (in its own process, on its
own threads). It writes OUT.json: the bench's summary, and per stage the node's CPU
microseconds an event (every event it handled, the warm-up's too) on the thread that
runs it:

- executor: ``callback`` (the subscription's callback, whole) of which ``decode``
  (``convert.read_event``), ``event`` (the ``Event``), ``prepare`` and ``enqueue``; and
  ``take_dispatch``, the rest of the thread between its first and last event (rclpy's
  take, the executor's dispatch, the timers);
- writer: ``commit`` (whole) of which ``store`` (``store_sources``), its SQL statements
  by their first words (``sql:…``) and ``hand_off`` (to the answering thread);
  ``collect`` (waiting for and lingering on a group), ``index`` (the postings);
- answers: ``sync`` (the fsync), ``ack_bytes``, ``publish`` (each Ack's DDS write), and
  ``answer`` (whole).

With ``--calls`` the node runs under ``cProfile`` on those three threads instead (no
timers), and OUT.json holds the Python function calls an event per thread and the
functions called most: what "fewer Python calls an event" counts. Its CPU figures are
cProfile's, not the node's. Figures move with the load on the machine: compare in
alternating runs. Needs the ROS 2 wheels and trace_ros's messages (``make setup``).
"""

from __future__ import annotations

import atexit
import cProfile
import json
import pstats
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Any

from capture_child import run_bench  # tools/ is on the path (script or pytest.ini)

_CPU: dict[str, int] = defaultdict(int)  # stage -> CPU ns
_WALL: dict[str, int] = defaultdict(int)  # stage -> wall ns
_CALLS: dict[str, int] = defaultdict(int)  # stage -> calls
_SPAN: dict[str, list[int]] = {}  # thread role -> [first, last] thread_time_ns seen
_EVENTS = [0]


def _timed(role: str, stage: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` with its thread CPU added to ``stage`` (and its thread's span to ``role``)."""
    clock, wall = time.thread_time_ns, time.perf_counter_ns

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        began, started = wall(), clock()
        try:
            return func(*args, **kwargs)
        finally:
            ended = clock()
            _WALL[stage] += wall() - began
            _CALLS[stage] += 1
            _CPU[stage] += ended - started
            span = _SPAN.setdefault(role, [started, ended])
            span[1] = ended

    return wrapper


class _TimedConnection:
    """A sqlite3 connection whose ``execute``/``executemany`` add their CPU to ``sql:<the
    statement's first words>``; everything else is the connection's."""

    def __init__(self, conn: Any) -> None:
        object.__setattr__(self, "_conn", conn)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._conn, name, value)

    def _run(self, how: str, sql: str, *args: Any) -> Any:
        started = time.thread_time_ns()
        try:
            return getattr(self._conn, how)(sql, *args)
        finally:
            _CPU["sql:" + " ".join(sql.split()[:3])] += time.thread_time_ns() - started

    def execute(self, sql: str, *args: Any) -> Any:
        return self._run("execute", sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        return self._run("executemany", sql, *args)


def _instrument() -> None:
    """Wrap the node's stages in timers (before the node is made)."""
    from trace_ros import capture
    from trace_ros.nodes import convert, memory_node

    node = memory_node.MemoryNode
    writer = capture.GroupCommitWriter
    on_event = node._on_event

    def counted(self: Any, *args: Any) -> None:
        _EVENTS[0] += 1
        on_event(self, *args)

    node._on_event = _timed("executor", "executor.callback", counted)  # type: ignore[method-assign]
    convert.read_event = _timed("executor", "executor.decode", convert.read_event)
    convert.dialogue_to_event = _timed("executor", "executor.event", convert.dialogue_to_event)
    convert.perception_to_event = _timed("executor", "executor.event",
                                         convert.perception_to_event)
    capture.prepare = _timed("executor", "executor.prepare", capture.prepare)
    writer._enqueue = _timed("executor", "executor.enqueue", writer._enqueue)  # type: ignore[method-assign]
    writer._collect = _timed("writer", "writer.collect", writer._collect)  # type: ignore[method-assign]
    writer._commit = _timed("writer", "writer.commit", writer._commit)  # type: ignore[method-assign]
    writer._index = _timed("writer", "writer.index", writer._index)  # type: ignore[method-assign]
    writer._answer = _timed("answers", "answers.answer", writer._answer)  # type: ignore[method-assign]
    convert.result_to_ack_bytes = _timed("answers", "answers.ack_bytes",
                                         convert.result_to_ack_bytes)
    configure, activate = node.configure, node.activate

    def configure_timed(self: Any, config: Any) -> None:
        configure(self, config)
        ledger = self.ledger
        ledger.conn = _TimedConnection(ledger.conn)
        for name, stage in (("store_sources", "writer.store"), ("sync", "answers.sync")):
            setattr(ledger, name, _timed(stage.split(".")[0], stage, getattr(ledger, name)))

    def activate_timed(self: Any) -> None:
        activate(self)
        w = self.writer
        w._answers.submit = _timed("writer", "writer.hand_off", w._answers.submit)
        for publisher in (self.acks,):
            publisher.publish = _timed("answers", "answers.publish", publisher.publish)

    node.configure = configure_timed  # type: ignore[method-assign]
    node.activate = activate_timed  # type: ignore[method-assign]


def _profiled() -> dict[str, cProfile.Profile]:
    """cProfile on the executor, writer and answering threads (each enabled on its own
    thread at its first call)."""
    from trace_ros import capture
    from trace_ros.nodes import memory_node

    profiles = {role: cProfile.Profile() for role in ("executor", "writer", "answers")}
    started: set[str] = set()

    def on(role: str, func: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if role not in started:
                started.add(role)
                profiles[role].enable()
            return func(*args, **kwargs)

        return wrapper

    node, writer = memory_node.MemoryNode, capture.GroupCommitWriter
    on_event = node._on_event

    def counted(self: Any, *args: Any) -> None:
        _EVENTS[0] += 1
        on_event(self, *args)

    node._on_event = on("executor", counted)  # type: ignore[method-assign]
    writer._commit = on("writer", writer._commit)  # type: ignore[method-assign]
    writer._answer = on("answers", writer._answer)  # type: ignore[method-assign]
    return profiles


def _node(out: Path, calls: bool, ros_args: list[str]) -> int:
    """The memory node, instrumented; its figures written to ``out`` at exit."""
    from trace_ros.nodes import memory_node

    profiles = _profiled() if calls else None
    if profiles is None:
        _instrument()

    def dump() -> None:
        events = max(1, _EVENTS[0])
        if profiles is not None:
            result: dict[str, Any] = {"events": _EVENTS[0]}
            for role, prof in profiles.items():
                prof.disable()
                stats = pstats.Stats(prof)
                rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][1])  # type: ignore[attr-defined]
                result[role] = {
                    "calls_per_event": round(sum(v[1] for _, v in rows) / events, 2),
                    "top": [[f"{Path(k[0]).name}:{k[1]}:{k[2]}", round(v[1] / events, 2)]
                            for k, v in rows[:25]]}
        else:
            us = {k: round(v / 1000 / events, 2) for k, v in sorted(_CPU.items())}
            for role, (first, last) in _SPAN.items():
                us[f"{role}.thread"] = round((last - first) / 1000 / events, 2)
            us["executor.take_dispatch"] = round(
                us.get("executor.thread", 0.0) - us.get("executor.callback", 0.0), 2)
            result = {"events": _EVENTS[0], "cpu_us_per_event": us,
                      "wall_us_per_event": {k: round(v / 1000 / events, 2)
                                            for k, v in sorted(_WALL.items())},
                      "events_per_call": {k: round(events / v, 2)
                                          for k, v in sorted(_CALLS.items())}}
        out.write_text(json.dumps(result, indent=1))

    atexit.register(dump)
    return memory_node.main(ros_args)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--node"]:  # the child: --node OUT CALLS ros-args...
        return _node(Path(args[1]), args[2] == "1", [sys.argv[0], *args[3:]])
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    out = Path(args[0]).resolve()
    calls = "--calls" in args
    seconds = args[args.index("--seconds") + 1] if "--seconds" in args else "20"
    node_out = out.with_suffix(".node.json")
    code, summary = run_bench(__file__, node_out, ["1" if calls else "0"],
                              ["--seconds", seconds, "--batch", "0", "--json"])
    node = json.loads(node_out.read_text()) if node_out.exists() else {}
    out.write_text(json.dumps({"bench": summary, "node": node}, indent=1))
    print(json.dumps({"events_per_s": summary.get("events_per_s"),
                      "node_threads": summary.get("node_threads"), **node}, indent=1))
    return code


if __name__ == "__main__":
    sys.exit(main())
