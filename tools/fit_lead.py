"""A learned choice of the record that leads (issue 14), and whether it transfers.

Usage::

    python tools/fit_lead.py capture LEDGER ROWS.json [--locomo]
    python tools/fit_lead.py evaluate ROWS.json
    python tools/fit_lead.py replay LEDGER ROWS.json

``capture`` re-asks every natural item (``bench updates --natural``) on a kept ledger
(the ``natural.db`` that run keeps; only read) and records, at the end of the query's
currentness stage, the candidates for the lead: the chain's lead, what it superseded,
its look-alikes, the resolver's lead and the fused pool's top ``POOL``. Each candidate
gets general features only (no word lists, no names: ranks, cosines, time order,
speaker roles, typed-value detectors, graph edges, the chain's verdict) and the label
"is one of the item's ``current`` records".

``evaluate`` fits a small model (scikit-learn, used only here) leave-one-author-out:
for each author (and LoCoMo's changes as one more fold) it is fitted on the *build*
halves of the others and scored on both halves of the held-out one. Printed per fold:
current@1 of the engine's first cited source, of the chain's lead, of the model's
choice over all candidates (pointwise and pairwise logistic regression) and of the
model used only as a veto on the chain's lead (it overrides the lead only by a
margin). ``replay`` asks every item again with the held-out fold's model choosing the
lead among the chain's set (its lead, what it superseded, the resolver's lead) inside
the engine, and prints current@1, old@1 and answer_ok before and after per fold.

Folds are the authors (a history's ID without its number: "am07" is author am) and
LoCoMo's changes; ``capture --skip`` (default ``an,ao``, the sets kept unseen) leaves
authors out of capture and fit altogether. ``evaluate --variants`` names the variants
to score ("vf_*": a veto on the engine's first cited source by a margin, only where it
answered) and ``--folds`` the folds; ``replay --among all`` lets the model choose among
every captured candidate, not only the chain's set. Set ``OPENBLAS_NUM_THREADS=1`` on a
shared machine (the fits are small; BLAS threads made them ten times slower).

Result (fac74c7, 15 authors + LoCoMo changes, confirm halves): no variant gains on
most held-out authors; wired in (``replay``), current@1 0.694 -> 0.693, old@1 0.135 ->
0.145, answer_ok 0.661 -> 0.652. The model is not part of the engine.

Re-tried with 39 authors (f202cf5, thirty-third session; a..am and LoCoMo's changes,
4,767 questions, 56 features: the 42 above and the asker, the chain's carried turn, the
judge's confidence on the record's ``updates`` edges in and out, an edge to or from the
anchor, its facts' status, cosine to the chain's lead, time order among all candidates,
change and denial markers). Held-out folds, pooled (build n 1,961 / confirm n 2,009),
current@1 of the engine's first cited source 0.748 / 0.689; the model's choice over all
candidates (``clogit``) 0.724 / 0.700 (confirm folds gained / same / lost 22 / 2 / 16);
with the first cited source as a feature (``read_all``) 0.783 / 0.731 (29 / 4 / 7). Both
gains come from questions the engine abstained on (the model names a current record in
100 of 176 confirm abstentions), not from better choices where it answered: there the
model is right less often than the engine (confirm 1,306 against 1,384 of 1,833; build
1,354 against 1,467 of 1,832), ``read_ans`` 0.744 / 0.683, and the vetoes on the first
cited source give back the engine's figure (``vf_cl3`` 0.747 / 0.689, 14 / 15 / 11;
``vf_rd2`` 0.747 / 0.690, 6 / 30 / 4). Filling abstentions is no way out: the model's
probability does not tell a never-stated question from an answerable one (at 0.5 on
the confirm halves' abstentions: 70 current, 26 stale, 256 never-stated questions picked).
C 0.1 or 10 changes nothing (clogit confirm 0.699 / 0.699); the 42 old features alone
give 0.693. More authors help the later voices a little (p..am confirm, clogit fitted on
a..o 0.680, on the other 38 authors 0.694, first cited 0.662) but not enough: wired in
(``replay``, fold models), the chain's set: build 0.748 -> 0.749, confirm current@1
0.689 -> 0.686, old@1 0.146 -> 0.155, answer_ok 0.656 -> 0.653 (10 / 21 / 9 folds);
every candidate (``--among all``): build 0.748 -> 0.728, confirm 0.689 -> 0.683, old@1
0.146 -> 0.170, answer_ok 0.656 -> 0.634 (15 / 8 / 17; a..o confirm 0.749 -> 0.731, p..am
0.662 -> 0.664 with old@1 0.167 -> 0.193). It does not transfer; not wired in.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from trace_ros.bench import updates_natural as un
from trace_ros.config import load_config
from trace_ros.embed import MiniLMEncoder
from trace_ros.language.revision import (
    NEAR,
    denies_change,
    gives_up,
    marks_change,
    state_values,
)
from trace_ros.language.timeanchor import find_candidates
from trace_ros.language.vocab import is_robot
from trace_ros.ledger import Ledger, Scope, SourceRecord
from trace_ros.query import current
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.query.paths import GraphOutcome
from trace_ros.query.plan import Plan
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.recall import Fused
from trace_ros.query.spans import asked, fits, has_number

LOCOMO = Path("/work/shared/data/locomo10.json")
POOL = 24

FEATURES = (
    "fused_rr", "in_pool", "score_rel", "dense_rr", "lex_rr", "cos_q", "cos_anchor",
    "cos_best", "is_anchor", "latest_near5", "latest_near7", "order_frac", "after_anchor",
    "gap", "spk_main", "spk_robot", "spk_other", "spk_named", "echo", "fits_kind",
    "has_number", "has_time", "is_lead0", "in_lead", "in_superseded", "in_others",
    "resolver_lead0", "in_resolver_lead", "upd_out", "upd_in", "contra", "q_present",
    "q_past", "is_question", "log_len", "lead0_x_changed", "latest5_x_present",
    "after_x_past", "same_speaker_anchor", "moves_from_anchor", "anchor_moves_from",
    "states_value",
    # Added with 39 authors (thirty-third session): the asker, the chain's carried turn,
    # the graph's verdicts with the judge's confidence, the record's facts' status,
    # cosine to the chain's lead, time order among all candidates, change markers.
    "spk_asker", "carried", "upd_out_conf", "upd_in_conf", "upd_over_anchor",
    "anchor_over", "fact_superseded", "fact_active", "cos_lead", "newest_all",
    "time_frac", "marks_change", "denies_change", "lead_is_robot",
)


def _rr(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / rank


class Capturing(QueryEngine):
    """The engine, with the lead's candidates and their features kept after currentness."""

    captured: dict[str, Any] | None = None

    def currentness(self, req: QueryRequest, plan: Plan, ranked: list[Fused],
                    graph: GraphOutcome, generation: int, timings: dict[str, float]
                    ) -> float | None:
        before = list(graph.lead)
        held = super().currentness(req, plan, ranked, graph, generation, timings)
        self.captured = self.features(req, plan, ranked, graph, before, held, generation)
        return held

    def features(self, req: QueryRequest, plan: Plan, ranked: list[Fused],
                 graph: GraphOutcome, before: list[str], held: float | None,
                 generation: int) -> dict[str, Any]:
        q = req.question
        pos = {f.source_id: (i, f) for i, f in enumerate(ranked[:POOL * 2])}
        ids = list(dict.fromkeys(graph.lead + graph.superseded + graph.others + before
                                 + [f.source_id for f in ranked[:POOL]]))
        recs = {r.source_id: r for r in self.ledger.get_sources(ids)
                if r.subject_id == req.scope.subject_id}
        ids = [s for s in ids if s in recs]
        if not ids:
            return {"ids": [], "X": []}
        assert self.index is not None
        sv = self.index.current(req.scope.subject_id)
        row = {int(s): i for i, s in enumerate(sv.seqs)}
        qvec = self._question_vector(q)

        def vec(r: SourceRecord) -> np.ndarray | None:
            i = row.get(r.seq)
            return None if i is None else sv.matrix[i]

        people = Counter(s for s in sv.speaker if not is_robot(str(s), req.scope.robot_id))
        main = people.most_common(1)[0][0] if people else ""
        q_words = {w.strip(".,?!'\"").lower() for w in q.split()}
        anchor_id = (graph.superseded[:1] or graph.lead[:1] or ids[:1])[0]
        anchor = recs.get(anchor_id) or recs[ids[0]]
        best = recs.get(ranked[0].source_id) if ranked else None
        va, vb = vec(anchor), (vec(best) if best is not None else None)
        top = ranked[0].score if ranked else 1.0
        wanted = asked(q, plan)
        present = current.asks_present(q, plan)
        changed = bool(graph.lead[:1]) and graph.lead[:1] != before[:1]
        facts = self.graph_stage.facts.subject(req.scope.subject_id)
        cos_a = {}
        for s in ids:
            v = vec(recs[s])
            cos_a[s] = float(v @ va) if v is not None and va is not None else 0.0
        anchor_facts = set(facts.by_source.get(anchor.source_id, ())) if facts is not None else set()
        lead0 = recs.get(graph.lead[0]) if graph.lead else None
        vl = vec(lead0) if lead0 is not None else None
        times = sorted(recs[t].source_time for t in ids)
        newest = times[-1]
        X = []
        for s in ids:
            r = recs[s]
            v = vec(r)
            i, f = pos.get(s, (None, None))
            rank_in = i is not None and i < POOL
            routes = f.ranks if f is not None else {}
            near5 = [t for t in ids if cos_a[t] >= NEAR]
            near7 = [t for t in ids if cos_a[t] >= 0.7]
            later5 = sum(recs[t].source_time > r.source_time for t in near5)
            dt = r.source_time - anchor.source_time
            robot = is_robot(r.speaker, req.scope.robot_id)
            echo = 0.0
            if robot:
                said = self.prior_turn(r.seq, req.scope, generation)
                echo = float(said is not None and current.echoes(r, said, req.scope.robot_id))
            upd_out = upd_in = contra = sup = act = 0
            out_conf = in_conf = over_anchor = anchor_over = 0.0
            if facts is not None:
                for fid in facts.by_source.get(s, ()):
                    if fid in facts.facts:
                        status = facts.facts[fid].status
                        sup += status == "superseded"
                        act += status == "active"
                    for eid in facts.adjacent.get(fid, ()):
                        e = facts.edges.get(eid)
                        if e is None:
                            continue
                        if e.type == "updates":
                            if e.src == fid:
                                upd_out += 1
                                out_conf = max(out_conf, e.confidence)
                                over_anchor = max(over_anchor, float(e.dst in anchor_facts))
                            else:
                                upd_in += 1
                                in_conf = max(in_conf, e.confidence)
                                anchor_over = max(anchor_over, float(e.src in anchor_facts))
                        elif e.type == "contradicts":
                            contra += 1
            latest5 = float(cos_a[s] >= NEAR and later5 == 0)
            after = float(dt > 0)
            X.append([
                _rr(None if i is None else i + 1), float(rank_in),
                (f.score / top) if f is not None and top else 0.0,
                _rr(routes.get("dense")), _rr(routes.get("lexical")),
                float(v @ qvec) if v is not None else 0.0, cos_a[s],
                float(v @ vb) if v is not None and vb is not None else 0.0,
                float(s == anchor.source_id), latest5,
                float(cos_a[s] >= 0.7 and not any(recs[t].source_time > r.source_time
                                                  for t in near7)),
                later5 / max(1, len(near5)), after,
                math.copysign(math.log1p(abs(dt) / 86400.0), dt),
                float(r.speaker == main and not robot), float(robot),
                float(not robot and r.speaker != main),
                float(r.speaker.lower() in q_words), echo,
                float(bool(wanted.kind) and fits(wanted.kind, r.text)),
                float(has_number(r.text)), float(bool(find_candidates(r.text))),
                float(graph.lead[:1] == [s]), float(s in graph.lead),
                float(s in graph.superseded), float(s in graph.others),
                float(before[:1] == [s]), float(s in before),
                min(upd_out, 3), min(upd_in, 3), min(contra, 3),
                float(present), float(held is not None), float("?" in r.text),
                math.log1p(len(r.text.split())),
                float(graph.lead[:1] == [s] and changed), latest5 * float(present),
                after * float(held is not None),
                float(r.speaker == anchor.speaker),
                float(s != anchor.source_id and bool(gives_up(anchor.text, r.text))),
                float(s != anchor.source_id and bool(gives_up(r.text, anchor.text))),
                float(bool(state_values(r.text))),
                float(bool(req.asker) and r.speaker == req.asker),
                float(bool(graph.carried) and graph.carried == s),
                out_conf, in_conf, over_anchor, anchor_over,
                min(sup, 3), min(act, 3),
                float(v @ vl) if v is not None and vl is not None else 0.0,
                float(r.source_time == newest),
                times.index(r.source_time) / max(1, len(times) - 1),
                float(bool(marks_change(r.text))), float(bool(denies_change(r.text))),
                float(lead0 is not None and is_robot(lead0.speaker, req.scope.robot_id)),
            ])
        return {"ids": ids, "X": X}


def author(item: un.Item) -> str:
    """The fold of an item: its history file's author (the letters of the history's ID,
    "am07" -> "am"), or "locomo" for LoCoMo's changes."""
    return re.match(r"[a-z]+", item.subject_id).group(0) if item.set == "histories" \
        else "locomo"


def capture(args: argparse.Namespace) -> None:
    data = un.load(un.DATA, LOCOMO if args.locomo else None)
    skip = {a for a in args.skip.split(",") if a}
    cfg = load_config(None)
    rows = []
    with Ledger(Path(args.ledger), cfg.ledger) as ledger:
        eng = Capturing(ledger, MiniLMEncoder(cfg.embed), ExtractiveReader(), cfg.recall,
                        audit=False)
        for it in data.items:
            if author(it) in skip or args.only and author(it) not in args.only.split(","):
                continue  # held out: never captured, never fitted on
            eng.captured = None
            r = eng.ask(QueryRequest(Scope(it.subject_id), it.question, asker=it.asker),
                        now=it.ask_time or None)
            got = eng.captured or {"ids": [], "X": []}
            first = r.source_ids[0] if r.source_ids else None
            rows.append({
                "id": it.item_id, "set": it.set, "split": it.split, "kind": it.kind,
                "author": author(it),
                "first": first, "status": r.status,
                "ok": r.status == "answered" and un.answer_holds(r.answer, it.answer),
                "current": list(it.current), "stale": list(it.stale),
                "ids": got["ids"], "X": got["X"]})
        eng.close()
    Path(args.rows).write_text(json.dumps({"features": FEATURES, "rows": rows}))
    print(f"{len(rows)} items captured", file=sys.stderr)


# -- evaluation ----------------------------------------------------------------------

Score = Callable[[np.ndarray], np.ndarray]
# A fitted model: its score and its weights on the standardised features.
Fitted = tuple[Score, np.ndarray]


def _items(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The questions with a current record (never-stated ones are not about the lead),
    each with its candidates' feature matrix ``A`` (and ``B``: with the engine's first
    cited source as one more feature) and its mask of current candidates ``m``."""
    out = []
    for r in rows:
        if r["kind"] == "never" or not r["current"] or not r["ids"]:
            continue
        a = np.array(r["X"], dtype=float)
        first = np.array([[float(s == r["first"])] for s in r["ids"]])
        out.append(dict(r, A=a, B=np.hstack([a, first]),
                        m=np.array([s in r["current"] for s in r["ids"]])))
    return out


def _standard(train: list[dict[str, Any]], key: str) -> tuple[np.ndarray, np.ndarray]:
    allx = np.vstack([r[key] for r in train])
    return allx.mean(0), allx.std(0) + 1e-6


def _pointwise(train: list[dict[str, Any]], key: str, c: float) -> Fitted:
    """Logistic regression: is this candidate a current record?"""
    from sklearn.linear_model import LogisticRegression
    mu, sd = _standard(train, key)
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit((np.vstack([r[key] for r in train]) - mu) / sd,
              np.concatenate([r["m"] for r in train]))
    return (lambda x: model.decision_function((x - mu) / sd)), model.coef_[0]


def _pairwise(train: list[dict[str, Any]], key: str, c: float) -> Fitted:
    """Logistic regression on differences, a current candidate against each other one
    of its question (both signs): only the order within a question is learned."""
    from sklearn.linear_model import LogisticRegression
    mu, sd = _standard(train, key)
    diffs = []
    for r in train:
        x = (r[key] - mu) / sd
        for g in np.flatnonzero(r["m"]):
            diffs += [x[g] - x[b] for b in np.flatnonzero(~r["m"])]
    d = np.array(diffs)
    model = LogisticRegression(C=c, max_iter=2000, fit_intercept=False)
    model.fit(np.vstack([d, -d]), np.r_[np.ones(len(d)), np.zeros(len(d))])
    w = model.coef_[0]
    return (lambda x: ((x - mu) / sd) @ w), w


def _clogit(train: list[dict[str, Any]], key: str, c: float) -> Fitted:
    """Conditional logit (a softmax over each question's candidates, L2 ``1/c``): the
    likelihood that the choice falls on a current record, what current@1 counts."""
    from scipy.optimize import minimize
    mu, sd = _standard(train, key)
    used = [r for r in train if r["m"].any()]
    x = (np.vstack([r[key] for r in used]) - mu) / sd
    m = np.concatenate([r["m"] for r in used]).astype(float)
    # Every question's rows lie together: its start, and each row's question.
    sizes = np.array([len(r["m"]) for r in used])
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    group = np.repeat(np.arange(len(used)), sizes)
    lam = 1.0 / c

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        s = x @ w
        p = np.exp(s - np.maximum.reduceat(s, starts)[group])
        z = np.add.reduceat(p, starts)
        pc = np.add.reduceat(p * m, starts)
        total = lam * w @ w / 2 - float(np.sum(np.log(pc / z + 1e-12)))
        grad = lam * w - x.T @ (p * m / pc[group] - p / z[group])
        return total, grad

    w = minimize(loss, np.zeros(mu.size), jac=True, method="L-BFGS-B").x
    return (lambda x: ((x - mu) / sd) @ w), w


def _chain_lead(r: dict[str, Any]) -> int | None:
    lead = np.flatnonzero(r["A"][:, FEATURES.index("is_lead0")])
    return int(lead[0]) if lead.size else None


def _choose(r: dict[str, Any], score: Score, key: str, veto: float | None,
            answered_only: bool, against: str = "lead") -> str | None:
    """The candidate the model puts first; with ``veto``, the chain's lead (``against``
    "lead") or the engine's first cited source ("first") stays unless the model scores
    another above it by more than ``veto``; ``answered_only``: where the engine
    abstained it still abstains (the model reorders, never adds, an answer)."""
    if answered_only and r["first"] is None:
        return None
    s = score(r[key])
    best = int(np.argmax(s))
    if veto is not None:
        if against == "first":
            i = r["ids"].index(r["first"]) if r["first"] in r["ids"] else None
        else:
            i = _chain_lead(r)
        if i is None:
            return r["first"]
        return r["ids"][best] if s[best] - s[i] > veto else r["ids"][i]
    return r["ids"][best]


# name -> (fit, feature key, veto margin, answered only, vetoed). "read_*": after the
# reader, with its first cited source as a feature (a post-read re-ranking, not at
# currentness); "vf*": a veto on the engine's first cited source by a margin.
Variant = tuple[Callable[..., Fitted], str, float | None, bool, str]
VARIANTS: dict[str, Variant] = {
    "point": (_pointwise, "A", None, False, "lead"),
    "pair": (_pairwise, "A", None, False, "lead"),
    "clogit": (_clogit, "A", None, False, "lead"),
    "veto_pt": (_pointwise, "A", 1.0, False, "lead"),
    "veto_cl": (_clogit, "A", 1.0, False, "lead"),
    "read_all": (_clogit, "B", None, False, "lead"),
    "read_ans": (_clogit, "B", None, True, "lead"),
    "vf_cl1": (_clogit, "A", 1.0, True, "first"),
    "vf_cl2": (_clogit, "A", 2.0, True, "first"),
    "vf_cl3": (_clogit, "A", 3.0, True, "first"),
    "vf_rd1": (_clogit, "B", 1.0, True, "first"),
    "vf_rd2": (_clogit, "B", 2.0, True, "first"),
}


def evaluate(args: argparse.Namespace) -> None:
    blob = json.loads(Path(args.rows).read_text())
    assert tuple(blob["features"]) == FEATURES, "rows captured with other features"
    items = _items(blob["rows"])
    authors = sorted({r["author"] for r in items})
    variants = {k: v for k, v in VARIANTS.items()
                if not args.variants or k in args.variants.split(",")}
    cols = ["first", "lead0", *variants]
    print(f"{'fold':7s} {'half':7s} {'n':>4s} " + " ".join(f"{c:>8s}" for c in cols))
    tot: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(len(cols) + 1))
    wins: dict[str, list[int]] = {v: [0, 0, 0] for v in variants}
    for a in authors:
        if args.folds and a not in args.folds.split(","):
            continue
        train = [r for r in items if r["author"] != a and r["split"] == "build"]
        fitted: dict[tuple[str, str], Score] = {}
        for fit, key, *_ in variants.values():
            if (fit.__name__, key) not in fitted:
                fitted[(fit.__name__, key)] = fit(train, key, args.c)[0]
        for half in ("build", "confirm"):
            test = [r for r in items if r["author"] == a and r["split"] == half]
            if not test:
                continue
            picks: list[list[str | None]] = [[r["first"] for r in test]]
            picks.append([r["ids"][i] if (i := _chain_lead(r)) is not None else r["first"]
                          for r in test])
            for fit, key, veto, ans, against in variants.values():
                score = fitted[(fit.__name__, key)]
                picks.append([_choose(r, score, key, veto, ans, against) for r in test])
            hits = np.array([sum(p in r["current"] for p, r in zip(col, test, strict=True))
                             for col in picks])
            n = len(test)
            print(f"{a:7s} {half:7s} {n:4d} " + " ".join(f"{h / n:8.3f}" for h in hits))
            tot[half] += np.r_[n, hits]
            if half == "confirm":
                for name, h in zip(variants, hits[2:], strict=True):
                    wins[name][0 if h > hits[0] else 1 if h == hits[0] else 2] += 1
    for half, cell in tot.items():
        print(f"{'ALL':7s} {half:7s} {int(cell[0]):4d} "
              + " ".join(f"{h / cell[0]:8.3f}" for h in cell[1:]))
    print("held-out confirm halves vs the engine's first cited source: gained / same / lost")
    for name, w in wins.items():
        print(f"  {name:9s} {w[0]:2d} / {w[1]:2d} / {w[2]:2d}")


# -- replay: the fold's model re-ranks the lead inside the engine ------------------------

CHAIN_SET = ("in_lead", "in_superseded", "in_resolver_lead")


def _chain_set(r: dict[str, Any]) -> dict[str, Any] | None:
    """The item restricted to what the chain and the resolver put forward (its lead,
    what it superseded, the resolver's lead), or None when the chain gave no lead or
    nothing to choose."""
    cols = [FEATURES.index(n) for n in CHAIN_SET]
    keep = [i for i, x in enumerate(r["X"]) if any(x[j] for j in cols)]
    lead = FEATURES.index("is_lead0")
    if len(keep) < 2 or not any(r["X"][i][lead] for i in keep):
        return None
    return dict(r, ids=[r["ids"][i] for i in keep], X=[r["X"][i] for i in keep])


class Replaying(Capturing):
    """The engine with a model choosing the lead among the chain's set (or, with
    ``among`` "all", among every candidate captured) at the end of currentness (what
    wiring it in would do), one fitted model per held-out author."""

    score: Score | None = None
    among: str = "chain"

    def currentness(self, req: QueryRequest, plan: Plan, ranked: list[Fused],
                    graph: GraphOutcome, generation: int, timings: dict[str, float]
                    ) -> float | None:
        held = super().currentness(req, plan, ranked, graph, generation, timings)
        got: dict[str, Any] | None = self.captured or {"ids": [], "X": []}
        if self.among == "chain":
            got = _chain_set(got)  # type: ignore[arg-type]
        if not got or not got["ids"] or self.score is None:
            return held
        pick = got["ids"][int(np.argmax(self.score(np.array(got["X"], dtype=float))))]
        if graph.lead[:1] != [pick]:
            graph.lead = [pick] + [s for s in graph.lead if s != pick]
            graph.superseded = [s for s in graph.superseded if s != pick]
            graph.reader_resolution = None
        return held


def replay(args: argparse.Namespace) -> None:
    blob = json.loads(Path(args.rows).read_text())
    assert tuple(blob["features"]) == FEATURES, "rows captured with other features"
    items = _items(blob["rows"] if args.among == "all"
                   else [c for r in blob["rows"] if (c := _chain_set(r)) is not None])
    authors = sorted({r["author"] for r in blob["rows"]})
    models = {a: _clogit([r for r in items if r["author"] != a and r["split"] == "build"],
                         "A", args.c)[0] for a in authors}
    data = un.load(un.DATA, LOCOMO)
    cfg = load_config(None)
    base = {r["id"]: r for r in blob["rows"]}
    cells: dict[tuple[str, str], np.ndarray] = defaultdict(lambda: np.zeros(7))
    with Ledger(Path(args.ledger), cfg.ledger) as ledger:
        eng = Replaying(ledger, MiniLMEncoder(cfg.embed), ExtractiveReader(), cfg.recall,
                        audit=False)
        for it in data.items:
            was = base.get(it.item_id)
            if was is None:
                continue  # not captured (held out)
            eng.score, eng.among = models[was["author"]], args.among
            r = eng.ask(QueryRequest(Scope(it.subject_id), it.question, asker=it.asker),
                        now=it.ask_time or None)
            first = r.source_ids[0] if r.source_ids else None
            ok = r.status == "answered" and un.answer_holds(r.answer, it.answer)
            if it.kind == "never":
                row = [0, 0, 0, 0, 0, 0, 0]
            else:
                row = [1, was["first"] in it.current, first in it.current,
                       was["first"] in it.stale, first in it.stale, was["ok"], ok]
            for k in ((was["author"], it.split), ("ALL", it.split)):
                cells[k] += row
        eng.close()
    print("current@1 / old@1 / answer_ok, engine then with the held-out fold's model")
    wins = [0, 0, 0]
    for (a, half), c in sorted(cells.items()):
        n = c[0]
        print(f"{a:7s} {half:7s} {int(n):4d} cur {c[1] / n:.3f} -> {c[2] / n:.3f}  "
              f"old {c[3] / n:.3f} -> {c[4] / n:.3f}  ok {c[5] / n:.3f} -> {c[6] / n:.3f}")
        if half == "confirm" and a != "ALL":
            wins[0 if c[2] > c[1] else 1 if c[2] == c[1] else 2] += 1
    print(f"held-out confirm halves, current@1 gained / same / lost: {wins}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("ledger")
    c.add_argument("rows")
    c.add_argument("--locomo", action="store_true")
    c.add_argument("--skip", default="an,ao",
                   help="authors held out unseen (not asked, not fitted on)")
    c.add_argument("--only", default="", help="capture only these authors (a trial)")
    e = sub.add_parser("evaluate")
    e.add_argument("rows")
    e.add_argument("--c", type=float, default=1.0)
    e.add_argument("--variants", default="", help="comma-separated (default: all)")
    e.add_argument("--folds", default="", help="held-out folds to score (default: all)")
    r = sub.add_parser("replay")
    r.add_argument("ledger")
    r.add_argument("rows")
    r.add_argument("--c", type=float, default=1.0)
    r.add_argument("--among", choices=("chain", "all"), default="chain",
                   help="the model chooses among the chain's set or every candidate")
    args = p.parse_args()
    {"capture": capture, "evaluate": evaluate, "replay": replay}[args.cmd](args)


if __name__ == "__main__":
    main()
