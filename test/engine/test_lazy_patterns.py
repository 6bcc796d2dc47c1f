"""Module-level patterns compiled at their first use (``language.lazyre``, issue 16): a
``lazy_re`` pattern finds what ``re.compile`` of the same pattern and flags finds, by every
method; nothing is compiled by importing the query pipeline or by reading ``.pattern``;
every module-level pattern of the package compiles (a mistake shows here, not in a
question); and a process that answers many questions compiles them all at its warm-up."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trace_ros
from trace_ros.language.lazyre import LazyPattern, compile_all, compiled, lazy_re
from trace_ros.language.text import case_folded, folded_search

CASES = [
    (r"\b(?P<day>mon|tues|wednes)day\b", re.I),
    (r"(\d+)\s*(?:am|pm)?", 0),
    (r"^\s*the\s+", re.I | re.M),
    (r"[.;!?]+(?:\s+|$)", 0),
]
TEXTS = ["Monday at 3pm, then TUESDAY at 10.", "the kit. The van; 4 am", "", "no day here\nthe end"]


@pytest.mark.parametrize(("pattern", "flags"), CASES)
def test_a_lazy_pattern_finds_what_the_compiled_one_finds(pattern: str, flags: int) -> None:
    lazy, eager = lazy_re(pattern, flags), re.compile(pattern, flags)
    for text in TEXTS:
        for name in ("search", "match", "fullmatch"):
            a, b = getattr(lazy, name)(text), getattr(eager, name)(text)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups()))
        assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in eager.finditer(text)]
        assert lazy.findall(text) == eager.findall(text)
        assert lazy.sub("<x>", text) == eager.sub("<x>", text)
        assert lazy.subn(lambda m: m.group(0).upper(), text) == eager.subn(
            lambda m: m.group(0).upper(), text)
        assert lazy.split(text) == eager.split(text)
    assert (lazy.flags, lazy.groups, dict(lazy.groupindex)) == (
        eager.flags, eager.groups, dict(eager.groupindex))
    assert lazy.pattern == eager.pattern


def test_nothing_is_compiled_before_the_first_use() -> None:
    rx = lazy_re(r"\bvan\b", re.I)
    assert rx.pattern == r"\bvan\b"  # the source text compiles nothing
    assert isinstance(rx, LazyPattern) and "_rx" not in vars(rx)
    assert rx.search("The VAN")
    # Then the compiled pattern's own methods are on the object: no proxy per call.
    assert "_rx" in vars(rx) and vars(rx)["search"] == compiled(rx).search
    assert compiled(rx) is compiled(rx)


def test_a_broken_pattern_raises_where_it_is_first_used() -> None:
    rx = lazy_re(r"(unclosed")
    with pytest.raises(re.error):
        rx.search("text")


def test_compiled_serves_the_re_functions() -> None:
    rx = lazy_re(r"\s+")
    assert re.sub(compiled(rx), " ", "a \t b") == "a b"
    eager = re.compile(r"\s+")
    assert compiled(eager) is eager


def test_case_folded_stays_lazy_and_agrees() -> None:
    rx = lazy_re(r"\b(?:since|moved)\b", re.I)
    folded = case_folded(rx)
    assert isinstance(folded, LazyPattern) and "_rx" not in vars(rx)
    search = folded_search(rx)
    for text in ("SINCE then", "I moved", "unmoved", "ſince", "\u212a moved"):
        assert search(text) == (re.search(rx.pattern, text, re.I) is not None)


def test_case_folded_refuses_a_lazy_pattern_that_is_not_case_insensitive() -> None:
    with pytest.raises(ValueError):
        case_folded(lazy_re(r"\bsince\b"))
    with pytest.raises(ValueError):
        case_folded(lazy_re(r"\bSince\b", re.I))


def _lazy_in(value: Any, depth: int = 0) -> Iterator[LazyPattern]:
    if isinstance(value, LazyPattern):
        yield value
    elif depth < 3 and isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from _lazy_in(v, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for v in value.values():
            yield from _lazy_in(v, depth + 1)


def _engine_modules() -> Iterator[Any]:
    for info in pkgutil.walk_packages(trace_ros.__path__, "trace_ros."):
        if info.name.startswith(("trace_ros.nodes", "trace_ros.explore")):
            continue  # ROS adapters and the web explorer: no lazy patterns
        try:
            yield importlib.import_module(info.name)
        except ImportError:  # an optional dependency this environment lacks
            continue


def test_every_module_level_lazy_pattern_compiles() -> None:
    seen = 0
    for module in _engine_modules():
        for value in list(vars(module).values()):
            for rx in _lazy_in(value):
                compiled(rx)
                seen += 1
    assert seen > 400


def test_importing_the_query_pipeline_compiles_no_lazy_pattern() -> None:
    code = (
        "import json, sys\n"
        "import trace_ros.query.answer, trace_ros.query.readers\n"
        "from trace_ros.language.lazyre import LazyPattern\n"
        "n = done = 0\n"
        "for name, m in list(sys.modules.items()):\n"
        "    if name.startswith('trace_ros'):\n"
        "        for v in list(vars(m).values()):\n"
        "            if isinstance(v, LazyPattern):\n"
        "                n += 1; done += '_rx' in vars(v)\n"
        "print(json.dumps([n, done]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lazy, done = json.loads(out.stdout.strip().splitlines()[-1])
    assert lazy > 400 and done == 0


def test_compile_all_compiles_what_is_left_and_only_that() -> None:
    first, second = lazy_re(r"\bkit\b"), lazy_re(r"\bvan\b", re.I)
    assert first.search("the kit")
    kept = vars(first)["_rx"]
    assert compile_all() >= 1
    assert "_rx" in vars(second) and vars(first)["_rx"] is kept  # not compiled again
    assert compile_all() == 0
    assert second.search("The VAN") and not second.search("vans")


def test_engine_warm_compiles_the_query_patterns(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "from trace_ros.ledger import Ledger\n"
        "from trace_ros.language import timeanchor\n"
        "from trace_ros.language.lazyre import LazyPattern\n"
        "from trace_ros.query.answer import QueryEngine\n"
        "timeanchor.warm = lambda: None  # dateparser's part is tested on its own\n"
        "with Ledger(sys.argv[1]) as ledger:\n"
        "    engine = QueryEngine(ledger, None, audit=False)\n"
        "    engine.warm().join(timeout=60)\n"
        "    engine.close()\n"
        "left = [v.pattern for name, m in list(sys.modules.items()) if name.startswith('trace_ros')\n"
        "        for v in list(vars(m).values()) if isinstance(v, LazyPattern) and '_rx' not in vars(v)]\n"
        "print(json.dumps(left))\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "memory.db")],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
