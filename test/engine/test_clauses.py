"""One clause cut (``language.clauses``) for the readers that ask which part of a text
says something: at a comma, colon, semicolon or dash, and at a conjunction that starts
a new predication; never inside a figure, nor after an abbreviation."""

from __future__ import annotations

from trace_ros.language.clauses import clauses, first_clause, sentence_clauses


def test_cuts_at_marks_and_conjunctions() -> None:
    assert clauses("Salon rang, they've shunted me to Friday, still 10 o'clock.") == [
        "Salon rang", "they've shunted me to Friday", "still 10 o'clock."]
    assert clauses("Made it — keys are on the hook; the van's back") == [
        "Made it", "keys are on the hook", "the van's back"]
    assert clauses("Email from Mrs Morgan - grandma's coming too") == [
        "Email from Mrs Morgan", "grandma's coming too"]
    assert clauses("Josh got a job so Carmen's doing the fish because he can't") == [
        "Josh got a job", "Carmen's doing the fish", "he can't"]
    assert clauses("I'm on 219 though I'd rather walk") == ["I'm on 219", "I'd rather walk"]
    assert clauses("It was 3. Now it's 4.") == ["It was 3.", "Now it's 4."]


def test_keeps_figures_and_abbreviations_whole() -> None:
    # The look-alikes: a colon or comma inside a figure, a hyphen inside a word, a full
    # stop after a title, a conjunction inside a word ("sandbox", "Anderson").
    assert clauses("Sundays 12 to 4:30, 1,000 steps") == ["Sundays 12 to 4:30", "1,000 steps"]
    assert clauses("Dr. Okafor moved my check-up") == ["Dr. Okafor moved my check-up"]
    assert clauses("Anderson's sandbox is soaked") == ["Anderson's sandbox is soaked"]
    assert clauses("") == []
    assert clauses("Sure, ") == ["Sure"]


def test_sentence_and_first_clause() -> None:
    assert sentence_clauses("Oh, fine. Then") == ["Oh", "fine. Then"]
    assert first_clause("said the hall's booked, so it's twenty-eight") == \
        "said the hall's booked"
    assert first_clause("said the hall's booked") == "said the hall's booked"


def test_value_clauses_keep_a_clock_time_whole() -> None:
    # revision's own cut parted "4:30" into "4" and "30"; a time with a space after its
    # comma still parts the clause.
    from trace_ros.language.revision import value_clauses
    assert value_clauses("Sure. Maya, swimming, Tuesdays at 4:30 at the leisure centre.") == [
        "Tuesdays at 4:30 at the leisure centre."]
    assert value_clauses("Salon rang, they've shunted me to Friday, still 10 o'clock") == [
        "they've shunted me to Friday", "still 10 o'clock"]


def test_written_clauses_keep_their_closing_mark() -> None:
    from trace_ros.language.clauses import written_clauses
    text = "It's at Ashfield Park on the 22nd, two o'clock kick-off."
    assert written_clauses(text) == ["It's at Ashfield Park on the 22nd,", "two o'clock kick-off."]
    # The look-alike: a conjunction is no mark to keep; a figure is not cut.
    assert written_clauses("Tuesdays at 4:30 and Fridays — bliss") == [
        "Tuesdays at 4:30", "Fridays—", "bliss"]
    assert [c.rstrip(",") for c in written_clauses(text)] == clauses(text)
