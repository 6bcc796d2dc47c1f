"""The default extractor: general English rules on the CPU, no language model.

Per sentence (questions are not assertions and are skipped): the clause rules of
``rules.py`` propose keyed statements; subjects are resolved ("I"/"we" → the
speaker, "you" → the addressee, "my sister" → "<speaker>'s sister", a capitalised
name as spoken, "he"/"she" → the one other person named earlier in the message);
each fact gets the time anchor of its own sentence, resolved against the
message's time. A repair anywhere in the message ("Wait, I misread the letter.",
"Scratch that", "No, Friday.") marks its statements with the ``correction`` cue;
a bare corrected time is keyed on what the session's last turns were about
(``ExtractContext.recent``), and a corrected bare weekday names the day nearest
the one it corrects. Questions assert nothing, except a request ("Can we move it
to Monday?"), a belief ("I thought it was on Friday?") and a clause taken as
given ("Since you moved to Oslo, shall I …?").
A source with no keyed statement still yields one unkeyed fact
(its most informative sentence) so every event of the conversation is a vertex.
Perception records become observations of the labelled thing, keyed by where it
was seen (``located_at``) or its state (``status``).
"""

from __future__ import annotations

import dataclasses
import re

from ..facts import FactDraft, norm
from ..language.monthday import WEEKDAYS
from ..language.revision import marks_change, values
from ..language.timeanchor import Anchor, find_candidates, forward_at, resolve, shifted
from ..ledger import SourceRecord
from . import rules
from .extract import ExtractContext

_FIRST = re.compile(r"\b(?:I|me|my|mine|myself|we|us|our|ours)\b", re.I)
_SECOND = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\b")
_NOT_NAMES = {
    "I", "The", "This", "That", "It", "My", "Our", "We", "You", "He", "She", "They", "And",
    "But", "So", "Oh", "Wow", "Yes", "No", "Thanks", "Thank", "Hey", "Hi", "Hello", "OMG",
    "God", "Congrats", "Congratulations", "Awesome", "Great", "Good", "Nice", "Cool", "Sure",
    "Yeah", "Yep", "Ok", "Okay", "Haha", "Lol", "What", "How", "Why", "When", "Where", "Who",
    "Also", "Just", "Well", "Anyway", "Sounds", "Love", "Glad", "Sorry", "Bye", "Take",
    "Definitely", "Absolutely", "Totally", "Really", "Actually", "Btw", "Mr", "Mrs", "Ms",
    "Dr", "Christmas", "Easter", "Thanksgiving", "Halloween", "English", "Spanish",
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December", "Monday", "Tuesday", "Wednesday", "Thursday",
    "Friday", "Saturday", "Sunday", "Amazing", "Let", "Keep", "Happy", "Please", "Wish",
}
# Capitalised words that often open a sentence and are no one's name.
_COMMON_CAPS = {
    "Life", "Work", "Family", "Nature", "Music", "Art", "Everything", "Nothing", "Something",
    "Someone", "Everyone", "Anyone", "Nobody", "Maybe", "Would", "Could", "Should", "Can",
    "Will", "Did", "Does", "Do", "Is", "Are", "Was", "Were", "Have", "Has", "Had", "Then",
    "Now", "Today", "Tonight", "Tomorrow", "Yesterday", "Here", "There", "Since", "Because",
    "After", "Before", "While", "Once", "If", "As", "At", "In", "On", "For", "With", "From",
    "By", "To", "Of", "Not", "Check", "Look", "Let", "Sure", "Speaking", "Stuff", "Things",
    "Home", "School", "Dinner", "Lunch", "Breakfast", "Dogs", "Cats", "People", "Kids",
    "Books", "Reading", "Writing", "Every", "Each", "Some", "Any", "All", "Both",
    "Most", "Many", "Much", "More", "Such", "Other", "Another", "Yours", "Mine", "Ours",
    "Hmm", "Ugh", "Yay", "Aww", "Whoa", "Hope", "Enjoy", "Remember", "Keep", "Thats",
    "Cheers", "Agreed", "True", "Right", "Exactly", "Same", "Also", "Too", "Even", "Still",
    "Yet", "Again", "Never", "Always", "Sometimes", "Often", "Later", "Soon", "Plus",
    "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "First",
    "Last", "Next", "Our", "Your", "Their", "His", "Her", "Its", "These", "Those", "Well",
    "Just", "Only", "Very", "Made", "Got", "Went", "Saw", "Said", "Took",
    "Been", "Tried", "Love", "Feel", "Felt", "Guess", "Need", "Want", "Wanted", "Planning",
}
_THIRD = {"he", "she", "they", "him", "her", "them"}
# A capitalised sentence opener followed by a lower-case word may be a name ("Maya said
# …"), but not when an object follows ("Scratch that", "Grab the keys"): an imperative.
_OPENING = re.compile(r"(?:^|[.!?]\s+)([A-Z][a-z]+)\b(?=\s+[a-z])(?!\s+(?:that|this|it|the|a|an|"
                      r"my|your|our|his|her|their|me|us|him|them|those|these|of)\b)")


def looks_like_name(word: str, known: set[str] | frozenset[str] = frozenset()) -> bool:
    """Whether a capitalised word opening a sentence is likely a name: a known
    person, or a short capitalised word that is no common opener, plural, gerund
    or adverb."""
    if word in known:
        return True
    return (len(word) >= 3 and word[:1].isupper() and word[1:].islower()
            and word not in _NOT_NAMES and word not in _COMMON_CAPS
            and not word.endswith(("s", "ing", "ly", "ed")))
_CHATTER = re.compile(r"^(?:thanks?|thank you|wow|haha+|lol|omg|hey|hi|hello|bye|yeah|yes|"
                      r"no|ok|okay|sure|cool|great|awesome|congrat\w*|good luck|take care|"
                      r"sounds|that is|that was|that sounds|it is|it was|what a|so glad|"
                      r"glad|aw+|oh|you too|same|me too|agreed|exactly|totally|definitely)\b",
                      re.I)
# Leading interjections and vocatives ("Oh, ", "Yep! ", "Hey Maria, ") carry nothing.
_INTERJECTION = re.compile(r"^(?:(?:oh|ooh|yep|yup|yeah|yes|wow|woah|whoa|haha+|hah|lol|hey|hi|"
                           r"hello|well|so|ok|okay|sure|aw+|omg|hmm+|nope|no|btw|anyway|ah|"
                           r"by the way)\b(?:\s+[A-Z][a-z]+)?\s*[,!.:-]*\s*)+", re.I)
_PLAN = re.compile(r"\b(?:will|going\s+to|plan\w*|want\s+to|hope\s+to|hoping\s+to|"
                   r"cannot\s+wait\s+to|looking\s+forward|intend\w*|thinking\s+(?:of|about)|"
                   r"about\s+to)\b", re.I)
_CHANGE = re.compile(r"\b(?:started|begun|began|quit|stopped|became|joined|left|graduated|"
                     r"retired|got\s+(?:married|engaged|promoted|divorced|a\s+new)|moved|"
                     r"switched|changed|finished|no\s+longer|any\s*more|adopted|bought|lost|"
                     r"new)\b", re.I)
_PREF = re.compile(r"\b(?:like|likes|love|loves|enjoy|enjoys|prefer|prefers|favou?rite|hate|"
                   r"fan\s+of|passionate|into)\b", re.I)
_PAST = re.compile(r"\b(?:\w+ed|went|did|made|took|got|saw|had|met|ran|gave|found|wrote|"
                   r"bought|came|built|won|read|tried|taught|began|spent|brought|ate|"
                   r"drove|flew|sang|swam|was|were|held|told|felt|kept|sent|heard|sold|thought|"
                   r"left|lost|paid|caught)\b", re.I)
_SHARED = re.compile(r"^(?P<who>.+?)\s+shared\s+an?\s+(?:image|photo|picture)\s*:\s*"
                     r"(?:a\s+(?:photo|photograph|photography|picture|image)\s+of\s+)?"
                     r"(?P<what>.+)$", re.I)
_PERCEPT_PLACE = re.compile(r"\b(?:on\s+top\s+of|in\s+front\s+of|next\s+to|on|in|inside|"
                            r"under|underneath|behind|beside|near|by|at)\s+(?P<place>.+)$",
                            re.I)
_PERCEPT_STATUS = re.compile(r"^(?:is\s+|are\s+|appears\s+|looks\s+|seems\s+)?(?P<v>"
                             + rules.STATUS_WORDS + r")\s*(?:[,.;!]|$)", re.I)
_SEEN = re.compile(r"^\s*(?:(?:i|robot|the\s+robot|camera)\s+)?(?:detected|detecting|"
                   r"saw|seen|see|sees|spotted|observed|found|noticed|recognized|recognised|"
                   r"perceived|there\s+is|there\s+are|there's)\s*:?\s+", re.I)
_GENERIC_FRAMES = {"", "map", "odom", "world", "base_link", "base_footprint", "camera",
                   "camera_link", "earth"}

TEMPLATES = {
    "lives_in": ("{e} lives in {v}", "{e} does not live in {v}"),
    "works_at": ("{e} works at {v}", "{e} does not work at {v}"),
    "occupation": ("{e} is a {v}", "{e} is not a {v}"),
    "located_at": ("{e} is at the {v}", "{e} is not at the {v}"),
    "scheduled_for": ("{e}: scheduled for {v}", "{e}: not scheduled for {v}"),
    "prefers": ("{e} likes {v}", "{e} does not like {v}"),
    "owns": ("{e} has: {v}", "{e} does not have: {v}"),
    "status": ("{e} is {v}", "{e} is not {v}"),
    "plans": ("{e} plans to {v}", "{e} does not plan to {v}"),
    "relationship": ("{e} is {v}", "{e} is not {v}"),
}


def describe(display: str, relation: str, value: str, polarity: int = 1) -> str:
    """A short third-person statement of a keyed fact ("Alex lives in boston")."""
    base = relation.split(":", 1)[0]
    if base == "occupation" and value.startswith("studies "):
        pos_t, neg_t = "{e} {v}", "{e} no longer {v}"
    else:
        pos_t, neg_t = TEMPLATES.get(base, ("{e} {v}", "{e} not {v}"))
    out = (pos_t if polarity else neg_t).format(e=display, v=value)
    if display.startswith(("the ", "The ")) and _plural(display):
        out = out.replace(f"{display} is ", f"{display} are ", 1)
    return out


def _plural(phrase: str) -> bool:
    last = phrase.split()[-1].lower()
    return last.endswith("s") and not last.endswith(("ss", "us", "is"))


class CpuExtractor:
    """Rule-based extraction (see module docstring); deterministic and stateless."""

    name = "cpu-rules"

    def extract(self, source: SourceRecord, context: ExtractContext) -> list[FactDraft]:
        fallback = context.session_time if context.session_time is not None \
            else source.source_time
        text = rules.normalise(source.text or source.label or "")
        if not text:
            return []
        if source.modality == "perception":
            return _perception(source, text, context, fallback)
        return _dialogue(source, text, context, fallback)


# ---------------------------------------------------------------------------
# dialogue


class _People:
    """Resolves subject words to person entities for one message."""

    def __init__(self, speaker: str, context: ExtractContext, text: str) -> None:
        self.speaker = speaker.strip()
        self.addressee = context.addressee.strip()
        known = {p for p in context.people if p}
        self.known = known
        self.recent = context.recent
        self.recent_times = dict(zip(context.recent, context.recent_times, strict=False))
        self.named = [n for n in dict.fromkeys(_names(text, known))
                      if n.lower() not in (self.speaker.lower(), self.addressee.lower())]

    def resolve(self, ref: str, before: int, text: str) -> str:
        r = ref.strip()
        low = r.lower()
        if low in ("i", "we", "my", "our") or low.endswith(" and i"):
            if low.startswith(("my ", "our ")) and not low.endswith(" and i"):
                return self._family(low)
            return self.speaker
        if low.startswith(("my ", "our ")):
            return self._family(low)
        if low in ("you", "your"):
            return self.addressee
        if low in _THIRD:
            earlier = [n for n in _names(text[:before], set()) if n in self.named]
            return earlier[-1] if len(set(earlier)) == 1 else ""
        if r[:1].isupper() and r not in _NOT_NAMES:
            return r
        return ""

    def _family(self, low: str) -> str:
        rel = low.split(None, 1)[1]
        return f"{self.speaker}'s {rel}" if self.speaker else ""


def _names(text: str, known: set[str]) -> list[str]:
    out = [p for p in known if re.search(rf"\b{re.escape(p)}\b", text)]
    for m in _NAME.finditer(text):
        first = m.group(0).split()[0]
        if first not in _NOT_NAMES and m.group(0) not in _NOT_NAMES \
                and first[:-1] not in _NOT_NAMES:  # "Wednesdays", "Mondays"
            out.append(first if first in known else m.group(0))
    out += [m.group(1) for m in _OPENING.finditer(text) if looks_like_name(m.group(1), known)]
    return out


def _dialogue(source: SourceRecord, text: str, context: ExtractContext,
              fallback: float) -> list[FactDraft]:
    people = _People(source.speaker, context, text)
    drafts: list[FactDraft] = []
    statements = []
    for sent in rules.sentences(text):
        if sent.rstrip().endswith("?"):
            sent = _request(sent)
            if not sent:
                continue
        for clause, offset in rules.clauses(sent):
            for _, st in rules.match_rules(clause):
                # Which way a bare day points is read from the grammar around it
                # (timeanchor.forward_at); an appointment whose clause marks no tense
                # lies ahead.
                lean = st.relation == "scheduled_for"
                anchor = resolve(clause, source.source_time, fallback, lean=lean)
                if anchor.fallback and not anchor.shift:  # none in the clause: the sentence's
                    anchor = resolve(sent, source.source_time, fallback, lean=lean)
                if st.relation == "scheduled_for" and not anchor.shift:
                    # The time the value names ("from Monday to Tuesday" → Tuesday), not
                    # the sentence's first time expression, read the way its clause points.
                    longer = norm(anchor.text).startswith(norm(st.value) + " ") or \
                        norm(anchor.text).startswith(norm(st.value) + ",")
                    if longer:  # "Sunday, 23 February": the rule's value stopped at the comma
                        st = dataclasses.replace(st, value=anchor.text)
                    elif norm(anchor.text) != norm(st.value):
                        at = clause.lower().find(st.value.split()[0]) if st.value else -1
                        future = forward_at(clause, at, lean=True) if at >= 0 else None
                        own = resolve(st.value, source.source_time, fallback, future, lean=True)
                        if not own.fallback:
                            anchor = own
                statements.append((sent, clause, offset, st, anchor))
    repair = rules.is_correction(text)  # "Wait, I misread the letter. Friday for the X."
    for sent, clause, offset, st, anchor in statements:
        draft = _keyed(st, sent, clause, offset, anchor, people, text, repair)
        if draft is not None:
            drafts.append(draft)
    if not drafts:
        free = _unkeyed(source, text, people, fallback)
        if free is not None:
            drafts.append(free)
    return _dedupe(drafts)


_REQUEST = re.compile(r"^(?:(?:actually|so|ok|okay|hey|and),?\s+)?(?:can|could|shall|would)\s+"
                      r"(?P<who>we|you)\s+(?:please\s+)?(?P<rest>.+?)\??$", re.I)


# A belief put with a rising tone ("I thought the lesson was on Friday?") still asserts.
_BELIEF = re.compile(r"^(?:(?:but|wait|hmm|oh),?\s+)?(?P<rest>(?:I|we)\s+(?:thought|think|believe|"
                     r"was\s+sure|am\s+sure|remember(?:ed)?)\s+(?:that\s+)?.+?)\??$", re.I)
# A question whose fronted clause takes something as given ("Since you moved to Oslo,
# shall I …?"): that clause is a statement.
_GIVEN = re.compile(r"^(?:since|now\s+that|given\s+that|as|because|seeing\s+that)\s+"
                    r"(?P<rest>[^,?]+?),\s+\S", re.I)


def _request(sent: str) -> str:
    """A request put as a question ("Can we move it to Monday?") as a statement
    ("we will move it to Monday."), a belief ("I thought it was Friday?") or a
    presupposed clause ("Since you moved to Oslo, …?") as what it asserts; other
    questions assert nothing: ""."""
    s = sent.strip()
    m = _REQUEST.match(s)
    if m:
        return f"{m.group('who')} will {m.group('rest')}."
    m = _BELIEF.match(s)
    if m:
        # Backshift of reported belief: "I thought it was on Friday" is about Friday ahead.
        rest = re.sub(r"^(?:I|we)\s+\w+(?:\s+sure)?\s+(?:that\s+)?", "", m.group("rest"),
                      flags=re.I)
        return re.sub(r"\b(was|were)\s+(?=on\b|at\b|set\b|for\b)",
                      lambda w: "is " if w.group(1).lower() == "was" else "are ", rest) + "."
    m = _GIVEN.match(s)
    return m.group("rest") + "." if m else ""


def _keyed(st: rules.Statement, sent: str, clause: str, offset: int, anchor: Anchor,
           people: _People, text: str, repair: bool = False) -> FactDraft | None:
    relation = st.relation
    thing_rel = relation in ("located_at", "status", "scheduled_for")
    participants: list[str] = []
    if thing_rel and not _is_person_ref(st.entity):
        if st.entity == rules.IT:
            before = text[:max(text.find(sent), 0) + offset] + clause[:st.span[0]]
            named = _antecedent(before, relation) or _not_said(sent, people, relation) \
                or _recent(people.recent, relation)
            if not named:
                return None
            st = dataclasses.replace(st, entity=named, things=(named,))
        entity = norm(st.entity)
        display = st.display or "the " + entity
        if _FIRST.search(clause) or st.imperative:
            participants.append(people.speaker)
        if _SECOND.search(clause) and people.addressee:
            participants.append(people.addressee)
    else:
        pos = max(text.find(sent), 0) + offset + st.span[0]
        if _unknown_capitalised(st.entity, clause, st.span[0], people):
            return None
        person = people.resolve(st.entity, max(pos, 0), text)
        if not person:
            return None
        entity = norm(person)
        display = person
        participants.append(person)
    if not entity or not norm(st.value):
        return None
    value = norm(st.value)
    participants += [n for n in people.named if re.search(rf"\b{re.escape(n)}\b", clause)
                     and norm(n) not in value and norm(n) not in entity]
    participants += [norm(t) for t in st.things]
    if thing_rel:
        participants.append(entity)
    span = (offset + st.span[0], offset + st.span[1])
    cue_list = list(rules.cues(sent, span, clause))
    if st.cue and st.cue not in cue_list:
        cue_list.insert(0, st.cue)
    if st.polarity == 0 and "not" not in cue_list:
        cue_list.append("not")
    if repair and "correction" not in cue_list:
        cue_list.append("correction")
    if relation == "scheduled_for" and "correction" in cue_list:
        anchor = _corrected_day(anchor, value, people.recent_times.get((entity, relation)))
    said = people.recent_times.get((entity, relation))
    if anchor.shift and said is not None:  # "pushed back a week": from the time it had
        moved = shifted(said, anchor.shift)
        if moved is not None:
            anchor = dataclasses.replace(anchor, time=moved, text=anchor.shift, fallback=False)
    desc = describe(display, relation, value, st.polarity)
    if anchor.text:
        desc += f" ({anchor.text})"
    return FactDraft(type=st.type, description=desc, anchor_time=anchor.time,
                     participants=_uniq(participants), entity=entity, relation=relation,
                     value=norm(st.value), polarity=st.polarity, anchor_text=anchor.text,
                     anchor_fallback=anchor.fallback, cues=tuple(cue_list),
                     confidence=st.confidence)


_NP_REF = re.compile(r"\b(?:my|the|your|our)\s+([a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3})", re.I)
_AFTER_PREP = re.compile(r"\b(?:on|in|at|into|onto|under|behind|near|by|to|from|inside|of)\s*$",
                         re.I)


def _antecedent(before: str, relation: str) -> str:
    """What "it" refers to: the last thing named with a determiner earlier in the same
    message, not counting places ("… on the table") — for events, its event name."""
    found = ""
    for m in _NP_REF.finditer(before):
        if _AFTER_PREP.search(before[:m.start()]):
            continue
        np = rules.noun_phrase(m.group(1), 4)
        if not np or rules.head_noun(np) in rules.ABSTRACT or norm(np) in rules.PRONOUNS:
            continue
        found = rules.event_entity(np) if relation == "scheduled_for" else norm(np)
    return found


def _corrected_day(anchor: Anchor, value: str, said: float | None) -> Anchor:
    """A corrected bare weekday ("No, Friday." after "Wednesday the 8th") names that
    weekday nearest the day it corrects, not the next one from now."""
    day = value.split()[-1] if value else ""
    if said is None or day not in WEEKDAYS or len(value.split()) > 2:
        return anchor
    d0 = int(said // 86400)
    old_wd = (d0 + 3) % 7  # 1970-01-01 was a Thursday
    shift = (WEEKDAYS.index(day) - old_wd) % 7
    if shift > 3:
        shift -= 7
    keep = said - d0 * 86400
    return dataclasses.replace(anchor, time=(d0 + shift) * 86400 + keep, fallback=False)


_NOT_DAY = re.compile(r"\bnot\s+(?:on\s+)?(" + "|".join(WEEKDAYS) + r")\b", re.I)


def _not_said(sent: str, people: _People, relation: str) -> str:
    """"Actually, it's Tuesday, not Saturday": the recent event that was on a Saturday."""
    m = _NOT_DAY.search(sent)
    if not m or relation != "scheduled_for":
        return ""
    wd = WEEKDAYS.index(m.group(1).lower())
    for (entity, rel), when in reversed(list(people.recent_times.items())):
        if rel == relation and when is not None and (int(when // 86400) + 3) % 7 == wd:
            return entity
    return ""


def _recent(recent: tuple[tuple[str, str], ...], relation: str) -> str:
    """The latest thing the session's preceding turns keyed with ``relation``."""
    for entity, rel in reversed(recent):
        if rel == relation and entity:
            return entity
    return ""


def _unknown_capitalised(ref: str, sent: str, start: int, people: _People) -> bool:
    """A capitalised sentence-initial word that is no known person ("Moments like
    these …") is a common noun, not a name."""
    first = ref.split()[0]
    if not first[:1].isupper() or first in ("I",) or first.lower() in _THIRD | {"we", "you",
                                                                               "my", "our"}:
        return False
    if first in people.known or first.lower() in (people.speaker.lower(),
                                                   people.addressee.lower()):
        return False
    return not sent[:start].strip(" \"'(") and not looks_like_name(first)


def _is_person_ref(ref: str) -> bool:
    low = ref.strip().lower()
    return low in ("i", "we", "you", "he", "she", "they") or low.endswith(" and i")


def _unkeyed(source: SourceRecord, text: str, people: _People,
             fallback: float) -> FactDraft | None:
    """One fact for the message's most informative assertion, with no key."""
    best, best_score = "", 0
    for sent in rules.sentences(text):
        sent = _INTERJECTION.sub("", sent)
        words = sent.split()
        # A short sentence is chatter unless it gives a time or a figure ("Back on the
        # 12th.", "Ours is Flat 9."): a value said in few words.
        # (a figure may be written as a word: "Six in the morning", "down to six")
        valued = bool(find_candidates(sent) or _FIGURE.search(sent) or values(sent))
        if sent.rstrip().endswith("?") or len(words) < (2 if valued else 4) \
                or _CHATTER.match(sent):
            continue
        if not (_FIRST.search(sent) or _SECOND.search(sent)
                or any(n in sent for n in people.named) or valued or marks_change(sent)):
            # A remark about nothing in particular ("Nature sure is beautiful."); a dated
            # one, one that gives a figure, or one that marks its state as new, is about
            # something ("The plumber is coming on Tuesday", "wifi password is
            # pancakes2025", "the spare key lives in the tin on the fridge now").
            continue
        score = len(words) + 6 * bool(_FIRST.search(sent)) + 4 * bool(_CHANGE.search(sent)) \
            + 4 * bool(_PLAN.search(sent)) + 3 * bool(people.named and _NAME.search(sent)) \
            + 5 * bool(find_candidates(sent))
        if score > best_score:
            best, best_score = sent, score
    if not best:
        return None
    anchor = resolve(best, source.source_time, fallback)
    participants = [people.speaker] if _FIRST.search(best) else []
    if _SECOND.search(best) and people.addressee:
        participants.append(people.addressee)
    participants += [n for n in people.named if re.search(rf"\b{re.escape(n)}\b", best)]
    if not participants and people.speaker:
        participants.append(people.speaker)
    kind = "plan" if not anchor.fallback and anchor.time > source.source_time \
        and _free_type(best) == "observation" else _free_type(best)
    return FactDraft(type=kind, description=third_person(best, people),
                     anchor_time=anchor.time, participants=_uniq(participants),
                     anchor_text=anchor.text, anchor_fallback=anchor.fallback,
                     cues=rules.cues(best),
                     confidence=0.5)


_FIGURE = re.compile(r"\d")


def _free_type(sent: str) -> str:
    if _PLAN.search(sent):
        return "plan"
    if _CHANGE.search(sent):
        return "state_change"
    if _PREF.search(sent):
        return "preference"
    if _PAST.search(sent):
        return "action"
    return "observation"


_THIRD_PERSON = [
    (r"\bI am\b", "{s} is"), (r"\bI was\b", "{s} was"), (r"\bI have\b", "{s} has"),
    (r"\bI\b", "{s}"), (r"\b[Mm]y\b", "{s}'s"), (r"\b[Mm]e\b", "{s}"), (r"\b[Mm]yself\b", "{s}"),
    (r"\b[Mm]ine\b", "{s}'s"),
]
_SECOND_PERSON = [
    (r"\b[Yy]ou are\b", "{a} is"), (r"\b[Yy]ou have\b", "{a} has"), (r"\b[Yy]our\b", "{a}'s"),
]


def third_person(sent: str, people: _People, max_words: int = 30) -> str:
    """The sentence with "I"/"my" (and "you" where the addressee is known) replaced
    by names; a readable description, not a grammatical rewrite."""
    out = sent
    if people.speaker:
        for pat, rep in _THIRD_PERSON:
            out = re.sub(pat, rep.format(s=people.speaker), out)
    if people.addressee:
        for pat, rep in _SECOND_PERSON:
            out = re.sub(pat, rep.format(a=people.addressee), out)
    words = out.split()
    return " ".join(words[:max_words]) + (" …" if len(words) > max_words else "")


# ---------------------------------------------------------------------------
# perception


def _perception(source: SourceRecord, text: str, context: ExtractContext,
                fallback: float) -> list[FactDraft]:
    anchor = resolve(text, source.source_time, fallback)
    conf = source.confidence if source.confidence is not None else 0.9
    shared = _SHARED.match(text)
    if shared:
        who = shared.group("who").strip()
        what = shared.group("what").strip()
        return [FactDraft(type="observation", description=f"{who} shared an image of {what}",
                          anchor_time=anchor.time, participants=_uniq([who]),
                          anchor_text=anchor.text, anchor_fallback=anchor.fallback,
                          cues=(), confidence=conf)]
    label = source.label.strip() if source.label and source.label != "image" else ""
    text = _SEEN.sub("", text) or text
    body = text
    if label and norm(body).startswith(norm(label)):
        body = re.sub(r"^\s*(?:the|a|an)?\s*" + re.escape(label), "", body, count=1,
                      flags=re.I)
    thing = norm(label) or norm(rules.noun_phrase(text, 4))
    drafts: list[FactDraft] = []
    # Rules first: "the door is open", "the mug is in the sink".
    for _, st in (rules.match_rules(text) if not label else ()):
        if st.relation in ("located_at", "status"):
            ent = norm(st.entity)
            drafts.append(_percept(st.relation, ent, norm(st.value), anchor, conf))
    if drafts:
        return drafts
    place = ""
    m = _PERCEPT_PLACE.search(body)
    if m:
        place = norm(rules.noun_phrase(m.group("place"), 4, keep_det=False))
    if not place:
        place = _payload_place(source)
    if thing and place and place != thing:
        drafts.append(_percept("located_at", thing, place, anchor, conf))
    s = _PERCEPT_STATUS.match(body.strip())
    if thing and s:
        drafts.append(_percept("status", thing, s.group("v").lower(), anchor, conf))
    if not drafts and thing:
        drafts.append(FactDraft(type="observation", description=f"the {thing} was seen",
                                anchor_time=anchor.time, participants=(thing,),
                                anchor_text=anchor.text, anchor_fallback=anchor.fallback,
                                confidence=conf))
    return drafts


def _percept(relation: str, entity: str, value: str, anchor: Anchor, conf: float) -> FactDraft:
    return FactDraft(type="observation", description=describe("the " + entity, relation, value),
                     anchor_time=anchor.time, participants=(entity,), entity=entity,
                     relation=relation, value=value, anchor_text=anchor.text,
                     anchor_fallback=anchor.fallback, confidence=conf)


def _payload_place(source: SourceRecord) -> str:
    for key in ("location", "place", "room", "area", "where"):
        v = source.payload.get(key)
        if isinstance(v, str) and v.strip():
            return norm(v)
    frame = str((source.pose or {}).get("frame_id", "")).strip()
    return norm(frame.replace("_", " ")) if frame.lower() not in _GENERIC_FRAMES else ""


# ---------------------------------------------------------------------------


def _uniq(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(norm(i) for i in items if i and norm(i)))


def _dedupe(drafts: list[FactDraft]) -> list[FactDraft]:
    seen: set[tuple[str, str, str, int]] = set()
    out = []
    for d in drafts:
        k = (d.entity, d.relation, d.value, d.polarity)
        if k in seen:
            continue
        seen.add(k)
        out.append(d)
    return out


def make_extractor(kind: str = "cpu-rules") -> CpuExtractor:
    """The extractor named ``kind`` (the rule-based CPU one; the LLM extractor is
    chosen per batch by ``llm_extract.make_selector``)."""
    if kind in ("cpu-rules", "cpu", "rules"):
        return CpuExtractor()
    raise ValueError(f"extractor: unknown kind {kind!r}")
