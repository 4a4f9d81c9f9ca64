"""A changed part's bytes: the paragraphs the writer changed, spliced into the part's own text.

Serialising a whole part again re-writes every byte of it: lxml spells the XML declaration,
character references and a few other things its own way (20 of the 38 corpus documents come
back different without a single edit), and on a 300-page contract the serialisation alone
costs twice the writer's own work.  Before the writer changes a part whose paragraphs the
scanner placed (:class:`redline.read.scan.Layout`), :meth:`Splice.plan` notes the outermost
paragraphs the planned ranges may change -- those the ranges touch, the paragraph on each side
of them, and, where an untracked deletion of a paragraph mark can pull the next paragraph in,
that one too -- joined into stretches of siblings, each with the untouched sibling on either
side as an anchor.  After writing, :meth:`Splice.part` serialises only what lies between each
pair of anchors now (new paragraphs included, removed ones gone) and copies every other byte
of the part as it was.

A stretch whose anchors are no longer where they were, a part the scanner could not place
(the tree walk read it, or a line end was normalised inside it) or a second ``write`` on the
same writer: the part is serialised whole, as before (``None``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

from ..opc.working import WorkingCopy
from ..opc.xmlparse import serialize
from ..read.roles import RANGE_MARKUP
from ..read.view import DocumentView, NodeMap

_XMLNS = re.compile(r' xmlns(?::([^\s=/>"]+))?="([^"<&]*)"')


@dataclass
class _Stretch:
    """Siblings under ``parent`` from just after ``left`` to just before ``right`` (None: the
    parent's first / last child), at characters ``start`` (the first paragraph's start tag)
    to ``end`` (the last one's end tag; its tail, up to the next tag, is in the stretch too)."""

    parent: etree._Element
    left: etree._Element | None
    right: etree._Element | None
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Spliced:
    """One stretch :meth:`Splice.part` replaced: in the original part, from the first
    paragraph's start tag (character ``start``, byte ``start_byte``) to where the next tag
    after the last one begins (character ``end``, byte ``end_byte``), that last paragraph
    ending at character ``last_end``; ``put`` went there instead. ``parent``: the element
    whose children the stretch holds."""

    start: int
    start_byte: int
    last_end: int
    end: int
    end_byte: int
    put: bytes
    parent: etree._Element


class Splice:
    """The stretches of each part that writing may change, noted before the writer runs."""

    def __init__(self, working: WorkingCopy, view: DocumentView) -> None:
        self.working = working  # the trees the writer changes; their original bytes are its package's
        self._nodes = view.span_nodes if isinstance(view.span_nodes, NodeMap) else None
        self._view = view
        self._stretches: dict[str, list[_Stretch] | None] = {}
        self._planned = False
        # Per part :meth:`part` spliced, each stretch it replaced (what :mod:`redline.write.readback`
        # reads again, and nothing else of the part).
        self.spliced: dict[str, list[Spliced]] = {}

    def plan(self, ranges: Iterable[tuple[int, int]], joins: bool) -> None:
        """Note the paragraphs that writing the view ``ranges`` may change; ``joins``: an
        untracked deletion of a paragraph mark may join the next paragraph into the last."""
        if self._planned:  # a second write: its ranges may be in paragraphs the first split
            self._stretches = dict.fromkeys(self._stretches)
            return
        self._planned = True
        view, nodes = self._view, self._nodes
        units: dict[str, set[int]] = {}
        whole: set[str] = set()
        for start, end in ranges:
            # the paragraphs the range touches and the one each side: new text at one of
            # its ends may go into the run next to it (an empty last paragraph included)
            lo = max(0, start - 1)
            for p in view.paragraphs_between(lo, max(lo, end) + 1):
                layout = nodes.layout(p.part) if nodes is not None else None
                if layout is None or not isinstance(p.ref, int):
                    whole.add(p.part)
                    continue
                i = bisect.bisect_right(layout.ordinals, p.ref) - 1
                found = units.setdefault(p.part, set())
                found.add(i)
                if joins and i + 1 < len(layout.ordinals):
                    found.add(i + 1)
        for part in whole:
            self._stretches[part] = None
        for part, indices in units.items():
            if part not in whole and nodes is not None:
                self._stretches[part] = _stretches(nodes, part, sorted(indices))

    def whole(self, part: str) -> None:
        """``part`` changed outside the noted paragraphs: serialise it whole."""
        self._stretches[part] = None

    def changed(self, parts: Iterable[str]) -> dict[str, bytes]:
        """Each of ``parts`` as it is now: spliced where it can be, else serialised whole."""
        return {part: self.part(part) or serialize(self.working.xml(part)) for part in sorted(parts)}

    def part(self, part: str) -> bytes | None:
        """``part`` as it is now: the noted stretches serialised, every other byte of the
        original copied (None when the part has to be serialised whole)."""
        self.spliced.pop(part, None)
        stretches = self._stretches.get(part)
        layout = self._nodes.layout(part) if self._nodes is not None else None
        if not stretches or layout is None:
            return None
        data = self.working.package.read(part)
        where = ByteOffsets(data, layout.root_end, layout.root_bytes)
        out: list[bytes] = []
        replaced: list[Spliced] = []
        copied = 0  # bytes of the original copied to the output so far
        copiers: dict[frozenset[tuple[str, str]], _Copied] = {}  # one per inherited namespaces
        for s in stretches:
            made = _now(s, copiers)
            if made is None:
                return None
            start = where.of(s.start)
            last = where.of(s.end)
            end = data.find(b"<", last)  # the last paragraph's tail goes too
            out.append(data[copied:start])
            put = "".join(made).encode("utf-8")
            out.append(put)
            copied = end if end >= 0 else len(data)
            tail = len(data[last:copied].decode("utf-8", "replace"))
            replaced.append(Spliced(s.start, start, s.end, s.end + tail, copied, put, s.parent))
        out.append(data[copied:])
        self.spliced[part] = replaced
        return b"".join(out)


class ByteOffsets:
    """Character offsets of a part's decoded text (from the root's start tag on) as offsets
    into its UTF-8 bytes, asked for in increasing order: a byte that is not a continuation
    byte (10xxxxxx) starts a character, so the walk counts the continuation bytes of each
    stretch it passes, at C speed, instead of decoding or keeping the text."""

    _NOT_CONTINUATION = bytes(range(0x80)) + bytes(range(0xC0, 0x100))

    def __init__(self, data: bytes, char: int, byte: int) -> None:
        self._data = data
        self._char, self._byte = char, byte  # the character that starts at this byte

    def of(self, char: int) -> int:
        data, b, k = self._data, self._byte, self._char
        while k < char:  # k: characters whose first byte is before b
            step = char - k
            b, k = b + step, k + step - len(data[b : b + step].translate(None, self._NOT_CONTINUATION))
        while b < len(data) and 0x80 <= data[b] < 0xC0:  # b was inside the last character
            b += 1
        self._char, self._byte = char, b
        return b


def _stretches(nodes: NodeMap, part: str, indices: list[int]) -> list[_Stretch] | None:
    """The stretches of siblings that hold the outermost paragraphs ``indices`` (sorted) of
    ``part``'s layout, two paragraphs in one stretch when only range markup (bookmarks,
    comment ranges, ...) stands between them."""
    layout = nodes.layout(part)
    if layout is None:
        return None
    out: list[_Stretch] = []
    last_el: etree._Element | None = None
    last_i = -2
    for i in indices:
        el = nodes.element(part, layout.ordinals[i])
        parent = el.getparent()
        if parent is None:
            return None
        if out and last_i == i - 1 and _markup_between(last_el, el):
            stretch = out[-1]
        else:
            stretch = _Stretch(parent, el.getprevious(), None, layout.starts[i], 0)
            out.append(stretch)
        stretch.right = el.getnext()
        stretch.end = layout.ends[i]
        last_el, last_i = el, i
    return out


def _markup_between(first: etree._Element | None, second: etree._Element) -> bool:
    """Is ``second`` a later sibling of ``first`` with nothing but range markup between?"""
    node = first.getnext() if first is not None else None
    while node is not None and node is not second and node.tag in RANGE_MARKUP:
        node = node.getnext()
    return node is second


def _now(s: _Stretch, copiers: dict[frozenset[tuple[str, str]], _Copied]) -> list[str] | None:
    """The XML of what stands between the stretch's anchors now (None: an anchor moved);
    ``copiers``: the :class:`_Copied` of each set of inherited namespaces met so far (the
    stretches of a part mostly share their parent's, so they share what was learnt)."""
    parent = s.parent
    if s.left is not None and s.left.getparent() is not parent:
        return None
    if s.right is not None and s.right.getparent() is not parent:
        return None
    node = s.left.getnext() if s.left is not None else (parent[0] if len(parent) else None)
    inherited = {prefix or "": uri for prefix, uri in parent.nsmap.items()}
    key = frozenset(inherited.items())
    copied = copiers.get(key)
    if copied is None:
        copied = copiers[key] = _Copied(inherited)
    out: list[str] = []
    while node is not s.right:
        if node is None:  # the right anchor is not after the left one any more
            return None
        out.append(copied.without(etree.tostring(node, encoding="unicode", with_tail=True)))
        node = node.getnext()
    return out


class _Copied:
    """The namespace declarations lxml copies onto a serialised subtree from its ancestors
    (the part declares them already, in the same place), taken off again.  Subtrees under the
    same in-scope namespaces get the same copies: the last ones taken off are tried first, as
    one string."""

    def __init__(self, inherited: dict[str, str]) -> None:
        self._inherited = inherited
        self._seen = ""  # the copies as they were written last time (the same for siblings)

    def without(self, xml: str) -> str:
        head = xml.find(">")
        if xml.find("xmlns", 0, head) < 0:
            return xml
        if self._seen:  # siblings get the same copies: take them off as one string
            rest = xml[:head].replace(self._seen, "", 1)
            if rest.find("xmlns") < 0:
                return rest + xml[head:]
        taken: list[str] = []

        def kept(m: re.Match[str]) -> str:
            if self._inherited.get(m.group(1) or "") == m.group(2):
                taken.append(m.group(0))
                return ""
            return m.group(0)

        out = _XMLNS.sub(kept, xml[:head]) + xml[head:]
        self._seen = "".join(taken)
        return out
