"""Who owns or says a value: the owner a question names for the thing it asks about
("Alfie's party"), a record that gives that thing to someone else ("Lily's party",
"his spin class"), the people talking whom a question asks about, and whether a turn
carries on the one before it or speaks of another person.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ..language.clauses import clauses
from ..language.lazyre import lazy_re
from ..language.monthday import SUFFIX, WEEKDAY_NAMES, WEEKDAYS
from ..language.revision import (
    KIN,
    NP_DETERMINERS,
    PARTICLES,
    holders,
    is_possessive,
    is_value_word,
    opening_person,
    other_titled,
    question_terms,
    values,
)
from ..language.text import STOPWORDS, built, stem, stems, words
from ..language.vocab import AUXILIARIES, is_robot
from ..ledger import SourceRecord
from .pack import EvidenceItem


def named_near(rec: SourceRecord, items: Sequence[EvidenceItem], gap: int) -> set[str]:
    """Stems of a record, its speaker's name and the shown turns of its session at most
    ``gap`` records before it: whom it may speak of without naming them."""
    out = set(stems(rec.text)) | {stem(w) for w in words(rec.speaker)}
    for i in items:
        r = i.record
        if r.session_id == rec.session_id and r.subject_id == rec.subject_id \
                and rec.seq - gap <= r.seq < rec.seq:
            out |= stems(r.text)
    return out

# "Alfie's party": the owner a question names for the thing it asks about.
# The owned noun is lower-case ("Mia's slot"; "time's Mia's slot" is "time is"), and is
# not consumed, so that one owner's thing may follow another's word.
_POSSESSED = lazy_re(r"\b([\w-]+)['’]s\s+(?=([a-z][\w-]*))")
# "the neighbours' dog": a plural owner's, the apostrophe after its "s".
_PLURAL_POSSESSED = lazy_re(r"\b([\w-]+s)['’]\s+(?=([a-z][\w-]*))")


# "my yoga class" against "his spin class": someone else's thing of the same kind.
_MINE = lazy_re(r"\b(?:my|our)\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?", re.I)
# The asker's thing a question names, to the noun that heads it ("my fortieth birthday
# party": fortieth, birthday, party).
_MINE_ASKED = lazy_re(r"\b(?:my|our)\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?"
                      r"(?:\s+([a-z][\w-]*))?", re.I)
_THEIRS = lazy_re(r"\b(?:his|her|their)\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?", re.I)


def possessed(question: str) -> dict[str, str]:
    """Thing stem -> owner stem for each "X's thing" (and "my thing": owner "i") the
    question says."""
    out = {stem(m.group(2).lower()): stem(m.group(1).lower())
           for m in _POSSESSED.finditer(question)
           if m.group(1).lower() not in ("it", "that", "what", "who", "there", "where",
                                         "when", "how", "here")}
    for m in _MINE_ASKED.finditer(question):
        for w in m.groups():
            if w and w.lower() not in STOPWORDS:
                out.setdefault(stem(w.lower()), "i")
    return out


_KIN_STEMS = frozenset(stem(k) for k in KIN)
# Words whose "'s" is "is" or "has", never an owner's.
_CONTRACTED = frozenset("he she it that there here what who where when how everything "
                        "nothing something everyone someone this".split())


# The words of an owned noun phrase after the owner's "'s": up to three, to the first
# function word ("Toby's heart tablet is": heart, tablet).
_PHRASE_AFTER = lazy_re(r"[a-z][\w-]*")
_VERB_FORM = lazy_re(r"\w{2}(?:ing|ed)$")


def _owned_things(text: str, m: re.Match[str]) -> tuple[str, ...]:
    """The stems of the noun phrase a possessive match owns: its first word and the words
    after it up to a function word, three at most ("Toby's heart tablet": the tablet is
    Toby's as much as "Toby's tablet" is)."""
    first = m.group(2).lower()
    out = [stem(first)]
    if not _noun_like(first) or not is_possessive(text, m.end(1) + 2):
        return tuple(out)  # "Marjorie's still coming", "My sister's coming Tuesday": "is"
    for w in text[m.end() + len(m.group(2)):].split()[:2]:
        if w[-1:] in ",.;:!?—–":
            break
        w = w.strip("\"'’)").lower()
        if not _noun_like(w):
            break
        out.append(stem(w))
    return tuple(out)


def _noun_like(word: str) -> bool:
    """A lower-case word that may go on a noun phrase: not a function word, a value or a
    verb form in "-ing"/"-ed"."""
    return bool(_PHRASE_AFTER.fullmatch(word)) and word not in STOPWORDS \
        and not is_value_word(word) and not _VERB_FORM.search(word)


def _anothers_own(owners: dict[str, str], m: re.Match[str],
                  me: frozenset[str] = frozenset(), text: str = "") -> bool:
    """Whether a possessive match (owner, thing) gives the thing the asker asks about as
    their own to a relative or a named person the question does not name (not the asker,
    whose name is among ``me``: "Astrid's epipen", told by another, is Astrid's "my
    epipen"). With ``text``, the thing may be any word of the owned phrase ("Toby's heart
    tablet" for "my tablets")."""
    owner = stem(m.group(1).lower())
    things = _owned_things(text, m) if text else (stem(m.group(2).lower()),)
    return any(owners.get(t) == "i" for t in things) \
        and (owner in _KIN_STEMS or m.group(1)[:1].isupper()) \
        and owner not in owners and owner not in me


def other_owner(owners: dict[str, str], text: str, asker: str = "") -> bool:
    """Whether ``text`` gives a thing the question asks about to another owner and never
    names the question's ("Lily's party" for "Alfie's party", "my cousin's wedding" for
    "Lena's wedding", "his spin class" for "my yoga class"). The asker's own thing told
    by another under the asker's name is no other owner's ("Astrid's epipen lives in her
    handbag now" for Astrid's "Where's my epipen?"), and where the record names the asker
    its "her class" may be the asker's ("Did Priya tell you? … her class is moving")."""
    if not owners:
        return False
    said = stems(text)
    me = frozenset(stem(w) for w in words(asker.lower()))
    for m in _POSSESSED.finditer(text):
        if m.group(1).lower() in _CONTRACTED:
            continue  # "He's coming Saturday": he is, not his
        thing, owner = stem(m.group(2).lower()), stem(m.group(1).lower())
        if owners.get(thing) not in (None, owner, "i") and owners[thing] not in said:
            return True
        if _anothers_own(owners, m, me, text):
            return True  # "my sister's anniversary" for "my anniversary", "my friend Ama's
            # supervisor" for "my supervisor"
    if any(_anothers_own(owners, m, me) for m in _PLURAL_POSSESSED.finditer(text)):
        return True  # "the neighbours' dog" for "our dog" (only against the asker's own:
        # "the neighbours' cat" may well be "next door's cat")
    if me & said:
        return False  # "her class", "his van": the asker, named, may be whom it points at
    mine = {stem(w.lower()) for m in _MINE.finditer(text) for w in m.groups() if w}
    for m in _THEIRS.finditer(text):
        things = {stem(w.lower()) for w in m.groups() if w and w.lower() not in STOPWORDS}
        if any(owners.get(t) == "i" and t not in mine for t in things):
            return True
    return False


# A turn that carries on the one before it: it opens with a pronoun, "still", "same",
# a reply word or a value ("It's the 19th instead", "Still the morning", "Quarter past
# eleven"), or is a bare value of a few words.
_CARRIES_ON = lazy_re(
    r"^\W*(?:(?:yes|yeah|yep|no|nope|nah|oh|ok|okay|so|and|but|actually|sorry|right|well|"
    r"fine|ugh|hmm|erm|um)\b\W*)*(?:it|it's|its|that|that's|this|he|he's|she|she's|they|"
    r"they're|there|still|same|now|then|from|at|on|in|by|only|just|half|quarter|"
    r"\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    rf"{WEEKDAY_NAMES}|tomorrow|tonight|today|"
    rf"next|the\s+\d|the\s+(?:first|second|third|\w+{SUFFIX})\b)", re.I)


# "the O'Brien tasting", "the Patel sofa": a thing told apart by whose name it bears.
_NAME_THING = lazy_re(r"\b(?i:the)\s+([A-Z][\w'’-]*)\s+([a-z][\w-]*)")


def other_name_on(question: str, text: str) -> bool:
    """Whether ``text`` speaks of the thing the question names by someone's name under
    another name, and never says the question's ("the Kapoor tasting" for "the O'Brien
    tasting")."""
    asked = _things_named(question)
    if not asked:
        return False
    said = stems(text)
    return any(stem(m.group(2).lower()) in asked
               and stem(asked[stem(m.group(2).lower())].lower()) not in said
               and m.group(1).lower() != asked[stem(m.group(2).lower())].lower()
               for m in _NAME_THING.finditer(text))


@lru_cache(maxsize=4096)
def _things_named(question: str) -> dict[str, str]:
    """The stem of each thing the question names by someone's name -> that name ("the
    O'Brien tasting": tast -> O'Brien), read once per question (``other_name_on``)."""
    return {stem(m.group(2).lower()): m.group(1) for m in _NAME_THING.finditer(question)}


def owners_other(owners: dict[str, str], text: str, question: str) -> bool:
    """Whether ``text`` gives the owner the question names another thing than the one
    asked ("June's heart check is the 21st now" for "June's hair appointment"): it speaks
    of that thing, not of the one asked. (A word the question says, or shortens - "op"
    for "operation" - is the thing asked.)"""
    owned = {o for o in owners.values() if o != "i"}
    said = [w for w in words(question) if w not in STOPWORDS]
    return any(stem(m.group(1).lower()) in owned and m.group(1).lower() not in _CONTRACTED
               and m.group(2).lower() not in STOPWORDS
               and not any(w.startswith(m.group(2).lower()) or stem(w) == stem(m.group(2).lower())
                           for w in said)
               for m in _POSSESSED.finditer(text))


def look_alike(owners: dict[str, str], question: str, text: str, asker: str = "") -> bool:
    """Whether ``text`` speaks of the thing asked as another's (``other_owner``), under
    another name (``other_name_on``), of someone of the other title (``other_titled``) or
    of another of its kind (``other_kind_named``)."""
    return other_owner(owners, text, asker) or other_name_on(question, text) \
        or other_titled(text, question) or other_kind_named(question, text)


_FIRST_SINGULAR = lazy_re(r"\b(?:i|me|my|mine|i'm|i've|i'd|i'll)\b", re.I)
# Someone pointed at by a pronoun: the speaker may be telling theirs ("I'm taking her").
THIRD_PERSON = lazy_re(r"\b(?:he|she|him|her|his|hers|he's|she's|he'll|she'll)\b", re.I)


def _asked_speakers(question: str, items: Sequence[EvidenceItem]) -> frozenset[str]:
    """The people talking whom the question asks about by name (lower-cased)."""
    talking = {w for i in items if not is_robot(i.record.speaker, i.record.robot_id)
               for w in words(i.record.speaker)}
    return holders(question) & talking


def speakers_own(rec: SourceRecord, asked_speakers: frozenset[str]) -> bool:
    """Whether ``rec`` is its speaker telling their own ("I always go for the Thai
    place", said by Sven) while the question asks about another of those talking by name
    ("What does Keira order?"), whom it neither names nor points at ("I'm taking her to
    the dentist at four" may be Keira's): Keira tells hers in her own words."""
    if not asked_speakers or is_robot(rec.speaker, rec.robot_id) \
            or set(words(rec.speaker)) & asked_speakers:
        return False
    return bool(_FIRST_SINGULAR.search(rec.text)) and not THIRD_PERSON.search(rec.text) \
        and not set(words(rec.text)) & asked_speakers


def carries_on(text: str) -> bool:
    """Whether a turn carries on the topic of the one before it rather than opening one."""
    return bool(_CARRIES_ON.match(text)) or len(words(text)) <= 4


# "Rhys is on call", "my friend Sam is dating …": a sentence about another person.
_OTHER_SUBJECT = lazy_re(
    r"^\W*(?i:(?:so|and|also|oh|btw|but|meanwhile|well)\W+)*(?:(?i:my|our)\s+[a-z]+\s+)?"
    r"([A-Z][\w-]*)(?:['’]s)?(?:\s|[,:]\s)")
FIRST_PERSON = lazy_re(r"\b(?:i|me|my|mine|i'm|i've|i'd|i'll|we|us|our)\b|\bI\b", re.I)


def someone_else(text: str, asked: set[str], known: set[str]) -> bool:
    """Whether a record is about another person than the one asking: its first sentence
    is led by someone else's name and nowhere does it say "I", "me" or "my"."""
    m = _OTHER_SUBJECT.match(text)
    if not m:
        return False
    name = m.group(1).lower()
    # A possessive before a word of the question owns the thing asked of ("Tom's dentist
    # is on the 15th"), a name even where the conversation writes it nowhere else.
    owns = bool(re.match(r"['’]s\s", text[m.end(1):])) and is_possessive(text, m.end(1) + 2) \
        and stem(text[m.end():].split(" ", 1)[0].lower()) in asked
    if (name not in known and name not in KIN and not owns) or stem(name) in asked:
        return False  # "Mum's changed hers too": a relative leads it as well as a name
    rest = text[m.end():]
    return not FIRST_PERSON.search(rest)


def owned_by(rec: SourceRecord, sentence: str, place: str) -> str:
    """A place the speaker calls their own ("the hoover's living in my room") said as
    whose it is ("Cass's room"): the answer is read by someone else."""
    if is_robot(rec.speaker, rec.robot_id) or not rec.speaker.strip() \
            or any(w[:1].isupper() for w in place.split()):
        return place  # a place with a name is told by it ("my trip to the Smoky Mountains")
    if built(rf"\bmy\s+{re.escape(place)}", re.I).search(sentence):
        return f"{rec.speaker.strip()}'s {place}"
    return place
# A turn in the first person singular: its speaker speaks of their own.
OF_SELF = lazy_re(r"\b(?:i|i'm|i’m|i've|i’ve|i'll|i’ll|me|my|mine)\b", re.I)
# An additive particle: what the record tells is one more beside another ("too").
ADDS = lazy_re(r"\b(?:too|also|as\s+well)\b", re.I)


# What a sentence's subject is: the words opening it after a discourse word ("So", "Oh and").
_OPENERS = frozenset("so and also oh btw but meanwhile well yeah yes no actually though plus "
                     "anyway ha haha ok okay right".split())
_SINGULAR_ME = frozenset("i i'm i've i'll i'd im ive my mine mine's".split())
_TITLES = frozenset("mr mrs ms miss dr doctor prof professor".split())
# A clause naming whom it acts on or for ("Dr Patel moved it", "Sam's moved your slot")
# is an agent's doing to the thing asked, not the agent's own thing.
_POINTS_AT = lazy_re(r"\b(?:it|its|it's|you|your|yours|my|me|mine|our|us|we)\b", re.I)
_FIRST_SINGULAR_ASK = lazy_re(r"\b(?:i|me|my|mine|i'm|i've)\b", re.I)
# Where a holder's clause ends (``_holder_clauses``): not at a bare "and", which joins the
# holders of one predication ("Tom and Sue are on lates"), unlike ``language.clauses``.
_CLAUSE_END = lazy_re(r"[,;:—–]|\s-\s|\b(?:so|but|because|cos|while|and then)\b", re.I)


def sentence_holder(sentence: str, known: frozenset[str] = frozenset()) -> tuple[str, str]:
    """Whose state a sentence opens on, as (kind, who): ("speaker", "") for "I"/"my"
    ("I'm in flat 5"), ("name", "joan") for a name leading it ("Joan next door's in a
    wheelchair", "my brother Luke got engaged", "Mrs Kaur's dialysis is …"), ("kin",
    "brother") for the speaker's unnamed relative ("My brother works at the surf shop",
    "my neighbour's greyhound"); ("", "") when it opens on anything else (a pronoun, a
    thing: "She moved it", "The dairy have a new system"), which tells no holder.
    ``known``: the names the conversation uses (lower-cased), by which a capitalised word
    opening the sentence is someone ("Peanut eats sunflower seeds")."""
    kind, who = _opening_holder(sentence)
    if kind == _IF_KNOWN:
        return ("name", who) if who in known else ("", "")
    return kind, who


# ``_opening_holder``'s kind for a capitalised word that names someone only when the
# conversation uses it as a name (``known``).
_IF_KNOWN = "known?"


@lru_cache(maxsize=65536)
def _opening_holder(sentence: str) -> tuple[str, str]:
    """``sentence_holder`` without ``known``, kept per sentence (the reader asks it of
    the same sentences for every question that shows them): a capitalised opening word
    that names someone only if the conversation uses it as a name is (_IF_KNOWN, word)."""
    ws = sentence.split()
    i = 0
    while i < len(ws) and re.sub(r"\W", "", ws[i].lower()) in _OPENERS:
        i += 1
    if i >= len(ws):
        return "", ""
    first = ws[i].strip("\"“‘(,").lower().replace("’", "'")
    if first in ("my", "our") and i + 1 < len(ws):
        nxt = re.sub(r"['’]s$", "", ws[i + 1].strip(",.")).lower()
        if nxt in KIN:
            name = ws[i + 2].strip(",.") if i + 2 < len(ws) else ""
            if name[:1].isupper() and name.lower() not in KIN:
                return "name", re.sub(r"['’]s$", "", name).lower()  # "my wife Funmi"
            return "kin", nxt
        return ("speaker", "") if first == "my" else ("", "")
    if first in _SINGULAR_ME:
        return "speaker", ""
    word = ws[i].strip("\"“‘(,")
    titled = word.lower().rstrip(".") in _TITLES and i + 1 < len(ws)
    if titled:  # "Mrs Kaur's", "mrs kaur's": a title names a person in any case
        word = ws[i + 1].strip(",")
    name = re.sub(r"['’]s$", "", word).strip(".,!?")
    if titled and name.isalpha():
        return "name", name.lower()
    if name[:1].isupper() and name.lower() not in KIN:
        return _IF_KNOWN, name.lower()
    return "", ""


def holder_clash(question: str, asker: str, rec: SourceRecord, sentence: str,
                 known: frozenset[str] = frozenset()) -> bool:
    """Whether ``sentence`` of ``rec`` tells another holder's state than the one the
    question asks about: its first clause opens on someone the question neither names
    nor means ("Peanut eats sunflower seeds" for "What does Biscuit eat?"; "I drive the
    silver Corolla", said by Olu, for "What car does Funmi drive?"; "Joan next door's in
    a wheelchair" for the asker's "What do I use to get about?"; "my brother works at the
    surf shop", said by the asker, for "What do I do?"), and no clause of it speaks of
    the one asked. A clause that points back at the thing or at the asker ("Dr Patel
    moved it", "so Brian will run me"), names whom the question names, or opens on a
    pronoun is the asked holder's; so is someone else's reason before the asker's own
    state ("Darren called in sick so I'm swapping onto lates"). ``known``: as for
    ``sentence_holder``."""
    if is_robot(rec.speaker, rec.robot_id):
        return False
    asked, named, me, person = _asked_holder(question)
    if not named and not me:
        return False
    mine = _words_of(asker) if asker and me else frozenset()
    if _words_of(sentence) & (asked | mine):
        return False
    verdicts = [_clause_verdict(c, question, named, me, mine, rec, known, person)
                for c in _holder_clauses(sentence)]
    judged = [v for v in verdicts if v is not None]
    return bool(judged) and judged[0] and not any(v is False for v in judged)


@lru_cache(maxsize=4096)
def _asked_holder(question: str) -> tuple[frozenset[str], frozenset[str], bool, bool]:
    """What ``holder_clash`` needs of the question, read once per question, not once
    per candidate sentence: whom it names (kin words included), whom it names by name,
    whether it asks of the asker ("I", "my") and names no one, and whether it asks who."""
    asked = holders(question)
    me = bool(_FIRST_SINGULAR_ASK.search(question)) and not asked
    return asked, asked - KIN, me, bool(_WHO.match(question))


@lru_cache(maxsize=65536)
def _words_of(text: str) -> frozenset[str]:
    """The words of ``text`` (lower-cased), kept per text: the holder checks ask them of
    the same sentences, speakers and questions many times."""
    return frozenset(words(text.lower()))


@lru_cache(maxsize=65536)
def _holder_clauses(sentence: str) -> tuple[str, ...]:
    """The clauses of ``sentence`` of three words or more (``_CLAUSE_END``): a shorter
    piece ("Oh", "not me") names no holder with a state of its own."""
    return tuple(c for c in _CLAUSE_END.split(sentence) if len(c.split()) >= 3)


@lru_cache(maxsize=65536)
def _clause_marks(clause: str) -> tuple[bool, bool, bool, bool]:
    """Whether ``clause`` says "he"/"her" (third person), "you", "I"/"my" (not of a
    relative's: "my brother's"), and a kin word; kept per clause."""
    return (bool(THIRD_PERSON.search(clause)), bool(_SECOND.search(clause)),
            bool(_FIRST_SINGULAR.search(_MY_KIN.sub(" ", clause))),
            bool(_words_of(clause) & KIN))


def _clause_verdict(clause: str, question: str, named: frozenset[str], me: bool,
                    mine: frozenset[str], rec: SourceRecord, known: frozenset[str],
                    person: bool) -> bool | None:
    """Whether one clause opens on another holder than the one asked (True), on the one
    asked or points at them (False), or tells neither (None)."""
    kind, who = sentence_holder(clause, known)
    speaker = _words_of(rec.speaker)
    third, second, first, kin = _clause_marks(clause)
    if third and named or second and me or speaker & mine and first:
        return False  # "I'm taking her at four", "I've booked you in", the asker's "me"
    if kind == "speaker":
        if named:
            return not speaker & named
        return not speaker & mine if mine and not kin else None
    if kind == "name" and not person:  # asked "who", the one named may be the answer
        at = clause.lower().find(who)
        rest = clause[at + len(who):] if at >= 0 else clause
        if who in named or who in mine or who in _words_of(question):
            return False
        return not _POINTS_AT.search(rest)  # "Brian will run me": the asker's
    if kind == "kin":
        return True if me and speaker & mine else None  # the asker's relative's
    return None


# "my brother", "my neighbour's": the speaker's relative, not the speaker.
_MY_KIN = lazy_re(rf"\b(?:my|our)\s+(?:{'|'.join(sorted(KIN))})(?:['’]s)?\b", re.I)
_WHO = lazy_re(r"\W*(?:who|whom|whose)\b", re.I)
_SECOND = lazy_re(r"\b(?:you|your|yours)\b", re.I)


# The asker, pointed at as the one a deed is done for ("so she can drive me"), or the
# speaker telling their own state beside another's ("so I'm on that now").
_FOR_ME = lazy_re(r"\b(?:me|myself)\b", re.I)
# A question of what someone or something is called: the name opening a record may be
# the answer ("Kvikk's been swimming again" for "What's my dog called?").
_NAME_ASKED = lazy_re(r"\b(?:called|named|names?)\b", re.I)
_I_SUBJECT = lazy_re(r"\b(?:i|i'm|i’m|i've|i’ve|i'll|i’ll|i'd|i’d)\b", re.I)
# A thing pointed at as one already known or as someone's, not as the subject's own
# ("his", "her", "their"): "Lindqvist moved today's meeting to four" acts on the
# meeting asked about; "Kasia's girl has her swimming on Fridays" tells her own.
# "Morag's got the dentist too": a person's having it is theirs, not a deed on the asked one.
_HOLDS = lazy_re(r"^\W*(?:[\w-]+\W+){0,3}?(?:has|had|have|got|gets|[\w-]+['’]s\s+got)\b", re.I)
_POINTED = lazy_re(r"\b(?:the|a|an|this|that|my|our|your|[\w-]+['’]s)\s+(?:[\w-]+\s+)?([\w-]+)",
                   re.I)


def told_of_another(question: str, asker: str, rec: SourceRecord) -> bool:
    """Whether ``rec`` tells another person's state than the one the question asks of:
    every clause of it that holds the value (one that gives a value or says a word of
    the thing asked; else its first), the first of them opening the record, opens on a
    person (``revision.opening_person``) whom the question neither names nor means
    ("Sara got locker 74" for the asker's "What's my locker number?"; "Darren's doing
    Thursday to Sunday nights" for "Which nights am I on?"). Not where it names the one
    asked, does a deed for the asker ("Our Julie's sorted the clinic for the 26th so she
    can drive me"), acts on the thing asked ("Lindqvist moved today's meeting to four"),
    opens on something else ("Storm warning, so …") or has the speaker say their own
    beside it ("Pharmacist reckoned loratadine, so I'm on that now"); nor for a question
    of who or of a name (the one named may be the answer)."""
    if is_robot(rec.speaker, rec.robot_id) or rec.modality == "perception":
        return False
    asked, named, me, person = _asked_holder(question)
    if person or _NAME_ASKED.search(question) or not (named or me):
        return False
    if named & _words_of(rec.speaker) and FIRST_PERSON.search(rec.text):
        return False  # the one asked of speaks of their own ("we're settling into Boston")
    mine = _words_of(asker) if me else frozenset()
    # (a record's own words are read uncached: kept per record text in ``_words_of``'s
    # cache, they raised LoCoMo's peak RSS by ~7 MB)
    if frozenset(words(rec.text.lower())) & (asked | mine) or _FOR_ME.search(rec.text) \
            or me and _I_SUBJECT.search(rec.text):
        return False
    thing = set(stems(question)) - {stem(w) for w in asked}
    parts = [c for c in clauses(rec.text) if len(c.split()) >= 3]
    told = [c for c in parts if values(c) or set(stems(c)) & thing] or parts[:1]
    if parts[:1] != told[:1]:
        return False  # opened on something else: a reason or news ("Storm warning, so …")
    for clause in told:
        who = opening_person(clause)
        if not who or who in _words_of(question) or who in mine:
            return False
        if not _HOLDS.search(clause) \
                and any(stem(m.group(1).lower()) in thing for m in _POINTED.finditer(clause)):
            return False  # the person acts on the thing asked ("moved today's meeting")
    return bool(told)


def kin_owned(question: str, asker: str, rec: SourceRecord) -> bool:
    """Whether ``rec`` gives the thing a question asks of with no owner ("When is the
    boiler being serviced?") to a relative of its speaker or of someone else ("My mum's
    boiler is getting done on Monday", "his brother's van"): a question that names no
    owner asks of the asker's household's thing, not a relative's. Not for a question
    that names anyone or anyone's, asks who or a name, nor a robot's turn."""
    if is_robot(rec.speaker, rec.robot_id) or rec.modality == "perception":
        return False
    if possessed(question) or holders(question) or _WHO.match(question) \
            or _NAME_ASKED.search(question):
        return False
    thing = frozenset(stem(w) for w in words(question.lower()) if w not in STOPWORDS)
    me = _words_of(asker)
    for m in (*_POSSESSED.finditer(rec.text), *_PLURAL_POSSESSED.finditer(rec.text)):
        owner = m.group(1).lower().replace("’", "'")
        if owner in KIN and owner not in me and set(_owned_things(rec.text, m)) & thing:
            return True
    return False


# Words that only date or order a thing ("new", "own", "main") may follow what opens a
# noun phrase (``NP_DETERMINERS``: "the guest password", "My own personal mobile") before
# the word that says which kind it is.
_DATING = frozenset("own new old current latest previous usual same next last first second "
                    "other main big little only whole full".split())
# What a question opens its subject after ("How much are concert tickets?", "What time
# does breakfast club start?").
_AUXILIARIES = AUXILIARIES - {"am", "shall", "may", "might", "must"}
_DO_QUESTION = lazy_re(r"\b(?:does|do|did|will|can|could|should|would)\b", re.I)
_DISCOURSE = frozenset("oh and so but also well yeah yes no actually though plus anyway ok "
                       "okay right cheers btw meanwhile".split())
_PHRASE_WORD = lazy_re(r"[\w'’-]+")
_VERB_ENDING = lazy_re(r"\w{3}(?:ed|ing)$")


def _kind_word(word: str) -> bool:
    """Whether ``word`` (lower-cased) may say which kind of thing a noun is: a content word,
    not a value, a word that dates or orders a thing, a possessive or a verb form."""
    return word not in STOPWORDS and word not in _DATING and len(word) > 2 \
        and bool(_KIND_WORD.fullmatch(word)) and not is_value_word(word) \
        and not _VERB_ENDING.search(word)


# A word of letters, or of letters joined by hyphens ("after-school", "x-ray"): no "I'm".
_KIND_WORD = lazy_re(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def _verb_at(ws: Sequence[str], i: int) -> bool:
    """Whether ``ws[i]`` is a particle or the verb a particle follows ("pass away",
    "brought back"): no noun of a noun phrase."""
    return ws[i].lower() in PARTICLES or (i + 1 < len(ws) and ws[i + 1].lower() in PARTICLES)


@lru_cache(maxsize=4096)
def _asked_kinds(question: str) -> dict[str, frozenset[str]]:
    """Noun stem -> stems of the words the question puts right before it to say which one
    it asks of, where they open its noun phrase ("breakfast club": club -> breakfast;
    "the staff Wi-Fi password": password -> wi-fi). In a question with "do", "will" and
    the like its last word, or the word before a preposition, is its verb ("start")."""
    out: dict[str, set[str]] = {}
    do = bool(_DO_QUESTION.search(question))
    for part in clauses(question.rstrip(" ?!.")):
        ws = _PHRASE_WORD.findall(part)
        for i in range(1, len(ws) - 1):
            before, mod, noun = ws[i - 1].lower(), ws[i].lower(), ws[i + 1].lower()
            if before not in NP_DETERMINERS | _AUXILIARIES and not re.search(r"['’]s$", before):
                continue
            if not _kind_word(mod) or ws[i][:1].isupper() or noun in STOPWORDS \
                    or not noun.isalpha() \
                    or _VERB_ENDING.search(noun):
                continue
            if do and (i + 2 == len(ws) or ws[i + 2].lower() in STOPWORDS):
                continue  # "does the van park when …": the verb
            if _verb_at(ws, i + 1):
                continue  # "did Maria's grandmother pass away", "that brought back": verbs
            out.setdefault(stem(noun), set()).add(stem(mod.replace("’", "'")))
    return {n: frozenset(m) for n, m in out.items()}


# "The other locum", "has its own code": one more of the kind beside the one known.
_ANOTHER = lazy_re(r"\b(?:the\s+other|another|(?:its|their)\s+own)\s+(?:([a-z][\w-]*)\s+)?"
                   r"([a-z][\w-]*)", re.I)
# A question that counts the thing ("her second script", "the 3rd visit") asks of one more
# of its kind itself: "another script" may be the one asked.
_ASKS_ANOTHER = lazy_re(r"\b(?:other|another|own|second|third|fourth|fifth|"
                        r"\d+(?:nd|rd|th))\b", re.I)
_WHICH_NOUN = lazy_re(r"\b(?:which|what)\s+([a-z][\w-]*)", re.I)


def _another_of(question: str, text: str) -> bool:
    """Whether ``text`` says "the other", "another", "its own" or "their own" before a
    word of what the question asks about ("The other locum, Dr. Amadi, does Thursdays"
    for "Who is covering Mondays as locum?"), where the question says no such word and
    the word is not the noun a "which"/"what" question asks for ("the other side" for
    "Which side …?" is the value)."""
    thing = _thing_of_another(question)
    low = text.lower()
    if thing is None or "other" not in low and "own" not in low:
        return False  # (no "another", "the other", "its own": the search is dearer)
    # Not a verb form after it ("another cat named Bailey", "another painting like our
    # last one" for "What did they paint?"): what it calls another is not the thing asked.
    return any(
        w and stem(w.lower()) in thing and not _VERB_ENDING.search(w.lower())
        for m in _ANOTHER.finditer(text) for w in m.groups())


@lru_cache(maxsize=4096)
def _thing_of_another(question: str) -> frozenset[str] | None:
    """What ``_another_of`` reads of the question, once per question, not once per
    record: the stems of the thing asked about, or None where the question itself
    counts the thing ("her second script")."""
    if _ASKS_ANOTHER.search(question):
        return None
    return question_terms(question) - {stem(h) for h in holders(question)} \
        - {stem(m.group(1).lower()) for m in _WHICH_NOUN.finditer(question)}


# Which days of the week a word names: "Wednesdays", "weeknights" (Monday to Friday),
# "weekends".
_WEEK_PARTS = {"weekday": WEEKDAYS[:5], "weeknight": WEEKDAYS[:5], "weekend": WEEKDAYS[5:]}
_DAY_WORD = lazy_re(rf"\b({'|'.join(WEEKDAYS + tuple(_WEEK_PARTS))})s?\b", re.I)
# A question that asks a day, or a time gone by, may name a day that no longer holds.
_ASKS_DAY = lazy_re(r"\b(?:when|days?|nights?|weeks?|which\s+\w*days?|before|after|"
                    r"originally|used\s+to|was|were|did)\b", re.I)


def _days_named(text: str) -> frozenset[str]:
    """The days of the week ``text`` names (a weekend is Saturday and Sunday)."""
    out: set[str] = set()
    for m in _DAY_WORD.finditer(text):
        day = m.group(1).lower()
        out |= set(_WEEK_PARTS.get(day, (day,)))
    return frozenset(out)


def _another_day(question: str, text: str) -> bool:
    """Whether ``text`` names days of the week and none of those the question names as
    which one it asks of ("Weekends the yard closes at six" for "What time does the yard
    close on weeknights?"; "Friday is macaroni cheese" for the menu on Wednesdays): the
    same thing on other days. Not where the question asks a day or of a time gone by."""
    asked = _days_asked(question)
    told = _days_named(text) if asked else frozenset()
    return bool(told) and not told & asked


@lru_cache(maxsize=4096)
def _days_asked(question: str) -> frozenset[str]:
    """The days of the week the question names as which one it asks of (none where it
    asks a day or of a time gone by), read once per question (``_another_day``)."""
    return frozenset() if _ASKS_DAY.search(question) else _days_named(question)


def other_kind_named(question: str, text: str) -> bool:
    """Whether ``text`` speaks of another thing of the kind the question asks about, a
    look-alike of the one asked: a noun phrase of it (opening a clause, or after an
    article or a possessive) is the noun the question asks of with another word before
    it that says which one ("After-school club runs till 5:45" for "What time does
    breakfast club start?", "Theo's got the lounge speaker" for the kitchen speaker;
    "Hydro pool's been set to 34" beside "the main pool" is not told apart, "main" only
    ranks it) and ``text`` never says the question's word; or it calls the thing "the
    other" or "its own" (``_another_of``), or tells it on other days of the week than the
    question names (``_another_day``)."""
    if _another_of(question, text) or _another_day(question, text):
        return True
    asked = _asked_kinds(question)
    if not asked:
        return False
    said, q = _phrase_stems(text), _phrase_stems(question)
    for ws in _clause_words(text):
        start = 0
        while start < len(ws) and ws[start] in _DISCOURSE:
            start += 1
        for i in range(start, len(ws) - 1):
            if i > start and ws[i - 1] not in NP_DETERMINERS | _DATING:
                continue  # not the opening of a noun phrase ("rain put people off")
            if _verb_at(ws, i + 1) or _VERB_ENDING.search(ws[i + 1]):
                continue  # "my grandma passed away": her deed, not a thing of another kind
            mod, noun = ws[i], stem(ws[i + 1])
            if noun in asked and _kind_word(mod) and stem(mod) not in q \
                    and not asked[noun] & said:
                return True
    return False


@lru_cache(maxsize=65536)
def _phrase_stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words and of its phrase words, kept per text:
    ``other_kind_named`` reads every shown record (and the question) for each question."""
    return stems(text) | {stem(w.lower()) for w in _PHRASE_WORD.findall(text)}


@lru_cache(maxsize=65536)
def _clause_words(text: str) -> tuple[tuple[str, ...], ...]:
    """The lower-cased phrase words of each clause of ``text``, kept per text
    (``other_kind_named``)."""
    return tuple(tuple(w.lower() for w in _PHRASE_WORD.findall(part)) for part in clauses(text))


_MY_THING = lazy_re(r"\bmy\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?", re.I)


def speakers_mine(question: str, asker: str, rec: SourceRecord) -> bool:
    """Whether ``rec`` is another person than the asker telling of their own "my X" where
    the question asks of the asker's X and names no one ("The bike lights at my flat are
    in the hall cupboard", said by Greg, for Eleni's "Where are the spare bike lights in
    our flat?"): the speaker's X, not the asker's."""
    if not asker or is_robot(rec.speaker, rec.robot_id) \
            or _words_of(asker) & _words_of(rec.speaker) or holders(question):
        return False
    owned = {t for t, o in possessed(question).items() if o == "i"}
    return bool(owned) and any(stem(w.lower()) in owned for m in _MY_THING.finditer(rec.text)
                               for w in m.groups() if w and w.lower() not in STOPWORDS)
