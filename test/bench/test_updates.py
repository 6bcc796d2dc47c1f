"""``bench updates``: the seeded history generator, its ground truth, the scorers, the command."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from trace_ros.bench import updates
from trace_ros.bench.histories import CHANGE_KINDS, History, Probe, generate
from trace_ros.bench.updates import (
    QUERY_KEYS,
    RESOLVER_KEYS,
    score_edges,
    score_queries,
    score_resolver,
    value_matches,
)
from trace_ros.capture import prepare
from trace_ros.config import CaptureConfig
from trace_ros.facts import RELATIONS, norm


@pytest.fixture(scope="module")
def history() -> History:
    return generate()  # the default size of the command


def test_same_seed_same_history() -> None:
    a, b = generate(3, 3), generate(3, 3)
    assert a.events == b.events and a.probes == b.probes and a.info == b.info
    assert generate(4, 3).events != a.events


def test_events_are_valid_and_explicitly_identified(history: History) -> None:
    ids = [e.source_id for e in history.events]
    assert all(ids) and len(set(ids)) == len(ids)
    assert [i.source_id for i in history.info] == ids
    for event in history.events:
        prepare(event, CaptureConfig())  # raises ValidationError if malformed
    perception = [e for e in history.events if e.modality == "perception"]
    assert perception and all(e.label and e.pose and e.pose["frame_id"] == "map" for e in perception)
    stamps = [e.stamp or 0.0 for e in history.events]
    assert max(stamps) - min(stamps) > 21 * 86400  # sessions over weeks
    assert len({e.scope.subject_id for e in history.events}) == 8


def _by_id(history: History) -> dict[str, tuple]:
    return {i.source_id: (i, e) for i, e in zip(history.info, history.events, strict=True)}


@pytest.mark.parametrize("seed", [1, 2, 3, 11, 29])
def test_ground_truth_holds_for_other_seeds(seed: int) -> None:
    _check_truth(generate(seed, 4, 5))


def test_ground_truth_is_self_consistent(history: History) -> None:
    _check_truth(history)
    kinds = {p.kind for p in history.probes}
    assert kinds == {"home", "job", "preference", "object", "appointment", "correction",
                     "contradiction", "never"}
    assert any(p.as_of for p in history.probes)


def _check_truth(history: History) -> None:
    by_id = _by_id(history)
    keyed: dict[tuple[str, str, str], list] = {}
    for info in history.info:
        if info.entity and info.kind in ("statement", "correction", "contradiction", "ack"):
            keyed.setdefault((info.subject_id, info.entity, info.relation), []).append(info)
    relations = set(RELATIONS)
    for p in history.probes:
        assert p.relation.split(":")[0] in relations and p.entity == norm(p.entity)
        stated = keyed.get((p.subject_id, p.entity, p.relation), [])
        if p.expect == "missing":
            assert not stated, p.probe_id
            if p.base_kind in ("object", "appointment"):
                text = " ".join(f"{e.text} {e.label}".lower() for e in history.events
                                if e.scope.subject_id == p.subject_id)
                assert p.entity not in text, p.probe_id
            continue
        # Every source of every revision states that key, in that subject.
        ids = [s for r in p.revisions for s in r.source_ids]
        assert {s for s in ids} == {i.source_id for i in stated}, p.probe_id
        for rev in p.revisions:
            for sid in rev.source_ids:
                info, event = by_id[sid]
                assert info.subject_id == p.subject_id
                low = event.text.lower()
                assert any(a.lower() in low for a in rev.aliases) or "tomorrow" in low, \
                    (p.probe_id, event.text, rev.aliases)
            assert rev.time == by_id[rev.source_ids[0]][0].time
        values = [r.value for r in p.revisions]
        assert len(set(values)) == len(values), p.probe_id
        if p.expect == "conflict":
            assert len(p.revisions) == 2 and p.current is None and not p.superseded_ids
            continue
        times = [r.time for r in p.revisions]
        assert times == sorted(times) and len(set(times)) == len(times)
        # The current source is the latest change of the key; nothing older is current.
        latest = max(stated, key=lambda i: (i.time, i.source_id))
        assert latest.source_id in p.current.source_ids
        assert p.revisions[-1].source_ids[0] == min(
            (i for i in stated if i.source_id in p.current.source_ids), key=lambda i: i.time).source_id
        assert not set(p.superseded_ids) & set(p.current.source_ids)
        assert p.value_at(times[0] - 1) is None and p.value_at(times[-1] + 1) == p.current
        for point in p.as_of:
            assert p.value_at(point.time) == p.revisions[point.revision]
            later = p.revisions[point.revision + 1]
            assert point.time < later.time
            assert all(by_id[s][0].time < point.time for s in p.revisions[point.revision].source_ids)


def test_wording_varies(history: History) -> None:
    used = history.templates()
    for kind in CHANGE_KINDS:
        changes = {t for t in used[kind] if t.split(".")[1][0] in "cx"}
        assert len(changes) >= 4, (kind, sorted(changes))
        assert len({t for t in used[kind] if t.split(".")[1][0] == "i"}) >= 3, kind
    roles = {(i.template.split(".")[0], i.role) for i in history.info
             if i.kind in ("statement", "correction")}
    assert {("home", "robot"), ("appointment", "robot"), ("object", "robot"),
            ("home", "person"), ("perception", "perception")} <= roles
    implied = {"home.c4", "home.c5", "job.c2", "preference.c4"}
    assert implied & set().union(*used.values())
    # Distractors reuse the probes' words about other people and things.
    by_subject: dict[str, set[str]] = {}
    for p in history.probes:
        for r in p.revisions:
            by_subject.setdefault(p.subject_id, set()).add(r.value.lower())
    overlap = [i for i, e in zip(history.info, history.events, strict=True)
               if i.kind == "distractor"
               and any(v in e.text.lower() for v in by_subject[i.subject_id])]
    assert overlap
    statements = [e.text for i, e in zip(history.info, history.events, strict=True)
                  if i.kind in ("statement", "correction", "contradiction")]
    assert len(set(statements)) > 0.9 * len(statements)


def test_value_matches() -> None:
    assert value_matches("Seattle", ("Seattle",))
    assert value_matches("the new flat in seattle", ("Seattle",))
    assert value_matches("table", ("kitchen table",))
    assert value_matches("2025-02-17T12:00", ("2025-02-17", "17 february"))
    assert not value_matches("Boston", ("Seattle",))
    assert not value_matches("", ("Seattle",))
    assert not value_matches("a", ("a cat",))
    assert not value_matches("seattleite", ("Seattle",))


@dataclass
class FakeResolution:
    status: str
    value: str = ""
    source_ids: list[str] = field(default_factory=list)


def _oracle(history: History, mode: str = "truth"):
    """A resolver that knows the generator's truth (or breaks it in a named way)."""
    probes = {(p.subject_id, p.entity, p.relation): p for p in history.probes}

    def resolve(subject_id: str, entity: str, relation: str, as_of: float | None) -> FakeResolution:
        p: Probe | None = probes.get((subject_id, entity, relation))
        if mode == "missing" or p is None or p.expect == "missing":
            return FakeResolution("missing")
        if p.expect == "conflict":
            if mode == "latest":
                last = p.revisions[-1]
                return FakeResolution("answer", last.value, list(last.source_ids))
            return FakeResolution("conflict", "", [s for r in p.revisions for s in r.source_ids])
        rev = p.value_at(as_of) if as_of is not None else p.current
        if mode == "stale":
            rev = p.revisions[0]
        if rev is None:
            return FakeResolution("missing")
        return FakeResolution("answer", rev.value, list(rev.source_ids))

    return resolve


def _truth_edges(history: History) -> list[tuple[frozenset[str], frozenset[str]]]:
    return [(frozenset(p.revisions[i + 1].source_ids), frozenset(p.revisions[i].source_ids))
            for p in history.probes if p.expect == "answer" for i in range(len(p.revisions) - 1)]


def test_resolver_scorer_rewards_truth_and_punishes_mistakes() -> None:
    h = generate(5, 2)
    edges = _truth_edges(h)
    perfect = score_resolver(h, _oracle(h), edges)
    assert {k: perfect[k] for k in RESOLVER_KEYS} == {
        "update_precision": 1.0, "update_recall": 1.0, "current_accuracy": 1.0,
        "as_of_accuracy": 1.0, "conflict_recall": 1.0, "false_answer_rate": 0.0,
        "n": len(h.probes)}
    assert perfect["stale_answer_rate"] == 0.0

    missing = score_resolver(h, _oracle(h, "missing"), [])
    assert missing["current_accuracy"] == 0.0 and missing["false_answer_rate"] == 0.0
    assert missing["conflict_recall"] == 0.0 and missing["update_recall"] == 0.0
    assert missing["update_precision"] is None  # no edge predicted

    latest = score_resolver(h, _oracle(h, "latest"), edges)
    assert latest["conflict_recall"] == 0.0 and latest["current_accuracy"] == 1.0

    stale = score_resolver(h, _oracle(h, "stale"), edges)
    assert stale["current_accuracy"] == 0.0 and stale["stale_answer_rate"] == 1.0

    # Reversed edges (older → newer) and edges from a probed statement to chatter are wrong;
    # edges between two unprobed records are not scored.
    reversed_edges = [(b, a) for a, b in edges]
    chatter = [i.source_id for i in h.info if i.kind in ("chatter", "distractor")]
    noise = [(edges[0][0], frozenset({chatter[0]}))]
    unprobed = [(frozenset({chatter[1]}), frozenset({chatter[2]}))]
    scored = score_edges(h, reversed_edges + noise + unprobed)
    assert scored["update_precision"] == 0.0 and scored["update_recall"] == 0.0
    assert scored["edges_unscored"] == 1
    half = score_edges(h, edges + noise * len(edges) + unprobed)
    assert half["update_precision"] == 0.5 and half["update_recall"] == 1.0
    # Contradiction sides linked by an update are wrong too.
    sides = [p for p in h.probes if p.expect == "conflict"][0].revisions
    wrong = score_edges(h, [(frozenset(sides[1].source_ids), frozenset(sides[0].source_ids))])
    assert wrong["update_precision"] == 0.0


@dataclass
class FakeAnswer:
    status: str
    source_ids: list[str]


def test_query_scorer_reads_the_first_citation() -> None:
    h = generate(5, 2)
    by_question = {}
    for p in h.probes:
        for q in p.questions:
            by_question[(p.subject_id, q.text, q.as_of_valid)] = (p, q)

    def ask_with(pick):
        def ask(subject_id: str, question: str, as_of: float | None) -> FakeAnswer:
            p, q = by_question[(subject_id, question, as_of)]
            return pick(p, q)
        return ask

    def truthful(p: Probe, q) -> FakeAnswer:
        if q.expect == "missing":
            return FakeAnswer("missing", [])
        if q.expect == "conflict":
            return FakeAnswer("conflict", [p.revisions[0].source_ids[0]])
        rev = p.current if q.expect == "current" else p.revisions[q.revision]
        return FakeAnswer("answered", list(rev.source_ids))

    good = score_queries(h, ask_with(truthful))
    n = sum(len(p.questions) for p in h.probes)
    assert {k: good[k] for k in QUERY_KEYS} == {"current_at1": 1.0, "superseded_at1": 0.0,
                                                "as_of_accuracy": 1.0, "false_answer_rate": 0.0,
                                                "n": n}
    assert good["conflict_rate"] == 1.0

    def oldest(p: Probe, q) -> FakeAnswer:
        ids = [s for r in p.revisions for s in r.source_ids] or [h.events[0].source_id]
        return FakeAnswer("answered", ids)

    bad = score_queries(h, ask_with(oldest))
    assert bad["current_at1"] == 0.0 and bad["superseded_at1"] == 1.0
    assert bad["false_answer_rate"] == 1.0 and bad["conflict_rate"] == 0.0


def test_command_end_to_end_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert updates.main(["--seed", "2", "--subjects", "2", "--sessions", "4", "--json",
                         "--out", str(tmp_path), "--ablate", "graph"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("bench updates:")
    report = json.loads(lines[-1])
    assert set(RESOLVER_KEYS) <= set(report["resolver"])
    assert set(QUERY_KEYS) <= set(report["query"])
    for block, keys in (("resolver", RESOLVER_KEYS), ("query", QUERY_KEYS)):
        for key in keys[:-1]:
            value = report[block][key]
            assert value is None or 0.0 <= value <= 1.0, (block, key, value)
    history = generate(2, 2, 4)
    assert report["query"]["n"] == sum(len(p.questions) for p in history.probes) > 0
    assert report["resolver"]["n"] == len(history.probes)  # the resolver ran on every probe
    assert "unavailable" not in report["query"] and "unavailable" not in report["resolver"]
    assert report["events"] == len(history.events)
    assert report["jobs"]["done"] == len(history.events) and report["jobs"]["pending"] == 0
    assert report["seed"] == 2 and report["subjects"] == 2
    assert set(report["timings"]) >= {"capture_s", "consolidation_s", "query_s", "total_s"}
    assert json.loads((tmp_path / "updates.json").read_text())["query"] == report["query"]
    # The ablated run is scored on the same questions; without the graph stage nothing
    # learns that a revision was superseded, so the first citation is the current one less often.
    without = report["ablations"]["graph"]
    assert without["n"] == report["query"]["n"]
    assert without["current_at1"] < report["query"]["current_at1"]


def test_cli_delegates_bench_updates() -> None:
    from trace_ros.cli import DELEGATED

    assert DELEGATED["bench updates"] == "trace_ros.bench.updates"
    with pytest.raises(SystemExit):
        updates.parse_args(["--subjects", "0"])
    with pytest.raises(SystemExit):
        updates.parse_args(["--ablate", "graph,nonsense"])
