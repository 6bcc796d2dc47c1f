"""Road 1, the fast path: validate, scope, identify, and store source + job durably.

Nothing is interpreted here. ``prepare`` turns an ``Event`` into a ``NewSource``
or raises ``ValidationError(field, reason)``; ``GroupCommitWriter`` batches
prepared sources from many callers into one SQLite transaction per short
window, and reports each result only after the commit (acknowledged = durable).
The lexical index of what was stored (the source postings; on SQLite FTS5's index, the
subjects' lexical statistics and the speakers' turn counts too) is written after the
commit, while no event waits (``Ledger.index_postings``); bulk ``ingest`` writes it
after each batch.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple

from .config import CaptureConfig
from .errors import ValidationError
from .ledger import ATTACHED_TO, Ledger, NewSource, Scope, StoreResult
from .storage.frozen import fast_init

MODALITIES = ("dialogue", "perception")


@fast_init  # one an event (trace_ros.storage.frozen)
@dataclass(frozen=True)
class Event:
    """One thing said or perceived, as a client hands it in (before validation).

    ``stamp`` is seconds since the epoch; ``None`` or 0 means "now" (the time
    of receipt, which is then recorded as such).
    """

    modality: str
    scope: Scope
    text: str = ""
    speaker: str = ""
    label: str = ""
    confidence: float | None = None
    pose: dict[str, Any] | None = None
    payload: dict[str, Any] | str | None = None
    stamp: float | None = None
    source_id: str = ""


def _check_str(name: str, value: object, limit: int) -> str:
    if not isinstance(value, str):
        raise ValidationError(name, f"must be a string, got {type(value).__name__}")
    if value.isascii():  # one byte a character, nothing to encode (most fields)
        size = len(value)
    else:
        try:
            size = len(value.encode("utf-8"))
        except UnicodeEncodeError as exc:
            raise ValidationError(name, f"not valid UTF-8 ({exc.reason})") from exc
    if "\x00" in value:
        raise ValidationError(name, "contains a NUL character")
    if size > limit:
        raise ValidationError(name, f"{size} bytes exceeds the limit of {limit}")
    return value


# json.dumps(obj, sort_keys=True, ensure_ascii=False) without building an encoder per call
# (the same text: IDs and content hashes must not change).
_canonical_json = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode


def _parts_encoder() -> Callable[[tuple[object, ...]], str]:
    """``_canonical_json`` of an ID's or a content hash's parts: the same text, from one C
    encoder made once (``encode`` makes one per call, with a closure and a dict to find
    cycles: ~2 of its ~4.5 us for a dialogue event's parts, twice an event when the ID is
    derived). The parts are strings, numbers, None and a pose of numbers and a frame, so
    there is no cycle to find; without the C encoder, ``_canonical_json`` itself."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return _canonical_json
    base = json.JSONEncoder(sort_keys=True, ensure_ascii=False)
    chunks = make(None, base.default, json.encoder.encode_basestring, None,
                  base.key_separator, base.item_separator, True, False, True)
    return lambda parts: "".join(chunks(parts, 0))


_parts_json = _parts_encoder()


def _digest(*parts: object) -> str:
    return hashlib.sha256(_parts_json(parts).encode("utf-8")).hexdigest()


def prepare(event: Event, config: CaptureConfig, now: float | None = None) -> NewSource:
    """Validate ``event`` and give it its ID and content hash.

    ``now`` is the receipt time (the caller's clock: a node passes its ROS clock, so a
    replay under ``use_sim_time`` records the replayed times); it stands in for a zero
    stamp. Raises ``ValidationError`` naming the field and the reason.
    """
    if event.modality not in MODALITIES:
        raise ValidationError("modality", f"must be one of {', '.join(MODALITIES)}")
    scope = event.scope
    _check_str("scope.subject_id", scope.subject_id, 256)
    _check_str("scope.robot_id", scope.robot_id, 256)
    _check_str("scope.session_id", scope.session_id, 256)
    scope.check()
    speaker = _check_str("speaker" if event.modality == "dialogue" else "actor",
                         event.speaker, 256).strip()
    text = _check_str("text" if event.modality == "dialogue" else "description",
                      event.text, config.max_text_bytes).strip()
    label = _check_str("label", event.label, 512).strip()
    if event.modality == "dialogue" and not text:
        raise ValidationError("text", "required for dialogue, must not be empty")
    if event.modality == "perception" and not (text or label):
        raise ValidationError("description", "perception needs a description or a label")
    if event.modality == "perception" and not text:
        text = label

    payload = event.payload
    payload_json = ""
    if payload is None or payload == "":
        payload_obj: dict[str, Any] = {}
        payload_json = "{}"  # _canonical_json({}), without the encoder
    elif isinstance(payload, str):
        _check_str("payload_json", payload, config.max_payload_bytes)
        try:
            payload_obj = json.loads(payload)
        except json.JSONDecodeError as exc:
            raise ValidationError("payload_json", f"not valid JSON ({exc.msg})") from exc
        except RecursionError as exc:
            raise ValidationError("payload_json", "nested too deep to parse") from exc
        if not isinstance(payload_obj, dict):
            raise ValidationError("payload_json", "must be a JSON object")
    elif isinstance(payload, dict):
        payload_obj = payload
    else:
        raise ValidationError("payload_json", "must be a JSON object")
    attached = payload_obj.get(ATTACHED_TO)
    if attached is not None and not (isinstance(attached, str) and attached.strip()):
        raise ValidationError(f"payload_json.{ATTACHED_TO}",
                              "must be the source ID (a non-empty string) it is attached to")
    try:
        payload_json = payload_json or _canonical_json(payload_obj)
    except RecursionError as exc:
        raise ValidationError("payload_json", "nested too deep to store") from exc
    except (TypeError, ValueError) as exc:
        raise ValidationError("payload_json", f"not storable as JSON ({exc})") from exc
    _check_str("payload_json", payload_json, config.max_payload_bytes * 4)
    if len(payload_json.encode("utf-8")) > config.max_payload_bytes:
        raise ValidationError("payload_json", f"exceeds the limit of {config.max_payload_bytes} bytes")

    confidence = event.confidence
    if confidence is not None and (isinstance(confidence, bool)
                                   or not isinstance(confidence, (int, float))):
        raise ValidationError("confidence", f"must be a number, got {type(confidence).__name__}")
    if confidence is not None and (not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0):
        raise ValidationError("confidence", "must be within [0, 1]")
    if event.pose is not None:
        if not isinstance(event.pose, dict):
            raise ValidationError("pose", f"must be an object, got {type(event.pose).__name__}")
        for key, value in event.pose.items():  # a loop: a generator cost ~2 us an event
            if key != "frame_id" and not (isinstance(value, (int, float))
                                          and math.isfinite(value)):
                raise ValidationError("pose", "position and orientation must be finite numbers")
        if not str(event.pose.get("frame_id", "")).strip():
            raise ValidationError("pose.header.frame_id", "required when has_pose is true")

    stamp = event.stamp or 0.0
    if isinstance(stamp, bool) or not isinstance(stamp, (int, float)):
        raise ValidationError("header.stamp", f"must be a number, got {type(stamp).__name__}")
    if not math.isfinite(stamp) or stamp < 0:
        raise ValidationError("header.stamp", "must be a finite, non-negative time")
    from_receipt = stamp == 0.0
    source_time = (now if now is not None else time.time()) if from_receipt else stamp

    source_id = _check_str("source_id", event.source_id, 256).strip()
    if not source_id:
        # Deterministic: the same message replayed gets the same ID. A zero stamp is
        # replaced by the receipt time first, so "yes" said twice is stored twice.
        source_id = "src-" + _digest(scope.subject_id, scope.robot_id, scope.session_id,
                                     event.modality, speaker, source_time, text, label)[:24]
    content_hash = _digest(scope.subject_id, scope.robot_id, scope.session_id, event.modality,
                           speaker, text, label, confidence, event.pose, payload_json,
                           source_time)
    return NewSource(source_id, scope, event.modality, speaker, text, label, confidence,
                     event.pose, payload_json, source_time, from_receipt, content_hash)


def rejected(event: Event, error: ValidationError) -> StoreResult:
    return StoreResult(event.source_id, "rejected", error.field, error.reason)


# The capture writer indexes in chunks timed to INDEX_SLICE_S (an event that arrives
# meanwhile waits for one chunk at most): from INDEX_CHUNK sources, the size it starts
# with, it sizes each chunk from the time per source of those before it, up to
# INDEX_CHUNK_MAX. A chunk costs less per source the larger it is (issue 16, in process,
# CPU per source: 64 sources ~93 us, 512 ~49; 8 ~330, 1000 ~39 before), so a fixed
# chunk of 64 paid the index twice what a slice's worth pays on a fast disk, and a
# loaded machine still gets chunks that fit the slice.
INDEX_CHUNK = 64
INDEX_CHUNK_MAX = 4096
INDEX_SLICE_S = 0.008
# The index yields to capture: the writer indexes once no event has come for INDEX_IDLE_S,
# and between groups only while the sources it has not indexed hold more than
# INDEX_BACKLOG_BYTES of text (their text and speaker, in characters) or number more than
# INDEX_BACKLOG. Indexing a chunk between
# every two groups cost capture ~70 us of the writer's time per event (the GIL's: the
# node's other thread waits) and delayed the next commit by a chunk (issue 16, in process
# without DDS: 295-308 -> 173-185 us CPU per event; bench capture, alternating, load 7-8:
# per-event 1,110-1,337 -> 1,981-2,056 events/s). A search reads what is above the mark
# from the sources' text (the query node keeps what it read), so a backlog costs searches
# little: the text it splits (~0.3 us a character), once a subject. So the bound is that
# text: 4 MiB, ~1 s of splitting were a search's subject to hold it all. It was a count
# (20,000, ~1 MiB of the bench's events), which a burst at full speed reached in ~7 s
# (issue 16: capture then ran at the index's pace). An age was tried: past it the
# writer must index at the pace the burst came in, and capture after a burst fell below
# the pace it keeps with a count (in process, 60 s at full speed: 1,566 events/s against
# 1,916); over a bound of size the index keeps the pace of capture, no more. The count
# stays as a ceiling (many short texts: a restart's catch-up).
INDEX_IDLE_S = 0.05
INDEX_BACKLOG_BYTES = 4 << 20
INDEX_BACKLOG = 250_000
# The WAL is checkpointed by a thread of its own (``Ledger.checkpoint_apart``, on its own
# connection) every CHECKPOINT_EVERY committed sources, not by the writer's commits: a
# commit that checkpointed copied pages and fsynced the file on the writer's path (issue
# 16, in process: COMMIT 49-55 -> 16-18 us an event). After CHECKPOINT_FAILURES failures
# in a row the commits checkpoint again.
CHECKPOINT_EVERY = 500
CHECKPOINT_FAILURES = 3


def index_all(ledger: Ledger, chunk: int = 500) -> int:
    """Write the postings of every source not indexed yet, ``chunk`` per transaction."""
    total = 0
    while (n := ledger.index_postings(chunk)) > 0:
        total += n
        if n < chunk:
            break
    return total


def ingest(ledger: Ledger, events: Iterable[Event], config: CaptureConfig,
           batch_size: int = 500, progress: Callable[[int], None] | None = None,
           clock: Callable[[], float] = time.time) -> list[StoreResult]:
    """Synchronous bulk capture (CLI, benchmarks): same validation, same ledger path.
    Each batch is indexed after it is stored (``index_all``): a ledger filled this way
    is fully indexed.

    ``clock`` gives the receipt time of zero-stamped events and the known time."""
    results: list[StoreResult] = []
    batch: list[NewSource] = []
    slots: list[int] = []

    def flush() -> None:
        for slot, res in zip(slots, ledger.store_sources(batch, now=clock()), strict=True):
            results[slot] = res
        index_all(ledger, max(batch_size, 1))
        if progress:
            progress(len(batch))
        batch.clear()
        slots.clear()

    for event in events:
        try:
            item = prepare(event, config, clock())
        except ValidationError as exc:
            results.append(rejected(event, exc))
            continue
        results.append(StoreResult(item.source_id, "pending"))
        slots.append(len(results) - 1)
        batch.append(item)
        if len(batch) >= batch_size:
            flush()
    if batch:
        flush()
    return results


AckCallback = Callable[[StoreResult], None]
# Answers one committed group, in commit order, on the answering thread: (callback,
# result) for each of its events. The default calls each callback (``answer_each``); a
# node may publish the group's acknowledgements in one go instead.
GroupAnswer = Callable[[list[tuple[AckCallback, StoreResult]]], None]


class _Pending(NamedTuple):
    item: NewSource
    callback: AckCallback


class GroupCommitWriter:
    """Background writer: many submitters, one transaction per group of events.

    ``submit`` validates on the caller's thread (a rejection is answered at
    once) and queues the rest; the writer thread takes what is queued, keeps
    taking what arrives until events stop coming for ``group_commit_idle_ms``
    (or ``group_commit_ms`` after the first, or ``max_batch`` events), commits
    them in one transaction and then calls each callback with its result. A
    burst is one commit without waiting out a fixed window after it; under
    load, what arrives during a commit is the next group. If the ledger write
    fails, every item of that batch is answered ``rejected`` with the error,
    never ``accepted``.

    The callbacks run on a second thread, in commit order, once their commit is
    durable: the writer commits without waiting for the disk (``durable=False``) and
    goes on with the next group, while that thread makes the commits durable
    (``Ledger.sync``: one fsync for every group committed meanwhile) and then answers
    them, a group at a time (``answer_group``: by default each callback in turn). A node
    publishes its acks there (a DDS write holds the GIL for tens of microseconds an
    ack); the writer's SQLite work and the fsync run without the GIL.

    The thread writes the postings of what it committed (``Ledger.index_postings``) in
    chunks sized to take ``index_slice_s`` (from ``index_chunk`` sources, up to
    ``index_chunk_max``), once no event has come for ``index_idle_s``, and between
    groups only while those waiting for it hold more than ``index_backlog_bytes`` of text
    or number more than ``index_backlog``; it looks for waiting
    events between transactions: the acknowledgement never waits for the index, and an
    event that arrives meanwhile waits for one chunk at most. Searches read what is not
    indexed yet from the sources, with the same results.

    Where the ledger can (``Ledger.checkpoints_apart``), a third thread checkpoints the
    WAL every ``checkpoint_every`` committed sources, and the commits do not; after
    ``CHECKPOINT_FAILURES`` failures in a row (counted in ``checkpoint_errors``) the
    commits checkpoint again.
    """

    def __init__(self, ledger: Ledger, config: CaptureConfig,
                 on_batch: Callable[[int, float], None] | None = None,
                 clock: Callable[[], float] = time.time,
                 index_chunk: int = INDEX_CHUNK, index_idle_s: float = INDEX_IDLE_S,
                 index_backlog: int = INDEX_BACKLOG,
                 index_backlog_bytes: int = INDEX_BACKLOG_BYTES,
                 index_slice_s: float = INDEX_SLICE_S, index_chunk_max: int = INDEX_CHUNK_MAX,
                 checkpoint_every: int = CHECKPOINT_EVERY,
                 answer_group: GroupAnswer | None = None) -> None:
        self.ledger = ledger
        self._answer_group = answer_group or answer_each
        self.index_chunk = max(1, index_chunk)
        self.index_chunk_max = max(self.index_chunk, index_chunk_max)
        self.index_slice_s = index_slice_s
        self.index_idle_s = index_idle_s
        self.index_backlog = max(1, index_backlog)
        self.index_backlog_bytes = max(1, index_backlog_bytes)
        # The next chunk's size, and the seconds a source took in the chunks before it.
        self.chunk = self.index_chunk
        self._per_source: float | None = None
        # Sources committed and not indexed yet, as far as this writer knows (at start,
        # what an earlier one left: at least one chunk is assumed, of unknown text), and
        # their text: per commit [sources waiting, their characters], oldest first.
        self._pending = self.index_chunk
        self._pending_bytes = 0
        self._waiting: deque[list[int]] = deque([[self._pending, 0]])
        self.indexed = 0
        self.index_errors = 0
        # Receipt time of zero-stamped events (asked only for those) and the known time
        # of a commit.
        self.clock = clock
        self.config = config
        self._capacity = max(1, config.queue_depth)
        self._items: deque[_Pending] = deque()
        lock = threading.Lock()
        self._not_empty = threading.Condition(lock)
        self._not_full = threading.Condition(lock)
        # Whether the writer thread waits on ``_not_empty`` now (set and read under the
        # lock): a submitter notifies only then (``_wake``).
        self._writer_waits = False
        self._closed = False
        self._on_batch = on_batch
        self.committed = 0
        self.batches = 0
        self._synced = 0  # commits (numbered by ``batches``) known durable
        self.sync_errors = 0
        # One worker: the groups are answered in the order they were committed.
        self._answers = ThreadPoolExecutor(1, thread_name_prefix="trace_ros-answers",
                                           initializer=os_thread_name, initargs=("answers",))
        self._thread = threading.Thread(target=self._run, name="trace_ros-writer", daemon=True)
        self._thread.start()
        self.checkpoint_every = max(1, checkpoint_every)
        self.checkpoint_errors = 0
        self._uncheckpointed = 0  # sources committed since the last checkpoint was asked
        self._checkpoint_due = threading.Event()
        self._checkpointer: threading.Thread | None = None
        try:
            apart = ledger.checkpoints_apart(True)
        except Exception:  # noqa: BLE001 - the commits then checkpoint, as before
            apart = False
        if apart:
            self._checkpointer = threading.Thread(target=self._checkpoints, daemon=True,
                                                  name="trace_ros-checkpoint")
            self._checkpointer.start()

    @property
    def checkpoints_apart(self) -> bool:
        """Whether the WAL is checkpointed by the thread (not by the commits) now."""
        return self._checkpointer is not None and self._checkpointer.is_alive()

    @property
    def depth(self) -> int:
        return len(self._items)

    def submit(self, event: Event, callback: AckCallback) -> None:
        """Validate and queue ``event``; ``callback`` gets its result exactly once.

        Never raises for a bad event: whatever ``prepare`` cannot handle is answered
        ``rejected``. A queue that stays full for ``enqueue_timeout_s`` is answered
        ``rejected`` with field ``queue`` instead of blocking the caller forever, and
        so is an event submitted after ``close``.
        """
        item = self._prepared(event, callback)
        if item is not None:
            self._enqueue(item, callback)

    def submit_many(self, events: Iterable[tuple[Event, AckCallback]]) -> None:
        """``submit`` for several events at once (a batch message): each is validated
        and answered on its own, and those that are valid are queued together, under one
        lock, so that they go into the same commit unless ``max_batch`` splits them."""
        ready = [(item, callback) for event, callback in events
                 if (item := self._prepared(event, callback)) is not None]
        with self._not_full:
            if not self._closed and len(self._items) + len(ready) <= self._capacity:
                self._items.extend(_Pending(item, callback) for item, callback in ready)
                self._wake()
                return
        # No room for all at once: one at a time, as submit, all within one enqueue timeout.
        deadline = time.monotonic() + self.config.enqueue_timeout_s
        for item, callback in ready:
            self._enqueue(item, callback, deadline)

    def _prepared(self, event: Event, callback: AckCallback) -> NewSource | None:
        """``event`` validated (its own receipt time: two zero-stamped events of one batch
        are two records), or None once ``callback`` has its rejection."""
        try:
            # A node's clock costs ~10-20 us a call; a stamped event does not use it.
            return prepare(event, self.config, None if event.stamp else self.clock())
        except ValidationError as exc:
            callback(rejected(event, exc))
        except Exception as exc:  # noqa: BLE001 - an unforeseen input must not stop the caller
            callback(rejected(event, ValidationError("message", f"cannot be handled: {exc!r}")))
        return None

    def _enqueue(self, item: NewSource, callback: AckCallback,
                 deadline: float | None = None) -> None:
        """Queue ``item``, waiting for room until ``deadline`` (monotonic; default: one
        ``enqueue_timeout_s`` from now), else answer it ``rejected`` (field ``queue``)."""
        with self._not_full:  # room at once (the common case): no wait_for, no predicate
            if not self._closed and len(self._items) < self._capacity:
                self._items.append(_Pending(item, callback))
                self._wake()
                return
        wait = (self.config.enqueue_timeout_s if deadline is None
                else max(0.0, deadline - time.monotonic()))
        with self._not_full:
            room = self._not_full.wait_for(
                lambda: self._closed or len(self._items) < self._capacity, wait)
            if room and not self._closed:
                self._items.append(_Pending(item, callback))
                self._wake()
                return
        reason = ("the writer is closed" if self._closed else
                  f"queue full ({self._capacity} waiting) for "
                  f"{self.config.enqueue_timeout_s} s; retry later")
        callback(StoreResult(item.source_id, "rejected", "queue", reason))

    def _wake(self) -> None:
        """Under the lock, after queuing: wake the writer thread if it waits for events.
        While it lingers or commits (most events under load arrive then) it reads the
        queue before it waits again, so no notify is needed: ``Condition.notify`` cost
        the submitter's thread, the node's executor, ~1-2 us an event for nobody. One
        notify is enough: the writer is the queue's only taker, so once woken it finds an
        event (or the close) before it waits again."""
        if self._writer_waits:
            self._writer_waits = False
            self._not_empty.notify()

    def _wait_for_events(self, timeout: float | None = None) -> bool:
        """Under the lock: wait until an event is queued or the writer is closed (at most
        ``timeout`` seconds); whether one of them is so."""
        self._writer_waits = True
        try:
            return bool(self._not_empty.wait_for(lambda: self._items or self._closed,
                                                 timeout))
        finally:
            self._writer_waits = False

    def close(self, timeout: float = 10.0) -> None:
        """Commit what is queued, answer it, then stop the threads."""
        with self._not_empty:
            self._closed = True
            self._not_empty.notify_all()
            self._not_full.notify_all()
        self._thread.join(timeout)
        self._answers.shutdown(wait=not self._thread.is_alive())
        if self._checkpointer is not None:
            self._checkpoint_due.set()  # with _closed: one last checkpoint, then it ends
            self._checkpointer.join(timeout)
            self._checkpointer = None
            try:
                self.ledger.checkpoints_apart(False)
            except Exception:  # noqa: BLE001 - the ledger may be closing already
                pass

    def _checkpoints(self) -> None:
        """The checkpoint thread: one ``checkpoint_apart`` each time it is asked (the
        writer asks every ``checkpoint_every`` sources), until the writer is closed or the
        checkpoints fail ``CHECKPOINT_FAILURES`` times in a row; then the commits
        checkpoint again."""
        os_thread_name("ckpt")
        failures = 0
        while True:
            self._checkpoint_due.wait()
            self._checkpoint_due.clear()
            try:
                self.ledger.checkpoint_apart()
            except Exception:  # noqa: BLE001 - capture goes on; the commits take it over
                self.checkpoint_errors += 1
                failures += 1
                if failures >= CHECKPOINT_FAILURES:
                    try:
                        self.ledger.checkpoints_apart(False)
                    except Exception:  # noqa: BLE001 - nothing more can be done here
                        pass
                    return
            else:
                failures = 0
            if self._closed:
                return

    def _collect(self, linger: bool = True) -> list[_Pending]:
        """The next group (empty once closed and drained). With ``linger``, the first
        event found the writer idle: wait while more keep arriving; without, what is
        queued goes now."""
        with self._not_empty:
            self._wait_for_events()
        config = self.config
        deadline = time.monotonic() + config.group_commit_ms / 1000.0
        idle = config.group_commit_idle_ms / 1000.0
        seen = 0
        while linger:  # linger while events keep arriving
            waiting = len(self._items)
            remaining = deadline - time.monotonic()
            if waiting >= config.max_batch or waiting == seen or remaining <= 0 \
                    or self._closed:
                break
            seen = waiting
            time.sleep(min(idle, remaining))
        with self._not_empty:
            items = self._items
            if len(items) <= config.max_batch:  # all of it: two calls, not one an event
                batch = list(items)
                items.clear()
            else:
                batch = [items.popleft() for _ in range(config.max_batch)]
            self._not_full.notify_all()
        return batch

    def _run(self) -> None:
        os_thread_name("writer")
        backlog = False
        while True:
            # Events that came during the last commit are the next group at once: under
            # load a group is what arrived while the previous one was being committed
            # (lingering then only delayed it: issue 16, the acks' publisher waited out
            # group_commit_ms on every group). An event queued before the thread's first
            # turn is no backlog: it lingers like any event that finds the writer idle.
            self._index(self._behind)  # under load: only a backlog this large
            if self._pending:
                with self._not_empty:
                    came = self._wait_for_events(self.index_idle_s)
                if not came:
                    self._index(lambda: self._pending > 0)
            batch = self._collect(linger=not backlog)
            if not batch:
                return  # closed, and everything queued was committed
            self._commit(batch)
            backlog = bool(self._items)

    def _behind(self) -> bool:
        """Whether the index is so far behind that capture pays for it: more than
        ``index_backlog_bytes`` of text, or more than ``index_backlog`` sources, wait."""
        return (self._pending_bytes > self.index_backlog_bytes
                or self._pending > self.index_backlog)

    def _index(self, more: Callable[[], bool]) -> None:
        """Index committed sources a chunk at a time while ``more()`` and no event
        waits. A failure stops it until the next commit (capture goes on; searches read
        the rest from the sources)."""
        while self._pending and more() and not self._items and not self._closed:
            asked = self.chunk
            started = time.monotonic()
            try:
                n = self.ledger.index_postings(asked)
            except Exception:  # noqa: BLE001 - the index must never stop capture
                self.index_errors += 1
                self._pending = self._pending_bytes = 0
                self._waiting.clear()
                return
            self.indexed += n
            if n < asked:  # none left (a part chunk's time is mostly its fixed cost)
                self._pending = self._pending_bytes = 0
                self._waiting.clear()
                continue
            self._timed(n, time.monotonic() - started)
            # A full chunk: more may wait than this writer counted (at start).
            self._pending = max(self._pending - n, 1)
            while n and self._waiting:  # oldest first, as the index goes
                oldest = self._waiting[0]
                if oldest[0] > n:  # part of a commit: its share of the text
                    share = oldest[1] * n // oldest[0]
                    oldest[0] -= n
                    oldest[1] -= share
                    self._pending_bytes -= share
                    break
                n -= oldest[0]
                self._pending_bytes -= oldest[1]
                self._waiting.popleft()

    def _timed(self, n: int, seconds: float) -> None:
        """Size the next chunk to take ``index_slice_s``, from the seconds a source of a
        full chunk took (a running mean over the last chunks: one slow chunk, a
        checkpoint's or another process's, moves it half way)."""
        per = seconds / n
        self._per_source = per if self._per_source is None else (self._per_source + per) / 2
        fits = int(self.index_slice_s / max(self._per_source, 1e-9))
        self.chunk = min(self.index_chunk_max, max(self.index_chunk, fits))

    def _commit(self, batch: list[_Pending]) -> None:
        started = time.monotonic()
        try:
            results = self.ledger.store_sources([p.item for p in batch], now=self.clock(),
                                                durable=False)
        except Exception as exc:  # noqa: BLE001 - a failed write must still be answered
            results = [StoreResult(p.item.source_id, "rejected", "ledger", f"write failed: {exc}")
                       for p in batch]
        self.batches += 1
        accepted = text = 0
        for p, r in zip(batch, results, strict=True):  # one pass, not two generators
            if r.status == "accepted":
                accepted += 1
                text += len(p.item.text) + len(p.item.speaker)
        self.committed += accepted
        self._pending += accepted
        if accepted:
            self._waiting.append([accepted, text])
            self._pending_bytes += text
        self._uncheckpointed += accepted
        if self._uncheckpointed >= self.checkpoint_every and self._checkpointer is not None:
            self._uncheckpointed = 0
            self._checkpoint_due.set()
        if self._on_batch:
            self._on_batch(len(batch), time.monotonic() - started)
        try:
            self._answers.submit(self._answer, self.batches, batch, results)
        except RuntimeError:  # closed while this commit ran past close's timeout
            self._answer(self.batches, batch, results)

    def _answer(self, number: int, batch: list[_Pending], results: list[StoreResult]) -> None:
        """On the answering thread: make commit ``number`` durable, then answer its group.
        One sync covers every commit that had returned when it began, so the groups
        committed while the disk was busy share the next one."""
        if self._synced < number:
            upto = self.batches  # every commit up to it has returned
            try:
                self.ledger.sync()
            except Exception as exc:  # noqa: BLE001 - not durable: never acknowledged
                self.sync_errors += 1
                results = [StoreResult(r.source_id, "rejected", "ledger",
                                       f"stored but not made durable ({exc}); send it again")
                           if r.status == "accepted" else r for r in results]
            else:
                self._synced = upto
        try:
            self._answer_group([(p.callback, r) for p, r in zip(batch, results, strict=True)])
        except Exception:  # noqa: BLE001 - a broken answerer must not stop the thread
            pass


OS_THREAD_PREFIX = "trace-"


def os_thread_name(role: str) -> None:
    """Name the calling thread ``trace-<role>`` (15 bytes at most) where the OS shows it:
    Linux's ``/proc/PID/task/TID/comm`` (``top -H``, and ``bench capture``'s CPU of the
    memory node per thread). Python 3.11 names only its ``Thread`` objects, so the
    writer's three threads all read as the interpreter's name there. Best effort: nothing
    happens where there is no such file."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as comm:
            comm.write((OS_THREAD_PREFIX + role)[:15])
    except OSError:
        pass


def answer_each(answers: list[tuple[AckCallback, StoreResult]]) -> None:
    """Each callback of a committed group with its result (on the answering thread); the
    default ``GroupAnswer``."""
    for callback, result in answers:
        try:
            callback(result)
        except Exception:  # noqa: BLE001 - a broken callback must not stop the others
            pass
