"""Which stage of the query pipeline withheld each answer of the natural histories.

Usage: ``python tools/abstain_stages.py LEDGER [--split build] [--skip A,B] [--show ORIGIN]``,
where LEDGER is the ``natural.db`` that ``trace-ros bench updates --natural --out DIR``
kept (copied to a temporary folder first: asking writes caches). ``--skip`` names the
authors whose histories are held out (never asked here, nor printed).

Each question of the split is asked again with the stock ``ExtractiveReader``; for every
one not answered the tool names where the answer was withheld: the reader's refusal, as
the ``module.function:line`` that made its empty ``ReaderOutput``, or the graph stage's
verdict (``graph.absent``: no record says the thing's words; ``graph.unrecorded``: no
fact of the person's relation; ``graph.resolver:<status>``). Per origin it counts the
never-stated questions it turned away (right refusals) and, of the stated ones, those
where the reading before the checks (``ExtractiveReader._read``, or the reader's answer
the graph verdict replaced) cited a current turn and held the answer (``raw_right``: the
refusal took a right answer), those where a current turn was shown but not read
(``cur_shown``), and those where none was shown (``not_shown``: recall). ``--show
ORIGIN`` prints the questions of one origin with the reading before the checks.

The thirty-sixth session's table (build halves of authors a..as, base 5741ed4; 142
stated questions withheld; never-stated turned away in brackets):

  typed._typed "no shown record states the X asked for"   19 stated (223 never), 0 raw_right
  readers._checked "no shown record says which X it is"    50 (77), 5 raw_right, 40 cur_shown
  readers._read "no shown evidence matches the question"   24 (28): the current turn shares
      no word with the question and the chain gave no lead ("Where do I live now?" beside
      "I signed for the cottage on Quay Lane!")
  graph.absent 10 (9), graph.unrecorded 7 (2), graph.resolver 1: 10 raw_right
  typed._typed other refusals (named compound, role, thing unsaid, not of whom) 13 (56)
  readers._checked other checks (age, repeats, who, only a time) 14 (30), 1 raw_right;
      _answer "no span" 3 (3); _read "how long" 1 (4)

So the refusals take few right answers (16 of 142); most withheld questions are record
choice (the reader read another record and its check refused that one rightly) or a
current turn said in other words. Tried and dropped in that session (re-ask on the base
ledger, answer_ok / never_answered): letting an answer stand against ``graph.absent`` /
``graph.unrecorded`` where it cites a record at least ``paths.SAID_OTHERWISE`` near the
question that says a word of the thing (build 0.7473 -> 0.7491, confirm 0.6667 flat with
never 0.1187 -> 0.1231), or only the owner's name (build 0.7487, confirm flat, never
0.1231): a never-stated "When is X's Y?" has X spoken of near it with a value of the kind;
accepting for "What X is T?" the word the cited record puts before T's noun ("a red
rucksack"): build +1, confirm never 0.1187 -> 0.1209. Kept: a teen age read whole
(``ages._AGE_NUMBER``: "turned fourteen" had been "four"; build +1, confirm +1). Measured
and not kept (build only): the person reader taking the subject of the question's verb, a
name in the future ("Rory will feed the fish") or a relative ("nan's taking him"): build
+3, confirm flat, never flat.

The thirty-seventh session (base 8f54405, authors a..au): the "which X" refusal
(``readers._checked``, after the fillers) withheld 52 stated build questions (79 never).
Of the 52, the record read first was a current one in 13 (a wrong span of it, or a
right one the focus check refused: 5 raw_right), an old one in 17, one about something
else in 21 (9 of them the graph stage's current record of another thing), none shown
in 5. Most values are common nouns of the X kind that no record calls X ("made me
chairman" for "role", "navy" for "colour", "the donkey" for "part"). Measured and not
kept (re-ask, answer_ok / never_answered): reading the shown records again without the
refused one (up to three times) and taking the first reading ``focus._focus_filled``
lets stand: build 0.7443 -> 0.7469, never 0.0844 -> 0.1235; confirm 0.6691 -> 0.6724,
never 0.1146 -> 0.1444 (a name beside the question's words passes where no record says
X: "Marsh Lane" for "Which team …?"); the same with ``_labelled_elsewhere``'s holder
and topic filters and no time or repeated words: build 0.7456, never 0.1049; only where
the refused record is the graph stage's current one: build 0.7448, never 0.0926, confirm
answer_ok flat, never 0.1146 -> 0.1168. The noun
before X labelling it ("What year group …?": "Year 2"), a day excepted: build +1,
confirm answer_ok flat (one fixed, one old record first). ``_slot_filler`` also reading
the reply after its records ("Snow Queen's gown is now icy silver-blue"): build +1,
confirm never +1. Kept: ``complement.verb_object`` reads the verb after "do" and a
named one ("does Lucia go to"; "goes" for "go"): build flat, confirm +1.

The thirty-ninth session (base 02afa0a, authors a..ay, build): which-X 62 stated (81
never), ``_read`` "no shown evidence matches" 29 (33 never), ``_typed`` "no shown record
states the X" 25 (258 never). Of the which-X 62, the record read first was a current one
in 17 (7 raw_right), an old or other one in the rest: record choice again. Kept:
``newstate._dense_place`` ("Where do I live now?" with no word shared and no graph lead:
the place the asker's latest near-in-meaning record names; build +8, confirm +2, never
flat). Measured and dropped (re-ask): ``_object_filler``'s revision guard anchored on the
graph's current record only, not the cited one (build +2 / never +1, confirm old +1);
``_dense_new_state`` as a fallback where the which-X check refuses, and for "which"
(build +5 / never +5, confirm never 0.114 -> 0.132); "which" in ``_dense_new_state`` with
a capital letter after a word counted by ``_repeats`` ("block A"): build +2, confirm old
+1 and never +1; the capital letter alone: build +1, confirm old +1.

The forty-first session (base b0cd927, readable authors a..bc, build; 186 stated
questions withheld, never-stated turned away in brackets): which-X (``_checked``, after
the fillers) 62 (88): the record read first was a current one in 18 (7 raw_right, 11 a
wrong span of it), a current one was shown but not read first in 36 (the graph stage's
lead is often a record of something else: "She's gone off the salmon" for "Which vet
…?"), none shown in 8; ``_typed`` "no shown record states the X" 36 (268; 29 with a
current turn shown: figures in words, "a round forty", "down to eleven", "steady at
five"; another holder read in "The nurse weighed her"); ``_read`` "no shown evidence
matches" 30 (33; "Where do I live?" beside "moved in with Marek's sister on Gwydir
Street"); ``graph.absent`` 13 (10; 6 raw_right: "Nico turns twenty-four on the 14th" for
his birthday, "Dog food lives in the metal bin" for Biscuit's); ``graph.unrecorded`` 6 (2;
2 raw_right); ``_typed`` "not of whom the question names" 8 (4); the rest 31. Of the 10
never-stated questions ``graph.absent`` turns away, the reader had read an answer for one
only; of its 13 stated, 6 right, 4 wrong (2 of them the old value): letting the reader's
answer stand would trade refusals for wrong answers. Measured and dropped (re-ask, main's
base ledger; each moved nothing else on readable confirm and held unless said):
``names._role_filler`` taking "N is / N's going to be the R" and the names as the question
spells them (its regex had been built from stems: "daisi" never matched "Daisy"): build +2,
one held confirm refusal became another record's answer; ``paths._told_by_them`` counting
a later turn of theirs only among the nearest in meaning ("Which means I can make evening
rehearsals" after the new ward): build +1 only; ``_repeats`` reading a capital letter
after a word as a label ("block A"), again: build +1, confirm old +1; a span of time in
minutes or in words ("twenty minutes", "a twenty-minute interval") in ``states_duration``
and the duration span: build +1, but "How old is Leo?" answered "Twenty eight-year" and
confirm current@1 0.7152 -> 0.7145 (the reorder by span moved two current records off
the first place); the same only where "How long is …?" would be refused: build +1 only.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import traceback
from collections import Counter, defaultdict
from pathlib import Path

from trace_ros.bench import updates_natural as un
from trace_ros.config import load_config
from trace_ros.embed import MiniLMEncoder
from trace_ros.ledger import Ledger, Scope
from trace_ros.query import readout
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.query.paths import GraphStage
from trace_ros.query.readers import ExtractiveReader

KINDS = ("never", "raw_right", "cur_shown", "not_shown")


def _origins() -> None:
    """Mark every empty ``ReaderOutput`` with the function and line that made it."""
    made = readout.ReaderOutput.__init__

    def init(self: readout.ReaderOutput, *a: object, **k: object) -> None:
        made(self, *a, **k)
        if not self.answer:
            at = traceback.extract_stack()[-2]
            self._origin = f"{Path(at.filename).stem}.{at.name}:{at.lineno}"  # type: ignore[attr-defined]

    readout.ReaderOutput.__init__ = init  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ledger")
    ap.add_argument("--split", default="build", choices=("build", "confirm"))
    ap.add_argument("--skip", default="", help="held-out authors, comma-separated")
    ap.add_argument("--show", default="")
    a = ap.parse_args(argv)
    skip = {s for s in a.skip.split(",") if s}
    items = []
    for f in sorted(un.DATA.glob("histories_*.json")):
        if f.stem.split("_", 1)[1] not in skip:
            items += [i for i in un.load_histories(f)[1] if i.split == a.split]
    _origins()
    seen: dict[str, object] = {}
    verdicts = {"absent": GraphStage.absent, "unrecorded": GraphStage.unrecorded}

    def watch(name: str):  # type: ignore[no-untyped-def]
        def run(self: GraphStage, *args: object, **kw: object) -> str:
            said = verdicts[name](self, *args, **kw)
            if said:
                seen["verdict"] = name
            return said
        return run

    for name in verdicts:
        setattr(GraphStage, name, watch(name))
    tally: dict[str, Counter[str]] = defaultdict(Counter)
    tmp = Path(tempfile.mkdtemp(prefix="abstain-stages-"))
    try:
        for p in Path(a.ledger).parent.glob(Path(a.ledger).name + "*"):
            if not p.name.endswith(".lock"):
                shutil.copy(p, tmp / p.name)
        cfg = load_config(None)
        with Ledger(tmp / Path(a.ledger).name, cfg.ledger) as ledger:
            eng = QueryEngine(ledger, MiniLMEncoder(cfg.embed), ExtractiveReader(), cfg.recall,
                              audit=False)
            read, finish = eng.reader.read, eng.graph_stage.finish

            def reading(q, plan, packed, res=None):  # type: ignore[no-untyped-def]
                out = read(q, plan, packed, res)
                seen.update(out=out, pack=packed, plan=plan)
                return out

            def finishing(g, result):  # type: ignore[no-untyped-def]
                seen.update(graph=g, before=(result.answer, list(result.source_ids)))
                return finish(g, result)

            eng.reader.read, eng.graph_stage.finish = reading, finishing  # type: ignore[method-assign]
            for it in items:
                seen.clear()
                res = eng.ask(QueryRequest(Scope(it.subject_id), it.question, asker=it.asker),
                              now=it.ask_time or None)
                if res.status == "answered":
                    continue
                graph, packed = seen.get("graph"), seen.get("pack")
                if graph is not None and graph.status:  # type: ignore[attr-defined]
                    origin = "graph." + str(seen.get("verdict") or
                                            f"resolver:{graph.status}")  # type: ignore[attr-defined]
                    answer, cited = seen["before"]  # type: ignore[misc]
                else:
                    out = seen.get("out")
                    origin = getattr(out, "_origin", "") or res.message[:40]
                    raw = eng.reader._read(it.question, seen["plan"], packed, None) \
                        if packed is not None else None  # type: ignore[attr-defined]
                    answer, cited = (raw.answer, raw.cited_ids) if raw else ("", [])
                shown = set(packed.source_ids) if packed is not None else set()  # type: ignore[attr-defined]
                if it.kind == "never":
                    kind = "never"
                elif answer and cited[:1] and cited[0] in it.current \
                        and un.answer_holds(answer, it.answer):
                    kind = "raw_right"
                else:
                    kind = "cur_shown" if shown & set(it.current) else "not_shown"
                tally[origin][kind] += 1
                if a.show and a.show in origin:
                    print(f"{it.item_id} [{kind}] {it.question}  expect {it.answer}  "
                          f"read {answer!r}")
            eng.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for origin, c in sorted(tally.items(), key=lambda x: -sum(x[1].values())):
        print(f"{origin:32s} {sum(c.values()):4d}  " + "  ".join(f"{k} {c[k]:3d}" for k in KINDS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
