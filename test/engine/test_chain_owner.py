"""A later record carries on the earlier statement nearest it in meaning (first_other).

The chain joins a later record to the thread by nearness alone, or by one word of the
thing it shares. When another earlier statement, none of the thread's, is clearly nearer
to it in meaning than any of the thread's records, the record carries that statement on
("The clinic moved him, he's going in on Friday the 20th now." after "I'm taking Dad to
his eye appointment on the 12th"), not the thread ("each of my cleaners does ten rooms a
shift"): ``current._carries_another``. A true revision nearest the thread, or nearest a
revision the question did not recall that is itself nearest the thread, still leads.
The cosines are given, as the vector index would give them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from trace_ros.ledger import SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402
from trace_ros.query.plan import plan_question  # noqa: E402
from trace_ros.query.recall import Fused  # noqa: E402
from trace_ros.query.spans import asked  # noqa: E402
from trace_ros.storage.vectorindex import SubjectVectors  # noqa: E402


def _said(seq: int, text: str, speaker: str = "Ines") -> SourceRecord:
    return SourceRecord(seq, f"s{seq}", "home", "r1", f"d{seq}", "dialogue", speaker, text,
                        "", None, None, {}, 1000.0 + seq, False, 1000.0 + seq, "")


def _chain(question: str, said: list[SourceRecord], order: list[int],
           near: dict[int, float], before: dict[int, dict[int, float]] | None
           ) -> current.Chain | None:
    """The chain over ``said`` ranked by ``order``; ``near``: a later record's cosine with
    the anchor; ``before``: seq -> its nearest earlier statements (None: not weighed)."""
    records = {r.seq: r for r in said}
    ranked = [Fused(seq, records[seq].source_id, 1.0 / (i + 1)) for i, seq in enumerate(order)]
    plan = plan_question(question)
    wanted = asked(question, plan)

    def later(seq: int) -> dict[int, tuple[SourceRecord, float]]:
        return {s: (records[s], c) for s, c in near.items() if s > seq}

    said_before = None if before is None else (lambda seq: before.get(seq, {}))
    return current.chain(question, plan.answer_type, ranked, records, None, later,
                         lambda seq: None, robot_id="r1", asked_kind=wanted.kind,
                         focus=wanted.focus, said_before=said_before)


QUESTION = "How many rooms does each cleaner do per shift?"
ROOMS = _said(1, "Each of my cleaners does ten rooms a shift.")
VISIT = _said(3, "I'm taking Dad to his eye appointment on the 12th, so I'll be out "
                 "that morning.")


def test_a_record_nearer_another_statement_is_not_the_threads_revision() -> None:
    """Near the rooms (0.58), nearer still Dad's appointment (0.74): not the rooms' count."""
    moved = _said(5, "The clinic moved him, he's going in on Friday the 20th now.")
    said = [ROOMS, VISIT, moved]
    # Weighed on nearness alone, it would lead.
    found = _chain(QUESTION, said, [1, 5, 3], {5: 0.58}, None)
    assert found is not None and found.lead[:1] == ["s5"], found
    found = _chain(QUESTION, said, [1, 5, 3], {5: 0.58}, {5: {3: 0.74, 1: 0.58}, 3: {1: 0.4}})
    assert found is None or found.lead[:1] != ["s5"], found


def test_a_revision_nearest_the_thread_still_leads() -> None:
    """The look-alike: nearest the rooms themselves, it is their new count."""
    faster = _said(5, "The owner wants us quicker, so from Monday it's twelve each.")
    said = [ROOMS, VISIT, faster]
    found = _chain(QUESTION, said, [1, 5, 3], {5: 0.62},
                   {5: {1: 0.62, 3: 0.45}, 3: {1: 0.4}})
    assert found is not None and found.lead[:1] == ["s5"], found
    # Nearer another statement, but by less than the margin: still the thread's.
    found = _chain(QUESTION, said, [1, 5, 3], {5: 0.62},
                   {5: {3: 0.62 + current.OWNER_MARGIN / 2, 1: 0.62}, 3: {1: 0.4}})
    assert found is not None and found.lead[:1] == ["s5"], found


def test_a_revision_nearest_an_unrecalled_revision_of_the_thread_leads() -> None:
    """Nearest a step the question did not recall, said after the rooms and itself
    nearest them, the record carries the thread on; nearest one said before the thread
    began, it carries that one on."""
    fewer = _said(6, "Back down again, they're on eleven now.")
    said = [ROOMS, VISIT, fewer]
    steps = {6: {4: 0.8, 1: 0.6}, 4: {1: 0.7, 3: 0.3}}
    found = _chain(QUESTION, said, [1, 6, 3], {6: 0.6}, steps)
    assert found is not None and found.lead[:1] == ["s6"], found
    assert current._carries_another(6, {1}, 1, lambda seq: steps.get(seq, {})) is False
    older = {6: {0: 0.8, 1: 0.6}}
    assert current._carries_another(6, {1}, 1, lambda seq: older.get(seq, {})) is True


def test_carries_another_reads_the_thread_and_the_margin() -> None:
    near = {5: {3: 0.8, 1: 0.6}}
    assert current._carries_another(5, {1}, 1, lambda s: near.get(s, {})) is True
    assert current._carries_another(5, {1, 3}, 1, lambda s: near.get(s, {})) is False
    assert current._carries_another(5, {1}, 1, lambda s: {}) is False
    # The thread not among the nearest: no nearer than the last of them.
    near = {5: {3: 0.8, 2: 0.75}}
    assert current._carries_another(5, {1}, 1, lambda s: near.get(s, {})) is False
    near = {5: {3: 0.9, 2: 0.75}}
    assert current._carries_another(5, {1}, 1, lambda s: near.get(s, {})) is True


def test_earlier_near_scores_only_the_records_before() -> None:
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(6, 8)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix[4] = matrix[1]  # seq 50 repeats seq 20
    sv = SubjectVectors(seqs=np.array([10, 20, 30, 40, 50, 60]), matrix=matrix)
    got = sv.earlier_near(50, 3)
    assert set(got) <= {10, 20, 30, 40} and len(got) == 3
    assert next(iter(got)) == 20 and abs(got[20] - 1.0) < 1e-5
    assert sv.earlier_near(10, 3) == {}
    assert sv.earlier_near(99, 3) == {}
    # Rows stored out of sequence order read the same.
    shuffled = SubjectVectors(seqs=sv.seqs[::-1].copy(), matrix=matrix[::-1].copy())
    assert shuffled.earlier_near(50, 3).keys() == got.keys()


def test_the_robot_saying_a_figure_in_digits_echoes_it_in_words() -> None:
    """"Theo is 7." after "he's seven now" repeats the person's figure, so their words are
    cited before it; a figure of its own ("Dinner at 6.") or a pronoun "one" echoes nothing."""
    said = _said(1, "Gail, he's had his birthday, he's seven now, and insufferable about it.",
                 "Gail")
    assert current.echoes(_said(2, "Theo is 7.", "robot"), said, "r1")
    assert not current.echoes(_said(2, "Dinner at 6.", "robot"), said, "r1")
    assert not current.echoes(_said(2, "Got it, the blue one.", "robot"),
                              _said(1, "I want 1 of the blue cups.", "Gail"), "r1")
    assert current._figures("twenty-two boxes, 3 crates and 1,600 labels") == {22.0, 3.0, 1600.0}
    assert current._figures("£1,600 at 7:30, the blue one") == frozenset()
