"""Benchmarks of mathhammer (issue 7): run with ``python benchmarks/run.py``; not part of the tests."""
