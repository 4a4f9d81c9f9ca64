"""What a re-save rewrites in headers, footers, fields and table styles is no untracked change
(issue 34): generated documents (python-docx, lxml), each made once as SENT and once as a
re-save would write it (LibreOffice: field results computed again, header and footer parts
renumbered and an inherited footer written out, a table style's bold first row on the runs).
The same places with *typed* text changed are still found."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import Any

import docx
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls

from redline.reconcile.engine import reconcile

_W = nsdecls("w")


def _page_field(result: str, code: str = " PAGE ") -> str:
    return (
        f'<w:p {_W}><w:r><w:t xml:space="preserve">Acme NDA, page </w:t></w:r>'
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        f'<w:r><w:instrText xml:space="preserve">{code}</w:instrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        f"<w:r><w:t>{result}</w:t></w:r>"
        '<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>'
    )


def _doc(footer: str, *, sections: int = 1, body: str = "The parties agree as follows.") -> Any:
    d = docx.Document()
    d.add_paragraph(body)
    for k in range(1, sections):
        d.add_section()
        d.add_paragraph(f"Schedule {k} sets out the fees.")
    ftr = d.sections[0].footer._element
    for p in list(ftr):
        ftr.remove(p)
    ftr.append(parse_xml(footer))
    return d


def _bytes(d: Any) -> bytes:
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def _untracked(sent: bytes, returned: bytes) -> list[tuple[str, str]]:
    return [(u["before"], u["after"]) for u in reconcile(sent, returned).to_dict()["untracked"]]


def test_a_page_fields_result_recomputed_is_no_change() -> None:
    sent = _bytes(_doc(_page_field("1")))
    assert _untracked(sent, _bytes(_doc(_page_field("7")))) == []


def test_a_field_result_typed_beside_it_is_still_found() -> None:
    sent = _bytes(_doc(_page_field("1")))
    returned = _bytes(_doc(_page_field("1").replace("Acme NDA", "Acme MSA")))
    assert _untracked(sent, returned) == [("NDA", "MSA")]


def test_a_hyperlinks_text_is_typed_and_compared() -> None:
    link = ' HYPERLINK "https://example.com" '
    sent = _bytes(_doc(_page_field("our site", link)))
    returned = _bytes(_doc(_page_field("their site", link)))
    assert _untracked(sent, returned) == [("our", "their")]


def _rewrite(data: bytes, change: Callable[[str, bytes], bytes]) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info, change(info.filename, src.read(info.filename)))
    return out.getvalue()


def _renumbered(data: bytes) -> bytes:
    """The footer part renamed and every section given its own copy of it -- as LibreOffice
    writes an inherited footer out and renumbers the parts."""
    src = zipfile.ZipFile(io.BytesIO(data))
    rels = src.read("word/_rels/document.xml.rels").decode()
    rid = next(
        part.split('Id="')[1].split('"')[0] for part in rels.split("<Relationship ")[1:] if "footer" in part
    )
    target = rels.split(f'Id="{rid}"')[1].split('Target="')[1].split('"')[0]
    footer = src.read(f"word/{target}")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            blob = src.read(info.filename)
            name = info.filename
            if name == f"word/{target}":
                name = "word/footer9.xml"
            elif name == "word/_rels/document.xml.rels":
                blob = blob.replace(target.encode(), b"footer9.xml").replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdCopy" Type="http://schemas.openxmlformats.org/officeDocument/'
                    b'2006/relationships/footer" Target="footer8.xml"/></Relationships>',
                )
            elif name == "word/document.xml":
                last = blob.rindex(b"<w:sectPr")
                close = blob.index(b">", last) + 1
                blob = blob[:close] + b'<w:footerReference w:type="default" r:id="rIdCopy"/>' + blob[close:]
            elif name == "[Content_Types].xml":
                blob = blob.replace(target.encode(), b"footer9.xml").replace(
                    b"</Types>",
                    b'<Override PartName="/word/footer8.xml" ContentType="application/vnd.openxmlformats-'
                    b'officedocument.wordprocessingml.footer+xml"/></Types>',
                )
            z.writestr(name, blob)
        z.writestr("word/footer8.xml", footer.replace(b">1<", b">2<"))
    return out.getvalue()


def test_headers_and_footers_renumbered_and_written_out_are_no_change() -> None:
    sent = _bytes(_doc(_page_field("1"), sections=2))
    returned = _renumbered(sent)
    assert returned != sent
    assert _untracked(sent, returned) == []


def test_a_word_typed_into_a_renumbered_footer_is_still_found() -> None:
    sent = _bytes(_doc(_page_field("1"), sections=2))
    returned = _rewrite(
        _renumbered(sent), lambda n, b: b.replace(b"Acme", b"Apex") if n == "word/footer8.xml" else b
    )
    assert _untracked(sent, returned) == [("Acme", "Apex")]


def _table(bold_on_runs: bool, *, bold_style: bool = True, extra: str = "") -> bytes:
    d = docx.Document()
    d.add_paragraph("Fees are set out below.")
    t = d.add_table(rows=2, cols=2)
    t.style = d.styles["Light Grid Accent 1"]  # (a built-in table style: its first row is bold)
    for r, row in enumerate(t.rows):
        for c, cell in enumerate(row.cells):
            run = cell.paragraphs[0].add_run(f"cell {r}{c}{extra}")
            if bold_on_runs and r == 0:
                run.bold = True
    if not bold_style:
        for st in d.styles.element.iter(
            "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}style"
        ):
            for cond in st.iter("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}tblStylePr"):
                cond.getparent().remove(cond)
    return _bytes(d)


def test_a_table_styles_bold_first_row_written_on_the_runs_is_no_change() -> None:
    sent = _table(False)
    assert reconcile(sent, _table(True)).to_dict()["untracked"] == []


def test_a_first_row_made_bold_where_the_style_is_not_is_a_format_change() -> None:
    sent = _table(False, bold_style=False)
    found = reconcile(sent, _table(True, bold_style=False)).to_dict()["untracked"]
    assert [(u["kind"], u["before"], u["properties"]) for u in found] == [
        ("format", "cell 00", ["b"]),
        ("format", "cell 01", ["b"]),
    ]


def test_a_changed_field_code_is_found_and_its_result_is_not() -> None:
    sent = _bytes(_doc(_page_field("1")))
    returned = _bytes(_doc(_page_field("9", " NUMPAGES ")))
    found = reconcile(sent, returned).to_dict()["untracked"]
    assert [(u["kind"], u["before"], u["after"]) for u in found] == [("field", "PAGE", "NUMPAGES")]


def test_a_field_code_rewritten_as_a_re_save_writes_it_is_no_change() -> None:
    """Switches reordered, a format switch added or dropped: the field asks the same."""
    toc = ' TOC \\o "1-3" \\h \\z \\u '
    sent = _bytes(_doc(_page_field("1", toc)))
    returned = _bytes(_doc(_page_field("2", ' TOC \\z \\o "1-3" \\u \\h \\* MERGEFORMAT')))
    assert _untracked(sent, returned) == []


def _wrapped_rows(bold: set[tuple[int, int]]) -> bytes:
    """A 3x3 table of a style whose first column is bold, its last two rows each wrapped in a
    content control (a repeating section: ``w:sdt`` > ``w:sdtContent`` > ``w:tr``); ``bold``:
    the cells (row, column) whose runs state bold themselves."""
    d = docx.Document()
    d.add_paragraph("Fees are set out below.")
    t = d.add_table(rows=3, cols=3)
    t.style = d.styles["Light Grid Accent 1"]  # (first row and first column bold, tblLook 04A0)
    for r, row in enumerate(t.rows):
        for c, cell in enumerate(row.cells):
            cell.paragraphs[0].add_run(f"cell {r}{c}").bold = True if (r, c) in bold else None
    for k, tr in enumerate(list(t._tbl.tr_lst)[1:]):
        sdt = parse_xml(f'<w:sdt {_W}><w:sdtPr><w:id w:val="{k + 7}"/></w:sdtPr><w:sdtContent/></w:sdt>')
        tr.addprevious(sdt)
        sdt[1].append(tr)
    return _bytes(d)


def test_a_table_styles_first_column_written_on_rows_in_content_controls_is_no_change() -> None:
    """HC031: a row in a content control is the table's own row -- its first cell is in the
    first column the style makes bold, and the row counts in the bands and the last row."""
    sent = _wrapped_rows(set())
    assert reconcile(sent, _wrapped_rows({(1, 0), (2, 0)})).to_dict()["untracked"] == []


def test_a_cell_made_bold_in_a_row_in_a_content_control_is_a_format_change() -> None:
    sent = _wrapped_rows(set())
    found = reconcile(sent, _wrapped_rows({(1, 0), (1, 1)})).to_dict()["untracked"]
    assert [(u["kind"], u["before"], u["properties"]) for u in found] == [("format", "cell 11", ["b"])]


def _raised_cells(run_props: dict[tuple[int, int], str]) -> bytes:
    """A 2x2 table whose style raises its text (``w:position`` in the whole table's run
    properties, as HC061's does); ``run_props``: the cells whose run states properties itself."""
    d = docx.Document()
    d.add_paragraph("Fees are set out below.")
    t = d.add_table(rows=2, cols=2)
    t.style = d.styles["Table Grid"]
    style = t.style.element
    rpr = style.find(f"{{{_WNS}}}rPr")
    if rpr is None:
        rpr = parse_xml(f"<w:rPr {_W}/>")
        style.find(f"{{{_WNS}}}name").addnext(rpr)
    rpr.append(parse_xml(f'<w:position {_W} w:val="6"/>'))
    for r, row in enumerate(t.rows):
        for c, cell in enumerate(row.cells):
            run = cell.paragraphs[0].add_run(f"cell {r}{c}")
            if (r, c) in run_props:
                run._r.get_or_add_rPr().append(parse_xml(run_props[(r, c)]))
    d.add_paragraph("The fees are due monthly.")
    return _bytes(d)


_WNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_SUPER = f'<w:vertAlign {_W} w:val="superscript"/>'


def test_text_raised_by_position_written_as_superscript_is_no_change() -> None:
    """HC061: LibreOffice writes a table style's ``w:position`` as ``w:vertAlign`` superscript
    on the runs -- raised text still reads raised."""
    sent = _raised_cells({})
    returned = _raised_cells({k: _SUPER for k in ((0, 0), (0, 1), (1, 0), (1, 1))})
    assert reconcile(sent, returned).to_dict()["untracked"] == []


def test_raised_text_put_back_on_the_line_or_lowered_is_a_format_change() -> None:
    sent = _raised_cells({})
    returned = _raised_cells({
        (0, 0): f'<w:position {_W} w:val="0"/>', (1, 1): f'<w:vertAlign {_W} w:val="subscript"/>',
    })  # fmt: skip
    found = reconcile(sent, returned).to_dict()["untracked"]
    assert [(u["before"], u["properties"]) for u in found] == [
        ("cell 00", ["vertAlign"]),
        ("cell 11", ["vertAlign"]),
    ]


def test_text_on_the_line_made_superscript_is_a_format_change() -> None:
    sent = _bytes(_doc(_page_field("1"), body="Liability is capped at 106 dollars."))
    d = _doc(_page_field("1"), body="Liability is capped at 10")
    d.paragraphs[0].add_run("6").font.superscript = True
    d.paragraphs[0].add_run(" dollars.")
    found = reconcile(sent, _bytes(d)).to_dict()["untracked"]
    assert [(u["kind"], u["before"], u["properties"]) for u in found] == [("format", "6", ["vertAlign"])]


def test_a_seq_fields_counting_switches_dropped_are_no_change() -> None:
    """HC061: LibreOffice drops a ``SEQ``'s ``\\s 1`` (restart at each heading 1): how a caption
    is numbered is its result's computation; which sequence it counts is what it asks."""
    sent = _bytes(_doc(_page_field("1", " SEQ Table \\* ARABIC \\s 1 ")))
    assert _untracked(sent, _bytes(_doc(_page_field("2", " SEQ Table \\* ARABIC ")))) == []
    found = reconcile(sent, _bytes(_doc(_page_field("1", " SEQ Figure \\* ARABIC \\s 1 ")))).to_dict()
    assert [(u["kind"], u["before"], u["after"]) for u in found["untracked"]] == [
        ("field", "SEQ Table", "SEQ Figure")
    ]
