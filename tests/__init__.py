"""The test suite (a package, so its helpers import as ``tests.x`` under pytest and mypy alike)."""
