"""The LoCoMo report: ``report.json`` (a contract), ``report.md`` (tables), ``questions.jsonl``.

``report.json`` keys (metrics are fractions in [0, 1]; ``None`` where nothing was scored):

- ``system.overall`` and ``system.by_category.<1|2|3|4>``: ``hit@10``, ``p@10``, ``mrr@10``,
  ``recall@5_macro``, ``recall@5_micro``, ``n`` (questions scored for retrieval), ``f1``,
  ``bleu1``, ``n_answers`` (questions whose answer was scored); ``by_category`` entries add
  ``name``. ``system.status``: answered / missing / conflict / abstained counts.
- ``baselines.<dense|bm25|hybrid>``: ``overall``, ``by_category`` (same keys), ``status``,
  ``latency_ms.{p50,p95,p99,mean,n}`` (embed time included where a question vector is used).
- ``latency_ms.end_to_end.{p50,p95,p99,mean,n}``: ``QueryEngine.ask`` as a caller sees it.
  ``latency_ms.stages.<stage>.{p50,p95,p99,mean,n}`` for embed, recall, graph, pack, read and
  every other stage the engine times; a stage the engine does not have yet has ``n = 0``,
  ``None`` values and a ``note``.
- ``ingest.{events, accepted, rejected, capture_s, events_per_s, consolidated, consolidation_s}``.
- ``memory.{peak_rss_mb, db_mb}`` (db = ledger file + WAL).
- ``graph.{facts, facts_by_type, facts_by_status, edges_by_type, sessions, topics}``: what
  consolidation built (``edges_by_type`` maps each edge type to its count).
- ``context.{mean_tokens, full_mean_tokens, ratio}``: packed evidence per question against
  the whole conversation it is about (same rendering, same token estimate).
- ``ablations.<component>``: ``applicable`` (bool); when true ``overall``, ``by_category``,
  ``status``, ``delta`` (ablated − system, overall) and ``latency_ms.{p50,p95,p99,mean,n}``
  (asked after the system, not alternating with it); when false a ``reason``.
  ``ablations.question_encoder=<value>``: the same for the system with that
  ``recall.question_encoder`` (``--question-encoders``); the ``cascade`` row adds
  ``second_stage_share`` (questions whose vector routes were redone with MiniLM).
- ``data``: file, conversations, turns, sources, questions, ``invalid_evidence`` and
  ``excluded`` (questions without a valid gold turn); ``config``: reader, model, recall
  settings, k.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .baselines import NAMES as BASELINE_NAMES
from .evaluate import QuestionRun, Shown
from .metrics import CATEGORY_NAMES, latency_summary, status_counts, summarise_by_category

SCHEMA_VERSION = 1
STAGES = ("embed", "recall", "graph", "pack", "read")
DELTA_KEYS = ("hit@10", "p@10", "mrr@10", "recall@5_macro", "recall@5_micro", "f1")


def method_block(questions: Sequence[Any], shown: Sequence[Shown]) -> dict[str, Any]:
    block: dict[str, Any] = summarise_by_category([s.score(q) for q, s in zip(questions, shown,
                                                                                 strict=True)])
    block["status"] = status_counts(s.status for s in shown)
    return block


def stage_latency(shown: Sequence[Shown]) -> dict[str, Any]:
    names = list(STAGES) + sorted({k for s in shown for k in s.stages} - set(STAGES))
    out: dict[str, Any] = {}
    for name in names:
        values = [s.stages[name] for s in shown if name in s.stages]
        out[name] = latency_summary(values)
        if not values:
            out[name]["note"] = "not timed: the engine has no such stage yet"
    return out


def ablation_block(questions: Sequence[Any], system: dict[str, Any],
                   result: Sequence[Shown] | str) -> dict[str, Any]:
    if isinstance(result, str):
        return {"applicable": False, "reason": result}
    block = {"applicable": True, **method_block(questions, result),
             "latency_ms": latency_summary([s.latency_ms for s in result])}
    block["delta"] = {k: _diff(block["overall"][k], system["overall"][k]) for k in DELTA_KEYS}
    return block


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def build_report(runs: Sequence[QuestionRun], ablations: dict[str, Sequence[Shown] | str],
                 *, data: dict[str, Any], config: dict[str, Any], ingest: dict[str, Any],
                 memory: dict[str, Any], full_tokens: dict[str, int],
                 graph: dict[str, Any] | None = None) -> dict[str, Any]:
    questions = [r.question for r in runs]
    system_shown = [r.system for r in runs]
    system = method_block(questions, system_shown)
    baselines: dict[str, Any] = {}
    present = {n for r in runs for n in r.baselines}
    for name in [n for n in BASELINE_NAMES if n in present] + sorted(present - set(BASELINE_NAMES)):
        shown = [r.baselines[name] for r in runs]
        baselines[name] = method_block(questions, shown)
        baselines[name]["latency_ms"] = latency_summary([s.latency_ms for s in shown])
    tokens = [s.context_tokens for s in system_shown]
    full = [full_tokens[q.sample_id] for q in questions]
    mean_tokens = sum(tokens) / len(tokens) if tokens else None
    full_mean = sum(full) / len(full) if full else None
    return {
        "schema_version": SCHEMA_VERSION,
        "data": data,
        "config": config,
        "system": {"reader": config.get("reader"), **system},
        "baselines": baselines,
        "latency_ms": {"end_to_end": latency_summary([s.latency_ms for s in system_shown]),
                       "stages": stage_latency(system_shown)},
        "ingest": ingest,
        "memory": memory,
        "graph": graph or {},
        "context": {"mean_tokens": mean_tokens, "full_mean_tokens": full_mean,
                    "ratio": mean_tokens / full_mean if mean_tokens and full_mean else None},
        "ablations": {name: _with_share(name, ablation_block(questions, system, res), res)
                      for name, res in ablations.items()},
    }


def second_stage_share(shown: Sequence[Shown]) -> float | None:
    """The share of questions whose cascade took its second stage (the encoder's own
    question vector: ``embed_second`` timed)."""
    return sum("embed_second" in s.stages for s in shown) / len(shown) if shown else None


def _with_share(name: str, block: dict[str, Any], result: Sequence[Shown] | str) -> dict[str, Any]:
    if name == "question_encoder=cascade" and not isinstance(result, str):
        block["second_stage_share"] = second_stage_share(result)
    return block


def question_lines(runs: Sequence[QuestionRun]) -> list[dict[str, Any]]:
    """Per-question detail (what each method showed and answered), for inspection."""
    def brief(s: Shown) -> dict[str, Any]:
        return {"turns": s.turns, "answer": s.answer, "status": s.status,
                "latency_ms": round(s.latency_ms, 3)}

    return [{"sample_id": r.question.sample_id, "qa_index": r.question.index,
             "category": r.question.category, "question": r.question.question,
             "gold": r.question.answer, "evidence": list(r.question.evidence),
             "system": {**brief(r.system), "source_ids": r.system.source_ids},
             "baselines": {n: brief(s) for n, s in r.baselines.items()}} for r in runs]


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in rows]
    return lines + [""]


def methods(report: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """(label, block, latency) for the system, each baseline and each applicable ablation."""
    rows: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [
        ("trace_ros (system)", report["system"], report["latency_ms"]["end_to_end"])]
    rows += [(f"baseline: {n}", b, b.get("latency_ms")) for n, b in report["baselines"].items()]
    rows += [(_label(n, a), a, a.get("latency_ms"))
             for n, a in report["ablations"].items() if a["applicable"]]
    return rows


def _label(name: str, block: dict[str, Any]) -> str:
    if "=" not in name:
        return f"system − {name}"
    share = block.get("second_stage_share")
    return f"system, {name}" + (f" (2nd stage {share:.0%})" if share is not None else "")


def summary_table(report: dict[str, Any]) -> list[str]:
    header = ["method", "Hit@10", "P@10", "MRR@10", "R@5 macro", "R@5 micro", "F1", "BLEU-1",
              "n", "p50 ms"]
    rows = []
    for label, block, lat in methods(report):
        o = block["overall"]
        rows.append([label, o["hit@10"], o["p@10"], o["mrr@10"], o["recall@5_macro"],
                     o["recall@5_micro"], o["f1"], o["bleu1"], o["n"],
                     _fmt(lat["p50"], 2) if lat else None])
    return _table(header, rows)


def render_markdown(report: dict[str, Any]) -> str:
    d = report["data"]
    out = ["# LoCoMo benchmark", "",
           f"{d['conversations']} conversation(s), {d['turns']} turns, {d['questions']} questions "
           f"(categories 1-4), {d['scorable']} scorable for retrieval. Reader: "
           f"{report['config']['reader']}. Retrieval is scored on the first "
           f"{report['config']['k']} distinct turns each method shows.", "", "## Overall", ""]
    out += summary_table(report)
    cats = [f"{c} {n}" for c, n in CATEGORY_NAMES.items()]
    for key, title in (("hit@10", "Hit@10"), ("recall@5_macro", "Recall@5 (macro)"),
                       ("mrr@10", "MRR@10"), ("f1", "Answer F1")):
        out += [f"## {title} by category", ""]
        rows = [[label] + [b["by_category"][str(c)][key] for c in CATEGORY_NAMES]
                + [b["overall"][key]] for label, b, _ in methods(report)]
        out += _table(["method", *cats, "overall"], rows)
    out += ["## n by category", ""]
    out += _table(["", *cats], [["questions scored"] + [
        report["system"]["by_category"][str(c)]["n"] for c in CATEGORY_NAMES]])
    out += ["## Answer status", ""]
    out += _table(["method", "answered", "missing", "conflict", "abstained"],
                  [[label] + [b["status"].get(s, 0) for s in ("answered", "missing", "conflict",
                                                               "abstained")]
                   for label, b, _ in methods(report)])
    out += ["## Latency (ms)", ""]
    lat = report["latency_ms"]
    rows = [["end to end", *(lat["end_to_end"][p] for p in ("p50", "p95", "p99")),
             lat["end_to_end"]["n"]]]
    rows += [[name, *(s[p] for p in ("p50", "p95", "p99")), s["n"]]
             for name, s in lat["stages"].items()]
    out += _table(["stage", "p50", "p95", "p99", "n"], rows)
    ing, mem, ctx = report["ingest"], report["memory"], report["context"]
    out += ["## Costs", ""]
    out += _table(["measure", "value"], [
        ["capture events/s", ing["events_per_s"]], ["capture s", ing["capture_s"]],
        ["consolidation s", ing["consolidation_s"]], ["peak RSS MB", mem["peak_rss_mb"]],
        ["ledger MB (db + WAL)", mem["db_mb"]], ["context tokens / question", ctx["mean_tokens"]],
        ["full conversation tokens", ctx["full_mean_tokens"]], ["context / full", ctx["ratio"]]])
    graph = report.get("graph") or {}
    if graph:
        out += ["## Evidence graph", ""]
        edges = ", ".join(f"{k} {v}" for k, v in graph.get("edges_by_type", {}).items())
        types = ", ".join(f"{k} {v}" for k, v in graph.get("facts_by_type", {}).items())
        out += _table(["measure", "value"], [
            ["facts", graph.get("facts")], ["facts by type", types], ["edges by type", edges],
            ["sessions", graph.get("sessions")], ["topics", graph.get("topics")]])
    skipped = {n: a["reason"] for n, a in report["ablations"].items() if not a["applicable"]}
    if skipped:
        out += ["## Ablations not applicable", ""]
        out += [f"- `{n}`: {r}" for n, r in skipped.items()] + [""]
    out += ["## Evidence problems", "", "Evidence IDs that name no turn (ignored):", ""]
    out += [f"- {e['sample_id']} #{e['qa_index']}: `{e['evidence_id']}`"
            for e in d["invalid_evidence"]] or ["- none"]
    out += ["", "Questions excluded from retrieval scoring (no valid gold turn):", ""]
    out += [f"- {e['sample_id']} #{e['qa_index']}: {e['question']} (evidence: "
            f"{', '.join(f'`{i}`' for i in e.get('invalid_evidence', [])) or 'none given'})"
            for e in d["excluded"]] or ["- none"]
    return "\n".join(out) + "\n"


def _rounded(obj: Any) -> Any:
    if isinstance(obj, float):
        return round(obj, 6)
    if isinstance(obj, dict):
        return {k: _rounded(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_rounded(v) for v in obj]
    return obj


def write_report(out_dir: Path, report: dict[str, Any], runs: Sequence[QuestionRun]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "report.json").write_text(json.dumps(_rounded(report), indent=2) + "\n")
    (out_dir / "report.md").write_text(render_markdown(report))
    with open(out_dir / "questions.jsonl", "w", encoding="utf-8") as fh:
        for line in question_lines(runs):
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
