"""Which record the currentness chain starts from (``current.chain``'s anchor): whose
state the question asks, and what a question about a thing no one holds may start from."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from trace_ros.ledger import SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402
from trace_ros.query.plan import plan_question  # noqa: E402
from trace_ros.query.recall import Fused  # noqa: E402
from trace_ros.query.spans import asked  # noqa: E402


def _said(seq: int, speaker: str, text: str) -> SourceRecord:
    return SourceRecord(seq, f"s{seq}", "home", "r1", "d1", "dialogue", speaker, text, "", None,
                        None, {}, 1000.0 + seq, False, 1000.0 + seq, "")


def _chain(question: str, said: list[SourceRecord], order: list[int],
           near: dict[int, float] | None = None) -> current.Chain | None:
    """The chain over ``said``, ranked by ``order`` (seqs, best first); ``near``: the cosine
    of a later record to any earlier one."""
    records = {r.seq: r for r in said}
    ranked = [Fused(seq, records[seq].source_id, 1.0 / (i + 1)) for i, seq in enumerate(order)]
    plan = plan_question(question)
    wanted = asked(question, plan)
    close = near or {}

    def later(seq: int) -> dict[int, tuple[SourceRecord, float]]:
        return {s: (records[s], c) for s, c in close.items() if s > seq}

    return current.chain(question, plan.answer_type, ranked, records, None, later,
                         lambda seq: None, robot_id="r1", asked_kind=wanted.kind,
                         focus=wanted.focus)


def test_another_speakers_own_state_is_not_the_one_asked() -> None:
    """"Which afternoon is Tomasz off?": Greta's "I've taken Tuesday afternoons off myself"
    matches the question best, but tells of Greta; the chain starts from what is said of
    Tomasz and his move leads."""
    said = [_said(1, "Priya", "Tomasz finishes at one on Wednesdays, so no bookings after "
                              "lunch for him that day."),
            _said(5, "Priya", "Tomasz wants to move his half-day. Mondays are busy, so Friday "
                              "afternoon it is."),
            _said(6, "Greta", "I've taken Tuesday afternoons off myself, so don't book "
                              "anything for me then.")]
    found = _chain("Which afternoon is Tomasz off?", said, [6, 1, 5])
    assert found is not None and found.lead[:1] == ["s5"], found
    # Control: the one asked about speaking for themselves is their own state.
    said[2] = _said(6, "Tomasz", "I've taken Tuesday afternoons off now, so don't book "
                                 "anything for me then.")
    found = _chain("Which afternoon is Tomasz off?", said, [6, 1, 5])
    assert found is None or found.lead[:1] == ["s6"], found
    assert current._speaks_of_own(said[2], frozenset({"priya"}))
    assert not current._speaks_of_own(said[2], frozenset({"tomasz"}))
    assert not current._speaks_of_own(
        _said(7, "Greta", "I told him he's on Fridays now."), frozenset({"tomasz"}))


def test_a_thing_no_one_holds_starts_from_its_own_statement() -> None:
    """"What time does the window cleaner come?" asks of no one: the statement that names
    the cleaner and whom he works for is the thing's, and the change after it leads, not
    the gardener's time. A statement of someone's own window cleaner may start the chain
    too (the refusal of it lost more than it saved on the confirm half, issue 14)."""
    said = [_said(1, "Nia", "The window cleaner, Bogdan, comes at ten for Mrs Price."),
            _said(5, "Nia", "Bogdan's moved us to half two, he's picked up a new client in "
                            "the mornings."),
            _said(6, "Nia", "The gardener still comes at ten, so leave the gate open.")]
    found = _chain("What time does the window cleaner come?", said, [1, 6, 5], {5: 0.62})
    assert found is not None and found.lead[:1] == ["s5"], found
    said[0] = _said(1, "Nia", "Sam's window cleaner comes at ten on his road.")
    found = _chain("What time does the window cleaner come?", said, [1, 6, 5], {5: 0.62})
    assert found is not None and found.lead[:1] == ["s5"], found
