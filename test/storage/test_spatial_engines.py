"""The ledger contract's perception reads ("where did any robot last see X"), on every
engine: the same records in the same order, labels sorted by their bytes."""

from __future__ import annotations

from typing import Any

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope

CFG = CaptureConfig()


def _see(ledger: Any, robot: str, label: str, t: float, subject: str = "site") -> None:
    pose = {"frame_id": "map", "x": t, "y": 0.0, "z": 0.0}
    ingest(ledger, [Event("perception", Scope(subject, robot, "patrol"), f"saw {label}",
                          label=label, confidence=0.9, pose=pose, stamp=t)], CFG)


def test_perceptions_newest_first_across_robots(ledger: Any) -> None:
    _see(ledger, "r1", "red cart", 10.0)
    _see(ledger, "r2", "red cart", 30.0)
    _see(ledger, "r1", "Blue bin", 20.0)
    _see(ledger, "r2", "apple", 25.0)
    _see(ledger, "r3", "red cart", 40.0, subject="other site")
    ingest(ledger, [Event("dialogue", Scope("site", "r1", "patrol"), "the red cart is here",
                          "Ann", stamp=50.0)], CFG)
    assert ledger.perception_labels(Scope("site")) == ["Blue bin", "apple", "red cart"]
    last = ledger.perceptions(Scope("site"), labels=["red cart"], limit=1)
    assert [(p.robot_id, p.source_time, p.pose["x"]) for p in last] == [("r2", 30.0, 30.0)]
    window = ledger.perceptions(Scope("site"), since=15.0, until=30.0)
    assert [p.label for p in window] == ["red cart", "apple", "Blue bin"]
    assert [p.label for p in ledger.perceptions(Scope("site", "r1"))] == ["Blue bin", "red cart"]
    assert ledger.perceptions(Scope("site"), labels=[]) == []
    assert [p.source_time for p in ledger.perceptions(Scope("site"), as_of_valid=20.0)] == \
        [20.0, 10.0]
    assert ledger.perception_labels(Scope("site"), until=12.0) == ["red cart"]


def test_a_subjects_labels_by_skip_scan_are_every_distinct_label(ledger: Any) -> None:
    """A whole subject's labels come from one index probe per label: the same set, in
    byte order, as the labels of its perceptions (none empty, none of a dialogue turn or
    of another subject), and the same as a scope's labels read row by row."""
    labels = ["red cart", "Zebra", "apple", "äpfel", "red cart", "b", "apple", "Ω", "a b"]
    for i, label in enumerate(labels):
        _see(ledger, f"r{i % 2}", label, float(i + 1))
    _see(ledger, "r1", "only elsewhere", 5.0, subject="other site")
    ingest(ledger, [Event("dialogue", Scope("site", "r1", "patrol"), "a turn", "Ann",
                          stamp=60.0)], CFG)
    expected = sorted(set(labels), key=lambda s: s.encode())
    assert ledger.perception_labels(Scope("site")) == expected
    both = sorted(set(ledger.perception_labels(Scope("site", "r0")))
                  | set(ledger.perception_labels(Scope("site", "r1"))), key=lambda s: s.encode())
    assert both == expected  # the row-by-row road, robot by robot
    assert ledger.perception_labels(Scope("nobody")) == []
