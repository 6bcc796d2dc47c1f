"""The LLM extractor: strict-JSON parsing (hand-written replies) and the NF4 plumbing on a
tiny random-weight Qwen model on CPU, whose garbage output must fall back to the CPU rules."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, ConsolidationConfig
from trace_ros.consolidation.extract import ExtractContext
from trace_ros.consolidation.llm_extract import (
    ExtractorSelector,
    LlmExtractor,
    MalformedOutput,
    parse_output,
    render_records,
)
from trace_ros.consolidation.worker import Consolidator
from trace_ros.facts import FactDraft
from trace_ros.ledger import Ledger, Scope, SourceRecord

pytestmark = pytest.mark.model
MAY_5 = datetime(2023, 5, 5, 14, 0, tzinfo=UTC).timestamp()


def _rec(i: int, text: str, speaker: str = "Alice", t: float = MAY_5) -> SourceRecord:
    return SourceRecord(i, f"src-{i}", "alice", "", "s1", "dialogue", speaker, text, "", None,
                        None, {}, t, False, t, "h")


class RuleExtractor:
    name = "rules"

    def __init__(self) -> None:
        self.calls = 0

    def extract(self, source: SourceRecord, context: ExtractContext) -> list[FactDraft]:
        self.calls += 1
        return [FactDraft("observation", source.text, source.source_time)]


GOOD = """Sure, here it is:
```json
{"facts": [
  {"record": 1, "type": "state_change", "participants": ["I"], "entity": "Alice",
   "relation": "lives_in", "value": "Seattle", "polarity": 1,
   "description": "Alice moved to Seattle", "time": "yesterday"},
  {"record": 2, "type": "plan", "participants": ["you", "Bob"], "entity": "the dentist appointment",
   "relation": "scheduled_for", "value": "Tuesday", "polarity": true,
   "description": "The dentist appointment is on Tuesday", "time": ""}
 ],
 "edges": [{"type": "before", "from": 0, "to": 1, "why": "the move came first"}]}
```"""


def test_parse_good_reply_resolves_people_time_and_edges() -> None:
    sources = [_rec(1, "we moved to Seattle yesterday"),
               _rec(2, "your dentist appointment is on Tuesday", speaker="Bob")]
    contexts = [ExtractContext(addressee="Bob"), ExtractContext(addressee="Alice")]
    out = parse_output(GOOD, sources, contexts)
    (moved,), (dentist,) = out.drafts
    assert moved.participants == ("Alice",) and moved.key == ("alice", "lives_in")
    assert moved.value == "seattle" and moved.polarity == 1 and moved.type == "state_change"
    day = datetime.fromtimestamp(moved.anchor_time, tz=UTC).date()
    assert str(day) == "2023-05-04" and not moved.anchor_fallback  # the message's yesterday
    assert dentist.participants == ("Alice", "Bob") and dentist.entity == "dentist appointment"
    assert dentist.anchor_fallback and dentist.anchor_time == MAY_5
    assert [(e.type, e.src, e.dst) for e in out.edges] == [("before", (0, 0), (1, 0))]


def test_parse_empty_reply_means_no_facts() -> None:
    out = parse_output('{"facts": [], "edges": []}', [_rec(1, "hi")], [ExtractContext()])
    assert out.drafts == [[]] and out.edges == []


@pytest.mark.parametrize("reply, why", [
    ("the robot said thursday", "no JSON object"),
    ('{"facts": [{"record": 1, "type": "belief", "description": "x"}]}', "type"),
    ('{"facts": [{"record": 1, "type": "plan", "description": ""}]}', "description"),
    ('{"facts": [{"record": 3, "type": "plan", "description": "x"}]}', "record"),
    ('{"facts": [{"record": 1, "type": "plan", "description": "x", "polarity": 2}]}', "polarity"),
    ('{"facts": [{"record": 1, "type": "plan", "description": "x", "participants": [1]}]}',
     "participants"),
    ('{"facts": [{"record": 1, "type": "plan", "description": "x"}], '
     '"edges": [{"type": "updates", "from": 0, "to": 5}]}', "edge"),
    ('{"facts": [{"record": 1, "type": "plan", "description": "x"}], '
     '"edges": [{"type": "likes", "from": 0, "to": 0}]}', "edge type"),
    ('{"facts": {"record": 1}}', "facts"),
    ('{"facts": [{"record": 1, "type": "plan", "description": "x"', "no JSON object"),
])
def test_parse_rejects_malformed_replies(reply: str, why: str) -> None:
    with pytest.raises(MalformedOutput, match=why):
        parse_output(reply, [_rec(1, "a"), _rec(2, "b")], [ExtractContext(), ExtractContext()])


def test_prompt_lists_records_with_their_own_time_and_addressee() -> None:
    text = render_records([_rec(1, "see you tomorrow")], [ExtractContext(addressee="Bob")])
    assert "1. [2023-05-05 14:00 Friday] Alice to Bob: see you tomorrow" in text


def test_tiny_model_loads_nf4_and_garbage_falls_back_to_cpu(tiny_qwen_dir: Path) -> None:
    import bitsandbytes as bnb

    rules = RuleExtractor()
    llm = LlmExtractor(tiny_qwen_dir, "cpu", rules, load_in_4bit=True, max_new_tokens=12)
    layers = [m for m in llm.model.modules() if isinstance(m, bnb.nn.Linear4bit)]
    assert layers and all(m.weight.quant_state.quant_type == "nf4" for m in layers)
    drafts = llm.extract(_rec(1, "the red mug is on the kitchen counter"), ExtractContext())
    assert [d.type for d in drafts] == ["observation"] and rules.calls == 1
    assert llm.fallbacks == 1 and llm.last_fallback


class _Enc:
    name, dim = "e", 2

    def encode(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)


class _Projector:
    def __init__(self, extractor: ExtractorSelector) -> None:
        self.extractor, self.drafts = extractor, []

    def project(self, conn, jobs):
        for j in jobs:
            self.drafts.extend(self.extractor.extract(j.source, ExtractContext()))
        return ["add"] * len(jobs)


def test_malformed_batch_falls_back_and_is_recorded_on_the_jobs(tiny_qwen_dir: Path,
                                                                 tmp_path: Path) -> None:
    cfg = ConsolidationConfig(extractor="llm", llm_device="cpu", llm_chunk=2,
                              llm_max_new_tokens=8)
    rules = RuleExtractor()
    sel = ExtractorSelector(cfg, rules, model_path=str(tiny_qwen_dir), load_in_4bit=True)
    with Ledger(tmp_path / "m.db") as ledger:
        ingest(ledger, [Event("dialogue", Scope("alice", "", "s1"), f"the parcel pickup is {d}",
                              "alice", stamp=100.0 + i)
                        for i, d in enumerate(["thursday", "tuesday", "monday"])], CaptureConfig())
        proj = _Projector(sel)
        report = Consolidator(ledger, _Enc(), cfg, projector=proj, gate=sel).run_once()
        assert report.done == 3 and sel.llm is not None and sel.device == "cpu"
        assert sel.llm.chunks == 2 and sel.llm.fallbacks == 2  # chunks of 2 + 1
        assert [d.type for d in proj.drafts] == ["observation"] * 3 and rules.calls == 3
        notes = [r[0] for r in ledger.query("SELECT note FROM jobs ORDER BY job_id")]
        assert all(n and n.startswith("llm output malformed") for n in notes)
        assert sel.state()["llm_fallback_chunks"] == 2
