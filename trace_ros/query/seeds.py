"""Seeds of the graph stage: the facts a question starts from, and the state key it asks about.

Seeds (DESIGN §4.3) are, in this order of trust:

- the facts whose provenance meets the best recalled sources (``fact_sources``),
  each weighted by its source's fused recall score relative to the best one;
- entity seeds: keyed facts whose entity the question names (a thing's words,
  or a speaker's name), newest first, a few per entity — so revisions stated in
  other sessions (a move is news in any conversation) are seen even when recall
  ranked them low;
- one hop along ``updates``/``contradicts`` from those (``update_seeds``), so
  both the old and the new version of a changed state are seen.

Every seed lies in the request's scope and time view: a fact is seen only when
``valid_from <= as_of_valid`` and ``known_from <= as_of_known``.

``target_key`` then asks which ``(entity, relation)`` the question is about:
the key's entity must be named by the question (all of a thing's content words,
a speaker's name, or — for a first-person question — a speaker of the subject),
and the question must use a word of the relation (``RELATION_CUES``: the plain
English words for the shared relations of ``trace_ros.facts.RELATIONS``) that
fits the kind of answer it wants. Nothing here is keyed to a benchmark's wording.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ..facts import Fact, norm
from ..language.lazyre import lazy_re
from ..language.text import STOPWORDS, stem, stems, words
from ..language.timeanchor import find_candidates
from ..language.vocab import EVENT_NOUNS, is_robot
from ..ledger import Ledger, Scope
from ..state import is_multi_valued
from .factcache import SubjectFacts
from .plan import Plan
from .recall import Fused

# Plain English words that ask about each shared relation, as written (with their
# inflections): a stem would let "for a living" ask where someone lives.
RELATION_CUES: dict[str, tuple[str, ...]] = {
    "lives_in": ("live", "lives", "lived", "living", "home", "city", "town", "reside",
                 "resides", "resided", "address", "hometown", "country", "move", "moved",
                 "relocated"),
    "works_at": ("work", "works", "worked", "working", "job", "employer", "employed",
                 "company", "workplace", "firm"),
    "occupation": ("job", "occupation", "profession", "career", "study", "studies", "studied",
                   "studying", "work", "works", "livelihood"),
    "located_at": ("where", "find", "found", "put", "left", "kept", "keep", "keeps", "location",
                   "located", "placed", "seen", "see", "saw"),
    "scheduled_for": ("when", "date", "day", "time", "scheduled", "schedule", "planned",
                      "plan", "set"),
    "prefers": ("like", "likes", "liked", "prefer", "prefers", "preferred", "favourite",
                "favorite", "favourites", "favorites", "enjoy", "enjoys", "enjoyed", "love",
                "loves", "loved", "fan"),
    "owns": ("own", "owns", "owned", "pet", "pets"),
    "status": ("status", "state", "broken", "fixed", "open", "closed"),
    "plans": ("plan", "plans", "planning", "planned", "intend", "intends", "going"),
    "relationship": ("married", "single", "relationship", "dating", "partner", "husband",
                     "wife", "boyfriend", "girlfriend", "engaged", "divorced"),
}
CUE_WORDS = {rel: frozenset(ws) for rel, ws in RELATION_CUES.items()}
CUE_STEMS = {rel: frozenset(stem(w) for w in ws) for rel, ws in RELATION_CUES.items()}
ALL_CUE_STEMS = frozenset().union(*CUE_STEMS.values())
# A cue word used as a noun is not the verb: "for a living" is a livelihood, "the
# living room" a room.
_NOUN_USE = [(lazy_re(r"\bfor an? living\b", re.I), " for livelihood "),
             (lazy_re(r"\b(?:a|an|the|my|your|his|her|our|their)\s+(?:living|home)"
                      r"\s+(?:room|rooms|area|space|office|page|screen|team|game)\b", re.I),
              " ")]


# A place noun that modifies the noun after it names a kind of thing, not where someone
# lives: "the city library", "a home office", "our town hall" (a following lower-case
# word that is not a function word: "the city is", "the city where …" keep the cue).
_PLACE_NOUNS = ("home", "city", "town", "country", "address", "hometown")
_MODIFIER_USE = lazy_re(r"(?i:\b(?:a|an|the|my|your|his|her|our|their)\s+)(?i:"
                        + "|".join(_PLACE_NOUNS) + r")\b(?=\s+([a-z][\w'’-]*))")
# "Would you like …", "I'd love …" ask for or offer something now; they state no
# lasting preference.
_WISH = lazy_re(r"\b(?:would|'d|’d)\s+(?:(?:you|i|we|they|he|she)\s+)?(?:like|love)\b",
                re.I)


def _modifier(m: re.Match[str]) -> str:
    return m.group(0) if m.group(1) in STOPWORDS else " "


def cue_words(text: str) -> set[str]:
    """The words of ``text`` that may ask about a relation, noun uses, place nouns
    used as modifiers and wishes rewritten."""
    for rx, repl in _NOUN_USE:
        text = rx.sub(repl, text)
    text = _WISH.sub(" want ", _MODIFIER_USE.sub(_modifier, text))
    return set(words(text))


# Which relations can answer which kind of question (plan.answer_type); others: any.
_ANSWER_RELATIONS: dict[str, frozenset[str]] = {
    "date": frozenset({"scheduled_for"}),
    "place": frozenset({"lives_in", "works_at", "located_at"}),
    "person": frozenset({"relationship", "works_at"}),
}
# Plans whose answer one state key can give.
_STATE_OPERATIONS = ("fact", "current_state", "temporal_lookup", "history")
_STATE_ANSWERS = ("thing", "place", "date", "person")
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself"})
_POSSESSED = lazy_re(r"\w(?:'s|s'|’s)\s+(\w+)")
# Words that frame a question rather than name what it is about.
# Words of recency ("latest", "newest") ask for the current state, which every question
# asks for unless it names another time, and "first", "originally" for the earliest
# telling: they never name the thing itself.
FRAME_WORDS = frozenset({"last", "kind", "kinds", "type", "types", "sort", "thing", "things",
                         "currently", "current", "these", "days", "anymore", "still",
                         "usually", "right", "moment", "today", "now", "exactly",
                         "latest", "newest", "recent", "recently", "present", "presently",
                         "nowadays", "update", "updated", "first", "originally",
                         "initially"})


@dataclass(frozen=True)
class View:
    """The request's time view: the world as of ``valid``, as known at ``known``."""

    valid: float | None = None
    known: float | None = None

    def sees(self, f: Fact) -> bool:
        return (self.valid is None or f.valid_from <= self.valid) and \
            (self.known is None or f.known_from <= self.known)


@dataclass
class Seeds:
    facts: dict[str, Fact] = field(default_factory=dict)
    # fact_id -> recall weight in [0, 1] (its best source's fused score / the best one).
    weight: dict[str, float] = field(default_factory=dict)
    # fact_id -> how it became a seed: recalled | entity | update_hop
    origin: dict[str, str] = field(default_factory=dict)

    def add(self, f: Fact, weight: float, origin: str) -> None:
        if f.fact_id not in self.facts:
            self.facts[f.fact_id] = f
            self.origin[f.fact_id] = origin
        self.weight[f.fact_id] = max(self.weight.get(f.fact_id, 0.0), weight)


def in_scope(scope: Scope, f: Fact) -> bool:
    return f.subject_id == scope.subject_id and \
        (not scope.robot_id or f.robot_id == scope.robot_id) and \
        (not scope.session_id or f.session_id == scope.session_id)


def question_entities(question: str, speakers: Iterable[str]) -> list[str]:
    """Normalised names the question may use for an entity: runs of one to three
    content words (in order) and the speakers it names."""
    toks = [w for w in words(question) if w not in STOPWORDS and len(w) > 1]
    out = [norm(s) for s in speakers]
    for n in (3, 2, 1):
        out += [" ".join(toks[i:i + n]) for i in range(len(toks) - n + 1)]
    return [e for e in dict.fromkeys(out) if e]


def collect(graph: SubjectFacts, scope: Scope, view: View, ranked: Sequence[Fused],
            entities: Sequence[str], *, n_sources: int, per_entity: int,
            update_hop: bool) -> Seeds:
    """The seeds of a question (see the module docstring), from the subject's facts."""
    seeds = Seeds()
    head = list(ranked[:n_sources])
    top = max((f.score for f in head), default=0.0)
    score = {f.source_id: (f.score / top if top > 0 else 0.0) for f in head}
    for f in graph.of_sources(list(score)):
        if in_scope(scope, f) and view.sees(f):
            seeds.add(f, max((score.get(s, 0.0) for s in f.source_ids), default=0.0),
                      "recalled")
    if entities and per_entity > 0:
        for f in graph.of_entities(entities, per_entity):
            if in_scope(scope, f) and view.sees(f):
                seeds.add(f, max((score.get(s, 0.0) for s in f.source_ids), default=0.0),
                          "entity")
    if update_hop and seeds.facts:
        edges = graph.edges_among(list(seeds.facts), ("updates", "contradicts"))
        other = {x for e in edges for x in (e.src, e.dst)} - set(seeds.facts)
        for f in graph.with_ids(other):
            if in_scope(scope, f) and view.sees(f):
                seeds.add(f, 0.0, "update_hop")
    return seeds


# -- which key the question asks about --------------------------------------------


@dataclass(frozen=True)
class Target:
    entity: str
    # As given to the resolver: a multi-valued relation by its base ("prefers"), so
    # every qualified form is seen; ``qualifier`` is the category the question names.
    relation: str
    explicit: bool  # the question names the entity (not only "I"/"my")
    support: float
    qualifier: str = ""


# Relations that describe a person (the others describe things and events).
PERSON_RELATIONS = ("lives_in", "works_at", "occupation", "prefers", "owns", "plans",
                    "relationship")


def relation_cued(relation: str, q_cues: set[str], plan: Plan) -> bool:
    """Whether the question's words (``cue_words``) ask about ``relation`` in a form
    that fits the kind of answer it wants."""
    base, _, qualifier = relation.partition(":")
    cues = CUE_WORDS.get(base)
    if cues is None or not cues & q_cues:
        return False
    allowed = _ANSWER_RELATIONS.get(plan.answer_type)
    return allowed is None or base in allowed


def cued_relations(question: str, plan: Plan) -> list[str]:
    """The shared relations the question's words ask about (fitting its answer type)."""
    q = cue_words(question)
    return [r for r in CUE_WORDS if relation_cued(r, q, plan)]


def _entity_match(entity: str, q_stems: set[str], first_person: bool,
                  people: set[str]) -> tuple[bool, bool]:
    """(matches, explicitly named)."""
    e_stems = stems(entity)
    if e_stems and e_stems <= q_stems:
        return True, True
    if first_person and entity in people:
        return True, False
    return False, False


def answerable_by_state(plan: Plan) -> bool:
    return plan.operation in _STATE_OPERATIONS and plan.answer_type in _STATE_ANSWERS


def first_person_means(people: set[str], turns: dict[str, int], robot_id: str = "") -> set[str]:
    """Who "I"/"my" means in a question put to the robot: a person, never the robot,
    and the one it serves — the human who talks most in the scope (``turns``:
    dialogue turns per speaker; ties keep all of them). Which facts exist does not
    change who asks: when that person never stated a key, another speaker's value is
    no answer. Every human when none has spoken (every speaker when none is human)."""
    humans = {p for p in people if not is_robot(p, robot_id)}
    talk = {p: turns.get(p, 0) for p in humans}
    most = max(talk.values(), default=0)
    if most <= 0:
        return humans or set(people)
    return {p for p, n in talk.items() if n == most}


def people_asked_about(question: str, people: set[str], me: set[str] | None = None) -> set[str]:
    """The speakers a question is about: those it names, else (for "I"/"my") ``me``
    (``first_person_means``; default all of them)."""
    q_words = set(words(question))
    named = {p for p in people if set(words(p)) and set(words(p)) <= q_words}
    if named:
        return named
    return set(people if me is None else me) if FIRST_PERSON & q_words else set()


def person_seeds(ledger: Ledger, scope: Scope, view: View, question: str, plan: Plan,
                 people: set[str], seeds: Seeds, me: set[str] | None = None) -> None:
    """Add the facts of (person, relation) keys the question asks about — the asker's
    home when "Where do I live?" (``me``: who "I" means) — whatever recall found."""
    rels = [r for r in cued_relations(question, plan) if r in PERSON_RELATIONS]
    for person in sorted(people_asked_about(question, people, me)):
        for rel in rels:
            for f in ledger.facts_for_key(scope.subject_id, person, rel + ":"):
                if in_scope(scope, f) and view.sees(f):
                    seeds.add(f, 0.0, "entity")


def categorised(f: Fact) -> bool:
    """Whether a qualified relation names a category ("prefers:music" for "jazz"), not
    just the value's own word ("prefers:jazz")."""
    own = f.relation.partition(":")[2]
    return bool(own) and stem(own) not in stems(f.value)


def fits_qualifier(f: Fact, qualifier: str) -> bool:
    """Whether a revision of a multi-valued relation can answer a question about the
    category ``qualifier``: its own qualifier is that category, or it is no category
    at all but the value's own word ("prefers:jazz" for "jazz")."""
    if not qualifier:
        return True
    own = f.relation.partition(":")[2]
    return not own or stem(own) == stem(qualifier) or stem(own) in stems(f.value)


def residual(question: str, entity: str = "", qualifier: str = "",
             names: Iterable[str] = ()) -> list[str]:
    """The question's content words that the key does not account for: not the
    entity's, the category's, a relation word, a name, a time expression or a word
    that only frames the question. A question is about the key alone (a *state
    question*) when nothing is left ("What is Ana's favourite book?" — but not
    "What was Ana's reaction to …?")."""
    text = question
    for m in reversed(find_candidates(text)):
        text = text[:m.start()] + " " + text[m.end():]
    skip = stems(entity) | ({stem(qualifier)} if qualifier else set())
    skip_words = set(names)
    return [w for w in words(text)
            if len(w) > 1 and w not in STOPWORDS and not w.isdigit() and w not in FRAME_WORDS
            and w not in EVENT_NOUNS and w not in skip_words
            and stem(w) not in ALL_CUE_STEMS and stem(w) not in skip]


def possessed_words(question: str) -> set[str]:
    """Words a question names as someone's ("Ana's kids" → kids)."""
    return {m.group(1).lower() for m in _POSSESSED.finditer(question)}


def named_category(left: Sequence[str], possessed: set[str]) -> str:
    """The category a question about a multi-valued relation names: the one content
    word ``residual`` leaves ("favourite food"), unless it is a thing someone has
    ("Ana's kids"); '' otherwise."""
    return left[0] if len(left) == 1 and left[0] not in possessed else ""


def target_key(question: str, plan: Plan, seeds: Seeds, people: set[str],
               turns: Callable[[], dict[str, int]] = dict,
               me: set[str] | None = None) -> Target | None:
    """The (entity, relation) the question asks about, from the seeds' keyed facts;
    None when no key is clearly asked about (then the readers read the text).

    "I"/"my" means the people in ``me`` (``first_person_means``; default every
    speaker); of several with a fact of the asked relation, the one who talks most
    in the scope (``turns``: dialogue turns per speaker)."""
    if not answerable_by_state(plan):
        return None
    q_words = words(question)
    q_stems = {stem(w) for w in q_words}
    q_cues = cue_words(question)
    first_person = bool(FIRST_PERSON & set(q_words))
    names = {w for p in people for w in words(p)}
    # "Ana's kids": the question is about the kids, not about Ana.
    possessed = possessed_words(question)
    best: dict[tuple[str, str, str], Target] = {}
    for fid, f in seeds.facts.items():
        if not f.key or not relation_cued(f.relation, q_cues, plan):
            continue
        ok, explicit = _entity_match(f.entity, q_stems, first_person,
                                     people if me is None else me)
        if not ok:
            continue
        base, _, qualifier = f.relation.partition(":")
        if is_multi_valued(base):
            rel, qualifier = base, (qualifier if qualifier and stem(qualifier) in q_stems
                                    else "")
        else:
            rel, qualifier = f.relation, ""
        left = residual(question, f.entity, qualifier, names)
        if is_multi_valued(base) and not qualifier and named_category(left, possessed):
            # The one word left names the category ("favourite food"); the resolver's
            # answer is narrowed to it (or dropped when nothing is of that category).
            qualifier, left = left[0], []
        if left:
            continue  # the question asks about more than this key
        key = (f.entity, rel, qualifier)
        support = seeds.weight.get(fid, 0.0)
        cur = best.get(key)
        if cur is None or support > cur.support:
            best[key] = Target(f.entity, rel, explicit, support, qualifier)
    if not best:
        return None
    implicit = {t.entity for t in best.values() if not t.explicit}
    talk = turns() if len(implicit) > 1 else {}
    # A named entity beats "I" (the most talkative speaker); a named category beats
    # none; then recall support.
    return max(best.values(), key=lambda t: (t.explicit, talk.get(t.entity, 0),
                                             bool(t.qualifier), t.support, len(t.entity)))
