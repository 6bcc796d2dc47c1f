"""query_node: serves memory/query from the ledger through the engine's QueryEngine.

While its service is up it keeps a presence record of the ledger (``trace_ros.presence``),
its heartbeat refreshed every ``presence_period_s``: ``trace-ros query`` reads it and asks
this node at once instead of listening on DDS for one. The record also names the node's
Unix socket (``trace_ros.nodeask``), where a command of this host asks without DDS; both
ways are answered by the same engine, one question at a time.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.executors import Executor, MultiThreadedExecutor
from rclpy.node import Node

from trace_ros import gcfreeze
from trace_ros.admission import lease_file_for
from trace_ros.config import MemoryConfig
from trace_ros.errors import ModelUnavailableError, ValidationError
from trace_ros.health import query_health
from trace_ros.ledger import Ledger, Scope
from trace_ros.nodeask import AskServer, request_fields
from trace_ros.nodes import convert
from trace_ros.nodes.common import QUERY_SERVICE, clock_seconds
from trace_ros.nodes.managed import ManagedNode, run, shared_encoder
from trace_ros.nodes.params import NodeParam
from trace_ros.paramspec import ParamSpec
from trace_ros.presence import Announcer
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.query.readers import ExtractiveReader, Reader, make_reader
from trace_ros.query.result import QueryResult
from trace_ros.srv import Query
from trace_ros.storage import open_ledger


def load_reader(config: MemoryConfig, node: Node) -> Reader:
    """The configured reader; where no model reader can be loaded, the extractive one
    answers (and says so in every response's ``reader``)."""
    lease_path = lease_file_for(config.db_path)
    try:
        return make_reader(config.reader, lease_path)
    except ModelUnavailableError as exc:
        node.get_logger().error(f"reader.kind={config.reader.kind!r} unavailable ({exc}); "
                                "answering with the extractive reader")
        return ExtractiveReader()


WARM_WAIT_S = 10.0  # the longest activate waits for warm-up's thread before freezing

OWN: dict[str, NodeParam] = {
    "presence_period_s": NodeParam(1.0, ParamSpec(
        "Seconds between refreshes of this node's presence record (trace_ros.presence), "
        "which `trace-ros query` reads to ask this node; stale after 3 missed beats",
        min=0.1, max=60.0)),
}


class QueryNode(ManagedNode):
    NAME = "query_node"
    OWN = OWN

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ledger: Ledger | None = None
        self.reader: Reader | None = None
        self.engine: QueryEngine | None = None
        self.service: Any = None
        self.presence: Announcer | None = None
        self.socket: AskServer | None = None
        self._beat: Any = None
        self._warming: threading.Thread | None = None
        # The engine answers one question at a time, from ROS or from the socket.
        self._asking = threading.Lock()
        self.served = 0
        self.errors = 0
        self.failures = 0
        self._failures_reported = 0

    def configure(self, config: MemoryConfig) -> None:
        self.ledger = open_ledger(config.ledger_url, config.ledger)
        encoder = shared_encoder(config.embed)
        started = time.monotonic()
        self.get_logger().info(f"loading encoder {encoder.name} on {config.embed.device}")
        encoder.encode(["warm up"])  # loads the weights, so the first query is fast
        self.get_logger().info(f"encoder ready in {time.monotonic() - started:.1f} s")
        self.reader = load_reader(config, self)
        # config.recall is the live object: `ros2 param set` changes reach the engine.
        self.engine = QueryEngine(self.ledger, encoder, self.reader, config.recall)
        self._warming = self.engine.warm()  # patterns, dateparser: on its own thread
        self.get_logger().info(f"answering from {self.ledger.path} with the "
                               f"{self.reader.name} reader")

    def activate(self) -> None:
        self._serve()
        # What configure loaded (models, the ledger's caches, every module imported) lives
        # as long as the node: kept out of the collector's sight, a full collection while
        # answering walks only what came after (issue 16: ~200 ms with the GIL held, the
        # question waiting, against a few ms). Warm-up's own thread finishes first, so
        # what it loads is kept aside too; counted, so that a memory node in the same
        # process does not hand it back to the collector on its deactivate.
        if self._warming is not None:
            self._warming.join(timeout=WARM_WAIT_S)
            self._warming = None
        gcfreeze.hold(self.gc_holder)

    def _serve(self) -> None:
        self.service = self.create_service(Query, QUERY_SERVICE, self._on_query,
                                           callback_group=MutuallyExclusiveCallbackGroup())
        assert self.config is not None
        period = float(self.params.opts["presence_period_s"])
        self.presence = Announcer(
            self.config.ledger_url, node=self.get_fully_qualified_name(),
            namespace=self.get_namespace(), service=self.resolve_service_name(QUERY_SERVICE),
            domain_id=self.context.get_domain_id(), period_s=period)
        self._open_socket(self.presence.socket_path())
        try:
            self.presence.announce()
        except OSError as exc:
            self.get_logger().warning(f"no presence record ({exc}): `trace-ros query` finds "
                                      "this node only with --via ros")
            self.presence = None
            if self.socket is not None:  # named nowhere: no one would ask there
                self.socket.close()
                self.socket = None
            return
        self._beat = self.create_timer(period, self._on_beat,
                                       callback_group=MutuallyExclusiveCallbackGroup())

    def _open_socket(self, path: Path) -> None:
        """Listen on ``path`` and name it in the presence record; without it (a folder
        that cannot hold a socket) commands ask over ROS."""
        assert self.presence is not None
        server = AskServer(path, self._on_socket)
        try:
            server.start()
        except OSError as exc:
            self.get_logger().warning(f"no Unix socket at {path} ({exc}): `trace-ros query` "
                                      "asks this node over ROS")
            return
        self.socket = server
        self.presence.offer_socket(path)

    def _on_beat(self) -> None:
        if self.presence is None:
            return
        try:
            self.presence.beat()
        except OSError as exc:  # tried again on the next beat
            self.get_logger().warning(f"presence record not refreshed: {exc}",
                                      throttle_duration_sec=60.0)

    def deactivate(self) -> None:
        gcfreeze.release(self.gc_holder)  # the collector's again, once no node holds it
        if self._beat is not None:
            self.destroy_timer(self._beat)
            self._beat = None
        if self.presence is not None:
            self.presence.withdraw()
            self.presence = None
        if self.socket is not None:
            self.socket.close()
            self.socket = None
        self.destroy_service(self.service)
        self.service = None

    def cleanup(self) -> None:
        close_reader = getattr(self.reader, "close", None)
        if close_reader is not None:
            close_reader()  # releases its GPU lease
        if self.engine is not None:
            self.engine.close()  # writes the queued audit rows
        if self.ledger is not None:
            self.ledger.close()
        self.ledger = self.reader = self.engine = None

    def preferred_executor(self) -> Executor:
        return MultiThreadedExecutor(num_threads=2, context=self.context)

    def _ask(self, request: Callable[[], QueryRequest]) -> tuple[QueryResult | None, str, str]:
        """The engine's answer to ``request()``, one question at a time whichever way it
        came: (result, '', reader) or (None, the error to answer, reader)."""
        self.served += 1
        engine = self.engine
        reader_name = self.reader.name if self.reader is not None else ""
        try:
            if engine is None:
                raise RuntimeError("query_node is not configured")
            req = request()
            with self._asking:
                return engine.ask(req, now=clock_seconds(self)), "", reader_name
        except ValidationError as exc:
            self.errors += 1
            return None, f"{exc.field}: {exc.reason}", reader_name
        except Exception as exc:  # noqa: BLE001 - answered as an error, never a crash
            self.errors += 1
            self.failures += 1
            self.get_logger().error(f"query failed: {exc!r}")
            return None, f"query failed: {exc}", reader_name

    def _on_query(self, request: Query.Request, response: Query.Response) -> Query.Response:
        result, error, reader_name = self._ask(lambda: convert.query_request_from_msg(request))
        if result is None:
            response.status = Query.Response.STATUS_ERROR
            response.message = convert.printable(error)
            response.reader = reader_name
            return response
        return convert.query_result_to_response(result, response)

    def _on_socket(self, data: Any) -> dict[str, Any]:
        """A question from the Unix socket (``trace_ros.nodeask``): the
        ``QueryResult.to_dict()`` of the same engine, or ``{"status": "error",
        "message"}`` as the service would answer."""
        def request() -> QueryRequest:
            f = request_fields(data)
            return QueryRequest(Scope(f["subject"], f["robot"], f["session"]), f["question"],
                                as_of_valid=f["as_of_valid"], as_of_known=f["as_of_known"],
                                token_budget=f["token_budget"], asker=f["asker"])

        result, error, reader_name = self._ask(request)
        if result is None:
            return {"status": "error", "message": error, "reader": reader_name}
        return result.to_dict()

    def diagnostics(self) -> dict[str, Any]:
        assert self.ledger is not None and self.reader is not None
        values: dict[str, Any] = {
            "generation": self.ledger.generation(), "reader": self.reader.name,
            "queries_served": self.served, "query_errors": self.errors,
            "query_failures": self.failures,
            "db_path": str(self.ledger.path)}
        decision = getattr(self.reader, "decision", None)
        if decision is not None:
            values["gpu_admission"] = "admitted" if decision.admitted else "refused"
            values["gpu_admission_reason"] = decision.reason
        device = getattr(self.reader, "device", None)
        if device is not None:
            values["reader_device"] = device
        admission = getattr(self.reader, "admission", None)
        if admission is not None:  # the shared lease table: who holds how much device memory
            values.update({k: v for k, v in admission.state().items() if k not in values})
        return values

    def health(self, values: dict[str, Any]) -> tuple[str, str]:
        assert self.config is not None
        recent = int(values["query_failures"]) - self._failures_reported
        self._failures_reported = int(values["query_failures"])
        return query_health(self.config.reader.kind, str(values["reader"]),
                            values.get("gpu_admission") == "refused", recent)


def main(args: list[str] | None = None) -> int:
    return run(QueryNode, args)


if __name__ == "__main__":
    sys.exit(main())
