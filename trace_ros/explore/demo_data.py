"""The demo memory without ROS: ``trace_ros.demo``'s script, captured and consolidated
into a ledger file, so the explorer (and its browser test) can open it."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..capture import Event, ingest
from ..config import load_config
from ..ledger import Ledger, Scope


def demo_events() -> list[Event]:
    """The demo script's dialogue and perception as capture events."""
    from ..demo import OTHER_SUBJECT, ROBOT, SCRIPT, SUBJECT

    events = []
    for sid, kind, session, stamp, who, body in SCRIPT:
        subject = OTHER_SUBJECT if sid.startswith("demo-sam") else SUBJECT
        scope = Scope(subject, ROBOT, session)
        if kind == "say":
            events.append(Event("dialogue", scope, text=body, speaker=who, stamp=stamp,
                                source_id=sid))
        else:
            label, description, (x, y, z) = body
            pose = {"frame_id": "map", "x": x, "y": y, "z": z,
                    "qx": 0.0, "qy": 0.0, "qz": 0.0, "qw": 1.0}
            events.append(Event("perception", scope, text=description, speaker=who, label=label,
                                confidence=0.93, pose=pose, stamp=stamp, source_id=sid))
    return events


def build_demo_ledger(db: str | Path | None = None) -> Path:
    """Capture the demo events into ``db`` (a new temp file by default), run the
    consolidation the node would run and ask the demo's questions (their audit rows
    are the explorer's past questions); returns the ledger's path."""
    from ..consolidation.project import build_projection
    from ..consolidation.worker import Consolidator
    from ..demo import QUESTIONS, SUBJECT
    from ..embed import MiniLMEncoder
    from ..query.answer import QueryEngine, QueryRequest
    from ..query.readers import make_reader

    path = Path(db) if db else Path(tempfile.mkdtemp(prefix="trace-ros-demo-")) / "memory.db"
    cfg = load_config(None, None, {"ledger.db_path": str(path)})
    encoder = MiniLMEncoder(cfg.embed)
    with Ledger(path, cfg.ledger) as ledger:
        fresh = any(r.status == "accepted" for r in ingest(ledger, demo_events(), cfg.capture))
        projector, selector = build_projection(ledger, cfg)
        try:
            Consolidator(ledger, encoder, cfg.consolidation,
                         projector=projector, gate=selector).drain()
        finally:
            selector.close()
        if fresh:
            with QueryEngine(ledger, encoder, make_reader(cfg.reader), cfg.recall) as engine:
                for question, _ in QUESTIONS:
                    engine.ask(QueryRequest(Scope(SUBJECT), question))
                engine.flush()
    return path
