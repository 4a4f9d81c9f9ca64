"""The partial writer (issue 32): the main part parsed only where a write asks
(redline.read.partial), the changed paragraphs and tables spliced into its bytes
(redline.write.splice), against the whole-part path as the oracle.

The oracle is the same apply with :func:`redline.read.partial.whole_parts`: every changed part
parsed whole and serialised whole, read back in full.  The generated contracts are written by
lxml, so serialising a part whole gives its untouched bytes back but for the XML declaration
(lxml's quotes against Word's), which the comparison leaves out.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from redline.opc.package import Package
from redline.opc.xmlparse import parse_xml, serialize
from redline.read.build import build_view
from redline.read.partial import Partial, whole_parts
from redline.read.view import NodeMap
from redline.write.readback import COUNTS
from testing.contractgen import generate_contract

MAIN = "word/document.xml"
DATE = "2026-01-01T00:00:00Z"
_DECLARATION = re.compile(rb"^<\?xml[^>]*\?>\r?\n?")


@cache
def contract(seed: int, pages: float = 3) -> bytes:
    return generate_contract("msa", seed=seed, pages=pages)


@cache
def windows(seed: int) -> list[str]:
    """Quotes of 30 characters that occur once in the contract's view, one per body paragraph."""
    return windows_of(contract(seed))


def windows_of(data: bytes) -> list[str]:
    package = Package.from_bytes(data)
    view = build_view(package)
    out: list[str] = []
    for p in view.paragraphs:
        text = view.paragraph_text(p)
        if p.story != "body":
            continue
        for at in range(0, max(0, len(text) - 30), 11):
            quote = text[at : at + 30]
            if view.text.count(quote) == 1 and quote.strip() == quote:
                out.append(quote)
                break
    return out


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: _DECLARATION.sub(b"", z.read(n)) for n in z.namelist()}


def _entry(kind: str, quote: str, other: str) -> dict[str, Any]:
    if kind == "replace":
        return {"anchor": quote, "replacement": "the changed words", "rationale": "Why."}
    if kind == "delete":
        return {"anchor": quote, "replacement": ""}
    if kind in ("insert_after", "insert_before"):
        return {"action": kind, "anchor": quote, "text": "A new clause.\nAnd a second line."}
    if kind == "format":
        return {"action": "format", "anchor": quote, "format": {"bold": True}}
    if kind in ("insert_row_after", "insert_row_before"):
        return {"action": kind, "anchor": "Severity 2 response", "cells": ["New", "1 day", "0"]}
    if kind == "delete_row":
        return {"action": "delete_row", "anchor": "Severity 3"}
    assert kind == "move_after"
    return {"action": "move_after", "anchor": quote, "target_anchor": other}


KINDS = [
    "replace", "delete", "insert_after", "insert_before", "format", "insert_row_after",
    "insert_row_before", "delete_row", "move_after",
]  # fmt: skip


@st.composite
def replies(draw: st.DrawFn) -> tuple[int, str, bool]:
    seed = draw(st.sampled_from([0, 1]))
    quotes = windows(seed)
    entries = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(KINDS))
        quote, other = draw(st.sampled_from(quotes)), draw(st.sampled_from(quotes))
        entries.append(_entry(kind, quote, other))
    return seed, json.dumps(entries), draw(st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies())
def test_the_spliced_output_is_the_whole_part_output(case: tuple[int, str, bool]) -> None:
    seed, reply, track = case
    data = contract(seed)
    options = ApplyOptions(author="Partial", date=DATE, track=track)
    spliced = apply_reply(data, reply, options)
    with whole_parts():
        whole = apply_reply(data, reply, options)
    assert [e.status for e in spliced.report.edits] == [e.status for e in whole.report.edits]
    assert (spliced.output is None) == (whole.output is None)
    if spliced.output is not None and whole.output is not None:
        assert members(spliced.output) == members(whole.output)


def test_an_edit_parses_only_its_paragraphs_not_the_body() -> None:
    data = contract(0, 30)
    quote = windows_of(data)[len(windows_of(data)) // 2]
    partial, size = _partial_after(data, [{"anchor": quote, "replacement": "other words"}])
    # the paragraph, the one on each side (and theirs): a handful of units of hundreds
    assert partial.parsed_units <= 5
    assert partial.pending() > 100
    # the skeleton (the markup between paragraphs) and those units: a small part of the bytes
    assert partial.parsed_bytes < size // 5


def test_a_row_entry_parses_its_table_not_the_body() -> None:
    data = contract(0, 30)
    count = build_view(Package.from_bytes(data)).text.count("Severity 2 response")  # the table repeats
    entry = {"action": "insert_row_after", "anchor": "Severity 2 response", "cells": ["a", "b", "c"]}
    partial, size = _partial_after(data, [{**entry, "expected_matches": count}])
    # the tables' paragraphs (each table is read and spliced whole), not the rest: 122 units
    # of 510 and 22% of the bytes when this was written
    assert partial.pending() > 300
    assert partial.parsed_bytes < size // 3


def test_a_row_entry_is_spliced_and_read_back_in_windows() -> None:
    data = contract(0, 3)
    COUNTS.clear()
    entry = {"action": "delete_row", "anchor": "Severity 2 response"}
    out = apply_reply(data, json.dumps([entry]), ApplyOptions(date=DATE))
    assert out.report.all_applied
    assert COUNTS == {"read again": 1}  # not the full read


def test_a_completed_tree_is_the_whole_parse() -> None:
    data = contract(1, 10)
    package = Package.from_bytes(data)
    view = build_view(package, trees=True)
    assert isinstance(view.span_nodes, NodeMap)
    # ask for a few paragraphs here and there, then for the whole tree
    for p in view.paragraphs[::37]:
        _ = p.element
    partial = view.span_nodes.partial(MAIN)
    assert partial is not None and partial.parsed_units > 0 and partial.pending() > 0
    root = view.working.xml(MAIN) if view.working is not None else None
    assert root is not None and partial.pending() == 0
    whole = parse_xml(package.read(MAIN), MAIN)
    assert serialize(root) == serialize(whole)
    assert [el.tag for el in root.iter()] == [el.tag for el in whole.iter()]
    assert view.paragraphs[5].element.getroottree().getroot() is root


def test_a_part_declaring_a_namespace_twice_is_parsed_whole() -> None:
    data = contract(0, 3)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = z.namelist()
        parts = {n: z.read(n) for n in names}
    main = parts[MAIN]
    # a namespace of the root's (not WordprocessingML's: the scanner leaves a part that
    # redeclares it to the tree walk) declared again on a paragraph, as some tools write
    root_tag = main[: main.index(b">", main.index(b"<w:document")) + 1]
    declared = re.finditer(rb'xmlns:(\w+)="[^"]*"', root_tag)
    again = next(m.group(0) for m in declared if m.group(1) not in (b"w", b"r"))
    at = main.index(b"<w:p ")
    parts[MAIN] = main[:at] + b"<w:p " + again + b" " + main[at + len(b"<w:p ") :]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for n in names:
            z.writestr(n, parts[n])
    package = Package.from_bytes(buf.getvalue())
    view = build_view(package, trees=True)
    assert isinstance(view.span_nodes, NodeMap)
    _ = view.paragraphs[3].element
    assert view.span_nodes.partial(MAIN) is None


def _partial_after(data: bytes, entries: list[dict[str, Any]]) -> tuple[Partial, int]:
    """The main part's partial tree once ``entries`` are applied (the apply path's own
    steps: load with trees, verify, write and read back)."""
    from redline import apply as apply_module

    seen: list[Partial] = []
    real = apply_module.write_and_check  # type: ignore[attr-defined]

    def spy(package: Package, view: Any, *args: Any, **kwargs: Any) -> Any:
        out = real(package, view, *args, **kwargs)
        assert isinstance(view.span_nodes, NodeMap)
        found = view.span_nodes.partial(MAIN)
        assert found is not None
        seen.append(found)
        return out

    apply_module.write_and_check = spy  # type: ignore[attr-defined]
    try:
        out = apply_reply(data, json.dumps(entries), ApplyOptions(date=DATE))
    finally:
        apply_module.write_and_check = real  # type: ignore[attr-defined]
    assert out.report.all_applied, out.report.edits
    assert len(seen) == 1
    return seen[0], len(Package.from_bytes(data).read(MAIN))


_DECLS = [
    b' xmlns:a="urn:a"', b' xmlns:b="urn:b"', b' xmlns:a="urn:b"', b" xmlns='urn:a'", b' xmlns:c = "urn:a"'
]  # fmt: skip
_INNER = [*_DECLS, b' x="xmlns"', b">xmlns<"]


@settings(max_examples=150, deadline=None)
@given(
    root=st.lists(st.sampled_from(_DECLS), max_size=3),
    inner=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(_INNER)), max_size=4),
)
def test_the_load_s_count_of_xmlns_answers_as_the_search_of_the_part(
    root: list[bytes], inner: list[tuple[int, bytes]]
) -> None:
    # the main part's count of "xmlns" (the load's) tells when none is below the root: the
    # verdict is the one the search of the whole part gives
    from redline.read.partial import plain_namespaces

    head = b"<r" + b"".join(root) + b">"
    body = [b"<p/>", b"<p/>", b"<p/>", b"<p/>"]
    for at, decl in inner:
        body[at] = body[at][:-2] + decl + b"/>" if decl.startswith(b" xmlns") else body[at] + decl
    data = head + b"".join(body) + b"</r>"
    assert plain_namespaces(data, len(head), data.count(b"xmlns")) == plain_namespaces(data, len(head))


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(st.sampled_from("a<>\u00a7\u2019\u00e9\U0001f600 "), max_size=60),
    cuts=st.lists(st.integers(0, 60), max_size=12),
    head=st.integers(0, 5),
)
def test_the_units_byte_offsets_are_the_walk_s(text: str, cuts: list[int], head: int) -> None:
    # the inlined walk of a layout's offsets against ByteOffsets.of, one offset at a time
    from redline.read.partial import ByteOffsets, byte_offsets_of

    data = text.encode("utf-8")
    head = min(head, len(text))
    byte = len(text[:head].encode("utf-8"))
    offsets = sorted(head + c % (len(text) - head + 1) for c in cuts)
    if len(offsets) % 2:
        offsets.append(len(text))
    starts, ends = offsets[0::2], offsets[1::2]
    where = ByteOffsets(data, head, byte)
    expected = [where.of(c) for c in offsets]
    got_s, got_e = byte_offsets_of(data, head, byte, starts, ends)
    assert got_s == expected[0::2] and got_e == expected[1::2]


def _fresh_partial(seed: int) -> tuple[Partial, Any]:
    package = Package.from_bytes(contract(seed, 3))
    view = build_view(package, trees=True)
    nodes = view.span_nodes
    assert isinstance(nodes, NodeMap)
    nodes.check()
    partial = nodes.partial(MAIN)
    assert partial is not None
    return partial, nodes


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 3), picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=30))
def test_units_parsed_ahead_make_the_tree_parsing_them_one_by_one_makes(seed: int, picks: list[int]) -> None:
    # prefetch, then the units asked for in order (as the splice asks): the same tree, the
    # same units parsed, the same counts as asking without it
    from lxml import etree

    trees = []
    for ahead in (False, True):
        partial, nodes = _fresh_partial(seed)
        layout = nodes.layout(MAIN)
        units = sorted({p % len(layout.ordinals) for p in picks})
        if ahead:
            partial.prefetch(units)
            assert partial._ready  # (parsed, waiting to be asked for)
        for i in units:
            el = nodes.element(MAIN, layout.ordinals[i])
            partial.solid(el.getprevious())
            partial.solid(el.getnext())
        parsed = [k for k in range(len(layout.ordinals)) if partial._units[k] is not None]
        trees.append((etree.tostring(partial.root), parsed, partial.parsed_units, partial.parsed_bytes))
    assert trees[0] == trees[1]
