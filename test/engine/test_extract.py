"""The rule-based CPU extractor: keys, participants, polarity, cues, time anchors."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from trace_ros.consolidation.cpu import CpuExtractor, make_extractor
from trace_ros.consolidation.extract import ExtractContext
from trace_ros.facts import FACT_TYPES, RELATIONS, FactDraft
from trace_ros.ledger import SourceRecord

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()
SESSION = datetime(2023, 5, 8, 9, 0, tzinfo=UTC).timestamp()
CTX = ExtractContext(addressee="Sam", session_time=SESSION, people=frozenset({"Alex", "Sam"}))


def record(text: str, *, speaker: str = "Alex", modality: str = "dialogue", label: str = "",
           when: float = MONDAY, payload: dict[str, Any] | None = None,
           pose: dict[str, Any] | None = None) -> SourceRecord:
    return SourceRecord(1, "src-1", "subj", "", "sess-1", modality, speaker, text, label, None,
                        pose, payload or {}, when, False, when, "hash")


def extract(text: str, ctx: ExtractContext = CTX, **kw: Any) -> list[FactDraft]:
    drafts = CpuExtractor().extract(record(text, **kw), ctx)
    for d in drafts:  # every draft is well-formed whatever the input
        assert d.type in FACT_TYPES
        assert not d.relation or d.relation.split(":", 1)[0] in RELATIONS
        assert d.description
    return drafts


def keyed(text: str, ctx: ExtractContext = CTX, **kw: Any) -> list[FactDraft]:
    return [d for d in extract(text, ctx, **kw) if d.key]


def one(text: str, ctx: ExtractContext = CTX, **kw: Any) -> FactDraft:
    drafts = keyed(text, ctx, **kw)
    assert len(drafts) == 1, drafts
    return drafts[0]


def test_factory_and_name() -> None:
    ex = make_extractor("cpu-rules")
    assert isinstance(ex, CpuExtractor) and ex.name == "cpu-rules"
    with pytest.raises(ValueError, match="extractor"):
        make_extractor("oracle")


@pytest.mark.parametrize(("text", "value", "cue"), [
    ("I live in Boston", "boston", ""),
    ("I'm living in Boston these days.", "boston", ""),
    ("I still live in Boston, near the river.", "boston", ""),
    ("we moved to Seattle", "seattle", "moved"),
    ("We've relocated to Seattle.", "seattle", "moved"),
    ("I just moved to Seattle last week!", "seattle", "moved"),
    ("Our new place is in Seattle.", "seattle", ""),
])
def test_where_the_speaker_lives(text: str, value: str, cue: str) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value, d.polarity) == ("alex", "lives_in", value, 1)
    assert "alex" in d.participants
    if cue:
        assert cue in d.cues


def test_description_is_third_person() -> None:
    assert one("I live in Boston").description == "Alex lives in boston"


@pytest.mark.parametrize(("text", "value", "when"), [
    ("I'll pick up the parcel from the post office on Tuesday", "tuesday", "2023-05-09"),
    ("Actually, move the parcel pickup to Thursday", "thursday", "2023-05-11"),
    ("The parcel pickup is now on Friday.", "friday", "2023-05-12"),
    ("Can we move the parcel pickup to Wednesday?", "wednesday", "2023-05-10"),
    ("The parcel pickup got pushed back to next Monday.", "next monday", "2023-05-15"),
])
def test_an_appointment_keeps_one_key_across_phrasings(text: str, value: str, when: str) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value) == ("parcel pickup", "scheduled_for", value)
    assert not d.anchor_fallback
    assert datetime.fromtimestamp(d.anchor_time, UTC).strftime("%Y-%m-%d") == when
    assert "alex" in d.participants or "Alex" not in text


def test_rescheduling_carries_change_cues() -> None:
    d = one("Actually, move the parcel pickup to Thursday")
    assert d.type == "state_change"
    assert {"actually", "rescheduled"} <= set(d.cues)


@pytest.mark.parametrize(("text", "entity"), [
    ("My dentist appointment is on Friday.", "dentist appointment"),
    ("The appointment with the dentist was moved to Friday.", "dentist appointment"),
    ("Let's push the team meeting to Friday.", "team meeting"),
    ("Reschedule my physio session for Friday.", "physio session"),
    ("Change of plans - the dentist appointment is Friday instead of Wednesday.",
     "dentist appointment"),
    ("The book club moved to Friday.", "book club"),
    ("I'm meeting Dana on Friday.", "dana meeting"),
    ("I booked the haircut for Friday.", "haircut"),
    ("I've put your eye exam in the calendar for Friday.", "eye exam"),
    ("Friday is the car service, don't let me forget.", "car service"),
    ("Can you remind me about my dentist appointment? It's on Friday.", "dentist appointment"),
    ("I can't make the vet visit on Monday, so I changed it to Friday.", "vet visit"),
])
def test_events_are_named_by_their_noun_phrase(text: str, entity: str) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value) == (entity, "scheduled_for", "friday")


@pytest.mark.parametrize(("text", "thing", "place"), [
    ("the red mug is on the kitchen table", "red mug", "kitchen table"),
    ("The red mug is now in the sink.", "red mug", "sink"),
    ("I put the red mug in the cupboard.", "red mug", "cupboard"),
    ("I moved the red mug to the dining table.", "red mug", "dining table"),
    ("My keys are in the hallway drawer.", "keys", "hallway drawer"),
    ("I saw the red mug on the window sill.", "red mug", "window sill"),
])
def test_where_a_thing_is_from_dialogue(text: str, thing: str, place: str) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value, d.polarity) == (thing, "located_at", place, 1)
    assert thing in d.participants


@pytest.mark.parametrize(("label", "text", "payload"), [
    ("red mug", "red mug on the kitchen counter", None),
    ("red mug", "a red mug on top of the kitchen counter", None),
    ("", "Detected a red mug on the kitchen counter", None),
    ("red mug", "", {"location": "kitchen counter"}),
])
def test_perception_places_the_labelled_thing(label: str, text: str,
                                              payload: dict[str, Any] | None) -> None:
    d = one(text, modality="perception", label=label, payload=payload, speaker="robot")
    assert (d.entity, d.relation, d.value) == ("red mug", "located_at", "kitchen counter")
    assert d.type == "observation" and d.participants == ("red mug",)
    assert d.description == "the red mug is at the kitchen counter"


def test_perception_of_a_state() -> None:
    d = one("door open", modality="perception", label="door", speaker="robot")
    assert (d.entity, d.relation, d.value) == ("door", "status", "open")


def test_perception_without_place_is_still_an_observation() -> None:
    drafts = extract("", modality="perception", label="red mug", speaker="robot")
    assert len(drafts) == 1 and drafts[0].key is None
    assert drafts[0].type == "observation" and drafts[0].participants == ("red mug",)


@pytest.mark.parametrize("text", [
    "I no longer work at Acme.",
    "I don't work at Acme anymore.",
    "I'm not working at Acme any more.",
    "I quit my job at Acme.",
])
def test_denials_have_polarity_zero(text: str) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value, d.polarity) == ("alex", "works_at", "acme", 0)
    assert d.description == "Alex does not work at acme"


@pytest.mark.parametrize(("text", "value"), [
    ("I work at Acme.", "acme"),
    ("I got a new job at Acme yesterday.", "acme"),
    ("I've started a new job at Acme.", "acme"),
    ("I started working at Acme last month.", "acme"),
    ("I'm now working for Acme.", "acme"),
])
def test_where_the_speaker_works(text: str, value: str) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value, d.polarity) == ("alex", "works_at", value, 1)


def test_switching_a_preference() -> None:
    d = one("I switched to oat milk in my coffee")
    assert (d.type, d.entity, d.relation, d.value) == ("preference", "alex", "prefers:coffee",
                                                       "oat milk")
    assert "switched" in d.cues


@pytest.mark.parametrize(("text", "value", "polarity"), [
    ("I prefer tea these days.", "tea", 1),
    ("My favourite drink is now green tea.", "green tea", 1),
    ("I don't drink coffee anymore.", "coffee", 0),
])
def test_exclusive_preferences_share_a_category(text: str, value: str, polarity: int) -> None:
    d = one(text)
    assert (d.relation, d.value, d.polarity) == ("prefers:drink", value, polarity)


def test_plain_liking_is_keyed_per_item() -> None:
    a, b = one("I love hiking."), one("I really enjoy painting")
    assert a.relation == "prefers:hiking" and b.relation == "prefers:painting"
    assert one("I don't like hiking anymore.").polarity == 0


@pytest.mark.parametrize("text", ["You live in Portland.", "You told me you live in Portland."])
def test_second_person_is_the_addressee(text: str) -> None:
    d = one(text)
    assert (d.entity, d.value) == ("sam", "portland")
    assert keyed(text, ExtractContext(session_time=SESSION)) == []


def test_named_and_related_people() -> None:
    assert one("My sister lives in Chicago.").entity == "alex's sister"
    assert one("Sam works at the library.").entity == "sam"
    d = one("I talked to Maria. She moved to Denver.")
    assert (d.entity, d.relation, d.value) == ("maria", "lives_in", "denver")
    assert keyed("She moved to Denver.") == []  # nobody to resolve "she" to


@pytest.mark.parametrize(("text", "relation", "value"), [
    ("I have a dog named Max.", "owns:dog", "dog"),
    ("I sold my car last week.", "owns:car", "car"),
    ("I'm a software engineer.", "occupation", "software engineer"),
    ("The oven is broken.", "status", "broken"),
    ("I fixed the dishwasher yesterday.", "status", "fixed"),
    ("I'm married to John.", "relationship", "married to john"),
    ("I'm planning to visit Paris next summer.", "plans:visit", "visit paris"),
])
def test_other_relations(text: str, relation: str, value: str) -> None:
    assert (relation, value) in {(d.relation, d.value) for d in keyed(text)}


@pytest.mark.parametrize(("text", "cue"), [
    ("I moved to Denver because I got a job there.", "because"),
    ("I got a job in Denver, so I moved to Denver.", "so"),
    ("The rain stopped me from going out, so I stayed in.", "prevents"),
    ("I live in Denver now.", "now"),
    ("I live in Denver instead.", "instead"),
    ("I changed my mind and I live in Denver.", "changed"),
])
def test_cues_for_the_linker(text: str, cue: str) -> None:
    drafts = extract(text)
    assert drafts and all(cue in d.cues for d in drafts)


def test_causal_side_is_marked() -> None:
    d = one("I moved to Denver because my wife got a job there.")
    assert {"because", "effect"} <= set(d.cues)


def test_anchor_per_message_time_and_fallback() -> None:
    early = datetime(2023, 5, 3, 10, tzinfo=UTC).timestamp()
    late = datetime(2023, 7, 3, 10, tzinfo=UTC).timestamp()
    a = one("I moved to Seattle yesterday", when=early)
    b = one("I moved to Seattle yesterday", when=late)
    assert a.anchor_time == early - 86400 and b.anchor_time == late - 86400
    assert not a.anchor_fallback and a.anchor_text == "yesterday"
    c = one("I moved to Seattle", when=late)
    assert c.anchor_fallback and c.anchor_time == SESSION and c.anchor_text == ""
    d = one("I moved to Seattle", ExtractContext(addressee="Sam"), when=late)
    assert d.anchor_fallback and d.anchor_time == late


def test_anchor_comes_from_the_facts_own_sentence() -> None:
    drafts = keyed("I lived in Boston two years ago. Now I live in Seattle.")
    by_value = {d.value: d for d in drafts}
    assert not by_value["boston"].anchor_fallback
    assert by_value["seattle"].anchor_fallback and "now" in by_value["seattle"].cues


def test_statements_without_a_key_still_become_facts() -> None:
    drafts = extract("I went to a concert with my sister two days ago. It was loud!")
    assert len(drafts) == 1
    d = drafts[0]
    assert d.key is None and d.type == "action" and "alex" in d.participants
    assert d.description.startswith("Alex went to a concert with Alex's sister")
    assert not d.anchor_fallback


@pytest.mark.parametrize("text", ["Where do you live?", "Thanks, Sam!", "Haha, yeah.", ""])
def test_questions_and_chatter_assert_nothing(text: str) -> None:
    assert extract(text) == []


def test_plans_and_types() -> None:
    assert extract("I'm going to start pottery classes next month.")[0].type == "plan"
    assert extract("I quit smoking and started running every morning.")[0].type == \
        "state_change"


def test_remarks_about_no_one_are_not_facts() -> None:
    assert extract("Nature sure is beautiful this time of year.") == []
    assert extract("Striving for progress is crucial for everyone.") == []


@pytest.mark.slow
def test_locomo_extraction_figures(tmp_path: Any) -> None:
    """Prints the extractor's figures over all LoCoMo sources (speed is reported,
    never asserted): facts per type, keyed share, anchors resolved vs fallback."""
    import collections
    import time
    from pathlib import Path

    from trace_ros.capture import ingest
    from trace_ros.config import CaptureConfig
    from trace_ros.formats import locomo_events, read_locomo
    from trace_ros.ledger import Ledger, Scope

    path = Path("/work/shared/data/locomo10.json")
    if not path.exists():
        pytest.skip("LoCoMo data not present")
    data = read_locomo(path)
    ledger = Ledger(Path(tmp_path) / "m.db")
    ingest(ledger, (e for s in data for e in locomo_events(s)), CaptureConfig())
    jobs: list[tuple[SourceRecord, ExtractContext]] = []
    for sample in data:
        sources = ledger.sources_in_scope(Scope(str(sample["sample_id"]), "", ""))
        people = frozenset(s.speaker for s in sources)
        starts: dict[str, float] = {}
        for s in sources:
            starts.setdefault(s.session_id, s.source_time)
            others = sorted(people - {s.speaker})
            jobs.append((s, ExtractContext(others[0] if len(others) == 1 else "",
                                           starts[s.session_id], people)))
    ledger.close()
    ex = CpuExtractor()
    t0, c0 = time.perf_counter(), time.process_time()
    out = [ex.extract(s, c) for s, c in jobs]
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    facts = [d for o in out for d in o]
    keyed_n = sum(1 for d in facts if d.key)
    resolved = sum(1 for d in facts if not d.anchor_fallback)
    print(f"\nsources {len(jobs)}  facts {len(facts)}  {elapsed:.2f} s "
          f"({1000 * elapsed / len(jobs):.3f} ms/source wall, "
          f"{1000 * cpu / len(jobs):.3f} ms/source CPU)")
    print("facts by type", dict(collections.Counter(d.type for d in facts)))
    print(f"keyed {keyed_n} ({100 * keyed_n / len(facts):.1f} %)  by relation",
          dict(collections.Counter(d.relation.split(":")[0] for d in facts if d.key)))
    print(f"anchors resolved {resolved} ({100 * resolved / len(facts):.1f} %)  "
          f"fallback {len(facts) - resolved}")
    assert len(jobs) == 7108 and facts


@pytest.mark.parametrize(("text", "entity", "value"), [
    ("We're renting a small apartment in Lisbon.", "alex", "lisbon"),
    ("Our cottage in Galway needs painting.", "alex", "galway"),
    ("The new house in Leeds has a garden.", "alex", "leeds"),
    ("Home for me is Porto these days.", "alex", "porto"),
    ("Your home address is in Cork.", "sam", "cork"),
    ("We finally settled into Bristol.", "alex", "bristol"),
])
def test_homes_stated_indirectly(text: str, entity: str, value: str) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value, d.polarity) == (entity, "lives_in", value, 1)


@pytest.mark.parametrize(("text", "value", "polarity"), [
    ("My job at Initech is going well.", "initech", 1),
    ("I lost my job at Initech this month.", "initech", 0),
    ("I gave my notice at Initech today.", "initech", 0),
    ("My first day at Initech was fun.", "initech", 1),
    ("I've been with Acme Widgets for ten years.", "acme widgets", 1),
])
def test_jobs_stated_indirectly(text: str, value: str, polarity: int) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value, d.polarity) == ("alex", "works_at", value, polarity)


@pytest.mark.parametrize(("text", "relation", "value", "polarity"), [
    ("Honestly, espresso is my favourite now.", "prefers:drink", "espresso", 1),
    ("Blues is my favorite music.", "prefers:music", "blues", 1),
    ("Nothing beats cold lemonade for me.", "prefers:drink", "cold lemonade", 1),
    ("These days I'd rather drink water.", "prefers:drink", "water", 1),
    ("I've gone off sushi.", "prefers:food", "sushi", 0),
    ("I used to love jazz.", "prefers:music", "jazz", 0),
    ("I can't get enough of ramen lately.", "prefers:food", "ramen", 1),
    ("I really enjoy knitting.", "prefers:knitting", "knitting", 1),  # no known kind
    ("Please stop offering me mocha.", "prefers:drink", "mocha", 0),
])
def test_preferences_stated_indirectly(text: str, relation: str, value: str,
                                       polarity: int) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value, d.polarity) == ("alex", relation, value, polarity)


@pytest.mark.parametrize("text", [
    "If I lived in Boston I would be happier.",
    "I wish I worked at Acme.",
    "Maybe the keys are in the car.",
])
def test_hypotheticals_set_no_key(text: str) -> None:
    assert keyed(text) == []


@pytest.mark.parametrize(("text", "thing", "place"), [
    ("In the top drawer, that's where the scissors are.", "scissors", "top drawer"),
    ("I carried the laundry basket over to the bedroom.", "laundry basket", "bedroom"),
    ("I found the remote under the sofa.", "remote", "sofa"),
])
def test_places_stated_indirectly(text: str, thing: str, place: str) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value) == (thing, "located_at", place)


def test_correction_in_note_style() -> None:
    d = one("Correction: team meeting on Friday, not Monday.")
    assert (d.entity, d.relation, d.value) == ("team meeting", "scheduled_for", "friday")
    assert "correction" in d.cues and d.type == "state_change"


def test_coordinated_clauses_each_get_their_fact_and_anchor() -> None:
    drafts = keyed("I lived in Boston until last year and moved to Seattle last month.")
    by_value = {d.value: d for d in drafts}
    assert by_value["boston"].anchor_text == "last year"
    assert by_value["seattle"].anchor_text == "last month"
    assert "moved" in by_value["seattle"].cues and "moved" not in by_value["boston"].cues
    both = keyed("I love hiking and I hate running.")
    assert {(d.relation, d.polarity) for d in both} == {("prefers:hiking", 1),
                                                         ("prefers:running", 0)}


def test_it_refers_to_a_thing_named_earlier_in_the_message() -> None:
    d = one("They called about my eye exam. It's now on Thursday.")
    assert (d.entity, d.value) == ("eye exam", "thursday")
    assert keyed("Actually, it's Thursday.") == []  # nothing named before: no key


@pytest.mark.parametrize("text", ["Actually, it's Thursday, not Tuesday.", "No, Thursday.",
                                  "Sorry, it's on Thursday.", "Wait, it's Thursday."])
def test_bare_corrections_use_the_sessions_recent_keys(text: str) -> None:
    recent = (("red mug", "located_at"), ("eye exam", "scheduled_for"), ("mug", "located_at"))
    ctx = ExtractContext(addressee="Sam", session_time=SESSION, people=CTX.people,
                         recent=recent)
    d = one(text, ctx)
    assert (d.entity, d.relation, d.value) == ("eye exam", "scheduled_for", "thursday")
    assert d.type == "state_change" and {"correction", "actually"} & set(d.cues)
    assert keyed(text) == []  # without the session's recent keys: nothing to key on


# -- corrections, implied changes, the robot's own turns (sentences of our own) ----------


def _ctx(recent: tuple[tuple[str, str], ...] = (), times: tuple[float | None, ...] = (),
         addressee: str = "Sam") -> ExtractContext:
    return ExtractContext(addressee=addressee, session_time=SESSION, people=CTX.people,
                          recent=recent, recent_times=times)


def _day(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%a %Y-%m-%d")


@pytest.mark.parametrize("text", ["Sorry, I meant Friday.", "Scratch that, Friday.",
                                  "Strike that: Friday.", "I meant Friday, not Tuesday."])
def test_repairs_key_on_what_was_just_discussed(text: str) -> None:
    tuesday = datetime(2023, 5, 16, 12, tzinfo=UTC).timestamp()
    d = one(text, _ctx((("quiz night", "scheduled_for"),), (tuesday,)))
    assert (d.entity, d.value) == ("quiz night", "friday") and "correction" in d.cues
    assert _day(d.anchor_time) == "Fri 2023-05-19"  # the Friday of that week, not the next one


def test_a_corrected_weekday_is_the_one_nearest_the_corrected_day() -> None:
    thursday = datetime(2023, 5, 18, 12, tzinfo=UTC).timestamp()
    d = one("Hmm, my mistake. The haircut is Monday.", _ctx((("haircut", "scheduled_for"),),
                                                           (thursday,)))
    assert "correction" in d.cues and _day(d.anchor_time) == "Mon 2023-05-15"


def test_not_the_old_day_picks_the_event_it_corrects() -> None:
    sat = datetime(2023, 5, 13, 12, tzinfo=UTC).timestamp()
    mon = datetime(2023, 5, 15, 12, tzinfo=UTC).timestamp()
    ctx = _ctx((("yoga class", "scheduled_for"), ("school fair", "scheduled_for")), (sat, mon))
    assert one("Actually, it's Sunday, not Saturday.", ctx).entity == "yoga class"
    assert one("No, Wednesday.", ctx).entity == "school fair"  # else the latest one


def test_a_repair_cue_in_another_sentence_of_the_message_counts() -> None:
    d = one("Hold on, I misread the invitation. The recital is on Saturday the 20th.")
    assert (d.entity, d.relation) == ("recital", "scheduled_for") and "correction" in d.cues
    assert _day(d.anchor_time) == "Sat 2023-05-20"  # the date, not the next Saturday


def test_an_imperative_opener_is_no_participant() -> None:
    d = one("Scratch that, the blender is in the pantry.")
    assert (d.entity, d.value) == ("blender", "pantry") and "scratch" not in d.participants


@pytest.mark.parametrize(("text", "relation", "value", "polarity"), [
    ("We're still unpacking crates here in Galway.", "lives_in", "galway", 1),
    ("At last we said goodbye to Leeds and we are settling into York.", "lives_in", "york", 1),
    ("After a decade at Initech I moved over to Globex.", "works_at", "globex", 1),
    ("I began a new job at Vandelay Industries on Tuesday.", "works_at", "vandelay industries", 1),
    ("My first month with Acme Widgets has been intense.", "works_at", "acme widgets", 1),
    ("I started at Hooli last spring.", "works_at", "hooli", 1),
    ("Hooli offered me a role I could not refuse.", "works_at", "hooli", 1),
    ("I accepted a job offer from Hooli.", "works_at", "hooli", 1),
    ("Two years at the post office, then I switched to the town museum.", "works_at",
     "town museum", 1),
    ("I switched from tea to cocoa in the evenings.", "prefers:drink", "cocoa", 1),
])
def test_implied_changes_of_home_and_job(text: str, relation: str, value: str,
                                         polarity: int) -> None:
    d = one(text)
    assert (d.entity, d.relation, d.value, d.polarity) == ("alex", relation, value, polarity)


@pytest.mark.parametrize("text", ["Globex is understaffed again, what a week.",
                                  "Hooli offered me a job.", "I switched to Verizon.",
                                  "I switched to the night bus."])
def test_no_key_without_a_stated_relation(text: str) -> None:
    assert [d for d in keyed(text) if d.relation.startswith(("works_at", "prefers"))] == []


def test_questions_that_still_assert() -> None:
    belief = one("I thought the recital was on 9 June?")
    assert (belief.entity, belief.value) == ("recital", "9 june")
    assert _day(belief.anchor_time) == "Fri 2023-06-09"  # ahead, despite "was"
    given = one("Since you relocated to Leeds, should I change the weather city?",
                speaker="robot", ctx=_ctx(addressee="Alex"))
    assert (given.entity, given.relation, given.value) == ("alex", "lives_in", "leeds")
    assert keyed("Did you move to Leeds?") == []


def test_a_note_naming_the_date_for_an_event() -> None:
    d = one("My diary says Tuesday the 16th for the recital.")
    assert (d.entity, d.relation) == ("recital", "scheduled_for")
    assert _day(d.anchor_time) == "Tue 2023-05-16"


def test_robot_turns_address_the_person() -> None:
    ctx = _ctx(addressee="Alex")
    d = one("Your eye exam is on Friday.", ctx, speaker="robot")
    assert "alex" in d.participants
    assert one("You prefer rooibos tea now.", ctx, speaker="robot").entity == "alex"


def test_a_relayed_message_keys_on_the_appointment() -> None:
    d = one("The surgery phoned: your flu shot is now on March 3.", speaker="robot",
            ctx=_ctx(addressee="Alex"))
    assert (d.entity, d.relation, d.value) == ("flu shot", "scheduled_for", "march 3")


def test_routines_set_by_instruction_share_a_key() -> None:
    first = one("Please water the orchid plant every Tuesday.")
    later = one("Change of plan: water the orchid on Sundays now.")
    assert first.key == later.key == ("orchid", "scheduled_for")
    assert later.value == "sundays" and later.type == "state_change" and "now" in later.cues


def test_seeing_a_professional_is_their_appointment() -> None:
    a = one("I'm seeing the doctor on Wednesday.")
    b = one("My doctor appointment is on Thursday.")
    assert a.key == b.key == ("doctor appointment", "scheduled_for")


def test_a_tag_question_negates_nothing() -> None:
    """"…, don't you." asks for agreement: the liking it closes is stated, not denied;
    a plain "don't" still denies."""
    said = keyed("You really do like writing about sadness and loss don't you.")
    assert [(d.relation, d.polarity) for d in said] == [("prefers:writing", 1)]
    assert [d.polarity for d in keyed("I don't like hiking.")] == [0]


def test_a_state_marked_new_or_a_value_in_few_words_is_a_vertex() -> None:
    """A statement with no person in it is still about something when it marks its
    state as new, and a short one when it gives a time or a figure: each yields a fact
    (so a later change has something to update); a remark about nothing does not."""
    assert extract("Right, the spare front door key lives in the blue tin on the fridge now.")
    assert extract("Back on the 12th.")
    assert extract("Ours is Flat 9.")
    assert not extract("Proper jumper day.")
    assert not extract("Nature sure is beautiful.")
