"""The NF4 Qwen reader path on a tiny random model: real transformers + bitsandbytes on CPU."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trace_ros.admission import Admission
from trace_ros.config import ReaderConfig
from trace_ros.errors import ModelUnavailableError
from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.qwen_reader import (
    QwenReader,
    estimate_need_bytes,
    instructions,
    parse_citations,
    parse_reply,
)
from trace_ros.query.readers import ExtractiveReader, UnavailableReader, make_reader

pytestmark = pytest.mark.model
GiB = 1 << 30


def _pack():
    def rec(i: int, text: str) -> SourceRecord:
        return SourceRecord(i, f"src-{i}", "alice", "", "s1", "dialogue", "alice", text, "", None,
                            None, {}, 1000.0 * i, False, 1000.0 * i, "h")

    items = [EvidenceItem(rec(1, "the parcel pickup is thursday"), 1.0, {}),
             EvidenceItem(rec(2, "a red mug is on the kitchen counter"), 0.5, {})]
    return pack(items, 1000, 10)


def test_parse_citations_keeps_only_shown_ids() -> None:
    answer, cited = parse_citations("Thursday [src-1] and maybe [src-9, src-2].", ["src-1", "src-2"])
    assert cited == ["src-1", "src-2"]
    assert answer == "Thursday and maybe."


def test_loads_nf4_and_reads(tiny_qwen_dir: Path) -> None:
    import bitsandbytes as bnb

    reader = QwenReader(ReaderConfig(kind="qwen", model_path=str(tiny_qwen_dir), device="cpu",
                                     max_new_tokens=8))
    layers = [m for m in reader.model.modules() if isinstance(m, bnb.nn.Linear4bit)]
    assert layers, "no 4-bit layers: the model was not quantised"
    assert all(m.weight.quant_state.quant_type == "nf4" for m in layers)
    question = "when is the parcel pickup ?"
    p = _pack()
    assert "[src-1]" in reader.prompt(question, plan_question(question), p)
    out = reader.read(question, plan_question(question), p)
    assert out.reader == "qwen-nf4"
    assert set(out.cited_ids) <= set(p.source_ids)
    assert out.cited_ids or out.note  # a random model rarely cites; then it says so


def test_missing_weights_qwen_says_so_auto_falls_back(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere")
    with pytest.raises(ModelUnavailableError):
        make_reader(ReaderConfig(kind="qwen", model_path=missing), strict=True)
    stand_in = make_reader(ReaderConfig(kind="qwen", model_path=missing))
    assert isinstance(stand_in, UnavailableReader) and "nowhere" in stand_in.reason
    assert isinstance(make_reader(ReaderConfig(kind="auto", model_path=missing)), ExtractiveReader)


def test_parse_reply_prefers_the_json_contract_and_reports_unshown_ids() -> None:
    shown = ["src-1", "src-2"]
    assert parse_reply('{"answer": "Thursday", "sources": ["src-1"]}', shown) == (
        "Thursday", ["src-1"], [])
    # Prose around the object, an ID in brackets, an ID that was never shown.
    text = 'Sure! {"answer": "Thursday", "sources": ["[src-2]", "src-9"]} done'
    assert parse_reply(text, shown) == ("Thursday", ["src-2"], ["src-9"])
    assert parse_reply('{"answer": "UNKNOWN", "sources": []}', shown) == ("", [], [])
    assert parse_reply("Thursday [src-1] [src-7]", shown) == ("Thursday", ["src-1"], ["src-7"])
    assert parse_reply("{not json} no citation", shown) == ("{not json} no citation", [], [])


def test_instructions_follow_the_plan() -> None:
    temporal = " ".join(instructions(plan_question("When did she move?")))
    assert "absolute dates" in temporal and "newest state" in temporal
    past = " ".join(instructions(plan_question("Where did she live in 2022?")))
    assert "newest state" not in past and "in 2022" in past
    assert "every distinct item" in " ".join(instructions(plan_question("What pets has she?")))
    assert "Chain" in " ".join(instructions(plan_question("What do Ann and Bo both have in common?")))


def test_a_reply_citing_an_unshown_id_is_rejected_and_abstained(tiny_qwen_dir: Path,
                                                                 tmp_path: Path) -> None:
    from trace_ros.capture import Event, ingest
    from trace_ros.config import CaptureConfig
    from trace_ros.ledger import Ledger, Scope
    from trace_ros.query.answer import QueryEngine, QueryRequest

    reader = QwenReader(ReaderConfig(kind="qwen", model_path=str(tiny_qwen_dir), device="cpu",
                                     max_new_tokens=8))
    prompts: list[str] = []

    def forged(prompt: str) -> str:
        prompts.append(prompt)
        return '{"answer": "Thursday", "sources": ["src-not-shown"]}'

    reader.generate = forged  # type: ignore[method-assign]
    with Ledger(tmp_path / "m.db") as ledger:
        ingest(ledger, [Event("dialogue", Scope("alice"), "the parcel pickup is thursday", "alice",
                              stamp=10.0)], CaptureConfig())
        res = QueryEngine(ledger, None, reader, audit=False).ask(
            QueryRequest(Scope("alice"), "when is the parcel pickup"))
    assert prompts and "Give absolute dates" in prompts[0]
    assert res.status == "abstained" and res.answer == "" and res.source_ids == []
    assert "src-not-shown" in res.message


def test_idle_model_is_unloaded_and_reloaded(tiny_qwen_dir: Path) -> None:
    import time

    reader = QwenReader(ReaderConfig(kind="qwen", model_path=str(tiny_qwen_dir), device="cpu",
                                     max_new_tokens=4, idle_unload_s=0.2))
    assert reader.loaded
    deadline = time.monotonic() + 10
    while reader.loaded and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not reader.loaded
    out = reader.read("when is the parcel pickup ?", plan_question("when is the parcel pickup ?"),
                      _pack())
    assert reader.loaded and out.reader == "qwen-nf4"
    reader.close()
    assert not reader.loaded


def test_generation_is_deterministic(tiny_qwen_dir: Path) -> None:
    reader = QwenReader(ReaderConfig(kind="qwen", model_path=str(tiny_qwen_dir), device="cpu",
                                     max_new_tokens=6, idle_unload_s=0))
    prompt = reader.prompt("when is the parcel pickup ?",
                           plan_question("when is the parcel pickup ?"), _pack())
    assert reader.generate(prompt) == reader.generate(prompt)


def test_refused_admission_falls_back(tiny_qwen_dir: Path, tmp_path: Path) -> None:
    full = Admission(tmp_path / "leases.json", reserve_bytes=GiB, probe=lambda d: (GiB // 2, 8 * GiB))
    cfg = ReaderConfig(kind="qwen", model_path=str(tiny_qwen_dir), device="cuda:0")
    with pytest.raises(ModelUnavailableError, match="admission refused"):
        QwenReader(cfg, full)
    cfg.cpu_fallback = True
    reader = QwenReader(cfg, full)
    assert reader.device == "cpu" and reader.decision is not None and not reader.decision.admitted


def test_admission_counts_other_leases(tmp_path: Path) -> None:
    adm = Admission(tmp_path / "leases.json", reserve_bytes=GiB, probe=lambda d: (10 * GiB, 80 * GiB))
    assert adm.request("query_node", 6 * GiB, "cuda:0").admitted
    # The first lease is not loaded yet, so its 6 GiB still count against the next one.
    second = adm.request("consolidation_node", 4 * GiB, "cuda:0")
    assert not second.admitted and second.reserved_by_others == 6 * GiB
    adm.mark_loaded("query_node")  # now the probe's free figure already reflects it
    assert adm.request("consolidation_node", 4 * GiB, "cuda:0").admitted
    adm.release("query_node")
    assert "query_node" not in adm.leases()


def test_dead_process_leases_are_void(tmp_path: Path) -> None:
    import json

    path = tmp_path / "leases.json"
    path.write_text(json.dumps({"ghost": {"bytes": 50 * GiB, "device": "cuda:0", "pid": 2**22 + 7,
                                          "loaded": False}}))
    adm = Admission(path, reserve_bytes=0, probe=lambda d: (10 * GiB, 80 * GiB))
    assert adm.request("me", 8 * GiB, "cuda:0").admitted
    me = adm.holder_id("me")
    assert set(adm.leases()) == {me} and adm.leases()[me]["pid"] == os.getpid()


def test_need_estimate_scales_with_weights(tiny_qwen_dir: Path) -> None:
    assert estimate_need_bytes(tiny_qwen_dir, True) < estimate_need_bytes(tiny_qwen_dir, False)


def test_pipeline_with_qwen_reader_checks_citations(tiny_qwen_dir: Path, tmp_path: Path) -> None:
    from trace_ros.capture import Event, ingest
    from trace_ros.config import CaptureConfig
    from trace_ros.ledger import Ledger, Scope
    from trace_ros.query.answer import QueryEngine, QueryRequest

    with Ledger(tmp_path / "m.db") as ledger:
        ingest(ledger, [Event("dialogue", Scope("alice"), "the parcel pickup is thursday", "alice",
                              stamp=10.0)], CaptureConfig())
        reader = QwenReader(ReaderConfig(kind="qwen", model_path=str(tiny_qwen_dir), device="cpu",
                                         max_new_tokens=8))
        res = QueryEngine(ledger, None, reader).ask(QueryRequest(Scope("alice"), "when is the parcel pickup"))
        assert res.reader == "qwen-nf4" and res.evidence
        assert res.status in {"answered", "abstained"}
        assert set(res.source_ids) <= {e.source_id for e in res.evidence}
