"""Vector packs (issue 16, cold questions): a subject's vectors saved as one block beside
the ledger, read by a fresh process's first question instead of a row per vector. A pack
answers exactly as the rows do, forget and rebuild leave none behind, and a pack that is
not this ledger's, of this epoch, is never read."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.consolidation.worker import Consolidator
from trace_ros.embed import MiniLMEncoder
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.storage import packing
from trace_ros.storage.readonly import open_read_only
from trace_ros.storage.vectorindex import VectorIndex
from trace_ros.storage.vectorpack import read_pack

ANN, BOB = Scope("ann", "r1", "s1"), Scope("bob", "r1", "s1")
SECRET = "zanzibarquokka"


class HashEncoder:
    """Deterministic unit vectors from the text (no model)."""

    name = "hash-test-encoder"
    dim = 16

    def encode(self, texts: list[str]) -> np.ndarray:
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:self.dim], dtype=np.uint8)
                for t in texts]
        out = np.asarray(rows, dtype=np.float32) - 127.5
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture(autouse=True)
def small_step(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(packing, "STEP", 4)
    yield
    packing.wait()


def _lines(scope: Scope, n: int, start: int = 0, prefix: str = "line") -> list[Event]:
    return [Event("dialogue", scope, f"{prefix} {i} about the garden and the kettle", "Ann",
                  stamp=float(i + 1), source_id=f"{scope.subject_id}-{prefix}-{i}")
            for i in range(start, start + n)]


def _fill(ledger: Ledger, encoder: object, events: list[Event],
          worker_packs: bool = False) -> None:
    """Capture and consolidate ``events``; the packs the idle worker writes are removed
    unless ``worker_packs`` (most tests here look at the query side's)."""
    assert all(r.status == "accepted" for r in ingest(ledger, events, CaptureConfig()))
    Consolidator(ledger, encoder).drain()
    if not worker_packs:
        for path in _packs(ledger):
            path.unlink()


def _packs(ledger: Ledger) -> list[Path]:
    return sorted(ledger.path.parent.glob(ledger.path.name + ".vpack-*"))


def _state(index: VectorIndex, subject: str) -> tuple:
    sv = index.refresh(subject)
    return (sv.watermark, sv.seqs.tolist(), sv.ids.tolist(), sv.robot.tolist(), sv.session.tolist(),
            sv.source_time.tolist(), sv.known_time.tolist(), sv.speaker.tolist(),
            sv.matrix.tobytes())


def _rows_read(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the vector rows read one by one (not from a pack) from now on."""
    counted: list[int] = []
    real = ledger.source_vectors_after

    def counting(*args: object, **kwargs: object) -> list:
        rows = real(*args, **kwargs)
        counted.append(len(rows))
        return rows

    monkeypatch.setattr(ledger, "source_vectors_after", counting)
    return counted


def test_a_fresh_index_reads_the_pack_and_holds_what_the_rows_hold(
        ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    enc = HashEncoder()
    _fill(ledger, enc, _lines(ANN, 12) + _lines(BOB, 3))
    first = VectorIndex(ledger, enc.name)
    rows_state = _state(first, "ann")
    packing.wait()
    assert len(_packs(ledger)) == 1  # ann's 12 vectors; bob's 3 are under the step
    assert ledger.stats()["db_bytes"] == sum(  # the ledger's own files, not its packs
        p.stat().st_size for p in ledger.path.parent.glob(ledger.path.name + "*")
        if p.suffix in (".db", ".db-wal", ".db-shm"))
    again = Ledger(ledger.path)
    try:
        counted = _rows_read(again, monkeypatch)
        fresh = VectorIndex(again, enc.name)
        assert _state(fresh, "ann") == rows_state
        assert counted == [0]  # nothing after the pack's watermark: no row read
        q = enc.encode(["line 3 about the garden"])[0]
        assert fresh.search(ANN, q, 5) == first.search(ANN, q, 5)
    finally:
        again.close()


def test_rows_stored_after_the_pack_are_read_on_top_of_it(
        ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    enc = HashEncoder()
    _fill(ledger, enc, _lines(ANN, 12))
    VectorIndex(ledger, enc.name).refresh("ann")
    packing.wait()
    _fill(ledger, enc, _lines(ANN, 3, start=12), worker_packs=True)  # 3: under the step
    counted = _rows_read(ledger, monkeypatch)
    on_pack = _state(VectorIndex(ledger, enc.name), "ann")
    assert counted == [3]
    monkeypatch.undo()
    for path in _packs(ledger):
        path.unlink()
    assert on_pack == _state(VectorIndex(ledger, enc.name), "ann")


def test_a_fresh_engine_answers_the_same_from_packs(ledger: Ledger,
                                                    encoder: MiniLMEncoder) -> None:
    talk = ["I moved to Porto last week.", "My sister Carla visits in May.",
            "The red kettle is in the garage.", "I drink green tea in the morning.",
            "Actually I moved to Oslo now.", "The parcel comes on Thursday."]
    _fill(ledger, encoder, [Event("dialogue", ANN, t, "Ann", stamp=float(i + 1))
                            for i, t in enumerate(talk)])
    questions = ["Where do I live now?", "Where is the kettle?", "What do I drink?"]

    def answers(led: Ledger) -> list[tuple]:
        engine = QueryEngine(led, encoder, audit=False)
        out = []
        for q in questions:
            r = engine.ask(QueryRequest(ANN, q))
            out.append((r.status, r.answer, r.source_ids,
                        [e.record.source_id for e in r.evidence], r.routes))
        return out

    from_rows = answers(ledger)
    packing.wait()
    assert len(_packs(ledger)) == 2  # source and window vectors
    again = Ledger(ledger.path)
    try:
        assert answers(again) == from_rows
    finally:
        again.close()


def test_forget_deletes_every_pack_and_no_file_keeps_the_forgotten(ledger: Ledger) -> None:
    enc = HashEncoder()
    events = _lines(ANN, 10) + [Event("dialogue", ANN, f"my password is {SECRET}", "Ann",
                                      stamp=50.0, source_id="ann-secret")]
    _fill(ledger, enc, events)
    secret_vec = bytes(ledger.query("SELECT vec FROM vectors WHERE owner_id = 'ann-secret' "
                                    "AND owner_kind = 'source'")[0][0])
    index = VectorIndex(ledger, enc.name)
    index.refresh("ann")
    packing.wait()
    stored = {bytes(r[0]) for r in ledger.query("SELECT vec FROM vectors")}
    packs = _packs(ledger)
    assert packs and any(v in packs[0].read_bytes() for v in stored)
    assert b"ann-secret" in packs[0].read_bytes()
    ledger.forget(None, ["ann-secret"])
    assert _packs(ledger) == []
    index.refresh("ann")  # the index reloads and saves a pack without the forgotten
    packing.wait()
    assert _packs(ledger)
    ledger.close()
    for path in ledger.path.parent.glob(ledger.path.name + "*"):
        data = path.read_bytes()
        assert SECRET.encode() not in data and secret_vec not in data, path.name
    assert all(b"ann-secret" not in p.read_bytes() for p in _packs(ledger))  # tombstone only


@pytest.mark.parametrize("how", ["reset_derived", "drop_other_vectors", "replace_vectors"])
def test_whatever_moves_the_epoch_drops_the_packs(ledger: Ledger, how: str) -> None:
    enc = HashEncoder()
    _fill(ledger, enc, _lines(ANN, 8))
    VectorIndex(ledger, enc.name).refresh("ann")
    packing.wait()
    assert _packs(ledger)
    if how == "reset_derived":
        ledger.reset_derived()
    elif how == "drop_other_vectors":
        ledger.drop_other_vectors("another-model", 16)
    else:
        ledger.replace_vectors("another-model", [("ann-line-0", "ann", np.ones(16, np.float32))])
    assert _packs(ledger) == []


def test_a_pack_read_before_a_forget_is_not_kept(ledger: Ledger) -> None:
    enc = HashEncoder()
    _fill(ledger, enc, _lines(ANN, 8))
    index = VectorIndex(ledger, enc.name)
    with ledger.read():  # a question's snapshot: the forget commits after it began
        sv = index.refresh("ann")
        pack_epoch = sv.epoch
    packing.wait()
    path = _packs(ledger)[0]
    stale = read_pack(path)
    assert stale is not None and stale.epoch == pack_epoch
    ledger.forget(None, ["ann-line-3"])
    assert ledger.save_vector_pack(stale) is False  # its epoch has moved on
    assert _packs(ledger) == []


def test_a_pack_of_another_ledger_at_this_path_is_not_read(ledger: Ledger,
                                                          tmp_path: Path) -> None:
    enc = HashEncoder()
    _fill(ledger, enc, _lines(ANN, 8))
    VectorIndex(ledger, enc.name).refresh("ann")
    packing.wait()
    packs = {p.name: p.read_bytes() for p in _packs(ledger)}
    ledger.close()
    for path in ledger.path.parent.glob(ledger.path.name + "*"):
        path.unlink()
    other = Ledger(ledger.path)  # a new ledger at that path: the same epoch, other vectors
    try:
        _fill(other, enc, _lines(ANN, 8, prefix="other"))
        VectorIndex(other, enc.name).refresh("ann")  # its own pack
        packing.wait()
        for name, data in packs.items():
            (ledger.path.parent / name).write_bytes(data)
        ids = VectorIndex(other, enc.name).refresh("ann").ids.tolist()
        assert ids == [f"ann-other-{i}" for i in range(8)]
    finally:
        other.close()


def test_a_read_only_ledger_reads_packs_and_writes_none(ledger: Ledger) -> None:
    enc = HashEncoder()
    _fill(ledger, enc, _lines(ANN, 8) + _lines(BOB, 8))
    VectorIndex(ledger, enc.name).refresh("ann")
    packing.wait()
    before = _packs(ledger)
    ro = open_read_only(ledger.path)
    try:
        epoch = ro.meta_value("vectors_epoch") or ""
        assert ro.load_vector_pack("ann", enc.name, "source", epoch) is not None
        VectorIndex(ro, enc.name).refresh("bob")
        packing.wait()
        assert _packs(ledger) == before
    finally:
        ro.close()


def test_a_cut_or_foreign_file_is_no_pack(ledger: Ledger) -> None:
    enc = HashEncoder()
    _fill(ledger, enc, _lines(ANN, 8))
    VectorIndex(ledger, enc.name).refresh("ann")
    packing.wait()
    path = _packs(ledger)[0]
    assert read_pack(path) is not None
    data = path.read_bytes()
    path.write_bytes(data[:-10])
    assert read_pack(path) is None
    path.write_bytes(b"not a pack" + data)
    assert read_pack(path) is None


def test_the_idle_worker_leaves_packs_a_fresh_index_reads_whole(
        ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once its queue is empty the consolidation worker writes the packs of the subjects
    it projected (source and window vectors): a query process's first question reads
    no vector row one by one, and holds what the rows hold."""
    enc = HashEncoder()
    _fill(ledger, enc, _lines(ANN, 12) + _lines(BOB, 3), worker_packs=True)
    assert len(_packs(ledger)) == 2  # ann's source and window; bob's 3 are under the step
    on_pack = {}
    for kind in ("source", "window"):
        counted = _rows_read(ledger, monkeypatch)
        on_pack[kind] = _state(VectorIndex(ledger, enc.name, kind), "ann")
        assert counted == [0], kind
        monkeypatch.undo()
        monkeypatch.setattr(packing, "STEP", 4)  # (undone with the rest)
    for path in _packs(ledger):
        path.unlink()
    for kind in ("source", "window"):
        no_save = VectorIndex(ledger, enc.name, kind, save=lambda *_: None)
        assert on_pack[kind] == _state(no_save, "ann"), kind
    # Packs gone (or grown past a step): the next idle run writes them again.
    _fill(ledger, enc, _lines(ANN, 6, start=12), worker_packs=True)
    counted = _rows_read(ledger, monkeypatch)
    _state(VectorIndex(ledger, enc.name), "ann")
    assert counted == [0]
