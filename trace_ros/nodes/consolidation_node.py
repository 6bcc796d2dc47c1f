"""consolidation_node: the slow path. A timer projects pending jobs, one batch per tick."""

from __future__ import annotations

import sys
import time
from typing import Any

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.executors import Executor, MultiThreadedExecutor

from trace_ros.config import MemoryConfig
from trace_ros.consolidation.project import build_projection
from trace_ros.consolidation.worker import BatchReport, Consolidator
from trace_ros.health import consolidation_health
from trace_ros.ledger import Ledger
from trace_ros.nodes.managed import ManagedNode, run, shared_encoder
from trace_ros.nodes.params import NodeParam
from trace_ros.paramspec import ParamSpec
from trace_ros.storage import open_ledger

OWN: dict[str, NodeParam] = {
    "warn_lag_jobs": NodeParam(1000, ParamSpec(
        "/diagnostics WARN when this many jobs wait (consolidation lag)", dynamic=True, min=1,
        max=2**31 - 1)),
    "error_lag_jobs": NodeParam(10000, ParamSpec(
        "/diagnostics ERROR when this many jobs wait", dynamic=True, min=1, max=2**31 - 1)),
}


class ConsolidationNode(ManagedNode):
    NAME = "consolidation_node"
    OWN = OWN

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ledger: Ledger | None = None
        self.consolidator: Consolidator | None = None
        self.gate: Any = None
        self.timer: Any = None
        self.group = MutuallyExclusiveCallbackGroup()
        self.last = BatchReport()
        self.batches = 0
        self._failed_reported: int | None = None
        self.params.on_change(self._on_params)

    def configure(self, config: MemoryConfig) -> None:
        self.ledger = open_ledger(config.ledger_url, config.ledger)
        encoder = shared_encoder(config.embed)
        started = time.monotonic()
        self.get_logger().info(f"loading encoder {encoder.name} on {config.embed.device}")
        encoder.load()
        self.get_logger().info(f"encoder ready in {time.monotonic() - started:.1f} s")
        projector, self.gate = build_projection(self.ledger, config)
        self.consolidator = Consolidator(self.ledger, encoder, config.consolidation,
                                         projector=projector, gate=self.gate)

    def activate(self) -> None:
        assert self.config is not None
        self.timer = self.create_timer(self.config.consolidation.period_s, self._tick,
                                       callback_group=self.group)
        self.get_logger().info(f"consolidating every {self.config.consolidation.period_s} s")

    def deactivate(self) -> None:
        if self.timer is not None:
            self.destroy_timer(self.timer)
            self.timer = None

    def cleanup(self) -> None:
        if self.consolidator is not None:
            self.consolidator.close()  # stops encoding ahead of the next batch
        if self.gate is not None:
            self.gate.close()  # releases an LLM extractor's GPU lease
        if self.ledger is not None:
            self.ledger.close()
        self.ledger = self.consolidator = self.gate = None

    def preferred_executor(self) -> Executor:
        return MultiThreadedExecutor(num_threads=2, context=self.context)

    def _on_params(self, changed: dict[str, Any]) -> None:
        if "consolidation.period_s" in changed and self.timer is not None:
            self.deactivate()
            self.activate()

    def _tick(self) -> None:
        consolidator = self.consolidator
        if consolidator is None:
            return
        try:
            report = consolidator.run_once()
        except Exception as exc:  # noqa: BLE001 - logged; the next tick tries again
            self.get_logger().error(f"consolidation batch failed: {exc!r}")
            return
        if report.claimed:
            self.last = report
            self.batches += 1
            self.get_logger().debug(
                f"batch: {report.done} done, {report.failed} failed in {report.seconds:.3f} s, "
                f"generation {report.generation}")

    def diagnostics(self) -> dict[str, Any]:
        assert self.ledger is not None and self.consolidator is not None
        jobs = self.ledger.jobs_not_done()
        last = self.last
        return {"pending_jobs": jobs["pending"], "running_jobs": jobs["running"],
                "failed_jobs": jobs["failed"], "generation": self.ledger.generation(),
                "batches": self.batches, "last_batch_claimed": last.claimed,
                "last_batch_done": last.done, "last_batch_failed": last.failed,
                "last_batch_ms": round(last.seconds * 1000.0, 3),
                "deferred_jobs": jobs["deferred"],
                "encoder": self.consolidator.encoder.name, "db_path": str(self.ledger.path),
                **_gate_state(self.consolidator.gate)}

    def health(self, values: dict[str, Any]) -> tuple[str, str]:
        failed = int(values["failed_jobs"])
        recent = 0 if self._failed_reported is None else max(0, failed - self._failed_reported)
        self._failed_reported = failed
        return consolidation_health(int(values["pending_jobs"]), recent,
                                    int(self.params.opts["warn_lag_jobs"]),
                                    int(self.params.opts["error_lag_jobs"]))


def _gate_state(gate: Any) -> dict[str, Any]:
    """The extractor selector's state (mode, device, GPU admission) where it has one."""
    state = getattr(gate, "state", None)
    return state() if callable(state) else {}


def main(args: list[str] | None = None) -> int:
    return run(ConsolidationNode, args)


if __name__ == "__main__":
    sys.exit(main())
