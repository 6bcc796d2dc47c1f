"""Where an event's round trip goes under ``bench capture``, hop by hop, per event.

    PYTHONPATH=. python tools/capture_rtt.py OUT.json [--seconds 10] [-- bench args...]

Runs the real ``trace-ros bench capture --batch 0`` (one event a message, over DDS) with the
memory node started by this script (the same node) and stamps each event, by its source ID,
with ``time.perf_counter`` (CLOCK_MONOTONIC on Linux: one clock for both processes) at

- ``publish``: the bench takes it as sent (just before ``publish``);
- ``callback``: the node's subscription callback starts decoding it;
- ``queued``: the writer's queue has it (validated, identified);
- ``commit``: its group's commit begins (after the queue wait and the linger);
- ``committed``: that commit returned (not durable yet);
- ``answer``: its group's answer begins (the fsync done);
- ``acked``: its group's Acks were all published;
- ``received``: the bench's Ack callback began.

OUT.json holds, per hop, the p50 / p95 / mean in milliseconds over every event stamped at
both ends, and the bench's summary: how much of the round trip is the node's and how much
the two DDS hops' and the bench's own. Figures move with the load: compare in alternating
runs. Needs the ROS 2 wheels and trace_ros's messages (``make setup``).
"""

from __future__ import annotations

import atexit
import json
import sys
import time
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Any

from capture_child import run_bench  # tools/ is on the path (script or pytest.ini)

HOPS = ("publish", "callback", "queued", "commit", "committed", "answer", "acked",
        "received")
_STAMPS: dict[str, dict[str, float]] = {hop: {} for hop in HOPS}


def _node(out: Path, ros_args: list[str]) -> int:
    """The memory node with its hops stamped; the stamps written to ``out`` at exit."""
    from trace_ros import capture
    from trace_ros.nodes import convert, memory_node

    clock = time.perf_counter
    read_event = convert.read_event

    def read_stamped(raw: bytes, msg_type: type) -> Any:
        began = clock()
        msg, problem = read_event(raw, msg_type)
        _STAMPS["callback"][msg.source_id] = began
        return msg, problem

    convert.read_event = read_stamped
    writer = capture.GroupCommitWriter
    enqueue, commit = writer._enqueue, writer._commit

    @wraps(enqueue)
    def enqueue_stamped(self: Any, item: Any, *args: Any, **kwargs: Any) -> None:
        _STAMPS["queued"][item.source_id] = clock()
        enqueue(self, item, *args, **kwargs)

    @wraps(commit)
    def commit_stamped(self: Any, batch: list[Any]) -> None:
        began = clock()
        ledger, store = self.ledger, self.ledger.store_sources

        def store_stamped(*args: Any, **kwargs: Any) -> Any:
            try:
                return store(*args, **kwargs)
            finally:
                ended = clock()
                for p in batch:
                    _STAMPS["commit"][p.item.source_id] = began
                    _STAMPS["committed"][p.item.source_id] = ended

        ledger.store_sources = store_stamped
        try:
            commit(self, batch)
        finally:
            del ledger.store_sources

    writer._enqueue = enqueue_stamped  # type: ignore[method-assign]
    writer._commit = commit_stamped  # type: ignore[method-assign]
    node = memory_node.MemoryNode
    answer_group = node._answer_group

    @wraps(answer_group)
    def answer_stamped(self: Any, answers: list[Any]) -> None:
        began = clock()
        answer_group(self, answers)
        ended = clock()
        for _, result in answers:
            _STAMPS["answer"][result.source_id] = began
            _STAMPS["acked"][result.source_id] = ended

    node._answer_group = answer_stamped  # type: ignore[method-assign]

    def dump() -> None:
        out.write_text(json.dumps({hop: _STAMPS[hop] for hop in HOPS[1:-1]}))

    atexit.register(dump)
    return memory_node.main(ros_args)


def _bench_stamps() -> Callable[[], None]:
    """Stamp ``publish`` and ``received`` in the bench's own process; the returned function
    reads the Acks' IDs afterwards (the bench's callback is left as cheap as it was)."""
    from trace_ros.bench import capture as bench

    clock = time.perf_counter
    raw_acks: list[tuple[float, bytes]] = []

    class _Sent(dict):  # type: ignore[type-arg]
        def __setitem__(self, key: str, value: float) -> None:
            _STAMPS["publish"][key] = value
            super().__setitem__(key, value)

    init, on_ack = bench.Streamer.__init__, bench.Streamer.on_ack

    def init_stamped(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.sent = _Sent()

    def on_ack_stamped(self: Any, ack: Any) -> None:
        raw_acks.append((clock(), ack))
        on_ack(self, ack)

    bench.Streamer.__init__ = init_stamped  # type: ignore[method-assign]
    bench.Streamer.on_ack = on_ack_stamped  # type: ignore[method-assign]

    def read() -> None:
        from trace_ros.nodes.client import read_ack

        for now, raw in raw_acks:
            ack = read_ack(raw) if isinstance(raw, bytes) else raw
            _STAMPS["received"][ack.source_id] = now

    return read


def _hops(stamps: dict[str, dict[str, float]]) -> dict[str, Any]:
    """Per consecutive hop (and the whole round trip), milliseconds over the events
    stamped at both ends."""
    from trace_ros.bench.metrics import percentile

    out: dict[str, Any] = {}
    pairs = [*zip(HOPS, HOPS[1:], strict=False), ("publish", "received"), ("callback", "acked")]
    for first, last in pairs:
        a, b = stamps.get(first, {}), stamps.get(last, {})
        ms = [(b[k] - a[k]) * 1000.0 for k in a.keys() & b.keys()]
        if ms:
            out[f"{first}->{last}"] = {"n": len(ms), "p50": round(percentile(ms, 50) or 0, 3),
                                       "p95": round(percentile(ms, 95) or 0, 3),
                                       "mean": round(sum(ms) / len(ms), 3)}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--node"]:  # the child: --node OUT ros-args...
        return _node(Path(args[1]), [sys.argv[0], *args[2:]])
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    out = Path(args[0]).resolve()
    seconds = args[args.index("--seconds") + 1] if "--seconds" in args else "10"
    extra = args[args.index("--") + 1:] if "--" in args else []
    node_out = out.with_suffix(".node.json")
    read_acks = _bench_stamps()
    code, summary = run_bench(__file__, node_out, [],
                              ["--seconds", seconds, "--batch", "0", "--json", *extra])
    read_acks()
    stamps = dict(_STAMPS)
    if node_out.exists():
        stamps.update(json.loads(node_out.read_text()))
    hops = _hops(stamps)
    out.write_text(json.dumps({"bench": summary, "hops_ms": hops}, indent=1))
    print(json.dumps({"events_per_s": summary.get("events_per_s"),
                      "ack_latency_ms": summary.get("ack_latency_ms"), "hops_ms": hops},
                     indent=1))
    return code


if __name__ == "__main__":
    sys.exit(main())
