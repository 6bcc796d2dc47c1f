"""A subject's vectors of one model and owner kind as one block: the *vector pack*.

A fresh process's first question about a subject reads every vector of it (exact cosine
top-k needs them all). Read row by row from the ledger, with each source's place, that
is ~200 ms for 12,500 vectors; read as one block, a few milliseconds. A pack is derived
from the ledger like the in-memory index it seeds: the rows up to a rowid ``watermark``
under one ``vectors_epoch`` (forget, rebuild and a model change move the epoch and drop
every pack), so pack + the rows after its watermark is what a full read would give.

The file layout (engine-independent; an engine decides where packs live):
``MAGIC``, the header's length (8 bytes, little-endian), a JSON header (the key, epoch,
watermark, the distinct robots, sessions and speakers, and where each array starts),
then the arrays, each 64-byte aligned, little-endian; the source IDs are one UTF-8
array, NUL between them (stored text holds no NUL). A large subject's pack may also hold
its coarse partition (``coarse.py``: the centroids and each row's list, after the other
arrays, header key ``coarse``) with its rows laid out by list; the header's ``last_id``
then names the row at the watermark (otherwise the last row).
"""

from __future__ import annotations

import json
import mmap
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

MAGIC = b"TRVPACK1"
TMP = ".tmp-"  # in the name of a pack being written
_ALIGN = 64
# Array name -> dtype, in file order; ``matrix`` has ``n * dim`` items, ``ids`` its
# bytes, the others ``n``.
_ARRAYS: dict[str, str] = {"matrix": "<f4", "seqs": "<i8", "source_time": "<f8",
                           "known_time": "<f8", "robot": "<i4", "session": "<i4",
                           "speaker": "<i4", "ids": "u1"}
# Arrays a pack holds when its rows carry a coarse partition (after those above).
_COARSE: dict[str, str] = {"centroids": "<f4", "lists": "<i4"}


@dataclass
class VectorPack:
    """One subject's vectors of ``model`` owned by ``owner_kind`` up to ``watermark``, in
    rowid order, with each owner source's place (the columns ``source_vectors_after``
    returns)."""

    subject_id: str
    model: str
    owner_kind: str
    epoch: str
    watermark: int
    seqs: np.ndarray  # int64
    ids: list[str]
    robot: np.ndarray  # object (str)
    session: np.ndarray  # object (str)
    source_time: np.ndarray  # float64
    known_time: np.ndarray  # float64
    speaker: np.ndarray  # object (str)
    matrix: np.ndarray  # float32, (n, dim)
    # The ledger it was read from, as the engine names it (a pack left by another).
    ledger: str = ""
    # The rows' coarse partition (``coarse.py``), when the index kept one: unit
    # centroids (lists, dim), each row's list, and how many rows they were trained on.
    centroids: np.ndarray | None = None
    lists: np.ndarray | None = None
    trained: int = 0
    # The ID of the row at the watermark (empty: the last row's; a pack laid out by
    # list keeps its rows in another order than the rowids').
    last_id: str = ""

    def key(self) -> tuple[str, str, str]:
        return self.subject_id, self.model, self.owner_kind


def _codes(values: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The distinct values in first-seen order and each row's index into them."""
    index: dict[str, int] = {}
    codes = [index.setdefault(v, len(index)) for v in values.tolist()]
    return list(index), np.asarray(codes, dtype="<i4")


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def pieces(pack: VectorPack) -> tuple[int, list[memoryview]]:
    """``pack`` in the file layout: its size in bytes and its pieces in order (the magic,
    the header, each array and the zeros that align the next), without copying the
    arrays. Raises ``ValueError`` for a source ID holding a NUL character."""
    n = len(pack.ids)
    matrix = np.ascontiguousarray(pack.matrix, dtype="<f4").reshape(n, -1)
    strings = {name: _codes(getattr(pack, name)) for name in ("robot", "session", "speaker")}
    ids = "\0".join(pack.ids).encode()
    if ids.count(0) != max(n - 1, 0):
        raise ValueError("a source ID holds a NUL character")
    arrays = {"matrix": matrix, "seqs": pack.seqs, "source_time": pack.source_time,
              "known_time": pack.known_time, "ids": np.frombuffer(ids, dtype="u1"),
              **{k: v[1] for k, v in strings.items()}}
    data = {k: np.ascontiguousarray(arrays[k], dtype=dt) for k, dt in _ARRAYS.items()}
    coarse = None
    if pack.centroids is not None and pack.lists is not None and len(pack.lists) == n:
        data.update({k: np.ascontiguousarray(v, dtype=_COARSE[k]) for k, v in
                     (("centroids", pack.centroids), ("lists", pack.lists))})
        coarse = {"lists": len(pack.centroids), "trained": int(pack.trained)}
    offsets, at = {}, 0
    for name, arr in data.items():
        offsets[name] = at
        at = _aligned(at + arr.nbytes)
    header = json.dumps({
        "subject_id": pack.subject_id, "model": pack.model, "owner_kind": pack.owner_kind,
        "epoch": pack.epoch, "ledger": pack.ledger, "watermark": int(pack.watermark), "n": n,
        "dim": int(matrix.shape[1]) if n else 0, "ids_bytes": len(ids),
        "strings": {k: v[0] for k, v in strings.items()}, "offsets": offsets, "size": at,
        "coarse": coarse, "last_id": pack.last_id or (pack.ids[-1] if n else ""),
    }).encode()
    head = MAGIC + len(header).to_bytes(8, "little") + header
    start = _aligned(len(head))
    out = [memoryview(head + bytes(start - len(head)))]
    for name, arr in data.items():
        out.append(memoryview(arr).cast("B"))
        out.append(memoryview(bytes(_aligned(offsets[name] + arr.nbytes)
                                    - offsets[name] - arr.nbytes)))
    return start + at, out


def write_pack(path: Path, pack: VectorPack) -> None:
    """Write ``pack`` to ``path`` atomically (a temporary file renamed over it, synced)."""
    size, parts = pieces(pack)
    tmp = path.with_name(f"{path.name}{TMP}{os.getpid()}.{threading.get_ident()}")
    try:
        with open(tmp, "wb") as f:
            for part in parts:
                f.write(part)
            if f.tell() != size:  # pragma: no cover - pieces() always adds up
                raise ValueError("pack size")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_pack(path: Path) -> VectorPack | None:
    """The pack at ``path``, or None when there is none or it is not a whole pack.

    The file is mapped, not read: the matrix is a read-only view of the page cache.
    Reading it into fresh memory cost more than the read (the pages of a new buffer are
    faulted in one by one; 100-350 ms for 20 MB on a loaded virtual machine). A pack is
    never changed in place (a new one is renamed over it), so the mapping stays whole."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(MAGIC) + 8)
            if len(head) < len(MAGIC) + 8 or head[:len(MAGIC)] != MAGIC:
                return None
            meta = json.loads(f.read(int.from_bytes(head[len(MAGIC):], "little")))
            start, size = _aligned(f.tell()), int(meta["size"])
            if os.fstat(f.fileno()).st_size != start + size:
                return None
            body = np.frombuffer(_mapped(f), dtype=np.uint8, count=size, offset=start)
        return _decode(meta, body)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def pack_of(buffer: np.ndarray) -> VectorPack | None:
    """The pack whose file layout ``buffer`` (uint8) holds, its arrays views of it; None
    when it is not one whole pack."""
    try:
        if len(buffer) < len(MAGIC) + 8 or buffer[:len(MAGIC)].tobytes() != MAGIC:
            return None
        length = int.from_bytes(buffer[len(MAGIC):len(MAGIC) + 8].tobytes(), "little")
        meta = json.loads(buffer[len(MAGIC) + 8:len(MAGIC) + 8 + length].tobytes())
        start, size = _aligned(len(MAGIC) + 8 + length), int(meta["size"])
        if len(buffer) != start + size:
            return None
        return _decode(meta, buffer[start:])
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def _mapped(f: BinaryIO) -> mmap.mmap:
    """The whole file, mapped read-only (its pages loaded at once where the OS can)."""
    populate = getattr(mmap, "MAP_POPULATE", 0)
    if populate:
        return mmap.mmap(f.fileno(), 0, flags=mmap.MAP_SHARED | populate, prot=mmap.PROT_READ)
    return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def _decode(meta: dict, body: np.ndarray) -> VectorPack:
    n, dim, offsets = int(meta["n"]), int(meta["dim"]), meta["offsets"]

    coarse = meta.get("coarse")

    def array(name: str) -> np.ndarray:
        count = {"matrix": n * dim, "ids": int(meta["ids_bytes"]),
                 "centroids": int(coarse["lists"]) * dim if coarse else 0}.get(name, n)
        dtype = _ARRAYS.get(name) or _COARSE[name]
        return np.frombuffer(body, dtype=dtype, count=count, offset=offsets[name])

    def text(name: str) -> np.ndarray:
        return np.array(meta["strings"][name], dtype=object)[array(name)]

    ids = array("ids").tobytes().decode().split("\0") if n else []
    if len(ids) != n:
        raise ValueError("ids")
    return VectorPack(
        meta["subject_id"], meta["model"], meta["owner_kind"], meta["epoch"],
        int(meta["watermark"]), array("seqs").astype(np.int64), ids, text("robot"),
        text("session"), array("source_time").astype(np.float64),
        array("known_time").astype(np.float64), text("speaker"),
        array("matrix").reshape(n, dim), str(meta["ledger"]),
        array("centroids").reshape(-1, dim) if coarse else None,
        array("lists") if coarse else None, int(coarse["trained"]) if coarse else 0,
        str(meta.get("last_id") or (ids[-1] if ids else "")))
