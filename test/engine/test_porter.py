"""trace_ros.language.porter gives nltk's MARTIN_EXTENSIONS Porter stems, word for word.

The stems were nltk's until nltk's import (seconds) was taken off the query path; a stem
that changed would change which words the readers count as matching the question."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from trace_ros.language.porter import measure, porter_stem
from trace_ros.language.text import stem

ROOT = Path(__file__).resolve().parents[2]

# Suffixes every rule of every step looks for, and some that end in two of them.
SUFFIXES = """s es ies sses ss ed eed ied ing ings y ly ily ally ational tional enci anci
izer bli abli alli entli eli ousli ization ation ator alism iveness fulness ousness aliti
iviti biliti logi icate ative alize iciti ical ful ness al ance ence er ic able ible ant
ement ment ent ion sion tion ou ism ate iti ous ive ize e ll le at bl iz ying yed""".split()


def vocabulary() -> set[str]:
    """Words of this repository's prose and code, each of a sample of them with every
    suffix above, and seeded random strings over the letters the rules look at."""
    words: set[str] = set()
    for path in [ROOT / "README.md", *sorted((ROOT / "trace_ros").rglob("*.py"))]:
        words.update(w.lower() for w in re.findall(r"[^\W_]+|[\w'’-]+", path.read_text()))
    bases = sorted(w for w in words if w.isalpha())[::7]
    words.update(b + s for b in bases for s in SUFFIXES)
    rnd = random.Random(16)
    words.update("".join(rnd.choice("aeiouybcdlmnprstgzwx") for _ in range(rnd.randint(1, 12)))
                 for _ in range(20000))
    words.update(["y", "yy", "yyyyyy", "by", "toy", "syzygy", "café", "naïve", "don't", "x-ray",
                  "3d", "2024s", "ing", "eed", "feed", "agreed", "bled", "sing", "filing"])
    return words


def test_stems_are_nltks_martin_extensions_stems() -> None:
    nltk_stem = pytest.importorskip("nltk.stem")  # nltk stays a dependency (bench metrics)
    reference = nltk_stem.PorterStemmer(nltk_stem.PorterStemmer.MARTIN_EXTENSIONS)
    words = vocabulary()
    assert len(words) > 40000
    differ = [(w, reference.stem(w, to_lowercase=False), porter_stem(w)) for w in words
              if reference.stem(w, to_lowercase=False) != porter_stem(w)]
    assert differ == []


@pytest.mark.parametrize(("word", "expected"), [
    # The examples of Porter (1980), step by step.
    ("caresses", "caress"), ("ponies", "poni"), ("cats", "cat"), ("feed", "feed"),
    ("agreed", "agre"), ("plastered", "plaster"), ("bled", "bled"), ("motoring", "motor"),
    ("sing", "sing"), ("conflated", "conflat"), ("hopping", "hop"), ("falling", "fall"),
    ("filing", "file"), ("happy", "happi"), ("sky", "sky"), ("relational", "relat"),
    ("conditional", "condit"), ("generalization", "gener"), ("hopefulness", "hope"),
    ("triplicate", "triplic"), ("goodness", "good"), ("adjustable", "adjust"),
    ("adoption", "adopt"), ("controlling", "control"), ("roll", "roll"), ("probate", "probat"),
    # The reference code's departures: short words stay, bli -> ble, logi -> log.
    ("as", "as"), ("is", "is"), ("sensibly", "sensibl"), ("archaeology", "archaeolog"),
    ("studied", "studi"), ("study", "studi"),
])
def test_known_stems(word: str, expected: str) -> None:
    assert porter_stem(word) == expected


def test_measure_follows_the_paper() -> None:
    assert [measure(w) for w in ("tr", "ee", "tree", "y", "by")] == [0] * 5
    assert [measure(w) for w in ("trouble", "oats", "trees", "ivy")] == [1] * 4
    assert [measure(w) for w in ("troubles", "private", "oaten", "orrery")] == [2] * 4


def test_text_stem_lowercases_first() -> None:
    assert stem("Studied") == stem("studies") == "studi"

