"""Frozen dataclasses made about as fast as plain ones.

A frozen dataclass's generated ``__init__`` sets each field through
``object.__setattr__`` (its own ``__setattr__`` refuses): a call per field. The memory
node makes four such records an event (``Event``, its ``Scope``, the ``NewSource`` and
the ``StoreResult``: issue 16, in process at load ~7, 3.6 + 1.1 + 3.5 + 2.3 us an event,
0.8 + 0.6 + 0.9 + 0.9 this way; the memory node's executor thread spends ~45-55 us an
event in all). ``fast_init`` gives a class an ``__init__`` that writes the instance's
``__dict__`` directly: the same parameters, defaults and instances (equality, hash, repr,
``replace`` and the refusal to assign afterwards are the dataclass's own).
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def fast_init(cls: type[T]) -> type[T]:
    """``cls``, a frozen dataclass, with its ``__init__`` replaced by one that fills
    ``self.__dict__``. Raises ``TypeError`` for what that ``__init__`` would not do as
    the dataclass's does: slots, ``__post_init__``, default factories, keyword-only or
    ``init=False`` fields."""
    if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__}: not a frozen dataclass")
    if "__slots__" in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: slots or __post_init__")
    env: dict[str, Any] = {}
    params, lines = [], []
    for i, field in enumerate(dataclasses.fields(cls)):
        if field.default_factory is not dataclasses.MISSING or field.kw_only or not field.init:
            raise TypeError(f"{cls.__name__}.{field.name}: a default factory, keyword-only "
                            "or init=False")
        if field.default is dataclasses.MISSING:
            params.append(field.name)
        else:
            env[f"_default{i}"] = field.default
            params.append(f"{field.name}=_default{i}")
        lines.append(f"    d[{field.name!r}] = {field.name}")
    source = "\n".join([f"def __init__(self, {', '.join(params)}):", "    d = self.__dict__",
                        *lines])
    exec(compile(source, f"<fast_init of {cls.__name__}>", "exec"), env)  # noqa: S102
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    return cls
