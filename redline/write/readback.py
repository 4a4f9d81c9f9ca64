"""The output read back by reading again only what the write changed.

Before a redlined document is published it is read back as the loader reads any document
(:func:`redline.write.publish.check_output`): a document the loader would refuse is never written.
Read in full, that costs as much as reading the input again.  But the writer changes few
parts, and in a changed part it replaces only a few stretches of paragraphs
(:mod:`redline.write.splice`); everything else of the output is byte for byte the input, which the
input's own read has already checked and read.  :func:`read_again` reads the output so:

* the package is loaded from the output's bytes exactly as :meth:`Package.from_bytes` loads
  any (every zip, size, ratio, inflation, DOCTYPE, tag-count, namespace and macro check);
* a story part whose bytes did not change keeps its stories as the input's view read them
  (their text and spans copied, offsets shifted);
* a story part the writer serialised whole is scanned whole, as the full read would;
* in the main part, each spliced stretch is scanned again as a *window* of whole outermost
  paragraphs, the scanner resumed where the input's scan stood at the window's first
  paragraph (its ordinal, the paragraph kept last before it and whether that one's mark was
  deleted), and the input's reading of everything between windows copied, its node ordinals
  and text offsets shifted.  A window begins at a paragraph where the input's scanner was in
  no complex field and no flagged element (:attr:`redline.read.scan.Layout.entered`), and ends at
  one where both the input's and the output's scanners are in neither and agree on whether
  that paragraph is separated from the one before; it is widened, paragraph by paragraph,
  until they do.  Why that is exact: what the scanner emits from a point on depends only on
  the text from there and its state there; the text after a window is the input's, and the
  state there -- the elements open (fixed by the end tags that follow, the same in both),
  the open complex fields (none in both), the paragraph kept last and whether its mark was
  deleted (compared) -- is the same but for the last paragraph's node, which is the one
  span copied with the output's node;
* the checks the full read makes of the whole main part are made too, with the same
  verdicts: DOCTYPE, encoding and prefixes never redeclared (over the whole part: byte
  searches), no CDATA (in what was put in: the input had none, and none can cross an edge of
  a splice), UTF-8 and no CR (in each window, which holds every byte put in),
  libxml2's well-formedness with no comment or processing instruction (of what was put in,
  at its depth with the namespaces in scope there: :func:`spliced_well_formed` says why that
  is the whole part's verdict; a test holds the two equal), no markup inside text (searched
  in each window and the tags at its edges: outside them the text is the input's, and no
  match can cross into a window from there);
* the text and paragraph limits are checked by the same builder, on the same stories;
* numbering and styles are read as the full read reads them (from the input's parsed parts
  when they are the same, unchanged).

Whenever this path cannot vouch for the result it gives up and the full read
(:func:`redline.read.load.load_view`) reads the output instead: a part the input's view did not
scan, a main part serialised whole, a complex field or flagged element open at the start of
the main part's first paragraph and a window that reaches it, section properties with header
or footer references inside a window that does not reach the body's end, a window whose
bytes are not UTF-8 or hold a CR, a header, footer or notes part the scanner leaves to the
tree walk, the limits differing from the input's, and every refusal (so that a refusal is the
full read's own, code and message).  :data:`COUNTS` counts the reasons.
"""

from __future__ import annotations

import bisect
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import add, attrgetter
from typing import Any

from lxml import etree

from ..collector import paused
from ..opc.namespaces import REL_NUMBERING, REL_STYLES, declarations
from ..opc.package import Package, PackageError
from ..opc.working import WorkingCopy
from ..opc.xmlparse import find_doctype, make_parser
from ..opc.zipread import DEFAULT_LIMITS, Limits
from ..read import scan
from ..read.build import ViewBuilder, scan_story_part, story_parts
from ..read.labels import numbering_of
from ..read.numbering import Numbering
from ..read.paragraphs import StoryText, text_limit
from ..read.view import DocumentView, NodeMap, Paragraph, Scanned, SpanKind, Story
from .splice import ByteOffsets, Spliced

__all__ = ["COUNTS", "Changes", "read_again", "spliced_counts", "tag_change"]

#: How :func:`read_again`'s read-backs went, counted over the process's life: ``"read again"``
#: for each it read itself, and for each it left to the full read, the reason.
COUNTS: Counter[str] = Counter()


@dataclass
class Changes:
    """What a write changed: the parts replaced (their new bytes), the parts added, and in
    each spliced part the stretches replaced (:attr:`redline.write.splice.Splice.spliced`)."""

    changed: Mapping[str, bytes] = field(default_factory=dict)
    added: Sequence[tuple[str, bytes]] = ()
    spliced: Mapping[str, list[Spliced]] = field(default_factory=dict)


class _GiveUp(Exception):
    """The incremental read cannot vouch for the result: the full read decides."""


def read_again(
    package: Package,
    view: DocumentView,
    output: bytes,
    changes: Changes,
    limits: Limits | None = None,
    *,
    labels: bool = True,
) -> tuple[Package, DocumentView] | None:
    """``output`` (``package`` written with ``changes``) read back as :func:`redline.read.load.load_view`
    reads it, the stories the write left alone taken from ``view`` (the view the write was
    made from); None when the full read must decide (see the module docstring).  Raises
    nothing: a refusal is always left to the full read."""
    try:
        found = _read_again(package, view, output, changes, limits or DEFAULT_LIMITS, labels)
    except _GiveUp as why:
        COUNTS[str(why)] += 1
    except PackageError as exc:
        COUNTS[f"refused: {exc.code}"] += 1
    except scan.Unscannable:
        COUNTS["unscannable"] += 1
    else:
        COUNTS["read again"] += 1
        return found
    return None


def _read_again(
    package: Package, view: DocumentView, output: bytes, changes: Changes, limits: Limits, labels: bool
) -> tuple[Package, DocumentView]:
    old_nodes = view.span_nodes
    if view.scanned is None or not isinstance(old_nodes, NodeMap) or view.revision != package.revision:
        raise _GiveUp("the input's view was not scanned")
    if limits != package.limits:
        raise _GiveUp("other limits")
    # the bytes the write deflated, by the members' names, and the members it copied from the
    # input's are taken as they are, not inflated again (Package.from_bytes: their sizes and
    # CRCs checked; every other check of the load made as of any package)
    written = {package.find(name) or name: data for name, data in changes.changed.items()}
    written.update((name, bytes(data)) for name, data in changes.added)
    counted = {
        found: counts
        for name, spliced in changes.spliced.items()
        if (found := package.find(name)) is not None
        and found in written
        and (counts := spliced_counts(package, found, written[found], spliced)) is not None
    }
    new = Package.from_bytes(output, limits, vouched=package, written=written, counted=counted)
    main = new.main_part
    if main != package.main_part:
        raise _GiveUp("another main part")
    changed = {new.find(name) or name for name in changes.changed}
    changed.update(new.find(name) or name for name, _ in changes.added)
    with paused(), text_limit(new.limits.max_text_chars):
        old = _Old(view, old_nodes, main)
        builder = ViewBuilder()
        totals: dict[str, int] = {}
        layouts: dict[str, scan.Layout | None] = {}
        if main in changed:
            spliced = changes.spliced.get(main)
            if not spliced:
                raise _GiveUp("the main part was serialised whole")
            if not spliced_well_formed(spliced):
                raise _GiveUp("a splice not plainly well-formed")
            data = new.read(main)
            counts = new.counts(main)
            xmlns = counts[1] if counts is not None else None
            body, refs, totals[main], layouts[main] = _Body(
                old, package.read(main), data, spliced, xmlns
            ).read()
        else:
            body, refs = old.body_text(), view.scanned.refs
            totals[main], layouts[main] = old.totals[main], old.layouts.get(main)
        builder.add(body, Story(main, "body", None))
        _other_stories(new, old, builder, [(kind, rid) for _, kind, rid in refs], changed, totals, layouts)
        working = WorkingCopy(new)
        nodes = NodeMap(working, builder.span_nodes, builder.runs, totals, layouts)
        out = builder.finish(new.revision, nodes)
        out.working = working
        out.scanned = Scanned(builder.props, refs)
        numbering = _numbering(new, package, changed)
        out.unlabelled = (numbering, builder.props)
    if labels:
        out.finish_labels()
    return new, out


def tag_change(package: Package, part: str, data: bytes, spliced: Sequence[Spliced] | None) -> int:
    """The tags (``<``) ``data``, ``part``'s new bytes, holds more than the package's part does
    (fewer: negative), counted from the splices when ``data`` is the part with ``spliced`` put in."""
    counts = spliced_counts(package, part, data, spliced) if spliced else None
    new = counts[0] if counts is not None else data.count(b"<")
    old = package.counts(part)
    return new - (old[0] if old is not None else package.read(part).count(b"<"))


def spliced_counts(
    package: Package, part: str, data: bytes, spliced: Sequence[Spliced]
) -> tuple[int, int] | None:
    """The tags (``<``) and the ``xmlns`` in ``data``, the bytes of ``part`` with ``spliced``'s
    stretches put in, counted from the input's counts (:meth:`Package.counts`) and what each
    stretch took out and put in; None when ``data`` is not exactly that (every byte between
    the stretches compared with the input's) or the input's counts are unknown.  Exact: each
    stretch's edges are a ``<`` (or the part's end), in which no ``xmlns`` can cross them."""
    found = package.counts(part)
    if found is None:
        return None
    tags, xmlns = found
    old = package.read(part)
    view = memoryview(old)
    at = copied = 0  # in data, in old
    for s in sorted(spliced, key=attrgetter("start_byte")):
        if s.start_byte < copied or not data.startswith(view[copied : s.start_byte], at):
            return None
        at += s.start_byte - copied
        if not data.startswith(s.put, at):
            return None
        at += len(s.put)
        tags += s.put.count(b"<") - old.count(b"<", s.start_byte, s.end_byte)
        xmlns += s.put.count(b"xmlns") - old.count(b"xmlns", s.start_byte, s.end_byte)
        copied = s.end_byte
    if len(data) - at != len(old) - copied or not data.startswith(view[copied:], at):
        return None
    return tags, xmlns


def spliced_well_formed(spliced: Sequence[Spliced]) -> bool:
    """libxml2's verdict on a part the input's scan vouched for (:class:`redline.read.scan.Check`
    passed it) with ``spliced``'s stretches put in: the verdict :class:`redline.read.scan.Check`
    gives the whole part, reached by parsing only what was put in.

    Why it is the same verdict: each stretch replaced was content of one element (whole
    sibling elements and the character data after the last, from a start tag up to the next
    tag), and what was put there is parsed as the content of an element at that same depth
    declaring every namespace in scope there -- so it is well-formed there exactly when it
    parses so.  XML's grammar and its well-formedness constraints (matching tags, unique
    attributes, declared prefixes, legal characters and references: no entity but the
    predefined ones, a DOCTYPE being refused) are each decided inside one stretch or inside
    the unchanged text; libxml2's limits are too -- the nesting depth (the wrapper's depth is
    the stretch's, and one more: a tree parse's limit, :func:`redline.opc.xmlparse.one_deeper`),
    the size of a name, an attribute value or a text node (a text node never
    crosses a stretch's edge: each edge is a ``<``) -- and none counts over the whole part.
    No comment or processing instruction may be put in, as :class:`redline.read.scan.Check` asks.

    Parsed a parent at a time: the stretches under one parent are put one after another,
    each in an element of its own, :data:`_PUT` (at the depth the wrapper above gave each
    before), and parsed as one -- well-formed exactly when each is (a stretch holding that
    name is parsed on its own: no put can then close or open the element around it, so each
    must be balanced inside its own, and every other constraint is decided inside one
    stretch); :func:`each_well_formed` parses them one by one, the long way the tests hold
    this to.  (Stricter only than that long way's leniency: a put that closes the wrapper
    around it and opens another, ``</x><x>``, passed one by one -- no serialised paragraph
    holds one, and a parent at a time refuses it, leaving it to the full read.)
    """
    if any(s.put.find(_PUT) >= 0 for s in spliced):
        return each_well_formed(spliced)
    groups: dict[etree._Element, list[bytes]] = {}
    for s in spliced:
        groups.setdefault(s.parent, []).append(s.put)
    found = scan.OddNodes()
    parser = make_parser(found)  # one parser, one parent's stretches after another's
    open_put, close_put = b"<" + _PUT + b">", b"</" + _PUT + b">"
    for parent, puts in groups.items():
        head, tail = _wrapper(parent, 1)  # (the put element is the last level)
        body = b"".join([piece for put in puts for piece in (open_put, put, close_put)])
        try:
            etree.fromstring(head + body + tail, parser)
        except Exception:  # malformed, or over a limit: the full read says which
            return False
        if found.odd:
            return False
    return True


_PUT = b"redline-put"
"""The element each stretch is put in when a parent's stretches are parsed as one."""


def _wrapper(parent: etree._Element, extra: int) -> tuple[bytes, bytes]:
    """The start and end tags a stretch under ``parent`` is parsed inside: one level more
    than its own depth, less ``extra`` (levels the caller adds), the outermost declaring
    every namespace in scope there."""
    depth = 1 + sum(1 for _ in parent.iterancestors())
    decls = declarations(parent.nsmap)
    # one level more than the stretch's own: parsed without a tree, libxml2 lets one level
    # more through than a tree parse does (redline.opc.xmlparse.one_deeper)
    head = f"<x{decls}>" + "<x>" * (depth - extra)
    return head.encode("utf-8"), b"</x>" * (depth + 1 - extra)


def each_well_formed(spliced: Sequence[Spliced]) -> bool:
    """:func:`spliced_well_formed`'s verdict, each stretch parsed on its own."""
    heads: dict[etree._Element, tuple[bytes, bytes]] = {}
    found = scan.OddNodes()
    parser = make_parser(found)  # one parser, one stretch after another
    for s in spliced:
        parent = s.parent
        found_head = heads.get(parent)
        if found_head is None:
            found_head = heads[parent] = _wrapper(parent, 0)
        wrapped = found_head[0] + s.put + found_head[1]
        try:
            etree.fromstring(wrapped, parser)
        except Exception:  # malformed, or over a limit: the full read says which
            return False
        if found.odd:
            return False
    return True


def _numbering(new: Package, package: Package, changed: set[str]) -> Numbering:
    """The output's numbering definitions, as the full read finds them: from the input's
    parsed (and checked) parts when the output's numbering and styles parts are the same
    parts, unchanged -- the same bytes read to the same definitions -- else read anew."""
    main = new.main_part
    parts = [new.related(main, rel) for rel in (REL_NUMBERING, REL_STYLES)]
    if parts != [package.related(main, rel) for rel in (REL_NUMBERING, REL_STYLES)]:
        return numbering_of(new)
    if any(part in changed for found in parts for part in found[:1]):
        return numbering_of(new)
    return numbering_of(package)


class _Old:
    """The input's view, read as the stories and stretches its scan produced."""

    def __init__(self, view: DocumentView, nodes: NodeMap, main: str) -> None:
        assert view.scanned is not None
        self.view = view
        self.paras = view.paragraphs
        self.props = view.scanned.props
        self.ordinals: list[int] = nodes._ordinals
        self.totals = nodes._totals
        self.layouts = nodes._layouts
        self.main = main
        # the body's paragraphs come first, and only they are the main part's
        paras = self.paras
        lo, hi = 0, len(paras)
        while lo < hi:
            mid = (lo + hi) // 2
            if paras[mid].part == main:
                lo = mid + 1
            else:
                hi = mid
        self.n_body = lo

    def stretch(self, first: int, last: int, shift_ordinals: int, out: StoryText) -> None:
        """Append the input's reading of paragraphs ``first`` to ``last`` (exclusive) --
        the separator before the first if it had one -- to ``out``, node ordinals shifted."""
        if first >= last:
            return
        paras, view = self.paras, self.view
        sep = first > 0 and paras[first].story_no == paras[first - 1].story_no
        sep = sep and paras[first].start != paras[first - 1].end
        t_a = paras[first].start - (1 if sep else 0)
        t_b = paras[last - 1].end
        starts = view.span_starts
        s_a, s_b = bisect.bisect_left(starts, t_a), bisect.bisect_left(starts, t_b)
        shift = out.size - t_a
        out.offsets.extend(map(add, starts[s_a:s_b], repeat(shift)) if shift else starts[s_a:s_b])
        ordinals = self.ordinals[s_a:s_b]
        out.nodes.extend(map(add, ordinals, repeat(shift_ordinals)) if shift_ordinals else ordinals)
        out.kinds.extend(view.span_kinds[s_a:s_b])
        out.flags.extend(view.span_flags[s_a:s_b])
        out.pieces.append(view.text[t_a:t_b])
        k = len(out.paragraphs)
        these = paras[first:last]  # (attrgetter and map: the loops run in C)
        refs = map(_REF, these)
        out.paragraphs.extend(
            zip(
                map(add, map(_START, these), repeat(shift)) if shift else map(_START, these),
                map(add, map(_END, these), repeat(shift)) if shift else map(_END, these),
                map(add, refs, repeat(shift_ordinals)) if shift_ordinals else refs,
                self.props[first:last],
                strict=True,
            )
        )
        out.field_code.extend(compress(range(k, k + len(these)), map(_FIELD_CODE, these)))
        out.cells.extend((k + i, p.cell) for i, p in enumerate(these) if p.cell)
        out.size += t_b - t_a

    def body_text(self) -> StoryText:
        out = StoryText()
        self.stretch(0, self.n_body, 0, out)
        return out

    def stories_of(self, part: str) -> list[tuple[str, StoryText]]:
        """The input's stories of ``part`` (not the main part), as (kind, text)."""
        found: list[tuple[str, StoryText]] = []
        paras = self.paras
        i, n = self.n_body, len(paras)
        while i < n and paras[i].part != part:
            i += 1
        while i < n and paras[i].part == part:
            j = i
            while j < n and paras[j].story_no == paras[i].story_no:
                j += 1
            out = StoryText()
            self.stretch(i, j, 0, out)
            found.append((paras[i].story, out))
            i = j
        return found


_START, _END, _REF, _FIELD_CODE = (attrgetter(name) for name in ("start", "end", "ref", "field_code"))


def _ref(p: Paragraph) -> int:
    ref = p.ref
    assert isinstance(ref, int)
    return ref


def _other_stories(
    package: Package,
    old: _Old,
    builder: ViewBuilder,
    refs: list[tuple[str, str]],
    changed: set[str],
    totals: dict[str, int],
    layouts: dict[str, scan.Layout | None],
) -> None:
    """The stories after the body, as :func:`redline.read.build._scan_other_stories` reads them: a
    part the write left alone from the input's view, any other scanned whole."""
    for part, kind in story_parts(package, refs):
        if part not in changed and part in old.totals:
            for found_kind, text in old.stories_of(part):
                if found_kind != kind:
                    raise _GiveUp("a story part of another kind")
                builder.add(text, Story(part, kind, None))
            totals[part], layouts[part] = old.totals[part], old.layouts.get(part)
            continue
        scanner = scan_story_part(package, part, kind, builder)
        if scanner is None:
            raise _GiveUp("a story part for the tree walk")
        totals[part] = scanner.total()
        layouts[part] = scanner.layout()


class _Body:
    """The output's main part read as the input's, but for the windows around its splices."""

    def __init__(
        self, old: _Old, old_data: bytes, data: bytes, spliced: list[Spliced], xmlns: int | None = None
    ) -> None:
        layout = old.layouts.get(old.main)
        if layout is None:
            raise _GiveUp("the main part was not placed")
        self.old, self.layout = old, layout
        self.old_data, self.data = old_data, data
        self.spliced = sorted(spliced, key=lambda s: s.start)
        # the checks the scanner's prepare() makes of a whole part, where they are cheap
        if find_doctype(data):
            raise _GiveUp("a DOCTYPE")
        text = data[: layout.root_bytes].decode("utf-8", "replace")
        # (``xmlns``: the output's count of "xmlns", the load's; when the root's start tag
        # holds them all, none below it can rebind a prefix: not searched for in the part)
        below = xmlns is None or xmlns != data.count(b"xmlns", 0, layout.root_bytes)
        head = scan.plain_root(data if below else data[: layout.root_bytes], text)
        if head is None or head.root_end != layout.root_bytes or len(text) != layout.root_end:
            raise _GiveUp("another root, encoding or prefix")
        self.w, self.r, mc = head.prefixes
        self.root = head.root.group(1)
        # the input had none after its root; one the splices made lies inside what they put
        # (each edge of a splice is a "<", which "CDATA[" does not hold)
        if any(s.put.find(b"CDATA[") >= 0 for s in spliced):
            raise _GiveUp("a CDATA section")
        self.patterns = scan.patterns(self.w, mc)
        close = data.rfind(f"</{self.w}:body".encode())
        if close < 0:
            raise _GiveUp("no body end")
        self.body_close = close  # in the output's bytes
        self.entered = layout.entered
        self._entered_in_order = sorted(layout.entered)  # (for _copy's ranges, by bisection)
        self.units = len(layout.ordinals)
        self._para_units: list[int] | None = None
        # per splice, its paragraphs (units of the input's layout)
        self.spans: list[tuple[int, int]] = []
        for s in self.spliced:
            # a splice of paragraphs begins at one's start tag and ends at one's end; a
            # container's (a table: redline.write.splice.Splice.container) in the markup
            # between: its window begins at the paragraph before it and ends before the one
            # after it
            first = bisect.bisect_left(layout.starts, s.start)
            if first >= self.units or layout.starts[first] != s.start:
                first -= 1
                if first < 0 or layout.ends[first] > s.start:
                    raise _GiveUp("a splice not at paragraphs")
            last = bisect.bisect_left(layout.ends, s.last_end)
            if last >= self.units or layout.ends[last] != s.last_end:
                last -= 1
                if last < first or (last + 1 < self.units and layout.starts[last + 1] < s.end):
                    raise _GiveUp("a splice not at paragraphs")
            self.spans.append((first, last))

    # -- the input's paragraphs by unit ------------------------------------------------------
    def first_para(self, unit: int) -> int:
        """The index of the input's first body paragraph in unit ``unit`` or later."""
        if unit >= self.units:
            return self.old.n_body
        if self._para_units is None:  # per body paragraph, one more than its unit (never decreasing)
            ordinals = list(self.layout.ordinals)  # (a list bisects faster than an array)
            refs = map(_REF, self.old.paras[: self.old.n_body])
            self._para_units = list(map(bisect.bisect_right, repeat(ordinals), refs))
        return bisect.bisect_left(self._para_units, unit + 1)

    def _separated(self, para: int) -> bool:
        """Did the input's scan separate body paragraph ``para`` from the one before?"""
        paras = self.old.paras
        return para > 0 and paras[para].start != paras[para - 1].end

    def read(self) -> tuple[StoryText, list[tuple[int, str, str]], int, scan.Layout]:
        old, layout = self.old, self.layout
        out = StoryText()
        units_o, units_s, units_e = array("q"), array("q"), array("q")
        entered: set[int] = set()
        refs: list[tuple[int, str, str]] = []
        old_refs = old.view.scanned.refs if old.view.scanned is not None else []
        carry: tuple[Any, bool] = (None, False)
        d_ord = d_char = d_byte = 0  # the output less the input, in ordinals, characters, bytes
        done = 0  # the input's units composed so far
        k = 0  # the next splice
        last_old_byte = (0, 0)  # a (character, byte) place of the input known to agree
        while k < len(self.spliced):
            first, _ = self.spans[k]
            start = self._window_start(first, done)
            # the input's reading of units done..start, shifted
            carry = self._copy(done, start, d_ord, d_char, out, carry, units_o, units_s, units_e, entered)
            refs.extend((at + d_char, kind, rid) for at, kind, rid in old_refs if self._in(at, done, start))
            # the window's start in the input's bytes
            s = self.spliced[k]
            begin_char = layout.starts[start]
            begin_byte = self._back(s.start_byte, s.start - begin_char)
            if begin_byte < last_old_byte[1]:
                raise _GiveUp("windows out of order")
            # read windows of the output until the state agrees with the input's
            scanner: scan.Scanner | None = None
            at_byte = begin_byte + d_byte  # in the output
            at_char = begin_char + d_char
            end_unit = first
            walker: ByteOffsets | None = None
            while True:
                # take in every splice that begins before the window's end, and end it where
                # the input's scanner was in no field and no flagged element
                while True:
                    while k < len(self.spliced) and self.spans[k][0] <= end_unit:
                        end_unit = max(end_unit, self.spans[k][1] + 1)
                        s = self.spliced[k]
                        d_byte += len(s.put) - (s.end_byte - s.start_byte)
                        d_char += len(s.put.decode("utf-8", "replace")) - (s.end - s.start)
                        walker = ByteOffsets(self.old_data, s.end, s.end_byte)
                        k += 1
                    if end_unit < self.units and end_unit in self.entered:
                        end_unit += 1
                        continue
                    break
                final = end_unit >= self.units
                if final:
                    stop_byte = self.body_close
                else:
                    assert walker is not None
                    stop_byte = walker.of(layout.starts[end_unit]) + d_byte
                piece = self._decode(at_byte, stop_byte)
                src = scan.Source(
                    old.main, piece, self.w, self.r, self.root, 0, self.patterns, "&" in piece, 0
                )
                if scanner is None:
                    scanner = scan.Scanner(src)
                    scanner.ordinal = layout.ordinals[start] + d_ord
                    scanner._carry, scanner._fields = carry, []
                else:
                    scanner.feed(src)
                n_units = len(scanner._units[0])
                text = scanner.story(0, len(piece), True)
                self._append(text, out)
                self._units_from(scanner, n_units, at_char, units_o, units_s, units_e, entered)
                placed = scanner.placed_references()
                if placed and not final:
                    raise _GiveUp("section references in a window")
                refs.extend((at + at_char, kind, rid) for at, kind, rid in placed)
                at_char += len(piece)
                at_byte = stop_byte
                carry = scanner._carry
                if final:
                    tail = self.data[self.body_close :].decode("utf-8", "replace")
                    total = scanner.ordinal + len(self.patterns.nodes.findall(tail))
                    return out, refs, total, self._layout(units_o, units_s, units_e, entered)
                if not scanner._fields and self._agrees(end_unit, carry):
                    break
                end_unit += 1
            assert scanner is not None
            d_ord = scanner.ordinal - layout.ordinals[end_unit]
            d_char = at_char - layout.starts[end_unit]
            last_old_byte = (layout.starts[end_unit], at_byte - d_byte)
            done = end_unit
        carry = self._copy(done, self.units, d_ord, d_char, out, carry, units_o, units_s, units_e, entered)
        refs.extend((at + d_char, kind, rid) for at, kind, rid in old_refs if self._in(at, done, self.units))
        total = old.totals[old.main] + d_ord
        return out, refs, total, self._layout(units_o, units_s, units_e, entered)

    def _in(self, at: int, first: int, last: int) -> bool:
        """Is character ``at`` of the input in units ``first`` to ``last`` (exclusive; the
        last unit runs on to the part's end)?"""
        if first >= last:
            return False
        starts = self.layout.starts
        lo = starts[first] if first > 0 else 0
        return lo <= at and (last >= self.units or at < starts[last])

    def _window_start(self, first: int, done: int) -> int:
        """The unit to read again from, at or before ``first`` and not before ``done``: one
        where the input's scanner was in no field and no flagged element, and where the
        paragraph kept last before it is known to have been joined to the next or not."""
        start = first
        while start > done:
            if start not in self.entered and self._carry_known(done, start):
                return start
            start -= 1
        if start == 0 and 0 in self.entered:
            raise _GiveUp("a field open at the first paragraph")
        return start

    def _carry_known(self, done: int, start: int) -> bool:
        a, b = self.first_para(done), self.first_para(start)
        return a == b or b < self.old.n_body

    def _agrees(self, unit: int, carry: tuple[Any, bool]) -> bool:
        """Would the input's reading from ``unit`` on follow the output's scan as it stands?"""
        para = self.first_para(unit)
        if para >= self.old.n_body:
            return True
        return self._separated(para) == (carry[0] is not None and not carry[1])

    def _copy(
        self,
        first: int,
        last: int,
        d_ord: int,
        d_char: int,
        out: StoryText,
        carry: tuple[Any, bool],
        units_o: array[int],
        units_s: array[int],
        units_e: array[int],
        entered: set[int],
    ) -> tuple[Any, bool]:
        """Append the input's reading of units ``first`` to ``last`` (exclusive), shifted;
        the carry after them."""
        if first >= last:
            return carry
        layout, old = self.layout, self.old
        base = len(units_o)
        units_o.extend(map(add, layout.ordinals[first:last], repeat(d_ord)))
        units_s.extend(map(add, layout.starts[first:last], repeat(d_char)))
        units_e.extend(map(add, layout.ends[first:last], repeat(d_char)))
        order = self._entered_in_order
        lo, hi = bisect.bisect_left(order, first), bisect.bisect_left(order, last)
        entered.update(map(add, order[lo:hi], repeat(base - first)))
        a, b = self.first_para(first), self.first_para(last)
        if a == b:
            return carry
        sep = self._separated(a)
        if sep != (carry[0] is not None and not carry[1]):
            raise _GiveUp("a separator that does not agree")  # pragma: no cover - _agrees checked
        mark = len(out.nodes)
        old.stretch(a, b, d_ord, out)
        if sep:
            assert out.kinds[mark] == SpanKind.MARK
            out.nodes[mark] = carry[0]  # the separator's node: the paragraph kept last now
        if b < old.n_body:
            return (_ref(old.paras[b - 1]) + d_ord, not self._separated(b))
        if last < self.units:
            raise _GiveUp("the last paragraph's mark unknown")
        return (_ref(old.paras[b - 1]) + d_ord, False)  # nothing follows it: never asked

    @staticmethod
    def _append(text: StoryText, out: StoryText) -> None:
        shift, k = out.size, len(out.paragraphs)
        out.offsets.extend(map(add, text.offsets, repeat(shift)))
        out.nodes.extend(text.nodes)
        out.kinds.extend(text.kinds)
        out.flags.extend(text.flags)
        out.pieces.extend(text.pieces)
        out.paragraphs.extend((s + shift, e + shift, ref, own) for s, e, ref, own in text.paragraphs)
        out.field_code.extend(k + i for i in text.field_code)
        out.cells.extend((k + i, depth) for i, depth in text.cells)
        out.size += text.size

    @staticmethod
    def _units_from(
        scanner: scan.Scanner,
        n: int,
        at: int,
        units_o: array[int],
        units_s: array[int],
        units_e: array[int],
        entered: set[int],
    ) -> None:
        o, s, e = scanner._units
        base = len(units_o)
        units_o.extend(o[n:])
        units_s.extend(map(add, s[n:], repeat(at)))
        units_e.extend(map(add, e[n:], repeat(at)))
        entered.update(base + u - n for u in scanner._entered if u >= n)

    def _layout(
        self, units_o: array[int], units_s: array[int], units_e: array[int], entered: set[int]
    ) -> scan.Layout:
        return scan.Layout(
            self.layout.root_end, self.layout.root_bytes, units_o, units_s, units_e, frozenset(entered)
        )

    def _decode(self, start: int, end: int) -> str:
        """The output's text from byte ``start`` to ``end``, with the checks the scanner's
        prepare() makes of a whole part made of it: UTF-8, no CR, no markup inside text
        (the tag at each edge included: see the module docstring)."""
        try:
            piece = self.data[start:end].decode("utf-8")
        except UnicodeDecodeError:
            raise _GiveUp("a window not in UTF-8") from None
        if "\r" in piece:
            raise _GiveUp("a CR in a window")
        before = self.data.rfind(b"<", 0, start)
        after = self.data.find(b">", end)
        edges = self.data[before if before >= 0 else start : after + 1 if after >= 0 else end]
        if self.patterns.markup_in_text.search(edges.decode("utf-8", "replace")) is not None:
            raise _GiveUp("markup inside text")
        return piece

    def _back(self, byte: int, chars: int) -> int:
        """The byte ``chars`` characters before byte ``byte`` (a character's start) of the input."""
        if chars <= 0:
            return byte
        lo = max(self.layout.root_bytes, byte - 4 * chars)
        while lo < byte and 0x80 <= self.old_data[lo] < 0xC0:
            lo += 1
        text = self.old_data[lo:byte].decode("utf-8")
        if len(text) < chars:
            raise _GiveUp("a window start not found")
        return byte - len(text[len(text) - chars :].encode("utf-8"))
