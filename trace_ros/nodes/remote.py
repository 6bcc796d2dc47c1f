"""Ask a running query_node over ROS (used by `trace-ros query` before loading a model itself).

A query node serves a ledger when its ``ledger.db_path`` parameter names the same file.
Everything here is bounded by a short timeout: when no such node answers quickly, the
caller falls back to answering in its own process and says which path it took.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import rclpy
from builtin_interfaces.msg import Time
from rcl_interfaces.srv import GetParameters

from trace_ros.errors import ConfigError
from trace_ros.msg import Scope as ScopeMsg
from trace_ros.nodes.common import QUERY_SERVICE
from trace_ros.nodes.logdir import ensure_log_dir
from trace_ros.srv import Query
from trace_ros.storage.url import parse_ledger_url


def _stamp(seconds: float | None) -> Time:
    """Seconds -> Time (not nodes.convert: it imports the whole query pipeline, seconds of
    start-up this quick path does not need)."""
    if not seconds or seconds <= 0:
        return Time()
    nanos = int(round(seconds * 1e9))
    return Time(sec=nanos // 1_000_000_000, nanosec=nanos % 1_000_000_000)


def _call(executor: Any, client: Any, request: Any, timeout_s: float) -> Any:
    """``client``'s reply to ``request``, or None after ``timeout_s``.

    Spun here, in the calling thread: with the executor spinning on a thread of its own
    the first reply of a new participant took 0.5-4.4 s to arrive (measured), in the
    calling thread it takes milliseconds."""
    future = client.call_async(request)
    executor.spin_until_future_complete(future, timeout_sec=timeout_s)
    return future.result() if future.done() else None


def ask(db_path: Path, namespace: str, subject: str, question: str, *, robot: str = "",
        session: str = "", as_of_valid: float | None = None, as_of_known: float | None = None,
        token_budget: int = 0, discover_s: float = 1.5, answer_s: float = 30.0
        ) -> tuple[dict[str, Any] | None, str]:
    """(result as ``QueryResult.to_dict()`` plus ``path``, '') or (None, why not)."""
    from rclpy.executors import SingleThreadedExecutor

    context = rclpy.Context()
    ensure_log_dir()
    rclpy.init(context=context)
    node = rclpy.create_node(f"trace_ros_cli_{id(context):x}", context=context,
                             namespace=namespace, start_parameter_services=False)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        client = node.create_client(Query, QUERY_SERVICE)
        params = node.create_client(GetParameters, "query_node/get_parameters")
        # Both services at once, polled finely (rclpy's wait_for_service sleeps 0.25 s steps;
        # readiness is the middleware's matching, it needs no spinning).
        deadline = time.monotonic() + discover_s
        while not (client.service_is_ready() and params.service_is_ready()):
            if time.monotonic() > deadline:
                return None, (f"no query node serves {node.get_namespace()} "
                              f"(waited {discover_s} s)")
            time.sleep(0.01)
        reply = _call(executor, params,
                      GetParameters.Request(names=["ledger.db_path", "ledger.url"]), discover_s)
        if reply is None or not reply.values:
            return None, "the query node did not say which ledger it serves"
        served = _served_path([v.string_value for v in reply.values])
        if served is None:
            return None, "the running query node serves a ledger that is not a SQLite file"
        if served != db_path.expanduser().resolve():
            return None, f"the running query node serves {served}"
        request = Query.Request(
            scope=ScopeMsg(subject_id=subject, robot_id=robot, session_id=session),
            question=question, token_budget=token_budget,
            as_of_valid=_stamp(as_of_valid), as_of_known=_stamp(as_of_known))
        response = _call(executor, client, request, answer_s)
        if response is None:
            return None, f"the query node did not answer in {answer_s:.0f} s"
        return _to_dict(response, node.get_namespace()), ""
    finally:
        executor.shutdown()
        node.destroy_node()
        context.try_shutdown()


def _served_path(values: list[str]) -> Path | None:
    """The SQLite file a node serves from its (ledger.db_path, ledger.url) values; None
    for another engine. A node without ``ledger.url`` (an older build) answers one value."""
    db_path, url = values[0], (values[1] if len(values) > 1 else "")
    if url:
        try:
            parsed = parse_ledger_url(url)
        except ConfigError:
            return None
        return parsed.path.resolve() if parsed.path is not None else None
    return Path(db_path).expanduser().resolve()


def _to_dict(r: Query.Response, namespace: str) -> dict[str, Any]:
    return {
        "status": r.status, "answer": r.answer, "source_ids": list(r.source_ids),
        "evidence": [{"source_id": e.source_id, "speaker": e.speaker, "modality": e.modality,
                      "text": e.text, "label": e.label,
                      "source_time": e.source_time.sec + e.source_time.nanosec / 1e9,
                      "session_id": e.scope.session_id, "score": round(float(e.score), 6),
                      **({"pose": _pose(e.pose)} if e.has_pose else {})}
                     for e in r.evidence],
        "paths": list(r.paths), "plan": json.loads(r.plan_json or "{}"), "reader": r.reader,
        "timings_ms": json.loads(r.timings_json or "{}"), "message": r.message,
        "path": f"ros ({namespace.rstrip('/')}/{QUERY_SERVICE})",
    }


def _pose(pose: Any) -> dict[str, Any]:
    p = pose.pose.position
    return {"frame_id": pose.header.frame_id, "x": p.x, "y": p.y, "z": p.z}
