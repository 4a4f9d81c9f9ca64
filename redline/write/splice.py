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

The main part is not even parsed whole (issue 32): its tree is a skeleton whose paragraphs
are parsed as they are asked for (:mod:`redline.read.partial`), and the stretches' paragraphs
and anchors are parsed when :meth:`Splice.plan` notes them.  A change to more than paragraphs
-- a table row added or removed (:mod:`redline.write.rows`) -- is a *container* stretch
(:meth:`Splice.container`): the table itself, from its start tag to its end tag, found in the
markup before its first paragraph and after its last; the paragraph stretches inside it go,
and one beside it (anchored on it) joins it.  The read-back reads the window around it
(:mod:`redline.write.readback`).  Every kind of change splices so: text edits, inserts,
``format`` entries, rows, moves (both ends are planned ranges).

Where a change cannot be spliced safely, the part is serialised whole (``None``), from a tree
completed first (:meth:`redline.read.partial.Partial.complete`: every paragraph not parsed
yet parsed from one whole parse), and read back in full:

* a stretch whose anchors are no longer where they were (a paragraph joined into the next by
  an untracked mark deletion took the anchor with it): what lies between cannot be told;
* a part the scanner could not place (the tree walk read it, or a line end was normalised
  inside it), or a header, footer or notes part (parsed whole: they are small);
* a main part whose namespace declarations bind a prefix twice, a name to two prefixes, or
  repeat one declaration (:func:`redline.read.partial.partial_tree`: a moved paragraph could
  come out re-prefixed, or lose an inner declaration);
* a table whose start or end tag cannot be read plainly from the markup around its
  paragraphs (a comment or processing instruction there), or a container stretch that would
  overlap a stretch it neither holds nor lies in;
* decisions on others' revisions, comment replies and resolved threads, and the trees
  ``compare`` writes: they walk whole story trees (:func:`redline.write.decisions.story_roots`),
  so the trees are completed, and what they change is noted as whole parts when it is not a
  paragraph (:attr:`redline.match.decisions.DecisionPlan.whole_parts`), as before;
* anything that walks a whole tree (a new cross-reference bookmark's unique name, a move's
  unique name, a field inside another): :func:`redline.opc.working.whole_root` completes the
  tree first -- the output is the same, only the parse saved is lost;
* a second ``write`` on the same writer.

:func:`redline.read.partial.whole_parts` asks for the whole-part path everywhere (the oracle
``tests/test_partial.py`` holds the spliced outputs to, byte for byte).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

from ..opc.working import WorkingCopy
from ..opc.xmlparse import serialize
from ..read.partial import ByteOffsets as ByteOffsets  # re-exported: the read-back walks bytes so too
from ..read.partial import Partial, wholly
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
    # the same two places in the part's bytes, when the partial tree knows them (None: walked
    # to from the characters, :class:`ByteOffsets`)
    start_byte: int | None = None
    end_byte: int | None = None


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

    def container(self, part: str, el: etree._Element) -> None:
        """``el`` (a table of ``part``, say) changes as a whole, more than its paragraphs (a
        row added or removed): the stretch is ``el`` itself, from its start tag to its end
        tag, and the paragraph stretches inside it go; the part is serialised whole when
        ``el``'s place in the part's text cannot be found (see :func:`_element_span`)."""
        stretches = self._stretches.get(part, [])
        if stretches is None:
            return
        partial = self._nodes.partial(part) if self._nodes is not None else None
        parent = el.getparent()
        span = _element_span(partial, el) if partial is not None and parent is not None else None
        if span is None or parent is None or partial is None:
            self.whole(part)
            return
        start, end, start_byte, end_byte = span
        if any(s.start <= start and s.end >= end and s.parent is parent for s in stretches):
            return  # el is spliced already (a second row of the same table)
        kept = [s for s in stretches if s.end <= start or s.start >= end]
        inside = [s for s in stretches if s.start >= start and s.end <= end]
        if len(kept) + len(inside) != len(stretches):
            self.whole(part)
            return
        left, right = partial.solid(el.getprevious()), partial.solid(el.getnext())
        kept.append(_Stretch(parent, left, right, start, end, start_byte, end_byte))
        kept.sort(key=lambda s: s.start)
        # a stretch whose anchor is el, or the stretch el anchors, joins el's: two stretches
        # never share an element (what is put beside it would be written twice)
        merged: list[_Stretch] = []
        for s in kept:
            last = merged[-1] if merged else None
            if last is not None and last.parent is s.parent and (last.right is el or s.left is el):
                last.right, last.end, last.end_byte = s.right, s.end, s.end_byte
            else:
                merged.append(s)
        self._stretches[part] = merged

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
        if wholly():
            return None
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
            # (the partial tree's byte offsets where it gave them: the same places, unwalked)
            start = where.of(s.start) if s.start_byte is None else s.start_byte
            last = where.of(s.end) if s.end_byte is None else s.end_byte
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


_TAG = re.compile(rb"""<(/?)([^\s/>!?]+)(?:[^>"']|"[^"]*"|'[^']*')*?(/?)>""")


def _element_span(partial: Partial, el: etree._Element) -> tuple[int, int, int, int] | None:
    """Where ``el`` lies in the part's text, as characters (its start tag; after its end
    tag) and then as bytes, found from the units it holds: its start tag is the one open in the markup before
    its first unit as many levels up as ``el`` stands above that unit's paragraph, its end
    tag the one closed so in the markup after its last unit.  None: ``el`` holds no unit,
    or that markup is not plain tags."""
    units = partial.units_in(el)
    if not units:
        return None
    first, last = units[0], units[-1]
    data = partial.data
    levels = 0
    node: etree._Element | None = partial.unit(first)
    while node is not None and node is not el:
        node = node.getparent()
        levels += 1
    if node is None:
        return None
    # the start tag: in the markup between the unit before and the first unit
    lo = partial.byte_ends[first - 1] if first > 0 else partial.root_bytes
    hi = partial.byte_starts[first]
    opened: list[tuple[int, bytes]] = []
    for m in _TAG.finditer(data, lo, hi):
        if m.group(3):
            continue
        if m.group(1):
            if not opened:
                return None
            opened.pop()
        else:
            opened.append((m.start(), m.group(2)))
    if not _plain(data, lo, hi) or len(opened) < levels:
        return None
    begin, name = opened[-levels]
    # the end tag: in the markup between the last unit and the next
    lo = partial.byte_ends[last]
    hi = partial.byte_starts[last + 1] if last + 1 < len(partial.byte_starts) else len(data)
    if not _plain(data, lo, hi):
        return None
    depth = 0
    end = -1
    for m in _TAG.finditer(data, lo, hi):
        if m.group(3):
            continue
        if not m.group(1):
            depth += 1
        elif depth:
            depth -= 1
        else:
            levels -= 1
            if levels == 0:
                if m.group(2) != name:
                    return None
                end = m.end()
                break
    if end < 0:
        return None
    return partial.char_of(begin, first), partial.char_of(end, last + 1), begin, end


def _plain(data: bytes, lo: int, hi: int) -> bool:
    """No comment, CDATA section or processing instruction in ``data[lo:hi]``."""
    return data.find(b"<!", lo, hi) < 0 and data.find(b"<?", lo, hi) < 0


def _stretches(nodes: NodeMap, part: str, indices: list[int]) -> list[_Stretch] | None:
    """The stretches of siblings that hold the outermost paragraphs ``indices`` (sorted) of
    ``part``'s layout, two paragraphs in one stretch when only range markup (bookmarks,
    comment ranges, ...) stands between them."""
    layout = nodes.layout(part)
    if layout is None:
        return None
    partial = nodes.partial(part)
    solid = partial.solid if partial is not None else _same
    byte_starts = partial.byte_starts if partial is not None else None
    byte_ends = partial.byte_ends if partial is not None else None
    if partial is not None:  # their paragraphs, and those beside, parsed a few dozen at a time
        partial.prefetch(indices)
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
            begin = byte_starts[i] if byte_starts is not None else None
            stretch = _Stretch(parent, solid(el.getprevious()), None, layout.starts[i], 0, begin)
            out.append(stretch)
        stretch.right = solid(el.getnext())
        stretch.end = layout.ends[i]
        stretch.end_byte = byte_ends[i] if byte_ends is not None else None
        last_el, last_i = el, i
    return out


def _same(node: etree._Element | None) -> etree._Element | None:
    return node


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
