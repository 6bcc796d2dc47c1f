"""The clause that states the change answers, not the one beside it: asked what holds now,
a sentence of the record marked new ("these days", "now") answers over the best-matching
sentence that only tells what happened; the cause of a consequence "so" is not the new
state for saying "right now"; a name whose verb is negated in the past ("never turned
up") is not who does it; and a phrase a past negation governs ("I didn't sign …") is not
the value, though a habit said with "don't" still is."""

from __future__ import annotations

from trace_ros.query.spans import (
    declines,
    denied,
    place_phrase,
    scored_run,
    stems,
    tokens,
    told_new,
)


def test_a_sentence_marked_new_answers_over_the_best_matching_one() -> None:
    context = "Hay made Pip sneeze. Carrot tops and oats these days."
    q = set(stems("What does Pip eat?"))
    now, _ = scored_run("Hay made Pip sneeze.", q, context=context, now=True)
    assert "carrot" in now.lower()
    # Asked of the past (or without "now"), the best-matching sentence answers as before.
    then, _ = scored_run("Hay made Pip sneeze.", q, context=context, now=False)
    assert "carrot" not in then.lower()
    # Where the best sentence itself tells the new state, another gets no such waiver.
    told = "Pip is on pellets now. Carrot tops and oats these days."
    here, _ = scored_run("Pip is on pellets now.", q, context=told, now=True)
    assert "pellets" in here


def test_the_cause_of_a_consequence_so_is_not_told_new() -> None:
    text = "The lake is too rough right now, so we're rowing on the canal."
    found = [text[a:b] for a, b in told_new(text)]
    assert found == ["we're rowing on the canal"]
    # A clause marked new on its own still counts.
    text = "It's the canal now, the lake is rough."
    assert [text[a:b] for a, b in told_new(text)] == ["It's the canal now"]


def test_a_name_negated_in_the_past_declines() -> None:
    text = "Oskar never showed up. Bea has taken the shift."
    assert declines(text, text.index("Oskar") + len("Oskar"))
    assert not declines(text, text.index("Bea") + len("Bea"))
    text = "Lena didn't reply, so Mo is driving."
    assert declines(text, len("Lena"))


def test_a_past_negation_denies_its_phrase_but_a_habit_does_not() -> None:
    toks = tokens("I didn't take the flat on Mill Lane in the end.")
    at = next(i for i, t in enumerate(toks) if t.text == "Mill")
    assert denied(toks, at, at + 2)
    # (nor is the negated verb's own phrase: "haven't been able" says nothing is so)
    toks = tokens("We haven't been able to visit.")
    assert denied(toks, 1, 4)
    toks = tokens("I don't eat fish.")
    assert not denied(toks, 3, 4)
    # Where a place is said only in a clause that did not come about, it is no answer.
    assert place_phrase("We never moved to Leeds.", set(stems("Where do we live?"))) == ""
    assert place_phrase("We moved to Leeds.", set(stems("Where do we live?"))) == "Leeds"
