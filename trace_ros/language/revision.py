"""Is a later statement a new value of the same thing? The text side of currentness.

Both roads judge revisions with these helpers: consolidation when it links a new
record to earlier ones (``consolidation/supersede.py``), the query when it walks
from the record a question matches to later ones (``query/current.py``). The
vectors they already hold say how close two records are; the words below say
what they share and what differs:

- ``terms``: a record's content stems without its *values* (times, dates,
  numbers): what a statement is about. Two statements share a *thing* when they
  share such a term.
- ``values`` / ``values_named``: the times, dates and figures it states;
  ``replaces`` says whether one specific value gave way to another, or the later
  statement just restates the earlier ("still Monday at 3"); ``joins`` says why a
  later record speaks of the thing a question's best match states.
- ``holders``: whom a statement is about when that is not the speaker — a name,
  or a relative of the speaker ("my sister's appointment"): a statement about
  another holder is another thing.

Only closed-class words are listed (function words, the words of aspect that mark
continuity, kinship nouns, the words questions are built from); nothing is a
vocabulary of particular changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence, Set
from functools import lru_cache

from .clauses import clauses, first_clause, sentence_clauses
from .lazyre import lazy_re
from .monthday import DAY_OF_MONTH, MONTHS, WEEKDAY_WORD, WEEKDAYS, figure_of
from .text import STOPWORDS as BASE_STOPWORDS
from .text import built, folded_search, sentences
from .text import stem as _stem
from .timeanchor import HOLIDAY_WORDS, find_candidates, holidays_lowered, shifted
from .vocab import AUXILIARIES, BE_FORMS, DO_AUXILIARIES, EVENT_NOUNS, HAVE_FORMS

# Function words, and the chat fillers that carry no thing ("yeah", "ok").
STOPWORDS = BASE_STOPWORDS | frozenset("""
im ive id ill dont doesnt didnt isnt wasnt cant wont thats its yeah yes ok okay oh well
mr mrs ms miss dr prof sir madam
""".split())
# Words a question is built from rather than what it asks about.
QUESTION_SCAFFOLD = frozenset("""
time day days week month year now current currently still usually normally these
many much often long exactly again right anymore moment kind sort type""".split())
# Aspect words that say a value continues rather than changes.
CONTINUITY = frozenset({"still", "same", "usual", "again", "confirmed", "confirm",
                        "confirming", "unchanged", "remains", "stays"})
# Relatives and roles by which a speaker names another holder ("my sister's …").
KIN = frozenset("""
mum mom mother dad father parent parents sister brother son daughter wife husband partner
boyfriend girlfriend fiance fiancee friend neighbour neighbor grandma grandpa grandmother
grandfather nan gran aunt uncle cousin niece nephew boss colleague coworker flatmate roommate
housemate kid kids child children baby twins
""".split())
_NUMBER_WORDS = frozenset("""
zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
ninety hundred thousand half quarter first second third fourth fifth
""".split())
_MONTHS = frozenset(MONTHS)
_TIME_WORDS = frozenset(WEEKDAYS) | {w + "s" for w in WEEKDAYS} | _MONTHS | frozenset(
    "am pm noon midnight morning afternoon evening night tonight today tomorrow weekend "
    "weekends oclock".split())
_WORD = lazy_re(r"[^\W_]+(?:&[^\W_]+)*(?:'[a-z]+)?", re.UNICODE)  # "D&D" is one
# A capitalised word, accented letters too ("Chloé", "Róisín").
_UP, _LOW = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"
_NAME = lazy_re(rf"(?<![.!?]\s)(?<!^)\b([{_UP}][{_LOW}]{{2,}})\b|^([{_UP}][{_LOW}]{{2,}})(?='s\b)")
_NOT_NAMES = frozenset({w.capitalize() for w in _TIME_WORDS | HOLIDAY_WORDS | STOPWORDS | KIN}) \
    | {"I"}


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    """The words of ``text``, lower-cased, without apostrophes or a possessive "'s"
    (cached: each judgement below reads the same sentences again)."""
    if "'" not in text:  # most texts: no word to trim, so the lower-cased words as found
        return tuple(map(str.lower, _WORD.findall(text)))
    out = []
    for w in _WORD.findall(text):
        low = w.lower()  # once a word, not three times
        out.append(low[:-2] if low.endswith("'s") else low.replace("'", ""))
    return tuple(out)


@lru_cache(maxsize=65536)
def is_value_word(w: str) -> bool:
    """Whether ``w`` (a lower-cased word) is a value: a figure, a number or time word
    (kept per word: every judgement asks it of every word of the texts it reads)."""
    return w.isdigit() or any(ch.isdigit() for ch in w) or w in _NUMBER_WORDS \
        or w in _TIME_WORDS


@lru_cache(maxsize=65536)
def terms(text: str) -> frozenset[str]:
    """Stems of the content words that are not values: what the text is about."""
    return frozenset(_stem(w) for w in _words(text)
                     if w not in STOPWORDS and len(w) > 1 and not is_value_word(w))


@lru_cache(maxsize=65536)
def question_terms(question: str) -> frozenset[str]:
    """The question's content stems without the words questions are made of; the
    values it names belong to what it asks about ("the Wednesday school run")."""
    return keys(question) - {_stem(w) for w in QUESTION_SCAFFOLD}


@lru_cache(maxsize=65536)
def keys(text: str) -> frozenset[str]:
    """``terms`` and the time words and weekdays too ("wednesdays" ~ "wednesday"):
    what a text can be matched on."""
    return frozenset(_stem(w) for w in _words(text)
                     if w not in STOPWORDS and len(w) > 1 and not w.isdigit()
                     and w not in _NUMBER_WORDS)


@lru_cache(maxsize=65536)
def values(text: str) -> frozenset[str]:
    """The values a text states: time expressions (as written, lower-cased), numbers
    and time words."""
    out = {m.group(0).lower() for m in find_candidates(text)}
    out |= {w for w in _words(text) if is_value_word(w)}
    return frozenset(out)


# "Sam's appointment" (whether its "'s" is a possessive is ``is_possessive``'s to say).
_POSSESSIVE = lazy_re(r"\b([A-Za-z]+)['’]s\b", re.I)
# What follows a contracted "is"/"has" and never a possessor: a determiner or a
# possessive ("Sandra's my key worker"), or a closed-class word that opens a verb phrase
# ("Ivy's been promoted", "Sam's just left", "the gym's not open").
_AFTER_IS = frozenset("""my your our his her their the a an been got gone going just now
finally already still not never always also only even since""".split())
# Words that open a verb's object: a verb sits between "X's" and one ("Wojtek's put the
# labour up"), as no noun does.
_OBJECT_OPENERS = frozenset("the a an my your our his their its it them me us him this that "
                            "these those".split())
# Particles after a verb in "-ing" ("the gym's moving up spin"); a thing in "-ing" is
# followed by its verb or a preposition of place instead ("Sam's wedding is on Saturday").
PARTICLES = frozenset("up down back off out over round away forward".split())
_NEXT_TWO = lazy_re(r"\s+([A-Za-z]+)(?:\s+([A-Za-z]+))?")


def is_possessive(text: str, end: int) -> bool:
    """Whether the "'s" ending at ``end`` in ``text`` marks a possessive ("Wojtek's van"),
    not a contracted "is"/"has" ("Wojtek's put the labour up", "The gym's pushed spin to
    a quarter past seven", "Sandra's my key worker"): the word after it is a past
    participle in "-ed", a closed-class word that opens a verb phrase, a verb in "-ing"
    before a particle, or a word followed by an object's determiner. Nothing after it
    ("a sleepover at Freya's.") leaves it a possessive."""
    m = _NEXT_TWO.match(text, end)
    if m is None:
        return True
    word, nxt = m.group(1).lower(), (m.group(2) or "").lower()
    if word in _AFTER_IS or nxt in _OBJECT_OPENERS and not is_value_word(word):
        return False
    if len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        return False
    return not (word.endswith("ing") and nxt in PARTICLES)


_SENTENCE_END = lazy_re(r"[.!?;]")
_PRONOUN = lazy_re(r"\b(?:he|she|her|his|him|they|their|them)\b", re.I)


def _is_holder(word: str) -> bool:
    """A name ("Sam") or a relative ("sister") that can own a thing."""
    return (word[:1].isupper() and word not in _NOT_NAMES) or word.lower() in KIN


def same_holder(text: str, asked: frozenset[str], anchor: frozenset[str],
                thing: frozenset[str] = frozenset(), known: frozenset[str] | None = None
                ) -> bool:
    """Whether ``text`` can be about the holder a question asks about: it names one of
    ``asked`` (or refers back with a pronoun) when the question names someone; else
    no one the anchor did not name owns the thing in it ("Sam's appointment": a
    possessor right before a ``thing`` stem). ``known``: the names the conversation
    uses (``holders_known``), when the caller has them."""
    if asked:
        named = holders(text)
        # Opening a sentence, a name is one the conversation calls someone (``known``).
        opening = frozenset() if known is None else holders_known(text, known) - named
        # Texted all in lower case ("pete says hes doing 2pm rounds"), a name shows by no
        # capital: the one asked about is there when their name is.
        if (named | opening) & asked or text == text.lower() and asked & set(_words(text)):
            return True
        # Someone else holds it: not a word of the thing opening a sentence ("Hair's at
        # half nine now"), nor one opening on news passed on ("Jade says they've moved it").
        others = {w for w in named if _stem(w) not in thing} | (opening - _reporting(text))
        return not others - anchor - KIN and bool(_PRONOUN.search(text))
    for m in _POSSESSIVE.finditer(text):
        w = m.group(1)
        if not is_possessive(text, m.end()):
            continue
        # (not the thing itself opening a sentence: "Discount's from 500 units now")
        if not _is_holder(w) or w.lower() in anchor or _stem(w.lower()) in thing:
            continue
        after = _words(_rest_of_sentence(text, m.end()))[:3]
        if not thing or {_stem(x) for x in after} & thing:
            return False
    # "her gym locker is 114": a third person's thing of the same kind (in that sentence:
    # "BOC changed their route. Nitrogen comes Thursdays now." says whose the route is;
    # not when the sentence named them first by a word of the thing: "Ellis are collecting
    # Monday, so I've brought their crates up front" for the Ellis crates)
    return not any({_stem(x) for x in _words(_rest_of_sentence(text, m.end()))[:2]} & thing
                   and not _named_before(text, m.start(), thing)
                   for m in _THEIR.finditer(text)) if thing else True


def _named_before(text: str, at: int, thing: frozenset[str]) -> bool:
    """Whether the sentence of ``text`` that ``at`` is in names, before ``at``, someone
    by a word of the ``thing`` (a capitalised word whose stem it has)."""
    start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, at)), default=0)
    return any(_stem(w.lower()) in thing for w in _CAPITALISED.findall(text[start:at]))


_CAPITALISED = lazy_re(r"\b[A-Z][a-z]+\b")


def _rest_of_sentence(text: str, start: int) -> str:
    """``text`` from ``start`` to the end of its sentence."""
    return _SENTENCE_END.split(text[start:], maxsplit=1)[0]


_THEIR = lazy_re(r"\b(?:his|her|their)\b", re.I)


# Apostrophes kept: "were", "ill" and "id" written plain are words of their own ("they
# were moved", "gone home ill"); "ill" heading a sentence is the texted "I'll".
_FIRST_PERSON = frozenset("i i'm i've i'd i'll im ive me myself we we're we've we'll we'd us "
                          "our ours".split())
_TEXTED_I_WILL = lazy_re(r"(?:^|[.!?]\s+)ill\b", re.I)


def _first_person(text: str) -> bool:
    """Whether ``text`` has a first-person word."""
    return bool(_FIRST_PERSON & set(_WORDS_LOWER.findall(text.lower().replace("’", "'")))) \
        or bool(_TEXTED_I_WILL.search(text))


def about_another(text: str, named: Set[str], thing: Set[str] = frozenset(),
                  valued_only: bool = False) -> bool:
    """``_about_another`` of ``text`` with ``named`` and ``thing`` as frozensets (its
    cache's keys: the reader and the chain ask it of the same records and names for every
    later record and question)."""
    return _about_another(text, frozenset(named), frozenset(thing), valued_only)


# A pronoun pointing at someone else's, or at them: "I keep grabbing hers", "I told him".
_POINTS_AT_OTHER = lazy_re(r"\b(?:his|hers|her|their|theirs|him)\b", re.I)


def _valued_part(text: str, thing: frozenset[str]) -> str:
    """``text`` without its asides: a sentence that states no value, names no word of
    ``thing`` and points at someone else by a pronoun ("I keep grabbing her coat by
    mistake") tells what the speaker does about another's, not whose the value is."""
    parts = [s for s in sentences(text) or [text]
             if values_named(s) or keys(s) & thing or not _POINTS_AT_OTHER.search(s)]
    return " ".join(parts) or text


@lru_cache(maxsize=4096)
def _about_another(text: str, named: frozenset[str], thing: frozenset[str],
                   valued_only: bool = False) -> bool:
    """Whether ``text`` speaks of someone else's state, not the speaker's: it names a
    holder outside ``named`` (the people a question or an earlier statement already
    names) and has no first-person word ("I", "we", "my" before a thing rather than a
    relative): "my flatmate Dev is doing keto", "Eileen next door has just been put on
    ibuprofen gel". ``thing``: the key words of what is asked; a consequence that names
    one of them and no one ("Ben's got a lab Monday night, so the bills meeting slides
    one more day") tells the thing's state, whatever the reason's subject.
    ``valued_only`` (with ``thing``): the first person counts only outside an aside
    (``_valued_part``): "Dana's got peg 41. I keep grabbing her coat by mistake." is
    Dana's; "The Fiesta gave up. We've got a van now, a blue Berlingo" is the speaker's."""
    # "my pal Alf", "my manager Karen": a relation named beside its person introduces
    # them; it is no thing of the speaker's.
    text_owned = _INTRODUCED.sub(" ", text)
    if valued_only and thing:
        text_owned = _valued_part(text_owned, thing)
    ws = _WORDS_LOWER.findall(text_owned.lower())
    if _first_person(text_owned):
        return False
    if any(w in ("my", "mine") and (i + 1 == len(ws) or ws[i + 1].split("'")[0] not in KIN)
           for i, w in enumerate(ws)):
        return False
    foreign = holders(_APPOSED.sub(" ", _SELF_INTRODUCED.sub(" ", text))) - named - _given(text)
    if not foreign or thing and all(source_of_change(text, h, thing) for h in foreign):
        return False
    if subject(text) in named:  # "Lottie's written Santa a letter": Lottie's state
        return False
    # Someone else's reason, then the state it leaves ("Mrs Hale can't do Tuesdays any
    # more, so it's Thursdays at half four"): a consequence naming no one and no one
    # by a pronoun, with a value, is the speaker's; one whose subject is someone already
    # named is theirs ("the boy playing Herod broke his arm, so Tom's been promoted").
    # So is a later sentence of its own ("Dr Walsh has gone home sick. On-call's bleep
    # 224 now."), not one about them ("His bleep is 224 now").
    parts = sentences(text) or [text]
    later = _CONSEQUENCE.split(parts[0])[1:] + [
        c for p in parts[1:] for c in _CONSEQUENCE.split(p)
        if not _THEIR.search(c) or subject(c) in named]
    # ("Mum's got a cold, so they'll come on the 29th": a plural pronoun cannot point at
    # the one person the reason names; it is the party whose the thing is.)
    return not any((values_named(c) or keys(c) & thing) and not holders(c) - named
                   and (not _PRONOUN.search(c) or _plural_past(c, foreign))
                   or subject(c) in named for c in later)


_PLURAL_PRONOUN = frozenset(("they", "their", "them"))
# A relative named in the singular is one person: "they" cannot be them alone (a firm or a
# name may be "they": "Fairway shuffled offices, they're on five now").
_ONE_KIN = frozenset(w for w in KIN if not w.endswith("s")) - {"children"}


def _plural_past(clause: str, foreign: Set[str]) -> bool:
    """Whether every pronoun of ``clause`` is plural ("they", "their", "them") while each of
    the ``foreign`` holders is a relative in the singular, so that the pronouns point past
    them to the party whose the thing is."""
    said = {w.lower() for w in _PRONOUN.findall(clause)}
    return said <= _PLURAL_PRONOUN and bool(foreign) and set(foreign) <= _ONE_KIN


# The ordinary verbs of reported speech and of wanting: "X said/told me/reckons/wants …"
# names X as whence the news or the wish comes, not as who holds the value told.
_REPORTING = frozenset("""say says said tell tells told ask asks asked want wants wanted
reckon reckons reckoned think thinks thought decide decides decided confirm confirms
confirmed rang phoned emailed texted wrote""".split())
# After the name, its verb, an auxiliary allowed: "Gregor's said", "Mum has just said".
_NAME_VERB = lazy_re(r"^(?:'s|'d|\s+(?:has|had|have|will|would|just))*\s+([a-z]+)\b(.*)$")
# The pronouns by which a clause tells its subject's own state ("she's on Tuesdays now",
# "hers is at ten"); "it"/"them" point at the thing, not at a person.
_HOLDER_PRONOUN = lazy_re(r"\b(?:he|she|they|hers|theirs|he's|she's|they're|they've)\b",
                          re.I)
_POSSESSIVE_PRONOUN = lazy_re(r"\b(?:his|her|their)\s+([a-z]+)", re.I)


_HAVING = frozenset("""s is are was were be been being has have had having got get gets
getting take takes took taken taking""".split())
_ACTED_ON = lazy_re(r"\s+(?:the|it|them)\b(.*)")


def _acts_on(said: re.Match[str], thing: frozenset[str]) -> bool:
    """Whether the verb after a name takes the asked thing itself as its object ("Wojtek's
    put the labour up"): not a verb of having or being, which tells the name's own."""
    verb, rest = said.group(1), _ACTED_ON.match(said.group(2))
    return verb not in _HAVING and _stem(verb) not in thing and verb not in STOPWORDS \
        and rest is not None and bool(keys(rest.group(0)) & thing)


def source_of_change(text: str, name: str, thing: frozenset[str]) -> bool:
    """Whether ``name`` (a holder ``text`` names) is only whence the news of the asked
    ``thing`` comes, not a holder of a value of its own: wherever named, it is the subject
    of a verb of reported speech or of wanting ("Mr Davies said …, so it's twenty-eight
    now", "the boss wants them Thursdays"), and the clause it opens tells no one's own
    state by a pronoun ("Sam said she's on lates", "Kim told me hers is at ten"), nor sets
    a possessive before the thing ("Kim wants her lesson moved"). A possessor ("Mrs Kaur's
    dialysis") or the subject of any other verb ("Ali's got the dentist") holds."""
    for m in re.finditer(rf"\b{re.escape(name)}\b", text, re.I):
        after = text[m.end():]
        clause = first_clause(after)
        said = _NAME_VERB.match(re.split(r"[.!?]", clause, maxsplit=1)[0])
        if said is None or not (said.group(1) in _REPORTING or _acts_on(said, thing)) \
                or _HOLDER_PRONOUN.search(said.group(2)) \
                or any(_stem(w) in thing for w in _POSSESSIVE_PRONOUN.findall(said.group(2))):
            return False
    return bool(thing)


# Personal pronouns and possessives: whoever they point at holds what the text tells.
_PERSONAL = frozenset("""i im ive id ill me my mine myself we were weve us our ours you youre
your yours he hes him his she shes her hers they theyre them their theirs""".split())


def unowned(text: str) -> bool:
    """Whether ``text`` tells of a thing no one holds: no person named, no pronoun
    ("The pool's closed on Friday for the deep clean."). Anyone may revise such a thing
    (the contractor who moves the closure to Saturday); a thing someone holds is theirs
    to revise or to have revised for them."""
    return not holders(text) and not {w.replace("'", "") for w in
                                      _WORDS_LOWER.findall(text.lower())} & _PERSONAL


_SECOND_PERSON = frozenset("you youre you're youve you've youll you'll youd you'd your yours "
                           "yourself".split())


@lru_cache(maxsize=65536)
def owners(text: str, speaker: str) -> frozenset[str]:
    """Whose state ``text`` tells, as lower-cased name words: the people it names (not
    one it only addresses, nor a relative, who is someone's by the speaker), its
    ``speaker`` when it speaks in the first person ("I", "my", "we"), and whom it
    addresses when it speaks to them and not of itself ("Gloria, you've been bumped to
    Wednesday"). Empty when it tells of no one's (``unowned`` says whether of no one's
    at all). Two speakers' statements tell of one holder's thing when theirs meet."""
    ws = {w.replace("'", "") for w in _WORDS_LOWER.findall(text.lower().replace("’", "'"))}
    own = set(named(text) - KIN)
    if _first_person(text) or ws & {"my", "mine"}:
        own |= {w.lower() for w in re.findall(r"[^\W\d_]+", speaker)}
    elif ws & {w.replace("'", "") for w in _SECOND_PERSON}:
        own |= _spoken_to(text)
    return frozenset(own)


# The second person as the one spoken to would say it of themselves; "you" as a subject
# (a clause's start, after a conjunction or an auxiliary asking) is "I", else "me".
_AS_LISTENER = {"your": "my", "yours": "mine", "yourself": "myself", "you're": "I'm",
                "youre": "I'm", "you've": "I've", "youve": "I've", "you'll": "I'll",
                "you'd": "I'd"}
_SECOND_WORD = lazy_re(r"\b(?:your|yours|yourself|you['’](?:re|ve|ll|d)|youre|youve|you)\b",
                       re.I)
_YOU_AS_SUBJECT = lazy_re(r"(?:^|[.!?,;:—–-]|\b(?:and|but|so|because|if|when|that|now|then|"
                          r"do|did|are|were|have|has|can|could|will|would))\s*$", re.I)


def as_listener(text: str) -> str:
    """``text`` in the words of the one it speaks to: the second person made the first
    ("Irene, your water tablet's at lunchtime now" → "Irene, my water tablet's at
    lunchtime now"). News told to a person of their own thing ("Gloria, you've been bumped
    to Wednesday") then reads as their own statement of it would."""
    def first(m: re.Match[str]) -> str:
        word = m.group(0).lower().replace("’", "'")
        if word != "you":
            return _AS_LISTENER[word]
        return "I" if _YOU_AS_SUBJECT.search(text[:m.start()]) else "me"
    return _SECOND_WORD.sub(first, text)


_OURS = lazy_re(r"\b(?:my|mine|our|ours)\b", re.I)


def of_listener(text: str) -> bool:
    """Whether ``text``, spoken to someone, may tell of their thing: it speaks to them
    in the second person ("your scan's moved"), or of no thing of the speaker's ("Agnes,
    the letter came. Drops go down to twice a day"; "Bea, I took the key off that hook":
    what the speaker did to it); not the speaker's own ("Ana, my scan's moved")."""
    return bool(_SECOND_WORD.search(text)) or not _OURS.search(text)


_SUBJECT = lazy_re(r"\s*([A-Z][a-z]+)(?:['’](?:s|ll|d)\b|\s+[a-z])")


def subject(clause: str) -> str:
    """The name a clause opens with as its subject, lower-cased ("Tom's been promoted"),
    or ''."""
    m = _SUBJECT.match(clause)
    return m.group(1).lower() if m else ""


def value_clauses(text: str) -> list[str]:
    """The clauses of ``text`` that name a value ("they've shunted me to Friday" and
    "still 10 o'clock" in "Salon rang, they've shunted me to Friday, still 10 o'clock")."""
    return [c for c in clauses(text) if values_named(c)]


_DETERMINERS = frozenset("the a an this that these those".split())
_AUXILIARIES = AUXILIARIES - {"am"} | {"be", "been"}
_SUBJECT_WORDS = lazy_re(r"[A-Za-z]+(?:['’][a-z]+)?")
_NP_REACH = 4  # words a noun phrase may run before its verb


def new_subject(text: str, known: frozenset[str]) -> bool:
    """Whether every sentence of ``text`` that gives a value opens (or else each of its
    clauses that gives one opens) with a noun phrase none of whose words is ``known``
    (stems of the question's and the thread's words) nor a value:
    "Quiz night's on Fridays now" brings up another weekly thing beside the bingo the
    thread was about, not bingo's new night. A clause that opens with a pronoun or a verb
    ("It's Fridays now", "Moved it to Friday") may carry the thread on, so it is no
    other subject; nor is one where the speaker gives a value of their own ("The
    consulate's closed that day, mine's now the 5th": the agent of the change opens it)."""
    parts = clauses(text)
    if any((_first_person(c) or _MINE.search(c)) and (values(c) or shifts(c)) for c in parts):
        return False
    told = [s for s in sentences(text) or [text] if values_named(s)]
    return bool(told) and all(
        _unknown_opening(sentence, known)
        or all(_unknown_opening(c, known) for c in value_clauses(sentence))
        for sentence in told)


_MINE = lazy_re(r"\b(?:my|mine)\b", re.I)


def _unknown_opening(clause: str, known: frozenset[str]) -> bool:
    """Whether ``clause`` opens with a common-noun subject none of whose words is
    ``known``."""
    np = _opening_noun(_LEADING_CONJUNCTION.sub("", clause))
    if np is None:
        return False
    words = {w for w in np if not is_value_word(w)}
    return bool(words) and not ({_stem(w) for w in words} & known or words & known)


# Articles: "this", "that" and a possessive ("Her flight's been changed to Luton") point
# back to what the thread already speaks of.
_OPENERS = frozenset(("the", "a", "an"))


def _opening_noun(clause: str) -> tuple[str, ...] | None:
    """The common-noun phrase a clause opens with as the subject of its verb, lower-cased:
    the words up to an auxiliary or a "'s" that is "is" ("Quiz night's on Fridays now",
    "The quiz is on Friday") -> (quiz, night), (quiz); None for a pronoun, a verb, a name
    or a possessive ("Dad's vitamin D stays …")."""
    words = [w.replace("’", "'") for w in _SUBJECT_WORDS.findall(clause)]
    start = 1 if words and words[0].lower() in _OPENERS else 0
    np: list[str] = []
    for k, w in enumerate(words[start:start + _NP_REACH], start):
        base, _, suffix = w.partition("'")
        low = base.lower()
        if low in _AUXILIARIES and np:
            return _common(np, words[start])
        if low in STOPWORDS or low in KIN or k > 0 and base[:1].isupper():
            return None
        np.append(low)
        if suffix:
            after = words[k + 1].lower() if k + 1 < len(words) else ""
            return _common(np, words[start]) \
                if suffix == "s" and (after in STOPWORDS or is_value_word(after)) else None
    return None


def _common(np: list[str], first: str) -> tuple[str, ...] | None:
    """``np`` unless it is only values ("Friday's fine") or may be a name: one
    capitalised word with no determiner before it ("Sarah's on Fridays now")."""
    if all(is_value_word(w) for w in np) or len(np) == 1 and first[:1].isupper():
        return None
    return tuple(np)


_LEADING_CONJUNCTION = lazy_re(r"^\s*(?:so|and|but|then|because)\s+", re.I)


# What gives a thing its name: a copula, "with", "called" ("our plumber is Steve
# Wilkins", "Dad banks with Lloyds", "a firm called Aqua Fix"), a title between.
_GIVES = lazy_re(r"\b(?:is|are|was|were|with|called|named)\s+(?:(?:dr|mr|mrs|ms|miss)\.?\s+)?$",
                 re.I)


def _given(text: str) -> frozenset[str]:
    """The names ``text`` gives a thing: values, not people whose state it tells."""
    return frozenset(m.group(1).lower() for m in _NAME.finditer(text)
                     if m.group(1) and _GIVES.search(text[:m.start(1)]))


_CONSEQUENCE = lazy_re(r",?\s+so\s+|,\s+which\s+means\s+", re.I)


def follows_from(text: str) -> bool:
    """Whether ``text`` gives a state as what follows from something ("One of Alfie's
    mates has chickenpox, so we're at thirteen")."""
    return _CONSEQUENCE.search(text) is not None


# A relation named beside its person ("my pal Alf", "his colleague Mark"): one holder, the
# person, not the relation as a second; said with "my", it is no thing of the speaker's.
_BESIDE_NAME = r"\s+[a-z]+\s+(?=[A-Z][a-z]+\b)"
_INTRODUCED = lazy_re(r"\b[Mm]y" + _BESIDE_NAME)
_APPOSED = lazy_re(r"\b(?:[Mm]y|[Hh]is|[Hh]er|[Tt]heir|[Oo]ur|[Yy]our)" + _BESIDE_NAME)
_RELATION_NAME = lazy_re(r"\b[Mm]y\s+([a-z]+)\s+([A-Z][a-z]+)\b")


def introduced_as(texts: Iterable[str], relations: frozenset[str]) -> frozenset[str]:
    """The names ``texts`` give with one of the speaker's ``relations`` ("my daughter
    Judith" for "daughter"), lower-cased: whom a question asking after that relative
    means."""
    return frozenset(m.group(2).lower() for text in texts
                     for m in _RELATION_NAME.finditer(text) if m.group(1) in relations)


# A speaker saying who they are ("Hiya, it's Claire, Abby's sister", "I'm Anjali, Mr Patel's
# daughter"): whom they name there tells no one's state.
_SELF_INTRODUCED = lazy_re(r"\b(?i:i'm|i am|it's|it is|this is)\s+[A-Z][a-z]+,\s+"
                           r"(?:(?i:mr|mrs|ms|miss|dr)\.?\s+)?(?:[A-Z][a-z]+\s+)?"
                           r"[A-Z][a-z]+['’]s\s+[a-z]+")


_CAPITAL = lazy_re(rf"\b([{_UP}][{_LOW}]{{2,}})\b")
_GREETING = lazy_re(r"(?:^|[.!?]|\b(?:hi|hey|hello|thanks|thank you|yo|wow|oh|morning|"
                    r"evening|night|bye|cheers|sorry|congrats),?)\s*"
                    r"(?:(?:dr|mr|mrs|ms|miss|nurse|auntie|uncle)\.?\s+)?$", re.I)


@lru_cache(maxsize=65536)
def _spoken_to(text: str) -> frozenset[str]:
    """Names used to address someone: after a greeting or at a sentence's edge (a title
    between: "Thanks, Mrs Lowe."), and followed by a comma or the sentence's end
    ("Thanks, Priya!", "Hey Omar, …"). Kept per text: the chain asks it of every later
    record for each way it reads whose the record is."""
    out: set[str] = set()
    for m in _CAPITAL.finditer(text):
        after = text[m.end():m.end() + 2].lstrip(" ")
        before = text[:m.start()]
        if after[:1] in (",", "!", "?", ".") and (_GREETING.search(before)
                                                  or before.rstrip().endswith(",")):
            out.add(m.group(1).lower())
    return frozenset(out)


def spoken_to(text: str) -> frozenset[str]:
    """The names ``text`` addresses (lower-cased): "Leon, I'm stepping back …" → leon."""
    return _spoken_to(text)


@lru_cache(maxsize=65536)
def mentioned(text: str) -> frozenset[str]:
    """The words ``text`` writes capitalised, lower-cased, wherever they stand ("Iris
    asked me to tell you …"), but not a name it addresses ("Hey Iris, …")."""
    return frozenset(w.lower() for w in re.findall(r"[^\W\d_]+", text)
                     if w[:1].isupper()) - _spoken_to(text)


@lru_cache(maxsize=65536)
def named(text: str) -> frozenset[str]:
    """``holders`` the text speaks of, not those it speaks to ("Thanks, Priya!")."""
    return holders(text) - _spoken_to(text)


_WORDS_LOWER = lazy_re(r"[a-z]+(?:'[a-z]+)?")  # ASCII words, an apostrophe kept


# Words before a name that make it a place or a thing rather than someone: "at the Red
# Lion", "to Lakeside Lodge", "into the Crown".
_PLACE_BEFORE = frozenset("at in to from into onto near via towards toward outside inside "
                          "opposite behind around across the".split())
_BEFORE_WORD = lazy_re(r"([A-Za-z]+)\W*$")


_AFTER_POSSESSIVE = lazy_re(r"['’]s\b\W*([A-Za-z]*)")


def _owns(text: str, end: int) -> bool:
    """Whether the name ending at ``end`` owns a thing named after it ("to Alfie's
    party"), not a place named by its owner alone ("a sleepover at Freya's: …",
    "dinner at Marco's tonight")."""
    m = _AFTER_POSSESSIVE.match(text, end)
    if m is None or not is_possessive(text, end + 2):
        return False
    after = m.group(1).lower()
    return bool(after) and text[end + 2:m.start(1)].strip() == "" \
        and after not in STOPWORDS and after not in _TIME_WORDS


@lru_cache(maxsize=65536)
def holders(text: str) -> frozenset[str]:
    """Whom a text speaks of besides its speaker: capitalised names and kinship words
    (lower-cased). A name after a preposition of place or an article is a place, not a
    holder ("at the Red Lion"), unless it owns something ("to Alfie's party"); so is the
    rest of a name run that starts with one. A holiday ("Christmas", "New Year's Day") is
    a day, no one's name."""
    text = holidays_lowered(text)
    out: set[str] = set()
    place_run_end = -1
    for m in _NAME.finditer(text):
        name = m.group(1) or m.group(2)
        start = m.start(1) if m.group(1) else m.start(2)
        gap = text[place_run_end:start] if place_run_end >= 0 else "x"
        if gap.strip() == "":  # "Lion" after "Red": the same name run
            place_run_end = m.end()
            continue
        before = _BEFORE_WORD.search(text[:start])
        if before is not None and before.group(1).lower() in _PLACE_BEFORE \
                and not _owns(text, m.end()):  # "to Alfie's party": a holder
            place_run_end = m.end()
            continue
        place_run_end = -1
        if name not in _NOT_NAMES:
            out.add(name.lower())
    out |= {w for w in _words(text) if w in KIN}
    return frozenset(out)


_OPENING = lazy_re(rf"(?:^|(?<=[.!?])\s+)[\"“‘(]?([{_UP}][{_LOW}]{{2,}})\b")


def _reporting(text: str) -> frozenset[str]:
    """The names opening a sentence of ``text`` on a verb of reported speech ("Jade says
    they've moved it again"), lower-cased."""
    return frozenset(m.group(1).lower() for m in _OPENING.finditer(text)
                     if (said := _NAME_VERB.match(text[m.end():])) is not None
                     and said.group(1) in _REPORTING)


def holders_known(text: str, known: frozenset[str]) -> frozenset[str]:
    """``holders`` read with the names the conversation uses (``known``, lower-cased: the
    words it writes capitalised mid-sentence, its speakers' and the question's names): a
    capitalised word opening a sentence is someone when the conversation calls someone so
    ("Daniels is teaching on Fridays now" beside "Professor Daniels", "Martin says the
    café's shut"), as a name mid-sentence always is."""
    opening = {m.group(1).lower() for m in _OPENING.finditer(text)
               if m.group(1) not in _NOT_NAMES}
    # (not one the sentence opens by addressing: "Robot, you heard him, Sundays it is.")
    return holders(text) | (opening & known) - _spoken_to(text)


# What says a state is new: the adverbs of aspect ("now", "instead", "no longer") and
# the plain verbs of change themselves, not the verbs of particular changes.
_CHANGED = lazy_re(r"\b(?:now|instead|anymore|any more|no longer|from now on|these days|"
                   r"nowadays|switched|switching|moved|moving|changed|changing)\b"
                   # the time a new state holds from: "since Monday", "starting this week"
                   r"|\b(?:since|as of|starting)\s+(?:(?:this|last|next)\s+\w+|yesterday|today"
                   rf"|tomorrow|{WEEKDAY_WORD})\b"
                   # a present perfect passive tells a state just brought about: "Ivy's
                   # been promoted", "the camp has been pushed back" (not "it's been great")
                   r"|(?:\b(?:has|have)|['’](?:s|ve))\s+(?:just\s+|now\s+|finally\s+)?been\s+"
                   r"(?!need|seed|feed|speed|ten|often|open|even|green|keen|seen|seven|eleven)"
                   r"[a-z]+(?:ed|en|wn)\b"
                   # a speaker correcting what they just said: "Wait, no, sorry, 23."
                   r"|\b(?:wait,?\s+no|no,?\s+sorry|sorry,?\s+i\s+mean[t]?|i\s+meant|correction"
                   r"|scratch that|my mistake|my bad)\b", re.I)
_changed = folded_search(_CHANGED)


# A change denied: "nothing's changed", "it hasn't moved".
_UNCHANGED = lazy_re(r"\b(?:nothing(?:['’]s|\s+has)?|(?:has|have|had)(?:n['’]t|\s+not)|not|never)"
                     r"\s+(?:been\s+|really\s+)?(?:changed|moved|switched)\b", re.I)


# A "now" and the words of its sentence before it. A span of time ends the words when the
# "now" closes a duration ("for a while now", "been together seven years now"); the
# span is a rate instead after an article or a distributive ("twice a day now", "every
# day now": a value), unless "for" opens it ("for a year now").
_NOW = lazy_re(r"\bnow\b", re.I)
_SPAN_BEFORE = lazy_re(r"(?:\b(\w+)\s+)?(\w+)\s+(?P<unit>years?|months?|weeks?|days?|hours?"
                       r"|minutes?|decades?|while|ages|long|time)(?:\s+or\s+so)?\s*$", re.I)
_EACH = frozenset("per every each".split())
# An article opens a duration after these ("for a while", "just under a year"), a rate
# after anything else ("twice a day", "sixteen a week").
_SPANNING = frozenset("for under over about nearly almost than past in within".split())
# The perfect tells a state that has lasted up to now ("I've had them", "it's been"), and
# "for" / "since" just before the span measure how long it has lasted.
_PERFECT = lazy_re(r"\b(?:has|have|had)\b|['’](?:ve|d)\b|['’]s\s+been\b|\bbeen\s+\w+ing\b",
                   re.I)
_MEASURED = lazy_re(r"\b(?:for|since)\s+(?:\w+\s+){0,3}$", re.I)
# A sentence that opens on a long span and "now" ("Seven years now, and I've found …")
# says how long a state has lasted, the "it's been" left out; a short one ("Two hours
# now.") may be the value of an interval, so only months, years and decades count.
_ELLIPTIC = lazy_re(r"^\W*$")
_LONG = frozenset({"mon", "yea", "dec"})


def _lasting_now(before: str) -> bool:
    """Whether a "now" after ``before`` (its sentence so far) closes a duration ("I've
    had them for 3 years now", "it's been seven years now") or names the moment ("the
    main focus right now"), rather than setting a new state against an old one."""
    if re.search(r"\bright\s*$", before, re.I):
        return True
    span = _SPAN_BEFORE.search(before)
    if span is None:
        return False
    first, second = (span.group(1) or "").lower(), span.group(2).lower()
    if _ELLIPTIC.match(before[:span.start(2)]) and span.group("unit").lower()[:3] in _LONG:
        return second not in ("a", "an") and second not in _EACH  # "Seven years now, …"
    if not (_PERFECT.search(before[:span.start(2)])
            or _MEASURED.search(before[:span.start("unit")])):
        return False
    if second in ("a", "an"):
        return first in _SPANNING
    return second not in _EACH


def _change_text(text: str) -> str:
    """``text`` less each "now" that tells no change (``_lasting_now``)."""
    if "now" not in text.lower():
        return text
    cuts, pos = [], 0
    for sentence in sentences(text) or [text]:
        start = text.find(sentence, pos)
        if start < 0:
            continue
        pos = start + len(sentence)
        cuts += [(start + m.start(), start + m.end()) for m in _NOW.finditer(sentence)
                 if _lasting_now(sentence[:m.start()])]
    out, last = [], 0
    for a, b in cuts:
        out.append(text[last:a])
        last = b
    return "".join(out) + text[last:]


@lru_cache(maxsize=65536)
def marks_change(text: str) -> bool:
    """Whether the text marks its state as new ("he's Nacho now", "we're in Kilimanjaro
    instead"), not only as the same kind of thing said again. A "now" that closes a
    duration or names the moment ("I've been playing for a year now", "busy right now")
    marks none."""
    return _changed(_change_text(text))


# A state someone has just brought about, told in the present perfect active: "I've
# swapped with Gerda", "they've offered him the Leeds job" (the passive, "has been
# promoted", is ``_CHANGED``'s); not "I've been …", nor an adjective after "'s" ("she's
# often late", "he's keen").
_BROUGHT_ABOUT = lazy_re(
    r"\b(?:i|we|you|they|he|she)(?:['’]ve|['’]s|\s+have|\s+has)\s+"
    r"(?:just\s+|now\s+|finally\s+|already\s+)?(?:got\s+)?"
    r"(?!been\b|need|seed|feed|speed|ten\b|often|open|even|green|keen|seven|eleven)"
    r"[a-z]+(?:ed|en)\b", re.I)


def brought_about(text: str) -> bool:
    """Whether the text tells of a state someone has just brought about ("I've swapped
    with Gerda", "They've made him a supervisor"). Weaker than ``marks_change``: "I've
    joined a spin class" opens a first state as well, so only the caller knows whether
    it follows an earlier one."""
    return _BROUGHT_ABOUT.search(text) is not None


def denies_change(text: str) -> bool:
    """Whether the text marks a change only to deny it ("still four-hourly, nothing's
    changed"): what it says holds as before."""
    text = _change_text(text)
    return _changed(text) and not _changed(_UNCHANGED.sub(" ", text))


@lru_cache(maxsize=65536)
def continues(text: str) -> bool:
    """Whether the text marks a value as continuing ("still", "same as usual")."""
    return bool(set(_words(text)) & CONTINUITY)


# A value said to hold of one thing more: "Tuesdays too", "weak as well" (not "too far").
_ADDED = lazy_re(r"\b(?:too|as\s+well)(?=\s*(?:[,.;:!?)]|$|\s+(?:but|and|so|though)\b))",
                 re.I)


@lru_cache(maxsize=65536)
def adds(text: str) -> bool:
    """Whether the text says a value holds of something more ("CO2 cylinders come
    Tuesdays too", "weak as well"): another thing that shares it."""
    return _ADDED.search(text) is not None


# Where a clause stops asserting: a condition ("If it's good, that's our new place", "open
# at four unless it's busy") or a question passed on ("asked if we're open till five").
_UNASSERTED = lazy_re(r"\b(?:if|whether|unless)\b", re.I)


@lru_cache(maxsize=65536)
def asserted(text: str) -> str:
    """What ``text`` asserts: each sentence up to an "if", "whether" or "unless" — what
    follows is a condition or a question passed on ("Someone just asked if we're open
    till five today"); a sentence opening on one ("If it's good, that's our new Friday
    place") asserts nothing."""
    kept = []
    for s in sentences(text) or [text]:
        m = _UNASSERTED.search(s)
        kept.append(s if m is None else s[:m.start()].rstrip(" ,;:-") + ".")
    return " ".join(k for k in kept if k.strip("."))


# A title that tells a man from a woman of the same name ("Mr Lee", "Mrs Lee").
_TITLED = lazy_re(r"\b(mr|mrs|ms|miss)\.?\s+([A-Z][a-z]+)", re.I)
_MALE_TITLE = frozenset({"mr"})


@lru_cache(maxsize=4096)
def _titled(text: str) -> frozenset[tuple[bool, str]]:
    """(male title, surname) of each titled name ``text`` writes (kept per text: the
    question is asked of against every record it is shown)."""
    return frozenset((m.group(1).lower() in _MALE_TITLE, m.group(2).lower())
                     for m in _TITLED.finditer(text))


@lru_cache(maxsize=4096)  # the question against every record it is shown
def other_titled(text: str, question: str) -> bool:
    """Whether ``text`` names someone the ``question`` names by title and surname under
    the title of the other sex ("We've moved Mrs Lee to the side room" for "Which bed is
    Mr Lee in?"), and not the one asked: another holder."""
    asked = _titled(question)
    if not asked:  # (most questions name no one by title: no record's names read)
        return False
    said = _titled(text)
    return not asked & said and any((not male, name) in said for male, name in asked)


# Answer types whose values are times, dates or figures.
TYPED_ANSWERS = ("date", "number", "duration")


def states_value(text: str, answer_type: str, anchor: str) -> bool:
    """Whether ``text`` says something of the asked kind about the anchor's thing: a
    time, date or number when one is asked; otherwise some content the anchor's
    thing terms alone do not give."""
    if answer_type in TYPED_ANSWERS:
        return bool(values(text))
    return bool(terms(text) - terms(anchor)) or bool(values(text))


_ORDINALS = frozenset("""fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth
thirtieth""".split())


@lru_cache(maxsize=65536)
def marks(text: str) -> frozenset[str]:
    """The specific values a text names (stems): figures, weekdays, months, ordinal
    days and names — not the vague ones ("morning", "two")."""
    out = {m for m in map(_mark, _words(text)) if m is not None}
    out |= {_stem(a.lower()) for a, _ in _NAME.findall(text) if a and a not in _NOT_NAMES}
    return frozenset(out)


@lru_cache(maxsize=65536)
def _mark(w: str) -> str | None:
    """The stem ``marks`` keeps for the word ``w``, or None (cached: texts share words)."""
    if any(ch.isdigit() for ch in w) or w in _ORDINALS or w.rstrip("s") in WEEKDAYS \
            or w in _MONTHS:
        return _stem(figure_of(w))  # "12th" names the 12
    return None


_DATE_STEMS = frozenset(_stem(w) for w in (*WEEKDAYS, *(d + "s" for d in WEEKDAYS), *_MONTHS))


# Two records this close (MiniLM cosine) speak of one thing even without a shared word;
# sharing a word of the thing, a record this close (or naming a value) restates it.
CLOSE = 0.6
NEAR = 0.5


def joins(later: str, thing: frozenset[str], cos: float, same_speaker: bool = True,
          anchor: str = "", typed: bool = False, asked: frozenset[str] = frozenset()) -> str:
    """Why ``later`` speaks of the thing ``anchor`` states ('' when it does not): one of
    its sentences names the ``thing`` (a word of the question the anchor states too) and
    either states a value the anchor did not or belongs to a record whose vector is
    ``NEAR`` the anchor's; or the whole record is that near and, unless ``typed``, marks
    its state as new (``marks_change``) or denies a word of the anchor's value
    that is not one of the question's (``asked``: "No porridge tomorrow."). Only the
    anchor's speaker revises it, and a record that marks a value as carrying on without
    naming the thing restates another ("quiz night's still …"), unless it also marks a
    change ("We're going to Brook Farm instead, same date"). Which of two such records is
    current is the ledger's order; whether it states a value at all is ``states_value``'s
    to say.
    ``typed``: the question asks a time, date or number, so any value of those counts
    ("half two" for "at ten"), not only the specific ones of ``values_named``."""
    if not same_speaker or (continues(later) and not marks_change(later)
                            and not keys(later) & thing):
        return ""
    said = values if typed else values_named
    old = said(anchor)
    parts = sentences(later) or [later]
    # A day or month the question names is part of its thing ("the Saturday opening
    # hours", "covering Tuesdays for now"), but said of something that carries on, it
    # is that thing's ("X-ray next door still won't do weekends … on a Saturday"); and
    # alone, in a record not near the anchor, it names another event on that day
    # ("Chimney sweep's booked. Wednesday, two o'clock." for the tuner's Wednesday).
    dated = frozenset(t for t in thing if t in _DATE_STEMS)
    for k, sentence in enumerate(parts):
        shared = keys(sentence) & thing
        if shared and shared <= dated and thing - dated and (continues(sentence) or cos < NEAR):
            shared = frozenset()
        if not shared:  # (both tests below need it: no values read for nothing)
            continue
        # The value may come in the sentence after ("I've swapped spaces with Alan. I'm
        # in 9 now.").
        told = said(sentence) | (said(parts[k + 1]) if k + 1 < len(parts) else frozenset())
        new = told - old
        # Untyped, a new value counts when it is of a kind the anchor gave (a place for a
        # place) or the sentence marks its state as new: any name a story brings up is not
        # a revision.
        if new and not typed and not marks_change(sentence) and old \
                and not _kinds(new) & _kinds(old):
            new = frozenset()
        # Or fewer of the anchor's values, marked as new ("so it's just Mondays at home
        # now" after "Mondays and Fridays").
        fewer = told and told < old and marks_change(sentence)
        if shared and (cos >= NEAR or new or fewer):
            return "shares " + "/".join(sorted(shared))
        if shared and typed and shifts(sentence):
            # "camp's pushed back a week": the anchor's time, moved.
            return "shifts " + "/".join(sorted(shared))
    if cos >= NEAR and (typed or marks_change(later)
                        or bool(denied(later) & terms(anchor) - thing - asked)):
        # Nearness alone, for a question that asks no time or number, needs a sign that
        # the state is new: else it is more of the same ("dance is my stress relief").
        # A word of the anchor's value denied is one ("No porridge tomorrow. … Cornflakes."),
        # not a word of what is ``asked``.
        return f"close (cosine {cos:.2f})"
    return ""


# A word denied: "no porridge", "no more tins", "not the Toyota".
_DENIED = lazy_re(r"\b(?:no\s+more|no|not|never)\s+(?:the\s+|any\s+|my\s+)?([a-z]+)", re.I)


def denied(text: str) -> frozenset[str]:
    """The stems of the words ``text`` denies right after "no", "not", "no more"."""
    return frozenset(_stem(m.group(1).lower()) for m in _DENIED.finditer(text))


def shifts(text: str) -> bool:
    """Whether ``text`` moves a thing's time by a stated amount ("pushed back a week",
    "moved up two days"): a new time, given relative to the old one."""
    return shifted(0.0, text) is not None


@lru_cache(maxsize=65536)
def values_named(text: str) -> frozenset[str]:
    """``marks`` without the names of people: the figures, days, months and dates."""
    return marks(text) - holders_stems(text)


def replaces(old: str, new: str) -> bool:
    """What consolidation links on, without a question to focus it: each names a
    specific value of one kind (a weekday, month, number or place name) the other does
    not — one value gave way to another — and the new one does not mark the old as
    continuing. People's names are not values here: a vocative ("Thanks, Priya")
    differs from one turn to the next. Nor is the day of a past event ("last Friday"):
    two stories told on two days are not a revision."""
    if continues(new):
        return False
    before, after = state_values(old), state_values(new)
    gone, came = before - after, after - before
    return bool(gone) and bool(came) and _kinds(gone) & _kinds(came) != set()


def contrasts(old: str, new: str) -> bool:
    """Whether ``new`` names the value ``old`` gave together with another of its kind and
    marks a change or denies the old ("the Monday huddle clashes now, so we're doing
    Tuesdays"; "Fridays, not Tuesday"): a new value set against the old, which
    ``replaces`` misses because the old is named again, and not a restatement."""
    if continues(new) and not marks_change(new):
        return False
    before, after = state_values(old), state_values(new)
    came, kept = after - before, before & after
    return bool(came and kept and _kinds(came) & _kinds(kept)
                and (marks_change(new) and not denies_change(new) or negated(new)))


def hands_over(old: str, new: str) -> bool:
    """Whether ``new`` names a specific value ``old`` states and another of the same kind
    that ``old`` does not: people name the value they change from ("The airline has
    cancelled the Monday flight. They've shoved me onto the Wednesday." after "Monday
    the fourteenth of July"), so the value ties the two even when no other word does. A
    value marked as carrying on ("still Monday, and Tuesday too") hands nothing over."""
    if continues(new) and not marks_change(new):
        return False
    before, after = state_values(old), state_values(new)
    kept, came = before & after, after - before
    kinds = _kinds(kept) & _kinds(came)
    if kinds == {"number"}:  # a day of the month gives way to a day, not to a clock time
        days = _days_of_month(new)  # ("the 23rd at 10" keeps the 23rd and adds an hour)
        return bool(kept & days) == bool(came & days)
    return bool(kinds)


def gives_another(old: str, new: str) -> bool:
    """Whether ``new`` asserts a specific value of a kind ``old`` gives (a weekday, a month,
    a figure or day of the month) that ``old`` does not: "her flight's now the 22nd"
    after "arrives on the 20th of December". A name is no kind here: any story names
    someone."""
    before = values_named(asserted(old))
    came = values_named(asserted(new)) - before
    return bool(came) and bool(_kinds(came) & _kinds(before) - {"name"})


def gives_up(old: str, new: str) -> frozenset[str]:
    """The values of ``old`` that ``new`` moves away from: those of each kind of which
    ``new`` brings a value ``old`` does not state ("Tuesdays" after "Mondays" gives up
    Monday, even where it names it: "the Monday huddle clashes, so we're doing
    Tuesdays")."""
    before, after = state_values(old), state_values(new)
    came = after - before
    kinds = _kinds(came)
    return frozenset(v for v in before if _kinds(frozenset({v})) & kinds)


# A value said to hold again: "back to Mondays", "Monday again", "Monday after all".
_RETURN = lazy_re(r"\b(?:back|again|after all|as before)\b", re.I)


def returns(text: str) -> bool:
    """Whether ``text`` says a value holds again ("back to Mondays", "the 12th after all")."""
    return bool(_RETURN.search(text))


def left_behind(text: str, given_up: frozenset[str]) -> bool:
    """Whether every value ``text`` states is one the thing has moved away from, and it
    does not say the value holds again: it tells what became of the old value ("4400
    goes to facilities instead", "the Monday slot becomes the managers' catch-up"), not
    the thing's state. A value said to carry on ("the guest one is still …") is
    another thing's that kept it."""
    said = state_values(text)
    return bool(said) and said <= given_up and not returns(text) \
        and not continues(text)


@lru_cache(maxsize=4096)  # the chain asks it of the same records for every later one
def mid_names(text: str) -> frozenset[str]:
    """Capitalised words ``text`` writes where no sentence starts (lower-cased): names of
    people, firms and places alike."""
    return frozenset(m.group(1).lower() for m in _NAME.finditer(text)
                     if m.group(1) and m.group(1) not in _NOT_NAMES)


def renames(old: str, new: str) -> bool:
    """Whether ``new`` names someone (or some firm or place) ``old`` gives a thing and
    another one, and marks its state as new or opens on the one it had: the one gives
    way to the other ("Steve wouldn't come out at the weekend, so we use a firm called
    Aqua Fix now" after "Our plumber is Steve Wilkins"; "Dock Street was damp and awful.
    I'm just going to share with my cousin in Kings Heath." after "I've got a place on
    Dock Street instead."), whether or not it names the thing. A turn that opens on a
    value says what became of it; what follows is what took its place."""
    before = mid_names(old)
    if not before:
        return False
    if marks_change(new):
        kept = any(built(rf"\b{re.escape(n.capitalize())}\b").search(new) for n in before)
        return kept and bool(mid_names(new) - before)
    # Opening on the old one, the other comes after what is said of it: not "Tom's wife,
    # Jane, does my shopping", which names someone of the old one's.
    opening, rest = _opening_clause(new)
    return _opens_on(opening, before) and bool(mid_names(rest) - before)


def _opens_on(text: str, names: frozenset[str]) -> bool:
    """Whether ``text`` opens on one of ``names`` (lower-cased name words), written
    capitalised: "Glasgow's visa paperwork is fine, but …", "The Anchor was too noisy."."""
    first = re.match(r"\s*(?:[Tt]he\s+)?([A-Z]\w*)", text)
    return first is not None and first.group(1).lower() in names


# The end of a turn's first clause: its first sentence, or a conjunction that joins
# another clause to it ("Glasgow's paperwork is fine | but the rent's insane"); not
# "and", which as often joins two names ("Theo and Theodora. That won't be confusing").
_OPENING_END = lazy_re(r"[.!?;]\s|\s(?:but|so)\s", re.I)


def _opening_clause(text: str) -> tuple[str, str]:
    """``text`` split after its first clause."""
    end = _OPENING_END.search(text)
    return (text, "") if end is None else (text[:end.start() + 1],
                                           text[end.start() + 1:].lstrip())


def substitutes(old: str, new: str) -> bool:
    """Whether ``new`` puts someone else where ``old`` put someone, in the same words, and
    marks its state as new: "my coworker's cousin Imani is taking it instead" after "a
    guy called Felix is taking it". In each, a name comes shortly before a word they
    share that is neither a name nor a value (what the one and the other do), and the
    name in ``new`` is not one ``old`` gives."""
    if not marks_change(new):
        return False
    before, after = named(old), named(new)
    if not before or not after - before:
        return False
    shared = {k for k in keys(old) & keys(new)
              if k not in before | after and not is_value_word(k)}
    return bool(_doers(old, before, shared) & _doers(new, after - before, shared))


def _doers(text: str, people: frozenset[str], shared: set[str]) -> set[str]:
    """The ``shared`` words that follow one of ``people`` within three words of a
    sentence of ``text`` ("Felix is taking it": take)."""
    out: set[str] = set()
    for sentence in sentences(text) or [text]:
        toks = [w.lower() for w in _WORD.findall(sentence)]
        for i, w in enumerate(toks):
            if w in people:
                out |= {_stem(t) for t in toks[i + 1:i + 4]} & shared
    return out


_INDEFINITE = frozenset({"a", "an", "another"})
_DEFINITE = frozenset({"the", "my", "our", "your", "his", "her", "their", "that", "this",
                       "these", "those", "its"})


def introduces(text: str, stems: frozenset[str]) -> bool:
    """Whether ``text`` brings in one of ``stems`` as a new instance: the head of a noun
    phrase with an indefinite article ("an upcoming show in Boston" after "that show in
    Tokyo"), another of its kind, not the one an earlier statement told of. A word that
    only modifies the head ("a room change") brings in no room."""
    return not _introduced(text).isdisjoint(stems)


@lru_cache(maxsize=8192)  # consolidation's judgement asks it of every pair a statement is in
def _introduced(text: str) -> frozenset[str]:
    """The stems ``text`` brings in as a new instance (``introduces``)."""
    toks = [(m.group(0).lower(), m.end()) for m in _WORD.finditer(text)]
    out: set[str] = set()
    for i, (w, end) in enumerate(toks):
        if not _ENDS_PHRASE.match(text, end):
            continue
        for before, _ in reversed(toks[max(0, i - 3):i]):
            if before in _INDEFINITE:
                out.add(_stem(w))
                break
            if before in _DEFINITE:
                break
    return frozenset(out)


# What may follow the head of a noun phrase: punctuation, the end, a preposition, a
# conjunction or a verb of being.
_ENDS_PHRASE = lazy_re(r"\s*(?:[,.;:!?)]|$)|\s+(?:in|at|on|for|with|to|from|of|by|near|"
                       r"and|but|or|that|which|who|is|was|will|'s)\b", re.I)


def _days_of_month(text: str) -> frozenset[str]:
    """The figures ``text`` writes as days of a month ("the 23rd", "twenty-third")."""
    return frozenset({_stem(m.group(1)) for m in DAY_OF_MONTH.finditer(text)}
                     | {_stem(w) for w in _words(text) if w in _ORDINALS})


_PAST_DAY = lazy_re(r"\b(?:last|past|previous)\s+([a-z]+)", re.I)


@lru_cache(maxsize=65536)
def state_values(text: str) -> frozenset[str]:
    """``values_named`` without the days that date a past event ("last Friday")."""
    past = {_stem(w.lower()) for w in _PAST_DAY.findall(text)}
    return values_named(text) - past


def other_instance(text: str, asked: frozenset[str]) -> bool:
    """Whether ``text`` names a value of the kind the question names as part of its
    thing but not the one it names: "Ward 5" when "Ward 3" is asked, "Thursdays" when
    "on Tuesdays" is. A code of letters and figures ("the U12s", "the Q2 review") is a
    name of its own kind: a plain number ("pitch 5", "Room 3") is no other instance of it."""
    said = values_named(text)
    return bool(asked) and not said & asked \
        and bool(_instance_kinds(said) & _instance_kinds(asked))


def _instance_kinds(stems: frozenset[str]) -> set[str]:
    """``_kinds``, with a code that mixes letters and figures ("u12", "q2") a kind apart."""
    codes = frozenset(st for st in stems if _CODE.fullmatch(st) and not _CLOCK.fullmatch(st))
    return _kinds(stems - codes) | ({"code"} if codes else set())


_CODE = lazy_re(r"(?=[^\W_]*\d)(?=[^\W_]*[a-z])[^\W_]+")
_CLOCK = lazy_re(r"\d+(?:[ap]m|s)")  # "10am", "the 1990s": a time, not a code


# A part of the day as a slot ("in the mornings", "on nights"), not when something happened
# ("this morning", "last night", "one evening").
_PART_OF_DAY = lazy_re(r"(?<!\bthis )(?<!\blast )(?<!\bone )(?<!\bthat )(?<!\byesterday )"
                       r"(?<!\btomorrow )\b(morning|afternoon|evening|night)s?\b", re.I)


def other_part_of_day(text: str, question: str) -> bool:
    """Whether the question names a part of the day as part of its thing ("my evening
    carer", "the first-aider on nights") and ``text`` names another one, never the
    question's ("a lady called Ruth in the mornings"): another instance of the thing."""
    asked = {m.lower() for m in _PART_OF_DAY.findall(question)}
    said = {m.lower() for m in _PART_OF_DAY.findall(text)}
    return bool(asked) and bool(said) and not said & asked


def other_kind(text: str, question: str, inflected: bool = False) -> bool:
    """Whether ``text`` speaks of another kind of the thing the question names with a
    modifier: "the blue kettles" when "the red kettles" are asked, "the spare door key"
    for "the bike lock key". A word of the question that ``text`` says with another
    modifier right before it (a lower-case word the question does not say: not a name,
    which owns rather than sorts, nor a verb form), where ``text`` never says the
    question's modifier, is another instance of it. With ``inflected``, a question's word
    the text inflects ("goes live" for "go live", "flies home" for "fly home") is a verb,
    no modifier."""
    raw_q = _WORD.findall(question)
    # The head of each run of such words and the word right before it ("spare front
    # door key": key, door): the inner words of a compound are not kinds of the head. A
    # run right after "what"/"which" is what is asked: its kind is the answer ("which
    # dessert flavors": "mixed berry flavors").
    runs: list[list[int]] = []  # word indices of each run of adjacent such words
    for i, w in enumerate(raw_q):
        if not _sorts(w):
            continue
        if runs and runs[-1] and runs[-1][-1] == i - 1 and "'" not in raw_q[i - 1] \
                and "’" not in raw_q[i - 1]:
            runs[-1].append(i)
        else:
            runs.append([i])
    asked_run = [run for run in runs if run[0] > 0
                 and raw_q[run[0] - 1].lower() in ("what", "which")]
    pairs = [(_stem(raw_q[run[-2]].lower()), _stem(raw_q[run[-1]].lower()))
             for run in runs if len(run) > 1 and run not in asked_run]
    if not pairs:
        return False
    asked = {_stem(w.lower()) for w in raw_q}
    # The question's words as the text may inflect them ("goes live" for "go live",
    # "flies home" for "fly home"): a verb of the question sorts nothing.
    forms = {f for w in raw_q for f in _inflections(w.lower())} if inflected else set()
    said = terms(text)
    # (a modifier stands right before its noun in one clause: "the shed's got mice.
    # Tubes are in my wardrobe now" puts no "mice" before "tubes")
    for clause in _PUNCTUATED.split(text):
        raw = [w.split("'")[0].split("’")[0] for w in _WORD.findall(clause)]
        for k, (before, w) in enumerate(zip(raw, raw[1:], strict=False)):
            mod = before.lower()
            # A verb form sorts nothing ("they moved collection"), unless an article or
            # a possessive puts it before the noun ("the recycling collection").
            verb = _VERB_FORM.search(mod) and not (k and raw[k - 1].lower() in _DEFINITE)
            if not before.islower() or mod in STOPWORDS or is_value_word(mod) \
                    or mod in _AGE or _stem(mod) in asked or mod in forms or verb:
                continue
            for want, head in pairs:
                if _stem(w.lower()) == head and want not in said:
                    return True
    return False


# Punctuation between two words: they are not a modifier and its noun.
_PUNCTUATED = lazy_re(r"[.!?;:,()]+\s+|\s+[-–—]\s+")


def compounded(text: str, heads: frozenset[str]) -> frozenset[str]:
    """The stems of the words ``text`` puts right beside a word of ``heads`` in one clause,
    not a function word or a value: its compound ("weekend emergency calls": weekend,
    call; "Mr Benson's dialysis run": benson, run)."""
    out: set[str] = set()
    for clause in _PUNCTUATED.split(text):
        raw = [_stem(re.split(r"['’]", w)[0].lower()) for w in _WORD.findall(clause)]
        for a, b in zip(raw, raw[1:], strict=False):
            for head, side in ((a, b), (b, a)):
                if head in heads and side not in heads and side not in STOPWORDS \
                        and len(side) > 1 and not is_value_word(side):
                    out.add(side)
    return frozenset(out)


def requalified(text: str, thing: frozenset[str], kept: frozenset[str],
                known: frozenset[str]) -> bool:
    """Whether ``text`` names a word of the ``thing`` with a qualifier of its own right
    before it, a content word or a possessor that the question and the thread never say
    (``known``: their stems), and says none of ``kept`` (the thing's other words that the
    question and the thread's anchor both state): "Weekday emergencies still ring through
    to the practice mobile" for weekend emergency calls, "mrs kaur's dialysis is mon wed
    fri" for Mr Benson's dialysis run, "Work Secret Santa is a tenner" after "the house
    Secret Santa limit". Sharing only the head noun, it sorts out another thing of the
    kind. The word opening a sentence counts ("Weekday"); a function word, a value, a word
    that dates a revision ("the new locker") or a verb form does not. The caller asks it
    only where the qualifier is not what is asked ("which vet": "hillside vets" is the
    answer)."""
    if not kept or keys(text) & kept:
        return False
    # Each run of the thing's words ("Secret Santa") is qualified by the word before it;
    # one run after a bare determiner ("the refund window's four weeks" beside "three
    # late cancellations") names the thing itself.
    runs = [None if _dates_from(raw[:i]) else _qualifies(raw[i - 1], thing, known)
            for raw in map(_WORD.findall, _PUNCTUATED.split(text))
            for i, w in enumerate(raw)
            if i and _stem(w.lower()) in thing and _stem(raw[i - 1].lower()) not in thing]
    return True in runs and False not in runs


# A span of time that "next", "this" or "every" opens: "from next week Tuesdays are ramen"
# dates the thing from then, it does not sort out another one of it.
_SPAN_UNITS = frozenset("week weekend fortnight month term year season".split())
_SPAN_OPENERS = frozenset("next this last every each".split())


def _dates_from(before: Sequence[str]) -> bool:
    """Whether the words ``before`` a run of the thing's words end on a span of time
    ("next week", "this term"): the word right before the thing is no qualifier of it."""
    return len(before) >= 2 and before[-1].lower() in _SPAN_UNITS \
        and before[-2].lower() in _SPAN_OPENERS


def _qualifies(before: str, thing: frozenset[str], known: frozenset[str]) -> bool | None:
    """Whether ``before``, the word right before a run of the thing's words, qualifies it
    otherwise than the question and the thread do (``requalified``): False after a bare
    determiner (the thing itself), None after any other word that sorts nothing."""
    mod = re.split(r"['’]", before)[0].lower()
    if mod in _DETERMINERS:
        return False
    if mod in STOPWORDS or len(mod) < 2 or is_value_word(mod) or mod in _AGE \
            or _VERB_FORM.search(mod) or _stem(mod) in known or _stem(mod) in thing:
        return None
    return True


def _inflections(word: str) -> set[str]:
    """A word's regular third-person and past forms ("go": goes; "fly": flies, flied)."""
    out = {word + "s", word + "es", word + "ed", word + "d"}
    if word.endswith("y") and len(word) > 2:
        out |= {word[:-1] + "ies", word[:-1] + "ied"}
    return out


# Words that date a revision rather than sort a thing: "the new password" is the wifi
# password as it is now.
_AGE = frozenset("new old current latest previous updated usual same next last".split())
_VERB_FORM = lazy_re(r"\w{3}(?:ed|ing|en)$")


def _sorts(word: str) -> bool:
    """A lower-case content word that can name or sort a thing: not a function word,
    question scaffolding, a value or a verb form."""
    w = word.lower()
    return word.islower() and w not in STOPWORDS and w not in QUESTION_SCAFFOLD \
        and not is_value_word(w) and not _VERB_FORM.search(w)


_WEEKDAY_STEMS = frozenset(_stem(w) for w in WEEKDAYS)
_MONTH_STEMS = frozenset(_stem(m) for m in _MONTHS)
_ORDINAL_STEMS = frozenset(_stem(w) for w in _ORDINALS)


def _kinds(stems: frozenset[str]) -> set[str]:
    """The kinds of value stems name: a weekday, a month, a number (a figure or a day of
    the month: "the 12th" is the 12) or a name (a place: "the Crown")."""
    def kind(st: str) -> str:
        if st in _WEEKDAY_STEMS:
            return "weekday"
        if st in _MONTH_STEMS:
            return "month"
        if any(ch.isdigit() for ch in st) or st in _ORDINAL_STEMS:
            return "number"
        return "name"
    return {kind(st) for st in stems}


def value_kinds(stems: frozenset[str]) -> set[str]:
    """The kinds of value ``stems`` (``state_values``) name: weekday, month, number, name."""
    return _kinds(stems) if stems else set()


@lru_cache(maxsize=65536)
def holders_stems(text: str) -> frozenset[str]:
    return frozenset(_stem(h) for h in holders(text))


_EVENT_STEMS = frozenset(_stem(n) for n in EVENT_NOUNS)


def other_event(anchor: str, later: str, asked: frozenset[str] = frozenset()) -> bool:
    """Whether ``later`` names an event (an appointment, a lesson, a flight …) that neither
    the anchor nor the question names: then a value it shares is that event's."""
    return bool((keys(later) & _EVENT_STEMS) - keys(anchor) - asked)


# -- conversational repair ------------------------------------------------------------
# A speaker taking back a value they have just given. Two signs, either enough with a
# new value of the same kind: the old value denied ("2.09, not 2.07", "it isn't the
# 12th"), or a short repair marker opening a clause and followed closely by the new value
# ("Sorry, 521", "Oh, scratch that, … 165", "no wait, they said Thursday", "make it half
# six"). The marker list is deliberately short and general: the structure (the same
# speaker, the next turn, a value of the same kind in place of one just given) does the
# rest.
_REPAIR_HEAD = lazy_re(
    r"(?:^|[.!?;:,—–(]\s*|\s-+\s*)(?:(?:oh|um|uh|er|erm|ah|no|ok|okay|actually)\W+){0,3}"
    r"(?:sorry|scratch that|i mean[t]?|correction|(?:no\s+)?wait|my mistake|my bad"
    r"|make (?:it|that)(?!\s+(?:to|up|out|through|home)\b)|actually,?\s+no)\b", re.I)
_REPAIR_REACH = 6  # words after the marker within which the new value comes
# "not 2.07", "isn't the 12th", "rather than Saturday": what follows, to the clause's end
# (a point inside a figure, "2.07", ends nothing).
_NEGATED = lazy_re(r"\b(?:not|isn['’]t|wasn['’]t|aren['’]t|rather than|instead of)"
                   r"\s+((?:[^,.;:!?—–]|\.(?=\d))+)", re.I)
_CLAUSE_END = lazy_re(r"\s+(?:but|and|so|because|as|since|which|that's|it's)\b", re.I)
_NEGATED_SPAN = 4  # words after the negation that may hold the value denied
_PARTS_OF_DAY = frozenset("morning afternoon evening night tonight".split())
_SOMETIMES_VALUES = frozenset({"am", "pm", "may", "mai"})


def all_values(text: str) -> frozenset[str]:
    """The values a text gives, read both ways: ``values`` (time words, numbers, figures)
    and ``state_values`` (specific values: weekdays, months, figures, names); not the
    words that are values only sometimes ("I am", "we may")."""
    return (values(text) | state_values(text)) - _SOMETIMES_VALUES


def _near_words(words: Sequence[str]) -> set[str]:
    return set(words) | {_stem(w) for w in words} \
        | {_stem(figure_of(w)) for w in words}


def _negated_in(text: str) -> frozenset[str]:
    """The values ``text`` puts right after "not" (or "rather than", "instead of")."""
    out: set[str] = set()
    said: frozenset[str] | None = None  # read only where something is negated (most texts: not)
    for m in _NEGATED.finditer(text):
        if said is None:
            said = all_values(text)
        near = _near_words(_words(_CLAUSE_END.split(m.group(1))[0])[:_NEGATED_SPAN])
        out |= {v for v in said if v in near or set(v.split()) <= near}
    return frozenset(out)


@lru_cache(maxsize=65536)
def negated(text: str) -> frozenset[str]:
    """The values ``text`` denies in favour of another of their kind it gives ("it's
    2.09, not 2.07", "Sundays, not Saturdays", "midnight now, not eleven"): said only to
    be taken back. A value under a denied verb with no other in its place ("I'm not
    going till Monday") is not one."""
    denied = _negated_in(text)
    if not denied:
        return denied
    kept = all_values(text) - denied
    return frozenset(v for v in denied if _repair_kinds(frozenset({v})) & _repair_kinds(kept))


def _repair_kinds(vals: frozenset[str]) -> set[str]:
    """Kinds of value for a repair: a time of day or an amount (figures and number
    words alike: "half seven", "165", "6:30"), a part of the day, a weekday or a day
    named by its place ("tomorrow"), a month, or a name."""
    out: set[str] = set()
    for v in vals:
        words = v.split()
        if any(w in _MONTHS or _stem(w) in _MONTH_STEMS for w in words):
            out.add("month")
        elif any(w.rstrip("s") in WEEKDAYS or _stem(w) in _WEEKDAY_STEMS
                 or w in ("today", "tomorrow", "weekend", "weekends") for w in words):
            out.add("day")
        elif all(w in _PARTS_OF_DAY for w in words):
            out.add("part of day")
        elif any(any(ch.isdigit() for ch in w) or w in _NUMBER_WORDS or w in _TIME_WORDS
                 or w in _ORDINAL_STEMS for w in words):
            out.add("amount")
        else:
            out.add("name")
    return out


def _after_marker(text: str) -> frozenset[str]:
    """The values that come within ``_REPAIR_REACH`` words after a repair marker of
    ``text``, in its sentence ("Sorry, 521, the key card says 521": 521)."""
    out: set[str] = set()
    said = all_values(text)
    for m in _REPAIR_HEAD.finditer(text):
        rest = re.split(r"[.!?](?:\s|$)", text[m.end():], maxsplit=1)[0]
        near = _near_words(_words(rest)[:_REPAIR_REACH])
        out |= {v for v in said if v in near or set(v.split()) <= near}
    return frozenset(out)


@lru_cache(maxsize=65536)
def repair_marked(text: str) -> bool:
    """Whether ``text`` carries a repair marker opening a clause ("Sorry, 2.09",
    "scratch that", "no wait", "make it")."""
    return _REPAIR_HEAD.search(text) is not None


@lru_cache(maxsize=65536)
def repairs(earlier: str, later: str) -> frozenset[str]:
    """The values of ``earlier`` that ``later`` takes back, when ``later`` (the same
    speaker's next turn, or the rest of the same turn) repairs it: it denies one of them
    in favour of another of its kind ("Sorry, 2.09, not 2.07"), or a repair marker is
    followed closely by a value of a kind ``earlier`` gives that ``earlier`` does not
    ("Oh, scratch that, the uncle's side cancelled, 165."; "no wait, they said
    Thursday"). Empty when it does not: a value said again ("Sorry, yes, still 2.07") or
    one of another kind ("Sorry, I have to run" … "at five" after "desk 2.07")."""
    before = all_values(earlier)
    if not before:
        return frozenset()
    denied = negated(later) & before
    if denied:
        return denied
    came = _after_marker(later) - before
    kinds = _repair_kinds(came) & _repair_kinds(before)
    return frozenset(v for v in before if _repair_kinds(frozenset({v})) & kinds)


def repaired_within(text: str) -> frozenset[str]:
    """The values a turn gives and then takes back itself: denied ("the 14th, not the
    12th") or repaired by its next sentence ("I'm in room 512. Sorry, 521.")."""
    out = set(negated(text))
    parts = sentences(text) or [text]
    for k in range(1, len(parts)):
        out |= repairs(parts[k - 1], " ".join(parts[k:]))
    return frozenset(out)


def denied_for(text: str, taken_back: frozenset[str] = frozenset()
               ) -> tuple[frozenset[str], frozenset[str]]:
    """(the values ``text`` denies or takes back, those it gives in their place): "it's
    quarter past seven now, not half seven" denies half/seven and gives quarter.
    ``taken_back``: the values of the turn it repairs (``repairs``)."""
    denied = negated(text) | taken_back
    return denied, all_values(text) - denied if denied else frozenset()


def keeps_denied(text: str, denied: frozenset[str], given: frozenset[str]) -> bool:
    """Whether ``text`` states a value its thing was said to have no longer (``denied``,
    "not half seven"), none of those put in its place (``given``), and does not say the
    old value holds again ("back to", "after all"): it tells of something else that keeps
    the old value ("Ward 5 are staying on half seven", "the office still locks up at
    eleven"), not of the thing."""
    said = all_values(text)
    if not said & denied or returns(text):
        return False
    kinds = _repair_kinds(said & denied)
    return not {v for v in said & given if _repair_kinds(frozenset({v})) & kinds}


def given_instead(text: str, kind: str = "amount") -> str:
    """The value ``text`` gives in place of one it denies, as written ("seven" in "So seven
    from now on, not six."), '' when it denies none of ``kind`` (an hour or an amount: a
    day given for a day, "Friday morning now, not Thursday", is no hour): the first word
    outside the denial that is a value of that kind."""
    denied = negated(text)
    kinds = _repair_kinds(denied) & {kind}
    if not kinds:
        return ""
    spans = [m.span() for m in _NEGATED.finditer(text)]
    for m in _WORD.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        low = m.group(0).lower()
        if low in denied or low in _SOMETIMES_VALUES or not is_value_word(low):
            continue
        if _repair_kinds(frozenset({low})) & kinds:
            return m.group(0)
    return ""


# Which thing a clause gives its value of: the noun phrase it opens with as its subject.
# Personal and demonstrative pronouns opening a clause: it may carry its sentence on.
_CLAUSE_WORDS = lazy_re(r"[^\W_]+(?:['’][a-z]+)?")
_PRONOUN_SUBJECTS = frozenset("i we you he she it they this that there these those who".split())
# A possessive pronoun standing for a thing of someone else's ("Theirs starts at 300").
_OTHERS_POSSESSIVES = frozenset(("theirs", "hers", "his", "yours"))
NP_DETERMINERS = _DETERMINERS | frozenset("my your our his her their its".split())
# Adverbs that sit between a subject and its verb ("The cat still gets two meals").
_PRE_VERBAL = CONTINUITY | frozenset("""also just only never always now finally already even
usually often normally sometimes really""".split())
_GET = frozenset(("get", "gets", "got"))
# Prepositions that open a phrase qualifying the noun before them ("the safe in the office").
_POSTMODIFIERS = frozenset("on in at by from for of with near behind beside".split())
_OPENING_FILLERS = frozenset("so and but then because oh well also plus anyway".split())
# A pronoun after the subject that may point at the one asked about ("The vet nurse
# suggested three meals to stop him bolting", "the office moved me to Thursday").
_POINTERS = frozenset("it him her them me us my our your his their i we mine ours".split())
_POSSESSING = frozenset("my our your his her their mine ours".split())
# Words that order or date a thing rather than say which kind it is ("the new cleaner"
# beside "the new dockhand"): sharing one names no word of the thing.
_ORDERING = frozenset(_stem(w) for w in "new old first next last other latest previous".split())


def _verb_like(word: str, after: str) -> bool:
    """Whether ``word`` (lower-cased), after a noun, reads as its verb: a past form, or
    an "-s" form before a function word or a value ("goes out", "takes three"); a plural
    noun is followed by its verb instead ("skins are")."""
    if after in _AUXILIARIES or after in _GET:
        return False
    if word.endswith("ed") and len(word) > 3 or after in PARTICLES:
        return True  # a past form, or a verb with its particle ("brought in", "goes out")
    return word.endswith("s") and len(word) > 3 \
        and (not after or after in STOPWORDS or is_value_word(after) or after in _PRE_VERBAL)


def clause_subject(clause: str) -> tuple[str, ...] | None:
    """The words of the noun phrase ``clause`` opens with as the subject of its verb,
    lower-cased, a possessor among them ("Mum's party is …" -> mum, party; "The cat still
    gets …" -> cat; "Council tax goes out …" -> council, tax; "The vitamin D I keep
    taking …" -> vitamin, d; "Theirs starts at 300" -> theirs; "The safe in the office is
    9134" -> safe: a place or time after the noun, then an auxiliary). None for a pronoun, a
    verb ("Moved it to Friday", "Cut the sugar down"), a value ("Ward 5 are …") or a
    phrase whose verb is not found within a few words."""
    words = [w.replace("’", "'") for w in _CLAUSE_WORDS.findall(clause)]
    while words and words[0].lower() in _OPENING_FILLERS:
        words = words[1:]
    if not words:
        return None
    first = words[0].lower()
    if first in _OTHERS_POSSESSIVES:
        return (first,)
    start = 1 if first.partition("'")[0] in NP_DETERMINERS else 0
    np: list[str] = []
    for k in range(start, min(len(words), start + _NP_REACH + 1)):
        base, _, suffix = words[k].partition("'")
        low = base.lower()
        after = words[k + 1].lower().partition("'")[0] if k + 1 < len(words) else ""
        if low in _AUXILIARIES or low in _PRE_VERBAL or low in _GET or suffix == "t" \
                or low in _PRONOUN_SUBJECTS and start:
            # its verb, an adverb before it, or the subject of a clause the phrase is the
            # object of ("The vitamin D I keep taking")
            return tuple(np) if np else None
        if not np and not start and low.endswith("ed") \
                and (after in STOPWORDS or is_value_word(after)):
            return None  # a verb opens it ("Moved it to Friday")
        if np and low in _POSTMODIFIERS and any(
                w.lower().partition("'")[0] in _AUXILIARIES
                for w in words[k + 1:k + 2 + _NP_REACH]):
            # a place or time after the noun, then its verb: "The Christmas party on the
            # 13th is sixty", "The safe in the office is 9134" (the phrase before it)
            return tuple(np)
        if low in STOPWORDS or is_value_word(low):
            return None  # a preposition or a value before any verb: no subject phrase
        if np and _verb_like(low, after):
            return tuple(np)
        np.append(low)
        if suffix == "s" and after and (after in STOPWORDS or after in _AFTER_IS
                                         or is_value_word(after) or after in _PRE_VERBAL):
            return tuple(np)  # "The kitchen's on 216": a contracted "is"
        if suffix in ("re", "ll", "d", "ve"):
            return tuple(np)
    return None


# Finite verbs a person's name opens a clause with, whose "-s" or past form
# ``_verb_like`` does not tell apart from a plural noun's ("Sara got locker 74").
# (Singular or past: "Tulips get planted" is no one.)
_PERSON_VERBS = frozenset("has had does did goes went keeps kept takes took gets got".split())


def opening_person(clause: str) -> str:
    """The person ``clause`` opens on as the subject of its verb, lower-cased, or '':
    a name before its verb ("Sara got locker 74" -> sara; "Darren's doing the nights"
    -> darren), a name's possession ("Kasia's girl has her swimming" -> kasia), or the
    speaker's relative, by name where it follows ("My friend Ray's got plot 41" -> ray;
    "my brother works at the surf shop" -> brother). Not a word with a determiner
    ("The Crown have donated"), a capitalised word before a noun ("Caravan roof
    leaked"), a pronoun or a value."""
    ws = [w.replace("’", "'") for w in _CLAUSE_WORDS.findall(clause)]
    while ws and ws[0].lower() in _OPENING_FILLERS:
        ws = ws[1:]
    if len(ws) < 2:
        return ""
    low = [w.partition("'")[0].lower() for w in ws] + ["", ""]
    if low[0] in ("my", "our"):
        if low[1] not in KIN:
            return ""
        name = ws[2].partition("'")[0] if len(ws) > 2 else ""
        return name.lower() if name[:1].isupper() and low[2] not in KIN else low[1]
    base, _, suffix = ws[0].partition("'")
    if not base[:1].isupper() or not base.isalpha() or low[0] in STOPWORDS \
            or low[0] in KIN or is_value_word(low[0]) or low[0] in _PRE_VERBAL \
            or len(low[0]) >= 7 and low[0].endswith("ly"):
        return ""  # (an adverb opening it: "Finally finished the boat", "Luckily got one")
    if suffix == "s":
        # "Darren's doing" ("is"/"has" before a verb phrase), "Kasia's girl has" (the
        # possessor of the phrase before its verb)
        if low[1] in _AFTER_IS or low[1].endswith("ing") or low[1] in ("gone", "been"):
            return low[0]
        if low[1].isalpha() and low[1] not in STOPWORDS \
                and low[2] in _PERSON_VERBS:
            return low[0]
        return ""
    if suffix:
        return ""
    if low[1] in _PERSON_VERBS or _verb_like(low[1], low[2]):
        return low[0]
    return ""


def another_holds(text: str, asked: frozenset[str], known: frozenset[str]) -> bool:
    """Whether every clause of ``text`` that gives a value names none of ``asked`` (the
    stems of whose or what the question asks of: "the greyhound", "our bulk discount";
    not a word that only orders it, "new") and has for its subject a noun phrase whose head
    (its last word) is not ``known`` (the question's and the thread's stems): "The cat
    still gets two meals" tells of the cat, not of how many meals the greyhound gets;
    "Council tax goes out on the 10th, that's separate from the rent" of council tax;
    "Port control stays on fourteen" of port control, whatever else the thread said of
    the port; "The new cleaner is starting on the 12th" of the cleaner, not the new
    dockhand. A clause opening on "they" has the subject of the clause before
    it ("Fairway shuffled offices, they're on five now"). Not when a pronoun may point at
    the one asked about: "her flight's now the 22nd", "The vet nurse suggested three meals
    to stop him bolting", "The surgery moved me to Thursday", "The skipper says I can
    charter the boat for the evening"; nor for a clause that names the thing ("The school
    moved pickup to 3:15": the school acts on it). The subject phrase may carry a place or
    time after its noun ("The safe in the office is 9134": ``clause_subject``)."""
    if not asked:
        return False
    told = 0
    for sentence in sentences(text) or [text]:
        last: tuple[str, ...] | None = None
        for clause in sentence_clauses(sentence):
            words = [w.replace("’", "'").lower() for w in _CLAUSE_WORDS.findall(clause)]
            while words and words[0] in _OPENING_FILLERS:
                words = words[1:]
            opener = words[0].partition("'")[0] if words else ""
            np = clause_subject(clause)
            # (not a relative in the singular: "Mum's got a cold, so they'll come on the
            # 29th" — "they" is the party the reason holds up, not Mum)
            if np is None and opener == "they" and last is not None \
                    and last[-1].partition("'")[0] not in _ONE_KIN:
                np, rest = last, words[1:]
            else:
                # (what follows the subject phrase; the "I" of "The vitamin D I keep taking"
                # is the phrase's own clause)
                rest = words[len(np) + (opener in NP_DETERMINERS):] if np else words
                if rest[:1] and rest[0].partition("'")[0] in ("i", "we"):
                    rest = rest[1:]
            # Whose the phrase is, by a possessive (not a relative's: "my sister's
            # shower"), or a pronoun after it, may be the one asked about; a verb of
            # reported speech gives its value for another ("The letter says April").
            pointing = opener in _POSSESSING and not (np and np[0] in KIN) \
                or any(w.partition("'")[0] in _POINTERS for w in rest) \
                or any(w.partition("'")[0] in _REPORTING for w in rest[:3])
            last = None if pointing else np if np is not None else last
            if np is not None and {_stem(w) for w in np} & asked - _ORDERING:
                return False  # "…, so the book club meeting slides a day": the thing's own
            if not values(clause):
                continue
            told += 1
            if pointing or np is None or {_stem(w) for w in _words(clause)} & asked - _ORDERING \
                    or _stem(np[-1]) in known or _acts_on_object(rest):
                return False
    return told > 0


def _acts_on_object(rest: Sequence[str]) -> bool:
    """Whether ``rest`` (the lower-cased words after a clause's subject) puts an object
    right after its verb, before any value: "moved the whole beginners group to Thursdays"
    acts on a thing the subject need not hold; "gets two meals", "goes out on the van every
    other Friday" give the value."""
    for k, w in enumerate(rest):
        base = w.partition("'")[0]
        if is_value_word(base):
            return False
        if base in NP_DETERMINERS and k > 0 \
                and rest[k - 1].partition("'")[0] not in STOPWORDS | _PRE_VERBAL:
            phrase = []  # (right after the verb: "goes out on the van" puts no object)
            for x in rest[k + 1:]:
                xb = x.partition("'")[0]
                if is_value_word(xb):
                    return False
                if xb in STOPWORDS:
                    return bool(phrase)
                phrase.append(xb)
            return False
    return False


_ASKING = frozenset("what when where which who whose how".split())
_ASK_AUXILIARIES = DO_AUXILIARIES | BE_FORMS - {"am"} | HAVE_FORMS | {"will", "can"}
_ASKERS = frozenset(("i", "we", "you"))
_ASK_TOKENS = lazy_re(r"[^\W_]+(?:[-'’][^\W_]+)*")


def _content_stems(words: Sequence[str]) -> frozenset[str]:
    """The stems of ``words`` that are neither function words, values nor question
    scaffolding."""
    out = set()
    for w in _words(" ".join(words)):
        if w not in STOPWORDS and w not in QUESTION_SCAFFOLD and len(w) > 1 \
                and not is_value_word(w):
            out.add(_stem(w))
    return frozenset(out)


@lru_cache(maxsize=4096)
def asked_of(question: str) -> frozenset[str]:
    """The stems of whose or what state a question asks, the subject of its verb: "How
    many meals a day does the greyhound get?" -> greyhound; "When is the rent due?" ->
    rent, due; "How many cats are in the cattery?" -> cat (the question's own phrase is
    the subject). Asked of the asker ("When do I take my amlodipine?"), what the verb
    takes: amlodipine. Empty when none is read."""
    tokens = [t.replace("’", "'") for t in _ASK_TOKENS.findall(question)]
    low = [t.lower() for t in tokens]
    at = next((k for k, t in enumerate(low) if t.partition("'")[0] in _ASKING), None)
    if at is None:
        return frozenset()
    if low[at].endswith("'s"):  # "What's the Secret Santa limit?"
        phrase, rest, support = [], tokens[at + 1:], False
    else:
        aux = next((k for k in range(at + 1, len(low)) if low[k] in _ASK_AUXILIARIES
                    or low[k].endswith("'s")), None)
        if aux is None:
            return frozenset()
        phrase = tokens[at + 1:aux + (1 if low[aux].endswith("'s") else 0)]
        if low[aux].endswith("'s"):
            phrase = [*phrase[:-1], phrase[-1][:-2]] if phrase else []
            rest, support = tokens[aux + 1:], False
        else:
            rest, support = tokens[aux + 1:], low[aux] in DO_AUXILIARIES
    if rest and rest[0].lower() in _ASKERS | {"mine", "ours"}:
        # Asked of the asker: what the verb after "I" takes ("… do I take my amlodipine").
        obj = []
        for t in rest[2:]:
            if t.lower() in STOPWORDS - NP_DETERMINERS:
                break
            obj.append(t)
        return _content_stems(obj)
    span: list[str] = []
    stop = ""
    for k, t in enumerate(rest if not rest[:1] or not rest[0].lower().endswith("ing") else []):
        lt = t.lower()
        if lt == "of" and span:  # "the name of the vet": of the vet
            return asked_of(" ".join(["what", "is", *rest[k + 1:]]))
        if lt in STOPWORDS - NP_DETERMINERS or lt in _AUXILIARIES \
                or lt.endswith("ing") and _content_stems(span):
            stop = lt
            break
        span.append(t)
    if support and span and (not stop or stop not in _GET and stop in STOPWORDS):
        span = span[:-1]  # the verb after do-support ("does the cleaner come")
    stems = _content_stems(span)
    # "How many cats are in the cattery?", "How many guests are coming?": a preposition
    # or the verb after the auxiliary, and the question's own phrase is the subject.
    opens = rest[0].lower() if rest else ""
    return stems or (_content_stems(phrase) if opens in STOPWORDS - NP_DETERMINERS
                     or opens.endswith("ing") else frozenset())
