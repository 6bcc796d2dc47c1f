"""The extractive reader: spans, not sentences; one stemmer with FTS5; the resolver's value."""

from __future__ import annotations

import calendar
import dataclasses
import sqlite3

import pytest

from trace_ros.capture import ingest
from trace_ros.config import CaptureConfig, ReaderConfig
from trace_ros.formats import Event
from trace_ros.language.text import stem
from trace_ros.ledger import Ledger, Scope, SourceRecord
from trace_ros.query.pack import EvidenceItem, Pack, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader, UnavailableReader, make_reader
from trace_ros.query.recall import lexical
from trace_ros.query.spans import scored_run
from trace_ros.state import Resolution

DAY = 86400.0
MAY_8_2023 = float(calendar.timegm((2023, 5, 8, 13, 0, 0, 0, 0, 0)))


def rec(i: int, text: str, when: float = MAY_8_2023, speaker: str = "Ann") -> SourceRecord:
    return SourceRecord(i, f"src-{i}", "ann", "", "s1", "dialogue", speaker, text, "", None, None,
                        {}, when, False, when, "h")


def read(question: str, *texts: str | tuple[str, float]) -> tuple[str, list[str]]:
    records = [rec(i, *(t if isinstance(t, tuple) else (t,))) for i, t in enumerate(texts, 1)]
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 2000, 20)
    out = ExtractiveReader().read(question, plan_question(question, MAY_8_2023), p)
    return out.answer, out.cited_ids


def test_reader_stems_as_fts5_does() -> None:
    words = ["study", "studied", "studies", "ecology", "psychology", "dying", "lying", "is", "was",
             "news", "generously", "agreed", "hopping", "relational", "bubbly", "incredibly"]
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", list(enumerate(words, 1)))
    fts = {words[doc - 1]: term for doc, term in db.execute("SELECT doc, term FROM v")}
    assert {w: stem(w) for w in words} == fts
    assert stem("study") == stem("studied")


def test_study_question_answers_from_studied_end_to_end(ledger: Ledger) -> None:
    scope = Scope("ann", "r1", "s1")
    ingest(ledger, [Event("dialogue", scope, "I studied biology at the university.", "Ann",
                          stamp=MAY_8_2023),
                    Event("dialogue", scope, "The weather is nice.", "Ann", stamp=MAY_8_2023)],
           CaptureConfig())
    hits = lexical(ledger, scope, "What does she study?", 10)
    records = ledger.get_sources([h.source_id for h in hits])
    assert [r.text for r in records] == ["I studied biology at the university."]
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 500, 10)
    out = ExtractiveReader().read("What does she study?", plan_question("What does she study?"), p)
    assert "biology" in out.answer and out.cited_ids == [records[0].source_id]
    assert "university" in out.answer and "studied" not in out.answer  # a span, not the sentence


def test_temporal_lookup_resolves_the_relative_anchor_against_the_record_time() -> None:
    answer, cited = read("When did Ann go to the support group?",
                         "I went to a support group yesterday and it was great.",
                         "The dog barked all night.")
    assert answer == "7 May 2023" and cited == ["src-1"]
    answer, _ = read("When did Ann run the race?", "I ran a charity race last week.")
    assert answer == "the week before 8 May 2023"
    answer, _ = read("When did Ann start painting?", "I started painting in 2016 as a hobby.")
    assert answer == "2016"
    answer, _ = read("When did Ann adopt the cat?", "We adopted the cat!")
    assert answer == "8 May 2023"  # no anchor: the record's own day


@pytest.mark.parametrize(
    ("question", "text", "expected"),
    [
        ("Where did Ann move from?", "I moved from Sweden four years ago.", "Sweden"),
        ("What workshop did Ann attend?", "I went to an LGBTQ+ counseling workshop and loved it.",
         "LGBTQ+ counseling workshop"),
        ("What did Ann research?", "Researching adoption agencies, it has been a dream.",
         "adoption agencies"),
        ("Who gave Ann the necklace?", "My grandma Rosa gave me this necklace.", "Rosa"),
        ("Why did Ann choose the agency?", "I chose them because they help families like mine.",
         "help families like mine"),
        ("How long has Ann been painting?", "I have been painting for seven years now.",
         "seven years"),
    ],
)
def test_answers_are_spans(question: str, text: str, expected: str) -> None:
    answer, cited = read(question, text, "Unrelated chatter about the weather.")
    assert answer == expected and cited == ["src-1"]


def test_yes_no_and_hypothetical_questions() -> None:
    assert read("Does Ann like hiking?", "I like hiking in the hills.")[0] == "Yes"
    assert read("Does Ann like hiking?", "I do not like hiking at all.")[0] == "No"
    assert read("Would Ann enjoy a hiking trip?", "I love hiking trips.")[0] == "Likely yes"


def test_lists_and_counts_use_the_deduplicated_set() -> None:
    texts = ["I adopted a cat named Luna.", "We adopted a dog named Max.",
             "I adopted a cat named Luna!", "The weather is nice."]
    answer, cited = read("What pets has Ann adopted?", *texts)
    parts = answer.split(", ")
    assert sorted(parts) == ["Luna", "Max"] or len(parts) == 2
    assert len(cited) == 2  # the repeated mention is one member of the set
    count, _ = read("How many pets has Ann adopted?", *texts)
    assert count == "two"  # a count below ten is written as a word
    assert read("How many cats does Ann have?", "I have three cats.")[0] == "three cats"


def test_current_state_reads_the_newest_revision_and_history_the_older() -> None:
    texts = [("The parcel pickup is on Monday.", MAY_8_2023),
             ("The parcel pickup moved to Tuesday.", MAY_8_2023 + DAY)]
    # (Asked "Where is …?" before: neither record states a place, so the reader now
    # abstains on that; "When" asks what the records state.)
    answer, cited = read("When is the parcel pickup?", *texts)
    assert cited == ["src-2"]
    answer, cited = read("What was the parcel pickup before?", *texts)
    assert cited == ["src-1", "src-2"] and answer.startswith("8 May 2023")


def _fact(value: str, source: str, when: float):
    from trace_ros.facts import Fact

    return Fact(f"f-{source}", "ann", "", "s1", "state_change", (), "parcel pickup",
                "scheduled_for", value, 1, value, when, "", True, when, None, when, None,
                "active", 1.0, 1, 0, "rules", (source,))


def test_resolution_gives_the_current_value_or_the_superseded_one() -> None:
    records = [rec(1, "Pickup is Monday."), rec(2, "Pickup moved to Tuesday.", MAY_8_2023 + DAY)]
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 500, 10)
    res = Resolution("answer", "parcel pickup", "scheduled_for", "tuesday",
                     facts=[_fact("tuesday", "src-2", MAY_8_2023 + DAY)],
                     superseded=[_fact("monday", "src-1", MAY_8_2023)], source_ids=["src-2"])
    reader = ExtractiveReader()
    q = "When is my parcel pickup?"
    out = reader.read(q, plan_question(q), p, resolution=res)
    assert (out.answer, out.cited_ids) == ("tuesday", ["src-2"])
    q = "When was it before?"
    out = reader.read(q, plan_question(q), p, resolution=res)
    assert (out.answer, out.cited_ids) == ("monday", ["src-1"])
    # A resolution whose sources were not shown cannot be cited: the reader reads the evidence.
    shown_only_1 = Pack(items=[EvidenceItem(records[0], 1.0, {})])
    out = reader.read("When is my parcel pickup?", plan_question("When is my parcel pickup?"),
                      shown_only_1, resolution=res)
    assert out.cited_ids == ["src-1"]
    missing = Resolution("missing", "parcel pickup", "scheduled_for")
    out = reader.read("When is my parcel pickup?", plan_question("When is my parcel pickup?"), p,
                      resolution=missing)
    assert out.cited_ids  # falls back to reading the evidence; answer.py sets the status


def test_abstains_without_matching_evidence() -> None:
    answer, cited = read("What is quantum chromodynamics?", "The dog barked.")
    assert answer == "" and cited == []


def test_unloadable_qwen_says_so_on_every_answer(tmp_path) -> None:
    reader = make_reader(ReaderConfig(kind="qwen", model_path=str(tmp_path / "nowhere")))
    assert isinstance(reader, UnavailableReader)
    p = pack([EvidenceItem(rec(1, "I studied biology."), 1.0, {})], 500, 10)
    for _ in range(2):
        out = reader.read("What does she study?", plan_question("What does she study?"), p)
        assert out.answer == "biology" and "reader.kind qwen unavailable" in out.note


def test_currentness_without_cue_words_and_as_of_views() -> None:
    monday = rec(1, "My parcel pickup is on Monday.", MAY_8_2023)
    moved = rec(2, "The parcel pickup moved from Monday to Tuesday.", MAY_8_2023 + 2 * DAY)
    items = [EvidenceItem(monday, 1.0, {}), EvidenceItem(moved, 0.9, {})]
    reader = ExtractiveReader()
    q = "When is my parcel pickup?"
    out = reader.read(q, plan_question(q), pack(items, 1000, 10))
    assert out.cited_ids == ["src-2"] and "Tuesday" in out.answer
    # As of a time before the change, the later record is not even shown.
    view = pack(items, 1000, 10, as_of_valid=MAY_8_2023 + DAY)
    out = reader.read(q, plan_question(q, MAY_8_2023 + DAY), view)
    assert view.source_ids == ["src-1"] and out.cited_ids == ["src-1"] and "Monday" in out.answer


def test_a_recurring_schedule_is_answered_as_such_and_the_newest_holds() -> None:
    answer, cited = read("When should the basil be watered?",
                         ("Please water the basil plant every Monday.", MAY_8_2023),
                         ("Change of plan: water the basil on Wednesdays now.", MAY_8_2023 + DAY))
    assert (answer, cited) == ("Wednesdays", ["src-2"])


def test_no_calendar_date_from_a_clock_that_was_never_set() -> None:
    """A record time near zero (sim time, an uptime counter) is no date: a relative
    expression is answered as said, never resolved into 1969/1970; absolute ones hold."""
    answer, cited = read("When should the basil be watered now?",
                         ("Please water the basil plant on Monday.", 1000.0),
                         ("Change of plan: water the basil on Wednesday now.", 9000.0))
    assert (answer, cited) == ("Wednesday", ["src-2"])
    assert read("When did Ann start painting?", ("I started painting in May 2016.", 50.0))[0] \
        == "May 2016"
    assert read("When did Ann adopt the cat?", ("We adopted the cat!", 50.0))[0] == ""
    history, _ = read("What was the basil schedule before?",
                      ("The basil schedule is Monday watering.", 1000.0),
                      ("The basil schedule changed to Wednesday watering.", 9000.0))
    assert "19" not in history  # no "1 January 1970: …" prefixes


def test_a_day_named_in_the_record_keeps_its_weekday_in_the_date() -> None:
    for day in ("Monday", "Wednesday", "Saturday"):
        answer, _ = read("When did Ann meet Bo?", f"I met Bo on {day}.")
        assert answer.startswith(day), answer


def test_a_span_never_restates_the_question() -> None:
    """"a list of items" says nothing about the items; a record that only repeats the
    question's words gives no span (the next best record answers, or none)."""
    answer, _ = read("What items does Ann collect?", "Here is a photo of a list of items.")
    assert "list of items" not in answer
    answer, cited = read("What setback did Ann face?", "Setback!",
                         "I got hurt and had to take a break from pottery.")
    assert answer != "Setback" and "setback" not in answer.lower()
    # The best record only restates the question: the next near one answers.
    answer, cited = read("What setback did Ann face?", "Ann faced a setback!",
                         "Ann faced a setback, a knee injury.")
    assert cited == ["src-2"] and "knee injury" in answer


def test_one_sentence_saying_the_question_beats_words_scattered_over_a_long_record() -> None:
    scattered = "The fence needs work. I should paint it someday. Any color is fine with me."
    said = "I painted the fence dark green over the weekend."
    for texts in ((scattered, said), (said, scattered)):
        answer, cited = read("What color did Ann paint the fence?", *texts)
        assert answer == "dark green"
        assert cited == [f"src-{texts.index(said) + 1}"]


def test_span_is_a_phrase_beside_the_question_words_never_them() -> None:
    answer, _ = read("What book is Ann reading?",
                     'I\'m reading "The Quiet Orchard" and it is gripping so far.')
    assert answer == "Quiet Orchard"  # the quoted title, not the rest of the sentence
    answer, _ = read("What did Ann cook for the party?",
                     "The party was on Saturday and everyone came. I cooked a big pot of lentil "
                     "curry for the party.")
    assert answer == "big pot of lentil curry"


def test_scored_run_prefers_the_object_after_a_repeated_word() -> None:
    q = {stem(w) for w in ("ann", "plant", "yard")}
    phrase, score = scored_run("Honestly, this spring I planted tomatoes in the yard.", q)
    assert phrase == "tomatoes" and score > 0
    assert scored_run("I planted the yard.", q) == ("", float("-inf"))  # nothing new said


def test_a_word_before_an_object_pronoun_ending_the_clause_is_a_verb_not_the_thing() -> None:
    """"scratch that — soya": "scratch" takes "that" as its object; the thing is "soya"."""
    q = {stem(w) for w in ("milk", "coffee")}
    assert scored_run("Actually no, scratch that — soya.", q)[0] == "soya"
    assert scored_run("Got a new kettle, love it.", q)[0] == "new kettle"


def test_a_weekday_said_relative_to_the_record_is_stated_against_its_day() -> None:
    # 8 May 2023 is a Monday: "last Friday" is 5 May, said as the speaker said it.
    assert read("When did Ann run the race?", "I ran a charity race last Friday.")[0] \
        == "the Friday before 8 May 2023"
    assert read("When is the dentist appointment?", "My dentist appointment is next Thursday.")[0] \
        == "the Thursday after 8 May 2023"
    assert read("When did Ann run the race?", "I ran a charity race on Friday.")[0] \
        == "Friday 5 May 2023"


def test_a_choice_question_is_answered_with_the_option_the_evidence_says() -> None:
    q = "Does Ann live closer to the beach or the mountains?"
    answer, cited = read(q, "The dog barked all night.",
                         "We walk down to the beach every morning before work.")
    assert (answer, cited) == ("beach", ["src-2"])
    answer, _ = read(q, "We hike up in the mountains most weekends.")
    assert answer == "mountains"
    # Neither option said: no option is made up.
    assert read(q, "We walk the dog every morning.")[0] not in ("beach", "mountains")


def test_seasons_weekends_vague_amounts_and_the_unit_the_question_asks_in() -> None:
    when = "When did Ann go camping?"
    assert read(when, "We went camping last summer.")[0] == "summer 2022"
    assert read(when, "We're going camping this weekend.")[0] == "the weekend of 8 May 2023"
    assert read(when, "We're going camping next weekend.")[0] == "the weekend after 8 May 2023"
    assert read(when, "We went camping a few days ago.")[0] == "a few days before 8 May 2023"
    assert read(when, "We went camping three days ago.")[0] == "5 May 2023"  # exact: a day
    assert read("Which year did Ann go camping?", "We went camping three days ago.")[0] == "2023"
    assert read("In which month did Ann go camping?", "We went camping yesterday.")[0] \
        == "May 2023"


def test_a_rate_is_answered_whole() -> None:
    assert read("How often does Ann swim?", "I swim twice a week at the pool.")[0] \
        == "twice a week"
    assert read("How often does Ann run?", "I run three times a month, rain or shine.")[0] \
        == "three times a month"


def test_how_and_why_questions_prefer_the_fuller_clause() -> None:
    q = {stem(w) for w in ("ann", "cope", "exam")}
    text = "To cope I drink hot green tea; before each exam I take long slow walks along the river."
    assert scored_run(text, q)[0] == "drink hot green tea"
    answer, _ = read("How does Ann cope before an exam?", text)
    assert answer == "take long slow walks along the river"


def test_a_when_question_reads_the_record_that_states_a_time() -> None:
    answer, cited = read("When did Ann adopt the grey cat?",
                         "We adopted the grey cat from the shelter, she is adorable.",
                         "It was last Friday that I adopted her.", "The weather is nice.")
    assert (answer, cited) == ("the Friday before 8 May 2023", ["src-2"])


def test_a_how_long_question_reads_the_near_record_that_states_a_span_of_time() -> None:
    answer, cited = read("How long has Ann been painting landscapes?",
                         "Painting landscapes is my favourite thing, I paint landscapes every "
                         "chance I get.",
                         "I've been painting for seven years now.", "The weather is nice.")
    assert (answer, cited) == ("seven years", ["src-2"])


def test_a_quoted_title_beats_the_word_after_the_verb() -> None:
    q = {stem(w) for w in ("ann", "finish", "book")}
    text = 'I finished a long book on the train, "Northern Lights", and loved the ending.'
    assert scored_run(text, q)[0] == "Northern Lights"


def test_a_reply_that_repeats_the_question_words_gains_both_matches() -> None:
    """Bob asks what the question asks; Ann's reply also names the garden: it answers,
    not a later record that only repeats the question's words."""
    texts = [(9, "Bob", "Tulips get planted in the garden every spring."),
             (1, "Bob", "Your garden looks lovely! What did you plant there?"),
             (2, "Ann", "The garden is full of sunflowers now.")]
    records = [SourceRecord(seq, f"src-{seq}", "ann", "", "s1", "dialogue", who, text, "", None,
                            None, {}, MAY_8_2023, False, MAY_8_2023, "h")
               for seq, who, text in texts]  # recall put the later record first
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 2000, 20)
    q = "What did Ann plant in the garden?"
    plan = plan_question(q, MAY_8_2023)
    out = ExtractiveReader().read(q, plan, p)
    assert out.cited_ids == ["src-2"] and "sunflowers" in out.answer
    # Without the reply's own match the two tie and recall order picks the other one.
    assert ExtractiveReader(reply_own=0.0).read(q, plan, p).cited_ids == ["src-9"]
    # Bob telling his own ("I plant tulips in my garden") is no answer for Ann, tie or not.
    records[0] = dataclasses.replace(records[0], text="I plant tulips in my garden every spring.")
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 2000, 20)
    assert ExtractiveReader(reply_own=0.0).read(q, plan, p).cited_ids == ["src-2"]


def test_something_going_on_for_a_span_began_that_span_before_the_record() -> None:
    when = "When did Ann start learning the cello?"
    assert read(when, "I've been learning the cello for about three months now.")[0] \
        == "February 2023"
    assert read(when, "I have been learning the cello for two years, slowly.")[0] == "2021"
    assert read("Which month did Ann start learning the cello?",
                "I've been learning the cello for two years.")[0] == "May 2021"
    # A trip that lasted two weeks did not begin two weeks before it was told.
    assert read("When did Ann go to Oslo?", "I went to Oslo for two weeks, it was lovely.")[0] \
        == "8 May 2023"


def test_a_plural_copula_asks_for_every_member_not_the_newest_revision() -> None:
    texts = (("The name of my first cat is Miso.", MAY_8_2023 - 30 * DAY),
             "Our second cat got the name Pepper.")
    answer, cited = read("What are the names of Ann's cats?", *texts)
    assert sorted(cited) == ["src-1", "src-2"] and "Miso" in answer and "Pepper" in answer
    # One value asked in the present: the newest revision.
    assert read("What is the name of Ann's cat?", *texts) == ("Pepper", ["src-2"])


def test_how_long_without_a_stated_span_is_the_time_between_the_two_dated_events() -> None:
    answer, cited = read("How long did it take Ann to build the boat?",
                         ("I started building the boat in my garage today.", MAY_8_2023 - 90 * DAY),
                         "Finally finished building the boat yesterday!", "The weather is nice.")
    assert (answer, sorted(cited)) == ("three months", ["src-1", "src-2"])
    # In the unit the question asks; "last Friday" is the day the second event happened.
    answer, _ = read("How many weeks passed between Ann adopting Rex and adopting Bella?",
                     ("We adopted a puppy called Rex today.", MAY_8_2023 - 21 * DAY),
                     "Adopting Bella last Friday was the best decision.")
    assert answer == "three weeks"
    # One dated event only: no span is made up from it.
    answer, _ = read("How long did it take Ann to build the boat?",
                     "Finally finished building the boat yesterday!")
    assert "month" not in answer and "week" not in answer


def test_a_month_named_without_a_year_is_the_latest_one_the_evidence_reaches() -> None:
    july_2021 = float(calendar.timegm((2021, 7, 14, 12, 0, 0, 0, 0, 0)))
    texts = (("I baked sourdough bread for the neighbours.", MAY_8_2023 - 40 * DAY),
             ("I baked a lemon tart for the neighbours.", july_2021))
    # "in July" asked in May 2023 is July 2022, which no record reaches: July 2021 is meant.
    answer, cited = read("What did Ann bake in July?", *texts)
    assert cited == ["src-2"] and "lemon tart" in answer
    # A year named is kept: nothing is said in July 2022, so no record is preferred for it.
    assert read("What did Ann bake in July 2022?", *texts)[1] == ["src-1"]
