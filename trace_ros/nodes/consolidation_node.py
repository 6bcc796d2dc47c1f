"""consolidation_node: the slow path. A timer projects pending jobs, one batch per tick."""

from __future__ import annotations

import sys
import time
from typing import Any

import rclpy
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node

from trace_ros.consolidation.project import build_projection
from trace_ros.consolidation.worker import BatchReport, Consolidator
from trace_ros.embed import MiniLMEncoder
from trace_ros.ledger import Ledger
from trace_ros.nodes.common import Diagnostics, declare_config, spin


class ConsolidationNode(Node):
    def __init__(self) -> None:
        super().__init__("consolidation_node")
        config, opts = declare_config(self, {})
        self.ledger = Ledger(config.db_path, config.ledger)
        encoder = MiniLMEncoder(config.embed)
        started = time.monotonic()
        self.get_logger().info(f"loading encoder {encoder.name} on {config.embed.device}")
        encoder.load()
        self.get_logger().info(f"encoder ready in {time.monotonic() - started:.1f} s")
        projector, self.gate = build_projection(self.ledger, config)
        self.consolidator = Consolidator(self.ledger, encoder, config.consolidation,
                                         projector=projector, gate=self.gate)
        self.last = BatchReport()
        self.batches = 0
        self.create_timer(config.consolidation.period_s, self._tick,
                          callback_group=MutuallyExclusiveCallbackGroup())
        self.diagnostics = Diagnostics(self, opts["diagnostics_period_s"], self._diagnostics,
                                       MutuallyExclusiveCallbackGroup())
        self.get_logger().info(f"consolidating {self.ledger.path} every "
                               f"{config.consolidation.period_s} s")

    def _tick(self) -> None:
        try:
            report = self.consolidator.run_once()
        except Exception as exc:  # noqa: BLE001 - logged; the next tick tries again
            self.get_logger().error(f"consolidation batch failed: {exc!r}")
            return
        if report.claimed:
            self.last = report
            self.batches += 1
            self.get_logger().debug(
                f"batch: {report.done} done, {report.failed} failed in {report.seconds:.3f} s, "
                f"generation {report.generation}")

    def _diagnostics(self) -> dict[str, Any]:
        jobs = self.ledger.job_counts()
        last = self.last
        return {"pending_jobs": jobs["pending"], "running_jobs": jobs["running"],
                "failed_jobs": jobs["failed"], "generation": self.ledger.generation(),
                "batches": self.batches, "last_batch_claimed": last.claimed,
                "last_batch_done": last.done, "last_batch_failed": last.failed,
                "last_batch_ms": round(last.seconds * 1000.0, 3),
                "deferred_jobs": jobs["deferred"],
                "encoder": self.consolidator.encoder.name, "db_path": str(self.ledger.path),
                **_gate_state(self.consolidator.gate)}

    def close(self) -> None:
        self.gate.close()  # releases an LLM extractor's GPU lease
        self.ledger.close()


def _gate_state(gate: Any) -> dict[str, Any]:
    """The extractor selector's state (mode, device, GPU admission) where it has one."""
    state = getattr(gate, "state", None)
    return state() if callable(state) else {}


def main(args: list[str] | None = None) -> int:
    rclpy.init(args=args)
    node = ConsolidationNode()
    return spin(node, MultiThreadedExecutor(num_threads=2), close=node.close)


if __name__ == "__main__":
    sys.exit(main())
