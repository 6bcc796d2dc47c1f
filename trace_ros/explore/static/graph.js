// The graph view: a canvas we draw ourselves, laid out in layers by time.
// Columns are sessions in time order; above them their topics, inside each column the
// session's facts in source order, below the entities they mention. Edges are batched
// into one path per type, so a few thousand vertices and edges draw in milliseconds.
"use strict";

const GRAPH_COLORS = {
  active: "#43a047", weak: "#fdd835", superseded: "#bdbdbd", unresolved: "#fb8c00",
  session: "#1e88e5", topic: "#8e24aa", entity: "#6d4c41",
  updates: "#e53935", contradicts: "#fb8c00", causes: "#00897b", enables: "#00897b",
  prevents: "#00897b", before: "#1e88e5", in_session: "#cfd8dc", in_topic: "#d1c4e9",
  mentions: "#d7ccc8",
};
const MEMBER_TYPES = new Set(["in_session", "in_topic", "mentions"]);
const ROWS = 40, DX = 14, DY = 12, TOP = 130;

class GraphView {
  constructor(canvas, onPick) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.onPick = onPick;
    this.data = null;
    this.pos = [];
    this.view = { scale: 1, tx: 0, ty: 0 };
    this.selected = -1;
    this.cited = new Set();
    this.showMembers = false;
    this.timing = null;
    this._bindMouse();
  }

  load(data) {
    const t0 = performance.now();
    // use the room the window gives (the info panel keeps ~34em on the right)
    this.canvas.width = Math.max(700, Math.min(2400, window.innerWidth - 560));
    this.data = data;
    this.selected = -1;
    this._layout();
    const t1 = performance.now();
    this._fit();
    this.draw();
    const t2 = performance.now();
    this.timing = { layout_ms: t1 - t0, draw_ms: t2 - t1, total_ms: t2 - t0,
                    vertices: data.vertices.length, edges: data.edges.length };
    return this.timing;
  }

  _layout() {
    const vs = this.data.vertices;
    const pos = new Array(vs.length);
    const column = new Map();   // session vertex id -> {x, n}
    let x = 40;
    const perSession = new Map();
    for (const v of vs) if (v.kind === "fact") perSession.set(v.session, (perSession.get(v.session) || 0) + 1);
    const sessions = vs.map((v, i) => [v, i]).filter(([v]) => v.kind === "session")
      .sort((a, b) => a[0].order - b[0].order);
    for (const [v, i] of sessions) {
      const n = perSession.get(v.id) || 0;
      const width = Math.max(1, Math.ceil(n / ROWS)) * DX;
      column.set(v.id, { x, n: 0 });
      pos[i] = [x + width / 2, 90];
      x += width + 26;
    }
    const orphan = { x, n: 0 };
    let maxRow = 0;
    vs.forEach((v, i) => {
      if (v.kind !== "fact") return;
      const col = column.get(v.session) || orphan;
      const k = col.n++;
      pos[i] = [col.x + Math.floor(k / ROWS) * DX, TOP + (k % ROWS) * DY];
      maxRow = Math.max(maxRow, k % ROWS);
    });
    // topics above the mean x of their sessions; entities below the mean x of their facts
    const sum = new Map();
    const add = (i, px) => { const s = sum.get(i) || [0, 0]; s[0] += px; s[1] += 1; sum.set(i, s); };
    for (const [a, b, type] of this.data.edges) {
      if (type === "in_topic" && pos[a]) add(b, pos[a][0]);
      if (type === "mentions" && pos[a]) add(b, pos[a][0]);
    }
    let e = 0, t = 0;
    const bottom = TOP + (maxRow + 1) * DY + 40;
    vs.forEach((v, i) => {
      if (v.kind === "topic") {
        const s = sum.get(i);
        pos[i] = [s ? s[0] / s[1] : 40 + t * 30, 20 + (t++ % 2) * 14];
      } else if (v.kind === "entity") {
        const s = sum.get(i);
        pos[i] = [s ? s[0] / s[1] : 40 + e * 20, bottom + (e++ % 6) * DY];
      } else if (!pos[i]) {
        pos[i] = [x, TOP];
      }
    });
    this.pos = pos;
    let maxX = 0, maxY = 0;
    for (const p of pos) { maxX = Math.max(maxX, p[0]); maxY = Math.max(maxY, p[1]); }
    this.extent = [maxX + 40, maxY + 40];
  }

  _fit() {
    const [w, h] = this.extent;
    const scale = Math.min(this.canvas.width / w, this.canvas.height / h, 2.5);
    // a small graph sits in the middle rather than in a corner
    this.view = { scale, tx: (this.canvas.width - w * scale) / 2, ty: 0 };
  }

  vertexIndex(id) { return this.data ? this.data.vertices.findIndex(v => v.id === id) : -1; }

  // Screen position (CSS pixels relative to the canvas) of a vertex, for tests and links.
  screenPos(id) {
    const i = this.vertexIndex(id);
    if (i < 0) return null;
    const r = this.canvas.getBoundingClientRect();
    const k = r.width / this.canvas.width;
    const [x, y] = this.pos[i];
    return [(x * this.view.scale + this.view.tx) * k, (y * this.view.scale + this.view.ty) * k];
  }

  isCited(v) { return v.source_ids && v.source_ids.some(s => this.cited.has(s)); }

  draw() {
    const ctx = this.ctx, { scale, tx, ty } = this.view;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (!this.data) return;
    ctx.setTransform(scale, 0, 0, scale, tx, ty);
    const byType = new Map();
    for (const edge of this.data.edges) {
      const type = edge[2];
      if (MEMBER_TYPES.has(type) && !this.showMembers) continue;
      if (!byType.has(type)) byType.set(type, []);
      byType.get(type).push(edge);
    }
    const order = ["in_session", "in_topic", "mentions", "before", "causes", "enables",
                   "prevents", "contradicts", "updates"];
    for (const type of order) {
      const list = byType.get(type);
      if (!list) continue;
      ctx.strokeStyle = GRAPH_COLORS[type] || "#90a4ae";
      ctx.lineWidth = (type === "updates" || type === "contradicts" ? 1.6 : 0.7) / Math.sqrt(scale);
      ctx.beginPath();
      for (const [a, b] of list) {
        const p = this.pos[a], q = this.pos[b];
        ctx.moveTo(p[0], p[1]);
        ctx.lineTo(q[0], q[1]);
      }
      ctx.stroke();
    }
    const groups = new Map();
    this.data.vertices.forEach((v, i) => {
      let color;
      if (v.kind === "fact") {
        color = v.status === "superseded" ? "superseded" : v.status === "unresolved"
          ? "unresolved" : v.validity < 1 ? "weak" : "active";
      } else color = v.kind;
      if (!groups.has(color)) groups.set(color, []);
      groups.get(color).push(i);
    });
    for (const [color, list] of groups) {
      ctx.fillStyle = GRAPH_COLORS[color] || "#607d8b";
      ctx.beginPath();
      for (const i of list) {
        const v = this.data.vertices[i], [x, y] = this.pos[i];
        const r = v.kind === "fact" ? 4 : v.kind === "entity" ? 4 : 7;
        ctx.moveTo(x + r, y);
        ctx.arc(x, y, r, 0, 2 * Math.PI);
      }
      ctx.fill();
    }
    // cited facts and the selected vertex get rings
    ctx.lineWidth = 2 / scale;
    ctx.strokeStyle = "#e65100";
    ctx.beginPath();
    if (this.cited.size) this.data.vertices.forEach((v, i) => {
      if (v.kind === "fact" && this.isCited(v)) {
        const [x, y] = this.pos[i];
        ctx.moveTo(x + 7, y);
        ctx.arc(x, y, 7, 0, 2 * Math.PI);
      }
    });
    ctx.stroke();
    if (this.selected >= 0) {
      const [x, y] = this.pos[this.selected];
      ctx.strokeStyle = "#000";
      ctx.beginPath();
      ctx.arc(x, y, 9, 0, 2 * Math.PI);
      ctx.stroke();
    }
    ctx.fillStyle = "#263238";
    ctx.font = `${11 / Math.max(scale, 0.6)}px system-ui`;
    this.data.vertices.forEach((v, i) => {
      const [x, y] = this.pos[i];
      if (v.kind === "session") {          // slanted, so neighbouring columns stay legible
        ctx.save();
        ctx.translate(x + 4, y - 9);
        ctx.rotate(-Math.PI / 5);
        ctx.fillText(v.label, 0, 0);
        ctx.restore();
      } else if (v.kind === "topic" || (scale > 1.6 && v.kind !== "fact")
                 || (scale > 2.4) || i === this.selected) {
        ctx.fillText(v.kind === "fact" ? v.label.slice(0, 40) : v.label, x + 6, y - 6);
      }
    });
  }

  pick(clientX, clientY) {
    if (!this.data) return -1;
    const r = this.canvas.getBoundingClientRect();
    const k = this.canvas.width / r.width;
    const wx = ((clientX - r.left) * k - this.view.tx) / this.view.scale;
    const wy = ((clientY - r.top) * k - this.view.ty) / this.view.scale;
    let best = -1, bestD = (10 / this.view.scale) ** 2 + 25;
    this.pos.forEach(([x, y], i) => {
      const d = (x - wx) ** 2 + (y - wy) ** 2;
      if (d < bestD) { bestD = d; best = i; }
    });
    return best;
  }

  _bindMouse() {
    const c = this.canvas;
    let drag = null, moved = false;
    c.addEventListener("mousedown", ev => { drag = [ev.clientX, ev.clientY]; moved = false; });
    window.addEventListener("mouseup", ev => {
      if (drag && !moved && ev.target === c) {
        const i = this.pick(ev.clientX, ev.clientY);
        this.selected = i;
        this.draw();
        if (i >= 0) this.onPick(this.data.vertices[i]);
      }
      drag = null;
    });
    window.addEventListener("mousemove", ev => {
      if (!drag) return;
      const dx = ev.clientX - drag[0], dy = ev.clientY - drag[1];
      if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
      if (!moved) return;
      const k = c.width / c.getBoundingClientRect().width;
      this.view.tx += dx * k;
      this.view.ty += dy * k;
      drag = [ev.clientX, ev.clientY];
      this.draw();
    });
    c.addEventListener("wheel", ev => {
      ev.preventDefault();
      const r = c.getBoundingClientRect(), k = c.width / r.width;
      const mx = (ev.clientX - r.left) * k, my = (ev.clientY - r.top) * k;
      const f = ev.deltaY < 0 ? 1.2 : 1 / 1.2;
      this.view.tx = mx - (mx - this.view.tx) * f;
      this.view.ty = my - (my - this.view.ty) * f;
      this.view.scale *= f;
      this.draw();
    }, { passive: false });
  }
}
window.GraphView = GraphView;
