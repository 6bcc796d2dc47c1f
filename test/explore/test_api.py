"""The explorer's JSON API over a real demo ledger (FastAPI's test client)."""

from __future__ import annotations

import calendar
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from trace_ros.errors import TraceError
from trace_ros.explore.app import create_app, parse_args
from trace_ros.explore.store import open_read_only
from trace_ros.ledger import Ledger
from trace_ros.query.answer import QueryEngine
from trace_ros.query.readers import ExtractiveReader

# Between the demo's two sessions (3 and 5 March 2025): before the pickup moved.
BETWEEN = float(calendar.timegm((2025, 3, 4, 12, 0, 0)))


def lexical_engine(ledger: Ledger) -> QueryEngine:
    """No encoder (dense route off), extractive reader, no audit writer."""
    return QueryEngine(ledger, None, ExtractiveReader(), audit=False)


@pytest.fixture
def client(demo_db: Path) -> TestClient:
    return TestClient(create_app(demo_db, engine_factory=lexical_engine))


def test_subjects_and_overview(client: TestClient) -> None:
    subjects = {s["subject_id"]: s for s in client.get("/api/subjects").json()["subjects"]}
    assert set(subjects) == {"alex", "sam"}
    assert subjects["alex"]["sources"] == 10 and subjects["alex"]["perception"] == 3
    ov = client.get("/api/subjects/alex").json()
    assert [s["session_id"] for s in ov["sessions"]] == ["day-1", "day-2"]
    assert ov["counts"]["facts"] == subjects["alex"]["facts"] > 0


def test_timeline_lists_sources_with_facts_and_searches_fts(client: TestClient) -> None:
    tl = client.get("/api/subjects/alex/timeline").json()
    assert tl["total"] == 10
    times = [s["source_time"] for s in tl["sources"]]
    assert times == sorted(times)
    first = next(s for s in tl["sources"] if s["source_id"] == "demo-s1-01")
    assert any(f["relation"] == "scheduled_for" for f in first["facts"])
    hits = client.get("/api/subjects/alex/timeline", params={"q": "parcel"}).json()
    ids = {s["source_id"] for s in hits["sources"]}
    assert "demo-s2-01" in ids and "demo-s1-03" not in ids
    # Another subject's text is never in this subject's timeline.
    assert client.get("/api/subjects/alex/timeline", params={"q": "sugars"}).json()["total"] == 0
    page = client.get("/api/subjects/alex/timeline", params={"limit": 3, "offset": 8}).json()
    assert (page["total"], page["count"]) == (10, 2)
    assert [s["source_id"] for s in page["sources"]] == \
        [s["source_id"] for s in tl["sources"][8:]]
    one = client.get("/api/subjects/alex/timeline", params={"session": "day-2"}).json()
    assert {s["session_id"] for s in one["sources"]} == {"day-2"}


def test_state_as_of_shows_the_memory_as_it_was(client: TestClient) -> None:
    def pickup(**params: object) -> dict:
        body = client.get("/api/subjects/alex/state", params=params).json()
        return next(k for k in body["keys"] if k["entity"] == "parcel pickup"
                    and k["relation"] == "scheduled_for")

    now = pickup()
    assert now["status"] == "answer" and now["value"] == "thursday"
    old = next(r for r in now["revisions"] if r["value"] == "tuesday")
    assert old["view_status"] == "superseded" and old["valid_to"] is not None
    assert old["changed_by"] and old["changed_by"][0]["sources"][0]["source_id"].startswith("demo-s2")
    then = pickup(as_of_valid=BETWEEN)
    assert then["value"] == "tuesday"
    assert [r["view_status"] for r in then["revisions"] if r["value"] == "thursday"] == \
        ["not yet", "not yet"]


def test_graph_has_typed_edges_and_view_status(client: TestClient) -> None:
    g = client.get("/api/subjects/alex/graph").json()
    kinds = g["counts"]["vertices"]
    assert kinds["fact"] > 0 and kinds["session"] == 2
    assert g["counts"]["edges"].get("updates", 0) >= 1
    verts = g["vertices"]
    superseded = [v for v in verts if v["kind"] == "fact" and v["status"] == "superseded"]
    assert any("demo-s1-01" in v["source_ids"] for v in superseded)
    for a, b, *_ in g["edges"]:
        assert 0 <= a < len(verts) and 0 <= b < len(verts)
    # As of before the change nothing is superseded yet, and day-2 facts are not shown.
    then = client.get("/api/subjects/alex/graph", params={"as_of_valid": BETWEEN}).json()
    assert not [v for v in then["vertices"] if v["kind"] == "fact" and v["status"] == "superseded"]
    assert all("day-2" not in v["session"] for v in then["vertices"] if v["kind"] == "fact")
    fact = superseded[0]
    detail = client.get("/api/subjects/alex/vertex", params={"id": fact["id"]}).json()
    assert [s["source_id"] for s in detail["sources"]] == fact["source_ids"]
    assert any(e["type"] == "updates" for e in detail["edges"])


def test_places_and_labels(client: TestClient) -> None:
    body = client.get("/api/subjects/alex/places").json()
    assert body["labels"] == ["keys", "red mug"]
    mug = client.get("/api/subjects/alex/places", params={"label": "red mug"}).json()["points"]
    assert [p["source_id"] for p in mug] == ["demo-s1-05", "demo-s2-04"]
    assert mug[0]["frame_id"] == "map" and mug[1]["x"] == pytest.approx(3.0)
    early = client.get("/api/subjects/alex/places",
                       params={"label": "red mug", "until": BETWEEN}).json()["points"]
    assert [p["source_id"] for p in early] == ["demo-s1-05"]


def test_ask_returns_plan_routes_evidence_and_citations(client: TestClient) -> None:
    r = client.get("/api/subjects/alex/ask", params={"q": "When is my parcel pickup?"})
    body = r.json()
    assert r.status_code == 200, body
    assert body["status"] == "answered" and body["source_ids"]
    shown = [e["source_id"] for e in body["evidence"]]
    assert set(body["source_ids"]) <= set(shown)
    assert body["plan"]["operation"] and "lexical" in body["routes"]
    assert all(not s.startswith("demo-sam") for s in shown)
    assert "total" in body["timings_ms"]


def test_past_questions_come_from_the_audit_table(client: TestClient) -> None:
    from trace_ros.demo import QUESTIONS

    past = client.get("/api/subjects/alex/questions").json()["questions"]
    assert sorted(q["question"] for q in past) == sorted(q for q, _ in QUESTIONS)
    assert all(q["status"] and q["query_id"] for q in past)
    assert client.get("/api/subjects/sam/questions").json()["questions"] == []


def test_bad_parameters_name_the_field(client: TestClient) -> None:
    cases = [
        ("/api/subjects/alex/state", {"as_of_valid": "soon"}, "as_of_valid"),
        ("/api/subjects/alex/graph", {"as_of_known": "nan"}, "as_of_known"),
        ("/api/subjects/alex/timeline", {"limit": "0"}, "limit"),
        ("/api/subjects/alex/timeline", {"q": "!!!"}, "q"),
        ("/api/subjects/alex/ask", {}, "q"),
        ("/api/subjects/alex/ask", {"q": "x" * 5000}, "q"),
        ("/api/subjects/alex/vertex", {"id": "f:nonexistent"}, "id"),
        ("/api/subjects/alex/vertex", {"id": "session:sam/demo-robot/day-2"}, "id"),
    ]
    for path, params, field in cases:
        r = client.get(path, params=params)
        assert 400 <= r.status_code < 500, (path, params, r.status_code)
        err = r.json()["error"]
        assert err["field"] == field and err["reason"], (path, params, err)


def test_unknown_subject_is_404(client: TestClient) -> None:
    for path in ("", "/timeline", "/state", "/graph", "/places", "/questions", "/ask?q=hi"):
        r = client.get(f"/api/subjects/nobody{path}")
        assert r.status_code == 404, path
        assert r.json()["error"]["field"] == "subject"


def test_token_is_required_on_every_request(demo_db: Path) -> None:
    c = TestClient(create_app(demo_db, token="s3cret", engine_factory=lexical_engine))
    for path in ("/", "/static/app.js", "/api/subjects", "/api/subjects/alex/graph", "/docs"):
        r = c.get(path)
        assert r.status_code == 401 and r.json()["error"]["field"] == "token", path
    assert c.get("/api/subjects", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert c.get("/api/subjects", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    # The page's first load with ?token= sets a cookie that its static files then carry.
    assert c.get("/?token=s3cret").status_code == 200
    assert c.get("/static/app.js").status_code == 200


def test_non_loopback_host_needs_a_token() -> None:
    with pytest.raises(SystemExit):
        parse_args(["--db", "x.db", "--host", "0.0.0.0"])
    assert parse_args(["--db", "x.db", "--host", "0.0.0.0", "--token", "t"]).token == "t"
    assert parse_args(["--db", "x.db"]).host == "127.0.0.1"


def test_connection_is_read_only(demo_db: Path, tmp_path: Path) -> None:
    before = demo_db.read_bytes()
    led = open_read_only(demo_db)
    try:
        with pytest.raises(sqlite3.OperationalError):
            led.conn.execute("DELETE FROM sources")
        with pytest.raises(sqlite3.OperationalError):
            with led.write() as conn:
                conn.execute("INSERT INTO meta (key, value) VALUES ('x', 'y')")
    finally:
        led.close()
    assert demo_db.read_bytes() == before
    with pytest.raises(FileNotFoundError):
        open_read_only(tmp_path / "missing.db")
    (tmp_path / "other.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(TraceError):
        open_read_only(tmp_path / "other.db")


def test_openapi_documents_the_api_without_a_cdn(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    assert "https://" not in page.text and "http://" not in page.text
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
    index = client.get("/").text
    assert "https://" not in index and "http://" not in index
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/api/subjects", "/api/subjects/{subject}/timeline", "/api/subjects/{subject}/state",
              "/api/subjects/{subject}/graph", "/api/subjects/{subject}/ask",
              "/api/subjects/{subject}/places"):
        assert p in paths


def test_sees_what_a_running_writer_commits(demo_db: Path, tmp_path: Path) -> None:
    """Beside a live writer (WAL): each request reads the newest committed state."""
    import shutil

    from trace_ros.capture import Event, ingest
    from trace_ros.config import CaptureConfig
    from trace_ros.ledger import Scope

    db = tmp_path / "live.db"
    shutil.copy(demo_db, db)
    writer = Ledger(db)
    try:
        c = TestClient(create_app(db, engine_factory=lexical_engine))
        assert c.get("/api/subjects/alex/timeline").json()["total"] == 10
        ingest(writer, [Event("dialogue", Scope("alex", "demo-robot", "day-3"),
                              text="The keys are in my coat pocket now.", speaker="alex",
                              stamp=BETWEEN + 5 * 86400, source_id="live-1")], CaptureConfig())
        tl = c.get("/api/subjects/alex/timeline").json()
        assert tl["total"] == 11 and tl["sources"][-1]["source_id"] == "live-1"
        assert c.get("/api/subjects/alex/state").status_code == 200
    finally:
        writer.close()
