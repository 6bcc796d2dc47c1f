"""Progress bars for the long benchmark steps (tqdm on stderr)."""

from __future__ import annotations

import sys
from typing import Any


def bar(total: int | None, desc: str, unit: str = "it") -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, mininterval=0.5,
                dynamic_ncols=True, leave=True)
