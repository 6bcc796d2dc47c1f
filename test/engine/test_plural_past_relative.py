"""A plural pronoun after a reason whose subject is one relative points past them: "Mum's
got a cold, so they'll come on the 29th" is the parents' visit, not Mum's state."""
import pytest

from trace_ros.language import revision
from trace_ros.language.revision import another_holds, keys
from trace_ros.query.current import asked_of

PARENTS = "When are Sam's parents visiting?"


@pytest.mark.parametrize(("text", "thing"), [
    ("Mum's got a cold, so they'll come on the 29th instead.", {"parent", "visit"}),
    ("Father-in-law's knee is playing up, so they've cancelled the flight and are coming by "
     "train on the 19th, via Paris.", {"parent", "arriv"}),
    ("The bride rang. Her sister can't make Valentine's, so they've gone for the following "
     "Saturday.", {"wed", "recept"}),
])
def test_they_after_one_relative_is_the_asked_party(text: str, thing: set[str]) -> None:
    assert not revision.about_another(text, frozenset({"sam"}), frozenset(thing),
                                      valued_only=True)


@pytest.mark.parametrize("text", [
    # a singular pronoun may be the relative: her own state
    "Her sister can't make Valentine's, so she's gone for the following Saturday.",
    # two people may be "they"
    "Dana and Joe can't do Friday, so they'll come on the 29th instead.",
    # a named person, not a relative: left as before
    "Dana's got a cold, so they'll come on the 29th instead.",
])
def test_they_that_may_be_the_named_one_stays_another(text: str) -> None:
    assert revision.about_another(text, frozenset({"sam"}), frozenset({"parent", "visit"}),
                                  valued_only=True)


def test_they_does_not_take_a_singular_relative_as_subject() -> None:
    asked = asked_of(PARENTS)
    assert not another_holds("Mum's got a cold, so they'll come on the 29th instead.",
                             asked, keys(PARENTS))
    # a firm or a plural noun still lends "they" its subject
    assert another_holds("Fairway shuffled offices inside the building, they're on five now.",
                         asked_of("Which floor are the accountants on?"),
                         keys("Which floor are the accountants on?"))
    assert another_holds("The neighbours have a wedding, so they're away on the 29th.",
                         asked, keys(PARENTS))
