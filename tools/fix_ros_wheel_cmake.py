#!/usr/bin/env python3
"""Repair the build-machine paths baked into the ROS 2 wheels' CMake files.

The ROS 2 PyPI wheels were built in a manylinux container; their exported
``*__rosidl_generator_pyExport.cmake`` files name that container's Python
headers and NumPy headers (``/opt/python/cp3XX-cp3XX/...``). CMake refuses to
configure a package that links against those targets when the paths do not
exist. This script rewrites them, in every ``*.cmake`` file under the venv, to
the paths of the Python that runs it (run it with the venv's interpreter).

Idempotent: a second run changes nothing. Prints how many files it changed.

Usage: .venv/bin/python tools/fix_ros_wheel_cmake.py [VENV_PREFIX]
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
from pathlib import Path


def replacements() -> dict[str, str]:
    """Map each wheel-build path to the matching path on this machine."""
    import numpy  # imported here so ``--help`` works without numpy

    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    pyver = f"python{sys.version_info.major}.{sys.version_info.minor}"
    build_root = f"/opt/python/{tag}-{tag}"
    return {
        f"{build_root}/lib/{pyver}/site-packages/numpy/_core/include": numpy.get_include(),
        f"{build_root}/include/{pyver}": sysconfig.get_path("include"),
    }


def fix_file(path: Path, table: dict[str, str]) -> bool:
    """Rewrite one file in place; return True when it changed."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return False
    new = text
    for old, repl in table.items():
        new = new.replace(old, repl)
    if new == text:
        return False
    tmp = path.with_name(path.name + ".fixtmp")
    tmp.write_text(new, encoding="utf-8")
    os.chmod(tmp, path.stat().st_mode & 0o7777)
    os.replace(tmp, path)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "prefix",
        nargs="?",
        default=sys.prefix,
        help="venv prefix to repair (default: the running interpreter's prefix)",
    )
    args = parser.parse_args(argv)
    prefix = Path(args.prefix).resolve()
    if not prefix.is_dir():
        print(f"fix_ros_wheel_cmake: no such directory: {prefix}", file=sys.stderr)
        return 2
    if Path(sys.prefix).resolve() != prefix:
        print(
            f"fix_ros_wheel_cmake: warning: running with {sys.executable}, "
            f"not the interpreter of {prefix}",
            file=sys.stderr,
        )
    table = replacements()
    changed = 0
    for path in sorted(prefix.rglob("*.cmake")):
        if path.is_file() and not path.is_symlink() and fix_file(path, table):
            changed += 1
    print(f"fix_ros_wheel_cmake: changed {changed} file(s) under {prefix}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
