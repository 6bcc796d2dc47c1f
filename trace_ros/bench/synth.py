"""A seeded synthetic robot memory for the scale benchmark.

Several subjects talk to a robot in sessions spread over months. Users state
attributes that change over time (an *update chain*: "I moved to Porto",
later "I moved to Oslo"), chat, and ask for reminders; the robot answers; the
robot's camera reports objects it saw, with a label, a confidence and a pose
in the ``map`` frame. Everything is drawn from one ``random.Random(seed)``, so
the same (size, seed) gives the same events, and the question set depends on
the seed only, so every size is asked the same questions.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from ..capture import Event
from ..ledger import Scope

START = 1_704_067_200.0  # 2024-01-01T00:00:00Z
DAY = 86_400.0
SESSION_EVENTS = (20, 60)

ATTRIBUTES: dict[str, tuple[str, tuple[str, ...]]] = {
    "colour": ("My favourite colour is now {}.",
               ("red", "blue", "green", "yellow", "purple", "orange", "teal", "grey")),
    "city": ("I moved to {} last week.",
             ("Porto", "Oslo", "Lyon", "Graz", "Leeds", "Turin", "Ghent", "Malmo")),
    "job": ("I started a new job as a {}.",
            ("nurse", "teacher", "welder", "chef", "pilot", "librarian", "plumber", "baker")),
    "drink": ("These days I drink {} in the morning.",
              ("black coffee", "green tea", "orange juice", "hot chocolate", "mint tea")),
    "sport": ("I have taken up {} on weekends.",
              ("climbing", "rowing", "tennis", "cycling", "judo", "swimming", "archery")),
}
FRIENDS = ("Ana", "Ben", "Chloe", "Dev", "Eli", "Farah", "Gus", "Hana", "Ivo", "Jun")
ACTIVITIES = ("hiking", "shopping", "to the cinema", "fishing", "to a concert", "bowling")
TASKS = ("water the plants", "call the dentist", "take my pills", "pay the rent",
         "charge the scooter", "feed the cat")
OBJECTS = ("red mug", "house keys", "blue backpack", "reading glasses", "phone charger",
           "umbrella", "wallet", "tv remote", "water bottle", "toolbox")
ROOMS: dict[str, tuple[float, float]] = {
    "kitchen": (2.0, 1.0), "living room": (6.0, 3.0), "hallway": (4.0, 0.5),
    "bedroom": (8.0, 6.0), "office": (1.0, 6.0), "garage": (10.0, 0.0)}
REPLIES = ("Noted.", "Okay, I will remember that.", "I will remind you to {task}.",
           "Sounds fun, enjoy it.", "I saved that to my memory.")


@dataclass(frozen=True)
class SynthQuestion:
    subject_id: str
    question: str


def subject_ids(n: int) -> list[str]:
    return [f"person-{i:02d}" for i in range(n)]


def _user_line(rng: random.Random, current: dict[str, str]) -> str:
    roll = rng.random()
    if roll < 0.15:
        attr = rng.choice(sorted(ATTRIBUTES))
        template, values = ATTRIBUTES[attr]
        value = rng.choice([v for v in values if v != current.get(attr)])
        current[attr] = value
        return template.format(value)
    if roll < 0.45:
        return f"I went {rng.choice(ACTIVITIES)} with {rng.choice(FRIENDS)} yesterday."
    if roll < 0.7:
        return f"Can you remind me to {rng.choice(TASKS)} tomorrow?"
    obj, room = rng.choice(OBJECTS), rng.choice(sorted(ROOMS))
    return f"I think I left my {obj} in the {room}."


def _perception(rng: random.Random, scope: Scope, stamp: float) -> Event:
    obj, room = rng.choice(OBJECTS), rng.choice(sorted(ROOMS))
    cx, cy = ROOMS[room]
    pose = {"frame_id": "map", "x": round(cx + rng.uniform(-1, 1), 3),
            "y": round(cy + rng.uniform(-1, 1), 3), "z": round(rng.uniform(0, 1.2), 3),
            "qx": 0.0, "qy": 0.0, "qz": 0.0, "qw": 1.0}
    return Event("perception", scope, text=f"{obj} seen in the {room}", speaker="front_camera",
                 label=obj, confidence=round(rng.uniform(0.5, 1.0), 3), pose=pose, stamp=stamp)


def generate(n_sources: int, seed: int = 7, subjects: int = 8, months: float = 12.0
             ) -> Iterator[Event]:
    """Exactly ``n_sources`` events; sessions start in time order, spread over ``months``."""
    rng = random.Random(seed)
    people = subject_ids(subjects)
    state: dict[str, dict[str, str]] = {p: {} for p in people}
    sessions_n: dict[str, int] = dict.fromkeys(people, 0)
    mean_session = sum(SESSION_EVENTS) / 2
    gap = months * 30 * DAY / max(1.0, n_sources / mean_session)
    t, made = START, 0
    while made < n_sources:
        person = rng.choice(people)
        sessions_n[person] += 1
        scope = Scope(person, "robot-1", f"session_{sessions_n[person]}")
        stamp = t
        for _ in range(min(rng.randint(*SESSION_EVENTS), n_sources - made)):
            stamp += rng.uniform(5, 60)
            if rng.random() < 0.3:
                yield _perception(rng, scope, stamp)
            elif rng.random() < 0.6:
                yield Event("dialogue", scope, text=_user_line(rng, state[person]), speaker=person,
                            stamp=stamp)
            else:
                reply = rng.choice(REPLIES).format(task=rng.choice(TASKS))
                yield Event("dialogue", scope, text=reply, speaker="robot", stamp=stamp)
            made += 1
        t += rng.uniform(0.5, 1.5) * gap


def questions(n: int = 100, seed: int = 7, subjects: int = 8) -> list[SynthQuestion]:
    """A fixed question set (depends on the seed only, not on the memory's size)."""
    rng = random.Random(seed + 1)
    people = subject_ids(subjects)
    forms = (
        lambda: "What is my favourite colour now?",
        lambda: "Which city do I live in now?",
        lambda: "What is my job these days?",
        lambda: "What do I drink in the morning?",
        lambda: f"Where did you last see my {rng.choice(OBJECTS)}?",
        lambda: f"When did I go {rng.choice(ACTIVITIES)} with {rng.choice(FRIENDS)}?",
        lambda: f"Did I ask you to remind me to {rng.choice(TASKS)}?",
    )
    return [SynthQuestion(rng.choice(people), rng.choice(forms)()) for _ in range(n)]
