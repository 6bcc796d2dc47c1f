"""The explorer in a real browser: Playwright driving Debian's Chromium.

Loads the page on the demo memory, picks a subject, checks the timeline count,
moves the as-of control across an update and sees the value change, asks a
question and sees its cited source highlighted, clicks a graph vertex and sees
its sources, and saves a screenshot of each view under the test's output folder
(``$EXPLORE_SCREENSHOTS`` if set, else pytest's tmp dir). Then it opens the
largest LoCoMo conversation and prints the page-load and graph render times.

Without Chromium (or Playwright) the test is skipped on a developer's machine
and FAILS under CI (``CI=true``): CI installs Chromium, so a skip there would
hide a broken install.
"""

from __future__ import annotations

import calendar
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from trace_ros.explore.app import create_app

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
# ../shared beside the checkout (CI), else the workplace's shared folder.
LOCOMO = next((p for p in (Path(__file__).resolve().parents[3] / "shared/data/locomo10.json",
                           Path("/work/shared/data/locomo10.json")) if p.is_file()),
              Path("shared/data/locomo10.json"))
BETWEEN = float(calendar.timegm((2025, 3, 4, 12, 0, 0)))


def _need(ok: bool, why: str) -> None:
    if ok:
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"browser test cannot run in CI: {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - requirements.txt installs it
        _need(False, "playwright is not installed")
    _need(Path(CHROMIUM).is_file() or shutil.which(CHROMIUM) is not None,
          f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("EXPLORE_SCREENSHOTS", tmp_path / "screenshots"))
    out.mkdir(parents=True, exist_ok=True)
    return out


def _open(browser, url: str):
    """A page on ``url`` once its first view is drawn; JavaScript errors and any
    request that leaves the server (a CDN, say) are collected in ``errors``."""
    page = browser.new_page(viewport={"width": 1500, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    origin = url.split("?", 1)[0]

    def local_only(route) -> None:
        if route.request.url.startswith(origin):
            route.continue_()
        else:
            errors.append(f"external request: {route.request.url}")
            route.abort()

    page.route("**/*", local_only)
    t0 = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=30000)
    return page, (time.perf_counter() - t0) * 1000.0, errors


def test_explorer_in_chromium(browser, demo_db: Path, serve, shots: Path) -> None:
    srv = serve(create_app(demo_db))
    page, load_ms, errors = _open(browser, srv.url)

    # Timeline: pick a subject, see its count; cited rows are highlighted later.
    page.select_option("#subject", "sam")
    page.wait_for_selector("#timeline-count[data-count='1']")
    page.select_option("#subject", "alex")
    page.wait_for_selector("#timeline-count[data-count='10']")
    assert page.locator("#timeline .source").count() == 10
    page.screenshot(path=str(shots / "timeline.png"))

    # State: the pickup is Thursday now; moving valid time before the change shows Tuesday.
    page.click("#tabs button[data-view='state']")
    value = page.locator("tr.key[data-key='parcel pickup|scheduled_for'] td.value")
    value.wait_for()
    assert value.inner_text() == "thursday"
    page.eval_on_selector("#asof-valid", "(el, t) => { el.value = t; "
                          "el.dispatchEvent(new Event('change')); }", BETWEEN)
    page.wait_for_function("document.querySelector(\"tr.key[data-key='parcel pickup|"
                           "scheduled_for'] td.value\").textContent === 'tuesday'")
    assert page.inner_text("#asof-valid-label").startswith("2025-03-04")
    page.screenshot(path=str(shots / "state.png"))
    page.click("#asof-now")
    page.wait_for_function("document.querySelector(\"tr.key[data-key='parcel pickup|"
                           "scheduled_for'] td.value\").textContent === 'thursday'")

    # Ask: the answer cites the update, which is highlighted on the timeline.
    page.click("#tabs button[data-view='ask']")
    page.fill("#ask-input", "When is my parcel pickup?")
    page.click("#ask-button")
    page.wait_for_selector("#ask-status")
    assert page.inner_text("#ask-status") == "answered"
    assert page.locator("#past-questions li").count() == 5
    cited = page.evaluate("[...window.explorer.state.cited]")
    assert cited and all(c.startswith("demo-s2") for c in cited)
    for sid in cited:
        assert page.locator(f"#timeline .source.cited[data-source-id='{sid}']").count() == 1
        assert page.locator(f"#ask-result .evidence li.cited[data-source-id='{sid}']").count() == 1
    page.screenshot(path=str(shots / "ask.png"), full_page=True)

    # Graph: click the superseded pickup fact and see its source.
    page.click("#tabs button[data-view='graph']")
    page.wait_for_function("window.explorer.state.graphTiming !== undefined")
    target = page.evaluate(
        "window.explorer.graph.data.vertices.find(v => v.kind === 'fact' && "
        "v.status === 'superseded' && v.source_ids.includes('demo-s1-01')).id")
    x, y = page.evaluate("id => window.explorer.graph.screenPos(id)", target)
    box = page.locator("#graph-canvas").bounding_box()
    # the cited sources of the last question are ringed in the graph too
    assert page.evaluate("window.explorer.graph.data.vertices.filter("
                         "v => window.explorer.graph.isCited(v)).length") >= 1
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_selector("#vertex-sources li[data-source-id='demo-s1-01']")
    page.screenshot(path=str(shots / "graph.png"))
    # …and from the vertex's source back to its place on the timeline.
    page.click("#vertex-sources li[data-source-id='demo-s1-01']")
    page.wait_for_selector("#timeline .source.picked[data-source-id='demo-s1-01']")
    assert page.is_visible("#view-timeline")

    # Places: the mug's two sightings on the map.
    page.click("#tabs button[data-view='places']")
    page.select_option("#places-label", "red mug")
    page.wait_for_function("document.querySelector('#places-count').textContent"
                           ".startsWith('2 poses')")
    page.screenshot(path=str(shots / "places.png"))

    # The API documentation renders from the installed Swagger UI, offline.
    page.goto(srv.url + "docs")
    page.wait_for_selector(".opblock", timeout=20000)
    assert not errors, errors
    print(f"\nexplorer demo: page load {load_ms:.0f} ms; screenshots in {shots}")
    page.close()


def test_largest_locomo_subject_renders(browser, serve, tmp_path: Path, shots: Path) -> None:
    """Page load and graph render time on the largest LoCoMo conversation (printed)."""
    if not LOCOMO.is_file():
        pytest.skip(f"no {LOCOMO}")
    from trace_ros.capture import ingest
    from trace_ros.config import load_config
    from trace_ros.formats import locomo_events, read_locomo

    data = read_locomo(LOCOMO)
    biggest = max(data, key=lambda s: sum(1 for _ in locomo_events(s)))
    db = tmp_path / "locomo.db"
    cfg = load_config(None, None, {"ledger.db_path": str(db)})
    from trace_ros.consolidation.project import build_projection
    from trace_ros.consolidation.worker import Consolidator
    from trace_ros.embed import MiniLMEncoder
    from trace_ros.ledger import Ledger

    with Ledger(db, cfg.ledger) as ledger:
        ingest(ledger, list(locomo_events(biggest)), cfg.capture)
        projector, selector = build_projection(ledger, cfg)
        try:
            Consolidator(ledger, MiniLMEncoder(cfg.embed), cfg.consolidation,
                         projector=projector, gate=selector).drain()
        finally:
            selector.close()
    subject = str(biggest["sample_id"])
    srv = serve(create_app(db))
    page, load_ms, errors = _open(browser, f"{srv.url}?subject={subject}")
    count = int(page.get_attribute("#timeline-count", "data-count") or 0)
    assert count == sum(1 for _ in locomo_events(biggest))
    t0 = time.perf_counter()
    page.click("#tabs button[data-view='graph']")
    page.wait_for_function("window.explorer.state.graphTiming !== undefined")
    graph_ms = (time.perf_counter() - t0) * 1000.0
    timing = page.evaluate("window.explorer.state.graphTiming")
    assert timing["vertices"] + timing["edges"] >= 1000
    # The page stays responsive: a redraw (pan) is quick enough to be interactive.
    first_view = page.evaluate("window.explorer.state.loadMs.first_view")
    redraw = page.evaluate("(() => { const t = performance.now(); window.explorer.graph.draw();"
                           " return performance.now() - t; })()")
    page.screenshot(path=str(shots / "graph-locomo.png"))
    # Headroom: the same graph four times over (distinct sessions), laid out and drawn.
    scaled = page.evaluate("""(() => {
        const d = window.explorer.graph.data, n = d.vertices.length, copies = 4;
        const vertices = [], edges = [];
        for (let c = 0; c < copies; c++) {
          for (const v of d.vertices) vertices.push({...v, id: v.id + '#' + c,
              session: v.session + '#' + c, order: (v.order || 0) + c * 1000});
          for (const e of d.edges) edges.push([e[0] + c * n, e[1] + c * n, e[2], e[3], e[4]]);
        }
        const g = new GraphView(document.createElement('canvas'), () => {});
        return g.load({vertices, edges});
    })()""")
    assert not errors, errors
    print("\n" + json.dumps({"subject": subject, "sources": count,
                             "page_load_ms": round(load_ms, 1),
                             "first_view_ms": round(first_view, 1),
                             "graph_view_ms": round(graph_ms, 1),
                             "graph_fetch_ms": round(timing["fetch_ms"], 1),
                             "graph_layout_draw_ms": round(timing["total_ms"], 1),
                             "graph_redraw_ms": round(redraw, 1),
                             "vertices": timing["vertices"], "edges": timing["edges"],
                             "x4_vertices": scaled["vertices"], "x4_edges": scaled["edges"],
                             "x4_layout_draw_ms": round(scaled["total_ms"], 1)}))
    page.close()
