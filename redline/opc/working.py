"""The working copy: the one place a write changes the document.

A :class:`~redline.opc.package.Package` is read-only: its bytes, members and OPC never change, and
the trees :meth:`Package.xml` caches are shared by readers that must not change them.  A write
changes XML trees, so it changes the trees of a :class:`WorkingCopy`: each part parsed from the
package's original bytes the first time it is asked for, then this copy's own, in place.

Who uses it: :func:`redline.read.build.build_view` makes one per view that can be written from (the
view's spans point into its trees: the tree walk reads stories from it, and a scanned view's
:class:`~redline.read.view.NodeMap` finds its elements in it); the writer changes those trees
through the view; :mod:`redline.write.comments` adds to its comments part, relationships and content
types; :class:`redline.write.splice.Splice` serialises its changed parts.  A second view of the same
package gets a working copy of its own, so a second write starts from the original document.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from lxml import etree

if TYPE_CHECKING:
    from .package import Package

__all__ = ["WorkingCopy"]


class WorkingCopy:
    """The parsed trees one write may change, over a read-only package.  Thread-safe."""

    package: Package
    """The package the trees were parsed from (its bytes are the original)."""

    def __init__(self, package: Package) -> None:
        self.package = package
        self._trees: dict[str, etree._Element] = {}
        self._lock = threading.Lock()

    def xml(self, part: str) -> etree._Element:
        """The root of part ``part``'s tree in this working copy, parsed from the package's
        bytes when first asked for (raises :class:`~redline.errors.PackageError` as
        :meth:`Package.fresh_xml` does).  Change it freely: nothing else holds it."""
        name = self.package.find(part) or part
        found = self._trees.get(name)
        if found is not None:
            return found
        root = self.package.fresh_xml(name)
        with self._lock:
            return self._trees.setdefault(name, root)
