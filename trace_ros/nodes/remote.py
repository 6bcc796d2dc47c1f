"""Ask a running query_node over ROS (used by `trace-ros query` before loading a model itself).

``ask_service`` asks the node a presence record names (``trace_ros.presence``): it waits
only for that service to be discovered. ``ask`` is for a node that left no record here
(another host, an older build): it looks for ``memory/query`` in a namespace and asks it
only when its ``ledger.db_path``/``ledger.url`` parameters name the same ledger.
Every wait has a deadline: when no node answers in time, the caller falls back to
answering in its own process and says which path it took.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import rclpy
from builtin_interfaces.msg import Time
from rcl_interfaces.srv import GetParameters

from trace_ros.errors import ConfigError
from trace_ros.msg import Scope as ScopeMsg
from trace_ros.nodes.common import QUERY_SERVICE
from trace_ros.nodes.logdir import ensure_log_dir
from trace_ros.presence import ledger_identity
from trace_ros.srv import Query
from trace_ros.storage.url import parse_ledger_url, sqlite_url


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


class _Session:
    """A private context and a node without parameter services or /rosout: the least a
    one-shot client needs (each entity more is one more thing for discovery to match)."""

    def __init__(self, namespace: str = "") -> None:
        from rclpy.executors import SingleThreadedExecutor

        self.context = rclpy.Context()
        ensure_log_dir()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(f"trace_ros_cli_{os.getpid()}", context=self.context,
                                      namespace=namespace, start_parameter_services=False,
                                      enable_rosout=False)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *exc: object) -> None:
        # Bounded: an executor's shutdown without a timeout waits for it to be idle, and
        # a full test run once saw this one-shot client hang past 120 s.
        self.executor.shutdown(timeout_sec=2.0)
        self.node.destroy_node()
        self.context.try_shutdown()


def _wait_ready(clients: list[Any], deadline_s: float) -> bool:
    """True once every client's service is matched, False at the deadline (polled finely:
    rclpy's wait_for_service sleeps in 0.25 s steps; matching needs no spinning)."""
    deadline = time.monotonic() + deadline_s
    while not all(c.service_is_ready() for c in clients):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


def _answer(ros: _Session, client: Any, answer_s: float, subject: str, question: str,
            robot: str, session: str, as_of_valid: float | None, as_of_known: float | None,
            token_budget: int, asker: str = "") -> tuple[dict[str, Any] | None, str]:
    """Ask ``client``'s (matched) service; (result, '') or (None, why not)."""
    request = Query.Request(
        scope=ScopeMsg(subject_id=subject, robot_id=robot, session_id=session),
        question=question, token_budget=token_budget, asker=asker,
        as_of_valid=_stamp(as_of_valid), as_of_known=_stamp(as_of_known))
    response = _call(ros.executor, client, request, answer_s)
    if response is None:
        return None, f"{client.srv_name} did not answer in {answer_s:g} s"
    return _to_dict(response, client.srv_name), ""


def ask_service(service: str, subject: str, question: str, *, robot: str = "",
                session: str = "", as_of_valid: float | None = None,
                as_of_known: float | None = None, token_budget: int = 0, asker: str = "",
                discover_s: float = 3.0, answer_s: float = 30.0
                ) -> tuple[dict[str, Any] | None, str]:
    """Ask the ``Query`` service ``service`` (fully qualified: what a presence record says);
    (result as ``QueryResult.to_dict()`` plus ``path``, '') or (None, why not)."""
    with _Session() as ros:
        client = ros.node.create_client(Query, service)
        if not _wait_ready([client], discover_s):
            return None, f"{service} was not discovered in {discover_s:g} s"
        return _answer(ros, client, answer_s, subject, question, robot, session, as_of_valid,
                       as_of_known, token_budget, asker)


def ask(identity: str, namespace: str, subject: str, question: str, *, robot: str = "",
        session: str = "", as_of_valid: float | None = None, as_of_known: float | None = None,
        token_budget: int = 0, asker: str = "", discover_s: float = 1.5,
        answer_s: float = 30.0
        ) -> tuple[dict[str, Any] | None, str]:
    """Look for a query node in ``namespace`` over DDS for up to ``discover_s`` and ask it
    when it serves the ledger ``identity`` (``presence.ledger_identity``); (result, '')
    or (None, why not)."""
    with _Session(namespace) as ros:
        node = ros.node
        client = node.create_client(Query, QUERY_SERVICE)
        params = node.create_client(GetParameters, "query_node/get_parameters")
        if not _wait_ready([client, params], discover_s):
            return None, (f"no query node serves {node.get_namespace()} "
                          f"(waited {discover_s} s)")
        reply = _call(ros.executor, params,
                      GetParameters.Request(names=["ledger.db_path", "ledger.url"]), discover_s)
        if reply is None or not reply.values:
            return None, "the query node did not say which ledger it serves"
        served = _served([v.string_value for v in reply.values])
        if served is None:
            return None, "the running query node serves a ledger it does not name clearly"
        if served != identity:
            return None, f"the running query node serves {served}"
        return _answer(ros, client, answer_s, subject, question, robot, session, as_of_valid,
                       as_of_known, token_budget, asker)


def _served(values: list[str]) -> str | None:
    """The identity of the ledger a node serves, from its (ledger.db_path, ledger.url)
    values; None when the URL does not parse. A node without ``ledger.url`` (an older
    build) answers one value."""
    db_path, url = values[0], (values[1] if len(values) > 1 else "")
    try:
        parsed = parse_ledger_url(url) if url else sqlite_url(db_path)
    except ConfigError:
        return None
    return ledger_identity(parsed)


def _to_dict(r: Query.Response, service: str) -> dict[str, Any]:
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
        "path": f"ros ({service})",
    }


def _pose(pose: Any) -> dict[str, Any]:
    p = pose.pose.position
    return {"frame_id": pose.header.frame_id, "x": p.x, "y": p.y, "z": p.z}
