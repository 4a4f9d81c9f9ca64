"""Labels: the number Word displays before each paragraph, and the section each paragraph lies in.

:func:`numbering_of` reads a package's numbering definitions (and its paragraph styles, which
numbering follows); the labelling pass gives a built view's body paragraphs their labels and
every paragraph its section (:mod:`redline.read.sections`).  A pure function of what the readers
found: it refuses nothing but a circle of styles.
"""

from __future__ import annotations

import bisect
import functools
import io
import re
from array import array
from typing import TYPE_CHECKING, Final

from lxml import etree

from shared_schema import Code

from ..opc.namespaces import REL_NUMBERING, REL_STYLES, w
from ..opc.xmlparse import PackageError, syntax_refusal
from .contents import MAX_CONTENTS_LINE, TAIL, contents_style, ends_in_page_number
from .numbering import Numbering
from .outline import Entry, Head, build_outline
from .roles import ParagraphProps, SpanFlag
from .sections import TYPED_SPAN, is_number

if TYPE_CHECKING:
    from ..opc.package import Package
    from .view import DocumentView


def _label(view: DocumentView, numbering: Numbering, props: list[ParagraphProps]) -> None:
    """Give each body paragraph its displayed label and every paragraph its section
    (:mod:`redline.read.sections`), from the properties ``props`` the reader found for each."""
    entries: list[Entry] = []
    text = view.text
    label_of = numbering.label_of
    # per distinct set of properties (a document has a few dozen): its outline level, and
    # whether its style is a contents style
    known: dict[ParagraphProps, tuple[int | None, bool]] = {}
    for para in view.paragraphs:
        if para.story != "body":
            entries.append(Entry(para.story, None, None, None, "", False, para.cell > 0))
            continue
        own = props[para.index]
        number = label_of(own)
        label, ilvl = number if number is not None else (None, None)
        para.label, para.ilvl = label, ilvl
        styled = known.get(own)
        if styled is None:
            styled = known[own] = (
                numbering.outline_level_of(own), contents_style(numbering.style_names(own.style_id))
            )  # fmt: skip
        outline, contents = styled
        start, end = para.start, para.end
        if not contents:
            contents = ends_as_contents_line(text, start, end)
        # what a typed number needs (a head's title is read from the text when named)
        snippet = "" if is_number(label) else text[start : min(end, start + TYPED_SPAN)]
        entries.append(Entry("body", label, ilvl, outline, snippet, contents, para.cell > 0))
    paras = view.paragraphs
    where = functools.partial(
        _title_text, text, array("q", [p.start for p in paras]), array("q", [p.end for p in paras])
    )
    view.outline = build_outline(entries, where)
    listed = _field_contents(view, view.outline.heads)
    if listed:
        for i in listed:
            entries[i] = entries[i].as_contents()
        view.outline = build_outline(entries, where)
    for para, node in zip(view.paragraphs, view.outline.head_of, strict=True):
        para.node = node
    for head in view.outline.heads:
        view.paragraphs[head.index].level = head.depth


_IN_RESULT = bytes(1 if flag & SpanFlag.FIELD_RESULT else 0 for flag in range(256))


def _field_contents(view: DocumentView, heads: list[Head]) -> list[int]:
    """The heads that are a contents field's lines (a TOC field's hyperlinked entries, with no
    page number or contents style): paragraphs whose text lies wholly in a field's result and
    reads as a later section's heading, word for word."""
    starts = view.span_starts
    # per span, 1 when it lies in a field's result, else 0 (one C pass; most documents have none)
    in_field = bytes(view.span_flags).translate(_IN_RESULT)
    if 1 not in in_field:
        return []

    def in_result(index: int) -> bool:
        para = view.paragraphs[index]
        i = max(0, bisect.bisect_right(starts, para.start) - 1)
        j = bisect.bisect_left(starts, para.end)
        return j > i and in_field.find(0, i, j) < 0

    # (a head in a result has its first span in one: only those are looked at whole)
    paras = view.paragraphs
    at = [heads[j].index for j in first_in_field(starts, in_field, [paras[h.index].start for h in heads])]
    inside = [k for k in at if in_result(k)]
    if not inside:
        return []
    text = view.text
    keys: dict[str, int] = {}  # a heading's text -> the last paragraph with it
    for head in heads:
        para = view.paragraphs[head.index]
        keys[" ".join(text[para.start : para.end].split()).casefold()] = head.index
    found: set[int] = set()
    for index in inside:
        para = view.paragraphs[index]
        later = keys.get(" ".join(text[para.start : para.end].split()).casefold())
        if later is not None and later > index and later not in inside:
            found.add(index)
    # the rest of the same field's result: the heads among the paragraphs next to a contents
    # line that lie wholly in a field's result too (the entries no later heading repeats)
    heads_at = set(inside)
    for index in sorted(found):
        for step in (-1, 1):
            k = index + step
            while 0 <= k < len(view.paragraphs) and view.paragraphs[k].story == "body" and in_result(k):
                if k in heads_at:
                    found.add(k)
                k += step
    return sorted(found)


def first_in_field(starts: list[int], in_field: bytes, at: list[int]) -> list[int]:
    """The places in ``at`` (view offsets, in order) whose span -- the last of ``starts`` at or
    before it, else the first -- lies in a field's result (``in_field[span]`` is 1), in order:
    found from the runs of such spans (a few in most documents), each a stretch of ``at``."""
    found: list[int] = []
    last = len(starts)
    for run in _FIELD_RUN.finditer(in_field):
        a, b = run.span()
        lo = 0 if a == 0 else bisect.bisect_left(at, starts[a])
        hi = len(at) if b == last else bisect.bisect_left(at, starts[b], lo)
        found.extend(range(lo, hi))
    return found


_FIELD_RUN = re.compile(b"\x01+")


def ends_as_contents_line(text: str, start: int, end: int) -> bool:
    """Whether the body paragraph ``text[start:end]`` ends as a line of a table of contents
    does, in a page number (:func:`redline.read.contents.ends_in_page_number`; only a line
    whose last character is a digit, a roman numeral's letter or a space can)."""
    if end - start > MAX_CONTENTS_LINE or end <= start:
        return False
    last = text[end - 1]
    if not (last.isdecimal() or last in _ROMAN_LETTERS or last.isspace()):
        return False
    return ends_in_page_number(text[max(start, end - TAIL) : end], end - start)


_ROMAN_LETTERS: Final = frozenset("ivxlcdmIVXLCDM")


def _title_text(text: str, starts: array[int], ends: array[int], i: int) -> str:
    """The start of paragraph ``i``'s text, as its section's title is made from it (the view's
    text and where its paragraphs are: no paragraph, so no cycle through the heads)."""
    start = starts[i]
    return text[start : min(ends[i], start + 240)]


def numbering_of(package: Package, lean: bool = False) -> Numbering:
    """The document's numbering definitions.  ``lean``: read ``styles.xml`` keeping only its
    paragraph styles (a 350 KB styles part is a 3-4 MB tree, mostly latent styles), and keep
    no tree in the package's cache."""
    main = package.main_part
    numbering = package.related(main, REL_NUMBERING)
    styles = package.related(main, REL_STYLES)
    if not lean:
        found = Numbering.from_parts(
            package.xml(numbering[0]) if numbering else None,
            package.xml(styles[0]) if styles else None,
        )
    else:
        found = Numbering.from_parts(
            package.fresh_xml(numbering[0]) if numbering else None,
            _paragraph_styles(package, styles[0]) if styles else None,
        )
    cycle = found.style_cycle()
    if cycle is not None:
        shown = " \u2192 ".join([*cycle[:6], cycle[0]] if len(cycle) <= 6 else [*cycle[:6], "\u2026"])
        raise PackageError(
            Code.TOO_COMPLEX,
            f"The paragraph styles are based on each other in a circle ({shown}); no word "
            "processor writes that, and their numbering cannot be read, so the document is refused.",
            styles[0] if styles else main,
        )
    return found


def _paragraph_styles(package: Package, part: str) -> etree._Element | None:
    """``part``'s root with only its paragraph and numbering ``w:style`` children, read as a stream."""
    wanted = w("style")
    try:
        events = etree.iterparse(
            io.BytesIO(package.read(part)), events=("start", "end"), resolve_entities=False,
            no_network=True, load_dtd=False, huge_tree=False,
        )  # fmt: skip
        root: etree._Element | None = None
        for event, el in events:
            if event == "start":
                if root is None:
                    root = el
                continue
            if root is None or el.getparent() is not root:
                continue
            if el.tag != wanted or el.get(w("type"), "paragraph") not in ("paragraph", "numbering"):
                el.clear()
                root.remove(el)
        return root
    except etree.XMLSyntaxError as exc:
        raise syntax_refusal(exc, part) from None
