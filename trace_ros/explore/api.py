"""The explorer's views as plain data: what each ``/api/…`` route returns.

Every function reads through the ``Ledger`` (its ``GraphStore`` and
``ExploreStore`` mixins) and the resolver in ``trace_ros.state``; none writes. Times are
epoch seconds; ``as_of_valid``/``as_of_known`` ``None`` means "now".
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from ..errors import ValidationError
from ..facts import Fact
from ..ledger import Ledger, Scope, SourceRecord
from ..state import order_key, resolve

GRAPH_EDGE_TYPES = ("updates", "contradicts", "causes", "enables", "prevents", "before",
                    "in_session", "in_topic", "mentions")
_WORD = re.compile(r"\w+", re.UNICODE)
SHORT = 140


class UnknownSubject(LookupError):
    """The subject has no source in this ledger (the API answers 404)."""

    def __init__(self, subject_id: str) -> None:
        super().__init__(subject_id)
        self.subject_id = subject_id


def check_subject(ledger: Ledger, subject_id: str) -> None:
    if not subject_id.strip():
        raise ValidationError("subject", "required, must not be empty")
    if not ledger.has_subject(subject_id):
        raise UnknownSubject(subject_id)


def search_expression(text: str) -> str:
    """An FTS5 expression for a search box: every word must occur (quoted, so
    FTS5 operators typed by the user are plain words)."""
    words = _WORD.findall(text)
    if not words:
        raise ValidationError("q", "no word to search for")
    return " AND ".join('"' + w.replace('"', '""') + '"' for w in words[:32])


def source_dict(r: SourceRecord) -> dict[str, Any]:
    return {"source_id": r.source_id, "seq": r.seq, "robot_id": r.robot_id,
            "session_id": r.session_id, "modality": r.modality, "speaker": r.speaker,
            "text": r.text, "label": r.label, "confidence": r.confidence, "pose": r.pose,
            "source_time": r.source_time, "known_time": r.known_time,
            "time_from_receipt": r.time_from_receipt}


def fact_dict(f: Fact, short: bool = False) -> dict[str, Any]:
    d = f.to_dict()
    d.pop("generation", None)
    if short and len(d["description"]) > SHORT:
        d["description"] = d["description"][:SHORT - 1] + "…"
    return d


def _visible(f: Fact, as_of_valid: float | None, as_of_known: float | None) -> bool:
    return ((as_of_known is None or f.known_from <= as_of_known)
            and (as_of_valid is None or f.valid_from <= as_of_valid))


def _in_scope(f: Fact, scope: Scope) -> bool:
    return ((not scope.robot_id or f.robot_id == scope.robot_id)
            and (not scope.session_id or f.session_id == scope.session_id))


# -- overview and timeline -------------------------------------------------------------------


def overview(ledger: Ledger, subject_id: str) -> dict[str, Any]:
    check_subject(ledger, subject_id)
    with ledger.read():
        first, last, kfirst, klast = ledger.time_span_of(subject_id)
        sessions = ledger.sessions_of(subject_id)
        return {
            "subject_id": subject_id,
            "robots": ledger.robots_of(subject_id),
            "sessions": [{"robot_id": s.robot_id, "session_id": s.session_id,
                          "start_time": s.start_time, "end_time": s.end_time,
                          "n_sources": s.n_sources, "topic_id": s.topic_id} for s in sessions],
            "first_time": first, "last_time": last,
            "first_known": kfirst, "last_known": klast,
            "sources": ledger.count_sources(subject_id),
            "counts": ledger.graph_counts(subject_id),
            "generation": ledger.generation(),
        }


def timeline(ledger: Ledger, scope: Scope, q: str = "",
             limit: int = 2000, offset: int = 0) -> dict[str, Any]:
    """Sources in time order (or the FTS5 matches of ``q``, best first), each with
    the facts derived from it."""
    check_subject(ledger, scope.subject_id)
    with ledger.read():
        if q.strip():
            hits = ledger.search_sources(scope, search_expression(q), 5000)
            total = len(hits)
            page = hits[offset:offset + limit]
            by_seq = ledger.get_sources_by_seq([h[0] for h in page])
            records = [by_seq[h[0]] for h in page if h[0] in by_seq]
        else:
            everything = ledger.sources_in_scope(scope)
            total = len(everything)
            records = everything[offset:offset + limit]
        facts = ledger.facts_of_sources_in(scope.subject_id, [r.source_id for r in records])
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in sorted(facts, key=lambda f: (f.source_seq, f.fact_id)):
        for sid in f.source_ids:
            by_source[sid].append(fact_dict(f))
    items = []
    for r in records:
        d = source_dict(r)
        d["facts"] = by_source.get(r.source_id, [])
        items.append(d)
    return {"subject_id": scope.subject_id, "total": total, "offset": offset,
            "count": len(items), "query": q, "sources": items}


# -- state -------------------------------------------------------------------------------------


def state(ledger: Ledger, scope: Scope, as_of_valid: float | None = None,
          as_of_known: float | None = None, entity: str = "",
          changed_only: bool = False) -> dict[str, Any]:
    """Every key of the subject with the resolver's verdict in the time view, its
    revisions (value, valid from/to, status in the view, the sources that said it
    and the source that changed it) and the open conflicts."""
    check_subject(ledger, scope.subject_id)
    needle = entity.strip().lower()
    with ledger.read():
        facts = [f for f in ledger.keyed_facts(scope.subject_id) if _in_scope(f, scope)]
        groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
        for f in facts:
            if not needle or needle in f.entity:
                groups[(f.entity, f.relation)].append(f)
        edges = ledger.edges_among([f.fact_id for fs in groups.values() for f in fs],
                                   ("updates", "contradicts"))
        verdicts = {key: resolve(ledger, scope, key[0], key[1], as_of_valid=as_of_valid,
                                 as_of_known=as_of_known) for key in groups}
        all_facts = {f.fact_id: f for f in facts}
        source_ids = {s for fs in groups.values() for f in fs for s in f.source_ids}
        records = {r.source_id: r for r in ledger.get_sources(sorted(source_ids))}
    changer: dict[str, list[Any]] = defaultdict(list)
    contra: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if e.type == "updates":
            changer[e.dst].append(e)
        else:
            contra[e.src].add(e.dst)
            contra[e.dst].add(e.src)
    change_points: set[float] = set()
    keys, conflicts = [], []
    for (ent, rel), revs in sorted(groups.items()):
        revs.sort(key=order_key)
        res = verdicts[(ent, rel)]
        superseded_now = {f.fact_id for f in res.superseded}
        supporting = {f.fact_id for f in res.facts}
        rows = []
        for f in revs:
            visible = _visible(f, as_of_valid, as_of_known)
            change_points.update((f.valid_from, f.known_from))
            by = [e for e in changer.get(f.fact_id, [])
                  if e.src in all_facts and _visible(all_facts[e.src], as_of_valid, as_of_known)]
            rows.append({
                "fact_id": f.fact_id, "value": f.value, "polarity": f.polarity,
                "description": f.description, "valid_from": f.valid_from,
                "valid_to": f.valid_to, "known_from": f.known_from, "known_to": f.known_to,
                "stored_status": f.status, "validity": f.validity,
                "view_status": ("not yet" if not visible else "superseded"
                                if f.fact_id in superseded_now else "current"
                                if f.fact_id in supporting else "live"),
                "sources": [_brief(records.get(s), s) for s in f.source_ids],
                "changed_by": [{"fact_id": e.src, "justification": e.justification,
                                "confidence": e.confidence,
                                "sources": [_brief(records.get(s), s)
                                            for s in all_facts[e.src].source_ids]}
                               for e in by],
                "contradicts": sorted(contra.get(f.fact_id, set())),
            })
        n_changes = sum(1 for f in revs if changer.get(f.fact_id) or contra.get(f.fact_id))
        if changed_only and not n_changes:
            continue
        item = {"entity": ent, "relation": rel, "status": res.status, "value": res.value,
                "reason": res.reason, "source_ids": res.source_ids,
                "changes": n_changes, "revisions": rows}
        keys.append(item)
        if res.status == "conflict":
            conflicts.append({"entity": ent, "relation": rel, "reason": res.reason,
                              "source_ids": res.source_ids})
    return {"subject_id": scope.subject_id, "as_of_valid": as_of_valid,
            "as_of_known": as_of_known, "keys": keys, "conflicts": conflicts,
            "change_points": sorted(change_points)}


def _brief(r: SourceRecord | None, source_id: str) -> dict[str, Any]:
    if r is None:
        return {"source_id": source_id, "missing": True}
    return {"source_id": r.source_id, "speaker": r.speaker, "text": r.text,
            "source_time": r.source_time, "session_id": r.session_id}


# -- graph -------------------------------------------------------------------------------------


def graph(ledger: Ledger, scope: Scope, as_of_valid: float | None = None,
          as_of_known: float | None = None) -> dict[str, Any]:
    """Sessions, topics, entities, facts and typed edges of a subject, with each
    fact's status in the time view (``superseded`` only if its superseder is
    visible too), as compact arrays for the canvas."""
    check_subject(ledger, scope.subject_id)
    with ledger.read():
        facts = [f for f in ledger.facts_since(scope.subject_id, -1)
                 if _in_scope(f, scope) and _visible(f, as_of_valid, as_of_known)]
        edges = ledger.edges_since(scope.subject_id, -1)
        sessions = ledger.sessions_of(scope.subject_id)
        topics = ledger.topics_of(scope.subject_id)
    fact_ids = {f.fact_id for f in facts}
    sessions = [s for s in sessions if (not scope.robot_id or s.robot_id == scope.robot_id)
                and (not scope.session_id or s.session_id == scope.session_id)
                and (as_of_valid is None or s.start_time <= as_of_valid)]
    vertices: list[dict[str, Any]] = []
    index: dict[str, int] = {}

    def add(vid: str, **attrs: Any) -> None:
        index[vid] = len(vertices)
        vertices.append({"id": vid, **attrs})

    for n, t in enumerate(topics):
        add(t.vertex, kind="topic", label=t.label or f"topic {t.topic_id}", order=n,
            n_sessions=t.n_sessions)
    for n, s in enumerate(sessions):
        add(s.vertex, kind="session", label=s.session_id, order=n, start_time=s.start_time,
            robot_id=s.robot_id, n_sources=s.n_sources, topic_id=s.topic_id)
    superseded = {e.dst for e in edges if e.type == "updates"
                  and e.src in fact_ids and e.dst in fact_ids}
    contested = {x for e in edges if e.type == "contradicts"
                 and e.src in fact_ids and e.dst in fact_ids for x in (e.src, e.dst)}
    for f in sorted(facts, key=lambda f: (f.source_seq, f.fact_id)):
        view = ("superseded" if f.fact_id in superseded else
                "unresolved" if f.fact_id in contested else "active")
        add(f.fact_id, kind="fact", label=(f"{f.entity} {f.relation} = {f.value}" if f.relation
                                           else f.description[:60]),
            type=f.type, status=view, validity=(0.0 if view == "superseded" else f.validity),
            session=f"session:{f.subject_id}/{f.robot_id}/{f.session_id}",
            valid_from=f.valid_from, source_ids=list(f.source_ids), seq=f.source_seq)
    out_edges = []
    for e in edges:
        if e.type not in GRAPH_EDGE_TYPES:
            continue
        for vid, other in ((e.src, e.dst), (e.dst, e.src)):
            # an entity appears with the first visible vertex that mentions it
            if vid not in index and vid.startswith("entity:") and other in index:
                add(vid, kind="entity", label=vid.split("/", 1)[-1])
        if e.src in index and e.dst in index:
            out_edges.append([index[e.src], index[e.dst], e.type,
                              round(e.confidence, 3), e.invalidated_at is not None])
    by_kind: dict[str, int] = defaultdict(int)
    for v in vertices:
        by_kind[v["kind"]] += 1
    by_type: dict[str, int] = defaultdict(int)
    for e in out_edges:
        by_type[e[2]] += 1
    return {"subject_id": scope.subject_id, "as_of_valid": as_of_valid,
            "as_of_known": as_of_known, "vertices": vertices, "edges": out_edges,
            "counts": {"vertices": dict(by_kind), "edges": dict(by_type),
                       "total_vertices": len(vertices), "total_edges": len(out_edges)}}


def vertex(ledger: Ledger, subject_id: str, vid: str) -> dict[str, Any]:
    """One vertex with its sources and the typed edges that touch it."""
    check_subject(ledger, subject_id)
    prefix = vid.split(":", 1)[0]
    kind = prefix if prefix in ("session", "topic", "entity") else "fact"
    with ledger.read():
        if kind == "session":
            robot_session = vid.split("/", 1)[-1] if vid.startswith(f"session:{subject_id}/") else ""
            if not robot_session:
                raise ValidationError("id", f"not a session of {subject_id}")
            robot, _, session = robot_session.partition("/")
            records = ledger.sources_in_scope(Scope(subject_id, robot, session))
            if not records:
                raise ValidationError("id", f"no sources in {vid}")
            detail: dict[str, Any] = {"robot_id": robot, "session_id": session}
        elif kind == "fact":
            found = [f for f in ledger.facts_with_ids([vid]) if f.subject_id == subject_id]
            if not found:
                raise ValidationError("id", f"no fact {vid!r} of {subject_id}")
            detail = fact_dict(found[0])
            records = ledger.get_sources(list(found[0].source_ids))
        elif kind in ("topic", "entity"):
            if not vid.startswith(f"{kind}:{subject_id}/"):
                raise ValidationError("id", f"not a {kind} of {subject_id}")
            detail, records = {}, []
        else:  # pragma: no cover - kind is one of the four above
            raise ValidationError("id", "must be a fact ID or a session:, topic: or entity: vertex")
        edges = [e for e in ledger.edges_since(subject_id, -1) if vid in (e.src, e.dst)]
        if kind == "topic":
            members = [e.src for e in edges if e.type == "in_topic"]
            detail["sessions"] = members
    return {"id": vid, "kind": kind, "detail": detail,
            "sources": [source_dict(r) for r in records[:500]],
            "edges": [{"type": e.type, "src": e.src, "dst": e.dst, "confidence": e.confidence,
                       "justification": e.justification, "invalidated_at": e.invalidated_at}
                      for e in edges[:500]]}


# -- places ------------------------------------------------------------------------------------


def places(ledger: Ledger, scope: Scope, label: str = "",
           since: float | None = None, until: float | None = None) -> dict[str, Any]:
    """Perception events with a pose, per frame, filtered by label and time."""
    check_subject(ledger, scope.subject_id)
    with ledger.read():
        records = [r for r in ledger.sources_in_scope(scope, as_of_valid=until)
                   if r.modality == "perception"]
    labels = sorted({r.label for r in records if r.label})
    wanted = label.strip().lower()
    points = []
    for r in records:
        if wanted and r.label.lower() != wanted:
            continue
        if since is not None and r.source_time < since:
            continue
        pose = r.pose or {}
        x, y = pose.get("x"), pose.get("y")
        if not isinstance(x, int | float) or not isinstance(y, int | float):
            continue
        points.append({"source_id": r.source_id, "label": r.label, "text": r.text,
                       "frame_id": str(pose.get("frame_id", "")), "x": float(x), "y": float(y),
                       "z": pose.get("z"), "source_time": r.source_time, "speaker": r.speaker,
                       "confidence": r.confidence})
    return {"subject_id": scope.subject_id, "labels": labels,
            "frames": sorted({p["frame_id"] for p in points}),
            "perception_events": len(records), "points": points}


def positive_int(name: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise ValidationError(name, f"must be between {low} and {high}")
    return value


def ids_in(items: Iterable[dict[str, Any]], key: str) -> list[str]:
    return [str(i[key]) for i in items]
