"""The evidence graph as a whole: hierarchy, determinism across batchings and
rebuilds, the in-memory networkx view, and the ``graph``/``rebuild`` commands."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import DAY, HashEncoder, PayloadExtractor, capture, consolidate, fact  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.config import ConsolidationConfig  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.hierarchy import derive, rederive_hierarchy  # noqa: E402
from trace_ros.consolidation.project import GraphProjector  # noqa: E402
from trace_ros.formats import locomo_events, read_locomo  # noqa: E402
from trace_ros.graph import EvidenceGraph  # noqa: E402
from trace_ros.ledger import Job, Ledger, Scope  # noqa: E402

T0 = 1_700_000_000.0
LOCOMO = Path("/work/shared/data/locomo10.json")
TOPICS = ConsolidationConfig(topic_threshold=0.5, topic_neighbour=0.4, topic_rederive_every=3)
CHATTER = ("garden tomatoes basil soil", "football match goal referee", "garden roses soil water",
           "football league goal coach", "kitchen recipe soup onions", "garden compost soil worms")


def _sessions() -> list[list[Event]]:
    """Six sessions over six weeks: two topics of chatter, a home that changes, a
    plan resting on it, a contradiction, perception of a moving mug."""
    out = []
    for n, words in enumerate(CHATTER):
        s = Scope("sam", "r1", f"week{n}")
        t = T0 + n * 7 * DAY
        ev = [Event("dialogue", s, f"We talked about {words} today.", "Sam", stamp=t,
                    source_id=f"w{n}-chat", payload={"facts": [fact("action")]}),
              Event("dialogue", s, f"Yes, {words} again.", "Robot", stamp=t + 30,
                    source_id=f"w{n}-reply")]
        if n in (0, 2, 4):
            city = ("Leeds", "York", "Bath")[n // 2]
            ev.append(Event("dialogue", s, f"I live in {city} now.", "Sam", stamp=t + 60,
                            source_id=f"w{n}-home",
                            payload={"facts": [fact(entity="Sam", relation="lives_in", value=city,
                                                    cues=["now"])]}))
            ev.append(Event("perception", s, f"mug on the shelf {n}", "camera", stamp=t + 90,
                            source_id=f"w{n}-mug",
                            payload={"facts": [fact("observation", entity="mug",
                                                    relation="located_at", value=f"shelf {n}",
                                                    participants=[])]}))
        if n == 1:
            ev.append(Event("dialogue", s, "Because of that I plan to join the club.", "Sam",
                            stamp=t + 60, source_id="w1-plan",
                            payload={"facts": [fact("plan", entity="Sam", relation="plans",
                                                    value="join the club", cues=["because"])]}))
        if n == 3:
            ev += [Event("dialogue", s, "The party is on Friday.", "Sam", stamp=t + 60,
                         source_id="w3-fri", payload={"facts": [fact(
                             "plan", entity="party", relation="scheduled_for", value="Friday")]}),
                   Event("dialogue", s, "The party is on Saturday.", "Robot", stamp=t + 60,
                         source_id="w3-sat", payload={"facts": [fact(
                             "plan", entity="party", relation="scheduled_for", value="Saturday",
                             participants=[])]})]
        out.append(ev)
    return out


def _rebuild(ledger: Ledger, config: ConsolidationConfig, extractor: object = None) -> None:
    ledger.reset_derived()
    ledger.clear_graph()
    consolidate(ledger, config, extractor)


def test_session_by_session_equals_rebuild_at_any_batch_size(ledger: Ledger) -> None:
    cfg = replace(TOPICS, batch_size=3)
    for session in _sessions():
        capture(ledger, session)
        consolidate(ledger, cfg)
    incremental = ledger.graph_snapshot("sam")
    counts = ledger.graph_counts("sam")
    assert counts["edges_by_type"]["updates"] >= 4 and counts["edges_by_type"]["contradicts"] == 1
    assert counts["edges_by_type"]["before"] >= 5  # the session chain
    assert counts["edges_by_type"]["in_topic"] == 6 and 2 <= counts["topics"] <= 5
    for batch in (1, 7, 128):
        _rebuild(ledger, replace(TOPICS, batch_size=batch))
        assert ledger.graph_snapshot("sam") == incremental, f"batch size {batch}"


def test_topics_follow_session_embeddings(ledger: Ledger) -> None:
    for session in _sessions():
        capture(ledger, session)
    consolidate(ledger, TOPICS)
    topic = {r[0]: r[1] for r in ledger.query("SELECT session_id, topic_id FROM sessions")}
    assert topic["week0"] == topic["week2"] == topic["week5"]  # garden
    assert topic["week1"] == topic["week3"]  # football
    assert topic["week0"] != topic["week1"]
    # Closed sessions feed the centroids; the last one is provisional.
    assert ledger.query("SELECT sum(n_sessions) FROM topics WHERE subject_id = 'sam'")[0][0] == 5
    # The incremental assignment equals the from-scratch derivation.
    enc = HashEncoder()
    vecs = []
    for session in _sessions()[:5]:
        v = enc.encode([f"{e.speaker}: {e.text}" for e in session]).astype("float64")
        vecs.append(v.mean(axis=0))
    _, assignment = derive(vecs, TOPICS.topic_threshold, TOPICS.topic_rederive_every)
    assert assignment == [topic[f"week{n}"] for n in range(5)]


def test_forget_resets_and_rederives_the_hierarchy(ledger: Ledger) -> None:
    for session in _sessions():
        capture(ledger, session)
    consolidate(ledger, TOPICS)
    before = ledger.graph_snapshot("sam")["sessions"]
    ledger.forget(source_ids=["w2-chat"])
    assert ledger.query("SELECT count(*) FROM topics")[0][0] == 0
    rederive_hierarchy(ledger, TOPICS, ["sam"])
    after = ledger.graph_snapshot("sam")["sessions"]
    assert len(after) == len(before) and all(r[3] is not None for r in after)
    assert ledger.graph_counts("sam")["edges_by_type"]["in_topic"] == 6


def test_networkx_view_refreshes_incrementally(ledger: Ledger) -> None:
    view = EvidenceGraph(ledger, "sam")
    for session in _sessions():
        capture(ledger, session)
        consolidate(ledger, TOPICS)
        assert view.refresh()
        fresh = EvidenceGraph(ledger, "sam")
        fresh.refresh()
        assert view.signature() == fresh.signature()
    assert not view.refresh()  # nothing new
    counts = view.counts()
    assert counts["vertices"]["session"] == 6 and counts["vertices"]["topic"] >= 2
    assert counts["edges_by_type"] == ledger.graph_counts("sam")["edges_by_type"]
    other = EvidenceGraph(ledger, "nobody")
    other.refresh()
    assert other.g.number_of_nodes() == 0


@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo data not present")
def test_locomo_conversation_incremental_equals_rebuild(ledger: Ledger) -> None:
    """The first LoCoMo conversation with the CPU extractor: session by session, then
    a full rebuild, give the same facts and edges."""
    [sample] = read_locomo(LOCOMO, 1)
    events = list(locomo_events(sample))
    by_session: dict[str, list[Event]] = {}
    for e in events:
        by_session.setdefault(e.scope.session_id, []).append(e)
    cfg = ConsolidationConfig()
    for session in by_session.values():
        capture(ledger, session)
        consolidate(ledger, cfg, CpuExtractor())
    subject = events[0].scope.subject_id
    incremental = ledger.graph_snapshot(subject)
    counts = ledger.graph_counts(subject)
    assert counts["facts"] > 100 and counts["sessions"] == len(by_session)
    assert counts["edges_by_type"]["in_topic"] == len(by_session)
    _rebuild(ledger, cfg, CpuExtractor())
    assert ledger.graph_snapshot(subject) == incremental


def test_graph_command_prints_counts_and_chains(ledger: Ledger, capsys: pytest.CaptureFixture[str]
                                                ) -> None:
    from trace_ros.cli import main

    for session in _sessions():
        capture(ledger, session)
    consolidate(ledger, TOPICS)
    db = str(ledger.path)
    assert main(["graph", "--db", db, "--subject", "sam", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["counts"]["facts"] == ledger.graph_counts("sam")["facts"]
    chains = {(c["entity"], c["relation"]): c for c in out["chains"]}
    home = chains[("sam", "lives_in")]["revisions"]
    assert [r["value"] for r in home] == ["leeds", "york", "bath"]
    assert [r["status"] for r in home] == ["superseded", "superseded", "active"]
    assert home[0]["valid_to"] == home[1]["valid_from"] and home[0]["source_ids"] == ["w0-home"]
    assert main(["graph", "--db", db, "--subject", "sam"]) == 0
    text = capsys.readouterr().out
    assert "sam lives_in" in text and "w2-home" in text and "edges by type" in text


def test_rebuild_command_recreates_the_same_graph(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``trace-ros ingest`` (MiniLM + CPU extractor) then ``trace-ros rebuild`` from the
    sources alone: the same facts, edges, topics; vectors and FTS are back."""
    from trace_ros.cli import main

    lines = []
    for session in _sessions():
        for e in session:
            lines.append(json.dumps({"subject_id": e.scope.subject_id, "robot_id": e.scope.robot_id,
                                     "session_id": e.scope.session_id, "modality": e.modality,
                                     "speaker": e.speaker, "text": e.text, "stamp": e.stamp,
                                     "source_id": e.source_id}))
    src = tmp_path / "events.jsonl"
    src.write_text("\n".join(lines) + "\n")
    db = str(tmp_path / "cli.db")
    assert main(["ingest", "--db", db, "--format", "jsonl", str(src)]) == 0
    capsys.readouterr()
    with Ledger(db) as ledger:
        first = ledger.graph_snapshot()
        vectors = ledger.query("SELECT count(*) FROM vectors")[0][0]
    assert first["facts"] and first["edges"]
    assert main(["rebuild", "--db", db]) == 0
    with Ledger(db) as ledger:
        assert ledger.graph_snapshot() == first
        assert ledger.query("SELECT count(*) FROM vectors")[0][0] == vectors
        hits = ledger.query("SELECT count(*) FROM facts_fts WHERE facts_fts MATCH 'york'")[0][0]
        assert hits >= 1


def test_outcomes_and_idempotent_reprojection(ledger: Ledger) -> None:
    for session in _sessions():
        capture(ledger, session)
    consolidate(ledger, TOPICS)
    outcome = dict(ledger.query("SELECT s.source_id, j.outcome FROM jobs j "
                                "JOIN sources s ON s.seq = j.source_seq"))
    assert outcome["w0-home"] == "add" and outcome["w2-home"] == "revise"
    assert outcome["w0-reply"] == "noop" and outcome["w3-sat"] == "revise"
    snapshot = ledger.graph_snapshot("sam")
    # Projecting the newest source again (a retried job) changes nothing.
    [last] = ledger.get_sources(["w5-reply"])
    projector = GraphProjector(ledger, PayloadExtractor(), TOPICS)
    with ledger.write() as conn:
        assert projector.project(conn, [Job(0, last, 1)]) == ["noop"]
    [chat] = ledger.get_sources(["w5-chat"])
    with ledger.write() as conn:
        assert projector.project(conn, [Job(0, chat, 1)]) == ["add"]
    assert ledger.graph_snapshot("sam") == snapshot


class _TimedProjector:
    """Wraps a projector and its extractor to split the batch time (figures only)."""

    def __init__(self, ledger: Ledger, config: ConsolidationConfig) -> None:
        self.extract_s = 0.0
        self.project_s = 0.0
        outer = self
        cpu = CpuExtractor()

        class _Extractor:
            name = cpu.name

            def extract(self, source, context):  # noqa: ANN001, ANN202
                t = time.perf_counter()
                try:
                    return cpu.extract(source, context)
                finally:
                    outer.extract_s += time.perf_counter() - t

        self.inner = GraphProjector(ledger, _Extractor(), config)

    def project(self, conn, jobs):  # noqa: ANN001, ANN201
        t = time.perf_counter()
        try:
            return self.inner.project(conn, jobs)
        finally:
            self.project_s += time.perf_counter() - t


@pytest.mark.slow
@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo data not present")
def test_bench_locomo_consolidation(ledger: Ledger, encoder: object) -> None:
    """Figures: all ten LoCoMo conversations through embeddings, CPU extraction,
    linking and hierarchy. Run: pytest -q -s -m slow test/engine/test_graph.py"""
    from trace_ros.consolidation.worker import Consolidator

    events = [e for s in read_locomo(LOCOMO) for e in locomo_events(s)]
    capture(ledger, events)
    cfg = ConsolidationConfig()
    timed = _TimedProjector(ledger, cfg)
    worker = Consolidator(ledger, encoder, cfg, projector=timed)  # type: ignore[arg-type]
    total = ledger.job_counts()["pending"]
    marks = [(0, 0.0, 0.0, 0.0)]
    started = time.perf_counter()
    while (report := worker.run_once()).claimed:
        marks.append((marks[-1][0] + report.done, time.perf_counter() - started,
                      timed.project_s, timed.extract_s))
    wall = time.perf_counter() - started
    assert marks[-1][0] == total

    def at(frac: float) -> dict[str, float]:
        i = min(range(1, len(marks)), key=lambda k: abs(marks[k][0] - frac * total))
        lo = marks[max(i - 4, 0)]
        hi = marks[i]
        n = hi[0] - lo[0]
        return {"at": frac, "events": n,
                "ms_per_event": round(1000 * (hi[1] - lo[1]) / n, 3),
                "ms_per_event_extract": round(1000 * (hi[3] - lo[3]) / n, 3),
                "ms_per_event_link_hierarchy": round(
                    1000 * ((hi[2] - lo[2]) - (hi[3] - lo[3])) / n, 3)}

    counts = ledger.graph_counts()
    print(json.dumps({"sources": total, "consolidation_s": round(wall, 2),
                      "projection_s": round(timed.project_s, 2),
                      "extraction_s": round(timed.extract_s, 2),
                      "link_hierarchy_s": round(timed.project_s - timed.extract_s, 2),
                      "facts": counts["facts"], "edges_by_type": counts["edges_by_type"],
                      "sessions": counts["sessions"], "topics": counts["topics"],
                      "per_event": [at(f) for f in (0.1, 0.5, 1.0)]}))
    assert counts["facts"] > 0 and counts["edges_by_type"]["in_topic"] == counts["sessions"]
