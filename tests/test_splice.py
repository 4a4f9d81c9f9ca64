"""The spliced save (redline.write.splice) against its oracle, the whole tree serialised.

Every changed part that is spliced must parse to exactly the tree the writer left (compared
in canonical XML, so lxml's own spelling does not count), and every byte the edits did not
reach must be the original's -- the declaration, an oddly spelled paragraph far from the
edits, the root's start tag.
"""

from __future__ import annotations

import zipfile
from io import BytesIO
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.apply import make_writer
from redline.match.verify import Planned
from redline.opc.package import Package
from redline.opc.xmlparse import serialize
from redline.read.build import build_view
from redline.write.writer import WriteOptions
from testing.contractgen import generate_contract
from testing.docbuild import B, BlockSdt, BmEnd, BmStart, Ins, Link, P, Raw, Table, docx

MAIN = "word/document.xml"
DATE = "2026-01-01T00:00:00Z"
# A paragraph spelled as lxml would not spell it: single quotes, a character reference, an
# element written open and closed, spaces inside tags.  Far from every edit, it must survive.
ODD = Raw(
    "<w:p ><w:pPr><w:jc w:val='left'></w:jc></w:pPr><w:r><w:rPr><w:b></w:b></w:rPr>"
    "<w:t xml:space='preserve'>Odd &#x2019;spelling&#8217; kept </w:t></w:r></w:p>"
)
WORDS = ["Tenant", "shall", "pay", "the", "Rent", "monthly", "Landlord", "may", "terminate", "notice"]


def c14n(xml: bytes) -> bytes:
    return etree.tostring(etree.fromstring(xml), method="c14n")


Ranges = list[tuple[int, int, str, str | None]]


def write(data: bytes, ranges: Ranges, track: bool) -> tuple[bytes | None, bytes]:
    """Write ``ranges`` (view start, end, replacement, rationale): the spliced main part, and
    the whole tree serialised."""
    package = Package.from_bytes(data)
    view = build_view(package)
    view.check_tree()
    writer = make_writer(package, view, WriteOptions(date=DATE, track=track))
    planned = [Planned(i, s, e, r, True, why) for i, (s, e, r, why) in enumerate(ranges)]
    writer.write(planned)
    assert writer.splice is not None
    return writer.splice.part(MAIN), serialize(writer.splice.working.xml(MAIN))


def check(data: bytes, ranges: Ranges, track: bool) -> bytes:
    spliced, whole = write(data, ranges, track)
    assert spliced is not None
    assert c14n(spliced) == c14n(whole)
    original = zipfile.ZipFile(BytesIO(data)).read(MAIN)
    body = original.index(b"<w:body>") + len(b"<w:body>")
    assert spliced[:body] == original[:body]  # the declaration (CRLF and all), the root
    return spliced


@st.composite
def _paragraph(draw: st.DrawFn) -> object:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8))
    text = " ".join(words)
    kind = draw(st.sampled_from(["plain", "runs", "bold", "link", "ins", "empty"]))
    if kind == "runs":
        return P(text.replace(" ", " |"))
    if kind == "bold":
        return P(words[0] + " ", B(" ".join(words[1:]) or "x"))
    if kind == "link":
        return P(words[0] + " ", Link(" ".join(words[1:]) or "x"))
    if kind == "ins":
        return P(words[0] + " ", Ins(" ".join(words[1:]) or "x"))
    if kind == "empty":
        return P()
    return P(text)


@st.composite
def _block(draw: st.DrawFn) -> list[object]:
    kind = draw(st.sampled_from(["p", "p", "p", "bookmark", "table", "sdt"]))
    if kind == "bookmark":  # range markup between two paragraphs, at body level
        mark = draw(st.integers(1, 10**6))
        return [draw(_paragraph()), Raw(BmStart(f"b{mark}", mark) + BmEnd(mark)), draw(_paragraph())]
    if kind == "table":
        return [Table([[draw(_paragraph()), draw(_paragraph())], [draw(_paragraph()), "cell"]])]
    if kind == "sdt":
        return [BlockSdt(draw(_paragraph()), draw(_paragraph()))]
    return [draw(_paragraph())]


@st.composite
def _case(draw: st.DrawFn) -> tuple[bytes, Ranges, bool]:
    blocks: list[object] = [ODD, P("A buffer paragraph nobody edits.")]
    for b in draw(st.lists(_block(), min_size=1, max_size=8)):
        blocks.extend(b)
    data = docx(*blocks)
    view = build_view(Package.from_bytes(data))
    text = view.text
    first = view.paragraphs[2].start  # edits start after the odd and the buffer paragraph
    cuts = sorted(set(draw(st.lists(st.integers(first, len(text)), min_size=2, max_size=10))))
    assume(len(cuts) >= 2)
    ranges: Ranges = []
    for s, e in zip(cuts[::2], cuts[1::2], strict=False):
        new = draw(st.sampled_from(["", "new words", "one\ntwo", "x\n", "\nlead", text[s:e].upper()]))
        why = draw(st.sampled_from([None, "because"]))
        ranges.append((s, e, new, why))
    return data, ranges, draw(st.booleans())


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_case())
def test_a_spliced_part_is_the_tree_the_writer_left_and_keeps_what_it_did_not_touch(
    case: tuple[bytes, Ranges, bool],
) -> None:
    data, ranges, track = case
    spliced = check(data, ranges, track)
    assert ODD.encode() in spliced


@pytest.mark.parametrize("track", [True, False])
def test_untracked_mark_deletions_join_paragraphs_across_range_markup(track: bool) -> None:
    mark = Raw(BmStart("m", 7) + BmEnd(7))
    data = docx(ODD, P("Buffer."), P("First one"), mark, P("second one"), P("third"))
    view = build_view(Package.from_bytes(data))
    start = view.text.index("one")
    end = view.text.index("second") + len("second")
    spliced = check(data, [(start, end, "one joined", None)], track)
    assert spliced.count(b"<w:p>") + spliced.count(b"<w:p ") == (5 if track else 4)


def test_an_untracked_join_pulls_in_a_paragraph_the_view_does_not_show() -> None:
    """Someone's deleted empty paragraph is not in the view, but joining the paragraph before
    it to the next one takes it in: the splice writes it too (rather than the whole part)."""
    gone = P(mark='<w:del w:id="5" w:author="Bob" w:date="2020-01-01T00:00:00Z"/>')
    data = docx(ODD, P("Buffer."), P("First one"), gone, P("second one"), P("third"))
    view = build_view(Package.from_bytes(data))
    start = view.text.index("one")
    check(data, [(start, view.text.index("second") + len("second"), "one joined", None)], False)


def test_a_contract_written_in_many_places_keeps_every_untouched_byte() -> None:
    data = generate_contract("msa", seed=5, pages=6)
    view = build_view(Package.from_bytes(data))
    body = [p for p in view.paragraphs if p.story == "body" and p.end - p.start > 40]
    half = body[: len(body) // 2]
    ranges: Ranges = [(p.start + 5, p.start + 20, "reasonable", None) for p in half[::5]]
    spliced = check(data, ranges, True)
    original = zipfile.ZipFile(BytesIO(data)).read(MAIN)
    rest = original[original.index(b"<w:p", len(original) * 3 // 4) :]
    assert spliced.endswith(rest) and len(spliced) > len(original)


@pytest.mark.parametrize("track", [True, False])
def test_stretches_under_other_namespaces_keep_their_own_declarations(track: bool) -> None:
    """The splice takes off the declarations lxml copies onto a serialised paragraph from its
    ancestors, learning them once per set of in-scope namespaces: a paragraph in a content
    control that declares a namespace of its own is spliced with what it inherits there, the
    paragraphs of the body with what they inherit -- before and after it, in both orders."""
    inner = (
        '<w:sdt xmlns:x="urn:example:x" xmlns:y="urn:example:y"><w:sdtPr/><w:sdtContent>'
        "<w:p><w:r><w:t>Inside words here</w:t></w:r></w:p></w:sdtContent></w:sdt>"
    )
    data = docx(ODD, P("Buffer."), P("Before words here"), Raw(inner), P("After words here"), Raw(inner))
    view = build_view(Package.from_bytes(data))
    text = view.text
    starts = [text.index("Before"), text.index("Inside"), text.index("After"), text.rindex("Inside")]
    spliced = check(data, [(s, s + 6, "Changed", None) for s in starts], track)
    assert spliced.count(b'xmlns:x="urn:example:x"') == 2  # only where the part declares it


def test_a_second_write_or_an_unplaced_part_is_serialised_whole() -> None:
    data = docx(P("One two three."), P("Four five six."))
    package = Package.from_bytes(data)
    view = build_view(package)
    view.check_tree()
    writer = make_writer(package, view, WriteOptions(date=DATE))
    writer.write([Planned(0, 0, 3, "Uno", True)])
    writer.write([Planned(1, 15, 19, "Quattro", True)])
    assert writer.splice is not None and writer.splice.part(MAIN) is None
    assert writer.splice.changed([MAIN])[MAIN] == serialize(writer.splice.working.xml(MAIN))


@pytest.mark.slow
def test_corpus_documents_splice_to_the_tree_the_writer_left(corpus_dir: Path) -> None:
    folder = corpus_dir
    spliced_any = 0
    for path in sorted(folder.glob("*.docx")):
        try:
            package = Package.from_bytes(path.read_bytes())
            view = build_view(package)
        except Exception:
            continue  # refused documents are the loader's tests' business
        body = [p for p in view.paragraphs if p.end - p.start > 30]
        if not body:
            continue
        step = max(1, len(body) // 12)
        ranges: Ranges = [(p.start + 3, p.start + 12, "amended", None) for p in body[::step]]
        for track in (True, False):
            got, whole = write(path.read_bytes(), ranges, track)
            if got is None:
                continue  # a part the scanner left to the tree walk
            assert c14n(got) == c14n(whole), path.name
            spliced_any += 1
    assert spliced_any >= 40
