"""All the memory's nodes in one process, on one executor, sharing one encoder.

Started by ``trace-ros up --single-process`` (``bringup --single-process``). Brings the
nodes up in order as nav2's lifecycle manager does: configure every node, then activate
every node; if one fails, it says which and why, releases the others and returns 1.
The encoder is loaded once (``managed.shared_encoder``), which is most of the start-up.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Sequence

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.lifecycle import TransitionCallbackReturn

from trace_ros.errors import ConfigError
from trace_ros.nodes.common import spin_until_shutdown
from trace_ros.nodes.logdir import ensure_log_dir
from trace_ros.nodes.managed import ManagedNode


def node_classes() -> dict[str, type[ManagedNode]]:
    from trace_ros.nodes.consolidation_node import ConsolidationNode
    from trace_ros.nodes.memory_node import MemoryNode
    from trace_ros.nodes.query_node import QueryNode

    return {"memory_node": MemoryNode, "consolidation_node": ConsolidationNode,
            "query_node": QueryNode}


def bring_up(nodes: Sequence[ManagedNode]) -> str:
    """configure all, then activate all; '' on success, else which node failed and why."""
    for step in ("configure", "activate"):
        for node in nodes:
            if getattr(node, f"trigger_{step}")() != TransitionCallbackReturn.SUCCESS:
                return f"{node.get_name()}: {step} failed: {node.failure or 'no reason given'}"
    return ""


def run_single(names: Sequence[str], ros_args: Sequence[str]) -> int:
    started = time.monotonic()
    context = rclpy.Context()
    ensure_log_dir()
    rclpy.init(args=["trace_ros_bringup", "--ros-args", *ros_args], context=context)
    classes = node_classes()
    nodes: list[ManagedNode] = []
    try:
        for name in names:
            nodes.append(classes[name](context=context))
    except ConfigError as exc:
        print(f"bringup: bad parameter: {exc}", file=sys.stderr)
        _teardown(nodes, context)
        return 1
    failure = bring_up(nodes)
    if failure:
        print(f"bringup: {failure}", file=sys.stderr)
        _teardown(nodes, context)
        return 1
    print(f"bringup: {', '.join(names)} active in one process after "
          f"{time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
    executor = MultiThreadedExecutor(num_threads=4, context=context)
    for node in nodes:
        executor.add_node(node)
    try:
        spin_until_shutdown(executor, context)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        executor.shutdown(timeout_sec=10.0)
        _teardown(nodes, context)
    return 0


def _teardown(nodes: Sequence[ManagedNode], context: rclpy.Context) -> None:
    for node in reversed(nodes):
        node.release()
        node.destroy_node()
    context.try_shutdown()
