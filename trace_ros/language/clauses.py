"""The clauses of a text: one cut for every reader that asks "which part of this says …".

A clause here is a stretch of one sentence that can carry a predication of its own. A text
is cut into sentences first (``text.sentences``: not after an abbreviation, "Dr. Okafor"),
then each sentence where a new predication may start:

- a semicolon or a dash (em or en, spaced or not; a hyphen only with a space either side,
  "Email from Mrs Morgan - grandma's coming too"),
- a comma or a colon followed by a space or the sentence's end, so that a figure keeps
  its parts ("4:30", "1,000", "12.5"),
- a coordinating or subordinating conjunction between spaces: and, but, so, because,
  while, though ("…, so it's five now", "I'm on 219, though I'd rather …").

Blank pieces are dropped and the pieces are stripped of the marks that cut them, so a
clause is text to read ("they've shunted me to Friday"), not a span with offsets;
``written_clauses`` keeps each clause's closing mark, for a reader that reads the clauses
it keeps again as a text of their own.

Cuts that mean something else stay with their readers and say why: extraction's
``consolidation.rules.clauses`` parts only before a new subject or a bare verb and keeps
offsets; the owners' ``_CLAUSE_END`` leaves "and" joining one predication; the spans'
``_CLAUSE_END`` needs offsets of a boundary; ``timeanchor._clause`` finds the clause around
a position.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .lazyre import lazy_re
from .text import sentences

# Where a sentence's clauses part (see the module's docstring).
CLAUSE_CUT = lazy_re(r"\s*(?:[;–—]|[,:](?=\s|$))\s*|\s+-\s+"
                     r"|\s+(?:and|but|so|because|while|though)\s+", re.I)


def clauses(text: str) -> list[str]:
    """The clauses of ``text``, sentence by sentence, as ``CLAUSE_CUT`` parts them; no
    blank ones."""
    return list(_clauses(text))


@lru_cache(maxsize=16384)
def _clauses(text: str) -> tuple[str, ...]:
    """``clauses``, kept per text: the chain, the owners and the judgements cut the same
    records for every question and every pair."""
    return tuple(c for s in sentences(text) or [text] for c in sentence_clauses(s))


def sentence_clauses(sentence: str) -> list[str]:
    """The clauses of one ``sentence`` (no sentence cut first); no blank ones."""
    return [c for c in CLAUSE_CUT.split(sentence) if c.strip()]


def first_clause(text: str) -> str:
    """What ``text`` says up to its first clause boundary (``CLAUSE_CUT``), or all of it:
    the clause a name opens ("said the hall's booked" after "Mr Davies")."""
    return CLAUSE_CUT.split(text, maxsplit=1)[0]


def written_clauses(text: str) -> list[str]:
    """The clauses of ``text`` as ``clauses`` cuts them, each with the mark that closes it
    (a comma, a dash; not a conjunction): a reader that joins some of them and reads them
    again needs the mark to tell where a phrase stops ("It's at Ashfield Park on the 22nd,"
    before "two o'clock kick-off", not "on the 22nd two")."""
    out = []
    for sentence in sentences(text) or [text]:
        last = 0
        for m in CLAUSE_CUT.finditer(sentence):
            mark = m.group().strip()
            out.append(sentence[last:m.start()] + ("" if mark.isalpha() else mark))
            last = m.end()
        out.append(sentence[last:])
    return [c for c in out if c.strip(" ,;:-–—")]
