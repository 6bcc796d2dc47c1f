""""Where do I live now?" where no shown record says a word of it: the asker's own newest
statement of a place among those nearest in meaning answers (newstate.dense_place); a
place said far down, by someone else, of someone else or where it came from does not."""

from __future__ import annotations

import calendar
import dataclasses

from trace_ros.ledger import SourceRecord
from trace_ros.query.newstate import _said_place
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 9, 0, 0, 0, 0, 0)))


def _read(question: str, *texts: tuple[str, int, float, str],
          asker: str = "Ann") -> tuple[str, list[str]]:
    """Records given as (text, dense rank, days after T0, speaker)."""
    items = [EvidenceItem(SourceRecord(i, f"s-{i}", "ann", "", "s1", "dialogue", speaker, text,
                                       "", None, None, {}, T0 + days * DAY, False,
                                       T0 + days * DAY, "h"), 1.0, {"dense": rank})
             for i, (text, rank, days, speaker) in enumerate(texts, 1)]
    plan = dataclasses.replace(plan_question(question, T0 + 30 * DAY), asker=asker)
    out = ExtractiveReader().read(question, plan, pack(items, 2000, 20))
    return out.answer, out.cited_ids


def test_the_newest_place_the_asker_names_answers() -> None:
    answer, cited = _read("Where do I live now?",
                          ("I'm still in the flat on Fore Street, above the bakery.", 1, 0, "Ann"),
                          ("I signed for the cottage on Quay Lane! Moving in on Saturday.", 4, 20,
                           "Ann"))
    assert answer == "Quay Lane" and cited == ["s-2"]


def test_the_place_named_last_and_not_where_one_came_from() -> None:
    assert _said_place("Well, I've given up on Eden Street. I've moved in with Marek's sister "
                       "on Gwydir Street.") == "Marek's sister on Gwydir Street"
    assert _said_place("First Saturday shift from the new place, and I walked up!") == ""
    assert _said_place("Right, I've packed in the pub. Start at the climbing wall on "
                       "Saturday.") == "climbing wall"


def test_no_near_place_of_the_asker_is_no_answer() -> None:
    # Only far down the ranking: a place said of something else ("bay 17 in the car park").
    answer, _ = _read("Where am I going on holiday?",
                      ("I'm in bay 17 in the car park, red Fiat, if security asks.", 6, 0, "Ann"),
                      ("Last day before the break! See you Monday the 25th.", 1, 20, "Ann"))
    assert answer == ""
    # Said by someone else, or of someone named in the question.
    answer, _ = _read("Where do I live now?",
                      ("We moved Gran into the home on Mill Road.", 1, 20, "Bea"))
    assert answer == ""
    answer, _ = _read("Where does Ravi live now?",
                      ("I signed for the cottage on Quay Lane!", 1, 20, "Ann"))
    assert answer == ""


def test_a_place_told_of_another_person_is_not_the_asker_s() -> None:
    answer, cited = _read("Where do I live?",
                          ("Jens and I are taking the flat over the bakery in Talheim!", 3, 10,
                           "Ann"),
                          ("My sister Britta took over our old flat in Chur, she loves it.", 1,
                           20, "Ann"))
    assert "Talheim" in answer and cited == ["s-1"]
