"""Record the memory topics of one namespace to a rosbag2 MCAP file (as `ros2 bag record` would).

    trace-ros record OUT.mcap [--namespace NS] [--seconds S]

Messages are written as received (serialized CDR, schema encoding ros2msg), with the
recorder's clock as log time, so `trace-ros ingest --format mcap` reads them back through
the same validation and ledger as the node. Stops after ``--seconds`` or on Ctrl-C.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import rclpy
from rclpy.executors import SingleThreadedExecutor

from trace_ros.bags import schema_text
from trace_ros.cliargs import ArgParser, seconds
from trace_ros.msg import DialogueEvent, PerceptionEvent
from trace_ros.nodes.common import DIALOGUE_TOPIC, PERCEPTION_TOPIC
from trace_ros.nodes.logdir import ensure_log_dir
from trace_ros.nodes.memory_node import reliable


class Recorder:
    """Subscribes to memory/dialogue and memory/perception and writes every message."""

    def __init__(self, path: str | Path, namespace: str = "", depth: int = 1000) -> None:
        from mcap.well_known import MessageEncoding, SchemaEncoding
        from mcap.writer import Writer

        self.context = rclpy.Context()
        ensure_log_dir()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node("trace_ros_recorder", namespace=namespace,
                                      context=self.context, start_parameter_services=False)
        self._stream = open(path, "wb")  # noqa: SIM115 - closed in close()
        self.writer = Writer(self._stream)
        self.writer.start(profile="ros2", library="trace_ros")
        self._lock = threading.Lock()
        self.count = 0
        self.subscriptions = []
        for msg_type, topic, name in ((DialogueEvent, DIALOGUE_TOPIC, "DialogueEvent"),
                                      (PerceptionEvent, PERCEPTION_TOPIC, "PerceptionEvent")):
            schema = self.writer.register_schema(f"trace_ros/msg/{name}", SchemaEncoding.ROS2,
                                                 schema_text(name).encode())
            resolved = self.node.resolve_topic_name(topic)
            channel = self.writer.register_channel(resolved, MessageEncoding.CDR, schema)
            self.subscriptions.append(self.node.create_subscription(
                msg_type, topic, lambda raw, c=channel: self._write(c, raw), reliable(depth),
                raw=True))
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        while self.context.ok() and not self._stop.is_set():
            self.executor.spin_once(timeout_sec=0.1)

    def _write(self, channel: int, raw: bytes) -> None:
        now = self.node.get_clock().now().nanoseconds
        with self._lock:
            self.writer.add_message(channel, log_time=now, data=raw, publish_time=now,
                                    sequence=self.count)
            self.count += 1

    def connected(self) -> bool:
        return all(s.get_publisher_count() for s in self.subscriptions)

    def close(self) -> int:
        self._stop.set()
        self._thread.join(5.0)
        self.executor.shutdown()
        self.node.destroy_node()
        self.context.try_shutdown()
        with self._lock:
            self.writer.finish()
            self._stream.close()
        return self.count

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def main(argv: Sequence[str] | None = None) -> int:
    p = ArgParser(prog="trace-ros record", description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="output .mcap file")
    p.add_argument("--namespace", default="")
    p.add_argument("--seconds", type=seconds, default=0.0, help="stop after this long (0: Ctrl-C)")
    args = p.parse_args(argv)
    recorder = Recorder(args.out, args.namespace)
    started = time.monotonic()
    try:
        while not args.seconds or time.monotonic() - started < args.seconds:
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass
    print(f"record: {recorder.close()} message(s) in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
