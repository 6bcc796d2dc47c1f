"""What a reader returns, and the evidence sentence it reads from: the small types and
record readings that the reader and its helper modules share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..language.text import sentence_pieces, words
from ..ledger import SourceRecord
from .pack import EvidenceItem


@dataclass
class ReaderOutput:
    answer: str
    cited_ids: list[str] = field(default_factory=list)
    reader: str = ""
    note: str = ""


@dataclass
class _Scored:
    item: EvidenceItem
    overlap: float  # weighted share of the question's words the record repeats
    relevance: float  # overlap plus the recall-order prior
    sentence: str


def _asks(s: _Scored) -> bool:
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


def _first_statement(text: str) -> str:
    """The first sentence of a reply that says something (not a short thanks or greeting)."""
    sentences = [x for x in sentence_pieces(text) if x.strip()]
    for sentence in sentences:
        if len(words(sentence)) > 3 and not sentence.rstrip().endswith("?"):
            return sentence
    return sentences[0] if sentences else text
