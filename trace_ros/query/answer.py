"""The query pipeline in one place: plan → recall → rank → graph → pack → read → check → audit.

The graph stage (``paths.py``) finds the facts behind the recalled sources, walks
their support paths and lets the resolver decide what is current: its revision
leads the evidence, and its *missing*/*conflict* become the response status.

``QueryEngine.ask`` is what the query node, the CLI and the benchmarks call;
each stage is one method below. Scope filters apply inside every recall route,
before ranking. Cited IDs must be among the IDs shown to the reader, or the
answer is withheld (abstained). The audit row is handed to a background writer
(``audit.py``); the response carries its ``recall_id``.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..config import RecallConfig
from ..embed import Encoder
from ..errors import ValidationError, check_text
from ..language import timeanchor
from ..language.caches import forget_texts
from ..language.lazyre import compile_all
from ..language.revision import NEAR, values
from ..language.text import STOPWORDS
from ..language.vocab import is_robot
from ..ledger import AuditRecord, Ledger, Scope, SourceRecord
from . import current, rank
from . import recall as rc
from .audit import AuditWriter, new_recall_id
from .factcache import SubjectFacts
from .latest import newest_told
from .owners import told_of_another
from .pack import EvidenceGroup, EvidenceItem, Pack, pack, with_attachments
from .paths import GraphOutcome, GraphStage
from .plan import Plan, plan_question, untimed_past
from .readers import ExtractiveReader, Reader, ReaderOutput
from .recall import Attachments, Fused, Hit, Participants, Records, VectorIndex
from .result import QueryResult
from .spans import asked
from .spatial import Region, SpatialAnswer, answer_spatial

# How many times the chain is read, each without the lead the one before found to tell
# another person's state (``owners.told_of_another``).
_CHAIN_TRIES = 3

# Routes that find sources, and the stages that re-rank what they found.
ROUTES = ("lexical", "dense", "facts", "window")
# What the worker thread returns: route -> hits, and step -> milliseconds.
_Dense = tuple[dict[str, list[Hit]], dict[str, float]]
RERANKERS = ("participants", "neighbours", "sessions", "temporal", "recency")
# The graph stage (paths.py) and its update-aware seeds with the resolver.
GRAPH_STAGES = ("graph", "update_seeds", "currentness")
# Packing: a record and those attached to it (payload ``attached_to``) are one unit.
PACKING = ("attachments",)
MAX_QUESTION_BYTES = 4096
AUDIT_ROUTE_IDS = 20  # per route, in the audit row
# The vectors of the last questions asked (by the exact text embedded): a question asked
# again (a robot repeating a check, a script) skips the encoder; its vector is the same.
QUESTION_VECTORS = 256
# The subject's later turns the chain reads for its forward step (``current.forward``).
LATER_TURNS = 200
# The earlier records the chain weighs a later one against (``current.chain``'s ``said_before``).
EARLIER_NEAR = 8
# The cosine of the robot's reply with the person's statement just before it at which the
# reply says it again in other words (``QueryEngine._says_again``): the statement is cited.
SAID_AGAIN = 0.3


@dataclass(frozen=True)
class QueryRequest:
    scope: Scope
    question: str
    as_of_valid: float | None = None
    as_of_known: float | None = None
    token_budget: int = 0
    # Spatial memory (query.spatial): perceptions within a region and a source-time window.
    region: Region | None = None
    window_start: float | None = None
    window_end: float | None = None
    # Who asks (face or voice ID, the session's speaker): whose "I" and "my" the question
    # means. Empty: not known, and anyone's first-person statement may be the asker's.
    asker: str = ""


@dataclass
class _Begun:
    """What ``QueryEngine.begin_recall`` read and started for one request."""

    generation: int
    last_seq: int
    speakers: set[str]
    drop: set[str]
    dense: Future[_Dense] | None
    # ``recall.question_encoder: cascade``: what ``_embed_and_search`` redoes with the
    # encoder's own vector when the first stage disagrees with the text search.
    second: tuple | None = None


@dataclass
class Recalled:
    """What the finding routes returned, and who the question names."""

    routes: dict[str, list[Hit]]
    speakers: set[str] = field(default_factory=set)
    boosted: dict[str, list[int]] = field(default_factory=dict)
    # The ledger's generation and last source sequence number when recall began.
    generation: int = -1
    last_seq: int = 0


def _warm_text() -> None:
    """``QueryEngine.warm``'s thread: the patterns, then dateparser."""
    compile_all()
    timeanchor.warm()


class QueryEngine:
    # What ``ablate`` can remove; the benchmark reports any other component as not applicable.
    COMPONENTS: tuple[str, ...] = ROUTES + RERANKERS + GRAPH_STAGES + PACKING

    def __init__(self, ledger: Ledger, encoder: Encoder | None, reader: Reader | None = None,
                 config: RecallConfig | None = None, *, ablate: Collection[str] = (),
                 audit: bool = True) -> None:
        unknown = set(ablate) - set(self.COMPONENTS)
        if unknown:
            raise ValueError(f"ablate: unknown component(s) {sorted(unknown)}")
        self.ledger = ledger
        self.encoder = encoder
        self.reader: Reader = reader or ExtractiveReader()
        self.config = config or RecallConfig()
        self.ablate = set(ablate)
        # A forget moves the vectors' epoch: what was read of its texts goes too.
        self.index = (VectorIndex(ledger, encoder.name, on_new_epoch=forget_texts)
                      if encoder is not None else None)
        # Each turn embedded with the one before it (consolidation's 'window' vectors).
        self.windows = (VectorIndex(ledger, encoder.name, "window", on_new_epoch=forget_texts)
                        if encoder is not None else None)
        self.participants = Participants(ledger)
        self.attachments = Attachments(ledger)
        self.records = Records(ledger)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._vectors: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._vectors_lock = threading.Lock()
        # The first-stage encoder (``_first_stage``): None until asked, False for none.
        self._static: Encoder | bool | None = None
        self._static_lock = threading.Lock()
        self.graph_stage = GraphStage(ledger, self.config, self.participants, encoder)
        self.auditor = (AuditWriter(ledger.path, ledger.config, self.config.audit_batch)
                        if audit else None)

    def on(self, component: str) -> bool:
        return component not in self.ablate

    def warm(self) -> threading.Thread:
        """Load now what the first question would otherwise wait for: the static
        first-stage table when ``recall.question_encoder`` is ``static`` or ``cascade``
        (derived from the encoder once per machine, ~30 s, then read from its cache), and,
        on a thread of its own that the caller need not wait for (returned), the query
        pipeline's regular expressions (``lazyre.compile_all``: ~0.1 s, made at their first
        use in a one-question process) and dateparser's first use (``timeanchor.warm``):
        ~0.3–0.5 s that the first question reading a date ("when …?", "last Tuesday")
        otherwise waits for."""
        dates = threading.Thread(target=_warm_text, name="text-warm", daemon=True)
        dates.start()
        self._first_stage()
        return dates

    # -- the pipeline ---------------------------------------------------------------

    def ask(self, req: QueryRequest, now: float | None = None) -> QueryResult:
        """Answer ``req``; raises ``ValidationError`` for a malformed request.

        ``now`` is the caller's clock (a node's ROS clock), recorded as the audit time."""
        self.validate(req)
        now = time.time() if now is None else now
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        # Generation fencing: everything read from the ledger for this question comes
        # from one committed consolidation batch, even while another process commits.
        with self.ledger.read():
            spatial = answer_spatial(
                self.ledger, req.scope, req.question, now,
                region=req.region, window=(req.window_start, req.window_end),
                as_of_valid=req.as_of_valid, as_of_known=req.as_of_known,
                limit=self.config.evidence_k)
            # The question's vector, the slowest step, starts first (on the worker):
            # the plan and the text searches run here meanwhile.
            begun = self.begin_recall(req, timings) if spatial is None else None
            held: float | None = None
            t = time.perf_counter()
            plan = self.plan(req, now)
            timings["plan"] = _ms(t)
            if begun is not None:
                recalled = self.recall(req, timings, begun)
                ranked = self.rank(req, plan, recalled, timings)
                graph = self.graph(req, plan, recalled, ranked, timings)
                own = current.asks_own(req.question, plan.answer_type, req.asker)
                # Or of the asker's relative ("my brother"), whom others call so too.
                kin = frozenset() if own or plan.answer_type == "person" \
                    else current.asked_kin(req.question, req.asker)
                if graph is not None and self.on("currentness") and (own or kin):
                    self.not_asker(req, ranked, graph, recalled.generation, kin)
                if graph is not None and self.on("currentness"):
                    held = self.currentness(req, plan, ranked, graph, recalled.generation,
                                            timings)
                    if held is not None and plan.as_of is None:
                        # "Before the roadworks email, …": what was said by then answers.
                        plan = dataclasses.replace(plan, as_of=held)
                    elif held is None:
                        plan = self.settle(req, plan, ranked, recalled.generation)
                packed = self.pack(req, ranked, timings, graph, recalled)
        if spatial is not None:
            result = _spatial_result(spatial, plan, timings, t0)
            if self.auditor is not None:
                result.recall_id = str(self.record(req, result, now))
            return result
        t = time.perf_counter()
        out = self.reader.read(req.question, plan, packed,
                               graph.reader_resolution if graph is not None else None)
        if self.config.learned_pick and graph is not None:
            with self.ledger.read():
                out = self.learned_pick(req, plan, packed, out, graph, held,
                                        recalled.generation)
        timings["read"] = _ms(t)
        result = self.check(plan, packed, out, timings)
        if self.on("currentness"):
            self.own_words(req, result, recalled.generation)
        if graph is not None:
            self.graph_stage.finish(graph, result)
        result.routes = self.route_report(recalled, ranked)
        timings["total"] = _ms(t0)
        if self.auditor is not None:
            result.recall_id = str(self.record(req, result, now))
        return result

    def validate(self, req: QueryRequest) -> None:
        for name, value in (("scope.subject_id", req.scope.subject_id),
                            ("scope.robot_id", req.scope.robot_id),
                            ("scope.session_id", req.scope.session_id),
                            ("question", req.question)):
            check_text(name, value)
        req.scope.check()
        question = req.question.strip()
        if not question:
            raise ValidationError("question", "required, must not be empty")
        if len(question.encode("utf-8", "replace")) > MAX_QUESTION_BYTES:
            raise ValidationError("question", f"longer than {MAX_QUESTION_BYTES} bytes")
        if req.token_budget < 0:
            raise ValidationError("token_budget", "must not be negative")
        for name in ("as_of_valid", "as_of_known"):
            value = getattr(req, name)
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise ValidationError(name, f"must be a finite, non-negative time, got {value}")

    def plan(self, req: QueryRequest, now: float | None = None) -> Plan:
        """Relative times in the question resolve against the view's time, else the time
        it is asked (the caller's clock: "on Saturday" is the Saturday of that week)."""
        plan = plan_question(req.question, reference_time=req.as_of_valid
                             if req.as_of_valid is not None else now)
        return dataclasses.replace(plan, asker=req.asker) if req.asker else plan

    def begin_recall(self, req: QueryRequest, timings: dict[str, float]) -> _Begun:
        """The ledger's marks, who the question names, and the dense routes started:
        the question's vector and the vector searches run on a worker thread while the
        caller goes on (ONNX Runtime, numpy and SQLite all release the GIL)."""
        cfg, sc, q = self.config, req.scope, req.question
        speakers: set[str] = set()
        drop: set[str] = set()
        # One read tells every cache below whether it is current.
        generation, last_seq = self.ledger.marks()
        if self.on("participants"):
            speakers, used = self.participants.named(sc.subject_id, q, generation)
            # A name matches greetings, not content: search without it unless nothing is left.
            if used and rc.fts_match_expression(q, used):
                drop = used
        dense: Future[_Dense] | None = None
        if self.on("dense") and self.encoder is not None and self.index is not None:
            # Without the names, too: they pull the vector toward greetings.
            text = rc.without_words(q, drop)
            # The worker must not touch the ledger (this thread holds its read snapshot):
            # the indexes are brought up to this generation here, first.
            indexes = [("dense", self.index)]
            if self.windows is not None and self.on("window"):
                indexes.append(("window", self.windows))
            for _, index in indexes:
                index.refresh(sc.subject_id, generation)
            job = (text, sc, (req.as_of_valid, req.as_of_known), generation, indexes)
            first = self._first_stage()
            if cfg.overlap_embedding and first is None:
                dense = self._embedder().submit(self._embed_and_search, *job)
            else:  # one core: a worker thread would only add hand-over time
                dense = Future()
                dense.set_result(self._embed_and_search(*job))
            if first is not None and cfg.question_encoder == "cascade":
                return _Begun(generation, last_seq, speakers, drop, dense, job)
        return _Begun(generation, last_seq, speakers, drop, dense)

    def recall(self, req: QueryRequest, timings: dict[str, float],
               begun: _Begun | None = None) -> Recalled:
        """Every enabled finding route within the scope; per-route timings (``begun``:
        what ``begin_recall`` started for this request, else started here)."""
        begun = self.begin_recall(req, timings) if begun is None else begun
        cfg, sc, q = self.config, req.scope, req.question
        view = (req.as_of_valid, req.as_of_known)
        generation, last_seq, speakers = begun.generation, begun.last_seq, begun.speakers
        drop, dense = begun.drop, begun.dense
        routes: dict[str, list[Hit]] = {}
        if self.on("lexical"):
            t = time.perf_counter()
            routes["lexical"] = rc.lexical(self.ledger, sc, q, cfg.lexical_k, *view,
                                           weights=(1.0, cfg.speaker_weight), drop=drop)
            timings["recall_lexical"] = _ms(t)
        found: list[Hit] | None = None
        if self.on("facts") and cfg.facts_weight > 0:  # weight 0: the route is off
            t = time.perf_counter()
            found = rc.facts(self.ledger, sc, q, cfg.facts_k, *view, drop=drop)
            timings["recall_facts"] = _ms(t)
        if dense is not None:
            t = time.perf_counter()
            found_dense, dense_ms = dense.result()
            timings["embed_wait"] = _ms(t)
            timings.update(dense_ms)
            if begun.second is not None and rc.agreement(
                    routes.get("lexical", []), found_dense.values()) < cfg.cascade_agree:
                # The static vector's neighbours and the question's words disagree: the
                # encoder's own vector decides (``embed_second``: only when it ran).
                found_dense, second_ms = self._embed_and_search(*begun.second, full=True)
                timings["embed_second"] = second_ms.pop("embed")
                for key, ms in second_ms.items():
                    timings[key] = timings.get(key, 0.0) + ms
            routes.update(found_dense)
        if found is not None:
            # A fact restating its source's words would count the same match twice:
            # the route adds only sources the text search did not find.
            seen = {h.seq for h in routes.get("lexical", ())}
            routes["facts"] = [h for h in found if h.seq not in seen]
        timings["recall"] = sum(v for k, v in timings.items() if k.startswith("recall_"))
        return Recalled(routes, speakers, generation=generation, last_seq=last_seq)

    def _embedder(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed")
            return self._pool

    def _embed_and_search(self, text: str, scope: Scope, view: tuple[float | None, float | None],
                          generation: int, indexes: list[tuple[str, VectorIndex]],
                          full: bool = False) -> _Dense:
        """The question's vector, then the cosine top-k of each index (refreshed to
        ``generation`` already: nothing here reads the ledger); route -> hits, and
        the milliseconds of each step (``embed``, ``recall_<route>``). ``full``: the
        encoder's own vector even when a first stage is configured."""
        t = time.perf_counter()
        static = None if full else self._first_stage()
        qvec = static.encode([text])[0] if static is not None else self._question_vector(text)
        ms = {"embed": _ms(t)}
        found = {}
        for route, index in indexes:
            t = time.perf_counter()
            found[route] = index.search(scope, qvec, self.config.dense_k, *view,
                                        generation=generation)
            ms[f"recall_{route}"] = _ms(t)
        return found, ms

    def _first_stage(self) -> Encoder | None:
        """The static encoder of ``recall.question_encoder: static`` or ``cascade``
        (derived from the encoder on first use; ``staticembed``), or None: the encoder's
        own vectors."""
        if self.config.question_encoder == "minilm" or self.encoder is None:
            return None
        with self._static_lock:  # not the pool's: deriving a table takes ~30 s once
            if self._static is None:
                try:
                    self._static = self.encoder.static_encoder(STOPWORDS)  # type: ignore[attr-defined]
                except AttributeError:  # an encoder with no static table: its own vectors
                    self._static = False
            return self._static or None

    def _question_vector(self, text: str) -> np.ndarray:
        """The encoder's vector of ``text``, kept for the last ``QUESTION_VECTORS`` texts
        (read-only: every caller shares it). Kept under the encoder's ``vector_key`` when
        it has one (what the vector is made from: the question in other case or spacing
        is the same key), else under the text."""
        assert self.encoder is not None
        vector_key = getattr(self.encoder, "vector_key", None)
        key: Hashable = vector_key(text) if vector_key is not None else text
        with self._vectors_lock:
            kept = self._vectors.get(key)
            if kept is not None:
                self._vectors.move_to_end(key)
                return kept
        vec = np.array(self.encoder.encode([text])[0])
        vec.setflags(write=False)
        with self._vectors_lock:
            self._vectors[key] = vec
            while len(self._vectors) > QUESTION_VECTORS:
                self._vectors.popitem(last=False)
        return vec

    def rank(self, req: QueryRequest, plan: Plan, recalled: Recalled,
             timings: dict[str, float]) -> list[Fused]:
        """Fuse the routes' scores, then re-rank by participants, conversation
        neighbours, session, the time the question names and recency."""
        t = time.perf_counter()
        cfg = self.config
        fused = rc.score_fusion(recalled.routes, rc.route_weights(cfg))
        # How well each source matches the question's words and meaning, before the
        # priors below: what neighbours and sessions share.
        match = {seq: f.score for seq, f in fused.items()}
        fresh = "dense" in recalled.routes
        boosted = recalled.boosted
        window = plan.window if self.on("temporal") else None
        if recalled.speakers or window is not None:
            # Every candidate, not only the pool: a turn of the person asked about, or
            # one inside the time asked about, may be found by one route alone.
            every, _ = rc.places(self.ledger, req.scope, list(fused), 0, req.as_of_valid,
                                 req.as_of_known, self.index, index_fresh=fresh)
            if recalled.speakers:
                boosted["participants"] = sorted(rc.boost_where(
                    fused, [s for s, p in every.items() if p.speaker in recalled.speakers],
                    cfg.participant_weight, "participants"))
            if window is not None:
                boosted["temporal"] = sorted(rc.boost_where(
                    fused, rc.in_window(every, window), cfg.temporal_weight, "temporal"))
        pool = [f.seq for f in rc.ranked(fused, cfg.pool_k)]
        span = cfg.neighbour_span if self.on("neighbours") else 0
        info, near = rc.places(self.ledger, req.scope, pool, span,
                               req.as_of_valid, req.as_of_known, self.index,
                               index_fresh=fresh)
        if span:
            boosted["neighbours"] = sorted(rc.spread_to_neighbours(
                fused, info, near, cfg.neighbour_before, cfg.neighbour_after, match))
        if self.on("sessions"):
            boosted["sessions"] = sorted(rc.session_prior(fused, info, cfg.session_weight,
                                                          cfg.session_top, match))
        if self.on("recency") and plan.operation == "current_state":
            boosted["recency"] = sorted(rc.recency(fused, info, cfg.recency_weight))
        out = rc.ranked(fused)
        timings["fuse"] = _ms(t)
        return out

    def graph(self, req: QueryRequest, plan: Plan, recalled: Recalled, ranked: list[Fused],
              timings: dict[str, float]) -> GraphOutcome | None:
        """Seeds, support paths and the resolver's verdict (``paths.py``)."""
        if not self.on("graph"):
            return None
        t = time.perf_counter()
        dense = recalled.routes.get("dense") or []
        out = self.graph_stage.run(req.scope, req.question, plan, ranked, recalled.speakers,
                                   req.as_of_valid, req.as_of_known,
                                   update_seeds=self.on("update_seeds"),
                                   near=[(h.seq, h.score) for h in dense])
        timings["graph"] = _ms(t)
        return out

    def settle(self, req: QueryRequest, plan: Plan, ranked: list[Fused],
               generation: int) -> Plan:
        """A past-tense question naming no time nor earlier version (``untimed_past``:
        "When was my GP appointment?") about things told the robot asks what was last
        settled: the plan reads it as ``settled``, the newest revision first. Between
        people (no robot among the records) it stays an event among others."""
        if not untimed_past(req.question, plan):
            return plan
        records = self.records.get([f.seq for f in ranked[:current.POOL]], generation,
                                   before=True)
        if not current.told_the_robot(records.values(), req.scope.robot_id):
            return plan
        return dataclasses.replace(plan, settled=True)

    def currentness(self, req: QueryRequest, plan: Plan, ranked: list[Fused],
                    graph: GraphOutcome, generation: int, timings: dict[str, float]
                    ) -> float | None:
        """For a question about the present that the resolver left open, the latest
        record of the thing the best match speaks of leads (``current.py``); for one about
        what held at a past time, the last revision said by then. Returns that time (or
        None): what was said after it does not answer."""
        if graph.status or req.as_of_valid is not None or req.as_of_known is not None:
            return None
        t = time.perf_counter()

        # Records found to tell another person's state of the thing (``told_of_another``):
        # the chain reads on without them.
        apart: set[int] = set()

        def related(text: str) -> dict[int, SourceRecord]:
            hits = rc.lexical(self.ledger, req.scope, text, current.POOL)
            return self.records.get([h.seq for h in hits if h.seq not in apart], generation,
                                    before=True)

        first = self.ledger.get_sources(graph.lead[:1])
        if first and told_of_another(req.question, req.asker, first[0]):
            # The resolver's revision is another person's state ("My sister Britta took
            # over our old flat" for "Where do I live?"): what it superseded still holds.
            graph.others = list(dict.fromkeys(graph.others + graph.lead[:1]))
            graph.lead, graph.superseded = graph.lead[1:], []
            graph.reader_resolution = None
        present = current.asks_present(req.question, plan)
        # A plural thing asked now ("Which treats does Jasper like?"), told the robot.
        plural_now = not present and current.asks_present_set(req.question, plan)
        if not present and not plural_now and not current.may_ask_held(req.question, plan):
            return None
        head = ranked[:current.POOL]
        # The resolver's revision, where the chain starts when there is one.
        lead = self.ledger.get_sources(graph.lead[:1]) if graph.lead else []
        head = [Fused(r.seq, r.source_id, 1.0) for r in lead] + \
            [f for f in head if f.seq not in {r.seq for r in lead}]
        records = self.records.get([f.seq for f in head], generation, before=True)
        records.update({r.seq: r for r in lead})
        if plural_now:
            if not current.told_the_robot(records.values(), req.scope.robot_id):
                return None
            present = True
        at = None
        if not present:
            latest = max((r.source_time for r in records.values()), default=None)
            at = current.held_time(req.question, plan, related, req.scope.robot_id, latest,
                                   self._alike(req.scope.subject_id),
                                   [r.source_time for r in records.values()])
            if at is None:
                return None
        vectors = self.index.current(req.scope.subject_id) if self.index is not None else None

        def near(seq: int) -> dict[int, tuple[SourceRecord, float]]:
            if vectors is None or not len(vectors.ids):
                return {}
            cos = vectors.later_near(seq, NEAR, current.POOL)
            got = self.records.get([s for s in cos if s not in apart], generation, before=True)
            return {s: (r, cos[s]) for s, r in got.items() if _in_scope(r, req.scope)}

        def said_before(seq: int) -> dict[int, float]:
            # The statements said before ``seq`` nearest it in meaning (the chain's owner
            # check: which earlier record a later one carries on).
            if vectors is None or not len(vectors.ids):
                return {}
            cos = vectors.earlier_near(seq, EARLIER_NEAR)
            got = self.records.get(list(cos), generation, before=True)
            return {s: cos[s] for s, r in got.items() if _in_scope(r, req.scope)
                    and not is_robot(r.speaker, req.scope.robot_id)}

        turns_before: dict[int, SourceRecord | None] = {}

        def prior(seq: int) -> SourceRecord | None:
            # The chain asks for the turn before the same records many times.
            if seq not in turns_before:
                turns_before[seq] = self.prior_turn(seq, req.scope, generation)
            return turns_before[seq]

        def later(seq: int) -> list[SourceRecord]:
            # The subject's turns after ``seq``, recalled or not, for the chain's forward step.
            return [r for r in self.records.after(seq, LATER_TURNS, req.scope.subject_id,
                                                  generation)
                    if _in_scope(r, req.scope) and r.seq not in apart]

        wanted = asked(req.question, plan)
        lookalikes: list[str] = []
        others: list[str] = []
        for _ in range(_CHAIN_TRIES):
            lookalikes = []
            found = current.chain(req.question, plan.answer_type,
                                  [f for f in head if f.seq not in apart],
                                  {s: r for s, r in records.items() if s not in apart},
                                  self.graph_stage.facts.subject(req.scope.subject_id), near,
                                  prior, req.scope.robot_id, at, wanted.kind,
                                  wanted.focus, lookalikes, req.asker, later, said_before)
            told = self.ledger.get_sources(found.lead[:1]) if found is not None else []
            if not told or not told_of_another(req.question, req.asker, told[0]):
                break
            # "Sara got locker 74" for "What's my locker number?": another person's state
            # of the thing, not a revision of the one asked about.
            apart.add(told[0].seq)
            others.append(told[0].source_id)
            found = None
        lookalikes = others + lookalikes
        if found is None and not graph.lead and at is None:
            # "… his latest tournament?": no revision found, the newest telling leads.
            told = newest_told(req.question, [r for s, r in records.items()
                                                     if s not in apart], req.scope.robot_id)
            if told is not None:
                graph.lead = [told.source_id]
        # What the chain found to be another's (also when nothing later revised the best
        # match): the reader must not take its newest record for the current one.
        graph.others = [s for s in dict.fromkeys(graph.others + lookalikes)
                        if s not in graph.lead and (found is None or s not in found.lead)]
        if found is not None:
            if at is not None:  # what held then: the resolver's revision for it stands
                found.superseded = [s for s in found.superseded if s not in graph.lead]
                resolved = graph.reader_resolution
                told = self.ledger.get_sources(resolved.source_ids[:1]) if resolved else []
                if told and told[0].source_time > at:
                    # The resolver's current value was told after the time asked.
                    graph.reader_resolution = None
            if graph.lead and graph.lead[0] in found.superseded:
                # A later statement the key rules did not relate overrides the resolver's
                # revision: the reader reads the records, not the stale resolution.
                graph.reader_resolution = None
            rest = [s for s in graph.lead if s not in found.lead]
            graph.lead = found.lead + rest
            graph.carried = found.carried or ""
            graph.superseded = list(dict.fromkeys(found.superseded + graph.superseded))
        if at is not None:
            left = current.after_event(req.question, plan, related, req.scope.robot_id,
                                       self._alike(req.scope.subject_id))
            if left is not None:  # "… after the alarm company reset it?": told with it
                graph.lead = [left.source_id] + [s for s in graph.lead if s != left.source_id]
                graph.reader_resolution = None
        timings["currentness"] = _ms(t)
        return at

    def _alike(self, subject_id: str
               ) -> Callable[[str, Sequence[SourceRecord]], list[float]] | None:
        """The cosine of each record's stored vector with a text's (0 for a record with
        none), or None without an encoder and index."""
        if self.encoder is None or self.index is None:
            return None
        vectors = self.index.current(subject_id)

        def alike(text: str, records: Sequence[SourceRecord]) -> list[float]:
            qvec = self._question_vector(text)
            qvec = qvec / (float(np.linalg.norm(qvec)) or 1.0)
            out = []
            for r in records:
                at = vectors.row_of(r.seq)
                row = vectors.matrix[at] if at is not None else None
                out.append(0.0 if row is None else
                           float(row @ qvec) / (float(np.linalg.norm(row)) or 1.0))
            return out
        return alike

    def not_asker(self, req: QueryRequest, ranked: list[Fused], graph: GraphOutcome,
                  generation: int, kin: frozenset[str] = frozenset()) -> None:
        """For a question of the asker's own state, the candidates in which another
        speaker tells their own ("My physio's still Thursdays", said by Arthur, asked by
        Marguerite; the robot's echo of it) are look-alikes the reader does not take for
        the asker's, as the chain's are (``current.theirs``); with ``kin``, those in which
        another speaker tells of their own relative the question asks of as the asker's."""
        head = ranked[:self.config.evidence_k * 3]
        records = self.records.get([f.seq for f in head], generation)

        def prior(seq: int) -> SourceRecord | None:
            return self.prior_turn(seq, req.scope, generation)

        found = [r.source_id for r in records.values()
                 if current.theirs(r, req.asker, req.scope.robot_id, prior, kin)]
        if graph.status == "conflict" and set(graph.status_sources) & set(found) \
                and len(set(graph.status_sources) - set(found)) <= 1:
            # Their value against the asker's is no contradiction ("My physio is still on
            # Mondays", said by Tomas, beside Nia's Thursday): the chain reads on.
            graph.status, graph.message = "", ""
            graph.status_sources = []
            graph.lead = [s for s in graph.lead if s not in found]
        lead = self.ledger.get_sources(graph.lead[:1])
        if lead and current.theirs(lead[0], req.asker, req.scope.robot_id, prior, kin):
            # The resolver's revision is another's ("My dentist's Friday", said by Tomas,
            # after Nia's "Monday"): what it superseded still holds for the asker, and the
            # reader reads the records, not that resolution.
            found.append(lead[0].source_id)
            graph.lead = [s for s in graph.lead if s not in found]
            graph.superseded = []
            graph.reader_resolution = None
        graph.others = list(dict.fromkeys(graph.others + [s for s in found
                                                          if s not in graph.lead]))

    def prior_turn(self, seq: int, scope: Scope, generation: int) -> SourceRecord | None:
        """The turn before ``seq`` in its session, within ``scope``, or None."""
        before = self.records.turn_before(seq, generation)
        return before if before is not None and _in_scope(before, scope) else None

    def own_words(self, req: QueryRequest, result: QueryResult, generation: int) -> None:
        """A robot's turn that repeats what the person said just before, reads it back as a
        value (``current.reads_back``) or takes it up in its words (``current.answers_turn``)
        is not where the answer comes from: the person's statement is cited first (and
        shown), the robot's reply after it. Whatever stage chose the reply (reader, graph,
        ranking)."""
        if result.status != "answered" or not result.source_ids:
            return
        by_id = {i.source_id: i for i in result.evidence}
        first = by_id.get(result.source_ids[0])
        if first is None:
            return
        said = self.prior_turn(first.record.seq, req.scope, generation)
        robot = req.scope.robot_id
        if said is None or not (current.echoes(first.record, said, robot)
                                or current.reads_back(first.record, said, None, robot)
                                or current.answers_turn(first.record, said, robot)
                                or self._says_again(first.record, said, req.scope, generation)):
            return
        if said.source_id not in by_id:
            result.evidence.append(EvidenceItem(said, first.score, {"echoed": 1}))
        result.source_ids = list(dict.fromkeys([said.source_id, *result.source_ids]))

    def _says_again(self, reply: SourceRecord, said: SourceRecord, scope: Scope,
                    generation: int) -> bool:
        """Whether the robot's ``reply``, right after a person's statement in the same
        session, neither asking nor answering a question, says it again in other words: its
        stored vector near the statement's ("Shelly now eats every two weeks." after "We're
        spacing her meals out to once a fortnight."), where no word or value of the two need
        be the same. Not where the statement answers the robot's own question and the reply
        brings a value it did not give ("Shall I move you?" - "Yes, please." - "Done, you're in
        room 808 now."): the robot reports what it did, however near the vectors."""
        if self.index is None or not is_robot(reply.speaker, scope.robot_id) \
                or is_robot(said.speaker, scope.robot_id) \
                or reply.modality != "dialogue" or said.modality != "dialogue" \
                or reply.seq != said.seq + 1 or reply.session_id != said.session_id \
                or "?" in reply.text or "?" in said.text:
            return False
        if values(reply.text) - values(said.text):
            asked = self.prior_turn(said.seq, scope, generation)
            if asked is not None and is_robot(asked.speaker, scope.robot_id) \
                    and "?" in asked.text:
                return False
        vectors = self.index.current(scope.subject_id)
        rows = [vectors.row_of(r.seq) for r in (reply, said)]
        if None in rows:
            return False
        a, b = (vectors.matrix[r] for r in rows)
        norm = float(np.linalg.norm(a)) * float(np.linalg.norm(b))
        return bool(norm) and float(a @ b) / norm >= SAID_AGAIN

    def pack(self, req: QueryRequest, ranked: list[Fused], timings: dict[str, float],
             graph: GraphOutcome | None = None, recalled: Recalled | None = None) -> Pack:
        """The best candidates, each with the records attached to it (one unit)."""
        t = time.perf_counter()
        head = ranked[:self.config.evidence_k * 3]
        seqs = [f.seq for f in head]
        generation, last_seq = ((recalled.generation, recalled.last_seq) if recalled is not None
                                else self.ledger.marks())
        units = (self.attachments.units(req.scope.subject_id, seqs, last_seq)
                 if self.on("attachments") else {})
        wanted = list(dict.fromkeys(seqs + [s for unit in units.values() for s in unit]))
        records = self.records.get(wanted, generation)
        candidates = [EvidenceItem(records[f.seq], f.score, f.ranks)
                      for f in head if f.seq in records]
        budget = req.token_budget or self.config.token_budget
        view = {"as_of_valid": req.as_of_valid, "as_of_known": req.as_of_known}
        arranged: list[EvidenceItem | EvidenceGroup] = list(candidates)
        reserve = 0
        if graph is not None:
            arranged = self.graph_stage.arrange(graph, candidates, req.as_of_valid,
                                                req.as_of_known)
            reserve = min(self.config.graph_path_reserve, budget // 4) if graph.paths else 0
        if units:
            arranged = with_attachments(arranged, self._unit_items(req.scope, head, units,
                                                                   records))
        if graph is not None and graph.others:
            arranged = _mark_others(arranged, frozenset(graph.others))
        packed = pack(arranged, budget, self.config.evidence_k, path_reserve=reserve,
                      by_unit=self.on("attachments"), **view)
        if graph is not None:
            self.graph_stage.add_lines(graph, packed)
        timings["pack"] = _ms(t)
        return packed

    @staticmethod
    def _unit_items(scope: Scope, head: list[Fused], units: dict[int, tuple[int, ...]],
                    records: dict[int, SourceRecord]) -> dict[str, tuple[EvidenceItem, ...]]:
        """Source ID -> the items of its unit (within the scope), the candidate's own
        scores on itself; the records it brought along are marked ``attached``."""
        out: dict[str, tuple[EvidenceItem, ...]] = {}
        for f in head:
            unit = units.get(f.seq)
            if unit is None or f.seq not in records:
                continue
            items = tuple(
                EvidenceItem(records[s], f.score, f.ranks if s == f.seq else {"attached": 1})
                for s in unit if s in records and _in_scope(records[s], scope))
            out[f.source_id] = items
        return out

    def shown_rows(self, req: QueryRequest, plan: Plan, packed: Pack, graph: GraphOutcome,
                   held: float | None, generation: int) -> np.ndarray:
        """The shown records' features for the learned check (``rank.feature_rows``)."""
        items = packed.items
        assert self.index is not None
        sv = self.index.current(req.scope.subject_id)
        row = {int(s): i for i, s in enumerate(sv.seqs)}
        # With a static first stage its vector (MiniLM's would cost what the cascade saves).
        first = self._first_stage()
        qvec = (np.asarray(first.encode([req.question])[0]) if first is not None
                else self._question_vector(req.question))
        vectors = np.array([sv.matrix[row[i.record.seq]] if i.record.seq in row
                            else np.zeros(qvec.shape[0]) for i in items])
        facts = self.graph_stage.facts.subject(req.scope.subject_id)
        graphed = [rank.Graphed()] * len(items)
        if facts is not None:
            graphed = [_graphed(facts, i.source_id) for i in items]
        echoes = rank.echo_flags(items, req.scope.robot_id,
                                 lambda seq: self.prior_turn(seq, req.scope, generation))
        ctx = rank.Context(req.question, plan, req.asker, req.scope.robot_id,
                           tuple(graph.lead), tuple(graph.superseded), tuple(graph.others),
                           graph.carried, held is not None)
        return rank.feature_rows(ctx, items, vectors, qvec, graphed, echoes)

    def learned_pick(self, req: QueryRequest, plan: Plan, packed: Pack, out: ReaderOutput,
                     graph: GraphOutcome, held: float | None, generation: int
                     ) -> ReaderOutput:
        """The reader's answer, or its reading of the shown record the learned check
        (``rank.py``) prefers by more than ``learned_pick_margin`` to the one it cited
        first, when that reading cites it. An abstention stays one."""
        ids = packed.source_ids
        first = next((c for c in out.cited_ids if c in ids), None)
        if not out.answer or first is None or self.encoder is None or len(ids) < 2:
            return out
        rows = self.shown_rows(req, plan, packed, graph, held, generation)
        best = rank.overriding(rows, ids.index(first), self.config.learned_pick_margin)
        if best is None:
            return out
        again = self.reader.read(req.question, plan, rank.reread_pack(packed, ids[best], first),
                                 None)
        return again if again.answer and again.cited_ids[:1] == [ids[best]] else out

    def check(self, plan: Plan, packed: Pack, out: ReaderOutput,
              timings: dict[str, float]) -> QueryResult:
        """Citations must be among the shown IDs; no valid citation → abstained."""
        shown = set(packed.source_ids)
        cited = [c for c in dict.fromkeys(out.cited_ids) if c in shown]
        if not packed.items and packed.left_out:
            status = "abstained"
            message = (f"the token budget is too small for any of the "
                       f"{len(packed.left_out)} matching source(s); raise token_budget")
        elif not packed.items:
            status, message = "missing", "no source in scope matches the question"
        elif not cited or not out.answer:
            status = "abstained"
            message = out.note or "the reader cited no shown source"
        else:
            status, message = "answered", out.note
        return QueryResult(
            status=status, answer=out.answer if status == "answered" else "",
            source_ids=cited if status == "answered" else [], evidence=packed.items,
            plan=plan, reader=out.reader or self.reader.name, timings_ms=timings,
            message=message, left_out=packed.left_out)

    # -- audit ----------------------------------------------------------------------

    @staticmethod
    def route_report(recalled: Recalled, ranked: list[Fused]) -> dict[str, list[str]]:
        """Per route, the source IDs it found or lifted (best first, capped). A
        re-ranker's are read off the ranking in one pass that stops once every list is
        full (sorting each lifted set by rank cost twice as much: ~0.14 ms a question)."""
        out = {name: [h.source_id for h in hits[:AUDIT_ROUTE_IDS]]
               for name, hits in recalled.routes.items()}
        filling: dict[str, tuple[set[int], list[str]]] = {}
        for name, seqs in recalled.boosted.items():
            out[name] = []
            if seqs:
                filling[name] = (set(seqs), out[name])
        for f in ranked:
            if not filling:
                break
            for name, (lifted, ids) in list(filling.items()):
                if f.seq in lifted:
                    ids.append(f.source_id)
                    if len(ids) >= AUDIT_ROUTE_IDS:
                        del filling[name]
        return out

    def record(self, req: QueryRequest, res: QueryResult, now: float | None = None) -> int:
        """Queue the audit row; returns its ID at once (nothing is written here).
        ``now``: the caller's clock (default the wall clock)."""
        assert self.auditor is not None
        recall_id = new_recall_id()
        sc = req.scope
        self.auditor.submit(AuditRecord(
            query_id=recall_id, asked_at=time.time() if now is None else now,
            subject_id=sc.subject_id,
            scope={"subject_id": sc.subject_id, "robot_id": sc.robot_id,
                   "session_id": sc.session_id, "as_of_valid": req.as_of_valid,
                   "as_of_known": req.as_of_known},
            question=req.question, plan=res.plan.to_dict(), routes=res.routes,
            shown=_shown_ids(res.evidence), cited=list(res.source_ids),
            answer=res.answer, status=res.status, reader=res.reader,
            timings={k: round(v, 3) for k, v in res.timings_ms.items()}))
        return recall_id

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until queued audit rows are written."""
        return self.auditor.flush(timeout) if self.auditor is not None else True

    def close(self) -> None:
        """Write what is queued and stop the audit writer and the embedding worker."""
        if self.auditor is not None:
            self.auditor.close()
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)

    def __enter__(self) -> QueryEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _graphed(facts: SubjectFacts, source_id: str) -> rank.Graphed:
    """A source's facts' ``updates`` (out, in) and ``contradicts`` edges and statuses."""
    out = inn = contra = sup = act = 0
    for fid in facts.by_source.get(source_id, ()):
        if fid in facts.facts:
            status = facts.facts[fid].status
            sup += status == "superseded"
            act += status == "active"
        for eid in facts.adjacent.get(fid, ()):
            e = facts.edges.get(eid)
            if e is not None and e.type == "updates":
                out += e.src == fid
                inn += e.dst == fid
            elif e is not None and e.type == "contradicts":
                contra += 1
    return rank.Graphed(out, inn, contra, sup, act)


def _shown_ids(evidence: list[EvidenceItem]) -> list[str]:
    """Every source record the reader was shown (an item may show several)."""
    ids: list[str] = []
    for item in evidence:
        records = getattr(item, "records", None) or [item.record]
        ids.extend(r.source_id for r in records)
    return list(dict.fromkeys(ids))


def _in_scope(rec: SourceRecord, scope: Scope) -> bool:
    return (rec.subject_id == scope.subject_id
            and (not scope.robot_id or rec.robot_id == scope.robot_id)
            and (not scope.session_id or rec.session_id == scope.session_id))


def _spatial_result(spatial: SpatialAnswer, plan: Plan, timings: dict[str, float],
                    t0: float) -> QueryResult:
    """A locate/survey answer from perceptions (query.spatial), cited like any other."""
    timings["total"] = _ms(t0)
    evidence = [EvidenceItem(r, 1.0, {"spatial": i + 1}) for i, r in enumerate(spatial.records)]
    status = "answered" if spatial.cited else "missing"
    return QueryResult(status=status, answer=spatial.answer, source_ids=spatial.cited,
                       evidence=evidence, plan=plan, reader=f"spatial:{spatial.kind}",
                       timings_ms=timings, routes={"spatial": spatial.cited},
                       message=spatial.message)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def _mark_others(arranged: list[EvidenceItem | EvidenceGroup], others: frozenset[str]
                 ) -> list[EvidenceItem | EvidenceGroup]:
    """``arranged`` with the records in ``others`` (the chain's look-alikes: another
    holder's, instance or thing) marked ``other``, as superseded revisions are marked."""
    def mark(item: EvidenceItem) -> EvidenceItem:
        if item.source_id not in others:
            return item
        return dataclasses.replace(item, routes={**item.routes, "other": 1})
    return [dataclasses.replace(u, items=tuple(mark(i) for i in u.items))
            if isinstance(u, EvidenceGroup) else mark(u) for u in arranged]
