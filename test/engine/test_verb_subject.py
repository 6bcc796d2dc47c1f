""""Who …?" answered by the doer of the verb the question asks with, said beside what it
asks of (``complement.verb_subject``, read last by the typed reader for a person): "Rory
will feed the fish" for "Who is feeding the fish?", a relative ("nan's taking him"). Not the
speaker ("I'm covering her shifts"), a name the question asks with, a doer denied, a
passive's subject, nor a sentence that says nothing else of the question."""

from __future__ import annotations

import sys
from pathlib import Path

from trace_ros.language.revision import KIN
from trace_ros.query.complement import verb_subject

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402


def _vs(question: str, sentence: str) -> str:
    return verb_subject(question, sentence, KIN)


def test_the_doer_of_the_verb_asked_with_answers() -> None:
    q = "Who is feeding the fish while we're away?"
    assert _vs(q, "Rory will feed the fish while we're away, he has a key.") == "Rory"
    assert read(q, rec(1, "Rory will feed the fish while we're away, he has a key.")) == "Rory"
    # A relative with a clitic verb, and its owner's word.
    assert _vs("Who takes Jack to football on Tuesdays?",
               "jack's got football training tues 6pm as well, nan's taking him") == "nan"
    assert _vs("Who is picking me up on Sunday?", "My mum picks me up on Sunday.") == "My mum"


def test_the_speaker_is_not_read_as_the_doer() -> None:
    # "I'm covering …": a later turn may hand it on; the typed reader's own rules for the
    # speaker decide ("fire marshal on nights is me now").
    assert _vs("Who's covering my café shifts?", "Ewan can't, so I'm covering your café shifts.") \
        == ""


def test_no_doer_where_it_is_denied_done_to_it_or_told_of_nothing_asked() -> None:
    q = "Who is cooking dinner on Friday?"
    assert _vs(q, "Sam isn't cooking dinner on Friday.") == ""
    assert _vs(q, "Dinner on Friday will be cooked by the chef.") == ""
    assert _vs(q, "Sam is cooking again, what a treat.") == ""  # nothing of dinner or Friday
    assert _vs("Who is feeding the fish?", "The fish need feeding while we're away.") == ""
    # "Who is Rory?" asks with a name, not a verb.
    assert _vs("Who is Rory?", "Rory is lovely, Tom likes Rory.") == ""
