"""PNG plots of a LoCoMo report (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .metrics import CATEGORY_NAMES

PANELS = (("hit@10", "Hit@10"), ("recall@5_macro", "Recall@5 (macro)"), ("mrr@10", "MRR@10"),
          ("f1", "answer F1"))


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_categories(report: dict[str, Any], path: Path) -> None:
    """Grouped bars: each metric per category (and overall), system against the baselines."""
    plt = _pyplot()
    blocks = [("trace_ros", report["system"])] + list(report["baselines"].items())
    groups = [str(c) for c in CATEGORY_NAMES] + ["overall"]
    labels = [f"{c}\n{n}" for c, n in CATEGORY_NAMES.items()] + ["overall"]
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharey=True)
    width = 0.8 / len(blocks)
    for ax, (key, title) in zip(axes.flat, PANELS, strict=True):
        for i, (name, block) in enumerate(blocks):
            values = [(block["overall"] if g == "overall" else block["by_category"][g])[key]
                      for g in groups]
            xs = [x + (i - (len(blocks) - 1) / 2) * width for x in range(len(groups))]
            ax.bar(xs, [v or 0.0 for v in values], width, label=name)
        ax.set_title(title)
        ax.set_xticks(range(len(groups)), labels)
        ax.set_ylim(0, 1)
        ax.grid(axis="y", alpha=0.3)
    axes.flat[0].legend(loc="upper left", fontsize="small")
    fig.suptitle("LoCoMo: trace_ros against the baselines, by question category")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_latency_cdf(latencies: dict[str, Sequence[float]], path: Path) -> None:
    """Empirical CDF of per-question latency for each method (log-scaled time axis)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    for name, values in latencies.items():
        xs = sorted(v for v in values if v > 0)
        if not xs:
            continue
        ys = [(i + 1) / len(xs) for i in range(len(xs))]
        ax.step(xs, ys, where="post", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("latency per question (ms, log scale)")
    ax.set_ylabel("fraction of questions")
    ax.set_ylim(0, 1.01)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="lower right")
    ax.set_title("Query latency CDF (system end to end; baselines incl. question embedding)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
