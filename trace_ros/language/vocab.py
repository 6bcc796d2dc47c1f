"""Words both roads agree on: the nouns that name events, the number words, the function
words that carry a verb (the forms of "be", "have" and "do", the modals), and who the robot is."""

from __future__ import annotations

# Nouns that name something scheduled or happening ("the dentist appointment", "the flight").
EVENT_NOUNS = {
    "appointment", "meeting", "pickup", "pick-up", "delivery", "visit", "call", "session",
    "class", "lesson", "party", "dinner", "lunch", "breakfast", "checkup", "check-up", "exam",
    "test", "interview", "trip", "flight", "reservation", "booking", "date", "event",
    "ceremony", "show", "practice", "rehearsal", "procedure", "drop-off", "dropoff",
    "collection", "presentation", "deadline", "shift", "consultation", "course", "tour",
    "game", "match", "concert", "gathering", "get-together", "meetup", "celebration",
}


# The cardinal number words and what they count: "nineteen" 19, "forty" 40 ("forty-two"
# is read from its two words).
UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
TENS = {w: 10 * i for i, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}


# What a "how many" question counts that no mention of it need name: occasions and spans
# of time ("How many times has she …?", "How many weeks …?").
OCCASION_NOUNS = frozenset({
    "times", "occasions", "minutes", "hours", "days", "nights", "weeks", "weekends", "months",
    "years",
})

# The auxiliary "do": a question asked with it puts its verb bare after the subject
# ("Which school does Lucia go to?").
DO_AUXILIARIES = frozenset({"do", "does", "did"})
# The finite forms of "be" ("Where is …?", "What was …?").
BE_FORMS = frozenset({"am", "is", "are", "was", "were"})
# The forms of "have" ("Where has she …?", "had moved").
HAVE_FORMS = frozenset({"has", "have", "had"})
# The modal verbs ("will", "could", "must").
MODALS = frozenset({"will", "would", "can", "could", "shall", "should", "may", "might", "must"})
# The auxiliaries: a finite form of "be", "have" or "do", or a modal. A module that reads
# fewer or more says so where it uses them (``AUXILIARIES - {"am"}``).
AUXILIARIES = BE_FORMS | HAVE_FORMS | DO_AUXILIARIES | MODALS


ROBOT_NAMES = frozenset({"robot", "assistant", "bot", "agent", "system", "the robot"})


def is_robot(speaker: str, robot_id: str = "") -> bool:
    """Whether a dialogue turn is the robot's own: its speaker is the robot's ID or a
    role name ("robot", "assistant") rather than a person's name."""
    low = speaker.strip().lower()
    return bool(low) and (low in ROBOT_NAMES or (bool(robot_id) and low == robot_id.lower()))
