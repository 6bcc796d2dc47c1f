"""Names and roles: the names a question asks about, the name a record gives the thing
asked ("the kitten's called Mochi"), the part someone is given ("taken over as the
innkeeper"), and whether a name answered stands for the thing asked, its owner, the
speaker introducing themself, a place or a thing named after "the".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..language.clauses import clauses
from ..language.lazyre import lazy_re
from ..language.revision import KIN, is_possessive
from ..language.text import STOPWORDS, built, stem, stems, words
from ..language.text import sentences as split_sentences
from ..language.timeanchor import find_candidates
from ..language.vocab import AUXILIARIES
from .amounts import NUMBER_VALUES
from .complement import copula_complement
from .pack import EvidenceItem, Pack
from .readout import ReaderOutput
from .spans import Asked, names_in, repaired

_AUX_BEFORE_NAME = AUXILIARIES - {"am", "shall", "may", "might", "must"} | {"'s", "with", "and"}


def proper_names(question: str) -> set[str]:
    """Stems of the names the question asks about: a capitalised word that owns the
    thing ("Alfie's party") or is the subject ("does Noah live"). A capitalised modifier
    ("my Spanish class", "the Lisbon trip") is part of what is asked."""
    out = set()
    for m in re.finditer(r"\b([A-Z][\w-]*)(['’]s\b)?", question):
        if m.start() == 0:
            continue
        before = question[:m.start()].rstrip().split()[-1].lower() if question[:m.start()].strip() \
            else ""
        if m.group(2) or before in _AUX_BEFORE_NAME:
            out.add(stem(m.group(1).lower()))
    return out


def name_words(text: str, known: set[str]) -> frozenset[str]:
    """The words of the names ``text`` says that the conversation writes as names ("Peak
    District" → peak, district), not a relative ("Dad")."""
    return frozenset(w for _, name in names_in(text, set(), known)
                     for w in words(name) if w in known and w not in KIN)


# Prepositions that tie someone to a thing without naming it: a companion, an owner, one
# it is for ("the soil study with Priyanka" is no college).
_TIED_TO = ("with", "for", "by", "about", "than")


def tied_before(question: str) -> re.Pattern[str] | None:
    """A pattern for the text before a name that ends on a tying preposition the question
    does not ask through itself (None when it asks through all of them)."""
    ties = [p for p in _TIED_TO if not built(rf"\b{p}\b", re.I).search(question)]
    return built(rf"\b(?:{'|'.join(ties)})\s+(?:the\s+)?$", re.I) if ties else None


def stands_for(answer: str, question: str, skip: set[str], known: set[str]) -> bool:
    """Whether ``answer`` says a name that may stand in the place of the thing asked: one
    not reached, after a word of its own, through a preposition that ties it to that
    thing — unless the question asks through the same preposition ("Which courier do we
    post the orders with?" is told by "gone with Parcelforce")."""
    tied = tied_before(question)
    return any(not (tied and stems(answer[:at]) and tied.search(answer[:at]))
               and not _owns_next(answer, at, name)
               for at, name in names_in(answer, skip, known))


def _owns_next(text: str, at: int, name: str) -> bool:
    """Whether the name at ``at`` owns the word after it ("took Jas's old room"): it says
    whose that thing is, not what the thing asked is. "Jonah's on the bathroom" is his
    "is": a function word follows."""
    m = built(rf"{re.escape(name)}['’]s\s+([a-z][\w-]*)").match(text[at:])
    return m is not None and m.group(1) not in STOPWORDS \
        and is_possessive(text, at + len(name) + 2)


# Where a record gives what someone becomes or serves as: "Noah's taken over as the
# innkeeper", "they've made me project coordinator", "I'm the secretary now".
_NOT_ROLE = r"(?!(?:now|again|instead|too|well)\b)"
_ROLE = rf"({_NOT_ROLE}[a-z][\w-]*(?:\s+{_NOT_ROLE}[a-z][\w-]*)?)"


def role_filler(ask: Asked, question: str, out: ReaderOutput,
                 pack: Pack, asker: str = "") -> ReaderOutput | None:
    """For "what X …?" about someone, where no shown record says X, what the cited record
    (or the graph stage's current one) gives that person as being or serving as: "Noah's
    taken over as the innkeeper" for the part Noah plays; then the other shown records,
    newest first, that say nothing else of the question (``_given_alone``). The one asked
    about must be said as the one it is given to (``asker``: whom "I" means)."""
    focus = stem(ask.focus)
    if not focus or any(focus in stems(i.record.text) for i in pack.items):
        return None
    names = sorted(proper_names(question))
    mine = bool(re.search(r"\b(?:my|i|am\s+i|do\s+i)\b", question, re.I))
    if not names and not mine:
        return None
    who = "|".join([*(rf"{re.escape(n)}\w*" for n in names), *(("i", "me") if mine else ())])
    det = r"(?:(?:the|a|an|our|their)\s+)?"
    forms = [rf"\b({who})(?:['’]s|\s+(?:is|was|has|had|am)|['’]m|['’]ve)?\s+"
             rf"(?:[\w'’-]+\s+){{0,3}}?as\s+{det}{_ROLE}",
             rf"\bmade\s+({who})\s+{det}{_ROLE}",
             rf"\b({who})(?:['’]s|['’]m|\s+(?:is|am))\s+(?:now\s+)?the\s+{_ROLE}\s+now\b"]
    q = {stem(w) for w in words(question)}
    order = [i for i in pack.items if i.source_id in out.cited_ids[:1]] + [
        i for i in pack.items if i.routes.get("graph") == 1 and not i.routes.get("superseded")]
    # Then the other shown records, newest first: a role is often given without the
    # question's words ("they made me chairman" after "I'm band secretary").
    read = len(order)
    order += sorted((i for i in pack.items if i not in order and not i.routes.get("other")
                     and not i.routes.get("superseded")),
                    key=lambda i: (-i.record.source_time, -i.record.seq))
    for k, item in enumerate(order):
        for x in split_sentences(repaired(item.record.text)):
            for rx in forms:
                m = built(rx, re.I).search(x)
                if m and not stems(m.group(2)) & q and not set(words(m.group(2))) & STOPWORDS \
                        and (k < read or _given_alone(m.group(1), x[:m.start(1)], item,
                                                      question, asker)):
                    return ReaderOutput(m.group(2), [item.source_id], out.reader)
    return None


_AFTER_PREPOSITION = lazy_re(r"\b(?:in|at|on|to|from|with|for|into|by|of)\s+$", re.I)


def _given_alone(holder: str, before: str, item: EvidenceItem, question: str,
                 asker: str) -> bool:
    """Whether a record the reader did not read gives ``holder`` a role with no other word
    of ``question`` ("Jean's staying on as treasurer" for "What is Jean's role in the
    band?"), one said of "I" or "me" being the asker's own: a record that says more of the
    question ("helping in Reception as a volunteer reader" for "What book am I reading
    with Reception?") is about something the reader weighed, and another speaker's "I"
    is someone else. A name after a preposition (``before`` ends on it: "in Reception")
    is a place, not whom the role is given to."""
    if holder.lower() in ("i", "me") and (not asker or item.record.speaker != asker) \
            or _AFTER_PREPOSITION.search(before):
        return False
    return not (stems(item.record.text) & stems(question)) - stems(holder)


def owner_of(answer: str, focus: str, pack: Pack) -> bool:
    """Whether a shown record gives the name ``answer`` as the one who has ``focus``
    ("Isla's dentist", "Geoff has physio too"). An article after the "'s" makes it "is":
    "Byrne's the landlord" says who the landlord is."""
    owns = re.compile(rf"\b{re.escape(answer.strip())}(?:['’]s\s+(?:(?!(?:the|a|an)\s)"
                      rf"[\w-]+\s+)?|\s+(?:has|had|have)\s+(?:[\w-]+\s+)?){re.escape(focus)}",
                      re.I)
    return any(owns.search(i.record.text) for i in pack.items)


def says_who_speaks(out: ReaderOutput, pack: Pack, question: str = "") -> bool:
    """Whether the cited record names the one answered only as its speaker telling who is
    speaking ("Hi, it's Liz from Freshway", "This is Mr Rhodes"). Not where the speaker
    goes on to say that they themselves do what ``question`` asks ("it's Calum. … so I'll
    be doing your hens myself" for "Who's feeding my hens?"): the one speaking is who."""
    rec = next((i.record for i in pack.items if i.source_id in out.cited_ids[:1]), None)
    name = out.answer.strip()
    if rec is None or not name or name.split()[0].lower() not in rec.speaker.lower().split():
        return False
    said = list(built(rf"\b{re.escape(name)}\b").finditer(rec.text))
    if not said or not all(re.search(r"\b(?:it's|it’s|it is|this is)\s+$",
                                     rec.text[:m.start()], re.I) for m in said):
        return False
    asked = stems(question) - STOPWORDS - {stem(w) for w in words(rec.speaker)}
    return not any(_FIRST_PERSON.search(c) and stems(c) & asked
                   for c in clauses(rec.text[said[-1].end():]))


# A clause whose subject is the speaker ("I'll be doing …", "I'm taking …").
_FIRST_PERSON = lazy_re(r"\b(?:I|I['’](?:ll|m|ve|d)|myself)\b")


def thing_named(out: ReaderOutput, pack: Pack) -> bool:
    """Whether the name answered is written after "the" ("the Oak room", "the Liffey"): the
    name of a thing or a place, which no one is called. The cited record's own use decides
    where it has one within a clause ("no club better than Liverpool" is said as of
    someone); where it only opens a sentence or an item of a list ("Spare projector: Orchid
    room.", "10am, Oak room"), the other shown records do."""
    name = out.answer.strip()
    if not re.fullmatch(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*", name):
        return False
    cited = next((i.record.text for i in pack.items if i.source_id in out.cited_ids[:1]), "")
    the = built(rf"\bthe\s+{re.escape(name)}\b")
    if the.search(cited):
        return True
    if any(not re.search(r"(?:^|[.!?:;,]\s*)$", cited[:m.start()])
           for m in built(rf"\b{re.escape(name)}\b").finditer(cited)):
        return False
    return any(the.search(i.record.text) for i in pack.items)


def _placed(out: ReaderOutput, pack: Pack) -> bool:
    """Whether a shown record says the name answered as a place: its first word after a
    place preposition, however it is written ("on carver rd" beside "Carver Road"), never as
    someone's ("at Jo's" is at her home, and she is someone)."""
    first = re.match(r"[A-Z][\w’'-]*", out.answer.strip())
    if first is None:
        return False
    at = built(rf"\b(?:on|at|in|near|into|along|off)\s+(?:the\s+)?{re.escape(first.group(0))}"
                    r"\b(?!['’]s)", re.I)
    return any(at.search(i.record.text) for i in pack.items)


def asks_name(ask: Asked) -> bool:
    """Whether the question asks what someone or something is called ("What's the kitten
    called?", "What are the grandchildren's names?")."""
    return ask.kind == "name" or stem(ask.focus) == "name"


def no_name_given(ask: Asked, out: ReaderOutput, pack: Pack) -> bool:
    """Whether the answer to a name question is no name: a name is one or a few capitalised
    words ("Biscuit", "Mr Byrne", "Ada and Jo"), not a count ("Five" from "five hens"), a
    day or month, a place a shown record puts something in ("in Leeds") unless the name
    says the thing asked ("at Greenway Vets" names the vet), or phrases strung together
    ("school, swimming lessons ...")."""
    name = out.answer.strip()
    # Several names asked ("What are the names of Ann's cats?"): each is one.
    for one in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*", name):
        if not re.fullmatch(r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*", one):
            return True
        if one.split()[0].lower().strip(".") in NUMBER_VALUES or find_candidates(one):
            return True
    return _placed(out, pack) and not (ask.focus and stem(ask.focus) in stems(name))


# A noun phrase closing a sentence after a comma, with no article: an epithet ("…, daft
# dog."), not the object of an imperative ("…, tell the driver.").
_EPITHET = lazy_re(r",\s+((?:[a-z]+\s+){0,2})([a-z]+)\s*[.!]?\s*$")

# A name given with a title ("Ms Obi", "Dr Shah"): someone in a role.
TITLED = lazy_re(r"\b(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+[A-Z][a-z]+")

# Words right before a name that give it to someone or something ("with Jas", "called Ollie").
NAME_GIVEN = lazy_re(r"\b(?:with|called|named|by|to|as|is|it's|now)\s+$", re.I)

# A capitalised word opening a sentence as the subject of a progressive ("Connor's
# covering", "Priya is taking"): someone doing something.
DOER = lazy_re(r"\s*([A-Z][a-z]+)(?:['’]s| is| will be)\s+[a-z]+ing\b")

# A capitalised word opening a sentence as the subject of a copula whose complement is
# a possessed or definite noun phrase ("Mei's my best friend now"): who that is.
SUBJECT_IS = lazy_re(r"\s*([A-Z][a-z]+)(?:['’]s| is)\s+(?:my|your|our|his|her|their|the)\s+"
                      r"([\w-]+(?:\s+[\w-]+){0,2})")

# Between a possessor and the name of whom it has: "Hana's brother Kai", "Tom's wife, Ana".
POSSESSOR_OF = lazy_re(r"['’]s\s+[a-z]+(?:\s+[a-z]+)?,?\s+")

# Two things, then two names in apposition: "my maid of honour and Raj's best man, Hannah
# and Ollie" (each in turn).
RESPECTIVE = lazy_re(r"([^,.;!?]+?)\s+and\s+([^,.;!?]+?),\s+([A-Z][\w'’-]*)\s+and\s+"
                      r"([A-Z][\w'’-]*)\b")

# The speaker names themself as the person a "who" question asks for.
SELF_NAMED = lazy_re(r"\b(?:is|it's|that's)\s+me\b|\bI(?:'m| am)\s+(?:the|your|on)\b", re.I)

# The speaker saying they do it ("I'll still do Mrs Kaur's reviews"), or telling the one
# they address that they will ("You're doing the orders from next week").
_DOING_VERBS = r"(?:do|doing|take|taking|cover|covering|handle|handling|run|running|place|placing)"
SELF_DOING = lazy_re(rf"\bI(?:'ll| will|'m| am)\s+(?:still\s+)?(?:be\s+)?{_DOING_VERBS}\b")
YOU_DOING = lazy_re(rf"\byou(?:'re| are|'ll| will)\s+(?:now\s+)?{_DOING_VERBS}\b", re.I)


# "a dog called Rex": a name given with "called"/"named" names the noun before it.
_NAMING = lazy_re(r"([\w'’-]+)\s+(?:(?:is|was|'s|’s)\s+)?(?:called|named)\s*$", re.I)
_NAMES_ANYTHING = frozenset(stem(w) for w in (
    "name", "he", "she", "it", "they", "him", "her", "his", "them", "one", "someone", "somebody",
    "guy", "man", "woman", "person", "lady", "bloke", "girl", "boy", "is", "was"))
# "he's Nacho now", "her name is Ada": the name a copula gives.
GIVEN = lazy_re(r"(?:\b(?:is|was|are|'s|’s)|\bname(?:'s|’s)?(?:\s+is)?)\s*$", re.I)


# Words that may stand between a noun and the name it is given ("the vet is called Dr
# Shah"); one other word may too ("our cat got the name Pepper"), but not a preposition
# of place ("a cottage in the Peak District") and not before a name that is itself the
# subject or owner of what follows ("Vet says Biscuit's getting tubby").
_NAME_GLUE = frozenset("the a an is was are called named name his her their our my its "
                       "s new old".split())
_PLACE_WORDS = frozenset("in at on near to from by into onto inside outside behind".split())


def _gives_name(text: str, spot: int, at: int, name: str) -> bool:
    """Whether the name at offset ``at`` is the one ``text`` gives the noun at ``spot``."""
    lo, hi = sorted((spot, at))
    inner = [w.lower().replace("’", "'").split("'")[0]
             for w in re.findall(r"[\w'’-]+", text[lo:hi])[1:]]
    other = [w for w in inner if w not in _NAME_GLUE]
    if not other:
        return True
    owns = re.match(r"['’]s\b", text[at + len(name):])
    return len(other) == 1 and other[0] not in _PLACE_WORDS and not owns


def name_value(ask: Asked, sentences: list[str], skip: set[str], known: set[str],
                focus_here: bool, proper: set[str], focus_turns: Sequence[str] = ()) -> str:
    """The name a record gives the thing asked about ("What's the kitten called?"): a name
    beside the focus noun, or (the noun said in the turn it answers or that echoes it)
    the name a copula gives; never a name "called"/"named" gives another noun ("a dog
    called Rex" does not name the teacher). A person's surname is the capitalised word
    after their first name."""
    focus = stem(ask.focus)
    if focus in proper:
        for x in sentences:
            m = built(rf"\b{re.escape(ask.focus)}\s+([A-Z][\w'’-]+)", re.I).search(x)
            if m and m.group(1)[:1].isupper():
                return m.group(1)
        return ""
    for x in sentences:
        # "Pia's rabbit at the flat is called Pudding": the name the naming copula gives
        # the subject whose head is the thing asked (not "the flat", which tells which).
        given = copula_complement(x, {focus}, naming=True)[0] if focus else ""
        named_so = [n for _, n in names_in(given, skip, known | {w.lower() for w in
                                                              words(given)})
                    if given.startswith(n)]
        if named_so:
            return named_so[0]
        # "Kvikk's been swimming after the seals again, daft dog.": an epithet closing
        # the sentence names its subject again; the name opening it is the thing's.
        epithet = _EPITHET.search(x) if focus else None
        if epithet and stem(epithet.group(2)) == focus \
                and not set(words(epithet.group(1))) & STOPWORDS:
            opening = names_in(x, skip, known | {words(x)[0]} if words(x) else known)
            if opening and opening[0][0] == len(x) - len(x.lstrip()):
                return opening[0][1]
        found = []
        for at, name in names_in(x, skip, known):
            m = _NAMING.search(x[:at])
            # "Our landlord's called …": the noun with its "is" run on names it.
            named = re.sub(r"['’]s$", "", m.group(1).lower()) if m else ""
            if m and stem(named) not in _NAMES_ANYTHING | {focus}:
                continue  # the name of something else
            found.append((at, name))
        if not found:
            continue
        spots = [m.start() for m in re.finditer(r"[\w'’-]+", x) if stem(m.group(0).lower()
                 .removesuffix("'s").removesuffix("’s")) == focus]
        if spots:
            # The name beside the noun ("our vet, Dr Shah", "Mango the cat"), not one a few
            # words on that is the subject of something else ("Vet's off sick, so Biscuit's
            # been moved").
            beside = [f for f in found if any(_gives_name(x, p, f[0], f[1]) for p in spots)]
            if beside:
                return min(beside, key=lambda f: min(abs(f[0] - p) for p in spots))[1]
            continue
        if focus_here:
            continue  # the record names the thing in another sentence
        # The thing is named in the turn beside it ("What's the kitten called?" - "She's
        # Mochi now"): a name the record gives with a copula answers, or one that turn
        # names with it ("We had to say goodbye to Max." - "Sorry about Max, losing a pet
        # is hard").
        given = [f for f in found if GIVEN.search(x[:f[0]])]
        if given:
            return given[-1][1]
        echoed = [f for f in found if any(built(rf"\b{re.escape(f[1])}\b").search(t)
                                          for t in focus_turns)]
        if echoed:
            return echoed[0][1]
    return ""
