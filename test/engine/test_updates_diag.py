"""``tools/locomo_updates_diag.py`` names which of ``judge.elsewhere``'s tests hold a
pair of turns off, so a reader of a long chatty turn sees why no ``updates`` edge came:
an event noun in an unrelated sentence of the turn is one such reason."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from locomo_updates_diag import blocked_by, pair_stage  # noqa: E402

from trace_ros.consolidation import judge  # noqa: E402


def test_a_plain_revision_is_held_off_by_nothing() -> None:
    old = "My locker at the gym is number 12."
    new = "They moved me, my locker at the gym is number 40 now."
    assert blocked_by(old, new, frozenset({"dana"})) == []
    assert not judge.elsewhere(old, new, judge.shared_terms(old, new), frozenset({"dana"}))


def test_an_event_noun_elsewhere_in_a_long_turn_is_named() -> None:
    old = "I applied to adoption agencies this week."
    new = ("I passed the adoption agency interviews last Friday! "
           "Also we had a great meeting at the library.")
    why = blocked_by(old, new, frozenset({"caroline"}))
    assert "other_event_new" in why
    assert judge.elsewhere(old, new, judge.shared_terms(old, new), frozenset({"caroline"}))


def test_causes_name_how_far_a_pair_gets() -> None:
    """``causes`` counts why annotated changes get no edge: a pair sharing no word the
    speaker seldom says stops there; one an event noun elsewhere in the turn holds off
    is named so, with the judgement's probability; a plain revision is not held off."""
    def salient(t: str) -> bool:
        return True

    words = frozenset({"dana"})
    assert pair_stage("I love my garden.", "Work was busy today.", 0.5, 3, 10, salient,
                      words)[0] == "no_salient_word"
    assert pair_stage("My locker is number 12.", "My locker is number 40.", 0.2, 3, 10,
                      salient, words)[0] == "below_floor"
    assert pair_stage("My locker is number 12.", "My locker is number 40.", 0.9, 3, 10,
                      salient, words, has_facts=False)[0] == "no_fact"
    name, why = pair_stage("I applied to adoption agencies this week.",
                           "I passed the adoption agency interviews last Friday! "
                           "Also we had a great meeting at the library.", 0.8, 3, 10,
                           salient, frozenset({"caroline"}))
    assert name == "held_off" and "other_event_new" in why and "(p " in why
    assert pair_stage("My locker at the gym is number 12.",
                      "They moved me, my locker at the gym is number 40 now.", 0.8, 3, 10,
                      salient, words)[0] in ("judged_unlikely", "other")


def test_a_turn_that_asks_back_is_named_before_the_judgement() -> None:
    """Consolidation weighs no earlier turn that ends by asking, and a later one only as
    a plan's outcome: ``causes`` names that gate (which turn asks) before any word or
    probability, so a chatty turn's closing question is not read as a low judgement."""
    def salient(t: str) -> bool:
        return True

    words = frozenset({"maria"})
    old = "I took a creative writing class recently, and it was super enlightening!"
    new = "I've been taking a poetry class lately. It's been good. How have you been?"
    assert pair_stage(old, new, 0.8, 3, 10, salient, words) == ("asks_back", "new")
    assert pair_stage(new, old, 0.8, 3, 10, salient, words) == ("asks_back", "old")
    assert pair_stage(old, new.removesuffix(" How have you been?"), 0.8, 3, 10, salient,
                      words)[0] != "asks_back"
