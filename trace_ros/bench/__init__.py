"""Benchmarks: LoCoMo retrieval and answers against baselines, scale, capture throughput.

``trace-ros bench locomo`` and ``trace-ros bench scale`` are the commands; the
modules here are the pieces they are built from (metrics are pure functions).
"""
