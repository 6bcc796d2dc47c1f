"""A later change told in the words of the change before it (issue 14).

The chain is transitive: after "it's almond from now" (for oat milk), the next change is
told of the almond ("Almond didn't last."), not of the porridge the first statement and
the question name. ``current._steps_on`` joins such a record to the thread's latest
revision; a record that speaks of that revision's words without moving on from them (no
change marked, nothing denied), or one in the same session, is no next step. Real
SQLite ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language import revision  # noqa: E402
from trace_ros.ledger import Ledger, SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402

from .readerkit import turn  # noqa: E402

CHATTER = [(7, "Bea", "The fog this morning was so thick I could barely see the gate."),
           (7, "robot", "Take care on the roads."),
           (8, "Bea", "Baked a lemon drizzle for the neighbours, half of it's gone already.")]
FIRST = [(6, "Bea", "Grandad only has oat milk in his porridge, nothing else."),
         (6, "robot", "Noted."),
         *CHATTER,
         (9, "Bea", "Oat was upsetting his stomach, so it's almond from now."),
         (9, "robot", "Almond milk for Grandad."),
         (10, "Bea", "My grandson has his first swimming lesson on Saturday, he is thrilled.")]
QUESTION = "What milk does Grandad have in his porridge?"


def test_a_change_told_in_the_words_of_the_last_one_leads(ledger: Ledger,
                                                          encoder: MiniLMEncoder) -> None:
    """The third milk names the second ("Almond didn't last"), not the porridge."""
    history(ledger, encoder, [
        *FIRST,
        (12, "Bea", "Almond didn't last. The nurse says try him on goat's milk."),
    ])
    res = ask(ledger, encoder, QUESTION)
    assert res.source_ids[:1] == ["t8"], (res.answer, res.source_ids)


def test_a_word_of_the_last_change_said_again_moves_nothing(ledger: Ledger,
                                                            encoder: MiniLMEncoder) -> None:
    """"Almond suits him …" speaks of the new milk without leaving it."""
    history(ledger, encoder, [
        *FIRST,
        (12, "Bea", "Almond suits him, he has it in his tea at the Crown on Fridays too."),
    ])
    res = ask(ledger, encoder, QUESTION)
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def _rec(seq: int, session: str, text: str, speaker: str = "Bea") -> SourceRecord:
    return turn(seq, session, text, speaker)


def test_a_step_moves_on_in_a_later_session() -> None:
    anchor = _rec(1, "d6", "Our book club meets in the library on the high street.")
    head = _rec(2, "d9", "The library is shut, so book club is going to the Anchor pub "
                         "instead.")
    thing = frozenset({"book", "club"})
    pool = [frozenset({"book", "club", "librari"}), frozenset({"anchor", "pub"}),
            frozenset({"fog"}), frozenset({"lemon"})]

    def near(seq: int) -> dict[int, tuple[SourceRecord, float]]:
        return {}

    def step(rec: SourceRecord) -> str:
        return current._steps_on(rec, head, anchor, thing, True, near, False, thing, pool)

    moved = "The pub didn't work out, too noisy. We'll meet at the Old Forge café."
    assert step(_rec(3, "d12", moved)).startswith("steps on s2")
    assert step(_rec(3, "d9", moved)) == ""  # the same session: more of the same turn's talk
    assert step(_rec(3, "d12", "The pub's still fine, same table as ever.")) == ""
    assert step(_rec(3, "d12", "The pub does a pie night at the Old Forge on Fridays.")) == ""


def test_now_closing_a_span_of_time_marks_no_change() -> None:
    """"for a while now" says how long a state has held, not that it is new (read as a
    change, it made consolidation edges of old news on LoCoMo)."""
    assert not revision.marks_change("I've been painting for a while now.")
    assert not revision.marks_change("I've been doing it for two weeks now.")
    assert not revision.marks_change("We've been here 5 months now.")
    assert not revision.marks_change("Been vegan for years now.")
    assert revision.marks_change("He's Nacho now.")
    assert revision.marks_change("I'm doing 3 days now.")
    assert revision.marks_change("We meet every couple of months now.")


def test_a_step_names_the_last_value_however_common_in_the_talk() -> None:
    """The next change may name only the value the last one brought, a word the talk says
    often ("coach" after "We're going by coach instead"): its speaker naming it again and
    giving a value it did not moves on; naming it with nothing new, saying it carries on,
    or the word of one who does not speak for the thing does not."""
    anchor = _rec(1, "d6", "We're getting the train up to Edinburgh for the wedding.")
    head = _rec(2, "d9", "Rail strikes. We're going by coach instead, same date.")
    thing = frozenset({"edinburgh", "get"})
    # "coach" in more than STEP_SHARE of the recalled records: no rare word of the step
    pool = [frozenset({"coach", "seat"}), frozenset({"coach", "driver"}),
            frozenset({"coach", "snack"}), frozenset({"coach", "stop"}),
            frozenset({"fog"}), frozenset({"lemon"})]

    def near(seq: int) -> dict[int, tuple[SourceRecord, float]]:
        return {}

    def step(rec: SourceRecord, speaks: bool = True) -> str:
        return current._steps_on(rec, head, anchor, thing, speaks, near, False, thing, pool)

    moved = "The coach firm cancelled on us, so we fly up from Bristol."
    assert step(_rec(3, "d12", moved)).startswith("gives way to it after s2")
    # (one relaying the change speaks for the thing; one who does not, does not move it)
    assert step(_rec(3, "d12", moved, speaker="Tom")).startswith("gives way to it after s2")
    assert step(_rec(3, "d12", moved, speaker="Tom"), speaks=False) == ""
    assert step(_rec(3, "d12", "The coach was comfy, we slept most of the way.")) == ""
    assert step(_rec(3, "d12", "Still the coach from Bristol, nothing's changed.")) == ""
    assert step(_rec(3, "d9", moved)) == ""  # the same session: more of the same turn's talk


def test_a_record_opening_on_the_last_change_reopens_it() -> None:
    """The latest revision's value as what a later record speaks of first ("The coach
    firm cancelled on us") takes the thread on; the same value named late, of another's
    thing ("My neighbour's just named her kitten Bramble"), or kept ("still"), does not."""
    anchor = "Choir tour to Edinburgh: we're taking the train on 23 May."
    head = "Rail strikes. We're going by coach instead, same date."
    thing = frozenset({"edinburgh"})
    assert current._opens_on("The coach firm cancelled on us, so we fly up from Bristol.",
                             head, anchor, thing)
    assert not current._opens_on("My neighbour's booked a big trip, a coach to Rome.",
                                 head, anchor, thing)
    assert not current._opens_on("The coach is still booked, same seats.", head, anchor, thing)
    # a word the anchor already said is no word of the revision's
    assert not current._opens_on("The train was lovely, so we're fine.", head, anchor, thing)
    named = "The kids voted and he's getting a new name, Bramble."
    assert current._opens_on("Bramble didn't stick, so Biscuit it stays.", named,
                             "Our greyhound is called Dash.", frozenset({"greyhound"}))


def test_the_third_value_opening_on_the_second_leads(ledger: Ledger,
                                                     encoder: MiniLMEncoder) -> None:
    """"Almond was no good either, … goat's milk" opens on the second milk: the current
    one, whatever it names."""
    history(ledger, encoder, [
        *FIRST,
        (12, "Bea", "Almond gave him a rash, so the nurse has him on goat's milk now."),
    ])
    res = ask(ledger, encoder, QUESTION)
    assert res.source_ids[:1] == ["t8"], (res.answer, res.source_ids)


def test_another_changing_likewise_reopens_nothing() -> None:
    """"Joan's moved too, she's on 16 now" after "They've moved me to 6": another's
    plot changing as well; the change word the two share is no word of the value."""
    anchor = "My allotment is plot 9, by the gate."
    head = "Plot 9 floods, would you believe. They've moved me to 6, higher ground."
    thing = frozenset({"allot", "plot"})
    assert not current._opens_on("Joan's moved too, she's on 16 now.", head, anchor, thing)
    assert not current._opens_on("Moved again, so Joan's on 16 now.", head, anchor, thing)
    assert current._opens_on("Higher ground didn't help, so they've put me on 2.", head,
                             anchor, thing)
