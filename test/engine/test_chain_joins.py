"""What lets a later statement join the chain from a question's best match (issue 14).

Each test is a change the chain used to miss for a reason that said nothing of the
thing: an amount of two figures, a number word opening a sentence, a code of letters and
figures in the question, a correction said to the speaker's face. Real SQLite ledger,
the real MiniLM encoder, the CPU extractor and projector, questions through
``QueryEngine.ask``; the look-alike each rule must still turn away beside it.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language import revision  # noqa: E402
from trace_ros.ledger import Ledger, SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402

CHATTER = [(7, "Bea", "The fog this morning was so thick I could barely see the gate."),
           (7, "robot", "Take care on the roads."),
           (8, "Bea", "Baked a lemon drizzle for the neighbours, half of it's gone already.")]


def test_an_amount_moved_to_a_figure_of_two_digits_revises_it() -> None:
    """"down to 10" moves a dose as "down to two" does: the figure is the whole number."""
    assert current._remeasured("sertraline, 50 milligrams every night", "they've taken me "
                               "down to 25, the doctor's pleased")
    assert current._remeasured("sertraline, 50 milligrams every night", "settled me on 37.5")
    assert not current._remeasured("sertraline, 50 milligrams every night",
                                   "the bus into town was 25 minutes late")


def test_a_number_word_opening_a_sentence_names_no_other_thing(ledger: Ledger,
                                                               encoder: MiniLMEncoder) -> None:
    """"Fourteen chairs" is a count, not another firm's chairs beside the Pemberton ones:
    only a name before the thing ("the Ashby chairs") tells another thing apart."""
    history(ledger, encoder, [
        (6, "Bea", "The Pemberton christening wants ten chairs, the folding ones."),
        (6, "robot", "Noted: ten folding chairs for the Pemberton christening."),
        *CHATTER,
        (9, "Bea", "Pembertons again, they've asked the godparents' families. Fourteen chairs "
                   "now, they promise that's it."),
    ])
    res = ask(ledger, encoder, "How many chairs for the Pemberton christening?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
    thing = frozenset({"chair"})
    assert current._before_thing("Fourteen chairs now.", thing) == set()
    assert current._before_thing("The chairs are stacked.", thing) == set()
    assert current._before_thing("The Ashby chairs are stacked.", thing) == {("ashby", "chairs")}


def test_a_code_in_the_question_is_no_instance_a_plain_number_replaces(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"the U14s" names a team: "we're on 6 now" gives its court, not another team's; a
    plain number asked ("court 2") is still another instance than "court 6"."""
    history(ledger, encoder, [
        (6, "Bea", "The U14s play their home games on court 2 at the sports centre."),
        (6, "robot", "Noted: U14s on court 2."),
        *CHATTER,
        (9, "Bea", "Court 2's floor is being relaid, so we're on 6 for the rest of the season."),
    ])
    res = ask(ledger, encoder, "Which court do the U14s play on now?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
    team = revision.values_named("Which court do the U14s play on now?")
    assert not revision.other_instance("We're on 6 for the rest of the season.", team)
    assert revision.other_instance("The U16s are on court 4.", team)
    assert revision.other_instance("Court 6 is free.", revision.values_named("Is court 2 free?"))


def test_a_correction_said_to_the_speakers_face_revises_their_turn(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"No, Dad, it's the 16th." answers the turn just before it, though it names neither
    the clinic nor the appointment: said to the speaker, with another day in place of the
    one they gave, it is the current record."""
    history(ledger, encoder, [
        (6, "Gerald", "The hearing clinic letter's here. I'm booked in for the 14th, I think."),
        (6, "robot", "Hearing clinic on the 14th, noted."),
        (6, "Maeve", "No, Dad, it's the 16th. The 14th is your dentist."),
        (6, "robot", "Thanks. Hearing clinic on the 16th, dentist on the 14th."),
        *CHATTER,
    ])
    res = ask(ledger, encoder, "What date is my hearing clinic appointment?")
    assert res.source_ids[:1] == ["t2"], (res.answer, res.source_ids)


def test_thanks_said_to_the_speaker_is_no_correction(ledger: Ledger,
                                                      encoder: MiniLMEncoder) -> None:
    """Addressing the speaker is not enough: "Thanks, Mrs Ruiz. Her neighbour in 12 …"
    gives no value in place of one of hers, so her own statement stays current."""
    history(ledger, encoder, [
        (6, "Mrs Ruiz", "Dear, the cream is only for my right hand. The left is fine."),
        (6, "robot", "Right hand only."),
        (6, "Tom", "Thanks, Mrs Ruiz. Her neighbour in 12 has the cream on both hands."),
        *CHATTER,
    ])
    res = ask(ledger, encoder, "Which hand does Mrs Ruiz's cream go on?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)


def test_a_near_turn_denying_the_anchors_value_revises_it(ledger: Ledger,
                                                          encoder: MiniLMEncoder) -> None:
    """"No muesli tomorrow … Toast." asks no time and says no "now", but it denies the
    value the anchor gave: near in meaning, it is the current record."""
    history(ledger, encoder, [
        (6, "Bea", "Muesli for breakfast please, with a splash of cold milk."),
        (6, "robot", "Muesli with cold milk for breakfast."),
        *CHATTER,
        (9, "Bea", "No muesli tomorrow. It's like eating gravel. Toast."),
        (9, "robot", "Okay."),
    ])
    res = ask(ledger, encoder, "What do I have for breakfast?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
    # Denying a word of what is asked ("no keys outside" for the bike key) is no sign.
    anchor = "The bike lock key goes in the drawer by the sink."
    assert revision.joins("No more porridge. Cornflakes.", frozenset({"breakfast"}), 0.7,
                          True, "Porridge for breakfast, with honey.")
    assert not revision.joins("The landlord wants no keys hidden outside.",
                              frozenset({"bike", "lock"}), 0.6, True, anchor,
                              asked=frozenset({"bike", "lock", "kei"}))


def test_a_name_with_accents_is_a_holder(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"Renée's piano exam": a name written with an accent is a holder like any other, so
    a later turn about her ("… moved her exam") is about the one the question names, not
    a third person's exam."""
    history(ledger, encoder, [
        (6, "Bea", "Renée's grade five piano exam is on Saturday the 11th, at the music school."),
        (6, "robot", "Renée's piano exam: Saturday 11 October."),
        *CHATTER,
        (9, "Bea", "Renée rang, the exam board has moved her exam to the Tuesday after."),
        (9, "robot", "Okay."),
    ])
    res = ask(ledger, encoder, "When is Renée's piano exam now?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
    assert "renée" in revision.holders("When is Renée's piano exam now?")
    assert revision.spoken_to("No, Zoë, it's the 9th.") == frozenset({"zoë"})


def test_a_value_said_to_carry_on_that_the_thread_no_longer_holds_is_another_things(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"The greenhouse watering on Thursdays is still Omar" after "Leah's got Thursdays
    now": a
    value said to carry on that the latest revision does not state is another thing's
    (a different rota that kept its helper), not the asked one going back; "the bins go
    out on Thursdays too" shares the thread's value with something more. A clause that
    states a value with no such word may be the change itself ("so it's Mondays now,
    still ten though")."""
    history(ledger, encoder, [
        (6, "Bea", "Allotment rota's agreed. I water on Tuesdays and Thursdays, Leah does "
                   "Mondays and Fridays."),
        (6, "robot", "Noted: you water Tuesdays and Thursdays, Leah Mondays and Fridays."),
        *CHATTER,
        (9, "Bea", "Leah's shifts moved, so we've traded: she's got Thursdays now and I'm on "
                   "Fridays."),
        (9, "robot", "Okay."),
        (9, "Bea", "Oh and the greenhouse watering on Thursdays is still Omar, for the "
                   "tomatoes."),
        (9, "robot", "Noted."),
    ])
    res = ask(ledger, encoder, "Who does the watering on Thursdays?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
    head = "She's got Thursdays now."
    assert current._another_kept("The litter pick on Thursdays is still Omar.", head,
                                 frozenset())
    assert current._another_kept("The bins go out on Thursdays too.", head, frozenset())
    assert not current._another_kept("I'm doing Saturdays too.", head, frozenset())
    assert not current._another_kept("So it's Mondays now, still ten though.", head,
                                     frozenset())
    assert not current._another_kept("Still Thursdays for her, yes.", head, frozenset())


def test_we_will_speaks_for_the_speaker(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"we'll be starting …" is said in the first person as "we're" is: a record with it
    tells of the speaker's own state, though it greets someone by name ("Morning Bea")."""
    history(ledger, encoder, [
        (6, "Bea", "Vik says the decorators start on the hallway on Monday the 13th."),
        (6, "robot", "Noted: decorators start on the hallway on Monday 13 October."),
        *CHATTER,
        (9, "Vik", "Morning Bea, bad news on the paint order, it's delayed, we'll be starting "
                   "the Wednesday after, the 22nd."),
        (9, "robot", "Okay."),
    ])
    res = ask(ledger, encoder, "When do the decorators start on the hallway?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
    assert not revision.about_another("Morning Bea, we'll be starting on the 22nd.",
                                      frozenset())
    assert revision.about_another("Morning Bea, Dan starts on the 22nd.", frozenset())


def test_another_event_on_the_asked_day_does_not_join() -> None:
    """"Chimney sweep's booked. Wednesday, two o'clock." shares only the day with "What
    time is the piano tuner coming on Wednesday?": a second event on that day, not the
    tuner's new time; a record near the anchor that names the day still joins ("Karen's
    got Wednesdays now" for the Wednesday school run)."""
    thing = revision.question_terms("What time is the piano tuner coming on Wednesday?")
    anchor = "Piano tuner's coming Wednesday at 10 to do the upright in the hall."
    later = "Chimney sweep's booked for the lounge fire. Wednesday, two o'clock."
    assert not revision.joins(later, thing, 0.31, True, anchor, True)
    assert revision.joins(later, thing, 0.55, True, anchor, True)
    assert revision.joins("The tuner's running late, Wednesday at two now.", thing, 0.31,
                          True, anchor, True)


def test_a_reply_is_read_with_the_question_a_person_put_to_the_speaker(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"Fine, one. Spoilsport." names no thing: read after the carer's "we're going down
    to one spoon from today, alright?" it answers, it gives the porridge's new count, as a
    reply to the robot's question does."""
    history(ledger, encoder, [
        (6, "Bea", "Four spoons of sugar in my porridge, please."),
        (6, "robot", "Four spoons of sugar in your porridge."),
        *CHATTER,
        (8, "Bea", "The doctor has had words. Three spoons of sugar in my porridge, he says."),
        (8, "robot", "Three spoons from now on."),
        (9, "Tom", "Bea, the nurse wants us going down to one spoon from today, alright?"),
        (9, "Bea", "Fine, one. Spoilsport."),
    ])
    res = ask(ledger, encoder, "How many spoons of sugar do I have in my porridge?")
    assert res.source_ids[:1] == ["t8"], (res.answer, res.source_ids)



def test_someone_telling_the_holder_to_their_face_what_they_changed_revises_it(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"Bea, that drawer kept jamming, so I moved the torch." is said to the anchor's
    speaker by the one who moved her thing: it speaks for her, though it is not hers to
    say. Said to her of a change no one speaking made ("Bea, the Carters' torch has been
    moved to their shed") it is someone else's."""
    history(ledger, encoder, [
        (6, "Bea", "My big torch lives in the drawer by the back door."),
        (6, "robot", "Noted: the torch is in the drawer by the back door."),
        (7, "Bea", "Power cut last night, and my big torch was right there in the drawer by "
                   "the back door, thank goodness."),
        *CHATTER,
        (9, "Tom", "Bea, the Carters' torch has been moved to their shed, by the way."),
        (9, "Tom", "Bea, that drawer kept jamming, so I moved the torch. Cupboard under the "
                   "stairs now."),
        (9, "robot", "Okay."),
    ])
    res = ask(ledger, encoder, "Where is my big torch?")
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)
    assert "under the stairs" in res.answer.lower(), res.answer


def test_a_turn_telling_the_holder_by_name_in_the_second_person_speaks_for_them() -> None:
    """"Emil, I'm putting you on evening dishes, after dinner." tells Emil of his own shift,
    to his face, though no word marks it as new: it speaks for him (it had needed one).
    Asking him ("…, that's not your one, is it?") tells him nothing, nor does a turn that
    names him without telling him anything of his ("Emil, the Carters' van has gone")."""
    assert current._told_to("Emil, I'm putting you on evening dishes, after dinner. "
                            "You're useless before ten.") == {"emil"}
    assert current._told_to("Mei, work's ordering from Baan Thai on Bridge Street. "
                            "That's not your one, is it?") == frozenset()
    assert current._told_to("Emil, the Carters' van has gone.") == frozenset()
    assert current._told_to("Agnes, I've put your batteries in the top drawer.") == {"agnes"}
    # Between two people talking without the robot, every turn addresses the other: only
    # a change marked as new tells them of theirs.
    assert current._told_to("Emil, you're on evening dishes.", before_robot=False) == frozenset()
    assert current._told_to("Emil, you're on evening dishes now.", before_robot=False) \
        == {"emil"}


def test_a_time_given_to_it_marked_as_new_is_the_threads_next_step(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"The hall's double-booked, so it's half seven now." names none of the quiz's
    words: its speaker gives "it", the thing under talk, a new time marked as new, and
    the question (a time asked) recalls it."""
    history(ledger, encoder, [
        (6, "Bea", "The pub quiz at the Fox starts at eight on Thursday."),
        (6, "robot", "Noted: quiz at eight on Thursday."),
        *CHATTER,
        (9, "Bea", "Bad news from the landlord. The hall's double-booked, so it's half seven "
                   "now."),
    ])
    res = ask(ledger, encoder, "What time does the pub quiz start?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_a_time_given_to_it_after_another_value_is_another_things(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"Six was dead, nobody came. So now it's seven." moves from a time the quiz never
    had: "it" is another thing, and the quiz's own time stands."""
    history(ledger, encoder, [
        (6, "Bea", "The pub quiz at the Fox starts at eight on Thursday."),
        (6, "robot", "Noted: quiz at eight on Thursday."),
        *CHATTER,
        (9, "Bea", "Six was dead, nobody came. So now it's seven."),
    ])
    res = ask(ledger, encoder, "What time does the pub quiz start?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)


def test_a_consequence_naming_the_thing_is_its_state_whatever_the_reasons_subject(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"Marta's got a late shift Sunday, so the book club meeting slides a day." names
    Marta only for the reason: the clause after "so" names the thing and no one, so it
    tells the meeting's state. A consequence about someone ("so his meeting is Friday")
    or naming none of the thing's words stays theirs."""
    thing = frozenset({"book", "club", "meet"})
    said = "Marta's got a late shift Sunday, so the book club meeting slides a day."
    assert not revision.about_another(said, frozenset(), thing)
    assert revision.about_another(said, frozenset())  # (without the thing, as before)
    assert revision.about_another("Marta's dentist moved, so his meeting is Friday now.",
                                  frozenset(), thing)
    assert revision.about_another("Marta's got a late shift Monday, so she's swapping with "
                                  "Dan.", frozenset(), thing)
    history(ledger, encoder, [
        (6, "Bea", "Book club meeting is Sunday at seven, at mine."),
        (6, "robot", "Noted: book club Sunday at seven."),
        *CHATTER,
        (9, "Bea", said),
    ])
    res = ask(ledger, encoder, "When is the book club meeting?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_a_turn_telling_the_robot_of_the_holder_in_the_third_person_speaks_for_them(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"The cetirizine makes her drowsy … Loratadine now" is told of Bea in front of her
    (she answers in the same conversation): "her", with no one named before it, is the one
    present, and the change is hers. Not when the speaker's own comes first ("My brother's
    cetirizine ran out, he's on loratadine now"), nor said where she takes no part."""
    history(ledger, encoder, [
        (6, "Bea", "For my hay fever I take cetirizine, one tablet every morning."),
        (6, "robot", "Cetirizine every morning."),
        (7, "Bea", "The doctor says to double up in June, so two cetirizine in the morning."),
        (7, "robot", "Two cetirizine in the mornings in June."),
        *CHATTER,
        (9, "Tom", "The cetirizine makes her drowsy, so the pharmacist has switched her. "
                   "Loratadine now, one a day."),
        (9, "robot", "Loratadine, one a day."),
        (9, "Bea", "I'm fine. He fusses."),
    ])
    res = ask(ledger, encoder, "What do I take for my hay fever?")
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)
    told = ledger.get_sources(["t7"])[0]
    later = ledger.get_sources(["t8", "t9"])

    def prior(seq: int) -> SourceRecord | None:
        return None

    assert current._told_of_present(told, "Bea", prior, lambda s: later, "robot")
    assert not current._told_of_present(told, "Bea", prior, lambda s: [], "robot")
    mine = replace(told, text="My brother's cetirizine ran out, he's on loratadine now.")
    assert not current._told_of_present(mine, "Bea", prior, lambda s: later, "robot")
