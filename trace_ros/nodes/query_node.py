"""query_node: serves /memory/query from the ledger through the engine's QueryEngine."""

from __future__ import annotations

import sys
import time
from typing import Any

import rclpy
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node

from trace_ros.admission import lease_file_for
from trace_ros.config import MemoryConfig
from trace_ros.embed import MiniLMEncoder
from trace_ros.errors import ModelUnavailableError, ValidationError
from trace_ros.ledger import Ledger
from trace_ros.nodes import convert
from trace_ros.nodes.common import Diagnostics, declare_config, spin
from trace_ros.query.answer import QueryEngine
from trace_ros.query.readers import ExtractiveReader, Reader, make_reader
from trace_ros.srv import Query

NODE_PARAMS: dict[str, Any] = {"query_service": "/memory/query"}


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


class QueryNode(Node):
    def __init__(self) -> None:
        super().__init__("query_node")
        config, opts = declare_config(self, NODE_PARAMS)
        self.ledger = Ledger(config.db_path, config.ledger)
        encoder = MiniLMEncoder(config.embed)
        started = time.monotonic()
        self.get_logger().info(f"loading encoder {encoder.name} on {config.embed.device}")
        encoder.encode(["warm up"])  # loads the weights, so the first query is fast
        self.get_logger().info(f"encoder ready in {time.monotonic() - started:.1f} s")
        self.reader = load_reader(config, self)
        self.engine = QueryEngine(self.ledger, encoder, self.reader, config.recall)
        self.served = 0
        self.errors = 0
        self.create_service(Query, opts["query_service"], self._on_query,
                            callback_group=MutuallyExclusiveCallbackGroup())
        self.diagnostics = Diagnostics(self, opts["diagnostics_period_s"], self._diagnostics,
                                       MutuallyExclusiveCallbackGroup())
        self.get_logger().info(f"answering from {self.ledger.path} with the "
                               f"{self.reader.name} reader")

    def _on_query(self, request: Query.Request, response: Query.Response) -> Query.Response:
        self.served += 1
        try:
            result = self.engine.ask(convert.query_request_from_msg(request))
        except ValidationError as exc:
            self.errors += 1
            response.status = "error"
            response.message = convert.printable(f"{exc.field}: {exc.reason}")
            response.reader = self.reader.name
            return response
        except Exception as exc:  # noqa: BLE001 - answered as an error, never a crash
            self.errors += 1
            self.get_logger().error(f"query failed: {exc!r}")
            response.status, response.message = "error", convert.printable(f"query failed: {exc}")
            response.reader = self.reader.name
            return response
        return convert.query_result_to_response(result, response)

    def _diagnostics(self) -> dict[str, Any]:
        values: dict[str, Any] = {
            "generation": self.ledger.generation(), "reader": self.reader.name,
            "queries_served": self.served, "query_errors": self.errors,
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

    def close(self) -> None:
        close_reader = getattr(self.reader, "close", None)
        if close_reader is not None:
            close_reader()  # releases its GPU lease
        self.ledger.close()


def main(args: list[str] | None = None) -> int:
    rclpy.init(args=args)
    node = QueryNode()
    return spin(node, MultiThreadedExecutor(num_threads=2), close=node.close)


if __name__ == "__main__":
    sys.exit(main())
