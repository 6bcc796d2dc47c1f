"""Readings the chain and the reader ask again of the same records are kept per text
(issue 16): a kept reading is the reading of that text (what the function computes
afresh), a text that differs is read afresh, a caller that changes what it was given
changes nothing kept, and a forget empties them with the other readings."""

from __future__ import annotations

from trace_ros.language import clauses, revision, text
from trace_ros.language.caches import forget_texts
from trace_ros.query import owners, spans

TEXTS = [
    "My dentist appointment is on Monday at 3pm.",
    "We've moved Mrs Lee to the side room; Mr Lee is in bed 4.",
    "Final numbers: 62. Sorry, 61, someone's dropped out.",
    "I drink two litres of water a day. They've put me up to four.",
    "my flatmate Dev is doing keto, and Eileen next door has just been put on ibuprofen gel",
    "Ben's got a lab Monday night, so the bills meeting slides one more day",
    "The 8:10 train leaves from platform 3 on 14 March 2024.",
    "Casa Verde on Main Street, near the Old Mill.", "", "no", "Ｍonday — Kelvin \u212a now",
]
KEPT = [revision._titled, revision.other_titled, revision.mid_names, revision._about_another,
        spans.without_times, spans._quantities, spans.repaired, text._words,
        owners._phrase_stems, owners._clause_words, clauses._clauses]


def _again(s: str) -> str:
    return "".join(list(s))  # an equal string built anew: the same key


def test_each_kept_reading_is_the_reading_of_the_text() -> None:
    for f in KEPT:
        f.cache_clear()
    for _ in range(2):  # the second time from the caches
        for t in TEXTS:
            assert revision._titled(_again(t)) == revision._titled.__wrapped__(t)
            assert revision.mid_names(_again(t)) == revision.mid_names.__wrapped__(t)
            assert spans.without_times(_again(t)) == spans.without_times.__wrapped__(t)
            assert spans.quantities(_again(t)) == list(spans._quantities.__wrapped__(t))
            assert spans.repaired(_again(t)) == spans.repaired.__wrapped__(t)
            assert clauses.clauses(_again(t)) == list(clauses._clauses.__wrapped__(t))
            assert text.words(_again(t)) == [w.lower() for w in text.tokens(t)]
            for q in ("Which bed is Mr Lee in?", "How much water do I drink?", ""):
                assert revision.other_titled(_again(t), q) == \
                    revision.other_titled.__wrapped__(t, q)
            for named, thing in ((frozenset(), frozenset()), (frozenset({"dev"}), frozenset()),
                                 (frozenset(), frozenset({"meet", "bill"}))):
                assert revision.about_another(_again(t), named, thing) == \
                    revision._about_another.__wrapped__(t, named, thing)
            assert owners._phrase_stems(_again(t)) == text.stems(t) | {
                text.stem(w.lower()) for w in owners._PHRASE_WORD.findall(t)}
            assert owners._clause_words(_again(t)) == tuple(
                tuple(w.lower() for w in owners._PHRASE_WORD.findall(c))
                for c in clauses.clauses(t))
    assert all(0 < f.cache_info().currsize <= f.cache_info().maxsize for f in KEPT)
    assert all(f.cache_info().hits > 0 for f in KEPT)


def test_kept_readings_tell_texts_apart() -> None:
    # The look-alikes: one title or one figure apart, read as what each says.
    assert revision.other_titled("Mrs Lee is in bed 4.", "Which bed is Mr Lee in?")
    assert not revision.other_titled("Mr Lee is in bed 4.", "Which bed is Mr Lee in?")
    assert spans.quantities("I take 2 tablets a day.") != spans.quantities(
        "I take 3 tablets a day.")
    assert revision.mid_names("I saw Dev today.") != revision.mid_names("I saw Kim today.")


def test_a_caller_changing_what_it_got_changes_nothing_kept() -> None:
    t = "I drink two litres of water a day. They've put me up to four."
    got = text.words(t)
    got.append("extra")
    assert text.words(t) == [w.lower() for w in text.tokens(t)]
    found = spans.quantities(t)
    found.clear()
    assert spans.quantities(t) == list(spans._quantities.__wrapped__(t))


def test_a_text_that_negates_nothing_is_not_read_for_its_values() -> None:
    revision.values.cache_clear()
    revision.state_values.cache_clear()
    revision.negated.cache_clear()
    assert revision.negated("Swimming is on Tuesdays at 6pm now.") == frozenset()
    assert revision.values.cache_info().currsize == 0
    assert revision.state_values.cache_info().currsize == 0
    # Where something is negated, its values are read as before.
    assert revision.negated("It's 2.09, not 2.07.")
    assert revision.values.cache_info().currsize > 0


def test_about_another_takes_any_set_of_names() -> None:
    t = "my flatmate Dev is doing keto"
    for named in (set(), {"dev"}, frozenset({"dev"})):
        assert revision.about_another(t, named) == \
            revision._about_another.__wrapped__(t, frozenset(named), frozenset())
    assert revision.about_another(t, set()) != revision.about_another(t, {"dev"})


def test_a_forget_empties_them() -> None:
    for t in TEXTS:
        revision.mid_names(t), spans.without_times(t), text.words(t)
    assert forget_texts() > 0
    assert all(f.cache_info().currsize == 0 for f in KEPT)
