"""The chain steps on past what the question recalls (issue 14).

"What date is the Bristol race?" recalls "Race day's the 14th of September." best; the
later "Organisers shifted it to the 21st, some festival in town." and "And again — road
closures, so it's the 28th." share no word with it. ``current.forward`` reads the
subject's later turns in order and takes each that moves the thing on while no other
value of the kind was given in between; another thing's date in between ("my cousin's
wedding is the 21st"), a restatement, the speaker's own when another's is asked, or a
change of a value another turn gave ends or skips the stepping. Direct calls with a
``later`` list, and one question through ``QueryEngine.ask`` on a real SQLite ledger
with the real MiniLM encoder.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402

Q = "What date is the Bristol race?"
THING = frozenset({"bristol", "race", "date"})


def _turn(seq: int, speaker: str, text: str, session: str) -> SourceRecord:
    return SourceRecord(seq, f"t{seq}", "home", "r1", session, "dialogue",
                        speaker, text, "", None, None, {}, float(seq), False, float(seq), "")


ANCHOR = _turn(1, "Lena", "Race day's the 14th of September.", "s0")


def _forward(turns: Sequence[SourceRecord], question: str = Q,
             thing: frozenset[str] = THING, holders: frozenset[str] = frozenset(),
             steps: Sequence[SourceRecord] = (ANCHOR,), lead: int = 1,
             before: Sequence[SourceRecord] = ()) -> list[str]:
    every = [*steps, *turns]
    found = current.forward(list(steps), lead,
                            lambda seq: [t for t in every if t.seq > seq - 1],
                            "date", holders, question, thing, "robot", before)
    return [r.text for r in found]


SHIFTED = _turn(4, "Lena", "Organisers shifted it to the 21st, some festival in town.", "s1")
AGAIN = _turn(8, "Lena", "And again — road closures, so it's the 28th. Third time lucky.", "s2")
WEDDING = _turn(10, "Lena", "My cousin's wedding is the 21st, so no clash any more.", "s2")


def test_the_chain_steps_on_through_later_turns() -> None:
    """Each later move of the race, in order; the cousin's wedding after is no step."""
    turns = [_turn(2, "robot", "14th of September.", "s0"),
             _turn(3, "Lena", "Kitchen made rhubarb crumble, heaven.", "s1"), SHIFTED,
             _turn(5, "robot", "The 21st.", "s1"), AGAIN, _turn(9, "robot", "The 28th.", "s2"),
             WEDDING]
    assert _forward(turns) == [SHIFTED.text, AGAIN.text]


def test_another_things_date_in_between_ends_the_stepping() -> None:
    """After the cousin's wedding date, "it" may be the wedding: no step."""
    wedding = _turn(3, "Lena", "My cousin's wedding is the 21st, we're all going.", "s1")
    moved = _turn(6, "Lena", "Organisers shifted it to the 28th, road closures.", "s2")
    assert _forward([wedding, moved]) == []


def test_a_restatement_is_no_step_but_keeps_the_reference() -> None:
    """"Still the 14th" gives no new value; the move after it still steps."""
    still = _turn(3, "Lena", "Race day's still the 14th, training hard.", "s1")
    assert _forward([still]) == []
    assert _forward([still, AGAIN]) == [AGAIN.text]


def test_the_speakers_own_is_not_the_one_asked() -> None:
    """Asked of Ada, Kemi's "And mine's the 21st" is Kemi's birthday."""
    anchor = _turn(1, "Seun", "Ada's birthday is the 19th and I have no idea what to get her.",
                   "s0")
    mine = _turn(5, "Kemi", "And mine's the 21st now, Seun, two days after Ada's.", "s2")
    assert _forward([mine], "When is Ada's birthday?", frozenset({"birthdai"}),
                    frozenset({"ada"}), (anchor,)) == []


def test_changing_another_turns_value_is_another_thing() -> None:
    """The examiner moving the students' 22nd says nothing of my refresher's 29th."""
    exam = _turn(0, "Gwen", "My students sit their exam on the 22nd.", "s0")
    anchor = _turn(1, "Gwen", "My own refresher is on the 29th, don't mix them up.", "s0")
    moved = _turn(5, "Gwen", "The examiner rang. He can't do the 22nd, so it's moved to "
                  "the 15th instead.", "s1")
    assert _forward([moved], "When is my refresher?", frozenset({"refresh"}),
                    steps=(anchor,), before=(exam,)) == []


def test_a_step_already_taken_is_not_taken_again() -> None:
    """From a lead an edge already found, the chain steps on from it, once."""
    assert _forward([AGAIN], steps=(ANCHOR, SHIFTED), lead=SHIFTED.seq) == [AGAIN.text]


def test_the_latest_move_leads(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """Through the engine: the third date leads, not the first the question recalls."""
    history(ledger, encoder, [
        (6, "Lena", "Race day's the 14th of September, the Bristol race."),
        (6, "robot", "14th of September."),
        (7, "Lena", "Kitchen made rhubarb crumble, heaven."),
        (7, "Lena", "Organisers shifted it to the 21st, some festival in town."),
        (7, "robot", "The 21st."),
        (8, "Lena", "Training's going fine, very doable."),
        (8, "Lena", "And again — road closures, so it's the 28th. Third time lucky."),
        (8, "robot", "The 28th."),
    ])
    res = ask(ledger, encoder, Q)
    assert res.source_ids[:1] == ["t6"], (res.answer, res.source_ids)
