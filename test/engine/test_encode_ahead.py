"""Encoding ahead (consolidation/prefetch.py): while a full batch is projected, the texts
of the sources stored after it are encoded on a background thread, and the next batch
encodes only what is missing; the turns of the last batch that open the next batch's
windows are not encoded again. Only for an encoder whose vector of a text is its own
(``per_text``); the vectors stored are those of encoding every batch whole."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, ConsolidationConfig
from trace_ros.consolidation.prefetch import CHUNK, Prefetch
from trace_ros.consolidation.worker import Consolidator
from trace_ros.ledger import Job, Ledger, Scope

ALICE = Scope("alice", "r1", "s1")
PREFETCH_THREAD = "trace-ros-prefetch"


class TextEncoder:
    """A vector per text from its hash alone; records what it encoded, on which thread."""

    per_text = True

    def __init__(self, name: str = "text-enc", fail_ahead: bool = False) -> None:
        self.name, self.dim, self.fail_ahead = name, 16, fail_ahead
        self.encoded: list[tuple[str, str]] = []  # (thread name, text)
        self.ahead = threading.Event()  # set once a text was encoded ahead
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        thread = threading.current_thread().name
        if thread == PREFETCH_THREAD and self.fail_ahead:
            raise RuntimeError("encoder lost")
        with self._lock:
            self.encoded.extend((thread, t) for t in texts)
        if thread == PREFETCH_THREAD and texts:
            self.ahead.set()
        rows = [np.random.default_rng(int(hashlib.sha1(t.encode()).hexdigest()[:8], 16))
                .normal(size=self.dim) for t in texts]
        out = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class BatchEncoder(TextEncoder):
    """The same vectors, but not declared ``per_text``: nothing is encoded ahead."""

    per_text = False


class WaitingProjector:
    """Waits (bounded) during each batch until something was encoded ahead, so the test
    does not depend on how fast the background thread starts."""

    def __init__(self, encoder: TextEncoder, wait_s: float = 5.0) -> None:
        self.encoder, self.wait_s, self.batches = encoder, wait_s, 0

    def project(self, conn: sqlite3.Connection, jobs: list[Job]) -> list[str]:
        self.batches += 1
        self.encoder.ahead.wait(self.wait_s)
        return ["noop"] * len(jobs)


def _fill(ledger: Ledger, n: int) -> None:
    ingest(ledger, [Event("dialogue", ALICE, f"turn {i}: the kettle is on shelf {i}",
                          "alice" if i % 2 else "robot", stamp=100.0 + i)
                    for i in range(n)], CaptureConfig())


def _vectors(ledger: Ledger) -> list[tuple]:
    return ledger.query("SELECT owner_kind, owner_id, vec FROM vectors ORDER BY 1, 2")


def _texts(ledger: Ledger) -> list[str]:
    return [f"{s}: {t}" for s, t in ledger.query("SELECT speaker, text FROM sources ORDER BY seq")]


@pytest.fixture
def ledgers(tmp_path: Path):
    with Ledger(tmp_path / "a.db") as a, Ledger(tmp_path / "b.db") as b:
        _fill(a, 22)
        _fill(b, 22)
        yield a, b


def test_each_text_is_encoded_once_and_the_vectors_are_those_of_whole_batches(ledgers) -> None:
    ahead_ledger, plain_ledger = ledgers
    cfg = ConsolidationConfig(batch_size=5)
    enc = TextEncoder()
    worker = Consolidator(ahead_ledger, enc, cfg, projector=WaitingProjector(enc))
    assert worker.drain() == 22
    plain = BatchEncoder()
    assert Consolidator(plain_ledger, plain, cfg).drain() == 22
    assert _vectors(ahead_ledger) == _vectors(plain_ledger)  # source and window, to the bit
    texts = [t for _, t in enc.encoded]
    assert sorted(texts) == sorted(_texts(ahead_ledger))  # every text once
    assert {th for th, _ in enc.encoded} >= {PREFETCH_THREAD}
    # Without it, the turns before each batch's first were encoded again for its windows.
    assert len([t for _, t in plain.encoded]) > 22
    assert not [t for t in threading.enumerate() if t.name == PREFETCH_THREAD]


def test_an_encoder_not_per_text_encodes_nothing_ahead(ledgers) -> None:
    ledger, _ = ledgers
    enc = BatchEncoder()
    Consolidator(ledger, enc, ConsolidationConfig(batch_size=5),
                 projector=WaitingProjector(enc, wait_s=0.05)).drain()
    assert {th for th, _ in enc.encoded} == {threading.current_thread().name}


def test_a_failure_ahead_leaves_the_batch_to_encode_its_texts(ledgers) -> None:
    ledger, reference = ledgers
    cfg = ConsolidationConfig(batch_size=5)
    enc = TextEncoder(fail_ahead=True)
    assert Consolidator(ledger, enc, cfg,
                        projector=WaitingProjector(enc, wait_s=0.05)).drain() == 22
    Consolidator(reference, BatchEncoder(), cfg).drain()
    assert _vectors(ledger) == _vectors(reference)
    assert ledger.job_counts()["done"] == 22


def test_a_batch_that_is_not_full_encodes_nothing_ahead(ledgers) -> None:
    ledger, _ = ledgers
    enc = TextEncoder()
    Consolidator(ledger, enc, ConsolidationConfig(batch_size=50)).drain()
    assert {th for th, _ in enc.encoded} == {threading.current_thread().name}


def test_prefetch_stops_after_the_call_in_progress_and_returns_what_it_encoded() -> None:
    started, release = threading.Event(), threading.Event()

    class Held(TextEncoder):
        def encode(self, texts: list[str]) -> np.ndarray:
            started.set()
            release.wait(5.0)
            return super().encode(texts)

    enc = Held()
    ahead = Prefetch(enc, [f"text {i}" for i in range(40)])
    assert started.wait(5.0)
    ahead.stop()
    release.set()
    got = ahead.take()
    assert list(got) == [f"text {i}" for i in range(CHUNK)]  # the first call's, no more
    for text, vec in got.items():
        assert np.array_equal(vec, TextEncoder().encode([text])[0])


def test_prefetch_never_encodes_a_text_twice() -> None:
    enc = TextEncoder()
    texts = [f"text {i % 7}" for i in range(20)]
    ahead = Prefetch(enc, texts)
    assert enc.ahead.wait(5.0)
    got = ahead.take()
    assert set(got) <= set(texts)
    assert len([t for _, t in enc.encoded]) == len(set(t for _, t in enc.encoded))
