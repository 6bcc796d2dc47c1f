"""A seeded generator of robot-memory histories in which things change.

Each subject (a household with one robot) has sessions spread over weeks:
dialogue between the person, sometimes a housemate, and the robot, and the
robot's perception events (label, description, pose in ``map``). Along the
way things change — objects are seen in one place then another, appointments
are rescheduled, preferences revised, jobs and homes changed — some changes
are corrected a moment later ("actually, it's Thursday"), some statements
contradict each other and are left open, and some facts are never stated.

The wording is varied on purpose: several sentence structures per change kind,
changes stated by the person, relayed or confirmed by the robot, seen by
perception alone, or only implied ("the new flat in Seattle is great"), with
distractor chatter in between that reuses the same words about other things.
A rule fitted to one template should not pass.

Every event carries an explicit source ID, and the generator keeps the ground
truth for each probe: the key ``(entity, relation)`` in the vocabulary of
``trace_ros.facts.RELATIONS`` (entities normalised with ``facts.norm``), the
revisions oldest first with their source IDs and times, the current and
superseded sources, the answer as of chosen dates, and natural-language
questions for the query level. Everything is drawn from one
``random.Random(seed)``: the same (seed, subjects, sessions) gives the same
history.
"""

from __future__ import annotations

import calendar
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from ..capture import Event
from ..facts import norm
from ..ledger import Scope

_T = TypeVar("_T")

START = 1_735_689_600.0  # 2025-01-01T00:00:00Z
DAY = 86_400.0
ROBOT_ID = "robot-1"
ROBOT = "robot"
CAMERAS = ("head_camera", "base_camera")

NAMES = ("Maya", "Jonas", "Priya", "Tomas", "Leila", "Owen", "Greta", "Rafael", "Ines",
         "Kofi", "Hanna", "Marcus", "Yuki", "Dmitri", "Amara", "Lucas")
HOUSEMATES = ("Sam", "Alex", "Robin", "Jo", "Kit", "Nico", "Remy", "Tess")
CITIES = ("Seattle", "Boston", "Denver", "Portland", "Austin", "Chicago", "Lisbon", "Dublin",
          "Toronto", "Melbourne", "Oslo", "Valencia")
EMPLOYERS = ("Northwind Logistics", "Harbor Hospital", "Bluefin Software", "Greenleaf Bakery",
             "Apex Robotics", "the city library", "Summit Bank", "Riverside School")
PREFERENCES: dict[str, tuple[str, ...]] = {
    "drink": ("black coffee", "green tea", "peppermint tea", "sparkling water", "hot chocolate",
              "oat milk latte"),
    "music": ("jazz", "classical music", "folk music", "hip hop", "opera", "reggae"),
    "food": ("Thai food", "pasta", "sushi", "vegetable curry", "tacos", "ramen"),
}
# Things the robot keeps track of, and (disjoint) things that only appear as distractors.
OBJECTS = ("red mug", "key ring", "glasses case", "blue backpack", "phone charger",
           "umbrella", "wallet", "tv remote", "water bottle", "toolbox", "passport",
           "yoga mat", "laptop bag", "sun hat")
DISTRACT_OBJECTS = ("cereal box", "potted fern", "laundry basket", "bicycle pump", "candle",
                    "picture frame", "shoe rack", "fruit bowl")
APPOINTMENTS = ("dentist appointment", "parcel pickup", "physio session", "car service",
                "haircut", "vet appointment", "boiler inspection", "piano lesson",
                "eye exam", "tax meeting", "flu jab", "book club")
DISTRACT_EVENTS = ("school play", "street market", "football match", "garden party",
                   "charity run", "quiz night")
PLACES: dict[str, tuple[str, tuple[float, float]]] = {
    "kitchen table": ("on the kitchen table", (2.0, 1.0)),
    "sink": ("in the sink", (1.4, 0.4)),
    "hallway shelf": ("on the hallway shelf", (4.0, 0.5)),
    "office desk": ("on the office desk", (1.0, 6.0)),
    "bedroom dresser": ("on the bedroom dresser", (8.0, 6.0)),
    "garage workbench": ("on the garage workbench", (10.0, 0.2)),
    "sofa": ("on the sofa", (6.0, 3.0)),
    "bathroom cabinet": ("in the bathroom cabinet", (7.0, 1.0)),
    "coat rack": ("on the coat rack", (4.3, 0.1)),
    "dining table": ("on the dining table", (3.0, 2.5)),
}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
PERSONAL_KINDS = ("home", "job", "preference")
CHANGE_KINDS = ("object", "appointment", "home", "job", "preference")
RELATION_OF = {"home": "lives_in", "job": "works_at", "preference": "prefers",
               "object": "located_at", "appointment": "scheduled_for"}


# -- templates ---------------------------------------------------------------
# (template id, speaker role, format string). Roles: person, robot, mate.
# Fields: {v} new value, {o} old value, {e} entity phrase, {E} capitalised,
# {w} date phrase of the new value, {ow} weekday of the old value, {wd} weekday
# of the new value, {cat} preference category, {name} the person, {mate}.

INITIAL = {
    "home": (
        ("home.i0", "person", "I've lived in {v} for about six years."),
        ("home.i1", "person", "Home for me is {v}, in a small place near the river."),
        ("home.i2", "person", "We rent a two-bedroom flat in {v}."),
        ("home.i3", "person", "Our house in {v} needs a new roof, sadly."),
        ("home.i4", "robot", "Your address on file is in {v}."),
    ),
    "job": (
        ("job.i0", "person", "I work at {v}, mostly paperwork."),
        ("job.i1", "person", "My job at {v} keeps me busy these days."),
        ("job.i2", "person", "I've been with {v} for three years."),
        ("job.i3", "person", "Long shift today, {v} is short-staffed again."),
        ("job.i4", "person", "Everyone at {v} is stressed about the audit."),
    ),
    "preference": (
        ("preference.i0", "person", "I love {v}."),
        ("preference.i1", "person", "{V} is my favourite, always has been."),
        ("preference.i2", "person", "Nothing beats {v} for me."),
        ("preference.i3", "person", "I'm a big fan of {v}, just so you know."),
        ("preference.i4", "person", "Could you remember that I like {v}?"),
    ),
    "appointment": (
        ("appointment.i0", "person", "My {e} is {w}."),
        ("appointment.i1", "person", "I booked the {e} for {d}."),
        ("appointment.i2", "person", "Can you remind me about my {e}? It's {w}."),
        ("appointment.i3", "person", "{D} is the {e}, don't let me forget."),
        ("appointment.i4", "robot", "I've put your {e} in the calendar for {d}."),
        ("appointment.i5", "person", "The {e} is set for {d}."),
    ),
    "object": (
        ("object.i0", "person", "I left my {e} {p}."),
        ("object.i1", "person", "The {e} is {p}, if you need it."),
        ("object.i2", "robot", "Your {e} is {p}; I saw it there a minute ago."),
        ("object.i3", "person", "I put the {e} {p} so I don't lose it."),
    ),
}

CHANGE = {
    "home": (
        ("home.c0", "person", "We moved to {v} last week."),
        ("home.c1", "person", "Big news: we finally left {o} and we're settling into {v}."),
        ("home.c2", "person", "The move went fine, I'm living in {v} now."),
        ("home.c3", "person", "I don't live in {o} anymore; I found a place in {v}."),
        ("home.c4", "person", "The new flat in {v} is great, so much more light than the old one."),
        ("home.c5", "person", "Unpacking the last boxes here in {v} took all weekend."),
        ("home.c6", "robot", "I've updated your home address to {v}, as you asked."),
        ("home.c7", "robot", "Since you moved to {v}, shall I switch the weather reports there?"),
    ),
    "job": (
        ("job.c0", "person", "I started a new job at {v} on Monday."),
        ("job.c1", "person", "I handed in my notice at {o}; {v} made me an offer I couldn't refuse."),
        ("job.c2", "person", "First week at {v} went well, the team is lovely."),
        ("job.c3", "person", "I'm no longer at {o}, I work for {v} now."),
        ("job.c4", "person", "After years at {o} I switched to {v}."),
        ("job.c5", "robot", "Congratulations on the new position at {v}! I changed your commute "
                            "reminders."),
    ),
    "preference": (
        ("preference.c0", "person", "I've gone off {o}; these days I'd rather have {v}."),
        ("preference.c1", "person", "Honestly, {v} is my favourite now."),
        ("preference.c2", "person", "I used to love {o}, but I prefer {v} lately."),
        ("preference.c3", "person", "Please stop suggesting {o}. I'm into {v} these days."),
        ("preference.c4", "person", "I can't get enough of {v} lately."),
        ("preference.c5", "robot", "Noted: you prefer {v} over {o} from now on."),
    ),
    "appointment": (
        ("appointment.c0", "person", "The {e} got moved to {d}."),
        ("appointment.c1", "person", "They rescheduled my {e}: it's {w} instead."),
        ("appointment.c2", "person", "I had to push the {e} back to {d}."),
        ("appointment.c3", "person", "I can't make the {e} on {ow}, so I changed it to {d}."),
        ("appointment.c4", "robot", "The office called while you were out: your {e} is now {w}."),
        ("appointment.c5", "robot", "Done, I've rebooked the {e} for {d}."),
    ),
    "object": (
        ("object.c0", "person", "I moved the {e} to the {v} this morning."),
        ("object.c1", "robot", "I tidied up and put your {e} {p}."),
        ("object.c2", "person", "The {e} is {p} now, I needed the space."),
        ("object.c3", "person", "Took the {e} over to the {v}, it was in the way."),
        ("object.c4", "robot", "Heads up: someone left the {e} {p}."),
    ),
}

# The same speaker corrects what was just said, in the same session.
CORRECTION = {
    "appointment": (
        ("appointment.x0", "person", "Actually, it's {wd}, not {ow}."),
        ("appointment.x1", "person", "Sorry, I got that wrong: the {e} is {w}."),
        ("appointment.x2", "person", "Wait, I misread the letter. {D} for the {e}."),
        ("appointment.x3", "person", "Scratch that, the {e} is {w}."),
        ("appointment.x4", "person", "Correction: {e} on {wd}, not {ow}."),
    ),
    "object": (
        ("object.x0", "person", "Actually no, the {e} is {p}."),
        ("object.x1", "person", "Sorry, I was wrong, I left the {e} {p}."),
        ("object.x2", "person", "Hang on, I remember now: {p}, that's where the {e} is."),
        ("object.x3", "person", "Scratch that, my {e} is {p}."),
    ),
}

# Contradictions left open: the second statement disagrees, nothing settles it.
CONTRA_SECOND = (
    ("contra.s0", "mate", "No, the {e} is {w}, I'm sure of it."),
    ("contra.s1", "mate", "That's not right, the {e} is {w}."),
    ("contra.s2", "mate", "Are you sure? My note says {d} for the {e}."),
    ("contra.s3", "robot", "The reminder email I received says the {e} is {w}."),
    ("contra.s4", "mate", "I thought the {e} was {w}?"),
)
CONTRA_REPORT = (
    ("contra.r0", "person", "{mate} told me the {e} is {w}."),
    ("contra.r1", "person", "According to the letter, the {e} is {w}."),
    ("contra.r2", "person", "The website says the {e} is {w}."),
    ("contra.r3", "person", "My neighbour heard the {e} is {w}."),
)

PERCEPTION = (
    ("perception.0", "{e} {p}"),
    ("perception.1", "Detected {e} {p}."),
    ("perception.2", "{E} visible, resting {p}."),
    ("perception.3", "Saw the {e} {p} while patrolling."),
    ("perception.4", "Object {e} located {p} (confidence high)."),
)

ACK = (
    ("ack.0", "Noted: {s}."),
    ("ack.1", "Okay, I've saved that: {s}."),
    ("ack.2", "Understood, {s}."),
    ("ack.3", "Got it, {s}. I'll keep that in mind."),
)
ACK_SUMMARY = {
    "home": "your home is in {v}",
    "job": "you work at {v}",
    "preference": "you like {v}",
    "appointment": "the {e} is {w}",
    "object": "the {e} is {p}",
}

SMALL_TALK = (
    ("person", "Lovely weather today."), ("person", "I'm so tired, long day."),
    ("robot", "How was your day?"), ("robot", "Would you like me to play some music?"),
    ("person", "Can you turn the lights down a bit?"), ("robot", "The lights are dimmed."),
    ("person", "What's the time?"), ("robot", "It's a quarter past seven."),
    ("person", "Thanks, that's all for now."), ("robot", "Sure, call me if you need anything."),
    ("person", "Did anyone ring the doorbell?"), ("robot", "No visitors today."),
    ("person", "Remind me to water the plants."), ("robot", "I'll remind you this evening."),
    ("mate", "Is there any bread left?"), ("robot", "There is half a loaf in the cupboard."),
    ("person", "Ugh, the traffic was terrible."), ("robot", "Shall I open the blinds?"),
    ("person", "What's on the news?"), ("robot", "The forecast says rain after lunch."),
    ("mate", "Has the post come yet?"), ("robot", "Your battery reminder is set."),
    ("person", "I need a minute before anything else."), ("mate", "Morning, everyone."),
    ("person", "Can you vacuum the living room later?"), ("robot", "I'll start after lunch."),
    ("person", "That film last night was awful."), ("robot", "Sorry to hear that."),
    ("mate", "Who left the lights on?"), ("person", "Let's order in tonight."),
    ("robot", "It is nineteen degrees inside."), ("person", "Never mind, I found it."),
)
# Statements about other people or things that reuse the probes' words.
DISTRACTORS = (
    ("person", "My sister just moved to {city}."), ("mate", "I grew up in {city}, you know."),
    ("person", "We might visit {city} in the summer."),
    ("robot", "There is a festival in {city} next month."),
    ("person", "My friend works at {emp}."), ("mate", "{Emp} is hiring again, apparently."),
    ("person", "I drove past {emp} today, the car park was full."),
    ("mate", "I really love {item}."), ("person", "The cafe downstairs has {item} on offer."),
    ("robot", "I read that {item} is popular this year."),
    ("mate", "My {dev} is on {wday}."), ("person", "The {dev} went really well."),
    ("robot", "The {dev} has been moved to {wday}, according to the local news."),
    ("person", "The library is closed on {wday}."),
    ("mate", "I left the {dobj} {dp}."), ("robot", "The {dobj} is {dp}."),
    ("person", "Could you move the {dobj} {dp}?"),
)
DISTRACT_PERCEPTION = ("{e} {p}", "Detected {e} {p}.", "Saw the {e} {p}.")

OPENINGS = (("robot", "Good morning, {name}!"), ("person", "Hi robot."),
            ("robot", "Welcome back, {name}."), ("person", "Hello again."),
            ("robot", "Good evening, {name}. Anything I can do?"))

# Query-level question phrasings, mostly without cue words like "now".
QUESTIONS = {
    "home": ("Where do I live?", "Which city does {name} live in?", "Where is {name}'s home?",
             "What city am I living in?", "Where's home for me these days?"),
    "job": ("Where do I work?", "Who is {name}'s employer?", "Which company does {name} work for?",
            "Where is my job?"),
    "preference": ("What {cat} do I like?", "What is {name}'s favourite {cat}?",
                   "Which {cat} do I prefer?", "What kind of {cat} does {name} enjoy?"),
    "appointment": ("When is my {e}?", "What day is the {e}?", "When is the {e} scheduled?",
                    "What date is {name}'s {e}?"),
    "object": ("Where is the {e}?", "Where can I find my {e}?", "Where's my {e}?",
               "Where did you see the {e} last?"),
}
AS_OF_QUESTIONS = {
    "home": ("Where did I live on {date}?", "Which city was {name} living in on {date}?"),
    "job": ("Where did I work on {date}?", "Who was {name}'s employer on {date}?"),
    "preference": ("What {cat} did I like on {date}?", "What was {name}'s favourite {cat} on {date}?"),
    "appointment": ("As of {date}, when was my {e} scheduled?",
                    "On {date}, what day was the {e} set for?"),
    "object": ("Where was the {e} on {date}?", "On {date}, where was my {e}?"),
}


# -- the ground truth --------------------------------------------------------

@dataclass(frozen=True)
class Revision:
    """One value of a key, with every source that states it (the change first)."""

    value: str
    aliases: tuple[str, ...]
    source_ids: tuple[str, ...]
    time: float  # source time of the statement that introduced it


@dataclass(frozen=True)
class Question:
    text: str
    expect: str  # current | as_of | missing | conflict
    as_of_valid: float | None = None
    revision: int = -1  # index into Probe.revisions for as_of


@dataclass(frozen=True)
class AsOf:
    time: float
    revision: int


@dataclass(frozen=True)
class Probe:
    """One state to ask about. ``expect``: answer, conflict or missing.

    For ``answer`` probes ``revisions`` are the successive values, oldest first;
    for ``conflict`` they are the open sides; for ``missing`` empty.
    """

    probe_id: str
    subject_id: str
    kind: str  # home | job | preference | appointment | object | correction | contradiction | never
    entity: str
    relation: str
    expect: str
    revisions: tuple[Revision, ...] = ()
    as_of: tuple[AsOf, ...] = ()
    questions: tuple[Question, ...] = ()
    base_kind: str = ""  # the change kind behind a correction/contradiction/never probe

    @property
    def current(self) -> Revision | None:
        return self.revisions[-1] if self.expect == "answer" and self.revisions else None

    @property
    def superseded_ids(self) -> tuple[str, ...]:
        if self.expect != "answer":
            return ()
        return tuple(s for r in self.revisions[:-1] for s in r.source_ids)

    def value_at(self, t: float) -> Revision | None:
        """The revision in force at ``t`` (None before the first statement)."""
        held = None
        for rev in self.revisions:
            if rev.time <= t:
                held = rev
        return held


@dataclass(frozen=True)
class EventInfo:
    """What the generator knows about one event (for the tests and the report)."""

    source_id: str
    subject_id: str
    session_id: str
    time: float
    role: str
    kind: str  # chatter | distractor | statement | ack | correction | contradiction | perception
    template: str = ""
    entity: str = ""
    relation: str = ""


@dataclass(frozen=True)
class Subject:
    subject_id: str
    name: str
    housemate: str


@dataclass
class History:
    seed: int
    subjects: list[Subject]
    events: list[Event]
    info: list[EventInfo]
    probes: list[Probe]

    def templates(self) -> dict[str, set[str]]:
        """Template IDs used per change kind (``home.c3`` → kind ``home``)."""
        out: dict[str, set[str]] = {}
        for i in self.info:
            if i.template and i.kind in ("statement", "correction", "contradiction"):
                out.setdefault(i.template.split(".")[0], set()).add(i.template)
        return out


# -- construction ------------------------------------------------------------

@dataclass
class _Turn:
    role: str  # person | robot | mate | perception
    text: str
    kind: str = "chatter"
    template: str = ""
    label: str = ""
    place: str = ""
    key: tuple[str, str] = ("", "")
    same_stamp: bool = False
    source_id: str = ""
    time: float = 0.0
    session: str = ""


@dataclass
class _Group:
    value: str
    aliases: tuple[str, ...]
    turns: list[_Turn] = field(default_factory=list)


# value, aliases, session index, template fields
_Value = tuple[str, tuple[str, ...], int, dict[str, str]]


def _date_words(day: float) -> tuple[str, str, str]:
    """(weekday, 'D Month', 'Month D') of an epoch day."""
    tm = time.gmtime(day)
    return WEEKDAYS[tm.tm_wday], f"{tm.tm_mday} {MONTHS[tm.tm_mon - 1]}", \
        f"{MONTHS[tm.tm_mon - 1]} {tm.tm_mday}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def long_date(t: float) -> str:
    tm = time.gmtime(t)
    return f"{tm.tm_mday} {MONTHS[tm.tm_mon - 1]} {tm.tm_year}"


def _date_aliases(day: float) -> tuple[str, ...]:
    wd, dm, md = _date_words(day)
    tm = time.gmtime(day)
    return (time.strftime("%Y-%m-%d", tm), dm.lower(), md.lower(), f"{tm.tm_mday:02d}/{tm.tm_mon:02d}",
            wd.lower())


def _date_phrase(rng: random.Random, said_on: float, day: float) -> dict[str, str]:
    """How a person names ``day`` when speaking on ``said_on`` (epoch seconds): ``w`` the
    phrase as an adverbial ("on Thursday the 17th"), ``d`` the bare form ("Thursday the 17th")."""
    delta = round((day - said_on) / DAY)
    wd, dm, md = _date_words(day)
    tm = time.gmtime(day)
    options = [f"{wd} the {_ordinal(tm.tm_mday)}", dm, md, f"{wd}, {dm}"]
    if 1 <= delta <= 6:
        options += [wd, f"this {wd}"]
    if delta == 1:
        options.append("tomorrow")
    bare = rng.choice(options)
    adverbial = bare if bare.startswith(("this ", "tomorrow")) else f"on {bare}"
    return {"w": adverbial, "d": bare, "wd": wd}


class _SubjectBuilder:
    def __init__(self, rng: random.Random, index: int, sessions: int, start: float,
                 decks: dict[str, list[int]]) -> None:
        self.rng = rng
        self.decks = decks
        self.subject = Subject(f"subject-{index:02d}", NAMES[index % len(NAMES)]
                               + ("" if index < len(NAMES) else f" {index // len(NAMES)}"),
                               HOUSEMATES[index % len(HOUSEMATES)])
        self.days: list[float] = []
        day = start + rng.randint(0, 3) * DAY
        for _ in range(sessions):
            self.days.append(day + rng.uniform(8, 18) * 3600.0)
            day += rng.randint(3, 7) * DAY
        self.items: list[list[list[_Turn]]] = [[] for _ in range(sessions)]
        self.probes: list[Probe] = []
        # (probe kind, entity, relation, entity text, revisions, base kind)
        self._chains: list[tuple[str, str, str, str, list[_Group], str]] = []
        objects = list(OBJECTS)
        rng.shuffle(objects)
        appts = list(APPOINTMENTS)
        rng.shuffle(appts)
        self.objects, self.appts = objects, appts
        self.cat = rng.choice(sorted(PREFERENCES))

    # -- helpers ------------------------------------------------------------

    def pick(self, name: str, options: Sequence[_T]) -> _T:
        """Draw from ``options`` like dealing a shuffled deck (shared by all subjects), so
        every phrasing is used before any repeats."""
        deck = self.decks.get(name)
        if not deck:
            deck = list(range(len(options)))
            self.rng.shuffle(deck)
            self.decks[name] = deck
        return options[deck.pop()]

    def fmt(self, text: str, **kw: str) -> str:
        kw.setdefault("name", self.subject.name)
        kw.setdefault("mate", self.subject.housemate)
        kw.setdefault("cat", self.cat)
        for k in ("v", "e", "w", "d"):
            if k in kw:
                kw[k.upper()] = kw[k][:1].upper() + kw[k][1:]
        return text.format(**kw)

    def _speak(self, tpl: tuple[str, str, str], kind: str, key: tuple[str, str], **kw: str) -> _Turn:
        tid, role, text = tpl
        return _Turn(role, self.fmt(text, **kw), kind, tid, key=key)

    def _perceive(self, entity: str, place: str, key: tuple[str, str], kind: str = "statement",
                  same_stamp: bool = False) -> _Turn:
        tid, text = self.pick("perception", PERCEPTION)
        return _Turn("perception", self.fmt(text, e=entity, p=PLACES[place][0]), kind, tid,
                     label=entity, place=place, key=key, same_stamp=same_stamp)

    def _ack(self, kind: str, key: tuple[str, str], **kw: str) -> _Turn:
        tid, text = self.pick("ack", ACK)
        return _Turn("robot", self.fmt(text, s=self.fmt(ACK_SUMMARY[kind], **kw)), "ack", tid, key=key)

    def future_days(self, after: float, n: int) -> list[float]:
        """``n`` noon times 2-20 days after ``after``, on distinct weekdays."""
        days: list[float] = []
        while len(days) < n:
            day = (after // DAY + self.rng.randint(2, 20)) * DAY + 12 * 3600.0
            if all(time.gmtime(day).tm_wday != time.gmtime(d).tm_wday for d in days):
                days.append(day)
        return days

    def _sessions_for(self, n: int) -> list[int]:
        return sorted(self.rng.sample(range(len(self.days)), n))

    # -- chains -------------------------------------------------------------

    def value_chain(self, kind: str, n_groups: int) -> list[_Value]:
        """Values, aliases, session and template fields for ``n_groups`` revisions."""
        rng = self.rng
        sessions = self._sessions_for(n_groups)
        out = []
        if kind == "appointment":
            for s, day in zip(sessions, self.future_days(self.days[sessions[-1]], n_groups),
                              strict=True):
                _, dm, _ = _date_words(day)
                out.append((dm, _date_aliases(day), s, _date_phrase(rng, self.days[s], day)))
            return out
        pool = {"home": CITIES, "job": EMPLOYERS, "preference": PREFERENCES[self.cat],
                "object": tuple(PLACES)}[kind]
        for value, s in zip(rng.sample(pool, n_groups), sessions, strict=True):
            if kind == "object":
                aliases = (value, PLACES[value][0].split(" the ", 1)[1])
                out.append((value, aliases, s, {"p": PLACES[value][0]}))
            else:
                out.append((value, (value,), s, {}))
        return out

    def change_chain(self, kind: str, entity: str, relation: str, entity_text: str) -> None:
        rng = self.rng
        n_groups = rng.choice((2, 2, 3))
        values = self.value_chain(kind, n_groups)
        groups: list[_Group] = []
        key = (entity, relation)
        prev: dict[str, str] = {}
        for i, (value, aliases, s, extra) in enumerate(values):
            kw = {"v": value, "e": entity_text, **extra}
            if prev:
                kw["o"] = prev["v"]
                kw["ow"] = prev.get("wd", "")
            group = _Group(value, aliases)
            item: list[_Turn] = []
            if kind == "object" and (i > 0 and rng.random() < 0.5 or i == 0 and rng.random() < 0.6):
                # Perception alone: the object is simply seen there.
                item.append(self._perceive(entity_text, value, key))
            else:
                tpl = (self.pick(f"{kind}.i", INITIAL[kind]) if i == 0
                       else self.pick(f"{kind}.c", CHANGE[kind]))
                item.append(self._speak(tpl, "statement", key, **kw))
                if item[0].role != "robot" and rng.random() < 0.35:
                    item.append(self._ack(kind, key, **kw))
            group.turns.extend(item)
            self.items[s].append(item)
            # A later re-sighting or restatement of the same value, before the next change.
            nxt = values[i + 1][2] if i + 1 < len(values) else len(self.days)
            if kind == "object" and nxt - s > 1 and rng.random() < 0.6:
                again = self._perceive(entity_text, value, key)
                group.turns.append(again)
                self.items[rng.randrange(s + 1, nxt)].append([again])
            groups.append(group)
            prev = kw
        self._chains.append((kind, entity, relation, entity_text, groups, kind))

    def correction_chain(self, kind: str, entity_text: str) -> None:
        rng = self.rng
        relation = RELATION_OF[kind]
        entity = norm(entity_text)
        key = (entity, relation)
        (v0, a0, s, x0), = self.value_chain(kind, 1)
        if kind == "appointment":
            # The corrected date: another weekday near the first.
            day0 = _parse_alias_day(a0[0])
            while True:
                day1 = day0 + rng.choice((-3, -2, -1, 1, 2, 3)) * DAY
                if day1 > self.days[s] + DAY:
                    break
            _, dm1, _ = _date_words(day1)
            v1, a1, x1 = dm1, _date_aliases(day1), _date_phrase(rng, self.days[s], day1)
        else:
            v1 = rng.choice([p for p in PLACES if p != v0])
            a1, x1 = (v1, PLACES[v1][0].split(" the ", 1)[1]), {"p": PLACES[v1][0]}
        kw0 = {"v": v0, "e": entity_text, **x0}
        kw1 = {"v": v1, "e": entity_text, "o": v0, "ow": x0.get("wd", ""), **x1}
        first = self._speak(self.pick(f"{kind}.ip", _by_person(INITIAL[kind])), "statement",
                            key, **kw0)
        item = [first]
        g0, g1 = _Group(v0, a0, [first]), _Group(v1, a1)
        if kind == "appointment" and rng.random() < 0.3:
            # The robot checks back and the person answers briefly.
            item.append(_Turn("robot", self.fmt("Just to check, the {e} is on {ow}?", e=entity_text,
                                                ow=x0["wd"]), "chatter", "check.0"))
            fix = _Turn("person", self.fmt("No, {wd}. I mixed it up.", wd=x1["wd"]), "correction",
                        "appointment.x5", key=key)
        else:
            if rng.random() < 0.4:
                item.append(self._chatter())
            fix = self._speak(self.pick(f"{kind}.x", CORRECTION[kind]), "correction", key,
                              **kw1)
        item.append(fix)
        g1.turns.append(fix)
        if rng.random() < 0.4:
            ack = self._ack(kind, key, **kw1)
            item.append(ack)
            g1.turns.append(ack)
        self.items[s].append(item)
        self._chains.append(("correction", entity, relation, entity_text, [g0, g1], kind))

    def contradiction(self, entity_text: str, kind: str) -> None:
        """Two statements of the same thing that nothing orders or settles."""
        rng = self.rng
        relation = RELATION_OF[kind]
        entity = norm(entity_text)
        key = (entity, relation)
        s = rng.randrange(len(self.days))
        if kind == "object":
            p0, p1 = rng.sample(sorted(PLACES), 2)
            a = self._perceive(entity_text, p0, key, "contradiction")
            b = self._perceive(entity_text, p1, key, "contradiction", same_stamp=True)
            a.template = b.template = "contra.p"
            groups = [_Group(p0, (p0,), [a]), _Group(p1, (p1,), [b])]
            item = [a, b]
        else:
            sides = []
            for day in self.future_days(self.days[s], 2):
                _, dm, _ = _date_words(day)
                sides.append((dm, _date_aliases(day), _date_phrase(rng, self.days[s], day)))
            (v0, a0, x0), (v1, a1, x1) = sides
            if rng.random() < 0.5:
                first = self._speak(self.pick(f"{kind}.ip", _by_person(INITIAL[kind])),
                                    "contradiction", key, v=v0, e=entity_text, **x0)
                second = self._speak(self.pick("contra.s", CONTRA_SECOND), "contradiction", key,
                                     v=v1, e=entity_text, **x1)
            else:
                t0, t1 = rng.sample(CONTRA_REPORT, 2)
                first = self._speak(t0, "contradiction", key, v=v0, e=entity_text, **x0)
                second = self._speak(t1, "contradiction", key, v=v1, e=entity_text, **x1)
            groups = [_Group(v0, a0, [first]), _Group(v1, a1, [second])]
            item = [first, second]
        self.items[s].append(item)
        self._chains.append(("contradiction", entity, relation, entity_text, groups, kind))

    def _chatter(self) -> _Turn:
        rng = self.rng
        if rng.random() < 0.45:
            role, text = rng.choice(SMALL_TALK)
            return _Turn(role, self.fmt(text), "chatter", "chatter")
        if rng.random() < 0.25:
            obj = rng.choice(DISTRACT_OBJECTS)
            place = rng.choice(sorted(PLACES))
            text = rng.choice(DISTRACT_PERCEPTION)
            return _Turn("perception", self.fmt(text, e=obj, p=PLACES[place][0]), "distractor",
                         "distractor.p", label=obj, place=place)
        role, text = rng.choice(DISTRACTORS)
        emp = rng.choice(EMPLOYERS)
        kw = {"city": rng.choice(CITIES), "emp": emp, "Emp": emp[:1].upper() + emp[1:],
              "item": rng.choice(PREFERENCES[rng.choice(sorted(PREFERENCES))]),
              "dev": rng.choice(DISTRACT_EVENTS), "wday": rng.choice(WEEKDAYS),
              "dobj": rng.choice(DISTRACT_OBJECTS), "dp": PLACES[rng.choice(sorted(PLACES))][0]}
        return _Turn(role, self.fmt(text, **kw), "distractor", "distractor")

    # -- layout and truth -----------------------------------------------------

    def plan(self) -> None:
        rng = self.rng
        stated = rng.sample(PERSONAL_KINDS, 2)
        self.never_personal = next(k for k in PERSONAL_KINDS if k not in stated)
        person = norm(self.subject.name)
        for kind in stated:
            self.change_chain(kind, person, RELATION_OF[kind], person)
        for _ in range(2):
            obj = self.objects.pop()
            self.change_chain("object", norm(obj), "located_at", obj)
            appt = self.appts.pop()
            self.change_chain("appointment", norm(appt), "scheduled_for", appt)
        kind = rng.choice(("appointment", "appointment", "object"))
        self.correction_chain(kind, (self.appts if kind == "appointment" else self.objects).pop())
        kind = rng.choice(("appointment", "object"))
        self.contradiction((self.appts if kind == "appointment" else self.objects).pop(), kind)
        self.never = [(self.never_personal, person, RELATION_OF[self.never_personal], person),
                      ("object", norm(self.objects[0]), "located_at", self.objects[0]),
                      ("appointment", norm(self.appts[0]), "scheduled_for", self.appts[0])]

    def layout(self, counter: list[int]) -> list[_Turn]:
        rng = self.rng
        turns: list[_Turn] = []
        sid = self.subject.subject_id
        for s, start in enumerate(self.days):
            items = self.items[s]
            rng.shuffle(items)
            session: list[_Turn] = []
            for text in rng.sample(OPENINGS, 2):
                session.append(_Turn(text[0], self.fmt(text[1]), "chatter", "opening"))
            for item in items:
                session.extend(self._chatter() for _ in range(rng.randint(1, 3)))
                session.extend(item)
            session.extend(self._chatter() for _ in range(rng.randint(1, 3)))
            t = start
            for turn in session:
                if not turn.same_stamp:
                    t += rng.randint(15, 110)
                counter[0] += 1
                turn.time = float(t)
                turn.source_id = f"{sid}-s{s + 1:02d}-{counter[0]:05d}"
                turn.session = f"session-{s + 1:02d}"
            turns.extend(session)
        return turns

    def truth(self) -> None:
        rng = self.rng
        sid, name = self.subject.subject_id, self.subject.name
        for n, (kind, entity, relation, text, groups, base) in enumerate(self._chains):
            revisions = tuple(Revision(g.value, g.aliases, tuple(t.source_id for t in g.turns),
                                       g.turns[0].time) for g in groups)
            qkw = {"e": text, "name": name, "cat": self.cat}
            phrasings = rng.sample(QUESTIONS[base], 2)
            if kind == "contradiction":
                qs = tuple(Question(q.format(**qkw), "conflict") for q in phrasings)
                self.probes.append(Probe(f"{sid}/p{n:02d}", sid, kind, entity, relation, "conflict",
                                         revisions, (), qs, base))
                continue
            qs_list = [Question(q.format(**qkw), "current") for q in phrasings]
            as_of: list[AsOf] = []
            if kind != "correction":
                for i in range(len(groups) - 1):
                    end_i = max(t.time for t in groups[i].turns)
                    t_mid = (end_i + revisions[i + 1].time) / 2.0
                    t_mid = (t_mid // DAY) * DAY + 23 * 3600.0 + 59 * 60.0  # end of that day
                    if not end_i < t_mid < revisions[i + 1].time:
                        continue
                    as_of.append(AsOf(t_mid, i))
                    qs_list.append(Question(rng.choice(QUESTIONS[base]).format(**qkw), "as_of",
                                            t_mid, i))
                    qs_list.append(Question(rng.choice(AS_OF_QUESTIONS[base]).format(
                        date=long_date(t_mid), **qkw), "as_of", None, i))
            self.probes.append(Probe(f"{sid}/p{n:02d}", sid, kind, entity, relation, "answer",
                                     revisions, tuple(as_of), tuple(qs_list), base))
        for m, (base, entity, relation, text) in enumerate(self.never):
            qkw = {"e": text, "name": name, "cat": self.cat}
            qs = tuple(Question(q.format(**qkw), "missing") for q in rng.sample(QUESTIONS[base], 2))
            self.probes.append(Probe(f"{sid}/n{m:02d}", sid, "never", entity, relation, "missing",
                                     (), (), qs, base))


def _by_person(templates: Sequence[tuple[str, str, str]]) -> tuple[tuple[str, str, str], ...]:
    return tuple(t for t in templates if t[1] == "person")


def _parse_alias_day(iso: str) -> float:
    return float(calendar.timegm(time.strptime(iso + " 12", "%Y-%m-%d %H")))


def generate(seed: int = 7, subjects: int = 8, sessions: int = 8) -> History:
    """A deterministic history of ``subjects`` households over ``sessions`` sessions each."""
    if subjects < 1 or sessions < 3:
        raise ValueError("subjects must be >= 1 and sessions >= 3")
    rng = random.Random(seed)
    events: list[Event] = []
    info: list[EventInfo] = []
    people: list[Subject] = []
    probes: list[Probe] = []
    counter = [0]
    decks: dict[str, list[int]] = {}
    for index in range(subjects):
        b = _SubjectBuilder(rng, index, sessions, START + index * 2 * DAY, decks)
        b.plan()
        turns = b.layout(counter)
        b.truth()
        people.append(b.subject)
        probes.extend(b.probes)
        subj = b.subject
        for turn in turns:
            scope = Scope(subj.subject_id, ROBOT_ID, turn.session)
            if turn.role == "perception":
                x, y = PLACES[turn.place][1] if turn.place else (0.0, 0.0)
                pose = {"frame_id": "map", "x": round(x + rng.uniform(-0.3, 0.3), 3),
                        "y": round(y + rng.uniform(-0.3, 0.3), 3), "z": round(rng.uniform(0.0, 1.0), 3)}
                actor = CAMERAS[1] if turn.same_stamp else CAMERAS[0]
                events.append(Event("perception", scope, text=turn.text, speaker=actor,
                                    label=turn.label, confidence=round(rng.uniform(0.7, 0.99), 2),
                                    pose=pose, stamp=turn.time, source_id=turn.source_id))
            else:
                speaker = {"person": subj.name, "mate": subj.housemate, "robot": ROBOT}[turn.role]
                events.append(Event("dialogue", scope, text=turn.text, speaker=speaker,
                                    stamp=turn.time, source_id=turn.source_id))
            info.append(EventInfo(turn.source_id, subj.subject_id, turn.session,
                                  turn.time, turn.role, turn.kind, turn.template, *turn.key))
    return History(seed, people, events, info, probes)
