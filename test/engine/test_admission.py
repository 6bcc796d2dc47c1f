"""GPU admission: leases in a shared file, holders that never collide, expiry, PID reuse,
no over-commit under threads and processes, and the LLM extractor's deferral policy."""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
from pathlib import Path

import psutil
import pytest

from trace_ros.admission import Admission
from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, ConsolidationConfig
from trace_ros.consolidation.extract import ExtractContext
from trace_ros.consolidation.llm_extract import ROLE, ExtractorSelector
from trace_ros.consolidation.worker import Consolidator
from trace_ros.facts import FactDraft
from trace_ros.ledger import Ledger, Scope, SourceRecord

GiB = 1 << 30


def fixed(free: int, total: int = 80 * GiB):
    return lambda device: (free, total)


def test_two_holders_of_one_role_keep_separate_leases(tmp_path: Path) -> None:
    path = tmp_path / "leases.json"
    node_a, node_b = Admission(path, 0, fixed(40 * GiB)), Admission(path, 0, fixed(40 * GiB))
    assert node_a.request("query_node", 4 * GiB, "cuda:0").admitted
    assert node_b.request("query_node", 4 * GiB, "cuda:0").admitted
    leases = node_a.leases()
    assert len(leases) == 2 and node_a.holder_id("query_node") != node_b.holder_id("query_node")
    assert all(v["role"] == "query_node" and v["pid"] == os.getpid() for v in leases.values())
    node_a.release("query_node")
    assert set(node_b.leases()) == {node_b.holder_id("query_node")}


def test_full_device_is_refused_with_the_reason(tmp_path: Path) -> None:
    adm = Admission(tmp_path / "l.json", GiB, fixed(GiB + (100 << 20)))
    d = adm.request("x", 2 * GiB, "cuda:0")
    assert not d.admitted and "reserve" in d.reason and adm.leases() == {}
    broken = Admission(tmp_path / "l.json", GiB, probe=lambda dev: 1 / 0)
    d = broken.request("x", 1, "cuda:0")
    assert not d.admitted and "cannot read free memory" in d.reason


def test_unloaded_lease_expires_and_its_memory_is_reclaimed(tmp_path: Path) -> None:
    path = tmp_path / "l.json"
    hung = Admission(path, 0, fixed(10 * GiB), ttl_s=0.2)
    other = Admission(path, 0, fixed(10 * GiB))
    assert hung.request("llm", 8 * GiB, "cuda:0").admitted
    assert not other.request("reader", 4 * GiB, "cuda:0").admitted  # 8 GiB still promised
    assert hung.heartbeat("llm")  # a live holder keeps its lease
    time.sleep(0.3)  # the holder hung before loading: no heartbeat, the lease runs out
    assert other.request("reader", 4 * GiB, "cuda:0").admitted
    assert set(other.leases()) == {other.holder_id("reader")}
    assert not hung.heartbeat("llm")


def test_loaded_lease_does_not_expire(tmp_path: Path) -> None:
    adm = Admission(tmp_path / "l.json", 0, fixed(10 * GiB), ttl_s=0.05)
    assert adm.request("reader", GiB, "cuda:0").admitted
    adm.mark_loaded("reader")
    time.sleep(0.1)
    assert adm.holder_id("reader") in adm.leases()


def test_dead_process_and_reused_pid_leases_are_void(tmp_path: Path) -> None:
    path = tmp_path / "l.json"
    me = psutil.Process(os.getpid()).create_time()
    lease = {"bytes": 50 * GiB, "device": "cuda:0", "loaded": False}
    path.write_text(json.dumps({
        "dead": {**lease, "pid": 2**22 + 7},
        # A live PID, but not the process that took the lease: it started later.
        "reused": {**lease, "pid": os.getpid(), "pid_start": me - 3600.0},
        "alive": {**lease, "bytes": GiB, "pid": os.getpid(), "pid_start": me},
    }))
    adm = Admission(path, 0, fixed(10 * GiB))
    assert set(adm.leases()) == {"alive"}
    d = adm.request("me", 8 * GiB, "cuda:0")
    assert d.admitted and d.reserved_by_others == GiB


def test_threads_never_over_commit(tmp_path: Path) -> None:
    path = tmp_path / "l.json"
    decisions = []
    lock = threading.Lock()

    def ask(i: int) -> None:
        d = Admission(path, GiB, fixed(10 * GiB)).request(f"t{i}", 2 * GiB, "cuda:0")
        with lock:
            decisions.append(d)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    granted = [d for d in decisions if d.admitted]
    assert len(decisions) == 12 and len(granted) == 4  # (10 - 1) // 2
    assert sum(v["bytes"] for v in Admission(path, 0, fixed(0)).leases().values()) == 8 * GiB


def _ask_in_process(path: str, i: int, out, release) -> None:
    d = Admission(path, GiB, fixed(10 * GiB)).request(f"p{i}", 3 * GiB, "cuda:0")
    out.put(d.admitted)
    release.wait(30)  # stay alive: a dead holder's lease would be void


def test_processes_never_over_commit(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    out, release = ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_ask_in_process, args=(str(tmp_path / "l.json"), i, out, release))
             for i in range(6)]
    for p in procs:
        p.start()
    try:
        results = [out.get(timeout=30) for _ in procs]
        leases = Admission(tmp_path / "l.json", 0, fixed(0)).leases()
    finally:
        release.set()
        for p in procs:
            p.join(timeout=30)
    assert sum(results) == 3 and len(leases) == 3  # (10 - 1) // 3
    assert len({v["pid"] for v in leases.values()}) == 3
    assert Admission(tmp_path / "l.json", 0, fixed(0)).leases() == {}  # all exited


# -- the LLM extractor under admission -------------------------------------------------

class RuleExtractor:
    name = "rules"

    def extract(self, source: SourceRecord, context: ExtractContext) -> list[FactDraft]:
        return [FactDraft("observation", source.text, source.source_time)]


class FakeLlm:
    """Stands in for a loaded LlmExtractor (the model tests use the real one)."""

    name = "fake-llm"
    fallbacks = 0

    def __init__(self) -> None:
        self.chunks = 0

    def extract_chunk(self, sources, contexts):
        from trace_ros.consolidation.llm_extract import ChunkResult

        self.chunks += 1
        return ChunkResult([[FactDraft("plan", f"llm: {s.text}", s.source_time)]
                            for s in sources], []), ""


class ExtractingProjector:
    def __init__(self, extractor) -> None:
        self.extractor, self.drafts = extractor, []

    def project(self, conn, jobs):
        for j in jobs:
            self.drafts.extend(self.extractor.extract(j.source, ExtractContext()))
        return ["add"] * len(jobs)


def _selector(tmp_path: Path, free: int, **cfg) -> tuple[ExtractorSelector, list[str]]:
    loads: list[str] = []

    def factory(device: str):
        loads.append(device)
        return FakeLlm()

    config = ConsolidationConfig(llm_device="cuda:0", **cfg)
    adm = Admission(tmp_path / "leases.json", GiB, fixed(free))
    sel = ExtractorSelector(config, RuleExtractor(), admission=adm, llm_factory=factory)
    sel.need_bytes = 4 * GiB
    return sel, loads


def _run(ledger: Ledger, sel: ExtractorSelector):
    proj = ExtractingProjector(sel)
    report = Consolidator(ledger, _Enc(), ConsolidationConfig(), projector=proj, gate=sel).run_once()
    return report, proj


class _Enc:
    name, dim = "e", 2

    def encode(self, texts):
        import numpy as np

        return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)


def _fill(ledger: Ledger) -> None:
    ingest(ledger, [Event("dialogue", Scope("alice"), f"I will call Bob on day {i}", "alice",
                          stamp=100.0 + i) for i in range(3)], CaptureConfig())


def test_llm_jobs_are_deferred_when_the_device_is_full(ledger: Ledger, tmp_path: Path) -> None:
    _fill(ledger)
    sel, loads = _selector(tmp_path, free=2 * GiB, extractor="llm", llm_when_refused="defer",
                           llm_defer_s=60.0)
    report, proj = _run(ledger, sel)
    assert report.deferred == 3 and report.done == 0 and loads == [] and proj.drafts == []
    notes = {r[0] for r in ledger.query("SELECT note FROM jobs")}
    assert len(notes) == 1 and "GPU admission refused" in notes.pop()
    assert ledger.job_counts()["deferred"] == 3
    assert ROLE not in {v["role"] for v in sel.admission.leases().values()}
    assert sel.state()["llm_deferred_batches"] == 1


def test_llm_jobs_run_on_cpu_extractor_when_refused_and_configured(ledger: Ledger,
                                                                   tmp_path: Path) -> None:
    _fill(ledger)
    sel, loads = _selector(tmp_path, free=2 * GiB, extractor="llm", llm_when_refused="cpu")
    report, proj = _run(ledger, sel)
    assert report.done == 3 and loads == []
    assert [d.type for d in proj.drafts] == ["observation"] * 3  # the CPU rules
    notes = [r[0] for r in ledger.query("SELECT note FROM jobs")]
    assert all(n.startswith("cpu extractor: GPU admission refused") for n in notes)


def test_auto_uses_the_llm_when_admitted_and_holds_a_lease(ledger: Ledger, tmp_path: Path) -> None:
    _fill(ledger)
    sel, loads = _selector(tmp_path, free=20 * GiB, extractor="auto")
    report, proj = _run(ledger, sel)
    assert report.done == 3 and loads == ["cuda:0"]
    assert [d.type for d in proj.drafts] == ["plan"] * 3
    lease = sel.admission.leases()[sel.admission.holder_id(ROLE)]
    assert lease["loaded"] and lease["bytes"] == 4 * GiB
    assert sel.state()["extractor"] == "fake-llm"
    sel.close()
    assert sel.admission.leases() == {}


def test_refusal_is_asked_again_only_after_the_defer_time(ledger: Ledger, tmp_path: Path) -> None:
    _fill(ledger)
    calls = []
    sel, _loads = _selector(tmp_path, free=2 * GiB, extractor="auto", llm_defer_s=3600.0)
    probe = sel.admission.probe
    sel.admission.probe = lambda d: (calls.append(d), probe(d))[1]
    sel.before_batch([])
    sel.before_batch([])
    assert len(calls) == 1 and "admission refused" in sel.reason


def test_cpu_mode_never_asks_for_the_device(ledger: Ledger, tmp_path: Path) -> None:
    _fill(ledger)
    sel, loads = _selector(tmp_path, free=0, extractor="cpu")
    report, proj = _run(ledger, sel)
    assert report.done == 3 and loads == [] and sel.admission.leases() == {}
    assert [r[0] for r in ledger.query("SELECT note FROM jobs")] == [None] * 3


def test_unknown_extractor_mode_is_a_config_error(tmp_path: Path) -> None:
    from trace_ros.config import MemoryConfig
    from trace_ros.errors import ConfigError

    with pytest.raises(ConfigError, match="consolidation.extractor"):
        MemoryConfig.from_flat({"consolidation.extractor": "gpu"})
    with pytest.raises(ConfigError, match="consolidation.llm_when_refused"):
        MemoryConfig.from_flat({"consolidation.llm_when_refused": "wait"})


def test_missing_weights_auto_uses_cpu_llm_raises(ledger: Ledger, tmp_path: Path) -> None:
    from trace_ros.errors import ModelUnavailableError

    _fill(ledger)
    missing = str(tmp_path / "no-model")
    sel = ExtractorSelector(ConsolidationConfig(extractor="auto"), RuleExtractor(),
                            model_path=missing)
    report, proj = _run(ledger, sel)
    assert report.done == 3 and sel.name == "rules" and "unavailable" in sel.reason
    assert [d.type for d in proj.drafts] == ["observation"] * 3
    with pytest.raises(ModelUnavailableError):
        ExtractorSelector(ConsolidationConfig(extractor="llm"), RuleExtractor(), model_path=missing)
