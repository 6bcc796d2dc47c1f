"""Health levels of the nodes from their diagnostics values (OK / WARN / ERROR, with why).

Pure functions over the numbers a node reports, with the thresholds as arguments (the
nodes take them from parameters), so they are tested without ROS.
"""

from __future__ import annotations

OK, WARN, ERROR = "OK", "WARN", "ERROR"
_RANK = {OK: 0, WARN: 1, ERROR: 2}


def worst(findings: list[tuple[str, str]]) -> tuple[str, str]:
    """The highest level among ``findings`` and the reasons at that level ('ok' when none)."""
    if not findings:
        return OK, "ok"
    top = max(_RANK[level] for level, _ in findings)
    level = next(lv for lv, r in _RANK.items() if r == top)
    return level, "; ".join(why for lv, why in findings if lv == level)


def capture_health(queue_depth: int, queue_capacity: int, dropped_recently: int,
                   warn_ratio: float, error_ratio: float) -> tuple[str, str]:
    """memory_node: the writer queue's fill and events lost by the subscriptions."""
    findings: list[tuple[str, str]] = []
    fill = queue_depth / max(1, queue_capacity)
    if fill >= error_ratio:
        findings.append((ERROR, f"writer queue {queue_depth}/{queue_capacity} full"))
    elif fill >= warn_ratio:
        findings.append((WARN, f"writer queue {queue_depth}/{queue_capacity}"))
    if dropped_recently:
        findings.append((WARN, f"{dropped_recently} event(s) lost by the subscriptions"))
    return worst(findings)


def consolidation_health(pending: int, failed_recently: int, warn_jobs: int,
                         error_jobs: int) -> tuple[str, str]:
    """consolidation_node: its lag (pending jobs) and jobs that failed for good."""
    findings: list[tuple[str, str]] = []
    if pending >= error_jobs:
        findings.append((ERROR, f"consolidation lag: {pending} pending jobs"))
    elif pending >= warn_jobs:
        findings.append((WARN, f"consolidation lag: {pending} pending jobs"))
    if failed_recently:
        findings.append((WARN, f"{failed_recently} job(s) failed"))
    return worst(findings)


def query_health(configured_reader: str, reader: str, admission_refused: bool,
                 failures_recently: int) -> tuple[str, str]:
    """query_node: a reader that fell back, GPU admission refused, queries that crashed."""
    findings: list[tuple[str, str]] = []
    if configured_reader != "extractive" and reader == "extractive":
        findings.append((WARN, f"reader.kind={configured_reader} fell back to extractive"))
    if admission_refused:
        findings.append((WARN, "GPU admission denied"))
    if failures_recently:
        findings.append((ERROR, f"{failures_recently} query(ies) failed"))
    return worst(findings)
