"""The extractive reader's abstention gates: a shown record that speaks of something else
does not answer a "which X?" or "who?" question, while one that tells X apart does.

The reader on a Pack, as in ``test_readers.py``.
"""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

MAY_8_2023 = float(calendar.timegm((2023, 5, 8, 13, 0, 0, 0, 0, 0)))


def read(question: str, *texts: str) -> tuple[str, list[str]]:
    records = [SourceRecord(i, f"src-{i}", "ann", "", "s1", "dialogue", "Ann", t, "", None, None,
                            {}, MAY_8_2023, False, MAY_8_2023, "h")
               for i, t in enumerate(texts, 1)]
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 2000, 20)
    out = ExtractiveReader().read(question, plan_question(question, MAY_8_2023), p)
    return out.answer, out.cited_ids


def test_an_amount_of_x_does_not_tell_which_x() -> None:
    # X said only after "of": how much of it, not which one.
    assert read("Which train does Sam take?", "Sam has had a long week of trains.") == ("", [])
    assert read("What brand of kibble does Biscuit eat?",
                "Biscuit gets a cup and a half of kibble, morning and evening.") == ("", [])
    # A count before X is how many, not which.
    assert read("Which physio is treating Mr Grady?",
                "Mr Grady's insurer has approved six physio sessions for his back.") == ("", [])
    # A word beside X that tells it apart still answers.
    assert read("Which site am I working on?", "I'm on the Slough warehouse site from Monday.") \
        == ("Slough warehouse site", ["src-1"])


def test_a_name_written_after_the_names_no_one() -> None:
    # "the Oak room" is a room: no answer to who chairs the meeting.
    assert read("Who is chairing the board meeting?",
                "Board meeting Thursday, ten o'clock, in the Oak room.",
                "Booked: board meeting, Thursday 12 February, 10am, Oak room.") == ("", [])
    # A person named beside the meeting does.
    answer, cited = read("Who is chairing the board meeting?",
                         "Board meeting Thursday in the Oak room, Priya is chairing it.")
    assert answer == "Priya" and cited == ["src-1"]


def test_a_name_that_has_the_thing_is_not_its_name() -> None:
    # Geoff has physio; he is not the physio.
    assert read("What's my physio's name?", "Noted: Geoff, shoulder physio on Fridays.",
                "My husband Geoff has physio too.") == ("", [])
    assert read("What's the vet's name?", "Our vet is called Dr Shah.") == ("Dr Shah", ["src-1"])


def test_a_state_asked_of_someone_by_name_is_told_of_them() -> None:
    # The speaker's own tea says nothing of Bernie's.
    assert read("How many sugars does Bernie take?",
                "I'll have a strong builder's tea, two sugars, whenever you're making one.",
                "Bernie's coming round later.") == ("", [])
    assert read("How many sugars does Bernie take?", "Bernie takes his tea with two sugars.") \
        == ("two sugars", ["src-1"])


def test_a_value_that_says_back_the_question_is_no_value() -> None:
    # "up for the dinner" is no time: the record that says when answers.
    answer, cited = read("When does Kevin come up for his dinner?",
                         "Kevin's coming up on Sunday for his dinner.",
                         "Kevin's up for the dinner, he said.")
    assert answer.startswith("Sunday") and cited == ["src-1"]


def test_a_sum_of_money_is_no_time() -> None:
    assert read("What time does the shop open in the morning?",
                "Prices for the shop board: Bramleys £2.40 a kilo, Coxes the same.",
                "Shop's open Thursday to Sunday.") == ("", [])
    assert read("What time does the shop open in the morning?",
                "Prices for the shop board: Bramleys £2.40 a kilo.",
                "The shop opens at 9.30 in the morning.") == ("9.30", ["src-2"])


def read_said(question: str, *lines: tuple[str, str]) -> tuple[str, list[str]]:
    """``read`` with each record's speaker: (speaker, text)."""
    records = [SourceRecord(i, f"src-{i}", "ann", "", "s1", "dialogue", speaker, text, "", None,
                            None, {}, MAY_8_2023 + i, False, MAY_8_2023 + i, "h")
               for i, (speaker, text) in enumerate(lines, 1)]
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 2000, 20)
    out = ExtractiveReader().read(question, plan_question(question, MAY_8_2023), p)
    return out.answer, out.cited_ids


def test_who_is_speaking_is_not_who_does_it() -> None:
    assert read_said("Who is driving the van for the Freshway pickup?",
                     ("Liz", "Hi, it's Liz from Freshway. From next week, could you collect on "
                             "Thursday mornings?"),
                     ("Pam", "Freshway pickup is Tuesdays at 2.")) == ("", [])
    answer, _ = read_said("Who is driving the van for the Freshway pickup?",
                          ("Pam", "Tom is driving the van for the Freshway pickup."))
    assert answer == "Tom"


def test_a_speaker_who_says_they_do_it_is_who() -> None:
    """ "it's Calum. … so I'll be doing your hens myself": the one speaking says they do
    what is asked. A speaker's first-person clause about something else tells no one."""
    answer, _ = read_said("Who's feeding my hens while I'm in Glasgow?",
                          ("Calum", "Morning Rhona, it's Calum. Ishbel's away to her sister's, "
                                    "so I'll be doing your hens myself."))
    assert answer == "Calum"
    assert read_said("Who's feeding my hens while I'm away?",
                     ("Calum", "Morning Rhona, it's Calum. I'm ringing about the fence, "
                               "the hens got out again.")) == ("", [])


def test_a_name_the_cited_record_says_of_someone_stands() -> None:
    # The cited record says the club as a name ("better than Liverpool"), though another
    # shown record writes "the Liverpool vs Chelsea match".
    answer, cited = read_said("Who does James support in football?",
                              ("John", "Did you watch the Liverpool vs Chelsea match?"),
                              ("James", "Of course! There is no club better than Liverpool!"))
    assert answer == "Liverpool" and cited == ["src-2"]


def test_what_someone_does_may_be_said_in_other_words() -> None:
    # "work" is what Karim does; the record says it as his nights.
    assert read_said("What hours does Karim work?",
                     ("Nadia", "My brother Karim's just started nights at the warehouse, ten till "
                               "six.")) == ("ten till six", ["src-1"])
    # Someone else's hours still say nothing of his.
    assert read_said("What hours does Karim work?",
                     ("Nadia", "Rota's gone sideways, so I'm covering lates, two till ten."),
                     ("Karim", "Ugh, Mondays.")) == ("", [])


def test_a_name_tied_to_another_thing_does_not_fill_the_slot() -> None:
    # "with Priyanka" says who the project is with, not which college: no answer.
    assert read("Which college is Tomasz transferring from?",
                "Tomasz starts in March on the soil study with Priyanka.",
                "Tomasz now on the soil sampling study with Priyanka.") == ("", [])
    # A question asking through the same preposition is told by it.
    assert read("Which courier do we post the orders with?",
                "Orders have gone with Parcelforce since the spring.") \
        == ("gone with Parcelforce", ["src-1"])


def test_a_value_said_of_the_thing_fills_a_category_never_named() -> None:
    # The record never says "colour" or "make": the value said of the thing is the answer.
    assert read("What colour are the bathroom blinds?",
                "Quick update, the bathroom blinds are charcoal.") == ("charcoal", ["src-1"])
    assert read("What make is the new dishwasher?",
                "The new dishwasher came this morning, it's a Bosch, very quiet.") \
        == ("Bosch", ["src-1"])
    # Something the thing has is not what it is: "the X of T" is not answered so.
    assert read("What's the warranty of the new dishwasher?",
                "The new dishwasher came this morning, it's a Bosch, very quiet.") == ("", [])


def led(question: str, text: str) -> tuple[str, list[str]]:
    """The reader on one record the graph stage marks current (its chain's lead)."""
    r = SourceRecord(1, "src-1", "ann", "", "s1", "dialogue", "Ann", text, "", None, None, {},
                     MAY_8_2023, False, MAY_8_2023, "h")
    p = pack([EvidenceItem(r, 1.0, {"graph": 1})], 2000, 20)
    out = ExtractiveReader().read(question, plan_question(question, MAY_8_2023), p)
    return out.answer, out.cited_ids


def test_the_current_record_keeps_a_word_of_the_thing_as_a_value() -> None:
    # The current record says what a word of T stays, or gives it after a colon.
    assert led("What colour are the bathroom tiles?", "The bathroom stays white, at least.") \
        == ("white", ["src-1"])
    assert led("What finish is the bathroom towel rail?",
               "Final answer on the towel rail: brushed brass. Don't laugh.") \
        == ("brushed brass", ["src-1"])
    # Not a time it stays on, nor from a record no chain leads with.
    assert led("What colour are the bathroom tiles?", "The bathroom stays Thursday.") == ("", [])
    assert read("What colour are the bathroom tiles?", "The bathroom stays white, at least.") \
        == ("", [])



def test_a_name_said_as_a_place_is_no_one() -> None:
    # "on carver rd" and "Carver Road" are one place: the teacher is never named.
    assert read_said("Who is my pottery teacher?",
                     ("Priya", "so my pottery class is wednesdays 6pm at the arts centre on carver rd"),
                     ("robot", "Pottery class: Wednesdays 6pm, Carver Road."),
                     ("Priya", "teacher said tonight the pottery group moves to fridays from next "
                               "week, same time"),
                     ("robot", "Updated: pottery on Fridays at 6pm from next week.")) == ("", [])
    # Someone's home ("at Nadia's") leaves her someone.
    answer, _ = read("Who is hosting the book club?",
                     "Book club is at Nadia's this month, Nadia is hosting.")
    assert answer == "Nadia"


def test_a_number_of_dialling_length_is_a_phone_number() -> None:
    # "Phone" names every phone: the record need not say it.
    answer, cited = read("What's Omar's phone number?",
                         "If the boiler plays up, ring my son Omar on 07911 223344.")
    assert "07911 223344" in answer and cited == ["src-1"]
    # A landline is one kind of phone: a mobile does not answer for it.
    assert read("What's Omar's landline number?",
                "If the boiler plays up, ring my son Omar on his mobile, 07911 223344.") == ("", [])


def read_current(question: str, *texts: str) -> tuple[str, list[str]]:
    """``read`` with the last record marked the graph stage's current one."""
    records = [SourceRecord(i, f"src-{i}", "ann", "", "s1", "dialogue", "Ann", t, "", None, None,
                            {}, MAY_8_2023 + i, False, MAY_8_2023 + i, "h")
               for i, t in enumerate(texts, 1)]
    items = [EvidenceItem(r, 1.0, {"graph": 1} if r is records[-1] else {}) for r in records]
    out = ExtractiveReader().read(question, plan_question(question, MAY_8_2023 + 10),
                                  pack(items, 2000, 20))
    return out.answer, out.cited_ids


def test_a_number_that_labels_another_thing_is_not_the_value_asked() -> None:
    # "Unit 14" says which unit the office is, not what floor it is on; "my locker's
    # number 6" is no gate code.
    assert read_current("What floor is our office on?", "Our office moved.",
                        "Our office is Unit 14 now.") == ("", [])
    assert read_current("What's the gate code?", "Gate's fixed.",
                        "I'm the new driver at the depot from today. My locker's number 6.") \
        == ("", [])
    # A number said of the thing asked still answers, and so does the label asked for.
    assert read_current("What floor is the new office on?", "We're moving office in March.",
                        "The new office is on floor 3.") == ("3", ["src-2"])
    assert read_current("What's the gate code?", "Gate's fixed.",
                        "The gate code is 4190 now.") == ("4190", ["src-2"])
    answer, cited = read_current("What's my locker number?", "Lockers are sorted.",
                                 "I'm the new driver at the depot from today. My locker's number 6.")
    assert "6" in answer and cited == ["src-2"]
    # A number with a unit after it is an amount, and one after a verb labels nothing.
    assert read_current("What dose of warfarin is Dad on?", "Dad's on warfarin.",
                        "The GP put Dad's warfarin up to 5 milligrams.") \
        == ("5 milligrams", ["src-2"])
    assert read_current("What's Sam's extension?", "Phones are sorted.",
                        "And Sam's inherited 214 from Jo.") == ("214", ["src-2"])


def test_an_age_is_no_time() -> None:
    # "he'll be six" says how old Pepper will be: no hour of the lunch asked about.
    q = "What time is the birthday lunch at the garden centre café?"
    assert read(q, "Pepper's birthday is that week too, he'll be six.",
                "Lunch at the garden centre café was lovely.") == ("", [])
    # The hour stated beside an age still answers.
    answer, cited = read(q, "Pepper's birthday is that week too, he'll be six.",
                         "The birthday lunch at the garden centre café is at one.")
    assert cited == ["src-2"] and ("one" in answer.lower() or "1" in answer), (answer, cited)


def test_the_noun_with_its_is_run_on_names_it() -> None:
    # "Our kitten's called Mochi": "kitten's" is "kitten is", the name is the kitten's.
    assert read("What's the kitten called?",
                "Our kitten's called Mochi, she's tiny.") == ("Mochi", ["src-1"])
    # Another noun so called names that one, not the kitten.
    assert read("What's the kitten called?",
                "Our dog's called Rex, he's scared of the kitten.")[0] != "Rex"


def test_a_phone_extension_is_the_extension_a_record_names() -> None:
    # "Phone" names every phone: the extension a record gives is the phone's.
    assert read("What's the caretaker's phone extension?",
                "Kwame the caretaker got a new extension in the reshuffle, it's 219 now.") \
        == ("219", ["src-1"])
    # A number only: "phone" does not stand for what numbers anything else.
    assert read("What's Omar's phone number?", "Omar's room number is 12.") == ("", [])


def test_a_month_tells_no_day() -> None:
    # "What day …?" asks a day: "next month" gives only the month.
    assert read("What day is next month's fire drill?",
                "There's a fire drill next month, unannounced.") == ("", [])
    # A day said stands.
    answer, cited = read("What day is the fire drill?", "The fire drill is on Thursday.")
    assert "Thursday" in answer and cited == ["src-1"]


def test_a_time_tells_not_how_something_went() -> None:
    # "How did the test go?" asks how it went: when it was is no answer.
    assert read("How did my daughter's driving test go?",
                "My daughter's doing her driving test on Friday, fingers crossed.") == ("", [])
    # How it went, said beside the day, still answers.
    answer, _ = read("How did my daughter's driving test go?",
                     "My daughter passed her driving test on Friday, first time!")
    assert "passed" in answer


def test_several_records_strung_together_tell_no_one_x() -> None:
    # "Which model …?" asks one X: spans of several records about the thing's charger
    # name no model, as one record's would not.
    assert read("Which model of hearing aids do I have?",
                "The charger for my hearing aids lives on the bedside table.",
                "The spare charger for my hearing aids is on the lounge sideboard.",
                "I moved the hearing aid charger to the landing windowsill.") == ("", [])
    # A record that names it still answers.
    answer, cited = read("Which model of hearing aids do I have?",
                         "My hearing aids are the Phonak Audeo, the charger lives on the "
                         "bedside table.",
                         "Spare charger on the lounge sideboard, for my hearing aids.")
    assert "Phonak Audeo" in answer and "src-1" in cited



def _said_by(question: str, *turns: tuple[str, str]) -> tuple[str, list[str]]:
    records = [SourceRecord(i, f"src-{i}", "ann", "", "s1", "dialogue", who, t, "", None, None,
                            {}, MAY_8_2023, False, MAY_8_2023, "h")
               for i, (who, t) in enumerate(turns, 1)]
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 2000, 20)
    out = ExtractiveReader().read(question, plan_question(question, MAY_8_2023), p)
    return out.answer, out.cited_ids


def test_a_record_naming_whom_asked_answers_where_none_says_the_thing() -> None:
    # Conor speaks too, so his name in a record counts as no word of the question; no
    # record says "work": the one naming him with a place tells where he works now.
    turns = (("Conor", "Morning, love."),
             ("Ann", "Conor's started at the fire station, by the way, he left the warehouse."))
    assert _said_by("Where does Conor work now?", *turns) == ("fire station", ["src-2"])
    # A time is not read so: someone named has one for each thing they do.
    timed = (("Josh", "Morning."), ("Ann", "Josh's dentist is Wednesday at four."))
    assert _said_by("What time is Josh's check-up?", *timed) == ("", [])
