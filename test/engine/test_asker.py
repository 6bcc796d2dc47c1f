"""Whose state a first-person question asks (issue 14): the robot knows who is asking.

Real SQLite ledger, the MiniLM encoder, the CPU extractor and graph projector, questions
through ``QueryEngine.ask`` with ``QueryRequest.asker``. Two people in the room each tell
their own value of the same thing: "my" is the asker's; what another tells of the asker
(a relay) counts for them; without an asker the engine guesses as before.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import CHATTER, HOME, history  # noqa: E402

from trace_ros.cli import main  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, Scope, SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest, QueryResult  # noqa: E402


def ask(ledger: Ledger, encoder: MiniLMEncoder, question: str, asker: str = "") -> QueryResult:
    with QueryEngine(ledger, encoder, audit=False) as eng:
        return eng.ask(QueryRequest(Scope(HOME), question, asker=asker))


TWO_DENTISTS = [
    (6, "Nia", "My dentist appointment is on Monday at 3pm."),
    (6, "robot", "Noted: dentist on Monday at 3pm."),
    *CHATTER,
    (9, "Tomas", "Ugh, my dentist appointment is on Friday at 10am, I hate the drill."),
    (9, "robot", "Tomas, dentist on Friday at 10am."),
]


def test_my_is_the_askers_own(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, TWO_DENTISTS)
    nia = ask(ledger, encoder, "When is my dentist appointment?", asker="Nia")
    assert nia.status == "answered", nia.message
    assert nia.source_ids[0] == "t0" and "monday" in nia.answer.lower()
    tomas = ask(ledger, encoder, "When is my dentist appointment?", asker="Tomas")
    assert tomas.status == "answered", tomas.message
    assert tomas.source_ids[0] == "t5" and "friday" in tomas.answer.lower()


def test_without_an_asker_the_engine_guesses_as_before(ledger: Ledger,
                                                       encoder: MiniLMEncoder) -> None:
    """Empty asker: the latest first-person statement of the thing leads, whoever said
    it (today's behaviour, which the asker corrects above)."""
    history(ledger, encoder, TWO_DENTISTS)
    res = ask(ledger, encoder, "When is my dentist appointment?")
    assert res.status == "answered", res.message
    assert res.source_ids[0] == "t5"


def test_a_change_told_of_the_asker_by_another_counts(ledger: Ledger,
                                                      encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Nia", "My physio is on Wednesdays with Kofi."),
        (6, "robot", "Physio on Wednesdays with Kofi."),
        *CHATTER,
        (9, "Kofi", "Hi Nia, heads up: from next week I'm doing your physio on Thursdays."),
        (9, "robot", "Physio on Thursdays from next week."),
        (9, "Tomas", "Lucky you. My physio is still on Mondays."),
        (9, "robot", "Tomas: physio on Mondays."),
    ])
    res = ask(ledger, encoder, "What day is my physio?", asker="Nia")
    assert res.status == "answered", res.message
    assert res.source_ids[0] == "t5" and "thursday" in res.answer.lower()


def test_a_relay_in_the_third_person_counts_for_the_asker(ledger: Ledger,
                                                           encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Rosa", "My hair appointment is on Tuesday at 11."),
        (6, "robot", "Hair appointment on Tuesday at 11."),
        *CHATTER,
        (9, "Jess", "Rosa's salon rang, they've moved her hair appointment to Friday."),
        (9, "Jess", "I've got my own hair appointment on Saturday, by the way."),
        (9, "robot", "Jess: hair appointment on Saturday."),
    ])
    res = ask(ledger, encoder, "When is my hair appointment?", asker="Rosa")
    assert res.status == "answered", res.message
    # (the day named is worked out to its date: Friday 10 October 2025)
    assert res.source_ids[0] == "t5" and "10 october" in res.answer.lower(), res.answer


def _turn(seq: int, speaker: str, text: str) -> SourceRecord:
    return SourceRecord(seq, f"t{seq}", HOME, "r1", "s", "dialogue", speaker, text, "", None,
                        None, {}, float(seq), False, float(seq), "")


TWO_SISTERS = [
    (6, "Nia", "My sister's wedding is on Saturday the 14th of March."),
    (6, "robot", "Noted: your sister's wedding, Saturday 14 March."),
    *CHATTER,
    (9, "Tomas", "And my sister's wedding is on the 28th, we're all flying out."),
    (9, "robot", "Tomas, your sister's wedding on the 28th."),
]


def test_my_relative_is_the_askers_relative(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"my sister" asked by Nia is Nia's sister: Tomas's later "my sister's wedding" is
    his own sister's, not a revision of hers; asked by Tomas, his leads (``asked_kin``)."""
    history(ledger, encoder, TWO_SISTERS)
    nia = ask(ledger, encoder, "When is my sister's wedding?", asker="Nia")
    assert nia.status == "answered", nia.message
    assert nia.source_ids[0] == "t0" and "14" in nia.answer, (nia.answer, nia.source_ids)
    tomas = ask(ledger, encoder, "When is my sister's wedding?", asker="Tomas")
    assert tomas.status == "answered", tomas.message
    assert tomas.source_ids[0] == "t5" and "28" in tomas.answer, (tomas.answer,
                                                                  tomas.source_ids)


def test_the_relatives_asked_of() -> None:
    assert current.asked_kin("When is my brother's birthday?", "Danny") == {"brother"}
    assert current.asked_kin("When is my own mum's lunch?", "Noor") == {"mum"}
    assert not current.asked_kin("When is my brother's birthday?", "")  # no one known asks
    assert not current.asked_kin("When is my dentist appointment?", "Nia")  # no relative
    assert not current.asked_kin("When is Sam's brother's party?", "Nia")  # Sam's, not mine
    said = _turn(3, "Tomas", "And my sister's wedding is on the 28th.")
    relayed = _turn(4, "Tomas", "Nia, your sister rang: the wedding's the 28th now.")
    kin = frozenset({"sister"})
    assert current.theirs(said, "Nia", "robot", lambda seq: None, kin)
    assert not current.theirs(said, "Tomas", "robot", lambda seq: None, kin)
    assert not current.theirs(relayed, "Nia", "robot", lambda seq: None, kin)


def test_whose_turn_it_is() -> None:
    turns = {0: _turn(0, "Leyla", "robot make me a latte pls, I'm a coffee person now"),
             1: _turn(1, "robot", "One latte for Leyla."),
             2: _turn(2, "Kofi", "Hi Marguerite, I'm doing your sessions on Fridays now."),
             3: _turn(3, "robot", "Physio on Friday afternoons."),
             4: _turn(4, "Linda", "It's the 27th, Dad. I spoke to them myself."),
             5: _turn(5, "Jess", "Mum says her appointment moved, I drove her there."),
             6: _turn(6, "Arthur", "Friday? Lucky you. My physio's still Thursdays."),
             7: _turn(7, "Arthur", "We've booked the ferry for ten."),
             8: _turn(8, "Bernie", "I'll have a proper builder's tea, though."),
             9: _turn(9, "Kofi", "I've had to move the physio to Friday afternoons."),
             10: _turn(10, "Jess", "I'll take Mum to the salon on Friday.")}

    def prior(seq: int) -> SourceRecord | None:
        return turns.get(seq - 1)

    def theirs(seq: int, asker: str = "Marguerite") -> bool:
        return current.theirs(turns[seq], asker, "r1", prior)

    assert theirs(0) and theirs(1) and theirs(6)  # their own, and the robot's echo of it
    assert not theirs(2) and not theirs(3)  # told to the asker: the asker's thread
    assert not theirs(4) and not theirs(5) and not theirs(7)  # to family, a relay, "we"
    assert theirs(8) and not theirs(9) and not theirs(10)  # what they will have; done; family
    assert not theirs(6, asker="Arthur") and not theirs(0, asker="")
    assert current.asks_own("What day is my physio?", "date", "Marguerite")
    assert not current.asks_own("What day is my physio?", "date", "")
    assert not current.asks_own("When is our ferry?", "date", "Marguerite")
    assert not current.asks_own("When is my daughter's play?", "date", "Marguerite")


def test_the_command_asks_as_the_asker(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``trace-ros query --asker NAME`` (local path) passes who asks to the engine."""
    rows = [{"subject_id": "home", "session_id": "s1", "speaker": "Nia", "stamp": 1000,
             "text": "My dentist appointment is on Monday at 3pm."},
            {"subject_id": "home", "session_id": "s2", "speaker": "Tomas", "stamp": 9000,
             "text": "Ugh, my dentist appointment is on Friday at 10am, I hate the drill."}]
    events = tmp_path / "events.jsonl"
    events.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    db = str(tmp_path / "m.db")
    assert main(["ingest", "--db", db, "--format", "jsonl", str(events)]) == 0
    got = {}
    for asker in ("Nia", "Tomas"):
        capsys.readouterr()
        assert main(["query", "--via", "local", "--db", db, "--subject", "home", "--json",
                     "--asker", asker, "When is my dentist appointment?"]) == 0
        got[asker] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert "monday" in got["Nia"]["answer"].lower(), got["Nia"]
    assert "friday" in got["Tomas"]["answer"].lower(), got["Tomas"]


def test_the_service_request_carries_the_asker() -> None:
    pytest.importorskip("rclpy", reason="needs the venv from `make setup` (ROS 2 wheels)")
    from trace_ros.srv import Query

    from trace_ros.nodes import convert

    request = Query.Request(question="When is my dentist appointment?")
    request.scope.subject_id = "home"
    assert convert.query_request_from_msg(request).asker == ""
    request.asker = "Nia"
    assert convert.query_request_from_msg(request).asker == "Nia"
