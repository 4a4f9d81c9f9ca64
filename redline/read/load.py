"""The one load step every flow opens with: a document's bytes (or file) to its package and view.

``redline apply``, ``summarize check``, ``redline view`` and the tools all start the same way --
load the package under the limits, read the view (whole, or streamed for verifying alone) -- and
refuse the same way: a document that cannot be read comes back as a :class:`Refusal` value
with its code, never as an exception.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..opc.package import Limits, Package, PackageError
from .build import build_view, verify_only_view
from .view import DocumentView

if TYPE_CHECKING:  # the refusal's model is built when a document is refused, not to read one
    from shared_schema import Refusal

__all__ = ["load_view"]


def load_view(
    source: bytes | os.PathLike[str],
    limits: Limits | None = None,
    *,
    stream: bool = False,
    trees: bool = False,
    labels: bool = True,
) -> tuple[Package, DocumentView] | Refusal:
    """The package and view of ``source`` (the document's bytes, or a path to open), or the
    refusal that says why it cannot be read.

    ``stream``: the streamed verify-only view (:func:`redline.read.build.verify_only_view`), which
    never holds the main part whole -- for verifying alone (nothing can be written from it);
    ``source`` must then be bytes.  ``trees``: the view will be written from;
    ``labels=False``: its labels are given later (both: see :func:`redline.read.build.build_view`).
    """
    try:
        if isinstance(source, bytes):
            package = Package.from_bytes(source, limits, stream_main=stream)
        elif stream:
            raise TypeError("a streamed view is read from the document's bytes, not a path")
        else:
            package = Package.open(source, limits)
        view = verify_only_view(package) if stream else build_view(package, trees=trees, labels=labels)
    except PackageError as exc:
        from shared_schema import Refusal

        return Refusal.from_error(exc)
    return package, view
