"""The round trip of ``bench capture`` hop by hop (``tools/capture_rtt.py``, issue 16): each
hop is timed over the events stamped at both of its ends, and nothing else."""

from __future__ import annotations

import capture_rtt  # tools/ is on the path (pytest.ini)
import pytest


def _stamps(events: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Per hop, each event's stamp (seconds), from each event's stamps in hop order."""
    out: dict[str, dict[str, float]] = {hop: {} for hop in capture_rtt.HOPS}
    for source_id, times in events.items():
        for hop, at in zip(capture_rtt.HOPS, times, strict=False):
            out[hop][source_id] = at
    return out


def test_each_hop_and_the_round_trip_are_timed_per_event() -> None:
    # Two events, each hop 1 ms (the second event's 2 ms): 7 hops, a 7 / 14 ms round trip.
    hops = capture_rtt._hops(_stamps({"a": [i * 0.001 for i in range(8)],
                                      "b": [10 + i * 0.002 for i in range(8)]}))
    assert hops["publish->callback"]["n"] == 2
    assert hops["publish->callback"]["mean"] == pytest.approx(1.5)
    assert hops["answer->acked"]["p95"] <= 2.0 and hops["answer->acked"]["mean"] == pytest.approx(1.5)
    assert hops["publish->received"]["mean"] == pytest.approx(10.5)
    assert hops["callback->acked"]["mean"] == pytest.approx(7.5)  # the node's part: 5 hops


def test_an_event_missing_a_stamp_is_left_out_of_that_hop_only() -> None:
    # "b" never reached the bench's Ack callback (no "received"): its other hops count.
    stamps = _stamps({"a": [i * 0.001 for i in range(8)],
                      "b": [10 + i * 0.001 for i in range(7)]})
    hops = capture_rtt._hops(stamps)
    assert hops["acked->received"]["n"] == 1 and hops["publish->received"]["n"] == 1
    assert hops["committed->answer"]["n"] == 2
    # No stamp at all for a hop: that hop is not reported (never a zero).
    stamps["answer"].clear()
    hops = capture_rtt._hops(stamps)
    assert "committed->answer" not in hops and "answer->acked" not in hops
    assert hops["callback->acked"]["n"] == 2
