"""Two versions of a document: OLD with NEW's differences written as tracked changes.

* :mod:`~redline.compare.diff` -- the comparison and its plan (:func:`compare`)
* :mod:`~redline.compare.moves` -- paragraphs NEW moved, written as native Word moves
* :mod:`~redline.compare.formatting` -- formatting NEW changed on text it kept, as tracked formatting changes
* :mod:`~redline.compare.tables` -- tables aligned row by row: rows inserted, deleted, or not writable
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["CompareOptions", "CompareOutcome", "compare"]

if TYPE_CHECKING:
    from .diff import CompareOptions, CompareOutcome, compare


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'redline.compare' has no attribute {name!r}")
    return getattr(importlib.import_module("redline.compare.diff"), name)
