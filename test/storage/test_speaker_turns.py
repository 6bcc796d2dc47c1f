"""Each subject's dialogue turns per speaker are kept as the ledger changes (``speaker_turns``,
migrations m012 / p014), on both engines: the same counts as counting the sources."""

from __future__ import annotations

from typing import Any

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope


def _counted(led: Any, subject: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for speaker, modality, of in led.query("SELECT speaker, modality, subject_id FROM sources"):
        if of == subject and modality == "dialogue" and speaker:
            out[speaker] = out.get(speaker, 0) + 1
    return out


def test_speaker_turns_follow_capture_and_forget(ledger: Any) -> None:
    events = [Event("dialogue", Scope(subject), f"line {i}", speaker, stamp=1.0 + i,
                    source_id=f"{subject}-{i}")
              for i, (subject, speaker) in enumerate(
                  [("ann", "Ann"), ("ann", "robot"), ("ann", "Ann"), ("bob", "Ann"),
                   ("ann", ""), ("bob", "Bob"), ("ann", "Cy")])]
    events.append(Event("perception", Scope("ann"), "a cup", "front_camera", label="cup",
                        stamp=50.0, source_id="seen"))
    ingest(ledger, events, CaptureConfig())
    for subject in ("ann", "bob"):
        assert ledger.speaker_turns(subject) == _counted(ledger, subject)
    assert ledger.speaker_turns("ann") == {"Ann": 2, "Cy": 1, "robot": 1}
    ledger.forget(None, ["ann-0", "ann-6", "seen"])
    assert ledger.speaker_turns("ann") == {"Ann": 1, "robot": 1} == _counted(ledger, "ann")
    ledger.forget(Scope("bob"))
    assert ledger.speaker_turns("bob") == {}
    assert ledger.query("SELECT count(*) FROM speaker_turns WHERE subject_id = 'bob'")[0][0] == 0
