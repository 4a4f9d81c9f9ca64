"""``format`` entries (issue 29): a tracked formatting change of the quoted characters
(``w:rPrChange``) or of their paragraphs' style (``w:pPrChange``).

Judged by LibreOffice over UNO (accept-all gives the asked-for attributes on exactly the quoted
characters, reject-all the input's), by the XML's shape read with lxml (the old properties kept
whole, everything else byte for byte the input's, ids unique), and by pandoc (no text changes
under accept or reject).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from redline.apply import ApplyOptions, apply_reply
from shared_schema import parse_edit_reply
from testing.docbuild import B, Field, I, Ins, P, R, Table, docx
from tests.oracles_fmt import LO_VALUES, chars, lo_formats, styles

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = {"w": W}
OPTIONS = ApplyOptions(author="Counsel", date="2026-12-01T00:00:00Z")


def _w(tag: str) -> str:
    return f"{{{W}}}{tag}"


def apply(doc: bytes, *entries: dict[str, Any]) -> tuple[Any, bytes | None]:
    out = apply_reply(doc, json.dumps(list(entries)), OPTIONS)
    return out.report, out.output


def body(data: bytes) -> etree._Element:
    root = etree.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml"))
    found = root.find("w:body", NS)
    assert found is not None
    return found


def paragraphs_xml(data: bytes) -> list[bytes]:
    return [etree.tostring(p) for p in body(data).iter(_w("p"))]


def shape(el: etree._Element) -> tuple[Any, ...]:
    """An element as compared: tag, attributes, children (namespace declarations aside)."""
    return (el.tag, sorted(el.attrib.items()), [shape(c) for c in el])


def text_of(el: etree._Element) -> str:
    return "".join(str(t) for t in el.itertext())


def statuses(report: Any) -> list[str]:
    return [e.status.value for e in report.edits]


SAMPLE = docx(
    P("The |Premises| are let to |the Tenant|."),
    P(B("Bold"), " plain ", I("italic"), " end"),
    P(R("under", rpr='<w:u w:val="single"/>'), " x ", R("struck", rpr="<w:strike/>"), " y ",
      R("CAPS", rpr="<w:caps/>"), " z ", R("hl", rpr='<w:highlight w:val="yellow"/>')),
    P("Definitions", style="Heading1"),
    P("Last paragraph of the sample."),
)  # fmt: skip


# -- the reply -------------------------------------------------------------------------------


def test_a_format_entry_is_read_with_its_keys() -> None:
    batch = parse_edit_reply(json.dumps([{"action": "format", "anchor": "a", "format": {"bold": True}}]))
    assert batch is not None and not batch.invalid
    edit = batch.edits[0]
    assert edit.action == "format" and edit.format is not None and edit.format.bold is True
    assert edit.replacement == ""


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ({"underline": True}, {"underline": "single"}),
        ({"underline": False}, {"underline": "none"}),
        ({"underline": "Double"}, {"underline": "double"}),
        ({"highlight": "Yellow"}, {"highlight": "yellow"}),
        ({"highlight": "dark blue"}, {"highlight": "darkBlue"}),
        ({"highlight": False}, {"highlight": "none"}),
        ({"highlight": None}, {"highlight": "none"}),  # alone: "remove the highlight"
        ({"smallCaps": True, "Strike": False}, {"small_caps": True, "strike": False}),
        ({"style": "heading 1"}, {"style": "heading 1"}),
    ],
)
def test_format_values_are_read_forgivingly(fmt: dict[str, Any], expected: dict[str, Any]) -> None:
    batch = parse_edit_reply(json.dumps([{"action": "format", "anchor": "a", "format": fmt}]))
    assert batch is not None and not batch.invalid, batch
    spec = batch.edits[0].format
    assert spec is not None and spec.model_dump(exclude_none=True) == expected


def test_the_openai_strict_shape_null_means_unset() -> None:
    # every key sent, nulls for the ones not set: a null highlight removes nothing there
    fmt = dict.fromkeys(["bold", "italic", "underline", "strike", "caps", "small_caps", "highlight", "style"])
    fmt["italic"] = True
    entry = {"action": "format", "anchor": "a", "replacement": None, "format": fmt}
    batch = parse_edit_reply(json.dumps([entry]))
    assert batch is not None and not batch.invalid
    spec = batch.edits[0].format
    assert spec is not None and spec.model_dump(exclude_none=True) == {"italic": True}


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"format": {}}, "sets nothing"),
        ({"format": {"bold": None}}, "sets nothing"),
        ({"format": {"bolder": True}}, "unknown key 'bolder'; the keys are bold, italic"),
        ({"format": {"bold": "very"}}, "give true or false"),
        ({"format": {"highlight": "puce"}}, "highlight colour"),
        ({"format": {"underline": "wavy"}}, "'single', 'double'"),
        ({"format": "bold"}, "must be an object"),
        ({}, "format needs 'format'"),
        ({"format": {"bold": True}, "replacement": "other"}, "changes no text"),
        ({"format": {"bold": True}, "text": "other"}, "not 'text'"),
    ],
)
def test_a_format_entry_that_cannot_be_used_is_invalid(entry: dict[str, Any], says: str) -> None:
    batch = parse_edit_reply(json.dumps([{"action": "format", "anchor": "a", **entry}]))
    assert batch is not None and not batch.edits and batch.invalid
    assert says in batch.invalid[0].reason


def test_docx_redline_shape_top_level_keys_with_a_note() -> None:
    batch = parse_edit_reply(json.dumps([{"action": "format_text", "find": "a", "bold": True}]))
    assert batch is not None and not batch.invalid
    spec = batch.edits[0].format
    assert spec is not None and spec.bold is True
    assert any("as its 'format'" in n for n in batch.notes)
    assert not any("dropped" in n for n in batch.notes)


def test_a_plain_edit_with_a_format_is_refused_not_half_applied() -> None:
    batch = parse_edit_reply(json.dumps([{"anchor": "a", "replacement": "b", "format": {"bold": True}}]))
    assert batch is not None and not batch.edits and "two entries" in batch.invalid[0].reason


# -- the XML ---------------------------------------------------------------------------------


def test_rprchange_holds_the_exact_old_properties_and_comes_last() -> None:
    old_props = '<w:rFonts w:ascii="Arial"/><w:i/><w:color w:val="FF0000"/><w:sz w:val="28"/>'
    doc = docx(P("Before ", R("the defined term", rpr=old_props), " after."))
    report, out = apply(doc, {"action": "format", "anchor": "defined", "format": {"bold": True}})
    assert statuses(report) == ["applied"] and out is not None
    runs = body(out).findall(".//w:r", NS)
    texts = [text_of(r) for r in runs]
    assert texts == ["Before ", "the ", "defined", " term", " after."]  # split at both ends
    rpr = runs[2].find("w:rPr", NS)
    assert rpr is not None
    assert [etree.QName(c).localname for c in rpr] == ["rFonts", "b", "bCs", "i", "color", "sz", "rPrChange"]
    change = rpr[-1]
    assert change.get(_w("author")) == "Counsel" and change.get(_w("date")) == "2026-12-01T00:00:00Z"
    (old,) = list(change)
    assert etree.QName(old).localname == "rPr"
    expected = etree.fromstring(f'<w:rPr xmlns:w="{W}">{old_props}</w:rPr>')
    assert [shape(c) for c in old] == [shape(c) for c in expected]
    # the pieces outside the anchor keep their properties, untouched
    for piece in (runs[1], runs[3]):
        kept = piece.find("w:rPr", NS)
        assert kept is not None and [shape(c) for c in kept] == [shape(c) for c in expected]


def test_a_run_without_properties_gets_an_empty_old_rpr_never_none() -> None:
    report, out = apply(SAMPLE, {"action": "format", "anchor": "Premises", "format": {"italic": True}})
    assert statuses(report) == ["applied"] and out is not None
    change = body(out).find(".//w:rPrChange", NS)
    assert change is not None and len(change) == 1 and change[0].tag == _w("rPr") and len(change[0]) == 0


def test_every_other_paragraph_is_byte_identical_and_ids_unique() -> None:
    report, out = apply(
        SAMPLE,
        {"action": "format", "anchor": "emises are le", "format": {"bold": True}},
        {"action": "format", "anchor": "Definitions", "format": {"style": "Normal"}},
    )
    assert statuses(report) == ["applied", "applied"] and out is not None
    before, after = paragraphs_xml(SAMPLE), paragraphs_xml(out)
    assert len(before) == len(after)
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert changed == [0, 3]
    raw = zipfile.ZipFile(io.BytesIO(out)).read("word/document.xml")
    original = zipfile.ZipFile(io.BytesIO(SAMPLE)).read("word/document.xml")
    for p in (1, 2, 4):  # byte for byte in the written part itself
        assert _para_bytes(original, p) == _para_bytes(raw, p)
    ids = re.findall(rb'w:id="([0-9]+)"', raw)
    assert len(ids) == len(set(ids))
    # the runs of paragraph 0 outside the anchor are the input's
    runs = body(out).findall("w:p", NS)[0].findall("w:r", NS)
    assert etree.tostring(runs[0]).endswith(b'<w:t xml:space="preserve">The </w:t></w:r>')


def _para_bytes(xml: bytes, n: int) -> bytes:
    spans = [m.span() for m in re.finditer(rb"<w:p[ >].*?</w:p>", xml)]
    s, e = spans[n]
    return xml[s:e]


def test_pprchange_holds_the_old_ppr_without_rpr_or_sectpr() -> None:
    doc = docx(
        P(
            "Clause text",
            style="Heading1",
            ppr='<w:spacing w:after="120"/><w:jc w:val="both"/>',
            mark="<w:b/>",
        )
    )
    report, out = apply(doc, {"action": "format", "anchor": "Clause", "format": {"style": "normal"}})
    assert statuses(report) == ["applied"] and out is not None
    ppr = body(out).find("w:p/w:pPr", NS)
    assert ppr is not None
    names = [etree.QName(c).localname for c in ppr]
    assert names == ["pStyle", "spacing", "jc", "rPr", "pPrChange"]
    assert ppr[0].get(_w("val")) == "Normal"
    old = ppr[-1][0]
    assert [etree.QName(c).localname for c in old] == ["pStyle", "spacing", "jc"]
    assert old[0].get(_w("val")) == "Heading1"


def test_the_whole_paragraph_formatted_changes_its_mark_too() -> None:
    report, out = apply(
        SAMPLE, {"action": "format", "anchor": "Last paragraph of the sample.", "format": {"bold": True}}
    )
    assert statuses(report) == ["applied"] and out is not None
    p = body(out).findall("w:p", NS)[4]
    mark = p.find("w:pPr/w:rPr", NS)
    assert mark is not None and [etree.QName(c).localname for c in mark] == ["b", "bCs", "rPrChange"]
    # part of a paragraph: the mark stays as it was
    report, out = apply(SAMPLE, {"action": "format", "anchor": "Last paragraph", "format": {"bold": True}})
    assert out is not None and body(out).findall("w:p", NS)[4].find("w:pPr", NS) is None


def test_switching_off_what_the_style_gives_writes_it_off() -> None:
    # Heading1 is bold by its style: "not bold" must be written, not a property removed
    report, out = apply(SAMPLE, {"action": "format", "anchor": "Definitions", "format": {"bold": False}})
    assert statuses(report) == ["applied"] and out is not None
    rpr = body(out).findall("w:p", NS)[3].find("w:r/w:rPr", NS)
    assert rpr is not None and rpr.find("w:b", NS) is not None
    assert rpr.find("w:b", NS).get(_w("val")) == "0"  # type: ignore[union-attr]


def test_highlight_removed_and_a_mark_revision_stays_first() -> None:
    doc = docx(P(R("marked", rpr='<w:highlight w:val="yellow"/>')))
    report, out = apply(doc, {"action": "format", "anchor": "marked", "format": {"highlight": "none"}})
    assert statuses(report) == ["applied"] and out is not None
    run = body(out).find("w:p/w:r", NS)
    assert run is not None
    rpr = run.find("w:rPr", NS)
    assert rpr is not None and [etree.QName(c).localname for c in rpr] == ["rPrChange"]
    doc = docx(P("whole", mark='<w:ins w:id="5" w:author="Opp" w:date="2020-01-01T00:00:00Z"/>'))
    report, out = apply(doc, {"action": "format", "anchor": "whole", "format": {"underline": "double"}})
    assert statuses(report) == ["applied"] and out is not None
    mark = body(out).find("w:p/w:pPr/w:rPr", NS)
    assert mark is not None and [etree.QName(c).localname for c in mark] == ["ins", "u", "rPrChange"]
    assert [etree.QName(c).localname for c in mark[-1][0]] == []  # the old state, less the revision mark


# -- refusals --------------------------------------------------------------------------------


def test_no_change_where_the_formatting_already_holds_style_included() -> None:
    report, _ = apply(
        SAMPLE,
        {"action": "format", "anchor": "Definitions", "format": {"bold": True}},  # bold by its style
        {"action": "format", "anchor": "Bold", "format": {"bold": True}},
        {"action": "format", "anchor": "plain", "format": {"italic": False, "strike": False}},
        {"action": "format", "anchor": "hl", "format": {"highlight": "yellow"}},
        {"action": "format", "anchor": "Premises", "format": {"style": "Normal"}},  # the default style
        {"action": "format", "anchor": "Definitions", "format": {"style": "Heading 1"}},
    )
    assert statuses(report) == ["no_change"] * 6


def test_a_style_the_document_lacks_is_refused_with_the_styles_it_has() -> None:
    report, _ = apply(SAMPLE, {"action": "format", "anchor": "Premises", "format": {"style": "Heading 7"}})
    (edit,) = report.edits
    assert edit.status.value == "not_found" and edit.error is not None
    assert "Heading 7" in edit.error.message
    assert (
        edit.error.hint is not None
        and "\u201cNormal\u201d" in edit.error.hint
        and "\u201cHeading 1\u201d" in edit.error.hint
    )
    report, _ = apply(SAMPLE, {"action": "format", "anchor": "Premises", "format": {"style": "Hyperlink"}})
    assert report.edits[0].error is not None and "character style" in report.edits[0].error.message


def test_another_authors_pending_format_change_is_unsupported() -> None:
    pending = (
        '<w:b/><w:rPrChange w:id="3" w:author="Opp" w:date="2020-01-01T00:00:00Z"><w:rPr/></w:rPrChange>'
    )
    doc = docx(
        P("plain ", R("their bold", rpr=pending), " text"),
        P(
            "restyled",
            ppr='<w:pPrChange w:id="4" w:author="Opp" w:date="2020-01-01T00:00:00Z"><w:pPr/></w:pPrChange>',
        ),
    )
    report, _ = apply(
        doc,
        {"action": "format", "anchor": "their bold", "format": {"italic": True}},
        {"action": "format", "anchor": "restyled", "format": {"style": "Heading1"}},
        {"action": "format", "anchor": "plain", "format": {"italic": True}},
    )
    assert statuses(report) == ["unsupported", "unsupported", "applied"]
    assert all("Decide that change first" in (e.error.hint or "") for e in report.edits[:2] if e.error)


def test_a_field_result_is_unsupported_and_text_in_their_insertion_is_formatted() -> None:
    doc = docx(P("See ", Field("REF _Ref1 \\h", "Clause 4"), " here."), P("Added ", Ins(R("by them"))))
    report, out = apply(
        doc,
        {"action": "format", "anchor": "Clause 4", "format": {"bold": True}},
        {"action": "format", "anchor": "by them", "format": {"bold": True}},
    )
    assert statuses(report) == ["unsupported", "applied"] and out is not None
    run = body(out).find("w:p[2]/w:ins/w:r", NS)
    assert run is not None and run.find("w:rPr/w:rPrChange", NS) is not None


def test_located_scoped_and_counted_like_every_anchor() -> None:
    doc = docx(P("Tenant pays."), P("The Tenant shall."), P("Tenant leaves."))
    report, _ = apply(doc, {"action": "format", "anchor": "Tenant", "format": {"bold": True}})
    assert statuses(report) == ["ambiguous"]
    report, _ = apply(
        doc, {"action": "format", "anchor": "Tenant", "format": {"bold": True}, "expected_matches": 2}
    )
    assert statuses(report) == ["count_mismatch"]
    report, out = apply(
        doc, {"action": "format", "anchor": "Tenant", "format": {"bold": True}, "expected_matches": 3}
    )
    assert statuses(report) == ["applied"] and out is not None
    assert len(body(out).findall(".//w:rPrChange", NS)) == 3
    report, _ = apply(doc, {"action": "format", "anchor": "Tenantx", "format": {"bold": True}})
    assert statuses(report) == ["not_found"]
    report, _ = apply(
        doc, {"action": "format", "anchor": "Tenant pays", "format": {"bold": True}, "section": "9.9"}
    )
    assert statuses(report) == ["out_of_scope"]
    report, _ = apply(
        doc,
        {"action": "format", "anchor": "Tenant pays", "format": {"bold": True}},
        {"anchor": "pays", "replacement": "owes"},
    )
    assert statuses(report) == ["overlap", "overlap"]
    assert report.totals.proposed == 2


def test_the_rationale_is_a_comment_on_the_formatted_text() -> None:
    report, out = apply(
        SAMPLE,
        {"action": "format", "anchor": "Premises", "format": {"bold": True}, "rationale": "Defined term."},
    )
    assert statuses(report) == ["applied"] and out is not None
    p = body(out).find("w:p", NS)
    assert p is not None
    names = [etree.QName(c).localname for c in p]
    start = names.index("commentRangeStart")
    assert names[start + 1] == "r" and text_of(p[start + 1]) == "Premises"
    assert names[start + 2] == "commentRangeEnd"


# -- pandoc: no text changes ------------------------------------------------------------------


def test_pandoc_reads_the_same_text_under_accept_and_reject(tmp_path: Path, pandoc: str) -> None:
    report, out = apply(
        SAMPLE,
        {"action": "format", "anchor": "emises are let to the", "format": {"bold": True, "underline": True}},
        {"action": "format", "anchor": "plain italic", "format": {"italic": True}},
        {"action": "format", "anchor": "Definitions", "format": {"style": "Normal"}},
    )
    assert statuses(report) == ["applied"] * 3 and out is not None
    src, dst = tmp_path / "in.docx", tmp_path / "out.docx"
    src.write_bytes(SAMPLE)
    dst.write_bytes(out)

    def plain(path: Path, mode: str) -> str:
        done = subprocess.run(
            [pandoc, str(path), f"--track-changes={mode}", "-t", "plain", "--wrap=none"],
            capture_output=True, text=True, check=True, timeout=120,
        )  # fmt: skip
        return done.stdout

    original = plain(src, "accept")
    assert plain(dst, "accept") == original
    assert plain(dst, "reject") == original
    # and pandoc sees the new formatting (it reads the current state)
    done = subprocess.run(
        [pandoc, str(dst), "-t", "markdown"], capture_output=True, text=True, check=True, timeout=120
    )
    assert "**" in done.stdout


# -- LibreOffice: accept-all gives what was asked, reject-all the input ------------------------


def F(anchor: str, **fmt: Any) -> dict[str, Any]:
    """A format entry."""
    return {"action": "format", "anchor": anchor, "format": fmt}


CASES: list[tuple[str, bytes, list[dict[str, Any]]]] = [
    ("bold-split-both-ends", SAMPLE, [F("emises are le", bold=True)]),
    ("bold-off-across-runs", SAMPLE, [F("Bold plain", bold=False)]),
    ("bold-off-by-style", SAMPLE, [F("finition", bold=False)]),
    ("italic-across-paragraphs", SAMPLE,
     [F("the Tenant.\nBold plain", italic=True)]),
    ("italic-off", SAMPLE, [F("italic", italic=False)]),
    ("underline-double", SAMPLE, [F("under x", underline="double")]),
    ("underline-single", SAMPLE, [F("Premises", underline=True)]),
    ("underline-off", SAMPLE, [F("nder", underline=False)]),
    ("strike-on", SAMPLE, [F("x struck y", strike=True)]),
    ("strike-off", SAMPLE, [F("struck", strike=False)]),
    ("caps-on", SAMPLE, [F("plain", caps=True)]),
    ("caps-off", SAMPLE, [F("CAPS", caps=False)]),
    ("small-caps-on", SAMPLE, [F("are let", small_caps=True)]),
    ("small-caps-off", docx(P("Some ", R("small words", rpr="<w:smallCaps/>"), " here.")),
     [F("small words", small_caps=False)]),
    ("highlight-on", SAMPLE, [F("the Tenant", highlight="green")]),
    ("highlight-change", SAMPLE, [F("hl", highlight="cyan")]),
    ("highlight-off", SAMPLE, [F("hl", highlight=None)]),
    ("style-heading", SAMPLE, [F("Premises", style="Heading 1")]),
    ("style-normal", SAMPLE, [F("Definitions", style="normal")]),
    ("style-two-paragraphs", SAMPLE,
     [F("end\nunder", style="heading1")]),
    ("several-keys-and-style", SAMPLE,
     [F("Last paragraph", bold=True, italic=True, style="Heading 1")]),
    ("several-entries", SAMPLE, [
        F("Premises", bold=True),
        F("italic end", underline="double", strike=True),
        F("Definitions", style="Normal"),
        {"anchor": "Last paragraph", "replacement": "Final paragraph"},
    ]),
]  # fmt: skip


def expected_accept(
    view_paras: list[str], original: list[list[tuple[str, dict[str, Any]]]], entries: list[dict[str, Any]]
) -> dict[tuple[int, int], dict[str, Any]]:
    """(paragraph, character) -> the attributes the format entries set there."""
    text = "\n".join(view_paras)
    starts = [0]
    for p in view_paras[:-1]:
        starts.append(starts[-1] + len(p) + 1)
    want: dict[tuple[int, int], dict[str, Any]] = {}
    for entry in entries:
        if entry.get("action") != "format":
            continue
        fmt = {k: v for k, v in entry["format"].items() if k != "style"}
        if "underline" in fmt and isinstance(fmt["underline"], bool):
            fmt["underline"] = "single" if fmt["underline"] else "none"
        if "highlight" in fmt and fmt["highlight"] is None:
            fmt["highlight"] = "none"
        at = text.index(entry["anchor"])
        for off in range(at, at + len(entry["anchor"])):
            if text[off] == "\n":
                continue
            para = max(i for i, s in enumerate(starts) if s <= off)
            for key, value in fmt.items():
                attr, lo = LO_VALUES[key][value]
                want.setdefault((para, off - starts[para]), {})[attr] = lo
    return want


@pytest.mark.slow  # one LibreOffice over 44 documents, three readings each: ~35 s
def test_libreoffice_accept_gives_the_formatting_asked_for_and_reject_the_input(tmp_path: Path) -> None:
    docs: list[Path] = []
    for name, doc, entries in CASES:
        report, out = apply(doc, *entries)
        assert all(s == "applied" for s in statuses(report)), (name, report.edits)
        assert out is not None
        (tmp_path / f"{name}.in.docx").write_bytes(doc)
        (tmp_path / f"{name}.out.docx").write_bytes(out)
        docs += [tmp_path / f"{name}.in.docx", tmp_path / f"{name}.out.docx"]
    read = lo_formats(docs, tmp_path)
    for name, _doc, entries in CASES:
        before, after = read[tmp_path / f"{name}.in.docx"], read[tmp_path / f"{name}.out.docx"]
        assert "error" not in after and "error" not in before, name
        original = chars(before["as_is"])
        # reject-all: exactly the input, attribute for attribute, style for style
        assert chars(after["reject"]) == original, name
        assert styles(after["reject"]) == styles(before["as_is"]), name
        kinds = set(after["as_is"]["redlines"])
        assert kinds & {"Format", "ParagraphFormat"}, (name, kinds)
        # accept-all: the asked-for attributes on exactly the quoted characters
        view = [
            "".join(ch for ch, _ in para) for para in original
        ]  # docbuild documents: LibreOffice's paragraphs are the view's
        want = expected_accept(view, original, entries)
        accepted = chars(after["accept"])
        restyled = any("style" in e.get("format", {}) for e in entries)
        texts_changed = any(e.get("action") != "format" for e in entries)
        for p, para in enumerate(accepted):
            for c, (ch, attrs) in enumerate(para):
                for attr, value in want.get((p, c), {}).items():
                    assert attrs[attr] == value, (name, p, c, ch, attr)
                if not restyled and not texts_changed and (p, c) not in want:
                    assert (ch, attrs) == original[p][c], (name, p, c)
        style_of = {e["anchor"]: e["format"]["style"] for e in entries if "style" in e.get("format", {})}
        got = styles(after["accept"])
        text = "\n".join(view)
        for anchor, style in style_of.items():
            at = text.index(anchor)
            first = text[:at].count("\n")
            last = text[: at + len(anchor)].count("\n")
            lo = {"heading1": "Heading 1", "heading 1": "Heading 1", "normal": "Standard"}[style.lower()]
            assert got[first : last + 1] == [lo] * (last - first + 1), (name, got)
        if not restyled:
            assert got == styles(before["as_is"]), name


# -- the view lists our changes; our own reject takes them back -------------------------------


def _char_props(data: bytes) -> list[tuple[str, Any, Any]]:
    """Each character of the body with its run's direct properties and its paragraph's (an
    lxml reading: an empty ``w:rPr`` is no properties, as Word reads it)."""
    out: list[tuple[str, Any, Any]] = []
    for p in body(data).iter(_w("p")):
        ppr = p.find("w:pPr", NS)
        kept = [c for c in ppr if len(c) or c.attrib or c.tag != _w("rPr")] if ppr is not None else []
        pshape = [shape(c) for c in kept] or None  # (an empty mark w:rPr is none)
        for r in p.iter(_w("r")):
            rpr = r.find("w:rPr", NS)
            rshape = shape(rpr) if rpr is not None and len(rpr) else None
            for t in r.iterfind("w:t", NS):
                out.extend((ch, rshape, pshape) for ch in t.text or "")
    return out


def test_the_view_lists_our_format_changes_and_our_reject_gives_the_input_back(tmp_path: Path) -> None:
    entries = [
        F("emises are le", bold=True, highlight="yellow"),
        F("Bold plain italic", italic=True, bold=False),
        F("Definitions", style="Normal"),
        F("Last paragraph of the sample.", underline="double"),
    ]
    report, out = apply(SAMPLE, *entries)
    assert statuses(report) == ["applied"] * 4 and out is not None
    path = tmp_path / "out.docx"
    path.write_bytes(out)
    done = subprocess.run(
        [sys.executable, "-m", "redline", "view", str(path), "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    kinds = {(r["kind"], r["author"]) for r in json.loads(done.stdout)["revisions"]}
    assert kinds == {("format", "Counsel"), ("paragraph_format", "Counsel")}
    back = apply_reply(out, json.dumps([{"action": "reject", "author": "Counsel"}]), OPTIONS)
    assert back.output is not None and back.report.edits[0].status.value == "applied"
    assert _char_props(back.output) == _char_props(SAMPLE)
    written = zipfile.ZipFile(io.BytesIO(back.output)).read("word/document.xml")
    assert b"rPrChange" not in written and b"pPrChange" not in written


def test_the_report_notes_a_formatting_change_and_counts_it() -> None:
    report, _ = apply(
        SAMPLE, F("Premises", bold=True, style="Heading 1"), {"anchor": "plain", "replacement": "clear"}
    )
    assert statuses(report) == ["applied", "applied"]
    assert report.edits[0].notes == [
        'A tracked formatting change (bold: true, style: "Heading1"); the text is unchanged.'
    ]
    assert report.totals.applied == 2 and report.totals.proposed == 2


def test_a_table_cell_is_formatted_and_properties_of_other_namespaces_stay_last() -> None:
    w14 = '<w14:ligatures w14:val="standard"/>'
    doc = docx(Table([["Silver", P(R("99.5% uptime", rpr=f'<w:color w:val="00FF00"/>{w14}'))]]))
    report, out = apply(doc, F("99.5%", bold=True, underline=True))
    assert statuses(report) == ["applied"] and out is not None
    run = body(out).find(".//w:tc[2]//w:r", NS)
    assert run is not None
    rpr = run.find("w:rPr", NS)
    assert rpr is not None
    assert [etree.QName(c).localname for c in rpr] == ["b", "bCs", "color", "u", "ligatures", "rPrChange"]


@pytest.mark.parametrize("dialect", ["json-schema", "openai", "anthropic", "gemini"])
def test_every_dialect_allows_a_format_entry_and_the_parser_reads_it_back(dialect: str) -> None:
    import jsonschema

    from shared_schema import json_schema
    from shared_schema.models import EditRequest, FormatSpec

    fmt: dict[str, Any] = {"bold": True, "highlight": "none", "style": "Heading 1"}
    entry: dict[str, Any] = {"action": "format", "anchor": "ten days", "format": fmt}
    if dialect == "openai":  # every key present, null when unused
        fmt = {**dict.fromkeys(FormatSpec.model_fields), **fmt}
        entry = {**dict.fromkeys(EditRequest.model_fields), **entry, "format": fmt}
    schema = json_schema("edits", dialect)  # type: ignore[arg-type]
    assert "format" in str(schema)
    if dialect != "gemini":  # (its upper-case types are OpenAPI's)
        jsonschema.validate({"edits": [entry]}, schema)
    batch = parse_edit_reply(json.dumps({"edits": [entry]}))
    assert batch is not None and not batch.invalid and not batch.notes
    spec = batch.edits[0].format
    assert spec is not None and spec.model_dump(exclude_none=True) == {
        "bold": True, "highlight": "none", "style": "Heading 1"
    }  # fmt: skip


def test_do_not_track_formatting_is_said_in_the_note() -> None:
    from tests.support import with_part

    settings = f'<w:settings xmlns:w="{W}"><w:doNotTrackFormatting/></w:settings>'.encode()
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings"
    ct = "application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"
    doc = with_part(SAMPLE, "word/settings.xml", settings, rel, ct)
    report, out = apply(doc, F("Premises", bold=True))
    assert statuses(report) == ["applied"] and out is not None
    assert "w:doNotTrackFormatting" in report.edits[0].notes[0]
    assert b"rPrChange" in zipfile.ZipFile(io.BytesIO(out)).read("word/document.xml")


def test_a_hyperlinks_text_and_a_section_break_paragraph() -> None:
    from testing.docbuild import Link

    sect = '<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr>'
    doc = docx(P("See ", Link("the portal"), " now."), P("Section end", ppr=sect), P("Next section"))
    report, out = apply(doc, F("the portal", bold=True), F("Section end", style="Heading 1"))
    assert statuses(report) == ["applied", "applied"] and out is not None
    link_run = body(out).find("w:p/w:hyperlink/w:r", NS)
    assert link_run is not None and link_run.find("w:rPr/w:rPrChange", NS) is not None
    ppr = body(out).findall("w:p", NS)[1].find("w:pPr", NS)
    assert ppr is not None
    assert [etree.QName(c).localname for c in ppr] == ["pStyle", "sectPr", "pPrChange"]
    assert [etree.QName(c).localname for c in ppr[-1][0]] == []  # the old pPr: no sectPr in it


def test_python_docx_opens_the_output_and_reads_the_new_state() -> None:
    """python-docx (Word's reader for Python; it reads the current state, no rPrChange API)
    opens the output and reads every run key and the style as the entries asked."""
    import docx as python_docx

    report, out = apply(
        SAMPLE,
        F("Premises", bold=True),
        F("the Tenant", italic=True, underline="double"),
        F("plain", strike=True, caps=True),
        F("italic", italic=False, small_caps=True),
        F("struck", strike=False, highlight="green"),
        F("Last paragraph", style="Heading 1"),
    )
    assert statuses(report) == ["applied"] * 6 and out is not None
    d = python_docx.Document(io.BytesIO(out))
    runs = {r.text: r for p in d.paragraphs for r in p.runs}
    assert runs["Premises"].bold is True
    assert runs["the Tenant"].italic is True and str(runs["the Tenant"].underline) == "DOUBLE (3)"
    assert runs["plain"].font.strike is True and runs["plain"].font.all_caps is True
    # (switched off where nothing beneath switches it on: the element goes, python-docx reads None)
    assert not runs["italic"].italic and runs["italic"].font.small_caps is True
    assert not runs["struck"].font.strike and str(runs["struck"].font.highlight_color) == "BRIGHT_GREEN (4)"
    styles_now = [p.style.name if p.style is not None else None for p in d.paragraphs]
    assert styles_now[-1] == "Heading 1" and styles_now[3] == "Heading 1"
