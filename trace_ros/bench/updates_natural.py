"""``trace-ros bench updates --natural``: currentness on changes people state in their own words.

Two hand-made sets in ``trace_ros/bench/natural/`` (never generated from templates):

histories  ``histories_<author>.json``: short everyday histories written by several
           authors (the format is in ``natural/FORMAT.md``). Each is one subject;
           its questions are asked a day after its last session, by its ``person``
           (``QueryRequest.asker``: whose "I" and "my" they mean). Kinds: ``change``,
           ``chain``, ``restated`` and ``distractor`` (controls: the value did not
           change), ``as_of`` (the question names an earlier time), ``never``.
locomo     ``locomo_changes_<annotator>.json``: state changes annotated by hand in
           LoCoMo conversations 0-4 only (old turns, new turns, the question a person
           would ask, answer aliases). The conversations are captured whole; the
           questions are asked at the end of each.

Every item carries a ``split`` fixed when it was written: ``build`` (look at it while
building) or ``confirm`` (only measured). Per half and set:

current_at1     the first cited source states the value that holds now
old_at1         the first cited source states a value that no longer holds (or, for a
                distractor, the look-alike statement about something else)
answer_ok       the answer text holds one of the expected aliases
never_answered  of the never-stated questions, those answered (should be 0)
n               questions scored (never-stated ones included)

On LoCoMo also: ``updates`` edges in the graph, and the recall of the annotated changes
(an ``updates`` edge from a fact of a new turn to a fact of an old turn).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..capture import Event
from ..facts import norm
from ..language.text import stem
from ..language.vocab import TENS, UNITS
from ..ledger import Scope

DATA = Path(__file__).resolve().with_name("natural")
SPLITS = ("build", "confirm")
KINDS = ("change", "chain", "restated", "distractor", "as_of", "never")
KEYS = ("current_at1", "old_at1", "answer_ok", "never_answered", "n")
TURN_GAP_S = 120.0
ASK_AFTER_S = 86_400.0
ROBOT_ID = "robot-1"
_REF = re.compile(r"^(\d+)\.(\d+)$")


class DataError(ValueError):
    """A data file that does not follow the format: names the file, the item and the field."""


@dataclass(frozen=True)
class Item:
    """One question with what it expects: source IDs that hold now / no longer hold."""

    set: str  # "histories" | "locomo"
    item_id: str
    split: str
    subject_id: str
    question: str
    kind: str
    current: tuple[str, ...]
    stale: tuple[str, ...]
    answer: tuple[str, ...]
    ask_time: float
    # Who asks (a history's ``person``; LoCoMo's questions name people in the third
    # person, so none): the engine reads "I" and "my" as theirs.
    asker: str = ""


@dataclass
class Natural:
    events: list[Event] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    locomo_subjects: list[str] = field(default_factory=list)


def _epoch(text: str, where: str) -> float:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except (TypeError, ValueError) as exc:
        raise DataError(f"{where}: start: not an ISO time ({text!r})") from exc


def _need(obj: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = obj.get(key)
    if not isinstance(value, kind):
        raise DataError(f"{where}: {key}: missing or not a {kind.__name__}")
    return value


def load_histories(path: Path) -> tuple[list[Event], list[Item]]:
    """Events and questions of one author's file (validated: every reference names a turn)."""
    doc = json.loads(path.read_text())
    events: list[Event] = []
    items: list[Item] = []
    for h in _need(doc, "histories", list, path.name):
        hid = str(_need(h, "id", str, path.name))
        where = f"{path.name}:{hid}"
        split = h.get("split")
        if split not in SPLITS:
            raise DataError(f"{where}: split: must be one of {SPLITS}")
        last = 0.0
        turns: set[str] = set()
        for si, session in enumerate(_need(h, "sessions", list, where)):
            start = _epoch(session.get("start"), f"{where}: session {si}")
            last = max(last, start)
            for ti, turn in enumerate(_need(session, "turns", list, f"{where}: session {si}")):
                ref = f"{si}.{ti}"
                speaker = str(turn.get("speaker") or "").strip()
                text = str(turn.get("text") or "").strip()
                if not speaker or not text:
                    raise DataError(f"{where}: turn {ref}: speaker and text are required")
                turns.add(ref)
                events.append(Event("dialogue", Scope(hid, ROBOT_ID, f"s{si}"), text=text,
                                    speaker=speaker, stamp=start + ti * TURN_GAP_S,
                                    source_id=f"{hid}:{ref}"))
        for qi, q in enumerate(_need(h, "questions", list, where)):
            kind = q.get("kind")
            if kind not in KINDS:
                raise DataError(f"{where}: question {qi}: kind: must be one of {KINDS}")
            refs = {k: tuple(str(r) for r in q.get(k) or ()) for k in ("current", "stale", "wrong")}
            for k, rs in refs.items():
                bad = [r for r in rs if not _REF.match(r) or r not in turns]
                if bad:
                    raise DataError(f"{where}: question {qi}: {k}: no such turn {bad}")
            if kind != "never" and not refs["current"]:
                raise DataError(f"{where}: question {qi}: current: required for kind {kind}")
            items.append(Item(
                "histories", f"{hid}/{qi}", split, hid, str(_need(q, "ask", str, where)), kind,
                tuple(f"{hid}:{r}" for r in refs["current"]),
                tuple(f"{hid}:{r}" for r in refs["stale"] + refs["wrong"]),
                tuple(str(a).lower() for a in q.get("answer") or ()), last + ASK_AFTER_S,
                str(h.get("person") or "").strip()))
    return events, items


def load_locomo(path: Path, samples: Sequence[dict[str, Any]]) -> list[Item]:
    """Questions of one annotator's file over LoCoMo conversations 0-4 (turn IDs checked)."""
    from .dataset import turn_ids

    doc = json.loads(path.read_text())
    items: list[Item] = []
    for c in _need(doc, "changes", list, path.name):
        cid = str(c.get("id"))
        where = f"{path.name}:{cid}"
        conv = c.get("conv")
        if not isinstance(conv, int) or not 0 <= conv <= 4:
            raise DataError(f"{where}: conv: only conversations 0-4 may be annotated")
        sample = samples[conv]
        known = set(turn_ids(sample))
        sid = str(sample["sample_id"])
        refs = {k: tuple(str(r) for r in c.get(k) or ()) for k in ("old", "new")}
        for k, rs in refs.items():
            bad = [r for r in rs if r not in known]
            if bad or not rs:
                raise DataError(f"{where}: {k}: no such turn {bad or '(empty)'}")
        if c.get("split") not in SPLITS:
            raise DataError(f"{where}: split: must be one of {SPLITS}")
        items.append(Item("locomo", cid, c["split"], sid, str(_need(c, "question", str, where)),
                          "change", tuple(f"{sid}:{r}" for r in refs["new"]),
                          tuple(f"{sid}:{r}" for r in refs["old"]),
                          tuple(str(a).lower() for a in c.get("answer") or ()), 0.0))
    return items


def load(data: Path = DATA, locomo_path: Path | None = None) -> Natural:
    """Everything in ``data``: the histories always, the LoCoMo changes when the LoCoMo
    file is given (their conversations are captured whole)."""
    out = Natural()
    for path in sorted(data.glob("histories_*.json")):
        events, items = load_histories(path)
        out.events += events
        out.items += items
    changes = sorted(data.glob("locomo_changes_*.json"))
    if locomo_path is not None and changes:
        from ..formats import locomo_events

        samples = json.loads(Path(locomo_path).read_text())[:5]
        items = [i for path in changes for i in load_locomo(path, samples)]
        used = sorted({i.subject_id for i in items})
        for s in samples:
            if str(s["sample_id"]) in used:
                out.events += list(locomo_events(s))
                out.locomo_subjects.append(str(s["sample_id"]))
        out.items += items
    return out


# -- scoring ------------------------------------------------------------------------

def answer_holds(answer: str, aliases: Iterable[str]) -> bool:
    """Whether the answer names an expected alias as whole words (case, articles and
    inflection aside: both sides are compared on Porter stems, so "peanuts" holds
    "peanut" and "peanut" holds "peanuts", but "pea" holds neither). A date matches in
    any order and with or without ordinal endings: "1 August 2025" holds "august 1st"."""
    aliases = tuple(aliases)
    got_words = _plain(answer).split()
    got = " " + " ".join(got_words) + " "
    for alias in aliases:
        a = _plain(alias)
        if a and f" {a} " in got:
            return True
        parts = [w for w in a.split() if w not in ("of", "the")]
        if parts and _MONTHS & set(parts) and set(parts) <= set(got_words):
            return True
    return _stems_hold(got_words, aliases)


def _stems_hold(got_words: list[str], aliases: Iterable[str]) -> bool:
    """Whether the stems of an alias's words follow one another among the answer's,
    not counted there by a number the alias lacks ("two hours" does not hold "an
    hour", which ``norm`` reads as "hour")."""
    got = [stem(w) for w in got_words]
    for alias in aliases:
        a = [stem(w) for w in _plain(alias).split()]
        for at in range(len(got) - len(a) + 1):
            if a and got[at:at + len(a)] == a and not (at and _counts(got_words[at - 1])):
                return True
    return False


def _counts(word: str) -> bool:
    return word.isdigit() or word in UNITS or word in TENS


_MONTHS = frozenset("""january february march april may june july august september october
november december""".split())
_SHORT = {m[:3]: m for m in _MONTHS} | {"sept": "september"}
# A weekly slot names its day in the plural: "Tuesdays at half nine" holds "tuesday".
_DAYS = {f"{d}days": f"{d}day" for d in ("mon", "tues", "wednes", "thurs", "fri", "satur",
                                         "sun")}


def _plain(text: str) -> str:
    """Lower-case words and numbers, ordinal endings dropped ("12th" -> "12"), a unit
    written on parted from its number ("5mg" -> "5 mg"), a month's short form and a
    weekday's plural read as the word ("Sept", "Tuesdays")."""
    t = re.sub(r"[^a-z0-9:]+", " ", norm(text))
    t = re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1", t)
    # A number with its unit written on ("5mg", "10am") is the number and the unit.
    t = re.sub(r"\b(\d+)([a-z]+)\b", r"\1 \2", t)
    return " ".join(_SHORT.get(w, _DAYS.get(w, w)) for w in t.split())


# (subject_id, question, ask_time, asker) -> an object with status, answer, source_ids
AskFn = Callable[[str, str, float, str], Any]


def score(items: Sequence[Item], ask: AskFn,
          progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Per set and split: the ``KEYS`` figures, by kind, and the misses for reading."""
    tallies: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0]))
    kinds: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0]))
    misses: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for it in items:
        res = ask(it.subject_id, it.question, it.ask_time, it.asker)
        first = res.source_ids[0] if res.source_ids else None
        for key in ((it.set, it.split), ("all", it.split)):
            t = tallies[key]
            t["n"][1] += 1
            if it.kind == "never":
                _add(t["never_answered"], res.status == "answered")
                continue
            cur = first in it.current
            ok = res.status == "answered" and answer_holds(res.answer, it.answer)
            _add(t["current_at1"], cur)
            _add(t["old_at1"], first in it.stale)
            _add(t["answer_ok"], ok)
            _add(kinds[key][it.kind], cur)
            if key[0] != "all" and not (cur and ok):
                misses[key].append({"id": it.item_id, "q": it.question, "kind": it.kind,
                                    "status": res.status, "answer": res.answer,
                                    "first": first, "current": list(it.current)})
        if progress:
            progress(1)
    out: dict[str, Any] = {}
    for (set_name, split), t in sorted(tallies.items()):
        block: dict[str, Any] = {k: _rate(t[k]) for k in KEYS[:-1]}
        block["n"] = t["n"][1]
        block["current_at1_by_kind"] = {k: {"rate": _rate(v), "n": v[1]}
                                        for k, v in sorted(kinds[(set_name, split)].items())}
        if set_name != "all":
            block["misses"] = misses[(set_name, split)]
        out.setdefault(set_name, {})[split] = block
    return out


def _add(cell: list[int], ok: bool) -> None:
    cell[0] += bool(ok)
    cell[1] += 1


def _rate(cell: list[int]) -> float | None:
    return round(cell[0] / cell[1], 4) if cell[1] else None


Edges = Sequence[tuple[frozenset[str], frozenset[str]]]
_CHANGES = ("change", "chain")


def change_edge_recall(items: Sequence[Item], edges: Edges, set_name: str = "locomo"
                       ) -> dict[str, Any]:
    """Of the annotated changes of ``set_name`` (the histories' changes and chains), those
    joined by an ``updates`` edge new → old."""
    found: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for it in items:
        if it.set != set_name or set_name == "histories" and it.kind not in _CHANGES:
            continue
        hit = any(newer & set(it.current) and older & set(it.stale) for newer, older in edges)
        _add(found[it.split], hit)
    return {split: {"rate": _rate(v), "n": v[1]} for split, v in sorted(found.items())}


def edge_precision(items: Sequence[Item], edges: Edges) -> dict[str, Any]:
    """How many of the histories' ``updates`` edges the questions can judge, and how many
    of those are right, per half. An edge is right when a change or chain lists its newer
    record as current (or, in a chain, as an earlier value) and its older one as stale;
    wrong when it joins a distractor's look-alike and the statement it looks like, or two
    statements of one restated value; else the questions do not say (not counted)."""
    by_subject: dict[str, list[Item]] = defaultdict(list)
    for it in items:
        if it.set == "histories":
            by_subject[it.subject_id].append(it)
    judged: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    counted: dict[str, int] = defaultdict(int)
    for newer, older in edges:
        mine = by_subject.get(_subject_of(newer | older), [])
        if not mine:
            continue
        split = mine[0].split
        counted[split] += 1
        right = any(it.kind in _CHANGES and older & set(it.stale)
                    and newer & (set(it.current) | (set(it.stale) if it.kind == "chain"
                                                    else set()))
                    for it in mine)
        wrong = any(it.kind == "distractor" and (newer | older) & set(it.current)
                    and (newer | older) & set(it.stale)
                    or it.kind == "restated" and newer & set(it.current)
                    and older & set(it.current) for it in mine)
        if right or wrong:
            _add(judged[split], right and not wrong)
    return {split: {"edges": counted[split], "judged": judged[split][1],
                    "precision": _rate(judged[split])} for split in sorted(counted)}


def _subject_of(source_ids: frozenset[str]) -> str:
    """A history's source IDs are ``<history id>:<session>.<turn>``."""
    return next(iter(source_ids), ":").split(":")[0]


# -- the command ----------------------------------------------------------------------

DEFAULT_LOCOMO = Path("../shared/data/locomo10.json")


def run(args: Any) -> dict[str, Any]:
    """Capture both sets into a fresh ledger, consolidate as the node does, ask, score."""
    import tempfile
    import time

    from ..capture import ingest
    from ..config import load_config
    from ..consolidation.project import build_projection
    from ..consolidation.worker import Consolidator
    from ..embed import MiniLMEncoder
    from ..query.answer import QueryEngine, QueryRequest
    from ..query.readers import ExtractiveReader
    from .engines import bench_ledger, engine_name
    from .progress import bar
    from .updates import graph_counts, read_update_edges

    locomo = Path(args.locomo) if args.locomo else (DEFAULT_LOCOMO if DEFAULT_LOCOMO.exists()
                                                    else None)
    sets = {x.strip() for x in args.sets.split(",") if x.strip()}
    data = load(Path(args.data) if args.data else DATA, locomo if "locomo" in sets else None)
    if "histories" not in sets:
        data.items = [i for i in data.items if i.set != "histories"]
        data.events = [e for e in data.events if e.scope.subject_id in data.locomo_subjects]
    notes = [] if locomo else ["LoCoMo file not found: the LoCoMo changes were not asked"]
    if split_only := getattr(args, "split", None):
        notes.append(f"only the {split_only} half was asked")
    cfg = load_config(args.params)
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-natural-") as tmp:
        out_dir = Path(args.out) if args.out else Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        with bench_ledger(args, out_dir / "natural.db", cfg.ledger,
                          "trace-ros bench updates --natural", "bench_natural") as (ledger, where):
            notes.append(f"ledger {where}")
            t = time.perf_counter()
            with bar(len(data.events), "capture", "ev") as b:
                results = ingest(ledger, data.events, cfg.capture, progress=b.update)
            bad = [r for r in results if r.status != "accepted"]
            if bad:
                raise RuntimeError(f"{len(bad)} events not accepted, first: {bad[0]}")
            timings["capture_s"] = time.perf_counter() - t
            encoder = MiniLMEncoder(cfg.embed)
            t = time.perf_counter()
            projector, gate = build_projection(ledger, cfg)
            try:
                with bar(ledger.job_counts()["pending"], "consolidate", "src") as b:
                    Consolidator(ledger, encoder, cfg.consolidation, projector=projector,
                                 gate=gate).drain(progress=b.update)
            finally:
                gate.close()
            timings["consolidation_s"] = time.perf_counter() - t
            engine = QueryEngine(ledger, encoder, ExtractiveReader(), cfg.recall, audit=False,
                                 ablate=set(getattr(args, "ablate", ()) or ()))
            if getattr(args, "ablate", None):
                notes.append(f"without {', '.join(args.ablate)}")

            def ask(subject_id: str, question: str, at: float, asker: str) -> Any:
                return engine.ask(QueryRequest(Scope(subject_id), question, asker=asker),
                                  now=at or None)

            if split_only:
                data.items = [i for i in data.items if i.split == split_only]
            t = time.perf_counter()
            with bar(len(data.items), "questions", "q") as b:
                scored = score(data.items, ask, b.update)
            timings["query_s"] = time.perf_counter() - t
            subjects = sorted({i.subject_id for i in data.items if i.set == "locomo"})
            edges = read_update_edges(ledger, subjects)
            if subjects:
                scored.setdefault("locomo", {})["updates_edges"] = len(edges)
                scored["locomo"]["change_edge_recall"] = change_edge_recall(data.items, edges)
                scored["locomo"]["graph"] = graph_counts(ledger)
            told = sorted({i.subject_id for i in data.items if i.set == "histories"})
            if told:
                edges = read_update_edges(ledger, told)
                scored.setdefault("histories", {})["updates_edges"] = edge_precision(
                    data.items, edges)
                scored["histories"]["change_edge_recall"] = change_edge_recall(
                    data.items, edges, "histories")
            engine.close()
    report = {"natural": {"build": scored.get("all", {}).get("build", {}),
                          "confirm": scored.get("all", {}).get("confirm", {}),
                          **{k: v for k, v in scored.items() if k != "all"}},
              "engine": engine_name(args), "notes": notes,
              "timings": {k: round(v, 2) for k, v in timings.items()}}
    if args.out:
        (Path(args.out) / "natural.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def summary(report: dict[str, Any]) -> str:
    nat = report["natural"]
    lines = [f"bench updates --natural ({report.get('engine', 'sqlite')})"]
    for set_name in ("histories", "locomo"):
        for split in SPLITS:
            b = nat.get(set_name, {}).get(split)
            if b:
                lines.append(f"  {set_name:9s} {split:7s} " + ", ".join(
                    f"{k} {b[k]}" for k in KEYS) + "  by kind " + ", ".join(
                    f"{k}={v['rate']}/{v['n']}" for k, v in b["current_at1_by_kind"].items()))
    if "updates_edges" in nat.get("locomo", {}):
        lines.append(f"  locomo: {nat['locomo']['updates_edges']} updates edges, annotated "
                     f"changes joined: {nat['locomo']['change_edge_recall']}")
    if "updates_edges" in nat.get("histories", {}):
        lines.append(f"  histories: updates edges {nat['histories']['updates_edges']}, "
                     f"changes joined: {nat['histories']['change_edge_recall']}")
    for split in SPLITS:
        b = nat.get(split)
        if b:
            lines.append(f"  all       {split:7s} " + ", ".join(f"{k} {b[k]}" for k in KEYS))
    lines += [f"  note: {n}" for n in report["notes"]]
    lines.append("  timings: " + ", ".join(f"{k} {v}" for k, v in report["timings"].items()))
    return "\n".join(lines)


def compact(report: dict[str, Any]) -> dict[str, Any]:
    """The last line of ``--json``: both halves with the same keys, without the misses."""
    nat = report["natural"]
    out: dict[str, Any] = {split: {k: nat.get(split, {}).get(k) for k in KEYS}
                           for split in SPLITS}
    for set_name in ("histories", "locomo"):
        if set_name in nat:
            out[set_name] = {split: {k: nat[set_name].get(split, {}).get(k) for k in KEYS}
                             for split in SPLITS}
    for set_name in ("histories", "locomo"):
        if "updates_edges" in nat.get(set_name, {}):
            out[set_name]["updates_edges"] = nat[set_name]["updates_edges"]
            out[set_name]["change_edge_recall"] = nat[set_name]["change_edge_recall"]
    return {"natural": out, "engine": report.get("engine", "sqlite")}
