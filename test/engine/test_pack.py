"""Packing: budget, atomic closures, duplicates, omissions, as-of views, room for paths."""

from __future__ import annotations

import dataclasses

from trace_ros.language.text import estimate_tokens
from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceGroup, EvidenceItem, pack, unit_id, with_attachments
from trace_ros.query.plan import plan_question


def item(i: int, text: str = "", when: float | None = None, known: float | None = None
         ) -> EvidenceItem:
    t = float(i) if when is None else when
    rec = SourceRecord(i, f"s{i}", "ann", "", "x", "dialogue", "Ann",
                       text or f"record number {i} says something", "", None, None, {}, t, False,
                       t if known is None else known, "h")
    return EvidenceItem(rec, 1.0, {})


def cost(*items: EvidenceItem) -> int:
    return sum(estimate_tokens(i.render()) for i in items)


def test_budget_is_respected_and_omissions_recorded() -> None:
    items = [item(i) for i in range(1, 8)]
    budget = cost(*items[:3])
    p = pack(items, budget, 100)
    assert p.source_ids == ["s1", "s2", "s3"] and p.tokens <= budget
    assert p.left_out == ["s4", "s5", "s6", "s7"]
    assert {o.reason for o in p.omissions} == {"budget"}
    assert pack(items, 10_000, 2).left_out == ["s3", "s4", "s5", "s6", "s7"]


def test_closures_go_in_whole_or_not_at_all() -> None:
    a, b, c, d = item(1), item(2), item(3, "a much longer record " * 10), item(4)
    budget = cost(a, b, d) + 1
    p = pack([EvidenceGroup((a,)), EvidenceGroup((b, c)), EvidenceGroup((d,))], budget, 10)
    assert p.source_ids == ["s1", "s4"]  # b needs c; together they do not fit
    assert set(p.left_out) == {"s2", "s3"}
    p = pack([EvidenceGroup((a,)), EvidenceGroup((b, c))], 10_000, 2)
    assert p.source_ids == ["s1"]  # two more items would pass max_items: neither goes


def test_duplicates_are_dropped_and_not_paid_twice() -> None:
    a, b = item(1), item(2)
    p = pack([a, EvidenceGroup((b, a)), a], cost(a, b), 10)
    assert p.source_ids == ["s1", "s2"] and p.tokens == cost(a, b)
    assert [o.reason for o in p.omissions] == ["duplicate"]


def test_as_of_views_never_include_later_records() -> None:
    old, new, late_known = item(1, when=100.0), item(2, when=300.0), item(3, when=50.0, known=400.0)
    p = pack([new, old, late_known], 10_000, 10, as_of_valid=200.0, as_of_known=200.0)
    assert p.source_ids == ["s1"]
    assert {(o.source_id, o.reason) for o in p.omissions} == {("s2", "after_as_of"),
                                                              ("s3", "after_as_of")}
    # A closure's later support is not shown, and its path lines (which name it) neither.
    g = EvidenceGroup((old, new), paths=("s1 superseded on 1970-01-01 by [s2]",))
    p = pack([g], 10_000, 10, as_of_valid=200.0)
    assert p.source_ids == ["s1"] and p.paths == []
    p = pack([g], 10_000, 10)
    assert p.source_ids == ["s1", "s2"] and p.paths == list(g.paths)


def test_paths_render_after_sources_within_the_reserved_room() -> None:
    items = [item(i) for i in range(1, 6)]
    line = "fact: pickup = monday (s1) superseded on 1970-01-01 by s2"
    budget = cost(*items[:2]) + estimate_tokens(line)
    p = pack(items, budget, 10, path_reserve=estimate_tokens(line))
    assert p.source_ids == ["s1", "s2"]
    assert p.add_paths([line, "another line that will not fit"]) == ["another line that will not fit"]
    text = p.render()
    assert text.index("[s2]") < text.index("Support paths:") < text.index(line)
    assert p.tokens <= budget


def test_plan_needs_are_read_by_the_packer() -> None:
    items = [item(i) for i in range(1, 8)]
    listing = plan_question("What pets does she have?")
    p = pack(items, 10_000, 3, plan=listing)
    assert len(p.items) == 7 and p.complete  # a list is not cut at max_items
    p = pack(items, cost(*items[:2]), 3, plan=listing)
    assert not p.complete
    # A duration keeps the earliest and the latest candidate next to the best one.
    ordered = [item(4), item(3), item(5), item(1), item(7), item(2)]
    p = pack(ordered, 10_000, 3, plan=plan_question("How long did the trip take?"))
    assert p.source_ids == ["s4", "s1", "s7"]


def attached(i: int, to: str, text: str = "") -> EvidenceItem:
    rec = SourceRecord(i, f"s{i}", "ann", "", "x", "perception", "Ann",
                       text or f"an image number {i}", "image", None, None, {"attached_to": to},
                       float(i), False, float(i), "h")
    return EvidenceItem(rec, 1.0, {})


def test_a_record_and_its_attachments_are_one_unit() -> None:
    a, photo, b, c = item(1), attached(2, "s1"), item(3), item(4)
    assert unit_id(photo) == unit_id(a) == "s1" and unit_id(b) == "s3"
    units = {"s1": (a, photo), "s2": (a, photo)}
    closed = with_attachments([a, b, photo, c], units)
    assert [g.source_ids if isinstance(g, EvidenceGroup) else [g.source_id] for g in closed] == \
        [["s1", "s2"], ["s3"], ["s1", "s2"], ["s4"]]
    p = pack(closed, 10_000, 2)
    assert p.source_ids == ["s1", "s2", "s3"]  # two units; the photo counts with its turn
    assert p.left_out == ["s4"] and ("s1", "duplicate") in {(o.source_id, o.reason)
                                                          for o in p.omissions}
    assert pack(closed, 10_000, 2, by_unit=False).source_ids == ["s1", "s2"]
    # A photo found first brings its turn, which leads.
    assert pack(with_attachments([photo, b], units), 10_000, 1).source_ids == ["s1", "s2"]


def test_attachment_closures_are_never_split() -> None:
    a, b = item(1), item(3)
    photo = attached(2, "s1", "a very long caption of the shared photo " * 8)
    closed = with_attachments([a, b, photo], {"s1": (a, photo), "s2": (a, photo)})
    p = pack(closed, cost(a, b) + 1, 10)
    assert p.source_ids == ["s3"]  # the turn does not go in without its photo
    assert {"s1", "s2"} <= set(p.left_out)
    # Outside the view the attachment is not shown; the turn still is.
    late = attached(5, "s1", "taken later")
    late = EvidenceItem(dataclasses.replace(late.record, source_time=50.0, known_time=50.0),
                        1.0, {})
    p = pack(with_attachments([a], {"s1": (a, late)}), 10_000, 10, as_of_valid=10.0)
    assert p.source_ids == ["s1"] and ("s5", "after_as_of") in {(o.source_id, o.reason)
                                                              for o in p.omissions}
