"""Which earlier statements the fitted judgement weighs (``judge.weigh``'s gate): one
sharing a holder's name or a three-letter word the speaker seldom says is weighed too,
with that sign of its own; the same words said often tie nothing (below
``UNTIED_CLOSE``: closer, the speaker's own statement is weighed untied)."""

from __future__ import annotations

import math

import numpy as np

from trace_ros.consolidation import judge

VET = "The vet rang, Pickle goes in on the 12th for her jabs."
MOVED = "Good news, Pickle has been brought forward to the 10th."
PARKED = "The van is parked in the yard at night."
LOCKUP = "At night the van goes in the lock-up on Station Road now."


def _signals(new: str, old: str, seldom: bool) -> dict[str, float] | None:
    found = judge.weigh(new, [old], [0.5], lambda t: seldom)
    return dict(zip(judge.FEATURES, found[0][1], strict=True)) if found else None


def test_a_name_both_name_ties_two_statements_sharing_no_content_word() -> None:
    assert judge.shared_terms(VET, MOVED) == frozenset()
    assert judge.shared_names(VET, MOVED) == frozenset({"pickl"})
    signals = _signals(MOVED, VET, seldom=True)
    assert signals is not None and signals["shared_name"] > 0.0
    assert signals["shared_salient"] == 0.0 and signals["shared_short"] == 0.0


def test_a_name_the_speaker_says_often_ties_nothing() -> None:
    assert _signals(MOVED, VET, seldom=False) is None


def test_a_three_letter_word_both_name_ties_them() -> None:
    assert judge.shared_terms(PARKED, LOCKUP) == frozenset()
    assert judge.shared_short(PARKED, LOCKUP) == frozenset({"van"})
    signals = _signals(LOCKUP, PARKED, seldom=True)
    assert signals is not None and signals["shared_short"] > 0.0 and signals["shared_name"] == 0.0
    assert _signals(LOCKUP, PARKED, seldom=False) is None


def test_a_statement_sharing_only_common_words_is_not_weighed() -> None:
    # "the", "is", "on": stopwords; no name, no content word, no three-letter word shared
    assert _signals("The bus is on time today.", VET, seldom=True) is None


def test_a_shared_name_weighs_for_an_update() -> None:
    """The fit gives a shared name a positive weight: the same pair less one shared name
    is less likely an update."""
    signals = _signals(MOVED, VET, seldom=True)
    assert signals is not None
    without = dict(signals, shared_name=0.0)
    assert judge.probability(list(signals.values())) > judge.probability(list(without.values()))


def test_a_name_told_only_as_a_relatives_owner_ties_nothing() -> None:
    """"Tadeo's brother has been moved to the 47 route" tells of the brother: the name
    it shares with "My cousin Tadeo drives the number 12 bus" is not the holder's."""
    bus = "My cousin Tadeo drives the number 12 bus."
    assert judge.shared_names(bus, "Tadeo's brother has been moved to the 47 route now.") \
        == frozenset()
    assert judge.shared_names(bus, "Tadeo's been moved to the 47 route now.") \
        == frozenset({"tadeo"})


VEGETARIAN = "When you suggest recipes, remember I'm vegetarian. Eggs and cheese are fine."
VEGAN = "Ravi's dragged me along with him. I'm going fully vegan. No eggs, no dairy."


def _units(*cosines: float) -> np.ndarray:
    """Unit rows whose cosines to the first row are ``cosines`` (the first row's own 1.0
    left out), each in a plane of its own."""
    rows = [np.eye(len(cosines) + 1)[0]]
    for i, c in enumerate(cosines, start=1):
        rows.append(c * np.eye(len(cosines) + 1)[0]
                    + math.sqrt(1 - c * c) * np.eye(len(cosines) + 1)[i])
    return np.stack(rows)


def test_the_speakers_own_close_statement_sharing_no_seldom_word_is_weighed_untied() -> None:
    """A change told in other words shares no word the speaker seldom says: at least
    ``UNTIED_CLOSE`` close, the speaker's own earlier statement is weighed, ``tied`` 0."""
    close = judge.UNTIED_CLOSE
    found = judge.weigh(VEGAN, [VEGETARIAN], [close], lambda t: False)
    assert found and dict(zip(judge.FEATURES, found[0][1], strict=True))["tied"] == 0.0
    tied = judge.weigh(VEGAN, [VEGETARIAN], [close], lambda t: True)
    assert dict(zip(judge.FEATURES, tied[0][1], strict=True))["tied"] == 1.0


def test_an_untied_statement_less_close_or_anothers_is_not_weighed() -> None:
    below = judge.UNTIED_CLOSE - 0.05
    assert judge.weigh(VEGAN, [VEGETARIAN], [below], lambda t: False) == []
    # another speaker's statement (``strict``) still needs a seldom-said word
    assert judge.weigh(VEGAN, [VEGETARIAN], [0.9], lambda t: False, strict=True) == []


def test_nearest_reads_whether_the_new_statement_is_the_earliers_likest() -> None:
    """``nearest``: 1 when nothing else the speaker said is closer to the earlier
    statement than the new one; a look-alike nearer a statement of its own kind (a
    restatement, a second weekly event) gets 0, and so a lower probability."""
    later = "And the dentist, that's Thursday afternoon now."
    # rows: the earlier statement, then another of the speaker's at cosine 0.9 to it
    units = _units(0.9)
    alone = judge.weigh(later, ["The dentist is on Monday at 3pm.", "Nice weather."],
                        [0.7, 0.1], lambda t: True, units=units)
    signals = dict(zip(judge.FEATURES, dict(alone)[0], strict=True))
    assert signals["nearest"] == 0.0  # the other statement, at 0.9, is nearer
    nearer = judge.weigh(later, ["The dentist is on Monday at 3pm.", "Nice weather."],
                         [0.95, 0.1], lambda t: True, units=units)
    near = dict(zip(judge.FEATURES, dict(nearer)[0], strict=True))
    assert near["nearest"] == 1.0
    assert judge.probability(list(dict(signals, nearest=1.0).values())) \
        > judge.probability(list(signals.values()))
    # without the vectors nothing is said of it
    bare = judge.weigh(later, ["The dentist is on Monday at 3pm."], [0.7], lambda t: True)
    assert dict(zip(judge.FEATURES, bare[0][1], strict=True))["nearest"] == 0.0


def test_an_untied_statement_of_a_relative_is_not_weighed() -> None:
    """"Tadeo's brother has been moved" tells of the brother: however close, it is not
    weighed untied against "My cousin Tadeo drives the 12 bus"; Tadeo himself is."""
    bus = "My cousin Tadeo drives the number 12 bus."
    assert judge.weigh("Tadeo's brother has been moved to the 47 route now.", [bus], [0.8],
                       lambda t: False) == []
    assert judge.weigh("Tadeo's been moved to the 47 route now.", [bus], [0.8],
                       lambda t: False)
