"""Recall routes and re-ranking on real ledgers: participants, neighbours, time window,
recency, facts, score fusion, ablation."""

from __future__ import annotations

import calendar

import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, RecallConfig
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.query.recall import (
    Fused,
    Hit,
    Participants,
    Place,
    score_fusion,
    session_prior,
    spread_to_neighbours,
)

DAY = 86400.0
S1 = Scope("home", "r1", "s1")
S2 = Scope("home", "r1", "s2")


def _ingest(ledger: Ledger, events: list[Event]) -> None:
    assert all(r.status == "accepted" for r in ingest(ledger, events, CaptureConfig()))


def _texts(ledger: Ledger, ids: list[str]) -> list[str]:
    return [s.text for s in ledger.get_sources(ids)]


def _shown(res) -> list[str]:  # noqa: ANN001
    return [e.record.text for e in res.evidence]


def test_named_participant_is_not_a_search_word(ledger: Ledger) -> None:
    _ingest(ledger, [
        Event("dialogue", S1, "Hey Evan! Long time no see, how are things?", "Sam", stamp=1 * DAY),
        Event("dialogue", S1, "Great! I drove my new car to the lake.", "Evan", stamp=1 * DAY + 1),
        Event("dialogue", S1, "Evan, Evan, good to hear from you Evan.", "Sam", stamp=1 * DAY + 2),
        Event("dialogue", S1, "Sam bought a car last year.", "Sam", stamp=1 * DAY + 3),
    ])
    question = QueryRequest(Scope("home"), "Where did Evan take his new car?")
    lexical_only = {"neighbours", "sessions"}
    res = QueryEngine(ledger, None, audit=False, ablate=lexical_only).ask(question)
    assert _shown(res) == ["Great! I drove my new car to the lake.", "Sam bought a car last year."]
    assert res.routes["participants"] == [res.evidence[0].source_id]  # Evan's turn was lifted
    # With the name as a search word, greetings that only name him are recalled too.
    plain = QueryEngine(ledger, None, audit=False,
                        ablate=lexical_only | {"participants"}).ask(question)
    assert "Evan, Evan, good to hear from you Evan." in _shown(plain)


def test_only_a_name_still_searches_by_it(ledger: Ledger) -> None:
    _ingest(ledger, [Event("dialogue", S1, "Evan is my brother.", "Sam", stamp=DAY),
                     Event("dialogue", S1, "Hello there.", "Evan", stamp=DAY + 1)])
    res = QueryEngine(ledger, None, audit=False).ask(QueryRequest(Scope("home"), "Evan?"))
    assert "Evan is my brother." in _shown(res)


def test_neighbour_brings_the_reply_within_its_session(ledger: Ledger) -> None:
    _ingest(ledger, [
        Event("dialogue", S1, "How long do you hold the plank pose?", "Sam", stamp=DAY),
        Event("dialogue", S1, "Usually for about a minute.", "Evan", stamp=DAY + 1),
        Event("dialogue", S2, "Unrelated: the weather was rainy.", "Evan", stamp=2 * DAY),
        Event("dialogue", S2, "Bring an umbrella tomorrow.", "Sam", stamp=2 * DAY + 1),
    ])
    question = QueryRequest(Scope("home"), "How long is the plank pose held?")
    res = QueryEngine(ledger, None, audit=False).ask(question)
    assert _shown(res)[:2] == ["How long do you hold the plank pose?", "Usually for about a minute."]
    assert "Unrelated: the weather was rainy." not in _shown(res)  # another session
    assert res.routes["neighbours"]
    alone = QueryEngine(ledger, None, audit=False, ablate={"neighbours"}).ask(question)
    assert _shown(alone) == ["How long do you hold the plank pose?"]


def test_neighbours_respect_scope_and_time_view(ledger: Ledger) -> None:
    other = Scope("guest", "r1", "s1")
    _ingest(ledger, [
        Event("dialogue", S1, "Where is the red toolbox?", "Sam", stamp=DAY),
        Event("dialogue", other, "The guest's secret is in the attic.", "Ann", stamp=DAY + 1),
        Event("dialogue", S1, "It is in the garage.", "Evan", stamp=3 * DAY),
    ])
    engine = QueryEngine(ledger, None, audit=False)
    res = engine.ask(QueryRequest(Scope("home"), "red toolbox location?"))
    assert all(e.record.subject_id == "home" for e in res.evidence)
    assert "It is in the garage." in _shown(res)
    past = engine.ask(QueryRequest(Scope("home"), "red toolbox location?", as_of_valid=2 * DAY))
    assert _shown(past) == ["Where is the red toolbox?"]


def _epoch(y: int, m: int, d: int) -> float:
    return float(calendar.timegm((y, m, d, 12, 0, 0)))


def test_temporal_window_prefers_the_named_time(ledger: Ledger) -> None:
    _ingest(ledger, [
        Event("dialogue", S1, "We went hiking, hiking all day at the lake.", "Sam",
              stamp=_epoch(2023, 5, 10)),
        Event("dialogue", S2, "We went hiking in the hills.", "Sam", stamp=_epoch(2023, 8, 12)),
    ])
    question = QueryRequest(Scope("home"), "Where did they go hiking in August 2023?")
    res = QueryEngine(ledger, None, audit=False).ask(question)
    assert res.plan.window is not None
    assert _shown(res)[0] == "We went hiking in the hills."
    assert res.routes["temporal"]
    plain = QueryEngine(ledger, None, audit=False, ablate={"temporal"}).ask(question)
    assert _shown(plain)[0] == "We went hiking, hiking all day at the lake."


def test_recency_only_for_questions_about_the_current_state(ledger: Ledger) -> None:
    _ingest(ledger, [
        Event("dialogue", S1, "The spare key is under the mat.", "Sam", stamp=DAY),
        Event("dialogue", S2, "The spare key is with the neighbour.", "Sam", stamp=5 * DAY),
    ])
    engine = QueryEngine(ledger, None, audit=False, ablate={"sessions"})
    now = engine.ask(QueryRequest(Scope("home"), "Where is the spare key now?"))
    assert now.plan.operation == "current_state"
    assert _shown(now)[0] == "The spare key is with the neighbour."
    assert now.routes["recency"]
    history = engine.ask(QueryRequest(Scope("home"), "Where was the spare key kept previously?"))
    assert not history.plan.current and "recency" not in history.routes


def _add_fact(ledger: Ledger, fact_id: str, subject: str, description: str,
              source_id: str, when: float) -> None:
    seq = ledger.get_sources([source_id])[0].seq
    with ledger.write() as conn:
        conn.execute(
            "INSERT INTO facts (fact_id, subject_id, type, description, anchor_time, valid_from, "
            "known_from, source_seq) VALUES (?, ?, 'state_change', ?, ?, ?, ?, ?)",
            (fact_id, subject, description, when, when, when, seq))
        conn.execute("INSERT INTO fact_sources (fact_id, source_id) VALUES (?, ?)",
                     (fact_id, source_id))


def test_facts_route_finds_sources_through_their_facts(ledger: Ledger) -> None:
    _ingest(ledger, [
        Event("dialogue", S1, "Finally got the keys today!", "Ann", stamp=DAY, source_id="k1"),
        Event("dialogue", Scope("guest"), "I moved to Porto.", "Bob", stamp=DAY, source_id="g1"),
    ])
    question = QueryRequest(Scope("home"), "Which apartment did Ann move into?")
    on = RecallConfig(facts_weight=0.2)  # the route is off by default (weight 0)
    without = QueryEngine(ledger, None, config=on, audit=False).ask(question)
    assert without.status == "missing" and without.routes["facts"] == []
    _add_fact(ledger, "f1", "home", "Ann moved into a new apartment", "k1", DAY)
    _add_fact(ledger, "f2", "guest", "Bob moved into an apartment in Porto", "g1", DAY)
    res = QueryEngine(ledger, None, config=on, audit=False).ask(question)
    assert res.routes["facts"] == ["k1"] and [e.source_id for e in res.evidence] == ["k1"]
    off = QueryEngine(ledger, None, audit=False).ask(question)
    assert "facts" not in off.routes and off.status == "missing"
    # A fact restating words the text search already matched adds nothing twice.
    _add_fact(ledger, "f3", "home", "Ann got the keys of the apartment", "k1", DAY)
    keys = QueryEngine(ledger, None, config=on, audit=False).ask(QueryRequest(Scope("home"), "keys?"))
    assert keys.routes["lexical"] == ["k1"] and keys.routes["facts"] == []
    # A time view hides facts known only later.
    past = QueryEngine(ledger, None, config=on, audit=False).ask(
        QueryRequest(Scope("home"), "Which apartment did Ann move into?", as_of_known=0.5 * DAY))
    assert past.routes["facts"] == []


def test_score_fusion_weights_routes_by_reliability() -> None:
    lexical = [Hit(1, "a", 9.0), Hit(2, "b", 3.0)]
    dense = [Hit(2, "b", 0.9), Hit(3, "c", 0.5), Hit(1, "a", 0.1)]
    fused = score_fusion({"lexical": lexical, "dense": dense}, {"lexical": 1.0, "dense": 0.5})
    order = sorted(fused.values(), key=lambda f: -f.score)
    assert [f.source_id for f in order] == ["a", "b", "c"]
    assert fused[2].ranks == {"lexical": 2, "dense": 1}
    # With dense trusted more, its top hit wins.
    fused = score_fusion({"lexical": lexical, "dense": dense}, {"lexical": 1.0, "dense": 2.0})
    assert max(fused.values(), key=lambda f: f.score).source_id == "b"


def test_unknown_ablation_is_refused(ledger: Ledger) -> None:
    with pytest.raises(ValueError, match="bogus"):
        QueryEngine(ledger, None, ablate={"bogus"})
    assert set(QueryEngine.COMPONENTS) >= {"lexical", "dense", "facts", "participants",
                                           "neighbours", "sessions", "temporal", "recency"}


def test_in_memory_neighbours_follow_forget(ledger: Ledger, encoder) -> None:  # noqa: ANN001
    from trace_ros.consolidation.worker import Consolidator

    _ingest(ledger, [
        Event("dialogue", S1, "How long do you hold the plank pose?", "Sam", stamp=DAY,
              source_id="q"),
        Event("dialogue", S1, "Usually for about a minute.", "Evan", stamp=DAY + 1, source_id="a"),
    ])
    Consolidator(ledger, encoder).drain()
    question = QueryRequest(Scope("home"), "How long is the plank pose held?")
    engine = QueryEngine(ledger, encoder, audit=False)
    assert "a" in [e.source_id for e in engine.ask(question).evidence]
    ledger.forget(None, ["a"])
    for ablate in (set(), {"dense"}):
        engine.ablate = ablate
        assert [e.source_id for e in engine.ask(question).evidence] == ["q"]


def test_without_words_drops_names_but_never_everything() -> None:
    from trace_ros.query.recall import without_words

    assert without_words("What is Evan's car?", {"evan"}) == "What is car?"
    assert without_words("Where did Evan and Sam go?", {"evan", "sam"}) == "Where did and go?"
    assert without_words("Evan?", {"evan"}) == "Evan?"
    assert without_words("Evans Street", {"evan"}) == "Evans Street"


def test_an_attached_record_is_shown_with_its_source_as_one_unit(ledger: Ledger) -> None:
    photo = Event("perception", S1, "a golden retriever puppy asleep on a sofa", "Sam",
                  label="image", stamp=DAY, source_id="t1#photo", payload={"attached_to": "t1"})
    # The photo is stored before the utterance it belongs to: it waits for it.
    _ingest(ledger, [photo])
    question = QueryRequest(Scope("home"), "What kind of puppy does Sam have?")
    one = RecallConfig(evidence_k=1)
    engine = QueryEngine(ledger, None, config=one, audit=False)
    assert [e.source_id for e in engine.ask(question).evidence] == ["t1#photo"]
    _ingest(ledger, [
        Event("dialogue", S1, "Look who joined our family last week!", "Sam", stamp=DAY,
              source_id="t1"),
        Event("dialogue", S1, "The sofa is new too, bought it on sale.", "Evan", stamp=DAY + 1,
              source_id="t2"),
    ])
    res = engine.ask(question)
    assert [e.source_id for e in res.evidence] == ["t1", "t1#photo"]  # one unit, turn first
    assert res.evidence[0].routes == {"attached": 1}
    alone = QueryEngine(ledger, None, config=one, audit=False, ablate={"attachments"})
    assert [e.source_id for e in alone.ask(question).evidence] == ["t1#photo"]
    # A later attachment joins its unit on the next question (the cache reads new sources).
    _ingest(ledger, [Event("perception", S1, "the puppy chewing a red ball", "Sam",
                           label="image", stamp=DAY, source_id="t1#photo2",
                           payload={"attached_to": "t1"})])
    assert [e.source_id for e in engine.ask(question).evidence] == ["t1", "t1#photo",
                                                                     "t1#photo2"]
    # Attachments outside the question's scope stay out.
    _ingest(ledger, [Event("perception", S2, "a puppy photo from another session", "Sam",
                           label="image", stamp=DAY, source_id="t1#elsewhere",
                           payload={"attached_to": "t1"})])
    scoped = engine.ask(QueryRequest(S1, "What kind of puppy does Sam have?"))
    assert "t1#elsewhere" not in [e.source_id for e in scoped.evidence]
    assert "t1#photo" in [e.source_id for e in scoped.evidence]


def _vector(ledger: Ledger, kind: str, source_id: str):  # noqa: ANN202
    import numpy as np

    rows = ledger.query("SELECT vec FROM vectors WHERE owner_kind = ? AND owner_id = ?",
                        (kind, source_id))
    return np.frombuffer(rows[0][0], dtype=np.float32) if rows else None


def _pooled(encoder, lines: list[str]):  # noqa: ANN001, ANN202
    """A window's vector written out: the turns' own vectors weighted by their lengths,
    the last (the turn itself) by ``WINDOW_OWN_WEIGHT`` of its length."""
    import numpy as np

    from trace_ros.consolidation.worker import WINDOW_OWN_WEIGHT

    weights = [float(len(t)) for t in lines]
    weights[-1] *= WINDOW_OWN_WEIGHT
    mean = np.array(weights) @ encoder.encode(lines)
    return mean / np.linalg.norm(mean)


def test_window_vectors_pool_a_turn_with_the_two_before_it(ledger: Ledger, encoder) -> None:  # noqa: ANN001
    import numpy as np

    from trace_ros.config import ConsolidationConfig
    from trace_ros.consolidation.worker import Consolidator

    turns = [(S1, "Sam", "Did you adopt the puppy?", "t1"), (S2, "Ann", "Other talk.", "o1"),
             (S1, "Evan", "Yes, a beagle.", "t2"), (S1, "Sam", "What is her name?", "t3"),
             (S2, "Bo", "More other talk.", "o2"), (S1, "Evan", "Daisy.", "t4")]
    _ingest(ledger, [Event("dialogue", sc, text, who, stamp=DAY + i, source_id=sid)
                     for i, (sc, who, text, sid) in enumerate(turns)])
    # Batches of two: a window reaches back into sources of an earlier batch.
    Consolidator(ledger, encoder, ConsolidationConfig(batch_size=2)).drain()
    # First of its session: its window is its own vector.
    assert np.array_equal(_vector(ledger, "window", "t1"), _vector(ledger, "source", "t1"))
    expected = _pooled(encoder, ["Evan: Yes, a beagle.", "Sam: What is her name?", "Evan: Daisy."])
    assert np.allclose(_vector(ledger, "window", "t4"), expected, atol=1e-5)
    assert np.allclose(_vector(ledger, "window", "o2"),
                       _pooled(encoder, ["Ann: Other talk.", "Bo: More other talk."]), atol=1e-5)
    # Not the mean of any two: the turn three before is out, the one two before is in.
    assert not np.allclose(_vector(ledger, "window", "t4"),
                           _pooled(encoder, ["Sam: What is her name?", "Evan: Daisy."]), atol=1e-3)
    # Forgetting a turn drops the windows that embed it (its own and the next two) ...
    ledger.forget(None, ["t2"])
    assert [_vector(ledger, "window", s) is None for s in ("t3", "t4", "o2")] == [True, True, False]
    assert _vector(ledger, "source", "t4") is not None
    # ... and the consolidator embeds them again from what is still stored, without it.
    Consolidator(ledger, encoder, ConsolidationConfig(batch_size=1)).drain()
    assert np.allclose(_vector(ledger, "window", "t3"),
                       _pooled(encoder, ["Sam: Did you adopt the puppy?", "Sam: What is her name?"]),
                       atol=1e-5)
    assert np.allclose(_vector(ledger, "window", "t4"), _pooled(
        encoder, ["Sam: Did you adopt the puppy?", "Sam: What is her name?", "Evan: Daisy."]),
        atol=1e-5)
    assert not ledger.sources_without_window(encoder.name, 10)


def test_window_route_is_fused_and_ablatable(ledger: Ledger, encoder) -> None:  # noqa: ANN001
    from trace_ros.consolidation.worker import Consolidator

    _ingest(ledger, [
        Event("dialogue", S1, "Which instrument are you learning these days?", "Sam", stamp=DAY,
              source_id="q"),
        Event("dialogue", S1, "The cello, twice a week.", "Evan", stamp=DAY + 1, source_id="a"),
    ])
    Consolidator(ledger, encoder).drain()
    question = QueryRequest(Scope("home"), "What instrument is Evan learning?")
    res = QueryEngine(ledger, encoder, audit=False).ask(question)
    assert set(res.routes["window"]) == {"q", "a"}
    # The reply alone says little; with the question it answers, it is close to this one.
    qvec = encoder.encode([question.question])[0]
    assert qvec @ _vector(ledger, "window", "a") > qvec @ _vector(ledger, "source", "a") + 0.05
    assert "window" in QueryEngine.COMPONENTS
    res = QueryEngine(ledger, encoder, audit=False, ablate={"window"}).ask(question)
    assert "window" not in res.routes


def test_a_long_turn_before_is_left_out_of_the_window(ledger: Ledger, encoder) -> None:  # noqa: ANN001
    import numpy as np

    from trace_ros.consolidation.worker import WINDOW_MAX_CHARS, Consolidator

    long_text = "We walked along the river and talked. " * (WINDOW_MAX_CHARS // 30)
    _ingest(ledger, [Event("dialogue", S1, long_text, "Sam", stamp=DAY, source_id="long"),
                     Event("dialogue", S1, "Short one.", "Evan", stamp=DAY + 1, source_id="mid"),
                     Event("dialogue", S1, "And the reply.", "Sam", stamp=DAY + 2, source_id="end")])
    Consolidator(ledger, encoder).drain()
    # The encoder would cut the end of the text, the turn itself: the long turn goes first.
    assert np.array_equal(_vector(ledger, "window", "mid"), _vector(ledger, "source", "mid"))
    assert np.allclose(_vector(ledger, "window", "end"),
                       _pooled(encoder, ["Evan: Short one.", "Sam: And the reply."]), atol=1e-5)


def test_participants_and_time_lift_candidates_beyond_the_neighbour_pool(ledger: Ledger) -> None:
    """The named speaker's turns and turns inside the named time are lifted wherever
    they rank among the candidates, not only within the pool whose neighbours are read."""
    _ingest(ledger, [
        Event("dialogue", Scope("home", "r1", "a"), "The garden shed has paint, paint, paint.",
              "Sam", stamp=_epoch(2023, 5, 10)),
        Event("dialogue", Scope("home", "r1", "b"), "I think the garden shed paint is green.",
              "Sam", stamp=_epoch(2023, 5, 11)),
        Event("dialogue", Scope("home", "r1", "c"), "We painted the shed.", "Evan",
              stamp=_epoch(2023, 8, 12)),
    ])
    config = RecallConfig(pool_k=1)
    plain = {"neighbours", "sessions"}
    who = QueryRequest(Scope("home"), "What did Evan say about the garden shed paint?")
    res = QueryEngine(ledger, None, config=config, audit=False, ablate=plain).ask(who)
    assert _shown(res)[0] == "We painted the shed."
    assert res.routes["participants"] == [res.evidence[0].source_id]
    unweighted = RecallConfig(pool_k=1, participant_weight=0.0)
    off = QueryEngine(ledger, None, config=unweighted, audit=False, ablate=plain).ask(who)
    assert _shown(off)[0] != "We painted the shed."
    when = QueryRequest(Scope("home"), "What about the garden shed paint in August 2023?")
    res = QueryEngine(ledger, None, config=config, audit=False, ablate=plain).ask(when)
    assert res.plan.window is not None and _shown(res)[0] == "We painted the shed."
    off = QueryEngine(ledger, None, config=config, audit=False,
                      ablate=plain | {"temporal"}).ask(when)
    assert _shown(off)[0] != "We painted the shed."


def test_neighbours_and_sessions_share_the_match_not_the_priors() -> None:
    """A turn next to one the question's person spoke gains from how well that turn
    matched, not from the participant boost it got; so does the session's prior."""
    info = {i: Place(i, f"t{i}", ("r1", "a" if i < 3 else "b"), "Evan" if i == 1 else "Sam",
                     float(i)) for i in range(1, 5)}
    near = {1: [(2, 1)], 3: [(4, 1)]}
    # 1: a weak match that Evan said (+1.0 participant boost); 3: a strong match.
    match = {1: 0.5, 3: 0.9}
    fused = {1: Fused(1, "t1", 1.5), 3: Fused(3, "t3", 0.9)}
    gained = spread_to_neighbours(fused, info, near, 0.2, 0.0, match)
    assert gained == {2, 4}
    assert fused[2].score == pytest.approx(0.2 * 0.5) and fused[4].score == pytest.approx(0.2 * 0.9)
    session_prior(fused, info, 0.4, 1, match)
    # Session b holds the best match (0.9): its turns gain the full weight, a's 0.5/0.9 of it.
    assert fused[3].score == pytest.approx(0.9 + 0.4)
    assert fused[1].score == pytest.approx(1.5 + 0.4 * 0.5 / 0.9)
    # Without ``base`` the fused scores (boosts included) are shared, as before.
    again = {1: Fused(1, "t1", 1.5), 3: Fused(3, "t3", 0.9)}
    spread_to_neighbours(again, info, near, 0.2, 0.0)
    assert again[2].score == pytest.approx(0.2 * 1.5)


def test_a_name_that_is_a_function_word_names_only_when_capitalised(ledger: Ledger) -> None:
    _ingest(ledger, [Event("dialogue", S1, "I will cook pasta tonight.", "Will", stamp=DAY),
                     Event("dialogue", S1, "I could cook rice.", "Ann", stamp=DAY + 1)])
    participants = Participants(ledger)
    assert participants.named("home", "What will Ann cook?")[0] == {"Ann"}
    assert participants.named("home", "What did Will cook?")[0] == {"Will"}
    assert participants.named("home", "what did will cook?")[0] == set()
    assert participants.named("home", "What did ann cook?")[0] == {"Ann"}  # not a function word


def test_the_route_report_lists_what_each_reranker_lifted_best_first() -> None:
    from trace_ros.query.answer import AUDIT_ROUTE_IDS, QueryEngine, Recalled
    from trace_ros.query.recall import Fused, Hit

    ranked = [Fused(seq, f"s{seq}", 100.0 - i) for i, seq in enumerate(range(60, 0, -1))]
    recalled = Recalled({"lexical": [Hit(s, f"s{s}", 1.0) for s in range(1, 30)]},
                        boosted={"sessions": list(range(1, 61)), "temporal": [7, 3, 99],
                                 "recency": []})
    report = QueryEngine.route_report(recalled, ranked)
    assert report["lexical"] == [f"s{s}" for s in range(1, AUDIT_ROUTE_IDS + 1)]
    # In the ranking's order (60 ranks first), capped; a lifted seq not ranked is left out.
    assert report["sessions"] == [f"s{s}" for s in range(60, 60 - AUDIT_ROUTE_IDS, -1)]
    assert report["temporal"] == ["s7", "s3"]
    assert report["recency"] == []
