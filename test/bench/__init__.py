"""Tests of the benchmarks (trace_ros.bench)."""
