"""A clock time said before a noun ("the 7:40 train", "the six o'clock handover") is
that noun's time: the typed reader does not give it for another thing the question asks
about ("What time is our first heat?"), but does for the noun itself, for a time said
of whatever is talked about ("the 9:40 one", "at 7:40"), and where the sentence names
whom the question asks about ("Arjun's in the 8:30 group" for Arjun's lesson).
"""

from __future__ import annotations

from trace_ros.language.text import stems
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.timeof import times_another

from .readerkit import DAY, T0, rec

_TRAIN = "The Coastal Cup is on the 22nd, and we're taking the 7:40 train that Friday morning."


def read(question: str, *texts: str) -> tuple[str, list[str]]:
    items = [EvidenceItem(rec(n + 1, t), 1.0, {}) for n, t in enumerate(texts)]
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(items, 4000, 20))
    return out.answer, out.cited_ids


def test_the_time_of_another_thing_does_not_answer() -> None:
    answer, _ = read("What time is our first heat at the Coastal Cup?", _TRAIN)
    assert "7:40" not in answer, answer


def test_the_time_of_the_thing_named_answers() -> None:
    answer, cited = read("What time is our train to the Coastal Cup?", _TRAIN)
    assert cited == ["src-1"] and "7:40" in answer, (answer, cited)


def test_whose_time_it_is() -> None:
    heat = stems("What time is our first heat?")
    assert times_another("7:40", _TRAIN, heat)
    assert not times_another("7:40", "The heat's at 7:40 now.", heat)
    assert not times_another("9:40", "I'll get the 9:40 over.", heat)
    assert not times_another("9:40", "Mine's the 9:40 one.", heat)
    lesson = stems("What time is Arjun's swimming lesson?")
    assert not times_another("8:30", "The nine o'clock class is full, so Arjun's in the "
                                     "8:30 group.", lesson, {"arjun"})
    assert times_another("8:30", "Everyone else is in the 8:30 group.", lesson, {"arjun"})
