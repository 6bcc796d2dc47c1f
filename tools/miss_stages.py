"""Where a natural-bench miss lost its current record (issue 14): ranking, pack, chain or reader.

    PYTHONPATH=. python tools/miss_stages.py LEDGER_DIR [--split build] [--out ROWS.json]

Asks the histories questions of the readable authors (not the held or unseen ones, not
``never``) on a copy of a kept ``bench updates --natural`` ledger, as the bench asks them
(asker, ask time), and for each miss (the first citation is not a ``current`` record)
names the stage where the current record was lost (``stage_of``):

- ``not in the pool``: no current record among the best ``current.POOL`` (24) fused
  candidates (the ones the chain reads);
- ``not packed``: in the pool, but none reached the pack the reader is shown;
- ``packed, chain led elsewhere``: packed, and the chain's lead is another record;
- ``packed, no lead``: packed, the chain found no lead, the reader cited another;
- ``lead, reader cited other``: the chain's lead is current, the reader cited another;
- ``abstained``: the engine did not answer.

Result (main 7a183e3's base ledger, readable build: 3,407 stated questions, 858 misses,
763 of them asked of the present): packed, the chain led elsewhere 259; packed, no lead
251; abstained 222; not packed 72; the chain's lead current, the reader cited another 54;
none outside the pool. Of the present-tense misses whose current record sits in a
later session than the top candidate, 158 rank it 9-18 — but ranks 2-24 barely move an answer: the
chain reads its ``current.POOL`` (24) candidates whatever their order and the reader's
position prior is 0.1/(1+pos). Re-ranking variants for questions of the present
(the session prior carried on to every later session, moved to or shared with the latest
session that matches at least 0.6 of the best, switched off; the neighbour spread off; a
recency prior of 0.3) changed 1-37 of the 3,407 answers, current@1 -11..+1 on build and
the best of them (carried on) -3 on confirm (3 up, 6 down): none kept.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HELD_AND_UNSEEN = frozenset({"bp", "bq", "br", "bs"})


def stage_of(row: dict[str, Any]) -> str:
    """The stage a miss lost its current record at, from one captured row: ``current``
    (its source IDs), ``ranked``, ``pack``, ``lead`` and ``cited`` (source IDs in order)
    and ``status``; "" for a question answered from a current record."""
    current = set(row["current"])
    cited = row["cited"]
    if row["status"] == "answered" and cited and cited[0] in current:
        return ""
    if row["status"] != "answered":
        return "abstained"
    if not current & set(row["ranked"]):
        return "not in the pool"
    if not current & set(row["pack"]):
        return "not packed"
    lead = row["lead"]
    if lead and lead[0] in current:
        return "lead, reader cited other"
    return "packed, chain led elsewhere" if lead else "packed, no lead"


def capture(ledger_dir: Path, split: str) -> dict[str, dict[str, Any]]:
    """One row per asked question (see ``stage_of``), keyed by item ID."""
    from trace_ros.bench import updates_natural as un
    from trace_ros.config import load_config
    from trace_ros.embed import MiniLMEncoder
    from trace_ros.ledger import Scope
    from trace_ros.query import current
    from trace_ros.query.answer import QueryEngine, QueryRequest
    from trace_ros.query.readers import ExtractiveReader
    from trace_ros.storage import open_ledger, sqlite_url

    items = [it for it in un.load(un.DATA, None).items
             if it.set != "locomo" and it.split == split and it.kind != "never"
             and re.match(r"[a-z]+", it.item_id).group(0) not in HELD_AND_UNSEEN]
    tmp = Path(tempfile.mkdtemp(prefix="miss-stages-"))
    for f in ledger_dir.glob("natural.db*"):
        shutil.copy(f, tmp / f.name)
    cfg = load_config(None)
    ledger = open_ledger(sqlite_url(tmp / "natural.db"), cfg.ledger, create=False)
    engine = QueryEngine(ledger, MiniLMEncoder(cfg.embed), ExtractiveReader(), cfg.recall,
                         audit=False)
    seen: dict[str, Any] = {}
    rank, pack = engine.rank, engine.pack

    def ranked(*args: Any) -> Any:
        seen["ranked"], seen["plan"] = rank(*args), args[1]
        return seen["ranked"]

    def packed(req: Any, ranked_: Any, timings: Any, graph: Any = None,
               recalled: Any = None) -> Any:
        seen["pack"], seen["graph"] = pack(req, ranked_, timings, graph, recalled), graph
        return seen["pack"]

    engine.rank, engine.pack = ranked, packed  # type: ignore[method-assign]
    rows = {}
    try:
        for it in items:
            seen.clear()
            res = engine.ask(QueryRequest(Scope(it.subject_id), it.question, asker=it.asker),
                             now=it.ask_time or None)
            graph = seen.get("graph")
            rows[it.item_id] = {
                "q": it.question, "kind": it.kind, "status": res.status,
                "current": list(it.current), "stale": list(it.stale),
                "ranked": [f.source_id for f in seen.get("ranked", [])[:current.POOL]],
                "pack": seen["pack"].source_ids if "pack" in seen else [],
                "lead": list(graph.lead) if graph is not None else [],
                "cited": list(res.source_ids[:3]),
                "present": "plan" in seen and current.asks_present(it.question, seen["plan"])}
    finally:
        engine.close()
        shutil.rmtree(tmp)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ledger", type=Path, help="a folder holding natural.db")
    ap.add_argument("--split", default="build", choices=("build", "confirm"))
    ap.add_argument("--out", type=Path, help="write the rows here")
    a = ap.parse_args(argv)
    if not (a.ledger / "natural.db").exists():
        print(f"no natural.db in {a.ledger}", file=sys.stderr)
        return 2
    rows = capture(a.ledger, a.split)
    if a.out:
        a.out.write_text(json.dumps(rows))
    stages = Counter((r["present"], stage_of(r)) for r in rows.values())
    misses = sum(n for (_, s), n in stages.items() if s)
    print(f"{len(rows)} asked, {misses} missed")
    for (present, stage), n in sorted(stages.items(), key=lambda x: -x[1]):
        if stage:
            print(f"{n:5d}  {'present' if present else 'other  '}  {stage}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
