"""memory_node: the fast path. Events in, durable source records out, one Ack each.

Subscriptions take serialized bytes and decode them here, so a malformed message
(truncated, invalid UTF-8) is answered with a ``rejected`` Ack instead of
raising inside the executor. Acks for stored events are published by the
writer's thread right after the group commit: acknowledged = durable.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from typing import Any

import rclpy
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import Header

from trace_ros.capture import Event, GroupCommitWriter
from trace_ros.errors import TraceError, ValidationError
from trace_ros.ledger import Ledger, StoreResult
from trace_ros.msg import Ack, DialogueEvent, PerceptionEvent
from trace_ros.nodes import convert
from trace_ros.nodes.common import Diagnostics, declare_config, make_executor, spin
from trace_ros.srv import Forget

NODE_PARAMS: dict[str, Any] = {
    "dialogue_topic": "/memory/dialogue",
    "perception_topic": "/memory/perception",
    "ack_topic": "/memory/ack",
    "forget_service": "/memory/forget",
    "qos_depth": 1000,
    # events | single: see nodes.common.make_executor
    "executor": "events",
}


def reliable(depth: int) -> QoSProfile:
    return QoSProfile(depth=max(1, depth), history=HistoryPolicy.KEEP_LAST,
                      reliability=ReliabilityPolicy.RELIABLE)


class MemoryNode(Node):
    def __init__(self) -> None:
        super().__init__("memory_node")
        config, opts = declare_config(self, NODE_PARAMS)
        self.ledger = Ledger(config.db_path, config.ledger)
        self.last_batch = (0, 0.0)
        self.writer = GroupCommitWriter(self.ledger, config.capture, on_batch=self._on_batch)
        self.executor_kind = opts["executor"]
        depth = opts["qos_depth"]
        self.acks = self.create_publisher(Ack, opts["ack_topic"],
                                          reliable(max(depth, config.capture.queue_depth)))
        for msg_type, topic, to_event in (
                (DialogueEvent, opts["dialogue_topic"], convert.dialogue_to_event),
                (PerceptionEvent, opts["perception_topic"], convert.perception_to_event)):
            self.create_subscription(msg_type, topic, partial(self._on_event, msg_type, to_event),
                                     reliable(depth), raw=True)
        self.create_service(Forget, opts["forget_service"], self._on_forget)
        self.diagnostics = Diagnostics(self, opts["diagnostics_period_s"], self._diagnostics)
        self.get_logger().info(f"capturing into {self.ledger.path}")

    def _on_event(self, msg_type: type, to_event: Callable[[Any], Event], raw: bytes) -> None:
        msg = None
        try:
            msg = convert.decode(raw, msg_type)
            convert.check_utf8(msg, raw)
            self.writer.submit(to_event(msg), partial(self._ack, msg.header))
        except ValidationError as exc:
            self._reject(msg, exc.field, exc.reason)
        except Exception as exc:  # noqa: BLE001 - a bad message must never stop the node
            self._reject(msg, "message", f"cannot be handled: {exc!r}")

    def _reject(self, msg: Any, field: str, reason: str) -> None:
        try:
            source_id = msg.source_id if msg is not None and not field.startswith("source_id") \
                else ""
            self._ack(msg.header if msg is not None else None,
                      StoreResult(source_id, "rejected", field, reason))
        except Exception as exc:  # noqa: BLE001 - not even a failed ack may stop the node
            self.get_logger().error(f"could not answer a rejected message: {exc!r}")

    def _ack(self, header: Header | None, result: StoreResult) -> None:
        if result.status == "rejected":
            self.get_logger().warning(
                f"rejected {result.source_id or '<no id>'}: {result.field}: {result.reason}")
        self.acks.publish(convert.result_to_ack(result, header))

    def _on_batch(self, size: int, seconds: float) -> None:
        self.last_batch = (size, seconds)

    def _on_forget(self, request: Forget.Request, response: Forget.Response) -> Forget.Response:
        try:
            scope, ids, allow = convert.forget_args(request)
            removed = self.ledger.forget(scope, ids, allow)
        except TraceError as exc:
            response.status, response.message = "error", convert.printable(str(exc))
            return response
        except Exception as exc:  # noqa: BLE001 - answered as an error, never a crash
            self.get_logger().error(f"forget failed: {exc!r}")
            response.status = "error"
            response.message = convert.printable(f"forget failed: {exc}")
            return response
        self.get_logger().info(f"forgot {len(removed)} source(s)")
        return convert.forget_response(removed, response)

    def _diagnostics(self) -> dict[str, Any]:
        jobs = self.ledger.job_counts()
        size, seconds = self.last_batch
        return {"queue_depth": self.writer.depth, "committed": self.writer.committed,
                "batches": self.writer.batches, "last_batch_size": size,
                "last_batch_ms": round(seconds * 1000.0, 3), "pending_jobs": jobs["pending"],
                "generation": self.ledger.generation(), "db_path": str(self.ledger.path)}

    def close(self) -> None:
        """Commit and acknowledge what is queued, then close the ledger."""
        self.writer.close()
        self.ledger.close()


def main(args: list[str] | None = None) -> int:
    rclpy.init(args=args)
    node = MemoryNode()
    return spin(node, make_executor(node.executor_kind, node.context), close=node.close)


if __name__ == "__main__":
    sys.exit(main())
