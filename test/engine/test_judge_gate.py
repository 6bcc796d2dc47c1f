"""Which earlier statements the fitted judgement weighs (``judge.weigh``'s gate): one
sharing a holder's name or a three-letter word the speaker seldom says is weighed too,
with that sign of its own; the same words said often tie nothing."""

from __future__ import annotations

from trace_ros.consolidation import judge

VET = "The vet rang, Pickle goes in on the 12th for her jabs."
MOVED = "Good news, Pickle has been brought forward to the 10th."
PARKED = "The van is parked in the yard at night."
LOCKUP = "At night the van goes in the lock-up on Station Road now."


def _signals(new: str, old: str, seldom: bool) -> dict[str, float] | None:
    found = judge.weigh(new, [old], [0.6], lambda t: seldom)
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
