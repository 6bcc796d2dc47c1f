"""What the query keeps per text (issue 16): the chain's and the revision judgements'
readings of a record are kept by the text itself, so they are the readings of that text
whatever record carries it, a forget or a new capture between two questions changes no
answer an engine that kept nothing would give, and the faster searches find what the
plain ones find.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import capture  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.project import GraphProjector  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language import revision, timeanchor  # noqa: E402
from trace_ros.language.text import folded_search  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.query import current, spans  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest, QueryResult  # noqa: E402

TEXTS = [
    "My dentist appointment is on Monday at 3pm.",
    "The dentist's office called and pushed me to Thursday afternoon.",
    "Is it still on the 14th?", "Where is it? What time?",
    "I drink two litres of water a day. They've put me up to four.",
    "Three litres now, the nurse said.", "SINCE MONDAY I've been MOVED to ward 5.",
    "Sorry, I meant 23.", "We're in Kilimanjaro instead, same date.",
    "Back in May 2023 we went to Halloween parties every week.",
    "", "no", "Nothing changes, really.", "Ｍonday ſince — Kelvin \u212a now",
]
# Letters re.I folds to ASCII ones, and text beside them.
UNUSUAL = st.lists(st.sampled_from(list("aksKSnowIi \u212a\u017f\u0130\u0131.,'’0123")
                                   + ["now", "since ", "monday", "been moved", "\u212anow"])
                   ).map("".join)


@pytest.mark.parametrize("pattern", [revision._CHANGED, timeanchor._QUICK])
def test_a_folded_search_finds_what_the_pattern_finds(pattern: re.Pattern[str]) -> None:
    search = folded_search(pattern)
    for text in TEXTS + [t.upper() for t in TEXTS] + [t.swapcase() for t in TEXTS]:
        assert search(text) == (pattern.search(text) is not None), text


@given(UNUSUAL)
def test_a_folded_search_agrees_on_any_text(text: str) -> None:
    for pattern in (revision._CHANGED, timeanchor._QUICK):
        assert folded_search(pattern)(text) == (pattern.search(text) is not None)


def test_a_folded_search_takes_only_a_lower_case_pattern_with_re_i() -> None:
    with pytest.raises(ValueError):
        folded_search(re.compile(r"\bnow\b"))
    with pytest.raises(ValueError):
        folded_search(re.compile(r"[A-Z]ow", re.I))
    with pytest.raises(ValueError):
        folded_search(re.compile(r"(?-i:Now)|later", re.I))
    assert folded_search(re.compile(r"\bNOW\b".lower(), re.I))("Right NOW.")


def test_kept_readings_are_the_readings_of_the_text() -> None:
    kept = [current._states, current._measures, current._moves_amount, revision.marks,
            revision.marks_change]
    for f in kept:
        f.cache_clear()
    for text in TEXTS * 2:  # the second time from the caches
        # An equal string built anew is the same key.
        again = "".join(list(text))
        assert current._states(again) == any(
            not re.search(r"\?\s*$", s) for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s)
        assert dict(current._measures(again)) == spans.measures(text)
        assert current._moves_amount(again) == (current._MOVED_TO.search(text) is not None)
        assert revision.marks(again) == revision.marks.__wrapped__(text)
        assert revision.marks_change(again) == (
            revision._CHANGED.search(revision._change_text(text)) is not None)
    assert all(0 < f.cache_info().currsize <= f.cache_info().maxsize for f in kept)
    assert revision._mark.cache_info().maxsize is not None  # bounded


HOME = "home"


def _say(ledger: Ledger, encoder: MiniLMEncoder, turns: list[tuple[str, str, str]],
         first: int = 0) -> None:
    """(source ID, speaker, text), one session, a minute apart from ``first``."""
    events = [Event("dialogue", Scope(HOME, "r1", "d1"), text, speaker,
                    stamp=1_760_000_000.0 + 60.0 * (first + i), source_id=sid)
              for i, (sid, speaker, text) in enumerate(turns)]
    capture(ledger, events)
    Consolidator(ledger, encoder, projector=GraphProjector(ledger, CpuExtractor())).drain()


def _fresh(ledger: Ledger, encoder: MiniLMEncoder, question: str) -> QueryResult:
    for f in (current._states, current._measures, current._moves_amount, revision.marks,
              revision.marks_change, revision._mark):
        f.cache_clear()
    with QueryEngine(ledger, encoder, audit=False) as eng:
        return eng.ask(QueryRequest(Scope(HOME), question))


def _same(a: QueryResult, b: QueryResult) -> None:
    assert (a.status, a.answer, a.source_ids) == (b.status, b.answer, b.source_ids)


def test_a_forget_or_a_capture_between_questions_changes_nothing_kept(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    q = "When is my dentist appointment?"
    _say(ledger, encoder, [
        ("t0", "Nia", "My dentist appointment is on Monday at 3pm."),
        ("t1", "robot", "Noted: dentist on Monday at 3pm."),
        ("t2", "Nia", "Made a huge pot of lentil soup, it should last until Sunday."),
        ("t3", "Nia", "The dentist's office called and pushed me to Thursday afternoon."),
    ])
    with QueryEngine(ledger, encoder, audit=False) as eng:
        first = eng.ask(QueryRequest(Scope(HOME), q))
        assert first.source_ids[:1] == ["t3"], (first.answer, first.source_ids)
        ledger.forget(source_ids=["t3"])
        after_forget = eng.ask(QueryRequest(Scope(HOME), q))
        assert "t3" not in after_forget.source_ids
        _same(after_forget, _fresh(ledger, encoder, q))
        # The forgotten ID again, with other words.
        ledger.forget(source_ids=["t3"], allow_reingest=True)
        _say(ledger, encoder, [
            ("t3", "Nia", "The dentist moved me to Friday at noon instead."),
        ], first=10)
        again = eng.ask(QueryRequest(Scope(HOME), q))
        assert again.source_ids[:1] == ["t3"], (again.answer, again.source_ids)
        _same(again, _fresh(ledger, encoder, q))


def test_a_forget_leaves_no_reading_of_the_forgotten_text(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The readings kept per text are emptied once the engine sees the forget (the vector
    index's epoch moves): the forgotten text is read afresh, if ever, not found kept."""
    gone = "The dentist's office called and pushed me to Thursday afternoon."
    q = "When is my dentist appointment?"
    _say(ledger, encoder, [
        ("t0", "Nia", "My dentist appointment is on Monday at 3pm."),
        ("t2", "Nia", "Made a huge pot of lentil soup, it should last until Sunday."),
        ("t3", "Nia", gone),
    ])
    with QueryEngine(ledger, encoder, audit=False) as eng:
        eng.ask(QueryRequest(Scope(HOME), q))
        hits = revision.keys.cache_info().hits
        revision.keys(gone)
        assert revision.keys.cache_info().hits == hits + 1  # kept while it is remembered
        ledger.forget(source_ids=["t3"])
        eng.ask(QueryRequest(Scope(HOME), q))
        hits = revision.keys.cache_info().hits
        revision.keys(gone)
        assert revision.keys.cache_info().hits == hits  # read afresh: nothing was kept


def test_every_rule_trigger_reads_lowered_ascii_text_as_its_pattern_reads_the_text() -> None:
    """``rules.match_rules`` tests each rule's trigger in its case-folded form over the
    sentence lowered once (ASCII), the pattern itself otherwise."""
    from trace_ros.consolidation import rules

    texts = TEXTS + [t.upper() for t in TEXTS] + [t.swapcase() for t in TEXTS] + [
        "Note: I LIVE in Oslo now", "  Shopping list: eggs", "I'm planning to MOVE", "Wait, no.",
        "I've been with the company", "Nothing beats a quiet Sunday"]
    for name, (pattern, folded) in rules._TRIGGERS.items():
        for text in texts:
            if text.isascii():
                assert (folded.search(text.lower()) is None) == (pattern.search(text) is None), \
                    (name, text)


@given(UNUSUAL)
def test_match_rules_reads_any_text_as_with_case_insensitive_triggers(text: str) -> None:
    from trace_ros.consolidation import rules

    def plain(sentence: str) -> list:
        saved = dict(rules._TRIGGERS)
        try:  # both forms the re.I pattern: what match_rules did before the folding
            rules._TRIGGERS.update({n: (p, p) for n, (p, _) in saved.items()})
            return list(rules.match_rules(sentence))
        finally:
            rules._TRIGGERS.update(saved)
    for sentence in (text, f"I live in {text}", f"My {text} is on Monday"):
        assert list(rules.match_rules(sentence)) == plain(sentence)
