"""The hierarchy of the evidence graph: sessions, topics and their edges.

- A *session vertex* per scope+session, its embedding the mean of its source
  vectors (stored as a vector with ``owner_kind='session'``); sessions are
  chained by ``before`` edges in chronological order.
- *Topic vertices* cluster sessions: a session is assigned to the nearest topic
  centroid when the cosine similarity reaches ``topic_threshold``, otherwise it
  opens a new topic (incremental nearest-centroid). Every ``topic_rederive_every``
  closed sessions the topics are re-derived: each closed session moves to its
  nearest centroid, centroids are recomputed from their members, empty topics go
  and topics are renumbered by their first session.
- Membership: ``in_topic`` edges session → topic (fact → session ``in_session``
  edges are written with the facts).

Determinism: projecting the same sources in the same order must give the same
topics whatever the batch boundaries (``rebuild`` must reproduce the graph). So
only *closed* sessions contribute to centroids, and a session is closed at a fixed
point of the source order. Each robot of a subject has its own timeline (in a
fleet, several robots' sessions of one subject overlap in time): a session closes
when the first source of a chronologically later session *of the same robot* is
projected, and its embedding is then taken from its sources up to that source's
sequence number. A robot's chronologically last session is *open*: it gets a
provisional topic at the end of every batch, which does not feed any centroid.
The closed sessions are recorded per robot (meta ``topics_closed:<subject>``, a
JSON object robot → how many of its sessions, in chronological order, are closed).
A late source for a closed session (a robot went back to an old session) changes
neither that session's embedding nor the topics: a closed session is final, so
nothing depends on where a batch ended. ``forget`` re-derives the hierarchy
(``rederive_hierarchy``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from ..config import ConsolidationConfig
from ..graphstore import SessionRow, session_vertex, topic_vertex
from ..ledger import Ledger, SourceRecord
from ..storage import Tx, graph_of

SessionKey = tuple[str, str, str]  # subject, robot, session


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


@dataclass
class TopicState:
    """Closed topics of one subject: id → (mean of member session vectors, members)."""

    centroids: dict[int, tuple[np.ndarray, int]] = field(default_factory=dict)

    def nearest(self, vec: np.ndarray) -> tuple[int | None, float]:
        best, best_sim = None, -2.0
        u = _unit(vec)
        for tid, (c, _) in sorted(self.centroids.items()):
            sim = float(np.dot(u, _unit(c)))
            if sim > best_sim:
                best, best_sim = tid, sim
        return best, best_sim

    def similarities(self, vec: np.ndarray) -> dict[int, float]:
        u = _unit(vec)
        return {tid: float(np.dot(u, _unit(c))) for tid, (c, _) in self.centroids.items()}

    def assign(self, vec: np.ndarray, theta: float) -> int:
        """One incremental step: join the nearest topic or open a new one."""
        tid, sim = self.nearest(vec)
        if tid is not None and sim >= theta:
            c, n = self.centroids[tid]
            self.centroids[tid] = ((c * n + vec) / (n + 1), n + 1)
            return tid
        new = max(self.centroids, default=-1) + 1
        self.centroids[new] = (np.array(vec, dtype=np.float64), 1)
        return new


def refine(state: TopicState, vectors: list[np.ndarray | None],
           assignment: list[int | None], theta: float) -> list[int | None]:
    """Re-derive topics: move each session to its nearest centroid (when close
    enough, else it keeps its topic), recompute centroids from members, drop empty
    topics, renumber by first member. Updates ``state``; returns the assignment."""
    moved: list[int | None] = []
    for vec, tid in zip(vectors, assignment, strict=True):
        if vec is None:
            moved.append(None)
            continue
        best, sim = state.nearest(vec)
        moved.append(best if best is not None and sim >= theta else tid)
    renumber: dict[int, int] = {}
    for tid in moved:
        if tid is not None and tid not in renumber:
            renumber[tid] = len(renumber)
    out = [None if t is None else renumber[t] for t in moved]
    sums: dict[int, tuple[np.ndarray, int]] = {}
    for vec, tid in zip(vectors, out, strict=True):
        if vec is None or tid is None:
            continue
        s, n = sums.get(tid, (np.zeros_like(vec), 0))
        sums[tid] = (s + vec, n + 1)
    state.centroids = {tid: (s / n, n) for tid, (s, n) in sums.items()}
    return out


def derive(vectors: list[np.ndarray | None], theta: float, every: int
           ) -> tuple[TopicState, list[int | None]]:
    """Topics of closed sessions from scratch (the same steps as incremental closing)."""
    state = TopicState()
    assignment: list[int | None] = []
    for i, vec in enumerate(vectors):
        assignment.append(None if vec is None else state.assign(vec, theta))
        if every and (i + 1) % every == 0:
            assignment = refine(state, vectors[:i + 1], assignment, theta)
    return state, assignment


class Hierarchy:
    """Hierarchy upkeep for one consolidation batch (inside its transaction)."""

    def __init__(self, conn: Tx, config: ConsolidationConfig,
                 generation: int) -> None:
        self.conn = conn
        self.graph = graph_of(conn)
        self.theta = config.topic_threshold
        self.neighbour = config.topic_neighbour
        self.every = config.topic_rederive_every
        self.generation = generation
        self._current: SessionKey | None = None
        self._touched: set[SessionKey] = set()
        self._states: dict[str, TopicState] = {}
        self._partial: dict[SessionKey, tuple[int, np.ndarray | None]] = {}
        self._assigned: dict[SessionKey, int | None] = {}
        self._closed_map: dict[str, dict[str, int]] = {}
        self._closed_cache: dict[str, set[SessionKey]] = {}

    # -- per source ---------------------------------------------------------------

    def enter(self, source: SourceRecord) -> None:
        """Called before a source is linked: closes the sessions of the source's robot
        (in its subject) that lie before this source's session (a later session of
        the same robot has started). Other robots' sessions are not touched."""
        key = (source.subject_id, source.robot_id, source.session_id)
        self._touched.add(key)
        if key == self._current:
            return
        self._current = key
        sessions = self.graph.session_rows(self.conn, source.subject_id)
        mine = [s for s in sessions if s.robot_id == key[1]]
        order = [s.session_id for s in mine]
        if key[2] not in order:
            return
        idx = order.index(key[2])
        # idx below the robot's closed count: a late source, which changes nothing.
        for i in range(self._closed(source.subject_id).get(key[1], 0), idx):
            self._close(sessions, mine[i], source.seq)

    def refresh(self, subject_id: str) -> None:
        """Rebuild a subject's hierarchy from the stored source vectors (after forget
        reset it): close every session but the last of each robot, then ``finish``."""
        sessions = self.graph.session_rows(self.conn, subject_id)
        if not sessions:
            return
        last = {s.robot_id: s.session_id for s in sessions}
        for s in sessions:
            key = (s.subject_id, s.robot_id, s.session_id)
            if last[s.robot_id] != s.session_id and key not in self._closed_keys(subject_id):
                self._close(sessions, s, None)
        self._touched.update((s.subject_id, s.robot_id, s.session_id) for s in sessions)

    def gate(self, subject_id: str, session: SessionKey, seq: int,
             other: SessionKey) -> bool:
        """May a fact of ``session`` (projected at ``seq``) link to one of ``other``?
        Same session: yes. Otherwise ``other`` must be closed and its topic the
        nearest to this session's embedding so far, or a neighbouring one
        (centroid similarity ≥ ``topic_neighbour``)."""
        if other == session:
            return True
        tid = self._topic_of(other)
        if tid is None:
            return False
        state = self._state(subject_id)
        vec = self._partial_vector(session, seq)
        if vec is None or not state.centroids:
            return False
        sims = state.similarities(vec)
        best = max(sims, key=lambda t: (sims[t], -t))
        return tid == best or sims.get(tid, -1.0) >= self.neighbour

    # -- batch end ------------------------------------------------------------------

    def finish(self) -> None:
        """Store the touched open sessions' embeddings (a closed session keeps the one
        it was closed with), give open sessions a provisional topic, refresh the
        session chain and membership edges."""
        subjects = sorted({k[0] for k in self._touched})
        for key in sorted(self._touched):
            if key not in self._closed_keys(key[0]):
                self._store_vector(key)
        for subject in subjects:
            self._provisional(subject)
            self._sync_edges(subject)

    # -- internals ------------------------------------------------------------------------

    def _closed(self, subject_id: str) -> dict[str, int]:
        """Robot → how many of its sessions (chronological) are closed."""
        counts = self._closed_map.get(subject_id)
        if counts is not None:
            return counts
        value = self.graph.get_meta(self.conn, f"topics_closed:{subject_id}")
        if not value:
            counts = {}
        elif value.lstrip().startswith("{"):
            counts = {str(k): int(v) for k, v in json.loads(value).items()}
        else:  # before per-robot timelines: a count of the subject's chronological prefix
            counts = {}
            for s in self.graph.session_rows(self.conn, subject_id)[:int(value)]:
                counts[s.robot_id] = counts.get(s.robot_id, 0) + 1
        self._closed_map[subject_id] = counts
        return counts

    def _state(self, subject_id: str) -> TopicState:
        state = self._states.get(subject_id)
        if state is None:
            state = TopicState({t.topic_id: (t.centroid, t.n_sessions)
                                for t in self.graph.topic_rows(self.conn, subject_id)
                                if t.n_sessions > 0 and t.centroid is not None})
            self._states[subject_id] = state
        return state

    def _topic_of(self, key: SessionKey) -> int | None:
        """The topic of a *closed* session (open ones have only provisional topics,
        which depend on where batches were cut)."""
        if key not in self._closed_keys(key[0]):
            return None
        if key not in self._assigned:
            self._assigned[key] = self.graph.session_field(self.conn, key, "topic_id")
        tid = self._assigned[key]
        state = self._state(key[0])
        return tid if tid in state.centroids else None

    def _closed_keys(self, subject_id: str,
                     sessions: list[SessionRow] | None = None) -> set[SessionKey]:
        keys = self._closed_cache.get(subject_id)
        if keys is None:
            if sessions is None:
                sessions = self.graph.session_rows(self.conn, subject_id)
            counts = self._closed(subject_id)
            seen: dict[str, int] = {}
            keys = set()
            for s in sessions:
                n = seen.get(s.robot_id, 0)
                if n < counts.get(s.robot_id, 0):
                    keys.add((s.subject_id, s.robot_id, s.session_id))
                seen[s.robot_id] = n + 1
            self._closed_cache[subject_id] = keys
        return keys

    def _partial_vector(self, key: SessionKey, seq: int) -> np.ndarray | None:
        cached = self._partial.get(key)
        if cached is not None and cached[0] == seq:
            return cached[1]
        vec, _, _ = self.graph.session_source_mean(self.conn, *key, max_seq=seq)
        self._partial[key] = (seq, vec)
        return vec

    def _store_vector(self, key: SessionKey, max_seq: int | None = None) -> np.ndarray | None:
        vec, n, model = self.graph.session_source_mean(self.conn, *key, max_seq=max_seq)
        if vec is not None and n:
            self.graph.put_session_vector(self.conn, key[0], session_vertex(*key), model, vec)
        return vec

    def _close(self, sessions: list[SessionRow], s: SessionRow, seq: int | None) -> None:
        """Close session ``s`` (the next one of its robot's timeline) at source ``seq``:
        its embedding is the mean of its sources up to ``seq``; it joins a topic; every
        ``topic_rederive_every`` closed sessions of the subject the topics are refined
        (closed sessions in chronological order)."""
        subject = s.subject_id
        key = (subject, s.robot_id, s.session_id)
        vec = self._store_vector(key, seq)
        state = self._state(subject)
        tid = None if vec is None else state.assign(vec, self.theta)
        counts = self._closed(subject)
        counts[s.robot_id] = counts.get(s.robot_id, 0) + 1
        self._closed_cache.pop(subject, None)
        closed = [x for x in sessions
                  if (x.subject_id, x.robot_id, x.session_id) in self._closed_keys(subject,
                                                                                   sessions)]
        assignment_rows = [(s.robot_id, s.session_id, tid)]
        if self.every and len(closed) % self.every == 0:
            stored = self.graph.session_vectors(self.conn, subject)
            vectors = [stored.get(x.vertex) for x in closed]
            assignment = [tid if x.session_id == s.session_id and x.robot_id == s.robot_id
                          else self._assigned.get((x.subject_id, x.robot_id, x.session_id),
                                                  x.topic_id) for x in closed]
            assignment = refine(state, vectors, assignment, self.theta)
            assignment_rows = [(x.robot_id, x.session_id, t)
                               for x, t in zip(closed, assignment, strict=True)]
        self.graph.replace_topics(self.conn, subject, [(t, "", c, n) for t, (c, n)
                                                       in sorted(state.centroids.items())])
        self.graph.set_session_topics(self.conn, subject, assignment_rows)
        for robot, sess, t in assignment_rows:
            self._assigned[(subject, robot, sess)] = t
        self.graph.set_meta(self.conn, f"topics_closed:{subject}",
                            json.dumps(counts, sort_keys=True, separators=(",", ":")))

    def _provisional(self, subject_id: str) -> None:
        """Open sessions (those not closed) get the nearest closed topic, or a
        provisional topic of their own (a row with no closed members)."""
        conn = self.conn
        sessions = self.graph.session_rows(conn, subject_id)
        closed = self._closed_keys(subject_id, sessions)
        open_ = [s for s in sessions if (s.subject_id, s.robot_id, s.session_id) not in closed]
        state = self._state(subject_id)
        stored = self.graph.session_vectors(conn, subject_id, [s.vertex for s in open_])
        rows = [(t, "", c, n) for t, (c, n) in sorted(state.centroids.items())]
        next_id = max(state.centroids, default=-1) + 1
        assign = []
        for s in open_:
            vec = stored.get(s.vertex)
            if vec is None:
                continue
            tid, sim = state.nearest(vec)
            if tid is None or sim < self.theta:
                tid = next_id
                next_id += 1
                rows.append((tid, "", vec, 0))
            assign.append((s.robot_id, s.session_id, tid))
        self.graph.replace_topics(conn, subject_id, rows)
        self.graph.set_session_topics(conn, subject_id, assign)

    def _sync_edges(self, subject_id: str) -> None:
        """Make the chronological session chain and the in_topic edges match the
        sessions table (sessions with an embedding only)."""
        conn = self.conn
        stored = self.graph.sessions_with_vectors(conn, subject_id)
        sessions = [s for s in self.graph.session_rows(conn, subject_id) if s.vertex in stored]
        want: dict[tuple[str, str, str], tuple[float, str, float]] = {}
        for a, b in zip(sessions, sessions[1:], strict=False):
            want[("before", a.vertex, b.vertex)] = (
                1.0, "session order: start times are chronological", b.start_time)
        for s in sessions:
            if s.topic_id is not None:
                want[("in_topic", s.vertex, topic_vertex(subject_id, s.topic_id))] = (
                    1.0, "topic: nearest centroid of session embeddings", s.start_time)
        have = (self.graph.member_edges(conn, subject_id, "before", "session:")
                + self.graph.member_edges(conn, subject_id, "in_topic", "session:"))
        stale = [e.edge_id for e in have if (e.type, e.src, e.dst) not in want]
        present = {(e.type, e.src, e.dst) for e in have}
        self.graph.delete_edges(conn, stale)
        self.graph.insert_edges(conn, subject_id, [(t, s, d, c, j, at) for (t, s, d), (c, j, at)
                                                   in want.items() if (t, s, d) not in present],
                                self.generation)


def rederive_hierarchy(ledger: Ledger, config: ConsolidationConfig,
                       subject_ids: list[str]) -> None:
    """Rebuild the hierarchy of subjects in one transaction (after ``Ledger.forget``)."""
    with ledger.write() as conn:
        h = Hierarchy(conn, config, ledger.graph.generation_now(conn) + 1)
        for subject in subject_ids:
            h.refresh(subject)
        h.finish()
        ledger.bump_generation(conn)
