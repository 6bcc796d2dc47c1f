"""The learned check on the reader's first citation (``query/rank.py``, issue 14).

The features are general (ranks, cosines, time order, speaker roles, graph verdicts);
the check overrides the reader only by a margin, reads again from the record it
prefers, and never turns an abstention into an answer.
"""

from __future__ import annotations

import calendar
from types import SimpleNamespace

import numpy as np

from trace_ros.config import RecallConfig
from trace_ros.ledger import SourceRecord
from trace_ros.query import rank
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.query.pack import EvidenceItem, Pack
from trace_ros.query.paths import GraphOutcome
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ReaderOutput

DAY = 86400.0
T0 = float(calendar.timegm((2023, 5, 8, 13, 0, 0, 0, 0, 0)))


def rec(i: int, text: str, when: float, speaker: str = "Ann", session: str = "s1"
        ) -> SourceRecord:
    return SourceRecord(i, f"src-{i}", "ann", "", session, "dialogue", speaker, text, "", None,
                        None, {}, when, False, when, "h")


def items(*records: SourceRecord) -> list[EvidenceItem]:
    return [EvidenceItem(r, 1.0 - 0.1 * k, {"dense": k + 1}) for k, r in enumerate(records)]


def test_the_check_overrides_only_by_more_than_the_margin() -> None:
    coef = dict.fromkeys(rank.FEATURES, 0.0) | {"newest": 2.0}
    rows = np.zeros((2, len(rank.FEATURES)))
    rows[1, rank.FEATURES.index("newest")] = 1.0
    assert rank.overriding(rows, 0, 1.0, coef) == 1
    assert rank.overriding(rows, 0, 2.5, coef) is None
    assert rank.overriding(rows, 1, 0.0, coef) is None  # the cited one is the best


def test_the_fitted_check_keeps_a_persons_statement_over_the_robots_echo() -> None:
    """A restated value is not an update: the robot saying back the person's words, a
    moment later, does not take the lead from the person's own statement."""
    ctx = rank.Context("When is my dentist appointment?",
                       plan_question("When is my dentist appointment?", T0 + DAY),
                       asker="Ann", robot_id="robot", lead=("src-1",))
    shown = items(rec(1, "My dentist appointment is on Monday at 3pm.", T0),
                  rec(2, "Noted: your dentist appointment is Monday at 3pm.", T0 + 5,
                      speaker="robot"))
    vectors = np.array([[1.0, 0.0], [0.96, 0.28]])
    rows = rank.feature_rows(ctx, shown, vectors, np.array([1.0, 0.0]),
                             [rank.Graphed()] * 2, [False, True])
    assert rank.overriding(rows, 0, 1.0) is None


def test_features_read_time_order_roles_and_the_graph() -> None:
    ctx = rank.Context("Where does Ann park now?", plan_question("Where does Ann park now?",
                                                                 T0 + 9 * DAY),
                       asker="Ann", robot_id="robot", lead=("src-2",),
                       superseded=("src-1",))
    shown = items(rec(2, "I park on Elm Street now.", T0 + 5 * DAY),
                  rec(1, "I park in the garage.", T0),
                  rec(3, "Got it.", T0 + 5 * DAY + 5, speaker="robot"))
    vectors = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    graphed = [rank.Graphed(updates_out=1), rank.Graphed(updates_in=1, superseded=1),
               rank.Graphed()]
    rows = rank.feature_rows(ctx, shown, vectors, np.array([1.0, 0.0]), graphed,
                             [False, False, False])
    col = {f: rows[:, i] for i, f in enumerate(rank.FEATURES)}
    assert rows.shape == (3, len(rank.FEATURES)) and np.isfinite(rows).all()
    assert list(col["newest"]) == [0.0, 0.0, 1.0] and col["time_rank"][1] == 1.0
    assert list(col["is_lead0"]) == [1.0, 0.0, 0.0]
    assert list(col["in_superseded"]) == [0.0, 1.0, 0.0]
    assert list(col["asker"]) == [1.0, 1.0, 0.0] and list(col["robot"]) == [0.0, 0.0, 1.0]
    assert list(col["upd_out"]) == [1.0, 0.0, 0.0] and list(col["upd_in"]) == [0.0, 1.0, 0.0]
    assert col["gap_lead"][1] < 0 < col["gap_lead"][2]


def test_the_reread_pack_leads_with_the_pick_and_its_session() -> None:
    shown = items(rec(1, "old", T0), rec(2, "new", T0 + DAY, session="s2"),
                  rec(3, "ack", T0 + DAY + 5, speaker="robot", session="s2"),
                  rec(4, "other", T0 + 2 * DAY, session="s3"))
    packed = Pack(items=shown, tokens=40, budget=1200)
    sub = rank.reread_pack(packed, "src-2", "src-1")
    assert sub.source_ids == ["src-2", "src-3"]


def test_every_feature_has_a_fitted_coefficient() -> None:
    assert set(rank.COEF) == set(rank.FEATURES)
    assert sum(abs(v) > 0 for v in rank.COEF.values()) > len(rank.FEATURES) // 2


class _Reader:
    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.packs: list[Pack] = []

    def read(self, question: str, plan: object, pack: Pack, resolution: object = None
             ) -> ReaderOutput:
        self.packs.append(pack)
        return ReaderOutput(self.answer, pack.source_ids[:1], "extractive")


def _engine(answer: str, prefer: int | None) -> SimpleNamespace:
    """What ``QueryEngine.learned_pick`` uses of the engine, with rows that make the
    check prefer record ``prefer`` (None: the cited one)."""
    def shown_rows(*_: object) -> np.ndarray:
        rows = np.zeros((3, len(rank.FEATURES)))
        if prefer is not None:
            rows[prefer, rank.FEATURES.index("is_lead0")] = 100.0 / (rank.COEF["is_lead0"]
                                                                    or 1.0)
        return rows
    return SimpleNamespace(encoder=object(), config=RecallConfig(), reader=_Reader(answer),
                           shown_rows=shown_rows)


def _ask(eng: SimpleNamespace, out: ReaderOutput) -> ReaderOutput:
    shown = items(rec(1, "Monday", T0), rec(2, "Friday", T0 + DAY), rec(3, "hi", T0 + 2 * DAY))
    q = "When is it?"
    return QueryEngine.learned_pick(eng, QueryRequest(None, q),  # type: ignore[arg-type]
                                    plan_question(q, T0 + 3 * DAY), Pack(items=shown),
                                    out, GraphOutcome(), None, 0)


def test_the_check_reads_again_from_the_record_it_prefers() -> None:
    eng = _engine("Friday", prefer=1)
    got = _ask(eng, ReaderOutput("Monday", ["src-1"], "extractive"))
    assert (got.answer, got.cited_ids) == ("Friday", ["src-2"])
    assert eng.reader.packs[0].source_ids[0] == "src-2"


def test_the_check_keeps_the_readers_answer_and_abstentions() -> None:
    said = ReaderOutput("Monday", ["src-1"], "extractive")
    assert _ask(_engine("Friday", prefer=None), said) is said
    abstained = ReaderOutput("", [], "extractive")
    assert _ask(_engine("Friday", prefer=1), abstained) is abstained
    eng = _engine("", prefer=1)  # the second reading finds nothing: the first stands
    assert _ask(eng, said) is said
