"""An answer, not a fragment: the value the question asks for, or an honest abstention.

The extractive reader reads the kind of value a question asks for from its wh-phrase
(``spans.asked``): a clock time for "what time", a stated day for "what day", a sum for
"how much … cost", a rate for "how often", digits for "what's the number", a name tied to
the thing for "what's X called", a phrase that tells one X from others for "which X".
A record that talks about the topic but states no such value does not answer; when no
shown record does, the reader abstains. A robot's turn that echoes what a person just
said is not the source: the person's own statement is cited first.
"""

from __future__ import annotations

import calendar
import dataclasses

import pytest

from trace_ros.language.revision import other_kind
from trace_ros.language.timeanchor import ordinal_value
from trace_ros.ledger import SourceRecord
from trace_ros.query.amounts import _plural_number, settled
from trace_ros.query.owners import speakers_own
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import (
    Asked,
    asked,
    bare_figure,
    capitalised_mid_sentence,
    clock_time,
    day_part,
    frequency,
    ident,
    labelled,
    money,
    names_in,
    quantities,
)

DAY = 86400.0
# Monday 3 March 2025, 10:00 UTC.
T0 = float(calendar.timegm((2025, 3, 3, 10, 0, 0, 0, 0, 0)))


def rec(seq: int, text: str, when: float = T0, speaker: str = "Noor",
        session: str = "s1") -> SourceRecord:
    return SourceRecord(seq, f"src-{seq}", "noor", "r1", session, "dialogue", speaker, text, "",
                        None, None, {}, when, False, when, "h")


def read(question: str, *records: SourceRecord) -> tuple[str, list[str]]:
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY), p)
    return out.answer, out.cited_ids


def turns(*texts: str | tuple[str, str], start: float = T0, session: str = "s1",
          first_seq: int = 1) -> list[SourceRecord]:
    """Consecutive turns of one session, two minutes apart (speaker "Noor" unless given)."""
    out = []
    for k, t in enumerate(texts):
        speaker, text = t if isinstance(t, tuple) else ("Noor", t)
        out.append(rec(first_seq + k, text, start + 120 * k, speaker, session))
    return out


@pytest.mark.parametrize(("question", "kind", "focus"), [
    ("What time does the choir practice start?", "clock", "time"),
    ("What day is the bin collection?", "day", "day"),
    ("Which night is the pub quiz?", "day", "night"),
    ("What's the exact date of the gala?", "date", "date"),
    ("When does Grandad take his heart pill?", "when", ""),
    ("How often does Sam water the ferns?", "frequency", ""),
    ("How much does the pottery course cost?", "money", ""),
    ("How many guests are coming to the barbecue?", "count", "guests"),
    ("How many children can come to rhyme time?", "count", "children"),
    ("How many cubic metres of concrete are coming?", "count", "metres"),
    ("What's the name of Leo's piano teacher?", "name", "teacher"),
    ("What's the puppy called?", "name", "puppy"),
    ("Who is the head teacher at Ivy's school?", "person", "teacher"),
    ("Where does Omar keep the ladder?", "place", ""),
    ("What's my locker code?", "ident", "code"),
    ("What's her landline number?", "ident", "number"),
    ("Which cupboard are the candles in?", "which", "cupboard"),
    ("What dose is Mum's inhaler?", "quantity", "dose"),
    # A kind of thing: the noun after "of" is what it is a kind of.
    ("What style of yoga is Maria trying now?", "what", "yoga"),
    ("What breed of dog does Ada have now?", "what", "dog"),
    ("Which genre of music does Ken play now?", "which", "music"),
    ("What is Jon's favourite style of dance?", "what", "style"),
    # A time clause after the thing ends its phrase.
    ("What was the gate code just before the break-in?", "ident", "code"),
    ("What's Jo doing these days?", "", ""),
    ("Which year did Ann go camping?", "", ""),
])
def test_the_wh_phrase_says_what_kind_of_value_is_asked(question: str, kind: str,
                                                         focus: str) -> None:
    got = asked(question, plan_question(question, T0))
    assert (got.kind, got.focus) == (kind, focus)


def test_a_possessor_is_not_a_modifier_of_the_thing_asked() -> None:
    got = asked("What's Pat's landline number?", plan_question("What's Pat's landline number?"))
    assert (got.kind, got.focus, got.compound) == ("ident", "number", "landline")


@pytest.mark.parametrize(("text", "expected"), [
    ("Rehearsal kicks off at seven, don't be late.", "at seven"),
    ("It runs two till four on the Saturday.", "two till four"),
    ("The fitter comes between eight and twelve.", "between eight and twelve"),
    ("Surgery is at 9:45am.", "9:45 am"),
    ("Doors open half nine sharp.", "half nine"),
    ("She said quarter to three.", "quarter to three"),
    ("Flight's at ten past six in the morning.", "ten past six"),
    ("Be there at six to get a seat.", "at six"),
    ("The alarm can be six from now on.", ""),
    ("From now on the alarm can be six.", "six"),
    ("We booked a table for 6 people.", ""),
    ("It takes half an hour.", ""),
    ("Ten sharp, doors at half nine.", "Ten sharp"),  # an hour said exactly
    ("She looked sharp.", ""),
])
def test_clock_times(text: str, expected: str) -> None:
    assert clock_time(text) == expected


def test_money_rates_digits_names_and_counts() -> None:
    assert money("The course is £45 a term.") == "£45 a term"
    assert money("It cost me forty pounds to change it.") == "forty pounds"
    assert money("Budget's a fiver each.") == "a fiver"
    assert money("We're bumping ours up to fifteen.") == ""  # no currency: not a sum
    assert frequency("Two drops, three times a day.") == "three times a day"
    assert frequency("Only once a week now.") == "once a week"
    # "four-hourly" is every four hours, not hourly.
    assert frequency("Her obs are down to four-hourly now.") == "four-hourly"
    assert day_part("Give him the pill at bedtime.") == "at bedtime"
    assert day_part("It was a nice morning.") == ""  # a bare part of day says no habit
    assert ident("My new extension is 4417.") == "4417"
    assert ident("Ours is Unit 12, by the canal.") == "Unit 12"
    assert ident("See you at 10:30 on the 14th.") == ""  # a time and a date are no number
    assert ident("We shifted the crates across to 7A.") == "7A"  # a letter after the digits
    assert ident("One 5mg tablet at 10am.") == ""  # a dose and a clock time are no label
    assert [p for _, p in quantities("Two dropped out, so it's nine now.")] == ["Two dropped",
                                                                               "nine"]
    assert names_in("Her teacher is called Mrs Okafor.", set(), set()) == [(22, "Mrs Okafor")]
    assert ordinal_value("twenty-third") == 23 and ordinal_value("12th") == 12


def test_what_time_is_a_clock_time_not_the_day_the_message_was_said() -> None:
    fair = rec(1, "The book fair is on Saturday this year.")
    doors = rec(2, "Doors open at half nine for the book fair.", T0 + DAY)
    assert read("What time is the book fair?", fair, doors) == ("half nine", ["src-2"])
    # Only the day was ever said: no time is made up from the message's date.
    assert read("What time is the book fair?", fair) == ("", [])


def test_a_record_about_the_topic_that_never_states_the_thing_does_not_answer() -> None:
    lessons = rec(1, "Leo has piano lessons on Mondays after school.")
    assert read("What's the name of Leo's piano teacher?", lessons) == ("", [])
    named = rec(2, "Leo's piano teacher is called Mrs Okafor, she's lovely.", T0 + DAY)
    assert read("What's the name of Leo's piano teacher?", lessons, named) == (
        "Mrs Okafor", ["src-2"])
    # A name "called" gives to another noun does not name the teacher.
    dog = rec(3, "Leo's piano class has a dog called Biscuit that sleeps under the piano.")
    assert read("What's the name of Leo's piano teacher?", lessons, dog) == ("", [])


@pytest.mark.parametrize(("question", "text"), [
    ("How much does the pottery course cost?", "The pottery course starts next Tuesday."),
    ("What's my locker code?", "I forgot my locker code again, so annoying."),
    ("What's the exact date of the gala?", "The gala is sometime in June."),
    ("Which cupboard are the candles in?", "The candles are somewhere in the kitchen."),
    ("Which football team does Omar support?", "Omar watches the football every Sunday."),
    ("Who teaches my pilates class?", "My pilates class is on Thursday evenings."),
    ("Where does Tom live?", "Tom and I have been on four dates now."),
    ("What floor is the new office on?", "The new office has a lovely kitchen."),
])
def test_never_stated_values_are_not_made_up(question: str, text: str) -> None:
    assert read(question, rec(1, text), rec(2, "The weather is grim today.")) == ("", [])


def test_a_modifier_never_mentioned_means_the_thing_was_never_mentioned() -> None:
    mobile = rec(1, "Her mobile number is 07123 456789.")
    assert read("What's her landline number?", mobile) == ("", [])
    assert read("What's her mobile number?", mobile) == ("07123 456789", ["src-1"])


def test_which_x_is_answered_with_what_tells_it_apart() -> None:
    assert read("Which cupboard are the candles in?",
                rec(1, "The candles are in the blue cupboard now.")) == (
        "blue cupboard", ["src-1"])


def test_the_person_who_said_it_is_cited_before_the_robot_echo() -> None:
    said = turns("Change of plan, my yoga class is on Thursdays at 6 now.",
                 ("robot", "Okay, yoga on Thursdays at 6 pm."))
    answer, cited = read("What day is my yoga class?", *said)
    assert answer == "every Thursday" and cited[0] == "src-1"
    # Nothing the person said matches the echo's value: the robot's turn stays the source.
    other = turns("Ugh, yoga again.", ("robot", "Yoga is on Thursdays at 6 pm."))
    assert read("What day is my yoga class?", *other)[1] == ["src-2"]


def test_the_echo_is_of_the_turn_that_states_its_value_not_the_last_one() -> None:
    """"Fridays. Better for me" - "the gardener still comes round on a Monday" - the
    robot's "Piano teacher on Fridays": the robot says back the turn that states Friday;
    the turn between them tells something else and is neither the source nor the answer."""
    said = turns(("Bea", "My rota's changed, I'll come round for piano on Fridays from now on."),
                 "Fridays. Better for me, Monday was always rushed.",
                 "The gardener still comes round on a Monday though.",
                 ("robot", "Noted: piano teacher on Fridays."))
    answer, cited = read("What day does the piano teacher come round?", *said)
    assert answer == "every Friday" and cited[0] == "src-2", (answer, cited)


def test_an_age_is_cited_from_the_person_not_the_robots_echo() -> None:
    """"How old is Mia?" is read by the age rule; the robot's "Mia is eight. Noted." says
    back the person's "his sister Mia is eight", which is the source."""
    said = turns("And his sister Mia is eight.", ("robot", "Mia is eight. Noted."))
    answer, cited = read("How old is Mia?", *said)
    assert answer == "eight" and cited[0] == "src-1", (answer, cited)


def test_a_yes_is_cited_from_the_turn_the_echo_repeats() -> None:
    """"Am I vegetarian?" - "Yes": the robot's "Vegetarian, noted." repeats the person's
    statement; a "yes" has no value of its own, so what the echo says of what is asked
    finds it."""
    said = turns("I'm a vegetarian, so no ham in the fridge on my shelf please.",
                 ("robot", "Vegetarian, noted."))
    answer, cited = read("Am I vegetarian?", *said)
    assert answer == "Yes" and cited[0] == "src-1", (answer, cited)
    # The person said something else: the robot's turn stays the source.
    other = turns("The fridge is a mess again.", ("robot", "Vegetarian, noted."))
    assert read("Am I vegetarian?", *other)[1][0] == "src-2"


def test_a_robot_relaying_news_repeats_no_turn_that_shares_only_a_month() -> None:
    """"The office called while you were out: your eye exam is now on January 28" is the
    robot's own news; the person's "physio session … 27 January" just before it shares
    the month, not the figure the robot says, so an answer read elsewhere ("january 28",
    the resolver's) keeps the robot's turn as the source; the person's own "28 January"
    is what it repeats."""
    question = "When is my eye exam?"
    relay = ("robot", "The office called while you were out: your eye exam is now on "
                      "January 28.")
    p = pack([EvidenceItem(r, 1.0, {}) for r in
              turns("My physio session is on Monday, 27 January.", relay)], 4000, 20)
    own = ExtractiveReader()._own_statement("src-2", "january 28", question, p, figures=True)
    assert own == ["src-2"]
    p = pack([EvidenceItem(r, 1.0, {}) for r in
              turns("My eye exam moved to 28 January.", relay)], 4000, 20)
    own = ExtractiveReader()._own_statement("src-2", "january 28", question, p, figures=True)
    assert own == ["src-1", "src-2"]


def test_a_robot_telling_where_it_saw_a_thing_repeats_no_camera_frame() -> None:
    """"Your wallet is on the garage workbench; I saw it there a minute ago." repeats no
    person: the camera's "candle on the garage workbench" before it shares the place, but
    a frame is not a statement the robot says back."""
    frame = dataclasses.replace(rec(1, "candle on the garage workbench", speaker="head_camera"),
                                modality="perception")
    said = rec(2, "Your wallet is on the garage workbench; I saw it there a minute ago.",
               T0 + 60, "robot")
    p = pack([EvidenceItem(r, 1.0, {}) for r in (frame, said)], 4000, 20)
    own = ExtractiveReader()._own_statement("src-2", "garage workbench",
                                            "Where can I find my wallet?", p, figures=True)
    assert own == ["src-2"]


def test_a_number_word_in_the_plural_is_the_number() -> None:
    """"boots are still tens" states the size the robot's "Size 10, noted." repeats."""
    said = turns("Stores asked again, boots are still tens, I haven't grown.",
                 ("robot", "Size 10, noted."))
    answer, cited = read("What boot size am I?", *said)
    assert "10" in answer and cited[0] == "src-1", (answer, cited)
    assert _plural_number("twenties") == "20" and _plural_number("sixes") == "6"
    assert _plural_number("quarters") == "" and _plural_number("tennis") == ""


def test_the_value_the_robot_heard_picks_among_the_persons_names() -> None:
    """"Ines and Tomas are done. She's seeing a guy from work called Bruno." names two;
    the robot's echo "Okay, Ines is seeing Bruno now." says which is the answer, and the
    person's words are still cited first."""
    said = turns("Gossip. Ines and Tomas are done. She's seeing a guy from work called Bruno.",
                 ("robot", "Okay, Ines is seeing Bruno now."))
    answer, cited = read("Who is Ines going out with?", *said)
    assert answer == "Bruno" and cited[0] == "src-1", (answer, cited)


def test_please_and_the_usual_are_no_answer() -> None:
    """"Coffee, please. The usual now, oat milk, no sugar.": a courtesy and a word that
    points at a habit say nothing of how it is taken."""
    r = rec(1, "Coffee, please. The usual now, oat milk, no sugar.")
    answer = read("How do I take my coffee now?", r)[0]
    assert "please" not in answer and "usual" not in answer and answer, answer


def test_a_teen_in_words_is_the_number_stated() -> None:
    """"Fifteen a side now." states the count ("fifteen" is a number word as "ten" is),
    and the article after it is no part of it."""
    r = rec(1, "The physio was pleased with me. Fifteen a side now.")
    assert read("How many leg raises a side was I doing?", r)[0] == "Fifteen"


def test_my_old_x_is_not_what_x_is_now() -> None:
    """"My old site" names the site as it was: for "Which site am I working on?" the
    record that says where the speaker works now answers, though it ranks lower."""
    new = rec(1, "Boss rang. From Monday I'm on the new job at Harbour Quay, the warehouse "
                 "site.")
    old = rec(2, "Jan might get work at Millbrook, actually. My old site. They need a "
                 "joiner.", T0 + DAY)
    answer, cited = read("Which site am I working on?", old, new)
    assert cited == ["src-1"] and "Millbrook" not in answer, (answer, cited)


def test_which_train_may_be_told_by_its_time_in_another_sentence() -> None:
    """"Priya's sticking with the eight twenty-five. She'll be gone before me now.": the
    time she leaves by tells which train, though the sentence saying "now" names none."""
    r = rec(1, "Priya's sticking with the eight twenty-five. She'll be gone before me now.")
    p = pack([EvidenceItem(r, 1.0, {"graph": 1})], 4000, 20)
    q = "Which train does Priya catch?"
    out = ExtractiveReader().read(q, plan_question(q, T0 + 30 * DAY), p)
    assert out.answer == "the eight twenty-five", out


def test_a_habit_is_a_time_of_day_not_the_day_it_was_mentioned() -> None:
    told = rec(1, "Grandad had his heart pill today, no fuss.")
    assert read("When does Grandad take his heart pill?", told) == ("", [])
    habit = rec(2, "Grandad takes his heart pill at bedtime now.", T0 + DAY)
    assert read("When does Grandad take his heart pill?", told, habit) == (
        "at bedtime", ["src-2"])


def test_the_state_said_now_beats_the_change_beside_it() -> None:
    answer, _ = read("How many guests are coming to the barbecue?",
                     rec(1, "Two guests dropped out of the barbecue, so it's nine now."))
    assert answer == "nine"


def test_someone_elses_thing_does_not_answer_for_mine() -> None:
    ada = rec(1, "Ada's recital is at 6pm in the main hall.")
    ben = rec(2, "Ben's recital is at 4pm, the day after.", T0 + DAY)
    assert read("What time is Ada's recital?", ada, ben) == ("6 pm", ["src-1"])
    mine = rec(3, "My swim class is at 7pm on Tuesdays.")
    his = rec(4, "His swim class is at 5pm, he loves it.", T0 + DAY)
    assert read("What time is my swim class?", mine, his) == ("7 pm", ["src-3"])
    other = rec(5, "Oh, Priya is at the dentist on Friday, poor thing.", T0 + 2 * DAY)
    own = rec(6, "My dentist appointment is on Wednesday morning.")
    answer, cited = read("What day is my dentist appointment?", own, other)
    assert answer.startswith("Wednesday") and cited == ["src-6"]


def test_a_name_before_a_comma_leads_the_record_too() -> None:
    """The robot's "Marta, Saturday at 3pm, with the kids." is Marta's visit: it does not
    say when Pavel's son comes."""
    marta = turns(("Ines", "My sister Marta is coming on Saturday at three with the kids."),
                  ("robot", "Marta, Saturday at 3pm, with the kids."))
    assert read("What time is Pavel's son Tomek coming on Saturday?", *marta)[0] == ""


def test_the_sentence_about_what_is_asked_before_the_one_about_whose() -> None:
    """"Hi, it's Omar, Pavel's nephew. Just checking about the bedding: nothing with wool,
    he reacts to it." answers "What bedding does Pavel need?" from the sentence about the
    bedding, and a colon after it gives the value."""
    r = rec(1, "Hi, it's Omar, Pavel's nephew. Just checking about the bedding: nothing "
               "with wool, he reacts to it.")
    assert read("What bedding does Pavel need?", r)[0] == "nothing with wool"


def test_the_name_nearest_to_what_is_asked() -> None:
    answer, _ = read("Who is driving me to the airport?",
                     rec(1, "Maria is away that week, so Jonas will drive me to the airport."))
    assert answer == "Jonas"


def test_the_newest_revision_that_states_the_value_holds() -> None:
    said = [rec(1, "The boiler service is on the 12th, first thing.", T0),
            *turns("The boiler people rang.", "It's the 19th instead, same time.",
                   start=T0 + 2 * DAY, first_seq=2)]
    answer, cited = read("What day is the boiler service?", *said)
    assert "19" in answer and cited == ["src-3"]


def read_with(question: str, items: list[EvidenceItem]) -> tuple[str, list[str]]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(items, 4000, 20))
    return out.answer, out.cited_ids


def test_the_graph_stages_current_record_answers_when_it_is_about_the_question() -> None:
    old = rec(1, "I work as a nurse at St. Mary's hospital.")
    new = rec(2, "I finally left St. Mary's, I'm teaching at the high school now.", T0 + 5 * DAY)
    # It names what the earlier record about work named: it stands, though it never
    # says "work".
    answer, cited = read_with("Where do I work?", [EvidenceItem(new, 1.0, {"graph": 1}),
                                                    EvidenceItem(old, 1.0, {"graph": 2})])
    assert (answer, cited) == ("high school", ["src-2"])
    # The whole name, not the abbreviation's first word.
    assert read("Where do I work?", old) == ("St Mary's hospital", ["src-1"])
    # A record marked current that is about something else does not answer.
    dentist = rec(3, "My dentist appointment is at 3pm on Monday.")
    other = rec(4, "My neighbour Ruth is coming round on Friday at ten.", T0 + 5 * DAY)
    answer, cited = read_with("What time is my dentist appointment?",
                              [EvidenceItem(other, 1.0, {"graph": 1}),
                               EvidenceItem(dentist, 1.0, {})])
    assert (answer, cited) == ("3 pm", ["src-3"])


def test_a_weekday_with_a_plural_part_of_day_is_a_schedule() -> None:
    from datetime import UTC, datetime

    from trace_ros.query.spans import answer_date

    t = datetime(2026, 1, 20, 9, tzinfo=UTC).timestamp()
    assert answer_date("Her office hours are Thursday mornings from now on.", t) \
        == "Thursday mornings"
    assert answer_date("Book club switched to Tuesday evenings.", t) == "Tuesday evenings"
    # One day (the part of the day said stays with it, as "when" answers give it).
    assert answer_date("See you Friday morning.", t) == "Friday morning, 23 January 2026"


def test_one_of_is_a_member_not_a_count() -> None:
    from trace_ros.query.spans import quantities

    said = quantities("One of Alfie's mates has chickenpox, so we're at thirteen.")
    assert [p for _, p in said] == ["thirteen"]
    assert [p.lower() for _, p in quantities("Five of the kids have colds.")] == ["five"]


def test_the_current_record_gives_the_new_label_of_the_thing() -> None:
    """A revision says the new label without the noun ("I'm in 508 now" after "I'm in room
    312"; "I'm going from Liverpool now" after "Flying from Manchester"): the reader
    answers with it rather than a fragment or an abstention."""
    room = rec(1, "And I'm in room 312, third floor, if a courier ever asks.")
    moved = rec(2, "They've shuffled us upstairs. I'm in 508 now, fifth floor.", T0 + 5 * DAY)
    answer, cited = read_with("Which room is my office in?",
                              [EvidenceItem(moved, 1.0, {"graph": 1}),
                               EvidenceItem(room, 1.0, {})])
    assert (answer, cited) == ("room 508", ["src-2"])
    booked = rec(3, "I've booked a week in Tenerife. Flying from Manchester on the 9th.")
    merged = rec(4, "The Manchester flight's been merged, so I'm going from Liverpool now.",
                 T0 + 5 * DAY)
    answer, cited = read_with("Which airport am I flying from?",
                              [EvidenceItem(merged, 1.0, {"graph": 1}),
                               EvidenceItem(booked, 1.0, {})])
    # (what follows the consequence "so" tells the new state: "going from Liverpool")
    assert "Liverpool" in answer and "Manchester" not in answer and cited == ["src-4"]
    # Not marked current: no label is carried over from another record.
    answer, _ = read_with("Which room is my office in?",
                          [EvidenceItem(moved, 1.0, {}), EvidenceItem(room, 1.0, {})])
    assert "508" not in answer


def test_the_new_label_is_the_one_no_earlier_record_gave() -> None:
    """A revision that names the label it gives up and the new one ("Plot 9 floods …
    swapped me to 6"; "fixed 5, but now 7 is leaking") answers with the new one."""
    plot = rec(1, "The allotment committee gave me plot 9, by the water trough.")
    swapped = rec(2, "Plot 9 floods, would you believe. They've swapped me to 6, higher ground.",
                  T0 + 5 * DAY)
    answer, cited = read_with("Which allotment plot is mine?",
                              [EvidenceItem(swapped, 1.0, {"graph": 1}),
                               EvidenceItem(plot, 1.0, {"graph": 2, "superseded": 1})])
    assert (answer.lower(), cited) == ("plot 6", ["src-2"])
    broken = rec(3, "Machine 5 is out of order, I've put a sign on it.")
    fixed = rec(4, "Engineer fixed 5, but now 7 is leaking.", T0 + 5 * DAY)
    answer, cited = read_with("Which machine is out of order?",
                              [EvidenceItem(fixed, 1.0, {"graph": 1}),
                               EvidenceItem(broken, 1.0, {"graph": 2, "superseded": 1})])
    assert (answer, cited) == ("machine 7", ["src-4"])


def test_the_current_record_answers_from_the_sentence_of_what_holds_not_what_stopped() -> None:
    """"I don't take the blue pills any more … It's the white ones now": the sentence of
    what holds answers, and "ones" stands for the pills asked about."""
    old = rec(1, "The nurse left my pills on the tray, the little blue ones, I have those "
                 "with breakfast.")
    new = rec(2, "I don't take the blue pills any more, the doctor swapped me over. It's the "
                 "white ones now, still at breakfast.", T0 + 5 * DAY)
    answer, cited = read_with("Which pills do I take with breakfast now?",
                              [EvidenceItem(new, 1.0, {"graph": 1}),
                               EvidenceItem(old, 1.0, {"graph": 2, "superseded": 1})])
    assert (answer, cited) == ("white pills", ["src-2"])


def test_a_shift_said_of_the_thing_moves_its_day_not_a_day_said_of_another() -> None:
    """"A walkout on the 18th. Parents' evening's pushed back a week.": the sentence about
    the thing moves the day the revisions about it named (a moved day is ahead), the
    other sentence's day is not it."""
    old = rec(1, "Parents' evening is Thursday the 20th, four till seven.")
    other = rec(2, "The budget forecast is due the 17th, separate thing.", T0 + DAY)
    robot = rec(3, "Corrected: parents' evening 20 March.", T0 + 2 * DAY, "robot")
    new = rec(4, "The union's called a walkout on the 18th. Parents' evening's pushed back "
                 "a week.", T0 + 5 * DAY)
    answer, cited = read_with("When is parents' evening?",
                              [EvidenceItem(new, 1.0, {"graph": 1}),
                               EvidenceItem(old, 1.0, {"graph": 2, "superseded": 1}),
                               EvidenceItem(robot, 1.0, {"superseded": 1}),
                               EvidenceItem(other, 1.0, {"graph": 3, "superseded": 1})])
    assert "27 March 2025" in answer and cited == ["src-4"], (answer, cited)


def test_which_days_is_answered_with_the_days_listed_or_spanned() -> None:
    """"Which days …?" asks for more than one day: the range or list as said, not the
    date of its first day."""
    assert read("Which days is the shop open?",
                rec(1, "Shop's open Thursday to Sunday through October, same as ever."))[0] \
        == "Thursday to Sunday"
    old = rec(1, "I go into the office Tuesdays and Thursdays, the rest is from home.")
    new = rec(2, "My team lead wants us all together on Wednesdays, so Thursday's gone. It's "
                 "Monday, Tuesday, Wednesday now.", T0 + 5 * DAY)
    answer, cited = read_with("Which days am I in the office?",
                              [EvidenceItem(new, 1.0, {"graph": 1}),
                               EvidenceItem(old, 1.0, {"graph": 2, "superseded": 1})])
    assert (answer, cited) == ("Monday, Tuesday, Wednesday", ["src-2"])
    # One day asked: the day.
    assert "Thursday" in read("What day is the shop open late?",
                              rec(3, "We're open late on Thursday."))[0]


def test_what_day_names_the_weekday_of_the_date() -> None:
    """"What day …?" - "netball's on today": the weekday, with the date it was."""
    answer = read("What day is Leyla's netball practice?",
                  rec(1, "Don't forget netball's on today, Leyla, five o'clock pickup."))[0]
    assert answer == "Monday 3 March 2025"


def test_of_two_days_the_one_right_after_the_questions_word() -> None:
    """"away the week of the 18th, back on the 25th" for "When am I back …?": the day
    the question's word leads to."""
    r = rec(1, "I'm away the week of the 18th, back on the 25th.")
    assert "25 March" in read("When am I back from holiday?", r)[0]
    assert "18 March" in read("When am I away?", r)[0]
    # The question's word, then its copula: "guitar is Mondays".
    moved = rec(2, "Mr Duarte needs Tuesdays for his daughter, so guitar is Mondays at half "
                   "four from next week.")
    assert read("When is my guitar lesson?", moved)[0] == "Mondays at half four"


def test_a_label_taken_back_with_not_is_not_the_answer() -> None:
    """"going in bay 4D … Sorry, 4B, not 4D.": the label the speaker corrects to."""
    said = rec(1, "The Hollis returns are going in bay 4D, three pallets. Sorry, 4B, not 4D. "
                  "4D's full of the garden furniture.")
    moved = rec(2, "Hollis returns: bay 7A.", T0 + 5 * DAY, "robot")
    answer, cited = read_with("Which bay are the Hollis returns in?",
                              [EvidenceItem(said, 1.0, {"graph": 1}),
                               EvidenceItem(moved, 1.0, {})])
    assert (answer, cited) == ("bay 4B", ["src-1"])


def test_when_keeps_the_part_of_the_day_said_with_the_weekday() -> None:
    """"I'm Thursday afternoon now" for "When is my talk?": the afternoon stays."""
    answer = read("When is my conference talk?",
                  rec(1, "Organisers emailed. They've shuffled the programme and my talk is "
                         "Thursday afternoon now."))[0]
    assert answer == "Thursday afternoon, 6 March 2025", answer


def test_the_consequence_that_says_now_tells_the_current_state() -> None:
    """The current record's "…, so we're on the chicken in jelly now": the consequence
    marked new tells the state, not the reason before it."""
    old = rec(1, "Mochi's food: the salmon pouches, half in the morning, half at night.")
    new = rec(2, "Mochi's turned her nose up at salmon three days straight, so we're on the "
                 "chicken in jelly now.", T0 + 5 * DAY)
    answer, cited = read_with("What food does Mochi eat?",
                              [EvidenceItem(new, 1.0, {"graph": 1}),
                               EvidenceItem(old, 1.0, {"graph": 2, "superseded": 1})])
    assert (answer, cited) == ("chicken in jelly", ["src-2"])


def test_a_value_the_question_names_is_not_the_answer() -> None:
    assert ident("Wifi password is now zoesmyhero1.") == "zoesmyhero1"
    answer = read("How many Year 9 students are going on the trip?",
                  rec(1, "Three stragglers, so Year 9 is at 61 students for the trip."))[0]
    assert answer.split()[0] == "61", answer
    who = rec(1, "I'm moving to the day centre, so Jess takes over as Mr Fenwick's key worker.")
    assert read("Who is Mr Fenwick's key worker?", who)[0] == "Jess"


def test_a_name_a_few_words_on_is_not_the_name_of_the_thing() -> None:
    """The name given to the noun stands beside it; a name that is the subject of another
    clause, or a place after a preposition, is not it."""
    assert read("What's the vet's name?", rec(1, "Vet says Biscuit's getting tubby."))[0] == ""
    assert read("What's the cottage called?",
                rec(1, "Booked a cottage in the Peak District instead."))[0] == ""
    assert read("What's the vet's name?",
                rec(1, "Our vet, Dr Shah, says Biscuit's getting tubby."))[0] == "Dr Shah"
    assert read("What's the cat called?", rec(1, "Our second cat got the name Pepper."))[0] \
        == "Pepper"


def test_who_it_changes_to_when_the_revision_names_who_it_changes_from() -> None:
    """The current record names who the revisions it supersedes named, and someone new
    as the subject of the new state: the new one, though no record writes that name
    mid-sentence."""
    old = rec(1, "Sandra's my key worker. She knows all my little ways.")
    robot = rec(2, "Congratulations to Sandra.", T0 + DAY, "robot")
    new = rec(3, "Sandra's off having her baby. Kwame's looking after me now.", T0 + 5 * DAY)
    answer, cited = read_with("Who's my key worker?",
                              [EvidenceItem(new, 1.0, {"graph": 1}),
                               EvidenceItem(old, 1.0, {"superseded": 1}),
                               EvidenceItem(robot, 1.0, {})])
    assert (answer, cited) == ("Kwame", ["src-3"])
    old = rec(4, "Hana's coming over Friday, she's my best friend, you'll like her.")
    robot = rec(5, "Looking forward to meeting Hana.", T0 + DAY, "robot")
    new = rec(6, "Don't mention Hana. We're not friends anymore. Mei's my best friend now.",
              T0 + 5 * DAY)
    answer, cited = read_with("Who's my best friend?",
                              [EvidenceItem(new, 1.0, {"graph": 1}),
                               EvidenceItem(old, 1.0, {"superseded": 1}),
                               EvidenceItem(robot, 1.0, {})])
    assert (answer, cited) == ("Mei", ["src-6"])


def test_a_time_word_inside_a_compound_stays_in_the_span() -> None:
    """"weekend-only" is a modifier, not a time said: the span keeps it."""
    old = rec(1, "I'm on the off-peak membership, so don't let me book anything after four.")
    new = rec(2, "Bit of a downgrade. I'm on the weekend-only plan now.", T0 + 5 * DAY)
    answer, cited = read_with("What membership am I on?",
                              [EvidenceItem(new, 1.0, {"graph": 1}),
                               EvidenceItem(old, 1.0, {"graph": 2, "superseded": 1})])
    assert (answer, cited) == ("weekend-only plan", ["src-2"])


def test_a_possessor_says_whose_the_name_after_says_who() -> None:
    """"My best friend is Hana's brother Kai": Kai is the friend, Hana says whose brother."""
    answer = read("Who is Mateo's best friend?",
                  rec(1, "Mei's cool. My best friend is Hana's brother Kai, so that's awkward.",
                      speaker="Mateo"))[0]
    assert answer == "Kai"


def test_two_names_after_two_things_are_each_in_turn() -> None:
    """"My maid of honour and Raj's best man, Hannah and Ollie": Hannah is the maid of
    honour, Ollie the best man."""
    r = rec(1, "Ha, God help us. My maid of honour and Raj's best man, Hannah and Ollie, "
               "loose on a microphone.", speaker="Sophie")
    assert read("Who's the best man?", r)[0] == "Ollie"
    assert read("Who's my maid of honour?", r)[0] == "Hannah"


def test_a_relatives_thing_does_not_answer_for_mine() -> None:
    mine = rec(1, "anniversary with Tom is July 12, two years!!")
    sisters = rec(2, "my sister's anniversary is the 19th, we always compare gifts", T0 + DAY)
    answer, cited = read("When's my anniversary?", mine, sisters)
    assert "12" in answer and cited[0] == "src-1", (answer, cited)


def test_who_is_the_name_given_not_the_name_talked_about() -> None:
    """With no word of the question beside any name, the one the sentence gives someone
    ("paired me with Jas", "a guy called Ollie") answers, not the one it talks about."""
    before = rec(1, "My doubles partner is Gemma, we play on Tuesdays.")
    for text, name in (
            ("Gemma's out for the season so the league paired me with Jas permanently.", "Jas"),
            ("and Gemma sprained her wrist so I'm paired with some guy called Ollie", "Ollie")):
        now = rec(2, text, T0 + 5 * DAY)
        answer, cited = read_with("Who's my doubles partner?",
                                  [EvidenceItem(now, 1.0, {"graph": 1}),
                                   EvidenceItem(before, 1.0, {})])
        assert (answer, cited) == (name, ["src-2"])


def test_a_day_said_without_a_tense_is_ahead_when_the_state_is_asked_now() -> None:
    """"… so I've changed it again. Friday." said on Tuesday 8 July: for a question about
    the plan as it stands, the coming Friday; a past reading stays the default. A day
    the superseded revisions gave ("the Wednesday") is the one it changes from."""
    from datetime import UTC, datetime

    from trace_ros.query.spans import answer_date, held_days

    t = datetime(2025, 7, 8, 9, tzinfo=UTC).timestamp()
    assert answer_date("Friday.", t, lean=True) == "Friday 11 July 2025"
    assert answer_date("Friday.", t) == "Friday 4 July 2025"
    said = "The juniors have the green on Tuesdays, so we're on Wednesdays."
    assert "Tuesdays" not in held_days(said, frozenset({"tuesdai"}))
    assert held_days(said) == said


def test_a_request_states_the_value_it_asks_for() -> None:
    """"Could you collect on Thursday mornings?" is a request: it says when the pickup is
    to be, where a question ("Still Tuesdays?") says nothing."""
    old = rec(1, "The bakery donation pickup is Tuesdays at 2.")
    new = rec(2, "Hi, it's Dana from the bakery. From next week, could you collect on "
                 "Thursday mornings? We're closed for a refit on Tuesdays.", T0 + 5 * DAY)
    answer, cited = read_with("When is the bakery pickup now?",
                              [EvidenceItem(new, 1.0, {"graph": 1}),
                               EvidenceItem(old, 1.0, {"graph": 2, "superseded": 1})])
    assert (answer, cited) == ("Thursday mornings", ["src-2"])
    asking = rec(3, "Is the bakery pickup still Tuesdays?", T0 + 6 * DAY)
    assert read("When is the bakery pickup?", old, asking)[1] == ["src-1"]


def test_a_new_number_answers_which_one_where_the_records_number_the_thing() -> None:
    """"Ms Ode's parking space is number 14" then, from Ms Ode herself, "I've swapped
    spaces with Alan. I'm in 9 now.": the space is 9 (not "I've spaces" or nothing); a
    clock time is no such number."""
    old = rec(1, "Ms Ode's parking space is number 14 from this month.", speaker="Greg")
    new = rec(2, "Also, I've swapped spaces with Alan. I'm in 9 now, it's nearer the lift.",
              T0 + 5 * DAY, speaker="Ms Ode")
    answer, cited = read_with("Which parking space is Ms Ode's?",
                              [EvidenceItem(new, 1.0, {"graph": 1}),
                               EvidenceItem(old, 1.0, {"graph": 2, "superseded": 1})])
    assert (answer, cited) == ("space 9", ["src-2"])
    assert labelled("space", new.text) == ""


def test_measures_are_amounts_by_unit() -> None:
    from trace_ros.query.spans import measures

    assert measures("I drink about two litres of water a day.") == {"litr": "two litres"}
    assert measures("Bella's on three quarters of a cup now.") == {"cup": "three quarters of a cup"}
    assert measures("I have two kids and 3 cats.") == {"kid": "two kids", "cat": "3 cats"}
    assert measures("We meet at 7.") == {}
    assert measures("The GP put me up to 10mg of amlodipine.") == {"mg": "10mg"}


def test_a_label_the_text_changes_from_is_not_the_answer() -> None:
    painted = "They're painting Room 3 all week, so Dr Mensah's been shifted to Room 7."
    assert labelled("room", painted) == "Room 3"
    assert labelled("room", painted, "", "Dr Mensah is seeing patients in Room 3.") == "Room 7"


def test_a_part_of_a_unit_is_one_amount() -> None:
    """"a third of a scoop", "two and a half" are amounts whole; "the cholesterol one"
    is which thing, not how many."""
    assert [p for _, p in quantities("It's a third of a scoop now.")] == ["a third of a scoop"]
    assert [p for _, p in quantities("Pip has half a scoop at night.")] == ["half a scoop"]
    assert [p for _, p in quantities("The GP's taken him down to two and a half.")] \
        == ["two and a half"]
    assert [p for _, p in quantities("The cholesterol one, twenty milligrams.")] \
        == ["twenty milligrams"]


def test_the_dose_of_a_named_medicine_needs_no_word_dose() -> None:
    """"What dose of atorvastatin …?": a record about atorvastatin that gives an amount
    answers; one about another medicine does not."""
    statin = rec(1, "There's the cholesterol one too. Atorvastatin, twenty milligrams, at night.")
    assert read("What dose of atorvastatin am I on?", statin) == ("twenty milligrams", ["src-1"])
    other = rec(2, "Amlodipine, five milligrams, in the morning.")
    assert read("What dose of atorvastatin am I on?", other)[0] == ""


def test_a_bare_figure_is_a_sum_beside_a_word_for_one() -> None:
    """People name sums without a currency: "rent is going up to 1450", "800 a month".
    A bare figure with no such word, a clock time or a date is no sum."""
    from trace_ros.query.spans import sum_stated

    assert sum_stated("Also the rent is going up to 1450 next month.") == "1450"
    assert sum_stated("A lodger is taking it, 800 a month.") == "800"
    assert sum_stated("The rent meeting is at 3pm on the 14th.") == ""
    assert sum_stated("We had 12 people round.") == ""
    assert read("How much is my rent going to be?",
                rec(1, "Rent is going up to 1450 next month.")) == ("1450", ["src-1"])


def test_the_current_record_may_name_what_it_replaces_in_other_words() -> None:
    """"Booked a cottage in the Peak District instead" shares no word with "Where are we
    going for half-term?", but a name with the record it supersedes: the graph stage's
    current record answers."""
    camping = rec(1, "Half-term plan: we're taking the kids camping in the Lake District.")
    cottage = rec(2, "So we've bailed on the tent. Booked a cottage in the Peak District instead.",
                  T0 + 5 * DAY)
    answer, cited = read_with("Where are we going for half-term?",
                              [EvidenceItem(cottage, 1.0, {"graph": 1}),
                               EvidenceItem(camping, 1.0, {"graph": 2, "superseded": 1})])
    assert "Peak District" in answer and cited[:1] == ["src-2"], (answer, cited)


def test_a_day_turned_down_is_not_when_the_thing_is() -> None:
    """"She can't do Thursday, so … Friday", "Forget Friday … back on Thursday": the day
    the record holds to answers a question about now; the one it turns down does not."""
    moved = rec(1, "Ms Adeyemi can't do Thursday, so I've put her in on Friday, same time.")
    assert read("When is Ms Adeyemi's appointment?", moved)[0].startswith("Friday"), \
        read("When is Ms Adeyemi's appointment?", moved)
    back = rec(2, "Forget Friday for the board meeting, the CEO can't make it. "
                  "We're back on Thursday, but at four.")
    answer = read("When is the board meeting?", back)[0]
    assert answer.startswith("Thursday"), answer


def test_someone_who_cannot_do_it_is_not_who_does_it() -> None:
    """"Shona can't do Wednesdays any more. Her friend Kat's covering them.": Kat walks
    the dog on Wednesdays."""
    said, echo = turns("Shona can't do Wednesdays any more. Her friend Kat's covering them.",
                       ("robot", "Kat on Wednesdays, Shona the other days."))
    assert read("Who walks Biscuit on Wednesdays?", echo, said) == ("Kat", ["src-1", "src-2"])


def test_who_does_it_may_be_the_speaker_or_the_one_they_address() -> None:
    """"I'll still do Mrs Kaur's reviews" names the speaker; "Leon, … You're doing the
    orders from next week." names the one spoken to."""
    own = rec(1, "I'll still do Mrs Kaur's reviews until January.", speaker="Hannah")
    assert read("Who does Mrs Kaur's reviews?", own) == ("Hannah", ["src-1"])
    handed = rec(2, "Leon, I'm stepping back from supplies. You're doing the orders from "
                    "next week.", speaker="Anya")
    assert read("Who places the supply orders now?", handed) == ("Leon", ["src-2"])


def test_which_x_may_be_told_by_a_time_or_a_word_the_records_put_before_x() -> None:
    """"Which train?" - "the eight oh eight": a time tells a train apart, though no record
    says "train". "Which diet?" - "stays pureed": another record says "pureed diet"."""
    train = rec(1, "I've agreed later hours with my boss. From today I'm taking the eight oh eight.")
    assert read("Which train do I take to work?", train)[0] == "eight oh eight"
    assert labelled("train", "and I'm on the 8:10 train now, new role starts later") == "8:10 train"
    stays = rec(2, "Mrs Nowak on the first floor stays pureed, I haven't seen her yet.")
    other = rec(3, "Mr Hale is on a vegetarian diet, and Mrs Nowak had a pureed diet before.")
    answer = read("Which diet is Mrs Nowak on?", stays, other)[0]
    assert "pureed" in answer, answer


def test_where_a_thing_is_is_not_where_it_came_from_or_goes() -> None:
    """"Where …?" asks where a thing is: "at the music shop", not "over to an old student"
    (where she goes) nor "from that forklift bump" (where it came from); a question that
    says "from" or asks where someone goes reads those."""
    lessons = rec(1, "She's handing Ellie over to an old student of hers. Same Monday slot, "
                     "but at the music shop.")
    assert "music shop" in read("Where are Ellie's piano lessons?", lessons)[0]
    bump = rec(2, "Found eight red kettles with smashed lids from that forklift bump.")
    assert "forklift" not in read("Where are the red kettles kept?", bump)[0]
    flight = rec(3, "Flying from Manchester to Lisbon on the 9th.")
    assert "Manchester" in read("Where am I flying from?", flight)[0]


def test_an_object_pronoun_after_a_preposition_is_no_place() -> None:
    """"cancelled on us" names no place: "at the office" does."""
    moved = rec(1, "Oh, the bowling alley cancelled on us, so we're doing the party at the "
                   "office, same date.")
    assert read("Where's our Christmas party?", moved)[0] == "office"


def test_where_it_came_to_be_is_the_place_after_so() -> None:
    """"The queue at the Tower was round the block, so we ended up at the British Museum":
    the consequence after "so" tells where it was in the end."""
    day = rec(1, "What a day. The queue at the Tower was round the block and it was pouring, "
                 "so we ended up spending the whole day at the British Museum.")
    assert read("Where did we end up going on Monday?", day)[0] == "British Museum"


def test_a_numbered_place_after_to_is_where_it_went() -> None:
    """"to aisle 12" is a place (a word and its number), not "to" before a verb: a thing
    moved there is kept there now; "to buy 3 eggs" stays no place."""
    moved = rec(1, "We had to shuffle for the overflow. The blue kettles went up to aisle 12, "
                   "top shelf.")
    assert read("Where are the blue kettles kept?", moved)[0] == "aisle 12"
    errand = rec(2, "I popped out to buy 3 eggs.")
    assert read("Where did I pop out?", errand)[0] == ""


def test_the_number_after_so_is_the_state_not_the_change() -> None:
    """"Seven have dropped out, so we're landing on 128": the consequence gives the count
    that holds; the other number is the change."""
    r = rec(1, "Linda emailed. Seven guests have dropped out, there's flu going round, so we're "
               "landing on 128.")
    assert read("How many guests are coming to the wedding?", r)[0] == "128"


def test_a_compound_asked_may_be_answered_by_the_bare_noun() -> None:
    """"What shoe size is Lottie?" - "She's a size 13": the size said bare answers; "What's
    her landline number?" - "Her mobile number is …": another kind of number does not."""
    skates = rec(1, "Lottie wants roller skates for Christmas. She's a size 13.")
    assert read("What shoe size is Lottie?", skates)[0] == "13"
    mobile = rec(2, "Her mobile number is 07700 900123, if the school rings.")
    assert read("What's her landline number?", mobile) == ("", [])


def test_who_holds_it_after_so_may_be_the_speaker() -> None:
    """"Leila's started her leave early, so Acme is with me from today": the consequence
    says who has Acme now, the speaker; "so we've swapped: she's got Wednesdays now" does
    not make the speaker the one asked."""
    handed = rec(1, "Also, Leila's started her leave early, so Acme is with me from today.",
                 speaker="Ben")
    assert read("Who handles the Acme account now?", handed) == ("Ben", ["src-1"])


def test_an_answer_that_only_says_back_the_question_is_no_answer() -> None:
    """"One of Mr Ansah's items" does not say which item. A figure the question lacks
    ("Flat 9") and a choice question's option still answer."""
    stock = rec(1, "The wholesaler's out of stock on one of Mr Ansah's items. Looks like Friday now.",
                speaker="Gil")
    assert read("Which item was out of stock for Mr Ansah?", stock) == ("", [])
    flat = rec(3, "We got Flat 9 in the end.")
    assert read("What's the number of my new flat?", flat) == ("Flat 9", ["src-3"])
    trip = rec(4, "We ended up going to the beach in the end, the kids loved it.")
    assert "beach" in read("Did they go to the beach or the mountains?", trip)[0].lower()


def test_a_what_question_asking_no_time_is_not_answered_by_a_date() -> None:
    """"What did Omar get me for our anniversary?" asks for a thing: a record that only
    dates the anniversary does not answer it; "When is …" and "What date is …" take the
    date."""
    dated = rec(1, "anniversary with Omar is july 12, three years!!")
    assert read("What did Omar get me for our anniversary?", dated) == ("", [])
    assert "12" in read("When is our anniversary?", dated)[0]
    assert "12" in read("What date is our anniversary?", dated)[0]


def test_the_verb_ending_a_time_question_is_not_its_thing() -> None:
    """"What time does chess club start?" asks about chess club: beside a record naming
    the club, "I'll do Saturdays, starting this week, ten till two" shares only the verb;
    a record giving the club's time answers."""
    shift = rec(1, "I rang Sue. I'll do Saturdays, starting this week, ten till two.")
    named = rec(2, "Don't go thinking my Thursdays are free, mind. Chess club, Thursday nights.")
    assert read("What time does chess club start?", shift, named) == ("", [])
    timed = rec(3, "Chess club starts at half seven.")
    assert read("What time does chess club start?", shift, named, timed)[1] == ["src-3"]


def test_the_kind_asked_for_is_no_part_of_the_thing() -> None:
    """"What's the name of the vet who's off sick?": a record that names the practice
    ("Greenway Vets") shares only "vet" and the kind asked, a name, with it; where another
    record speaks of the vet being off sick, that one is about the thing and names no one."""
    practice = rec(1, "Pepper's booster jab is booked for the 23rd at Greenway Vets.")
    sick = rec(2, "Greenway rang. The vet's off sick, so Pepper's been moved to the 25th.")
    assert read("What's the name of the vet who's off sick?", practice, sick) == ("", [])
    # Control: the kind asked stays the thing when nothing else is asked of it.
    assert "Greenway" in read("What's the name of the vet?", practice)[0]


def test_a_day_ahead_of_its_telling_is_named_with_its_weekday() -> None:
    """A booking or a plan is answered with the day's weekday ("Thursday 13 March 2025"),
    as people name the days they go by; a day asked of in the past tense is the date."""
    answer, _ = read("When will my prescription be ready?",
                     rec(1, "The pharmacy rang, my prescription will be ready on the 13th."))
    assert answer == "Thursday 13 March 2025"
    answer, _ = read("When did we go to the zoo?",
                     rec(1, "We went to the zoo on the 1st, the kids loved the penguins."))
    assert answer == "1 March 2025"


def test_a_later_turn_that_never_names_the_one_asked_about_is_not_their_revision() -> None:
    """"Where are Priya's parents going that week?": "Heavy rain over the Welsh hills all
    that week", days later in a session that names no Priya, shares the week and a place,
    and says nothing of her parents."""
    said = [*turns("Half-term we're off to a caravan in Wales.",
                   "Priya's parents are going to Devon that week.", start=T0),
            *turns("Heavy rain over the Welsh hills all that week, but we are going anyway.",
                   start=T0 + 3 * DAY, session="s2", first_seq=3)]
    answer, cited = read("Where are Priya's parents going that week?", *said)
    assert "Devon" in answer and cited == ["src-2"], (answer, cited)


def test_a_later_turn_after_one_that_names_them_speaks_of_them() -> None:
    """"Will Ellie carry on?" - "Yeah, lessons are at the music shop now": the reply names
    no Ellie, the turn it answers does, so it is her revision."""
    said = [rec(1, "Ellie's piano lessons are at Mrs Patel's house on Crescent Road.", T0),
            *turns(("robot", "Will Ellie carry on with piano?"),
                   "Yeah, the lessons are at the music shop on the high street now.",
                   start=T0 + 3 * DAY, session="s2", first_seq=2)]
    answer, cited = read("Where are Ellie's piano lessons?", *said)
    assert "music shop" in answer and cited == ["src-3"], (answer, cited)


def test_have_we_got_asks_a_count_held_now() -> None:
    """"How many X have we got?" is "have got" of holding, a count as "do we have" is;
    the graph stage's current record states it."""
    q = "How many trainees have we got on the late shift?"
    assert asked(q, plan_question(q, T0)) == Asked("count", "trainees")
    old = rec(1, "We've got three trainees starting on the late shift next month.")
    new = rec(2, "HR called back, they only found two for lates. Two it is.", T0 + DAY)
    p = pack([EvidenceItem(new, 1.0, {"graph": 1}),
              EvidenceItem(old, 0.9, {"superseded": 1})], 4000, 20)
    out = ExtractiveReader().read(q, plan_question(q, T0 + 30 * DAY), p)
    assert (out.answer.lower(), out.cited_ids) == ("two", ["src-2"]), out


def test_a_sentence_opening_with_so_gives_the_count_that_results() -> None:
    """"Bought three more goats. So that's seven.": the change, then the count it makes."""
    r = rec(1, "Bought three more goats at the market today. So that's seven, all told.")
    assert read("How many goats do we have?", r)[0] == "seven"


def test_an_age_said_bare_after_be_answers_how_old() -> None:
    """"he's thirty-one", "she'll be nine": an age with nothing it counts after it, said of
    the one asked (by a record naming them, or answering the turn before that does); the
    newest such record holds. "Thirty years I've had it" counts years, not an age."""
    rs = turns("Biscuit the tortoise is in for his check-up. He's twenty, I think.",
               ("Femi", "No, he's thirty-one. The owner told me."),
               "Thirty years she's had him, imagine.",
               "Pip the hamster's coming too. She's two.")
    assert read("How old is Biscuit?", *rs) == ("thirty-one", ["src-2"])
    assert read("How old is Pip?", *rs) == ("two", ["src-4"])
    assert read("How old is Clover?", *rs)[0] == ""


def test_a_measure_the_question_names_need_not_be_said() -> None:
    """"What temperature is oven 2 at?": the graph stage's current record "Oven 2 runs at
    180" states it without the word; "2" labels the oven, it is not the value."""
    q = "What temperature is oven 2 at?"
    old = rec(1, "Oven 2 is set to 200 degrees for the bread.")
    new = rec(2, "Oven 2 runs at 180 for the pastry, leave it.", T0 + DAY)
    p = pack([EvidenceItem(new, 1.0, {"graph": 1}),
              EvidenceItem(old, 0.9, {"superseded": 1})], 4000, 20)
    out = ExtractiveReader().read(q, plan_question(q, T0 + 30 * DAY), p)
    # In the unit the record it revises gave the measure (``amounts.with_unit``).
    assert (out.answer, out.cited_ids) == ("180 degrees", ["src-2"]), out


def test_one_after_a_determiner_is_the_pronoun_not_a_dose() -> None:
    """"the water tablet one taken at night": "one" stands for a tablet; it states no
    dose."""
    r = rec(1, "The GP wants the water tablet one taken at night instead.")
    p = pack([EvidenceItem(r, 1.0, {"graph": 1})], 4000, 20)
    q = "What dose is Mum's water tablet?"
    out = ExtractiveReader().read(q, plan_question(q, T0 + 30 * DAY), p)
    assert out.answer == "", out


def test_a_phrase_after_the_head_tells_which_one_it_is() -> None:
    """"What's Sam from accounts's surname now?": the name is Sam's ("from accounts" tells
    which Sam), and the graph stage's current record gives the new one."""
    q = "What's Priya from payroll's surname now?"
    assert asked(q, plan_question(q, T0)).focus == "priya"
    q2 = "What's the name of the cafe on Mill Street?"
    assert asked(q2, plan_question(q2, T0)).focus == "cafe"
    old = rec(1, "Letters for Priya Shah go to payroll, second floor.")
    new = rec(2, "Priya's back from her wedding. She's Priya Okafor now, update the list.",
              T0 + DAY)
    p = pack([EvidenceItem(new, 1.0, {"graph": 1}),
              EvidenceItem(old, 0.9, {"superseded": 1})], 4000, 20)
    out = ExtractiveReader().read(q, plan_question(q, T0 + 30 * DAY), p)
    assert (out.answer, out.cited_ids) == ("Okafor", ["src-2"]), out


def test_a_superseded_record_does_not_answer_beside_the_current_one() -> None:
    """"Which course is Tom taking this summer?" (a window, so no state plan): the record
    the graph stage marks superseded no longer holds, though it matches better."""
    q = "Which course is Tom taking this summer?"
    old = rec(1, "New student Tom is taking the pottery course in July with Jill.")
    new = rec(2, "Jill's off sick, so I've moved Tom onto the weaving course with Ravi.",
              T0 + DAY)
    p = pack([EvidenceItem(old, 1.0, {"superseded": 1}),
              EvidenceItem(new, 0.9, {"graph": 1})], 4000, 20)
    out = ExtractiveReader().read(q, plan_question(q, T0 + 30 * DAY), p)
    assert out.cited_ids == ["src-2"] and "pottery" not in out.answer, out


def test_the_record_held_at_the_time_asked_stands_for_whom_it_names() -> None:
    """"Before his hours changed, what time did Omar visit?": the graph stage's record for
    that time ("Omar comes in at five") names him though it says "comes in", not "visit";
    a later turn about visiting hours says nothing of when Omar came."""
    q = "Before his hours changed, what time did Omar visit?"
    rs = turns("My son Omar comes in at five every day, after college.",
               "Fish pie for lunch. Not bad.",
               "Visiting finishes at eight here, doesn't it?",
               ("Nurse", "Yes, eight o'clock."))
    later = rec(9, "Omar rang. His hours have changed, so he'll be in at two from now on.",
                T0 + 10 * DAY)
    p = pack([EvidenceItem(rs[0], 1.0, {"graph": 1}), EvidenceItem(rs[1], 0.9, {}),
              EvidenceItem(rs[2], 0.8, {}), EvidenceItem(rs[3], 0.8, {}),
              EvidenceItem(later, 0.7, {})], 4000, 20)
    # The graph stage's time for the "Before …" clause (answer.py sets it so).
    plan = dataclasses.replace(plan_question(q, T0 + 30 * DAY), as_of=T0 + 5 * DAY)
    out = ExtractiveReader().read(q, plan, p)
    assert (out.answer, out.cited_ids) == ("at five", ["src-1"]), out


def test_the_current_record_may_name_whom_by_a_title_leaving_the_role_unsaid() -> None:
    """"Who's Ada's tutor?": "So Ada's with Dr Lamb now" names the tutor by a title,
    "tutor" unsaid; without the graph stage's record the role must be said."""
    q = "Who's Ada's tutor?"
    old = rec(1, "Ada's in Mr Pike's group this term, room 4.")
    new = rec(2, "Mr Pike is off till spring. So Ada's with Dr Lamb now.", T0 + DAY)
    p = pack([EvidenceItem(new, 1.0, {"graph": 1}),
              EvidenceItem(old, 0.9, {"superseded": 1})], 4000, 20)
    out = ExtractiveReader().read(q, plan_question(q, T0 + 30 * DAY), p)
    assert (out.answer, out.cited_ids) == ("Dr Lamb", ["src-2"]), out
    assert read(q, old, new)[0] == ""


def test_one_more_of_the_thing_told_with_too_revises_none() -> None:
    """"I've got pottery too, but Thursdays": an additive particle tells another of the
    thing beside the one told before, not a change of it; the newer record does not hold
    for "my pottery class" because it is newer."""
    said = [rec(1, "My pottery class is Mondays at seven, in the church hall."),
            rec(2, "I've got pottery too, but Thursdays at six, different teacher.",
                T0 + 3 * DAY, "Jess", "s2")]
    assert read("When is my pottery class?", *said) == ("Mondays at seven", ["src-1"])


def test_the_owner_asked_about_with_another_thing_is_not_about_the_thing_asked() -> None:
    """"Ada's eye test is the 20th now" moves a time, but of Ada's eye test: for "Ada's
    dentist appointment" it is no revision, even where the graph stage put it first and it
    names the doctor an earlier record did. A shortened word of the question ("Ada's op"
    for her operation) is the thing asked."""
    def lead_read(question: str, *records: SourceRecord) -> tuple[str, list[str]]:
        p = pack([EvidenceItem(r, 1.0, {"graph": 1} if r.source_id == "src-5" else {})
                  for r in records], 4000, 20)
        out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY), p)
        return out.answer, out.cited_ids

    later = T0 + 2 * DAY
    answer, cited = lead_read(
        "When is Ada's dentist appointment?",
        rec(1, "Ada's dentist appointment is on the 14th, first thing."),
        rec(2, "Her eye test appointment with Dr Bell is the 16th."),
        rec(5, "Dr Bell's away, so Ada's eye test is the 20th now.", later, session="s2"))
    assert cited[:1] == ["src-1"] and "14" in answer, (answer, cited)
    answer, cited = lead_read(
        "When is Ada's operation?",
        rec(1, "Ada's operation with Dr Bell is on the 14th."),
        rec(5, "Dr Bell's away, so Ada's op is the 20th now.", later, session="s2"))
    assert cited[:1] == ["src-5"] and "20" in answer, (answer, cited)


def test_a_later_record_the_chain_found_to_be_anothers_does_not_hold() -> None:
    # The chain found the later bingo another one (``routes["other"]``): the newest record
    # stating a day is no revision of the one asked about.
    said = turns("Bingo at the social club is on Tuesdays, half seven.",
                 "The church hall bingo has gone to Thursdays now.", first_seq=1)
    question = "Which day is bingo?"
    items = [EvidenceItem(said[0], 1.0, {}), EvidenceItem(said[1], 1.0, {"other": 1})]
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(items, 4000, 20))
    assert (out.answer, out.cited_ids[:1]) == ("every Tuesday", ["src-1"]), out
    # Unmarked, the newest holds.
    assert read(question, *said)[1][:1] == ["src-2"]


def test_the_amount_a_change_comes_to_not_the_change() -> None:
    # "down to …", "that makes …": what the change comes to is the amount, in whichever
    # sentence of the record it is said; "three more" is the change.
    assert read("How many pupils are in the orchestra now?",
                rec(1, "Three pupils left for the county band. Down to 19.")) == (
        "19", ["src-1"])
    # (The graph stage's current record, which need not say "people".)
    said = rec(1, "Three more signed up this morning, that makes twenty-two.")
    assert read_with("How many people are signed up for the walk?",
                     [EvidenceItem(said, 1.0, {"graph": 1})]) == ("twenty-two", ["src-1"])
    # The number said with the thing counted, over a change of another thing.
    answer, _ = read("How many name cards for the retirement lunch?",
                     rec(1, "Retirement lunch again. Two of the guests cancelled, so take "
                            "one off. Thirty name cards, definitely."))
    assert answer == "Thirty name cards"
    # "twenty-five" is a cardinal, not an ordinal.
    assert ordinal_value("twenty-five") == 0 and ordinal_value("twenty-fifth") == 25


def test_how_many_without_a_verb_or_a_noun_is_a_count() -> None:
    plan = plan_question("How many name cards for the retirement lunch?", T0)
    assert asked("How many name cards for the retirement lunch?", plan) == Asked("count", "cards")
    plan = plan_question("How many are we cooking for on Sunday?", T0)
    assert asked("How many are we cooking for on Sunday?", plan).kind == "count"
    plan = plan_question("How many nurses were on after the handover?", T0)
    assert asked("How many nurses were on after the handover?", plan).focus != "were"


def test_a_figure_the_speaker_takes_back_is_not_stated() -> None:
    said = rec(1, "Quiz night head count: 48. Sorry, 46, two teams pulled out.")
    assert read_with("How many people are coming to the quiz night?",
                     [EvidenceItem(said, 1.0, {"graph": 1})]) == ("46", ["src-1"])
    said = rec(1, "They have moved Dad to bed 14. Sorry, 41, I misheard the nurse.")
    assert read("Which bed is Dad in?", said) == ("bed 41", ["src-1"])


def test_a_place_is_said_whole() -> None:
    # A preposition that says where against a thing stays with it; a destination said by
    # where it is is the place (not the landmark alone); a number after a noun labels the
    # place, and the place ends where its clause's verb begins.
    assert read("Where are the camping chairs kept?",
                rec(1, "The camping chairs are kept behind the boiler, folded flat.")) == (
        "behind the boiler", ["src-1"])
    assert read("Where are the raffle prizes kept?",
                rec(1, "The raffle prizes went into the grey cabinet by the stage.")) == (
        "grey cabinet by the stage", ["src-1"])
    assert read("Where are the raffle prizes kept?",
                rec(1, "Tom at flat 9 is keeping the raffle prizes for us.")) == (
        "flat 9", ["src-1"])


def test_the_current_record_told_at_length_is_read_from_its_acknowledgement() -> None:
    said = turns("Quick one on the Leo situation: he's gone off tuna. He asked for egg, but "
                 "the nursery bans eggs, so he's having cream cheese and cucumber.",
                 ("robot", "Cream cheese and cucumber sandwiches for Leo."))
    question = "What goes in Leo's sandwiches?"

    def lead_read(*records: SourceRecord) -> tuple[str, list[str]]:
        items = [EvidenceItem(r, 1.0, {"graph": 1} if k == 0 else {})
                 for k, r in enumerate(records)]
        out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                      pack(items, 4000, 20))
        return out.answer, out.cited_ids

    answer, cited = lead_read(*said)
    assert cited == ["src-1"] and "cream cheese" in answer.lower(), (answer, cited)
    # An acknowledgement in words the person never said is not what they said.
    other = turns(said[0].text, ("robot", "Ham salad sandwiches for Leo, then."))
    assert "ham" not in lead_read(*other)[0].lower()


def test_a_sum_in_words_per_period_and_grand_as_a_word() -> None:
    assert money("Grand, see you at the allotment then.") == ""
    assert money("The van cost us a grand to fix.") == "a grand"
    said = rec(1, "Lovely, the marina caved in, a mooring's thirty-five a week now.")
    assert read("How much is a mooring per week?", said) == ("thirty-five", ["src-1"])


def test_which_afternoon_asks_a_day_and_a_lettered_number_is_whole() -> None:
    question = "Which morning is the library closed?"
    assert asked(question, plan_question(question, T0)) == Asked("day", "morning")
    said = rec(1, "I've taken Thursday mornings off for the allotment, so no bookings then.",
               speaker="Priya")
    answer, _ = read("Which morning does Priya take off?", said)
    assert "thursday" in answer.lower(), answer
    assert ident("the parcel reference is still QT-5531, the depot checked") == "QT-5531"


def test_a_figure_turned_down_as_too_much_is_not_the_sum() -> None:
    assert bare_figure("the landlord says 1200's too much, so 1150 it is") == "1150"
    assert bare_figure("boss says 680's too much") == ""


def test_how_much_rent_asks_a_sum() -> None:
    question = "How much rent does the lodger pay?"
    assert asked(question, plan_question(question, T0)).kind == "money"
    said = rec(1, "Room 3, the lodger, rent is £640 a month, paid on the 2nd.")
    assert read(question, said) == ("£640 a month", ["src-1"])


def test_a_robot_echo_of_another_kind_of_the_thing_does_not_answer() -> None:
    """"Internet 45 a month." echoes "Our internet bill is 45 a month": asked for the water
    bill, the echo answers no more than the statement it repeats, which names another bill;
    asked for the internet bill, both answer, the person cited first."""
    said = turns("Our internet bill is 45 a month, split four ways.",
                 ("robot", "Internet 45 a month, four ways."))
    assert read("How much is the water bill?", *said) == ("", [])
    answer, cited = read("How much is the internet bill?", *said)
    assert "45" in answer and cited[0] == "src-1", (answer, cited)
    # A verb of the question said inflected sorts nothing: the echo answers.
    said = turns("Oh, and Giulia flies home to Milan on Friday, the 6pm flight.",
                 ("robot", "Giulia: Friday, 6pm."))
    answer, cited = read("When does Giulia fly home?", *said)
    assert "Friday" in answer and cited[0] == "src-1", (answer, cited)


def test_an_inflected_verb_of_the_question_is_no_other_kind() -> None:
    q = "When does the next episode go live?"
    assert other_kind("Our next episode goes live on the 12th.", q, inflected=True) is False
    assert other_kind("the blue kettles are in", "How many red kettles are there?",
                      inflected=True) is True


def test_the_same_thing_of_another_owner_is_a_look_alike() -> None:
    # "Jamal's fellowship" is not "Sana's fellowship", though Sana says it, later.
    said = turns(("Tariq", "Meanwhile Sana's fellowship application closes on the 24th, I "
                           "promised to read it."),
                 ("Sana", "Mine went in on time, thanks Tariq! Oh, and Jamal's fellowship, "
                          "the junior one, closes on the 28th."))
    answer, cited = read("When did Sana's fellowship application close?", *said)
    assert cited[:1] == ["src-1"] and "24" in answer, (answer, cited)
    answer, cited = read("When did Jamal's fellowship application close?", *said)
    assert cited[:1] == ["src-2"] and "28" in answer, (answer, cited)


def test_a_speaker_telling_their_own_does_not_answer_for_another_speaker() -> None:
    # Asked about Keira, who talks too: Sven's "I always go for …" is Sven's, not hers.
    said = turns(("Sven", "Friday's takeaway night. I always go for the Thai place, the green "
                          "curry."),
                 ("Keira", "Pizza for me, always."), ("robot", "Pizza for Keira."))
    answer, cited = read("What does Keira order on takeaway night?", *said)
    assert cited[:1] == ["src-2"] and answer.lower() == "pizza", (answer, cited)
    # Asked about Sven, his own words answer.
    assert read("What does Sven order on takeaway night?", *said)[1][:1] == ["src-1"]
    # A speaker pointing at someone may be telling the asked one's ("I'm taking her").
    assert speakers_own(said[0], frozenset({"keira"}))
    assert not speakers_own(rec(4, "I'm taking her to the dentist on Friday at four.",
                                 speaker="Sven"), frozenset({"keira"}))


def test_a_title_with_a_full_stop_starts_a_name_mid_sentence() -> None:
    # "Dr." ends no sentence: the name after it is written capitalised mid-sentence.
    said = "Whitcombe's too busy, so it's Dr. Adeyemi who's mentoring me now."
    assert names_in(said, set(), set()) == [(30, "Dr. Adeyemi")]
    assert "adeyemi" in capitalised_mid_sentence([said])
    assert read("Who is my mentor?", rec(1, said))[0] == "Dr. Adeyemi"


def test_a_sentence_that_settles_on_a_figure_is_what_the_record_comes_to() -> None:
    """"…, so we knocked forty quid off. Call it £610.": the sentence that says nothing but
    the figure and words that settle on it ("then", "call it", "so … now") is the amount the
    rest of the record works out to, not the change or the other figure beside it."""
    assert settled("Five, then.", "Five") and settled("Call it £610.", "£610")
    assert settled("So, 52 now.", "52")
    assert not settled("Six stalls, they reckon.", "Six stalls")
    assert not settled("I'm in 40 now.", "40")
    answer, _ = read("How much is the allotment rent?",
                     rec(1, "The committee's doing the hedges now, so they knocked forty quid "
                            "off our allotment rent. Call it £610."))
    assert answer == "£610"
    answer, _ = read("How many stalls are at the craft fair?",
                     rec(1, "The village hall flooded, so the craft fair lost nine stalls to the "
                            "rain. Twenty-one, then."))
    assert answer.lower() == "twenty-one"
    # Only the last sentence giving a figure sums the record up.
    answer, _ = read("How many are in the under-tens squad?",
                     rec(1, "Right, forty. The under-tens squad is still twelve."))
    assert answer.lower() != "forty"
