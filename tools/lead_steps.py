"""Which step of the currentness chain made its lead, and how often that lead is current.

    PYTHONPATH=. python tools/lead_steps.py LEDGER_DIR [--split build] [--out ROWS.json]

Takes the rows of ``miss_stages.capture`` (the readable authors' histories questions on a
copy of a kept ``bench updates --natural`` ledger): for each, the chain's answer
(``current.chain``'s last call in the question), its lead and the steps that made it
(``Chain.steps``). Prints per step how many
leads it made and how many of them are the item's current record, a stale one or
another record (precision = current / made), over all questions, not only misses; and,
against the lead the step replaced (the anchor or an earlier revision), how often it put a
current record in place of another (won) or took a current record's place (lost).

Result (main 494ee40's code on the base ledger of the fifty-first session, readable build,
4,129 stated questions, 2,420 led by the chain; made / current / stale / other, precision,
won / lost): a shared word of the thing 953 / 771 / 109 / 73, 0.809, 541 / 85; vector
nearness alone ("close") 419 / 291 / 46 / 82, **0.695**, 249 / 69; a rule's ``updates`` edge
245 / 176 / 30 / 39, 0.718, 164 / 35 (most of its losses the robot's echo of the anchor,
which the engine then puts behind the person's words: the cited record is current); the
question's own words joining the reply ("told: shares") 180, 0.739; a hand-over 93, 0.699;
the at-time anchor 189, 0.905; the anchor revising an earlier statement 124, 0.863; the
smaller steps (carried turn 26, reopens 25, forward 21, retells 17, brought about 11,
gives way 12, judged edge 11, drops 10) 0.55-0.79. The cited record recovers many wrong
leads: of the 419 nearness leads the answer cites a current record first in 313, and in
only 36 is the cited record wrong where the lead before that step was current.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from miss_stages import arguments, captured  # the same questions asked the same way (tools/ beside it)


def step_of(why: str) -> str:
    """The step's name without the words or records it names."""
    for name in ("updates edge (not recalled)", "updates edge", "judged edge", "told: close",
                 "told: shares", "told: shifts", "close", "shares", "shifts", "brought about",
                 "retells", "steps on", "drops", "gives way", "forward", "anchor revises",
                 "moves to"):
        if why.startswith(name):
            if name == "steps on":
                return "steps on: " + ("shares" if ": shares" in why else "gives way")
            return name
    return why or "?"


def table(rows: dict[str, dict[str, Any]]) -> list[str]:
    """Per step (the last one, which made the lead): leads made, current / stale / other,
    precision, the answers citing a current record first, and against the lead before
    that step (the anchor or an earlier revision): how often the step took a current
    record's place (lost) or put one in place of another (won)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows.values():
        lead = r["chain_lead"]
        if lead is None or not r["steps"]:
            continue
        step = step_of(r["steps"][-1][0])
        got = "current" if lead in r["current"] else \
            "stale" if lead in r["stale"] else "other"
        counts[step][got] += 1
        counts[step]["cited current"] += bool(r["cited"]) and r["cited"][0] in r["current"]
        if len(r["steps"]) > 1:
            before = r["steps"][-2][1] in r["current"]
            counts[step]["won"] += got == "current" and not before
            counts[step]["lost"] += got != "current" and before
    out = [f"{'step':28s} {'made':>5s} {'cur':>5s} {'stale':>5s} {'other':>5s} {'prec':>6s}"
           f" {'cited cur':>9s} {'won':>4s} {'lost':>4s}"]
    for step, c in sorted(counts.items(), key=lambda x: -sum(x[1][k] for k in
                                                              ("current", "stale", "other"))):
        made = c["current"] + c["stale"] + c["other"]
        out.append(f"{step:28s} {made:5d} {c['current']:5d} {c['stale']:5d} {c['other']:5d}"
                   f" {c['current'] / made:6.3f} {c['cited current']:9d} {c['won']:4d}"
                   f" {c['lost']:4d}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = arguments(__doc__)
    ap.add_argument("--rows", type=Path, help="print the table of rows written before")
    a = ap.parse_args(argv)
    rows = json.loads(a.rows.read_text()) if a.rows else captured(a)
    if rows is None:
        return 2
    print(f"{len(rows)} asked, {sum(r['chain_lead'] is not None for r in rows.values())} led")
    print("\n".join(table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
