"""Fit the weights of ``trace_ros/consolidation/judge.py`` on the build halves.

Usage: ``python tools/fit_update_judge.py LEDGER [--locomo] [--threshold 0.6]
[--hold-out an,ao] [--write]``,
where LEDGER is the ``natural.db`` that ``trace-ros bench updates --natural --locomo …
--out DIR`` kept (it holds the histories and LoCoMo conversations 0-4 with their
vectors). Each person's statements are replayed in order as consolidation sees them;
every earlier statement ``judge.weigh`` would weigh against a later one is a row,
labelled 1 when a build-half question lists the earlier as stale and the later as
current (or, for a chain, both as stale in that order); with ``--locomo``, LoCoMo
conversations 0-4 add their pairs as what is no update (their annotated changes left
out). A logistic regression (scikit-learn, used only here) is fitted; ``--write``
stores its weights and the threshold in ``trace_ros/consolidation/judge_weights.py``.
``--hold-out`` names authors whose sets are read for nothing at all (the held-out
check: fitted last with ``--locomo --hold-out an,ao --threshold 0.7``).
The confirm halves are never fitted on: ``--check`` only counts, per half, the updates
the fitted judgement finds (the likeliest earlier statement of each later one, at the
threshold) and how many of those join statements no question lists as a change.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from trace_ros.config import load_config
from trace_ros.consolidation import judge
from trace_ros.consolidation.supersede import LOOKBACK, salient_in
from trace_ros.language.revision import terms
from trace_ros.language.vocab import is_robot
from trace_ros.ledger import Ledger
from trace_ros.storage import graph_of

ROOT = Path(__file__).resolve().parents[1]
NATURAL = ROOT / "trace_ros" / "bench" / "natural"
WEIGHTS = ROOT / "trace_ros" / "consolidation" / "judge_weights.py"


Pairs = dict[str, tuple[set[str], set[tuple[str, str]]]]


def build_pairs(locomo: bool, split: str = "build", held_out: frozenset[str] = frozenset()
                ) -> tuple[Pairs, set[tuple[str, str]]]:
    """Subject -> (its speakers, the (earlier, later) source-ID pairs that are updates),
    and the LoCoMo changes' pairs, left out of the fit: a year of a friend's life ("my
    family's been great" … "Family's super important to me") changes in ways no signal
    here tells apart, but the rest of what two people say in those conversations
    teaches the judgement what long chatty turns that are no update look like."""
    out: Pairs = {}
    skip: set[tuple[str, str]] = set()
    for path in sorted(NATURAL.glob("histories_*.json")):
        if path.stem.removeprefix("histories_") in held_out:
            continue  # a held-out author's set: neither read nor fitted on
        for h in json.loads(path.read_text())["histories"]:
            if h["split"] != split:
                continue
            speakers = {t["speaker"] for s in h["sessions"] for t in s["turns"]}
            pairs: set[tuple[str, str]] = set()
            for q in h["questions"]:
                stale = [f"{h['id']}:{r}" for r in q["stale"]]
                current = [f"{h['id']}:{r}" for r in q["current"]]
                later = current + (stale if q["kind"] == "chain" else [])
                pairs |= {(a, b) for a in stale for b in later if a != b}
            out[h["id"]] = (speakers, pairs)
    if locomo:
        for path in sorted(NATURAL.glob("locomo_changes_*.json")):
            for c in json.loads(path.read_text())["changes"]:
                if c["split"] != "build":
                    continue
                speakers, _ = out.setdefault(c["sample_id"], (set(), set()))
                speakers.add(c["speaker"])
                skip |= {(f"{c['sample_id']}:{a}", f"{c['sample_id']}:{b}")
                         for a in c["old"] for b in c["new"]}
    return out, skip


def collect(ledger: Ledger, locomo: bool, split: str = "build",
            held_out: frozenset[str] = frozenset()) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The weighed pairs' signals, labels, and the later statement's source ID."""
    rows: list[list[float]] = []
    labels: list[int] = []
    later: list[str] = []
    with ledger.read() as conn:
        subjects, skip = build_pairs(locomo and split == "build", split, held_out)
        for subject, (speakers, pairs) in subjects.items():
            for speaker in sorted(speakers):
                if is_robot(speaker, ""):
                    continue
                said = graph_of(conn).speaker_statements(conn, subject, speaker, 1 << 62)
                texts: list[str] = []
                vecs: list[np.ndarray] = []
                ids: list[str] = []
                used: Counter[str] = Counter()
                words = frozenset(w.lower() for w in speaker.split())
                for _, sid, text, vec in said:
                    unit = vec / (float(np.linalg.norm(vec)) or 1.0)
                    if texts and not text.rstrip().endswith("?"):
                        n = min(len(texts), LOOKBACK)
                        units = np.stack(vecs[-n:])
                        sims = units @ unit
                        for j, signals in judge.weigh(text, texts[-n:], sims,
                                                      salient_in(used, n), words,
                                                      units=units):
                            pair = (ids[len(ids) - n + j], sid)
                            if pair not in skip:
                                rows.append(signals)
                                labels.append(int(pair in pairs))
                                later.append(sid)
                    texts.append(text)
                    vecs.append(unit)
                    ids.append(sid)
                    used.update(terms(text))
                    if len(texts) > LOOKBACK:
                        used.subtract(terms(texts[-LOOKBACK - 1]))
    return np.array(rows), np.array(labels), later


def found(p: np.ndarray, y: np.ndarray, later: list[str], threshold: float
          ) -> tuple[int, int]:
    """As consolidation relates them: each later statement's likeliest earlier one, at
    the threshold; (updates found, others related)."""
    best: dict[str, int] = {}
    for i, sid in enumerate(later):
        if sid not in best or p[i] > p[best[sid]]:
            best[sid] = i
    hits = [i for i in best.values() if p[i] >= threshold]
    return sum(int(y[i]) for i in hits), sum(1 - int(y[i]) for i in hits)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("ledger", type=Path)
    parser.add_argument("--locomo", action="store_true",
                        help="also LoCoMo conversations 0-4, as statements that are no update")
    parser.add_argument("--threshold", type=float, default=0.6)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--hold-out", default="",
                        help="authors whose sets are left out entirely (comma-separated letters)")
    parser.add_argument("--check", action="store_true",
                        help="also count what the fit finds on the confirm halves")
    args = parser.parse_args()
    ledger = Ledger(args.ledger, load_config(None).ledger)
    held = frozenset(a for a in args.hold_out.split(",") if a)
    x, y, later = collect(ledger, args.locomo, held_out=held)
    model = LogisticRegression(C=args.C, max_iter=5000).fit(x, y)
    if judge.fitted():
        right, other = found(np.array([judge.probability(list(r)) for r in x]), y, later,
                             judge.THRESHOLD)
        print(f"the weights now, at {judge.THRESHOLD}: {right} found, {other} other pairs related")
    right, other = found(model.predict_proba(x)[:, 1], y, later, args.threshold)
    print(f"{len(y)} pairs weighed, {int(y.sum())} updates; at {args.threshold}: "
          f"{right} found, {other} other pairs related")
    if args.check:
        cx, cy, clater = collect(ledger, False, "confirm", held)
        right, other = found(model.predict_proba(cx)[:, 1], cy, clater, args.threshold)
        print(f"confirm: {len(cy)} pairs weighed, {int(cy.sum())} updates; "
              f"{right} found, {other} other pairs related")
    for name, w in zip(judge.FEATURES, model.coef_[0], strict=True):
        print(f"  {name:15s} {w:+.3f}")
    if args.write:
        weights = "".join(f"    {w:+.4f},  # {name}\n"
                          for name, w in zip(judge.FEATURES, model.coef_[0], strict=True))
        WEIGHTS.write_text(
            f'"""Weights of ``judge.py``, written by ``tools/fit_update_judge.py`` '
            f'({len(y)} pairs, {int(y.sum())} updates)."""\n\n'
            f"INTERCEPT = {model.intercept_[0]:.4f}\nTHRESHOLD = {args.threshold}\n"
            f"WEIGHTS = (\n{weights})\n")
        print("wrote", WEIGHTS)


if __name__ == "__main__":
    main()
