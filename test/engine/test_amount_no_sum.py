""""How much …?" that names no sum (issue 14, the forty-seventh session): "How much is my
night-time statin?" reads as a sum of money, and where no shown record states one, the
amount a record gives with its unit answers ("twenty milligrams"; ``ExtractiveReader._read``).
Look-alikes still decline: a question naming a sum ("cost"), a span of time ("six years"),
a word of the question taken for a unit ("1200 saved"), and, asked of now, an amount a
later record about the thing may have changed (it does not say the state holds on).
"""

from __future__ import annotations

from .readerkit import read, rec


def test_an_amount_answers_how_much_where_no_sum_is_asked_or_stated() -> None:
    said = rec(1, "And at night it's the statin, twenty milligrams. Don't muddle them.", "Walter")
    assert read("How much is my night-time statin?", said) == "twenty milligrams"
    # A question naming a sum takes no amount for it.
    assert read("How much does my night-time statin cost?", said) == ""


def test_a_span_of_time_or_the_question_s_word_is_no_amount() -> None:
    assert read("How much is Ama earning in her new job?",
                rec(1, "Ama has been at the bakery six years now.", "Kofi")) == ""
    assert read("How much has Freya saved for her car?",
                rec(1, "She's got 1200 saved for her car.", "Ingrid")) == ""


def test_an_amount_a_later_record_may_have_changed_is_not_read_as_now() -> None:
    first = rec(1, "Our cat Miso gets the salmon biscuits, half a cup at night.", "Ingrid")
    assert read("How much does Miso get at night?", first) == "half a cup"
    # A later record about Miso that does not say it holds on leaves the amount unsaid.
    changed = rec(2, "The vet said Miso's getting chunky, so he's on the light turkey now.",
                  "Paddy")
    assert read("How much does Miso get at night?", first, changed) == ""
    kept = rec(2, "Miso's night feed stays as it was.", "Paddy")
    assert read("How much does Miso get at night?", first, kept) == "half a cup"
