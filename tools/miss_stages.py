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

"Packed, no lead", sorted (forty-eighth session, main d2a8743's base ledger, readable a-bq
build: 254 of 881 misses; the chain traced per question). What the reader cited: an older
statement of the thing for a change or chain 144, a look-alike (35 of them later than the
current record) 48, another record for a restated value 19, for a past time 11. Why the
chain found no lead: no anchor 76 (50 of them not asked of the present: "When was my GP
appointment?", "What time did the transport pick me up?" are past-tense questions the
chain does not read); the anchor is the current record, but nothing later revises it and
it revises nothing before it, so the chain returns None 50 (the reader then takes the
newest near match, a later look-alike, 23 distractors; or an older statement); the anchor
is the record cited and the current record was not joined 127: no link (it names no word
of the thing, "her flight's now the 22nd" for "When is my mother-in-law arriving?", or
untyped, near but no change marked) 50, the whose/which-thing checks 25, a robot's or a
question's turn 17, not a candidate 15, other checks 20. Tried on re-asks of the base
ledger (readable build | confirm current@1, old@1, never; held and LoCoMo changes
unchanged unless said), none kept:
the anchor leads when nothing revises it: 0.7496 -> 0.7420 | 0.7183 -> 0.7025, never
0.0913 -> 0.1026 | 0.1213 -> 0.1346 (build 45 up, 90 down: the reader's newest near
match is an unjoined revision more often than a look-alike); a past-tense question naming
no time read as settled (the newest telling, the chain run): 0.7494, old 0.1263 | 0.7163,
old 0.1368, never 0.1246, held 0.7843 -> 0.7892 | 0.75 -> 0.7549 (build 11 up 11 down,
confirm 5 up 19 down: distractors asked in the past); a later record of the anchor's
speaker at ``CLOSE`` (0.6) or nearer joins an untyped thing without a change marked:
0.7496 | 0.716, never 0.1262, LoCoMo changes build 0.4286 -> 0.4 (18 up 24 down | 9 up 22
down); the same only in a later conversation, in the past tense, where the robot takes
part ("Sam got poached by an architecture firm!"): 0.7519, old 0.1292 | 0.718, never
0.1246, held confirm 0.75 -> 0.7598, LoCoMo unchanged (12 up 6 down | 5 up 8 down): no
gain on confirm and one more never-stated question answered. Nearest to kept: the chain's
anchor that nothing revises leads only where the reader cited a record said before it
(branch pack48-unrevised): 0.7502, old 0.1292 | 0.7194, old 0.1382, never 0.1196, LoCoMo
changes confirm 0.3226 -> 0.3548 (8 up 7 down | 6 up 4 down), but held confirm 0.75 ->
0.7451, one question from current to old.
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

HELD_AND_UNSEEN = frozenset({"bz", "ca", "cb", "cc"})


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

    chain = current.chain

    def traced(*args: Any, **kwargs: Any) -> Any:
        seen["chain"] = chain(*args, **kwargs)  # the last call's answer: the one kept
        return seen["chain"]

    engine.rank, engine.pack = ranked, packed  # type: ignore[method-assign]
    current.chain = traced  # type: ignore[assignment]
    rows = {}
    try:
        for it in items:
            seen.clear()
            res = engine.ask(QueryRequest(Scope(it.subject_id), it.question, asker=it.asker),
                             now=it.ask_time or None)
            graph, found = seen.get("graph"), seen.get("chain")
            rows[it.item_id] = {
                "q": it.question, "kind": it.kind, "status": res.status,
                "current": list(it.current), "stale": list(it.stale),
                "ranked": [f.source_id for f in seen.get("ranked", [])[:current.POOL]],
                "pack": seen["pack"].source_ids if "pack" in seen else [],
                "lead": list(graph.lead) if graph is not None else [],
                "cited": list(res.source_ids[:3]),
                "chain_lead": found.lead[0] if found is not None else None,
                "steps": [list(s) for s in found.steps] if found is not None else [],
                "present": "plan" in seen and current.asks_present(it.question, seen["plan"])}
    finally:
        current.chain = chain  # type: ignore[assignment]
        engine.close()
        shutil.rmtree(tmp)
    return rows


def arguments(doc: str) -> argparse.ArgumentParser:
    """The arguments this tool and ``lead_steps`` share: the ledger, the half, where to
    write the rows."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("ledger", type=Path, help="a folder holding natural.db")
    ap.add_argument("--split", default="build", choices=("build", "confirm"))
    ap.add_argument("--out", type=Path, help="write the rows here")
    return ap


def captured(a: argparse.Namespace) -> dict[str, dict[str, Any]] | None:
    """``capture`` for parsed ``arguments``, the rows written to ``--out``; None (said on
    stderr) where the ledger folder holds no natural.db."""
    if not (a.ledger / "natural.db").exists():
        print(f"no natural.db in {a.ledger}", file=sys.stderr)
        return None
    rows = capture(a.ledger, a.split)
    if a.out:
        a.out.write_text(json.dumps(rows))
    return rows


def main(argv: list[str] | None = None) -> int:
    rows = captured(arguments(__doc__).parse_args(argv))
    if rows is None:
        return 2
    stages = Counter((r["present"], stage_of(r)) for r in rows.values())
    misses = sum(n for (_, s), n in stages.items() if s)
    print(f"{len(rows)} asked, {misses} missed")
    for (present, stage), n in sorted(stages.items(), key=lambda x: -x[1]):
        if stage:
            print(f"{n:5d}  {'present' if present else 'other  '}  {stage}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
