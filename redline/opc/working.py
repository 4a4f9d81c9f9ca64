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
import weakref
from typing import TYPE_CHECKING, Protocol

from lxml import etree

if TYPE_CHECKING:
    from .package import Package

__all__ = ["Completable", "WorkingCopy", "filled", "values_in", "whole_root"]


class Completable(Protocol):
    """A tree parsed only in part (:class:`redline.read.partial.Partial`): ``root``, and
    :meth:`complete` parses the rest, after which the tree is the whole part's."""

    root: etree._Element

    def complete(self) -> etree._Element: ...

    def fill(self, el: etree._Element) -> None: ...

    def values(self, tags: tuple[str, ...], attribute: str) -> set[str]: ...


# root element -> the partial tree it is the root of (by id: the partial holds the root, so
# the id is its own while the entry lives; checked by identity all the same)
_PARTIAL: weakref.WeakValueDictionary[int, Completable] = weakref.WeakValueDictionary()


def whole_root(el: etree._Element) -> etree._Element:
    """The root of ``el``'s tree, the whole part parsed first when it was parsed only in part:
    what a walk over the whole tree (every bookmark, every move range) must start from."""
    root = el.getroottree().getroot()
    partial = _PARTIAL.get(id(root))
    if partial is not None and partial.root is root:
        partial.complete()
    return root


def values_in(root: etree._Element, tags: tuple[str, ...], attribute: str) -> set[str]:
    """Every value of ``attribute`` on the elements ``tags`` of ``root``'s tree (a names-in-use
    set), read from the unparsed paragraphs' bytes where the tree is parsed only in part."""
    partial = _PARTIAL.get(id(root))
    if partial is not None and partial.root is root:
        return partial.values(tags, attribute)
    return {v for el in root.iter(*tags) if (v := el.get(attribute)) is not None}


def filled(el: etree._Element) -> etree._Element:
    """``el`` with everything inside it parsed (its tree parsed only in part, or whole):
    what a walk over a whole element (a table's rows and cells) must start from."""
    root = el.getroottree().getroot()
    partial = _PARTIAL.get(id(root))
    if partial is not None and partial.root is root:
        partial.fill(el)
    return el


class WorkingCopy:
    """The parsed trees one write may change, over a read-only package.  Thread-safe."""

    package: Package
    """The package the trees were parsed from (its bytes are the original)."""

    def __init__(self, package: Package) -> None:
        self.package = package
        self._trees: dict[str, etree._Element] = {}
        self._partial: dict[str, Completable] = {}
        self._lock = threading.Lock()

    def adopt(self, part: str, partial: Completable) -> None:
        """``part``'s tree is ``partial`` (parsed in part): :meth:`xml` completes it."""
        with self._lock:
            self._partial[part] = partial
            _PARTIAL[id(partial.root)] = partial

    def has(self, part: str) -> bool:
        """Is ``part``'s whole tree parsed in this copy?"""
        return (self.package.find(part) or part) in self._trees

    def partial(self, part: str) -> Completable | None:
        """``part``'s tree when it is parsed only in part (None: whole, or not parsed yet)."""
        name = self.package.find(part) or part
        found = self._partial.get(name)
        return None if found is None or name in self._trees else found

    def xml(self, part: str) -> etree._Element:
        """The root of part ``part``'s tree in this working copy, parsed from the package's
        bytes when first asked for (raises :class:`~redline.errors.PackageError` as
        :meth:`Package.fresh_xml` does).  Change it freely: nothing else holds it."""
        name = self.package.find(part) or part
        found = self._trees.get(name)
        if found is not None:
            return found
        partial = self._partial.get(name)
        if partial is not None:
            root = partial.complete()
            with self._lock:
                return self._trees.setdefault(name, root)
        root = self.package.fresh_xml(name)
        with self._lock:
            return self._trees.setdefault(name, root)
