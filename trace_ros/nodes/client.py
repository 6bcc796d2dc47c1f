"""An in-process client of the memory nodes (demo, benchmark, tests).

``MemoryClient`` owns a private rclpy context and node, spins them on a
background thread, publishes events, collects Acks and diagnostics, and calls
the services. Every wait takes a timeout; ``close()`` stops the thread.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import rclpy
from diagnostic_msgs.msg import DiagnosticArray

from trace_ros.msg import Ack, AckBatch, DialogueEvent, EventBatch, PerceptionEvent
from trace_ros.msg import Scope as ScopeMsg
from trace_ros.nodes import cdr
from trace_ros.nodes.common import (
    ACK_TOPIC,
    ACKS_TOPIC,
    DIAGNOSTICS_TOPIC,
    DIALOGUE_TOPIC,
    EVENTS_TOPIC,
    FORGET_SERVICE,
    PERCEPTION_TOPIC,
    QUERY_SERVICE,
    diagnostics_values,
    make_executor,
    spin_until_shutdown,
)
from trace_ros.nodes.convert import seconds_to_stamp
from trace_ros.nodes.logdir import ensure_log_dir
from trace_ros.nodes.memory_node import reliable
from trace_ros.srv import Forget, Query


def make_dialogue(subject_id: str, text: str, *, speaker: str = "", session_id: str = "",
                  robot_id: str = "", source_id: str = "", stamp: float = 0.0,
                  payload_json: str = "") -> DialogueEvent:
    msg = DialogueEvent(source_id=source_id, speaker=speaker, text=text,
                        payload_json=payload_json)
    msg.scope = ScopeMsg(subject_id=subject_id, robot_id=robot_id, session_id=session_id)
    msg.header.stamp = seconds_to_stamp(stamp)
    return msg


def make_perception(subject_id: str, label: str, description: str = "", *, actor: str = "",
                    confidence: float = 1.0, frame_id: str = "",
                    xyz: tuple[float, float, float] | None = None, session_id: str = "",
                    robot_id: str = "", source_id: str = "", stamp: float = 0.0,
                    payload_json: str = "") -> PerceptionEvent:
    """A perception event; with ``xyz`` it carries a pose in ``frame_id``."""
    msg = PerceptionEvent(source_id=source_id, actor=actor, label=label,
                          description=description, confidence=confidence,
                          payload_json=payload_json)
    msg.scope = ScopeMsg(subject_id=subject_id, robot_id=robot_id, session_id=session_id)
    msg.header.stamp = seconds_to_stamp(stamp)
    if xyz is not None:
        msg.has_pose = True
        msg.pose.header.frame_id = frame_id
        msg.pose.header.stamp = msg.header.stamp
        position = msg.pose.pose.position
        position.x, position.y, position.z = (float(v) for v in xyz)
        msg.pose.pose.orientation.w = 1.0
    return msg


def read_ack(raw: bytes) -> Any:
    """An Ack's fields (``source_id``, ``status``, ...) from its serialized bytes."""
    return cdr.decode(raw, Ack).fields


def read_ack_batch(raw: bytes) -> Any:
    """An AckBatch's fields (``header``, ``acks``: each with an Ack's fields) from its
    serialized bytes."""
    return cdr.decode(raw, AckBatch).fields


def make_batch(events: list[DialogueEvent | PerceptionEvent], frame_id: str = "") -> EventBatch:
    """One EventBatch holding ``events`` (its AckBatch answers the dialogue events first,
    then the perception events, each in the order given)."""
    batch = EventBatch(dialogue=[e for e in events if isinstance(e, DialogueEvent)],
                       perception=[e for e in events if isinstance(e, PerceptionEvent)])
    batch.header.frame_id = frame_id
    return batch


class MemoryClient:
    def __init__(self, name: str = "memory_client", *, qos_depth: int = 1000,
                 ack_depth: int = 10000, on_ack: Callable[[Any], None] | None = None,
                 executor: str = "events", keep_acks: bool = True, namespace: str = "",
                 raw_acks: bool = False,
                 on_ack_batch: Callable[[bytes], None] | None = None) -> None:
        """``namespace``: the robot's namespace the memory nodes run in (empty: root).
        ``raw_acks``: ``on_ack`` gets each Ack as its serialized bytes (``read_ack`` reads
        them), which costs a publisher far less than a message object per Ack, and
        ``on_ack_batch`` each AckBatch's bytes (``read_ack_batch``); nothing is kept then
        (``keep_acks`` must be False). Without it, the Acks of an AckBatch (answering
        ``publish_batch``) are handled one by one like those of single events."""
        if raw_acks and keep_acks:
            raise ValueError("raw_acks needs keep_acks=False")
        self.context = rclpy.Context()
        ensure_log_dir()
        rclpy.init(context=self.context)
        # A client needs no parameter services (fewer entities to wait on).
        self.node = rclpy.create_node(name, context=self.context, namespace=namespace,
                                      start_parameter_services=False)
        self.namespace = self.node.get_namespace()
        self.on_ack = on_ack
        self.keep_acks = keep_acks
        self.acks: list[Ack] = []
        self.ack_by_id: dict[str, Ack] = {}
        self.diagnostics: dict[str, dict[str, str]] = {}
        self._cond = threading.Condition()
        # wait_ready's empty EventBatches carry frame_id PREFIX + n; ``_probe`` is the one
        # awaited ("" once answered); answers to any of them never reach on_ack_batch
        self._probe_prefix = f"trace_ros/probe/{uuid.uuid4().hex}/"
        self._probe_mark = self._probe_prefix.encode()
        self._probes = 0
        self._probe = ""
        node = self.node
        self.dialogue_pub = node.create_publisher(
            DialogueEvent, DIALOGUE_TOPIC, reliable(qos_depth))
        self.perception_pub = node.create_publisher(
            PerceptionEvent, PERCEPTION_TOPIC, reliable(qos_depth))
        self.ack_sub = node.create_subscription(Ack, ACK_TOPIC, self._on_ack,
                                                reliable(ack_depth), raw=raw_acks)
        self.batch_pub = node.create_publisher(EventBatch, EVENTS_TOPIC, reliable(qos_depth))
        self.on_ack_batch = on_ack_batch
        self.ack_batch_sub = node.create_subscription(
            AckBatch, ACKS_TOPIC, self._on_ack_batch, reliable(ack_depth), raw=raw_acks)
        node.create_subscription(DiagnosticArray, DIAGNOSTICS_TOPIC, self._on_diagnostics, 50)
        self.query_client = node.create_client(Query, QUERY_SERVICE)
        self.forget_client = node.create_client(Forget, FORGET_SERVICE)
        self._state_clients: dict[str, Any] = {}  # get_state's, by service name
        self.executor = make_executor(executor, self.context)
        self.executor.add_node(node)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, name=f"{name}-spin", daemon=True)
        self._thread.start()

    # -- background spinning ---------------------------------------------------

    def _spin(self) -> None:
        try:
            spin_until_shutdown(self.executor, self.context, self._stop.is_set)
        except Exception:  # noqa: BLE001 - the context was shut down under us: just stop
            pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5.0)
        self.executor.shutdown(timeout_sec=5.0)
        self.node.destroy_node()
        self.context.try_shutdown()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- callbacks -------------------------------------------------------------------

    def _on_ack(self, ack: Any) -> None:
        if self.on_ack is not None:
            self.on_ack(ack)
        if self.keep_acks:
            with self._cond:
                self.acks.append(ack)
                self.ack_by_id[ack.source_id] = ack
                self._cond.notify_all()

    def _on_ack_batch(self, batch: Any) -> None:
        if self._is_probe_answer(batch):
            return
        if isinstance(batch, bytes):
            if self.on_ack_batch is not None:
                self.on_ack_batch(batch)
            return
        for ack in batch.acks:
            self._on_ack(ack)

    def _is_probe_answer(self, batch: Any) -> bool:
        if isinstance(batch, bytes):
            if self._probe_mark not in batch:  # a byte search: no decoding of real batches
                return False
            batch = read_ack_batch(batch)
        frame_id = batch.header.frame_id
        if not frame_id.startswith(self._probe_prefix):
            return False
        with self._cond:
            if frame_id == self._probe:
                self._probe = ""
                self._cond.notify_all()
        return True

    def _on_diagnostics(self, array: DiagnosticArray) -> None:
        for name in ("memory_node", "consolidation_node", "query_node"):
            values = diagnostics_values(array, name, self.namespace)
            if values is not None:
                with self._cond:
                    self.diagnostics[name] = values
                    self._cond.notify_all()

    # -- waiting -----------------------------------------------------------------------

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` (checked on every ack/diagnostics) or the deadline."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(min(remaining, 0.1))
        return True

    def wait_ready(self, timeout: float, *, capture: bool = True, query: bool = False,
                   forget: bool = False, batch: bool = False) -> bool:
        """Wait until the memory node's topics and the asked services are connected
        (``batch``: also memory/events and memory/acks, for ``publish_batch``).

        For capture, seeing the node's topics is not enough: DDS matches each side on its
        own, so the client can see the node's ack publishers before they have matched the
        client, and an ack sent in between is lost (volatile durability). So the client
        then sends an empty EventBatch and waits for its (empty) AckBatch: nothing is
        stored, and once it is back the node has matched this client's subscriptions
        (discovery sends a participant's endpoints in order, reliably, and the Ack
        subscription is made before the AckBatch one)."""
        deadline = time.monotonic() + timeout
        capture = capture or batch

        def ready() -> bool:
            if capture and not (self.dialogue_pub.get_subscription_count()
                                and self.perception_pub.get_subscription_count()
                                and self.ack_sub.get_publisher_count()
                                and self.batch_pub.get_subscription_count()
                                and self.ack_batch_sub.get_publisher_count()):
                return False
            if query and not self.query_client.service_is_ready():
                return False
            return not (forget and not self.forget_client.service_is_ready())
        if not self.wait_for(ready, timeout):
            return False
        return not capture or self._round_trip(deadline)

    def _round_trip(self, deadline: float) -> bool:
        """An empty EventBatch answered before ``deadline`` (resent every 0.5 s)."""
        while True:
            with self._cond:
                self._probes += 1
                self._probe = probe = f"{self._probe_prefix}{self._probes}"
            self.batch_pub.publish(make_batch([], frame_id=probe))
            if self.wait_for(lambda: not self._probe,
                             min(0.5, deadline - time.monotonic())):
                return True
            if time.monotonic() >= deadline:
                return False

    def wait_acks(self, source_ids: list[str], timeout: float) -> dict[str, Ack]:
        """Acks of ``source_ids`` that arrived before the deadline (by source_id)."""
        wanted = set(source_ids)
        self.wait_for(lambda: wanted.issubset(self.ack_by_id), timeout)
        with self._cond:
            return {s: self.ack_by_id[s] for s in source_ids if s in self.ack_by_id}

    def wait_diagnostics(self, node_name: str, predicate: Callable[[dict[str, str]], bool],
                         timeout: float) -> dict[str, str] | None:
        """Latest diagnostics of ``node_name`` that satisfy ``predicate`` (None at the deadline)."""
        ok = self.wait_for(lambda: node_name in self.diagnostics
                           and predicate(self.diagnostics[node_name]), timeout)
        return self.diagnostics.get(node_name) if ok else None

    # -- calls -------------------------------------------------------------------------------

    def publish(self, msg: DialogueEvent | PerceptionEvent) -> None:
        (self.dialogue_pub if isinstance(msg, DialogueEvent) else self.perception_pub).publish(msg)

    def publish_batch(self, batch: EventBatch | list[DialogueEvent | PerceptionEvent]) -> None:
        """Many events in one message (``make_batch``), answered by one AckBatch."""
        self.batch_pub.publish(batch if isinstance(batch, EventBatch) else make_batch(batch))

    def _call(self, client: Any, request: Any, timeout: float, *,
              read_only: bool = False) -> Any:
        """``request``'s reply from ``client``'s service within ``timeout`` seconds, or
        ``TimeoutError``.

        ``read_only``: the call changes nothing (a query, ``get_state``), so a lost reply
        may be asked again: when no reply came within half the time left once the
        service was found, the request is sent once more, and the first reply to either
        before the deadline is taken (a slow first reply still counts). A service can
        drop a reply it cannot deliver (rmw: "failed to send response (timeout)" while
        the reply's path to this client is still being matched). A write (forget,
        ``change_state``) is never sent twice."""
        deadline = time.monotonic() + timeout
        if not client.wait_for_service(timeout_sec=timeout):
            raise TimeoutError(f"service {client.srv_name} not available after {timeout:.0f} s")
        done = threading.Event()
        futures: list[Any] = []
        for sends_left in range(2 if read_only else 1, 0, -1):
            futures.append(client.call_async(request))
            futures[-1].add_done_callback(lambda _f: done.set())
            if done.wait(max(0.0, deadline - time.monotonic()) / sends_left):
                break
        answered = next((f for f in futures if f.done()), None)
        for future in futures:  # no reply is awaited any more (a done one is gone already)
            client.remove_pending_request(future)
        if answered is None:
            raise TimeoutError(f"service {client.srv_name} did not answer in {timeout:.0f} s")
        return answered.result()

    def get_state(self, node_name: str, timeout: float = 30.0) -> Any:
        """The lifecycle state (``lifecycle_msgs/State``) of the managed node
        ``node_name`` (relative to this client's namespace), asked as a read-only call."""
        from lifecycle_msgs.srv import GetState

        name = f"{node_name}/get_state"
        client = self._state_clients.get(name)
        if client is None:
            client = self._state_clients[name] = self.node.create_client(GetState, name)
        return self._call(client, GetState.Request(), timeout, read_only=True).current_state

    def query(self, subject_id: str, question: str, timeout: float = 30.0, *,
              robot_id: str = "", session_id: str = "", token_budget: int = 0,
              region: tuple[str, float, float, float, float] | None = None,
              window: tuple[float, float] = (0.0, 0.0), asker: str = "") -> Query.Response:
        """``region``: (frame, x, y, z, radius); ``window``: source-time bounds (0: open);
        ``asker``: who asks (whose "I" and "my" the question means)."""
        request = Query.Request(scope=ScopeMsg(subject_id=subject_id, robot_id=robot_id,
                                               session_id=session_id),
                                question=question, token_budget=token_budget, asker=asker,
                                window_start=seconds_to_stamp(window[0]),
                                window_end=seconds_to_stamp(window[1]))
        if region is not None:
            frame, x, y, z, radius = region
            request.has_region = True
            request.region_center.header.frame_id = frame
            point = request.region_center.point
            point.x, point.y, point.z = float(x), float(y), float(z)
            request.region_radius = float(radius)
        return self._call(self.query_client, request, timeout, read_only=True)

    def forget(self, subject_id: str = "", source_ids: list[str] | None = None,
               allow_reingest: bool = False, timeout: float = 30.0) -> Forget.Response:
        request = Forget.Request(scope=ScopeMsg(subject_id=subject_id),
                                 source_ids=list(source_ids or []), allow_reingest=allow_reingest)
        return self._call(self.forget_client, request, timeout)
