"""Argument checking shared by every ``trace-ros`` command.

A bad argument ends the command with ONE line on stderr that names the option and the
reason (``trace-ros query: error: argument --as-of-valid: must be a finite number, got
'nan'``) and exit status 2, never a traceback or a page of usage text. ``ArgParser``
does the one-line report; the type functions below do the range checks argparse lacks
(``float('nan')`` and ``float('inf')`` parse, and then break whatever uses them).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import NoReturn


class ArgParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are one line (with a pointer to --help)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _number(text: str, kind: type, what: str = "") -> float:
    suffix = f" ({what})" if what else ""
    try:
        value = kind(text)
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"must be {noun}{suffix}, got {text!r}") from None
    if kind is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number{suffix}, got {text!r}")
    return value


def bounded(kind: type, minimum: float | None = None, *, above: bool = False,
            maximum: float | None = None, what: str = "") -> Callable[[str], float]:
    """A type function for numbers of ``kind`` (int or float, finite) that are at least
    ``minimum`` (greater than it with ``above``) and at most ``maximum``; ``what`` says
    what the number is (``epoch seconds``) in the error."""

    def check(text: str) -> float:
        value = _number(text, kind, what)
        low_bad = minimum is not None and (value <= minimum if above else value < minimum)
        if low_bad or (maximum is not None and value > maximum):
            parts = []
            if minimum is not None:
                parts.append(f"{'>' if above else '>='} {minimum:g}")
            if maximum is not None:
                parts.append(f"<= {maximum:g}")
            suffix = f" ({what})" if what else ""
            raise argparse.ArgumentTypeError(
                f"must be {' and '.join(parts)}{suffix}, got {text!r}")
        return value

    check.__name__ = f"{kind.__name__}_range"
    return check


def add_ledger_url(parser: argparse.ArgumentParser) -> None:
    """``--ledger-url`` beside a command's ``--db`` (see ``ledger_file``)."""
    parser.add_argument("--ledger-url", metavar="URL",
                        help="the ledger as a URL (sqlite:///abs/path.db or sqlite:rel.db); "
                             "instead of --db")


def ledger_file(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Turn ``--ledger-url`` into ``args.db`` (the SQLite file it names), or end the
    command with one line: a bad URL, both options, or an engine it cannot use."""
    url = getattr(args, "ledger_url", None)
    if url is None:
        return
    if getattr(args, "db", None):
        parser.error("--ledger-url: give --db or --ledger-url, not both")
    from .errors import ConfigError
    from .storage.url import parse_ledger_url

    try:
        parsed = parse_ledger_url(url, "--ledger-url")
    except ConfigError as exc:
        parser.error(str(exc))
    if parsed.path is None:
        parser.error(f"--ledger-url: PostgreSQL engine not available in this build for "
                     f"{parser.prog}; use a sqlite: URL")
    args.db = str(parsed.path)


def time_view(field: str) -> Callable[[str], float]:
    """Epoch seconds of a query's time view; ``field`` is the request field it fills
    (``as_of_valid``), named in the error as the engine and the ROS service name it."""
    return bounded(float, 0.0, what=f"{field}, epoch seconds")


# The ranges the commands share.
seconds = bounded(float, 0.0, what="seconds")
positive_float = bounded(float, 0.0, above=True)
non_negative_float = bounded(float, 0.0)
positive_int = bounded(int, 1)
non_negative_int = bounded(int, 0)
port = bounded(int, 1, maximum=65535, what="a TCP port")
