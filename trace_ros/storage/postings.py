"""Source postings: for each subject and stem, the subject's sources the stem stands in, as
blocks of up to 128 entries packed into one binary value each (both engines' table
``source_postings``, migrations m011 / p013).

Why (issue 15): a lexical search ranks every matching source of its subject, and at a
million sources a common word stands in ~20,000 of a subject's 125,000. FTS5's vocabulary
and PostgreSQL's GIN index hold a stem's rows of every subject together, and give them
one row at a time with positions: reading them cost 50-300 ms per stem. Here a stem's
entries in a subject are ~160 values of 2 KB read by key, decoded with numpy.

An entry is (seq, the row's token count in all columns, the stem's count in the text
column, in the speaker column). The subject column is left out: every source of a subject
holds the same subject stems, so a search that names one of them takes the engine's own
road (``usable``). The counts are FTS5's (``lexical.terms``: FTS5's own tokenizer), so
the frequencies and row sizes, and so the BM25 doubles of ``lexrank``, are those of the
engines' other roads.

Writes append to the subject's last block of each stem (a new block once it holds
``BLOCK`` entries): on PostgreSQL in the capture transaction; on SQLite after it, by
``index_postings`` (the capture writer when no event waits, bulk ingest after each batch),
up to a mark (``postings_mark``, migration m013) below which every source is indexed,
so capture's acknowledgement no longer waits for them (issue 16). A search adds the
entries of the sources above the mark from their text (``SubjectPostings.extend``): the
same entries, so the same rows and scores. A forget rewrites the blocks that hold its
sources, without them (a block left empty is deleted): the engines' forget scrubs what
the old values left (SQLite's secure delete, PostgreSQL's VACUUM FULL). ``blocks_after``
and ``blocks_without`` plan those writes for both engines; ``PostingsCache`` keeps what a
search read of a subject while its sources stay the same (as ``sqlite/lexcache``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .lexical import Match, Phrase, idf
from .lexical import terms as lexical_terms
from .lexical import terms_of as lexical_terms_of
from .lexrank import Hits, Stats, matching, norms, rank, term, weighted_freqs

# Entries per block: a block is rewritten whole when one is added (2.5 KB at most).
BLOCK = 128
ENTRY = np.dtype([("seq", "<i8"), ("size", "<u4"), ("text", "<u4"), ("speaker", "<u4")])
# Subjects whose postings one ledger keeps in memory (least recently searched dropped).
SUBJECTS = 32
# Sources above the mark whose entries one subject's kept postings may hold before they are
# read again from the store (once the store has indexed further): what a long-lived
# process keeps of a subject stays bounded.
TAIL = 4096


def encode(entries: np.ndarray) -> bytes:
    return np.ascontiguousarray(entries, dtype=ENTRY).tobytes()


def decode(blob: bytes | memoryview) -> np.ndarray:
    return np.frombuffer(bytes(blob), dtype=ENTRY)


def entries_of(seq: int, subject_id: str, speaker: str, text: str,
               said: list[str] | None = None,
               terms: Callable[[str], list[str]] = lexical_terms
               ) -> dict[str, tuple[int, int, int, int]]:
    """stem -> (seq, the row's token count, count in the text, count in the speaker) for
    one source: the FTS5 row of (text, speaker, subject_id) (``said``: the text's terms,
    when already split; ``terms``: how the speaker's and the subject's are split)."""
    said = terms(text) if said is None else said
    by = terms(speaker)
    size = len(said) + len(by) + len(terms(subject_id))
    counts: dict[str, list[int]] = {}
    for column, stems in ((0, said), (1, by)):
        for s in stems:
            counts.setdefault(s, [0, 0])[column] += 1
    return {s: (seq, size, c[0], c[1]) for s, c in counts.items()}


def by_key(rows: Iterable[tuple[int, str, str, str]]) -> dict[tuple[str, str], np.ndarray]:
    """(subject, stem) -> entries (ascending seq) of sources (seq, subject, speaker, text).

    The entries are made as one array, grouped by key with one stable sort, and handed
    out as slices of it; the speakers' and subjects' terms are split once per rows. One
    array per key, each checked for order, cost the capture writer's index ~half its
    time (issue 16: a chunk of 64 sources holds ~190 keys)."""
    rows = list(rows)
    split: dict[str, list[str]] = {}

    def terms(text: str) -> list[str]:
        got = split.get(text)
        if got is None:
            got = split[text] = lexical_terms(text)
        return got

    keys: dict[tuple[str, str], int] = {}
    owners: list[int] = []
    flat: list[tuple[int, int, int, int]] = []
    ascending, last = True, None
    for (seq, subject, speaker, text), said in zip(
            rows, lexical_terms_of([r[3] for r in rows]), strict=True):
        seq = int(seq)
        if last is not None and seq <= last:
            ascending = False
        last = seq
        for stem, entry in entries_of(seq, subject, speaker, text, said, terms).items():
            owners.append(keys.setdefault((subject, stem), len(keys)))
            flat.append(entry)
    if not flat:
        return {}
    owner = np.asarray(owners)
    entries = np.array(flat, dtype=ENTRY)[np.argsort(owner, kind="stable")]
    ends = np.cumsum(np.bincount(owner, minlength=len(keys))).tolist()
    starts = [0, *ends[:-1]]
    if ascending:  # a key's entries keep the rows' order: ascending already
        return {k: entries[starts[i]:ends[i]] for k, i in keys.items()}
    return {k: in_seq_order(entries[starts[i]:ends[i]]) for k, i in keys.items()}


def in_seq_order(entries: np.ndarray) -> np.ndarray:
    """``entries`` by ascending seq (as given when they already are: the common case,
    sorting a structured array by a field is slow)."""
    seqs = entries["seq"]
    if len(seqs) < 2 or bool((seqs[1:] > seqs[:-1]).all()):
        return entries
    return entries[np.argsort(seqs, kind="stable")]


@dataclass(frozen=True)
class Block:
    """One stored block: its key (the first seq it was made with), its entries."""

    key: int
    entries: np.ndarray


def blocks_after(last: Block | None, new: np.ndarray, block: int | None = None) -> list[Block]:
    """The blocks to write for ``new`` entries of one (subject, stem): the last stored
    block (``last``, None without one) filled up to ``block`` entries (``BLOCK``), then
    new ones. Entries stay in seq order within a block (two writers may commit out of
    order)."""
    block = BLOCK if block is None else block
    out: list[Block] = []
    rest = new
    if last is not None and len(last.entries) < block:
        room = block - len(last.entries)
        merged = np.concatenate([last.entries, rest[:room]])
        out.append(Block(last.key, in_seq_order(merged)))
        rest = rest[room:]
    for start in range(0, len(rest), block):
        part = rest[start:start + block]
        out.append(Block(int(part["seq"][0]), part))
    return out


def removals(rows: Iterable[tuple[int, str, str, str]],
             stored: Callable[[str, str, int, int], list[Block]]) -> list[tuple[str, str, Block]]:
    """The (subject, stem, block) writes that take sources (seq, subject, speaker, text) out
    of the postings; ``stored(subject, stem, lo, hi)``: the engine's stored blocks of that
    stem that may hold a seq from ``lo`` to ``hi``."""
    changed: list[tuple[str, str, Block]] = []
    for (subject, stem), gone in sorted(by_key(rows).items()):
        seqs = gone["seq"]
        changed += [(subject, stem, b) for b in blocks_without(
            stored(subject, stem, int(seqs.min()), int(seqs.max())), seqs)]
    return changed


def blocks_without(stored: Sequence[Block], seqs: np.ndarray) -> list[Block]:
    """``stored`` blocks (those that may hold any of ``seqs``) without those entries:
    each changed block, empty where nothing is left (to delete)."""
    out = []
    for b in stored:
        keep = ~np.isin(b.entries["seq"], seqs)
        if not keep.all():
            out.append(Block(b.key, b.entries[keep]))
    return out


def usable(match: Match, subject_id: str) -> bool:
    """Whether the postings answer ``match`` alone: every phrase is one stem (or none),
    in any column, and no stem is one of the subject's own (which every row holds in its
    subject column, left out of the postings)."""
    own = set(lexical_terms(subject_id))
    return all(not p.columns and len(p.stems) <= 1 and not own.intersection(p.stems)
               for p in match.phrases())


@dataclass(frozen=True)
class StemPostings:
    """One stem's entries in a subject: rows ascending, their sizes and the stem's count
    per column (text, speaker)."""

    rows: np.ndarray
    sizes: np.ndarray
    counts: np.ndarray  # rows x 2
    _freqs: dict[tuple[float, float], np.ndarray] = field(default_factory=dict, compare=False)
    _terms: dict[tuple, np.ndarray] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, blobs: Iterable[bytes | memoryview], upto: int | None = None,
           more: Sequence[np.ndarray] = ()) -> StemPostings:
        """From stored blocks, those entries up to seq ``upto`` (None: all), then ``more``
        (entries above it)."""
        # The blocks' bytes joined, decoded once: a structured array per block, then
        # concatenated, took 5-11 ms for a common stem's 157 blocks (0.5 here).
        e = decode(b"".join(bytes(b) for b in blobs))
        if upto is not None and len(e) and int(e["seq"].max()) > upto:
            e = e[e["seq"] <= upto]  # a structured copy: only when something is above
        if more:
            e = np.concatenate([e, *more])
        return cls.of_entries(in_seq_order(e))

    @classmethod
    def of_entries(cls, e: np.ndarray) -> StemPostings:
        return cls(e["seq"].astype(np.int64), e["size"].astype(np.int64),
                   np.stack([e["text"], e["speaker"]], axis=1).astype(np.int32))

    def plus(self, e: np.ndarray) -> StemPostings:
        """With entries ``e`` (seqs above all of these) appended."""
        return StemPostings(np.concatenate([self.rows, e["seq"].astype(np.int64)]),
                            np.concatenate([self.sizes, e["size"].astype(np.int64)]),
                            np.concatenate([self.counts, np.stack(
                                [e["text"], e["speaker"]], axis=1).astype(np.int32)]))

    def freqs(self, weights: tuple[float, float]) -> np.ndarray:
        """The stem's weighted frequency in each of its rows: each instance's column
        weight added one by one, text column first (as FTS5, ``lexrank`` and
        ``sqlite/lexcache`` add them: the same double)."""
        got = self._freqs.get(weights)
        if got is None:
            got = self._freqs[weights] = weighted_freqs(self.counts, weights)
        return got

    def terms(self, weights: tuple[float, float], stats: Stats) -> np.ndarray:
        """The stem's BM25 term in each of its rows (``lexrank.term``), kept per column
        weights and subject statistics: while a subject's sources stay the same, a
        stem's terms are computed once, not per question."""
        key = (weights, stats.n_docs, stats.n_tokens)
        got = self._terms.get(key)
        if got is None:
            if len(self._terms) > 8:  # statistics move as the subject grows
                self._terms.clear()
            got = self._terms[key] = term(idf(stats.n_docs, len(self.rows)),
                                          self.freqs(weights), norms(self.sizes, stats))
        return got


class SubjectPostings:
    """The stems of one subject read so far (``mark``: what names the subject's postings
    while these are kept: PostgreSQL's generation, row and token counts; SQLite's
    generation), and on SQLite the entries the store has not indexed yet.

    ``base``: the store's mark when this was made (None: the store indexes every source,
    PostgreSQL): a stem read from the store keeps its entries up to it (the store may
    have indexed further since: those entries are in the tail). ``seen``: every source of
    the subject up to this seq is accounted for. ``tail``: stem -> entries of the
    subject's sources in (``base``, ``seen``], computed from their text as the store
    indexes them (``entries_of``)."""

    def __init__(self, subject_id: str, mark: Hashable = None, base: int | None = None) -> None:
        self.subject_id, self.mark = subject_id, mark
        self.base = self.seen = base
        self.stems: dict[str, StemPostings] = {}
        self.tail: dict[str, list[np.ndarray]] = {}
        self.tail_sources = 0

    def missing(self, stems: Iterable[str]) -> list[str]:
        return sorted(set(stems) - self.stems.keys())

    def add(self, blobs: Mapping[str, Sequence[bytes | memoryview]], asked: Iterable[str]
            ) -> None:
        """Keep what was read for ``asked`` stems (a stem with no block: no rows), with
        the tail's entries of each."""
        for s in asked:
            self.stems[s] = StemPostings.of(blobs.get(s, ()), self.base, self.tail.get(s, ()))

    def extend(self, rows: Iterable[tuple[int, str, str]], seen: int) -> None:
        """Add the subject's sources (seq, speaker, text) above ``seen`` up to the new
        ``seen``, ascending: their entries join the tail and the stems already read."""
        rows = [(seq, self.subject_id, speaker, text) for seq, speaker, text in rows]
        self.tail_sources += len(rows)
        for (_, stem), e in by_key(rows).items():
            self.tail.setdefault(stem, []).append(e)
            got = self.stems.get(stem)
            if got is not None:
                self.stems[stem] = got.plus(e)
        self.seen = seen

    def hits(self, match: Match, weights: tuple[float, float]) -> tuple[list[Hits], np.ndarray,
                                                                         np.ndarray]:
        """Each phrase's rows and frequencies (``match.phrases()`` order; every stem read),
        and the rows' sizes as (rows ascending, sizes) of every row any stem stands in."""
        hits, rows, sizes = [], [], []
        for p in match.phrases():
            if not p.stems:
                hits.append(Hits(np.empty(0, np.int64), np.empty(0)))
                continue
            st = self.stems[p.stems[0]]
            hits.append(Hits(st.rows, st.freqs(weights)))
            rows.append(st.rows)
            sizes.append(st.sizes)
        if not rows:
            return hits, np.empty(0, np.int64), np.empty(0, np.int64)
        all_rows, first = np.unique(np.concatenate(rows), return_index=True)
        return hits, all_rows, np.concatenate(sizes)[first]


def sized(known_rows: np.ndarray, known_sizes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The sizes of ``rows`` (each in ``known_rows``, ascending)."""
    return known_sizes[np.searchsorted(known_rows, rows)]


class PostingsCache:
    """A ledger's ``SubjectPostings`` per subject, each under its mark (the caller holds
    the ledger's lock or its own)."""

    def __init__(self, subjects: int = SUBJECTS) -> None:
        self.subjects = subjects
        self._kept: OrderedDict[str, SubjectPostings] = OrderedDict()

    def of(self, subject_id: str, mark: Hashable, base: int | None = None,
           last: int | None = None) -> SubjectPostings:
        """What is kept of the subject under ``mark``, or a fresh one kept from now
        (``base``: the store's mark now, ``last``: the highest seq the caller sees; a
        kept one that has seen further than both, or holds more than ``TAIL`` sources
        of a tail the store has indexed since, is made afresh)."""
        got = self._kept.get(subject_id)
        seen = None if got is None else got.seen
        if got is None or got.mark != mark or (
                last is not None and seen is not None and seen > max(last, base or 0)) or (
                got.tail_sources > TAIL and base is not None and base > (got.base or 0)):
            got = SubjectPostings(subject_id, mark, base)
            self._kept[subject_id] = got
        self._kept.move_to_end(subject_id)
        while len(self._kept) > self.subjects:
            self._kept.popitem(last=False)
        return got


def ranked(sp: SubjectPostings, match: Match, weights: tuple[float, float], stats: Stats,
           keep: Callable[[np.ndarray], np.ndarray] | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """(rows ascending, BM25 scores) of the subject's rows ``match`` matches and ``keep``
    keeps (a view: the rows it keeps of those given; None: all), every stem of the
    expression read into ``sp``: ``lexrank``'s scores, the same doubles as the engines'
    other roads."""
    if keep is None and _any_of(match):
        return _ranked_any(sp, match.phrases(), weights, stats)
    hits, rows, sizes = sp.hits(match, weights)
    found = matching(match, hits)
    if keep is not None and len(found):
        found = keep(found)
    return found, rank(hits, sized(rows, sizes, found), found, stats)


def _any_of(match: Match) -> bool:
    """Whether ``match`` is one phrase or an OR of them (what a question's words make)."""
    return match.phrase is not None or (
        match.op == "or" and all(_any_of(p) for p in match.parts))


def _ranked_any(sp: SubjectPostings, phrases: Sequence[Phrase], weights: tuple[float, float],
                stats: Stats) -> tuple[np.ndarray, np.ndarray]:
    """``ranked`` for an OR of one-stem phrases, from each stem's kept terms: one sort
    of the stems' rows, then each phrase's terms added to its rows in phrase order —
    the doubles ``lexrank.rank`` adds (a row a phrase misses gains 0.0 there, which
    changes no double), without searching every matched row in every stem."""
    stems = [sp.stems[p.stems[0]] for p in phrases if p.stems]
    stems = [st for st in stems if len(st.rows)]
    if not stems:
        return np.empty(0, np.int64), np.empty(0)
    rows = np.concatenate([st.rows for st in stems])
    order = np.argsort(rows, kind="stable")
    ordered = rows[order]
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    at = np.empty(len(rows), dtype=np.int64)
    at[order] = np.cumsum(first) - 1  # each entry's place among the rows found
    out = np.zeros(int(first.sum()))
    start = 0
    for st in stems:
        end = start + len(st.rows)
        out[at[start:end]] += st.terms(weights, stats)  # a stem's rows are distinct
        start = end
    return ordered[first], out
