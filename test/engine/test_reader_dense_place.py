""""Where do I live?" where no shown record shares a word with the question and the graph
stage gives no lead: the place named by the asker's latest record near the question in
meaning (newstate._dense_place); nothing where none of the asker's nearest records names a
place, nor for another speaker's records or a question about someone else."""

from __future__ import annotations

import calendar
import dataclasses

from trace_ros.ledger import SourceRecord
from trace_ros.query.newstate import _last_place
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 9, 0, 0, 0, 0, 0)))


def _read(question: str, *texts: tuple[str, int, float, str]) -> tuple[str, list[str]]:
    """Records given as (text, dense rank, days after T0, speaker); Ann asks."""
    items = [EvidenceItem(SourceRecord(i, f"s-{i}", "ann", "", "s1", "dialogue", who, text, "",
                                       None, None, {}, T0 + days * DAY, False, T0 + days * DAY,
                                       "h"), 1.0, {"dense": rank})
             for i, (text, rank, days, who) in enumerate(texts, 1)]
    plan = dataclasses.replace(plan_question(question, T0 + 30 * DAY), asker="Ann")
    out = ExtractiveReader().read(question, plan, pack(items, 2000, 20))
    return out.answer, out.cited_ids


def test_the_asker_s_latest_near_record_names_where_they_live_now() -> None:
    answer, cited = _read("Where do I live now?",
                          ("I'm still renting on Mill Road, above the bike shop.", 1, 0, "Ann"),
                          ("Signed for a room in Chesterton, moving at the weekend.", 2, 5, "Ann"),
                          ("Chesterton fell through. I've ended up at my cousin's on Histon Road.",
                           7, 12, "Ann"))
    assert "Histon Road" in answer and cited == ["s-3"]


def test_no_place_near_the_question_or_another_s_place_is_no_answer() -> None:
    # Only far records name a place: another thing's.
    answer, _ = _read("Where do I live now?",
                      ("Lovely sunset tonight.", 1, 0, "Ann"),
                      ("My car's in bay 17 in the car park.", 7, 12, "Ann"))
    assert answer == ""
    # Another speaker's new place is theirs, not the asker's.
    answer, _ = _read("Where do I live now?",
                      ("I've ended up at my cousin's on Histon Road.", 1, 12, "Bo"))
    assert answer == ""
    # Asked of someone else: the asker's records do not say where they live.
    answer, _ = _read("Where does Ravi live now?",
                      ("I've ended up at my cousin's on Histon Road.", 1, 12, "Ann"))
    assert answer == ""


def test_a_record_leaving_a_place_names_the_new_one_last() -> None:
    assert _last_place("I've given up on Eden Street. I've moved in with Jo on Gwydir Street."
                       ).endswith("Gwydir Street")
    assert _last_place("Right, I've packed in the pub. Start at the climbing wall on Saturday."
                       ) == "climbing wall"
    assert _last_place("Moved! First night in Shore Cottages. Sea view from the bath.") \
        == "Shore Cottages"
