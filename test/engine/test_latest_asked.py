"""A question asking for the newest occurrence of a kind of event ("his latest
tournament", "travel most recently") is led by the newest recalled statement naming that
event, by the person it names, where the currentness chain found no revision
(``query/latest.py``). Direct calls, and one question through ``QueryEngine.ask`` on a real
SQLite ledger with the real MiniLM encoder."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, SourceRecord  # noqa: E402
from trace_ros.query.latest import latest_of, newest_told  # noqa: E402


def _turn(seq: int, speaker: str, text: str) -> SourceRecord:
    return SourceRecord(seq, f"t{seq}", "home", "r1", "s0", "dialogue",
                        speaker, text, "", None, None, {}, float(seq), False, float(seq), "")


def test_the_event_word_after_the_superlative_or_before_the_adverb() -> None:
    assert latest_of("How did Nate do in his latest video game tournament?") == "tournament"
    assert latest_of("Where did the family go on their most recent family trip?") == "trip"
    assert latest_of("Where did John travel most recently?") == "travel"
    assert latest_of("What does Nate do most recently?") == ""  # "do" names no event
    assert latest_of("Where does Nate play tennis now?") == ""
    # The phrase as the subject of an auxiliary: its last word is the verb after it.
    assert latest_of("How did his latest tournament go?") == "tournament"
    assert latest_of("Was Jo's most recent trip fun?") == "trip"
    assert latest_of("How did Nate do in his latest tournament?") == "tournament"


def test_the_newest_telling_by_the_person_named() -> None:
    turns = [_turn(1, "Nate", "I won my second tournament last week!"),
             _turn(2, "Jo", "My tournament went badly yesterday."),
             _turn(3, "Nate", "Tough tournament, didn't make it to the finals."),
             _turn(4, "Jo", "Did you enter another tournament?"),
             _turn(5, "Jo", "I lost my tournament too.")]
    got = newest_told("How did Nate do in his latest tournament?", turns)
    assert got is not None and got.source_id == "t3"
    # Nobody named: anyone's; a question is no telling.
    got = newest_told("Who played in the latest tournament?", turns[:4])
    assert got is not None and got.source_id == "t3"
    # A closed compound ends on the event word: a roadtrip is a trip.
    trip = [_turn(1, "Mel", "We went camping, a nice trip."),
            _turn(2, "Mel", "That roadtrip this past weekend was wild.")]
    got = newest_told("Where did Mel go on her most recent trip?", trip)
    assert got is not None and got.source_id == "t2"
    assert newest_told("Where does Nate live now?", turns) is None


def test_the_latest_event_leads_through_the_engine(ledger: Ledger,
                                                  encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (3, "Nate", "I won my fourth video game tournament on Friday, it was awesome!"),
        (3, "Jo", "Congrats, that's amazing."),
        (5, "Jo", "I've been writing a lot this week, the script is nearly done."),
        (7, "Nate", "Gaming is my focus, practicing a lot and even winning tournaments."),
        (9, "Nate", "Tough tournament this time, didn't make it to the finals."),
        (9, "Jo", "Next time for sure."),
    ])
    res = ask(ledger, encoder, "How did Nate do in his latest video game tournament?")
    assert res.status == "answered", res.message
    assert res.source_ids[0] == "t4"
