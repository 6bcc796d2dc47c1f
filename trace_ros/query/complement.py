"""The value a record gives by its syntactic role rather than by its form: the complement
of a copula whose subject is the thing asked ("paper reams are back cupboard", "twins
keyworker at nursery is sandra", "Pia's rabbit at the flat is called Pudding"). The
subject's head is the last word before any phrase after it that tells which one ("the
rabbit at the flat": the rabbit), so a value said of another thing ("the flat is called
…") is not read as the asked thing's.
"""

from __future__ import annotations

import re

from ..language.lazyre import lazy_re
from ..language.monthday import ORDINAL
from ..language.text import STOPWORDS, same_verb, stem, stems
from ..language.timeanchor import find_candidates
from ..language.vocab import BE_FORMS, DO_AUXILIARIES

# Where a clause begins: a mark of punctuation or a word that joins clauses.
_CLAUSE_MARK = lazy_re(r"[,;:.!?—–()]|\b(?:and|but|because|so|which|who|that|when|while|if"
                       r"|since|though|although|or|where|whereas|then)\b", re.I)
# A copula, with the naming verb it may carry ("is called", "was named").
_COPULA = lazy_re(r"\s+(?:is|are|was|were)\s+(?:(?:now|still|just|always|actually)\s+)?"
                  r"(?:(called|named)\s+)?", re.I)
# Prepositions that open a phrase after the subject's head, telling which one it is.
_POST_PREPS = frozenset({"from", "at", "in", "on", "with", "for", "of", "by", "near"})
# Words that close a complement without being part of it ("back cupboard too").
_CLOSERS = frozenset({"too", "now", "again", "instead", "though", "anyway", "then", "also",
                      "as", "if", "but", "and", "so", "for", "because", "these", "days"})
# Where the complement ends: punctuation ends it, a full stop only before a space or the
# end (not the one inside "4.20").
_COMPLEMENT_END = lazy_re(r"[,;:!?—–()]|\.(?=\s|$)")


def _subject_words(clause: str) -> list[str]:
    """The content words (lower-cased) of a clause's subject up to its head, before a
    phrase that tells which one ("Pia's rabbit at the flat" → pia, rabbit)."""
    ws = [w.lower().replace("’", "'") for w in re.findall(r"[\w'’-]+", clause)]
    cut = next((k for k, w in enumerate(ws) if k and w in _POST_PREPS), len(ws))
    ws = [re.sub(r"'s$|s'$", "", w) for w in ws[:cut]]
    return [w for w in ws if w not in STOPWORDS]


def subject_head(clause: str) -> str:
    """The head noun (lower-cased) of a clause's subject: its last word before a phrase
    that tells which one ("Pia's rabbit at the flat" → rabbit); '' when it has none."""
    ws = _subject_words(clause)
    return ws[-1] if ws else ""


def copula_complement(sentence: str, heads: set[str] | frozenset[str] | None,
                      naming: bool = False, whole: bool = False) -> tuple[str, bool]:
    """The complement of the first copula in ``sentence`` whose subject's head has its
    stem among ``heads`` (up to the end of the clause, without a closing "too" or "now"),
    and whether it was given with "called"/"named"; ('', False) when none. ``naming``:
    only a complement given so. ``whole``: every word of the subject must be among
    ``heads`` too ("Monday meetings" is not the weekly meeting asked). ``heads`` None:
    any subject."""
    for m in _COPULA.finditer(sentence):
        marks = list(_CLAUSE_MARK.finditer(sentence, 0, m.start()))
        subject = _subject_words(sentence[marks[-1].end() if marks else 0:m.start()])
        if not subject or naming and not m.group(1) or heads is not None and (
                stem(subject[-1]) not in heads
                or whole and any(stem(w) not in heads for w in subject)):
            continue
        rest = sentence[m.end():]
        end = _COMPLEMENT_END.search(rest)
        ws = rest[:end.start() if end else len(rest)].split()
        cut = next((k for k, w in enumerate(ws) if k and w.lower() in _CLOSERS), len(ws))
        ws = ws[:cut]
        while ws and ws[-1].lower() in _CLOSERS:
            ws.pop()
        if ws:
            return " ".join(ws), bool(m.group(1))
    return "", False


# "a guy called ade", "the new one named Bo": a name given to a noun said with an article.
_CALLED = lazy_re(r"\b(?:a|an|the)\s+(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*\s+(?:called|named)\s+"
                  r"([\w'’-]+)")


def _name_like(phrase: str, uncased: bool) -> bool:
    """Whether ``phrase`` can be someone's name: up to three capitalised words, or (from a
    writer who uses no capitals, ``uncased``) one word that is no function word and no
    verb or adverb form."""
    ws = phrase.split()
    if not ws or len(ws) > 3:
        return False
    if all(w[:1].isupper() and w.lower() not in STOPWORDS for w in ws):
        return True
    return uncased and len(ws) == 1 and ws[0].isalpha() and ws[0] not in STOPWORDS \
        and not ws[0].endswith(("ing", "ed", "ly"))


def uncased(text: str) -> bool:
    """Whether ``text`` is written without capitals (where a name would have one)."""
    return not re.search(r"[A-Z]", re.sub(r"\bI\b", "", text))


def person_complement(sentence: str, heads: set[str] | frozenset[str], lower: bool) -> str:
    """The name ``sentence`` gives the role asked by its role in the clause: the complement
    of a copula whose subject is the role ("twins keyworker at nursery is sandra"), or,
    from a writer using no capitals (``lower``), the word a noun is "called" ("a guy
    called ade"); '' when none."""
    said, _ = copula_complement(sentence, heads)
    if said and _name_like(said, lower):
        return said
    m = _CALLED.search(sentence) if lower else None
    return m.group(1) if m and _name_like(m.group(1), True) else ""


def place_complement(sentence: str, heads: set[str] | frozenset[str] | None) -> str:
    """The place ``sentence`` gives the thing asked by a copula with no preposition ("paper
    reams are back cupboard too"): a complement of two words or more, or one with a
    capital or a figure, that opens with no function word and holds no verb form and
    no time, of a subject said wholly in the question's words (any, ``heads`` None);
    '' when none."""
    said, _ = copula_complement(sentence, heads, whole=True)
    ws = said.split()
    if not ws or len(ws) > 5 or ws[0].lower() in STOPWORDS \
            or any(w.lower().endswith(("ing", "ed", "ly")) for w in ws):
        return ""
    if len(ws) == 1 and not re.search(r"[A-Z0-9]", said):
        return ""
    # "… are Friday the 20th", "is due home Thursday night": a time, not a place.
    return "" if find_candidates(said) else said


# "there" standing for a place, not the "there" of "there's a …".
_THERE = lazy_re(r"\bthere\b(?!\s*(?:is|are|was|were|['’]s|['’]re)\b)", re.I)


def place_there(sentence: str, heads: set[str] | frozenset[str]) -> str:
    """The place a clause of the thing asked says only as "there", given by a copula
    before it in the sentence ("The seminar room is 4.20 if anyone asks, we've got
    journal club there"); '' when none."""
    for m in _THERE.finditer(sentence):
        marks = list(_CLAUSE_MARK.finditer(sentence, 0, m.start()))
        if not marks or not stems(sentence[marks[-1].end():m.start()]) & heads:
            continue
        value = place_complement(sentence[:marks[-1].start()], None)
        if value:
            return value
    return ""


# "in there", "inside it": a place said only by pointing back at a thing ("… in there").
_IN_THERE = lazy_re(r"\b(?:in|inside)\s+(?:there|it)\b(?!\s*(?:is|was|['’]s)\b)", re.I)
# A clause whose subject is only a pronoun ("and it's in there").
_PRONOUN_ONLY = lazy_re(r"\s*(?:it|they|them|these|those)(?:['’]s|['’]re|\s+(?:is|are|was|were"
                        r"|lives?|stays?|goes|go|sits?|hangs?|now|all))*\s*", re.I)
# A thing a clause puts somewhere, with where ("a key safe fitted by the back door", "the
# key safe's fitted by the front door"): its noun (a determiner before it), the participle
# that places it, and the place phrase to the clause's end.
_PUT_THING = lazy_re(r"\b(?:a|an|the|one\s+of\s+those|our|my|your)\s+"
                     r"((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*?)(?:s\b|['’]s\b)?\s+"
                     r"(?:(?:is|are|was|were|been|now|just)\s+)*[a-z]+ed\s+"
                     r"((?:by|on|in|at|under|beside|behind|above|below|next\s+to)\s+"
                     r"[^,;:.!?—–()]+)", re.I)
# The same said actively ("Gemma's fitted a key safe by the door"): the participle, then
# the thing with its determiner, then where.
_PUT_ACTIVE = lazy_re(r"\b[a-z]+ed\s+(?:a|an|the|one\s+of\s+those|our|my|your)\s+"
                      r"((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*?)(?:s\b)?\s+"
                      r"((?:by|on|in|at|under|beside|behind|above|below|next\s+to)\s+"
                      r"[^,;:.!?—–()]+)", re.I)


def place_in_there(text: str, heads: set[str] | frozenset[str]) -> str:
    """The place a clause of the thing asked says only as "in there", standing for the thing
    put somewhere just before it ("I've had a key safe fitted by the back door. The spare
    room keys live in there from now on." → "key safe by the back door"): what holds the
    thing is the answer, with where it is. '' when none."""
    for m in _IN_THERE.finditer(text):
        marks = list(_CLAUSE_MARK.finditer(text, 0, m.start()))
        start = marks[-1].end() if marks else 0
        if _PRONOUN_ONLY.fullmatch(text[start:m.start()]) and len(marks) > 1:
            # "… handed the spare back and it's in there": "it" is the thing the clause
            # before names.
            marks.pop()
            start = marks[-1].end()
        if not stems(text[start:m.start()]) & heads:
            continue  # "in there" said of another thing than the one asked
        put = sorted([*_PUT_THING.finditer(text, 0, start), *_PUT_ACTIVE.finditer(text, 0, start)],
                     key=lambda p: p.start())
        if not put:
            continue
        noun, where = put[-1].group(1), put[-1].group(2).split()
        while where and where[-1].lower() in _CLOSERS:
            where.pop()  # "by the front door now"
        if noun.split()[-1].lower() not in STOPWORDS and len(where) > 1:
            return f"{noun} {' '.join(where)}"
    return ""


# "What X do/does/is … <holder> <verb> [<phrase>]?": the words after the auxiliary.
_WH_AUX = lazy_re(r"\s*(?:what|which)\s+(?:[\w'’-]+\s+){1,3}?(do|does|did|am|is|are|was|were"
                  r"|has|have|had|will)\s+([^?]+?)\s*\?*\s*$", re.I)
# Prepositions that open a phrase after the verb ("play | in the panto"), or end the
# question as the verb's own ("What shift is my husband on?").
_PREPS = frozenset({"in", "on", "at", "to", "for", "with", "from", "after", "before", "about",
                    "by", "into", "during"})
# Words that say when a question asks, not what ("Which keys does Jonah have now?").
_WHEN_ASKED = frozenset({"now", "currently", "usually", "still", "again", "today"})
# Words that stand for the one speaking or asking.
_FIRST = frozenset({"i", "i'm", "i've", "i'd", "i'll", "me", "my", "we", "we're", "we've", "us",
                    "our"})
# Pronouns that are a clause's subject.
_SUBJECTS = frozenset({"i", "we", "you", "he", "she", "they", "it"})
# Pronouns that stand for one named before them.
_PRONOUNS = frozenset({"he", "she", "they", "it"})
# What may stand between a verb and its object: a determiner or an owner's pronoun.
_DETS = frozenset({"the", "a", "an", "my", "his", "her", "their", "our", "your", "its", "some"})
_CLOCK = lazy_re(rf"\d\s*(?:am|pm)\b|\d[:.]\d\d|\b{ORDINAL}\b", re.I)
_TOKEN = lazy_re(r"[\w'’-]+|[^\w\s]")


def _asked_verbs(question: str) -> list[tuple[str, list[str], bool]]:
    """The verbs (or a closing preposition) ``question`` asks its "what/which X" with,
    each with the words of the one it is asked of before it, and whether a preposition
    may come between the verb and its object: "Which instrument do I play in the panto?"
    → ("play", ["i"], True); "What shift is my husband on?" → ("on", ["my", "husband"],
    False), then ("husband", …)."""
    m = _WH_AUX.match(question.replace("’", "'"))
    if m is None:
        return []
    ws = [w.lower() for w in re.findall(r"[\w'-]+", m.group(2))]
    cut = next((k for k, w in enumerate(ws) if k and w in _PREPS and k < len(ws) - 1), len(ws))
    head = ws[:cut]
    while head and head[-1] in _WHEN_ASKED:
        head.pop()
    found: list[tuple[str, list[str], bool]] = []
    if len(head) > 1 and head[-1] in _PREPS:
        found.append((head[-1], head[:-1], False))
        head = head[:-1]
    if m.group(1).lower() in BE_FORMS and not found \
            and not (head and head[-1].endswith("ing")):
        return []  # "What brand are Biscuit's tablets?": no verb, "tablets" is the thing
    if len(head) > 1 and head[-1] not in _PREPS and (head[-2] in _SUBJECTS or not found
                                                     or m.group(1).lower() in DO_AUXILIARIES):
        # After a closing preposition, only a word said of a pronoun is read as the verb
        # ("am I allergic to"): in "is my husband on", "husband" is whom it is asked of.
        # After "do", the word after the one asked of is the verb ("does Lucia go to").
        found.append((head[-1], head[:-1], True))
    return found


def asked_holder(question: str) -> set[str]:
    """The stems of the one a "what/which X" question asks its verb of (the last reading
    of ``_asked_verbs``), other than a first-person word ("Which school does Lucia go
    to?" → {lucia}); empty when the question asks it of the one asking or has no verb to
    read."""
    found = _asked_verbs(question)
    return {stem(w) for w in found[-1][1] if w not in STOPWORDS and w not in _FIRST} \
        if found else set()


def verb_object(question: str, sentence: str, asked: set[str] | frozenset[str]) -> str:
    """What ``sentence`` says in the place of the "what/which X" of ``question``: the
    object of the verb the question asks with, said of the same one ("What instrument
    does Sigrid play?" in "Sigrid plays saxophone now" → "saxophone"; "Which race is
    Conor doing?" in "Conor … is doing the full Dublin marathon" → "full Dublin
    marathon"; "What shift is my husband on?" in "My husband Dave …, he's on nights" →
    "nights"). The one it is asked of must be said before the verb (a first-person word
    for "I", "my"). Up to three words, none of them the question's (``asked``: its stems)
    nor a time; '' when the sentence gives none."""
    toks = _TOKEN.findall(sentence.replace("’", "'"))
    low = [t.lower() for t in toks]
    for verb, holder, prep_ok in _asked_verbs(question):
        need = {stem(w) for w in holder if w not in STOPWORDS and w not in _FIRST}
        first = any(w in _FIRST for w in holder)
        for k, tok in enumerate(low):
            if not (tok == verb if verb in _PREPS else same_verb(tok, verb)):
                continue
            marks = [j for j, w in enumerate(low[:k]) if _CLAUSE_MARK.fullmatch(w)]
            before = low[marks[-1] + 1 if marks else 0:k]  # the verb's own clause
            if marks and {re.sub(r"'.*", "", w) for w in before} & _PRONOUNS:
                # "…, he's on nights": "he" is the one named in the clause before
                before = low[marks[-2] + 1 if len(marks) > 1 else 0:k]
            # "Kayleigh's on the ten-till-six": the one asked of, said with a clitic verb.
            if not need <= {stem(re.sub(r"'(?:s|re|ll|d)$", "", w)) for w in before} \
                    or first and not set(before) & _FIRST:
                continue
            if verb in _PREPS and not _said_of(before, need, first):
                continue  # "The candles are somewhere in the kitchen": not where they are
            value = _object_after(toks, k + 1, prep_ok)
            if value and not stems(value) & asked and not find_candidates(value) \
                    and not _CLOCK.search(value):
                return value
    return ""


# What may stand between the one asked of and the preposition said of it ("he's on").
_LINKS = BE_FORMS | {"'s", "'re", "'m"} | _WHEN_ASKED


def _said_of(before: list[str], need: set[str], first: bool) -> bool:
    """Whether the words ``before`` a closing preposition end with the one it is asked of
    (a word of ``need``, a pronoun, or, for ``first``, a first-person word), with only a
    copula or a word of when between: "Bruno on", "he's on", "I'm on", not "the candles
    are somewhere in": a preposition alone says what it is of only next to it."""
    ws = list(before)
    while ws and ws[-1] in _LINKS:
        ws.pop()
    if not ws:
        return False
    last = ws[-1]
    bare = re.sub(r"'.*", "", last)
    return stem(bare) in need or bare in _PRONOUNS or first and (last in _FIRST or bare in _FIRST)


def _object_after(toks: list[str], at: int, prep_ok: bool) -> str:
    """The content words (up to three) that open at ``toks[at]``, after one preposition
    (where ``prep_ok``) and a determiner; '' when a function word or a mark comes first."""
    if prep_ok and at < len(toks) and toks[at].lower() in _PREPS:
        at += 1
    if at < len(toks) and toks[at].lower() in _DETS:
        at += 1
    said: list[str] = []
    for tok in toks[at:at + 3]:
        if not re.match(r"\w", tok) or tok.lower() in STOPWORDS:
            break
        said.append(tok)
    while said and said[-1].lower() in _CLOSERS:
        said.pop()  # "cakes anyway"
    return " ".join(said)


# "it's the back room of the Red Lion now": a copula whose subject is only a pronoun,
# with the determiner phrase it names (to the clause's end, "now" left off).
_PRONOUN_COPULA = lazy_re(
    r"\b(?:it|they)(?:['’]s|['’]re|\s+(?:is|are))\s+(?:now\s+)?"
    r"((?:the|our|my|his|her|their)\s+[^,;:.!?—–()]+?)(?:\s+now)?\s*(?=[,;:.!?—–()]|$)",
    re.I)


def place_said_of_it(sentence: str) -> str:
    """The place a sentence names for "it" alone ("Gym floor's being resealed, so it's
    the back room of the Red Lion now"), for a record the graph stage already tied to the
    thing asked: a determiner phrase of two to seven words holding no verb form and no
    time; '' when none."""
    for m in _PRONOUN_COPULA.finditer(sentence):
        said = m.group(1)
        ws = said.split()
        if not 2 <= len(ws) <= 7 or find_candidates(said) \
                or any(w.islower() and len(w) > 4 and w.endswith(("ing", "ed", "ly"))
                       for w in ws[1:]):
            continue
        if all(w.lower() in STOPWORDS for w in ws[1:]):
            continue  # "it's the same", "it's a bit …"
        return said
    return ""


# "Who is feeding …?", "Who takes …?", "Who's covering …?": the verb a "who" question asks
# its doer of, and what follows it.
_WHO_VERB = lazy_re(r"\s*who(?:'s|'ll|\s+(?:is|are|was|were|will(?:\s+be)?))?\s+"
                    r"([a-z]+)\b(.*)$", re.I)
# What may stand between a doer and its verb: a modal, a copula, a word of when.
_BETWEEN_DOER = frozenset({"will", "is", "are", "was", "be", "still", "now", "going", "to",
                           "also", "always", "usually", "can", "could", "would", "might", "am",
                           "just", "then"})
# A clitic verb joined to the doer ("nan's taking", "I'm covering").
_CLITIC = lazy_re(r"'(?:s|ll|re|m|d)$")
_KIN_OWNERS = frozenset({"my", "our", "your", "his", "her", "their"})


def verb_subject(question: str, sentence: str, kin: frozenset[str]) -> str:
    """Who ``sentence`` says does what a "who" question asks ("Who is feeding the fish
    while we're away?" in "Rory will feed the fish while we're away" → "Rory"; "Who takes
    Jack to football?" in "…, nan's taking him" → "nan"): the subject of the question's
    verb in its own clause, in a sentence that says another word of the question (where
    it has one), where the subject is a name (up to three capitalised words) or a relative
    (a word of ``kin``, with its owner's word: "my mum"); not the speaker ("I'm covering
    it": a later turn may hand it on, which a doer named by the speaker leaves told). ''
    when the sentence gives none."""
    m = _WHO_VERB.match(question.replace("’", "'"))
    if m is None or not m.group(1).islower() \
            or m.group(1) in BE_FORMS | DO_AUXILIARIES | STOPWORDS:
        return ""  # ("Who is Rory?": a name, no verb)
    verb = m.group(1).lower()
    rest = stems(m.group(2)) - STOPWORDS
    if rest and not rest & stems(sentence) - {stem(verb)}:
        return ""  # the sentence says nothing else the question asks of
    toks = _TOKEN.findall(sentence.replace("’", "'"))
    low = [t.lower() for t in toks]
    for k, tok in enumerate(low):
        if not k or not same_verb(tok, verb):
            continue
        j = k
        while j and low[j - 1] in _BETWEEN_DOER:
            j -= 1
        if not tok.endswith("ing") and (set(low[j:k]) & BE_FORMS
                                        or j and low[j - 1].endswith("'s")):
            continue  # "Dinner will be cooked by …", "Dinner's cooked": done to it
        start = j  # the doer's words, back to the start of the clause
        while start and not _CLAUSE_MARK.fullmatch(low[start - 1]):
            start -= 1
        doer = [_CLITIC.sub("", w) for w in toks[start:j]]
        said = [w.lower() for w in doer]
        if not said:
            continue
        if said[-1] in kin and all(w in _KIN_OWNERS for w in said[:-1]):
            return " ".join(doer)
        if len(doer) <= 3 and all(w[:1].isupper() and w.isalpha() for w in doer) \
                and not any(w.lower() in STOPWORDS for w in doer):
            return " ".join(doer)
    return ""
