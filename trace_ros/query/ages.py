"""Ages: "How old is …?" is answered with the age a shown record states of the one asked
about ("she'll be seven", "a 5-year-old", "turns 40"), and a bare number said as an
age is told from an hour or a count.
"""

from __future__ import annotations

import re

from ..language.lazyre import lazy_re
from ..language.revision import KIN
from ..language.text import STOPWORDS, stem, words
from ..language.vocab import is_robot
from .names import proper_names
from .pack import Pack
from .readout import ReaderOutput, _content

# "How old is …?" asks an age: a record states one ("seven years old", "a 5-year-old",
# "aged 82", "turns 40") or when someone was born.
HOW_OLD = lazy_re(r"\s*how old\b", re.I)
# A date answers "how old" only as the day someone was born ("born on 3 May 2019"); else
# it is when an age was told ("my birthday was last week"), no age.
BORN = lazy_re(r"\bborn\b", re.I)
AGE = lazy_re(r"\byears?[\s-]+old\b|\b\w+-year-old\b|\baged?\s+\d|\bborn\b|\bbirthday\b"
               r"|\bturn(?:s|ed|ing)?\s+(?:\d+|[a-z]+ty)\b|\bage\b", re.I)
# An age said as the complement of "be" or "turn" with nothing it counts after it: "he's
# twenty-eight.", "she'll be seven", "I'm SEVEN!", "Kiwi's four" ("twenty-eight years I've
# had him" counts years, "he's six foot" a height).
_UNITS = r"(?:one|two|three|four|five|six|seven|eight|nine)"
# (A whole word: "fourteen" is not "four" - the teens are tried before the units.)
_AGE_NUMBER = (rf"(?:\d{{1,3}}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
               rf"(?:[\s-]{_UNITS})?|(?:thir|four|fif|six|seven|eigh|nine)teen|ten|eleven"
               rf"|twelve|{_UNITS})\b")
_STATED_AGE = lazy_re(
    r"(?:\b(?P<p>i|he|she|you|they|who)|\b(?-i:(?P<name>[A-Z][^\W\d_A-Z]+)))(?:"
    r"(?:['’]s|['’]m|['’]re|\s+(?:is|am|are))"
    r"(?:\s+(?:only|just|nearly|almost|now|actually))?"
    rf"\s+(?P<n>{_AGE_NUMBER})"
    rf"|(?:['’]ll|\s+will)\s+be\s+(?P<b>{_AGE_NUMBER})"
    rf"|\s+turn(?:s|ed|ing)?\s+(?P<t>{_AGE_NUMBER}))", re.I)
_AGE_AFTER = lazy_re(r"\s*(?:(?:years?|yrs?)(?:[\s-]+old)?\s*|already\s*|now\s*|today\s*)?"
                     r"(?:[.,!?;:—–()]|-\s|$|(?:and|but)\b)", re.I)  # "is 12 and wants …"
# When a stated age holds, said after it: "he's eighty-two as of Tuesday", "Ollie's eight
# this year, not seven".
_AGE_WHEN = lazy_re(r"\s+(?:as\s+of\s+[\w'’-]+|(?:this|next)\s+(?:year|month|week))", re.I)
# "How old am I?", "How old will I be on the trip?": the asker's own age.
_HOW_OLD_ME = lazy_re(r"\s*how old\s+(?:am|was|will)\s+I\b", re.I)
BETWEEN_NOTE = "the time between two events the evidence dates"


def _age_ends(text: str, at: int) -> bool:
    """Whether the number ending at ``at`` ends a stated age: nothing it counts follows,
    save when the age holds ("as of Tuesday", "this year")."""
    when = _AGE_WHEN.match(text, at)
    return bool(_AGE_AFTER.match(text, when.end() if when else at))


def _stated_age(text: str, asked: set[str]) -> str:
    """The age ``text`` states (see ``_STATED_AGE``) of a pronoun or of a name in
    ``asked`` (stems), or ''. "Mr Doyle turned 90" is no one else's age."""
    for m in _STATED_AGE.finditer(text):
        if m.group("name") and stem(m.group("name").lower()) not in asked:
            continue
        if "i" in asked and (m.group("p") or "").lower() != "i":
            continue  # asked of oneself: what the speaker says of themself
        key = "n" if m.group("n") else "b" if m.group("b") else "t"
        if key != "n" or _age_ends(text, m.end()):
            return m.group(key).lower()
    return ""


def said_as_age(value: str, text: str) -> bool:
    """Whether ``text`` says the bare number ``value`` as someone's age ("Pepper's
    birthday is that week too, he'll be six"): a count of years, no hour of the day."""
    bare = value.strip().lower()
    if not re.fullmatch(_AGE_NUMBER, bare, re.I):
        return False
    return any((m.group("n") or m.group("b") or m.group("t") or "").lower() == bare
               and (m.group("n") is None or _age_ends(text, m.end()))
               for m in _STATED_AGE.finditer(text))


_VOCATIVE = lazy_re(r"(?:^|(?<=[,;:.!?]))\s*[A-Z][\w'’-]*\s*,")


def _names_other(text: str, age: str) -> bool:
    """Whether ``text`` names someone before it says ``age`` ("Dad had his birthday, so
    he's eighty-two"): its pronoun is theirs, not that of whom the turn before names. A
    name spoken to is not one spoken of."""
    before = text[:text.lower().find(age)]
    # A name set off by commas is the one spoken to ("No, Jac, he's twenty-eight").
    before = _VOCATIVE.sub(",", before)
    return any(w.lower() in KIN or w[:1].isupper() and w.lower() not in STOPWORDS
               for w in re.findall(r"[\w'’-]+", before) if not w.isdigit())


def _whom(question: str) -> set[str]:
    """The stems of the words "How old is …?" names its one by ("my dad", "my nephew
    Ollie"): the words after the verb up to a function word or a verb in -ing ("turning")."""
    m = re.match(r"\s*how old\s+(?:is|was|will)\s+(.+)", question, re.I)
    if m is None:
        return set()
    said = re.findall(r"[\w'’-]+", m.group(1).lower())  # "Ivy-Rose" is one name
    while said and said[0] in STOPWORDS:
        said.pop(0)  # "my", "the"
    named = []
    for w in said:  # up to the first function word or verb: "Sam" of "Sam be on the trip"
        if w in STOPWORDS or w.endswith("ing"):
            break
        named.append(stem(w))
    return set(named)


def age_answer(question: str, pack: Pack, reader: str, past: bool = False
                ) -> ReaderOutput | None:
    """For "How old is <name>?": the age a shown record states of them — a record that
    names them, is spoken by them, or answers the turn just before it that names them.
    The graph stage's current record first, else the newest such record (asked in the
    past, the earliest)."""
    asked = proper_names(question) | {
        stem(m.group(1).lower()) for m in re.finditer(r"\bhow old\s+(?:is|was|will)\s+"
                                                      r"([A-Z][\w-]*)", question)} | _whom(question)
    me = bool(_HOW_OLD_ME.match(question))
    if me:
        asked = {"i"}
    if not asked:
        return None
    by_seq = {(i.record.session_id, i.record.seq): i.record for i in pack.items}
    found = []
    for item in pack.items:
        rec = item.record
        if item.routes.get("superseded"):
            continue
        age = _stated_age(_content(rec, rec.text), asked)
        if not age:
            continue
        prev = by_seq.get((rec.session_id, rec.seq - 1))
        who = {stem(w) for w in words(rec.text)} | {stem(w) for w in words(rec.speaker)} \
            | ({stem(w) for w in words(prev.text)} if prev is not None else set())
        if asked & {stem(w) for w in words(rec.text)} or asked & who and not _names_other(
                rec.text, age) or me and not is_robot(rec.speaker, rec.robot_id):
            found.append((item, age))
    if not found:
        return None
    lead = [f for f in found if f[0].routes.get("graph") == 1]
    # "How old was she when she joined?": asked in the past, an age told before a later
    # one; asked now, the newest.
    pick = min if past else max
    item, age = lead[0] if lead else pick(found, key=lambda f: (f[0].record.source_time,
                                                                f[0].record.seq))
    return ReaderOutput(age, [item.source_id], reader)
