"""Benchmarks of issue 10: `python -m benchmarks.run [--quick]`."""
