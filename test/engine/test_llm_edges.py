"""The LLM extractor's edges reach the graph, under the rules' own checks.

The model is a stand-in (``generate`` returns a scripted reply); everything after it is
the real path: parsing, the extractor selector, the worker, the graph projector, the
linker, validity. A kept ``updates`` proposal supersedes the older fact like a rule edge;
a backwards, one-source, cross-subject, out-of-range or duplicate one is dropped, counted
and noted on the job; the CPU path makes no such edge and behaves as without a selector.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, ConsolidationConfig, MemoryConfig
from trace_ros.consolidation.cpu import CpuExtractor
from trace_ros.consolidation.llm_extract import ExtractorSelector, LlmExtractor
from trace_ros.consolidation.project import GraphProjector
from trace_ros.consolidation.worker import BatchReport, Consolidator
from trace_ros.errors import ConfigError
from trace_ros.ledger import Ledger, Scope

OCT_1 = datetime(2025, 10, 1, 10, 0, tzinfo=UTC).timestamp()
DAY = 86400.0


class ScriptedLlm(LlmExtractor):
    """The real extractor around a stand-in model: ``generate`` returns ``reply``."""

    def __init__(self, reply: str) -> None:
        super().__init__(Path("no-weights"), "cpu", CpuExtractor(), model=object(),
                         tokenizer=None)
        self.reply = reply
        self.prompts: list[str] = []

    def generate(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.reply


def fact(record: int, description: str, **kw: Any) -> dict[str, Any]:
    return {"record": record, "type": kw.pop("type", "state_change"), "participants": ["I"],
            "entity": "", "relation": "", "value": "", "polarity": 1,
            "description": description, "time": "", **kw}


def reply(facts: list[dict[str, Any]], edges: list[dict[str, Any]]) -> str:
    return "```json\n" + json.dumps({"facts": facts, "edges": edges}) + "\n```"


def say(ledger: Ledger, *turns: tuple[str, str, str, float, str]) -> None:
    """(subject, session, speaker, day offset, text) per turn, in this order."""
    ingest(ledger, [Event("dialogue", Scope(subject, "", session), text, speaker,
                          stamp=OCT_1 + day * DAY) for subject, session, speaker, day, text in turns],
           CaptureConfig())


def consolidate(ledger: Ledger, encoder, model_reply: str | None, **cfg: Any
                ) -> tuple[BatchReport, ExtractorSelector, ScriptedLlm | None]:
    config = ConsolidationConfig(extractor="cpu" if model_reply is None else "llm",
                                 llm_device="cpu", **cfg)
    llm = ScriptedLlm(model_reply) if model_reply is not None else None
    sel = ExtractorSelector(config, CpuExtractor(), llm_factory=lambda device: llm)
    report = Consolidator(ledger, encoder, config, projector=GraphProjector(ledger, sel, config),
                          gate=sel).run_once()
    return report, sel, llm


def facts(ledger: Ledger) -> list[tuple[Any, ...]]:
    return ledger.query("SELECT fact_id, description, status, validity, valid_from, valid_to, "
                        "extractor FROM facts ORDER BY source_seq, fact_id")


def fact_edges(ledger: Ledger) -> list[tuple[Any, ...]]:
    return ledger.query("SELECT type, src, dst, confidence, justification FROM edges WHERE type "
                        "IN ('updates', 'contradicts', 'causes', 'enables', 'prevents', 'before') "
                        "AND src LIKE 'f:%' ORDER BY edge_id")


def notes(ledger: Ledger) -> list[str | None]:
    return [r[0] for r in ledger.query("SELECT note FROM jobs ORDER BY job_id")]


NURSE = ("alice", "s1", "alice", 0, "I work as a nurse at St. Mary's hospital.")
TEACHER = ("alice", "s2", "alice", 3,
           "I finally left St. Mary's, I'm teaching chemistry at the high school now.")
JOBS = [fact(1, "Alice works as a nurse at St. Mary's hospital"),
        fact(2, "Alice teaches chemistry at the high school")]


def test_an_llm_update_between_two_records_supersedes_the_older_fact(ledger: Ledger,
                                                                      encoder) -> None:
    say(ledger, NURSE, TEACHER)
    report, sel, llm = consolidate(ledger, encoder, reply(JOBS, [
        {"type": "updates", "from": 1, "to": 0, "why": "Alice changed jobs"}]))
    assert report.done == 2 and report.failed == 0 and llm is not None and len(llm.prompts) == 1
    (old, *_, old_extractor), (new, _d, status, validity, new_from, valid_to, _x) = facts(ledger)
    assert old_extractor == llm.name  # the model's facts, not the CPU fallback
    assert fact_edges(ledger) == [("updates", new, old, 0.75, "llm-extractor: Alice changed jobs")]
    old_row = ledger.query("SELECT status, validity, valid_to FROM facts WHERE fact_id = ?",
                           (old,))[0]
    assert old_row == ("superseded", 0.0, new_from)  # exactly as for a rule edge
    assert (status, validity, valid_to) == ("active", 1.0, None)
    outcomes = [r[0] for r in ledger.query("SELECT outcome FROM jobs ORDER BY job_id")]
    assert outcomes == ["add", "revise"] and notes(ledger) == [None, None]
    state = sel.state()
    assert state["llm_edges_added"] == 1 and state["llm_edges_dropped"] == 0


def test_a_contradiction_is_stored_newer_to_older_and_leaves_both_unresolved(
        ledger: Ledger, encoder) -> None:
    say(ledger, ("alice", "s1", "alice", 0, "The spare key is under the doormat."),
        ("alice", "s1", "bob", 0.01, "No, the spare key is with the neighbour."))
    model = reply([fact(1, "The spare key is under the doormat", type="observation"),
                   fact(2, "The spare key is with the neighbour", type="observation")],
                  [{"type": "contradicts", "from": 0, "to": 1, "why": "one key, two places"}])
    report, sel, _ = consolidate(ledger, encoder, model, llm_edge_confidence=0.6)
    assert report.done == 2
    (doormat, *_), (neighbour, *_) = facts(ledger)
    assert fact_edges(ledger) == [("contradicts", neighbour, doormat, 0.6,
                                   "llm-extractor: one key, two places")]
    assert {r[0] for r in ledger.query("SELECT status FROM facts")} == {"unresolved"}


def test_a_causal_edge_within_one_record_is_kept(ledger: Ledger, encoder) -> None:
    say(ledger, ("alice", "s1", "alice", 0, "The lift broke, so I took the stairs."))
    model = reply([fact(1, "The lift broke", type="observation"),
                   fact(1, "Alice took the stairs", type="action")],
                  [{"type": "causes", "from": 0, "to": 1, "why": "the broken lift"}])
    report, sel, _ = consolidate(ledger, encoder, model)
    (lift, *_), (stairs, *_) = facts(ledger)
    assert report.done == 1 and ("causes", lift, stairs, 0.75, "llm-extractor: the broken lift") \
        in fact_edges(ledger)
    assert sel.state()["llm_edges_added"] == 1


# (turns, facts, edges, the reason noted on the job)
DROPS = {
    "backwards": ([NURSE, TEACHER], JOBS,
                  [{"type": "updates", "from": 0, "to": 1, "why": "reversed"}],
                  "not older in revision order"),
    "one source": ([NURSE], [fact(1, "Alice is a nurse"),
                             fact(1, "Alice works at St. Mary's hospital")],
                   [{"type": "updates", "from": 1, "to": 0, "why": "same message"}],
                   "one source"),
    "two subjects": ([NURSE, ("bob", "s9", "bob", 3, TEACHER[4])],
                     [fact(1, "Alice works as a nurse at St. Mary's hospital"),
                      fact(2, "Bob teaches chemistry at the high school")],
                     [{"type": "updates", "from": 1, "to": 0, "why": "a change of job"}],
                     "different subjects"),
    "out of range": ([NURSE, TEACHER], JOBS,
                     [{"type": "updates", "from": 1, "to": 7, "why": "no such fact"}],
                     "indices must name two different facts"),
    "unknown type": ([NURSE, TEACHER], JOBS,
                     [{"type": "replaces", "from": 1, "to": 0, "why": "?"}], "edge type"),
}


@pytest.mark.parametrize("case", list(DROPS))
def test_an_invalid_proposal_is_dropped_counted_and_noted(ledger: Ledger, encoder,
                                                          case: str) -> None:
    turns, model_facts, edges, why = DROPS[case]
    say(ledger, *turns)
    report, sel, llm = consolidate(ledger, encoder, reply(model_facts, edges))
    assert report.done == len(turns) and report.failed == 0 and not report.error
    assert llm is not None and llm.fallbacks == 0  # the facts still come from the model
    assert {r[-1] for r in facts(ledger)} == {llm.name}
    assert not [e for e in fact_edges(ledger) if e[4].startswith("llm-extractor")]
    assert {r[2] for r in facts(ledger)} == {"active"}
    noted = [n for n in notes(ledger) if n]
    assert len(noted) == 1 and noted[0].startswith("llm edges dropped (1): ") and why in noted[0]
    assert sel.state()["llm_edges_dropped"] == 1 and sel.state()["llm_edges_added"] == 0


def test_a_proposal_the_rules_already_made_is_not_duplicated(ledger: Ledger, encoder) -> None:
    say(ledger, ("alice", "s1", "alice", 0, "I live in Boston."),
        ("alice", "s2", "alice", 5, "We moved to Seattle last month."))
    keyed = [fact(1, "Alice lives in Boston", entity="Alice", relation="lives_in",
                  value="Boston"),
             fact(2, "Alice lives in Seattle", entity="Alice", relation="lives_in",
                  value="Seattle")]
    report, sel, _ = consolidate(ledger, encoder, reply(keyed, [
        {"type": "updates", "from": 1, "to": 0, "why": "she moved"}]))
    assert report.done == 2
    (boston, *_), (seattle, *_) = facts(ledger)
    edges = fact_edges(ledger)
    assert [e[:3] for e in edges] == [("updates", seattle, boston)]
    assert edges[0][4].startswith("key-update")  # the rule's edge stands
    assert "already has updates" in (notes(ledger)[1] or "")
    assert sel.state()["llm_edges_dropped"] == 1


def _graph(ledger: Ledger) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    return (ledger.query("SELECT fact_id, description, status, validity, valid_from, valid_to "
                         "FROM facts ORDER BY fact_id"),
            ledger.query("SELECT type, src, dst, confidence, justification, invalidated_at "
                         "FROM edges ORDER BY type, src, dst"))


CPU_TURNS = [("alice", "s1", "alice", 0, "I live in Boston."),
             ("alice", "s1", "robot", 0.001, "Noted, you live in Boston."),
             ("alice", "s2", "alice", 5, "We moved to Seattle last month."),
             ("alice", "s2", "alice", 5.01, "The parcel pickup is on Thursday."),
             ("alice", "s3", "alice", 8, "The parcel pickup was moved to Friday.")]


def test_the_cpu_path_makes_no_llm_edge_and_matches_a_plain_projector(tmp_path: Path,
                                                                       encoder) -> None:
    with Ledger(tmp_path / "sel.db") as via_selector, Ledger(tmp_path / "plain.db") as plain:
        say(via_selector, *CPU_TURNS)
        say(plain, *CPU_TURNS)
        report, sel, _ = consolidate(via_selector, encoder, None)
        config = ConsolidationConfig()
        Consolidator(plain, encoder, config,
                     projector=GraphProjector(plain, CpuExtractor(), config)).run_once()
        assert report.done == len(CPU_TURNS)
        assert _graph(via_selector) == _graph(plain)
        assert any(e[0] == "updates" for e in _graph(plain)[1])  # the rules did link
        assert not [e for e in fact_edges(via_selector) if e[4].startswith("llm-extractor")]
        assert notes(via_selector) == [None] * len(CPU_TURNS)
        assert sel.state()["llm_edges_added"] == sel.state()["llm_edges_dropped"] == 0


def test_malformed_model_output_falls_back_to_the_rules_without_llm_edges(ledger: Ledger,
                                                                        encoder) -> None:
    say(ledger, NURSE, TEACHER)
    report, sel, llm = consolidate(ledger, encoder, "I think Alice changed jobs.")
    assert report.done == 2 and llm is not None and llm.fallbacks == 1
    assert not [e for e in fact_edges(ledger) if e[4].startswith("llm-extractor")]
    assert all(n and n.startswith("llm output malformed") for n in notes(ledger))


def test_the_llm_edge_confidence_is_a_checked_consolidation_parameter() -> None:
    from trace_ros.paramspec import NODE_SECTIONS, engine_params

    assert ConsolidationConfig().llm_edge_confidence == 0.75
    assert "consolidation.llm_edge_confidence" in engine_params(
        NODE_SECTIONS["consolidation_node"])
    assert MemoryConfig.from_flat({"consolidation.llm_edge_confidence": 0.5}) \
        .consolidation.llm_edge_confidence == 0.5
    with pytest.raises(ConfigError, match="llm_edge_confidence"):
        MemoryConfig.from_flat({"consolidation.llm_edge_confidence": 1.5})
