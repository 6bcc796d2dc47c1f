"""Who does what a question asks the asker about: "When do I fly to Lisbon?" asks when the
asker flies, so "My brother Dan flies out to join me on the 5th" tells when someone else
does, whatever first-person words it has beside ("join me", "right next to me").

A question of the asker's own state names its verb right after "do I", "are we" ("do I
need", "are we staying"); a record's clause whose subject is someone or something else
(a name, a relative, "her coach") and whose verb is that verb gives that subject's value,
unless a clause of the speaker's own ("I", "we") gives a value too.
"""

from __future__ import annotations

import re

from .clauses import sentence_clauses
from .lazyre import lazy_re
from .revision import KIN, NP_DETERMINERS, clause_subject, values
from .text import STOPWORDS, same_verb, sentences
from .vocab import AUXILIARIES

# "When do I fly …?", "Which hotel are we staying in?", "What score will I need?": the verb
# asked of the asker, after the auxiliary and the subject (an adverb may come between).
_ASKED_VERB = lazy_re(r"\b(?:do|does|did|am|are|is|was|were|will|can|could|should|must|"
                      r"have|has)\s+(?:i|we)\s+(?:(?:still|usually|normally|always|now)\s+)?"
                      r"([a-z]+)\b", re.I)
# Words between a subject and its verb: an auxiliary (also contracted or negated) or an
# adverb ("Sue is still going", "Kasia doesn't need", "Harold always takes").
_BETWEEN = AUXILIARIES | frozenset("""isn't aren't doesn't don't didn't won't can't 's 're
still also just only never always now usually often normally already even really
""".split())
_WORDS = lazy_re(r"[^\W_]+(?:['’][a-z]+)?")
_FIRST = frozenset("i i'm i've i'll i'd we we're we've we'll we'd".split())
_OWN = frozenset(("my", "our"))
# Verbs too light to tell one doer's state from another's ("What have I got …?").
_LIGHT = frozenset("be been being have got get do done make".split())


def asked_verb(question: str) -> str:
    """The verb ``question`` asks of the asker, lower-cased ("need" in "What IELTS score do
    I need?"); '' when it asks none or only a light one ("What have I got on Friday?")."""
    m = _ASKED_VERB.search(question)
    word = m.group(1).lower() if m is not None else ""
    if not word or word in STOPWORDS | AUXILIARIES or any(same_verb(word, v) for v in _LIGHT):
        return ""  # ("Which channel am I on?": a preposition, no verb)
    return word


# "When does Sam fly …?", "What time does Antek go to bed?": the verb asked of someone named.
_NAMED_VERB = lazy_re(r"\b(?:do|does|did|is|are|was|were|will|can)\s+([A-Z][a-z]+)\s+"
                      r"(?:(?:still|usually|normally|always|now)\s+)?([a-z]+)\b")


def named_verb(question: str) -> tuple[str, str]:
    """The name and the verb ``question`` asks of someone it names ("Sam", "fly" in "When
    does Sam fly to Lisbon?"), lower-cased; ('', '') when it asks none, or a light verb."""
    m = _NAMED_VERB.search(question)
    if m is None:
        return "", ""
    word = m.group(2)
    if word in STOPWORDS | AUXILIARIES or any(same_verb(word, v) for v in _LIGHT):
        return "", ""
    return m.group(1).lower(), word


def another_does(text: str, verb: str, asked: str = "") -> bool:
    """Whether a clause of ``text`` has someone or something other than the speaker for
    the subject of ``verb`` (``asked_verb``) — "Kasia needs a 7", "Her coach is
    staying at the Premier Inn", "My brother Dan flies out to join me on the 5th" — and
    no clause opening on "I" or "we" gives a value ("Kasia needs a 7 and I need 6.5" is
    the speaker's too). A subject of the speaker's own thing ("My train goes at 6") is
    the speaker's; a relative or a name after "my" ("my friend Sue") is someone else.
    ``asked``: the name the question asks of (``named_verb``), whose own clause it is."""
    if not verb:
        return False
    found = False
    for sentence in sentences(text) or [text]:
        for clause in sentence_clauses(sentence):
            words = [w.replace("’", "'").lower() for w in _WORDS.findall(clause)]
            if not words:
                continue
            if words[0] in _FIRST or words[0].partition("'")[0] in ("i", "we"):
                if values(clause):
                    return False
                continue
            np = clause_subject(clause)
            if not np or asked and any(w.partition("'")[0] == asked for w in np):
                continue
            opener = words[0]
            if opener in _OWN and not (np[-1] in KIN or _named(clause, np[-1])):
                continue  # the speaker's own thing: "My train goes at 6"
            rest = words[len(np) + (opener in NP_DETERMINERS):]
            while rest and rest[0] in _BETWEEN:
                rest = rest[1:]
            if rest and same_verb(rest[0].partition("'")[0], verb):
                found = True
    return found


def _named(clause: str, word: str) -> bool:
    """Whether ``word`` is written capitalised in ``clause``: a name ("my friend Sue")."""
    return bool(re.search(rf"\b{re.escape(word[:1].upper() + word[1:])}\b", clause))
