"""A relative of the one a question asks about, told as the subject of a value.

"When is Alasdair's birthday?" is not answered by "And Alasdair's brother Euan is the 9th
of January": the clause names Alasdair only as whose brother Euan is, and the date is
Euan's. Nor is "When is Leila due?" by "Her sister's due ten days later, the 13th." The
chain (``query.current``) and the reader read such a record as another holder's, as they
do "my sister's appointment" (``revision.about_another``, which lets a record with a
first-person word pass: "… I always mix the two up").

The test is structural: a possessor (a name the question gives, or "his"/"her"/"their"),
a kinship word (``revision.KIN``, or "little one"), maybe that relative's own name in
apposition, then the rest of the clause stating a value. Where the question itself names
the relative ("When is Leila's sister due?", "When is Euan's birthday?") the record is
about the one asked and nothing is said here.
"""

from __future__ import annotations

import re

from .lazyre import lazy_re
from .revision import KIN, holders, values_named

# The kinship nouns, and "little one" for a young child.
_KIN_WORDS = "|".join(sorted(KIN | {"little one", "youngest", "eldest", "oldest"},
                             key=len, reverse=True))
# Possessor, optional qualifier, kinship noun, optional name in apposition.
_RELATIVE = lazy_re(
    r"(?:^|(?<=[.!?;,:])\s*|\b(?i:and|but|plus|also)\s+)"
    r"(?:(?P<name>[A-Z][a-z]+)['’]s|(?P<pron>[Hh]is|[Hh]er|[Tt]heir))\s+"
    r"(?:(?:little|big|older|younger|twin|baby|kid|new)\s+)?"
    rf"(?P<kin>{_KIN_WORDS})\b"
    r"(?:,?\s+(?P<own>[A-Z][a-z]+)\b,?)?")
# Where the relative's clause ends: a sentence end, a colon opening what they pass on
# ("His neighbour passed on a message: he's …"), or a clause that tells a
# consequence or a reason of its own ("…, so seven of us", "because …").
_CLAUSE_END = lazy_re(r"[.!?;:]|,?\s+\b(?:so|because|then|which means|but)\b", re.I)
_SENTENCE_END = lazy_re(r"[.!?;]")


def relative_holds(text: str, question: str) -> bool:
    """Whether ``text`` gives a value as the state of a relative of the one ``question``
    names: "Alasdair's brother Euan is the 9th" for "When is Alasdair's birthday?".
    False when the question names the relative (their kinship word or their name), names
    no one, or when the relative's clause states no value ("Ania's sister said she can't
    make it, so seven of us": the figure is the speaker's)."""
    asked = holders(question) - KIN
    if not asked:
        return False
    q_words = set(re.findall(r"[a-z]+", question.lower()))
    for m in _RELATIVE.finditer(text):
        kin = m.group("kin").lower()
        if set(kin.split()) & q_words:
            continue  # the relative is the one asked about
        own = m.group("own")
        if own and (own.lower() in asked or own.lower() in q_words):
            continue  # "His sister Lily's birthday" for "When is Lily's birthday?"
        name = m.group("name")
        if name and name.lower() not in asked:
            continue  # someone else's relative: the other checks say whose
        end = _CLAUSE_END.search(text, m.end())
        clause = text[m.end():end.start() if end else len(text)]
        if end is not None and end.group(0)[-1:].isalpha():
            # "His daughter's got a party on Saturday, so he's put me in for Sunday": the
            # relative's state is the reason; the consequence gives the value asked.
            stop = _SENTENCE_END.search(text, end.end())
            if values_named(text[end.end():stop.start() if stop else len(text)]):
                return False
        if values_named(clause):
            # "Grandad's still in flat 3, and his friend Stan is in 8": a value told
            # before the relative's clause is the one asked about's own.
            return not values_named(text[:m.start()])
    return False
