"""Currentness at consolidation: a later statement of the same thing by the same person.

The key rules of ``link.py`` relate revisions the extractor keyed alike ("lives
in Boston" / "lives in Seattle"). People state most changes in words no key
anticipates ("The dentist's office called and pushed me to Thursday afternoon").
``Supersession.link`` relates a new record to the latest earlier record of the same
speaker that states the same thing with a different value, whatever their keys:

- *the same thing*: their sentence vectors are close (``CLOSE``, MiniLM cosine), they
  share content words that are no value or person (``revision.terms``) — at least
  half of the shorter statement's — and the
  new one names no other holder for it ("my sister's appointment" is another thing)
  and no other event ("the piano lesson" after "the car service");
- *a different value*: ``revision.replaces`` — each names a specific value (a
  figure, day, month, date or name) the other does not; a restatement ("still
  Monday at 3") or an added detail is not an update;
- *state-bearing*: both records yield a fact of a state type (plan, state change,
  preference, or a keyed fact): two accounts of things that happened ("we went to
  the beach" twice) are two events, not a revision;
- only a person's statements, never the robot's or a question; two facts with one
  key are left to the key rules (``link.py``), which know restatements of a key.

The edge (newer fact → older fact, ``updates``) carries its evidence — the cosine,
the shared words, the two values — and a confidence that grows with the cosine; the
resolver (``state.recompute_validity``) then supersedes the older fact as for any
rule-made update. The query road finds what this misses over the recalled records
(``query/current.py``), with the same judgements from ``language/revision.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from ..facts import Fact
from ..language.revision import (
    CLOSE,
    holders,
    holders_stems,
    marks,
    other_event,
    replaces,
    same_holder,
    terms,
)
from ..language.vocab import is_robot
from ..ledger import SourceRecord
from ..storage import graph_of
from .link import STATE_TYPES, LinkResult

# Earlier turns of the same speaker a new one is compared with (among the last
# LOOKBACK * 16 sources of the subject).
LOOKBACK = 400
_MIN_CONFIDENCE = 0.6
_MAX_CONFIDENCE = 0.85


class Supersession:
    """Links one source's facts to the record they revise (inside the batch). One per
    batch: each speaker's earlier statements are read once and extended as the
    batch's sources are projected in order."""

    def __init__(self, conn: sqlite3.Connection, close: float = CLOSE) -> None:
        self.conn = conn
        self.close = close
        # (subject, speaker) -> (seqs, source IDs, texts, unit vectors), by seq
        self._said: dict[tuple[str, str], tuple[list[int], list[str], list[str],
                                                list[np.ndarray]]] = {}

    def link(self, source: SourceRecord, facts: Sequence[Fact], out: LinkResult) -> None:
        if self.close >= 1.0 or source.modality != "dialogue" or not source.speaker \
                or is_robot(source.speaker, source.robot_id):
            return
        mine = graph_of(self.conn).source_vector(self.conn, source.source_id)
        if mine is None:
            return
        unit = mine / (float(np.linalg.norm(mine)) or 1.0)
        seqs, ids, texts, vecs = self._earlier(source)
        try:
            if _states(facts) and not source.text.rstrip().endswith("?") and vecs:
                self._compare(source, facts, unit, seqs, ids, texts, vecs, out)
        finally:
            seqs.append(source.seq)
            ids.append(source.source_id)
            texts.append(source.text)
            vecs.append(unit)

    def _earlier(self, source: SourceRecord) -> tuple[list[int], list[str], list[str],
                                                      list[np.ndarray]]:
        key = (source.subject_id, source.speaker)
        if key not in self._said:
            rows = graph_of(self.conn).speaker_statements(
                self.conn, source.subject_id, source.speaker, source.seq,
                max(0, source.seq - LOOKBACK * 16))[-LOOKBACK:]
            self._said[key] = ([r[0] for r in rows], [r[1] for r in rows],
                               [r[2] for r in rows],
                               [v / (float(np.linalg.norm(v)) or 1.0) for *_, v in rows])
        return self._said[key]

    def _compare(self, source: SourceRecord, facts: Sequence[Fact], unit: np.ndarray,
                 seqs: list[int], ids: list[str], texts: list[str], vecs: list[np.ndarray],
                 out: LinkResult) -> None:
        n = min(len(vecs), LOOKBACK)
        sims = np.stack(vecs[-n:]) @ unit
        new_terms = terms(source.text) - holders_stems(source.text)
        new_keyed = {(f.entity, f.relation) for f in facts if f.relation}
        for j in range(n - 1, -1, -1):  # the latest earlier statement first
            i = len(vecs) - n + j
            cos = float(sims[j])
            text = texts[i]
            if cos < self.close or seqs[i] >= source.seq or text.rstrip().endswith("?"):
                continue
            # What both speak of: content words that are neither values nor people, nor
            # words too short to name a thing.
            old_terms = terms(text) - holders_stems(text)
            shared = frozenset(t for t in old_terms & new_terms if len(t) > 3)
            if len(shared) * 2 < min(len(old_terms), len(new_terms)):
                continue  # each names its own thing: "the car service" / "the boiler inspection"
            if not shared or not replaces(text, source.text) \
                    or other_event(text, source.text) or other_event(source.text, text) \
                    or not same_holder(source.text, frozenset(), holders(text), shared):
                continue
            olds = [f for f in graph_of(self.conn).facts_of_seq(self.conn, seqs[i]) if _state(f)]
            if not olds or new_keyed & {(f.entity, f.relation) for f in olds if f.relation}:
                continue  # nothing to revise, or one key: the key rules decide
            self._add(out, facts, olds, cos, self.close, shared, text, source.text)
            return  # the latest earlier revision; older ones are reached through it

    @staticmethod
    def _add(out: LinkResult, facts: Sequence[Fact], olds: Sequence[Fact], cos: float,
             close: float, shared: frozenset[str], old_text: str, new_text: str) -> None:
        newer = next(f for f in facts if _state(f))
        older = olds[0]
        if any(e[0] in ("updates", "contradicts") and e[1] == newer.fact_id
               and e[2] == older.fact_id for e in out.edges):
            return  # the key rules related them already
        span = (cos - close) / (1.0 - close)
        conf = round(_MIN_CONFIDENCE + (_MAX_CONFIDENCE - _MIN_CONFIDENCE) * min(1.0, span), 3)
        old_v = "/".join(sorted(marks(old_text))) or "its words"
        new_v = "/".join(sorted(marks(new_text))) or "other words"
        why = (f"same-thing update: the speaker's later statement (cosine {cos:.2f}, shares "
               f"{'/'.join(sorted(shared))}) gives {new_v} where the earlier gave {old_v}")
        at = max(newer.known_from, older.known_from)
        out.edges.append(("updates", newer.fact_id, older.fact_id, conf, why, at))
        out.revised = True
        out.affected.update((newer.fact_id, older.fact_id))


def _state(f: Fact) -> bool:
    return f.type in STATE_TYPES or bool(f.relation)


def _states(facts: Sequence[Fact]) -> bool:
    return any(_state(f) for f in facts)
