"""Spatial memory: where and when something was perceived (what robot memories are asked).

Two generic English question forms are answered from perception records alone:
- *locate* ("Where did you last see my keys?", "Where is the red mug?"): the latest
  perception whose label the question names; the answer gives its pose, frame and time
  and cites it. With no time or region named the question is about where the thing is
  now: when the resolver holds a place learnt after that sighting (a later move), that
  place leads and its records are cited first, then the sighting.
- *survey* ("What did you see in the kitchen this morning?"): the perceptions within the
  request's region (a frame, a point and a radius, given by the caller, who knows where
  the kitchen is) and time window (given, or a part of the day named in the question,
  relative to ``now``), newest first, each cited.
Both fire only when the question is about what the robot perceived: its perceiver is the
robot ("you", "your camera", "the robot"), the sentence is passive ("where was the mug last
seen"), or it asks where an object is ("where are my keys", "where did I leave them", a
locate answer then needs a perception of that label). A question whose seer or doer is
someone else ("What did Ann see at the fair?", "Where did he put it?") is not the robot's
perception: ``None``, and the text pipeline answers. No rclpy here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import ValidationError
from ..language.lazyre import lazy_re
from ..language.vocab import AUXILIARIES, BE_FORMS
from ..ledger import Ledger, Scope, SourceRecord
from ..state import Resolution, order_key, resolve

_WORD = lazy_re(r"[a-z0-9]+")
_WORDS = lazy_re(r"[A-Za-z0-9']+")
_LOCATE = lazy_re(r"\bwhere\b", re.I)
_WH = frozenset({"what", "which", "where"})
_AUX = AUXILIARIES - {"shall", "must"}
# Verbs of perceiving: base / simple past (active) and past participle (also passive).
_SEE = frozenset({"see", "saw", "notice", "spot", "observe", "detect", "perceive"})
_SEEN = frozenset({"seen", "noticed", "spotted", "observed", "detected", "perceived"})
# Verbs of placing or finding something, which a locate question may ask about.
_PUT = frozenset({"put", "leave", "place", "keep", "store", "drop", "hide", "find", "set"})
_PUT_PARTICIPLES = frozenset({"put", "left", "placed", "kept", "stored", "dropped", "hidden",
                              "found", "set"})
_ADVERBS = frozenset({"last", "first", "just", "recently", "ever", "already", "also", "most",
                      "previously", "lately", "actually", "really", "not", "never"})
# Who perceives: the robot itself or one of its sensors; the person asking.
_ROBOT = frozenset({"you", "yourself", "robot", "camera", "cameras", "sensor", "sensors",
                    "detector", "detectors", "lidar", "vision"})
_ASKER = frozenset({"i", "me", "we", "us"})
_PERSONS = frozenset({"he", "she", "they", "him", "her", "them"}) | _ASKER | {"you"}
_SCAN = 7  # words after the auxiliary searched for the verb
# Parts of a day named in a question -> (start hour, end hour) of that local day.
_DAY_PARTS = {"morning": (5, 12), "afternoon": (12, 17), "evening": (17, 24), "tonight": (17, 24),
              "today": (0, 24)}
_PART = lazy_re(r"\b(this|yesterday)\s+(morning|afternoon|evening)\b|\b(today|tonight|"
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


@dataclass(frozen=True)
class Perceiver:
    """Who the question says saw or placed something: ``robot`` (you, your camera, the
    robot), ``asker`` (I, we), ``other`` (anyone else), or ``none`` (no one is named: a
    passive "was seen", or an object's whereabouts, "where are my keys")."""

    who: str
    perceiving: bool  # the verb is one of seeing/noticing/detecting (a survey's verb)


def _kind(phrase: list[str]) -> str:
    """robot | asker | other, from the head (last word) of a noun phrase."""
    words = [w.lower().removesuffix("'s") for w in phrase if w.lower() not in _ADVERBS]
    if not words:
        return "none"
    head = words[-1]
    if head in _ROBOT or words[0] in ("you", "yourself"):
        return "robot"
    return "asker" if head in _ASKER else "other"


def perceiver(question: str) -> Perceiver:
    """Who perceives (or placed) in a wh-question, from its auxiliary, subject and verb.

    "where did <subject> (last) see/put ...": the subject is the actor; "where was <thing>
    seen (by <agent>)": passive, the agent if one is named; "where is <thing>" with no such
    verb: nobody, unless a person follows "did/does/has" ("where did she go")."""
    words = _WORDS.findall(question)
    lower = [w.lower() for w in words]
    wh = next((i for i, w in enumerate(lower) if w in _WH), None)
    if wh is None:
        return Perceiver("none", False)
    aux = next((i for i in range(wh + 1, len(lower)) if lower[i] in _AUX), None)
    if aux is None:  # "what saw the dog?" is not a question people ask a robot
        return Perceiver("none", False)
    be = lower[aux] in BE_FORMS
    for j in range(aux + 1, min(len(lower), aux + 1 + _SCAN)):
        w = lower[j]
        participle = w in _SEEN or w in _PUT_PARTICIPLES
        active = w in _SEE or w in _PUT or (participle and not be)
        if not (active or participle):
            continue
        seeing = w in _SEE or w in _SEEN
        if be and participle:  # passive: the subject is the thing; the agent follows "by"
            if j + 1 < len(lower) and lower[j + 1] == "by":
                return Perceiver(_kind(words[j + 2:j + 4]), seeing)
            return Perceiver("none", seeing)
        return Perceiver(_kind(words[aux + 1:j]), seeing)
    first = words[aux + 1] if aux + 1 < len(words) else ""
    if not be and (first.lower() in _PERSONS or first[:1].isupper()):
        return Perceiver(_kind([first]), False)  # "where did Ann move": Ann's doing
    return Perceiver("none", False)


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


def _moved_since(ledger: Ledger, res: Resolution, sighting: SourceRecord) -> list[SourceRecord]:
    """The records of the place the resolver holds now, when that place was learnt after
    the sighting (a later move or correction, in the resolver's revision order) or the
    sighting's own revision is superseded; empty when the sighting is still current."""
    if res.status != "answer" or not res.facts or sighting.source_id in res.source_ids:
        return []
    newest = max(res.facts, key=order_key)
    stale = any(sighting.source_id in f.source_ids for f in res.superseded)
    later = (newest.valid_from, newest.source_seq) > (sighting.source_time, sighting.seq)
    if not (stale or later):
        return []
    return ledger.get_sources(res.source_ids)


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
    who = perceiver(question)
    if who.who == "other":  # someone else's experience: the text pipeline answers
        return None
    locate = bool(_LOCATE.search(question))
    # "Where did you (last) see X", "where was X seen" or a region: a perception report.
    # A plain "where is X" asks for the current state: when the graph holds X's place
    # (from dialogue or described perceptions), the resolver decides it (updates,
    # conflicts, as-of views); a pose alone is reported from the perception.
    reported = (who.perceiving and who.who in ("robot", "none")) or region is not None
    if locate:
        qtokens = set(_tokens(question))
        # Labels first, then the sightings of the best-matching ones (not every perception).
        scored = [(label_match(label, qtokens), label)
                  for label in ledger.perception_labels(scope, **reads)]
        seen: list[SourceRecord] = []
        for best in sorted({s for s, _ in scored if s > 0}, reverse=True):
            # Without a region only the newest is used: one row, not every sighting
            # (3,750 of a label per subject at a million sources: 100-150 ms).
            seen = [r for r in ledger.perceptions(
                        scope, labels=[lb for s, lb in scored if s == best],
                        limit=5000 if region is not None else 1, **reads)
                    if region is None or region.contains(r.pose)]
            if seen:  # the best-matching labels seen (in the region, if one is given)
                break
        if seen:
            # newest first from the ledger: the first sighting is the latest
            latest = seen[0]
            res = resolve(ledger, scope, latest.label, "located_at",
                          as_of_valid=as_of_valid, as_of_known=as_of_known)
            # Conflicting reports are never settled by picking one; a known place is
            # state for the resolver unless the question asks for the sighting itself.
            if res.status == "conflict" or (not reported and res.status != "missing"):
                return None
            confidence = f", confidence {latest.confidence:.2f}" if latest.confidence else ""
            said = f" ({latest.text})" if latest.text and latest.text != latest.label else ""
            seen_at = f"last seen {_where(latest)} at {_when(latest.source_time)}{confidence}{said}"
            # No time or region named: the question is about where the thing is now.
            newer = (_moved_since(ledger, res, latest)
                     if region is None and since is None and until is None else [])
            if newer:
                # The sighting is history: the place the resolver holds now leads, with
                # its records cited first, and the sighting follows.
                now_said = "; ".join(f"{r.text} ({r.speaker}, {_when(r.source_time)})"
                                     for r in newer)
                text = f"{latest.label}: {res.value} now ({now_said}); before that {seen_at}"
                return SpatialAnswer("locate", text, [*newer, latest],
                                     [*(r.source_id for r in newer), latest.source_id])
            return SpatialAnswer("locate", f"{latest.label}: {seen_at}", [latest],
                                 [latest.source_id])
    # A survey lists what the robot saw: it must be the one seeing, or the caller gave a region.
    if not locate and ((who.perceiving and who.who == "robot") or region is not None):
        seen = [r for r in ledger.perceptions(scope, **reads,
                                              limit=5000 if region is not None else limit)
                if region is None or region.contains(r.pose)][:limit]
        if not seen:
            return SpatialAnswer("survey", "", [], [], "no perception in that region and time")
        items = [f"{r.label or r.text} {_where(r)} at {_when(r.source_time)}"
                 + (f" ({r.text})" if r.label and r.text != r.label else "") for r in seen]
        return SpatialAnswer("survey", "; ".join(items), seen, [r.source_id for r in seen])
    return None
