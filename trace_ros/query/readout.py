"""What a reader returns, and the evidence sentence it reads from: the small types and
record readings that the reader and its helper modules share.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..language.clauses import written_clauses
from ..language.text import STOPWORDS, sentence_pieces, stems, words
from ..language.vocab import is_robot
from ..ledger import SourceRecord
from .pack import EvidenceItem


@dataclass
class ReaderOutput:
    answer: str
    cited_ids: list[str] = field(default_factory=list)
    reader: str = ""
    note: str = ""


@dataclass
class Scored:
    item: EvidenceItem
    overlap: float  # weighted share of the question's words the record repeats
    relevance: float  # overlap plus the recall-order prior
    sentence: str


def _asks(s: Scored) -> bool:
    """Whether a turn asks what the question asks (its matching sentence ends in '?')."""
    return s.sentence.rstrip().endswith("?")


def _content(rec: SourceRecord, sentence: str) -> str:
    """What a sentence says: a perception record's text after its "<who> <saw>:" lead-in."""
    sentence = sentence.strip()
    if rec.modality == "perception" and ": " in sentence[:80]:
        sentence = sentence.split(": ", 1)[1]
        sentence = re.sub(r"^(?:an?\s+)?(?:photo|photograph|photography|picture|image)\s+of\s+",
                          "", sentence, flags=re.I)
    return sentence


def first_statement(text: str) -> str:
    """The first sentence of a reply that says something (not a short thanks or greeting)."""
    sentences = [x for x in sentence_pieces(text) if x.strip()]
    for sentence in sentences:
        if len(words(sentence)) > 3 and not sentence.rstrip().endswith("?"):
            return sentence
    return sentences[0] if sentences else text


def reply_to(rec: SourceRecord, shown: Sequence[EvidenceItem]) -> SourceRecord | None:
    """The robot's shown turn right after a person's record in its session, or None."""
    if is_robot(rec.speaker, rec.robot_id):
        return None
    reply = next((i.record for i in shown if i.record.session_id == rec.session_id
                  and i.record.subject_id == rec.subject_id
                  and i.record.seq == rec.seq + 1), None)
    return reply if reply is not None and is_robot(reply.speaker, reply.robot_id) else None


def _echoed(rec: SourceRecord, shown: Sequence[EvidenceItem], q_stems: set[str],
            named: set[str] | frozenset[str] = frozenset()) -> frozenset[str]:
    """The content stems of a person's record that the robot's turn right after it says
    back ("Cordial it is." after "I'm doing dry January, so cordial only."), beside the
    question's: an acknowledgement repeats what the listener took the record to tell.
    Empty for a robot's own record, or where the next turn is not shown or not the
    robot's, or where the reply leaves aside a name the question asks about that the
    record says ("Afrobeats for the rides now." after "I've gone into Afrobeats lately,
    Burna Boy on repeat.", asked of Burna Boy): it took the record to tell another thing.
    ``named``: stems of those names (``names._proper_names``)."""
    reply = reply_to(rec, shown)
    if reply is None:
        return frozenset()
    said, heard = stems(rec.text), stems(reply.text)
    if named & said - heard:
        return frozenset()
    return frozenset(said & heard) - q_stems - STOPWORDS


def heard_part(text: str, heard: frozenset[str]) -> str:
    """The clauses of ``text`` that say one of the stems ``heard`` (``_echoed``), joined;
    '' where none does or every clause does (nothing is left aside)."""
    parts = written_clauses(text)
    kept = [x for x in parts if stems(x) & heard]
    return " ".join(kept) if kept and len(kept) < len(parts) else ""
