"""What the query's later stages keep or skip (issue 16 point 3) gives what they gave
without it: the reader's ``fits`` and the sentence pieces kept per text, the tokens
made as a slotted class, a record read once kept for the rest of the generation, and
the packer that prices only a candidate that may go in."""

from __future__ import annotations

from pathlib import Path

import pytest

from trace_ros.language.text import SENTENCE, sentence_pieces
from trace_ros.ledger import Ledger, Scope, SourceRecord
from trace_ros.query import spans
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.recall import Records

TEXTS = [
    "My dentist appointment is on Monday at 3pm.",
    "The dentist's office called and pushed me to Thursday afternoon!\nSee you then.",
    "I've been going every Tuesday for 3 years, because it helps.",
    "Is it still on the 14th?  Where is it? What time?", "Met Anna in Paris.",
    "", "no", "Ｍonday ſince — Kelvin \u212a now", "so I stopped; twenty minutes a day",
]
KINDS = ["date", "duration", "number", "person", "place", "reason", "", "thing"]


def test_fits_kept_per_kind_and_text_is_fits_read_afresh() -> None:
    spans.fits.cache_clear()
    for _ in range(2):  # the second time from the cache
        for kind in KINDS:
            for text in TEXTS:
                assert spans.fits(kind, "".join(list(text))) == spans.fits.__wrapped__(kind, text)
    assert spans.fits.cache_info().hits >= len(KINDS) * len(TEXTS)


def test_sentence_pieces_are_the_split_of_the_text() -> None:
    for text in TEXTS * 2:
        assert list(sentence_pieces(text)) == SENTENCE.split(text)


def test_tokens_compare_and_hash_by_text_and_offsets() -> None:
    for text in TEXTS:
        toks = spans.tokens(text)
        again = [spans.Tok(t.text, t.start, t.end) for t in toks]
        assert toks == again and [hash(t) for t in toks] == [hash(t) for t in again]
        for t in toks:
            assert (t.low, t.word) == (t.text.lower(), t.text[0].isalnum())
            assert text[t.start:t.end] == t.text
    assert spans.Tok("a", 0, 1) != spans.Tok("a", 1, 2)
    assert len({spans.Tok("a", 0, 1), spans.Tok("a", 0, 1)}) == 1


class _Counting:
    """A ledger stand-in that serves records by seq and counts the reads."""

    def __init__(self, records: dict[int, SourceRecord]) -> None:
        self.records = records
        self.reads: list[list[int]] = []

    def get_sources_by_seq(self, seqs: list[int]) -> dict[int, SourceRecord]:
        self.reads.append(list(seqs))
        return {s: self.records[s] for s in sorted(seqs) if s in self.records}

    def sources_after(self, after_seq: int, limit: int,
                      subject_id: str | None = None) -> list[SourceRecord]:
        self.reads.append([after_seq])
        return [self.records[s] for s in sorted(self.records) if s > after_seq
                and (subject_id is None or self.records[s].subject_id == subject_id)][:limit]


@pytest.fixture()
def kept(tmp_path: Path) -> dict[int, SourceRecord]:
    from trace_ros.capture import Event, ingest
    from trace_ros.config import CaptureConfig

    with Ledger(tmp_path / "l.db") as ledger:
        ingest(ledger, [Event("dialogue", Scope("s", "r", "d"), f"turn {i}", "Ann",
                              stamp=1_700_000_000.0 + i) for i in range(8)], CaptureConfig())
        rows = ledger.sources_in_scope(Scope("s"))
    return {r.seq: r for r in rows}


def test_records_kept_are_served_as_read_and_not_read_again(
        kept: dict[int, SourceRecord]) -> None:
    ledger = _Counting(kept)
    records = Records(ledger)  # type: ignore[arg-type]
    seqs = sorted(kept)
    first = records.get(seqs[2:6], generation=1, before=True)
    assert first == {s: kept[s] for s in seqs[2:6]}
    reads = len(ledger.reads)
    # All kept (and the turn before each, read ahead): no read, the same records, in
    # the order asked.
    again = records.get([seqs[5], seqs[3], seqs[1]], generation=1)
    assert list(again) == [seqs[5], seqs[3], seqs[1]]
    assert again == {s: kept[s] for s in again}
    assert records.get([seqs[4], seqs[3]], generation=1) == {seqs[4]: kept[seqs[4]],
                                                               seqs[3]: kept[seqs[3]]}
    assert len(ledger.reads) == reads
    # A new generation reads again.
    assert records.get([seqs[3]], generation=2) == {seqs[3]: kept[seqs[3]]}
    assert len(ledger.reads) == reads + 1


def test_the_packer_leaves_out_past_max_items_what_it_left_out_when_it_priced_them(
        kept: dict[int, SourceRecord]) -> None:
    items = [EvidenceItem(r, 1.0 / (i + 1), {}) for i, r in enumerate(kept.values())]
    for budget in (0, 12, 40, 10_000):
        for max_items in (1, 3, 8):
            packed = pack(items, budget or 10_000, max_items)
            assert len(packed.items) <= max_items
            shown = set(packed.source_ids)
            reasons = {o.source_id: o.reason for o in packed.omissions}
            assert set(reasons) | shown == {i.source_id for i in items}
            # The first left out for max_items comes after every one packed.
            order = [i.source_id for i in items]
            cut = [order.index(s) for s, why in reasons.items() if why == "max_items"]
            assert not cut or min(cut) >= max(order.index(s) for s in shown)


def test_value_words_kept_per_word_are_value_words_read_afresh() -> None:
    from trace_ros.language import revision

    revision.is_value_word.cache_clear()
    words = ["12th", "monday", "mondays", "two", "noon", "cat", "x2", "", "²", "may", "b204"]
    for _ in range(2):
        for w in words:
            assert revision.is_value_word(w) == revision.is_value_word.__wrapped__(w)
    for text in TEXTS + ["Mum's van isn't Theo's", "D&D at Jo's, 7pm"]:
        old = tuple(w.lower().replace("'", "") if not w.lower().endswith("'s")
                    else w.lower()[:-2] for w in revision._WORD.findall(text))
        assert revision._words.__wrapped__(text) == old


def test_turn_before_kept_is_the_turn_before_read_afresh(
        kept: dict[int, SourceRecord]) -> None:
    ledger = _Counting(dict(kept))
    records = Records(ledger)  # type: ignore[arg-type]
    seqs = sorted(kept)
    for _ in range(2):  # the second time from what is kept: no read
        for s in seqs:
            want = kept.get(s - 1) if s - 1 in kept and s in kept \
                and kept[s - 1].session_id == kept[s].session_id else None
            assert records.turn_before(s, generation=1) == want
        reads = len(ledger.reads)
    assert len(ledger.reads) == reads
    # A new generation (a record forgotten) reads again.
    del ledger.records[seqs[2]]
    assert records.turn_before(seqs[3], generation=2) is None


def test_names_addressed_and_mentioned_kept_per_text_are_read_afresh() -> None:
    from trace_ros.language import revision

    texts = TEXTS + ["Thanks, Mrs Lowe. Hey Omar, Iris asked me to tell you", "Leon, I'm off!"]
    for _ in range(2):
        for text in texts:
            assert revision.spoken_to(text) == frozenset(revision._spoken_to.__wrapped__(text))
            assert revision.mentioned(text) == revision.mentioned.__wrapped__(text)
    assert "priya" in revision.spoken_to("Thanks, Priya!")


def test_later_turns_kept_are_the_later_turns_read_afresh(
        kept: dict[int, SourceRecord]) -> None:
    ledger = _Counting(dict(kept))
    records = Records(ledger)  # type: ignore[arg-type]
    seqs = sorted(kept)
    want = {(s, limit): tuple(_Counting(kept).sources_after(s, limit, "s"))
            for s in seqs for limit in (1, 3, 200)}
    for _ in range(2):  # the second time from what is kept: no read
        for (s, limit), turns in want.items():
            assert records.after(s, limit, "s", generation=1) == turns
        assert records.after(seqs[0], 200, "other", generation=1) == ()
        if not _:
            reads = len(ledger.reads)
    assert len(ledger.reads) == reads == len(want) + 1
    # A new generation (a record forgotten) reads again.
    del ledger.records[seqs[2]]
    records.get([seqs[0]], generation=2)
    assert seqs[2] not in {r.seq for r in records.after(seqs[1], 200, "s", generation=2)}


def test_capitalised_words_are_those_of_the_tokens_read_afresh() -> None:
    def by_tokens(text: str) -> tuple[str, ...]:
        toks = spans.tokens(text)
        return tuple(t.text for i, t in enumerate(toks)
                     if t.word and t.text[:1].isupper() and not spans._starts_sentence(toks, i)
                     and t.low not in spans._NOT_NAMES and t.low not in spans._PRONOUNS)

    for text in [*TEXTS, "Dr. Adeyemi moved it; then Bob. And He's Nacho now", "“Hi” Sam said",
                 "I saw Mrs. Kaur and Mr. Patel's dog! Ok Joan?", "It's Tom's; Tom's it"]:
        assert spans._capitalised_as_written(text) == by_tokens(text)


def test_holder_kept_per_sentence_still_asks_the_names_of_each_conversation() -> None:
    from trace_ros.query.owners import sentence_holder

    # The same sentence, read once: a name only where the conversation uses it as one.
    for _ in range(2):
        assert sentence_holder("Peanut eats seeds.", frozenset({"peanut"})) == ("name", "peanut")
        assert sentence_holder("Peanut eats seeds.", frozenset()) == ("", "")
        assert sentence_holder("Mrs Kaur's dialysis is at 7:30.") == ("name", "kaur")
