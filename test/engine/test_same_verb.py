"""``language.text.same_verb``: one reading of "a form of this verb" for the question's
verb and a record's (``doers`` and ``complement`` both ask it)."""

import pytest

from trace_ros.language.text import same_verb


@pytest.mark.parametrize(("word", "verb"), [
    ("flies", "fly"), ("flied", "fly"), ("goes", "go"), ("going", "go"), ("staying", "stay"),
    ("needs", "need"), ("studied", "study"), ("takes", "take"), ("fly", "fly"),
])
def test_forms_of_the_verb(word: str, verb: str) -> None:
    assert same_verb(word, verb)


@pytest.mark.parametrize(("word", "verb"), [
    ("flight", "fly"), ("god", "go"), ("stage", "stay"), ("need", "feed"), ("token", "take"),
])
def test_other_words_are_not(word: str, verb: str) -> None:
    assert not same_verb(word, verb)
