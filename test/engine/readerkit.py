"""Records and a read of them for the extractive reader's tests: one speaker's turns two
minutes apart in one session, read by a question asked thirty days after Monday
3 March 2025, 10:00 UTC."""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 10, 0, 0, 0, 0, 0)))


def rec(seq: int, text: str, speaker: str = "Noor", when: float = T0) -> SourceRecord:
    """Turn ``seq`` of subject ``noor``, said ``seq`` two-minute steps after ``when``."""
    at = when + seq * 120.0
    return SourceRecord(seq, f"src-{seq}", "noor", "r1", "s1", "dialogue", speaker, text, "",
                        None, None, {}, at, False, at, "h")


def turn(seq: int, session: str, text: str, speaker: str) -> SourceRecord:
    """Turn ``seq`` of subject ``home`` in ``session``, stamped ``seq`` seconds in (the
    chain's unit tests, which pass records and cosines to its rules directly)."""
    return SourceRecord(seq, f"s{seq}", "home", "r1", session, "dialogue", speaker, text, "",
                        None, None, {}, float(seq), False, float(seq), "")


def read(question: str, *records: SourceRecord) -> str:
    """The reader's answer to ``question`` over ``records``, packed in the order given."""
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    return ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY), p).answer
