// The explorer page: plain JavaScript over the read-only JSON API.
"use strict";

const params = new URLSearchParams(location.search);
const TOKEN = params.get("token");
const S = {                       // page state
  subject: "", robot: "", session: "", view: "timeline",
  overview: null, changePoints: [], cited: new Set(), timelineLoaded: false,
  loadMs: {},
};
const $ = sel => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
};
const fmt = t => t == null ? "now" : new Date(t * 1000).toISOString().slice(0, 16).replace("T", " ");

async function get(path, query = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== "") q.set(k, v);
  const headers = TOKEN ? { Authorization: `Bearer ${TOKEN}` } : {};
  const res = await fetch(`${path}${q.toString() ? "?" + q : ""}`, { headers });
  const body = await res.json();
  if (!res.ok) {
    const err = body.error || { field: "?", reason: res.statusText };
    showError(`${res.status}: ${err.field}: ${err.reason}`);
    throw new Error(err.reason);
  }
  return body;
}
function showError(text) {
  const box = $("#error");
  box.textContent = text;
  box.hidden = false;
  setTimeout(() => { box.hidden = true; }, 6000);
}
const base = () => `/api/subjects/${encodeURIComponent(S.subject)}`;
const scopeQuery = () => ({ robot: S.robot, session: S.session });

// -- as-of controls ---------------------------------------------------------------
function asOf(which) {
  const input = $(`#asof-${which}`);
  // the right end of the slider is "now" (no as-of)
  return Number(input.value) >= Number(input.max) - Number(input.step || 1) ? null : Number(input.value);
}
function asOfQuery() { return { as_of_valid: asOf("valid"), as_of_known: asOf("known") }; }
function setupAsOf(lo, hi) {
  for (const which of ["valid", "known"]) {
    const input = $(`#asof-${which}`);
    input.min = Math.floor(lo) - 60;
    input.max = Math.ceil(hi) + 60;
    input.step = 60;
    input.value = input.max;
    labelAsOf(which);
  }
}
function labelAsOf(which) { $(`#asof-${which}-label`).textContent = fmt(asOf(which)); }
function onAsOfChange() { labelAsOf("valid"); labelAsOf("known"); refreshView(); }
function stepChange(direction) {
  const input = $("#asof-valid");
  const now = asOf("valid") ?? Infinity;
  const pts = S.changePoints;
  let target = null;
  if (direction < 0) {
    for (const p of pts) if (p < now - 1) target = p;
    if (target !== null) target -= 1;          // just before the change
  } else {
    for (const p of pts) if (p > now + 1) { target = p; break; }
  }
  input.value = target === null ? (direction > 0 ? input.max : input.min) : target;
  onAsOfChange();
}

// -- subjects and scope ------------------------------------------------------------
async function loadSubjects() {
  const t0 = performance.now();
  const data = await get("/api/subjects");
  $("#db").textContent = data.db;
  const sel = $("#subject");
  sel.innerHTML = "";
  for (const s of data.subjects) {
    sel.append(el("option", { value: s.subject_id,
      text: `${s.subject_id} (${s.sources} sources, ${s.facts} facts)` }));
  }
  const wanted = params.get("subject");
  if (wanted && data.subjects.some(s => s.subject_id === wanted)) sel.value = wanted;
  await selectSubject(sel.value);
  S.loadMs.first_view = performance.now() - t0;
  document.body.dataset.ready = "1";
}

async function selectSubject(subject) {
  S.subject = subject; S.robot = ""; S.session = "";
  S.cited = new Set(); graphView.cited = S.cited; S.timelineLoaded = false;
  if (!subject) return;
  const ov = await get(base());
  S.overview = ov;
  fillSelect($("#robot"), ov.robots.filter(r => r !== ""));
  fillSelect($("#session"), [...new Set(ov.sessions.map(s => s.session_id))]);
  setupAsOf(Math.min(ov.first_time, ov.first_known), Math.max(ov.last_time, ov.last_known));
  S.changePoints = [];
  graphView.data = null;
  await refreshView();
}
function fillSelect(sel, values) {
  sel.innerHTML = "";
  sel.append(el("option", { value: "", text: "all" }));
  for (const v of values) sel.append(el("option", { value: v, text: v }));
}

function showView(name) {
  S.view = name;
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.view === name);
  for (const v of document.querySelectorAll(".view")) v.classList.toggle("active", v.id === `view-${name}`);
  return refreshView();
}
async function refreshView() {
  if (!S.subject) return;
  const t0 = performance.now();
  if (S.view === "timeline") await loadTimeline();
  else if (S.view === "state") await loadState();
  else if (S.view === "graph") await loadGraph();
  else if (S.view === "ask") await loadPastQuestions();
  else if (S.view === "places") await loadPlaces();
  S.loadMs[S.view] = performance.now() - t0;
}

// -- timeline -----------------------------------------------------------------------
const PAGE = 2000;
async function loadTimeline(offset = 0) {
  const q = $("#search").value.trim();
  const data = await get(`${base()}/timeline`, { ...scopeQuery(), q, limit: PAGE, offset });
  const box = $("#timeline");
  if (!offset) box.innerHTML = "";
  const more = document.querySelector("#timeline-more");
  if (more) more.remove();
  $("#timeline-count").textContent = `${data.total} sources` + (q ? ` match “${q}”` : "");
  $("#timeline-count").dataset.count = data.total;
  const frag = document.createDocumentFragment();
  let session = offset ? box.dataset.lastSession : null;
  for (const s of data.sources) {
    const head = `${s.robot_id ? s.robot_id + " / " : ""}${s.session_id}`;
    if (!q && head !== session) {
      session = head;
      frag.append(el("div", { class: "session-head", text: `${head} — ${fmt(s.source_time)}` }));
    }
    frag.append(sourceRow(s));
  }
  box.dataset.lastSession = session;
  if (offset + data.count < data.total) {       // long histories come a page at a time
    const button = el("button", { id: "timeline-more",
      text: `show ${Math.min(PAGE, data.total - offset - data.count)} more of ${data.total}` });
    button.addEventListener("click", () => loadTimeline(offset + data.count));
    frag.append(button);
  }
  box.append(frag);
  S.timelineLoaded = !q;
  markCited();
}
function sourceRow(s) {
  const who = s.modality === "perception"
    ? `seen: ${s.label || "?"}${s.pose ? ` @ ${s.pose.frame_id} (${(+s.pose.x).toFixed(1)}, ${(+s.pose.y).toFixed(1)})` : ""}`
    : (s.speaker || "—");
  const facts = el("div", { class: "facts" });
  for (const f of s.facts) facts.append(factLine(f));
  return el("div", { class: `source ${s.modality}`, "data-source-id": s.source_id },
    el("div", {}, el("div", { text: fmt(s.source_time) }), el("div", { class: "id", text: s.source_id })),
    el("div", { text: who }), el("div", { text: s.text }), facts);
}
function factLine(f) {
  const key = f.relation ? `${f.entity} · ${f.relation} = ${f.polarity ? "" : "not "}${f.value}` : "";
  return el("div", { class: `fact status-${f.status}`, title: `${f.fact_id} ${f.status} validity ${f.validity}` },
    el("span", { class: "badge", text: f.type }), " ",
    key ? el("span", { class: "key", text: key }) : el("span", { text: f.description }));
}
async function showOnTimeline(sourceId) {
  $("#search").value = "";
  await showView("timeline");
  const row = document.querySelector(`#timeline .source[data-source-id="${CSS.escape(sourceId)}"]`);
  if (row) { row.scrollIntoView({ block: "center" }); row.classList.add("picked"); setTimeout(() => row.classList.remove("picked"), 2500); }
}
function markCited() {
  for (const row of document.querySelectorAll("#timeline .source")) {
    row.classList.toggle("cited", S.cited.has(row.dataset.sourceId));
  }
}

// -- state ---------------------------------------------------------------------------
async function loadState() {
  const data = await get(`${base()}/state`, {
    ...scopeQuery(), ...asOfQuery(), entity: $("#state-entity").value.trim(),
    changed_only: $("#state-changed").checked });
  S.changePoints = data.change_points;
  const body = $("#state-table tbody");
  body.innerHTML = "";
  $("#state-count").textContent = `${data.keys.length} keys, ${data.conflicts.length} open conflicts`;
  const conflicts = $("#conflicts");
  conflicts.innerHTML = "";
  for (const c of data.conflicts) {
    conflicts.append(el("div", { class: "conflict",
      text: `conflict: ${c.entity} · ${c.relation} — ${c.reason} [${c.source_ids.join(", ")}]` }));
  }
  if (!data.keys.length) {
    body.append(el("tr", {}, el("td", { colspan: "5", class: "muted",
      text: $("#state-changed").checked ? "no key has an updates or contradicts edge (untick 'changed keys only' to see every key)"
                                        : "no keyed fact in this scope" })));
  }
  for (const k of data.keys) {
    const revs = el("div");
    for (const r of k.revisions) {
      const changed = r.changed_by.map(c => `changed by ${c.sources.map(s => s.source_id).join(", ")} (${c.justification})`).join("; ");
      revs.append(el("div", { class: `rev status-${r.view_status.replace(" ", "-")}` },
        `${r.polarity ? "" : "not "}${r.value || "—"}  ${fmt(r.valid_from)} → ${r.valid_to == null ? "…" : fmt(r.valid_to)}  [${r.view_status}] `,
        el("span", { class: "src", text: `${r.sources.map(s => s.source_id).join(", ")}${changed ? " · " + changed : ""}` })));
    }
    body.append(el("tr", { class: "key", "data-key": `${k.entity}|${k.relation}` },
      el("td", { text: k.entity }), el("td", { text: k.relation }),
      el("td", { class: "value", text: k.value || "—" }),
      el("td", { class: `status-${k.status}`, text: k.status, title: k.reason }), el("td", {}, revs)));
  }
}

// -- graph ---------------------------------------------------------------------------
const graphView = new GraphView($("#graph-canvas"), pickVertex);
async function loadGraph() {
  const t0 = performance.now();
  const data = await get(`${base()}/graph`, { ...scopeQuery(), ...asOfQuery() });
  const t1 = performance.now();
  graphView.cited = S.cited;
  const timing = graphView.load(data);
  timing.fetch_ms = t1 - t0;
  S.graphTiming = timing;
  const c = data.counts;
  $("#graph-count").textContent = `${c.total_vertices} vertices, ${c.total_edges} edges — `
    + Object.entries(c.edges).map(([k, v]) => `${k} ${v}`).join(", ");
  $("#graph-timing").textContent = `fetched in ${timing.fetch_ms.toFixed(0)} ms, drawn in ${timing.total_ms.toFixed(0)} ms`;
}
async function pickVertex(v) {
  const info = $("#graph-info");
  const data = await get(`${base()}/vertex`, { id: v.id });
  info.className = "loaded";
  info.innerHTML = "";
  info.append(el("h3", { text: `${v.kind}: ${v.label}` }), el("div", { class: "id", text: v.id }));
  if (v.kind === "fact") {
    const d = data.detail;
    info.append(el("p", { text: `${d.type} · ${d.status} · validity ${d.validity} · valid ${fmt(d.valid_from)} → ${d.valid_to == null ? "…" : fmt(d.valid_to)}` }),
      el("p", { text: d.description }));
  }
  info.append(el("h4", { text: `sources (${data.sources.length})` }));
  const list = el("ul", { id: "vertex-sources" });
  for (const s of data.sources.slice(0, 200)) {
    const item = el("li", { "data-source-id": s.source_id, title: "show on the timeline",
                            text: `[${s.source_id}] ${fmt(s.source_time)} ${s.speaker}: ${s.text}` });
    item.style.cursor = "pointer";
    item.addEventListener("click", () => showOnTimeline(s.source_id));
    list.append(item);
  }
  info.append(list, el("h4", { text: `edges (${data.edges.length})` }));
  const edges = el("ul");
  for (const e of data.edges.filter(e => !["in_session", "mentions"].includes(e.type)).slice(0, 100)) {
    edges.append(el("li", { text: `${e.type} ${e.src === v.id ? "→ " + e.dst : "← " + e.src} (${e.confidence.toFixed(2)}) ${e.justification}${e.invalidated_at ? " [invalidated]" : ""}` }));
  }
  info.append(edges);
}

// -- ask ------------------------------------------------------------------------------
async function ask(question) {
  const out = $("#ask-result");
  out.innerHTML = "";
  out.append(el("p", { class: "muted", text: "asking…" }));
  const r = await get(`${base()}/ask`, { q: question, ...scopeQuery(), ...asOfQuery() });
  S.cited = new Set(r.source_ids);
  graphView.cited = S.cited;
  out.innerHTML = "";
  out.append(el("div", { class: "answer" },
    el("span", { id: "ask-status", class: `badge ${r.status}`, text: r.status }), " ",
    el("span", { id: "ask-answer", text: r.answer || "(no answer)" })));
  if (r.message) out.append(el("p", { class: "muted", text: r.message }));
  out.append(el("p", { text: `cited: ${r.source_ids.join(", ") || "—"} · reader ${r.reader}` }));
  out.append(el("h4", { text: "plan" }), el("pre", { text: JSON.stringify(r.plan, null, 1) }));
  const routes = el("table", { class: "routes" });
  for (const [name, ids] of Object.entries(r.routes)) {
    routes.append(el("tr", {}, el("td", { text: name }), el("td", { text: `${ids.length}: ${ids.slice(0, 8).join(", ")}${ids.length > 8 ? " …" : ""}` })));
  }
  out.append(el("h4", { text: "per-route hits" }), routes);
  const ev = el("ol", { class: "evidence" });
  for (const e of r.evidence) {
    ev.append(el("li", { class: S.cited.has(e.source_id) ? "cited" : "", "data-source-id": e.source_id,
      text: `[${e.source_id}] score ${e.score.toFixed(3)} · ${fmt(e.source_time)} ${e.speaker}: ${e.text}` }));
  }
  out.append(el("h4", { text: "evidence (packing order)" }), ev);
  out.append(el("h4", { text: "paths" }), el("pre", { id: "ask-paths", text: r.paths.join("\n") || "—" }));
  if (r.left_out && r.left_out.length) out.append(el("p", { class: "muted", text: `left out: ${r.left_out.join(", ")}` }));
  out.append(el("h4", { text: "timings (ms)" }), el("pre", { text: Object.entries(r.timings_ms).map(([k, v]) => `${k} ${v}`).join("\n") }));
  if (!S.timelineLoaded) { await loadTimelineQuietly(); }
  markCited();
  if (graphView.data) graphView.draw();
}
async function loadTimelineQuietly() { $("#search").value = ""; await loadTimeline(); }
async function loadPastQuestions() {
  const data = await get(`${base()}/questions`);
  const list = $("#past-questions");
  list.innerHTML = "";
  if (!data.questions.length) list.append(el("li", { class: "muted", text: "none in the audit table" }));
  for (const q of data.questions) {
    const item = el("li", { text: `${fmt(q.asked_at)} [${q.status}] ${q.question} → ${q.answer || "—"} (${q.cited_ids.join(", ")})` });
    item.addEventListener("click", () => { $("#ask-input").value = q.question; ask(q.question); });
    item.style.cursor = "pointer";
    list.append(item);
  }
}

// -- places ---------------------------------------------------------------------------
async function loadPlaces() {
  const data = await get(`${base()}/places`, { ...scopeQuery(), label: $("#places-label").value,
                                               until: asOf("valid") });
  const labelSel = $("#places-label"), keep = labelSel.value;
  fillSelect(labelSel, data.labels);
  labelSel.value = keep;
  const frameSel = $("#places-frame"), keepFrame = frameSel.value;
  frameSel.innerHTML = "";
  for (const f of data.frames) frameSel.append(el("option", { value: f, text: f || "(none)" }));
  if (data.frames.includes(keepFrame)) frameSel.value = keepFrame;
  const pts = data.points.filter(p => p.frame_id === frameSel.value);
  $("#places-count").textContent = `${pts.length} poses of ${data.perception_events} perception events`;
  drawPlaces(pts);
  const list = $("#places-list");
  list.innerHTML = "";
  for (const p of pts) list.append(el("li", { "data-source-id": p.source_id,
    text: `${fmt(p.source_time)} ${p.label} (${p.x.toFixed(2)}, ${p.y.toFixed(2)}) — ${p.text}` }));
}
function drawPlaces(pts) {
  const c = $("#places-canvas"), ctx = c.getContext("2d");
  ctx.clearRect(0, 0, c.width, c.height);
  ctx.strokeStyle = "#cfd8dc";
  ctx.strokeRect(40, 10, c.width - 50, c.height - 50);
  if (!pts.length) return;
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const p of pts) { x0 = Math.min(x0, p.x); x1 = Math.max(x1, p.x); y0 = Math.min(y0, p.y); y1 = Math.max(y1, p.y); }
  const pad = 0.5; x0 -= pad; x1 += pad; y0 -= pad; y1 += pad;
  const sx = (c.width - 50) / (x1 - x0), sy = (c.height - 50) / (y1 - y0), s = Math.min(sx, sy);
  const X = x => 40 + (x - x0) * s, Y = y => c.height - 40 - (y - y0) * s;
  ctx.fillStyle = "#546e7a";
  ctx.font = "11px system-ui";
  ctx.fillText(`x ${x0.toFixed(1)} … ${x1.toFixed(1)} m`, 40, c.height - 22);
  ctx.fillText(`y ${y0.toFixed(1)} … ${y1.toFixed(1)} m`, 2, 22);
  const labels = [...new Set(pts.map(p => p.label))];
  const color = l => `hsl(${(labels.indexOf(l) * 137) % 360}, 65%, 45%)`;
  const byLabel = new Map();
  for (const p of pts.sort((a, b) => a.source_time - b.source_time)) {
    if (!byLabel.has(p.label)) byLabel.set(p.label, []);
    byLabel.get(p.label).push(p);
  }
  for (const [label, list] of byLabel) {       // a label's sightings joined in time order
    ctx.strokeStyle = color(label);
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    list.forEach((p, i) => (i ? ctx.lineTo(X(p.x), Y(p.y)) : ctx.moveTo(X(p.x), Y(p.y))));
    ctx.stroke();
    ctx.setLineDash([]);
    for (const p of list) {
      ctx.fillStyle = color(label);
      ctx.beginPath(); ctx.arc(X(p.x), Y(p.y), 6, 0, 2 * Math.PI); ctx.fill();
      ctx.fillStyle = "#263238";
      ctx.fillText(`${label} ${fmt(p.source_time).slice(5)}`, X(p.x) + 8, Y(p.y) - 6);
    }
  }
}

// -- wiring ---------------------------------------------------------------------------
for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => showView(b.dataset.view));
$("#subject").addEventListener("change", ev => selectSubject(ev.target.value));
$("#robot").addEventListener("change", ev => { S.robot = ev.target.value; S.timelineLoaded = false; refreshView(); });
$("#session").addEventListener("change", ev => { S.session = ev.target.value; S.timelineLoaded = false; refreshView(); });
for (const which of ["valid", "known"]) {
  $(`#asof-${which}`).addEventListener("input", () => labelAsOf(which));
  $(`#asof-${which}`).addEventListener("change", onAsOfChange);
}
$("#asof-prev").addEventListener("click", () => stepChange(-1));
$("#asof-next").addEventListener("click", () => stepChange(1));
$("#asof-now").addEventListener("click", () => { $("#asof-valid").value = $("#asof-valid").max; $("#asof-known").value = $("#asof-known").max; onAsOfChange(); });
let searchTimer = null;
$("#search").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(() => loadTimeline(), 250); });
$("#state-entity").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(loadState, 250); });
$("#state-changed").addEventListener("change", loadState);
$("#graph-members").addEventListener("change", ev => { graphView.showMembers = ev.target.checked; graphView.draw(); });
$("#ask-form").addEventListener("submit", ev => { ev.preventDefault(); const q = $("#ask-input").value.trim(); if (q) ask(q); });
$("#places-label").addEventListener("change", loadPlaces);
$("#places-frame").addEventListener("change", loadPlaces);

window.explorer = { state: S, graph: graphView, ask, showView };
loadSubjects().catch(err => showError(String(err)));
