"""The current record cited first where people say a change in other words (issue 14).

Real SQLite ledger and MiniLM encoder, questions through ``QueryEngine.ask``, as in
``test_currentness.py``: a change the robot read back as a value, and a change of the
one the question names told in other words, lead; the guards (a restated value,
another person's similar news) still hold.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import CHATTER, _said, ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.query import current  # noqa: E402
from trace_ros.query.recall import Fused  # noqa: E402


def test_a_change_the_robot_read_back_as_a_time_gives_the_time(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """ "we start half an hour later" gives no time; the robot's reading of it, which the
    speaker let stand, does: the turn states the new time in other words."""
    history(
        ledger,
        encoder,
        [
            (6, "Nia", "Choir practice is on Tuesdays at 7pm, in the church hall."),
            (6, "robot", "Choir Tuesdays 7pm, church hall."),
            *CHATTER,
            (9, "Nia", "The scouts have the hall first now, so from this week we start half an hour later."),
            (9, "robot", "Choir now Tuesdays at 7:30pm."),
        ],
    )
    res = ask(ledger, encoder, "What time is choir practice?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] in (["t5"], ["t6"]), (res.answer, res.source_ids)


def test_the_robots_reading_back_gives_the_value_a_turn_states_in_other_words() -> None:
    """The chain: "we start half an hour later" names no time; the robot read it back as
    "Choir now Tuesdays at 7:30pm." and the speaker let it stand, so the turn states the
    time asked and leads (the anchor is superseded). Without the reading, it does not."""
    old = _said("Nia", "Choir practice is on Tuesdays at 7pm, in the church hall.", 1)
    new = _said("Nia", "The scouts have the hall first now, so from this week we start half an hour later.", 5)
    echo = _said("robot", "Choir now Tuesdays at 7:30pm.", 6)

    def asked(order: list) -> current.Chain | None:
        records = {r.seq: r for r in order}
        ranked = [Fused(r.seq, r.source_id, 1.0 / (i + 1)) for i, r in enumerate(order)]
        return current.chain(
            "What time is choir practice?",
            "date",
            ranked,
            records,
            None,
            lambda seq: {5: (new, 0.55)} if seq < 5 else {},
            lambda seq: records.get(seq - 1),
            robot_id="r1",
            asked_kind="clock",
        )

    found = asked([old, echo, new])
    assert found is not None and found.lead[:1] == ["s5"] and "s1" in found.superseded, found
    assert asked([old, new]) is None  # no reading: the turn gives no time


def test_a_change_of_the_one_named_in_other_words_answers(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """ "he won't make it back till Saturday now" says when Tom gets home, though it
    shares no word of "getting home": the chain's current record names Tom."""
    history(
        ledger,
        encoder,
        [
            (
                6,
                "Nia",
                "Tom rang from Leeds, he's on the northern route this week and should be home Thursday night.",
            ),
            (6, "robot", "Thanks, noted."),
            *CHATTER,
            (9, "Nia", "Tom texted at six, the motorway's shut, he won't make it back till Saturday now."),
            (9, "robot", "Sorry to hear that. I've updated it."),
        ],
    )
    res = ask(ledger, encoder, "When is Tom getting home?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
    assert "saturday" in res.answer.lower()


def test_anothers_news_in_other_words_still_does_not_answer(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The guard: a later turn about someone else's return ("Carol's husband won't make it
    back till Saturday") names no one the question asks of and does not answer."""
    history(
        ledger,
        encoder,
        [
            (6, "Nia", "Tom rang from Leeds, he should be home Thursday night."),
            (6, "robot", "Thanks, noted."),
            *CHATTER,
            (9, "Nia", "Carol's husband texted, the motorway's shut, he won't make it back till Saturday now."),
        ],
    )
    res = ask(ledger, encoder, "When is Tom getting home?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)


def test_a_later_sentence_whose_subject_is_the_one_asked_about_is_theirs() -> None:
    """ "Lovely weather for the kids. Priya's changed her train, she's coming Sunday
    instead.": the sentence opens on Priya, so "her" is hers, not someone else's; a later
    sentence about another by pronoun ("His extension is 224 now.") stays another's."""
    from trace_ros.language import revision

    priya = frozenset({"priya"})
    told = "Lovely weather for the kids. Priya's changed her train, she's coming Sunday instead."
    assert not revision.about_another(told, priya)
    assert revision.about_another(told.replace("Priya", "Marta"), priya)
    assert revision.about_another("Dr Okafor has gone home ill. His extension is 224 now.", frozenset())
