"""Regular expressions compiled when first used instead of when their module is imported.

The query pipeline's modules hold ~430 module-level patterns; compiling them all at import
took ~0.1 s of a ``trace-ros query`` process that answers in ~0.4 s, and a question uses a
part of them. ``lazy_re(pattern, flags)`` stands where ``re.compile(pattern, flags)`` stood:
the first use of a pattern's method or attribute compiles it (``re.compile``, so the same
pattern with the same flags), and the compiled pattern's attributes are then kept on the
object itself, so a later ``rx.search(text)`` costs what the compiled pattern's own does.

``pattern`` (the source text) is there without compiling, so patterns built from others'
``.pattern`` stay lazy. Not a ``re.Pattern``: ``re.search(rx, text)`` and the like need the
compiled one (``rx.compiled()``); call its methods instead. A mistake in a pattern raises
where it is first used; the tests compile every module-level pattern of the package.

A process that answers many questions (a query node, ``bench locomo``) compiles them all
ahead, while it warms up (``compile_all``), so that its first questions do not pay for them.
"""

from __future__ import annotations

import re
import weakref
from typing import Any, cast

# What the first use copies from the compiled pattern onto the object (everything a
# ``re.Pattern`` answers), so that later uses never reach ``__getattr__``.
_KEPT = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split",
         "scanner", "flags", "groups", "groupindex")
# Every lazy pattern made (module-level ones live as long as their module), for ``compile_all``.
_MADE: weakref.WeakSet[LazyPattern] = weakref.WeakSet()


class LazyPattern:
    """A pattern and its flags, compiled by the first use of anything but ``pattern``."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.declared_flags = flags  # as given; ``flags`` is the compiled pattern's
        _MADE.add(self)

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        rx = self.__dict__.get("_rx")
        if rx is None:
            rx = re.compile(self.pattern, self.declared_flags)
            for name in _KEPT:
                setattr(self, name, getattr(rx, name))
            self._rx = rx
        return rx

    def __getattr__(self, name: str) -> Any:
        # Reached only for an attribute not on the object yet: before the first use.
        if name.startswith("__") or name == "_rx":
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"lazy_re({self.pattern!r}, {self.declared_flags!r})"


def lazy_re(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)`` done at the first use (see the module's docstring).
    Typed as the pattern it stands for: every method and attribute of one answers."""
    return cast("re.Pattern[str]", LazyPattern(pattern, flags))


def compiled(rx: re.Pattern[str]) -> re.Pattern[str]:
    """``rx`` compiled, whether it is a ``lazy_re`` pattern or already a compiled one (for
    the ``re`` functions that take a compiled pattern only)."""
    return rx.compiled() if isinstance(rx, LazyPattern) else rx


def compile_all() -> int:
    """Compile every lazy pattern made so far that is not compiled yet (those of every
    module imported); returns how many. Safe beside questions asked on other threads: a
    pattern compiled twice at once gives the same pattern."""
    todo = [rx for rx in list(_MADE) if "_rx" not in vars(rx)]
    for rx in todo:
        rx.compiled()
    return len(todo)
