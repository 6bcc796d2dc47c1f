"""Asked what holds now, the phrase of a record where it tells the state as the new one
answers: what follows a consequence "so", or a clause marked "now", "instead", "from now
on" ("it was X, so now it's Y" answers Y). Asked of the past, or with a "so that" of a
purpose, the record is read as before."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.query.spans import scored_run, stems, told_new


def test_what_follows_a_consequence_so_is_the_state_now() -> None:
    answer = read("How does Omar take his tea?",
                  rec(1, "The soya milk doesn't agree with me, so I'm back to plain black tea.",
                      speaker="Omar"))
    assert "black" in answer and "soya" not in answer
    answer = read("What do I drink at breakfast?",
                  rec(1, "The grapefruit juice clashes with my tablets, so I'm on apple juice "
                         "at breakfast."))
    assert "apple" in answer


def test_asked_of_the_past_the_consequence_gains_nothing() -> None:
    # What the record says first is read as before: no new state is asked for.
    answer = read("What did I drink at breakfast?",
                  rec(1, "The grapefruit juice clashes with my tablets, so I'm on apple juice "
                         "at breakfast."))
    assert "grapefruit" in answer


def test_a_clause_marked_new_answers_over_the_one_it_replaces() -> None:
    answer = read("What do we have for Sunday lunch?",
                  rec(1, "We're giving up on the carvery for Sunday lunch, it's a picnic in "
                         "the park from now on."))
    assert "picnic" in answer


def test_told_new_finds_the_clauses() -> None:
    text = "The carvery closed, so we're doing picnics. It's the park now, by the pond."
    found = [text[a:b] for a, b in told_new(text)]
    assert "we're doing picnics" in found and "It's the park now" in found
    # A passive telling what happened is the event; its outcome is said elsewhere.
    assert told_new("The drummer quit, so Tom's been promoted. He's the king!") == []
    # Told to someone by name, their own new state is theirs, not the asker's.
    told = "Tom, the gym rang, so your locker is 58 now."
    assert told_new(told) and told_new(told, addressed=True) == []
    assert told_new("Tom, the gym rang, so my locker is 58 now.", addressed=True)
    # What follows tells a wish, not a state; "so much" is a degree, not a consequence.
    assert told_new("Gardening has been good to me, so I want to give something back.") == []
    assert told_new("The kids, so much joy they bring.") == []
    # A "so that" tells a purpose, not what follows from a cause.
    assert told_new("I keep the tin up high so that the dog can't reach it.") == []
    # A comma put where a time was taken out ends no clause.
    assert [("on ,s from now on" in "x on ,s from now on."[a:b])
            for a, b in told_new("x on ,s from now on.")] == [True]


def test_asked_of_the_past_or_without_now_the_run_is_as_before() -> None:
    sentence = "The honey was giving her toothache, so she has stewed apple."
    q = set(stems("What did Priya take with her porridge?"))
    assert scored_run(sentence, q, now=False) == scored_run(sentence, q)
    assert scored_run(sentence, q, now=True)[1] > scored_run(sentence, q, now=False)[1]
