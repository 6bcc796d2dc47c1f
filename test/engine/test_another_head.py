"""A clause's subject tells another thing by its head, not by every word it shares
(issue 14, the misses of br and bs).

``revision.another_holds`` reads a clause giving a value as another subject's when its
subject phrase is not of the thing asked. A word the phrase shares with the question or
the thread only as a modifier ("Port control" after "the port's traffic"), or a word that
only orders the thing ("the new cleaner" beside "the new dockhand"), no longer makes it
the thing's: its head decides ("Port control stays on fourteen" for the marina's VHF
channel; "Keys won't be till the 21st now" for when my sister moves). The look-alikes it
must not touch: a subject whose head is the thing ("The new dockhand starts on the 19th
now"), a pronoun that may point at the one asked about, and a clause naming the thing.
"""

from __future__ import annotations

import pytest

from trace_ros.language.revision import another_holds, asked_of, keys

CHANNEL = "What VHF channel does the marina use?"
CHANNEL_THREAD = ("From the new year we're switching to channel M, thirty-seven, so we stop "
                  "treading on the port's traffic.")
DOCKHAND = "When does the new dockhand start?"


def _holds(text: str, question: str, thread: str = "") -> bool:
    return another_holds(text, asked_of(question), keys(question) | keys(thread))


@pytest.mark.parametrize(("text", "question", "thread"), [
    ("Port control stays on fourteen, of course.", CHANNEL, CHANNEL_THREAD),
    ("The new cleaner is starting on the 12th as well, as it happens.", DOCKHAND, ""),
    ("Keys won't be till the 21st now.", "When does my sister move?",
     "My sister's moving the same month, on the 7th, out to Dunmore."),
])
def test_another_head(text: str, question: str, thread: str) -> None:
    assert _holds(text, question, thread)


@pytest.mark.parametrize(("text", "question", "thread"), [
    # the head is the thing asked
    ("The new dockhand starts on the 19th now.", DOCKHAND, ""),
    ("The marina channel is 37 from January.", CHANNEL, CHANNEL_THREAD),
    ("The dentist appointment's moved to the 9th.", "When is my dentist appointment?", ""),
    # a pronoun may point at the one asked about
    ("The new cleaner says he's starting on the 12th.", DOCKHAND, ""),
    # the clause names the thing
    ("The office moved the new dockhand to the 12th.", DOCKHAND, ""),
])
def test_the_things_own_head(text: str, question: str, thread: str) -> None:
    assert not _holds(text, question, thread)
