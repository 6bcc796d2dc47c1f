"""The raw bytes of every string field of a serialized (CDR) message, and a fast reader
(and writer) of the messages the memory node handles.

rclpy hands strings to Python through C: a NUL byte inside a string silently
cuts it short (``"alice\\0evil"`` arrives as ``"alice"``, so an event could be
stored under another scope), and invalid UTF-8 is replaced by U+FFFD. Neither
can be seen on the decoded message, so the node reads the strings from the
bytes as they arrived. Only what ``rosidl`` generates for our incoming messages
is needed: primitives, strings, nested messages, sequences and fixed arrays, in
plain (XCDR1) CDR.
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import SimpleNamespace
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


# -- the fast path: a message's fields read (and an Ack written) by a per-type layout ---------

_FORMATS = {"boolean": "?", "int8": "b", "uint8": "B", "int16": "h", "uint16": "H",
            "int32": "i", "uint32": "I", "float": "f", "int64": "q", "uint64": "Q",
            "double": "d"}
_PRIM, _STRING, _NESTED, _NESTED_SEQ = 0, 1, 2, 3
_NESTED_SEQUENCE = re.compile(r"^sequence<([A-Za-z0-9_]+/[A-Za-z0-9_]+)>$")
Layout = tuple[tuple[str, int, Any], ...]
_U32 = (struct.Struct("<I"), struct.Struct(">I"))


@functools.cache
def layout(msg_type: type) -> Layout:
    """(name, kind, detail) of every field of ``msg_type``, computed once per type:
    primitives (detail: the little- and big-endian ``struct.Struct`` and the size),
    unbounded strings, nested messages and unbounded sequences of them (detail: their
    type). Raises ``Unsupported`` for anything else (other sequences, arrays, bounded or
    wide strings, char/octet)."""
    template = msg_type()
    fields: list[tuple[str, int, Any]] = []
    for name, kind in msg_type.get_fields_and_field_types().items():
        if kind in _FORMATS:
            fmt = _FORMATS[kind]
            fields.append((name, _PRIM, (struct.Struct("<" + fmt), struct.Struct(">" + fmt),
                                         _SIZES[kind])))
        elif kind == "string":
            fields.append((name, _STRING, None))
        elif "/" in kind and hasattr(getattr(template, name), "get_fields_and_field_types"):
            nested = type(getattr(template, name))
            layout(nested)  # its own fields must be readable too
            fields.append((name, _NESTED, nested))
        elif _NESTED_SEQUENCE.match(kind):
            nested = _element_type(msg_type, name)
            layout(nested)
            fields.append((name, _NESTED_SEQ, nested))
        else:
            raise Unsupported(f"type {kind}")
    return tuple(fields)


def _element_type(msg_type: type, name: str) -> type:
    """The message type of the elements of ``msg_type``'s sequence field ``name`` (from
    the type's rosidl slot types; no element is needed to find it)."""
    slot = msg_type.SLOT_TYPES[msg_type.__slots__.index("_" + name)]
    value_type = getattr(slot, "value_type", None)
    namespaces, type_name = getattr(value_type, "namespaces", None), getattr(
        value_type, "name", None)
    if not namespaces or not type_name:
        raise Unsupported(f"sequence field {name}")
    module = __import__(".".join(namespaces), fromlist=[type_name])
    return getattr(module, type_name)


@dataclass
class Decoded:
    """A message read from its bytes: ``fields`` has the message's attributes (nested
    messages as nested namespaces); ``problem`` is (dotted field, reason) of the first
    string that held a NUL byte or invalid UTF-8, or None. Such a string is kept with
    the bad bytes replaced (U+FFFD), so the other fields stay usable; ``problems`` has
    every such (dotted field, reason), elements of a sequence named ``field[i].``."""

    fields: SimpleNamespace
    problems: tuple[tuple[str, str], ...] = ()

    @property
    def problem(self) -> tuple[str, str] | None:
        return self.problems[0] if self.problems else None


@functools.cache
def _plan(msg_type: type) -> tuple[tuple[Any, ...], ...]:
    """``layout`` as reading steps: runs of primitives of one size become one
    ``struct`` read (CDR puts no padding between them)."""
    steps: list[tuple[Any, ...]] = []
    run: list[tuple[str, str, int]] = []

    def close_run() -> None:
        if run:
            fmt = "".join(_FORMATS[kind] for _, kind, _ in run)
            steps.append((_PRIM, tuple(name for name, _, _ in run),
                          (struct.Struct("<" + fmt), struct.Struct(">" + fmt)), run[0][2],
                          run[0][2] * len(run)))
            run.clear()

    kinds = msg_type.get_fields_and_field_types()
    for name, kind, detail in layout(msg_type):
        if kind == _PRIM:
            if run and run[0][2] != detail[2]:
                close_run()
            run.append((name, kinds[name], detail[2]))
            continue
        close_run()
        steps.append((kind, name, detail))
    close_run()
    return tuple(steps)


def decode(raw: bytes, msg_type: type) -> Decoded:
    """Read ``raw``, a serialized ``msg_type``, strings checked as they arrived.

    Raises ``Unsupported`` for a type ``layout`` cannot read, and ``Malformed`` for
    bytes that are not a whole message of this type (too short, a bad string length).
    A boolean byte other than 0 reads as True, as rclpy reads it.
    """
    problems: list[tuple[str, str]] = []
    if raw[:2] == b"\x00\x01" and len(raw) >= HEADER:  # plain little-endian CDR, as
        # every publisher here sends: the type's generated reader, no _Reader first
        fields, _ = _compiled(msg_type)(raw, HEADER, problems, "")
        return Decoded(fields, tuple(problems))
    reader = _Reader(raw)
    if reader.little:
        fields, _ = _compiled(msg_type)(raw, reader.pos, problems, "")
    else:
        fields, _ = _read(raw, reader.pos, 1, _plan(msg_type), "", problems)
    return Decoded(fields, tuple(problems))


class Malformed(ValueError):
    """The bytes are not a whole message of the expected type."""


def _read(raw: bytes, pos: int, order: int, steps: tuple[tuple[Any, ...], ...], prefix: str,
          problems: list[tuple[str, str]]) -> tuple[SimpleNamespace, int]:
    """The fields of ``steps`` read from ``pos`` (``order``: 0 little-, 1 big-endian),
    and the position after them."""
    size_all = len(raw)
    values: dict[str, Any] = {}
    for step in steps:
        kind = step[0]
        if kind == _PRIM:
            _, names, structs, size, total = step
            pos += (HEADER - pos) % size
            if pos + total > size_all:
                raise Malformed("message shorter than its fields")
            values.update(zip(names, structs[order].unpack_from(raw, pos), strict=True))
            pos += total
        elif kind == _STRING:
            pos += (HEADER - pos) % 4
            if pos + 4 > size_all:
                raise Malformed("message shorter than its fields")
            length = _U32[order].unpack_from(raw, pos)[0]
            start = pos + 4
            pos = start + length
            if pos > size_all:
                raise Malformed(f"{prefix}{step[1]}: string longer than the message")
            data = raw[start:pos - 1] if length and raw[pos - 1] == 0 else raw[start:pos]
            if b"\x00" in data:
                problems.append((prefix + step[1], "contains a NUL byte"))
            try:
                values[step[1]] = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                problems.append((prefix + step[1],
                                 f"not valid UTF-8 (byte {exc.start}: {exc.reason})"))
                values[step[1]] = data.decode("utf-8", "replace")
        elif kind == _NESTED:
            values[step[1]], pos = _read(raw, pos, order, _plan(step[2]),
                                         f"{prefix}{step[1]}.", problems)
        else:  # a sequence of messages: its length, then the elements
            pos += (HEADER - pos) % 4
            if pos + 4 > size_all:
                raise Malformed("message shorter than its fields")
            count = _U32[order].unpack_from(raw, pos)[0]
            pos += 4
            if count > size_all - pos:  # every element takes at least a byte
                raise Malformed(f"{prefix}{step[1]}: more elements than the message holds")
            plan, items = _plan(step[2]), []
            for i in range(count):
                item, pos = _read(raw, pos, order, plan, f"{prefix}{step[1]}[{i}].", problems)
                items.append(item)
            values[step[1]] = items
    return SimpleNamespace(**values), pos


_NUL = repr(b"\x00")  # in the generated source
_Reading = Callable[[bytes, int, list[tuple[str, str]], str], tuple[SimpleNamespace, int]]


@functools.cache
def _compiled(msg_type: type) -> _Reading:
    """``_read`` of little-endian bytes for ``msg_type`` as one function, generated once
    per type: straight-line reads in ``_plan``'s steps, nested messages inline, with the
    same results, problems and ``Malformed`` messages. Walking the steps cost the memory
    node ~40 us of CPU per event (issue 16: this reads one in a fraction of it).
    The function takes (raw, pos, problems, prefix) and returns (fields, next pos)."""
    env: dict[str, Any] = {"NS": SimpleNamespace, "Malformed": Malformed,
                           "U32": _U32[0].unpack_from, "UnicodeDecodeError": UnicodeDecodeError}
    lines: list[str] = []
    names = itertools.count()
    short = "raise Malformed('message shorter than its fields')"

    def fields(of: type, path: str) -> str:
        """Emit the reads of ``of``'s fields; return the expression of its namespace."""
        parts = []
        for step in _plan(of):
            kind = step[0]
            if kind == _PRIM:
                _, fields_, structs, size, total = step
                unpack = f"S{next(names)}"
                env[unpack] = structs[0].unpack_from
                values = [f"v{next(names)}" for _ in fields_]
                if size > 1:
                    lines.append(f"pos += ({HEADER} - pos) % {size}")
                lines.extend([f"if pos + {total} > n: {short}",
                          f"{', '.join(values)}, = {unpack}(raw, pos)", f"pos += {total}"])
                parts += [f"{name}={value}" for name, value in zip(fields_, values, strict=True)]
                continue
            name, value, where = step[1], f"v{next(names)}", repr(path + step[1])
            if kind == _NESTED:
                lines.append(f"{value} = {fields(step[2], path + name + '.')}")
            elif kind == _STRING:
                lines.extend([
                    f"pos += ({HEADER} - pos) % 4", f"if pos + 4 > n: {short}",
                    "length = U32(raw, pos)[0]", "start = pos + 4", "pos = start + length",
                    f"if pos > n: raise Malformed(prefix + {where} + "
                    "': string longer than the message')",
                    "data = raw[start:pos - 1] if length and raw[pos - 1] == 0 "
                    "else raw[start:pos]",
                    f"if {_NUL} in data: problems.append((prefix + {where}, "
                    "'contains a NUL byte'))",
                    "try:", f"    {value} = data.decode('utf-8')",
                    "except UnicodeDecodeError as exc:",
                    f"    problems.append((prefix + {where}, "
                    "f'not valid UTF-8 (byte {exc.start}: {exc.reason})'))",
                    f"    {value} = data.decode('utf-8', 'replace')"])
            else:  # a sequence of messages: its length, then the elements
                element = f"F{next(names)}"
                env[element] = _compiled(step[2])
                lines.extend([
                    f"pos += ({HEADER} - pos) % 4", f"if pos + 4 > n: {short}",
                    "count = U32(raw, pos)[0]", "pos += 4",
                    f"if count > n - pos: raise Malformed(prefix + {where} + "
                    "': more elements than the message holds')",
                    f"{value} = []", "for i in range(count):",
                    f"    item, pos = {element}(raw, pos, problems, "
                    f"f'{{prefix}}{path}{name}[{{i}}].')",
                    f"    {value}.append(item)"])
            parts.append(f"{name}={value}")
        return f"NS({', '.join(parts)})"

    result = fields(msg_type, "")
    source = "\n    ".join(["def read(raw, pos, problems, prefix):", "n = len(raw)", *lines,
                             f"return {result}, pos"])
    exec(compile(source, f"<cdr reader of {msg_type.__name__}>", "exec"), env)  # noqa: S102
    return env["read"]


def encode(msg_type: type, message: Any) -> bytes:
    """``message`` (anything with ``msg_type``'s attributes) serialized as plain
    little-endian CDR, as ``rclpy.serialization.serialize_message`` would, for
    ``Publisher.publish(bytes)``. Strings must not contain NUL. Raises ``Unsupported``."""
    out = bytearray(b"\x00\x01\x00\x00")
    _compiled_writer(msg_type)(out, message)
    return bytes(out)


_Writing = Callable[[bytearray, Any], None]


@functools.cache
def _compiled_writer(msg_type: type) -> _Writing:
    """``_write`` of ``_write_plan(msg_type)`` as one function, generated once per type
    (``_generated``): straight-line appends with the fields read as attributes, the same
    bytes. The memory node writes an Ack per event (issue 16: walking the plan cost ~8 us
    of an Ack's ~10). The function takes (out, message) and appends the message to ``out``."""
    env: dict[str, Any] = {}
    lines = _write_lines(msg_type, env, lambda path: "m." + path)
    return _generated(f"writer of {msg_type.__name__}", "write", "out, m", lines, "None",
                      env)


@functools.cache
def flat_encoder(msg_type: type) -> Callable[..., bytes]:
    """``encode`` of ``msg_type`` as one generated function of its leaf fields, in the
    order of ``flat_fields`` (nested messages flattened; no sequences): the same bytes,
    without building a message or a namespace first. The memory node writes an Ack per
    event (issue 16: its two namespaces, the attribute chains and the copy cost about a
    third of the Ack's ~9 us). The statements are ``_compiled_writer``'s, each leaf an
    argument instead of an attribute. Raises ``Unsupported`` for a sequence field."""
    args: list[str] = []

    def argument(_path: str) -> str:
        args.append(f"a{len(args)}")
        return args[-1]

    env: dict[str, Any] = {"HEAD": b"\x00\x01\x00\x00"}
    lines = ["out = bytearray(HEAD)", *_write_lines(msg_type, env, argument, sequences=False)]
    return _generated(f"flat writer of {msg_type.__name__}", "encode", ", ".join(args), lines,
                      "bytes(out)", env)


def _write_lines(msg_type: type, env: dict[str, Any], leaf: Callable[[str], str],
                 sequences: bool = True) -> list[str]:
    """The statements that append a ``msg_type`` to ``out`` (its encapsulation header
    already there), following ``_write_plan``: ``leaf(path)`` gives the expression each
    field is read from, called in the plan's order (``flat_fields``). Fills ``env`` with
    the names the statements use. Raises ``Unsupported`` for a sequence field unless
    ``sequences``."""
    env.update({"PADS": _PADS, "U32": _U32[0].pack, "NUL": b"\x00"})
    lines: list[str] = []
    names = itertools.count()
    for step in _write_plan(msg_type):
        kind = step[0]
        if kind == _PRIM:
            _, _, packer, size, _, paths = step
            pack = f"P{next(names)}"
            env[pack] = packer.pack
            if size > 1:
                lines.append(f"out += PADS[({HEADER} - len(out)) % {size}]")
            lines.append(f"out += {pack}({', '.join(leaf(path) for path in paths)})")
        elif kind == _STRING:
            lines.extend([f"d = {leaf(step[3])}.encode('utf-8')",
                          f"out += PADS[({HEADER} - len(out)) % 4]",
                          "out += U32(len(d) + 1)", "out += d", "out += NUL"])
        elif not sequences:
            raise Unsupported(f"sequence field {step[3]}")
        else:  # a sequence of messages: its length, then the elements
            element, value = f"W{next(names)}", f"s{next(names)}"
            env[element] = _compiled_writer(step[2])
            lines.extend([f"{value} = {leaf(step[3])}", f"out += PADS[({HEADER} - len(out)) % 4]",
                          f"out += U32(len({value}))", f"for item in {value}:",
                          f"    {element}(out, item)"])
    return lines


def _generated(what: str, name: str, params: str, lines: list[str], result: str,
               env: dict[str, Any]) -> Callable[..., Any]:
    """The function ``def name(params): lines; return result``, compiled in ``env``
    (``what`` names it in a traceback)."""
    source = "\n    ".join([f"def {name}({params}):", *lines, f"return {result}"])
    exec(compile(source, f"<cdr {what}>", "exec"), env)  # noqa: S102
    return env[name]


def flat_fields(msg_type: type) -> tuple[str, ...]:
    """The dotted leaf fields ``flat_encoder(msg_type)`` takes, in order."""
    fields: list[str] = []
    for step in _write_plan(msg_type):
        fields += step[5] if step[0] == _PRIM else [step[3]]
    return tuple(fields)


_PADS = tuple(bytes(n) for n in range(8))


@functools.cache
def _write_plan(msg_type: type) -> tuple[tuple[Any, ...], ...]:
    """``layout`` as writing steps, computed once per type: nested messages flattened
    into dotted getters, runs of primitives of one size packed by one little-endian
    ``struct`` (as ``_plan`` reads them). An Ack is written per event after the commit,
    on the writer's answering thread: walking the layout field by field cost ~8 us of its ~11."""
    steps: list[tuple[Any, ...]] = []
    run: list[tuple[str, str, int]] = []

    def close_run() -> None:
        if run:
            fmt = "".join(_FORMATS[kind] for _, kind, _ in run)
            paths = tuple(path for path, _, _ in run)
            steps.append((_PRIM, operator.attrgetter(*paths), struct.Struct("<" + fmt),
                          run[0][2], len(run) == 1, paths))
            run.clear()

    def flatten(nested_type: type, prefix: str) -> None:
        kinds = nested_type.get_fields_and_field_types()
        for name, kind, detail in layout(nested_type):
            path = prefix + name
            if kind == _PRIM:
                if run and run[0][2] != detail[2]:
                    close_run()
                run.append((path, kinds[name], detail[2]))
                continue
            if kind == _NESTED:
                flatten(detail, path + ".")
                continue
            close_run()
            steps.append((kind, operator.attrgetter(path), detail, path))

    flatten(msg_type, "")
    close_run()
    return tuple(steps)


def _write(out: bytearray, steps: tuple[tuple[Any, ...], ...], message: Any) -> None:
    """``message`` appended to ``out`` by walking ``steps`` (what ``_compiled_writer``
    generates straight-line; kept as its reference)."""
    for step in steps:
        kind = step[0]
        if kind == _PRIM:
            _, get, packer, size, single, _ = step
            out += _PADS[(HEADER - len(out)) % size]
            out += packer.pack(get(message)) if single else packer.pack(*get(message))
        elif kind == _STRING:
            data = step[1](message).encode("utf-8")
            out += _PADS[(HEADER - len(out)) % 4]
            out += _U32[0].pack(len(data) + 1)
            out += data
            out += b"\x00"
        else:  # a sequence of messages: its length, then the elements
            value = step[1](message)
            out += _PADS[(HEADER - len(out)) % 4]
            out += _U32[0].pack(len(value))
            element = _write_plan(step[2])
            for item in value:
                _write(out, element, item)
