"""A later record that points only at someone of the other sex is not the one asked of.

Asked of someone whose title or relation says a woman or a man ("Mrs Cole's physio",
"Mum's thyroid pill"), a later record near the anchor that names neither them nor a word
of the question, and points by "he" or "she" only at the other sex ("And now they want him
at two on Friday, ten's gone."), tells another person's state: ``current._other_sex``. The
same record leads for a man asked of ("Mr Ahmed's physio"). The cosines are given, as the
vector index would give them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from trace_ros.ledger import SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402
from trace_ros.query.plan import plan_question  # noqa: E402
from trace_ros.query.recall import Fused  # noqa: E402
from trace_ros.query.spans import asked  # noqa: E402


def _said(seq: int, text: str, speaker: str = "Tess") -> SourceRecord:
    return SourceRecord(seq, f"s{seq}", "home", "r1", f"d{seq}", "dialogue", speaker, text,
                        "", None, None, {}, 1000.0 + seq, False, 1000.0 + seq, "")


def _chain(question: str, said: list[SourceRecord], near: dict[int, float]
           ) -> current.Chain | None:
    records = {r.seq: r for r in said}
    ranked = [Fused(r.seq, r.source_id, 1.0 / (i + 1)) for i, r in enumerate(said)]
    plan = plan_question(question)
    wanted = asked(question, plan)

    def later(seq: int) -> dict[int, tuple[SourceRecord, float]]:
        return {s: (records[s], c) for s, c in near.items() if s > seq}

    return current.chain(question, plan.answer_type, ranked, records, None, later,
                         lambda seq: None, robot_id="r1", asked_kind=wanted.kind,
                         focus=wanted.focus)


MOVED = _said(5, "And now they want him at two on Friday, ten's gone.")


def test_him_is_not_mrs_coles() -> None:
    """The anchor of Mrs Cole's physio leads; "him" is another patient."""
    said = [_said(1, "Mrs. Cole's physio is Thursday at eleven."), MOVED]
    found = _chain("When is Mrs. Cole's physio?", said, {5: 0.62})
    assert found is None or found.lead[:1] != ["s5"], found


def test_him_is_mr_ahmeds() -> None:
    """The same record moves Mr Ahmed's physio."""
    said = [_said(1, "Mr. Ahmed's physio is Thursday at ten."), MOVED]
    found = _chain("When is Mr. Ahmed's physio?", said, {5: 0.69})
    assert found is not None and found.lead[:1] == ["s5"], found


def test_other_sex_reads_titles_relations_and_pronouns() -> None:
    question = "When does Mum take her thyroid pill?"
    assert current._other_sex("so it's with his tea from tomorrow, around six.", question)
    assert not current._other_sex("She's moving it to bedtime.", question)
    # Naming whom the question names, or one of the sex asked, points at no one else.
    assert not current._other_sex("Mum says his is at six now.", question)
    assert not current._other_sex("Cole says he wants him on Friday.",
                                  "When is Mrs. Cole's physio?")
    # Both sexes, or none, in the question: nothing read.
    assert not current._other_sex("He takes it at six.", "When do Mum and Dad eat?")
    assert not current._other_sex("He takes it at six.", "When does Sam eat?")
