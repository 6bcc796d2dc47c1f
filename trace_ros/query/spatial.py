"""Spatial memory: where and when something was perceived (what robot memories are asked).

Two generic English question forms are answered from perception records alone:
- *locate* ("Where did you last see my keys?", "Where is the red mug?"): the latest
  perception whose label the question names; the answer gives its pose, frame and time
  and cites it.
- *survey* ("What did you see in the kitchen this morning?"): the perceptions within the
  request's region (a frame, a point and a radius, given by the caller, who knows where
  the kitchen is) and time window (given, or a part of the day named in the question,
  relative to ``now``), newest first, each cited.
Anything else returns ``None`` and the text pipeline answers. No rclpy here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import ValidationError
from ..ledger import Ledger, Scope, SourceRecord

_WORD = re.compile(r"[a-z0-9]+")
_LOCATE = re.compile(r"\bwhere\b", re.I)
_SURVEY = re.compile(r"\bwhat\b.*\b(see|saw|seen|notice|noticed|spot|spotted|observe|observed|"
                     r"detect|detected|perceive|perceived)\b", re.I)
# Parts of a day named in a question -> (start hour, end hour) of that local day.
_DAY_PARTS = {"morning": (5, 12), "afternoon": (12, 17), "evening": (17, 24), "tonight": (17, 24),
              "today": (0, 24)}
_PART = re.compile(r"\b(this|yesterday)\s+(morning|afternoon|evening)\b|\b(today|tonight|"
                   r"yesterday)\b", re.I)


@dataclass(frozen=True)
class Region:
    """A ball of ``radius`` metres around (x, y, z) in ``frame``."""

    frame: str
    x: float
    y: float
    z: float
    radius: float

    def check(self) -> None:
        if not self.frame.strip():
            raise ValidationError("region_center.header.frame_id", "required with has_region")
        values = (self.x, self.y, self.z, self.radius)
        if not all(math.isfinite(v) for v in values) or self.radius <= 0:
            raise ValidationError("region_radius", "must be a finite number above zero")

    def contains(self, pose: dict[str, Any] | None) -> bool:
        if not pose or pose.get("frame_id") != self.frame:
            return False
        return math.dist((pose.get("x", 0.0), pose.get("y", 0.0), pose.get("z", 0.0)),
                         (self.x, self.y, self.z)) <= self.radius


@dataclass
class SpatialAnswer:
    kind: str  # locate | survey
    answer: str
    records: list[SourceRecord]
    cited: list[str]
    message: str = ""


def _tokens(text: str) -> list[str]:
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
            for w in _WORD.findall(text.lower())]


def label_match(label: str, question_tokens: set[str]) -> float:
    """Share of the label's words in the question; 0 unless its last word (the head) is."""
    words = _tokens(label)
    if not words or words[-1] not in question_tokens:
        return 0.0
    return sum(w in question_tokens for w in words) / len(words)


def named_window(question: str, now: float) -> tuple[float, float] | None:
    """The part of a day the question names ("this morning", "yesterday"), in local time."""
    m = _PART.search(question)
    if not m:
        return None
    words = m.group(0).lower().split()
    yesterday = "yesterday" in words
    part = words[-1] if words[-1] in _DAY_PARTS else "today"
    start_h, end_h = _DAY_PARTS[part]
    midnight = datetime.fromtimestamp(now).astimezone().replace(
        hour=0, minute=0, second=0, microsecond=0) - timedelta(days=int(yesterday))
    start = (midnight + timedelta(hours=start_h)).timestamp()
    end = (midnight + timedelta(hours=end_h)).timestamp()
    return start, end if yesterday else min(end, now)


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


def _where(record: SourceRecord) -> str:
    pose = record.pose
    if not pose:
        return "(no pose recorded)"
    return (f"at ({pose.get('x', 0.0):.2f}, {pose.get('y', 0.0):.2f}, {pose.get('z', 0.0):.2f}) "
            f"in frame {pose.get('frame_id', '?')}")


def answer_spatial(ledger: Ledger, scope: Scope, question: str, now: float, *,
                   region: Region | None = None, window: tuple[float | None, float | None]
                   = (None, None), as_of_valid: float | None = None,
                   as_of_known: float | None = None, limit: int = 10) -> SpatialAnswer | None:
    """Answer a locate or survey question from perceptions; None when it is neither."""
    if region is not None:
        region.check()
    since, until = window
    if since is None and until is None:
        named = named_window(question, now)
        if named is not None:
            since, until = named
    reads = {"since": since, "until": until, "as_of_valid": as_of_valid,
             "as_of_known": as_of_known}
    if _LOCATE.search(question):
        qtokens = set(_tokens(question))
        seen = [r for r in ledger.perceptions(scope, labelled=True, **reads)
                if region is None or region.contains(r.pose)]
        scored = [(label_match(r.label, qtokens), r) for r in seen]
        best = max((s for s, _ in scored), default=0.0)
        if best > 0:
            # newest first from the ledger: the first record with the best match is the latest
            latest = next(r for s, r in scored if s == best)
            confidence = f", confidence {latest.confidence:.2f}" if latest.confidence else ""
            said = f" ({latest.text})" if latest.text and latest.text != latest.label else ""
            text = (f"{latest.label}: last seen {_where(latest)} at {_when(latest.source_time)}"
                    f"{confidence}{said}")
            return SpatialAnswer("locate", text, [latest], [latest.source_id])
    if _SURVEY.search(question) or (region is not None and not _LOCATE.search(question)):
        seen = [r for r in ledger.perceptions(scope, **reads)
                if region is None or region.contains(r.pose)][:limit]
        if not seen:
            return SpatialAnswer("survey", "", [], [], "no perception in that region and time")
        items = [f"{r.label or r.text} {_where(r)} at {_when(r.source_time)}"
                 + (f" ({r.text})" if r.label and r.text != r.label else "") for r in seen]
        return SpatialAnswer("survey", "; ".join(items), seen, [r.source_id for r in seen])
    return None
