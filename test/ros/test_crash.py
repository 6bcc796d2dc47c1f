"""kill -9 of memory_node mid-stream: every acknowledged event survives, exactly once."""

from __future__ import annotations

import signal
import threading
import time
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.nodes.client import make_dialogue  # noqa: E402

WINDOW = 200  # events in flight, so the kill lands with a queue and a batch in progress
KILL_AFTER_ACKS = 1500
TIMEOUT_S = 30.0


def _stream(client: Any, stop: threading.Event, sent: list[str]) -> None:
    """Publish continuously, keeping at most WINDOW events unacknowledged."""
    i = 0
    while not stop.is_set():
        if len(sent) - len(client.ack_by_id) >= WINDOW:
            client.wait_for(lambda: len(sent) - len(client.ack_by_id) < WINDOW or stop.is_set(),
                            0.2)
            continue
        sid = f"crash-{i}"
        sent.append(sid)
        client.publish(make_dialogue(f"subject-{i % 4}", f"streamed event {i}", speaker="p",
                                     session_id="crash", source_id=sid,
                                     stamp=1_700_000_000.0 + i))
        i += 1


def test_acknowledged_events_survive_kill_9(nodes: Any, db: Any, make_client: Any,
                                            ready: Any) -> None:
    nodes.start(("memory_node",))
    client = make_client()
    ready(client, nodes, capture=True)
    stop, sent = threading.Event(), []
    publisher = threading.Thread(target=_stream, args=(client, stop, sent), daemon=True)
    publisher.start()
    try:
        assert client.wait_for(lambda: len(client.ack_by_id) >= KILL_AFTER_ACKS, TIMEOUT_S), \
            f"only {len(client.ack_by_id)} acks before the deadline"
        nodes.kill(signal.SIGKILL)
    finally:
        stop.set()
        publisher.join(timeout=10)
    time.sleep(0.5)  # acks already on the wire may still arrive; they count too
    acked = {sid for sid, ack in client.ack_by_id.items() if ack.status == "accepted"}
    assert len(acked) >= KILL_AFTER_ACKS
    assert len(sent) > len(client.ack_by_id), "the kill should leave events unacknowledged"

    nodes.start(("memory_node",))
    with Ledger(db) as ledger:
        assert ledger.integrity_check() == "ok"
        rows = ledger.query("SELECT source_id, count(*) FROM sources GROUP BY source_id")
    counts = {sid: int(n) for sid, n in rows}
    missing = acked - counts.keys()
    assert not missing, f"{len(missing)} acknowledged events lost, e.g. {sorted(missing)[:5]}"
    assert all(n == 1 for n in counts.values())

    # The restarted node takes new events (a fresh client: the killed one left stale
    # endpoints behind in the old client's graph until their lease expires).
    after = make_client()
    ready(after, nodes, capture=True)
    deadline = time.monotonic() + TIMEOUT_S
    ack = None
    for attempt in range(1000):
        sid = f"after-restart-{attempt}"
        after.publish(make_dialogue("subject-0", "back again", speaker="p", source_id=sid,
                                    stamp=1_800_000_000.0 + attempt))
        ack = after.wait_acks([sid], 1.0).get(sid)
        if ack is not None or time.monotonic() > deadline:
            break
    assert ack is not None and ack.status == "accepted"
    with Ledger(db) as ledger:
        assert ledger.integrity_check() == "ok"
        assert ledger.get_sources([ack.source_id])[0].text == "back again"
        assert ledger.count_sources() > len(counts)
