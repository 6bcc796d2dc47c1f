"""The closing lines of a benchmark run: ``key: value`` lines unless ``--json``,
then the summary as one JSON object on the last line (what scripts read)."""

from __future__ import annotations

import json
from typing import Any


def print_summary(summary: dict[str, Any], as_json: bool) -> None:
    if not as_json:
        for key, value in summary.items():
            print(f"{key}: {value}")
    print(json.dumps(summary), flush=True)
