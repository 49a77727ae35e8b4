"""The benchmark suite: `python -m benchmarks` (see docs/performance.md).

Each model is checked in a fresh subprocess (benchmarks/measure.py), so peak
RSS is per model; peers (TLC, SPIN) run beside it when installed. Speed is
measured here, never in the unit tests.
"""
