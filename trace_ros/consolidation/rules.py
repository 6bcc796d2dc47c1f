"""General English clause rules for the CPU extractor (no language model).

Each rule is a regular expression over one normalised sentence (contractions
expanded, curly quotes straightened) and a handler that turns a match into a
keyed statement: who or what (entity), which canonical relation
(``trace_ros.facts.RELATIONS``), what value, and a fact type. Nothing here is
keyed to names or phrasings of any data set: the rules are about pronouns,
copulas, prepositions of place, verbs of residence, work, liking, owning,
scheduling and their negations.

Entities are ``facts.norm`` strings: a person is their name as spoken (the
speaker for "I"/"we"), a thing is its noun phrase ("red mug"), and an event that
can be scheduled is named by what it is about, with generic event nouns dropped
("parcel pickup", "pick up the parcel" → "parcel"), so rephrasings of one
appointment share a key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..facts import norm
from ..language.monthday import DAY_NUMBER, MONTH_NAMES, WEEKDAY_NAMES
from ..language.text import case_folded
from ..language.timeanchor import find_candidates
from ..language.vocab import EVENT_NOUNS

# ---------------------------------------------------------------------------
# text normalisation

_CONTRACTIONS = [
    (r"\bwon't\b", "will not"), (r"\bcan't\b", "cannot"), (r"\bshan't\b", "shall not"),
    (r"\bain't\b", "is not"), (r"n't\b", " not"), (r"\bI'm\b", "I am"), (r"'re\b", " are"),
    (r"'ve\b", " have"), (r"'ll\b", " will"), (r"\bI'd\b", "I would"),
    (r"\b(we|you|they|he|she)'d\b", r"\1 would"), (r"\bgonna\b", "going to"),
    (r"\bwanna\b", "want to"), (r"\bgotta\b", "have to"),
    (r"\b(it|that|there|what|here|he|she)'s\b", r"\1 is"),
    (r"\bany more\b", "anymore"),
]
_CONTRACTIONS_RE = [(re.compile(p, re.I), r) for p, r in _CONTRACTIONS]
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"',
                         "\u2014": " - ", "\u2013": " - "})
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\s*\n+\s*")


# A tag question closing a sentence asks for agreement; its "not" negates nothing ("You
# really do like writing, don't you."): it goes before the sentence is read.
_TAG = re.compile(r",?\s+(?:do|does|did|is|are|was|were|have|has|had|can|could|will|would|"
                  r"should)n't\s+(?:you|he|she|it|they|we|i|there)\s*(?=[.?!]|$)", re.I)


def normalise(text: str) -> str:
    out = _TAG.sub("", text.translate(_QUOTES))
    for pat, rep in _CONTRACTIONS_RE:
        out = pat.sub(rep, out)
    return re.sub(r"[ \t]+", " ", out).strip()


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


# Clause boundaries: a conjunction before a new subject ("…, and I hate running"), or a
# coordinated verb with the subject left out ("…, and moved to Seattle").
_CLAUSE_SPLIT = re.compile(
    r",?\s+(?:and|but|so|because|since|while|although|though|whereas|and\s+then)\s+"
    r"(?=(?P<subj>(?:I|we|you|he|she|they|my|our|the)\s)|"
    r"(?:also\s+|just\s+|recently\s+|finally\s+|now\s+|then\s+)?(?:[a-z]+ed|got|went|"
    r"left|bought|took|made|became|began|quit|sold|found|put|live|lives|work|works|have|has|"
    r"am|is|are|will|no\s+longer|do\s+not|did\s+not)\b)")
_LEAD_SUBJECT = re.compile(r"\b(?:I|[Ww]e|[Yy]ou|[Hh]e|[Ss]he|[Tt]hey)\b")


def clauses(sentence: str) -> list[tuple[str, int]]:
    """A sentence as (clause, offset) pairs; a clause that starts with its verb gets
    the first clause's subject ("I quit and moved to Seattle" → "I moved to Seattle")."""
    out: list[tuple[str, int]] = []
    last, needs_subject = 0, False
    lead = None
    for m in _CLAUSE_SPLIT.finditer(sentence):
        piece = sentence[last:m.start()]
        if not out:
            lead = _LEAD_SUBJECT.search(piece)
        out.append((_with_subject(piece, lead, needs_subject), last))
        last, needs_subject = m.end(), m.group("subj") is None
    if not out:
        return [(sentence, 0)]
    out.append((_with_subject(sentence[last:], lead, needs_subject), last))
    return out


def _with_subject(piece: str, lead: re.Match[str] | None, needs: bool) -> str:
    return f"{lead.group(0)} {piece}" if needs and lead else piece


# ---------------------------------------------------------------------------
# word lists (general English)

DETERMINERS = {"the", "a", "an", "my", "our", "your", "his", "her", "their", "its", "this",
               "that", "these", "those", "some"}
# Where a noun phrase ends: prepositions, conjunctions, adverbs, time words.
_NP_STOP = {
    "and", "but", "or", "because", "so", "since", "with", "for", "to", "on", "at", "in", "into",
    "onto", "from", "by", "when", "while", "after", "before", "now", "then", "yesterday",
    "today", "tomorrow", "tonight", "last", "next", "ago", "again", "too", "also", "instead",
    "anymore", "though", "which", "that", "who", "whom", "where", "as", "if", "until", "till",
    "during", "every", "each", "about", "than", "like", "is", "are", "was", "were", "be",
    "been", "will", "would", "could", "should", "can", "has", "have", "had", "do", "does",
    "did", "not", "just", "really", "very", "already", "still", "here", "there", "of", "named",
    "called", "over", "under", "near", "behind", "beside", "through", "around", "up", "down",
    "off", "out", "all", "either", "yet", "soon", "this", "lately", "recently", "right",
    "together", "we", "i", "you", "he", "she", "they", "it", "me",
    "him", "them", "us", "these", "those", "what", "how", "why", "whenever", "although",
    "including", "especially", "even", "only", "except", "without", "against", "within",
    "towards", "toward", "upon", "per", "via", "plus", "thanks", "lol", "haha",
    # common finite verbs: "the city library went well" ends the phrase at "went"
    "went", "goes", "seems", "seemed", "looks", "looked", "feels", "felt", "needs", "needed",
    "keeps", "kept", "made", "makes", "took", "takes", "gets", "became", "turned", "says",
    "said", "told",
} | {d for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")}
PRONOUNS = {"i", "me", "we", "us", "you", "he", "him", "she", "her", "they", "them", "it",
            "this", "that", "these", "those", "something", "anything", "everything",
            "nothing", "someone", "anyone", "everyone", "one", "things", "stuff", "lot",
            "what", "which", "who", "there", "here", "all", "both", "myself", "yourself"}
# Generic event nouns: dropped from an event's name when something more specific is left.
# Verbs whose object names the event ("pick up the parcel" is about the parcel).
_EVENT_VERB_NOUN = {"pick": "pickup", "collect": "pickup", "drop": "drop-off",
                    "deliver": "delivery", "meet": "meeting", "visit": "visit", "see": "visit",
                    "call": "call"}
OCCUPATIONS = {
    "teacher", "nurse", "doctor", "engineer", "developer", "programmer", "designer", "writer",
    "author", "artist", "painter", "musician", "singer", "dancer", "chef", "cook", "lawyer",
    "accountant", "student", "manager", "scientist", "researcher", "professor", "driver",
    "pilot", "firefighter", "officer", "soldier", "farmer", "baker", "carpenter", "plumber",
    "electrician", "mechanic", "architect", "photographer", "journalist", "editor", "actor",
    "actress", "counselor", "counsellor", "therapist", "coach", "trainer", "instructor",
    "consultant", "analyst", "cashier", "waiter", "waitress", "barista", "librarian",
    "pharmacist", "dentist", "vet", "veterinarian", "surgeon", "paramedic", "receptionist",
    "secretary", "assistant", "intern", "entrepreneur", "freelancer", "blogger", "athlete",
    "player", "gardener", "caregiver", "worker", "mentor", "tutor", "clerk",
    "janitor", "cleaner", "salesperson", "banker", "broker", "agent", "technician",
    "attorney", "judge", "detective", "guard", "miner", "builder", "welder", "tailor",
    "florist", "butcher", "hairdresser", "barber", "stylist", "model", "producer", "director",
    "composer", "poet", "novelist", "illustrator", "animator", "youtuber", "influencer",
    "streamer", "volunteer", "ceo", "founder", "owner", "retiree", "chemist", "physicist",
    "biologist", "psychologist", "economist", "ranger", "sailor", "captain",
}
_OCC_SUFFIX = re.compile(r"(?:ist|ician|ologist|grapher|eer)$")
# Categories in which one preference replaces another ("I prefer tea" → drink).
CATEGORIES = {
    "drink": {"coffee", "tea", "milk", "juice", "water", "soda", "beer", "wine", "latte",
              "espresso", "cappuccino", "smoothie", "cocoa", "chocolate milk", "lemonade",
              "cola", "whisky", "whiskey", "kombucha", "matcha", "decaf", "americano",
              "hot chocolate", "lager", "cider", "mocha", "chai"},
    "food": {"pizza", "pasta", "sushi", "burger", "burgers", "salad", "steak", "tacos",
             "noodles", "rice", "curry", "sandwich", "soup", "cereal", "oatmeal", "toast",
             "chicken", "fish", "eggs", "pancakes", "ramen", "bread", "food", "cuisine",
             "dumplings", "burritos", "lasagna", "risotto", "stew", "pho", "paella"},
    "music": {"jazz", "rock", "pop", "classical", "hip hop", "hip-hop", "rap", "country",
              "blues", "metal", "techno", "folk", "reggae", "r&b", "edm", "indie", "opera",
              "music", "soul", "punk", "gospel", "disco", "salsa", "k-pop"},
    "color": {"red", "blue", "green", "yellow", "purple", "pink", "orange", "black", "white",
              "grey", "gray", "brown", "teal", "turquoise"},
}
_CATEGORY_OF = {w: c for c, ws in CATEGORIES.items() for w in ws}
STATUS_WORDS = (
    r"broken|fixed|repaired|open|closed|locked|unlocked|empty|full|clean|dirty|ready|done|"
    r"finished|lost|missing|charged|charging|dead|working|out of order|cancel+ed|delivered|"
    r"shipped|delayed|paid|unpaid|complete|completed|stuck|leaking|switched off|switched on|"
    r"turned off|turned on|on|off|over|sold|full|overdue|postponed|confirmed|booked"
)
PERSON_STATUS = {"retired", "pregnant", "sick", "ill", "unemployed", "injured", "recovering",
                 "vegetarian", "vegan", "sober", "homeless", "employed", "busy"}
RELATIONSHIP_WORDS = {"married", "engaged", "divorced", "single", "separated", "widowed"}
_FAMILY = (r"wife|husband|partner|boyfriend|girlfriend|fianc[ée]e?|mom|mother|dad|father|"
           r"sister|brother|son|daughter|kids?|children|friend|roommate|neighbou?r|boss|"
           r"grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|family|parents")
# Nouns too abstract to be owned or liked as a thing ("I have a great time").
ABSTRACT = {
    "time", "lot", "bit", "chance", "feeling", "idea", "question", "day", "week", "way",
    "blast", "look", "problem", "thing", "things", "moment", "break", "talk", "conversation",
    "plan", "plans", "dream", "goal", "point", "sense", "fun", "good", "great", "nice",
    "lovely", "wonderful", "hard", "tough", "busy", "amazing", "few", "couple", "reason",
    "right", "clue", "feel", "try", "go", "part", "story", "experience", "opportunity",
    "job", "life", "family", "friend", "friends", "kind", "sort", "choice", "say", "doubt",
    "issue", "need", "passion", "love", "knack", "habit", "tendency", "fear",
    "effect", "impact", "rest", "deal", "ton", "bunch", "variety", "number", "result",
    "minute", "second", "while", "year", "month", "weekend", "night", "morning", "view",
    "hope", "faith", "support", "heart", "soul", "mind", "voice", "vision",
    "skills", "skill", "effort", "energy", "work", "money", "thought", "thoughts", "itself",
    "myself", "yourself", "attention", "focus", "path", "paths", "place", "step", "steps",
    "best", "advice", "words", "word", "memories", "memory", "feelings", "emotions", "no",
    "yes", "always", "never", "much", "more", "less", "some", "any",
}
_NEG_BEFORE = re.compile(r"\b(?:not|never|no\s+longer|stopped|quit|used\s+to)\b", re.I)
# A clause under "if", "would", "wish" … states no fact ("If I lived in Boston …").
_HYPOTHETICAL = re.compile(r"\b(?:if|would|could|might|wish|wished|whether|unless|maybe|"
                           r"someday|imagine|dream\s+of|pretend)\b[^,.;]*$", re.I)
_NEG_AFTER = re.compile(r"^[^.;,]{0,40}?\b(?:any\s*more|no\s+more)\b", re.I)

# ---------------------------------------------------------------------------
# cues for the linker

# A speaker repairing what was just said: "Sorry, I meant Friday", "Scratch that",
# "I mixed it up", "Wait, I misread the letter", "Correction: …", "No, Friday."
CORRECTION = (r"\bcorrection\b|\bi\s+meant\b|\bsorry,\s+(?:it|i)\b|\bscratch\s+that\b|"
              r"\bstrike\s+that\b|\bi\s+(?:mixed|muddled|got)\s+(?:it|that|them|those|the\s+\w+)"
              r"\s+(?:up|wrong|mixed\s+up)\b|\bmixed\s+up\b|\bi\s+mis(?:read|heard|spoke|remembered|"
              r"typed)\b|\bi\s+was\s+wrong\b|\bmy\s+(?:mistake|bad)\b|\bi\s+stand\s+corrected\b|"
              r"\blet\s+me\s+correct\b|^(?:wait|no|nope|oops)\s*[,.!]")
_CORRECTION_RE = re.compile(CORRECTION, re.I)


def is_correction(text: str) -> bool:
    """Whether any sentence of ``text`` repairs what its speaker just said."""
    return any(_CORRECTION_RE.search(s) for s in sentences(text))


CHANGE_CUES = [
    ("moved", r"\bmov(?:ed|ing)\b"), ("now", r"\bnow\b"), ("instead", r"\binstead\b"),
    ("no longer", r"\bno\s+longer\b"), ("rescheduled", r"\breschedul\w*"),
    ("actually", r"\bactually\b"), ("switched", r"\bswitch(?:ed|ing)\b"),
    ("changed", r"\bchang(?:ed|ing)\b"), ("anymore", r"\bany\s*more\b"),
    ("postponed", r"\bpostpon\w*|\bpush(?:ed)?\s+back\b"),
    ("cancelled", r"\bcancel+(?:ed|ing)?\b|\bcall(?:ed)?\s+off\b"),
    ("used to", r"\bused\s+to\b"), ("not anymore", r"\bnot\b[^.;]*\bany\s*more\b"),
    ("correction", CORRECTION),
    ("these days", r"\bthese\s+days\b|\bnowadays\b|\blately\b"),
    ("new", r"(?-i:\bnew\b)"), ("quit", r"\bquit\b"), ("left", r"\bleft\s+(?:my|the|his|her)\s+job\b"),
]
NEGATION_CUES = [("not", r"\bnot\b|\bnever\b|\bno\b(?!\s+longer)|\bnobody\b|\bnothing\b")]
CAUSAL_CUES = [
    ("because", r"\bbecause\b|\bcause\s+(?:i|we|he|she|it|they)\b|\bdue\s+to\b"),
    ("since", r"\bsince\s+(?:i|we|you|he|she|they|it|my|our|the)\b"),
    ("so that", r"\bso\s+that\b"),
    ("so", r"(?:,|\band)\s*so\s+(?:i|we|you|he|she|they|it|my|our|now|the)\b"
           r"|^so\s+(?:i|we|he|she|they|my|our)\b"),
    ("therefore", r"\btherefore\b|\bthus\b|\bhence\b|\bas\s+a\s+result\b"),
    ("which is why", r"\bwhich\s+is\s+why\b|\bthat\s+is\s+why\b|\bthis\s+is\s+why\b"),
    ("prevents", r"\bprevent(?:s|ed|ing)?\b|\b(?:stopped|kept|keeps|stops)\s+\w+\s+from\b"),
    ("enables", r"\b(?:enabled|allowed|allows|enables|lets|let)\s+(?:me|us|him|her|them)\s+to\b"
                r"|\bthanks\s+to\b"),
    ("causes", r"\bcaused\b|\bled\s+to\b|\bresulted\s+in\b|\bmade\s+me\b"),
]
_CUE_RES = [(name, re.compile(p, re.I)) for name, p in CHANGE_CUES + NEGATION_CUES + CAUSAL_CUES]
_CAUSE_SIDE = re.compile(r"\b(?:because|since|due\s+to|thanks\s+to)\b", re.I)
_EFFECT_SIDE = re.compile(r"\b(?:so|therefore|thus|hence|which\s+is\s+why|that\s+is\s+why|"
                          r"as\s+a\s+result)\b", re.I)


# Causal and discourse cues ("actually", "instead") speak for the whole sentence.
_SENTENCE_WIDE = {name for name, _ in CAUSAL_CUES} | {"actually", "instead", "changed",
                                                     "correction"}


def cues(sentence: str, span: tuple[int, int] | None = None,
         clause: str | None = None) -> tuple[str, ...]:
    """Cue words of a sentence; a causal sentence also gets ``cause``/``effect``
    saying on which side of the connective the matched span lies. With ``clause``,
    change and negation cues come from that clause only, causal ones from the
    whole sentence, as do discourse cues ("actually")."""
    found = [name for name, rx in _CUE_RES
             if rx.search(sentence if clause is None or name in _SENTENCE_WIDE else clause)]
    if span is not None and any(c in found for c in ("because", "since", "so", "therefore",
                                                     "which is why")):
        m = _CAUSE_SIDE.search(sentence)
        if m:
            found.append("cause" if span[0] >= m.end() else "effect")
        else:
            m = _EFFECT_SIDE.search(sentence)
            if m:
                found.append("effect" if span[0] >= m.end() else "cause")
    return tuple(dict.fromkeys(found))


# ---------------------------------------------------------------------------
# noun phrases and entities

_WORDS = re.compile(r"[A-Za-z0-9][\w'&-]*")


def noun_phrase(text: str, max_words: int = 5, keep_det: bool = False) -> str:
    """The noun phrase at the start of ``text``: cut at the first stop word or
    punctuation, at most ``max_words`` words, leading determiner dropped."""
    head = re.split(r"[,.;:!?()\"]| - ", text, maxsplit=1)[0]
    times = find_candidates(head)
    if times and times[0].start() > 0:
        head = head[:times[0].start()]
    words: list[str] = []
    for i, w in enumerate(head.split()):
        lw = w.lower()
        if i == 0 and lw in DETERMINERS:
            if keep_det:
                words.append(w)
            continue
        if lw in _NP_STOP and words and not (lw == "of" and _capitalised_next(head, i)):
            break
        if lw in _NP_STOP and not words:
            return ""
        words.append(w)
        if len(words) >= max_words:
            break
    return " ".join(words).strip(" '-")


_PROPER = re.compile(r"(?:[A-Z][\w'&.-]*)(?:\s+(?:(?:of|the|de|del|la|le|upon|on|and|&)\s+)?"
                     r"[A-Z][\w'&.-]*)*")


def name_phrase(text: str, max_words: int = 5) -> str:
    """A place or organisation: the run of capitalised words when the phrase starts
    with one ("Galway needs painting" → "Galway"), else its noun phrase."""
    stripped = re.sub(r"^(?:the|a|an)\s+", "", text.strip(), flags=re.I)
    times = find_candidates(stripped)
    if times and times[0].start() > 0:  # "Apex Robotics on Monday" → "Apex Robotics"
        stripped = stripped[:times[0].start()].rstrip()
    m = _PROPER.match(stripped)
    if m and stripped[:1].isupper():
        return " ".join(m.group(0).split()[:max_words])
    return noun_phrase(text, max_words)


def _capitalised_next(head: str, i: int) -> bool:
    parts = head.split()
    return i + 1 < len(parts) and parts[i + 1][:1].isupper()


def head_noun(np: str) -> str:
    words = np.split()
    return words[-1].lower() if words else ""


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("shes", "ches", "xes", "sses", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def event_entity(np: str, verb: str = "") -> str:
    """A stable name for a schedulable event: its noun phrase, with an attached
    "with/at/for …" folded in front ("appointment with the dentist" → "dentist
    appointment") and a verb + object nominalised ("pick up the parcel" →
    "parcel pickup"), so rephrasings of one appointment share a key."""
    m = re.match(r"(?P<ev>.+?)\s+(?:with|at|for|from|of)\s+(?P<rest>.+)$", np)
    if m and head_noun(noun_phrase(m.group("ev"))) in EVENT_NOUNS:
        inner = noun_phrase(m.group("rest"), 3)
        if inner and not is_time_phrase(inner):
            return norm(f"{inner} {noun_phrase(m.group('ev'))}")
    name = norm(noun_phrase(np, max_words=5))
    if verb in ("see", "visit") and singular(head_noun(name)) in OCCUPATIONS:
        return f"{name} appointment"  # seeing the dentist is the dentist appointment
    noun = _EVENT_VERB_NOUN.get(verb, "")
    if name and noun and head_noun(name) not in EVENT_NOUNS:
        return f"{name} {noun}"
    return name or noun or verb


def is_time_phrase(text: str) -> bool:
    return bool(find_candidates(text)) and len(text.split()) <= 5


def category_of(value: str) -> str:
    v = norm(value)
    if v in _CATEGORY_OF:
        return _CATEGORY_OF[v]
    return _CATEGORY_OF.get(head_noun(v), "")


# ---------------------------------------------------------------------------
# matches → statements


@dataclass
class Statement:
    """What one rule match says, before it becomes a ``FactDraft``."""

    type: str
    relation: str
    entity: str  # a person ref ("@speaker", "@addressee", a name) or a thing
    value: str
    polarity: int
    span: tuple[int, int]
    things: tuple[str, ...] = ()
    cue: str = ""
    confidence: float = 0.9
    imperative: bool = False  # no subject: the speaker asks for it ("move the pickup to …")
    display: str = ""  # how the description names the entity, when not the entity itself


Handler = Callable[[re.Match[str], str], "Statement | None"]

SUBJ = (r"(?P<subj>I|we|you|he|she|they|(?:my|our)\s+(?:" + _FAMILY + r")(?:\s+and\s+I)?|"
        r"(?-i:[A-Z][a-z]+)(?:\s+and\s+I)?)")
ADV = r"(?:(?:still|now|currently|just|recently|finally|also|already|actually|really|"\
      r"officially|both|all|no\s+longer|never|not|do\s+not|does\s+not|did\s+not|"\
      r"have\s+not|has\s+not)\s+)*"
# Adverbs and auxiliaries between a subject and its verb, in any order:
# "I have now been living", "we are currently", "I have just started working".
PRE = r"(?:(?:still|now|currently|just|recently|finally|also|already|actually|really|"\
      r"officially|both|all|no\s+longer|never|not|do|does|did|am|are|is|was|were|will|"\
      r"would|have|has|had|been|be|going\s+to|plan\s+to|planning\s+to|started|began|"\
      r"start|begin|got|get|happily|temporarily|permanently|back|used\s+to)\s+)*"
DET_NP = r"(?P<{name}>(?:the|my|our|your|his|her|their|a|an|this|that)\s+[^,.;!?]+)"
PLACE_PREP = (r"(?P<prep>on\s+top\s+of|in\s+front\s+of|next\s+to|on|in|inside|under|"
              r"underneath|behind|beside|near|by|at|into|onto)")
_PLACE_TIMEY = {"morning", "afternoon", "evening", "night", "moment", "end", "past", "future",
                "beginning", "middle", "meantime", "way", "mood", "process", "time", "day",
                "week", "month", "year", "weekend", "summer", "winter", "spring", "fall",
                "autumn", "meanwhile", "long", "run", "works", "loop", "touch",
                "charge", "love", "trouble", "danger", "shape", "hands", "mind", "life",
                "world", "least", "most", "first", "best", "same", "top", "age",
                "news", "air", "picture", "photo", "pic", "image", "video", "book", "movie",
                "show", "game", "school", "calendar", "diary", "schedule", "agenda", "list",
                "notes", "planner", "inbox", "mail", "post", "cards", "horizon", "radar",
                "rise", "mend", "track", "hold", "fire", "point", "edge", "verge"}


def _neg(sentence: str, m: re.Match[str]) -> int:
    before = sentence[max(0, m.start() - 1):m.end()]
    if _NEG_BEFORE.search(before) or _NEG_AFTER.search(sentence[m.end():]):
        return 0
    return 1


def _lives(m: re.Match[str], s: str) -> Statement | None:
    v = name_phrase(m.group("v"))
    if not v or norm(v) in PRONOUNS or is_time_phrase(v):
        return None
    verb = m.group("verb").lower()
    moving = verb.startswith(("mov", "relocat")) or (verb.startswith("settl") and bool(
        re.search(r"\binto\b", m.group(0), re.I)))  # "settling into York": just moved
    future = bool(re.search(r"\b(will|going to|plan|planning)\b", m.group(0), re.I)) or \
        verb in ("moving", "relocating")
    typ = "plan" if future else ("state_change" if moving else "state_change"
                                 if "now" in m.group(0).lower() else "action")
    if not moving and verb in ("live", "lives", "living", "reside", "resides"):
        typ = "state_change" if re.search(r"\bnow\b", m.group(0), re.I) else "observation"
    conf = 0.6 if verb in ("lived", "resided") else (0.7 if future else 0.9)
    return Statement(typ, "lives_in", m.group("subj"), v, _neg(s, m), m.span(),
                     cue="moved" if moving else "", confidence=conf)


_TAKEN = re.compile(r"\b(?:notice|resign\w*|quit|accepted|took\s+it|could\s+not\s+refuse|"
                    r"said\s+yes|start\s+(?:on|next|in)|starting)\b", re.I)


def _offer(m: re.Match[str], s: str) -> Statement | None:
    """"Initech made me an offer I could not refuse" (or one taken: "I handed in my
    notice; …", "… and I accepted"): the new employer. An offer alone is not a job."""
    v = name_phrase(m.group("v"))
    if not v or v.split()[0] in ("I", "We", "You", "He", "She", "They", "It", "The") \
            or not _TAKEN.search(s) or is_time_phrase(v):
        return None
    return Statement("state_change", "works_at", "I", v, 1, m.span(), cue="new",
                     confidence=0.6)


def _unpacking(m: re.Match[str], s: str) -> Statement | None:
    """"Unpacking the last boxes here in Austin", "we are still unpacking in Oslo": a
    move just made, so where the speaker now lives."""
    v = name_phrase(m.group("v"))
    if not v or norm(v) in PRONOUNS or is_time_phrase(v):
        return None
    return Statement("state_change", "lives_in", m.group("subj") or "I", v, _neg(s, m),
                     m.span(), cue="moved", confidence=0.7)


def _moved_out(m: re.Match[str], s: str) -> Statement | None:
    v = name_phrase(m.group("v"))
    if not v or norm(v) in PRONOUNS or is_time_phrase(v):
        return None
    return Statement("state_change", "lives_in", m.group("subj"), v, 0, m.span(), cue="moved")


def _habit(m: re.Match[str], s: str) -> Statement | None:
    """"I drink oat milk now", "I do not eat meat anymore": a standing preference."""
    v = noun_phrase(m.group("v"), 3)
    if not v or norm(v) in PRONOUNS or head_noun(v) in ABSTRACT or is_time_phrase(v):
        return None
    cat = category_of(v) or ("drink" if m.group("verb").lower().startswith("drink") else "food")
    rel = f"prefers:{cat}" if category_of(v) or _EXCLUSIVE.search(s) \
        else f"prefers:{singular(head_noun(v))}"
    return Statement("preference", rel, m.group("subj"), v, _neg(s, m), m.span())


_LOST_JOB = re.compile(r"\b(?:lost|quit|left|leaving|quitting|losing|resigned\s+from|"
                       r"fired\s+from|laid\s+off\s+from)\s*$", re.I)


def _job_at(m: re.Match[str], s: str) -> Statement | None:
    v = name_phrase(m.group("v"))
    if not v or norm(v) in PRONOUNS or is_time_phrase(v):
        return None
    poss = m.group("poss").lower()
    if poss == "the" and not re.search(r"\bcongrat", s, re.I):
        return None  # "the job at X" is anyone's, unless congratulated
    who = "you" if poss in ("your", "the") else "I"
    typ = "state_change" if "new" in m.group(0).lower() else "observation"
    pol = _neg(s, m)
    if _LOST_JOB.search(s[:m.start()]):
        pol, typ = 0, "state_change"
    return Statement(typ, "works_at", who, v, pol, m.span())


def _notice(m: re.Match[str], s: str) -> Statement | None:
    v = name_phrase(m.group("v"))
    if not v or norm(v) in PRONOUNS:
        return None
    return Statement("state_change", "works_at", m.group("subj"), v, 0, m.span(), cue="quit")


def _first_week(m: re.Match[str], s: str) -> Statement | None:
    v = name_phrase(m.group("v"))
    if not v or norm(v) in PRONOUNS or is_time_phrase(v):
        return None
    return Statement("state_change", "works_at", "I", v, 1, m.span(), cue="new",
                     confidence=0.7)


def _works(m: re.Match[str], s: str) -> Statement | None:
    v = name_phrase(m.group("v"))
    if not v or norm(v) in PRONOUNS or is_time_phrase(v) or re.match(
            r"(?:\d+|a|an|one|two|three|four|five|six|several|many|few)\s+(?:hours?|days?|"
            r"weeks?|months?|years?)\b", v, re.I):
        return None
    text = m.group(0).lower()
    pol = _neg(s, m)
    typ = "observation"
    if re.search(r"\b(got|landed|started|joined|hired|accepted|new|now)\b", text):
        typ = "state_change"
    if re.search(r"\b(quit|left)\b", text):
        pol, typ = 0, "state_change"
    return Statement(typ, "works_at", m.group("subj"), v, pol, m.span())


def _occupation(m: re.Match[str], s: str) -> Statement | None:
    v = noun_phrase(m.group("v"), max_words=4)
    head = head_noun(v)
    if not v or not (singular(head) in OCCUPATIONS or _OCC_SUFFIX.search(head)):
        return None
    text = m.group(0).lower()
    typ = "state_change" if re.search(r"\b(became|become|now|new)\b", text) else "observation"
    return Statement(typ, "occupation", m.group("subj"), v, _neg(s, m), m.span())


def _studies(m: re.Match[str], s: str) -> Statement | None:
    v = noun_phrase(m.group("v"), max_words=4)
    if not v or norm(v) in PRONOUNS or is_time_phrase(v):
        return None
    return Statement("observation", "occupation", m.group("subj"), "studies " + v,
                     _neg(s, m), m.span())


# A determiner that opens a new noun phrase after a verb (not after a preposition).
_INNER_DET = re.compile(r"(?<!\bwith\s)(?<!\bat\s)(?<!\bfor\s)(?<!\bfrom\s)(?<!\bof\s)"
                        r"(?<!\bto\s)(?<!\bin\s)(?<!\bon\s)(?<!\bby\s)"
                        r"\b(?:the|my|our|your|his|her|their)\s", re.I)


def last_determined(phrase: str) -> str:
    """The last determiner-led part of a phrase ("my neighbour heard the boiler
    inspection" → "the boiler inspection"): the subject of the inner clause."""
    start = 0
    for m in _INNER_DET.finditer(phrase):
        if m.start() > 0:
            start = m.start()
    return phrase[start:]


def whole_np(phrase: str, max_words: int = 5) -> str:
    """The phrase as a noun phrase only if it is one throughout (no clause inside:
    "your new beauty whenever you" is not a thing)."""
    np = noun_phrase(phrase, max_words)
    body = [w for w in phrase.split() if w.lower() not in DETERMINERS]
    return np if np and len(np.split()) == len(body) else ""


def _located(m: re.Match[str], s: str) -> Statement | None:
    obj = whole_np(last_determined(m.group("obj")))
    place = noun_phrase(m.group("place"), max_words=4)
    if not obj or not place or norm(obj) in PRONOUNS or head_noun(place) in _PLACE_TIMEY \
            or head_noun(obj) in ABSTRACT or is_time_phrase(place):
        return None
    cue = "moved" if re.search(r"\bmoved\b", m.group(0), re.I) else ""
    typ = "state_change" if cue or re.search(r"\bnow\b", m.group(0), re.I) else "observation"
    return Statement(typ, "located_at", obj, place, _neg(s, m), m.span(), things=(obj,),
                     cue=cue)


_CARRY = {"took", "taken", "brought", "carried", "returned"}


def _placed(m: re.Match[str], s: str) -> Statement | None:
    obj = noun_phrase(m.group("obj"), max_words=4)
    place = noun_phrase(m.group("place"), max_words=4)
    definite = m.group("obj").split()[0].lower() not in ("a", "an", "this", "that")
    if not obj or not place or norm(obj) in PRONOUNS or is_time_phrase(place) \
            or head_noun(place) in _PLACE_TIMEY or head_noun(obj) in ABSTRACT or not definite:
        return None
    verb = m.group("verb").lower()
    if verb in _CARRY and m.group("to") and not re.search(r"\b(?:over|back|up|down)\s+to\b",
                                                          m.group(0), re.I):
        return None  # "took the kids to the park" is an outing, not where a thing is
    seen = verb in ("saw", "noticed", "spotted", "found")
    if seen and not m.group("subj"):
        return None
    return Statement("observation" if seen else "action", "located_at", obj, place,
                     _neg(s, m), m.span(),
                     things=(obj,), cue="moved" if verb.startswith("mov") else "",
                     imperative=not m.group("subj"))


IT = "@it"  # a pronoun the extractor resolves to a thing named earlier in the message


def _is_it(phrase: str) -> bool:
    return phrase.strip().lower() in ("it", "that", "this")


def _schedule_move(m: re.Match[str], s: str) -> Statement | None:
    ev = m.group("ev")
    when = m.group("when")
    if _is_it(ev):
        if not is_time_phrase(when):
            return None
        return Statement("state_change", "scheduled_for", IT, _time_value(when), _neg(s, m),
                         m.span(), cue="rescheduled", imperative=True)
    if not noun_phrase(ev) or norm(noun_phrase(ev)) in PRONOUNS or not is_time_phrase(when):
        return None
    ent = event_entity(ev)
    return Statement("state_change", "scheduled_for", ent, _time_value(when),
                     _neg(s, m), m.span(), things=(ent,), cue="rescheduled", imperative=True,
                     display=_event_display(ev))


def _schedule_note(m: re.Match[str], s: str) -> Statement | None:
    """Note style: "Correction: piano lesson on Saturday, not Tuesday"."""
    ev, when = m.group("ev"), m.group("when")
    if not noun_phrase(ev) or not is_time_phrase(when):
        return None
    ent = event_entity(ev)
    return Statement("state_change", "scheduled_for", ent, _time_value(when), 1, m.span(),
                     things=(ent,), cue="correction", display=_event_display(ev))


def _answer_time(m: re.Match[str], s: str) -> Statement | None:
    """A bare corrected time ("No, Friday.", "Actually, it's Thursday, not Tuesday."):
    keyed on what the conversation was about, if the extractor knows it."""
    when = m.group("when")
    if not is_time_phrase(when) or len(when.split()) > 5 or find_candidates(when)[0].start():
        return None
    return Statement("state_change", "scheduled_for", IT, _time_value(when), 1, m.span(),
                     cue="correction", confidence=0.7)


def _schedule_book(m: re.Match[str], s: str) -> Statement | None:
    """"I booked the haircut for Friday", "put your eye exam in the calendar for Monday"."""
    ev, when = m.group("ev"), m.group("when")
    if not noun_phrase(ev) or norm(noun_phrase(ev)) in PRONOUNS or not is_time_phrase(when):
        return None
    verb = (m.groupdict().get("verb") or "").lower()
    again = verb.startswith("re")
    ent = event_entity(ev)
    return Statement("state_change" if again else "plan", "scheduled_for", ent,
                     _time_value(when), _neg(s, m), m.span(), things=(ent,),
                     cue="rescheduled" if again else "", display=_event_display(ev))


def _schedule_is(m: re.Match[str], s: str) -> Statement | None:
    when = m.group("when")
    if _is_it(m.group("ev")):
        if not is_time_phrase(when):
            return None
        moved = re.search(r"\b(moved|reschedul\w*|pushed|postponed|shifted|changed|now)\b",
                          m.group(0), re.I)
        return Statement("state_change" if moved else "plan", "scheduled_for", IT,
                         _time_value(when), _neg(s, m), m.span(), confidence=0.7)
    ev = noun_phrase(last_determined(m.group("ev")), max_words=5)
    if not ev or norm(ev) in PRONOUNS or not is_time_phrase(when) \
            or head_noun(ev) in ABSTRACT:
        return None
    ev = last_determined(m.group("ev"))
    moved = re.search(r"\b(moved|reschedul\w*|pushed|postponed|shifted|changed|now)\b",
                      m.group(0), re.I)
    ent = event_entity(ev)
    return Statement("state_change" if moved else "plan", "scheduled_for", ent,
                     _time_value(when), _neg(s, m), m.span(), things=(ent,),
                     display=_event_display(ev))


def _schedule_do(m: re.Match[str], s: str) -> Statement | None:
    verb = m.group("verb").lower()
    rest = m.group("rest")
    cands = find_candidates(rest)
    if not cands or verb in ("be", "have", "see", "talk", "tell", "let", "say", "do", "go") \
            and not m.group("obj"):
        return None
    obj = noun_phrase(m.group("obj") or "", max_words=4) if m.group("obj") else ""
    if obj and (norm(obj) in PRONOUNS or head_noun(obj) in ABSTRACT):
        obj = ""
    if not obj and verb not in _EVENT_VERB_NOUN and verb not in _MOTION:
        return None
    ent = event_entity(obj, verb) if obj else (_EVENT_VERB_NOUN.get(verb) or verb)
    phrase = s[m.start("verb"):m.start("rest")].strip() or verb
    return Statement("plan", "scheduled_for", ent, _time_value(cands[0].group(0)),
                     _neg(s, m), m.span(), things=(ent,), confidence=0.8, display=phrase)


_GENERIC_HEADS = {"plant", "plants", "thing", "things", "stuff", "item", "items"}
_NOT_CHORES = {"is", "are", "was", "be", "see", "meet", "call", "thank", "tell", "ask", "love",
               "like", "have", "had", "get", "got", "make", "do", "did", "go", "went", "enjoy"}


def _routine(m: re.Match[str], s: str) -> Statement | None:
    """An instruction that sets a routine: "Please water the basil plant every Monday",
    "Change of plan: feed the cat on Fridays now" — when the chore is done."""
    verb = m.group("verb").lower()
    if verb in _NOT_CHORES or verb in _NP_STOP or verb in PRONOUNS or verb in DETERMINERS:
        return None
    obj = noun_phrase(m.group("obj"), 4)
    words = obj.split()
    if len(words) > 1 and words[-1].lower() in _GENERIC_HEADS:
        obj = " ".join(words[:-1])  # "the basil plant" is the basil
    if not obj or norm(obj) in PRONOUNS or head_noun(obj) in ABSTRACT:
        return None
    ent = event_entity(obj, verb)
    when = re.sub(r"^(?:on|every)\s+", "", m.group("when").lower())
    changed = re.search(r"\b(?:now|instead|change|changed|from\s+now\s+on)\b", s, re.I)
    return Statement("state_change" if changed else "plan", "scheduled_for", ent, when,
                     _neg(s, m), m.span(), things=(ent,), imperative=True,
                     display=f"{verb} {m.group('obj')}")


def _event_display(ev: str) -> str:
    """The event as said, up to its time expression ("the meeting with Sarah")."""
    cands = find_candidates(ev)
    if cands:
        ev = ev[:cands[0].start()]
    return " ".join(ev.split()[:7]).rstrip(" ,")


_MOTION = {"travel", "fly", "leave", "arrive", "depart", "return", "move", "graduate",
           "retire", "start", "begin", "launch", "open", "perform", "compete", "race"}


def _time_value(expr: str) -> str:
    """The time expression itself ("Friday instead of Wednesday" → "friday")."""
    cands = find_candidates(expr)
    v = norm(cands[0].group(0) if cands else expr)
    return re.sub(r"^(?:on|at|for|to|in|by|until|till)\s+", "", v)


_EXCLUSIVE = re.compile(r"\b(?:now|instead|these\s+days|nowadays|anymore|any\s+more|"
                        r"no\s+longer|switched|rather\s+than|over)\b", re.I)


# Gerunds of light verbs say nothing on their own ("I love having …").
_LIGHT = {"being", "having", "seeing", "getting", "doing", "making", "going", "taking",
          "checking", "trying", "putting", "knowing", "feeling", "hearing", "giving",
          "keeping", "letting", "coming", "finding", "thinking", "looking", "talking"}


def _prefers(m: re.Match[str], s: str) -> Statement | None:
    raw = m.group("v")
    to = re.match(r"to\s+(\w+)\s*(.*)", raw)
    v = (to.group(1) + " " + noun_phrase(to.group(2), 3)).strip() if to else noun_phrase(raw, 4)
    if not v or norm(v) in PRONOUNS or head_noun(v) in ABSTRACT or norm(v) in _LIGHT \
            or v.split()[0].lower() in ABSTRACT or v.lower().startswith(
            ("how ", "what ", "when ", "that ", "it ", "this ", "you", "being ")):
        return None
    verb = m.group("verb").lower()
    pol = 0 if re.search(r"hate|dislike|can\s*not\s+stand|not\s+a\s+fan|gone\s+off|went\s+off",
                         verb) else _neg(s, m)
    if re.search(r"cannot\s+get\s+enough", verb):
        pol = 1
    # A known kind ("tea" → drink) keys the liking by its category, so a later liking
    # of that kind said as a change ("… these days", "… now") replaces it.
    cat = category_of(v)
    rel = f"prefers:{cat}" if cat else f"prefers:{singular(head_noun(v))}"
    cue = "changed" if re.search(r"gone\s+off|went\s+off", verb) else ""
    return Statement("preference", rel, m.group("subj"), v, pol, m.span(), things=(), cue=cue)


def _stop_offer(m: re.Match[str], s: str) -> Statement | None:
    """"Please stop suggesting black coffee": the speaker no longer wants it."""
    v = noun_phrase(m.group("v"), 4)
    if not v or norm(v) in PRONOUNS or head_noun(v) in ABSTRACT or is_time_phrase(v):
        return None
    cat = category_of(v)
    rel = f"prefers:{cat}" if cat else f"prefers:{singular(head_noun(v))}"
    return Statement("preference", rel, "I", v, 0, m.span(), cue="changed")


def _favorite(m: re.Match[str], s: str) -> Statement | None:
    cat = noun_phrase(m.group("cat"), 3)
    v = noun_phrase(m.group("v"), 5)
    if not cat or cat != m.group("cat").strip() or not v or norm(v) in PRONOUNS \
            or head_noun(v) in ABSTRACT or v.split()[0].lower() in _NP_STOP:
        return None
    subj = m.group("who")
    return Statement("preference", f"prefers:{singular(norm(cat))}", subj, v, _neg(s, m),
                     m.span())


def _favorite_inv(m: re.Match[str], s: str) -> Statement | None:
    """"Opera is my favourite now", "Green tea is my favourite drink"."""
    words = m.group("v").split()
    v = noun_phrase(" ".join(words[-4:]), 4)
    if not v or norm(v) in PRONOUNS or head_noun(v) in ABSTRACT or norm(v) in _LIGHT:
        return None
    cat = m.group("cat") or ""
    cat = singular(cat.lower()) if cat and cat.lower() not in _NP_STOP else category_of(v)
    rel = f"prefers:{cat}" if cat else f"prefers:{singular(head_noun(v))}"
    who = "you" if m.group("who").lower() == "your" else "I"
    return Statement("preference", rel, who, v, 1, m.span())


def _beats(m: re.Match[str], s: str) -> Statement | None:
    """"Nothing beats green tea for me": an exclusive liking."""
    v = noun_phrase(m.group("v"), 4)
    if not v or norm(v) in PRONOUNS or head_noun(v) in ABSTRACT or norm(v).split()[0] in _LIGHT:
        return None
    who = {"you": "you", "him": "he", "her": "she"}.get((m.group("who") or "me").lower(), "I")
    cat = category_of(v)
    rel = f"prefers:{cat}" if cat else f"prefers:{singular(head_noun(v))}"
    return Statement("preference", rel, who, v, 1, m.span())


_WORK_PLACE = re.compile(r"\b(?:at|for|with)\s+(?-i:[A-Z])|\b(?:years|months)\s+(?:at|with)\b|"
                         r"\b(?:jobs?|employers?|companies|"
                         r"company|firms?|careers?)\b", re.I)


def _switched(m: re.Match[str], s: str) -> Statement | None:
    raw = m.group("v").strip()
    if not m.group("cat") and _WORK_PLACE.search(s[:m.start("v")]):
        # "After years at Acme I switched to Initech", "switched jobs to Initech": an employer
        org = name_phrase(raw)
        if org and norm(org) not in PRONOUNS and not is_time_phrase(org):
            return Statement("state_change", "works_at", m.group("subj"), org, 1, m.span(),
                             cue="switched")
        return None
    v = noun_phrase(m.group("v"), 4)
    if not v or norm(v) in PRONOUNS or is_time_phrase(v):
        return None
    cat = noun_phrase(m.group("cat") or "", 3) if m.group("cat") else ""
    if cat and (singular(head_noun(cat)) in _PLACE_TIMEY or is_time_phrase(cat)):
        cat = ""  # "… in the mornings" says when, not what kind
    cat = singular(norm(cat)) if cat else category_of(v)
    if not cat:
        return None  # no known kind ("switched to Verizon", "to the night bus"): not a liking
    rel = f"prefers:{cat}" if cat else "prefers"
    return Statement("preference", rel, m.group("subj"), v, 1, m.span(), cue="switched")


def _owns(m: re.Match[str], s: str) -> Statement | None:
    v = noun_phrase(m.group("v"), 4)
    if not v:
        return None
    first = v.split()[0].lower()
    head = singular(head_noun(v))
    if head in ABSTRACT or first in ABSTRACT or norm(v) in PRONOUNS or is_time_phrase(v) \
            or head in OCCUPATIONS:
        return None
    verb = m.group("verb").lower()
    pol = 0 if re.search(r"sold|lost|gave away|got rid of", verb) else _neg(s, m)
    typ = "state_change" if re.search(r"bought|adopted|got|sold|lost|gave|rid|purchased",
                                      verb) else "observation"
    count = m.group("count") or ""
    value = (count + " " + v).strip() if count and count.lower() not in ("a", "an") else v
    return Statement(typ, f"owns:{head}", m.group("subj"), value, pol, m.span(), things=(v,))


def _status_is(m: re.Match[str], s: str) -> Statement | None:
    obj = whole_np(last_determined(m.group("obj")))
    if not obj or norm(obj) in PRONOUNS or head_noun(obj) in ABSTRACT:
        return None
    v = m.group("v").lower()
    typ = "state_change" if re.search(r"\b(now|got|just|finally)\b", m.group(0), re.I) \
        else "observation"
    return Statement(typ, "status", obj, v, _neg(s, m), m.span(), things=(obj,))


_STATUS_VERB = {"fixed": "fixed", "repaired": "fixed", "broke": "broken", "cleaned": "clean",
                "locked": "locked", "unlocked": "unlocked", "opened": "open", "closed": "closed",
                "cancelled": "cancelled", "canceled": "cancelled", "finished": "finished",
                "completed": "completed", "sold": "sold", "charged": "charged",
                "emptied": "empty", "turned off": "off", "turned on": "on",
                "switched off": "off", "switched on": "on"}


def _status_do(m: re.Match[str], s: str) -> Statement | None:
    obj = noun_phrase(m.group("obj"), 4)
    if not obj or norm(obj) in PRONOUNS or head_noun(obj) in ABSTRACT:
        return None
    v = _STATUS_VERB[re.sub(r"\s+", " ", m.group("verb").lower())]
    return Statement("action", "status", obj, v, _neg(s, m), m.span(), things=(obj,))


def _person_state(m: re.Match[str], s: str) -> Statement | None:
    v = m.group("v").lower()
    if v in ("dating", "seeing") and not m.group("p"):
        return None
    rel = "relationship" if v.split()[0] in RELATIONSHIP_WORDS or v.startswith(
        ("dating", "seeing")) \
        else "status"
    value = v
    if m.group("p"):
        p = noun_phrase(m.group("p"), 3)
        if p:
            value = f"{v} {p}" if not v.endswith(" to") else f"{v} {p}"
    text = m.group(0).lower()
    typ = "state_change" if re.search(r"\b(got|became|now|just|recently)\b", text) \
        else "observation"
    return Statement(typ, rel, m.group("subj"), value, _neg(s, m), m.span())


def _broke_up(m: re.Match[str], s: str) -> Statement | None:
    return Statement("state_change", "relationship", m.group("subj"), "single", 1, m.span(),
                     cue="changed")


_PLAN_SKIP = {"need", "say", "thank", "know", "hear", "share", "let", "tell", "ask", "check", "be",
              "give", "see", "thanks", "make", "keep", "wish", "add", "mention", "send",
              "show", "talk", "chat", "catch", "hug", "remind", "do", "get", "come", "take"}


_E_STEMS = {"mak", "tak", "hav", "com", "mov", "liv", "giv", "driv", "writ", "danc", "bak",
            "hik", "us", "bik", "sav", "shar", "car", "creat", "explor", "retir", "prepar",
            "practic", "leav", "lov", "tradit", "chang", "purchas", "chas", "receiv", "celebrat",
            "rid", "decid", "continu", "serv", "sid"}


def lemma(verb: str) -> str:
    """Rough base form of a gerund ("going" → "go", "running" → "run", "making" → "make")."""
    if not verb.endswith("ing") or len(verb) < 5:
        return verb
    stem = verb[:-3]
    if stem in _E_STEMS:
        return stem + "e"
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]
    return stem


def _plans(m: re.Match[str], s: str) -> Statement | None:
    verb = lemma(m.group("verb").lower())
    if verb in _PLAN_SKIP or verb in PRONOUNS:
        return None
    obj = noun_phrase(m.group("obj") or "", 4)
    if obj and (norm(obj) in PRONOUNS or head_noun(obj) in ABSTRACT):
        obj = ""
    if verb in DETERMINERS:  # "planning a trip": the plan is the noun phrase
        if not obj:
            return None
        verb, obj = singular(head_noun(obj)), obj
        value = obj
    else:
        value = f"{verb} {obj}".strip()
    if not obj and verb not in _MOTION:
        return None
    named = (obj,) if obj[:1].isupper() else ()
    return Statement("plan", f"plans:{verb}", m.group("subj"), value, _neg(s, m), m.span(),
                     things=named, confidence=0.7)


def _lives_home(m: re.Match[str], s: str) -> Statement | None:
    v = name_phrase(m.group("v"))
    if not v or norm(v) in PRONOUNS or is_time_phrase(v):
        return None
    who = "you" if (m.group("subj") or "").lower() == "your" else "I"
    typ = "state_change" if re.search(r"\b(?:new|now|updated|changed)\b", s, re.I) \
        else "observation"
    return Statement(typ, "lives_in", who, v, _neg(s, m), m.span())


def _dwelling(m: re.Match[str], s: str) -> Statement | None:
    """"We rent a flat in Lisbon", "our house in Oslo", "the new flat in Denver"."""
    v = name_phrase(m.group("v"))
    if not v or is_time_phrase(v):
        return None
    poss = (m.group("poss") or "").lower()
    who = m.group("subj") or ("you" if poss == "your" else "I")
    typ = "state_change" if "new" in m.group(0).lower() or re.search(
        r"\b(?:found|bought|moved)\b", m.group(0), re.I) else "observation"
    return Statement(typ, "lives_in", who, v, _neg(s, m), m.span())


def _r(pattern: str, flags: int = re.I) -> re.Pattern[str]:
    return re.compile(pattern, flags)


_OBJ = DET_NP.format(name="obj")
# A thing as a subject: a determiner and at most five words ("the red mug", "my keys").
_THING = (r"(?P<obj>(?:the|my|our|your|his|her|their|a|an|this|that)\s+"
          r"(?:[\w'-]+\s+){0,4}?[\w'-]+)")
RULES: list[tuple[str, re.Pattern[str], Handler]] = [
    ("lives", _r(rf"\b{SUBJ}\s+{PRE}"
                 r"(?P<verb>live|lives|lived|living|reside|resides|resided|moved|moving|move|"
                 r"relocated|relocating|relocate|settled|settling|settle)\s+(?:back\s+|down\s+)?"
                 r"(?:in|into|to)\s+(?P<v>[^,.;!?]+)"),
     _lives),
    ("home", _r(r"\b(?P<subj>my|our|your)\s+(?:new\s+)?(?:home|house|apartment|flat|place|"
                r"home\s+address|address)\s+(?:on\s+file\s+)?(?:is|to)\s+(?:now\s+)?(?:in\s+)?"
                r"(?P<v>[^,.;!?]+)"), _lives_home),
    ("home_is", _r(r"\b(?P<subj>)home\s+(?:for\s+(?:me|us)\s+)?is\s+(?:now\s+)?(?:in\s+)?"
                   r"(?P<v>(?-i:[A-Z])[^,.;!?]*)"), _lives_home),
    ("dwelling", _r(rf"\b(?:{SUBJ}\s+{PRE}(?:rent|rented|renting|own|owns|bought|buy|have|has|"
                    r"found|got|share|sharing|moved\s+into)\s+(?:a|an|the|our|my)\s+|"
                    r"\b(?P<poss>my|our|your|the\s+new)\s+(?:new\s+)?)"
                    r"(?:[\w-]+\s+){0,2}?(?:flat|apartment|house|home|place|room|condo|studio|"
                    r"cottage|bungalow)\s+in\s+(?P<v>(?-i:[A-Z])[^,.;!?]*)"), _dwelling),
    ("moved_out", _r(rf"\b{SUBJ}\s+{PRE}(?P<verb>moved|moving|move)\s+(?:out\s+of|away\s+from)"
                     r"\s+(?P<v>[^,.;!?]+)"), _moved_out),
    ("works", _r(rf"\b{SUBJ}\s+{PRE}"
                 r"(?:work|works|worked|working)\s+(?:at|for)\s+(?P<v>[^,.;!?]+)"), _works),
    ("job", _r(rf"\b{SUBJ}\s+{PRE}(?:got|landed|accepted|started|took|took\s+on|quit|left|"
               r"have|has|start|am\s+starting|started\s+at)\s+(?:a|an|my|his|her|the)?\s*"
               r"(?:new\s+)?(?:full-time\s+|part-time\s+)?(?:job|position|role|internship)\s+"
               r"(?:at|with)\s+(?P<v>[^,.;!?]+)"), _works),
    ("job_at", _r(r"\b(?P<poss>my|our|your|the)\s+(?:new\s+)?(?:job|work|position|role|"
                  r"internship|post)\s+(?:at|with)\s+(?P<v>[^,.;!?]+)"), _job_at),
    ("notice", _r(rf"\b{SUBJ}\s+{PRE}(?:handed\s+in|hand\s+in|gave|give|put\s+in|turned\s+in)\s+"
                  r"(?:my|his|her|their|our)\s+(?:notice|resignation)\s+(?:at|to)\s+"
                  r"(?P<v>[^,.;!?]+)"), _notice),
    ("first_week", _r(r"\b(?:my\s+|the\s+|our\s+)?first\s+(?:day|week|month|shift)\s+(?:at|with)"
                      r"\s+(?P<v>(?-i:[A-Z])[^,.;!?]*|the\s+[^,.;!?]+)"), _first_week),
    ("started_at", _r(rf"\b{SUBJ}\s+{ADV}(?:started|start|am\s+starting|began|begin)\s+"
                      r"(?:work(?:ing)?\s+|a\s+new\s+job\s+|my\s+new\s+job\s+)?(?:at|with)\s+"
                      r"(?P<v>(?-i:[A-Z])[^,.;!?]*)"), _works),
    ("unpacking", _r(rf"(?:\b{SUBJ}\s+{PRE})?\b(?P<verb>unpack(?:ing|ed)?|unpacking|settling\s+in)"
                     r"\b[^.;!?]{0,40}?\b(?:here\s+)?in\s+(?P<v>(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])"
                     r"[\w-]*)*)"), _unpacking),
    ("offer", _r(r"\b(?P<v>(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*)*)\s+(?:made|offered|gave)\s+"
                 r"me\s+(?:an?\s+)?(?:job\s+|better\s+)?(?:offer|job|position|role|contract)\b"),
     _offer),
    ("accepted", _r(rf"\b{SUBJ}\s+{ADV}(?:accepted|took|signed)\s+(?:an?|the|their)\s+(?:job\s+|new\s+)?"
                    r"(?:offer|contract|position|role)\s+(?:from|at|with)\s+"
                    r"(?P<v>(?-i:[A-Z])[^,.;!?]*)"), _works),
    ("joined", _r(rf"\b{SUBJ}\s+{ADV}(?:joined|was\s+hired\s+by|got\s+hired\s+(?:by|at))\s+"
                  r"(?P<v>(?-i:[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*)*))"), _works),
    ("occupation", _r(rf"\b{SUBJ}\s+{ADV}(?:am|is|are|was|work\s+as|works\s+as|worked\s+as|"
                      r"became|become|have\s+become|has\s+become|am\s+working\s+as|"
                      r"got\s+a\s+job\s+as|trained\s+as|am\s+now|is\s+now)\s+(?:now\s+)?"
                      r"(?:a|an)\s+(?P<v>[^,.;!?]+)"), _occupation),
    ("studies", _r(rf"\b{SUBJ}\s+{ADV}(?:am\s+|is\s+|are\s+)?(?:study|studies|studying|"
                   r"majoring\s+in|major\s+in|majored\s+in)\s+(?P<v>[A-Za-z][^,.;!?]+)"),
     _studies),
    ("located", _r(rf"\b{_THING}\s+(?:is|are|was|were|sits|sit|stays|lies|has\s+been|"
                   r"is\s+sitting|is\s+lying|is\s+kept|are\s+kept|is\s+stored|got\s+moved|"
                   r"was\s+moved|has\s+been\s+moved|is\s+left|was\s+left)\s+"
                   r"(?:now\s+|still\s+|back\s+|currently\s+)?"
                   rf"{PLACE_PREP}\s+{DET_NP.format(name='place')}"), _located),
    ("where_is", _r(rf"{PLACE_PREP}\s+{DET_NP.format(name='place').replace('[^,.;!?]+', '[^,.;!?]+?')}"
                    r",?\s+(?:that\s+is|that's|is)\s+where\s+"
                    rf"{_OBJ.replace('[^,.;!?]+', '[^,.;!?]+?')}\s+(?:is|are|was|were)\b"), _located),
    ("placed", _r(rf"\b(?:{SUBJ}\s+{ADV})?(?P<verb>put|placed|left|moved|set|stored|keep|kept|"
                  r"hung|dropped|stashed|parked|saw|noticed|spotted|found|took|taken|brought|carried|"
                  r"returned)\s+"
                  rf"{_OBJ.replace('[^,.;!?]+', '[^,.;!?]+?')}\s+(?:back\s+|over\s+|up\s+|down\s+)?"
                  r"(?:on\s+top\s+of|in\s+front\s+of|next\s+to|on|in|inside|under|into|onto|"
                  r"behind|beside|near|by|at|(?P<to>to))\s+"
                  rf"{DET_NP.format(name='place')}"), _placed),
    ("resched", _r(r"\b(?:move|moved|moving|reschedule|rescheduled|rescheduling|push|pushed|"
                   r"shift|shifted|change|changed|postpone|postponed|bring|brought|put\s+off)"
                   r"\s+(?P<ev>(?:the|my|our|your|his|her|their)\s+[^,.;!?]+?|it)\s+(?:back\s+|"
                   r"forward\s+|from\s+[^,.;!?]+?\s+)?(?:to|until|till|for)\s+(?P<when>[^,.;!?]+)"),
     _schedule_move),
    ("calendar", _r(r"\b(?:put|added|add|entered|noted|marked|wrote)\s+"
                    r"(?P<ev>(?:the|my|your|our)\s+[^,.;!?]+?)\s+(?:in|into|on|to)\s+"
                    r"(?:the|my|your|our)\s+(?:calendar|diary|schedule|agenda|planner)\s+"
                    r"(?:for|on)\s+(?P<when>[^,.;!?]+)"), _schedule_book),
    ("booked", _r(r"\b(?P<verb>book|booked|booking|rebook|rebooked|arrange|arranged|"
                  r"scheduled|schedule|set\s+up)\s+(?P<ev>(?:the|my|our|your|a|an)\s+[^,.;!?]+?)"
                  r"\s+(?:for|on)\s+(?P<when>[^,.;!?]+)"), _schedule_book),
    ("sched_inv", _r(r"(?:^|[,:;]\s*|\b(?:says|said|reads|shows|lists|has)\s+)(?:on\s+)?"
                     rf"(?P<when>(?:{WEEKDAY_NAMES}|tomorrow|next\s+\w+|this\s+\w+|{DAY_NUMBER}\s+"
                     rf"\w+|(?:{MONTH_NAMES})\s+\d{{1,2}}\w*)[^,.;!?]*?)\s+(?:is|for)\s+"
                     r"(?P<ev>(?:the|my|your|our)\s+[^,.;!?]+)"), _schedule_is),
    ("answer_time", _r(r"^(?:(?:no|nope|actually|sorry|wait|oops|correction|scratch\s+that|"
                       r"strike\s+that)\b[,.!:]?(?:\s+(?:no|sorry|actually)[,.!]?)?\s+|(?=i\s+meant))"
                       r"(?:i\s+meant\s+)?(?:it\s+is\s+|it's\s+)?(?:on\s+)?"
                       r"(?P<when>[^,.;!?]+?)(?:,?\s+not\s+[^,.;!?]+)?\s*[.!]?$"), _answer_time),
    ("sched_is", _r(r"\b(?P<ev>(?:the|my|our|your|his|her|their)\s+[^,.;!?]+?|it)\s+(?:(?:is|was|"
                    r"has\s+been|got|will\s+be|is\s+now|are|were)\s+(?:now\s+|still\s+)?"
                    r"|(?=moved|rescheduled|shifted|changed))"
                    r"(?:(?:moved|rescheduled|pushed|postponed|shifted|changed|set|scheduled|"
                    r"booked|planned)\s+)?(?:from\s+[^,.;!?]+?\s+(?=to\b))?"
                    r"(?:back\s+|forward\s+)?(?:to|for|on|until|at)?\s*"
                    rf"(?P<when>(?:next|this|last|on|tomorrow|today|tonight|{WEEKDAY_NAMES}|"
                    rf"in\s+\w+\s+(?:days?|weeks?)|{MONTH_NAMES}|the\s+\d|"
                    r"\d)[^,.;!?]*)"), _schedule_is),
    ("sched_do", _r(rf"\b{SUBJ}\s+{ADV}(?:will|am\s+going\s+to|are\s+going\s+to|"
                    r"is\s+going\s+to|plan\s+to|am\s+planning\s+to|have\s+to|need\s+to|must|"
                    r"should|intend\s+to|am|are|is)\s+(?:also\s+)?(?P<verb>[a-z]+?)(?:ing)?"
                    r"(?:\s+(?:up|off|out|over|by))?"
                    r"(?:\s+(?P<obj>(?:the|my|our|a|an|your|his|her)\s+[^,.;!?]+?|"
                    r"(?-i:[A-Z][a-z]+)))?"
                    r"(?P<rest>\s+(?:on|this|next|tomorrow|at|in|by|today|tonight)\b[^,;!?]*)")
     , _schedule_do),
    ("routine", _r(r"(?:^|:\s*|\bplease\s+|\bfrom\s+now\s+on,?\s+)(?P<verb>[a-z]+)\s+"
                   r"(?P<obj>(?:the|my|our|your)\s+[^,.;!?]+?)\s+(?P<when>(?:on|every)\s+(?:other\s+)?"
                   rf"(?:{WEEKDAY_NAMES}|day|week|"
                   r"morning|evening|night)s?)\b"), _routine),
    ("favorite", _r(r"\b(?P<who>my|our|your|(?-i:[A-Z][a-z]+)'s)\s+(?:all-time\s+)?favou?rite\s+"
                    r"(?P<cat>[a-z ]+?)\s+(?:is|are|was|has\s+to\s+be|would\s+be)\s+(?:now\s+|still\s+)?"
                    r"(?P<v>[^,.;!?]+)"), _favorite),
    ("favorite_inv", _r(r"(?:^|[,:;]\s*|\b(?:honestly|now|and|but|so),?\s+)(?P<v>[^,.;:!?]+?)\s+"
                        r"(?:is|are)\s+(?:now\s+|still\s+)?(?P<who>my|our|your)\s+"
                        r"(?:all-time\s+|new\s+|absolute\s+)?favou?rites?\b(?:\s+(?P<cat>[a-z]+))?"),
     _favorite_inv),
    ("beats", _r(r"\bnothing\s+beats\s+(?P<v>[^,.;!?]+?)(?:\s+for\s+(?P<who>me|us|you|him|her))?"
                 r"(?=[,.;!?]|$)"), _beats),
    ("note", _r(r"^\s*(?:correction|update|note|reminder|fyi|change|changed|new\s+date|"
                r"rescheduled)\s*:\s*(?P<ev>(?:the\s+|my\s+|your\s+)?[a-z][a-z' -]*?)\s+(?:is\s+)?"
                r"(?:now\s+)?(?:on|for|at)\s+(?P<when>[^,.;!?]+)"), _schedule_note),
    ("been_with", _r(rf"\b{SUBJ}\s+(?:have|has|had)\s+(?:now\s+)?been\s+with\s+"
                     r"(?P<v>(?-i:(?:the\s+)?[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*)+))\s+for\b"), _works),
    ("switched", _r(rf"\b{SUBJ}\s+{ADV}(?:have\s+|has\s+)?(?:switched|changed|swapped|"
                    r"converted|moved\s+over)\s+(?:over\s+|jobs\s+|employers\s+)?"
                    r"(?:from\s+[^,.;!?]+?\s+)?to\s+"
                    r"(?P<v>[^,.;!?]+?)(?:\s+(?:in|for|with)\s+(?:my|our|his|her|their|the)\s+"
                    r"(?P<cat>[a-z ]+?))?(?=[,.;!?]|\s+(?:now|because|since|instead|and|but)"
                    r"\b|$)"), _switched),
    ("stop_offer", _r(r"\b(?:please\s+)?(?:stop|quit|no\s+more)\s+(?:suggesting|offering|recommending|"
                      r"buying|bringing|making|serving|playing|ordering)\s+(?:me\s+|us\s+)?"
                      r"(?P<v>[^,.;!?]+)"), _stop_offer),
    ("habit", _r(rf"\b{SUBJ}\s+{PRE}(?:only\s+|mostly\s+|usually\s+)?(?P<verb>drink|drinks|"
                 r"eat|eats)\s+(?P<v>[^,.;!?]+)"), _habit),
    ("prefers", _r(rf"\b{SUBJ}\s+{PRE}(?:(?:really|absolutely|totally|honestly)\s+)?"
                   r"(?P<verb>like|likes|love|loves|enjoy|enjoys|prefer|prefers|adore|adores|"
                   r"would\s+rather(?:\s+have|\s+drink|\s+eat|\s+listen\s+to|\s+get)?|"
                   r"cannot\s+get\s+enough\s+of|gone\s+off|went\s+off|"
                   r"hate|hates|dislike|dislikes|cannot\s+stand|am\s+into|is\s+into|"
                   r"are\s+into|am\s+a\s+(?:big\s+|huge\s+)?fan\s+of|is\s+a\s+(?:big\s+|huge\s+)?"
                   r"fan\s+of|am\s+not\s+a\s+fan\s+of|am\s+obsessed\s+with|am\s+crazy\s+about)"
                   r"\s+(?P<v>[^,.;!?]+)"), _prefers),
    ("owns", _r(rf"\b{SUBJ}\s+{ADV}(?:also\s+)?(?P<verb>have|has|own|owns|bought|adopted|"
                r"purchased|got|have\s+got|sold|lost|gave\s+away|got\s+rid\s+of)\s+"
                r"(?P<count>a|an|two|three|four|five|six|\d+|another|my|our|his|her|"
                r"a\s+new|a\s+second)\s+(?P<v>[^,.;!?]+)"), _owns),
    ("status_is", _r(rf"\b{_THING}\s+(?:is|are|was|were|"
                     r"got|has\s+been|have\s+been|just\s+got)\s+(?:now\s+|still\s+|finally\s+|"
                     r"completely\s+|already\s+|just\s+)?(?P<v>" + STATUS_WORDS + r")"
                     r"(?=\s*(?:[,.;!?]|$|\s+(?:now|again|already|today|yesterday|and|but|so|"
                     r"because)\b))"), _status_is),
    ("status_do", _r(rf"\b{SUBJ}\s+{ADV}(?P<verb>fixed|repaired|broke|cleaned|locked|unlocked|"
                     r"opened|closed|cancelled|canceled|finished|completed|charged|emptied|"
                     r"turned\s+off|turned\s+on|switched\s+off|switched\s+on)\s+"
                     rf"{_OBJ}"), _status_do),
    ("person_state", _r(rf"\b{SUBJ}\s+{ADV}(?:am|is|are|got|just\s+got|became|have\s+been|"
                        r"has\s+been|was|were)\s+(?:now\s+|happily\s+|recently\s+|officially\s+)?"
                        r"(?P<v>married\s+to|engaged\s+to|married|engaged|divorced|single|"
                        r"separated|widowed|retired|pregnant|unemployed|vegetarian|vegan|"
                        r"sober|dating|seeing)\b(?:\s+(?P<p>(?-i:[A-Z][a-z]+)))?"),
     _person_state),
    ("broke_up", _r(rf"\b{SUBJ}\s+{ADV}(?:broke\s+up|split\s+up|separated)\b"), _broke_up),
    ("plans", _r(rf"\b{SUBJ}\s+{PRE}(?:plan|plans|planning|intend|intends|hope|hopes|hoping|"
                 r"decided|thinking|considering|would\s+like|want|wants|"
                 r"(?<=am\s)going|(?<=are\s)going|(?<=is\s)going)\s+"
                 r"(?:to\s+|on\s+|about\s+|of\s+|(?=(?:a|an)\s))(?P<verb>[a-z]+)(?:ing)?"
                 r"(?:\s+(?:up|out|over))?(?:\s+(?P<obj>[^,.;!?]+))?"), _plans),
]


# Cheap word tests run before each rule's full pattern: most sentences trigger few rules.
# Each is kept with its case-folded form (``text.case_folded``), which ``match_rules``
# runs over the sentence lowered once when it is ASCII.
_TRIGGERS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    name: (rx, case_folded(rx)) for name, rx in ((n, re.compile(p, re.I)) for n, p in {
    "lives": r"\b(?:liv|resid|mov|relocat|settl)",
    "beats": r"\bnothing\s+beats\b",
    "answer_time": r"^(?:no|nope|actually|sorry|wait|oops|correction|scratch|strike|i\s+meant)\b",
    "note": r"^\s*[a-z ]{1,20}:",
    "been_with": r"\bbeen\s+with\b",
    "home": r"\b(?:home|house|apartment|flat|place|address)\b",
    "home_is": r"\bhome\s+(?:for\s+\w+\s+)?is\b",
    "dwelling": r"\b(?:flat|apartment|house|home|place|room|condo|studio|cottage|bungalow)\s+in\b",
    "job_at": r"\b(?:job|work|position|role|internship|post)\s+(?:at|with)\b",
    "notice": r"\b(?:notice|resignation)\b",
    "first_week": r"\bfirst\s+(?:day|week|month|shift)\b",
    "favorite_inv": r"\bfavou?rites?\b",
    "where_is": r"\bwhere\b",
    "calendar": r"\b(?:calendar|diary|schedule|agenda|planner)\b",
    "booked": r"\b(?:book|rebook|arrange|schedul|set\s+up)",
    "sched_inv": r"\b(?:is|for)\s+(?:the|my|your|our)\b",
    "moved_out": r"\bmov(?:ed|ing|e)\s+(?:out|away)\b",
    "works": r"\bwork",
    "job": r"\b(?:job|position|role|internship)\b",
    "joined": r"\b(?:joined|hired)\b",
    "accepted": r"\b(?:accepted|took|signed)\b",
    "offer": r"\b(?:made|offered|gave)\s+me\b",
    "started_at": r"\b(?:start|starting|started|began|begin)\b",
    "unpacking": r"\b(?:unpack|settling\s+in)",
    "occupation": r"\b(?:a|an)\b",
    "studies": r"\b(?:stud|major)",
    "located": r"\b(?:is|are|was|were|sits?|stays|lies|been)\b",
    "placed": r"\b(?:put|placed|left|moved|set|stored|keep|kept|hung|dropped|stashed|parked|"
              r"saw|noticed|spotted|found|took|taken|brought|carried|returned)\b",
    "resched": r"\b(?:mov|reschedul|push|shift|chang|postpon|bring|brought|put\s+off)",
    "sched_is": r"\b(?:next|this|last|on|tomorrow|today|tonight|\w+day|in\s+\w+\s+(?:day|week))"
                r"|\d",
    "sched_do": r"\b(?:on|this|next|tomorrow|at|in|by|today|tonight)\b",
    "favorite": r"\bfavou?rite\b",
    "routine": r"\b(?:on|every)\s+(?:other\s+)?(?:\w+day|week|morning|evening|night)s?\b",
    "switched": r"\b(?:switched|changed|swapped|converted|moved\s+over)\b",
    "stop_offer": r"\b(?:stop|quit|no\s+more)\s+\w+ing\b",
    "habit": r"\b(?:drinks?|eats?)\b",
    "prefers": r"\b(?:like|likes|love|loves|enjoy|enjoys|prefer|prefers|adore|adores|hate|hates|"
               r"dislike|dislikes|stand|into|fan|obsessed|crazy|rather|enough|off)\b",
    "owns": r"\b(?:have|has|own|owns|bought|adopted|purchased|got|sold|lost|gave)\b",
    "status_is": r"\b(?:is|are|was|were|got|been)\b",
    "status_do": r"\b(?:fixed|repaired|broke|cleaned|locked|unlocked|opened|closed|cancell?ed|"
                 r"canceled|finished|completed|charged|emptied|turned|switched)\b",
    "person_state": r"\b(?:married|engaged|divorced|single|separated|widowed|retired|pregnant|"
                    r"unemployed|vegetarian|vegan|sober|dating|seeing)\b",
    "broke_up": r"\b(?:broke|split|separated)\b",
    "plans": r"\b(?:plan|planning|intend|going|hope|hoping|decided|thinking|considering|like|"
             r"want|wants)\b",
}.items())}


def match_rules(sentence: str) -> Iterator[tuple[str, Statement]]:
    """Every rule match in one (normalised) sentence, left to right per rule.
    Overlapping matches of later rules on the same span are dropped."""
    taken: list[tuple[int, int]] = []
    low = sentence.lower() if sentence.isascii() else None
    for name, rx, handler in RULES:
        trigger = _TRIGGERS.get(name)
        if trigger is not None and not (trigger[0].search(sentence) if low is None
                                        else trigger[1].search(low)):
            continue
        for m in rx.finditer(sentence):
            st = handler(m, sentence)
            if st is None:
                continue
            if name not in ("plans", "sched_do") and _HYPOTHETICAL.search(
                    sentence[:m.start()] + m.group(0)[:m.group(0).find(" ") + 1 or None]):
                continue
            if any(a <= st.span[0] < b and a < st.span[1] for a, b in taken) and \
                    name not in ("prefers", "favorite", "plans"):
                continue
            taken.append(st.span)
            yield name, st
