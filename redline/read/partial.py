"""A main part's tree parsed only where it is asked for: the paragraphs a write touches.

A scanned view names its nodes by ordinal (:mod:`redline.read.scan`) and a write asks for the
elements of the few paragraphs it changes; parsing the whole part to hand those out costs
about 128 ms on a 300-page contract, as much again as the rest of the write.  A
:class:`Partial` parses a *skeleton* instead: the part's bytes with every outermost paragraph
(a unit of the scanner's :class:`~redline.read.scan.Layout`) replaced by a placeholder, a
processing instruction -- the tables, rows, cells, content controls, range markup and section
properties between paragraphs are parsed, the paragraphs' contents are not.  A unit is parsed
on its own when one of its nodes is first asked for (:meth:`Partial.element`), from its own
bytes inside as many wrapper elements as it had ancestors (the same depth, for the parser's
limit) declaring the namespaces in scope at its place, and put in its placeholder's place.
The paragraph on either side of a unit parsed (range markup between aside) is parsed with it:
what the writer steps to from a paragraph it changes (the next one a deleted mark joins, the
one beside a moved block) is never a placeholder.  The splice knows its paragraphs before it
asks for them: :meth:`Partial.prefetch` parses them, and those beside, a few dozen to a
fragment (a small parse is mostly its wrapper's declarations), each element put in only when
its unit is asked for -- so what is parsed, and every refusal, is as if one by one.  A
parsed unit is the element a whole parse would have made: lxml takes the wrapper's
declarations off it as it moves into the skeleton, where the same ones are in scope, and
the property test in ``tests/test_partial.py`` holds the completed tree's bytes to the whole
parse's.

:meth:`Partial.complete` parses the rest (the whole part once, each unit still a placeholder
moved in from it): whatever walks the whole tree asks for it first
(:meth:`redline.opc.working.WorkingCopy.xml`, :func:`redline.opc.working.whole_root`), and the
tree is then the whole part's.

Checks, as the whole parse made them: the scanner's check (:class:`redline.read.scan.Check`)
has passed libxml2's verdict on the whole part (well-formed, within its depth limit one level
deeper, no comment or processing instruction); each unit parsed is checked to hold the number
of nodes the scanner counted in it, and the skeleton the number between units -- a part
that reads differently as text and as a tree is refused as before (``malformed_xml``), but
only once a write reaches the paragraph that differs.

Not used (:func:`partial_tree` gives None, and the part is parsed whole): a part with no
layout or no paragraph, or one whose namespace declarations bind a prefix to two names or a
name to two prefixes anywhere in it, or make one declaration twice (moving a parsed unit in
could then re-prefix it, or take an inner declaration off as redundant).
"""

from __future__ import annotations

import bisect
import contextlib
import operator
import re
import threading
from collections.abc import Iterable, Iterator
from contextvars import ContextVar

from lxml import etree

from shared_schema import Code

from ..opc.namespaces import declarations, w
from ..opc.xmlparse import PackageError, parse_xml
from .roles import NODE_TAGS, RANGE_MARKUP
from .scan import Layout

__all__ = [
    "PLACEHOLDER", "ByteOffsets", "Partial", "byte_offsets_of", "partial_tree", "plain_namespaces",
    "whole_parts", "wholly",
]  # fmt: skip

PLACEHOLDER = "redline-unit"
"""The target of the processing instruction that stands for a unit not parsed yet."""
_P = w("p")
_PI = f"<?{PLACEHOLDER}?>".encode()
_XMLNS = re.compile(rb"""\sxmlns(?::([^\s=/>]+))?\s*=\s*(?:"([^"]*)"|'([^']*)')""")


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


def _byte_offsets(data: bytes, layout: Layout) -> tuple[list[int], list[int]]:
    """The units' start and end offsets in ``data`` (the layout's are characters): the walk
    of :class:`ByteOffsets`, inlined (two offsets a unit, and a unit's start is mostly the
    last one's end), which ``tests/test_partial.py`` holds to :meth:`ByteOffsets.of`."""
    return byte_offsets_of(data, layout.root_end, layout.root_bytes, layout.starts, layout.ends)


def byte_offsets_of(
    data: bytes, char: int, byte: int, starts: Iterable[int], ends: Iterable[int]
) -> tuple[list[int], list[int]]:
    """``starts`` and ``ends`` (character offsets, taken in turn: a start, its end, the next
    start...) as one :class:`ByteOffsets` from ``char`` at ``byte`` gives them, asked in
    that order."""
    keep = ByteOffsets._NOT_CONTINUATION
    size = len(data)
    b, k = byte, char
    out_s: list[int] = []
    out_e: list[int] = []
    for s, e in zip(starts, ends, strict=True):
        while k < s:
            step = s - k
            b, k = b + step, k + step - len(data[b : b + step].translate(None, keep))
        while b < size and 0x80 <= data[b] < 0xC0:
            b += 1
        out_s.append(b)
        k = s
        while k < e:
            step = e - k
            b, k = b + step, k + step - len(data[b : b + step].translate(None, keep))
        while b < size and 0x80 <= data[b] < 0xC0:
            b += 1
        out_e.append(b)
        k = e
    return out_s, out_e


def plain_namespaces(data: bytes, root_bytes: int, xmlns: int | None = None) -> bool:
    """Does every namespace declaration in ``data`` bind its prefix to one name, every name
    to one prefix, and is each made once?  (lxml takes a declaration off a moved element
    when the same one is in scope where it goes.)  ``xmlns``: how many times ``xmlns`` occurs
    in ``data``, when known (:meth:`redline.opc.package.Package.counts`)."""
    prefix_of: dict[bytes, bytes] = {}
    name_of: dict[bytes, bytes] = {}
    seen: set[tuple[bytes, bytes]] = set()
    # (a byte search first: Word declares every namespace on the root -- and when the part's
    # count of "xmlns" is the root's, none is below it, and no search of the part is needed)
    found = _XMLNS.findall(data, 0, root_bytes)
    below = xmlns is None or xmlns != data.count(b"xmlns", 0, root_bytes)
    if below and data.find(b"xmlns", root_bytes) >= 0:
        found += _XMLNS.findall(data, root_bytes)
    for prefix, dq, sq in found:
        uri = dq or sq
        if prefix_of.setdefault(uri, prefix) != prefix or name_of.setdefault(prefix, uri) != uri:
            return False
        if (prefix, uri) in seen:
            return False
        seen.add((prefix, uri))
    return True


_WHOLE: ContextVar[bool] = ContextVar("redline_whole_parts", default=False)


@contextlib.contextmanager
def whole_parts() -> Iterator[None]:
    """Within: the whole-part path -- every part a write changes parsed whole and serialised
    whole, nothing spliced (the oracle the spliced outputs are held to)."""
    token = _WHOLE.set(True)
    try:
        yield
    finally:
        _WHOLE.reset(token)


def wholly() -> bool:
    """Is the whole-part path asked for (:func:`whole_parts`)?"""
    return _WHOLE.get()


def _unescape(value: str) -> str:
    """An attribute value's text as the parser gives it (references replaced, white space
    normalised)."""
    from .scan import unescape  # (the scanner's own)

    return unescape(value.replace("\t", " ").replace("\n", " ").replace("\r", " "))


def partial_tree(
    data: bytes, part: str, layout: Layout | None, total: int, xmlns: int | None = None
) -> Partial | None:
    """A :class:`Partial` of ``part`` (its bytes ``data``, the scanner's ``layout`` and count
    of nodes ``total``; ``xmlns``: the count of ``xmlns`` in ``data``, when known), or None
    when the part should be parsed whole (see the module)."""
    if layout is None or not len(layout.ordinals) or _WHOLE.get():
        return None
    if not plain_namespaces(data, layout.root_bytes, xmlns):
        return None
    return Partial(data, part, layout, total)


class Partial:
    """One part's tree, its units parsed as they are asked for (see the module)."""

    def __init__(self, data: bytes, part: str, layout: Layout, total: int) -> None:
        self.part = part
        self._data = data
        self._layout = layout
        self._total = total
        self._starts, self._ends = _byte_offsets(data, layout)
        pieces: list[bytes] = []
        at = 0
        for s, e in zip(self._starts, self._ends, strict=True):
            pieces.append(data[at:s])
            pieces.append(_PI)
            at = e
        pieces.append(data[at:])
        skeleton = b"".join(pieces)
        self.parsed_bytes = len(skeleton)
        """Bytes of the part handed to the parser so far (the skeleton, then each unit parsed;
        its wrapper not counted)."""
        self.root = parse_xml(skeleton, part)
        n = len(layout.ordinals)
        self._holders: list[etree._Element | None] = []  # per unit: its placeholder, None once parsed
        self._units: list[etree._Element | None] = [None] * n
        self._nodes: list[list[etree._Element] | None] = [None] * n  # per unit: its nodes, then the gap's
        self._gaps: list[list[etree._Element]] = [[] for _ in range(n)]
        self._before: list[etree._Element] = []  # the nodes before the first unit
        gap = self._before
        for node in self.root.iter(etree.ProcessingInstruction, *NODE_TAGS):
            if isinstance(node, etree._ProcessingInstruction):
                if node.target != PLACEHOLDER or len(self._holders) >= n:
                    raise self._differs()
                gap = self._gaps[len(self._holders)]
                self._holders.append(node)
            else:
                gap.append(node)
        if len(self._holders) != n or len(self._before) != layout.ordinals[0]:
            raise self._differs()
        self._holder_index = {id(h): k for k, h in enumerate(self._holders)}
        self._lock = threading.RLock()
        self._declared: dict[tuple[tuple[str | None, str], ...], str] = {}  # see _nodes_of
        # per parent of a unit (by id): its ancestors from it up (held), its wrapper's head, tail
        self._wrappers: dict[int, tuple[list[etree._Element], bytes, bytes]] = {}
        # per unit parsed ahead (prefetch) and not put in yet: its wrapper's head, element, nodes
        self._ready: dict[int, tuple[bytes, etree._Element, list[etree._Element]]] = {}
        self._filled: dict[int, etree._Element] = {}  # the elements filled (by id: held here)
        self.parsed_units = 0
        """Units parsed on their own so far (:meth:`complete` not counted)."""
        self.completed = False

    # -- where things are in the part's bytes ---------------------------------------------
    @property
    def data(self) -> bytes:
        """The part's bytes."""
        return self._data

    @property
    def byte_starts(self) -> list[int]:
        """Per unit, where its start tag begins in :attr:`data`."""
        return self._starts

    @property
    def byte_ends(self) -> list[int]:
        """Per unit, where its end tag ends in :attr:`data`."""
        return self._ends

    @property
    def root_bytes(self) -> int:
        """Where the root's start tag ends in :attr:`data`."""
        return self._layout.root_bytes

    def char_of(self, byte: int, unit: int) -> int:
        """The character offset (the layout's) of ``byte``, which lies between the units
        before ``unit`` and ``unit`` (its start: ``len(units)``, the part's end)."""
        n = len(self._starts)
        if unit < n:
            ref_byte, ref_char = self._starts[unit], self._layout.starts[unit]
        else:
            ref_byte, ref_char = self._ends[n - 1], self._layout.ends[n - 1]
        lo, hi = (byte, ref_byte) if byte <= ref_byte else (ref_byte, byte)
        chars = len(self._data[lo:hi].translate(None, ByteOffsets._NOT_CONTINUATION))
        chars = (hi - lo) - chars
        return ref_char - chars if byte <= ref_byte else ref_char + chars

    # -- asking for nodes -------------------------------------------------------------------
    def element(self, ordinal: int) -> etree._Element:
        """Node number ``ordinal`` of the part (``NODE_TAGS`` document order)."""
        ordinals = self._layout.ordinals
        if ordinal < ordinals[0]:
            return self._before[ordinal]
        i = bisect.bisect_right(ordinals, ordinal) - 1
        nodes = self._nodes[i]
        if nodes is None:
            nodes = self._nodes_of(i)
        return nodes[ordinal - ordinals[i]]

    def unit(self, i: int) -> etree._Element:
        """Unit ``i``'s paragraph, parsed now if it was not."""
        if self._units[i] is None:
            self._nodes_of(i)
        found = self._units[i]
        assert found is not None
        return found

    def solid(self, node: etree._Element | None) -> etree._Element | None:
        """``node``, or the paragraph parsed in its place when it is a placeholder (what may
        be held on to: a placeholder goes once its unit is parsed)."""
        if node is None or not isinstance(node, etree._ProcessingInstruction):
            return node
        k = self._holder_index.get(id(node))
        if k is None or self._holders[k] is not node:
            return node
        self._nodes_of(k, near=False)
        return self._units[k]

    def unit_of(self, ordinal: int) -> int:
        """The unit holding node ``ordinal`` (-1: before the first)."""
        return bisect.bisect_right(self._layout.ordinals, ordinal) - 1

    def units_in(self, el: etree._Element) -> list[int]:
        """The units inside ``el`` (an element of this tree), in order."""
        found: list[int] = []
        parsed = {id(u): k for k, u in enumerate(self._units) if u is not None}
        for node in el.iter(etree.ProcessingInstruction, _P):
            if isinstance(node, etree._ProcessingInstruction):
                k = self._holder_index.get(id(node))
                if k is not None and self._holders[k] is not node:
                    k = None
            else:
                k = parsed.get(id(node))
            if k is not None:
                found.append(k)
        return found

    def fill(self, el: etree._Element) -> None:
        """Parse every unit inside ``el`` (an element of this tree)."""
        if self.completed or (id(el) in self._filled and self._filled[id(el)] is el):
            return
        self._filled[id(el)] = el
        for node in list(el.iter(etree.ProcessingInstruction)):
            k = self._holder_index.get(id(node))
            if k is not None and self._holders[k] is node:
                self._nodes_of(k)

    def complete(self) -> etree._Element:
        """Parse every unit not parsed yet: the tree is then the whole part's; its root."""
        if self.completed:
            return self.root
        with self._lock:
            return self._complete()

    def _complete(self) -> etree._Element:
        if self.completed:
            return self.root
        self._ready.clear()  # (the whole parse's elements go in instead)
        left = [k for k, h in enumerate(self._holders) if h is not None]
        if left:
            whole = parse_xml(self._data, self.part)
            nodes = list(whole.iter(*NODE_TAGS))
            if len(nodes) != self._total:
                raise self._differs()
            for k in left:
                el = nodes[self._layout.ordinals[k]]
                self._put(k, el)
        self.completed = True
        return self.root

    def values(self, tags: tuple[str, ...], attribute: str) -> set[str]:
        """Every value of ``attribute`` (a qualified name) on the elements ``tags`` of the
        part as it is now: the tree's (the skeleton and the units parsed, changed or not),
        and in the bytes of each unit not parsed yet (unchanged, then)."""
        found = {v for el in self.root.iter(*tags) if (v := el.get(attribute)) is not None}
        if self.completed or not self.pending():
            return found
        prefix_of = {uri: prefix for prefix, uri in self.root.nsmap.items() if prefix}

        def qualified(name: str) -> bytes | None:
            uri, _, local = name[1:].partition("}")
            prefix = prefix_of.get(uri)
            return None if prefix is None else f"{prefix}:{local}".encode()

        names = [qualified(t) for t in tags]
        attr = qualified(attribute)
        if attr is None or any(n is None for n in names):
            self.complete()  # (a prefix only an inner element declares: read the tree)
            return {v for el in self.root.iter(*tags) if (v := el.get(attribute)) is not None}
        starts = b"|".join(re.escape(n) for n in names if n is not None)
        pattern = re.compile(rb"<(?:" + starts + rb""")((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*/?>""")
        wanted = re.compile(rb"""(?:^|\s)""" + re.escape(attr) + rb"""\s*=\s*(?:"([^"]*)"|'([^']*)')""")
        for k, holder in enumerate(self._holders):
            if holder is None:
                continue
            for m in pattern.finditer(self._data, self._starts[k], self._ends[k]):
                a = wanted.search(m.group(1))
                if a is not None:
                    raw = (a.group(1) or a.group(2) or b"").decode("utf-8")
                    found.add(_unescape(raw))
        return found

    def pending(self) -> int:
        """How many units are not parsed yet."""
        return sum(1 for h in self._holders if h is not None)

    def iter_parsed(self) -> Iterator[etree._Element]:
        """The units parsed so far."""
        return (u for u in self._units if u is not None)

    # -- parsing units before they are asked for ---------------------------------------------
    PREFETCH_GROUP = 32
    """Units parsed in one fragment at most by :meth:`prefetch`."""

    def prefetch(self, units: Iterable[int]) -> None:
        """Parse ``units`` (and the paragraph on either side of each, range markup aside, and
        the nodes right beside it: what asking for them parses too), a few dozen to a parse,
        where it costs about a third of one parse each (most of a small parse is its wrapper's
        declarations).  Nothing is put in the tree: each element waits until its unit is
        asked for, so what is parsed, when and in which order, the counts and every refusal
        are the same as without -- a fragment that does not read as its units one by one
        (:meth:`_ready_from`), or one the parser refuses, is left to the units' own parses.
        ``tests/test_partial.py`` holds the trees to the ones parsed one by one."""
        with self._lock:
            if self.completed:
                return
            wanted: dict[int, None] = {}  # (in order, once)
            for i in units:
                holder = self._holders[i] if 0 <= i < len(self._holders) else None
                if holder is None:
                    continue
                wanted[i] = None
                for k in self._beside(holder):
                    wanted[k] = None
            groups: dict[int, tuple[bytes, bytes, int, list[int]]] = {}
            for k in wanted:
                holder = self._holders[k]
                if holder is None or k in self._ready:
                    continue
                head, tail, depth = self._wrapper(holder)
                key = id(holder.getparent())
                group = groups.get(key)
                if group is None or group[0] is not head:
                    group = groups[key] = (head, tail, depth, [])
                group[3].append(k)
            for head, tail, depth, ks in groups.values():
                for at in range(0, len(ks), self.PREFETCH_GROUP):
                    self._ready_from(head, tail, depth, ks[at : at + self.PREFETCH_GROUP])

    def _beside(self, holder: etree._Element) -> list[int]:
        """The units not parsed yet that asking for ``holder``'s would parse too: the first
        sibling on each side that is no range markup, and the node right beside it."""
        found: list[int] = []
        for node in (holder.getprevious(), holder.getnext()):
            k = self._holder_index.get(id(node)) if isinstance(node, etree._ProcessingInstruction) else None
            if k is not None and self._holders[k] is node:
                found.append(k)
        for sibling in (holder.itersiblings(preceding=True), holder.itersiblings()):
            for node in sibling:
                if isinstance(node, etree._ProcessingInstruction):
                    k = self._holder_index.get(id(node))
                    if k is not None and self._holders[k] is node:
                        found.append(k)
                elif node.tag in RANGE_MARKUP:
                    continue
                break
        return found

    def _ready_from(self, head: bytes, tail: bytes, depth: int, ks: list[int]) -> None:
        """Parse units ``ks`` (under one wrapper) in one fragment, separated by placeholders;
        keep each element whose unit reads as it would alone (one element, nothing around it,
        the nodes the scanner counted)."""
        owns = [self._data[self._starts[k] : self._ends[k]] for k in ks]
        try:
            inner = parse_xml(head + _PI.join(owns) + tail, self.part)
        except PackageError:
            return  # (each unit's own parse says which, when it is asked for)
        for _ in range(depth - 1):
            inner = inner[0]
        children = list(inner)
        if len(children) != 2 * len(ks) - 1 or inner.text is not None:
            return
        for n, node in enumerate(children):
            is_pi = isinstance(node, etree._ProcessingInstruction)
            if n % 2 != is_pi or node.tail is not None:
                return
            if isinstance(node, etree._ProcessingInstruction) and node.target != PLACEHOLDER:
                return
            if not is_pi and not isinstance(node.tag, str):
                return  # (a comment: no unit holds one)
        for k, el in zip(ks, children[0::2], strict=True):
            counted = self._counted(k, el)
            if counted is not None:
                self._ready[k] = (head, el, counted)

    # -- parsing one unit --------------------------------------------------------------------
    def _nodes_of(self, i: int, near: bool = True) -> list[etree._Element]:
        found = self._nodes[i]
        if found is not None:
            return found
        with self._lock:  # (one unit parsed once, whichever thread asks first)
            found = self._nodes[i]
            return found if found is not None else self._parse(i, near)

    def _wrapper(self, holder: etree._Element) -> tuple[bytes, bytes, int]:
        """The wrapper a unit is parsed in: as deep as the unit, declaring the namespaces in
        scope there (the same few dozen every time: spelt once per scope, and made once per
        parent -- most units are the body's; a parent moved since is made again: its
        ancestors are compared); its head, its tail and its depth."""
        parent = holder.getparent()
        assert parent is not None
        ancestors = list(holder.iterancestors())
        depth = len(ancestors)
        made = self._wrappers.get(id(parent))
        if made is None or len(made[0]) != depth or not all(map(operator.is_, made[0], ancestors)):
            scope = parent.nsmap
            key = tuple(scope.items())
            declared = self._declared.get(key)
            if declared is None:
                declared = self._declared[key] = declarations(scope)
            head = (f"<x{declared}>" + "<x>" * (depth - 1)).encode()
            made = self._wrappers[id(parent)] = (ancestors, head, b"</x>" * depth)
        return made[1], made[2], depth

    def _parse(self, i: int, near: bool) -> list[etree._Element]:
        holder = self._holders[i]
        assert holder is not None
        head_bytes, tail_bytes, depth = self._wrapper(holder)
        self.parsed_bytes += self._ends[i] - self._starts[i]  # (the wrapper's declarations aside)
        ready = self._ready.pop(i, None)
        if ready is not None and ready[0] == head_bytes:
            # parsed with others already (prefetch), inside the wrapper it would have now
            _, el, counted = ready
        else:
            fragment = head_bytes + self._data[self._starts[i] : self._ends[i]] + tail_bytes
            inner = parse_xml(fragment, self.part)
            for _ in range(depth - 1):
                inner = inner[0]
            if len(inner) != 1:
                raise self._differs()
            el, counted = inner[0], None
        self.parsed_units += 1
        nodes = self._put(i, el, counted)
        if near:  # the paragraph on each side too: the writer steps to it (a join, a move's end)
            for sibling in (el.itersiblings(preceding=True), el.itersiblings()):
                for node in sibling:
                    if isinstance(node, etree._ProcessingInstruction):
                        k = self._holder_index.get(id(node))
                        if k is not None and self._holders[k] is node:
                            self._nodes_of(k, near=False)
                    elif node.tag in RANGE_MARKUP:
                        continue
                    break
        return nodes

    def _counted(self, i: int, el: etree._Element) -> list[etree._Element] | None:
        """``el``'s nodes when it holds as many as the scanner counted in unit ``i``."""
        nodes = list(el.iter(*NODE_TAGS))
        ordinals = self._layout.ordinals
        end = ordinals[i + 1] if i + 1 < len(ordinals) else self._total
        if not nodes or nodes[0] is not el or len(nodes) + len(self._gaps[i]) != end - ordinals[i]:
            return None
        return nodes

    def _put(
        self, i: int, el: etree._Element, counted: list[etree._Element] | None = None
    ) -> list[etree._Element]:
        holder = self._holders[i]
        assert holder is not None
        nodes = counted if counted is not None else self._counted(i, el)
        if nodes is None:
            raise self._differs()
        el.tail = holder.tail
        parent = holder.getparent()
        assert parent is not None
        parent.replace(holder, el)
        self._holders[i] = None
        self._units[i] = el
        nodes.extend(self._gaps[i])
        self._nodes[i] = nodes
        return nodes

    def _differs(self) -> PackageError:
        return PackageError(
            Code.MALFORMED_XML,
            f"The part {self.part} reads differently as text and as an XML tree (an element "
            "where Word allows none, such as markup inside w:t), so edits cannot be placed "
            "in it safely.",
            self.part,
        )
