"""The return leg (issue 34): what the other side did with the redline we sent.

* :mod:`~redline.reconcile.engine` -- the chain: read, pair, decide, compare (:func:`reconcile`)
* :mod:`~redline.reconcile.readings` -- a view's text with some revisions rejected, mapped back
* :mod:`~redline.reconcile.align` -- where two texts differ, word by word, as offsets into both
* :mod:`~redline.reconcile.pairing` -- SENT's revisions and comments found again in RETURNED
* :mod:`~redline.reconcile.ours` -- our changes and their outcomes
* :mod:`~redline.reconcile.untracked` -- what they changed without tracking
* :mod:`~redline.reconcile.formats` -- formatting they changed without tracking
* :mod:`~redline.reconcile.shown` -- the headers and footers a document never shows
* :mod:`~redline.reconcile.imported` -- content a document imports (``w:altChunk``), read as its text
* :mod:`~redline.reconcile.converted` -- a RETURNED in another format, and what its format loses
* :mod:`~redline.reconcile.report` -- the report's shape; :mod:`~redline.reconcile.memo` -- the memo
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["ReconcileOptions", "ReconcileReport", "reconcile", "render_memo"]

_WHERE = {
    "ReconcileOptions": "redline.reconcile.engine",
    "reconcile": "redline.reconcile.engine",
    "ReconcileReport": "redline.reconcile.report",
    "render_memo": "redline.reconcile.memo",
}

if TYPE_CHECKING:
    from .engine import ReconcileOptions, reconcile
    from .memo import render_memo
    from .report import ReconcileReport


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'redline.reconcile' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
