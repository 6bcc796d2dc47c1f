"""The per-text readings consolidation keeps (issue 16: the judgement weighs a statement
against every earlier one of its speaker, each pair once reading both texts again).

Invented sentences. Each kept reading must answer as the reading it replaced, written out
here as it was; and ``judge.weigh``'s quick pass over pairs no salient word can tie must
weigh exactly the pairs reading each pair weighs: a pair tied by a holder's name or a
three-letter word is weighed as one tied by a longer content word.
"""

from __future__ import annotations

import re

import pytest

from trace_ros.consolidation import judge, shapes, things
from trace_ros.language import revision
from trace_ros.language.revision import is_value_word, terms
from trace_ros.language.text import stem

TEXTS = [
    "The choir rehearsal moved to Thursday.",
    "The orchestra rehearsal is on Friday now.",
    "My sister's appointment got pushed to the 12th.",
    "An upcoming show in Boston, then the show in Tokyo.",
    "We found a room change for the meeting, the room is 4B.",
    "Twelve hives now, down from fourteen hives. Forty-two families on the list.",
    "The car park is closed; the car service is Tuesday.",
    "Tadeo's brother has been moved to the 47.",
    "My cousin Tadeo drives the 12 bus.",
    "Pickle goes in on the 12th for the vet.",
    "Pickle's been brought forward to the 10th at the vet.",
    "I'm on two-hourly obs, you know? Thanks to you and your team.",
    "the hall's double-booked, so the gym it is",
    "Got the van back from the garage. Another van is on order.",
    "",
]
TOKEN = re.compile(r"[^\W_]+(?:'[a-z]+)?")


def _old_words(text: str) -> list[str]:
    return [m.group(0).lower().split("'")[0] for m in TOKEN.finditer(text)]


def _old_before(text: str, head: str) -> set[str]:
    toks = _old_words(text)
    return {stem(toks[i - 1]) for i, w in enumerate(toks)
            if i and stem(w) == head and toks[i - 1] not in things.DETERMINERS
            and not is_value_word(toks[i - 1]) and len(toks[i - 1]) > 2}


def _old_after(text: str, head: str) -> set[str]:
    toks = _old_words(text)
    return {stem(toks[i + 1]) for i, w in enumerate(toks[:-1])
            if stem(w) == head and toks[i + 1] not in things.DETERMINERS
            and stem(toks[i + 1]) in terms(text)}


def _old_introduces(text: str, stems: frozenset[str]) -> bool:
    toks = [(m.group(0).lower(), m.end()) for m in revision._WORD.finditer(text)]
    for i, (w, end) in enumerate(toks):
        if stem(w) not in stems or not revision._ENDS_PHRASE.match(text, end):
            continue
        for before, _ in reversed(toks[max(0, i - 3):i]):
            if before in revision._INDEFINITE:
                return True
            if before in revision._DEFINITE:
                break
    return False


def _stems(text: str) -> set[str]:
    return {stem(w) for w in _old_words(text)}


@pytest.mark.parametrize("text", TEXTS)
def test_words_and_heads_read_as_before(text: str) -> None:
    assert list(things._words(text)) == _old_words(text)
    for head in _stems(text) | {"rehears", "park"}:
        assert things._before_by_head(text).get(head, frozenset()) == _old_before(text, head)
        assert things._after_by_head(text).get(head, frozenset()) == _old_after(text, head)
        assert revision.introduces(text, frozenset({head})) == \
            _old_introduces(text, frozenset({head}))
    every = frozenset(_stems(text))
    toks = _old_words(text)
    assert things.phrase_heads(text, every) == {
        stem(w) for i, w in enumerate(toks)
        if stem(w) in every and things.DETERMINERS & set(toks[max(0, i - 2):i])}


def test_kinds_and_counts_as_before() -> None:
    assert things.other_kind(TEXTS[0], TEXTS[1], "rehears")
    assert things.other_compound(TEXTS[6], TEXTS[6].replace("service", "park"), "car") is False
    assert revision.introduces(TEXTS[3], frozenset({"show"}))
    assert not revision.introduces(TEXTS[4], frozenset({"room"}))
    assert shapes.counts("Twelve hives now, down from fourteen hives.", frozenset({"hive"})) \
        == {"hive": 14}
    assert shapes.counts("Forty-two families on the list", frozenset({"famili"})) == \
        {"famili": 42}
    assert shapes.counts("I'm on two-hourly obs", frozenset({"ob", "obs"})) == {}


def _weigh_each(new: str, earlier: list[str], sims: list[float], salient, strict: bool
                ) -> list[int]:
    """The pairs weighed by reading each pair (no quick pass)."""
    out = []
    for j, (old, cos) in enumerate(zip(earlier, sims, strict=True)):
        if cos < judge.FLOOR or old.rstrip().endswith("?"):
            continue
        ties = judge.shared_ties(old, new)
        tied = any(salient(t) for t in ties[0] | ties[1] | ties[2])
        if not (tied or not strict and cos >= judge.UNTIED_CLOSE
                and not judge._kin_told(old, new)) \
                or any(things.other_kind(old, new, t) for t in ties[0]) \
                or strict and judge.elsewhere(old, new, ties[0], frozenset()):
            continue
        out.append(j)
    return out


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("cos", [0.4, 0.55, 0.65])
def test_weigh_passes_over_only_untied_pairs(strict: bool, cos: float) -> None:
    seldom = {"pickl", "van", "vet", "rehears", "hive", "tadeo"}
    for new in TEXTS:
        earlier = [t for t in TEXTS if t != new]
        sims = [cos] * len(earlier)
        for salient in (lambda t: t in seldom, lambda t: True, lambda t: False):
            weighed = [j for j, _ in judge.weigh(new, earlier, sims, salient, strict=strict)]
            assert weighed == _weigh_each(new, earlier, sims, salient, strict)


def test_a_shared_name_alone_ties_a_pair() -> None:
    # "Lowe" is a holder's name, no content word: the quick pass must not drop the pair.
    old = "Mr Lowe in bed 3 is on two-hourly obs"
    new = "Mr Lowe's obs are down to four-hourly now"
    salient = lambda t: t == "low"  # noqa: E731
    assert "low" in judge.shared_ties(old, new)[1]
    assert "low" not in judge.shared_ties(old, new)[0] | judge.shared_ties(old, new)[2]
    assert [j for j, _ in judge.weigh(new, [old], [0.4], salient)] == [0]
    assert judge.weigh(new, [old], [0.4], lambda t: False) == []
