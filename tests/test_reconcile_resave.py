"""What a re-save by another tool rewrites of SENT's own revisions and comments -- those of other
authors, which SENT holds and RETURNED still holds -- is no change of theirs (issue 34): generated
documents (python-docx, lxml) made once as SENT and once as LibreOffice writes them back.  The same
places with a real change made are still found."""

from __future__ import annotations

import io
from typing import Any

import docx

from redline.reconcile.engine import reconcile


def _bytes(d: Any) -> bytes:
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def _commented(comment: list[str], *, body: str = "The Supplier shall deliver the goods.") -> bytes:
    """One paragraph with a comment of "Start" (another author than ours) whose paragraphs are
    ``comment``."""
    d = docx.Document()
    p = d.add_paragraph(body)
    c = d.add_comment(p.runs, text=comment[0], author="Start", initials="S")
    for text in comment[1:]:
        c.add_paragraph(text)
    return _bytes(d)


def test_a_comment_rewritten_with_an_empty_paragraph_is_the_same_comment() -> None:
    """poi-stress010: LibreOffice writes a comment that opens with a field as an empty paragraph
    and its text -- the same comment, not one of theirs."""
    sent = _commented(["<<JOB>>N1028849A", "<<SYMBOL>>CEDAW/C/BGD/6-7"])
    returned = _commented(["", "<<JOB>>N1028849A", "<<SYMBOL>>CEDAW/C/BGD/6-7"])
    d = reconcile(sent, returned).to_dict()
    assert d["theirs"]["comments"] == [] and d["untracked"] == []


def test_a_comment_whose_words_changed_is_a_comment_of_theirs() -> None:
    sent = _commented(["<<JOB>>N1028849A", "<<SYMBOL>>CEDAW/C/BGD/6-7"])
    returned = _commented(["<<JOB>>N1028849B", "<<SYMBOL>>CEDAW/C/BGD/6-7"])
    d = reconcile(sent, returned).to_dict()
    assert [c["text"].split()[0] for c in d["theirs"]["comments"]] == ["<<JOB>>N1028849B"]


_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_BY = 'w:author="Author" w:date="2020-01-01T00:00:00Z"'  # (another author than ours, "Us")
_US = 'w:author="Us" w:date="2026-11-02T10:00:00Z"'


def _run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def _ins(rid: int, inner: str, by: str = _BY) -> str:
    return f'<w:ins w:id="{rid}" {by}>{inner}</w:ins>'


def _para(inner: str, *, mark: str = "") -> str:
    ppr = f"<w:pPr><w:rPr>{mark}</w:rPr></w:pPr>" if mark else ""
    return f"<w:p {_W}>{ppr}{inner}</w:p>"


def _body(*paragraphs: str) -> bytes:
    """A document of ``paragraphs`` (raw ``w:p`` XML), with a change of ours ("Us") first."""
    d = docx.Document()
    body = d.element.body
    for p in list(body):
        if not p.tag.endswith("}sectPr"):
            body.remove(p)
    ours = _para(_run("The Supplier shall deliver ") + _ins(900, _run("promptly "), _US) + _run("the goods."))
    for xml in (ours, *paragraphs):
        body.find("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}sectPr").addprevious(
            docx.oxml.parse_xml(xml)
        )
    return _bytes(d)


def _report(sent: bytes, returned: bytes) -> dict[str, Any]:
    d = reconcile(sent, returned).to_dict()
    assert [c["outcome"] for c in d["ours"]] == ["pending"]
    return d


_TWO = (  # two paragraphs of Author's inserted text, the mark between them untracked
    _para(_ins(1, _run("Junior accessory dwelling units are allowed."))),
    _para(_ins(2, _run("They need no separate entrance."))),
)


def test_an_insertion_of_nothing_is_no_change_of_theirs() -> None:
    """poi-stress023, RA001: LibreOffice writes ``<w:ins><w:r/></w:ins>`` where another author's
    revision ends in an empty run -- it inserts nothing."""
    sent = _body(*_TWO, _para(_run("Fees are due monthly.")))
    returned = _body(
        *_TWO, _para(_run("Fees are due monthly.") + _ins(7, "<w:r><w:rPr><w:b/></w:rPr></w:r>"))
    )
    d = _report(sent, returned)
    assert d["theirs"]["revisions"] == [] and d["untracked"] == []


def test_another_authors_insertion_run_across_the_mark_between_is_theirs_still() -> None:
    """poi-stress023: the mark between two paragraphs another author inserted, written tracked as
    theirs too (LibreOffice keeps one insertion across both) -- SENT's revision, not a new one."""
    sent = _body(*_TWO)
    returned = _body(_para(_TWO[0][len(f"<w:p {_W}>") : -len("</w:p>")], mark=_ins(8, "")), _TWO[1])
    d = _report(sent, returned)
    assert d["theirs"]["revisions"] == [] and d["untracked"] == []


def _field(result: str, *, one: bool) -> str:
    begin = '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'  # noqa: E501
    end = '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    if one:
        return _ins(3, begin + _run(result) + end) + _run(" - As of Dec 2019.")
    return _ins(3, begin) + _run(result) + _ins(4, end) + _run(" - As of Dec 2019.")


def test_a_tracked_field_written_with_its_result_in_one_insertion_is_the_same_revision() -> None:
    """poi-stress023: a field another author inserted (its begin and end tracked, its result not)
    written as one insertion holding its result, recomputed."""
    sent = _body(_para(_field("1", one=False)))
    d = _report(sent, _body(_para(_field("16", one=True))))
    assert d["theirs"]["revisions"] == [] and d["untracked"] == []


def test_untracked_text_typed_into_a_re_cut_revision_is_still_found() -> None:
    """The pieces paired again stay in what RETURNED reads: a word of Author's inserted text
    changed without tracking, beside the mark written tracked, is an untracked change; so is a
    word typed beside the field written as one insertion."""
    sent = _body(*_TWO)
    edited = _TWO[0].replace("allowed", "forbidden")
    returned = _body(_para(edited[len(f"<w:p {_W}>") : -len("</w:p>")], mark=_ins(8, "")), _TWO[1])
    d = _report(sent, returned)
    assert d["theirs"]["revisions"] == []
    assert [(u["before"], u["after"]) for u in d["untracked"]] == [("allowed", "forbidden")]
    sent = _body(_para(_field("1", one=False)))
    d = _report(sent, _body(_para(_field("16", one=True).replace("Dec 2019", "Jan 2020"))))
    assert d["theirs"]["revisions"] == []
    assert [(u["before"], u["after"]) for u in d["untracked"]] == [("Dec", "Jan"), ("2019", "2020")]


def test_a_new_insertion_of_that_author_beside_theirs_is_theirs() -> None:
    """Text SENT's revision does not hold, tracked beside it by the same author: a new change."""
    sent = _body(*_TWO)
    returned = _body(
        _TWO[0], _para(_ins(2, _run("They need no separate entrance.")) + _ins(9, _run(" Ever.")))
    )
    d = _report(sent, returned)
    assert [(r["author"], r["kind"], r["text"]) for r in d["theirs"]["revisions"]] == [
        ("Author", "insert", " Ever.")
    ]
    assert d["untracked"] == []


def _footed(footer: str, body: int = 1) -> bytes:
    """Two sections (``body`` paragraphs each); the first section's footer, which the second
    inherits, is ``footer`` (raw ``w:p`` XML)."""
    d = docx.Document()
    for k in range(body):
        d.add_paragraph(f"Clause {k + 1}. The Supplier shall deliver the goods on time.")
    d.add_section()
    for k in range(body):
        d.add_paragraph(f"Schedule {k + 1}. The fees are due monthly.")
    ftr = d.sections[0].footer._element
    for p in list(ftr):
        ftr.remove(p)
    ftr.append(docx.oxml.parse_xml(footer))
    return _bytes(d)


def test_a_footer_written_out_per_section_holds_copies_of_its_revisions() -> None:
    """poi-stress023: LibreOffice writes a footer the second section inherits out as a part of
    its own -- with its revisions: the copy's are SENT's revisions, not new ones."""
    from tests.test_reconcile_stories import _renumbered

    tail = " ".join(f"Confidential, clause {k}." for k in range(40))  # (the copy far from SENT's)
    footer = _para(_ins(5, _run("Draft for discussion. ")) + _field("1", one=False) + _run(tail))
    sent = _footed(footer, body=3)
    d = reconcile(sent, _renumbered(sent)).to_dict()
    assert d["theirs"]["revisions"] == [] and d["untracked"] == []


def test_an_insertion_written_as_a_move_of_the_same_text_is_the_same_revision() -> None:
    """RA001: LibreOffice writes another author's insertion inside a move's range as a
    ``w:moveTo`` -- by its text, moved text is inserted text, and the move holds no text the
    insertion did not: the same revision, cut anew."""
    sent = _body(*_TWO)
    moved = _TWO[1].replace('<w:ins w:id="2"', '<w:moveTo w:id="12"').replace("</w:ins>", "</w:moveTo>")
    d = _report(sent, _body(_TWO[0], moved))
    assert d["theirs"]["revisions"] == [] and d["untracked"] == []
    other = moved.replace("separate entrance", "separate gate")
    d = _report(sent, _body(_TWO[0], other))
    assert [(r["kind"], r["text"]) for r in d["theirs"]["revisions"]] == [
        ("move_to", "They need no separate gate.")
    ]


def _deleted_row(marks: bool) -> bytes:
    """A 2x2 table whose empty second row another author deleted (``w:trPr/w:del``); ``marks``:
    its cells' paragraph marks tracked as deleted too (as Word writes it)."""
    d = docx.Document()
    d.add_paragraph("The fees are set out below.")
    t = d.add_table(rows=2, cols=2)
    for c, cell in enumerate(t.rows[0].cells):
        cell.paragraphs[0].add_run(f"Fee {c + 1}")
    tr = t.rows[1]._tr
    rid = 31 if marks else 7  # (renumbered, as a re-save does)
    tr.get_or_add_trPr().append(docx.oxml.parse_xml(f'<w:del {_W} w:id="{rid}" {_BY}/>'))
    if marks:
        for k, cell in enumerate(t.rows[1].cells):
            ppr = cell.paragraphs[0]._p.get_or_add_pPr()
            ppr.append(docx.oxml.parse_xml(f'<w:rPr {_W}><w:del w:id="{32 + k}" {_BY}/></w:rPr>'))
    d.add_paragraph("The fees are due monthly.")
    return _bytes(d)


def test_a_row_deletion_written_without_its_marks_deleted_is_the_same_revision() -> None:
    """HC031: LibreOffice writes another author's row deletion with its cells' marks untracked."""
    d = reconcile(_deleted_row(True), _deleted_row(False)).to_dict()
    assert d["theirs"]["revisions"] == [] and d["untracked"] == []
