"""``bench updates --natural``: the hand-made sets load and validate, the scorer reads the
first citation, and the command runs end to end on a small data folder of its own."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from trace_ros.bench import updates, updates_natural
from trace_ros.bench.updates_natural import DATA, KEYS, DataError, Item, answer_holds, score

HISTORY = {
    "author": "t",
    "histories": [{
        "id": "t01", "split": "build", "person": "Ada",
        "sessions": [
            {"start": "2025-10-06T09:00:00Z", "turns": [
                {"speaker": "Ada", "text": "My dentist appointment is on Monday at 3pm."},
                {"speaker": "robot", "text": "Noted."}]},
            {"start": "2025-10-08T18:00:00Z", "turns": [
                {"speaker": "Ada", "text": "Made lentil soup again, it lasts all week."}]},
            {"start": "2025-10-09T09:00:00Z", "turns": [
                {"speaker": "Ada", "text": "The dentist's office called and pushed me to "
                                           "Thursday afternoon."}]}],
        "questions": [
            {"ask": "When is my dentist appointment?", "kind": "change", "current": ["2.0"],
             "stale": ["0.0"], "answer": ["thursday"]},
            {"ask": "What is my dentist's name?", "kind": "never"}]}],
}


def test_the_shipped_sets_load_and_keep_their_halves() -> None:
    data = updates_natural.load(DATA)
    histories = [i for i in data.items if i.set == "histories"]
    assert len({i.subject_id for i in histories}) >= 100  # histories by several authors
    assert {i.split for i in histories} == {"build", "confirm"}
    assert {i.kind for i in histories} >= {"change", "chain", "restated", "distractor", "never"}
    ids = [e.source_id for e in data.events]
    assert len(ids) == len(set(ids))
    for it in histories:
        assert it.kind == "never" or it.current, it.item_id


def test_a_reference_to_no_turn_is_refused(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(HISTORY))
    bad["histories"][0]["questions"][0]["current"] = ["7.0"]
    (tmp_path / "histories_x.json").write_text(json.dumps(bad))
    with pytest.raises(DataError, match=r"histories_x.json:t01: question 0: current: no such turn"):
        updates_natural.load(tmp_path)


def test_answer_holds_whole_words_only() -> None:
    assert answer_holds("Thursday 9 October 2025", ["thursday"])
    assert answer_holds("Thursdays at half nine", ["thursday"])  # a weekly slot holds its day
    assert not answer_holds("Thursdays", ["thurs"])
    assert not answer_holds("", ["thursday"])
    assert answer_holds("5mg", ["5", "five"])  # a unit written on: the number holds
    assert answer_holds("at 10am", ["10 am"]) and not answer_holds("15mg", ["5"])


def test_answer_holds_an_alias_in_another_inflection_both_ways() -> None:
    assert answer_holds("peanuts", ["peanut"]) and answer_holds("the peanut", ["peanuts"])
    assert answer_holds("Nadia's on lates", ["late"])
    assert answer_holds("flying from Bristol", ["fly"])
    assert not answer_holds("peas", ["peanut"])  # a stem, not a prefix
    assert not answer_holds("latecomers", ["late"])
    # A count the alias does not state: "an hour" is "hour" once the article goes.
    assert not answer_holds("two hours", ["an hour"])
    assert not answer_holds("2 hours", ["hour"]) and answer_holds("2 hours", ["2 hour"])

def test_scorer_reads_the_first_citation() -> None:
    items = [Item("histories", "h/0", "build", "h", "q?", "change", ("h:1",), ("h:0",),
                  ("tuesday",), 0.0),
             Item("histories", "h/1", "build", "h", "never?", "never", (), (), (), 0.0)]

    def ask(cited: str, answer: str):
        def fn(subject_id: str, question: str, at: float, asker: str) -> SimpleNamespace:
            if question == "never?":
                return SimpleNamespace(status="abstained", answer="", source_ids=[])
            return SimpleNamespace(status="answered", answer=answer, source_ids=[cited])
        return fn

    good = score(items, ask("h:1", "on Tuesday"))["histories"]["build"]
    assert (good["current_at1"], good["old_at1"], good["answer_ok"]) == (1.0, 0.0, 1.0)
    assert good["never_answered"] == 0.0 and good["n"] == 2
    stale = score(items, ask("h:0", "on Monday"))["histories"]["build"]
    assert (stale["current_at1"], stale["old_at1"], stale["answer_ok"]) == (0.0, 1.0, 0.0)
    assert stale["misses"][0]["id"] == "h/0"


def test_command_end_to_end_json_contract(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "histories_t.json").write_text(json.dumps(HISTORY))
    assert updates.main(["--natural", "--sets", "histories", "--data", str(data), "--json",
                         "--out", str(tmp_path / "out")]) == 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    build = last["natural"]["build"]
    assert set(build) == set(KEYS) and build["n"] == 2
    assert build["never_answered"] == 0.0
    assert build["current_at1"] == 1.0, "the change in ordinary words is cited first"
    assert (tmp_path / "out" / "natural.json").exists()


def test_history_edges_are_judged_by_the_questions() -> None:
    items = [Item("histories", "h/0", "build", "h", "when?", "change", ("h:2.0",), ("h:0.0",),
                  ("thursday",), 0.0),
             Item("histories", "h/1", "build", "h", "where?", "distractor", ("h:0.2",),
                  ("h:1.0",), ("leeds",), 0.0),
             Item("histories", "h/2", "build", "h", "who?", "restated", ("h:0.4", "h:1.4"), (),
                  ("sam",), 0.0)]
    right = (frozenset({"h:2.0"}), frozenset({"h:0.0"}))
    look_alike = (frozenset({"h:1.0"}), frozenset({"h:0.2"}))
    restated = (frozenset({"h:1.4"}), frozenset({"h:0.4"}))
    unjudged = (frozenset({"h:3.0"}), frozenset({"h:0.0"}))
    got = updates_natural.edge_precision(items, [right, look_alike, restated, unjudged])
    assert got == {"build": {"edges": 4, "judged": 3, "precision": round(1 / 3, 4)}}
    assert updates_natural.change_edge_recall(items, [right], "histories") == \
        {"build": {"rate": 1.0, "n": 1}}  # only the change counts, not the controls
    assert updates_natural.change_edge_recall(items, [look_alike], "histories") == \
        {"build": {"rate": 0.0, "n": 1}}
