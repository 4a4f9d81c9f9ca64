"""A RETURNED in another format (``.doc``, ``.rtf``, ``.odt``): converted, and what its format loses.

RETURNED is converted to ``.docx`` through LibreOffice (:func:`redline.opc.convert.to_docx`:
a killable process with a time limit and a profile of its own; ``conversion_failed`` when it
cannot be).  What the conversion could tell it lost (tracked changes merged or dropped,
moves become deletions and insertions, comments) is a ``lossy_conversion`` warning.

What the *format* does to a document is learnt the only sure way: SENT itself is sent through
the same round trip (to the format with :func:`redline.opc.convert.from_docx`, and back), and
the engine (:func:`redline.reconcile.engine.reconcile`) reconciles SENT with that copy first:
whatever it finds there -- our changes that do not come through as they were, text the format
rewrites -- is the format's doing.  In RETURNED, such a change of ours is reported with its
outcome and a ``lossy_conversion`` warning naming it (its outcome may be the format's), and an
untracked difference the round trip alone makes too is reported as a warning, not as theirs.
Never a silent wrong outcome: everything the way may have changed is said.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from shared_schema import Code, Refusal

from ..errors import PackageError
from ..opc.convert import CONVERTIBLE, from_docx, to_docx
from .report import ReportWarning

__all__ = ["CONVERTIBLE", "returned_docx"]


def _warnings(losses: list[object]) -> list[ReportWarning]:
    return [ReportWarning(Code.LOSSY_CONVERSION.value, str(getattr(x, "message", x))) for x in losses]


def returned_docx(
    path: Path, data: bytes, sent: bytes, *, timeout: float
) -> tuple[bytes, list[ReportWarning], bytes | None] | Refusal:
    """RETURNED as ``.docx`` bytes, what its conversion lost, and SENT after the same round trip
    (None: RETURNED is a ``.docx``, nothing was converted); or the refusal (``conversion_failed``,
    or the loader's code for what the conversion produced)."""
    suffix = path.suffix.lower()
    if suffix not in CONVERTIBLE:
        return data, [], None
    try:
        docx, losses = to_docx(path, timeout=timeout)
        through = from_docx(sent, suffix, timeout=timeout)
        with tempfile.TemporaryDirectory(prefix="redline-reconcile-") as tmp:
            copy = Path(tmp) / f"sent{suffix}"
            copy.write_bytes(through)
            sent_back, _ = to_docx(copy, timeout=timeout)
    except PackageError as exc:
        return exc.refusal
    warnings = _warnings(list(losses))
    return docx, warnings, sent_back
