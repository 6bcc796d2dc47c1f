"""The raw bytes of every string field of a serialized (CDR) message.

rclpy hands strings to Python through C: a NUL byte inside a string silently
cuts it short (``"alice\\0evil"`` arrives as ``"alice"``, so an event could be
stored under another scope), and invalid UTF-8 is replaced by U+FFFD. Neither
can be seen on the decoded message, so the node reads the strings from the
bytes as they arrived. Only what ``rosidl`` generates for our incoming messages
is needed: primitives, strings, nested messages, sequences and fixed arrays, in
plain (XCDR1) CDR.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from typing import Any

_SIZES = {"boolean": 1, "octet": 1, "char": 1, "uint8": 1, "int8": 1, "byte": 1,
          "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "float": 4,
          "int64": 8, "uint64": 8, "double": 8}
_SEQUENCE = re.compile(r"^sequence<(.+?)(?:, ?\d+)?>$")
_ARRAY = re.compile(r"^(.+)\[(\d+)\]$")
_BOUNDED = re.compile(r"^(string|wstring)<=\d+$")
HEADER = 4  # encapsulation: representation id + options


class Unsupported(ValueError):
    """The message uses a type this reader does not walk (the caller falls back)."""


class _Reader:
    def __init__(self, raw: bytes) -> None:
        if len(raw) < HEADER or raw[0] != 0 or raw[1] not in (0, 1):
            raise Unsupported("not plain CDR")
        self.raw = raw
        self.little = raw[1] == 1
        self.pos = HEADER

    def align(self, size: int) -> None:
        rel = self.pos - HEADER
        self.pos += (-rel) % size

    def skip(self, size: int, count: int = 1) -> None:
        if count:
            self.align(size)
            self.pos += size * count
        if self.pos > len(self.raw):
            raise Unsupported("message shorter than its fields")

    def uint32(self) -> int:
        self.align(4)
        if self.pos + 4 > len(self.raw):
            raise Unsupported("message shorter than its fields")
        (value,) = struct.unpack_from("<I" if self.little else ">I", self.raw, self.pos)
        self.pos += 4
        return int(value)

    def string(self) -> bytes:
        length = self.uint32()  # includes the terminating NUL
        end = self.pos + length
        if length == 0 or end > len(self.raw):
            raise Unsupported("bad string length")
        data = self.raw[self.pos:end - 1]
        self.pos = end
        return data


def strings(raw: bytes, msg_type: type) -> list[tuple[str, bytes]]:
    """(dotted field name, raw bytes) of every string in ``raw``, a serialized
    ``msg_type``; sequence elements are named ``field[i]``. Raises ``Unsupported``."""
    reader = _Reader(raw)
    return list(_walk(reader, msg_type(), ""))


def _walk(reader: _Reader, template: Any, prefix: str) -> Iterator[tuple[str, bytes]]:
    for name, kind in template.get_fields_and_field_types().items():
        yield from _value(reader, kind, getattr(template, name), prefix + name)


def _value(reader: _Reader, kind: str, template: Any, path: str) -> Iterator[tuple[str, bytes]]:
    if kind in _SIZES:
        reader.skip(_SIZES[kind])
    elif kind == "string" or _BOUNDED.match(kind):
        if kind.startswith("wstring"):
            raise Unsupported("wstring")
        yield path, reader.string()
    elif (m := _SEQUENCE.match(kind)) is not None:
        count = reader.uint32()
        yield from _repeat(reader, m.group(1), count, path)
    elif (m := _ARRAY.match(kind)) is not None:
        yield from _repeat(reader, m.group(1), int(m.group(2)), path)
    elif hasattr(template, "get_fields_and_field_types"):
        yield from _walk(reader, template, path + ".")
    else:
        raise Unsupported(f"type {kind}")


def _repeat(reader: _Reader, kind: str, count: int, path: str) -> Iterator[tuple[str, bytes]]:
    if kind in _SIZES:
        reader.skip(_SIZES[kind], count)
        return
    if kind != "string" and not _BOUNDED.match(kind):
        raise Unsupported(f"sequence of {kind}")
    for i in range(count):
        yield f"{path}[{i}]", reader.string()
