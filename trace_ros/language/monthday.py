"""The calendar's own words and one reading of a day of the month, for both roads.

The weekday and month names (and their alternations for patterns) and the ways a day of
the month is written as a figure ordinal live here once; ``timeanchor`` (which resolves
them), the revision and value-kind readers of consolidation and the query's readers and
spans import them instead of writing them again:

- ``WEEKDAYS`` / ``MONTHS`` and their alternations ``WEEKDAY_NAMES``, ``MONTH_NAMES``,
  ``MONTH_WORDS`` (with the short forms), ``WEEKDAY_WORD`` (compact: "(?:mon|…)day").
- ``SUFFIX``, ``ORDINAL`` / ``DAY_NUMBER``: pattern fragments for larger patterns ("28th"; "28th" or
  "28", a day beside its month: "March 4", "4 March").
- ``ORDINAL_WORD``: one word that is a figure ordinal ("12th" → group 1 "12"), read
  without its context (a word normalised to its figure: ``figure_of``).
- ``DAY_OF_MONTH``: a day of the month in running text ("the 28th", "on the 3rd,",
  "March 4th", "4th of March"): a figure 1–31 with its ordinal ending, not a rank — an
  ordinal right before the noun it ranks ("4th floor", "the 3rd time", "2nd place", "1st
  team") is none. The noun is read by its shape, with closed-class words only: a lower-case
  word that is no grammar word (preposition, conjunction, pronoun, auxiliary, adverb of
  time or focus), no month and no verb form ("the 12th clashes", "the 8th clashed",
  "the 28th hasn't moved") is a noun; right after a weekday it is the date all the same.
- ``BARE_DAY``: a time expression that is a day of the month alone, with its preposition
  and article ("on the 12th", "by the 3rd", "19th"), read whole (``fullmatch``).
"""

from __future__ import annotations

import re

from .lazyre import lazy_re

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
# Alternations (no group): the weekdays, the months by their whole names, and the months
# whole or short ("sept", "sep", "oct").
WEEKDAY_NAMES = "|".join(WEEKDAYS)
# One weekday written compactly (a group): its first part, then "day" (add "s" for the plural).
WEEKDAY_WORD = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
MONTH_NAMES = "|".join(MONTHS)
MONTH_WORDS = MONTH_NAMES + r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec"

# An ordinal's ending, and a figure written with it.
SUFFIX = r"(?:st|nd|rd|th)"
ORDINAL = rf"\d{{1,2}}{SUFFIX}"
DAY_NUMBER = rf"\d{{1,2}}{SUFFIX}?"

# The closed-class words that may follow a day of the month and never a rank's noun.
_GRAMMAR = (
    # prepositions and particles
    "of at in on to for from with by after before until till through over under about "
    "around since during between into onto off like than per via up down out "
    # conjunctions
    "and or but nor so if when while because though although as unless once whereas "
    # pronouns and determiners
    "i you he she it we they me him her us them my your his its our their this that these "
    "those there here who which what whose all both each either neither "
    # auxiliaries and modals
    "is are was were be been being am has have had do does did will would shall should can "
    "could may might must "
    # adverbs of time and focus
    "not never now then too still also yet instead again already just only even rather "
    "anyway soon else ever").split()
# A noun an ordinal ranks: a lower-case word (whatever the caller's flags) that is no
# grammar word or month, is not cut by an apostrophe ("hasn't") and has no verb ending
# ("-ed"; "-s" but "-ss": "clashes", yet "2nd class").
_NOUN = (rf"(?-i:(?!(?:{'|'.join(_GRAMMAR)}|{MONTH_WORDS})\b)[a-z]+\b(?!['’])"
         r"(?<!ed)(?:(?<=ss)|(?<!s)))")

ORDINAL_WORD = lazy_re(rf"(\d{{1,2}}){SUFFIX}", re.I)
# Right after a weekday ("Saturday 13th matinee", "Friday the 7th start") an ordinal is
# its date, whatever follows (lookbehinds from the ordinal's end: fixed widths).
_AFTER_WEEKDAY = "|".join(rf"(?<=day\s{the}{figure}\w\w)"
                          for the in ("", r"the\s") for figure in (r"\d", r"\d\d"))
DAY_OF_MONTH = lazy_re(rf"\b([12]?\d|3[01]){SUFFIX}\b(?:{_AFTER_WEEKDAY}|(?!\s+{_NOUN}))", re.I)
BARE_DAY = lazy_re(rf"(?:(?:on|by)\s+)?(?:the\s+)?(\d{{1,2}}){SUFFIX}", re.I)


def figure_of(word: str) -> str:
    """``word`` as its figure when it is a figure ordinal ("12th" → "12"), else as is."""
    m = ORDINAL_WORD.fullmatch(word)
    return m.group(1) if m else word

