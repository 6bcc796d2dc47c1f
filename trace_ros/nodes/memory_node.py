"""memory_node: the fast path. Events in, durable source records out, one Ack each.

Events come one per message (memory/dialogue, memory/perception; one Ack each on
memory/ack) or many per message (memory/events, an EventBatch; one AckBatch on
memory/acks, sent once every element has its result).

Subscriptions take serialized bytes and decode them here, so a malformed message
(truncated, invalid UTF-8) is answered with a ``rejected`` Ack instead of
raising inside the executor. Acks for stored events are published by the
writer's answering thread once their group commit is on disk (``Ledger.sync``):
acknowledged = durable.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.executors import Executor
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

from trace_ros import gcfreeze
from trace_ros.capture import Event, GroupCommitWriter
from trace_ros.config import MemoryConfig
from trace_ros.errors import TraceError, ValidationError
from trace_ros.health import capture_health
from trace_ros.ledger import Ledger, StoreResult
from trace_ros.msg import Ack, AckBatch, DialogueEvent, EventBatch, PerceptionEvent
from trace_ros.nodes import convert
from trace_ros.nodes.common import (
    ACK_TOPIC,
    ACKS_TOPIC,
    DIALOGUE_TOPIC,
    EVENTS_TOPIC,
    FORGET_SERVICE,
    PERCEPTION_TOPIC,
    clock_seconds,
    make_executor,
)
from trace_ros.nodes.managed import ManagedNode, run
from trace_ros.nodes.params import NodeParam
from trace_ros.paramspec import ParamSpec
from trace_ros.srv import Forget
from trace_ros.storage import open_ledger
from trace_ros.syncloop import SyncLoop, loop_for

OWN: dict[str, NodeParam] = {
    "qos_depth": NodeParam(1000, ParamSpec(
        "History depth (KEEP_LAST, RELIABLE) of the event subscriptions; the ack publisher "
        "keeps max(qos_depth, capture.queue_depth)", min=1, max=1_000_000)),
    "qos_reliability": NodeParam("reliable", ParamSpec(
        "Reliability of the event subscriptions and the ack publisher: reliable (no event "
        "lost while the history has room) or best_effort (for lossy links; losses are "
        "counted in /diagnostics)", choices=("reliable", "best_effort"))),
    "executor": NodeParam("events", ParamSpec(
        "Executor when run alone: events (rclpy's EventsExecutor) or single",
        choices=("events", "single"))),
    "warn_queue_ratio": NodeParam(0.5, ParamSpec(
        "/diagnostics WARN when the writer queue is this full (share of capture.queue_depth)",
        dynamic=True, min=0.0, max=1.0)),
    "error_queue_ratio": NodeParam(0.9, ParamSpec(
        "/diagnostics ERROR when the writer queue is this full", dynamic=True, min=0.0,
        max=1.0)),
}


def reliable(depth: int, reliability: str = "reliable") -> QoSProfile:
    """KEEP_LAST ``depth``; RELIABLE unless ``reliability`` is best_effort."""
    policy = (ReliabilityPolicy.BEST_EFFORT if reliability == "best_effort"
              else ReliabilityPolicy.RELIABLE)
    return QoSProfile(depth=max(1, depth), history=HistoryPolicy.KEEP_LAST, reliability=policy)


class MemoryNode(ManagedNode):
    NAME = "memory_node"
    OWN = OWN

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ledger: Ledger | None = None
        self.writer: GroupCommitWriter | None = None
        self.last_batch = (0, 0.0)
        self.dropped = 0
        self._dropped_reported = 0
        self.acks: Any = None
        self.ack_batches: Any = None
        self._event_subs: list[Any] = []
        self._forget: Any = None
        self.sync: SyncLoop | None = None

    def configure(self, config: MemoryConfig) -> None:
        self.ledger = open_ledger(config.ledger_url, config.ledger)
        self.get_logger().info(f"capturing into {self.ledger.path}")

    def activate(self) -> None:
        assert self.config is not None and self.ledger is not None
        self.writer = GroupCommitWriter(self.ledger, self.config.capture, on_batch=self._on_batch,
                                        clock=partial(clock_seconds, self),
                                        answer_group=self._answer_group)
        depth = int(self.params.opts["qos_depth"])
        policy = str(self.params.opts["qos_reliability"])
        self.acks = self.create_publisher(
            Ack, ACK_TOPIC, reliable(max(depth, self.config.capture.queue_depth), policy))
        lost = SubscriptionEventCallbacks(message_lost=self._on_lost)
        self._event_subs = [
            self.create_subscription(msg_type, topic, partial(self._on_event, msg_type, to_event),
                                     reliable(depth, policy), raw=True, event_callbacks=lost)
            for msg_type, topic, to_event in (
                (DialogueEvent, DIALOGUE_TOPIC, convert.dialogue_to_event),
                (PerceptionEvent, PERCEPTION_TOPIC, convert.perception_to_event))]
        self.ack_batches = self.create_publisher(
            AckBatch, ACKS_TOPIC, reliable(depth, policy))
        self._event_subs.append(self.create_subscription(
            EventBatch, EVENTS_TOPIC, self._on_batch_event, reliable(depth, policy), raw=True,
            event_callbacks=lost))
        self._forget = self.create_service(Forget, FORGET_SERVICE, self._on_forget)
        log = self.get_logger()
        self.sync = loop_for(self.ledger, self.config, on_error=log.error, on_recover=log.info)
        if self.sync is not None:  # pushes this ledger to sync.to_url on its own thread
            log.info(f"syncing to {self.sync.target_name} every "
                     f"{self.config.sync.period_s:g} s")
            self.sync.start()
        # What exists now lives as long as the capture: kept out of the collector's sight,
        # a full collection during capture walks only what capture made since (issue 16,
        # bench capture: one of ~25 ms with the GIL held, every event in flight waiting,
        # against ~0.3 ms). Counted: a query node in the same process holds it too.
        gcfreeze.hold(self.gc_holder)

    def deactivate(self) -> None:
        gcfreeze.release(self.gc_holder)  # the collector's again, once no node holds it
        if self.sync is not None:
            self.sync.stop()
            self.sync = None
        for sub in self._event_subs:
            self.destroy_subscription(sub)
        self._event_subs = []
        self.destroy_service(self._forget)
        if self.writer is not None:
            self.writer.close()  # commits and acknowledges what is queued
            self.writer = None
        self.destroy_publisher(self.acks)
        self.acks = None
        self.destroy_publisher(self.ack_batches)
        self.ack_batches = None

    def cleanup(self) -> None:
        if self.ledger is not None:
            self.ledger.close()
            self.ledger = None

    def preferred_executor(self) -> Executor:
        return make_executor(str(self.params.opts["executor"]), self.context)

    def _on_event(self, msg_type: type, to_event: Callable[[Any], Event], raw: bytes) -> None:
        msg = None
        try:
            msg, problem = convert.read_event(raw, msg_type)
            if problem is not None:
                raise problem
            writer = self.writer
            if writer is None:
                raise ValidationError("node", "memory_node is not active")
            writer.submit(to_event(msg), _AckTo(msg.header, self._ack))
        except ValidationError as exc:
            self._reject(msg, exc.field, exc.reason)
        except Exception as exc:  # noqa: BLE001 - a bad message must never stop the node
            self._reject(msg, "message", f"cannot be handled: {exc!r}")

    def _on_batch_event(self, raw: bytes) -> None:
        """An EventBatch: every element submitted as if it had come alone, and the batch
        answered by one AckBatch once every element has its result (accepted = durable)."""
        try:
            self._handle_batch(raw)
        except Exception as exc:  # noqa: BLE001 - a bad message must never stop the node
            self.get_logger().error(f"could not handle an EventBatch: {exc!r}")

    def _handle_batch(self, raw: bytes) -> None:
        try:
            header, items = convert.batch_events(raw)
        except ValidationError as exc:
            self._publish_batch(None, [(StoreResult("", "rejected", exc.field, exc.reason),
                                        None)])
            return
        writer = self.writer
        answer = _BatchAnswer(header, [msg.header for msg, _, _ in items], self._publish_batch)
        todo: list[tuple[Any, Callable[[StoreResult], None]]] = []
        for i, (msg, to_event, problem) in enumerate(items):
            done = partial(answer.done, i)
            if problem is None and writer is None:
                problem = ValidationError("node", "memory_node is not active")
            try:
                if problem is not None:
                    raise problem
                todo.append((to_event(msg), done))
            except ValidationError as exc:
                done(StoreResult("" if exc.field.startswith("source_id") else msg.source_id,
                                 "rejected", exc.field, exc.reason))
            except Exception as exc:  # noqa: BLE001 - a bad element must never stop the node
                done(StoreResult(msg.source_id, "rejected", "message",
                                 f"cannot be handled: {exc!r}"))
        if todo:
            assert writer is not None
            writer.submit_many(todo)
        answer.submitted()

    def _publish_batch(self, header: Any, acks: list[tuple[StoreResult, Any]]) -> None:
        for result, _ in acks:
            if result.status == "rejected":
                self.get_logger().warning(f"rejected {result.source_id or '<no id>'}: "
                                          f"{result.field}: {result.reason}")
        publisher = self.ack_batches
        if publisher is not None:
            publisher.publish(convert.ack_batch_bytes(header, acks))

    def _reject(self, msg: Any, field: str, reason: str) -> None:
        try:
            source_id = msg.source_id if msg is not None and not field.startswith("source_id") \
                else ""
            self._ack(msg.header if msg is not None else None,
                      StoreResult(source_id, "rejected", field, reason))
        except Exception as exc:  # noqa: BLE001 - not even a failed ack may stop the node
            self.get_logger().error(f"could not answer a rejected message: {exc!r}")

    def _ack(self, header: Any, result: StoreResult) -> None:
        if result.status == "rejected":
            self._log_rejected(result)
        acks = self.acks
        if acks is not None:
            acks.publish(convert.result_to_ack_bytes(result, header))

    def _log_rejected(self, result: StoreResult) -> None:
        self.get_logger().warning(
            f"rejected {result.source_id or '<no id>'}: {result.field}: {result.reason}")

    def _answer_group(self, answers: list[tuple[Callable[[StoreResult], None],
                                                StoreResult]]) -> None:
        """A committed group's answers (on the writer's answering thread): every Ack's
        bytes first, then the publishes back to back, instead of a callback per event
        that made and published one Ack (issue 16, bench capture alternating with the
        callback per event, load 17-21: this thread's CPU 40-43 -> 31-33 us an event).
        Other callbacks (an EventBatch's elements) are called."""
        ready: list[bytes] = []
        for callback, result in answers:
            try:
                if type(callback) is _AckTo:
                    if result.status == "rejected":
                        self._log_rejected(result)
                    ready.append(convert.result_to_ack_bytes(result, callback.header))
                else:
                    callback(result)
            except Exception as exc:  # noqa: BLE001 - one bad answer must not stop the rest
                self.get_logger().error(f"could not answer an event: {exc!r}")
        publisher = self.acks
        if publisher is None:
            return
        try:
            for data in ready:
                publisher.publish(data)
        except Exception as exc:  # noqa: BLE001 - e.g. the publisher destroyed meanwhile
            self.get_logger().error(f"could not publish acks: {exc!r}")

    def _on_lost(self, info: Any) -> None:
        """Events the middleware reports lost (history overflow, best-effort gaps)."""
        self.dropped += int(info.total_count_change)

    def _on_batch(self, size: int, seconds: float) -> None:
        self.last_batch = (size, seconds)

    def _on_forget(self, request: Forget.Request, response: Forget.Response) -> Forget.Response:
        try:
            scope, ids, allow = convert.forget_args(request)
            assert self.ledger is not None
            removed = self.ledger.forget(scope, ids, allow, now=clock_seconds(self))
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

    def diagnostics(self) -> dict[str, Any]:
        assert self.ledger is not None and self.writer is not None
        jobs = self.ledger.jobs_not_done()
        size, seconds = self.last_batch
        return {"queue_depth": self.writer.depth, "committed": self.writer.committed,
                "batches": self.writer.batches, "last_batch_size": size,
                "postings_indexed": self.writer.indexed,
                "postings_index_errors": self.writer.index_errors,
                "sync_errors": self.writer.sync_errors,  # commits never made durable
                # WAL checkpoints the writer's thread could not make (3 in a row: the
                # commits checkpoint again)
                "checkpoint_errors": self.writer.checkpoint_errors,
                "last_batch_ms": round(seconds * 1000.0, 3), "pending_jobs": jobs["pending"],
                "generation": self.ledger.generation(), "db_path": str(self.ledger.path),
                "dropped_events": self.dropped,
                **(self.sync.state() if self.sync is not None else {"sync_state": "off"})}

    def health(self, values: dict[str, Any]) -> tuple[str, str]:
        assert self.config is not None
        recent = int(values["dropped_events"]) - self._dropped_reported
        self._dropped_reported = int(values["dropped_events"])
        opts = self.params.opts
        return capture_health(int(values["queue_depth"]), self.config.capture.queue_depth, recent,
                              float(opts["warn_queue_ratio"]), float(opts["error_queue_ratio"]))


class _AckTo:
    """What answers one event of memory/dialogue or memory/perception: called with its
    result (a rejection, on the submitter's thread), it publishes the Ack at once; the
    writer's answering thread hands whole groups to ``MemoryNode._answer_group``, which
    publishes their Acks together."""

    __slots__ = ("ack", "header")

    def __init__(self, header: Any, ack: Callable[[Any, StoreResult], None]) -> None:
        self.header, self.ack = header, ack

    def __call__(self, result: StoreResult) -> None:
        self.ack(self.header, result)


class _BatchAnswer:
    """Collects the results of one EventBatch's elements (from the writer's answering
    thread, or at once for a rejection) and publishes them together when the last one is
    in."""

    def __init__(self, header: Any, headers: list[Any],
                 publish: Callable[[Any, list[tuple[StoreResult, Any]]], None]) -> None:
        self.header, self.headers, self.publish = header, headers, publish
        self.results: list[StoreResult | None] = [None] * len(headers)
        self.left = len(headers) + 1  # +1 until every element was handed on
        self.lock = threading.Lock()

    def done(self, index: int, result: StoreResult) -> None:
        self.results[index] = result
        self._one_less()

    def submitted(self) -> None:
        self._one_less()

    def _one_less(self) -> None:
        with self.lock:
            self.left -= 1
            if self.left:
                return
        self.publish(self.header, [(r, h) for r, h in zip(self.results, self.headers,
                                                           strict=True) if r is not None])


def main(args: list[str] | None = None) -> int:
    return run(MemoryNode, args)


if __name__ == "__main__":
    sys.exit(main())
